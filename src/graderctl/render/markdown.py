"""The Markdown report a person reads: the verdict on top, the two rates with their bounds, the categories
that fail most, then the misclassified samples with the grader's reasons."""

from __future__ import annotations

from collections.abc import Sequence

from graderctl.models.reports import CalibrationReport, CategoryCounts, RateEstimate, SampleSizeAdvice
from graderctl.render._fmt import (
    cascade_line,
    check_status,
    decisive_bound,
    find_check,
    interval,
    one_line,
    pct,
    repeats_line,
    verdict_line,
    worst,
)

#: At most this many samples are listed per section; the JSON report has them all.
MAX_LISTED = 200


def _cell(text: object) -> str:
    return one_line(str(text), 240).replace("|", "\\|")


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
    return out


def _rate_row(label: str, rate: RateEstimate, check_name: str, report: CalibrationReport) -> list[str]:
    check = find_check(report, check_name)
    limit = f"≤ {pct(check.limit)}" if check else ""
    return [
        label,
        f"{rate.count} / {rate.n}",
        pct(rate.value),
        interval(rate),
        decisive_bound(rate, check),
        limit,
        check_status(check),
    ]


def _breakdown_rows(rows: list[tuple[str, CategoryCounts]]) -> list[list[object]]:
    return [
        [
            key,
            row.n,
            getattr(row, "false_accepts", ""),
            getattr(row, "false_rejects", ""),
            row.errors,
            pct(getattr(row, "rate", None)),
        ]
        for key, row in rows
    ]


