"""The command line: one thin module per command (parse -> call a service -> render -> exit code).

Heavy imports happen inside the command functions, so ``graderctl --help`` stays quick.
"""

from __future__ import annotations

import contextlib
import gc
import sys

import typer

from graderctl import __version__
from graderctl.cli import _state
from graderctl.errors import ExitCode

app = typer.Typer(
    name="graderctl",
    help="Tell whether a grader can be trusted before it scores AI-agent trials.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"graderctl {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    root: str | None = typer.Option(
        None,
        "--root",
        help="Project root (default: nearest folder upward with graders/ or calibration_sets/).",
    ),
) -> None:
    _state.DEBUG = debug
    _state.ROOT = root


def _register() -> None:
    from graderctl.cli import (
        calibrate,
        compare,
        list_,
        metrics,
        probe,
        report,
        schema,
        score,
        sets,
        trials,
        tune,
        units,
        validate,
    )

    app.command("validate")(validate.validate)
    app.command("list")(list_.list_)
    app.command("calibrate")(calibrate.calibrate)
    app.command("compare")(compare.compare)
    app.command("score")(score.score)
    app.command("units")(units.units)
    app.command("metrics")(metrics.metrics)
    app.command("probe")(probe.probe)
    app.command("tune")(tune.tune)
    app.command("schema")(schema.schema)
    app.command("report")(report.report)
    app.add_typer(sets.app, name="sets")
    app.add_typer(trials.app, name="trials")


_register()


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM: stop as Ctrl-C does (worker processes and programs ended, nothing half-written)."""
    raise KeyboardInterrupt(f"terminated by signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the app and maps errors to exit codes; only here does the process exit.

    SIGTERM is handled like SIGINT: it interrupts the command, whose clean-up then stops worker processes
    and the programs graders started, so nothing outlives graderctl (exit 130)."""
    import signal

    previous = None
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        code = _state.run(app, argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if code == ExitCode.INTERRUPTED and not _state.DEBUG:
        # A stopped worker pool can leave Python's own exit handler (concurrent.futures) writing to a pipe
        # it already closed; after an interruption that noise is no news (--debug keeps it).
        sys.unraisablehook = _quiet_unraisable
    if argv is None:  # the process itself (console script, python -m), not a caller in the same process
        # The process exits next. Frozen, the objects it made (the modules of pydantic, numpy, scipy, a large
        # listing's records) are not walked again by the collections of the interpreter's shutdown: about
        # 0.1 s CPU of a `list` that read reports. Nothing graderctl wrote is left to them: its files are
        # closed when written, worker pools and temporary folders are ended by their exit handlers.
        gc.freeze()
    sys.exit(code)


def _quiet_unraisable(unraisable: object) -> None:
    return None
