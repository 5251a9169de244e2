"""``graderctl validate PATH...``"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, FormatOption
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


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


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
    max_problems: Annotated[
        int,
        typer.Option(
            "--max-problems", min=1, help="Report at most this many problems (the rest are counted)."
        ),
    ] = 100,
) -> None:
    """Check grader definitions, calibration sets, corpora, trials and results against the contract.

    Exit 0 when everything is valid, 3 when any problem is found (each printed on one line: file:line:
    JSON pointer: what; expected ..., got .... Fix: ...)."""
    from graderctl.services.validate import validate_paths

    root = _state.root() if paths else _state.project_root()  # the project itself must exist
    outcome = validate_paths(
        list(paths or []),
        root=root,
        as_type=as_.value if as_ else None,
        update_lock=update_lock,
        cap=max_problems,
    )
    if fmt is Format.json:
        _state.echo_json(outcome.document().model_dump(mode="json"))
    else:
        for f in outcome.files:
            status = "ok" if f.ok else f"{f.problems} problem(s)"
            detail = f" [{f.detail}]" if f.detail and f.ok else ""
            _state.err(f"{f.type:8} {f.path}: {status}{detail}")
        for note in outcome.notes:
            _state.err(_one_line(f"note: {note}"))
        for ref in outcome.lock_added:
            _state.err(f"locked {ref}")
        for p in outcome.problems:
            typer.echo(_one_line(p.format()))
        if outcome.omitted:
            typer.echo(f"... and {outcome.omitted} more problem(s) (raise --max-problems to see them)")
        n = outcome.problem_count
        _state.err(
            f"{len(outcome.files)} file(s) checked, {n} problem(s)"
            if n
            else f"{len(outcome.files)} file(s) checked: all valid"
        )
    if not outcome.ok:
        _state.exit_with(ExitCode.INVALID_INPUT)
