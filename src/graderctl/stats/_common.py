"""Parameter checks and the warning shared by every statistic.

Every bad parameter raises :class:`graderctl.errors.StatisticsError` with one uniform message, in the style of
scikit-learn's parameter validation::

    The 'k' parameter of pass_at_k must be an int in the range [1, n]. Got 6 instead.

A statistic that is undefined for valid inputs (kappa when chance agreement is 1, a rate over zero samples)
returns ``None`` and emits :class:`UndefinedMetricWarning`: never NaN, never 0.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from statistics import NormalDist
from typing import NoReturn

from graderctl.errors import StatisticsError


class UndefinedMetricWarning(UserWarning):
    """A statistic is undefined for the data given; the function returned ``None`` instead of a number."""


def warn_undefined(message: str) -> None:
    """Emit :class:`UndefinedMetricWarning`, attributed to the caller of the public statistic."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=3)


def invalid(name: str, func: str, expected: str, got: object, *, got_text: str | None = None) -> NoReturn:
    """Raise the uniform bad-parameter error (``got_text`` replaces ``repr(got)`` when given)."""
    shown = got_text if got_text is not None else repr(got)
    raise StatisticsError(f"The {name!r} parameter of {func} must be {expected}. Got {shown} instead.")


def is_int(value: object) -> bool:
    """An integer that is not a bool (``True`` is not a count)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(
    value: object, name: str, func: str, *, low: int, high: int | None = None, high_name: str = ""
) -> int:
    """An int in ``[low, high]`` (``high_name`` is how the message spells the upper end, e.g. ``"n"``)."""
    expected = f"an int >= {low}" if high is None else f"an int in the range [{low}, {high_name or high}]"
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        invalid(name, func, expected, value)
    number = int(value)
    if number < low or (high is not None and number > high):
        invalid(name, func, expected, value)
    return number


def check_real(
    value: object,
    name: str,
    func: str,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """A finite real number within the given bounds."""
    if low is not None and high is not None:
        left = "(" if open_low else "["
        right = ")" if open_high else "]"
        expected = f"a float in the range {left}{low:g}, {high:g}{right}"
    elif low is not None:
        expected = f"a float {'>' if open_low else '>='} {low:g}"
    else:
        expected = "a finite float"
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        invalid(name, func, expected, value)
    number = float(value)
    if not math.isfinite(number):
        invalid(name, func, expected, value)
    if low is not None and (number < low or (open_low and number == low)):
        invalid(name, func, expected, value)
    if high is not None and (number > high or (open_high and number == high)):
        invalid(name, func, expected, value)
    return number


def check_confidence(confidence: object, func: str) -> float:
    return check_real(confidence, "confidence", func, low=0.0, high=1.0, open_low=True, open_high=True)


def check_n_boot(n_boot: object, func: str) -> int:
    return check_int(n_boot, "n_boot", func, low=100)


def check_seed(seed: object, func: str) -> int:
    return check_int(seed, "seed", func, low=0)


def z_two_sided(confidence: float) -> float:
    """The standard normal quantile for a two-sided interval at ``confidence``."""
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def check_booleans(values: object, name: str, func: str) -> list[bool]:
    """A sequence of booleans (``True``/``False``, numpy bools, or the ints 0 and 1 — never floats)."""
    expected = "a sequence of booleans"
    items = _items(values, name, func, expected)
    if all(type(item) is bool for item in items):  # fast path: plain Python booleans
        return items  # type: ignore[return-value]
    result: list[bool] = []
    for index, item in enumerate(items):
        numpy_bool = type(item).__name__ in {"bool_", "bool"}
        zero_or_one = isinstance(item, numbers.Integral) and int(item) in (0, 1)
        if isinstance(item, bool) or numpy_bool or zero_or_one:
            result.append(bool(item))
        else:
            invalid(name, func, expected, None, got_text=f"{item!r} at index {index}")
    return result


def check_reals(values: object, name: str, func: str) -> list[float]:
    """A sequence of finite real numbers."""
    expected = "a sequence of finite floats"
    items = _items(values, name, func, expected)
    isfinite = math.isfinite
    if all(type(item) is float and isfinite(item) for item in items):
        return items  # type: ignore[return-value]  # fast path: plain finite floats
    result: list[float] = []
    for index, item in enumerate(items):
        if not isinstance(item, numbers.Real) or isinstance(item, bool) or not math.isfinite(float(item)):
            invalid(name, func, expected, None, got_text=f"{item!r} at index {index}")
        result.append(float(item))
    return result


def _items(values: object, name: str, func: str, expected: str) -> list[object]:
    if isinstance(values, str | bytes) or not isinstance(values, (Sequence, *_array_like())):
        invalid(name, func, expected, None, got_text=f"a {type(values).__name__}")
    items: list[object] = list(values)  # type: ignore[call-overload]
    return items


def _array_like() -> tuple[type, ...]:
    """numpy arrays count as sequences when numpy is already loaded (it is never imported here)."""
    import sys

    numpy = sys.modules.get("numpy")
    return (numpy.ndarray,) if numpy is not None else ()


def check_same_length(func: str, **sequences: Sequence[object]) -> int:
    """All sequences have one length; returns it."""
    lengths = {name: len(seq) for name, seq in sequences.items()}
    if len(set(lengths.values())) > 1:
        names = list(lengths)
        first = names[0]
        for other in names[1:]:
            if lengths[other] != lengths[first]:
                invalid(
                    other,
                    func,
                    f"a sequence as long as {first!r} ({lengths[first]} items)",
                    None,
                    got_text=f"{lengths[other]} items",
                )
    return next(iter(lengths.values()))
