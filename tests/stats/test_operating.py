"""graderctl.stats.operating against brute force: counts at every threshold, bounds, choices."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import clopper_pearson_upper
from graderctl.stats.operating import choose_band, choose_threshold, cp_upper, point, sweep


def data(n: int = 300, seed: int = 1) -> tuple[list[float], list[bool]]:
    rng = random.Random(seed)
    scores, good = [], []
    for i in range(n):
        g = rng.random() < 0.5
        s = round(rng.betavariate(4, 2) if g else rng.betavariate(2, 3), 2)  # ties on purpose
        if i % 37 == 0:
            s = -math.inf  # a veto: rejected at every threshold
        scores.append(s)
        good.append(g)
    return scores, good


def test_sweep_counts_equal_brute_force() -> None:
    scores, good = data()
    sw = sweep(scores, good)
    assert sw.n_good == sum(good) and sw.n_bad == len(good) - sum(good)
    for t in [*sorted(set(s for s in scores if math.isfinite(s))), -0.5, 0.0, 0.333, 1.0, 2.0]:
        fa, ta = sw.counts_at(t)
        assert fa == sum(1 for s, g in zip(scores, good, strict=True) if not g and s >= t)
        assert ta == sum(1 for s, g in zip(scores, good, strict=True) if g and s >= t)


def test_sweep_is_order_invariant_and_needs_both_labels() -> None:
    scores, good = data()
    order = list(range(len(scores)))
    random.Random(4).shuffle(order)
    a, b = sweep(scores, good), sweep([scores[i] for i in order], [good[i] for i in order])
    assert np.array_equal(a.thresholds, b.thresholds) and np.array_equal(a.accepted_bad, b.accepted_bad)
    with pytest.raises(StatisticsError, match="both labels"):
        sweep([0.1, 0.2], [True, True])
    with pytest.raises(StatisticsError, match="finite"):
        sweep([0.1, float("nan")], [True, False])


@pytest.mark.parametrize(("x", "n"), [(0, 1), (0, 50), (3, 50), (49, 50), (50, 50), (7, 1000)])
def test_cp_upper_equals_the_scalar_bound(x: int, n: int) -> None:
    assert float(cp_upper(x, n)) == pytest.approx(clopper_pearson_upper(x, n), rel=1e-12)
    assert math.isnan(float(cp_upper(0, 0)))


def test_choose_threshold_is_the_lowest_frr_meeting_both_bounds() -> None:
    scores, good = data(600, seed=2)
    sw = sweep(scores, good)
    choice = choose_threshold(sw, max_far=0.25, max_frr=0.5)
    feasible = []
    for t in sorted({s for s in scores if math.isfinite(s) and 0 <= s <= 1}):
        p = point(sw, t, t)
        far_up = clopper_pearson_upper(p.false_accepts, p.bad_decided)
        frr_up = clopper_pearson_upper(p.false_rejects, p.good_decided)
        if far_up is not None and frr_up is not None and far_up <= 0.25 and frr_up <= 0.5:
            feasible.append((p.false_rejects, p.false_accepts, -t))
    assert feasible and choice.chosen is not None
    fr, _fa, neg_t = min(feasible)
    assert float(choice.thresholds[choice.chosen]) == -neg_t
    assert int(choice.false_rejects[choice.chosen]) == fr
    none = choose_threshold(sw, max_far=0.0001, max_frr=0.0001)
    assert none.chosen is None and not none.preference and 0 <= none.best < len(none.thresholds)


def test_band_points_meet_their_limits_and_are_at_least_as_wide_as_any_other_on_the_grid() -> None:
    scores, good = data(800, seed=3)
    sw = sweep(scores, good)
    band = choose_band(sw, scores, max_far=0.15, max_frr=0.25)
    assert band.chosen is not None
    c = band.chosen
    assert c.reject_below <= c.accept_at_or_above
    assert clopper_pearson_upper(c.false_accepts, c.bad_decided) <= 0.15  # type: ignore[operator]
    assert clopper_pearson_upper(c.false_rejects, c.good_decided) <= 0.25  # type: ignore[operator]
    again = point(sw, c.reject_below, c.accept_at_or_above)
    assert again == c
    bf = [s for s, g in zip(scores, good, strict=True) if not g]
    assert c.false_accepts == sum(1 for s in bf if s >= c.accept_at_or_above)
    assert c.bad_decided == c.false_accepts + sum(1 for s in bf if s < c.reject_below)
    for other in band.preference[1:]:
        assert other.decided <= c.decided
    plain = choose_threshold(sw, max_far=0.15, max_frr=0.25)
    if plain.chosen is None:  # a band can meet limits no single threshold meets, at the price of coverage
        assert c.undecided > 0
    with_coverage = choose_band(sw, scores, max_far=0.15, max_frr=0.25, min_coverage=0.99)
    assert with_coverage.chosen is None or with_coverage.chosen.decided / with_coverage.chosen.n >= 0.99
