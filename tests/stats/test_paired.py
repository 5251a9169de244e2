"""Paired comparisons: Tango's score interval against published values, exact McNemar, equivalence."""

from __future__ import annotations

import warnings
from statistics import NormalDist

import pytest

from graderctl.stats import equivalent_within, mcnemar_exact, paired_difference, tango_interval

# R 4.6.1, PropCIs 0.3.0 ``scoreci.mp`` (Tango 1998), as published in the fixture
# rNLKJA/Australia-Social-Media-Analytics-on-the-Cloud web/src/lib/__fixtures__/paired-diff-parity.json.
# Columns: only_a, only_b, n, confidence, lower, upper for the difference (only_a - only_b) / n.
# PropCIs bisects to about 1e-7, hence the 1e-6 tolerance.
PROPCIS = [
    (7, 0, 14, 0.95, 0.17703378200531006, 0.73200792074203491),
    (0, 7, 14, 0.95, -0.73200798034667969, -0.17703387141227722),
    (0, 0, 14, 0.95, -0.21531081199645996, 0.21531075239181519),
    (3, 2, 14, 0.95, -0.26107772759028841, 0.38899629882403786),
    (1, 0, 14, 0.95, -0.15926158428192136, 0.31468707748821806),
    (5, 5, 16, 0.95, -0.36750698089599609, 0.36750680208206177),
    (13, 1, 14, 0.95, 0.37062617710658474, 0.97455562864031109),
    (14, 0, 14, 0.95, 0.56937837600708008, 1.0),
    (0, 14, 14, 0.95, -1.0, -0.56937843561172485),
    (2, 9, 20, 0.95, -0.60163156986236577, -0.027414342761039694),
    (10, 3, 50, 0.95, -0.0014977478981018086, 0.28547489047050478),
    (1, 1, 2, 0.95, -0.81093764305114746, 0.81093758344650269),
    (25, 12, 200, 0.95, 0.005635504722595221, 0.12694109946489335),
    (7, 0, 14, 0.90, 0.25706768035888672, 0.70121806859970093),
    (0, 0, 14, 0.90, -0.16195487976074219, 0.16195482015609741),
    (3, 2, 14, 0.90, -0.20509389468601771, 0.33848713551248821),
    (13, 1, 14, 0.90, 0.46884836469377783, 0.96780020850045345),
    (14, 0, 14, 0.90, 0.67609024047851562, 1.0),
    (2, 9, 20, 0.90, -0.5665505409240722, -0.084052941203117348),
    (10, 3, 50, 0.90, 0.023380527496337893, 0.26074491620063783),
    (6, 2, 42, 0.90, -0.017778811000642335, 0.21623966523579191),
    (25, 12, 200, 0.90, 0.01547645539045334, 0.11644651859998703),
]


@pytest.mark.parametrize(("only_a", "only_b", "n", "confidence", "lower", "upper"), PROPCIS)
def test_tango_matches_propcis(
    only_a: int, only_b: int, n: int, confidence: float, lower: float, upper: float
) -> None:
    # Our tango_interval(b, c, n) is for (c - b) / n: c plays only_a.
    assert tango_interval(only_b, only_a, n, confidence=confidence) == pytest.approx((lower, upper), abs=1e-6)


def test_tango_matches_fagerland_cavo_example() -> None:
    # Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), ch. 8, Cavo et al.:
    # table [[59, 6], [16, 80]], estimate -0.0621, Tango asymptotic score 95% CI -0.1240 to -0.0054
    # (also pinned in the R package contingencytables' tests). n12 = 6, n21 = 16: difference (n12 - n21) / N.
    low, high = tango_interval(16, 6, 161)
    assert (round(low, 4), round(high, 4)) == (-0.1240, -0.0054)
    # The same example's exact conditional McNemar test: P = 0.052479.
    assert mcnemar_exact(6, 16) == pytest.approx(0.052479, abs=1e-6)


def test_tango_with_no_discordant_pairs_is_closed_form() -> None:
    z = NormalDist().inv_cdf(0.975)
    widths = []
    for n in (5, 14, 50, 200, 1000):
        low, high = tango_interval(0, 0, n)
        assert low < 0 < high
        assert high == pytest.approx(z * z / (n + z * z), abs=1e-9)
        assert low == pytest.approx(-high, abs=1e-9)
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)


def test_paired_difference_counts_and_orientation() -> None:
    old = [True, True, True, False, False, True, False, True]
    new = [True, False, False, True, False, True, True, True]
    result = paired_difference(old, new, confidence=0.95)
    assert (result.n, result.b, result.c) == (8, 2, 2)
    assert result.diff == 0.0
    old = [True] * 6 + [False] * 4
    new = [False] * 3 + [True] * 3 + [True] * 2 + [False] * 2
    result = paired_difference(old, new)
    assert (result.b, result.c) == (3, 2)
    assert result.diff == pytest.approx(sum(new) / 10 - sum(old) / 10)
    assert (result.ci_low, result.ci_high) == pytest.approx(tango_interval(3, 2, 10, confidence=0.90))
    assert result.p_value == mcnemar_exact(3, 2) == 1.0
    assert result.method == "tango-score" and result.confidence == 0.90
    assert set(result.to_dict()) == {
        "n",
        "b",
        "c",
        "diff",
        "ci_low",
        "ci_high",
        "confidence",
        "method",
        "p_value",
    }


def test_paired_difference_is_antisymmetric_in_old_and_new() -> None:
    old = [True] * 30 + [False] * 10 + [True] * 5 + [False] * 15
    new = [True] * 30 + [True] * 10 + [False] * 5 + [False] * 15
    forward = paired_difference(old, new)
    backward = paired_difference(new, old)
    assert backward.diff == -forward.diff
    assert backward.ci_low == pytest.approx(-forward.ci_high, abs=1e-10)
    assert backward.ci_high == pytest.approx(-forward.ci_low, abs=1e-10)
    assert backward.p_value == forward.p_value


def test_tango_limits_move_with_the_data() -> None:
    previous = tango_interval(5, 0, 40)
    for c in range(1, 10):
        current = tango_interval(5, c, 40)
        assert current[0] > previous[0] and current[1] > previous[1]
        previous = current


def test_mcnemar_hand_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 0) == 0.25  # 2 * (1/2)^3
    assert mcnemar_exact(0, 5) == 0.0625  # 2 * (1/2)^5
    assert mcnemar_exact(4, 4) == 1.0  # 2 * P[X <= 4] > 1 is capped
    assert mcnemar_exact(7, 2) == mcnemar_exact(2, 7) == pytest.approx(2 * (1 + 9 + 36) / 512)


def test_mcnemar_large_counts_use_the_same_definition() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exact = mcnemar_exact(9_900, 10_100)  # 20,000 discordant pairs: exact integers
        approx = mcnemar_exact(9_901, 10_100)  # 20,001: scipy's binomial CDF
    assert 0 < approx < 1 and 0 < exact < 1
    assert approx == pytest.approx(exact, rel=0.02)


def test_equivalence_within_margin() -> None:
    assert equivalent_within(-0.02, 0.03, 0.05)
    assert equivalent_within(-0.05, 0.05, 0.05)
    assert not equivalent_within(-0.06, 0.01, 0.05)
    assert not equivalent_within(0.0, 0.051, 0.05)
    assert equivalent_within(0.0, 0.0, 0.0)
