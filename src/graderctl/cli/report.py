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
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, Quiet
from graderctl.errors import UsageError


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
    from graderctl.render.html.site import site_text
    from graderctl.services.report_site import write_site

    if output.exists() and not output.is_dir():
        raise UsageError(f"--output must be a folder, and {output} is a file")
    written = write_site(
        sources, output, root=_state.root(), note=None if quiet else lambda text: _state.err(f"note: {text}")
    )
    if fmt is Format.json:
        typer.echo(json.dumps(written.listing.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    typer.echo(site_text(written.listing, pages=written.pages), nl=False)
