"""Options shared by the commands that run graders (calibrate, compare, probe, score), declared once."""

from __future__ import annotations

from typing import Annotated

import typer

Jobs = Annotated[int, typer.Option("--jobs", min=1, help="Batches graded in parallel.")]
SampleTimeout = Annotated[
    float | None, typer.Option("--timeout", help="Seconds allowed per sample (default: no limit).")
]
SampleBatchSize = Annotated[int, typer.Option("--batch-size", min=1, help="Samples per batch.")]
NoCache = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or fill the verdict cache (model judges).")
]

HTML_SUFFIXES = frozenset({".html", ".htm"})


def html_file(output: object) -> bool:
    """Whether ``--output`` names an HTML file: it then gets the HTML page, whatever ``--format`` prints."""
    from pathlib import Path

    return isinstance(output, Path) and output.suffix.lower() in HTML_SUFFIXES
