"""Options and arguments shared by several commands, declared once (one name, one help text, one meaning).

A command takes the alias as its parameter's type (``quiet: Quiet = False``), so the same option reads the
same in every ``--help``. Checks of option values shared by several commands live here too.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.errors import UsageError


class Format(StrEnum):
    """What a command prints on stdout: text for people, or exactly one JSON document."""

    text = "text"
    json = "json"


class RenderFormat(StrEnum):
    """What a command that renders a report prints on stdout (and writes with ``--output``)."""

    text = "text"
    json = "json"
    md = "md"
    html = "html"


# -- what is printed ---------------------------------------------------------------------------------------
RenderFormatOption = Annotated[RenderFormat, typer.Option("--format", help="Output format on stdout.")]
FormatOption = Annotated[Format, typer.Option("--format", help="Output format.")]
#: ``-q`` means the same everywhere: stderr keeps only errors; what the command prints on stdout (its results,
#: its summary) is unchanged.
Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress bar, notes or warnings on stderr (errors still show)."),
]

# -- what is written: -o/--output PATH is always the file (or folder) a command writes what it produces to ---
RenderingOutput = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Also write the rendering (in --format) to this file; a .html file gets the HTML page.",
    ),
]
NoWriteReports = Annotated[bool, typer.Option("--no-write", help="Do not write reports under reports/.")]

# -- what is graded ----------------------------------------------------------------------------------------
GraderRef = Annotated[str, typer.Argument(help="Grader: name@version, or name for the newest version.")]
GraderSets = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Set name (in the project) or folder path such as ./my-set (repeatable; default: every set of "
        "the grader's check).",
    ),
]
Corpus = Annotated[
    Path | None,
    typer.Option(
        "--corpus", help="Documents the citations point at (default: corpus.jsonl beside the trials)."
    ),
]

# -- how graders run (calibrate, compare, probe, tune; score's batches are of units) -----------------------
Jobs = Annotated[int, typer.Option("--jobs", min=1, help="Batches graded in parallel.")]
SampleTimeout = Annotated[
    float | None, typer.Option("--timeout", help="Seconds allowed per sample (default: no limit).")
]
SampleBatchSize = Annotated[int, typer.Option("--batch-size", min=1, help="Samples per batch.")]
NoCache = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or fill the verdict cache (model judges).")
]


def check_timeout(timeout: float | None) -> None:
    """``--timeout`` must be a positive, finite number of seconds (exit 2 before any work)."""
    import math

    if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
        raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")


HTML_SUFFIXES = frozenset({".html", ".htm"})


def html_file(output: object) -> bool:
    """Whether ``--output`` names an HTML file: it then gets the HTML page, whatever ``--format`` prints."""
    return isinstance(output, Path) and output.suffix.lower() in HTML_SUFFIXES
