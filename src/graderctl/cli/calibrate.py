"""``graderctl calibrate REF [--set SET]... [--format text|json|md] [--output PATH]``

Exit codes: 0 trusted on every set; 1 policy not met on a set; 3 bad input; 4 the grader could not run or
erred on more samples than a set's policy allows; 130 interrupted (the report being computed is not written).

``--format json`` prints one report document, or with several sets one batch document::

    {"schema_version": 1, "type": "calibration_batch", "reports": [...], "failures": [...]}

``--check`` writes nothing and prints whether each report is current (``{"type": "calibration_check"}`` in
JSON); it exits 1 when one is stale and 4 when a grader could not be re-run.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graderctl.cli import _options as opt
from graderctl.cli import _state
from graderctl.cli._options import RenderFormat as Format
from graderctl.errors import ExitCode, GraderRunError, UsageError

if TYPE_CHECKING:
    from graderctl.models.reports import BatchFailure, CalibrationReport
    from graderctl.services.running import RunOptions
    from graderctl.store.project import LoadedGrader, LoadedSet


class SplitChoice(StrEnum):
    tune = "tune"
    certify = "certify"


def calibrate(
    ref: Annotated[
        str | None, typer.Argument(help="Grader: name@version, or name for the newest version.")
    ] = None,
    sets: opt.GraderSets = None,
    fmt: opt.RenderFormatOption = Format.text,
    output: opt.RenderingOutput = None,
    jobs: opt.Jobs = 1,
    timeout: opt.SampleTimeout = None,
    batch_size: opt.SampleBatchSize = 64,
    no_write: opt.NoWriteReports = False,
    all_: Annotated[
        bool, typer.Option("--all", help="Every grader in graders/ on every set of its check.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 when a report is missing or stale (for CI)."),
    ] = False,
    quiet: opt.Quiet = False,
    no_cache: opt.NoCache = False,
    repeats: Annotated[
        int,
        typer.Option(
            "--repeats", min=1, help="Grade every sample R times and report the grader's self-consistency."
        ),
    ] = 1,
    split: Annotated[
        SplitChoice | None,
        typer.Option(
            "--split",
            help="Only this split of the set (certify: the verdict on a tuned version; recorded in "
            "reports/<set>/ledger.jsonl). Report: reports/<set>/<name>@<version>.<split>.json.",
        ),
    ] = None,
) -> None:
    """Run a grader over labelled sets, measure its error rates, write the report and decide trust.

    Reports go to reports/<set>/<name>@<version>.json and .md. With --format json and several sets, one
    {"type": "calibration_batch", "reports": [...]} document is printed (see reports/README.md).

    A set too small for its policy (the report's sample-size advice says how many samples each limit needs),
    or whose max_false_accept_rate or max_false_reject_rate is 0.5 or more, grants no trust.

    Exit codes: 0 trusted on every set; 1 policy not met (with --check: a report is stale); 3 bad input;
    4 the grader could not run or erred on more samples than the policy allows; 130 interrupted.
    """
    if ref is None and not all_:
        raise UsageError("give a grader (name@version), or --all for every grader")
    if ref is not None and all_:
        raise UsageError("give either a grader or --all, not both")
    if all_ and sets:
        raise UsageError("--set cannot be combined with --all (which uses every set of each grader's check)")
    opt.check_timeout(timeout)
    if repeats != 1 and check:
        raise UsageError("--repeats cannot be combined with --check")
    if check and (fmt is Format.html or opt.html_file(output)):
        raise UsageError("--check prints whether reports are current: use --format text or json with it")
    if split is not None and (check or all_):
        raise UsageError(
            "--split cannot be combined with --check or --all (they use the shipped whole-set reports)"
        )

    from graderctl.services.running import RunOptions

    if output is not None:  # the run writes into the project too: refuse an unwritable --output first
        from graderctl.store.outputs import check_writable

        check_writable(output)
    _state.check_output(output)
    root = _state.project_root() if all_ else _state.root()  # --all over nothing must not pass
    try:
        pairs = _pairs(root, ref, sets, all_=all_, quiet=quiet)
    except KeyboardInterrupt:
        _state.err("interrupted: nothing was written")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None

    if output is not None:
        _check_output(output, pairs, root=root, writes_reports=not (no_write or check))

    # The loaded sets live for the whole run: keep the cyclic garbage collector from re-scanning their
    # objects again and again (seconds on 100,000 samples), and from touching their pages in forked workers.
    gc.freeze()
    options = RunOptions(jobs=jobs, timeout=timeout, batch_size=batch_size, use_cache=not no_cache)
    try:
        if check:
            code = _check(pairs, root=root, fmt=fmt, output=output, quiet=quiet, options=options)
        else:
            code = _run(
                pairs,
                root=root,
                fmt=fmt,
                output=output,
                quiet=quiet,
                write=not no_write,
                options=options,
                repeats=repeats,
                split=split.value if split is not None else None,
            )
    finally:
        gc.unfreeze()  # matters only when the command runs inside a longer-lived process (tests, notebooks)
    if code:
        _state.exit_with(code)


def _check_output(
    output: Path, pairs: list[tuple[LoadedGrader, LoadedSet]], *, root: Path, writes_reports: bool
) -> None:
    """--output must not be an input of the run (a grader definition, a file it references, anything inside
    a set) nor one of the reports it writes: exit 2 before anything runs or is written."""
    from graderctl.store.outputs import check_outputs, grader_inputs, set_inputs
    from graderctl.store.reports import report_paths

    graders = {g.ref: g for g, _ in pairs}
    sets = {s.name: s for _, s in pairs}
    outputs: list[tuple[str, Path]] = [("--output", output)]
    if writes_reports:
        for g, s in pairs:
            json_path, md_path = report_paths(root, s.name, g.spec.name, g.spec.version)
            outputs += [("the report", json_path), ("the report", md_path)]
    inputs = [x for g in graders.values() for x in grader_inputs(g)] + set_inputs(sets.values())
    check_outputs(outputs, inputs)


def _pairs(
    root: Path, ref: str | None, sets: list[str] | None, *, all_: bool, quiet: bool
) -> list[tuple[LoadedGrader, LoadedSet]]:
    """The (grader, set) pairs to run: REF on its --set sets (default: every set of its check), or with
    --all every grader on every set of its check."""
    from graderctl.services.calibrate import shipped_pairs
    from graderctl.services.trust import chosen_sets
    from graderctl.store.lock import require_released_intact
    from graderctl.store.project import find_grader

    if all_:
        pairs, notes = shipped_pairs(root)
        if not quiet:
            for note in notes:
                _state.err(f"note: {note}")
        require_released_intact({g.ref: g for g, _ in pairs}.values(), root)  # before anything runs
        return pairs
    assert ref is not None
    grader = find_grader(ref, root)
    require_released_intact([grader], root)
    return [(grader, s) for s in chosen_sets(root, grader.spec.check, sets)]


def _run(
    pairs: list[tuple[LoadedGrader, LoadedSet]],
    *,
    root: Path,
    fmt: Format,
    output: Path | None,
    quiet: bool,
    write: bool,
    options: RunOptions,
    repeats: int,
    split: str | None = None,
) -> int:
    from graderctl.cli._progress import progress_bar, progress_enabled
    from graderctl.models.reports import BatchFailure
    from graderctl.render.text import error_rate_summary
    from graderctl.services.calibrate import CalibrationStatus, calibrate, check_pair, status_of
    from graderctl.store.readers import display_path
    from graderctl.store.reports import report_paths

    for grader, cal_set in pairs:  # every pair is checked before anything runs
        check_pair(grader, cal_set)
        if split is not None:
            from graderctl.services.splits import Split, subset

            subset(cal_set, Split(split))  # a set without that split is an error before anything runs
    show_progress = progress_enabled(machine_output=fmt is Format.json, quiet=quiet)
    reports: list[CalibrationReport] = []
    failures: list[BatchFailure] = []
    written = 0
    code = ExitCode.OK
    for grader, cal_set in pairs:
        label = f"{grader.ref} on {cal_set.name}"
        paths: list[Path] = []
        try:
            with progress_bar(label, enabled=show_progress) as progress:
                report = calibrate(
                    grader,
                    cal_set,
                    root=root,
                    options=options,
                    progress=progress,
                    write=write,
                    repeats=repeats,
                    written=paths,
                    split=split,
                )
        except KeyboardInterrupt:
            done = f"; the {written} report(s) before it were written" if written else ""
            _state.err(f"interrupted: the report of {label} was not written{done}")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except GraderRunError as exc:
            if len(pairs) == 1:
                raise
            _state.err(f"error: {exc}")
            failures.append(BatchFailure(grader=grader.ref, set=cal_set.name, error=str(exc)))
            code = max(code, ExitCode.GRADER_FAILED)
            continue
        reports.append(report)
        if write:
            written += 1
        status = status_of(report)
        if status is CalibrationStatus.error_rate_exceeded:
            code = max(code, ExitCode.GRADER_FAILED)
        elif status is CalibrationStatus.policy_not_met:
            code = max(code, ExitCode.NEGATIVE_VERDICT)
        if not quiet:
            for warning in report.warnings:
                _state.err(f"warning: {label}: {warning}")
            if write:
                json_path, md_path = report_paths(
                    root, cal_set.name, grader.spec.name, grader.spec.version, split
                )
                if paths:
                    _state.err("wrote " + " and ".join(display_path(p, root) for p in paths))
                else:
                    shown = display_path(json_path, root)
                    _state.err(f"unchanged: {shown} and {md_path.name} (same findings)")
        if status is CalibrationStatus.error_rate_exceeded:  # an error, shown even with --quiet
            _state.err(f"error: {label}: {error_rate_summary(report)}")
    file_fmt = Format.html if opt.html_file(output) else fmt
    _emit(
        lambda: _render(reports, failures, fmt),
        output,
        file_chunks=lambda: _render(reports, failures, file_fmt),
    )
    return int(code)


def _emit(
    chunks: Callable[[], Iterable[str]],
    output: Path | None,
    *,
    file_chunks: Callable[[], Iterable[str]] | None = None,
) -> None:
    """Write the rendering to stdout, and to ``output`` (atomically) when given (``file_chunks``' rendering
    when the file wants another format); streamed in chunks, so a report of 100,000 samples is never held in
    memory as one string."""
    import sys

    if output is not None:  # written first: a failed write leaves stdout for the error document
        from graderctl.store.atomic import atomic_write_many

        atomic_write_many({output: (file_chunks or chunks)()})
    for chunk in chunks():
        sys.stdout.write(chunk)
    sys.stdout.flush()
    _state.JSON_PRINTED = True


def _render(reports: list[CalibrationReport], failures: list[BatchFailure], fmt: Format) -> Iterator[str]:
    from graderctl.models.reports import CalibrationBatch
    from graderctl.render.markdown import render_markdown
    from graderctl.render.text import render_text
    from graderctl.store.reports import batch_json_chunks, report_json_chunks

    if fmt is Format.json:
        if len(reports) == 1 and not failures:
            yield from report_json_chunks(reports[0])
            return
        yield from batch_json_chunks(CalibrationBatch(reports=reports, failures=failures))
        return
    if fmt is Format.md:
        yield "\n---\n\n".join(render_markdown(r) for r in reports)
        return
    if fmt is Format.html:
        from graderctl.render.html import calibration_page

        yield from calibration_page(reports, [f.model_dump() for f in failures])
        return
    yield "\n".join(render_text(r) for r in reports)


def _check(
    pairs: list[tuple[LoadedGrader, LoadedSet]],
    *,
    root: Path,
    fmt: Format,
    output: Path | None,
    quiet: bool,
    options: RunOptions,
) -> int:
    from graderctl.cli._progress import progress_bar, progress_enabled
    from graderctl.services.calibrate import check_reports

    show_progress = progress_enabled(machine_output=fmt is Format.json, quiet=quiet)
    try:
        document = check_reports(
            pairs,
            root=root,
            options=options,
            progress=lambda g, s: progress_bar(f"checking {g.ref} on {s.name}", enabled=show_progress),
        )
    except KeyboardInterrupt:
        _state.err("interrupted")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    results = document.reports
    if fmt is Format.json:
        text = json.dumps(document.model_dump(mode="json"), indent=2) + "\n"
    else:
        from graderctl.render.text import render_check_text

        text = render_check_text(results)
    _emit(lambda: [text], output)
    if any(not r.could_run for r in results):
        return int(ExitCode.GRADER_FAILED)
    return int(ExitCode.NEGATIVE_VERDICT) if not document.current else 0
