"""Renderings of a comparison report: Markdown (the file beside the JSON) and plain text (the terminal).

Markdown order: the verdict first, then a table per set with one row per stratum, then the replayed trials,
then the flipped samples with both versions' reasons, then which samples drove each failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from graderctl.models.comparison import (
    ComparisonReport,
    FlippedSample,
    ReplayComparison,
    SideOutcome,
    StratumComparison,
)
from graderctl.render._fmt import one_line, table

__all__ = ["render_markdown", "render_text", "verdict_line"]

#: At most this many flipped samples per stratum in Markdown (the JSON has them all), and on the terminal.
MAX_LISTED = 200
MAX_SHOWN = 10


def pct(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "undefined"
    text = f"{100 * value:{'+' if signed else ''}.2f}".rstrip("0").rstrip(".")
    if text in ("-0", "+0"):
        text = "+0" if signed else "0"
    return text + "%"


def num(value: float | None, digits: int = 3) -> str:
    return "undefined" if value is None else f"{value:.{digits}f}"


def p_value(value: float | None) -> str:
    if value is None:
        return "undefined"
    return f"{value:.4g}"


def ci(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "undefined"
    return f"{pct(low, signed=True)} to {pct(high, signed=True)}"


def verdict_line(report: ComparisonReport) -> str:
    margin = pct(report.margin)
    if report.status == "error_rate_exceeded":
        return "CANNOT COMPARE: a version erred on more samples than a set allows"
    if report.comparable:
        if report.identical_definition:
            return "COMPARABLE: same grading definition: outcomes identical by construction"
        return f"COMPARABLE: every stratum's difference in accept rate is within ±{margin}"
    where = ", ".join(_stratum_name(f.set, f.stratum) for f in report.failed_strata)
    return f"NOT COMPARABLE (re-score needed): not shown within ±{margin} on {where}"


def _stratum_name(set_name: str | None, stratum: str) -> str:
    label = {
        "good": "known-good",
        "bad": "known-bad",
        "replay": "replayed trials",
        "decided": "decided samples",
    }[stratum]
    return label if set_name is None else f"{set_name} {label}"


def _side(o: SideOutcome) -> str:
    if o.accepted is None:
        return f"error: {o.error or 'unknown'}"
    return "accepted" if o.accepted else "rejected"


def _cell(text: object) -> str:
    return one_line(str(text), 240).replace("|", "\\|")


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
    return out


def _rate_change(s: StratumComparison) -> str:
    change = s.false_accept_rate or s.false_reject_rate
    if change is None:
        return ""
    short = "FAR" if change.name == "false_accept_rate" else "FRR"
    return (
        f"{short} {pct(change.old)} → {pct(change.new)} ({pct(change.change, signed=True)}; "
        f"{ci(change.ci_low, change.ci_high)})"
    )


def _decision_ci(s: StratumComparison) -> str:
    """The interval compared with the margin; marked when groups widened Tango's."""
    low = s.ci_low if s.decision_ci_low is None else s.decision_ci_low
    high = s.ci_high if s.decision_ci_high is None else s.decision_ci_high
    widened = (low, high) != (s.ci_low, s.ci_high)
    return ci(low, high) + (" (groups)" if widened else "")


def _stratum_row(s: StratumComparison) -> list[object]:
    label = "known-good" if s.label.value == "good" else "known-bad"
    errors = f"{s.errors.old} / {s.errors.new}"
    decisive = ci(s.ci_low, s.ci_high)
    if s.clustered:
        decisive += (
            f"; groups: {ci(s.clustered.ci_low, s.clustered.ci_high)}; "
            f"decides: {_decision_ci(s).removesuffix(' (groups)')}"
        )
    return [
        label,
        s.n,
        errors,
        f"{pct(s.old_accept_rate)} → {pct(s.new_accept_rate)}",
        f"{s.table.both_accept} / {s.table.old_accept_new_reject} / "
        f"{s.table.old_reject_new_accept} / {s.table.both_reject}",
        p_value(s.mcnemar_p),
        pct(s.diff, signed=True),
        decisive,
        num(s.kappa),
        _rate_change(s),
        "pass" if s.comparable else "FAIL",
    ]


STRATUM_HEADERS = [
    "stratum",
    "pairs",
    "errors old / new",
    "accept rate old → new",
    "both acc / old only / new only / both rej",
    "McNemar p",
    "diff",
    "90% CI (Tango)",
    "kappa",
    "error-rate change",
    "result",
]


