"""Outputs never overwrite inputs: an output equal to an input of the same run (compared by real path:
symlinks, ./, relative or absolute) or inside an input folder is exit 2 before anything is written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set
from tests.data.score.fake_kind import ensure_registered, make_project

from graderctl.cli import _state, app
from graderctl.errors import ExitCode, UsageError
from graderctl.store.outputs import check_outputs


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()
    ensure_registered()


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str]:
    code = _state.run(app, ["--root", str(root), *args])
    return code, capsys.readouterr().err


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# --- the comparison itself ------------------------------------------------------------------------------


def test_same_file_under_other_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    data.mkdir()
    real = data / "results.jsonl"
    real.write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(real)
    os.link(real, tmp_path / "hard.jsonl")
    monkeypatch.chdir(tmp_path)
    for alias in [
        "data/results.jsonl",
        "./data/../data/results.jsonl",
        str(real),
        "link.jsonl",
        "hard.jsonl",
    ]:
        with pytest.raises(UsageError, match="an input of this run"):
            check_outputs([("--output", Path(alias))], [("the results", Path("data/results.jsonl"))])
    with pytest.raises(UsageError, match="inside the set"):
        check_outputs([("--output", Path("data/out.md"))], [("the set", data)])
    with pytest.raises(UsageError, match="are the same file"):
        check_outputs([("--output", Path("a.md")), ("--corpus-output", Path("./a.md"))], [])
    check_outputs([("--output", Path("data/other.jsonl"))], [("the results", real), ("nothing", None)])


# --- every command -----------------------------------------------------------------------------------


def test_metrics_output_over_its_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"task_id": "t", "trial_id": "t-1", "success": true}\n')
    (tmp_path / "alias.jsonl").symlink_to(results)
    before = results.read_bytes()
    for given in (str(results), str(tmp_path / "alias.jsonl"), str(tmp_path / "." / "results.jsonl")):
        code, err = run(capsys, tmp_path, "metrics", str(results), "--output", given)
        assert code == ExitCode.USAGE_ERROR, err
        assert "an input of this run" in err
        assert results.read_bytes() == before


def test_score_output_over_the_corpus_or_a_grader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trials, corpus = make_project(tmp_path)
    before = digest(tmp_path)
    grader = tmp_path / "graders" / "se-fake" / "v1.toml"
    for target in (corpus, grader, tmp_path / "reports" / "claim-support-test" / "cs-fake@1.json"):
        code, err = run(capsys, tmp_path, "score", str(trials), "--corpus", str(corpus), "-o", str(target))
        assert code == ExitCode.USAGE_ERROR, err
        assert "an input of this run" in err
    assert digest(tmp_path) == before


def test_calibrate_output_into_a_set_or_over_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_folder = write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    code, err = run(capsys, tmp_path, "calibrate", "scripted@1", "-q")
    assert code == 0, err
    before = digest(tmp_path)
    for target in (
        set_folder / "report.md",
        set_folder / "samples.jsonl",
        tmp_path / "graders" / "scripted" / "v1.toml",
        tmp_path / "reports" / "s" / "scripted@1.md",
    ):
        code, err = run(
            capsys, tmp_path, "calibrate", "scripted@1", "--format", "md", "--output", str(target)
        )
        assert code == ExitCode.USAGE_ERROR, (target, err)
    assert digest(tmp_path) == before
    code, err = run(capsys, tmp_path, "calibrate", "scripted@1", "-q", "--output", str(tmp_path / "out.txt"))
    assert code == 0, err


def test_compare_output_over_a_set_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    write_grader(tmp_path, "scripted", "test_scripted", version=2, params={"sleep": 0.1})
    set_samples = tmp_path / "calibration_sets" / "s" / "samples.jsonl"
    before = set_samples.read_bytes()
    code, err = run(
        capsys, tmp_path, "compare", "scripted@1", "scripted@2", "--no-write", "--output", str(set_samples)
    )
    assert code == ExitCode.USAGE_ERROR, err
    assert set_samples.read_bytes() == before


def test_sets_import_never_replaces_its_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import DATA

    source_files = sorted((DATA / "importers").rglob("*.jsonl"))
    wice = next((p for p in source_files if "wice" in str(p).lower()), None)
    if wice is None:
        pytest.skip("no WiCE fixture in tests/data/importers")
    target = tmp_path / "out" / "wice-claim-support"
    target.mkdir(parents=True)
    source = target / wice.name
    source.write_bytes(wice.read_bytes())
    code, err = run(
        capsys, tmp_path, "sets", "import", "wice", str(source), "--output", str(tmp_path / "out"), "--force"
    )
    assert code == ExitCode.USAGE_ERROR, err
    assert source.read_bytes() == wice.read_bytes()
