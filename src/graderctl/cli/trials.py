"""``graderctl trials import inspect LOG... -o TRIALS``, ``graderctl trials import jsonl FILE --map ...``

Exit codes: 0 imported; 2 bad usage; 3 unreadable or invalid input (an Inspect log without the optional
``graderctl[inspect]`` extra installed is exit 3 naming the extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, Quiet

if TYPE_CHECKING:
    from graderctl.models.results import TrialsImportSummary
    from graderctl.services.trials_import import ImportOptions

app = typer.Typer(help="Agent-trial tools (import what harnesses write).", no_args_is_help=True)
import_app = typer.Typer(
    help="Import agent trials from Inspect AI logs or from any JSON Lines.", no_args_is_help=True
)
app.add_typer(import_app, name="import")


Output = Annotated[Path, typer.Option("--output", "-o", help="Where to write the trials (JSON Lines).")]
ResultsOutput = Annotated[
    Path | None,
    typer.Option(
        "--results-output",
        help="Also write graded results whose success comes from the harness's own scores (for `metrics`).",
    ),
]
Prices = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="MODEL=IN/OUT: USD per million input and output tokens (repeatable), e.g. openai/gpt-4o=2.5/10.",
    ),
]
PricesFile = Annotated[
    Path | None,
    typer.Option("--prices", help='A TOML (or .json) file: ["MODEL"] input = USD/1M, output = USD/1M.'),
]
SuccessValue = Annotated[
    float,
    typer.Option(
        "--success-value", help="A score at least this (after Inspect's value_to_float) is a success."
    ),
]
Fmt = Annotated[Format, typer.Option("--format", help="Summary format on stdout.")]


def _prices(price: list[str] | None, prices_file: Path | None) -> Any:
    from graderctl.services.trials_import import parse_price, read_prices

    out = read_prices(prices_file, _state.root()) if prices_file is not None else {}
    for text in price or []:
        model, value = parse_price(text)
        out[model] = value
    return out


def _check_outputs(options: ImportOptions, inputs: list[tuple[str, Path]], prices_file: Path | None) -> None:
    """No output of the import over an input (a log, the JSON Lines, the prices file) or another output:
    exit 2 before anything is written."""
    from graderctl.store.outputs import check_outputs

    check_outputs(
        [
            ("--output", options.output),
            *(("--corpus-output", p) for p in [options.corpus_output] if p is not None),
            *(("--results-output", p) for p in [options.results_output] if p is not None),
        ],
        [*inputs, ("--prices", prices_file)],
    )


def _show(summary: TrialsImportSummary, fmt: Format, *, quiet: bool) -> None:
    if fmt is Format.json:
        _state.echo_json(summary.model_dump(mode="json"))
        return
    from graderctl.render.imports import render_trials_import, render_trials_next

    typer.echo(render_trials_import(summary), nl=False)
    for note in [] if quiet else summary.notes:
        _state.err(f"note: {note}")
    typer.echo(render_trials_next(summary), nl=False)


@import_app.command("inspect")
def import_inspect(
    logs: Annotated[
        list[Path],
        typer.Argument(help="Inspect AI logs (.eval or .json), or folders of them.", show_default=False),
    ],
    output: Output,
    corpus_output: Annotated[
        Path | None,
        typer.Option(
            "--corpus-output",
            help="Write the pages the agents read through tools as a corpus (for source existence).",
        ),
    ] = None,
    results_output: ResultsOutput = None,
    scorer: Annotated[
        str | None,
        typer.Option("--scorer", help="Which Inspect scorer gives success (default: the only one)."),
    ] = None,
    success_value: SuccessValue = 1.0,
    tools: Annotated[
        list[str] | None,
        typer.Option(
            "--tool",
            help="A tool whose results are pages read (repeatable; default: tools called with a URL or named "
            "like fetch/browse/search).",
        ),
    ] = None,
    price: Prices = None,
    prices_file: PricesFile = None,
    fmt: Fmt = Format.text,
    quiet: Quiet = False,
) -> None:
    """Import Inspect AI eval logs: one trial per sample and epoch (needs graderctl[inspect])."""
    from graderctl.services.trials_import import ImportOptions
    from graderctl.services.trials_import import import_inspect as run_import

    options = ImportOptions(
        output=output,
        corpus_output=corpus_output,
        results_output=results_output,
        prices=_prices(price, prices_file),
        scorer=scorer,
        success_value=success_value,
        tools=list(tools) if tools else None,
    )
    _check_outputs(options, [("a log", log) for log in logs], prices_file)
    outcome = run_import(logs, options, root=_state.root())
    _show(outcome, fmt, quiet=quiet)


@import_app.command("jsonl")
def import_jsonl(
    file: Annotated[Path, typer.Argument(help="JSON Lines written by any harness.", show_default=False)],
    output: Output,
    mapping: Annotated[
        list[str],
        typer.Option(
            "--map",
            help="target=path pairs, comma-separated (repeatable): task_id, report (required), trial_id, "
            "question, model, provider, category, stop_reason, input_tokens, output_tokens, usd, tool_calls, "
            "wall_seconds, trajectory, nuggets, report.claims, report.sources, success. Paths are dotted "
            "(output.text, messages.-1.content).",
        ),
    ],
    results_output: ResultsOutput = None,
    success_value: SuccessValue = 1.0,
    price: Prices = None,
    prices_file: PricesFile = None,
    fmt: Fmt = Format.text,
    quiet: Quiet = False,
) -> None:
    """Import trials from any JSON Lines with a field mapping."""
    from graderctl.services.trials_import import ImportOptions, parse_mapping
    from graderctl.services.trials_import import import_jsonl as run_import

    options = ImportOptions(
        output=output,
        results_output=results_output,
        prices=_prices(price, prices_file),
        success_value=success_value,
        mapping=parse_mapping(mapping),
    )
    _check_outputs(options, [("FILE", file)], prices_file)
    outcome = run_import(file, options, root=_state.root())
    _show(outcome, fmt, quiet=quiet)
