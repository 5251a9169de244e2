"""Bootstrap intervals when samples are not independent (variants of one seed, trials of one task).

The resampling unit is the group (cluster). Resampling ``G`` groups with replacement only depends on how many
groups of each kind there are, so groups are compressed to their distinct kinds (distinct ``(successes,
size)`` pairs, or distinct means) and each bootstrap draw is one multinomial draw over the kinds: exactly the
same distribution as drawing group indices, at a cost of ``n_boot x kinds`` instead of ``n_boot x groups``.
Kinds are sorted, so the result for a fixed seed does not depend on the order of the input.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graderctl.stats._common import (
    check_booleans,
    check_confidence,
    check_n_boot,
    check_reals,
    check_same_length,
    check_seed,
    invalid,
    warn_undefined,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "ClusteredRate",
    "bootstrap_tasks_interval",
    "cluster_bootstrap_mean_difference",
    "cluster_bootstrap_rate",
]

DEFAULT_SEED = 20240601

CLUSTER_RATE_METHOD = (
    "cluster bootstrap: groups resampled with replacement (a sample without a group is its own group), "
    "rate = successes / samples over the drawn groups, percentile interval; design effect = ratio-estimator "
    "cluster variance / binomial variance"
)


@dataclass(frozen=True)
class ClusteredRate:
    """A rate's bootstrap interval over groups of dependent samples.

    ``upper_95`` is always the one-sided 95% upper bound (the 95th percentile), whatever ``confidence`` the
    two-sided ``ci_low``/``ci_high`` use. ``design_effect`` is how much the grouping inflates the variance of
    the rate compared with independent samples (1 when every group is a single sample); ``None`` when
    undefined.
    """

    ci_low: float | None
    ci_high: float | None
    upper_95: float | None
    design_effect: float | None
    n_groups: int
    n_boot: int
    seed: int
    method: str
    value: float | None = None
    n: int = 0

    def to_dict(self) -> dict[str, int | float | str | None]:
        return {
            "value": self.value,
            "n": self.n,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "upper_95": self.upper_95,
            "design_effect": self.design_effect,
            "n_groups": self.n_groups,
            "n_boot": self.n_boot,
            "seed": self.seed,
            "method": self.method,
        }


def cluster_bootstrap_rate(
    outcomes: Sequence[bool],
    groups: Sequence[str | None],
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = DEFAULT_SEED,
) -> ClusteredRate:
    """Percentile cluster-bootstrap interval of the rate of ``True`` in ``outcomes``, resampling ``groups``.

    ``groups[i]`` names the group of sample ``i``; ``None`` makes the sample its own group. Deterministic for
    a fixed ``seed`` and independent of input order.

    With no successes (or no failures) every bootstrap draw gives the same rate and the interval collapses to
    the point: the bootstrap cannot see variation that did not occur. Pair it with the exact binomial bound
    (:func:`rate_stats`) and report the wider of the two.
    """
    func = "cluster_bootstrap_rate"
    values = check_booleans(outcomes, "outcomes", func)
    labels = _group_labels(groups, func)
    n = check_same_length(func, outcomes=values, groups=labels)
    confidence = check_confidence(confidence, func)
    n_boot = check_n_boot(n_boot, func)
    seed = check_seed(seed, func)
    if n == 0:
        warn_undefined("cluster_bootstrap_rate: the rate is undefined for 0 samples; bounds are None")
        return ClusteredRate(None, None, None, None, 0, n_boot, seed, CLUSTER_RATE_METHOD, None, 0)

    import numpy as np

    index = _group_index(labels)
    n_groups = int(index.max()) + 1
    successes = np.bincount(index, weights=np.asarray(values, dtype=np.float64), minlength=n_groups).astype(
        np.float64
    )
    sizes = np.bincount(index, minlength=n_groups).astype(np.float64)
    kinds, counts = np.unique(np.stack([successes, sizes], axis=1), axis=0, return_counts=True)
    sums = _resampled_sums(kinds, counts, n_boot, seed)
    estimates = sums[:, 0] / sums[:, 1]
    alpha = 1.0 - confidence
    low, high, upper = np.quantile(estimates, [alpha / 2, 1.0 - alpha / 2, 0.95])
    total = float(successes.sum())
    return ClusteredRate(
        ci_low=_unit(low),
        ci_high=_unit(high),
        upper_95=_unit(upper),
        design_effect=_design_effect(kinds[:, 0], kinds[:, 1], counts.astype(np.float64)),
        n_groups=n_groups,
        n_boot=n_boot,
        seed=seed,
        method=CLUSTER_RATE_METHOD,
        value=total / n,
        n=n,
    )


def _unit(value: float) -> float:
    return min(1.0, max(0.0, float(value)))


def _design_effect(
    successes: npt.NDArray[np.float64], sizes: npt.NDArray[np.float64], counts: npt.NDArray[np.float64]
) -> float | None:
    """Kish-style design effect of a ratio estimate ``sum(s) / sum(m)`` over ``G`` groups.

    ``var_clustered = G / (G - 1) * sum((s_g - p m_g)^2) / N^2`` (linearised ratio-estimator variance) over
    ``var_binomial = p (1 - p) / (N - 1)`` (the same unbiased form for independent samples), so singleton
    groups give exactly 1 and ``G`` groups of ``m`` identical outcomes give ``(N - 1) / (G - 1)``, about
    ``m``. Groups come as sorted distinct kinds with their ``counts``, so sums do not depend on input order.
    """
    n_groups = int(counts.sum())
    total = float(counts @ sizes)
    p = float(counts @ successes) / total
    if n_groups < 2 or p in (0.0, 1.0):
        reason = "there is one group" if n_groups < 2 else "every outcome is the same (binomial variance 0)"
        warn_undefined(f"cluster_bootstrap_rate: the design effect is undefined because {reason}; it is None")
        return None
    residuals = successes - p * sizes
    clustered = n_groups / (n_groups - 1) * float(counts @ (residuals * residuals)) / (total * total)
    binomial = p * (1.0 - p) / (total - 1.0)
    return clustered / binomial


def _group_labels(groups: object, func: str) -> list[Hashable | None]:
    expected = "a sequence of group names (None = a group of its own)"
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence):
        invalid("groups", func, expected, None, got_text=f"a {type(groups).__name__}")
    if all(type(item) is str for item in groups):  # fast path: plain string labels are hashable
        return list(groups)
    labels: list[Hashable | None] = []
    for position, item in enumerate(groups):
        if item is not None and not isinstance(item, Hashable):
            invalid("groups", func, expected, None, got_text=f"{item!r} at index {position}")
        labels.append(item)
    return labels


def _group_index(labels: Sequence[Hashable | None]) -> npt.NDArray[np.intp]:
    import numpy as np

    if None not in labels:  # fast path: every label names a group
        codes_of: dict[Hashable, int] = {}
        setdefault = codes_of.setdefault
        return np.fromiter(
            (setdefault(label, len(codes_of)) for label in labels), dtype=np.intp, count=len(labels)
        )
    codes: dict[Hashable, int] = {}
    index = np.empty(len(labels), dtype=np.intp)
    next_code = 0
    for position, label in enumerate(labels):
        if label is None:
            index[position] = next_code
            next_code += 1
            continue
        code = codes.get(label)
        if code is None:
            code = codes[label] = next_code
            next_code += 1
        index[position] = code
    return index


#: Upper bound on the cells of one block of multinomial draws (n_boot rows x kinds), to bound memory.
_BLOCK_CELLS = 4_000_000


def _resampled_sums(
    kinds: npt.NDArray[np.float64], counts: npt.NDArray[np.int64], n_boot: int, seed: int
) -> npt.NDArray[np.float64]:
    """Column sums of ``kinds`` (one row per distinct kind) over ``n_boot`` resamples of all items.

    ``counts[j]`` items are of kind ``j``; a resample draws ``sum(counts)`` items with replacement, i.e. one
    multinomial draw over the kinds. Drawn in blocks so memory stays bounded when there are many kinds.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    items = int(counts.sum())
    probabilities = counts / items
    sums = np.empty((n_boot, kinds.shape[1]), dtype=np.float64)
    block = max(1, _BLOCK_CELLS // len(counts))
    for start in range(0, n_boot, block):
        rows = min(block, n_boot - start)
        draws = rng.multinomial(items, probabilities, size=rows).astype(np.float64)
        sums[start : start + rows] = draws @ kinds
    return sums


def _bootstrap_means(
    values: Sequence[float], confidence: float, n_boot: int, seed: int
) -> tuple[float, float]:
    """Percentile interval of the mean of ``values``, resampled with replacement."""
    import numpy as np

    kinds, counts = np.unique(np.asarray(values, dtype=np.float64), return_counts=True)
    means = _resampled_sums(kinds[:, np.newaxis], counts, n_boot, seed)[:, 0] / len(values)
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2, 1.0 - alpha / 2])
    return float(low), float(high)


