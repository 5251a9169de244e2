"""The command line: one thin module per command (parse -> call a service -> render -> exit code).

Heavy imports happen inside the command functions, so ``graderctl --help`` stays quick.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

import typer
from typer._click import Command
from typer.core import TyperGroup

from graderctl import __version__
from graderctl.cli import _state
from graderctl.errors import ExitCode

#: Every command, in the order ``graderctl --help`` lists them -> the module of ``graderctl.cli`` that defines
#: it and its function (or, for a group of commands, its Typer app).
_COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "validate"),
    "list": ("list_", "list_"),
    "calibrate": ("calibrate", "calibrate"),
    "compare": ("compare", "compare"),
    "score": ("score", "score"),
    "units": ("units", "units"),
    "metrics": ("metrics", "metrics"),
    "probe": ("probe", "probe"),
    "tune": ("tune", "tune"),
    "schema": ("schema", "schema"),
    "report": ("report", "report"),
    "sets": ("sets", "app"),
    "trials": ("trials", "app"),
}

#: The settings of ``graderctl`` that typer builds each command with.
_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


def _no_options() -> None:
    return None


def _build(name: str) -> Command:
    """Command ``name`` as typer builds it in ``graderctl`` (same settings): its module imported, its
    parameters read from its signature."""
    module, attr = _COMMANDS[name]
    target = getattr(importlib.import_module(f"graderctl.cli.{module}"), attr)
    holder = typer.Typer(**_SETTINGS)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    holder.callback()(_no_options)  # a group, as graderctl is, whose one command is built as graderctl's are
    group = typer.main.get_command(holder)
    assert isinstance(group, TyperGroup)
    return group.commands[name]


class _Commands(MutableMapping[str, Command]):
    """The commands of ``graderctl``: all of them are named, and each is built (:func:`_build`) when it is
    first looked up. Typer builds every command of an app before it runs one (reading each signature costs
    about 2 ms); here a run builds the one it runs, and only ``--help`` (which lists them) builds them all."""

    def __init__(self, given: Mapping[str, Command]) -> None:
        self._names = dict.fromkeys([*_COMMANDS, *given])
        self._built = dict(given)

    def __getitem__(self, name: str) -> Command:
        command = self._built.get(name)
        if command is None:
            if name not in self._names:
                raise KeyError(name)
            command = self._built[name] = _build(name)
        return command

    def __setitem__(self, name: str, command: Command) -> None:
        self._names[name] = None
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._names[name]
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class _Group(TyperGroup):
    """The ``graderctl`` group: its commands are :class:`_Commands`."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands)


app = typer.Typer(
    name="graderctl",
    help="Tell whether a grader can be trusted before it scores AI-agent trials.",
    no_args_is_help=True,
    cls=_Group,
    **_SETTINGS,
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
