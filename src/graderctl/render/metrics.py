"""Renderings of a metrics document (``graderctl metrics``) for people: plain text and Markdown.

Both are built from the same sections, taken from the JSON document the service produced, so the three
formats never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graderctl.models.metrics import MetricsDocument


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _pct(value: Any) -> str:
    if value is None:
        return "null"
    return f"{100 * float(value):.1f}%"


def _ci(low: Any, high: Any, fmt: Any = _num) -> str:
    if low is None or high is None:
        return "n/a"  # undefined: the document says why under warnings
    return f"{fmt(low)} – {fmt(high)}"


def _ci_of(value: Any, fmt: Any = _num) -> str:
    if not isinstance(value, dict):
        return "n/a"
    return _ci(value.get("low"), value.get("high"), fmt)


def _money(value: Any) -> str:
    return "null" if value is None else f"${float(value):,.4f}"


@dataclass
class _Section:
    title: str
    lines: list[str] = field(default_factory=list)
    header: list[str] | None = None
    rows: list[list[str]] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)


def _sections(doc: dict[str, Any]) -> list[_Section]:
    out: list[_Section] = []
    conf = doc.get("interval", {}).get("confidence", 0.95)
    level = f"{round(100 * conf)}%"
    null = doc.get("null_trials", {})
    tpt = doc.get("trials_per_task", {})
    summary = _Section("Summary")
    summary.lines += [
        f"Results: {doc['results']['path']}",
        f"Tasks: {_num(doc['tasks'])}; trials: {_num(doc['trials'])} "
        f"({_num(doc['graded_trials'])} graded: {_num(doc['successes'])} succeeded, "
        f"{_num(doc['failures'])} failed; {_num(null.get('count', 0))} could not be graded)",
        f"Graded trials per task: min {_num(tpt.get('min'))}, median {_num(tpt.get('median'), 1)}, "
        f"max {_num(tpt.get('max'))}",
        "Weighting: " + str(doc.get("weighting", {}).get("description", "each task weighted equally")),
    ]
    if null.get("count"):
        summary.lines.append(
            f"Ungraded (success null) trials are counted apart and left out of each task's n: "
            f"{_num(null['count'])}"
            + (
                f", {_num(null['tasks_without_graded_trials'])} task(s) without any graded trial"
                if null.get("tasks_without_graded_trials")
                else ""
            )
        )
    out.append(summary)

    passk = _Section(
        f"pass@k and pass^k (mean over tasks; {level} interval: {doc['interval']['method']})",
        header=["measure", "value", "exact", f"{level} interval"],
    )
    for k in doc["k"]:
        key = str(k)
        passk.rows.append(
            [
                f"pass@{k}",
                _num(doc["pass_at_k"][key], 4),
                doc.get("pass_at_k_exact", {}).get(key, "—"),
                _ci_of(doc["pass_at_k_ci"].get(key)),
            ]
        )
    for k in doc["k"]:
        key = str(k)
        passk.rows.append(
            [
                f"pass^{k}",
                _num(doc["pass_hat_k"][key], 4),
                doc.get("pass_hat_k_exact", {}).get(key, "—"),
                _ci_of(doc["pass_hat_k_ci"].get(key)),
            ]
        )
    out.append(passk)

    rates = _Section("Success rate", header=["weighting", "value", f"{level} interval"])
    tw = doc["success_rate"]["task_weighted"]
    rates.rows.append([tw["label"], _pct(tw["value"]), _ci(tw["ci_low"], tw["ci_high"], _pct)])
    trw = doc["success_rate"]["trial_weighted"]
    rates.rows.append(
        [
            trw["label"],
            f"{_pct(trw['value'])} ({_num(trw['successes'])}/{_num(trw['trials'])})",
            _ci(trw["ci_low"], trw["ci_high"], _pct),
        ]
    )
    corr = doc.get("grader_error_correction") or {}
    if corr.get("applied"):
        rates.rows.append(
            [
                "corrected for grader error (Rogan–Gladen, trial-weighted)",
                _pct(corr["value"]) + (" (clipped)" if corr.get("clipped") else ""),
                _ci(corr.get("ci_low"), corr.get("ci_high"), _pct),
            ]
        )
    out.append(rates)

    if corr:
        section = _Section("Correction for grader error")
        if corr.get("applied"):
            far, frr = corr["far"], corr["frr"]
            section.lines += [
                f"Observed (trial-weighted) {_pct(corr['observed'])} -> corrected {_pct(corr['value'])}, "
                f"{level} interval {_ci(corr.get('ci_low'), corr.get('ci_high'), _pct)}",
                f"FAR {_pct(far['value'])} ({far['count']}/{far['n']}), "
                f"FRR {_pct(frr['value'])} ({frr['count']}/{frr['n']})",
                f"Approach: {corr['approach']}",
                f"Caveat: {corr['caveat']}",
            ]
            for check, rates_of in corr.get("by_check", {}).items():
                section.lines.append(
                    f"  {check}: FAR {rates_of['far']['count']}/{rates_of['far']['n']}, "
                    f"FRR {rates_of['frr']['count']}/{rates_of['frr']['n']} from "
                    + ", ".join(rates_of["reports"])
                )
            if corr.get("flag"):
                section.lines.append(f"Flag: {corr['flag']}")
        else:
            section.lines.append(f"Not applied: {corr.get('why')}")
        out.append(section)

    checks = doc.get("failures_by_check") or {}
    if checks:
        section = _Section("Failures by check", header=["check", "failed", "passed", "null", "grader(s)"])
        for check, v in checks.items():
            graders = ", ".join(str(g["grader"]) for g in v["graders"])
            section.rows.append([check, _num(v["failed"]), _num(v["passed"]), _num(v["null"]), graders])
        out.append(section)

    cit = doc.get("citations")
    if cit:
        section = _Section("Citations")
        coverage = cit.get("citation_coverage")
        shown = "n/a (no claim)" if coverage is None else f"{coverage:.1%}"
        section.lines.append(
            f"Citation coverage {shown}: {_num(cit['cited_claims'])} claim(s) cite a source, "
            f"{_num(cit['uncited_claims'])} factual sentence(s) cite none ({_num(cit['trials'])} trial(s))"
        )
        if cit.get("trials_without_citations"):
            section.lines.append(
                f"{_num(cit['trials_without_citations'])} trial(s) cite nothing: their citation checks fail "
                "(no citations found) unless the task does not require citations"
            )
        out.append(section)

    stops = doc.get("by_stop_reason") or {}
    if stops:
        section = _Section(
            "Trials by stop reason", header=["stop reason", "trials", "succeeded", "failed", "null"]
        )
        for reason, v in stops.items():
            section.rows.append(
                [reason, _num(v["trials"]), _num(v["successes"]), _num(v["failures"]), _num(v["null"])]
            )
        out.append(section)

    cats = doc.get("categories") or {}
    if cats:
        section = _Section(
            "By category",
            header=["category", "tasks", "trials", "task-weighted", "trial-weighted", f"{level} interval"],
        )
        for cat, v in cats.items():
            section.rows.append(
                [
                    cat,
                    _num(v["tasks"]),
                    _num(v["trials"]),
                    _pct(v["success_rate_task_weighted"]),
                    _pct(v["success_rate_trial_weighted"]),
                    _ci_of(v.get("ci"), _pct),
                ]
            )
        out.append(section)

    cost = doc.get("cost") or {}
    section = _Section(f"Cost ({cost.get('over', 'all trials')})", header=["measure", "total", "per success"])
    per = cost.get("cost_per_success", {})
    section.rows += [
        ["dollars", _money(cost.get("usd")), _money(per.get("usd"))],
        ["tokens", _num(cost.get("tokens")), _num(per.get("tokens"), 0)],
        ["tool calls", _num(cost.get("tool_calls")), "—"],
        ["wall time (s)", _num(cost.get("wall_seconds"), 1), _num(per.get("wall_seconds"), 1)],
    ]
    section.footer.append(
        f"Share of dollars spent on failed trials: {_pct(cost.get('failed_share_usd'))}; "
        f"on ungraded trials: {_pct(cost.get('ungraded_share_usd'))}"
    )
    out.append(section)

    combined = doc.get("combined_graders") or {}
    if combined:
        section = _Section("Graders combined after a comparison")
        for check, v in combined.items():
            graders = ", ".join(f"{g['grader']} ({g['trials']} trials)" for g in v["graders"])
            section.lines.append(
                f"{check}: {graders}; found comparable by {', '.join(v['comparison_reports'])}"
            )
        out.append(section)

    notes = doc.get("warnings") or []
    if notes:
        out.append(_Section("Warnings", lines=[f"- {n}" for n in notes]))
    return out


def render_text(document: MetricsDocument) -> str:
    doc = document.model_dump()  # the sections read the document as JSON (the same data --format json prints)
    parts: list[str] = []
    for section in _sections(doc):
        parts.append(section.title)
        parts.append("-" * min(len(section.title), 100))
        parts.extend(section.lines)
        if section.header:
            parts.extend(_text_table(section.header, section.rows))
        parts.extend(section.footer)
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return lines


def render_markdown(document: MetricsDocument) -> str:
    doc = document.model_dump()
    parts = [f"# Metrics: {doc['results']['path']}", ""]
    for section in _sections(doc):
        parts.append(f"## {section.title}")
        parts.append("")
        for line in section.lines:
            parts.append(line if line.startswith("- ") else f"{line}  ")
        if section.lines:
            parts.append("")
        if section.header:
            parts.append("| " + " | ".join(section.header) + " |")
            parts.append("|" + "|".join("---" for _ in section.header) + "|")
            for row in section.rows:
                parts.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
            parts.append("")
        if section.footer:
            parts.extend(section.footer)
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")
