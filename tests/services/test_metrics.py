from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import DATA, oracle_path

from graderctl.errors import InvalidInputError, StatisticsError
from graderctl.models.reports import CalibrationReport
from graderctl.services.metrics import MetricsOptions, compute_metrics, parse_ks, read_weights
from graderctl.stats import mean_pass_at_k, mean_pass_hat_k

TEACHING = DATA / "metrics" / "teaching_results.jsonl"


def write_results(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def trials(task: str, outcomes: list[bool | None], **extra: Any) -> list[dict[str, Any]]:
    return [
        {"task_id": task, "trial_id": f"{task}-{i}", "success": s, **extra} for i, s in enumerate(outcomes)
    ]


def metrics(path: Path, root: Path | None = None, **opts: Any) -> dict[str, Any]:
    return compute_metrics(
        path, root=root or path.parent, options=MetricsOptions(**opts)
    ).document.model_dump()


# --- the teaching data of the seed article (shared/oracles/pass_k.json) ---------------------------


def test_teaching_data_reproduces_the_published_values() -> None:
    doc = metrics(TEACHING)
    assert doc["type"] == "metrics" and doc["schema_version"] == 1
    assert doc["tasks"] == 4 and doc["trials"] == 20
    assert doc["pass_at_k"]["1"] == pytest.approx(0.55)
    assert doc["pass_at_k"]["2"] == pytest.approx(0.675)
    assert doc["pass_hat_k"]["2"] == pytest.approx(0.425)
    assert doc["pass_at_k_exact"] == {"1": "11/20", "2": "27/40", "3": "29/40", "5": "3/4"}
    assert doc["pass_hat_k_exact"] == {"1": "11/20", "2": "17/40", "3": "7/20", "5": "1/4"}
    # the plug-in estimators are wrong answers
    assert doc["pass_hat_k"]["2"] != pytest.approx(0.45)
    assert doc["pass_at_k"]["2"] != pytest.approx(0.65)


def test_teaching_data_matches_the_oracle_file() -> None:
    oracle = json.loads(oracle_path("pass_k.json").read_text())["teaching_data"]
    doc = metrics(TEACHING, ks=[1, 2, 3, 4, 5])
    assert doc["pass_at_k_exact"] == oracle["expected"]["pass_at_k"]
    assert doc["pass_hat_k_exact"] == oracle["expected"]["pass_hat_k"]


def test_k_larger_than_n_names_the_tasks() -> None:
    with pytest.raises(InvalidInputError) as info:
        metrics(TEACHING, ks=[6])
    text = str(info.value)
    assert "task-1, task-2, task-3, task-4" in text
    assert all("fewer than k = 6" in p.message for p in info.value.problems)


def test_k_too_large_for_one_task_only(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", trials("big", [True] * 6) + trials("small", [True, False]))
    with pytest.raises(InvalidInputError) as info:
        metrics(path, ks=[1, 3])
    assert "small" in str(info.value) and "big" not in str(info.value)


def test_default_k_follows_the_smallest_task(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", trials("a", [True] * 12) + trials("b", [False] * 3))
    assert metrics(path)["k"] == [1, 2, 3]
    path = write_results(tmp_path / "r.jsonl", trials("a", [True]))
    assert metrics(path)["k"] == [1]


def test_exact_means_equal_the_stats_functions(tmp_path: Path) -> None:
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []
    pairs = []
    for t in range(60):
        n = rng.randint(3, 9)
        c = rng.randint(0, n)
        pairs.append((n, c))
        rows += trials(f"t{t}", [i < c for i in range(n)])
    doc = metrics(write_results(tmp_path / "r.jsonl", rows), ks=[1, 2, 3])
    for k in (1, 2, 3):
        assert Fraction(doc["pass_at_k_exact"][str(k)]) == mean_pass_at_k(pairs, k)
        assert Fraction(doc["pass_hat_k_exact"][str(k)]) == mean_pass_hat_k(pairs, k)
        low, high = doc["pass_at_k_ci"][str(k)]["low"], doc["pass_at_k_ci"][str(k)]["high"]
        assert low <= doc["pass_at_k"][str(k)] <= high


def test_order_of_lines_does_not_matter(tmp_path: Path) -> None:
    rows = trials("a", [True, False, True]) + trials("b", [False, False, True]) + trials("c", [True] * 3)
    first = metrics(write_results(tmp_path / "a.jsonl", rows))
    random.Random(3).shuffle(rows)
    second = metrics(write_results(tmp_path / "b.jsonl", rows))
    for key in ("pass_at_k", "pass_hat_k", "pass_at_k_ci", "pass_hat_k_ci", "success_rate"):
        assert first[key] == second[key], key


# --- null trials ----------------------------------------------------------------------------------


def test_null_trials_are_counted_apart_never_as_failures(tmp_path: Path) -> None:
    rows = [*trials("a", [True, True, None, None]), *trials("b", [True, False])]
    rows[2]["reason"] = "claim_support: every unit erred"
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    assert doc["null_trials"]["count"] == 2
    assert doc["null_trials"]["by_reason"] == {"claim_support: every unit erred": 1, "no reason given": 1}
    assert doc["graded_trials"] == 4 and doc["trials"] == 6
    # task a: 2/2, task b: 1/2 -> pass@1 = 3/4 (a null taken as failure would give 1/2 for a)
    assert doc["pass_at_k_exact"]["1"] == "3/4"
    assert doc["trials_per_task"] == {
        "min": 2,
        "median": 2,
        "max": 2,
        "counts": doc["trials_per_task"]["counts"],
    }
    assert any("success null" in w for w in doc["warnings"])


def test_task_with_only_null_trials_is_left_out_and_said(tmp_path: Path) -> None:
    rows = trials("a", [True, False]) + trials("z", [None, None])
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    assert doc["tasks"] == 1
    assert doc["null_trials"]["tasks_without_graded_trials"] == 1
    assert any("no graded trial" in w and "z" in w for w in doc["warnings"])


def test_all_null_is_invalid(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no trial could be graded"):
        metrics(write_results(tmp_path / "r.jsonl", trials("a", [None])))


# --- rates, categories, checks, stop reasons ------------------------------------------------------


def test_trial_weighted_rate_is_shown_beside_the_task_weighted(tmp_path: Path) -> None:
    rows = trials("a", [True] * 8) + trials("b", [False, False])
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    rates = doc["success_rate"]
    assert rates["task_weighted"]["value"] == pytest.approx(0.5)
    assert rates["trial_weighted"]["value"] == pytest.approx(0.8)
    assert "trial-weighted" in rates["trial_weighted"]["label"]
    assert "task-weighted" in rates["task_weighted"]["label"]


def test_breakdowns(tmp_path: Path) -> None:
    def check(passed: bool | None) -> dict[str, Any]:
        return {"passed": passed, "grader": "cs@1", "fingerprint": "sha256:aa", "units": 1}

    rows = [
        {"task_id": "a", "trial_id": "1", "success": True, "category": "x", "stop_reason": "completed",
         "checks": {"claim_support": check(True)}},
        {"task_id": "a", "trial_id": "2", "success": False, "category": "x", "stop_reason": "max_turns",
         "checks": {"claim_support": check(False)}},
        {"task_id": "b", "trial_id": "1", "success": None, "category": "y", "stop_reason": "completed",
         "checks": {"claim_support": check(None)}},
        {"task_id": "b", "trial_id": "2", "success": False, "category": "y",
         "checks": {"claim_support": check(False)}},
    ]  # fmt: skip
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    assert doc["failures_by_check"]["claim_support"]["failed"] == 2
    assert doc["failures_by_check"]["claim_support"]["null"] == 1
    assert doc["failures_by_check"]["claim_support"]["graders"] == [
        {"grader": "cs@1", "fingerprint": "sha256:aa", "trials": 4}
    ]
    assert doc["by_stop_reason"]["completed"] == {"trials": 2, "successes": 1, "failures": 0, "null": 1}
    assert doc["by_stop_reason"]["max_turns"]["failures"] == 1
    assert doc["by_stop_reason"]["(none)"]["trials"] == 1
    assert doc["categories"]["x"]["success_rate_trial_weighted"] == pytest.approx(0.5)
    assert doc["categories"]["y"]["success_rate_trial_weighted"] == 0.0
    assert doc["categories"]["y"]["null"] == 1


# --- cost -----------------------------------------------------------------------------------------


def test_cost_totals_per_success_and_failed_share(tmp_path: Path) -> None:
    def cost(usd: float) -> dict[str, Any]:
        return {"input_tokens": 100, "output_tokens": 10, "tool_calls": 2, "usd": usd, "wall_seconds": 3.0}

    rows = [
        {"task_id": "a", "trial_id": "1", "success": True, "cost": cost(0.10)},
        {"task_id": "a", "trial_id": "2", "success": False, "cost": cost(0.30)},
        {"task_id": "b", "trial_id": "1", "success": None, "cost": cost(0.10)},
    ]
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    c = doc["cost"]
    assert c["usd"] == pytest.approx(0.5)
    assert c["tokens"] == 330 and c["tool_calls"] == 6
    assert c["wall_seconds"] == pytest.approx(9.0)
    # total cost over all trials (failed and ungraded included) / successes
    assert c["cost_per_success"]["usd"] == pytest.approx(0.5)
    assert c["failed_share_usd"] == pytest.approx(0.6)
    assert c["ungraded_share_usd"] == pytest.approx(0.2)


def test_no_success_gives_null_cost_per_success(tmp_path: Path) -> None:
    rows = trials("a", [False, False], cost={"usd": 0.25, "input_tokens": 10})
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    assert doc["cost"]["usd"] == pytest.approx(0.5)
    assert doc["cost"]["cost_per_success"] == {"usd": None, "tokens": None, "wall_seconds": None}
    assert doc["cost"]["failed_share_usd"] == pytest.approx(1.0)
    assert any("cost per success is null" in w for w in doc["warnings"])


def test_missing_cost_is_null_not_zero(tmp_path: Path) -> None:
    doc = metrics(TEACHING)
    assert doc["cost"]["usd"] is None and doc["cost"]["failed_share_usd"] is None


# --- bad input ------------------------------------------------------------------------------------


def test_bad_lines_are_located(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(
            [
                '{"task_id": "a", "trial_id": "1", "success": true}',
                '{"task_id": "a", "trial_id": "2"}',
                '{"task_id": "a", "trial_id": "3", "success": "yes"}',
                '{"task_id": "a", "trial_id": "4", "success": true,',
                '{"task_id": "a", "trial_id": "5", "success": true, "checks": {"cs": {"passed": 1}}}',
                '{"task_id": "a", "trial_id": "1", "success": false}',
                "[1, 2]",
                '{"task_id": 7, "trial_id": "8", "success": true}',
                '{"task_id": "a", "trial_id": "9", "success": true, "cost": {"usd": -1}}',
            ]
        )
        + "\n"
    )
    with pytest.raises(InvalidInputError) as info:
        metrics(path)
    found = {(p.line, p.pointer) for p in info.value.problems}
    assert found == {
        (2, "/success"),
        (3, "/success"),
        (4, ""),
        (5, "/checks/cs/passed"),
        (6, "/trial_id"),
        (7, ""),
        (8, "/task_id"),
        (9, "/cost/usd"),
    }
    by_line = {p.line: p for p in info.value.problems}
    assert "duplicate" in by_line[6].message
    assert "JSON" in by_line[4].message
    assert all(p.file == "r.jsonl" for p in info.value.problems)


def test_raw_outcomes_as_one_and_zero_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [{"task_id": "a", "trial_id": str(i), "success": int(i < 3)} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert metrics(path)["pass_at_k_exact"]["1"] == "3/4"
    path.write_text('{"task_id": "a", "trial_id": "1", "success": 2}\n')
    with pytest.raises(InvalidInputError) as info:
        metrics(path)
    assert info.value.problems[0].pointer == "/success"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("\n")
    with pytest.raises(InvalidInputError) as info:
        metrics(path)
    assert "empty" in info.value.problems[0].message


def test_bom_and_crlf_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + b'{"task_id": "a", "trial_id": "1", "success": true}\r\n'
        + b'{"task_id": "a", "trial_id": "2", "success": false}\r\n'
    )
    assert metrics(path)["pass_at_k_exact"]["1"] == "1/2"


def test_parse_ks() -> None:
    from graderctl.errors import UsageError

    assert parse_ks("1, 2,5") == [1, 2, 5]
    for bad in ("0", "a", ",", "1.5"):
        with pytest.raises(UsageError):
            parse_ks(bad)


# --- weights --------------------------------------------------------------------------------------


def test_declared_weights_are_used_and_recorded(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", trials("a", [True, True]) + trials("b", [False, False]))
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"a": 3, "b": 1}))
    doc = metrics(path, weights=weights)
    assert doc["pass_at_k"]["1"] == pytest.approx(0.75)
    assert doc["weighting"]["kind"] == "declared"
    assert doc["weighting"]["file"] == "w.json"
    assert doc["weighting"]["sha256"].startswith("sha256:")
    assert doc["pass_at_k_exact"] == {}
    csv_weights = tmp_path / "w.csv"
    csv_weights.write_text("task_id,weight\na,1\nb,3\n")
    assert metrics(path, weights=csv_weights)["pass_at_k"]["1"] == pytest.approx(0.25)
    assert metrics(path)["weighting"]["kind"] == "equal"


def test_weights_must_cover_every_task(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", trials("a", [True]) + trials("b", [False]))
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"a": 1}))
    with pytest.raises(InvalidInputError, match="no weight for 1 task"):
        metrics(path, weights=weights)


