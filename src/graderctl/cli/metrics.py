"""``graderctl metrics RESULTS [--k 1,2,5] [--weights FILE] [--format text|json|md]``

Exit codes: 0 done; 2 bad usage; 3 invalid results (a located problem per bad line), k > n for some task (the
tasks are named), missing weights, results mixing grader versions that no comparison report found
comparable, or ``--correct`` without usable calibration reports.

``--format json`` prints exactly one document ``{"schema_version": 1, "type": "metrics", ...}``
(CONTRACT.md §6); text and Markdown are for people. Warnings go to stderr (and into the document).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Quiet, RenderFormatOption, RenderingOutput
from graderctl.cli._options import RenderFormat as Format

if TYPE_CHECKING:
    from graderctl.models.metrics import MetricsDocument


def metrics(
    results: Annotated[
        Path, typer.Argument(help="Graded results (JSON Lines), e.g. from `graderctl score`.")
    ],
    k: Annotated[
        str | None,
        typer.Option(
            "--k",
            help="Values of k, comma-separated (default: 1 and each of 2, 3, 5, 10 up to the smallest "
            "number of graded trials of a task).",
        ),
    ] = None,
    weights: Annotated[
        Path | None,
        typer.Option(
            "--weights",
            help="Declared task weights: JSON {task_id: weight} or CSV task_id,weight (default: equal).",
        ),
    ] = None,
    fmt: RenderFormatOption = Format.text,
    output: RenderingOutput = None,
    quiet: Quiet = False,
    correct: Annotated[
        bool,
        typer.Option(
            "--correct",
            help="Require the success rate corrected for grader error (exit 3 when the calibration reports "
            "are missing). Without it the correction is shown whenever reports are found.",
        ),
    ] = False,
    calibration: Annotated[
        list[Path] | None,
        typer.Option(
            "--calibration",
            help="Calibration report(s) giving the graders' FAR and FRR (default: the reports under "
            "reports/ whose grader fingerprint is in the results).",
        ),
    ] = None,
    n_boot: Annotated[
        int, typer.Option("--n-boot", min=100, max=1_000_000, help="Bootstrap resamples.")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Bootstrap seed.")] = 20240601,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval confidence level.")
    ] = 0.95,
) -> None:
    """pass@k, pass^k, success rates, cost and failure breakdowns from graded results."""
    from graderctl.render.metrics import render_markdown, render_text
    from graderctl.services.metrics import MetricsOptions, compute_metrics, parse_ks

    _state.check_output(output)
    options = MetricsOptions(
        ks=parse_ks(k) if k is not None else None,
        weights=weights,
        correct=correct,
        calibration=list(calibration or []),
        confidence=confidence,
        n_boot=n_boot,
        seed=seed,
    )
    root = _state.root()
    if output is not None:  # never over an input: the results, the weights, a calibration report (exit 2)
        from graderctl.store.outputs import check_outputs
        from graderctl.store.reports import report_files

        check_outputs(
            [("--output", output)],
            [
                ("the results", results),
                ("--weights", weights),
                *(("--calibration", c) for c in calibration or []),
                *(("a calibration report under reports/", r) for r in report_files(root)),
            ],
        )
    report = compute_metrics(results, root=root, options=options)
    if fmt is Format.json:
        text = json.dumps(report.document.model_dump(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        for note in [] if quiet else report.warnings:
            _state.err(f"warning: {note}")
    elif fmt is Format.md:
        text = render_markdown(report.document)
    elif fmt is Format.html:
        text = _html(report.document)
    else:
        text = render_text(report.document)
    if output is not None:  # written first: a failed write leaves stdout for the error document
        from graderctl.cli._options import html_file
        from graderctl.store.atomic import atomic_write_text

        atomic_write_text(output, _html(report.document) if html_file(output) else text)
    typer.echo(text, nl=False)
    _state.JSON_PRINTED = True


def _html(document: MetricsDocument) -> str:
    from graderctl.render.html import metrics_page

    return "".join(metrics_page(document.model_dump()))
