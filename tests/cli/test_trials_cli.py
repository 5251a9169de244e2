"""``graderctl trials import inspect|jsonl`` and ``score`` on an Inspect AI log, over real logs made with
inspect_ai itself (the session fixture ``inspect_logs``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.normalize import normalize_url

REPO = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def support() -> Any:
    from tests.support import inspect_eval

    return inspect_eval


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_inspect_log_pass_at_k_equals_inspect_reducers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any], fmt: str
) -> None:
    """Acceptance: the imported trials' pass@k and pass^k (graderctl metrics on the results made from the
    Inspect scores) equal Inspect's own pass_at(k) / pass_k(k) epoch reducers on the same log; cost and
    generator come through."""
    s = support()
    trials, results = tmp_path / "trials.jsonl", tmp_path / "results.jsonl"
    code, out, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs[fmt]),
        "--output",
        str(trials),
        "--results-output",
        str(results),
        "--price",
        "mockllm/model=3/15",
        "--format",
        "json",
    )
    assert code == 0, err
    summary = json.loads(out)
    n_samples = len(s.QUESTIONS)
    assert summary["trials"] == n_samples * s.EPOCHS and summary["tasks"] == n_samples
    assert summary["epochs"] == list(range(1, s.EPOCHS + 1))
    assert summary["generators"] == ["mockllm/model"]
    assert summary["results"]["scorer"] == "includes"
    assert summary["results"]["successes"] == sum(q[3] for q in s.QUESTIONS.values())

    k = ",".join(map(str, s.K_VALUES))
    code, out, err = run(capsys, tmp_path, "metrics", str(results), "--k", k, "--format", "json")
    assert code == 0, err
    metrics = json.loads(out)
    inspect_values = s.reducer_values(inspect_logs["log"])
    assert len(inspect_values) == 2 * len(s.K_VALUES)
    for kk in s.K_VALUES:
        assert metrics["pass_at_k"][str(kk)] == pytest.approx(inspect_values[f"pass_at_{kk}"], abs=1e-12)
        assert metrics["pass_hat_k"][str(kk)] == pytest.approx(inspect_values[f"pass_k_{kk}"], abs=1e-12)
    # the values are not degenerate: the questions differ in how often they are answered right
    assert 0 < metrics["pass_at_k"]["1"] < metrics["pass_at_k"]["4"] < 1

    # cost and generator come through, per trial, exactly as the mock model reported its usage
    tool_turns = 2  # fetch_page, then search_web, then the answer
    t_in = tool_turns * s.USAGE_TOOL_CALL[0] + s.USAGE_ANSWER[0]
    t_out = tool_turns * s.USAGE_TOOL_CALL[1] + s.USAGE_ANSWER[1]
    for trial in lines(trials):
        assert trial["generator"] == {"model": "model", "provider": "mockllm"}
        cost = trial["cost"]
        assert (cost["input_tokens"], cost["output_tokens"], cost["tool_calls"]) == (t_in, t_out, tool_turns)
        assert cost["usd"] == pytest.approx((t_in * 3 + t_out * 15) / 1e6)
    assert summary["cost"]["usd"] == pytest.approx(n_samples * s.EPOCHS * (t_in * 3 + t_out * 15) / 1e6)
    # and the success of each trial is the one Inspect's scorer gave
    by_trial = {(r["task_id"], r["trial_id"]): r for r in lines(results)}
    for qid, (_, _, _, correct) in s.QUESTIONS.items():
        successes = [by_trial[(qid, f"{qid}-e{e}")]["success"] for e in range(1, s.EPOCHS + 1)]
        assert sum(successes) == correct
        assert by_trial[(qid, f"{qid}-e1")]["imported_score"]["scorer"] == "includes"


def test_failed_epoch_is_null_and_metrics_still_equal_inspect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    """An epoch that failed in Inspect (no score) is success null: left out of its task's n, exactly as
    Inspect's reducers leave it out."""
    s = support()
    trials, results = tmp_path / "trials.jsonl", tmp_path / "results.jsonl"
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["errors"]),
        "-o",
        str(trials),
        "--results-output",
        str(results),
    )
    assert code == 0, err
    failed = [r for r in lines(results) if r["success"] is None]
    assert [(r["task_id"], r["trial_id"]) for r in failed] == [("b", "b-e2")]
    assert "the provider failed" in failed[0]["reason"] and failed[0]["stop_reason"] == "error"
    code, out, err = run(capsys, tmp_path, "metrics", str(results), "--k", "1,2,3", "--format", "json")
    assert code == 0, err
    metrics = json.loads(out)
    inspect_values = s.reducer_values(inspect_logs["errors_log"])
    for k in (1, 2, 3):
        assert metrics["pass_at_k"][str(k)] == pytest.approx(inspect_values[f"pass_at_{k}"], abs=1e-12)
        assert metrics["pass_hat_k"][str(k)] == pytest.approx(inspect_values[f"pass_k_{k}"], abs=1e-12)
    assert metrics["null_trials"]["count"] == 1


