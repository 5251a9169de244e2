"""``graderctl report REPORT.json|FOLDER... --output SITE/ [--format text|json]``

Renders saved reports (calibration, comparison, metrics, probe, tune: told apart by their ``type``) as
self-contained HTML pages in SITE/, with ``index.html`` listing every grader × set with its status. A folder
is searched for ``*.json`` reports; there, a JSON file that is not a graderctl report is skipped with a note,
while a file named on the command line must be one.

Exit codes: 0 written; 2 bad usage; 3 a report is unreadable, invalid, of an unknown type or newer than this
graderctl (nothing is written then).
``--format json`` prints ``{"schema_version": 1, "type": "report_site", "index": ..., "pages": [...]}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, Quiet
from graderctl.errors import InvalidInputError, Problem, UsageError

#: The report types a page can be rendered for.
RENDERED = ("calibration", "calibration_batch", "comparison", "metrics", "probe", "probes", "tune")


def report(
    sources: Annotated[
        list[Path], typer.Argument(help="Saved report documents (.json), or folders to search for them.")
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder to write the pages and index.html to.")
    ],
    fmt: Annotated[Format, typer.Option("--format", help="Output format on stdout.")] = Format.text,
    quiet: Quiet = False,
) -> None:
    """Render saved reports as self-contained HTML pages with an index (like a test report)."""
    from graderctl.render.html.site import entry_for, index_page, page_name, site_text
    from graderctl.store.atomic import atomic_write_many
    from graderctl.store.readers import display_path
    from graderctl.store.reports import read_report_document

    if output.exists() and not output.is_dir():
        raise UsageError(f"--output must be a folder, and {output} is a file")
    root = _state.root()
    found: list[tuple[Path, bool]] = []
    for source in sources:
        if source.is_dir():
            found += [(p, False) for p in sorted(source.rglob("*.json")) if output not in p.parents]
        else:
            found.append((source, True))
    if not found:
        raise InvalidInputError(
            "no report to render",
            [
                Problem(
                    file=", ".join(map(str, sources)), message="no .json file found", fix="give report files"
                )
            ],
        )

    docs: list[tuple[Path, dict[str, Any]]] = []
    problems: list[Problem] = []
    for path, explicit in found:
        shown = display_path(path, root)
        try:
            doc = read_report_document(path, root=root)
        except InvalidInputError as exc:
            if explicit:
                problems += exc.problems
            elif not quiet:
                _state.err(f"note: skipped {shown}: {exc}")
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
            elif not quiet:
                _state.err(f"note: skipped {shown}: {problem.message} ({doc['type']!r})")
            continue
        docs.append((path, doc))
    if problems:
        raise InvalidInputError(
            f"{len(problems)} report(s) cannot be rendered; nothing was written", problems
        )

    pages: dict[Path, Iterable[str]] = {}
    entries = []
    used: set[str] = set()
    for path, doc in docs:
        shown = display_path(path, root)
        name = page_name(doc, path.stem)
        stem, n = name, 1
        while name in used:
            n += 1
            name = f"{stem}-{n}"
        used.add(name)
        pages[output / f"{name}.html"] = "".join(_page(doc, shown))
        if doc["type"] == "calibration_batch":
            entries += [
                entry_for(r, f"{name}.html#r{i}", shown) for i, r in enumerate(doc.get("reports") or [])
            ]
        else:
            entries.append(entry_for(doc, f"{name}.html", shown))
    index = output / "index.html"
    pages[index] = "".join(index_page(entries))
    atomic_write_many(pages)

    if fmt is Format.json:
        from graderctl.models.report_site import ReportSite, SitePage

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
        typer.echo(json.dumps(listing.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    typer.echo(site_text(entries, output, pages=len(pages) - 1, index=index), nl=False)


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
