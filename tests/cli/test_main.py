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


HEAVY = ("sklearn", "scipy", "numpy", "httpx", "rapidfuzz", "jsonschema")


def _imported_by(code: str) -> tuple[list[str], str]:
    """The heavy libraries a fresh interpreter has imported after ``code`` (which may print to stdout)."""
    report = f"print('HEAVY=' + ','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    probe = f"{code}\nimport sys\n{report}"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("HEAVY=")]
    assert line, proc.stderr
    return [m for m in line[-1].removeprefix("HEAVY=").split(",") if m], proc.stdout


def test_list_without_reports_does_not_import_heavy_libraries(tmp_path) -> None:
    """``list`` needs numpy and scipy only to recompute trust from a report: on a project without reports
    (and for ``--help``) start-up stays light (issue 11 item 21: their import is ~0.3 s CPU of every run)."""
    (tmp_path / "graders").mkdir()
    for argv in (["--root", str(tmp_path), "list"], ["--help"], ["list", "--help"]):
        code = f"from graderctl.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        heavy, out = _imported_by(code)
        assert out, argv
        assert heavy == [], f"{argv}: imported {heavy}"


def test_listing_does_not_build_unused_models() -> None:
    """The models are built when first used (``defer_build``), not when ``list`` imports them: importing the
    listing service builds no graderctl model (that was ~0.1 s CPU of every command's start-up)."""
    code = (
        "import graderctl.cli, graderctl.services.listing\n"
        "from pydantic import BaseModel\n"
        "def subs(c):\n"
        "    for s in c.__subclasses__():\n"
        "        yield s\n"
        "        yield from subs(s)\n"
        "ours = {m for m in subs(BaseModel) if m.__module__.startswith('graderctl.models')}\n"
        "print(len(ours), sorted(m.__name__ for m in ours if m.__pydantic_complete__))"
    )
    heavy, out = _imported_by(code)
    count, built = out.split(" ", 1)
    assert int(count) > 50, out
    assert built.strip() == "[]", f"built at import: {built}"
    assert heavy == []
