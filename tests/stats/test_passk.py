"""pass@k and pass^k: exact Fractions, each task's own n, errors that never come back as 0, 1 or NaN."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import pytest

from graderctl.errors import StatisticsError
from graderctl.stats import KTooLargeError, mean_pass_at_k, mean_pass_hat_k, pass_at_k, pass_hat_k

TEACHING = [(5, 5), (5, 4), (5, 2), (5, 0)]


def enumerate_pass(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """pass@k and pass^k by listing every k-subset of the n trials (first c succeed)."""
    subsets = list(combinations(range(n), k))
    any_success = sum(1 for s in subsets if any(i < c for i in s))
    all_success = sum(1 for s in subsets if all(i < c for i in s))
    return Fraction(any_success, len(subsets)), Fraction(all_success, len(subsets))


@pytest.mark.parametrize(("n", "c", "k"), [(6, 2, 3), (7, 4, 2), (8, 0, 3), (8, 8, 5), (5, 1, 5), (9, 3, 1)])
def test_matches_brute_force_enumeration(n: int, c: int, k: int) -> None:
    at, hat = enumerate_pass(n, c, k)
    assert pass_at_k(n, c, k) == at
    assert pass_hat_k(n, c, k) == hat


def test_teaching_data_inline() -> None:
    assert mean_pass_at_k(TEACHING, 1) == Fraction(11, 20)
    assert mean_pass_at_k(TEACHING, 2) == Fraction(27, 40)
    assert mean_pass_hat_k(TEACHING, 2) == Fraction(17, 40)
    assert isinstance(mean_pass_at_k(TEACHING, 2), Fraction)


def test_plug_in_estimators_are_not_what_we_return() -> None:
    assert mean_pass_hat_k(TEACHING, 2) != Fraction(45, 100)  # mean of (c/n)^2
    assert mean_pass_at_k(TEACHING, 2) != Fraction(65, 100)  # mean of 1 - (1 - c/n)^2
    assert sum((c / n) ** 2 for n, c in TEACHING) / 4 == pytest.approx(0.45)
    assert sum(1 - (1 - c / n) ** 2 for n, c in TEACHING) / 4 == pytest.approx(0.65)


def test_large_binomials_are_exact() -> None:
    with pytest.raises(OverflowError):
        float(math.comb(2000, 1000))  # why float binomials are wrong here
    assert pass_at_k(2000, 2, 1000) == Fraction(2999, 3998)
    assert pass_hat_k(2000, 2, 1000) == 0
    assert pass_hat_k(2000, 1998, 1000) == Fraction(999, 3998)
    assert pass_at_k(2000, 1998, 1000) == 1


def test_k_greater_than_n_raises_never_one() -> None:
    with pytest.raises(
        KTooLargeError,
        match=r"^The 'k' parameter of pass_at_k must be an int in the range \[1, n\]\. Got 6 instead\.",
    ):
        pass_at_k(5, 3, 6)
    with pytest.raises(KTooLargeError):
        pass_at_k(2, 0, 5)  # n - c < k is checked after k <= n


def test_each_task_uses_its_own_n() -> None:
    # A task with fewer trials is not padded with failures up to a global count.
    tasks = [(10, 5), (4, 2)]
    expected = (pass_at_k(10, 5, 2) + pass_at_k(4, 2, 2)) / 2
    assert mean_pass_at_k(tasks, 2) == expected
    assert mean_pass_at_k(tasks, 2) != (pass_at_k(10, 5, 2) + pass_at_k(10, 2, 2)) / 2


def test_k_too_large_names_the_tasks() -> None:
    tasks = [(10, 5), (3, 1), (10, 0), (2, 2)]
    with pytest.raises(KTooLargeError) as caught:
        mean_pass_at_k(tasks, 4)
    assert caught.value.tasks == [1, 3]
    assert "indices 1 (n = 3), 3 (n = 2)" in str(caught.value)
    assert isinstance(caught.value, StatisticsError)


def test_weights_give_a_weighted_float() -> None:
    tasks = [(4, 4), (4, 0)]
    assert mean_pass_hat_k(tasks, 1, weights=[3.0, 1.0]) == pytest.approx(0.75)
    result = mean_pass_at_k(tasks, 1, weights=[1, 1])
    assert isinstance(result, float) and result == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("tasks", "k", "weights", "parameter"),
    [
        ([], 1, None, "tasks"),
        ([(5, 6)], 1, None, "tasks"),
        ([(0, 0)], 1, None, "tasks"),
        ([(5, 2.0)], 1, None, "tasks"),
        ([(5, 2)], 0, None, "k"),
        ([(5, 2)], 1, [1.0, 2.0], "weights"),
        ([(5, 2)], 1, [-1.0], "weights"),
        ([(5, 2), (5, 1)], 1, [0.0, 0.0], "weights"),
    ],
)
def test_mean_bad_parameters(
    tasks: list[tuple[int, int]], k: int, weights: list[float] | None, parameter: str
) -> None:
    for func in (mean_pass_at_k, mean_pass_hat_k):
        with pytest.raises(
            StatisticsError, match=rf"^The '{parameter}' parameter of {func.__name__} must be"
        ):
            func(tasks, k, weights=weights)
