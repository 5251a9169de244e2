from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import DATA

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

TEACHING = DATA / "metrics" / "teaching_results.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = _state.run(app, list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "--root", str(tmp_path), "metrics", str(TEACHING), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["type"] == "metrics"
    assert doc["pass_at_k"]["1"] == pytest.approx(0.55)
    assert doc["pass_at_k"]["2"] == pytest.approx(0.675)
    assert doc["pass_hat_k"]["2"] == pytest.approx(0.425)
    assert doc["tasks"] == 4 and doc["trials"] == 20
    assert "warning:" in err  # no cost recorded


def test_k_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "--root", str(tmp_path), "metrics", str(TEACHING), "--k", "1,2", "--format", "json"
    )
    assert code == 0, err
    assert sorted(json.loads(out)["pass_at_k"]) == ["1", "2"]


def test_k_larger_than_n_exits_3_naming_the_tasks(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "--root", str(tmp_path), "metrics", str(TEACHING), "--k", "6")
    assert code == ExitCode.INVALID_INPUT, err
    for task in ("task-1", "task-2", "task-3", "task-4"):
        assert task in err
    assert out == ""


def test_bad_k_is_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--root", str(tmp_path), "metrics", str(TEACHING), "--k", "two")
    assert code == ExitCode.USAGE_ERROR, err


def test_text_and_markdown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "--root", str(tmp_path), "metrics", str(TEACHING))
    assert code == 0, err
    assert "pass@2" in out and "27/40" in out and "trial-weighted" in out and "task-weighted" in out
    target = tmp_path / "m.md"
    code, out, err = run(
        capsys, "--root", str(tmp_path), "metrics", str(TEACHING), "--format", "md", "--output", str(target)
    )
    assert code == 0, err
    assert out.startswith("# Metrics")
    assert "| pass^2 | 0.4250 | 17/40 |" in out
    assert target.read_text() == out


def test_no_success_gives_null_cost_per_success(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(
        "".join(
            json.dumps({"task_id": "t", "trial_id": str(i), "success": False, "cost": {"usd": 0.1}}) + "\n"
            for i in range(3)
        )
    )
    code, out, err = run(capsys, "--root", str(tmp_path), "metrics", str(path), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["cost"]["cost_per_success"]["usd"] is None
    assert doc["cost"]["usd"] == pytest.approx(0.3)


def test_invalid_results_exit_3_with_location(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"task_id": "t", "trial_id": "1", "success": true}\n{"task_id": "t"}\n')
    code, _, err = run(capsys, "--root", str(tmp_path), "metrics", str(path))
    assert code == ExitCode.INVALID_INPUT
    assert "results.jsonl:2: /trial_id" in err
    assert "results.jsonl:2: /success" in err


def test_missing_file_exit_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--root", str(tmp_path), "metrics", str(tmp_path / "nope.jsonl"))
    assert code == ExitCode.INVALID_INPUT
    assert "no such file" in err


def test_duplicate_keys_exit_3_with_file_line_and_pointer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(
        '{"task_id": "a", "trial_id": "1", "success": true}\n'
        '{"task_id": "a", "trial_id": "2", "success": false, "success": true}\n',
        encoding="utf-8",
    )
    code, out, err = run(capsys, "--root", str(tmp_path), "metrics", str(path), "--format", "json")
    assert code == ExitCode.INVALID_INPUT, err
    doc = json.loads(out)  # the JSON error document
    assert doc["type"] == "error" and doc["exit_code"] == 3
    (problem,) = doc["problems"]
    assert (problem["file"], problem["line"], problem["pointer"]) == ("results.jsonl", 2, "")
    assert "results.jsonl:2" in err and "duplicate key 'success'" in err
