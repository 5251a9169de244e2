from __future__ import annotations

import subprocess
import sys

from graderctl import __version__
from graderctl.cli import _state, app
from graderctl.errors import ExitCode


def run(*args: str) -> int:
    return _state.run(app, list(args))


def test_version(capsys) -> None:
    assert run("--version") == 0, capsys.readouterr()
    assert __version__ in capsys.readouterr().out


def test_unknown_command_is_usage_error(capsys) -> None:
    code = run("no-such-command")
    assert code == ExitCode.USAGE_ERROR, capsys.readouterr()


def test_python_dash_m() -> None:
    proc = subprocess.run([sys.executable, "-m", "graderctl", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("graderctl ")


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys; from graderctl.cli import app; "
        "mods = ('sklearn', 'scipy', 'numpy', 'httpx', 'rapidfuzz', 'jsonschema'); "
        "heavy = [m for m in mods if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"imported at start-up: {proc.stdout}"


def test_python_warnings_name_no_source_file() -> None:
    """A Python warning raised while a command runs (graderctl's own or a library's) prints as
    ``warning: MESSAGE``: no source file, line number, category or code line (issue 11, item 20)."""
    code = (
        "import warnings, typer; from graderctl.cli import _state\n"
        "demo = typer.Typer()\n"
        "@demo.command()\n"
        "def go() -> None:\n"
        "    warnings.warn('the interval is undefined', UserWarning, stacklevel=1)\n"
        "raise SystemExit(_state.run(demo, []))\n"
    )
    proc = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "warning: the interval is undefined\n", proc.stderr