def test_bad_weights_are_located(tmp_path: Path) -> None:
    weights = tmp_path / "w.csv"
    weights.write_text("task_id,weight\na,-1\nb,x\nc\n")
    with pytest.raises(InvalidInputError) as info:
        read_weights(weights, root=tmp_path)
    assert [p.line for p in info.value.problems] == [2, 3, 4]


# --- mixed grader versions (issue 5) --------------------------------------------------------------


def _graded(task: str, trial: str, grader: str, fp: str, ok: bool) -> dict[str, Any]:
    return {
        "task_id": task,
        "trial_id": trial,
        "success": ok,
        "checks": {"claim_support": {"passed": ok, "grader": grader, "fingerprint": fp, "units": 1}},
    }


def _mixed(tmp_path: Path) -> Path:
    rows = [
        _graded("a", "1", "claim-support@1", "sha256:old", True),
        _graded("a", "2", "claim-support@2", "sha256:new", False),
    ]
    return write_results(tmp_path / "r.jsonl", rows)


def _comparison(tmp_path: Path, name: str, comparable: bool, old: str, new: str) -> None:
    folder = tmp_path / "reports" / "comparisons"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        json.dumps(
            {
                "schema_version": 1,
                "type": "comparison",
                "comparable": comparable,
                "old": {"ref": "claim-support@1", "fingerprint": old},
                "new": {"ref": "claim-support@2", "fingerprint": new},
            }
        )
    )


