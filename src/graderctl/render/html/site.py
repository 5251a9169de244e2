"""``graderctl report``: a folder of pages, one per saved report, and an index like a test report: every
grader × set with its trust status (and every comparison, probe and metrics run with its verdict)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graderctl.models.report_site import ReportSite
from graderctl.render.html._page import banner, document, esc, filter_bar, fmt_pct, status

__all__ = ["SiteEntry", "entry_for", "index_page", "page_name", "site_text"]


@dataclass
class SiteEntry:
    """One rendered page, as the index lists it."""

    page: str
    type: str
    source: str
    grader: str
    set: str
    #: ``True`` passed (trusted, comparable, no bias), ``False`` failed, ``None`` no verdict (metrics).
    passed: bool | None
    verdict: str
    figures: str


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9@._-]+", "_", text).strip("._") or "report"


def _ref(grader: Any) -> str:
    if isinstance(grader, dict):
        return f"{grader.get('name')}@{grader.get('version')}"
    return str(grader or "")


def page_name(doc: dict[str, Any], source_stem: str) -> str:
    """A file name for the page of ``doc`` (without the folder), from what it is about."""
    kind = doc.get("type")
    if kind == "calibration":
        return _safe(
            f"calibration--{(doc.get('calibration_set') or {}).get('name')}--{_ref(doc.get('grader'))}"
        )
    if kind == "comparison":
        return _safe(f"comparison--{(doc.get('old') or {}).get('ref')}--{(doc.get('new') or {}).get('ref')}")
    if kind == "probe":
        sets = (doc.get("calibration_set") or {}).get("name")
        return _safe(f"probe--{sets}--{_ref(doc.get('grader'))}-{doc.get('probe')}")
    if kind == "probes":
        return _safe(f"probes--{doc.get('grader')}")
    if kind == "tune":
        return _safe(f"tune--{(doc.get('calibration_set') or {}).get('name')}--{_ref(doc.get('grader'))}")
    return _safe(f"{kind}--{source_stem}")


def _pct(value: Any) -> str:
    return (
        fmt_pct(float(value))
        if isinstance(value, int | float) and not isinstance(value, bool)
        else "undefined"
    )


def entry_for(doc: dict[str, Any], page: str, source: str) -> SiteEntry:
    """The index row of a saved report."""
    kind = str(doc.get("type"))
    if kind == "calibration":
        far, frr = doc.get("false_accept_rate") or {}, doc.get("false_reject_rate") or {}
        trusted = bool(doc.get("trusted"))
        return SiteEntry(
            page,
            kind,
            source,
            _ref(doc.get("grader")),
            str((doc.get("calibration_set") or {}).get("name")),
            trusted,
            "trusted" if trusted else "not trusted",
            f"FAR {far.get('count')}/{far.get('n')} (upper {_pct(far.get('upper_95'))}), "
            f"FRR {frr.get('count')}/{frr.get('n')} (upper {_pct(frr.get('upper_95'))})",
        )
    if kind == "comparison":
        sets = ", ".join(str(s.get("name")) for s in doc.get("sets") or [])
        comparable = bool(doc.get("comparable"))
        return SiteEntry(
            page,
            kind,
            source,
            f"{(doc.get('old') or {}).get('ref')} → {(doc.get('new') or {}).get('ref')}",
            sets + (" + replay" if doc.get("replay") else ""),
            comparable,
            str(doc.get("status", "comparable" if comparable else "not comparable")).replace("_", " "),
            f"margin ±{_pct(doc.get('margin'))}",
        )
    if kind in ("probe", "probes"):
        probes: list[dict[str, Any]] = (doc.get("probes") or []) if kind == "probes" else [doc]
        biased = any(p.get("biased") for p in probes)
        names = ", ".join(str(p.get("probe")) for p in probes)
        set_names = sorted({str((p.get("calibration_set") or {}).get("name")) for p in probes})
        grader = doc.get("grader") if kind == "probes" else _ref(doc.get("grader"))
        return SiteEntry(
            page,
            kind,
            source,
            str(grader),
            ", ".join(set_names),
            not biased,
            "bias found" if biased else "no bias",
            names,
        )
    if kind == "metrics":
        return SiteEntry(
            page,
            kind,
            source,
            ", ".join(str(g) for g in _graders_of_metrics(doc)),
            str((doc.get("results") or {}).get("path", "")),
            None,
            "measured",
            f"{doc.get('tasks')} tasks, {doc.get('trials')} trials, pass@1 "
            f"{_pct((doc.get('pass_at_k') or {}).get('1'))}",
        )
    if kind == "tune":
        meets = bool(doc.get("meets_limits"))
        point = doc.get("chosen") if meets else doc.get("best")
        written = (doc.get("written") or {}).get("ref")
        figures = ""
        if isinstance(point, dict):
            figures = (
                f"{'chosen' if meets else 'closest'}: accept at or above {point.get('accept_at_or_above')}, "
                f"FAR upper {_pct(point.get('false_accept_rate_upper_95'))}, "
                f"FRR upper {_pct(point.get('false_reject_rate_upper_95'))}"
            )
        return SiteEntry(
            page,
            kind,
            source,
            _ref(doc.get("grader")),
            str((doc.get("calibration_set") or {}).get("name")) + " (tune split)",
            meets,
            ("meets the limits" if meets else "no point meets the limits")
            + (f"; wrote {written}" if written else ""),
            figures,
        )
    return SiteEntry(page, kind, source, "", "", None, kind, "")


def _graders_of_metrics(doc: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for check in (doc.get("failures_by_check") or {}).values():
        out += [str(g.get("grader")) for g in check.get("graders") or []]
    return out


_ORDER = {"calibration": 0, "comparison": 1, "probe": 2, "probes": 2, "tune": 3, "metrics": 4}


def index_page(entries: Sequence[SiteEntry]) -> Iterator[str]:
    """The index: a summary line (like a test run's), then every page with its status, failures first."""
    failed = [e for e in entries if e.passed is False]
    passed = [e for e in entries if e.passed is True]
    calibrations = [e for e in entries if e.type == "calibration"]
    trusted = sum(1 for e in calibrations if e.passed)
    summary = (
        f"{len(entries)} report(s): {len(passed)} passed, {len(failed)} failed, "
        f"{len(entries) - len(passed) - len(failed)} without a verdict"
    )
    ordered = sorted(entries, key=lambda e: (e.passed is not False, _ORDER.get(e.type, 9), e.grader, e.set))

    def body() -> Iterator[str]:
        yield "<h1>graderctl reports</h1>"
        yield banner(not failed, summary)
        if calibrations:
            yield (
                f"<p>Calibrations: {trusted} of {len(calibrations)} grader × set pair(s) trusted, "
                f"{len(calibrations) - trusted} not trusted.</p>"
            )
        tid = "index"
        yield filter_bar(tid, "Search", [("fail", "failed"), ("pass", "passed"), ("none", "no verdict")])
        rows = []
        for e in ordered:
            kind = "none" if e.passed is None else ("pass" if e.passed else "fail")
            rows.append(
                f'<tr data-kind="{kind}"><th scope=row><a '
                f'href="{esc(e.page)}">{esc(e.grader) or esc(e.page)}</a>'
                f"</th><td>{esc(e.set)}</td><td>{esc(e.type)}</td>"
                f"<td>{status(e.passed, e.verdict, e.verdict, e.verdict)}</td><td>{esc(e.figures)}</td>"
                f"<td><code>{esc(e.source)}</code></td></tr>"
            )
        yield (
            f'<table id="{tid}"><caption>Every report, failures first</caption><thead><tr>'
            "<th scope=col>grader</th><th scope=col>set</th><th scope=col>report</th><th "
            "scope=col>status</th>"
            "<th scope=col>figures</th><th scope=col>source</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )

    yield from document("graderctl reports: " + summary, body())


def site_text(site: ReportSite, *, pages: int) -> str:
    """What ``graderctl report`` prints: one line per page (its status and where it is), then the count of
    page files written (``pages``, the index aside)."""
    lines = []
    for p in site.pages:
        mark = {True: "ok  ", False: "FAIL", None: "    "}[p.passed]
        lines.append(f"{mark}  {p.type:11} {p.grader} on {p.set}: {p.status} -> {p.path}\n")
    lines.append(f"wrote {pages} page(s) and {site.index}\n")
    return "".join(lines)
