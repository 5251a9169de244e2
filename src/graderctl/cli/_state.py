"""Process-wide CLI state and the one place where errors become exit codes."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import typer

from graderctl.errors import ExitCode, GraderctlError, InvalidInputError, Problem

DEBUG = False
ROOT: str | None = None
MAX_PROBLEMS_SHOWN = 50


def root() -> Path:
    """The project root: ``--root``, else ``$GRADERCTL_ROOT``, else found upward from the working directory.
    A root given explicitly that is not a folder is an error (exit 3), never silently an empty project."""
    import os

    from graderctl.store.project import find_root

    given = ROOT or os.environ.get("GRADERCTL_ROOT") or None
    path = Path(given).resolve() if given else find_root()
    if given and not path.is_dir():
        what = "a file" if path.exists() else "nothing"
        raise InvalidInputError(
            f"no project found at {path}: there is {what} at this path",
            [
                Problem(
                    file=str(path),
                    message="no project found at this path",
                    expected="a project folder (with graders/ or calibration_sets/)",
                    got=what,
                    fix="give the project's folder with --root (or $GRADERCTL_ROOT)",
                )
            ],
        )
    return path


def project_root() -> Path:
    """:func:`root`, which must be a project (a folder with ``graders/`` or ``calibration_sets/``): for the
    CI gates (``validate``, ``calibrate --all [--check]``), which would otherwise pass on nothing."""
    from graderctl.store.project import GRADERS_DIR, SETS_DIR

    path = root()
    if not ((path / GRADERS_DIR).is_dir() or (path / SETS_DIR).is_dir()):
        raise InvalidInputError(
            f"no project found at {path}: it has neither {GRADERS_DIR}/ nor {SETS_DIR}/",
            [
                Problem(
                    file=str(path),
                    message="no project found at this path",
                    expected=f"a folder with {GRADERS_DIR}/ or {SETS_DIR}/ (or one of its subfolders)",
                    got=f"neither {GRADERS_DIR}/ nor {SETS_DIR}/",
                    fix="run from inside a graderctl project, or give its folder with --root PROJECT",
                )
            ],
        )
    return path


def write_bytes(chunks: Iterable[bytes]) -> None:
    """Write already-encoded output (UTF-8) to stdout as it comes, without a text layer."""
    out = sys.stdout
    out.flush()
    buffer: BinaryIO | None = getattr(out, "buffer", None)
    if buffer is None:  # a text-only stream (tests capturing output)
        for chunk in chunks:
            out.write(chunk.decode("utf-8"))
        out.flush()
        return
    for chunk in chunks:
        buffer.write(chunk)
    buffer.flush()


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
