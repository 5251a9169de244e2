"""Two independent groups: Newcombe's interval for a difference of proportions, and the self-preference rule.

:func:`newcombe_interval` is Newcombe's hybrid score interval (method 10 of Newcombe 1998, "Interval
estimation for the difference between independent proportions: comparison of eleven methods", Statistics in
Medicine 17:873-890), built from the two groups' Wilson intervals.

:func:`self_preference` is the one rule that decides whether a model judge is more lenient on bad answers
written by its own model family than on others'. ``graderctl probe --probe self`` reports it, and the
``score --allow-self-grading`` override is granted only when it says ``no_bias``:

- ``biased``: the judge's false accept rate on its own family's bad answers exceeds the others' by more than
  ``margin``, and the interval's lower end is above 0 (the rise is both material and not noise; this needs
  no minimum sample size, the interval accounts for it);
- ``insufficient``: otherwise, when either group has fewer than ``min_samples`` known-bad samples
  (:data:`MIN_SELF_PREFERENCE_SAMPLES`, 30 by default): too few to claim anything else;
- ``no_bias``: the interval's upper end is at most ``margin`` (a one-sided non-inferiority test at the
  ``(1 - confidence) / 2`` level: with the default 90% interval, 5%);
- ``inconclusive``: anything else (the interval is too wide to rule out a rise larger than the margin).

With the default margin 0.05 and 90% confidence, even a judge that accepts none of its own family's bad
answers needs 52 of them for ``no_bias`` (the Wilson upper bound of 0/n is 2.706 / (n + 2.706)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from graderctl.stats._common import check_confidence, check_int, check_real, warn_undefined
from graderctl.stats.rates import _check_counts, wilson_interval

__all__ = [
    "DEFAULT_SELF_PREFERENCE_MARGIN",
    "MIN_SELF_PREFERENCE_SAMPLES",
    "SELF_PREFERENCE_CONFIDENCE",
    "SelfPreference",
    "newcombe_interval",
    "self_preference",
]

#: Known-bad samples needed in each group (the judge's own family, other families) before the comparison is
#: made at all.
MIN_SELF_PREFERENCE_SAMPLES = 30
#: Largest rise in the false accept rate on the judge's own family tolerated.
DEFAULT_SELF_PREFERENCE_MARGIN = 0.05
#: Two-sided confidence of the interval (its upper end is a one-sided 95% bound).
SELF_PREFERENCE_CONFIDENCE = 0.90

Outcome = Literal["biased", "no_bias", "inconclusive", "insufficient"]


def newcombe_interval(
    x1: int, n1: int, x2: int, n2: int, *, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval for ``x1/n1 - x2/n2`` (two independent proportions).

    ``low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)`` and ``high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)``, where
    ``(l, u)`` are each group's Wilson interval at ``confidence``. Returns ``None`` (with
    :class:`UndefinedMetricWarning`) when either group is empty."""
    func = "newcombe_interval"
    x1, n1 = _check_counts(x1, n1, func, "x1")
    x2, n2 = _check_counts(x2, n2, func, "x2")
    confidence = check_confidence(confidence, func)
    if n1 == 0 or n2 == 0:
        warn_undefined("the difference of two proportions is undefined when a group has no samples")
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w1 = wilson_interval(x1, n1, confidence=confidence)
        w2 = wilson_interval(x2, n2, confidence=confidence)
    assert w1 is not None and w2 is not None
    p1, p2 = x1 / n1, x2 / n2
    d = p1 - p2
    low = d - math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2)
    high = d + math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2)
    return max(-1.0, low), min(1.0, high)


@dataclass(frozen=True)
class SelfPreference:
    """The self-preference comparison of one judge: false accepts on its own family's bad answers vs
    others'."""

    own_count: int
    own_n: int
    other_count: int
    other_n: int
    own_rate: float | None
    other_rate: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    margin: float
    min_samples: int
    outcome: Outcome
    explanation: str

    @property
    def biased(self) -> bool:
        return self.outcome == "biased"

    @property
    def no_bias(self) -> bool:
        return self.outcome == "no_bias"

    def to_dict(self) -> dict[str, object]:
        return {
            "own_family": {"count": self.own_count, "n": self.own_n, "value": self.own_rate},
            "other_families": {"count": self.other_count, "n": self.other_n, "value": self.other_rate},
            "diff": self.diff,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "method": "newcombe-hybrid-score",
            "margin": self.margin,
            "min_samples": self.min_samples,
            "outcome": self.outcome,
            "explanation": self.explanation,
        }


def self_preference(
    own_accepts: int,
    own_n: int,
    other_accepts: int,
    other_n: int,
    *,
    margin: float = DEFAULT_SELF_PREFERENCE_MARGIN,
    confidence: float = SELF_PREFERENCE_CONFIDENCE,
    min_samples: int = MIN_SELF_PREFERENCE_SAMPLES,
) -> SelfPreference:
    """Decide whether a judge accepts its own family's bad answers more often than others' (see the module
    docstring for the four outcomes). ``own_accepts`` of ``own_n`` known-bad samples written by the judge's
    family were accepted, ``other_accepts`` of ``other_n`` written by other families."""
    func = "self_preference"
    own_accepts, own_n = _check_counts(own_accepts, own_n, func, "own_accepts")
    other_accepts, other_n = _check_counts(other_accepts, other_n, func, "other_accepts")
    margin = check_real(margin, "margin", func, low=0.0, high=1.0, open_high=True)
    confidence = check_confidence(confidence, func)
    min_samples = check_int(min_samples, "min_samples", func, low=1)
    own_rate = own_accepts / own_n if own_n else None
    other_rate = other_accepts / other_n if other_n else None
    diff = None if own_rate is None or other_rate is None else own_rate - other_rate
    ci = None
    if own_n and other_n:
        ci = newcombe_interval(own_accepts, own_n, other_accepts, other_n, confidence=confidence)
    low, high = (None, None) if ci is None else ci
    pct = f"{confidence:.0%}"
    outcome: Outcome
    effect = ""
    if diff is not None and low is not None and high is not None:
        effect = (
            f"false accept rate {own_rate:.3f} ({own_accepts}/{own_n}) on its own family's bad answers vs "
            f"{other_rate:.3f} ({other_accepts}/{other_n}) on others' ({diff:+.3f}, {pct} CI {low:+.3f} to "
            f"{high:+.3f})"
        )
    if diff is not None and low is not None and diff > margin and low > 0:
        # Evidence of a bias needs no minimum: the interval already accounts for the sample sizes.
        outcome = "biased"
        explanation = f"{effect}: more lenient on its own family, beyond the margin {margin:g}"
    elif own_n < min_samples or other_n < min_samples:
        outcome = "insufficient"
        explanation = (
            f"too few known-bad samples to compare: {own_n} written by the judge's own family and {other_n} "
            f"by other families; at least {min_samples} of each are needed"
        )
    elif high is not None and high <= margin:
        outcome = "no_bias"
        explanation = f"{effect}: the interval rules out a rise above the margin {margin:g}"
    else:
        outcome = "inconclusive"
        explanation = (
            f"{effect}: the interval reaches above the margin {margin:g}, so a rise larger than the margin "
            "cannot be ruled out (more known-bad samples of both kinds narrow it)"
        )
    return SelfPreference(
        own_count=own_accepts,
        own_n=own_n,
        other_count=other_accepts,
        other_n=other_n,
        own_rate=own_rate,
        other_rate=other_rate,
        diff=diff,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        margin=margin,
        min_samples=min_samples,
        outcome=outcome,
        explanation=explanation,
    )