def test_inspect_mapping_and_pages_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    s = support()
    trials, corpus = tmp_path / "trials.jsonl", tmp_path / "corpus.jsonl"
    code, out, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["eval"].parent),  # a folder: every log in it
        "-o",
        str(trials),
        "--corpus-output",
        str(corpus),
    )
    assert code == 0, err
    assert "16 trial(s) of 4 task(s)" in out and "8 page(s) the agents read" in out
    assert "no price for model(s) mockllm/model" in err  # no --price, and Inspect recorded no cost
    rows = lines(trials)
    assert [(r["task_id"], r["trial_id"]) for r in rows[:2]] == [
        ("q-solar", "q-solar-e1"),
        ("q-solar", "q-solar-e2"),
    ]
    for row in rows:
        question, _, answer, _ = s.QUESTIONS[row["task_id"]]
        assert row["task"]["question"] == question
        assert row["category"] == "energy" and row["stop_reason"] == "completed"
        assert (
            row["report"]["text"].startswith("The agency reports that output")
            and s.cited_url(row["task_id"]) in row["report"]["text"]
        )
        assert "usd" not in row["cost"]
        assert row["trajectory"].endswith(f"#{row['task_id']}/e{row['trial_id'].rsplit('-e', 1)[1]}")
    docs = {normalize_url(d["url"]): d for d in lines(corpus)}
    assert len(docs) == 2 * len(s.QUESTIONS)
    for qid, (_, url, answer, _) in s.QUESTIONS.items():
        page = docs[normalize_url(url)]
        # the fetched HTML as text: title apart, scripts dropped, entities decoded
        assert page["title"] == f"Report on {qid}"
        assert f"According to the agency, output {answer} & more." in page["text"]
        assert "tracking" not in page["text"] and "<p>" not in page["text"]
        # a search result's URL citation: a document of its own with the cited text
        found = docs[normalize_url(s.SEARCH_RESULT_URL.format(qid=qid))]
        assert found["text"] == s.search_snippet(qid) and found["title"] == f"Search result on {qid}"


def test_score_reads_an_inspect_log_directly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    results = tmp_path / "results.jsonl"
    code, _, err = run(
        capsys,
        REPO,
        "score",
        str(inspect_logs["json"]),
        "--output",
        str(results),
        "--check",
        "source_existence",
    )
    assert code == 0, err
    assert "is an Inspect AI log: 16 trial(s)" in err
    assert "the 8 page(s) the agents read through tools are part of the corpus" in err
    rows = lines(results)
    assert len(rows) == 16 and {r["generator"]["provider"] for r in rows} == {"mockllm"}
    assert all(r["cost"]["tool_calls"] == 2 for r in rows)
    # the report text is parsed into citations, checked against the pages the agent read: a page it fetched
    # (quote and all) passes, a page it never fetched does not
    s = support()
    for row in rows:
        check = row["checks"]["source_existence"]
        assert check["units"] == 2, check
        if row["task_id"] in s.CITES_UNREAD:
            assert row["success"] is False and "no document in the corpus" in check["reasons"][0]
        else:
            assert row["success"] is True, check


def test_tool_option_limits_the_pages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["eval"]),
        "-o",
        str(tmp_path / "t.jsonl"),
        "--corpus-output",
        str(corpus),
        "--tool",
        "fetch_page",
    )
    assert code == 0, err
    assert all("search.example.com" not in d["url"] for d in lines(corpus)) and len(lines(corpus)) == 4


