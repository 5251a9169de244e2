"""Binomial rates and their intervals: Wilson, Clopper-Pearson, and how many samples a bound needs.

A one-sided 95% upper bound is the upper end of the two-sided 90% interval (statsmodels' ``alternative=``
argument does not exist in every version, so we never rely on it). The Wald interval is never used: at zero
errors it collapses to ``[0, 0]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from graderctl.stats._common import (
    check_confidence,
    check_int,
    check_real,
    invalid,
    warn_undefined,
    z_two_sided,
)

__all__ = [
    "RateStats",
    "clopper_pearson_interval",
    "clopper_pearson_upper",
    "rate_stats",
    "samples_needed",
    "wilson_interval",
]


@dataclass(frozen=True)
class RateStats:
    """A rate ``count / n`` with its two-sided 95% Wilson interval and one-sided 95% Clopper-Pearson upper
    bound.

    Every float is ``None`` when ``n == 0`` (the rate is undefined, not zero).
    """

    count: int
    n: int
    value: float | None
    ci_low: float | None
    ci_high: float | None
    upper_95: float | None

    def to_dict(self) -> dict[str, int | float | None]:
        return {
            "value": self.value,
            "count": self.count,
            "n": self.n,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "upper_95": self.upper_95,
        }


def _check_counts(x: object, n: object, func: str, x_name: str = "x") -> tuple[int, int]:
    n_int = check_int(n, "n", func, low=0)
    x_int = check_int(x, x_name, func, low=0, high=n_int, high_name="n")
    return x_int, n_int


def wilson_interval(x: int, n: int, *, confidence: float = 0.95) -> tuple[float, float] | None:
    """Two-sided Wilson score interval for ``x`` successes in ``n`` trials (closed form).

    Returns ``None`` (with :class:`UndefinedMetricWarning`) when ``n == 0``.
    """
    func = "wilson_interval"
    x, n = _check_counts(x, n, func)
    confidence = check_confidence(confidence, func)
    if n == 0:
        warn_undefined("wilson_interval is undefined for n = 0 trials; returning None")
        return None
    z = z_two_sided(confidence)
    z2 = z * z
    p = x / n
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if x == 0 else max(0.0, centre - half)
    high = 1.0 if x == n else min(1.0, centre + half)
    return low, high


def clopper_pearson_interval(x: int, n: int, *, confidence: float = 0.95) -> tuple[float, float] | None:
    """Two-sided Clopper-Pearson ("exact") interval from Beta quantiles; ``x = 0`` gives low 0, ``x = n`` high
    1.

    Returns ``None`` (with :class:`UndefinedMetricWarning`) when ``n == 0``.
    """
    func = "clopper_pearson_interval"
    x, n = _check_counts(x, n, func)
    confidence = check_confidence(confidence, func)
    if n == 0:
        warn_undefined("clopper_pearson_interval is undefined for n = 0 trials; returning None")
        return None
    alpha = 1.0 - confidence
    return _cp_lower(x, n, alpha / 2), _cp_upper(x, n, alpha / 2)


def clopper_pearson_upper(x: int, n: int, *, confidence: float = 0.95) -> float | None:
    """One-sided Clopper-Pearson upper bound: the two-sided bound at ``alpha = 2 * (1 - confidence)``.

    Returns ``None`` (with :class:`UndefinedMetricWarning`) when ``n == 0``.
    """
    func = "clopper_pearson_upper"
    x, n = _check_counts(x, n, func)
    confidence = check_confidence(confidence, func)
    if n == 0:
        warn_undefined("clopper_pearson_upper is undefined for n = 0 trials; returning None")
        return None
    return _cp_upper(x, n, 1.0 - confidence)


def _cp_lower(x: int, n: int, tail: float) -> float:
    if x == 0:
        return 0.0
    # scipy.special.betaincinv is the Beta quantile without the cost of importing scipy.stats.
    from scipy.special import betaincinv

    return float(betaincinv(x, n - x + 1, tail))


def _cp_upper(x: int, n: int, tail: float) -> float:
    if x == n:
        return 1.0
    if x == 0:
        # Closed form of Beta(1, n).ppf(1 - tail); also what the rule of three approximates.
        return -math.expm1(math.log(tail) / n)
    from scipy.special import betaincinv

    return float(betaincinv(x + 1, n - x, 1.0 - tail))


def rate_stats(count: int, n: int) -> RateStats:
    """``count / n`` with the Wilson 95% two-sided interval and the one-sided 95% Clopper-Pearson upper bound.

    With ``n == 0`` every float is ``None`` and one :class:`UndefinedMetricWarning` is emitted.
    """
    func = "rate_stats"
    count, n = _check_counts(count, n, func, x_name="count")
    if n == 0:
        warn_undefined("rate_stats: the rate is undefined for n = 0 samples; value and bounds are None")
        return RateStats(count=0, n=0, value=None, ci_low=None, ci_high=None, upper_95=None)
    low, high = _wilson_checked(count, n)
    return RateStats(
        count=count,
        n=n,
        value=count / n,
        ci_low=low,
        ci_high=high,
        upper_95=_cp_upper(count, n, 0.05),
    )


def _wilson_checked(x: int, n: int) -> tuple[float, float]:
    interval = wilson_interval(x, n)
    assert interval is not None  # n > 0 here
    return interval


def samples_needed(target: float, x: int = 0, *, confidence: float = 0.95) -> int:
    """Smallest ``n`` whose one-sided Clopper-Pearson upper bound with ``x`` events is at most ``target``.

    For example, to support a false-accept rate bound of 5% at 95% confidence with no false accepts, a set
    needs 59 known-bad samples (``samples_needed(0.05)``); with one false accept allowed, 93.
    """
    func = "samples_needed"
    target = check_real(target, "target", func, low=0.0, high=1.0, open_low=True, open_high=True)
    x = check_int(x, "x", func, low=0)
    confidence = check_confidence(confidence, func)
    tail = 1.0 - confidence

    def fits(n: int) -> bool:
        return _cp_upper(x, n, tail) <= target

    low = x  # at n = x the bound is 1 > target
    high = max(1, 2 * x)
    while not fits(high):
        low = high
        high *= 2
        if high > 1 << 62:  # pragma: no cover - unreachable for target > 0
            invalid("target", func, "a bound reachable with a finite sample", target)
    # fits(high) and not fits(low): bisect.
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle
    return high
