"""``graderctl compare OLD_REF NEW_REF [--set SET]... [--replay RESULTS] [--trials TRIALS] [--margin M]``

Exit codes: 0 comparable; 1 not comparable (re-score needed); 3 bad input (unknown grader or set, the two
versions grade different checks, a set of another check, unreadable replay files); 4 a version could not run
or erred on more samples than a set allows; 130 interrupted (nothing written).

``--format json`` prints the comparison report, the same document written to
``reports/comparisons/<old_ref>--<new_ref>.json`` (unless ``--no-write``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graderctl.cli import _options as opt
from graderctl.cli import _state
from graderctl.cli._options import RenderFormat as Format
from graderctl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from graderctl.models.comparison import ComparisonReport
    from graderctl.runner import ProgressCallback


def compare(
    old_ref: Annotated[str, typer.Argument(help="The version in use: name@version (or a definition path).")],
    new_ref: Annotated[str, typer.Argument(help="The candidate version: name@version (or a path).")],
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Set name (in the project) or folder path such as ./my-set (repeatable; default: every set "
            "of the graders' check).",
        ),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option("--replay", help="Graded results (graded by OLD) whose trials NEW re-grades."),
    ] = None,
    trials: Annotated[
        Path | None,
        typer.Option("--trials", help="The trials of --replay (default: the path recorded in the results)."),
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="Corpus (corpus.jsonl) the replayed trials cite.")
    ] = None,
    margin: Annotated[
        float | None,
        typer.Option(
            "--margin",
            help="Equivalence margin on the accept-rate difference "
            "(default: NEW's compare_margin, else 0.02).",
        ),
    ] = None,
    fmt: opt.RenderFormatOption = Format.text,
    output: opt.RenderingOutput = None,
    jobs: opt.Jobs = 1,
    timeout: opt.SampleTimeout = None,
    batch_size: opt.SampleBatchSize = 64,
    no_write: Annotated[
        bool, typer.Option("--no-write", help="Do not write the report under reports/comparisons/.")
    ] = False,
    quiet: opt.Quiet = False,
    no_cache: opt.NoCache = False,
) -> None:
    """Decide whether NEW keeps scores comparable with OLD (an equivalence test on paired outcomes)."""
    from graderctl.cli._progress import progress_bar, progress_enabled
    from graderctl.services.compare import (
        ComparisonStatus,
        ReplayInput,
        check_graders,
        comparison_paths,
        status_of,
    )
    from graderctl.services.compare import compare as run_compare
    from graderctl.services.running import RunOptions
    from graderctl.services.trust import chosen_sets
    from graderctl.store.project import find_grader
    from graderctl.store.readers import display_path

    if margin is not None and not 0 < margin < 1:
        raise UsageError(f"--margin must be a number between 0 and 1 (exclusive), got {margin:g}")
    opt.check_timeout(timeout)
    if replay is None and (trials is not None or corpus is not None):
        raise UsageError("--trials and --corpus describe the replayed trials: give --replay RESULTS too")

    if output is not None:  # the run writes into the project too: refuse an unwritable --output first
        from graderctl.store.outputs import check_writable

        check_writable(output)
    _state.check_output(output)
    root = _state.root()
    old = find_grader(old_ref, root)
    new = find_grader(new_ref, root)
    check_graders(old, new)
    chosen = chosen_sets(root, old.spec.check, sets, required=False)  # none: compare says so (or --replay)
    replay_input = (
        ReplayInput.from_paths(replay, trials=trials, corpus=corpus, root=root)
        if replay is not None
        else None
    )
    if output is not None:  # --output is neither an input of the run nor the report it writes (exit 2)
        from graderctl.services.compare import comparison_paths
        from graderctl.store.outputs import check_outputs, grader_inputs, set_inputs

        outputs = [("--output", output)]
        if not no_write:
            outputs += [("the comparison report", p) for p in comparison_paths(root, old.ref, new.ref)]
        check_outputs(
            outputs,
            [
                *grader_inputs(old),
                *grader_inputs(new),
                *set_inputs(chosen),
                ("--replay", replay),
                ("--trials", trials),
                ("--corpus", corpus),
            ],
        )
    show_progress = progress_enabled(machine_output=fmt is Format.json, quiet=quiet)

    def progress_for(label: str) -> AbstractContextManager[ProgressCallback | None]:
        return progress_bar(label, enabled=show_progress)

    try:
        report = run_compare(
            old,
            new,
            chosen,
            root=root,
            margin=margin,
            replay=replay_input,
            options=RunOptions(jobs=jobs, timeout=timeout, batch_size=batch_size, use_cache=not no_cache),
            progress_for=progress_for,
            write=not no_write,
        )
    except KeyboardInterrupt:
        _state.err("interrupted: the comparison report was not written")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None

    status = status_of(report)
    if not quiet:
        for warning in report.warnings:
            _state.err(f"warning: {warning}")
        if not no_write:
            json_path, md_path = comparison_paths(root, report.old.ref, report.new.ref)
            _state.err(f"wrote {display_path(json_path, root)} and {md_path.name}")
    text = _render(report, fmt)
    if output is not None:  # written first: a failed write leaves stdout for the error document
        from graderctl.store.atomic import atomic_write_text

        atomic_write_text(output, _render(report, Format.html) if opt.html_file(output) else text)
    typer.echo(text, nl=False)
    _state.JSON_PRINTED = True
    if status is ComparisonStatus.error_rate_exceeded:
        _state.err("error: a version erred on more samples than a set's max_error_rate allows")
        _state.exit_with(ExitCode.GRADER_FAILED)
    if status is ComparisonStatus.not_comparable:
        _state.exit_with(ExitCode.NEGATIVE_VERDICT)


def _render(report: ComparisonReport, fmt: Format) -> str:
    from graderctl.render.compare import render_markdown, render_text
    from graderctl.services.compare import comparison_to_json

    if fmt is Format.json:
        return comparison_to_json(report)
    if fmt is Format.md:
        return render_markdown(report)
    if fmt is Format.html:
        from graderctl.render.html import comparison_page

        return "".join(comparison_page(report))
    return render_text(report)