def _flip_rows(flips: Sequence[FlippedSample]) -> list[list[object]]:
    return [
        [
            f.id,
            f.label.value,
            f.category or "",
            f"{_side(f.old)} → {_side(f.new)}",
            f.old.reason or f.old.error or "",
            f.new.reason or f.new.error or "",
        ]
        for f in flips[:MAX_LISTED]
    ]


def _replay_md(r: ReplayComparison, margin: float) -> list[str]:
    lines = [f"## Replayed trials (`{r.results}`)", ""]
    what = "the check's outcome" if r.outcome == "check" else "success"
    lines.append(
        f"{r.n} trial(s) of {r.n_tasks} task(s) graded by both versions ({what} compared; "
        f"{r.errors.excluded} left out for errors: OLD {r.errors.old}, NEW {r.errors.new})."
    )
    lines.append("")
    lines += _md_table(
        ["pass rate old → new", "agreement", "kappa", "McNemar p", "diff", "90% CI (tasks)", "result"],
        [
            [
                f"{pct(r.old_pass_rate)} → {pct(r.new_pass_rate)}",
                pct(r.agreement),
                num(r.kappa),
                p_value(r.mcnemar_p),
                pct(r.diff, signed=True),
                ci(r.ci_low, r.ci_high),
                "pass" if r.comparable else "FAIL",
            ]
        ],
    )
    lines += ["", r.message, ""]
    if r.ks:
        rows = [
            [
                str(k),
                num(r.pass_at_k.get("old", {}).get(str(k)), 4),
                num(r.pass_at_k.get("new", {}).get(str(k)), 4),
                num(r.pass_hat_k.get("old", {}).get(str(k)), 4),
                num(r.pass_hat_k.get("new", {}).get(str(k)), 4),
            ]
            for k in r.ks
        ]
        lines += _md_table(["k", "pass@k old", "pass@k new", "pass^k old", "pass^k new"], rows)
        lines.append("")
    if r.flipped:
        lines += [f"### Trials whose outcome flipped ({len(r.flipped)})", ""]
        lines += _md_table(
            ["task", "trial", "old → new", "old reasons", "new reasons"],
            [
                [
                    f.task_id,
                    f.trial_id,
                    f"{_passed(f.old.passed)} → {_passed(f.new.passed)}",
                    "; ".join(f.old.reasons),
                    "; ".join(f.new.reasons),
                ]
                for f in r.flipped[:MAX_LISTED]
            ],
        )
        lines.append("")
    return lines


def _passed(value: object) -> str:
    if value is None:
        return "error"
    return "pass" if value else "fail"


def render_markdown(report: ComparisonReport) -> str:
    o, n = report.old, report.new
    lines = [f"# Comparison of `{o.ref}` (old) and `{n.ref}` (new)", ""]
    lines += [f"**Verdict: {verdict_line(report)}.**", ""]
    lines.append(
        f"Equivalence margin ±{pct(report.margin)} ({report.margin_source}); a stratum passes when the "
        f"{round(100 * report.confidence)}% interval of the paired difference in accept rate (new − old) "
        "lies within it."
    )
    lines.append("")
    for f in report.failed_strata:
        lines.append(f"- **{_stratum_name(f.set, f.stratum)}**: {f.reason}")
    if report.failed_strata:
        lines.append("")
    lines += _md_table(
        ["", "grader", "kind", "fingerprint", "behaviour fingerprint"],
        [
            ["old", o.ref, o.kind, f"`{o.fingerprint}`", f"`{o.behaviour_fingerprint}`"],
            ["new", n.ref, n.kind, f"`{n.fingerprint}`", f"`{n.behaviour_fingerprint}`"],
        ],
    )
    lines.append("")
    for s in report.sets:
        lines += [f"## Set `{s.name}` (version {s.version}, {s.n_samples} samples)", ""]
        lines.append(f"Set fingerprint `{s.fingerprint}`.")
        overall = s.overall
        lines.append(
            f"Over all samples: agreement {pct(overall.agreement)}, "
            f"Cohen's kappa {num(overall.kappa)} ({overall.n} pairs)."
        )
        lines.append("")
        lines += _md_table(STRATUM_HEADERS, [_stratum_row(st) for st in s.strata.values()])
        lines.append("")
        for st in s.strata.values():
            lines.append(f"- {'known-good' if st.label.value == 'good' else 'known-bad'}: {st.message}")
        lines.append("")
    if report.replay is not None:
        lines += _replay_md(report.replay, report.margin)
    flips = [(s.name, st) for s in report.sets for st in s.strata.values() if st.flipped]
    if flips:
        lines += ["## Flipped samples", ""]
        for set_name, st in flips:
            noun = "known-good" if st.label.value == "good" else "known-bad"
            lines += [f"### `{set_name}` {noun} ({len(st.flipped)})", ""]
            lines += _md_table(
                ["id", "label", "category", "old → new", "old reason", "new reason"], _flip_rows(st.flipped)
            )
            if len(st.flipped) > MAX_LISTED:
                lines.append(f"\n… and {len(st.flipped) - MAX_LISTED} more in the JSON report.")
            lines.append("")
    else:
        lines += ["## Flipped samples", "", "None: the two versions decided every sample alike.", ""]
    if report.failed_strata:
        lines += ["## What drove the failure", ""]
        for f in report.failed_strata:
            drivers = ", ".join(f"`{i}`" for i in f.samples[:MAX_LISTED])
            lines.append(
                f"- **{_stratum_name(f.set, f.stratum)}**: "
                + (drivers if drivers else "no flipped sample; the stratum is too small for the margin")
            )
        lines.append("")
    if report.warnings:
        lines += ["## Warnings", ""]
        lines += [f"- {w}" for w in report.warnings]
        lines.append("")
    lines.append(f"_graderctl {report.graderctl_version or ''}, {report.created_at or ''}_")
    return "\n".join(lines) + "\n"


