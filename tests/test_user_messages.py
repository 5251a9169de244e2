"""What users read names their input, never graderctl's code; what a test run reads says why it skipped
(issue 11, item 20).

- No message, warning or recorded text in ``src/`` names an internal function (``foo()``) or module path
  (``graderctl.stats.x``); the plugin API a plugin author implements (``grade_batch()``, ``register()``) is
  public and may be named. The README tour (tests/test_readme_tour.py) checks the stderr every tour command
  printed the same way, and tests/cli/test_main.py that Python warnings print without a source file.
- Every skip in the tests gives a reason: the calls are checked here, and tests/support/skip_reasons.py
  (loaded by tests/conftest.py) fails any test skipped without one at run time.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "graderctl"

CODE_NAMES = [
    re.compile(r"\b[A-Za-z_][A-Za-z0-9_.]*\(\)"),  # foo() or module.foo()
    re.compile(r"\bgraderctl\.[a-z_]+\.[a-z_]+"),  # graderctl.services.score
]
#: The public plugin API, named in messages to plugin authors.
PUBLIC_NAMES = {"grade_batch()", "register()"}


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _is_code(text: str) -> bool:
    """A regular expression or an inline script, not a message."""
    return "(?P<" in text or "\\[" in text or "function(" in text or "document." in text


def test_messages_name_no_internal_function_or_module() -> None:
    offenders: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docs:
                continue
            if _is_code(node.value):
                continue
            for pattern in CODE_NAMES:
                for m in pattern.finditer(node.value):
                    if m.group(0) not in PUBLIC_NAMES:
                        offenders.append(
                            f"{path.relative_to(ROOT)}:{node.lineno}: {m.group(0)!r} in {node.value!r}"
                        )
    assert not offenders, "user-facing text names internal code:\n" + "\n".join(offenders)


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _reason_given(call: ast.Call, positional: bool) -> bool:
    for kw in call.keywords:
        if kw.arg in ("reason", "msg"):
            return not (isinstance(kw.value, ast.Constant) and not str(kw.value.value).strip())
    if positional and call.args:
        first = call.args[0]
        return not (isinstance(first, ast.Constant) and not str(first.value).strip())
    return False


def test_every_skip_in_the_tests_gives_a_reason() -> None:
    missing: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = _dotted(node.func)
                if name.endswith(("pytest.skip", "mark.skip")):
                    ok = _reason_given(node, positional=True)
                elif name.endswith(("importorskip", "mark.skipif")):
                    ok = _reason_given(node, positional=False)
                else:
                    continue
            elif isinstance(node, ast.Attribute) and id(node) not in calls:
                if not _dotted(node).endswith("mark.skip"):
                    continue
                name, ok = _dotted(node), False  # @pytest.mark.skip without a call: no reason
            else:
                continue
            if not ok:
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name} without a reason")
    assert not missing, "\n".join(missing)


def test_a_skip_without_a_reason_fails_the_run(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n"
        "def test_no_message():\n"
        "    pytest.skip()\n"
        "@pytest.mark.skip\n"
        "def test_bare_mark():\n"
        "    pass\n"
        "@pytest.mark.skipif('1 == 1')\n"
        "def test_condition_only():\n"
        "    pass\n"
        "def test_with_reason():\n"
        "    pytest.skip('the data is absent')\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.support.skip_reasons", "-p", "no:cacheprovider", "-rA",
         str(tmp_path / "test_skips.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    for name in ("test_no_message", "test_bare_mark", "test_condition_only"):
        assert re.search(rf"(FAILED|ERROR) test_skips.py::{name} ", out), out
    assert "SKIPPED [1] test_skips.py:11: the data is absent" in out, out


def test_no_grader_or_set_found_names_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A command that finds no grader or no set says where it looked and how to point at another project."""
    from graderctl.cli import _state, app

    empty = tmp_path / "project"
    (empty / "graders").mkdir(parents=True)
    trials = ROOT / "examples" / "research-agent" / "trials.jsonl"
    code = _state.run(
        app, ["--root", str(empty), "score", str(trials), "--output", str(tmp_path / "r.jsonl")]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"the project at {empty.resolve()}" in err and "--root PROJECT" in err, err

    code = _state.run(
        app, ["--root", str(ROOT), "calibrate", "claim-support@1", "--set", "nope", "--no-write"]
    )
    err = capsys.readouterr().err
    assert code == 3, err
    assert "unknown calibration set 'nope'" in err and "--root PROJECT" in err, err
