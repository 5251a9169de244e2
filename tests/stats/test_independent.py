"""Newcombe's interval (oracle: Newcombe 1998 Table II and statsmodels) and the self-preference rule."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import (
    MIN_SELF_PREFERENCE_SAMPLES,
    UndefinedMetricWarning,
    newcombe_interval,
    self_preference,
)

ORACLE = Path(__file__).resolve().parents[1] / "data" / "oracles" / "newcombe.json"


def _cases() -> list[dict[str, object]]:
    return list(json.loads(ORACLE.read_text(encoding="utf-8"))["newcombe_hybrid_score"])


@pytest.mark.parametrize(
    "case", _cases(), ids=lambda c: f"{c['x1']}/{c['n1']}-{c['x2']}/{c['n2']}@{c['confidence']}"
)
def test_newcombe_reproduces_the_published_and_statsmodels_values(case: dict[str, object]) -> None:
    got = newcombe_interval(
        case["x1"],
        case["n1"],
        case["x2"],
        case["n2"],
        confidence=case["confidence"],  # type: ignore[arg-type]
    )
    assert got is not None
    assert got == pytest.approx(case["ci"], abs=1e-6)


def test_newcombe_by_hand_for_zero_of_n_in_both_groups() -> None:
    # Wilson upper bound of 0/n is z^2 / (n + z^2); with 0 accepts in both groups the interval is symmetric
    z2 = 1.6448536269514722**2
    low, high = newcombe_interval(0, 52, 0, 52, confidence=0.90) or (math.nan, math.nan)
    assert high == pytest.approx(z2 / (52 + z2), abs=1e-12)
    assert low == pytest.approx(-high, abs=1e-12)


def test_newcombe_invariants() -> None:
    a = newcombe_interval(3, 20, 7, 25, confidence=0.9)
    b = newcombe_interval(7, 25, 3, 20, confidence=0.9)
    assert a is not None and b is not None
    assert a == pytest.approx((-b[1], -b[0]))  # swapping the groups mirrors the interval
    wide = newcombe_interval(3, 20, 7, 25, confidence=0.99)
    assert wide is not None and wide[0] < a[0] and wide[1] > a[1]
    assert -1.0 <= a[0] <= 3 / 20 - 7 / 25 <= a[1] <= 1.0


def test_newcombe_undefined_for_an_empty_group() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert newcombe_interval(0, 0, 1, 4) is None


def test_newcombe_bad_parameters() -> None:
    with pytest.raises(StatisticsError, match="'x1' parameter of newcombe_interval"):
        newcombe_interval(5, 4, 1, 4)
    with pytest.raises(StatisticsError, match="'confidence'"):
        newcombe_interval(1, 4, 1, 4, confidence=1.0)


# --- the self-preference rule -------------------------------------------------------------------------


def test_the_issue_case_one_of_two_is_not_evidence() -> None:
    # "a judge that accepted 1 of 2 bad answers of its own family is allowed today"
    result = self_preference(1, 2, 2, 8)
    assert result.outcome == "insufficient" and not result.no_bias
    assert f"at least {MIN_SELF_PREFERENCE_SAMPLES}" in result.explanation


def test_the_minimum_is_thirty_per_group() -> None:
    assert MIN_SELF_PREFERENCE_SAMPLES == 30
    # with a lax margin, 29 and 30 samples fall either side of the minimum
    assert self_preference(0, 29, 0, 200, margin=0.3).outcome == "insufficient"
    assert self_preference(0, 30, 0, 200, margin=0.3).outcome == "no_bias"
    assert self_preference(0, 200, 0, 29, margin=0.3).outcome == "insufficient"


def test_no_bias_needs_the_upper_bound_within_the_margin() -> None:
    # hand-computed: 0/52 vs 0/52 at 90% gives an upper end of 0.049456 <= 0.05; 0/51 gives 0.050377
    assert self_preference(0, 52, 0, 52).outcome == "no_bias"
    assert self_preference(0, 51, 0, 51).outcome == "inconclusive"
    r = self_preference(2, 100, 4, 100)
    assert r.outcome == "no_bias" and r.ci_high == pytest.approx(0.024431, abs=1e-6)
    r = self_preference(3, 40, 2, 60)  # upper end 0.1426 > 0.05: cannot rule a rise out
    assert r.outcome == "inconclusive" and "cannot be ruled out" in r.explanation


def test_bias_is_found_even_on_a_small_sample() -> None:
    r = self_preference(12, 30, 3, 30)
    assert r.outcome == "biased" and r.ci_low == pytest.approx(0.117226, abs=1e-6)
    small = self_preference(6, 6, 0, 6)
    assert small.outcome == "biased" and small.biased
    # a rise within the margin is not a bias, whatever the interval says
    assert self_preference(6, 100, 2, 100, margin=0.05).outcome != "biased"


def test_more_lenient_on_others_is_not_a_bias() -> None:
    r = self_preference(0, 30, 6, 30)
    assert r.outcome == "no_bias" and r.diff == pytest.approx(-0.2)


def test_self_preference_to_dict_and_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = self_preference(0, 0, 3, 10).to_dict()
    assert d["outcome"] == "insufficient" and d["diff"] is None and d["ci_high"] is None
    assert d["own_family"] == {"count": 0, "n": 0, "value": None}
    assert d["method"] == "newcombe-hybrid-score" and d["min_samples"] == 30


def test_self_preference_bad_parameters() -> None:
    with pytest.raises(StatisticsError, match="'margin' parameter of self_preference"):
        self_preference(0, 30, 0, 30, margin=1.0)
    with pytest.raises(StatisticsError, match="'min_samples'"):
        self_preference(0, 30, 0, 30, min_samples=0)
