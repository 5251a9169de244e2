"""Every case of ../shared/oracles reproduced: fractions exactly, floats to the tables' tolerance."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import (
    clopper_pearson_interval,
    clopper_pearson_upper,
    cohen_kappa_from_table,
    mcnemar_exact,
    mean_pass_at_k,
    mean_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    samples_needed,
    wilson_interval,
)

TOL = 1e-6


def test_two_sided_intervals(intervals_oracle: Any) -> None:
    cases = intervals_oracle["two_sided_95"]
    assert cases, "the oracle table has no cases"
    for case in cases:
        x, n = case["x"], case["n"]
        assert wilson_interval(x, n) == pytest.approx(case["wilson"], abs=TOL), case
        assert clopper_pearson_interval(x, n) == pytest.approx(case["clopper_pearson"], abs=TOL), case


def test_one_sided_upper_bounds(intervals_oracle: Any) -> None:
    for case in intervals_oracle["one_sided_95_upper_clopper_pearson"]:
        assert clopper_pearson_upper(case["x"], case["n"]) == pytest.approx(case["upper"], abs=TOL), case


def test_known_bad_samples_needed(intervals_oracle: Any) -> None:
    for case in intervals_oracle["known_bad_needed_for_far_bound"]["cases"]:
        assert samples_needed(case["target"], case["x"]) == case["n"], case


def test_wald_never(intervals_oracle: Any) -> None:
    # "never": the Wald interval collapses to [0, 0] at x = 0; ours must not.
    assert "Wald" in intervals_oracle["never"]
    for case in intervals_oracle["two_sided_95"]:
        if case["x"] == 0:
            interval = wilson_interval(case["x"], case["n"])
            assert interval is not None and interval[1] > 0


def test_mcnemar(paired_oracle: Any) -> None:
    for case in paired_oracle["mcnemar_exact_two_sided"]["cases"]:
        assert mcnemar_exact(case["b"], case["c"]) == pytest.approx(case["p"], abs=TOL), case


def test_kappa(paired_oracle: Any) -> None:
    for case in paired_oracle["cohen_kappa"]["cases"]:
        assert cohen_kappa_from_table(*case["table"]) == pytest.approx(case["kappa"], abs=TOL), case


def test_pass_k_teaching_data(pass_k_oracle: Any) -> None:
    teaching = pass_k_oracle["teaching_data"]
    tasks = [(t["n"], t["c"]) for t in teaching["tasks"]]
    expected = teaching["expected"]
    for k, value in expected["pass_at_k"].items():
        assert mean_pass_at_k(tasks, int(k)) == Fraction(value)
    for k, value in expected["pass_hat_k"].items():
        assert mean_pass_hat_k(tasks, int(k)) == Fraction(value)
    assert expected["k=6"].startswith("error")
    with pytest.raises(StatisticsError):
        mean_pass_at_k(tasks, 6)
    with pytest.raises(StatisticsError):
        mean_pass_hat_k(tasks, 6)


def test_pass_k_wrong_answers_are_not_ours(pass_k_oracle: Any) -> None:
    teaching = pass_k_oracle["teaching_data"]
    tasks = [(t["n"], t["c"]) for t in teaching["tasks"]]
    wrong = teaching["wrong_answers_to_avoid"]
    plug_in_hat = sum((c / n) ** 2 for n, c in tasks) / len(tasks)
    plug_in_at = sum(1 - (1 - c / n) ** 2 for n, c in tasks) / len(tasks)
    # The oracle's wrong answers really are the plug-in estimators ...
    assert plug_in_hat == pytest.approx(wrong["plug_in_pass_hat_2 (mean of (c/n)^2)"])
    assert plug_in_at == pytest.approx(wrong["plug_in_pass_at_2 (mean of 1-(1-c/n)^2)"])
    # ... and we do not return them.
    assert float(mean_pass_hat_k(tasks, 2)) != pytest.approx(plug_in_hat, abs=1e-3)
    assert float(mean_pass_at_k(tasks, 2)) != pytest.approx(plug_in_at, abs=1e-3)


def test_pass_k_per_task(pass_k_oracle: Any) -> None:
    for case in pass_k_oracle["per_task"]:
        n, c, k = case["n"], case["c"], case["k"]
        assert pass_at_k(n, c, k) == Fraction(case["pass_at_k"]), case
        assert pass_hat_k(n, c, k) == Fraction(case["pass_hat_k"]), case


def test_pass_k_must_raise(pass_k_oracle: Any) -> None:
    for case in pass_k_oracle["must_raise"]:
        for func in (pass_at_k, pass_hat_k):
            with pytest.raises(StatisticsError):
                func(case["n"], case["c"], case["k"])


def test_vendored_oracles_match_shared() -> None:
    """tests/data/oracles is a verbatim copy of ../shared/oracles (used in a plain clone): byte-identical
    wherever ../shared is present, and a complete, readable copy everywhere."""
    from tests.conftest import DATA, SHARED

    names = ["intervals.json", "paired.json", "pass_k.json"]
    for name in names:
        vendored = DATA / "oracles" / name
        assert json.loads(vendored.read_text(encoding="utf-8")), name
        shared = SHARED / "oracles" / name
        if shared.is_file():
            assert vendored.read_bytes() == shared.read_bytes(), f"refresh {vendored} from {shared}"
    if (SHARED / "oracles").is_dir():
        assert sorted(p.name for p in (SHARED / "oracles").glob("*.json")) == names