def bootstrap_tasks_interval(
    per_task: Sequence[float],
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of per-task values (e.g. each task's pass@k), tasks
    resampled.

    Returns ``None`` with :class:`UndefinedMetricWarning` for fewer than two tasks.
    """
    func = "bootstrap_tasks_interval"
    values = check_reals(per_task, "per_task", func)
    confidence = check_confidence(confidence, func)
    n_boot = check_n_boot(n_boot, func)
    seed = check_seed(seed, func)
    if len(values) < 2:
        warn_undefined(
            f"bootstrap_tasks_interval: an interval over {len(values)} task(s) says nothing about "
            "task-to-task variation; returning None"
        )
        return None
    return _bootstrap_means(values, confidence, n_boot, seed)


def cluster_bootstrap_mean_difference(
    old: Sequence[float],
    new: Sequence[float],
    clusters: Sequence[str],
    *,
    confidence: float = 0.90,
    n_boot: int = 2000,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float, float]:
    """``(diff, low, high)`` for the mean of ``new - old`` with clusters (tasks) as the resampling unit.

    The differences are averaged within each cluster first, then over clusters, so every cluster weighs the
    same. With a single cluster the interval collapses to the point and an :class:`UndefinedMetricWarning`
    says the bootstrap cannot measure uncertainty.
    """
    func = "cluster_bootstrap_mean_difference"
    old_values = check_reals(old, "old", func)
    new_values = check_reals(new, "new", func)
    labels = _group_labels(clusters, func)
    n = check_same_length(func, old=old_values, new=new_values, clusters=labels)
    if n == 0:
        invalid("old", func, "a non-empty sequence of finite floats", None, got_text="an empty sequence")
    if any(label is None for label in labels):
        position = next(i for i, label in enumerate(labels) if label is None)
        invalid("clusters", func, "a sequence of cluster names", None, got_text=f"None at index {position}")
    confidence = check_confidence(confidence, func)
    n_boot = check_n_boot(n_boot, func)
    seed = check_seed(seed, func)
    sums: dict[Hashable | None, list[float]] = {}
    for before, after, label in zip(old_values, new_values, labels, strict=True):
        sums.setdefault(label, []).append(after - before)
    cluster_means = [math.fsum(diffs) / len(diffs) for diffs in sums.values()]
    diff = math.fsum(cluster_means) / len(cluster_means)
    if len(cluster_means) < 2:
        warn_undefined(
            "cluster_bootstrap_mean_difference: one cluster cannot show cluster-to-cluster variation; "
            "the interval collapses to the point estimate"
        )
        return diff, diff, diff
    low, high = _bootstrap_means(cluster_means, confidence, n_boot, seed)
    return diff, low, high
