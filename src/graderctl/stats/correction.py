"""Rogan–Gladen correction of an observed success rate for a grader's known error rates.

If a grader accepts a bad report with probability FAR (false-accept rate) and rejects a good one with
probability FRR (false-reject rate), the observed accept rate is ``p = pi (1 - FRR) + (1 - pi) FAR``, so the
true rate is ``pi = (p - FAR) / (1 - FAR - FRR)``. It is defined only when ``FAR + FRR < 1`` (a grader better
than a coin), and sampling noise can push it outside ``[0, 1]``: it is then clipped and flagged.

This fits calibration sets built from fixed numbers of known-good and known-bad samples (they measure FAR and
FRR, not prevalence); prediction-powered inference would need a random labelled sample of the same population.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graderctl.errors import StatisticsError
from graderctl.stats._common import (
    check_confidence,
    check_int,
    check_n_boot,
    check_real,
    check_seed,
    invalid,
    warn_undefined,
)

__all__ = ["CorrectedRate", "rogan_gladen", "rogan_gladen_interval"]

ROGAN_GLADEN_METHOD = (
    "rogan-gladen: (p - FAR) / (1 - FAR - FRR), clipped to [0, 1]; percentile interval over parametric "
    "draws of p, FAR and FRR from independent Jeffreys Beta(x + 1/2, n - x + 1/2) posteriors "
    "(trial sample and calibration sets), each draw corrected and clipped; "
    "draws with FAR + FRR >= 1 are discarded"
)


@dataclass(frozen=True)
class CorrectedRate:
    """An observed rate corrected for grader error, with an interval carrying the calibration uncertainty.

    ``value`` is the clipped estimate, ``raw`` the unclipped one and ``clipped`` says whether they differ.
    Both are ``None`` (and the interval too) when the measured ``FAR + FRR >= 1``.
    """

    observed: float
    value: float | None
    raw: float | None
    clipped: bool
    ci_low: float | None
    ci_high: float | None
    method: str

    def to_dict(self) -> dict[str, float | bool | str | None]:
        return {
            "observed": self.observed,
            "value": self.value,
            "raw": self.raw,
            "clipped": self.clipped,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "method": self.method,
        }


def rogan_gladen(p: float, far: float, frr: float) -> tuple[float, float, bool]:
    """``(clipped value, raw value, clipped?)`` of ``(p - far) / (1 - far - frr)``.

    Raises :class:`~graderctl.errors.StatisticsError` when ``far + frr >= 1``.
    """
    func = "rogan_gladen"
    p = check_real(p, "p", func, low=0.0, high=1.0)
    far = check_real(far, "far", func, low=0.0, high=1.0)
    frr = check_real(frr, "frr", func, low=0.0, high=1.0)
    if far + frr >= 1.0:
        raise StatisticsError(
            f"The 'far' and 'frr' parameters of {func} must sum to less than 1. "
            f"Got far + frr = {far + frr!r} instead. A grader whose error rates sum to 1 or more is no "
            "better than chance and cannot be corrected for."
        )
    raw = (p - far) / (1.0 - far - frr)
    value = min(1.0, max(0.0, raw))
    return value, raw, value != raw


def rogan_gladen_interval(
    successes: int,
    trials: int,
    far_count: int,
    far_n: int,
    frr_count: int,
    frr_n: int,
    *,
    confidence: float = 0.95,
    n_boot: int = 4000,
    seed: int = 20240601,
) -> CorrectedRate:
    """Rogan–Gladen corrected rate with a parametric-bootstrap interval (see ``ROGAN_GLADEN_METHOD``).

    ``successes / trials`` is the observed accept rate; ``far_count / far_n`` the false accepts among
    known-bad calibration samples; ``frr_count / frr_n`` the false rejects among known-good ones. Each draw
    takes p, FAR and FRR from Jeffreys posteriors, so a calibration set with zero false accepts still
    contributes its uncertainty. If more than ``(1 - confidence) / 2`` of the draws have ``FAR + FRR >= 1``
    the interval is ``None`` (with :class:`UndefinedMetricWarning`): the calibration sets are too small to
    bound the correction.
    """
    func = "rogan_gladen_interval"
    trials = check_int(trials, "trials", func, low=1)
    successes = check_int(successes, "successes", func, low=0, high=trials, high_name="trials")
    far_n = check_int(far_n, "far_n", func, low=1)
    far_count = check_int(far_count, "far_count", func, low=0, high=far_n, high_name="far_n")
    frr_n = check_int(frr_n, "frr_n", func, low=1)
    frr_count = check_int(frr_count, "frr_count", func, low=0, high=frr_n, high_name="frr_n")
    confidence = check_confidence(confidence, func)
    n_boot = check_n_boot(n_boot, func)
    seed = check_seed(seed, func)

    observed = successes / trials
    far = far_count / far_n
    frr = frr_count / frr_n
    if far + frr >= 1.0:
        warn_undefined(
            f"rogan_gladen_interval: FAR + FRR = {far + frr:g} >= 1, the grader is no better than chance; "
            "the corrected rate is None"
        )
        return CorrectedRate(observed, None, None, False, None, None, ROGAN_GLADEN_METHOD)
    value, raw, clipped = rogan_gladen(observed, far, frr)

    import numpy as np

    rng = np.random.default_rng(seed)
    p_draws = rng.beta(successes + 0.5, trials - successes + 0.5, size=n_boot)
    far_draws = rng.beta(far_count + 0.5, far_n - far_count + 0.5, size=n_boot)
    frr_draws = rng.beta(frr_count + 0.5, frr_n - frr_count + 0.5, size=n_boot)
    denominator = 1.0 - far_draws - frr_draws
    valid = denominator > 0.0
    alpha = 1.0 - confidence
    if (n_boot - int(valid.sum())) > alpha / 2 * n_boot:
        warn_undefined(
            "rogan_gladen_interval: too many plausible (FAR, FRR) pairs sum to 1 or more for the correction "
            "to be bounded; the interval is None. Use larger calibration sets."
        )
        return CorrectedRate(observed, value, raw, clipped, None, None, ROGAN_GLADEN_METHOD)
    corrected = np.clip((p_draws[valid] - far_draws[valid]) / denominator[valid], 0.0, 1.0)
    low, high = np.quantile(corrected, [alpha / 2, 1.0 - alpha / 2])
    return CorrectedRate(observed, value, raw, clipped, float(low), float(high), ROGAN_GLADEN_METHOD)


@dataclass(frozen=True)
class ErrorRateCounts:
    """False accepts among known-bad calibration samples and false rejects among known-good ones."""

    far_count: int
    far_n: int
    frr_count: int
    frr_n: int

    @property
    def far(self) -> float:
        return self.far_count / self.far_n

    @property
    def frr(self) -> float:
        return self.frr_count / self.frr_n


def composite_error_rates(checks: Sequence[ErrorRateCounts]) -> ErrorRateCounts:
    """The error rates of a success rule that needs every check to pass, from each check's grader: an
    approximation. A truly bad trial usually fails one check and slips through when that check's grader
    falsely accepts, so the FAR is the largest check FAR (the first such check's counts: conservative). A
    truly good trial must be accepted by every grader: with independent errors the FRR is
    ``1 - prod(1 - FRR_i)``, given as a count over the smallest known-good set (``frr_n``)."""
    func = "composite_error_rates"
    if isinstance(checks, str | bytes) or not isinstance(checks, Sequence) or not checks:
        invalid("checks", func, "a non-empty sequence of ErrorRateCounts", None, got_text=repr(checks))
    for c in checks:
        if not isinstance(c, ErrorRateCounts) or c.far_n < 1 or c.frr_n < 1:
            invalid("checks", func, "ErrorRateCounts with far_n >= 1 and frr_n >= 1", c)
    worst = max(checks, key=lambda r: r.far)
    keep = 1.0
    for r in checks:
        keep *= 1.0 - r.frr
    frr_n = min(r.frr_n for r in checks)
    frr_count = min(frr_n, round((1.0 - keep) * frr_n))
    return ErrorRateCounts(worst.far_count, worst.far_n, frr_count, frr_n)
