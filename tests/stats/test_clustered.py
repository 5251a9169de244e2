"""Cluster bootstrap: singleton groups act like independent samples, duplicated groups widen the interval."""

from __future__ import annotations

import random
import warnings

import pytest

from graderctl.stats import (
    UndefinedMetricWarning,
    bootstrap_tasks_interval,
    cluster_bootstrap_mean_difference,
    cluster_bootstrap_rate,
    wilson_interval,
)


def outcomes(n: int, rate: float, seed: int = 7) -> list[bool]:
    rng = random.Random(seed)
    return [rng.random() < rate for _ in range(n)]


def test_singletons_look_like_independent_samples() -> None:
    values = outcomes(400, 0.3)
    result = cluster_bootstrap_rate(values, [None] * len(values))
    assert result.design_effect == pytest.approx(1.0, abs=1e-9)
    assert result.n_groups == 400 and result.n == 400
    assert result.value == pytest.approx(sum(values) / 400)
    wilson = wilson_interval(sum(values), 400)
    assert wilson is not None
    assert result.ci_low is not None and result.ci_high is not None
    width, wilson_width = result.ci_high - result.ci_low, wilson[1] - wilson[0]
    assert width == pytest.approx(wilson_width, rel=0.15)
    assert result.ci_low <= result.value <= result.ci_high


def test_none_groups_are_singletons() -> None:
    values = outcomes(200, 0.4)
    unnamed = cluster_bootstrap_rate(values, [None] * 200)
    named = cluster_bootstrap_rate(values, [f"g{i}" for i in range(200)])
    assert unnamed == named


def test_duplicated_groups_have_a_design_effect() -> None:
    base = outcomes(300, 0.3)
    copies = 5
    values = [v for v in base for _ in range(copies)]
    groups = [f"seed-{i}" for i in range(len(base)) for _ in range(copies)]
    clustered = cluster_bootstrap_rate(values, groups)
    naive = cluster_bootstrap_rate(values, [None] * len(values))
    n, g = len(values), len(base)
    assert clustered.design_effect == pytest.approx((n - 1) / (g - 1), rel=1e-9)
    assert clustered.design_effect is not None and clustered.design_effect > 1
    assert clustered.n_groups == g
    assert None not in (clustered.ci_low, clustered.ci_high, naive.ci_low, naive.ci_high)
    clustered_width = clustered.ci_high - clustered.ci_low  # type: ignore[operator]
    naive_width = naive.ci_high - naive.ci_low  # type: ignore[operator]
    # Variance grows about 5-fold, so the width about sqrt(5) ~ 2.2-fold.
    assert clustered_width > 1.8 * naive_width


def test_same_seed_same_result_and_order_does_not_matter() -> None:
    values = outcomes(500, 0.2)
    groups = [f"t{i % 97}" for i in range(500)]
    first = cluster_bootstrap_rate(values, groups, seed=11)
    assert cluster_bootstrap_rate(values, groups, seed=11) == first
    order = list(range(500))
    random.Random(3).shuffle(order)
    shuffled = cluster_bootstrap_rate([values[i] for i in order], [groups[i] for i in order], seed=11)
    assert shuffled == first
    assert cluster_bootstrap_rate(values, groups, seed=12) != first


def test_no_events_collapse_and_the_design_effect_is_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning, match="design effect"):
        result = cluster_bootstrap_rate([False] * 30, [f"g{i // 3}" for i in range(30)])
    assert (result.ci_low, result.ci_high, result.upper_95) == (0.0, 0.0, 0.0)
    assert result.design_effect is None
    assert result.to_dict()["design_effect"] is None


def test_upper_95_is_one_sided() -> None:
    values = outcomes(300, 0.1)
    result = cluster_bootstrap_rate(values, [None] * 300, confidence=0.90)
    # The one-sided 95% bound is the upper end of the two-sided 90% interval.
    assert result.upper_95 == pytest.approx(result.ci_high, abs=1e-12)


def test_tasks_interval() -> None:
    per_task = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 0.5, 0.5]
    low, high = bootstrap_tasks_interval(per_task) or (None, None)
    assert low is not None and high is not None
    assert low < sum(per_task) / len(per_task) < high
    assert bootstrap_tasks_interval(per_task) == (low, high)
    assert bootstrap_tasks_interval(list(reversed(per_task))) == (low, high)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bootstrap_tasks_interval([0.5, 0.5, 0.5]) == (0.5, 0.5)


def test_mean_difference_weighs_tasks_not_samples() -> None:
    old = [0.0, 0.0, 0.0, 1.0]
    new = [1.0, 1.0, 1.0, 1.0]
    clusters = ["a", "a", "a", "b"]
    diff, low, high = cluster_bootstrap_mean_difference(old, new, clusters)
    assert diff == 0.5  # per-task means 1 and 0; the per-sample mean would be 0.75
    assert low <= diff <= high
    assert (low, high) == (0.0, 1.0)


def test_mean_difference_negates_when_swapped() -> None:
    rng = random.Random(5)
    clusters = [f"t{i // 4}" for i in range(120)]
    old = [rng.random() for _ in range(120)]
    new = [v + 0.1 + rng.gauss(0, 0.1) for v in old]
    forward = cluster_bootstrap_mean_difference(old, new, clusters)
    backward = cluster_bootstrap_mean_difference(new, old, clusters)
    assert backward[0] == pytest.approx(-forward[0], abs=1e-12)
    assert backward[1] == pytest.approx(-forward[2], abs=0.02)
    assert backward[2] == pytest.approx(-forward[1], abs=0.02)
    assert forward[1] > 0  # a real shift of 0.1 is detected


def test_one_cluster_warns_that_it_cannot_measure_uncertainty() -> None:
    with pytest.warns(UndefinedMetricWarning, match="one cluster"):
        assert cluster_bootstrap_mean_difference([0.0, 1.0], [1.0, 1.0], ["a", "a"]) == (0.5, 0.5, 0.5)
