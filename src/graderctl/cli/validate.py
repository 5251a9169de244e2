"""``graderctl validate PATH...``"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, FormatOption, Quiet
from graderctl.errors import ExitCode


class AsType(StrEnum):
    grader = "grader"
    set = "set"
    corpus = "corpus"
    trials = "trials"
    results = "results"
    samples = "samples"
    manifest = "manifest"
    review = "review"


def validate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files or folders (default: the project's graders/ and calibration_sets/)."),
    ] = None,
    as_: Annotated[
        AsType | None, typer.Option("--as", help="Say what the files are instead of guessing.")
    ] = None,
    update_lock: Annotated[
        bool,
        typer.Option(
            "--update-lock", help="Record new grader versions in graders/graders.lock (release them)."
        ),
    ] = False,
    fmt: FormatOption = Format.text,
    quiet: Quiet = False,
    max_problems: Annotated[
        int,
        typer.Option(
            "--max-problems", min=1, help="Report at most this many problems (the rest are counted)."
        ),
    ] = 100,
) -> None:
    """Check grader definitions, calibration sets, corpora, trials and results against the contract.

    Prints each problem on one line (file:line: JSON pointer: what; expected ..., got .... Fix: ...) and the
    summary on stdout; each file's status and notes on stderr. Exit 0 when everything is valid, 3 when any
    problem is found (then said on stderr too)."""
    from graderctl.render.validate import one_line, render_files, render_validation, validation_summary
    from graderctl.services.validate import validate_paths

    root = _state.root() if paths else _state.project_root()  # the project itself must exist
    outcome = validate_paths(
        list(paths or []),
        root=root,
        as_type=as_.value if as_ else None,
        update_lock=update_lock,
        cap=max_problems,
    )
    document = outcome.document().model_dump(mode="json")
    if not quiet and fmt is Format.text:  # with --format json the files and notes are in the document
        if document["files"]:
            _state.err(render_files(document).rstrip("\n"))
        for note in outcome.notes:
            _state.err(one_line(f"note: {note}"))
        for ref in outcome.lock_added:
            _state.err(f"locked {ref}")
    if fmt is Format.json:
        _state.echo_json(document)
    else:
        typer.echo(render_validation(document), nl=False)
    if not outcome.ok:
        # the problems are the result (stdout); the failure is said on stderr too, for logs and CI
        _state.err(f"error: {validation_summary(document)}")
        _state.exit_with(ExitCode.INVALID_INPUT)
