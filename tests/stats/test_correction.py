"""Rogan-Gladen: the correction, its clipping, and an interval that carries the calibration uncertainty."""

from __future__ import annotations

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import UndefinedMetricWarning, rogan_gladen, rogan_gladen_interval, wilson_interval


def test_correction_by_hand() -> None:
    # (0.6 - 0.1) / (1 - 0.1 - 0.2) = 0.5 / 0.7
    assert rogan_gladen(0.6, 0.1, 0.2) == (pytest.approx(5 / 7), pytest.approx(5 / 7), False)
    # A perfect grader changes nothing.
    assert rogan_gladen(0.42, 0.0, 0.0) == (0.42, 0.42, False)


def test_out_of_range_estimates_are_clipped_and_flagged() -> None:
    value, raw, clipped = rogan_gladen(0.05, 0.1, 0.1)
    assert (value, clipped) == (0.0, True) and raw == pytest.approx(-0.0625)
    value, raw, clipped = rogan_gladen(0.99, 0.0, 0.1)
    assert (value, clipped) == (1.0, True) and raw == pytest.approx(1.1)


def test_undefined_when_the_grader_is_no_better_than_chance() -> None:
    with pytest.raises(
        StatisticsError, match=r"^The 'far' and 'frr' parameters of rogan_gladen must sum to less"
    ):
        rogan_gladen(0.5, 0.5, 0.5)
    with pytest.warns(UndefinedMetricWarning, match="no better than chance"):
        result = rogan_gladen_interval(50, 100, 6, 10, 5, 10)
    assert (result.value, result.raw, result.ci_low, result.ci_high) == (None, None, None, None)
    assert result.observed == 0.5


def test_interval_contains_the_estimate() -> None:
    result = rogan_gladen_interval(60, 100, 5, 100, 20, 100)
    assert result.value == pytest.approx((0.6 - 0.05) / (1 - 0.05 - 0.2))
    assert result.ci_low is not None and result.ci_high is not None
    assert 0 <= result.ci_low <= result.value <= result.ci_high <= 1
    assert set(result.to_dict()) == {"observed", "value", "raw", "clipped", "ci_low", "ci_high", "method"}
    assert "Jeffreys" in result.method


def test_small_calibration_sets_widen_the_interval() -> None:
    big = rogan_gladen_interval(300, 500, 50, 1000, 100, 1000)
    small = rogan_gladen_interval(300, 500, 2, 40, 4, 40)
    assert big.ci_low is not None and big.ci_high is not None
    assert small.ci_low is not None and small.ci_high is not None
    assert small.ci_high - small.ci_low > 1.5 * (big.ci_high - big.ci_low)


def test_perfect_grader_interval_is_the_binomial_interval() -> None:
    result = rogan_gladen_interval(30, 100, 0, 5000, 0, 5000, n_boot=20000)
    wilson = wilson_interval(30, 100)
    assert wilson is not None and result.ci_low is not None and result.ci_high is not None
    assert result.ci_low == pytest.approx(wilson[0], abs=0.01)
    assert result.ci_high == pytest.approx(wilson[1], abs=0.01)


def test_deterministic_for_a_seed() -> None:
    first = rogan_gladen_interval(40, 90, 3, 60, 7, 70, seed=1)
    assert rogan_gladen_interval(40, 90, 3, 60, 7, 70, seed=1) == first
    assert rogan_gladen_interval(40, 90, 3, 60, 7, 70, seed=2) != first


def test_too_uncertain_calibration_gives_no_interval() -> None:
    with pytest.warns(UndefinedMetricWarning, match="interval is None"):
        result = rogan_gladen_interval(60, 100, 5, 10, 4, 10)
    assert result.value is not None
    assert (result.ci_low, result.ci_high) == (None, None)
