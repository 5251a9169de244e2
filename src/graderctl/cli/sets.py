"""``graderctl sets ...``: calibration-set tools (import public datasets)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, FormatOption, Quiet
from graderctl.errors import UsageError

app = typer.Typer(help="Calibration-set tools.", no_args_is_help=True)


class Dataset(StrEnum):
    wice = "wice"
    realsumm = "realsumm"
    attributionbench = "attributionbench"


class AsCheck(StrEnum):
    source_existence = "source_existence"
    claim_support = "claim_support"
    coverage = "coverage"


class Partial(StrEnum):
    bad = "bad"
    drop = "drop"
    good = "good"


@app.command("import")
def import_(
    dataset: Annotated[
        Dataset, typer.Argument(help="Which upstream dataset: wice, realsumm or attributionbench.")
    ],
    source: Annotated[
        Path,
        typer.Argument(
            help="Your copy of the dataset: the folder holding its files (WiCE: claims-*.jsonl or the "
            "upstream repository; REALSumm: the folder with ratings/; AttributionBench: every *.jsonl in the "
            "folder, e.g. attribution_eval_binary_test_v1_5.jsonl), or one WiCE or AttributionBench file."
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Folder to write the set into; the set becomes OUTPUT/NAME/ "
            "(imported_sets/ is git-ignored).",
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option(
            help="Set name (default: wice-claim-support, wice-source-existence, realsumm-coverage, "
            "attributionbench-claim-support)."
        ),
    ] = None,
    as_check: Annotated[
        AsCheck | None,
        typer.Option(
            "--as-check",
            help="Which check the set calibrates (wice: claim_support, or source_existence for quote checks "
            "built from the annotated supporting sentences; realsumm: coverage; attributionbench: "
            "claim_support).",
        ),
    ] = None,
    partial: Annotated[
        Partial,
        typer.Option(
            help="WiCE partially_supported claims: bad (strict reading, default), drop, or good.",
        ),
    ] = Partial.bad,
    seed: Annotated[
        int, typer.Option(help="Seed of the generated quote variants (--as-check source_existence).")
    ] = 0,
    force: Annotated[bool, typer.Option(help="Replace an existing set folder.")] = False,
    fmt: FormatOption = Format.text,
    quiet: Quiet = False,
) -> None:
    """Import a public human-labelled dataset as a calibration set (written atomically).

    wice: WiCE claims with the web page they cite (claim_support) or quote checks (source_existence).
    realsumm: REALSumm nugget presence in news summaries (coverage). attributionbench: AttributionBench
    claims with their references (claim_support; attributable good, not attributable bad). Records that
    cannot be used are left out and counted by reason; bad upstream files exit 3 naming file and line.
    """
    from graderctl.models.base import Check
    from graderctl.services.importers import import_set

    if output.exists() and not output.is_dir():
        raise UsageError(f"--output {output} is a file; give the folder to write the set into")
    root = _state.root()
    outcome = import_set(
        dataset.value,
        source,
        output,
        name=name,
        as_check=Check(as_check.value) if as_check else None,
        partial=partial.value,
        seed=seed,
        force=force,
        root=root,
    )
    summary = outcome.summary(root)
    if fmt is Format.json:
        _state.echo_json(summary.model_dump(mode="json"))
        return
    from graderctl.render.imports import render_set_import

    typer.echo(render_set_import(summary), nl=False)
    if not quiet:
        for reason, n in summary.dropped.items():
            _state.err(f"left out: {n} ({reason})")
        for note in summary.notes:
            _state.err(f"note: {note}")


@app.command("add")
def add(
    set_ref: Annotated[str, typer.Argument(metavar="SET", help="The set to add to: its name or folder.")],
    reviewed: Annotated[
        Path,
        typer.Option(
            "--from",
            help="A review file written by `graderctl score` (RESULTS.review.jsonl) with `label` filled in "
            "(good or bad) on the lines to add.",
        ),
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check and count, write nothing.")] = False,
    fmt: FormatOption = Format.text,
    quiet: Quiet = False,
) -> None:
    """Add reviewed units to a calibration set as new samples (a new set version).

    Every line of the review file with a `label` becomes a sample: its input as the grader saw it, the
    corpus documents it names, group = its task, provenance = the review file, line, trial, unit and
    grader. Lines without a label are left out and counted. The manifest's version goes up, so the set's
    fingerprint changes and trust bound to the old set lapses until the graders are calibrated again.
    Nothing is written when a labelled line is invalid (exit 3, with file, line and pointer).
    """
    from graderctl.services.calibrate import now_rfc3339
    from graderctl.services.review import add_reviewed

    root = _state.root()
    outcome = add_reviewed(set_ref, reviewed, root=root, added_at=now_rfc3339(), write=not dry_run)
    if fmt is Format.json:
        _state.echo_json(outcome.model_dump(mode="json"))
        return
    from graderctl.render.imports import render_set_add

    typer.echo(render_set_add(outcome, dry_run=dry_run), nl=False)
    for note in [] if quiet else outcome.notes:
        _state.err(f"note: {note}")
