"""The margin rule shared by the probes and ``calibrate --repeats``, the flips across repeats, the composite
error rates of a several-check rule, grouped pass@k means and declared task weights: oracle tables
(``tests/data/oracles``) and hand-computed cases."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import (
    ErrorRateCounts,
    UndefinedMetricWarning,
    composite_error_rates,
    margin_outcome,
    mean_pass_at_k,
    mean_pass_at_k_grouped,
    mean_pass_hat_k,
    mean_pass_hat_k_grouped,
    repeat_flips,
    share_against_margin,
    weight_scaled,
    weighted_mean,
    wilson_interval,
)
from tests.conftest import oracle_path

Z90 = 1.6448536269514722  # two-sided 90%


def wilson_by_hand(x: int, n: int, z: float) -> tuple[float, float]:
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize(
    ("estimate", "low", "high", "margin", "expected"),
    [
        (0.20, 0.05, 0.35, 0.05, "above"),  # material and not noise
        (0.20, 0.0, 0.35, 0.05, "inconclusive"),  # the interval reaches 0: could be noise
        (0.20, None, 0.35, 0.05, "inconclusive"),  # no lower bound: never "above"
        (0.01, -0.02, 0.04, 0.05, "within"),  # the interval rules out more than the margin
        (0.01, -0.02, 0.05, 0.05, "within"),  # at the margin counts as within
        (0.01, -0.02, 0.06, 0.05, "inconclusive"),  # wider than the margin
        (0.00, 0.00, math.inf, 0.05, "inconclusive"),  # an infinite bound supports nothing
        (0.00, 0.00, None, 0.05, "inconclusive"),
        (0.30, 0.10, 0.50, 0.30, "inconclusive"),  # not above the margin itself
    ],
)
def test_margin_outcome_table(
    estimate: float, low: float | None, high: float | None, margin: float, expected: str
) -> None:
    assert margin_outcome(estimate, low, high, margin=margin) == expected


def test_share_against_the_wilson_oracle() -> None:
    table = json.loads(oracle_path("intervals.json").read_text())
    tol = table["tolerance"]
    for row in table["two_sided_95"]:
        got = share_against_margin(row["x"], row["n"], margin=0.05, confidence=0.95)
        assert got is not None
        assert got.ci_low == pytest.approx(row["wilson"][0], abs=tol)
        assert got.ci_high == pytest.approx(row["wilson"][1], abs=tol)
        assert got.value == row["x"] / row["n"]


def test_share_against_margin_by_hand() -> None:
    # 0 of 52 at 90%: the upper end is z^2 / (n + z^2) = 0.04946 <= 0.05, within; 0 of 51: 0.05036, not
    for n, outcome in ((52, "within"), (51, "inconclusive")):
        got = share_against_margin(0, n, margin=0.05)
        assert got is not None and got.outcome == outcome
        assert got.ci_high == pytest.approx(Z90**2 / (n + Z90**2), abs=1e-12)
    # 12 of 24 flipped: far above 0.05, the lower end well above 0
    got = share_against_margin(12, 24, margin=0.05)
    assert got is not None and got.outcome == "above" and got.value == 0.5
    assert (got.ci_low, got.ci_high) == pytest.approx(wilson_by_hand(12, 24, Z90), abs=1e-12)
    assert got.confidence == 0.90 and got.margin == 0.05 and (got.count, got.n) == (12, 24)
    # 1 of 10: above the margin as a share, but the interval also reaches below it: above (the lower end > 0)
    got = share_against_margin(1, 10, margin=0.05)
    assert got is not None and got.outcome == "above" and got.ci_low > 0


def test_a_share_above_the_margin_always_has_a_lower_end_above_zero() -> None:
    """Why 'more flips than the margin' (the probe's rule) and 'above' (the shared rule) agree: one flip or
    more gives a Wilson lower bound above 0, so exceeding a margin >= 0 implies the lower end is above 0."""
    for n in range(1, 301):
        for x in range(1, n + 1):
            ci = wilson_interval(x, n, confidence=0.90)
            assert ci is not None and ci[0] > 0, (x, n)


def test_share_of_nothing_is_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert share_against_margin(0, 0, margin=0.05) is None


def test_repeat_flips_by_hand() -> None:
    outcomes = [
        [True, True, True],  # consistent
        [True, False, True],  # flipped
        [None, False, None],  # decided once: not counted
        [False, None, True],  # flipped (errors are not outcomes)
        [None, None, None],
        [False, False, None],
    ]
    got = repeat_flips(outcomes)
    assert got.n == 4 and got.flipped == [1, 3]
    assert repeat_flips([]).n == 0
    with pytest.raises(StatisticsError):
        repeat_flips([[1, 0]])  # type: ignore[list-item]


def test_composite_error_rates_by_hand() -> None:
    a = ErrorRateCounts(far_count=2, far_n=20, frr_count=1, frr_n=10)  # FAR 0.10, FRR 0.10
    b = ErrorRateCounts(far_count=3, far_n=20, frr_count=2, frr_n=20)  # FAR 0.15, FRR 0.10
    got = composite_error_rates([a, b])
    # FAR: the largest (b's 3/20); FRR: 1 - 0.9 * 0.9 = 0.19 over the smallest set (10): round(1.9) = 2
    assert got == ErrorRateCounts(3, 20, 2, 10)
    tie = ErrorRateCounts(far_count=4, far_n=40, frr_count=0, frr_n=30)  # FAR 0.10 like a: the first wins
    assert composite_error_rates([a, tie]).far_n == 20
    assert composite_error_rates([a]) == ErrorRateCounts(2, 20, 1, 10)
    # a several-check FRR never exceeds its sample size
    worst = ErrorRateCounts(far_count=0, far_n=5, frr_count=5, frr_n=5)
    assert composite_error_rates([worst, worst]).frr_count == 5


def test_grouped_means_reproduce_the_teaching_oracle() -> None:
    data = json.loads(oracle_path("pass_k.json").read_text())["teaching_data"]
    groups: dict[tuple[int, int], int] = {}
    for task in data["tasks"]:
        groups[(task["n"], task["c"])] = groups.get((task["n"], task["c"]), 0) + 1
    for k, expected in data["expected"]["pass_at_k"].items():
        assert mean_pass_at_k_grouped(groups, int(k)) == Fraction(expected)
    for k, expected in data["expected"]["pass_hat_k"].items():
        assert mean_pass_hat_k_grouped(groups, int(k)) == Fraction(expected)
    with pytest.raises(StatisticsError):
        mean_pass_at_k_grouped(groups, 6)


def test_grouped_means_equal_the_task_by_task_means() -> None:
    groups = {(10, 3): 4, (8, 8): 1, (12, 0): 7, (9, 5): 2}
    tasks = [pair for pair, count in groups.items() for _ in range(count)]
    for k in (1, 2, 5, 8):
        assert mean_pass_at_k_grouped(groups, k) == mean_pass_at_k(tasks, k)
        assert mean_pass_hat_k_grouped(groups, k) == mean_pass_hat_k(tasks, k)


def test_weights_by_hand() -> None:
    values, weights = [1.0, 0.0, 0.5], [1.0, 2.0, 1.0]
    assert weighted_mean(values, weights) == 0.375  # (1 + 0 + 0.5) / 4
    scaled = weight_scaled(values, weights)
    assert scaled == [0.75, 0.0, 0.375]  # each value times w * 3 / 4
    assert math.fsum(scaled) / 3 == weighted_mean(values, weights)
    assert weighted_mean(values, [1.0, 0.0, 0.0]) == 1.0  # weight 0 leaves a task out
    with pytest.raises(StatisticsError):
        weighted_mean(values, [0.0, 0.0, 0.0])
