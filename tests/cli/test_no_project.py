"""CI gates cannot pass vacuously: `validate` and `calibrate --all [--check]` outside a project, or with
--root pointing at nothing or at a file, exit 3 ("no project found at ...")."""

from __future__ import annotations

from pathlib import Path

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

GATES = [["validate"], ["calibrate", "--all", "--check"], ["calibrate", "--all"]]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = _state.run(app, list(args))
    return code, capsys.readouterr().err


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADERCTL_ROOT", raising=False)
    monkeypatch.setattr(_state, "ROOT", None)


@pytest.mark.parametrize("gate", GATES)
def test_outside_a_project(
    gate: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = run(capsys, *gate)
    assert code == ExitCode.INVALID_INPUT, err
    assert f"no project found at {tmp_path.resolve()}" in err
    assert "--root" in err


@pytest.mark.parametrize("gate", GATES)
@pytest.mark.parametrize("what", ["nothing", "file", "empty folder"])
def test_root_pointing_at_no_project(
    gate: list[str], what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "here"
    if what == "file":
        target.write_text("not a project")
    elif what == "empty folder":
        target.mkdir()
    code, err = run(capsys, "--root", str(target), *gate)
    assert code == ExitCode.INVALID_INPUT, err
    assert f"no project found at {target}" in err


def test_graderctl_root_pointing_at_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADERCTL_ROOT", str(tmp_path / "missing"))
    code, err = run(capsys, "validate")
    assert code == ExitCode.INVALID_INPUT and "no project found at" in err


def test_a_project_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "graders").mkdir()
    code, err = run(capsys, "--root", str(tmp_path), "validate")
    assert code == 0, err
    code, err = run(capsys, "--root", str(tmp_path), "calibrate", "--all", "--check")
    assert code == 0, err


def test_validating_a_file_needs_no_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"task_id": "t", "trial_id": "t-1", "success": true}\n')
    code, err = run(capsys, "--root", str(tmp_path), "validate", str(results))
    assert code == 0, err
