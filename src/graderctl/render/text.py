"""Plain-text renderings for the terminal (stdout): a calibration report in a few lines, the project list."""

from __future__ import annotations

from collections.abc import Sequence

from graderctl.models.reports import CalibrationReport, ReportCheck
from graderctl.render._fmt import (
    cascade_line,
    check_status,
    decisive_bound,
    find_check,
    interval,
    one_line,
    pct,
    repeats_line,
    table,
    verdict_line,
    worst,
)

__all__ = ["pct", "render_text", "table"]

#: Misclassified samples shown on the terminal (the reports have them all).
MAX_SHOWN = 10


def render_text(report: CalibrationReport) -> str:
    g, s = report.grader, report.calibration_set
    out = [f"{g.name}@{g.version} on {s.name} (v{s.version}): {verdict_line(report)}"]
    rows = []
    for label, rate, name in (
        ("false accept", report.false_accept_rate, "false_accept_rate"),
        ("false reject", report.false_reject_rate, "false_reject_rate"),
    ):
        check = find_check(report, name)
        rows.append(
            [
                label,
                f"{rate.count}/{rate.n}",
                pct(rate.value),
                interval(rate),
                decisive_bound(rate, check),
                pct(check.limit) if check else "",
                check_status(check),
            ]
        )
    total = report.errors + (report.n_graded or 0)
    rows.append(
        [
            "errors",
            f"{report.errors}/{total}",
            pct(report.error_rate),
            "",
            "",
            pct(report.policy.max_error_rate),
            check_status(find_check(report, "error_rate")),
        ]
    )
    cov = report.coverage
    if cov is not None:
        check = find_check(report, "coverage")
        rows.append(
            [
                "coverage",
                f"{cov.decided}/{cov.n}",
                pct(cov.value),
                "" if cov.ci_low is None else f"{pct(cov.ci_low)} – {pct(cov.ci_high)}",
                f"≥ {pct(cov.lower_95)}" if cov.lower_95 is not None else "",
                f"≥ {pct(check.limit)}" if check else "",
                check_status(check),
            ]
        )
    body = table(
        ["rate", "count", "value", "95% CI", "upper 95%", "limit", "result"], rows, right=(1, 2, 4, 5)
    )
    out += ["  " + line for line in body.splitlines()]
    for check in report.policy_checks:
        if not check.passed:
            out.append(f"  - {check.message}")
    support = report.set_supports_policy
    for entry in (support.false_accept_rate, support.false_reject_rate) if support else ():
        if entry is not None and not entry.supported:
            out.append(f"  - {entry.message}")
    failing = worst(report.by_category, 5)
    if failing:
        shown = ", ".join(f"{k} {pct(getattr(r, 'rate', None))} of {r.n}" for k, r in failing)
        out.append(f"  categories failing most: {shown}")
    u = report.usage
    if u is not None and (u.requests or u.cached):
        out.append(
            f"  usage: {u.input_tokens} input + {u.output_tokens} output tokens, "
            f"${u.usd}, {u.requests} request(s) ({u.retries} of them retries), "
            f"{u.cached} cached verdict(s)"
        )
    if report.cascade:
        out.append("  cascade: " + cascade_line(report.cascade))
    if report.repeats:
        out.append("  " + repeats_line(report.repeats))
    misclassified = [o for o in report.samples if o.correct is False]
    if misclassified:
        out.append(f"  misclassified: {len(misclassified)}")
        for o in misclassified[:MAX_SHOWN]:
            said = "accepted" if o.accepted else "rejected"
            out.append(f"    {o.id} ({o.label.value}, {said}): {one_line(o.reason, 120)}")
        if len(misclassified) > MAX_SHOWN:
            out.append(f"    … and {len(misclassified) - MAX_SHOWN} more in the report")
    erred = [o for o in report.samples if o.accepted is None and not o.undecided]
    if erred:
        out.append(f"  could not grade: {len(erred)}")
        for o in erred[:MAX_SHOWN]:
            out.append(f"    {o.id}: {one_line(o.error, 120)}")
        if len(erred) > MAX_SHOWN:
            out.append(f"    … and {len(erred) - MAX_SHOWN} more in the report")
    return "\n".join(out) + "\n"


def error_rate_summary(report: CalibrationReport) -> str:
    """Why a calibration ended in an error: how many samples erred against the policy, the commonest cause."""
    from collections import Counter

    causes = Counter(o.error for o in report.samples if o.accepted is None and o.error)
    total = report.errors + (report.n_graded or 0)
    text = (
        f"the grader erred on {report.errors} of {total} samples ({pct(report.error_rate)}), more than the "
        f"set's policy allows ({pct(report.policy.max_error_rate)})"
    )
    if causes:
        cause, count = causes.most_common(1)[0]
        text += f"; most common error ({count}x): {cause}"
    return text


def render_check_text(results: Sequence[ReportCheck]) -> str:
    """``calibrate --check``: one line per report (current or STALE, with why), then the count."""
    lines = [
        f"{'current' if r.current else 'STALE'}  {r.grader} on {r.set}"
        + ("" if r.current else f": {r.detail}")
        for r in results
    ]
    stale = sum(1 for r in results if not r.current)
    summary = (
        f"{stale} of {len(results)} report(s) stale" if stale else f"all {len(results)} report(s) current"
    )
    return "\n".join([*lines, summary]) + "\n"
