"""Error rates from (labels, decisions) and paired outcomes: hand-computed tables, the published McNemar and
kappa cases of ../shared/oracles/paired.json (inlined, so no skip without ../shared), invariants, messages."""

from __future__ import annotations

import random
import warnings

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import (
    ErrorCounts,
    UndefinedMetricWarning,
    cohen_kappa,
    error_counts,
    false_accept_rate,
    false_reject_rate,
    mcnemar_exact,
    paired_outcomes,
)

# --- error rates ----------------------------------------------------------------------------------------

# Hand-computed: 4 known-good (T) and 5 known-bad (F) items; None = not decided.
Y_TRUE = [True, True, True, True, False, False, False, False, False]
Y_PRED = [True, False, None, True, True, False, None, None, True]


def test_error_counts_by_hand() -> None:
    assert error_counts(Y_TRUE, Y_PRED) == ErrorCounts(
        false_accepts=2, n_bad=3, false_rejects=1, n_good=3, undecided_bad=2, undecided_good=1
    )
    assert false_accept_rate(Y_TRUE, Y_PRED) == 2 / 3
    assert false_reject_rate(Y_TRUE, Y_PRED) == 1 / 3


def test_error_rates_are_order_invariant_and_bounded() -> None:
    rng = random.Random(3)
    for _ in range(50):
        n = rng.randint(1, 40)
        y_true = [rng.random() < 0.5 for _ in range(n)]
        y_pred = [rng.choice([True, False, None]) for _ in range(n)]
        order = list(range(n))
        rng.shuffle(order)
        shuffled = ([y_true[i] for i in order], [y_pred[i] for i in order])
        assert error_counts(y_true, y_pred) == error_counts(*shuffled)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for rate in (false_accept_rate(y_true, y_pred), false_reject_rate(y_true, y_pred)):
                assert rate is None or 0 <= rate <= 1


def test_an_undefined_rate_is_none_with_a_warning_or_raises() -> None:
    with pytest.warns(UndefinedMetricWarning, match="false_accept_rate is undefined: no known-bad item"):
        assert false_accept_rate([True, False], [True, None]) is None
    assert false_reject_rate([True, False], [True, None]) == 0.0  # defined: 0 of 1, a real 0
    with pytest.raises(StatisticsError, match="false_reject_rate is undefined: no known-good item"):
        false_reject_rate([False], [True], zero_division="raise")


def test_error_rate_parameters_get_the_uniform_message() -> None:
    with pytest.raises(
        StatisticsError,
        match=r"^The 'zero_division' parameter of false_accept_rate must be a str among "
        r"\{'warn', 'raise'\}\. Got 0 instead\.$",
    ):
        false_accept_rate([False], [True], zero_division=0)  # type: ignore[arg-type]
    with pytest.raises(StatisticsError, match=r"^The 'y_pred' parameter of error_counts must be"):
        error_counts([True], ["yes"])  # type: ignore[list-item]
    with pytest.raises(StatisticsError, match=r"^The 'y_true' parameter of error_counts must be"):
        error_counts([None], [True])  # type: ignore[list-item]
    with pytest.raises(
        StatisticsError, match=r"^The 'y_pred' parameter of error_counts must be a sequence as long"
    ):
        error_counts([True, False], [True])


# --- paired outcomes ------------------------------------------------------------------------------------

MCNEMAR_CASES = [
    (12, 5, 0.1434631),
    (11, 3, 0.0573730469),
    (10, 2, 0.0385742188),
    (7, 2, 0.1796875),
    (3, 0, 0.25),
]
KAPPA_CASES = [((20, 5, 10, 15), 0.4), ((45, 15, 25, 15), 0.130435), ((90, 5, 3, 2), 0.292035)]


def _from_table(both: int, a_only: int, b_only: int, neither: int) -> tuple[list[bool], list[bool]]:
    a = [True] * both + [True] * a_only + [False] * b_only + [False] * neither
    b = [True] * both + [False] * a_only + [True] * b_only + [False] * neither
    return a, b


