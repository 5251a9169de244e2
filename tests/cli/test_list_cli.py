from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set
from tests.conftest import DATA

from graderctl.cli import _state, app
from graderctl.errors import ExitCode


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(DATA / "calibrate", dest)
    return dest


def run(root: Path, *args: str) -> int:
    return _state.run(app, ["--root", str(root), *args])


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_list_shows_every_state(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "-q") == ExitCode.NEGATIVE_VERDICT  # trusted on one set only
    assert run(root, "calibrate", "everything@1", "--set", "tiny-se", "-q") == ExitCode.NEGATIVE_VERDICT
    write_grader(root, "scripted", "test_scripted", version=2, params={"invert": True})
    write_set(root, "tiny-small", counted_samples(bad=11, false_accepts=0, good=10, false_rejects=0))
    capsys.readouterr()
    assert run(root, "list") == ExitCode.OK
    out = capsys.readouterr().out
    table = rows(out)
    assert table[3][:3] == ["everything@1", "test_accept_all", "source_existence"]
    assert table[3][-3:] == ["tiny-se", "not", "trusted"]
    assert table[4] == ["tiny-small", "never", "calibrated"]
    assert table[5][0] == "scripted@1" and table[5][-2:] == ["tiny-se", "trusted"]
    assert table[6] == ["tiny-small", "stale"]  # its samples changed
    assert table[7][0] == "scripted@2" and table[7][-2:] == ["tiny-se", "stale"]  # a new version
    assert table[8] == ["tiny-small", "stale"]
    assert "Calibration sets" in out
    assert rows(out.split("Calibration sets")[1])[3][:5] == ["tiny-se", "1", "source_existence", "20", "60"]


def test_list_json(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "-q") == 0
    capsys.readouterr()
    assert run(root, "list", "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 1 and doc["type"] == "listing"
    scripted = next(g for g in doc["graders"] if g["ref"] == "scripted@1")
    assert scripted["kind"] == "test_scripted" and scripted["fingerprint"].startswith("sha256:")
    assert {t["set"]: t["state"] for t in scripted["trust"]} == {
        "tiny-se": "trusted",
        "tiny-small": "never_calibrated",
    }
    assert {s["name"]: (s["n_good"], s["n_bad"]) for s in doc["sets"]} == {
        "tiny-se": (20, 60),
        "tiny-small": (10, 10),
    }


def test_list_empty_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, "list") == 0
    out = capsys.readouterr().out
    assert "(none in graders/)" in out and "(none in calibration_sets/)" in out


def test_list_names_invalid_files_on_stderr(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_grader(root, "broken", "no_such_kind")
    assert run(root, "list") == 0
    captured = capsys.readouterr()
    assert "warning: skipped graders/broken/v1.toml" in captured.err
    assert "broken" not in captured.out
