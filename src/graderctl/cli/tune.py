"""``graderctl tune REF --set SET [--param threshold] [--target far=0.05,frr=0.2] [--band]``

Exit codes: 0 an operating point meets the limits (and, unless --no-write, a new version was written);
1 none meets them (nothing written); 2 bad usage; 3 bad input (no tune split, no such parameter, a kind
without scores); 4 the grader could not run; 130 interrupted (nothing written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from graderctl.cli import _options as opt
from graderctl.cli import _state
from graderctl.cli._options import RenderFormat as Format
from graderctl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from graderctl.models.tuning import TuneResult

_TARGET_KEYS = {"far": "far", "frr": "frr", "coverage": "coverage", "min_coverage": "coverage"}


def parse_target(text: str) -> dict[str, float]:
    """``far=0.05,frr=0.2[,coverage=0.8]`` -> ``{"far": 0.05, ...}``; a bad item is a usage error."""
    out: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in _TARGET_KEYS:
            raise UsageError(
                f"--target takes far=RATE,frr=RATE[,coverage=SHARE]; got {item!r}. "
                "Example: --target far=0.05,frr=0.2"
            )
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"--target {key} must be a number in [0, 1]; got {value!r}") from None
        if not 0.0 <= number <= 1.0:
            raise UsageError(f"--target {key} must be in [0, 1]; got {number:g}")
        out[_TARGET_KEYS[key]] = number
    if not out:
        raise UsageError("--target is empty; example: --target far=0.05,frr=0.2")
    return out


def tune(
    ref: opt.GraderRef,
    set_: Annotated[
        str,
        typer.Option(
            "--set", help="Set name (in the project) or folder path such as ./my-set; its tune split is used."
        ),
    ],
    param: Annotated[
        str, typer.Option("--param", help="The parameter swept (the kind's score is compared with it).")
    ] = "threshold",
    target: Annotated[
        str | None,
        typer.Option(
            "--target", help="Limits instead of the set's policy: far=RATE,frr=RATE[,coverage=SHARE]."
        ),
    ] = None,
    band: Annotated[
        bool, typer.Option("--band", help="Choose an abstention band (reject below, accept at or above).")
    ] = False,
    fmt: opt.RenderFormatOption = Format.text,
    output: opt.RenderingOutput = None,
    no_write: Annotated[
        bool, typer.Option("--no-write", help="Show the trade-off and the choice; write no new version.")
    ] = False,
    no_lock: Annotated[
        bool, typer.Option("--no-lock", help="Do not record the new version in graders/graders.lock.")
    ] = False,
    jobs: opt.Jobs = 1,
    timeout: opt.SampleTimeout = None,
    batch_size: opt.SampleBatchSize = 64,
    quiet: opt.Quiet = False,
    no_cache: opt.NoCache = False,
) -> None:
    """Choose a grader's operating point on the tune split of a set and write it as a new version.

    Sweeps the decision threshold over the grader's scores on the set's tune samples only (certify samples
    are never read), prints the false accept / false reject trade-off, picks the threshold (or with --band
    the abstention band) that meets the set's policy (one-sided 95% upper bounds, as calibrate decides
    trust) with the lowest false reject rate, and writes graders/<name>/v<N+1>.toml. The verdict on it is
    `graderctl calibrate NEW --set SET --split certify`.

    Exit codes: 0 a point meets the limits; 1 none does (nothing written); 3 bad input; 4 the grader could
    not run; 130 interrupted.
    """
    opt.check_timeout(timeout)
    limits = parse_target(target) if target is not None else None
    if output is not None:  # the run writes into the project too: refuse an unwritable --output first
        from graderctl.store.outputs import check_writable

        check_writable(output)
    _state.check_output(output)
    from graderctl.cli._progress import progress_bar, progress_enabled
    from graderctl.services.running import RunOptions
    from graderctl.services.tune import tune as run_tune
    from graderctl.store.project import find_grader, find_set

    root = _state.root()
    grader = find_grader(ref, root)
    cal_set = find_set(set_, root)
    options = RunOptions(jobs=jobs, timeout=timeout, batch_size=batch_size, use_cache=not no_cache)
    command = f"graderctl tune {grader.ref} --set {cal_set.name}" + (
        f" --param {param}" if param != "threshold" else ""
    )
    if target is not None:
        command += f" --target {target}"
    if band:
        command += " --band"
    show = progress_enabled(machine_output=fmt is Format.json, quiet=quiet)
    try:
        with progress_bar(f"tuning {grader.ref} on {cal_set.name} (tune split)", enabled=show) as progress:
            result = run_tune(
                grader,
                cal_set,
                root=root,
                param=param,
                target=limits,
                band=band,
                write=not no_write,
                update_lock=not no_lock,
                options=options,
                progress=progress,
                command=command,
            )
    except KeyboardInterrupt:
        _state.err("interrupted: nothing was written")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    text = _render(result, fmt)
    if output is not None:  # written first: a failed write leaves stdout for the error document
        from graderctl.cli._options import html_file
        from graderctl.store.atomic import atomic_write_text

        atomic_write_text(output, _render(result, Format.html) if html_file(output) else text)
    typer.echo(text, nl=False)
    _state.JSON_PRINTED = True
    if not result.meets_limits:
        _state.exit_with(ExitCode.NEGATIVE_VERDICT)


def _render(result: TuneResult, fmt: Format) -> str:
    import json

    from graderctl.render.tune import render_tune_markdown, render_tune_text

    if fmt is Format.json:
        return (
            json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        )
    if fmt is Format.md:
        return render_tune_markdown(result)
    if fmt is Format.html:
        from graderctl.render.html import tune_page

        return "".join(tune_page(result.model_dump(mode="json")))
    return render_tune_text(result)
