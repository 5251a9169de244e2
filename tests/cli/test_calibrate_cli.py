from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, sample, write_grader, write_set
from tests.conftest import DATA

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

PROJECT = DATA / "calibrate"


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(PROJECT, dest)
    return dest


def run(root: Path, *args: str) -> int:
    return _state.run(app, ["--root", str(root), *args])


def reports(root: Path) -> list[str]:
    base = root / "reports"
    return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()) if base.is_dir() else []


def test_trusted_exits_0_and_writes_json_and_markdown(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(root, "calibrate", "scripted@1", "--set", "tiny-se")
    out = capsys.readouterr()
    assert code == ExitCode.OK, out
    assert out.out.startswith("scripted@1 on tiny-se (v1): TRUSTED")
    assert reports(root) == ["tiny-se/scripted@1.json", "tiny-se/scripted@1.md"]
    assert "wrote reports/tiny-se/scripted@1.json" in out.err
    md = (root / "reports/tiny-se/scripted@1.md").read_text()
    assert md.splitlines()[2].startswith("**Verdict: TRUSTED")


def test_accept_everything_exits_1_and_says_which_bound_failed(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(root, "calibrate", "everything@1", "--set", "tiny-se")
    out = capsys.readouterr()
    assert code == ExitCode.NEGATIVE_VERDICT, out
    assert "NOT TRUSTED" in out.out
    assert "false accept rate: upper 95% bound 1.0000 > limit 0.06 (over by 0.9400)" in out.out


def test_set_too_small_is_called_out(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(root, "calibrate", "scripted@1", "--set", "tiny-small")
    out = capsys.readouterr()
    assert code == ExitCode.NEGATIVE_VERDICT, out
    assert "the set is too small to support max_false_accept_rate = 0.05" in out.out
    assert "59 known-bad samples are needed" in out.out


def test_error_rate_over_the_policy_exits_4(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    samples = counted_samples(bad=60, false_accepts=0, good=30, false_rejects=0, errors_bad=6, errors_good=4)
    write_set(root, "flaky", samples, err=0.05)
    code = run(root, "calibrate", "scripted@1", "--set", "flaky", "--format", "json", "--quiet")
    out = capsys.readouterr()
    assert code == ExitCode.GRADER_FAILED, out.err
    doc = json.loads(out.out)
    assert doc["errors"] == 10 and doc["error_rate"] == 0.1
    assert doc["false_accept_rate"]["n"] == 60 and doc["false_reject_rate"]["n"] == 30
    assert (
        "error: scripted@1 on flaky: the grader erred on 10 of 100 samples (10%), more than the set's policy "
        "allows (5%); most common error (10x): could not reach the source"
    ) in out.err


def test_a_grader_that_cannot_run_exits_4_naming_the_cause(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_grader(root, "down", "test_raise_always")
    code = run(root, "calibrate", "down@1", "--set", "tiny-small")
    out = capsys.readouterr()
    assert code == ExitCode.GRADER_FAILED, out
    assert "refused the connection" in out.err
    assert reports(root) == []


def test_json_is_exactly_one_document(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--format", "json")
    out = capsys.readouterr()
    assert code == ExitCode.OK, out.err
    doc = json.loads(out.out)
    assert doc["schema_version"] == 1 and doc["type"] == "calibration"
    for key in ("grader", "calibration_set", "false_accept_rate", "false_reject_rate", "errors", "trusted"):
        assert key in doc
    assert doc["by_category"]["fabricated_source"]["n"] == 20
    assert doc == json.loads((root / "reports/tiny-se/scripted@1.json").read_text())


def test_several_sets_make_a_batch_document(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(root, "calibrate", "scripted", "--format", "json")  # every set of its check
    out = capsys.readouterr()
    assert code == ExitCode.NEGATIVE_VERDICT, out.err  # trusted on one, not on the other
    doc = json.loads(out.out)
    assert doc["type"] == "calibration_batch" and doc["schema_version"] == 1
    assert [r["calibration_set"]["name"] for r in doc["reports"]] == ["tiny-se", "tiny-small"]
    assert [r["trusted"] for r in doc["reports"]] == [True, False]


def test_markdown_format_and_output_file(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "report.md"
    code = run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--format", "md", "--output", str(target))
    out = capsys.readouterr()
    assert code == ExitCode.OK, out.err
    assert out.out.startswith("# Calibration of `scripted@1` on `tiny-se`")
    assert target.read_text() == out.out


def _unwritable_outputs(tmp_path: Path) -> list[Path]:
    out = [tmp_path / ("x" * 300 + ".json")]  # a name longer than any file system allows
    if Path("/proc/self").is_dir():
        out.append(Path("/proc/self/graderctl-report.json"))  # a folder nobody can create a file in
    return out


def test_an_unwritable_output_is_refused_before_anything_is_graded_or_written(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing half-done: an --output that cannot be written is exit 2 before a report lands in reports/."""
    for target in _unwritable_outputs(tmp_path):
        for args in (["scripted@1", "--set", "tiny-se"], ["scripted@1"]):
            code = run(root, "calibrate", *args, "--format", "json", "--output", str(target))
            out = capsys.readouterr()
            assert code == ExitCode.USAGE_ERROR, out
            assert "--output" in out.err and "cannot be written" in out.err, out.err
            assert reports(root) == []
            assert not os.path.exists(target)


def test_no_write(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--no-write", "--jobs", "2") == 0
    assert reports(root) == []


def test_bad_input_exits_3(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "nope@1") == ExitCode.INVALID_INPUT
    assert "unknown grader" in capsys.readouterr().err
    assert run(root, "calibrate", "scripted@1", "--set", "no-such-set") == ExitCode.INVALID_INPUT
    write_set(root, "claims", [], check="claim_support")
    assert run(root, "calibrate", "scripted@1", "--set", "claims") == ExitCode.INVALID_INPUT


@pytest.mark.parametrize(
    "args",
    [
        ["calibrate"],
        ["calibrate", "scripted@1", "--all"],
        ["calibrate", "--all", "--set", "tiny-se"],
        ["calibrate", "scripted@1", "--timeout", "0"],
        ["calibrate", "scripted@1", "--jobs", "0"],
        ["calibrate", "scripted@1", "--format", "yaml"],
    ],
)
def test_usage_errors_exit_2(root: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, *args) == ExitCode.USAGE_ERROR, capsys.readouterr()


def test_ctrl_c_exits_130_and_writes_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_set(root, "stop", [sample("a", "good", "accept"), sample("b", "bad", "interrupt")])
    code = run(root, "calibrate", "scripted@1", "--set", "stop")
    out = capsys.readouterr()
    assert code == ExitCode.INTERRUPTED
    assert "interrupted: the report of scripted@1 on stop was not written" in out.err
    assert reports(root) == []


def test_all_then_check(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "--all", "--check") == ExitCode.NEGATIVE_VERDICT  # nothing written yet
    assert "STALE  scripted@1 on tiny-se: no report" in capsys.readouterr().out
    assert run(root, "calibrate", "--all", "-q") == ExitCode.NEGATIVE_VERDICT  # `everything` is not trusted
    assert reports(root) == sorted(
        f"{s}/{g}@1.{ext}"
        for s in ("tiny-se", "tiny-small")
        for g in ("everything", "scripted")
        for ext in ("json", "md")
    )
    capsys.readouterr()
    assert run(root, "calibrate", "--all", "--check") == ExitCode.OK
    assert "all 4 report(s) current" in capsys.readouterr().out
    # A changed sample makes the report stale.
    write_set(root, "tiny-small", counted_samples(bad=10, false_accepts=0, good=9, false_rejects=0))
    assert run(root, "calibrate", "--all", "--check", "--format", "json") == ExitCode.NEGATIVE_VERDICT
    doc = json.loads(capsys.readouterr().out)
    assert doc["type"] == "calibration_check" and doc["current"] is False
    stale = [(r["grader"], r["set"]) for r in doc["reports"] if r["state"] == "stale"]
    assert stale == [("everything@1", "tiny-small"), ("scripted@1", "tiny-small")]


def test_check_notices_different_outcomes(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "-q") == 0
    path = root / "reports/tiny-se/scripted@1.json"
    doc = json.loads(path.read_text())
    doc["samples"][0]["accepted"] = not doc["samples"][0]["accepted"]
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--check") == ExitCode.NEGATIVE_VERDICT
    assert "re-running the grader changes 1 outcome(s)" in capsys.readouterr().out


def test_check_after_a_new_grader_version(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "-q") == 0
    write_grader(root, "scripted", "test_scripted", params={"sleep": 0.5})  # edited in place
    capsys.readouterr()
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--check") == ExitCode.NEGATIVE_VERDICT
    assert "the grader changed since the report was written" in capsys.readouterr().out


def test_progress_bar_only_on_a_terminal_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from graderctl.cli._progress import progress_bar, progress_enabled

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert progress_enabled(machine_output=False, quiet=False) is True
    assert progress_enabled(machine_output=True, quiet=False) is False  # --format json
    assert progress_enabled(machine_output=False, quiet=True) is False  # --quiet
    monkeypatch.setenv("CI", "true")
    assert progress_enabled(machine_output=False, quiet=False) is False
    monkeypatch.setenv("CI", "false")
    assert progress_enabled(machine_output=False, quiet=False) is True
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert progress_enabled(machine_output=False, quiet=False) is False
    with progress_bar("x", enabled=False) as callback:
        assert callback is None
    with progress_bar("grading", enabled=True) as callback:
        assert callback is not None
        callback(0, 10)
        callback(10, 10)


def test_no_progress_output_when_not_a_terminal(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(root, "calibrate", "scripted@1", "--set", "tiny-se", "--no-write") == 0
    err = capsys.readouterr().err
    assert "samples/s" not in err and "eta" not in err