def render_text(report: ComparisonReport) -> str:
    o, n = report.old, report.new
    out = [f"{o.ref} → {n.ref}: {verdict_line(report)}"]
    out.append(f"  margin ±{pct(report.margin)} ({report.margin_source})")
    for s in report.sets:
        overall = s.overall
        out.append(
            f"  set {s.name}: {s.n_samples} samples, agreement {pct(overall.agreement)}, "
            f"kappa {num(overall.kappa)}"
        )
        rows = []
        for st in s.strata.values():
            rows.append(
                [
                    "known-good" if st.label.value == "good" else "known-bad",
                    str(st.n),
                    f"{st.errors.old}/{st.errors.new}",
                    f"{pct(st.old_accept_rate)} → {pct(st.new_accept_rate)}",
                    f"{st.b}/{st.c}",
                    p_value(st.mcnemar_p),
                    pct(st.diff, signed=True),
                    _decision_ci(st),
                    num(st.kappa),
                    "pass" if st.comparable else "FAIL",
                ]
            )
        body = table(
            [
                "stratum",
                "pairs",
                "errors",
                "accept rate",
                "b/c",
                "McNemar p",
                "diff",
                "90% CI",
                "kappa",
                "result",
            ],
            rows,
            right=(1, 5, 6, 8),
        )
        out += ["    " + line for line in body.splitlines()]
        for st in s.strata.values():
            out.append(f"    - {st.message}")
            for f in st.flipped[:MAX_SHOWN]:
                out.append(
                    f"      {f.id} ({f.label.value}): {_side(f.old)} → {_side(f.new)}; "
                    f"old: {one_line(f.old.reason, 60)}; new: {one_line(f.new.reason, 60)}"
                )
            if len(st.flipped) > MAX_SHOWN:
                out.append(f"      … and {len(st.flipped) - MAX_SHOWN} more in the report")
    r = report.replay
    if r is not None:
        out.append(
            f"  replay {r.results}: {r.n} trials, {r.n_tasks} tasks, pass rate {pct(r.old_pass_rate)} → "
            f"{pct(r.new_pass_rate)}, diff {pct(r.diff, signed=True)} (90% CI {ci(r.ci_low, r.ci_high)}), "
            f"kappa {num(r.kappa)}: {'pass' if r.comparable else 'FAIL'}"
        )
        if r.ks:
            rows = [
                [
                    str(k),
                    num(r.pass_at_k.get("old", {}).get(str(k)), 4),
                    num(r.pass_at_k.get("new", {}).get(str(k)), 4),
                    num(r.pass_hat_k.get("old", {}).get(str(k)), 4),
                    num(r.pass_hat_k.get("new", {}).get(str(k)), 4),
                ]
                for k in r.ks
            ]
            body = table(
                ["k", "pass@k old", "pass@k new", "pass^k old", "pass^k new"], rows, right=(1, 2, 3, 4)
            )
            out += ["    " + line for line in body.splitlines()]
        out.append(f"    - {r.message}")
    for failed in report.failed_strata:
        shown = ", ".join(failed.samples[:MAX_SHOWN]) + (" …" if len(failed.samples) > MAX_SHOWN else "")
        out.append(
            f"  failed: {_stratum_name(failed.set, failed.stratum)}"
            + (
                f" (driven by {shown})"
                if shown
                else f" ({failed.reason})"
                if failed.stratum == "decided"
                else " (no flip: too few samples for the margin)"
            )
        )
    return "\n".join(out) + "\n"