def test_mixed_fingerprints_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as info:
        metrics(_mixed(tmp_path))
    assert "claim-support@1" in str(info.value) and "claim-support@2" in str(info.value)
    assert "no comparison report" in info.value.problems[0].message


def test_mixed_fingerprints_found_comparable_are_combined(tmp_path: Path) -> None:
    path = _mixed(tmp_path)
    # the pair is looked up in either order
    _comparison(tmp_path, "cs.json", True, "sha256:new", "sha256:old")
    doc = metrics(path)
    assert doc["combined_graders"]["claim_support"]["comparison_reports"] == ["reports/comparisons/cs.json"]


def test_mixed_fingerprints_found_not_comparable_are_refused(tmp_path: Path) -> None:
    path = _mixed(tmp_path)
    _comparison(tmp_path, "cs.json", False, "sha256:old", "sha256:new")
    with pytest.raises(InvalidInputError) as info:
        metrics(path)
    assert "found them not comparable" in info.value.problems[0].message


# --- correction for grader error ------------------------------------------------------------------


def _report(tmp_path: Path, *, fp: str, far: tuple[int, int], frr: tuple[int, int], check: str) -> Path:
    def rate(count: int, n: int) -> dict[str, Any]:
        return {"value": count / n, "count": count, "n": n, "ci_low": 0.0, "ci_high": 1.0, "upper_95": 1.0}

    doc = {
        "schema_version": 1,
        "type": "calibration",
        "grader": {"name": "g", "version": 1, "kind": "claim_support", "fingerprint": fp, "check": check},
        "calibration_set": {"name": "s", "version": 1, "fingerprint": "sha256:set", "n_good": frr[1],
                            "n_bad": far[1]},
        "false_accept_rate": rate(*far),
        "false_reject_rate": rate(*frr),
        "errors": 0,
        "trusted": True,
        "policy": {"max_false_accept_rate": 0.5, "max_false_reject_rate": 0.5},
        "samples": [],
    }  # fmt: skip
    CalibrationReport.model_validate(doc)
    folder = tmp_path / "reports" / f"s-{check}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "g@1.json"
    path.write_text(json.dumps(doc))
    return path


