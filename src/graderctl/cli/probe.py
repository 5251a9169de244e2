"""``graderctl probe REF [--set SET]... [--probe length|order|format|self]... [--margin M] [--format ...]``

Runs bias probes on a grader (see :mod:`graderctl.services.probe`) and writes one report per probe and set
under ``reports/probes/<set>/<name>@<version>-<probe>.json`` (+ ``.md``).

Exit codes: 0 no bias found (each probe says ``ok`` when the evidence rules a bias out, ``inconclusive`` when
it cannot); 1 a probe found a bias beyond its margin; 2 bad usage; 3 bad input; 4 the grader could not run.
``--format json`` prints one document: the probe's own when one probe ran on one set, else
``{"schema_version": 1, "type": "probes", "biased": ..., "probes": [...]}``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from graderctl.cli import _options as opt
from graderctl.cli import _state
from graderctl.cli._options import RenderFormat as Format
from graderctl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from graderctl.services.probe import ProbeRun


def probe(
    ref: opt.GraderRef,
    sets: opt.GraderSets = None,
    probes: Annotated[
        list[str] | None,
        typer.Option(
            "--probe",
            help="length, order, format or self (repeatable; default: length, order and format, plus self "
            "for model-based graders).",
        ),
    ] = None,
    margin: Annotated[
        float, typer.Option("--margin", help="Largest rise in the error rate (or share of flips) tolerated.")
    ] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the transformations.")] = 20240601,
    fmt: opt.RenderFormatOption = Format.text,
    output: opt.RenderingOutput = None,
    jobs: opt.Jobs = 1,
    timeout: opt.SampleTimeout = None,
    batch_size: opt.SampleBatchSize = 64,
    no_cache: opt.NoCache = False,
    no_write: opt.NoWriteReports = False,
    quiet: opt.Quiet = False,
) -> None:
    """Check a grader for length, order, format and self-preference biases."""
    from graderctl.services.probe import ProbeRun, run_probes
    from graderctl.services.running import RunOptions
    from graderctl.services.trust import chosen_sets
    from graderctl.store.project import find_grader

    if not 0 <= margin < 1:
        raise UsageError(f"--margin must be in [0, 1), got {margin:g}")
    opt.check_timeout(timeout)
    if output is not None:  # the run writes into the project too: refuse an unwritable --output first
        from graderctl.store.outputs import check_writable

        check_writable(output)
    _state.check_output(output)
    root = _state.root()
    grader = find_grader(ref, root)
    chosen = chosen_sets(root, grader.spec.check, sets)
    if output is not None:  # --output is no input of the run (exit 2 before anything runs)
        from graderctl.store.outputs import check_outputs, grader_inputs, set_inputs

        check_outputs([("--output", output)], [*grader_inputs(grader), *set_inputs(chosen)])
    if probes:
        names = list(probes)
    else:
        names = ["length", "order", "format"] + (["self"] if grader.kind.model_based else [])
    options = RunOptions(jobs=jobs, timeout=timeout, batch_size=batch_size, use_cache=not no_cache)
    run = ProbeRun(grader=grader.ref)
    for cal_set in chosen:
        if not quiet:
            _state.err(f"probing {grader.ref} on {cal_set.name}: {', '.join(names)}")
        results = run_probes(
            grader,
            cal_set,
            names,
            root=root,
            margin=margin,
            seed=seed,
            options=options,
            write=not no_write,
        )
        run.results.extend(results)
        if not quiet:
            for r in results:
                if r.json_path:
                    _state.err(f"wrote {r.json_path} and {r.md_path.rsplit('/', 1)[-1] if r.md_path else ''}")
    text = _render(run, fmt)
    if output is not None:  # written first: a failed write leaves stdout for the error document
        from graderctl.store.atomic import atomic_write_text

        atomic_write_text(output, _render(run, Format.html) if opt.html_file(output) else text)
    typer.echo(text, nl=False)
    _state.JSON_PRINTED = True
    if run.biased:
        _state.exit_with(ExitCode.NEGATIVE_VERDICT)


def _render(run: ProbeRun, fmt: Format) -> str:
    if fmt is Format.json:
        return json.dumps(run.document().model_dump(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if fmt is Format.md:
        from graderctl.render.probe import render_markdown

        return "\n---\n\n".join(render_markdown(r.document) for r in run.results)
    if fmt is Format.html:
        from graderctl.render.html import probe_page

        return "".join(probe_page(run.document().model_dump()))
    from graderctl.render.probe import render_probe_text

    return render_probe_text(run.grader, [(r.set_name, r.outcome, r.document) for r in run.results])