def test_missing_inspect_ai_is_exit_3_naming_the_extra(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    inspect_logs: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # `import inspect_ai.log` now raises ImportError
    out_path = tmp_path / "t.jsonl"
    code, _, err = run(
        capsys, tmp_path, "trials", "import", "inspect", str(inspect_logs["eval"]), "-o", str(out_path)
    )
    assert code == ExitCode.INVALID_INPUT, err
    assert "graderctl[inspect]" in err and "Traceback" not in err and not out_path.exists()
    code, _, err = run(capsys, REPO, "score", str(inspect_logs["eval"]), "-o", str(out_path))
    assert code == ExitCode.INVALID_INPUT and "graderctl[inspect]" in err


def test_bad_inputs(capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]) -> None:
    garbage = tmp_path / "broken.eval"
    garbage.write_bytes(b"not a zip archive")
    out_path = tmp_path / "t.jsonl"
    code, _, err = run(capsys, tmp_path, "trials", "import", "inspect", str(garbage), "-o", str(out_path))
    assert (
        code == ExitCode.INVALID_INPUT and "not a readable Inspect AI log" in err and "Traceback" not in err
    )
    code, _, err = run(
        capsys, tmp_path, "trials", "import", "inspect", str(tmp_path / "none.eval"), "-o", str(out_path)
    )
    assert code == ExitCode.INVALID_INPUT and "no such file" in err
    # the same run twice: each sample and epoch must come once
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["eval"]),
        str(inspect_logs["eval"]),
        "-o",
        str(out_path),
    )
    assert code == ExitCode.INVALID_INPUT and "is in two logs" in err
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["eval"]),
        "-o",
        str(out_path),
        "--results-output",
        str(tmp_path / "r.jsonl"),
        "--scorer",
        "nope",
    )
    assert code == ExitCode.USAGE_ERROR and "--scorer 'nope'" in err
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "inspect",
        str(inspect_logs["eval"]),
        "-o",
        str(out_path),
        "--price",
        "x=1",
    )
    assert code == ExitCode.USAGE_ERROR and "MODEL=IN/OUT" in err
    assert not out_path.exists()


# --- generic JSON Lines ---------------------------------------------------------------------------


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_jsonl_import_with_a_mapping(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "runs.jsonl",
        [
            {
                "id": 7,
                "prompt": "What grew?",
                "agent": {"model": "gpt-4o", "usage": {"in": 1000, "out": 200}},
                "messages": [
                    {"role": "user", "content": "What grew?"},
                    {"role": "assistant", "content": [{"type": "text", "text": "Solar grew [1]."}]},
                ],
                "passed": True,
            },
            {
                "id": 7,
                "prompt": "What grew?",
                "agent": {"model": "gpt-4o", "usage": {"in": 500, "out": 100}},
                "messages": [{"role": "assistant", "content": "Wind grew."}],
                "passed": 0,
            },
        ],
    )
    trials, results = tmp_path / "trials.jsonl", tmp_path / "results.jsonl"
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "jsonl",
        str(src),
        "-o",
        str(trials),
        "--map",
        "task_id=id,report=messages.-1.content,question=prompt,model=agent.model",
        "--map",
        "input_tokens=agent.usage.in,output_tokens=agent.usage.out,success=passed",
        "--price",
        "gpt-4o=2.5/10",
        "--results-output",
        str(results),
    )
    assert code == 0, err
    rows = lines(trials)
    assert [(r["task_id"], r["trial_id"]) for r in rows] == [("7", "7-1"), ("7", "7-2")]
    assert rows[0]["report"]["text"] == "Solar grew [1]." and rows[1]["report"]["text"] == "Wind grew."
    assert rows[0]["task"]["question"] == "What grew?" and rows[0]["generator"] == {"model": "gpt-4o"}
    assert rows[0]["cost"]["usd"] == pytest.approx((1000 * 2.5 + 200 * 10) / 1e6)
    assert [r["success"] for r in lines(results)] == [True, False]


def test_jsonl_bad_mapping_and_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "runs.jsonl", [{"id": "a", "out": "x"}, {"id": "b"}])
    out_path = tmp_path / "t.jsonl"
    code, _, err = run(
        capsys, tmp_path, "trials", "import", "jsonl", str(src), "-o", str(out_path), "--map", "task_id=id"
    )
    assert code == ExitCode.USAGE_ERROR and "report.text" in err
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "jsonl",
        str(src),
        "-o",
        str(out_path),
        "--map",
        "task_id=id,bogus=x,report=out",
    )
    assert code == ExitCode.USAGE_ERROR and "unknown target 'bogus'" in err
    code, _, err = run(
        capsys,
        tmp_path,
        "trials",
        "import",
        "jsonl",
        str(src),
        "-o",
        str(out_path),
        "--map",
        "task_id=id,report=out",
    )
    assert code == ExitCode.INVALID_INPUT, err
    assert "runs.jsonl:2: /out: no value for report.text at 'out'" in err
    assert not out_path.exists()


def test_units_reads_an_inspect_log_directly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    code, out, err = run(capsys, tmp_path, "units", str(inspect_logs["eval"]), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["trials"] == 16 and doc["summary"]["from_text"] == 16
    assert doc["summary"]["citations"] == 32 and doc["summary"]["missing_sources"] == 0
    assert "the 8 page(s) the agents read through tools are part of the corpus" in err
