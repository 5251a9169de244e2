"""A cascade in `score`: the judge is asked only about units the rule grader leaves undecided, units no
member decides go to the review file, and `sets add` turns labelled review lines into samples (trust lapses).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.kinds.test_cascade import FakeBandGrader, write_grader
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm_project import write_judge, write_set

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.plugin import kinds, register


@pytest.fixture(autouse=True)
def _registered() -> None:
    if "fake_band" not in kinds():
        register(FakeBandGrader, origin="tests/kinds/test_cascade.py")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="correct") as s:
        yield s


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def calibration_samples() -> list[dict[str, Any]]:
    out = []
    for i in range(20):
        words = "SURE_GOOD MARKER_GOOD" if i % 2 else "MARKER_GOOD"
        out.append(
            {
                "id": f"g{i}",
                "label": "good",
                "category": "c",
                "group": f"t{i}",
                "input": {"claim": f"Claim {i}: {words}", "evidence": [{"text": f"Passage {i}."}]},
            }
        )
        words = "SURE_BAD MARKER_BAD" if i % 2 else "MARKER_BAD"
        out.append(
            {
                "id": f"b{i}",
                "label": "bad",
                "category": "c",
                "group": f"u{i}",
                "input": {"claim": f"Claim {i}: {words}", "evidence": [{"text": f"Passage {i}."}]},
            }
        )
    return out


CLAIMS = {
    "t1": ["SURE_GOOD MARKER_GOOD the index rose", "MARKER_GOOD analysts noted it"],
    "t2": ["MARKER_UNSURE the index doubled", "SURE_GOOD MARKER_GOOD the index rose"],
    "t3": ["SURE_BAD MARKER_BAD the index fell"],
}


def write_trials(root: Path) -> tuple[Path, Path]:
    trials, docs = [], []
    for task, claims in CLAIMS.items():
        docs.append(
            {
                "id": f"doc-{task}",
                "url": f"https://example.org/{task}",
                "text": f"Page of {task}: the index rose.",
            }
        )
        trials.append(
            {
                "task_id": task,
                "trial_id": f"{task}-1",
                "generator": {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"},
                "task": {"question": "What happened to the index?"},
                "report": {
                    "text": " ".join(claims),
                    "claims": [
                        {"id": f"c{i + 1}", "text": text, "citations": [{"source_id": "s1"}]}
                        for i, text in enumerate(claims)
                    ],
                    "sources": [{"id": "s1", "url": f"https://example.org/{task}"}],
                },
            }
        )
    (root / "runs").mkdir()
    t, c = root / "runs" / "trials.jsonl", root / "runs" / "corpus.jsonl"
    t.write_text("".join(json.dumps(x) + "\n" for x in trials), encoding="utf-8")
    c.write_text("".join(json.dumps(x) + "\n" for x in docs), encoding="utf-8")
    return t, c


def project(root: Path, server: FakeOpenAI) -> tuple[Path, Path]:
    write_grader(root, "rule", "fake_band")
    write_judge(root, server.base_url, key_env=None)
    write_grader(root, "casc", "cascade", 'members = ["rule@1", "judge@1"]\n')
    write_set(root, "cs", calibration_samples(), far=0.45, frr=0.45)
    return write_trials(root)


def test_cascade_scores_routes_to_the_judge_and_writes_the_review_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, server: FakeOpenAI
) -> None:
    trials, corpus = project(tmp_path, server)
    code, out, err = run(capsys, tmp_path, "calibrate", "casc@1", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["trusted"] is True
    assert [m["decided"] for m in report["cascade"]["members"]] == [20, 20]
    assert report["cascade"]["calls_saved"] == 20 and server.completions == 20

    before = server.completions
    results = tmp_path / "runs" / "results.jsonl"
    code, out, err = run(
        capsys,
        tmp_path,
        "score",
        str(trials),
        "--output",
        str(results),
        "--corpus",
        str(corpus),
        "--grader",
        "casc@1",
    )
    assert code == 0, err
    # the rule decides 3 of the 5 claims; only the other 2 reach the judge
    assert server.completions - before == 2
    lines = {line["task_id"]: line for line in read_lines(results)}
    assert lines["t1"]["success"] is True
    assert lines["t3"]["success"] is False
    t2 = lines["t2"]["checks"]["claim_support"]
    assert lines["t2"]["success"] is None and t2["passed"] is None and t2["undecided"] == 1
    assert any("undecided" in r for r in t2["reasons"])
    review = tmp_path / "runs" / "results.review.jsonl"
    assert "1 unit(s) need review (1 undecided)" in out and str(review.name) in out
    [item] = read_lines(review)
    assert (item["task_id"], item["unit"], item["status"], item["grader"]) == (
        "t2",
        "claim:c1",
        "undecided",
        "casc@1",
    )
    assert item["label"] is None and item["documents"][0]["id"] == "doc-t2"
    assert item["input"]["evidence"] == [{"source_id": "doc-t2"}]

    # a person labels it; sets add makes it a sample, and the cascade's trust lapses
    item["label"] = "bad"
    item["rationale"] = "the page says rose, not doubled"
    item["labeler"] = "ana"
    review.write_text(json.dumps(item) + "\n", encoding="utf-8")
    code, out, err = run(capsys, tmp_path, "sets", "add", "cs", "--from", str(review), "--format", "json")
    assert code == 0, err
    added = json.loads(out)
    assert (added["added"], added["documents_added"], added["version_after"]) == (1, 1, 2)
    folder = tmp_path / "calibration_sets" / "cs"
    new = read_lines(folder / "samples.jsonl")[-1]
    assert new["label"] == "bad" and new["group"] == "t2" and new["category"] == "reviewed"
    assert new["provenance"]["trial_id"] == "t2-1" and new["provenance"]["grader"] == "casc@1"
    assert new["labels"] == [{"labeler": "ana", "label": "bad"}]
    assert read_lines(folder / "corpus.jsonl")[-1]["id"] == "doc-t2"
    assert "version = 2" in (folder / "manifest.toml").read_text()
    code, out, err = run(capsys, tmp_path, "validate", str(folder))
    assert code == 0, err + out
    # adding the same review again adds nothing
    code, out, err = run(capsys, tmp_path, "sets", "add", "cs", "--from", str(review))
    assert code == 0 and "nothing added" in out
    # the report was bound to version 1 of the set: scoring is refused until the cascade is calibrated again
    code, out, err = run(
        capsys,
        tmp_path,
        "score",
        str(trials),
        "--output",
        str(tmp_path / "r2.jsonl"),
        "--corpus",
        str(corpus),
        "--grader",
        "casc@1",
    )
    assert code == ExitCode.REFUSED, out + err
    code, out, err = run(capsys, tmp_path, "calibrate", "casc@1")
    assert code == 0, err


def test_sets_add_refuses_bad_lines_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, server: FakeOpenAI
) -> None:
    project(tmp_path, server)
    folder = tmp_path / "calibration_sets" / "cs"
    before = (folder / "samples.jsonl").read_bytes(), (folder / "manifest.toml").read_bytes()
    good = {
        "task_id": "t",
        "trial_id": "t-1",
        "check": "claim_support",
        "unit": "claim:c1",
        "status": "undecided",
        "grader": "casc@1",
        "fingerprint": "sha256:x",
        "input": {"claim": "c", "evidence": [{"text": "e"}]},
        "label": "good",
    }
    wrong_check = {**good, "unit": "claim:c2", "check": "coverage"}
    bad_input = {**good, "unit": "claim:c3", "input": {"claim": "", "evidence": []}}
    unlabelled = {**good, "unit": "claim:c4", "label": None}
    path = tmp_path / "review.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in (good, wrong_check, bad_input, unlabelled)))
    code, out, err = run(capsys, tmp_path, "sets", "add", "cs", "--from", str(path))
    assert code == ExitCode.INVALID_INPUT, out + err
    assert "review.jsonl:2" in err and "/check" in err and "review.jsonl:3" in err and "/input" in err
    assert ((folder / "samples.jsonl").read_bytes(), (folder / "manifest.toml").read_bytes()) == before
    path.write_text(json.dumps(good) + "\n" + json.dumps(unlabelled) + "\n")
    code, out, err = run(capsys, tmp_path, "sets", "add", "cs", "--from", str(path), "--dry-run")
    assert code == 0 and "would add 1 sample(s)" in out and "1 line(s) have no label yet" in err
    assert (folder / "samples.jsonl").read_bytes() == before[0]


def test_review_path_may_not_overwrite_an_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, server: FakeOpenAI
) -> None:
    trials, corpus = project(tmp_path, server)
    code, out, err = run(
        capsys,
        tmp_path,
        "score",
        str(trials),
        "--output",
        str(tmp_path / "r.jsonl"),
        "--corpus",
        str(corpus),
        "--grader",
        "casc@1",
        "--allow-untrusted",
        "--review",
        str(corpus),
    )
    assert code == ExitCode.USAGE_ERROR, out + err
    assert corpus.read_text().startswith('{"id": "doc-t1"')


def test_validate_knows_review_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    item = {
        "schema_version": 1,
        "type": "review",
        "task_id": "t",
        "trial_id": "t-1",
        "check": "claim_support",
        "unit": "claim:c1",
        "status": "undecided",
        "grader": "g@1",
        "fingerprint": "sha256:x",
        "input": {"claim": "c", "evidence": [{"text": "e"}]},
        "label": None,
    }
    path = tmp_path / "results.review.jsonl"  # not a results file, despite its name
    path.write_text(json.dumps(item) + "\n" + json.dumps({**item, "label": "maybe"}) + "\n")
    code, out, err = run(capsys, tmp_path, "validate", str(path))
    assert code == ExitCode.INVALID_INPUT
    assert "results.review.jsonl:2: /label" in out + err and "/success" not in out + err
    other = tmp_path / "reviewed.jsonl"
    other.write_text(json.dumps(item) + "\n")
    code, out, err = run(capsys, tmp_path, "validate", str(other))
    assert code == 0, out + err
    assert "review" in out + err


def test_compare_counts_abstentions_apart_from_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """An abstaining version is not a version that errs: compare says not comparable (exit 1, the share
    decided changed), never 'could not run' (exit 4)."""
    repo = Path(__file__).resolve().parents[2]
    code, out, err = run(
        capsys, repo, "compare", "claim-support@1", "claim-support@2", "--no-write", "--format", "json"
    )
    assert code == ExitCode.NEGATIVE_VERDICT, err
    doc = json.loads(out)
    [s] = doc["sets"]
    assert s["error_rate"] == {"old": 0.0, "new": 0.0} and not s["error_rate_exceeded"]
    assert s["undecided_rate"]["old"] == 0.0 and s["undecided_rate"]["new"] > 0.3
    assert any(f["stratum"] == "decided" for f in doc["failed_strata"])


def test_compare_replay_counts_abstentions_apart_from_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = Path(__file__).resolve().parents[2]
    trials = repo / "examples" / "research-agent" / "trials.jsonl"
    results = tmp_path / "results.jsonl"
    code, _, err = run(
        capsys, repo, "score", str(trials), "--output", str(results), "--allow-untrusted", "-q"
    )
    assert code == 0, err
    code, out, err = run(
        capsys,
        repo,
        "compare",
        "claim-support@1",
        "claim-support@2",
        "--replay",
        str(results),
        "--trials",
        str(trials),
        "--no-write",
        "--format",
        "json",
    )
    assert code == ExitCode.NEGATIVE_VERDICT, err  # not comparable; before: exit 4 ("erred")
    doc = json.loads(out)
    assert not doc["replay"]["error_rate_exceeded"]
    assert any(f["stratum"] == "decided" and f["set"] is None for f in doc["failed_strata"])