def _checked_rows(n_ok: int, n_fail: int, checks: list[str]) -> list[dict[str, Any]]:
    rows = []
    for i in range(n_ok + n_fail):
        ok = i < n_ok
        rows.append(
            {
                "task_id": f"t{i % 10}",
                "trial_id": str(i),
                "success": ok,
                "rule": {"require": checks},
                "checks": {
                    c: {"passed": ok, "grader": f"{c}@1", "fingerprint": f"sha256:{c}", "units": 1}
                    for c in checks
                },
            }
        )
    return rows


def test_rogan_gladen_with_one_check(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", _checked_rows(60, 40, ["claim_support"]))
    _report(tmp_path, fp="sha256:claim_support", far=(10, 100), frr=(20, 100), check="claim_support")
    corr = metrics(path, root=tmp_path)["grader_error_correction"]
    assert corr["applied"] is True
    assert corr["approximation"] is False
    assert corr["observed"] == pytest.approx(0.6)
    # (0.6 - 0.1) / (1 - 0.1 - 0.2)
    assert corr["value"] == pytest.approx(0.5 / 0.7)
    assert corr["ci_low"] < corr["value"] < corr["ci_high"]
    assert corr["far"] == {"value": 0.1, "count": 10, "n": 100}
    assert corr["by_check"]["claim_support"]["reports"] == ["reports/s-claim_support/g@1.json"]


def test_rogan_gladen_clips_and_flags(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", _checked_rows(5, 95, ["claim_support"]))
    _report(tmp_path, fp="sha256:claim_support", far=(10, 100), frr=(10, 100), check="claim_support")
    corr = metrics(path, root=tmp_path)["grader_error_correction"]
    assert corr["value"] == 0.0 and corr["clipped"] is True and corr["raw"] < 0
    assert "clipped" in corr["flag"]


def test_rogan_gladen_refused_when_far_plus_frr_reaches_one(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", _checked_rows(50, 50, ["claim_support"]))
    _report(tmp_path, fp="sha256:claim_support", far=(50, 100), frr=(50, 100), check="claim_support")
    corr = metrics(path, root=tmp_path)["grader_error_correction"]
    assert corr["applied"] is False and ">= 1" in corr["why"]
    with pytest.raises(StatisticsError):
        metrics(path, root=tmp_path, correct=True)


def test_rogan_gladen_with_several_checks_is_labelled_an_approximation(tmp_path: Path) -> None:
    checks = ["claim_support", "source_existence"]
    path = write_results(tmp_path / "r.jsonl", _checked_rows(60, 40, checks))
    _report(tmp_path, fp="sha256:claim_support", far=(10, 100), frr=(10, 100), check="claim_support")
    _report(tmp_path, fp="sha256:source_existence", far=(5, 50), frr=(20, 50), check="source_existence")
    corr = metrics(path, root=tmp_path)["grader_error_correction"]
    assert corr["approximation"] is True and "approximation" in corr["approach"]
    assert corr["far"]["value"] == pytest.approx(0.1)
    # 1 - 0.9 * 0.6 = 0.46 over the smaller set (n = 50)
    assert corr["frr"] == {"value": pytest.approx(0.46), "count": 23, "n": 50}


def test_correction_without_reports(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", _checked_rows(6, 4, ["claim_support"]))
    assert metrics(path, root=tmp_path)["grader_error_correction"]["applied"] is False
    with pytest.raises(InvalidInputError, match="cannot correct"):
        metrics(path, root=tmp_path, correct=True)


# --- a large file is read by two processes ---------------------------------------------------------------


def _many_rows(n_tasks: int = 40, per_task: int = 6) -> list[dict[str, Any]]:
    rng = random.Random(11)
    rows = []
    for t in range(n_tasks):
        for j in range(per_task):
            rows.append(
                {
                    "task_id": f"t{t}",
                    "trial_id": f"t{t}-{j}",
                    "success": rng.choice([True, False, None]),
                    "category": f"cat{t % 3}",
                    "stop_reason": rng.choice(["completed", "max_turns"]),
                    "cost": {"usd": 0.01, "input_tokens": 10},
                    "checks": {
                        "claim_support": {
                            "passed": rng.choice([True, False]),
                            "grader": "cs@1",
                            "fingerprint": "sha256:aa",
                            "units": 2,
                        }
                    },
                }
            )
    return rows


def test_parallel_scan_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graderctl.store import metrics_inputs as service

    path = write_results(tmp_path / "r.jsonl", _many_rows())
    serial = service.scan_results(path, parallel=False)
    monkeypatch.setattr(service, "PARALLEL_MIN_BYTES", 0)
    assert service._parallel_parts(path, "r.jsonl", 100) is not None or (service.os_cpu_count() or 1) < 2
    parallel = service.scan_results(path)
    # sums of floats may differ in the last bits with the order of addition
    assert parallel.cost_sum == pytest.approx(serial.cost_sum)
    assert parallel.usd_by_outcome == pytest.approx(serial.usd_by_outcome)
    parallel.cost_sum, parallel.usd_by_outcome = serial.cost_sum, serial.usd_by_outcome
    assert parallel == serial


def test_parallel_scan_locates_problems_and_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graderctl.store import metrics_inputs as service

    rows = _many_rows()
    text = "".join(json.dumps(r) + "\n" for r in rows)
    lines = text.splitlines(keepends=True)
    lines[-3] = '{"task_id": "t1", "trial_id": "x"}\n'  # in the second half
    path = tmp_path / "r.jsonl"
    path.write_text("".join(lines))
    monkeypatch.setattr(service, "PARALLEL_MIN_BYTES", 0)
    if (service.os_cpu_count() or 1) >= 2:
        parts = service._parallel_parts(path, "r.jsonl", 100)
        assert parts is not None and len(parts) == 2 and parts[1].problems
    with pytest.raises(InvalidInputError) as info:
        service.scan_results(path)
    assert [(p.line, p.pointer) for p in info.value.problems] == [(len(lines) - 2, "/success")]
    lines[-2] = lines[0]  # a duplicate of the first line, across the halves
    path.write_text("".join(lines))
    with pytest.raises(InvalidInputError) as info:
        service.scan_results(path)
    found = {(p.line, p.pointer) for p in info.value.problems}
    assert found == {(len(lines) - 2, "/success"), (len(lines) - 1, "/trial_id")}


@pytest.mark.parametrize(
    ("line", "pointer", "key"),
    [
        ('{"task_id": "a", "trial_id": "2", "success": false, "success": true}', "", "success"),
        ('{"task_id":"a","trial_id":"2","success":true,"success":false}', "", "success"),
        ('{"task_id": "a", "trial_id": "2", "succ\\u0065ss": false, "success": true}', "", "success"),
        (
            '{"task_id": "a", "trial_id": "2", "success": true, '
            '"checks": {"cs": {"passed": false, "grader": "x@1", "passed": true}}}',
            "/checks/cs",
            "passed",
        ),
        ('{"task_id": "a", "trial_id": "2", "success": true, "note": {"k" : 1, "k": 2}}', "/note", "k"),
        ('{"task_id": "a", "trial_id": "2", "success": true, "cost": {"usd": 1, "usd": 2}}', "/cost", "usd"),
    ],
)
def test_duplicate_keys_are_refused_with_line_and_pointer(
    tmp_path: Path, line: str, pointer: str, key: str
) -> None:
    """issue 11 item 13: a JSON parser keeps the last of two equal keys silently; metrics refuses them like
    every other reader (``store.readers.duplicate_key_problem``)."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"task_id": "a", "trial_id": "1", "success": true}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        metrics(path)
    (problem,) = info.value.problems
    assert (problem.file, problem.line, problem.pointer) == ("r.jsonl", 2, pointer)
    assert f"duplicate key {key!r}" in problem.message


def test_lines_without_duplicate_keys_pass_the_check(tmp_path: Path) -> None:
    """Escapes, colons and quotes inside strings, equal keys in different objects: no false alarm."""
    rows = [
        '{"task_id": "a", "trial_id": "1", "success": true, '
        '"reason": "he said \\": \\" twice\\"", "x": ":y"}',
        '{"task_id":"a","trial_id":"2","success":false,"checks":{"a":{"passed":false},"b":{"passed":true}}}',
        '{"task_id": "a", "trial_id": "3", "success": true, "note": "caf\\u00e9 \\u003a", "k\\\\": 1}',
        '{"task_id" : "a", "trial_id" : "4", "success" : true}',
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert metrics(path)["trials"] == 4


def test_the_quick_duplicate_filter_never_misses_one() -> None:
    """``may_repeat_a_key`` answers "no" only for texts the exact check passes: random nested objects with
    and without repeated keys, quotes, colons, backslashes and escapes in keys and strings, three layouts."""
    from graderctl.store.metrics_inputs import may_repeat_a_key
    from graderctl.store.readers import duplicate_key_problem

    rng = random.Random(12)
    alphabet = ["a", "b", ":", '"', "\\", " ", "é", "/", "\n"]

    def word() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))

    def value(depth: int) -> str:
        kind = rng.random()
        if depth < 3 and kind < 0.3:
            return obj(depth + 1)
        if depth < 3 and kind < 0.4:
            return "[" + ", ".join(value(depth + 1) for _ in range(rng.randint(0, 2))) + "]"
        if kind < 0.7:
            return json.dumps(word(), ensure_ascii=rng.random() < 0.3)
        return rng.choice(["1", "true", "null", "-2.5e3"])

    def obj(depth: int) -> str:
        keys = [word() for _ in range(rng.randint(0, 4))]
        if keys and rng.random() < 0.3:
            keys.append(rng.choice(keys))  # a repeated key
        sep = rng.choice([":", ": ", " : "])
        pairs = [json.dumps(k, ensure_ascii=rng.random() < 0.3) + sep + value(depth) for k in keys]
        return "{" + rng.choice([",", ", "]).join(pairs) + "}"

    repeated = 0
    for _ in range(3000):
        raw = obj(0).encode()
        if duplicate_key_problem(raw, "r.jsonl", 1) is not None:
            repeated += 1
            assert may_repeat_a_key(raw), raw
    assert repeated > 300  # the test makes repeated keys, at every depth


# --- issue 11 item 20: a one-task interval is undefined, not zero-width --------------------------------


def test_one_task_gives_undefined_intervals_with_a_reason(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", trials("only", [True, False, True, False]))
    doc = metrics(path, ks=[1, 2])
    assert doc["pass_at_k_ci"] == {"1": None, "2": None}
    assert doc["pass_hat_k_ci"] == {"1": None, "2": None}
    task, trial = doc["success_rate"]["task_weighted"], doc["success_rate"]["trial_weighted"]
    assert (task["ci_low"], task["ci_high"]) == (None, None)
    # the cluster bootstrap over one task gave [0.5, 0.5]: zero-width, not an interval
    assert (trial["ci_low"], trial["ci_high"]) == (None, None) and trial["value"] == 0.5
    (why,) = [w for w in doc["warnings"] if "between-task variance" in w]
    assert why.startswith("one task: ") and "undefined (null)" in why


def test_one_weighted_task_gives_undefined_pass_intervals(tmp_path: Path) -> None:
    rows = trials("a", [True, False, True]) + trials("b", [True, True, False])
    path = write_results(tmp_path / "r.jsonl", rows)
    weights = tmp_path / "w.json"
    weights.write_text('{"a": 1, "b": 0}')
    doc = metrics(path, weights=weights)
    assert all(ci is None for ci in doc["pass_at_k_ci"].values())
    assert all(ci is None for ci in doc["pass_hat_k_ci"].values())
    assert doc["success_rate"]["trial_weighted"]["ci_low"] is not None  # two tasks of trials: defined
    assert any(w.startswith("one of the 2 tasks carries weight: ") for w in doc["warnings"])


def test_a_one_task_category_has_no_interval_and_says_why(tmp_path: Path) -> None:
    rows = (
        trials("a", [True, False, True], category="solo")
        + trials("b", [True, True, False], category="pair")
        + trials("c", [False, False, True], category="pair")
    )
    doc = metrics(write_results(tmp_path / "r.jsonl", rows))
    assert doc["categories"]["solo"]["ci"] is None and doc["categories"]["pair"]["ci"] is not None
    assert any(w.startswith("category 'solo' has one task") for w in doc["warnings"])
    rows += trials("d", [True, False], category="solo2")
    doc = metrics(write_results(tmp_path / "r2.jsonl", rows))
    (note,) = [w for w in doc["warnings"] if "one task with graded trials" in w]  # one note for both
    assert note.startswith("2 categories ('solo', 'solo2') have one task")


def test_text_shows_n_a_for_an_undefined_interval(tmp_path: Path) -> None:
    from graderctl.render.metrics import render_text

    path = write_results(tmp_path / "r.jsonl", trials("only", [True, False, True, False]))
    text = render_text(compute_metrics(path, root=tmp_path).document)
    rows = [line for line in text.splitlines() if line.startswith(("pass@1 ", "pass^2 ", "trial-weighted"))]
    assert len(rows) == 3 and all(row.rstrip().endswith("n/a") for row in rows), rows
    assert "50.0% – 50.0%" not in text


def test_warnings_name_no_internal_function(tmp_path: Path) -> None:
    """issue 11 item 20: notes for people, not programmers (a statistics warning named its function)."""
    from graderctl import stats

    internal = [name for name in stats.__all__ if "_" in name and name[0].islower()]
    cases = [
        trials("a", [True, True, True]) + trials("b", [True, True]),  # every outcome the same
        trials("only", [True, False, True]),  # one task
    ]
    seen = 0
    for i, rows in enumerate(cases):
        doc = metrics(write_results(tmp_path / f"r{i}.jsonl", rows))
        for note in doc["warnings"]:
            seen += 1
            assert not [name for name in internal if name in note], note
            assert not re.match(r"^[a-z]+(_[a-z]+)+[: ]", note), note
    assert seen


def test_plain_note_rewords_the_statistics_warnings() -> None:
    from graderctl.services.notes import plain_note

    assert plain_note("wilson_interval is undefined for n = 0 trials; returning None") == (
        "the value is undefined for n = 0 trials (null)"
    )
    assert (
        plain_note("cluster_bootstrap_rate: the rate is undefined for 0 samples; bounds are None")
        == "the rate is undefined for 0 samples; bounds are null"
    )
    assert plain_note(
        "rogan_gladen_interval: too many plausible (FAR, FRR) pairs sum to 1 or more for the correction to "
        "be bounded; the interval is None. Use larger calibration sets."
    ).startswith("the corrected success rate has no interval (null): ")
    assert plain_note("no trial records cost.usd: dollar figures are null") == (
        "no trial records cost.usd: dollar figures are null"
    )
