"""pass@k and pass^k: exact, unbiased, per task with each task's own trial count.

pass@k is the chance that at least one of ``k`` trials drawn without replacement from a task's ``n`` trials
succeeds: ``1 - C(n - c, k) / C(n, k)``. pass^k is the chance that all ``k`` succeed: ``C(c, k) / C(n, k)``.
Both are computed with exact integers (``math.comb``), so ``n = 2000, k = 1000`` does not overflow, and
returned as :class:`fractions.Fraction`. ``k > n`` is an error (a widely copied estimator returns 1.0 there).
The plug-in estimators ``1 - (1 - c/n)^k`` and ``(c/n)^k`` are biased and not used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from graderctl.errors import StatisticsError
from graderctl.stats._common import check_int, check_real, invalid, is_int

__all__ = [
    "KTooLargeError",
    "mean_pass_at_k",
    "mean_pass_hat_k",
    "pass_at_k",
    "pass_hat_k",
]


class KTooLargeError(StatisticsError):
    """``k`` exceeds the number of trials of one or more tasks. ``.tasks`` lists their indices."""

    def __init__(self, message: str, tasks: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.tasks: list[int] = list(tasks)


def _check_task(n: object, c: object, k: object, func: str) -> tuple[int, int, int]:
    n_int = check_int(n, "n", func, low=1)
    c_int = check_int(c, "c", func, low=0, high=n_int, high_name="n")
    k_int = check_int(k, "k", func, low=1)
    if k_int > n_int:
        raise KTooLargeError(
            f"The 'k' parameter of {func} must be an int in the range [1, n]. Got {k_int!r} instead. "
            f"The task has n = {n_int} trials; estimating over k draws needs at least k trials."
        )
    return n_int, c_int, k_int


def _pass_at(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _pass_hat(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass@k of one task with ``c`` successes in ``n`` trials: ``1 - C(n-c, k) / C(n, k)``."""
    n, c, k = _check_task(n, c, k, "pass_at_k")
    return _pass_at(n, c, k)


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass^k of one task with ``c`` successes in ``n`` trials: ``C(c, k) / C(n, k)``."""
    n, c, k = _check_task(n, c, k, "pass_hat_k")
    return _pass_hat(n, c, k)


def mean_pass_at_k(
    tasks: Sequence[tuple[int, int]], k: int, *, weights: Sequence[float] | None = None
) -> Fraction | float:
    """pass@k averaged over tasks given as ``(n, c)`` pairs, each with its own ``n``.

    Tasks weigh equally by default and the result is an exact :class:`~fractions.Fraction`; with ``weights``
    the weighted mean is a float. Raises :class:`KTooLargeError` naming every task whose ``n`` is below ``k``.
    """
    return _mean(tasks, k, weights, "mean_pass_at_k", _pass_at)


def mean_pass_hat_k(
    tasks: Sequence[tuple[int, int]], k: int, *, weights: Sequence[float] | None = None
) -> Fraction | float:
    """pass^k averaged over tasks given as ``(n, c)`` pairs; see :func:`mean_pass_at_k`."""
    return _mean(tasks, k, weights, "mean_pass_hat_k", _pass_hat)


def mean_pass_at_k_grouped(groups: Mapping[tuple[int, int], int], k: int) -> Fraction:
    """Exact pass@k averaged over equally weighted tasks given as a count of tasks per distinct ``(n, c)``:
    equal to :func:`mean_pass_at_k` over the tasks listed one by one, and quick for 100,000 tasks (each
    distinct ``(n, c)`` is computed once)."""
    return _grouped_mean(groups, k, "mean_pass_at_k_grouped", _pass_at)


def mean_pass_hat_k_grouped(groups: Mapping[tuple[int, int], int], k: int) -> Fraction:
    """pass^k of equally weighted tasks given as a count per distinct ``(n, c)``; see
    :func:`mean_pass_at_k_grouped`."""
    return _grouped_mean(groups, k, "mean_pass_hat_k_grouped", _pass_hat)


def _grouped_mean(
    groups: Mapping[tuple[int, int], int],
    k: int,
    func: str,
    per_task: Callable[[int, int, int], Fraction],
) -> Fraction:
    if not isinstance(groups, Mapping) or not groups:
        invalid("groups", func, "a non-empty mapping (n, c) -> number of tasks", None, got_text=repr(groups))
    total = 0
    acc = Fraction(0)
    for index, (pair, count) in enumerate(groups.items()):
        n, c = _check_pair(pair, index, func)
        count = check_int(count, "groups", func, low=1)
        n, c, k = _check_task(n, c, k, func)
        acc += count * per_task(n, c, k)
        total += count
    return acc / total


_SHOWN_TASKS = 20


def _mean(
    tasks: Sequence[tuple[int, int]],
    k: int,
    weights: Sequence[float] | None,
    func: str,
    per_task: Callable[[int, int, int], Fraction],
) -> Fraction | float:
    k = check_int(k, "k", func, low=1)
    if isinstance(tasks, str | bytes) or not isinstance(tasks, Sequence) or len(tasks) == 0:
        invalid("tasks", func, "a non-empty sequence of (n, c) pairs", None, got_text=_describe(tasks))
    pairs: list[tuple[int, int]] = []
    for index, task in enumerate(tasks):
        pairs.append(_check_pair(task, index, func))
    too_small = [index for index, (n, _) in enumerate(pairs) if k > n]
    if too_small:
        shown = ", ".join(f"{i} (n = {pairs[i][0]})" for i in too_small[:_SHOWN_TASKS])
        more = f" and {len(too_small) - _SHOWN_TASKS} more" if len(too_small) > _SHOWN_TASKS else ""
        raise KTooLargeError(
            f"The 'k' parameter of {func} must be an int in the range [1, n] for every task. "
            f"Got {k!r} instead. k > n for the tasks at indices {shown}{more}. "
            "Use a smaller k or run more trials of those tasks.",
            too_small,
        )
    values = [per_task(n, c, k) for n, c in pairs]
    if weights is None:
        return sum(values, Fraction(0)) / len(values)
    weight_values = _check_weights(weights, len(pairs), func)
    total = math.fsum(weight_values)
    return math.fsum(w * float(v) for w, v in zip(weight_values, values, strict=True)) / total


def _check_pair(task: object, index: int, func: str) -> tuple[int, int]:
    expected = "a sequence of (n, c) pairs with n >= 1 and 0 <= c <= n"
    if (
        isinstance(task, str | bytes)
        or not isinstance(task, Sequence)
        or len(task) != 2
        or not all(is_int(v) for v in task)
    ):
        invalid("tasks", func, expected, None, got_text=f"{task!r} at index {index}")
    n, c = int(task[0]), int(task[1])
    if n < 1 or not 0 <= c <= n:
        invalid("tasks", func, expected, None, got_text=f"{task!r} at index {index}")
    return n, c


def _check_weights(weights: object, count: int, func: str) -> list[float]:
    expected = f"a sequence of {count} non-negative floats with a positive sum"
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence) or len(weights) != count:
        invalid("weights", func, expected, None, got_text=_describe(weights))
    values = [check_real(w, "weights", func, low=0.0) for w in weights]
    if math.fsum(values) <= 0:
        invalid("weights", func, expected, None, got_text="weights summing to 0")
    return values


def _describe(value: object) -> str:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return f"a {type(value).__name__} of length {len(value)}"
    return repr(value)
