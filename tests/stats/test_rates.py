"""Binomial rates: Wilson, Clopper-Pearson, one-sided bounds, sample sizes, against hand-computed values."""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import pytest

from graderctl.stats import (
    RateStats,
    UndefinedMetricWarning,
    clopper_pearson_interval,
    clopper_pearson_upper,
    rate_stats,
    samples_needed,
    wilson_interval,
)

Z95 = NormalDist().inv_cdf(0.975)


def wilson_by_hand(x: int, n: int, z: float) -> tuple[float, float]:
    p = x / n
    centre = (x + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(n * p * (1 - p) + z * z / 4)
    return centre - half, centre + half


@pytest.mark.parametrize(("x", "n"), [(1, 20), (7, 13), (50, 100), (99, 100)])
def test_wilson_matches_the_textbook_formula(x: int, n: int) -> None:
    assert wilson_interval(x, n) == pytest.approx(wilson_by_hand(x, n, Z95), abs=1e-12)


def test_wilson_zero_and_all_are_exact_at_the_edge() -> None:
    low, high = wilson_interval(0, 10) or (None, None)
    assert low == 0.0
    # z^2 / (n + z^2) is the closed-form upper end at x = 0.
    assert high == pytest.approx(Z95**2 / (10 + Z95**2), abs=1e-12)
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + Z95**2)), 1.0)


def test_clopper_pearson_zero_events_is_closed_form() -> None:
    # At x = 0 the upper end solves (1 - u)^n = alpha / 2.
    assert clopper_pearson_interval(0, 10) == (0.0, pytest.approx(1 - 0.025 ** (1 / 10), abs=1e-12))
    # One-sided 95%: (1 - u)^n = 0.05; n = 30 gives 0.0950 ("rule of three" ~ 3/30 = 0.1).
    assert clopper_pearson_upper(0, 30) == pytest.approx(1 - 0.05 ** (1 / 30), abs=1e-12)


def test_clopper_pearson_all_events_is_closed_form() -> None:
    # At x = n the lower end solves u^n = alpha / 2 (x = n = 10 gives 0.6915).
    assert clopper_pearson_interval(10, 10) == (pytest.approx(0.025 ** (1 / 10), abs=1e-12), 1.0)
    assert clopper_pearson_interval(1, 1) == (pytest.approx(0.025, abs=1e-12), 1.0)


def test_one_sided_bound_is_the_two_sided_bound_at_alpha_010() -> None:
    for x, n in [(0, 30), (1, 50), (6, 100), (40, 41)]:
        two_sided = clopper_pearson_interval(x, n, confidence=0.90)
        assert two_sided is not None
        assert clopper_pearson_upper(x, n) == pytest.approx(two_sided[1], abs=1e-12)


def test_rate_stats_fields() -> None:
    stats = rate_stats(3, 75)
    assert stats == RateStats(
        count=3,
        n=75,
        value=0.04,
        ci_low=pytest.approx(0.0137, abs=1e-4),
        ci_high=pytest.approx(0.1111, abs=1e-4),
        upper_95=pytest.approx(0.1001, abs=1e-4),
    )
    assert list(stats.to_dict()) == ["value", "count", "n", "ci_low", "ci_high", "upper_95"]
    assert stats.to_dict()["value"] == 0.04


def test_rate_stats_with_no_samples_is_null_not_zero() -> None:
    with pytest.warns(UndefinedMetricWarning, match="n = 0"):
        stats = rate_stats(0, 0)
    assert stats.to_dict() == {
        "value": None,
        "count": 0,
        "n": 0,
        "ci_low": None,
        "ci_high": None,
        "upper_95": None,
    }


def test_zero_errors_never_collapse_to_zero() -> None:
    stats = rate_stats(0, 40)
    assert stats.value == 0.0
    assert stats.ci_low == 0.0
    assert stats.ci_high is not None and stats.ci_high > 0.05
    assert stats.upper_95 is not None and stats.upper_95 > 0.05


def test_samples_needed_closed_form_at_zero_events() -> None:
    # With no events, n >= ln(alpha) / ln(1 - target).
    for target in (0.2, 0.1, 0.05, 0.02, 0.01, 0.001):
        expected = math.ceil(math.log(0.05) / math.log(1 - target))
        assert samples_needed(target) == expected


def test_samples_needed_is_the_smallest_n() -> None:
    for target, x in [(0.05, 1), (0.1, 3), (0.02, 2)]:
        n = samples_needed(target, x)
        upper = clopper_pearson_upper(x, n)
        before = clopper_pearson_upper(x, n - 1)
        assert upper is not None and upper <= target
        assert before is not None and before > target


def test_wider_confidence_gives_wider_intervals() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for func in (wilson_interval, clopper_pearson_interval):
            narrow = func(4, 30, confidence=0.80)
            wide = func(4, 30, confidence=0.99)
            assert narrow is not None and wide is not None
            assert wide[0] < narrow[0] and narrow[1] < wide[1]
