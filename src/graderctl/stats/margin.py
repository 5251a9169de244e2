"""A share or a change against a margin: one rule for the probes and for ``calibrate --repeats``.

An estimate is ``above`` the margin when it exceeds it and its interval's lower end is above 0 (the rise is
both material and not noise); ``within`` when the interval's upper end is at most the margin (the evidence
rules out more); else ``inconclusive`` (too few samples, or an interval wider than the margin). ``within`` is
never said on thin evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from graderctl.stats._common import check_confidence, check_int, check_real, invalid, warn_undefined
from graderctl.stats.rates import wilson_interval

MarginOutcome = Literal["above", "within", "inconclusive"]


def margin_outcome(
    estimate: float, ci_low: float | None, ci_high: float | None, *, margin: float
) -> MarginOutcome:
    """``above``, ``within`` or ``inconclusive`` (see the module): ``estimate`` with its interval, against
    ``margin``. An undefined (``None``) or infinite bound supports neither ``above`` nor ``within``."""
    func = "margin_outcome"
    estimate = check_real(estimate, "estimate", func)
    margin = check_real(margin, "margin", func, low=0.0)
    if estimate > margin and ci_low is not None and ci_low > 0:
        return "above"
    if ci_high is not None and math.isfinite(ci_high) and ci_high <= margin:
        return "within"
    return "inconclusive"


@dataclass(frozen=True)
class ShareAgainstMargin:
    """``count`` of ``n`` items (flipped outcomes, say) with the Wilson interval of the share, and the
    :func:`margin_outcome` of that share."""

    count: int
    n: int
    value: float
    ci_low: float
    ci_high: float
    confidence: float
    margin: float
    outcome: MarginOutcome


def share_against_margin(
    count: int, n: int, *, margin: float, confidence: float = 0.90
) -> ShareAgainstMargin | None:
    """The share ``count / n``, its two-sided Wilson interval and how it stands against ``margin``.

    Returns ``None`` with :class:`UndefinedMetricWarning` for ``n = 0`` (no item to count)."""
    func = "share_against_margin"
    n = check_int(n, "n", func, low=0)
    count = check_int(count, "count", func, low=0, high=n, high_name="n")
    margin = check_real(margin, "margin", func, low=0.0)
    confidence = check_confidence(confidence, func)
    if n == 0:
        warn_undefined("share_against_margin is undefined for n = 0 items; returning None")
        return None
    ci = wilson_interval(count, n, confidence=confidence)
    assert ci is not None  # n > 0
    value = count / n
    return ShareAgainstMargin(
        count=count,
        n=n,
        value=value,
        ci_low=ci[0],
        ci_high=ci[1],
        confidence=confidence,
        margin=margin,
        outcome=margin_outcome(value, ci[0], ci[1], margin=margin),
    )


@dataclass(frozen=True)
class RepeatFlips:
    """Items decided in at least two repeats (``n``) and, of those, the indices of the items whose decisions
    differ (``flipped``)."""

    n: int
    flipped: list[int]


def repeat_flips(outcomes: Sequence[Sequence[bool | None]]) -> RepeatFlips:
    """Which items change outcome across repeats. ``outcomes[i]`` holds item ``i``'s outcome in each repeat,
    ``None`` where it was not decided (an error, an abstention): an item counts when at least two repeats
    decided it, and is flipped when those decisions differ."""
    func = "repeat_flips"
    if isinstance(outcomes, str | bytes) or not isinstance(outcomes, Sequence):
        invalid("outcomes", func, "a sequence of sequences of True/False/None", outcomes)
    considered = 0
    flipped: list[int] = []
    for index, item in enumerate(outcomes):
        if isinstance(item, str | bytes) or not isinstance(item, Sequence):
            invalid("outcomes", func, "a sequence of sequences of True/False/None", None, got_text=repr(item))
        decided = [o for o in item if o is not None]
        if any(not isinstance(o, bool) for o in decided):
            invalid("outcomes", func, "a sequence of sequences of True/False/None", None, got_text=repr(item))
        if len(decided) < 2:
            continue
        considered += 1
        if len(set(decided)) > 1:
            flipped.append(index)
    return RepeatFlips(n=considered, flipped=flipped)