@pytest.mark.parametrize(("b", "c", "p"), MCNEMAR_CASES)
def test_mcnemar_oracle_cases(b: int, c: int, p: float) -> None:
    out = paired_outcomes(*_from_table(7, b, c, 4))
    assert (out.a_only, out.b_only, out.flips) == (b, c, b + c)
    assert out.mcnemar_p == pytest.approx(p, abs=1e-6)
    assert out.mcnemar_p == mcnemar_exact(b, c)


@pytest.mark.parametrize(("table", "kappa"), KAPPA_CASES)
def test_kappa_oracle_cases(table: tuple[int, int, int, int], kappa: float) -> None:
    a, b = _from_table(*table)
    out = paired_outcomes(a, b)
    assert (out.both_true, out.a_only, out.b_only, out.both_false) == table
    assert out.kappa == pytest.approx(kappa, abs=1e-6)
    assert out.kappa == cohen_kappa(a, b)  # the same exact arithmetic, bit for bit
    assert out.agreement == (table[0] + table[3]) / sum(table)


def test_paired_outcomes_by_hand() -> None:
    a = [True, True, False, False, True, False]
    b = [True, False, True, False, True, False]
    out = paired_outcomes(a, b)
    assert (out.n, out.both_true, out.a_only, out.b_only, out.both_false) == (6, 2, 1, 1, 2)
    assert out.flipped == (1, 2)
    assert out.agreement == 4 / 6
    assert out.mcnemar_p == 1.0
    assert out.kappa == pytest.approx(1 / 3)  # p_o 2/3, p_e 1/2


def test_paired_outcomes_invariants() -> None:
    rng = random.Random(11)
    for _ in range(50):
        n = rng.randint(1, 30)
        a = [rng.random() < 0.6 for _ in range(n)]
        b = [rng.random() < 0.4 for _ in range(n)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            out, swapped = paired_outcomes(a, b), paired_outcomes(b, a)
        assert out.both_true + out.a_only + out.b_only + out.both_false == n
        assert (swapped.a_only, swapped.b_only) == (out.b_only, out.a_only)
        assert (swapped.kappa, swapped.mcnemar_p, swapped.flipped) == (out.kappa, out.mcnemar_p, out.flipped)
        assert [i for i in range(n) if a[i] != b[i]] == list(out.flipped)
        order = list(range(n))
        rng.shuffle(order)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            shuffled = paired_outcomes([a[i] for i in order], [b[i] for i in order])
        assert (shuffled.both_true, shuffled.a_only, shuffled.b_only, shuffled.both_false) == (
            out.both_true,
            out.a_only,
            out.b_only,
            out.both_false,
        )
        assert (shuffled.kappa, shuffled.mcnemar_p, shuffled.agreement) == (
            out.kappa,
            out.mcnemar_p,
            out.agreement,
        )
        assert out.agreement is not None and 0 <= out.agreement <= 1


def test_paired_outcomes_undefined_cases() -> None:
    with pytest.warns(UndefinedMetricWarning, match="kappa is undefined"):
        out = paired_outcomes([True, True], [True, True])
    assert (out.kappa, out.agreement, out.mcnemar_p) == (None, 1.0, 1.0)
    with pytest.warns(UndefinedMetricWarning, match="no item"):
        empty = paired_outcomes([], [])
    assert (empty.n, empty.agreement, empty.mcnemar_p, empty.kappa, empty.flipped) == (
        0,
        None,
        None,
        None,
        (),
    )
    with pytest.raises(
        StatisticsError, match=r"^The 'y_b' parameter of paired_outcomes must be a sequence as long"
    ):
        paired_outcomes([True], [True, False])
    with pytest.raises(
        StatisticsError, match=r"^The 'y_a' parameter of paired_outcomes must be a sequence of booleans"
    ):
        paired_outcomes([0.5], [True])
