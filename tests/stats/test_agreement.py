"""Agreement: Cohen's kappa and nominal Krippendorff's alpha against published and hand-computed values."""

from __future__ import annotations

import pytest

from graderctl.stats import (
    UndefinedMetricWarning,
    cohen_kappa,
    cohen_kappa_from_table,
    krippendorff_alpha_nominal,
)

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units,
# missing data; nominal alpha = 0.743 (the interval-level value for the same data is 0.849).
KRIPPENDORFF_2011_C = list(
    zip(
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
        strict=True,
    )
)
# Krippendorff (2011), section A: binary data, two observers, no missing data; alpha = 0.095.
KRIPPENDORFF_2011_A = list(zip([0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0], strict=True))


def table(a: list[str], b: list[str]) -> tuple[int, int, int, int]:
    pairs = list(zip(a, b, strict=True))
    return (
        pairs.count(("y", "y")),
        pairs.count(("y", "n")),
        pairs.count(("n", "y")),
        pairs.count(("n", "n")),
    )


def test_kappa_textbook_table() -> None:
    # p_o = 0.70, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.50, kappa = 0.4.
    assert cohen_kappa_from_table(20, 5, 10, 15) == pytest.approx(0.4, abs=1e-12)
    # High raw agreement (0.92), low kappa: p_e = 0.95 * 0.93 + 0.05 * 0.07 = 0.8870.
    assert cohen_kappa_from_table(90, 5, 3, 2) == pytest.approx((0.92 - 0.887) / (1 - 0.887), abs=1e-12)


def test_kappa_from_labels_equals_kappa_from_table() -> None:
    a = list("yyyynnnnyyyn")
    b = list("yynynnnyyyyn")
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_from_table(*table(a, b)), abs=1e-12)
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa(b, a), abs=1e-12)


def test_kappa_multiclass_and_perfect_agreement() -> None:
    a = ["x", "y", "z", "x", "y", "z"]
    assert cohen_kappa(a, a) == 1.0
    # p_o = 0, p_e = 1/3: kappa = -0.5.
    assert cohen_kappa(a, ["y", "z", "x", "y", "z", "x"]) == pytest.approx(-0.5, abs=1e-12)


def test_kappa_undefined_when_a_single_label_is_used() -> None:
    with pytest.warns(UndefinedMetricWarning, match="chance agreement is 1"):
        assert cohen_kappa(["pass"] * 5, ["pass"] * 5) is None
    with pytest.warns(UndefinedMetricWarning):
        assert cohen_kappa_from_table(0, 0, 0, 7) is None


def test_krippendorff_published_nominal_example() -> None:
    assert round(krippendorff_alpha_nominal(KRIPPENDORFF_2011_C) or 0, 3) == 0.743


def test_krippendorff_is_nominal_not_the_packages_interval_default() -> None:
    import krippendorff
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in unit] for unit in KRIPPENDORFF_2011_C]).T
    interval_default = krippendorff.alpha(reliability_data=data)
    assert round(float(interval_default), 3) == 0.849
    assert krippendorff_alpha_nominal(KRIPPENDORFF_2011_C) != pytest.approx(interval_default, abs=1e-3)


def test_krippendorff_published_binary_example() -> None:
    assert round(krippendorff_alpha_nominal(KRIPPENDORFF_2011_A) or 0, 3) == 0.095


def test_krippendorff_hand_computed_labels() -> None:
    # Coincidences: o(x,y) = o(y,x) = 1, o(x,x) = o(y,y) = 2; n = 6, n_x = n_y = 3.
    # D_o = 2/6, D_e = 2 * 3 * 3 / (6 * 5) = 0.6; alpha = 1 - (1/3) / 0.6 = 4/9.
    ratings = [["fail", "pass"], ["pass", "pass"], ["fail", "fail"]]
    assert krippendorff_alpha_nominal(ratings) == pytest.approx(4 / 9, abs=1e-12)
    # Units with a single rating are not pairable and change nothing; raters may differ per unit.
    assert krippendorff_alpha_nominal([*ratings, ["pass", None], ["fail"]]) == pytest.approx(4 / 9, abs=1e-12)


@pytest.mark.parametrize(
    "ratings",
    [
        [["a", None], [None, "b"]],  # no unit has two ratings
        [["a", "a"], ["a", "a", None]],  # one value only
    ],
)
def test_krippendorff_undefined(ratings: list[list[str | None]]) -> None:
    with pytest.warns(UndefinedMetricWarning, match="Krippendorff"):
        assert krippendorff_alpha_nominal(ratings) is None