def render_markdown(report: CalibrationReport) -> str:
    g, s = report.grader, report.calibration_set
    lines: list[str] = [f"# Calibration of `{g.name}@{g.version}` on `{s.name}` (version {s.version})", ""]
    lines += [f"**Verdict: {verdict_line(report)}.**", ""]
    for check in report.policy_checks:
        if not check.passed:
            lines.append(f"- {check.message}")
    support = report.set_supports_policy
    if support and not support.supported:
        for entry in (support.false_accept_rate, support.false_reject_rate):
            if entry is not None and not entry.supported:
                lines.append(f"- **Set too small:** {entry.message or ''}")
    if lines[-1] != "":
        lines.append("")

    lines += ["## Error rates", ""]
    lines += _md_table(
        ["rate", "count / n", "value", "95% CI (Wilson)", "upper 95% bound", "policy", "result"],
        [
            _rate_row(
                "false accept (known-bad accepted)", report.false_accept_rate, "false_accept_rate", report
            ),
            _rate_row(
                "false reject (known-good rejected)", report.false_reject_rate, "false_reject_rate", report
            ),
            [
                "errors (could not grade)",
                f"{report.errors} / {report.errors + (report.n_graded or 0)}",
                pct(report.error_rate),
                "",
                "",
                f"≤ {pct(report.policy.max_error_rate)}",
                check_status(find_check(report, "error_rate")),
            ],
        ],
    )
    lines.append("")
    cov = report.coverage
    if cov is not None:
        cov_check = find_check(report, "coverage")
        lines.append(
            "- Coverage (share decided; the grader may abstain): "
            f"{cov.decided} / {cov.n} = {pct(cov.value)}, "
            f"95% CI {pct(cov.ci_low)} – {pct(cov.ci_high)}, lower 95% bound {pct(cov.lower_95)}"
            + (f" (policy: ≥ {pct(cov_check.limit)}, {check_status(cov_check)})" if cov_check else "")
            + f"; {report.undecided or 0} undecided sample(s) count in neither rate."
        )
    for label, rate in (
        ("false accept", report.false_accept_rate),
        ("false reject", report.false_reject_rate),
    ):
        c = rate.clustered
        if c:
            lines.append(
                f"- {label}: samples are grouped ({c.n_groups} groups); cluster bootstrap "
                f"(seed {c.seed}): 95% CI {pct(c.ci_low)} – {pct(c.ci_high)}, "
                f"upper 95% bound {pct(c.upper_95)}, design effect "
                f"{_num(c.design_effect)}."
            )
    lines += [
        "- The upper bounds are one-sided 95% Clopper-Pearson bounds; the policy compares them (the larger "
        "of the binomial and the clustered bound when samples are grouped). Samples the grader could not "
        "grade count in neither rate.",
        "",
    ]

    lines += ["## Categories that fail most", ""]
    failing = worst(report.by_category)
    if failing:
        lines += _md_table(
            ["category", "n", "false accepts", "false rejects", "errors", "misclassified"],
            _breakdown_rows(failing),
        )
    else:
        lines.append("No category has a misclassified sample or an error.")
    lines.append("")

    misclassified = [o for o in report.samples if o.correct is False]
    lines += [f"## Misclassified samples ({len(misclassified)})", ""]
    if misclassified:
        lines += _md_table(
            ["id", "label", "grader", "category", "reason"],
            [
                [o.id, o.label.value, "accepted" if o.accepted else "rejected", o.category or "", o.reason]
                for o in misclassified[:MAX_LISTED]
            ],
        )
        if len(misclassified) > MAX_LISTED:
            lines.append(f"\n… and {len(misclassified) - MAX_LISTED} more in the JSON report.")
    else:
        lines.append("None.")
    lines.append("")

    erred = [o for o in report.samples if o.accepted is None and not o.undecided]
    if erred:
        lines += [f"## Samples the grader could not grade ({len(erred)})", ""]
        lines += _md_table(
            ["id", "label", "category", "error"],
            [[o.id, o.label.value, o.category or "", o.error or ""] for o in erred[:MAX_LISTED]],
        )
        if len(erred) > MAX_LISTED:
            lines.append(f"\n… and {len(erred) - MAX_LISTED} more in the JSON report.")
        lines.append("")

    if report.by_generator:
        lines += ["## By generator model", ""]
        lines += _md_table(
            ["generator", "n", "false accepts", "false rejects", "errors", "misclassified"],
            _breakdown_rows(list(report.by_generator.items())),
        )
        lines.append("")

    if report.agreement:
        a = report.agreement
        lines += ["## Agreement between labellers", ""]
        lines.append(
            f"{a.method}: {_num(a.value)} over {a.n_units} samples "
            f"(labellers: {', '.join(a.labellers)}); {a.n_contested} contested."
        )
        contested = a.contested
        if contested:
            shown = ", ".join(f"`{c}`" for c in contested[:MAX_LISTED])
            more = f" … and {len(contested) - MAX_LISTED} more" if len(contested) > MAX_LISTED else ""
            lines.append(f"\nContested: {shown}{more}")
        lines.append("")

    advice = report.sample_size_advice or {}
    if advice:
        lines += ["## Sample size", ""]
        for key, noun, event in (
            ("false_accept_rate", "known-bad", "false accept"),
            ("false_reject_rate", "known-good", "false reject"),
        ):
            advised = advice.get(key)
            if advised:
                lines.append("- " + _advice_sentence(advised, noun, event))
        lines.append("")

    if report.warnings:
        lines += ["## Warnings", ""]
        lines += [f"- {w}" for w in report.warnings]
        lines.append("")

    if report.usage:
        u = report.usage
        lines += [
            "## Usage",
            "",
            f"{u.input_tokens} input tokens, {u.output_tokens} output tokens, "
            f"{u.requests} requests ({u.retries} of them retries), ${u.usd}.",
            "",
        ]

    if report.cascade:
        cascade = report.cascade
        lines += ["## Cascade members", "", f"Mode `{cascade.mode}`: {cascade_line(cascade)}.", ""]
        headers = ["member", "graded", "decided", "accepted", "rejected", "undecided", "errors"]
        lines += _md_table(
            [*headers, "share of samples", "skipped", "requests", "cost"],
            [
                [
                    *(m.ref, m.graded, m.decided, m.accepted, m.rejected, m.undecided, m.errors),
                    *(pct(m.share_of_samples), m.skipped, m.requests, f"${m.usd:.6f}"),
                ]
                for m in cascade.members
            ],
        )
        lines.append("")

    if report.repeats:
        r = report.repeats
        lines += ["## Repeats", "", repeats_line(r) + ".", ""]
        lines += ["| repeat | false accept rate | false reject rate | errors |", "|---|---|---|---|"]
        for entry in r.model_dump()["per_repeat"]:
            far, frr = entry.get("false_accept_rate") or {}, entry.get("false_reject_rate") or {}
            lines.append(
                f"| {entry.get('repeat')} | {_num(far.get('value'))} | {_num(frr.get('value'))} "
                f"| {entry.get('errors', 0)} |"
            )
        flipped = r.flipped_samples
        if flipped:
            lines += ["", "Samples whose outcome changed: " + ", ".join(f"`{f.id}`" for f in flipped[:50])]
        lines.append("")

    lines += [
        "## About this report",
        "",
        f"- Grader: `{g.name}@{g.version}` (kind `{g.kind}`), fingerprint `{g.fingerprint}`",
        f"- Set: `{s.name}` version {s.version} ({s.n_good} known-good, {s.n_bad} known-bad), "
        f"fingerprint `{s.fingerprint}`",
        f"- Policy: false accept ≤ {pct(report.policy.max_false_accept_rate)}, false reject ≤ "
        f"{pct(report.policy.max_false_reject_rate)}, errors ≤ {pct(report.policy.max_error_rate)}",
        f"- graderctl {report.graderctl_version or '?'}, created {report.created_at or '?'}",
        "",
    ]
    return "\n".join(lines)


def _num(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "undefined" if value is None else str(value)


def _advice_sentence(entry: SampleSizeAdvice, noun: str, event: str) -> str:
    count, n, target = entry.count, entry.n, entry.target
    best, needed = entry.best_upper_95, entry.samples_needed_at_this_count
    events = event if count == 1 else event + "s"
    text = (
        f"With {count} {events} in {n} {noun} samples, the best upper bound this set supports is {pct(best)}"
    )
    if best is not None and target is not None and best <= target:
        return text + f", within the policy's {pct(target)}."
    if entry.observed_rate_exceeds_target:
        return text + (
            f"; the observed rate already reaches the policy's {pct(target)}: more {noun} samples will not "
            "help, the grader must improve."
        )
    if needed is None:
        return text + f"; the policy's {pct(target)} cannot be shown with any number of samples."
    more = entry.additional_samples_needed
    return text + (
        f"; to show the policy's {pct(target)} with {count} {events}, {needed} {noun} samples are needed"
        + (f" ({more} more)." if more else ".")
    )
