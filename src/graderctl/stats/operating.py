"""Operating points of a score-based decision: the false-accept / false-reject trade-off over thresholds.

A sample is accepted at threshold ``t`` when its score is at least ``t``. :func:`sweep` takes scikit-learn's
``roc_curve`` (every distinct score is a threshold, nothing dropped) and turns it into exact counts: for each
threshold, how many known-bad samples are accepted (false accepts) and how many known-good ones are accepted.
Every other count here is read from those arrays, so the trade-off table, the chosen threshold and the chosen
abstention band all come from one curve.

An operating point is judged the way a calibration report judges a grader: the one-sided 95% Clopper-Pearson
upper bound of each rate against its limit (:func:`cp_upper`, vectorised; equal to
:func:`graderctl.stats.clopper_pearson_upper`). With a band ``[reject_below, accept_at_or_above)`` samples
scoring inside it are undecided; the rates are over decided samples and coverage is the share decided.

Pure: numpy arrays and plain numbers in and out, nothing about graders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graderctl.errors import StatisticsError

#: A candidate grid for bands is at most this many distinct scores (quantiles of the observed scores).
BAND_GRID = 200


@dataclass(frozen=True)
class Sweep:
    """Counts at every threshold of the curve (``thresholds`` descending; the first is ``+inf``: accept
    none). ``accepted_bad[i]`` / ``accepted_good[i]``: known-bad / known-good samples with a score at least
    ``thresholds[i]``."""

    thresholds: Any
    accepted_bad: Any
    accepted_good: Any
    n_bad: int
    n_good: int

    def counts_at(self, t: Any) -> tuple[Any, Any]:
        """Known-bad and known-good samples scoring at least ``t`` (a number or an array of them)."""
        import numpy as np

        # thresholds are descending: the samples scoring >= t are those counted at the last threshold >= t
        idx = np.searchsorted(-self.thresholds, -np.asarray(t, dtype=float), side="right") - 1
        return self.accepted_bad[idx], self.accepted_good[idx]


def sweep(scores: Any, is_good: Any) -> Sweep:
    """The curve of ``scores`` (finite floats; ``-inf`` means rejected at every threshold) for samples whose
    label ``is_good`` (``True`` known-good, ``False`` known-bad). Needs both labels."""
    import numpy as np
    from sklearn.metrics import roc_curve

    s = np.asarray(scores, dtype=float)
    y = np.asarray(is_good, dtype=bool)
    if s.shape != y.shape or s.ndim != 1:
        raise StatisticsError(
            f"The 'scores' parameter of sweep must be a 1-d sequence as long as is_good. Got {s.shape} "
            f"and {y.shape} instead."
        )
    if np.isnan(s).any() or np.isposinf(s).any():
        raise StatisticsError(
            "The 'scores' parameter of sweep must hold finite numbers or -inf. Got NaN/+inf."
        )
    n_good = int(y.sum())
    n_bad = int(y.size - n_good)
    if n_good == 0 or n_bad == 0:
        raise StatisticsError(
            "The 'is_good' parameter of sweep must hold both labels (a trade-off needs known-good and "
            f"known-bad samples). Got {n_good} good and {n_bad} bad instead."
        )
    # roc_curve wants finite scores: a score of -inf (rejected at every threshold) sits below every other.
    floor = (s[np.isfinite(s)].min() if np.isfinite(s).any() else 0.0) - 1.0
    s = np.where(np.isneginf(s), floor, s)
    fpr, tpr, thresholds = roc_curve(y, s, drop_intermediate=False)
    thresholds = np.asarray(thresholds, dtype=float)
    thresholds[0] = np.inf  # scikit-learn < 1.3 wrote max + 1 here; either way it accepts none
    accepted_bad = np.rint(fpr * n_bad).astype(np.int64)
    accepted_good = np.rint(tpr * n_good).astype(np.int64)
    return Sweep(thresholds, accepted_bad, accepted_good, n_bad, n_good)


def cp_upper(x: Any, n: Any, confidence: float = 0.95) -> Any:
    """One-sided Clopper-Pearson upper bounds of ``x`` events in ``n`` trials, element-wise (``nan`` where
    ``n`` is 0; ``1`` where ``x == n``)."""
    import numpy as np
    from scipy.special import betaincinv

    x = np.asarray(x, dtype=float)
    n = np.asarray(n, dtype=float)
    out = np.full(np.broadcast(x, n).shape, np.nan)
    x, n = np.broadcast_arrays(x, n)
    tail = 1.0 - confidence
    full = (n > 0) & (x >= n)
    zero = (n > 0) & (x == 0) & ~full
    mid = (n > 0) & ~full & ~zero
    out[full] = 1.0
    out[zero] = -np.expm1(np.log(tail) / n[zero])
    out[mid] = betaincinv(x[mid] + 1, n[mid] - x[mid], 1.0 - tail)
    return out


@dataclass(frozen=True)
class Point:
    """One operating point: the band (equal bounds: a plain threshold) and what it does on the samples."""

    reject_below: float
    accept_at_or_above: float
    false_accepts: int
    bad_decided: int
    false_rejects: int
    good_decided: int
    n: int

    @property
    def decided(self) -> int:
        return self.bad_decided + self.good_decided

    @property
    def undecided(self) -> int:
        return self.n - self.decided

    def as_dict(self, confidence: float = 0.95) -> dict[str, Any]:
        far_up, frr_up = (
            float(v)
            for v in cp_upper(
                [self.false_accepts, self.false_rejects], [self.bad_decided, self.good_decided], confidence
            )
        )
        cov_low = 1.0 - float(cp_upper(self.undecided, self.n, confidence)) if self.n else float("nan")
        return {
            "reject_below": self.reject_below,
            "accept_at_or_above": self.accept_at_or_above,
            "false_accepts": self.false_accepts,
            "bad_decided": self.bad_decided,
            "false_accept_rate": _ratio(self.false_accepts, self.bad_decided),
            "false_accept_rate_upper_95": _finite(far_up),
            "false_rejects": self.false_rejects,
            "good_decided": self.good_decided,
            "false_reject_rate": _ratio(self.false_rejects, self.good_decided),
            "false_reject_rate_upper_95": _finite(frr_up),
            "undecided": self.undecided,
            "coverage": _ratio(self.decided, self.n),
            "coverage_lower_95": _finite(cov_low),
        }


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _finite(v: float) -> float | None:
    import math

    return v if math.isfinite(v) else None


def point(sw: Sweep, reject_below: float, accept_at_or_above: float) -> Point:
    """The operating point of a band (``reject_below == accept_at_or_above``: a plain threshold)."""
    if reject_below > accept_at_or_above:
        raise StatisticsError(
            "The 'reject_below' parameter of point must be at most accept_at_or_above. "
            f"Got {reject_below!r} > {accept_at_or_above!r} instead."
        )
    fa, ta = sw.counts_at(accept_at_or_above)
    bad_ge_r, good_ge_r = sw.counts_at(reject_below)
    bad_rejected = sw.n_bad - int(bad_ge_r)
    false_rejects = sw.n_good - int(good_ge_r)
    return Point(
        reject_below=float(reject_below),
        accept_at_or_above=float(accept_at_or_above),
        false_accepts=int(fa),
        bad_decided=int(fa) + bad_rejected,
        false_rejects=false_rejects,
        good_decided=int(ta) + false_rejects,
        n=sw.n_bad + sw.n_good,
    )


@dataclass(frozen=True)
class ThresholdChoice:
    """Every candidate threshold with its counts and bounds, and the index chosen (``None``: none meets the
    limits; ``best`` is then the one closest to them)."""

    thresholds: Any
    false_accepts: Any
    false_rejects: Any
    far_upper: Any
    frr_upper: Any
    meets: Any
    chosen: int | None
    best: int
    #: candidate indices in order of preference among those that meet the limits (lowest FRR first).
    preference: list[int]


def choose_threshold(
    sw: Sweep,
    *,
    max_far: float,
    max_frr: float,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
) -> ThresholdChoice:
    """Among the curve's thresholds in ``[low, high]``, the one whose upper bounds meet ``max_far`` and
    ``max_frr`` with the lowest false-reject count (ties: the higher threshold, fewer false accepts); when
    none meets both, ``best`` minimises the larger excess over a limit."""
    import numpy as np

    thr = sw.thresholds
    keep = np.isfinite(thr) & (thr >= low) & (thr <= high)
    cand = np.flatnonzero(keep)
    if cand.size == 0:
        raise StatisticsError(
            f"no observed score lies in [{low:g}, {high:g}], the range of the threshold; nothing to choose"
        )
    fa = sw.accepted_bad[cand]
    fr = sw.n_good - sw.accepted_good[cand]
    far_up = cp_upper(fa, sw.n_bad, confidence)
    frr_up = cp_upper(fr, sw.n_good, confidence)
    meets = (far_up <= max_far) & (frr_up <= max_frr)
    excess = np.maximum(far_up - max_far, frr_up - max_frr)
    # preference: fewest false rejects, then fewest false accepts, then the higher threshold
    order = np.lexsort((-thr[cand], fa, fr))
    preference = [int(i) for i in order if meets[i]]
    best = int(np.lexsort((-thr[cand], excess))[0])
    return ThresholdChoice(
        thresholds=thr[cand],
        false_accepts=fa,
        false_rejects=fr,
        far_upper=far_up,
        frr_upper=frr_up,
        meets=meets,
        chosen=preference[0] if preference else None,
        best=best,
        preference=preference,
    )


@dataclass(frozen=True)
class BandChoice:
    chosen: Point | None
    best: Point
    #: Candidate bands that meet the limits, best first (for checks the bounds here do not cover).
    preference: list[Point]


def choose_band(
    sw: Sweep,
    scores: Any,
    *,
    max_far: float,
    max_frr: float,
    min_coverage: float | None = None,
    low: float = 0.0,
    high: float = 1.0,
    grid: int = BAND_GRID,
    confidence: float = 0.95,
    keep: int = 50,
) -> BandChoice:
    """The band ``[reject_below, accept_at_or_above)`` over a grid of candidate bounds (at most ``grid``
    quantiles of ``scores`` within ``[low, high]``) that meets ``max_far`` and ``max_frr`` on decided samples
    (upper bounds) and ``min_coverage`` (lower bound), deciding the most samples; ties: fewer false rejects,
    then the higher accept bound, then fewer false accepts (with loose limits that is the plain threshold
    with the lowest false-reject count: a band only when no threshold meets the limits). When none meets,
    ``best`` minimises the larger excess."""
    import numpy as np

    s = np.asarray(scores, dtype=float)
    s = s[np.isfinite(s) & (s >= low) & (s <= high)]
    if s.size == 0:
        raise StatisticsError(f"no observed score lies in [{low:g}, {high:g}]; no band to choose")
    qs = np.unique(np.quantile(s, np.linspace(0.0, 1.0, grid)))
    # each bound is an observed score (quantile method 'linear' may fall between two: snap up to one)
    observed = np.unique(s)
    qs = np.unique(observed[np.minimum(np.searchsorted(observed, qs), observed.size - 1)])
    r, a = np.meshgrid(qs, qs, indexing="ij")
    ok = r <= a
    r, a = r[ok], a[ok]
    fa, ta = sw.counts_at(a)
    bad_ge_r, good_ge_r = sw.counts_at(r)
    bad_dec = fa + (sw.n_bad - bad_ge_r)
    fr = sw.n_good - good_ge_r
    good_dec = ta + fr
    n = sw.n_bad + sw.n_good
    decided = bad_dec + good_dec
    far_up = np.where(bad_dec > 0, cp_upper(fa, bad_dec, confidence), np.inf)
    frr_up = np.where(good_dec > 0, cp_upper(fr, good_dec, confidence), np.inf)
    cov_low = 1.0 - cp_upper(n - decided, n, confidence)
    excess = np.maximum(far_up - max_far, frr_up - max_frr)
    meets = (far_up <= max_far) & (frr_up <= max_frr)
    if min_coverage is not None:
        meets &= cov_low >= min_coverage
        excess = np.maximum(excess, min_coverage - cov_low)
    order = np.lexsort((fa, -a, fr, -decided))

    def make(i: int) -> Point:
        return Point(
            reject_below=float(r[i]),
            accept_at_or_above=float(a[i]),
            false_accepts=int(fa[i]),
            bad_decided=int(bad_dec[i]),
            false_rejects=int(fr[i]),
            good_decided=int(good_dec[i]),
            n=n,
        )

    preference = [make(int(i)) for i in order if meets[i]][:keep]
    best = make(int(np.lexsort((-decided, excess))[0]))
    return BandChoice(chosen=preference[0] if preference else None, best=best, preference=preference)


def table_rows(choice: ThresholdChoice, rows: int = 15, extra: tuple[int, ...] = ()) -> list[int]:
    """Indices into ``choice`` for a printed trade-off table: ``rows`` thresholds spread evenly over the
    candidates (by rank), plus ``extra`` ones and the chosen or best one; sorted by threshold, descending."""
    import numpy as np

    size = len(choice.thresholds)
    picks = set(np.unique(np.linspace(0, size - 1, min(rows, size)).round().astype(int)).tolist())
    picks |= {i for i in extra if 0 <= i < size}
    picks.add(choice.chosen if choice.chosen is not None else choice.best)
    return sorted(picks, key=lambda i: -float(choice.thresholds[i]))
