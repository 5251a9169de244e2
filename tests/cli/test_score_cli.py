from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.data.score.fake_kind import ensure_registered, make_project, write_grader, write_set

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.services import score as score_service


@pytest.fixture(autouse=True)
def _kind() -> None:
    ensure_registered()


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_score_and_metrics(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, corpus = make_project(tmp_path)
    out_path = tmp_path / "results.jsonl"
    code, out, err = run(
        capsys, tmp_path, "score", str(trials), "--output", str(out_path), "--corpus", str(corpus)
    )
    assert code == 0, err
    assert "Scored 5 trial(s)" in out and "1 succeeded, 3 failed, 1 could not be graded" in out
    assert len(lines(out_path)) == 5
    code, out, err = run(capsys, tmp_path, "metrics", str(out_path), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["null_trials"]["count"] == 1


def test_json_summary_is_one_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    code, out, err = run(
        capsys, tmp_path, "score", str(trials), "-o", str(tmp_path / "r.jsonl"), "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["type"] == "score" and doc["trials"] == 5 and doc["null"] == 1


def test_uncalibrated_grader_exits_5(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--grader", "cs-fake@1")
    assert code == ExitCode.REFUSED, err
    assert "cs-fake@1" in err and "never_calibrated" in err and "claim-support-test" in err
    assert not out_path.exists()


def test_stale_grader_exits_5(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "se-fake", "source_existence", reject_word="NOPE")
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(tmp_path / "r.jsonl"))
    assert code == ExitCode.REFUSED, err
    assert "se-fake@1" in err and "stale" in err


def test_allow_untrusted_marks_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--allow-untrusted")
    assert code == 0, err
    assert "untrusted" in err
    for line in lines(out_path):
        graders = sorted(check["grader"] for check in line["checks"].values())
        assert sorted(line["untrusted"]) == graders and "cs-fake@1" in graders


def _self_graded(tmp_path: Path, scale: int = 1) -> Path:
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "cs-judge", "claim_support", judge=("gpt-4o", "openai"))
    write_set(
        tmp_path,
        "claim_support",
        generators={
            "gpt-4o-mini": [("bad", False)] * 3 * scale,
            "claude-3-5-sonnet-20241022": [("bad", False)] * 3 * scale + [("bad", True)],
        },
    )
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-judge@1", root=tmp_path)
    rows = [json.loads(x) for x in trials.read_text().splitlines()]
    for row in rows:
        row["generator"] = {"model": "gpt-4o-2024-08-06"}
    own = tmp_path / "runs" / "own-trials.jsonl"
    own.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return own


def test_judge_grading_its_own_model_exits_5(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials = _self_graded(tmp_path)
    code, _, err = run(
        capsys, tmp_path, "score", str(trials), "-o", str(tmp_path / "r.jsonl"), "--grader", "cs-judge@1"
    )
    assert code == ExitCode.REFUSED, err
    assert "self-grading" in err and "openai/gpt-4o" in err and "gpt-4o-2024-08-06" in err


def test_self_grading_override_is_recorded_in_every_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials = _self_graded(tmp_path, scale=20)  # 60 own-family and 61 other-family bad samples
    out_path = tmp_path / "r.jsonl"
    args = ["score", str(trials), "-o", str(out_path), "--grader", "cs-judge@1", "--allow-self-grading"]
    code, _, err = run(capsys, tmp_path, *args)
    assert code == ExitCode.USAGE_ERROR, err
    code, _, err = run(capsys, tmp_path, *args, "--reason", "the only judge we license")
    assert code == 0, err
    for line in lines(out_path):
        assert line["self_grading"]["override"] is True
        assert line["self_grading"]["reason"] == "the only judge we license"
        assert line["self_grading"]["graders"]["cs-judge@1"]["evidence"]["allowed"] is True


def test_self_grading_override_on_few_samples_exits_5(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials = _self_graded(tmp_path)  # 3 own-family bad samples: too few to show anything
    out_path = tmp_path / "r.jsonl"
    args = ["score", str(trials), "-o", str(out_path), "--grader", "cs-judge@1", "--allow-self-grading"]
    code, _, err = run(capsys, tmp_path, *args, "--reason", "x")
    assert code == ExitCode.REFUSED, err
    assert "too few known-bad samples" in err and "at least 30" in err
    assert not out_path.exists()


def _judge_without_generators(tmp_path: Path) -> Path:
    """A trusted model judge (its [judge] is gpt-4o) and trials that do not name their generator."""
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "cs-judge", "claim_support", judge=("gpt-4o", "openai"))
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-judge@1", root=tmp_path)
    rows = [json.loads(x) for x in trials.read_text().splitlines()]
    for row in rows:
        row.pop("generator", None)
    trials.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return trials


def test_trials_without_generator_are_counted_even_when_quiet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # issue 11 item 8: never waved past a model judge in silence
    trials = _judge_without_generators(tmp_path)
    args = ["score", str(trials), "-o", str(tmp_path / "r.jsonl"), "--grader", "cs-judge@1", "--quiet"]
    code, out, err = run(capsys, tmp_path, *args)
    assert code == 0, err
    assert "5 trial(s) do not name their generator" in out and "cs-judge@1" in out
    assert "--require-generator" in out
    code, out, err = run(capsys, tmp_path, *args, "--format", "json", "-o", str(tmp_path / "r2.jsonl"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["trials_without_generator"] == 5 and doc["judges"] == ["cs-judge@1"]


def test_require_generator_refuses_trials_without_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials = _judge_without_generators(tmp_path)
    out_path = tmp_path / "r.jsonl"
    args = ["score", str(trials), "-o", str(out_path), "--grader", "cs-judge@1", "--require-generator"]
    code, _, err = run(capsys, tmp_path, *args)
    assert code == ExitCode.REFUSED, err
    assert "5 of 5 trial(s) do not name their generator" in err and "--require-generator" in err
    assert not out_path.exists()
    # with every generator named (and not the judge's family), the same command scores
    rows = [json.loads(x) for x in trials.read_text().splitlines()]
    for row in rows:
        row["generator"] = {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"}
    trials.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run(capsys, tmp_path, *args)
    assert code == 0, err
    assert "do not name their generator" not in out


def test_reason_without_override_is_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    code, _, _ = run(capsys, tmp_path, "score", str(trials), "-o", str(tmp_path / "r.jsonl"), "--reason", "x")
    assert code == ExitCode.USAGE_ERROR
    code, _, _ = run(capsys, tmp_path, "score", str(trials))
    assert code == ExitCode.USAGE_ERROR


def test_ctrl_c_keeps_the_partial_for_resume(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials, _ = make_project(tmp_path)
    real = score_service._grade_chunk
    calls: list[int] = []

    def interrupted(chunk: Any, *args: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(chunk, *args)

    monkeypatch.setattr(score_service, "_grade_chunk", interrupted)
    monkeypatch.setattr(score_service, "CHUNK_TRIALS", 2)
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path))
    assert code == ExitCode.INTERRUPTED, err
    assert "2 graded trial(s) are kept" in err and "--resume" in err
    assert not out_path.exists() and score_service.partial_path(out_path).exists()
    monkeypatch.setattr(score_service, "_grade_chunk", real)
    code, out, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--resume")
    assert code == 0, err
    assert "2 trial(s) kept from the interrupted run, 3 graded now" in out
    assert len(lines(out_path)) == 5


def test_rescore_leaves_the_old_file_untouched(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    old = tmp_path / "old-results.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(old))
    assert code == 0, err
    before = old.read_bytes()
    write_grader(tmp_path, "cs-fake", "claim_support", version=2, error_word="NEVER")
    code, _, err = run(capsys, tmp_path, "score", "--rescore", str(old), "--grader", "cs-fake@2", "-o", "x")
    assert code == ExitCode.REFUSED, err  # v2 is not calibrated yet
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-fake@2", root=tmp_path)
    new = tmp_path / "new-results.jsonl"
    code, _, err = run(
        capsys, tmp_path, "score", "--rescore", str(old), "--grader", "cs-fake@2", "-o", str(new)
    )
    assert code == 0, err
    assert old.read_bytes() == before
    for line in lines(new):
        cs = line["checks"]["claim_support"]
        assert cs["grader"] == "cs-fake@2" and cs["rescored_from"]["grader"] == "cs-fake@1"
        assert cs["rescored_from"]["fingerprint"] != cs["fingerprint"]


def test_grader_erring_on_every_unit_exits_4(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    write_grader(tmp_path, "cs-fake", "claim_support", error_word=" ")
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(
        capsys,
        tmp_path,
        "score",
        str(trials),
        "-o",
        str(out_path),
        "--grader",
        "cs-fake",
        "--allow-untrusted",
    )
    assert code == ExitCode.GRADER_FAILED, err
    assert "could not grade any unit" in err
    assert out_path.exists()


def _second_claim_set(root: Path) -> None:
    """A second claim_support set on which cs-fake fails: its bad samples lack the word it rejects."""
    folder = root / "calibration_sets" / "claim-support-hard"
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(
        'schema_version = 1\nname = "claim-support-hard"\nversion = 1\ncheck = "claim_support"\n'
        'description = "t"\nsource = "tests"\n'
        "[policy]\nmax_false_accept_rate = 0.45\nmax_false_reject_rate = 0.45\nmax_error_rate = 0.5\n"
    )
    rows = [
        {
            "id": f"{label}{i}",
            "label": label,
            "category": "c",
            "input": {"claim": f"a fine claim {label} {i}", "evidence": [{"text": "e"}]},
        }
        for label in ("good", "bad")
        for i in range(6)
    ]
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_trusted_on_one_set_of_the_check_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials, corpus = make_project(tmp_path)
    _second_claim_set(tmp_path)
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-fake@1", "claim-support-hard", root=tmp_path)
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--corpus", str(corpus))
    assert code == ExitCode.REFUSED, err
    assert "cs-fake@1" in err and "claim-support-hard: not_trusted" in err and "every set of its check" in err
    assert not out_path.exists()
    # The sets named explicitly are the ones that must vouch; they are recorded in the summary and results.
    code, out, err = run(
        capsys,
        tmp_path,
        "score",
        str(trials),
        "-o",
        str(out_path),
        "--corpus",
        str(corpus),
        "--trust-set",
        "claim-support-test",
        "--format",
        "json",
    )
    assert code == 0, err
    graders = {g["grader"]: g for g in json.loads(out)["graders"]}
    assert graders["cs-fake@1"]["trust_sets"] == ["claim-support-test"]
    assert graders["se-fake@1"]["trust_sets"] == ["source-existence-test"]
    for line in lines(out_path):
        assert line["checks"]["claim_support"]["calibration"] == ["reports/claim-support-test/cs-fake@1.json"]
    code, _, err = run(
        capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--trust-set", "claim-support-hard"
    )
    assert code == ExitCode.REFUSED, err
    assert "the named set(s)" in err


def test_a_hand_edited_report_does_not_unlock_score(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials, corpus = make_project(tmp_path, calibrate=False)
    write_grader(tmp_path, "cs-fake", "claim_support", reject_word="NOPE")  # accepts every bad claim
    from graderctl.services.calibrate import api_calibrate

    for name in ("se-fake", "cs-fake", "cov-fake"):
        api_calibrate(f"{name}@1", root=tmp_path)
    path = tmp_path / "reports" / "claim-support-test" / "cs-fake@1.json"
    doc = json.loads(path.read_text())
    assert doc["trusted"] is False
    doc["trusted"] = True
    for check in doc["policy_checks"]:
        check["passed"] = True
    path.write_text(json.dumps(doc))
    out_path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, tmp_path, "score", str(trials), "-o", str(out_path), "--corpus", str(corpus))
    assert code == ExitCode.REFUSED, err
    assert "the report says trusted, but its outcomes do not meet" in err
    code, out, _ = run(capsys, tmp_path, "list", "--format", "json")
    cs = next(g for g in json.loads(out)["graders"] if g["ref"] == "cs-fake@1")
    assert cs["trust"][0]["state"] == "not_trusted" and cs["trusted"] is False


REPO = Path(__file__).resolve().parents[2]
SHIPPED_TRIALS = REPO / "examples" / "research-agent" / "trials.jsonl"


def test_grader_replaces_its_check_only_on_the_shipped_project(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 11, item 16: one rule, as --rescore has it: --grader claim-support@2 grades claim_support, and
    source_existence and coverage keep their default graders (it used to grade claim_support alone)."""
    base = ["score", str(SHIPPED_TRIALS), "--allow-untrusted", "-q"]
    code, _, err = run(capsys, REPO, *base, "-o", str(tmp_path / "default.jsonl"))
    assert code == 0, err
    code, out, err = run(capsys, REPO, *base, "--grader", "claim-support@2", "-o", str(tmp_path / "v2.jsonl"))
    assert code == 0, err
    default, v2 = lines(tmp_path / "default.jsonl"), lines(tmp_path / "v2.jsonl")
    assert len(v2) == len(default) and all(
        set(a["checks"]) == set(b["checks"]) for a, b in zip(default, v2, strict=True)
    )
    for a, b in zip(default, v2, strict=True):
        assert b["checks"]["claim_support"]["grader"] == "claim-support@2"
        for check in set(b["checks"]) - {"claim_support"}:
            assert b["checks"][check] == a["checks"][check]  # the same grader, the same result
    assert "source_existence" in out and "coverage" in out


def test_check_option_is_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_path = str(tmp_path / "r.jsonl")
    code, _, err = run(capsys, REPO, "score", str(SHIPPED_TRIALS), "-o", out_path, "--check", "claims")
    assert code == ExitCode.USAGE_ERROR and "--check takes one of" in err, err
    code, _, err = run(
        capsys, REPO, "score", "--rescore", str(SHIPPED_TRIALS), "--grader", "claim-support@2",
        "--check", "claim_support", "-o", out_path,
    )  # fmt: skip
    assert code == ExitCode.USAGE_ERROR and "--check" in err and "--rescore" in err, err
    assert not Path(out_path).exists()


def test_a_tiny_lax_set_named_with_trust_set_does_not_unlock_a_grader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A grader that fails the project's core set is not unlocked by naming a 2-sample set whose policy
    limits are 0.99: a limit a coin flip meets cannot grant trust, so the refusal says why and how to fix."""
    trials, corpus = make_project(tmp_path)
    # Rejects only one of the core set's bad claims: it fails the core set.
    write_grader(tmp_path, "cs-lax", "claim_support", reject_word="BAD claim number 0")
    folder = tmp_path / "calibration_sets" / "tiny"
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(
        'schema_version = 1\nname = "tiny"\nversion = 1\ncheck = "claim_support"\ndescription = "t"\n'
        'source = "tests"\n[policy]\nmax_false_accept_rate = 0.99\nmax_false_reject_rate = 0.99\n'
        "max_error_rate = 0.99\n"
    )
    rows = [
        {"id": i, "label": label, "category": "c", "input": {"claim": claim, "evidence": [{"text": "e"}]}}
        for i, label, claim in (("g", "good", "a fine claim"), ("b", "bad", "a BAD claim number 0"))
    ]
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from graderctl.services.calibrate import api_calibrate

    assert not api_calibrate("cs-lax@1", "claim-support-test", root=tmp_path).trusted
    api_calibrate("cs-lax@1", "tiny", root=tmp_path)
    out_path = tmp_path / "r.jsonl"
    args = ["score", str(trials), "-o", str(out_path), "--corpus", str(corpus), "--grader", "cs-lax@1"]
    code, _, err = run(capsys, tmp_path, *args, "--trust-set", "tiny")
    assert code == ExitCode.REFUSED, err
    assert "set tiny: not_trusted" in err and "coin flip" in err and "below 0.5" in err
    assert not out_path.exists()
