"""``graderctl validate PATH...``"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.errors import ExitCode


class AsType(StrEnum):
    grader = "grader"
    set = "set"
    corpus = "corpus"
    trials = "trials"
    results = "results"


class Format(StrEnum):
    text = "text"
    json = "json"


def validate(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Files or folders (default: graders/ and calibration_sets/).")
    ] = None,
    as_: Annotated[
        AsType | None, typer.Option("--as", help="Say what the files are instead of guessing.")
    ] = None,
    update_lock: Annotated[
        bool, typer.Option("--update-lock", help="Add new grader versions to the lock.")
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.text,
    max_problems: Annotated[
        int, typer.Option("--max-problems", min=1, help="Report at most this many.")
    ] = 100,
) -> None:
    """Check grader definitions, calibration sets, corpora, trials and results against the contract."""
    from graderctl.services.validate import validate_paths

    root = _state.root()
    targets = list(paths) if paths else [root]
    outcome = validate_paths(
        targets, root=root, as_type=as_.value if as_ else None, update_lock=update_lock, cap=max_problems
    )
    if fmt is Format.json:
        typer.echo(json.dumps(outcome.to_dict(), indent=2))
    else:
        for f in outcome.files:
            status = "ok" if f.ok else f"{f.problems} problem(s)"
            _state.err(f"{f.type:8} {f.path}: {status}")
        for note in outcome.notes:
            _state.err(f"note: {note}")
        for ref in outcome.lock_added:
            _state.err(f"locked {ref}")
        for p in outcome.problems:
            typer.echo(p.format())
        if outcome.omitted:
            typer.echo(f"... and {outcome.omitted} more problem(s)")
        n = len(outcome.problems) + outcome.omitted
        _state.err(
            f"{len(outcome.files)} file(s) checked, {n} problem(s)"
            if n
            else f"{len(outcome.files)} file(s) checked: all valid"
        )
    if not outcome.ok:
        _state.exit_with(ExitCode.INVALID_INPUT)
