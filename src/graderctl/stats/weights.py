"""Declared task weights: the weighted mean of per-task values, and the per-task values scaled so that their
plain mean is that weighted mean (what a bootstrap over tasks resamples)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from graderctl.stats._common import check_real, invalid


def _check(values: Sequence[float], weights: Sequence[float], func: str) -> tuple[list[float], list[float]]:
    expected = "a non-empty sequence of finite floats"
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
        invalid("values", func, expected, None, got_text=repr(values))
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence) or len(weights) != len(values):
        invalid(
            "weights", func, f"a sequence of {len(values)} non-negative floats", None, got_text=repr(weights)
        )
    v = [check_real(x, "values", func) for x in values]
    w = [check_real(x, "weights", func, low=0.0) for x in weights]
    if math.fsum(w) <= 0:
        invalid(
            "weights", func, "non-negative floats with a positive sum", None, got_text="weights summing to 0"
        )
    return v, w


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    """``sum(w * v) / sum(w)`` (both sums exact to the float: ``math.fsum``)."""
    v, w = _check(values, weights, "weighted_mean")
    return math.fsum(wi * vi for wi, vi in zip(w, v, strict=True)) / math.fsum(w)


def weight_scaled(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """Each value times ``w * n / sum(w)`` (``n`` values): their plain mean is the weighted mean, so a
    percentile bootstrap over tasks of these values is an interval of the weighted mean."""
    v, w = _check(values, weights, "weight_scaled")
    total = math.fsum(w)
    n = len(v)
    return [(wi * n / total) * vi for wi, vi in zip(w, v, strict=True)]
