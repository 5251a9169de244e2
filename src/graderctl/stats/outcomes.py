"""Outcomes of graders against labels and against each other, in the style of ``sklearn.metrics``.

Error rates from ``(y_true, y_pred)``: ``y_true[i]`` is ``True`` for a known-good item (a grader should accept
it) and ``False`` for a known-bad one; ``y_pred[i]`` is the grader's decision, ``True`` (accept), ``False``
(reject) or ``None`` (not decided: an error or an abstention, counted apart and left out of both rates).

Paired outcomes from ``(y_a, y_b)``: two graders' (or one grader's before and after) decisions on the same
items, as a 2x2 table with the flips, the agreement, the exact McNemar p-value and Cohen's kappa.

A rate or statistic that is undefined for valid data is ``None`` with :class:`UndefinedMetricWarning`
(``zero_division="warn"``), or raises :class:`graderctl.errors.StatisticsError` (``zero_division="raise"``);
never NaN, never 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from graderctl.errors import StatisticsError
from graderctl.stats._common import _items, check_booleans, check_same_length, invalid, warn_undefined
from graderctl.stats.paired import mcnemar_exact

__all__ = [
    "ErrorCounts",
    "PairedOutcomes",
    "error_counts",
    "false_accept_rate",
    "false_reject_rate",
    "paired_outcomes",
]

ZeroDivision = Literal["warn", "raise"]


@dataclass(frozen=True)
class ErrorCounts:
    """What :func:`error_counts` counts. The rates' denominators are the *decided* items of each label."""

    #: Known-bad items the grader accepted, of ``n_bad`` known-bad items it decided.
    false_accepts: int
    n_bad: int
    #: Known-good items the grader rejected, of ``n_good`` known-good items it decided.
    false_rejects: int
    n_good: int
    #: Items the grader did not decide (``y_pred`` ``None``), of either label.
    undecided_bad: int
    undecided_good: int


def _check_decisions(values: object, name: str, func: str) -> list[bool | None]:
    """A sequence of ``True``/``False``/``None`` (``None``: not decided)."""
    items = _items(values, name, func, "a sequence of booleans or None")
    if all(item is None or type(item) is bool for item in items):  # fast path: plain booleans and None
        return items  # type: ignore[return-value]
    decided = [(i, item) for i, item in enumerate(items) if item is not None]
    checked = check_booleans([item for _, item in decided], name, func) if decided else []
    result: list[bool | None] = [None] * len(items)
    for (index, _), value in zip(decided, checked, strict=True):
        result[index] = value
    return result


def error_counts(y_true: Sequence[bool], y_pred: Sequence[bool | None]) -> ErrorCounts:
    """Count false accepts and false rejects of decisions ``y_pred`` against labels ``y_true``."""
    return _error_counts(y_true, y_pred, "error_counts")


def _error_counts(y_true: Sequence[bool], y_pred: Sequence[bool | None], func: str) -> ErrorCounts:
    truth = check_booleans(y_true, "y_true", func)
    pred = _check_decisions(y_pred, "y_pred", func)
    check_same_length(func, y_true=truth, y_pred=pred)
    # Both are plain booleans (and None) now: count the (label, decision) pairs in one pass.
    pairs = Counter(zip(truth, pred, strict=True))
    fa, fr = pairs[False, True], pairs[True, False]
    return ErrorCounts(
        fa, fa + pairs[False, False], fr, fr + pairs[True, True], pairs[False, None], pairs[True, None]
    )


def _rate(count: int, n: int, what: str, func: str, zero_division: object) -> float | None:
    if zero_division not in ("warn", "raise"):
        invalid("zero_division", func, "a str among {'warn', 'raise'}", zero_division)
    if n:
        return count / n
    message = f"{func} is undefined: no {what} item was decided (0 / 0)"
    if zero_division == "raise":
        raise StatisticsError(f"{message}. Fix: grade labelled {what} items, or pass zero_division='warn'.")
    warn_undefined(f"{message}; returning None")
    return None


def false_accept_rate(
    y_true: Sequence[bool], y_pred: Sequence[bool | None], *, zero_division: ZeroDivision = "warn"
) -> float | None:
    """Share of the decided known-bad items (``y_true`` ``False``) that were accepted."""
    counts = _error_counts(y_true, y_pred, "false_accept_rate")
    return _rate(counts.false_accepts, counts.n_bad, "known-bad", "false_accept_rate", zero_division)


def false_reject_rate(
    y_true: Sequence[bool], y_pred: Sequence[bool | None], *, zero_division: ZeroDivision = "warn"
) -> float | None:
    """Share of the decided known-good items (``y_true`` ``True``) that were rejected."""
    counts = _error_counts(y_true, y_pred, "false_reject_rate")
    return _rate(counts.false_rejects, counts.n_good, "known-good", "false_reject_rate", zero_division)


@dataclass(frozen=True)
class PairedOutcomes:
    """Two sets of decisions on the same ``n`` items: the 2x2 table and what follows from it.

    ``a_only`` counts items ``a`` accepts and ``b`` rejects (McNemar's ``b``), ``b_only`` the reverse
    (McNemar's ``c``). ``agreement``, ``mcnemar_p`` and ``kappa`` are ``None`` when undefined (no item; for
    kappa also one and the same outcome on every item from both)."""

    n: int
    both_true: int
    a_only: int
    b_only: int
    both_false: int
    #: Indices of the items whose two outcomes differ, in order.
    flipped: tuple[int, ...]
    agreement: float | None
    mcnemar_p: float | None
    kappa: float | None

    @property
    def flips(self) -> int:
        return self.a_only + self.b_only


def paired_outcomes(y_a: Sequence[bool], y_b: Sequence[bool]) -> PairedOutcomes:
    """The 2x2 table of two decisions on the same items, the flipped items, the share that agree, the exact
    two-sided McNemar p-value (:func:`mcnemar_exact` of the discordant counts) and Cohen's kappa."""
    func = "paired_outcomes"
    a = check_booleans(y_a, "y_a", func)
    b = check_booleans(y_b, "y_b", func)
    n = check_same_length(func, y_a=a, y_b=b)
    both_true = a_only = b_only = 0
    flipped: list[int] = []
    for index, (x, y) in enumerate(zip(a, b, strict=True)):
        if x and y:
            both_true += 1
        elif x != y:
            flipped.append(index)
            if x:
                a_only += 1
            else:
                b_only += 1
    both_false = n - both_true - a_only - b_only
    if n == 0:
        warn_undefined(f"{func}: no item, so agreement, McNemar's p and Cohen's kappa are undefined; None")
        return PairedOutcomes(0, 0, 0, 0, 0, (), None, None, None)
    observed = Fraction(both_true + both_false, n)
    expected = Fraction(
        (both_true + a_only) * (both_true + b_only) + (b_only + both_false) * (a_only + both_false), n * n
    )
    if expected == 1:
        warn_undefined(
            "Cohen's kappa is undefined when chance agreement is 1 (both raters used a single label); "
            "returning None"
        )
        kappa = None
    else:
        kappa = float((observed - expected) / (1 - expected))
    return PairedOutcomes(
        n=n,
        both_true=both_true,
        a_only=a_only,
        b_only=b_only,
        both_false=both_false,
        flipped=tuple(flipped),
        agreement=(n - a_only - b_only) / n,
        mcnemar_p=mcnemar_exact(a_only, b_only),
        kappa=kappa,
    )
