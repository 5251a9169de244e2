"""``graderctl compare``: exit codes, the one JSON document, the written report, and metrics' refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.compare_support import FLIPPED_BY_V3, copy_project, register_kinds

from graderctl.cli import _state, app
from graderctl.errors import ExitCode


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_identical_copy_exits_0_with_kappa_1_and_no_flips(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--format", "json")
    assert code == ExitCode.OK, err
    doc = json.loads(out)  # exactly one JSON document on stdout
    assert doc["schema_version"] == 1 and doc["type"] == "comparison"
    assert doc["comparable"] is True and doc["identical_definition"] is True
    assert doc["old"]["ref"] == "thresh@1" and doc["new"]["ref"] == "thresh@2"
    assert doc["old"]["fingerprint"] != doc["new"]["fingerprint"]
    assert doc["old"]["behaviour_fingerprint"] == doc["new"]["behaviour_fingerprint"]
    (s,) = doc["sets"]
    assert s["name"] == "scores" and s["fingerprint"].startswith("sha256:")
    assert s["overall"]["kappa"] == 1.0
    for stratum in s["strata"].values():
        assert stratum["kappa"] == 1.0 and stratum["flipped"] == []
        assert "same grading definition: outcomes identical by construction" in stratum["message"]
    assert doc["failed_strata"] == []
    written = root / "reports" / "comparisons" / "thresh@1--thresh@2.json"
    assert json.loads(written.read_text()) == doc
    assert (root / "reports" / "comparisons" / "thresh@1--thresh@2.md").is_file()
    assert "wrote reports/comparisons/thresh@1--thresh@2.json" in err


def test_threshold_change_exits_1_and_lists_the_flipped_samples(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@3")
    assert code == ExitCode.NEGATIVE_VERDICT, err
    assert out.startswith("thresh@1 → thresh@3: NOT COMPARABLE")
    for sid in FLIPPED_BY_V3:
        assert f"{sid} (bad): rejected → accepted" in out
    assert "driven by b005, b006, b007, b008" in out
    md = (root / "reports" / "comparisons" / "thresh@1--thresh@3.md").read_text()
    assert md.index("**Verdict: NOT COMPARABLE") < md.index("| stratum |") < md.index("## Flipped samples")
    assert md.index("## Flipped samples") < md.index("## What drove the failure")
    assert (
        "| b005 | bad | fabricated_source | rejected → accepted | score 0.46 < 0.5 | score 0.46 >= 0.45 |"
        in md
    )
    assert "`b005`, `b006`, `b007`, `b008`" in md


def test_markdown_format_on_stdout_and_output_file(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    target = root / "out.md"
    code, out, err = run(
        capsys,
        root,
        "compare",
        "thresh@1",
        "thresh@3",
        "--format",
        "md",
        "--output",
        str(target),
        "--no-write",
    )
    assert code == ExitCode.NEGATIVE_VERDICT, err
    assert out.startswith("# Comparison of `thresh@1` (old) and `thresh@3` (new)")
    assert target.read_text() == out
    assert not (root / "reports").exists()


def test_margin_option_is_recorded(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = run(
        capsys, root, "compare", "thresh@1", "thresh@2", "--margin", "0.05", "--format", "json"
    )
    assert code == ExitCode.OK, err
    doc = json.loads(out)
    assert doc["margin"] == 0.05 and doc["margin_source"] == "command line"


@pytest.mark.parametrize("margin", ["0", "1", "-0.1"])
def test_bad_margin_is_a_usage_error(capsys: pytest.CaptureFixture[str], root: Path, margin: str) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--margin", margin)
    assert code == ExitCode.USAGE_ERROR, err
    assert out == ""


def test_graders_of_different_checks_exit_3(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "other@1")
    assert code == ExitCode.INVALID_INPUT, err
    assert "grade different checks (source_existence and claim_support)" in err
    assert out == ""
    assert not (root / "reports").exists()


def test_unknown_grader_or_set_exits_3(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, _, err = run(capsys, root, "compare", "thresh@1", "thresh@9")
    assert code == ExitCode.INVALID_INPUT, err
    code, _, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--set", "nope")
    assert code == ExitCode.INVALID_INPUT, err
    assert "unknown calibration set 'nope'" in err


def test_trials_without_replay_is_a_usage_error(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, _, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--trials", "t.jsonl")
    assert code == ExitCode.USAGE_ERROR, err


def _results(path: Path, fingerprints: list[tuple[str, str]]) -> Path:
    lines = []
    for i, (ref, fp) in enumerate(fingerprints):
        check = {"passed": True, "grader": ref, "fingerprint": fp, "units": 1}
        lines.append(
            {
                "task_id": f"t{i % 2}",
                "trial_id": f"t{i}",
                "success": True,
                "checks": {"source_existence": check},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_metrics_refuses_to_mix_versions_found_not_comparable(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@3", "--format", "json")
    assert code == ExitCode.NEGATIVE_VERDICT, err
    doc = json.loads(out)
    old, new = (doc["old"]["ref"], doc["old"]["fingerprint"]), (doc["new"]["ref"], doc["new"]["fingerprint"])
    mixed = _results(root / "mixed_results.jsonl", [old, new, old, new])
    code, out, err = run(capsys, root, "metrics", str(mixed))
    assert code == ExitCode.INVALID_INPUT, err
    assert "thresh@1" in err and "thresh@3" in err and "not comparable" in err


def test_metrics_combines_versions_found_comparable(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--format", "json")
    assert code == ExitCode.OK, err
    doc = json.loads(out)
    old, new = (doc["old"]["ref"], doc["old"]["fingerprint"]), (doc["new"]["ref"], doc["new"]["fingerprint"])
    mixed = _results(root / "mixed_results.jsonl", [old, new, old, new])
    code, out, err = run(capsys, root, "metrics", str(mixed), "--format", "json")
    assert code == ExitCode.OK, err


def _score(root: Path, name: str, grader: str) -> Path:
    from graderctl.services.score import ScoreOptions, score_trials
    from graderctl.store.project import find_grader

    out = root / name
    check = find_grader(grader, root).spec.check.value  # that check only: the others would keep theirs
    score_trials(
        ScoreOptions(
            output=out, trials=root / "trials.jsonl", graders=[grader], checks=[check], allow_untrusted=True
        ),
        root=root,
    )
    return out


def test_replay_shows_pass_at_k_under_both_versions_side_by_side(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    results = _score(root, "results_v1.jsonl", "thresh@1")
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@3", "--replay", str(results))
    assert code == ExitCode.NEGATIVE_VERDICT, err
    assert "k  pass@k old  pass@k new  pass^k old  pass^k new" in out
    assert "2      0.5833      0.9167      0.2500      0.4167" in out
    assert "failed: replayed trials (driven by t2-1, t3-1, t3-2)" in out
    md = (root / "reports" / "comparisons" / "thresh@1--thresh@3.md").read_text()
    assert "| k | pass@k old | pass@k new | pass^k old | pass^k new |" in md
    code, out, err = run(
        capsys,
        root,
        "compare",
        "thresh@1",
        "thresh@2",
        "--replay",
        str(results),
        "--format",
        "json",
        "--no-write",
    )
    assert code == ExitCode.OK, err
    replay = json.loads(out)["replay"]
    assert replay["pass_at_k"]["old"] == replay["pass_at_k"]["new"]
    assert replay["pass_hat_k"]["old"] == replay["pass_hat_k"]["new"]
    assert set(replay["pass_at_k"]["old"]) == {"1", "2", "3"}


def test_metrics_refuses_results_graded_by_versions_found_not_comparable(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    v1 = _score(root, "results_v1.jsonl", "thresh@1")
    v3 = _score(root, "results_v3.jsonl", "thresh@3")
    mixed = root / "mixed.jsonl"
    v1_lines = v1.read_text().splitlines(keepends=True)
    v3_lines = v3.read_text().splitlines(keepends=True)
    mixed.write_text("".join(v1_lines[:6] + v3_lines[6:]))
    code, _, err = run(capsys, root, "compare", "thresh@1", "thresh@3", "--replay", str(v1), "--quiet")
    assert code == ExitCode.NEGATIVE_VERDICT, err
    code, out, err = run(capsys, root, "metrics", str(mixed))
    assert code == ExitCode.INVALID_INPUT, err
    assert "reports/comparisons/thresh@1--thresh@3.json found them not comparable" in err
    assert out == ""


def test_replay_of_results_graded_by_another_version_exits_3(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    v3 = _score(root, "results_v3.jsonl", "thresh@3")
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--replay", str(v3))
    assert code == ExitCode.INVALID_INPUT, err
    assert "not by OLD (thresh@1)" in err and out == ""


@pytest.mark.parametrize("bad", ["missing", "not-json", "trials-missing"])
def test_a_bad_replay_is_refused_before_any_set_is_graded(
    capsys: pytest.CaptureFixture[str], root: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    """Every precondition is checked before anything runs: a --replay that cannot be read (or whose trials
    cannot) ends in exit 3 without grading the calibration sets first."""
    from graderctl.services import compare as compare_service

    results = _score(root, "results_v1.jsonl", "thresh@1")
    extra: list[str] = []
    if bad == "missing":
        results = root / "no-such-results.jsonl"
    elif bad == "not-json":
        results.write_text("{not json\n")
    else:
        extra = ["--trials", str(root / "no-such-trials.jsonl")]

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a set was graded before the replay was read")

    monkeypatch.setattr(compare_service, "grade_on_set", never)
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@3", "--replay", str(results), *extra)
    assert code == ExitCode.INVALID_INPUT, err
    assert out == "" and "a set was graded" not in err


def test_no_set_of_the_check_and_no_replay_exits_3(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    import shutil

    shutil.rmtree(root / "calibration_sets")
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@3")
    assert code == ExitCode.INVALID_INPUT, err
    assert "no calibration set for check source_existence" in err and out == ""
