"""Paired comparisons of two graders on the same samples: exact McNemar test and Tango's score interval.

Notation: ``b`` counts samples the old grader accepts and the new one rejects, ``c`` the reverse. The
difference in accept rate is ``(c - b) / n`` (new minus old).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from graderctl.stats._common import (
    check_booleans,
    check_confidence,
    check_int,
    check_real,
    check_same_length,
    invalid,
    z_two_sided,
)

__all__ = [
    "PairedDifference",
    "equivalent_within",
    "mcnemar_exact",
    "paired_difference",
    "tango_interval",
]

#: Above this many discordant pairs the binomial tail is taken from scipy instead of exact integer sums.
_EXACT_LIMIT = 20_000


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: ``min(1, 2 * P[Bin(b + c, 1/2) <= min(b, c)])``.

    Computed with exact integers (up to 20,000 discordant pairs; beyond, scipy's binomial CDF). No discordant
    pairs gives ``p = 1``.
    """
    func = "mcnemar_exact"
    b = check_int(b, "b", func, low=0)
    c = check_int(c, "c", func, low=0)
    m = b + c
    if m == 0:
        return 1.0
    k = min(b, c)
    if m > _EXACT_LIMIT:
        from scipy.stats import binom

        return float(min(1.0, 2.0 * float(binom.cdf(k, m, 0.5))))
    term = 1  # C(m, 0)
    tail = 1
    for i in range(k):
        term = term * (m - i) // (i + 1)
        tail += term
    return float(min(Fraction(1), Fraction(2 * tail, 1 << m)))


@dataclass(frozen=True)
class PairedDifference:
    """Difference in accept rate of two graders over the same samples (new minus old)."""

    n: int
    b: int
    c: int
    diff: float
    ci_low: float
    ci_high: float
    confidence: float
    method: str
    p_value: float

    def to_dict(self) -> dict[str, int | float | str]:
        return {
            "n": self.n,
            "b": self.b,
            "c": self.c,
            "diff": self.diff,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "method": self.method,
            "p_value": self.p_value,
        }


TANGO_METHOD = "tango-score"


def paired_difference(
    old: Sequence[bool], new: Sequence[bool], *, confidence: float = 0.90
) -> PairedDifference:
    """Accept-rate difference ``mean(new) - mean(old)`` with Tango's score interval and the exact McNemar p.

    ``old[i]`` and ``new[i]`` are the two graders' verdicts on sample ``i``. The default 90% two-sided
    interval is what a TOST equivalence test at the 5% level compares with a margin (see
    :func:`equivalent_within`).
    """
    func = "paired_difference"
    old_values = check_booleans(old, "old", func)
    new_values = check_booleans(new, "new", func)
    n = check_same_length(func, old=old_values, new=new_values)
    if n == 0:
        invalid("old", func, "a non-empty sequence of booleans", None, got_text="an empty sequence")
    confidence = check_confidence(confidence, func)
    b = sum(1 for o, w in zip(old_values, new_values, strict=True) if o and not w)
    c = sum(1 for o, w in zip(old_values, new_values, strict=True) if w and not o)
    low, high = tango_interval(b, c, n, confidence=confidence)
    return PairedDifference(
        n=n,
        b=b,
        c=c,
        diff=(c - b) / n,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        method=TANGO_METHOD,
        p_value=mcnemar_exact(b, c),
    )


def tango_interval(b: int, c: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Tango's (1998) score interval for ``(c - b) / n``, the difference of two paired proportions.

    The interval is ``{d : |T(d)| <= z}`` with ``T(d) = (c - b - n d) / sqrt(n (2 q(d) + d (1 - d)))``, where
    ``q(d)`` is the maximum-likelihood estimate of the probability of a ``b``-type pair under the constraint
    that the difference is ``d``. It is defined with zero cells: with ``b = c = 0`` it is
    ``[-z^2 / (n + z^2), z^2 / (n + z^2)]``. Each limit is found with :func:`scipy.optimize.brentq`.
    Matches R's ``PropCIs::scoreci.mp(b, c, n)``.
    """
    func = "tango_interval"
    n = check_int(n, "n", func, low=1)
    b = check_int(b, "b", func, low=0, high=n, high_name="n")
    c = check_int(c, "c", func, low=0, high=n - b, high_name="n - b")
    confidence = check_confidence(confidence, func)
    z = z_two_sided(confidence)
    estimate = (c - b) / n
    from scipy.optimize import brentq

    def excess(delta: float, target: float) -> float:
        return _tango_score(delta, b, c, n) - target

    if b == n:
        low = -1.0
    else:
        low = float(brentq(excess, -1.0, estimate, args=(z,), xtol=1e-12, rtol=1e-12, maxiter=500))
    if c == n:
        high = 1.0
    else:
        high = float(brentq(excess, estimate, 1.0, args=(-z,), xtol=1e-12, rtol=1e-12, maxiter=500))
    return max(-1.0, low), min(1.0, high)


_HUGE = 1e12


def _tango_score(delta: float, b: int, c: int, n: int) -> float:
    """Tango's score statistic at difference ``delta`` (decreasing in ``delta``)."""
    numerator = c - b - n * delta
    if numerator == 0:
        return 0.0
    w = -c - b + (2 * n - c + b) * delta
    discriminant = max(0.0, w * w + 8.0 * n * b * delta * (1.0 - delta))
    q = (math.sqrt(discriminant) - w) / (4.0 * n)
    variance = n * (2.0 * q + delta * (1.0 - delta))
    if variance <= 0.0:
        return math.copysign(_HUGE, numerator)
    return max(-_HUGE, min(_HUGE, numerator / math.sqrt(variance)))


def equivalent_within(ci_low: float, ci_high: float, margin: float) -> bool:
    """Whether an interval for a difference lies inside ``[-margin, margin]`` (two one-sided tests).

    With a 90% two-sided interval this is the TOST equivalence test at the 5% level.
    """
    func = "equivalent_within"
    low = check_real(ci_low, "ci_low", func)
    high = check_real(ci_high, "ci_high", func)
    if high < low:
        invalid("ci_high", func, f"a float >= ci_low ({low:g})", ci_high)
    margin = check_real(margin, "margin", func, low=0.0)
    return -margin <= low and high <= margin
