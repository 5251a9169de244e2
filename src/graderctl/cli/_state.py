"""Process-wide CLI state and the one place where errors become exit codes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from graderctl.errors import ExitCode, GraderctlError, InvalidInputError

DEBUG = False
ROOT: str | None = None
MAX_PROBLEMS_SHOWN = 50


def root() -> Path:
    from graderctl.store.project import find_root

    return Path(ROOT).resolve() if ROOT else find_root()


def err(message: str) -> None:
    typer.echo(message, err=True)


def report_error(exc: GraderctlError) -> None:
    err(f"error: {exc}")
    if isinstance(exc, InvalidInputError):
        for p in exc.problems[:MAX_PROBLEMS_SHOWN]:
            err("  " + p.format())
        rest = len(exc.problems) - MAX_PROBLEMS_SHOWN + exc.omitted
        if rest > 0:
            err(f"  ... and {rest} more problem(s)")


def run(app: Any, argv: list[str] | None) -> int:
    # typer's standalone mode prints usage errors (exit 2) and turns Ctrl-C into exit 130 itself; our own
    # errors propagate out of it and are mapped here.
    try:
        app(args=argv, prog_name="graderctl")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        err("interrupted: nothing was written")
        return int(ExitCode.INTERRUPTED)
    except GraderctlError as exc:
        if DEBUG:
            import traceback

            traceback.print_exc()
        report_error(exc)
        return int(exc.exit_code)
    except Exception as exc:  # a bug: say so, keep the traceback for --debug
        if DEBUG:
            import traceback

            traceback.print_exc()
        err(f"internal error: {type(exc).__name__}: {exc}")
        err("This is a bug in graderctl. Re-run with --debug for the traceback and report it.")
        return int(ExitCode.INTERNAL_ERROR)
    return 0


def exit_with(code: ExitCode | int) -> None:
    raise typer.Exit(int(code))
