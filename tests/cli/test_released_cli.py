"""Released versions are checked by every command that uses a grader, not only by `validate`: an edited
released version is refused (exit 3, the same problem and fix as `validate`) before anything runs or is
written, and a lock missing beside reports of released versions is a problem, not silence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set
from tests.data.score.fake_kind import ensure_registered, make_project
from tests.data.score.fake_kind import write_grader as write_fake_grader

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

EDITED = "released version scripted@1 was edited"


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()
    ensure_registered()


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def released(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """scripted@1 released (in graders.lock) and calibrated on set s; scripted@2 exists, unreleased."""
    write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    code, _, err = run(capsys, tmp_path, "validate", "--update-lock")
    assert code == 0, err
    code, _, err = run(capsys, tmp_path, "calibrate", "scripted@1", "-q")
    assert code == 0, err
    doc = json.loads((tmp_path / "reports" / "s" / "scripted@1.json").read_text())
    assert doc["grader"]["released"] is True
    write_grader(tmp_path, "scripted", "test_scripted", version=2, params={"invert": True})
    return tmp_path


def edit_released(root: Path) -> None:
    write_grader(root, "scripted", "test_scripted", params={"sleep": 0.5})  # v1 edited in place


def validate_line(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    code, out, _ = run(capsys, root, "validate")
    assert code == ExitCode.INVALID_INPUT
    (line,) = [x for x in out.splitlines() if EDITED in x]
    assert "Fix: bump the version" in line
    return line


@pytest.mark.parametrize(
    "args",
    [
        ["calibrate", "scripted@1"],
        ["calibrate", "--all"],
        ["calibrate", "--all", "--check"],
        ["compare", "scripted@1", "scripted@2", "--no-write"],
        ["probe", "scripted@1", "--set", "s", "--probe", "length", "--no-write"],
        ["list"],
        ["list", "--format", "json"],
    ],
)
def test_an_edited_released_version_is_refused_everywhere(
    released: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    report = released / "reports" / "s" / "scripted@1.json"
    before = report.read_bytes()
    edit_released(released)
    expected = validate_line(capsys, released)
    code, out, err = run(capsys, released, *args)
    assert code == ExitCode.INVALID_INPUT, err
    assert expected in err  # the same problem, message and fix as validate
    assert report.read_bytes() == before  # the released report is never overwritten
    if args[-1] == "json":
        assert json.loads(out)["release_problems"][0]["message"].startswith(EDITED)


def test_score_refuses_an_edited_released_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trials, corpus = make_project(tmp_path)
    code, _, err = run(capsys, tmp_path, "validate", "--update-lock")
    assert code == 0, err
    write_fake_grader(tmp_path, "se-fake", "source_existence", reject_word="NOPE")
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--corpus", str(corpus))
    assert code == ExitCode.INVALID_INPUT, err
    assert "released version se-fake@1 was edited" in err and "bump the version" in err
    assert not out_path.exists()


def test_a_deleted_lock_beside_released_reports_is_refused(
    released: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (released / "graders" / "graders.lock").unlink()
    edit_released(released)  # would go unnoticed without the lock
    report = released / "reports" / "s" / "scripted@1.json"
    before = report.read_bytes()
    for args in (["calibrate", "scripted@1"], ["list"], ["validate"]):
        code, out, err = run(capsys, released, *args)
        assert code == ExitCode.INVALID_INPUT, (args, err)
        assert "graders/graders.lock is missing" in out + err, args
        assert "git checkout -- graders/graders.lock" in out + err
    assert report.read_bytes() == before


def test_a_project_that_never_had_a_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    code, _, err = run(capsys, tmp_path, "calibrate", "scripted@1", "-q")
    assert code == 0, err  # nothing is released yet: working on it is fine
    code, _, err = run(capsys, tmp_path, "calibrate", "scripted@1", "-q")
    assert code == 0, err
    # ... but validate (the CI gate) says the reports have no lock beside them.
    code, out, _ = run(capsys, tmp_path, "validate")
    assert code == ExitCode.INVALID_INPUT
    assert "graders/graders.lock is missing, but reports/ holds 1 calibration report(s)" in out
    code, _, err = run(capsys, tmp_path, "validate", "--update-lock")
    assert code == 0, err
    code, _, err = run(capsys, tmp_path, "validate")
    assert code == 0, err
