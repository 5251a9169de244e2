"""``graderctl report``: saved reports (calibration, comparison, metrics, probe, tune: told apart by their
``type``) rendered as self-contained HTML pages in a folder, with ``index.html`` listing every grader × set
with its status.

A folder is searched for ``*.json`` reports; there, a JSON file that is not a graderctl report is skipped
with a note, while a file named on the command line must be one. Nothing is written when a named report is
unreadable, invalid, of an unknown type or newer than this graderctl (:class:`InvalidInputError`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.report_site import ReportSite, SitePage

#: The report types a page can be rendered for.
RENDERED = ("calibration", "calibration_batch", "comparison", "metrics", "probe", "probes", "tune")


@dataclass(frozen=True)
class WrittenSite:
    """What :func:`write_site` wrote: the listing ``--format json`` prints, and how many pages (files
    besides the index; a batch report is one page with a row per report)."""

    listing: ReportSite
    pages: int


@dataclass(frozen=True)
class _Saved:
    """A saved report document to render (read back from disk: any of the ``RENDERED`` types)."""

    path: Path
    shown: str
    document: dict[str, Any]


def write_site(
    sources: Sequence[Path],
    output: Path,
    *,
    root: Path,
    note: Callable[[str], None] | None = None,
) -> WrittenSite:
    """Render the reports in ``sources`` (files, or folders searched for ``*.json``) as pages in ``output``
    with an index, written atomically. A file in a folder that cannot be rendered is skipped, said through
    ``note``; a named one that cannot makes the whole call fail before anything is written."""
    from graderctl.render.html.site import entry_for, index_page, page_name
    from graderctl.store.atomic import atomic_write_many

    saved = _read_reports(sources, output, root=root, note=note)
    pages: dict[Path, Iterable[str]] = {}
    entries = []
    used: set[str] = set()
    for report in saved:
        doc = report.document
        name = page_name(doc, report.path.stem)
        stem, n = name, 1
        while name in used:
            n += 1
            name = f"{stem}-{n}"
        used.add(name)
        pages[output / f"{name}.html"] = "".join(_page(doc, report.shown))
        if doc["type"] == "calibration_batch":
            rows = enumerate(doc.get("reports") or [])
            entries += [entry_for(r, f"{name}.html#r{i}", report.shown) for i, r in rows]
        else:
            entries.append(entry_for(doc, f"{name}.html", report.shown))
    index = output / "index.html"
    pages[index] = "".join(index_page(entries))
    atomic_write_many(pages)
    listing = ReportSite(
        index=str(index),
        pages=[
            SitePage(
                path=str(output / e.page),
                source=e.source,
                type=e.type,
                grader=e.grader,
                set=e.set,
                status=e.verdict,
                passed=e.passed,
            )
            for e in entries
        ],
    )
    return WrittenSite(listing=listing, pages=len(pages) - 1)


def _read_reports(
    sources: Sequence[Path], output: Path, *, root: Path, note: Callable[[str], None] | None
) -> list[_Saved]:
    from graderctl.store.readers import display_path
    from graderctl.store.reports import read_report_document, saved_report_sources

    found = saved_report_sources(sources, skip_under=output)
    if not found:
        raise InvalidInputError(
            "no report to render",
            [
                Problem(
                    file=", ".join(map(str, sources)), message="no .json file found", fix="give report files"
                )
            ],
        )
    saved: list[_Saved] = []
    problems: list[Problem] = []
    for path, explicit in found:
        shown = display_path(path, root)
        try:
            doc = read_report_document(path, root=root)
        except InvalidInputError as exc:
            if explicit:
                problems += exc.problems
            elif note is not None:
                note(f"skipped {shown}: {exc}")
            continue
        if doc["type"] not in RENDERED:
            problem = Problem(
                file=shown,
                pointer="/type",
                message="no page for this kind of report",
                expected=", ".join(RENDERED),
                got=repr(doc["type"]),
            )
            if explicit:
                problems.append(problem)
            elif note is not None:
                note(f"skipped {shown}: {problem.message} ({doc['type']!r})")
            continue
        saved.append(_Saved(path, shown, doc))
    if problems:
        raise InvalidInputError(
            f"{len(problems)} report(s) cannot be rendered; nothing was written", problems
        )
    return saved


def _page(doc: dict[str, Any], shown: str) -> Iterable[str]:
    """The page of a saved report; reports with a model are validated through it (exit 3 when invalid)."""
    from graderctl.render import html
    from graderctl.store.reports import calibration_from_document, comparison_from_document

    kind = doc["type"]
    if kind == "calibration":
        return html.calibration_page([calibration_from_document(doc, shown)])
    if kind == "calibration_batch":
        reports = [
            calibration_from_document(r, f"{shown}#/reports/{i}")
            for i, r in enumerate(doc.get("reports") or [])
        ]
        return html.calibration_page(reports, [f for f in doc.get("failures") or [] if isinstance(f, dict)])
    if kind == "comparison":
        return html.comparison_page(comparison_from_document(doc, shown))
    if kind == "metrics":
        return html.metrics_page(doc)
    if kind == "tune":
        return html.tune_page(doc)
    return html.probe_page(doc)
