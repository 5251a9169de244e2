"""Number and table formatting shared by the renderers."""

from __future__ import annotations

from collections.abc import Sequence

from graderctl.models.repeats import RepeatsSection
from graderctl.models.reports import (
    CalibrationReport,
    CascadeSummary,
    CategoryCounts,
    PolicyCheck,
    RateEstimate,
)


def pct(value: float | None, digits: int = 2) -> str:
    """``0.0495`` -> ``"4.95%"``; ``None`` -> ``"undefined"``."""
    if value is None:
        return "undefined"
    text = f"{100 * value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def interval(rate: RateEstimate) -> str:
    if rate.ci_low is None or rate.ci_high is None:
        return "undefined"
    return f"{pct(rate.ci_low)} – {pct(rate.ci_high)}"


def verdict_line(report: CalibrationReport) -> str:
    """``TRUSTED`` or ``NOT TRUSTED`` with the reason in a few words."""
    if report.trusted:
        return "TRUSTED: the grader meets the set's policy"
    failed = [c for c in report.policy_checks if not c.passed]
    if not failed and report.set_supports_policy is not None and not report.set_supports_policy.supported:
        return "NOT TRUSTED: the set cannot support its own policy (too small, or a limit of 1)"
    what = ", ".join(check_name(c) for c in failed) or "the policy"
    return f"NOT TRUSTED: {what} not within the policy"


def check_name(check: PolicyCheck) -> str:
    return check.name.replace("_", " ")


def check_status(check: PolicyCheck | None) -> str:
    if check is None:
        return ""
    if check.passed:
        return "pass"
    if check.observed is None:
        return "FAIL (undefined)"
    excess = pct(check.excess).removesuffix("%")
    return f"FAIL (+{excess} points)"


def find_check(report: CalibrationReport, name: str) -> PolicyCheck | None:
    return next((c for c in report.policy_checks if c.name == name), None)


def decisive_bound(rate: RateEstimate, check: PolicyCheck | None) -> str:
    """The upper bound the verdict compared with the limit: the Clopper-Pearson bound, or the clustered
    bound when samples are grouped and it is the larger (marked so), so a table and its verdict agree."""
    if check is not None and check.bound == "clustered.upper_95" and check.observed is not None:
        return f"{pct(check.observed)} (clustered)"
    return pct(rate.upper_95)


def worst(rows: dict[str, CategoryCounts], limit: int | None = None) -> list[tuple[str, CategoryCounts]]:
    """Rows with at least one misclassified sample or error, worst first (rate, then size)."""

    def rate(row: CategoryCounts) -> float:
        value = getattr(row, "rate", None)
        return float(value) if value is not None else 0.0

    def bad(row: CategoryCounts) -> int:
        return int(getattr(row, "false_accepts", 0) or 0) + int(getattr(row, "false_rejects", 0) or 0)

    chosen = [(k, r) for k, r in rows.items() if bad(r) or r.errors]
    chosen.sort(key=lambda kr: (-rate(kr[1]), -bad(kr[1]), -kr[1].errors, kr[0]))
    return chosen if limit is None else chosen[:limit]


def one_line(text: str | None, width: int = 160) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = ()) -> str:
    """A plain aligned table (columns in ``right`` are right-aligned)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [
            (cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])) for i, cell in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def repeats_line(repeats: RepeatsSection) -> str:
    """``calibrate --repeats``: how many samples changed outcome across the repeats, and whether that is
    enough to call the grader consistent (``inconclusive`` when the interval is wider than the margin)."""
    section = repeats.model_dump()
    if section.get("self_consistency") is None:
        return (
            f"self-consistency over {section.get('r')} repeats: undefined (no sample was decided twice); "
            "inconclusive"
        )
    line = (
        f"self-consistency over {section.get('r')} repeats: {section.get('flipped')} of {section.get('n')} "
        f"samples ({pct(section.get('self_consistency'))}) changed outcome"
    )
    ci = section.get("flipped_ci")
    outcome = section.get("outcome")
    if not isinstance(ci, dict) or outcome is None:
        return line  # a report written before outcomes existed
    margin = section.get("margin")
    bound = f"{pct(ci.get('high'))} at most ({pct(ci.get('confidence'))} upper bound)"
    if outcome == "consistent":
        return f"{line}; consistent: {bound}, within the margin {pct(margin)}"
    if outcome == "inconsistent":
        return f"{line}; INCONSISTENT: more than the margin {pct(margin)}"
    return f"{line}; inconclusive: could be up to {bound}, above the margin {pct(margin)}"


def cascade_line(section: CascadeSummary) -> str:
    """One sentence on who decided what in a cascade, and the calls the later members were spared."""
    parts = [
        f"{m.ref} decided {m.decided} ({pct(m.share_of_samples)}), erred on {m.errors}"
        + (f", {m.requests} request(s), ${m.usd:.6f}" if m.requests else "")
        for m in section.members
    ]
    cost = "" if section.usd_per_sample is None else f"; ${section.usd_per_sample:.6f} per sample"
    return (
        "; ".join(parts)
        + f"; {section.undecided} left undecided; {section.calls_saved} call(s) of later members saved"
        + cost
    )
