"""The trust policy: one pure decision, from the evidence of a calibration and a set's ``[policy]``.

``calibrate`` uses it to write a report's ``trusted``; ``list`` and ``score`` use it to recompute that
decision from a report's own per-sample outcomes and the set's current policy, so a report is evidence, not
a claim (a hand-edited ``"trusted": true`` decides nothing).

The rule, for one grader on one set:

- the false-accept rate's decisive bound is within ``max_false_accept_rate`` and the false-reject rate's
  within ``max_false_reject_rate``: the decisive bound is the one-sided 95% Clopper-Pearson upper bound, or
  the cluster-bootstrap upper bound when samples carry ``group`` and it is the larger;
- the share of samples the grader erred on is within ``max_error_rate``;
- with ``min_coverage``: the one-sided 95% lower bound of the share of graded samples the grader decided
  (did not leave undecided) is at least ``min_coverage``;
- the set can support its own policy: it has at least as many known-bad (known-good) samples as the
  sample-size advice says the limit needs (with no error at all among them, the upper bound would be within
  the limit), and the limit bounds something: below :data:`LAX_LIMIT` (0.5), since a false-accept or
  false-reject limit of 0.5 or more is met by a grader that guesses. A set too small for its policy, or
  whose policy a coin flip meets, cannot grant trust, however the grader did.

Across sets (:func:`combine`): a grader is trusted for its check only when it is trusted on *every* set it
must answer to (every set of its check the project declares, or the sets named explicitly); one passing set
does not outweigh another that fails, is stale, or was never run.

No I/O and no clock: the same evidence and policy give the same decision everywhere.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from graderctl.errors import StatisticsError
from graderctl.models.base import Label
from graderctl.models.calset import Policy
from graderctl.models.reports import CoverageEstimate, PolicyCheck

if TYPE_CHECKING:
    from graderctl.stats import ClusteredRate

__all__ = [
    "COVERAGE",
    "ERROR_RATE",
    "FAR",
    "FRR",
    "LAX_LIMIT",
    "Evidence",
    "RateEvidence",
    "TrustDecision",
    "combine",
    "coverage_estimate",
    "decide",
    "evidence_from_outcomes",
    "needed_samples",
    "set_support",
]

#: A false-accept or false-reject limit at or above this is met by a grader that guesses (a coin flip
#: errs on half the samples of each label): a set whose policy has one grants no trust.
LAX_LIMIT = 0.5

FAR = "false_accept_rate"
FRR = "false_reject_rate"
ERROR_RATE = "error_rate"
COVERAGE = "coverage"

_T = TypeVar("_T")


def _quiet(fn: Callable[[], _T]) -> _T:
    """Call a statistic whose undefined result the decision states in its own words."""
    from graderctl.stats import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn()


@dataclass(frozen=True)
class RateEvidence:
    """One error rate's evidence: ``count`` errors of this kind among ``n`` graded samples of the label, out
    of ``n_samples`` samples of the label in the set (graded or not), and the cluster-bootstrap upper bound
    when samples are grouped."""

    count: int
    n: int
    n_samples: int
    clustered_upper_95: float | None = None

    def upper_bound(self) -> tuple[float | None, str]:
        """The decisive upper bound and its name (``upper_95`` or ``clustered.upper_95``)."""
        from graderctl.stats import rate_stats

        bound = _quiet(lambda: rate_stats(self.count, self.n)).upper_95
        if bound is not None and self.clustered_upper_95 is not None and self.clustered_upper_95 > bound:
            return self.clustered_upper_95, "clustered.upper_95"
        return bound, "upper_95"


@dataclass(frozen=True)
class Evidence:
    """What a calibration found: the two error rates (over the decided samples), the samples the grader
    could not grade (``errors``) and those it left undecided (an abstention band)."""

    false_accepts: RateEvidence
    false_rejects: RateEvidence
    errors: int
    n_samples: int
    undecided: int = 0


@dataclass(frozen=True)
class TrustDecision:
    trusted: bool
    #: One comparison per limit: false accept, false reject, error rate.
    checks: list[PolicyCheck]
    #: Whether the set can support its policy at all (the report's ``set_supports_policy``).
    supports: dict[str, Any]
    #: Why the grader is not trusted (empty when it is).
    reasons: list[str] = field(default_factory=list)


# --- evidence -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutcomeEvidence:
    """:func:`evidence_from_outcomes`: the evidence, and the cluster bootstraps it used (for the report)."""

    evidence: Evidence
    far_clustered: ClusteredRate | None
    frr_clustered: ClusteredRate | None


class Outcome(Protocol):
    """What the evidence reads of one per-sample outcome: a report's ``SampleOutcome``, or the light record
    ``list`` reads it as (``graderctl.store.report_outcomes.Outcome``)."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> Label: ...
    @property
    def accepted(self) -> bool | None: ...
    @property
    def group(self) -> str | None: ...
    @property
    def undecided(self) -> bool | None: ...


def evidence_from_outcomes(outcomes: Sequence[Outcome]) -> OutcomeEvidence:
    """The evidence of per-sample outcomes (a report's ``samples``): an outcome with ``accepted`` ``None``
    is an error or, with ``undecided``, an abstention; both are counted apart from the rates. When any
    sample carries a ``group`` the cluster bootstrap runs over the graded samples of each label (the same
    computation ``calibrate`` reports)."""
    from graderctl.stats import cluster_bootstrap_rate, error_counts

    bad = [o for o in outcomes if o.label == Label.bad]
    good = [o for o in outcomes if o.label == Label.good]
    bad_graded = [o for o in bad if o.accepted is not None]
    good_graded = [o for o in good if o.accepted is not None]
    grouped = any(o.group is not None for o in outcomes)

    def clustered(events: list[bool], graded: list[Outcome]) -> ClusteredRate | None:
        if not grouped or not events:
            return None
        groups = [o.group for o in graded]
        return _quiet(lambda: cluster_bootstrap_rate(events, groups))

    far_events = [bool(o.accepted) for o in bad_graded]
    frr_events = [not o.accepted for o in good_graded]
    far_c = clustered(far_events, bad_graded)
    frr_c = clustered(frr_events, good_graded)
    labelled = bad + good
    counts = error_counts([o.label == Label.good for o in labelled], [o.accepted for o in labelled])
    evidence = Evidence(
        false_accepts=RateEvidence(
            counts.false_accepts, counts.n_bad, len(bad), None if far_c is None else far_c.upper_95
        ),
        false_rejects=RateEvidence(
            counts.false_rejects, counts.n_good, len(good), None if frr_c is None else frr_c.upper_95
        ),
        errors=sum(1 for o in outcomes if o.accepted is None and not o.undecided),
        n_samples=len(outcomes),
        undecided=sum(1 for o in outcomes if o.undecided),
    )
    return OutcomeEvidence(evidence, far_c, frr_c)


# --- the decision -------------------------------------------------------------------------------------


def coverage_estimate(decided: int, n: int) -> CoverageEstimate:
    """The share decided with its two-sided 95% Wilson interval and one-sided 95% lower bound (the
    complement of the Clopper-Pearson upper bound of the undecided share); ``None`` values when ``n`` is 0."""
    from graderctl.stats import rate_stats

    undecided = _quiet(lambda: rate_stats(n - decided, n))
    if not n:
        return CoverageEstimate(value=None, decided=0, n=0, ci_low=None, ci_high=None, lower_95=None)
    return CoverageEstimate(
        value=decided / n,
        decided=decided,
        n=n,
        ci_low=None if undecided.ci_high is None else 1.0 - undecided.ci_high,
        ci_high=None if undecided.ci_low is None else 1.0 - undecided.ci_low,
        lower_95=None if undecided.upper_95 is None else 1.0 - undecided.upper_95,
    )


def _coverage_check(coverage: CoverageEstimate, limit: float) -> PolicyCheck:
    observed = coverage.lower_95
    if observed is None:
        return PolicyCheck(
            name=COVERAGE,
            bound="lower_95",
            observed=None,
            limit=limit,
            passed=False,
            message=f"coverage is undefined (no sample graded): it cannot be shown to be at least {limit:g}",
        )
    if observed >= limit:
        return PolicyCheck(
            name=COVERAGE,
            bound="lower_95",
            observed=observed,
            limit=limit,
            passed=True,
            message=f"coverage: lower 95% bound {observed:.4f} >= minimum {limit:g}",
        )
    return PolicyCheck(
        name=COVERAGE,
        bound="lower_95",
        observed=observed,
        limit=limit,
        passed=False,
        excess=limit - observed,
        message=(
            f"coverage: lower 95% bound {observed:.4f} < minimum {limit:g} "
            f"(short by {limit - observed:.4f}); "
            "the grader abstains too often: narrow its band"
        ),
    )


def _needed(target: float, x: int) -> int | None:
    from graderctl.stats import samples_needed

    try:
        return int(samples_needed(target, x))
    except StatisticsError:
        return None  # a target of 0 can never be shown; one of 1 needs no sample


def _policy_check(name: str, bound: str, observed: float | None, limit: float, what: str) -> PolicyCheck:
    if observed is None:
        return PolicyCheck(
            name=name,
            bound=bound,
            observed=None,
            limit=limit,
            passed=False,
            message=f"{what} is undefined, so it cannot be shown to be within {limit:g}",
        )
    passed = observed <= limit
    shown = "upper 95% bound" if bound != "value" else "rate"
    if bound == "clustered.upper_95":
        shown = "clustered upper 95% bound"
    if passed:
        return PolicyCheck(
            name=name,
            bound=bound,
            observed=observed,
            limit=limit,
            passed=True,
            message=f"{what}: {shown} {observed:.4f} <= limit {limit:g}",
        )
    excess = observed - limit
    return PolicyCheck(
        name=name,
        bound=bound,
        observed=observed,
        limit=limit,
        passed=False,
        excess=excess,
        message=f"{what}: {shown} {observed:.4f} > limit {limit:g} (over by {excess:.4f})",
    )


def needed_samples(target: float, x: int) -> int | None:
    """How many samples a bound of ``target`` needs with ``x`` errors (``None``: none suffices)."""
    from graderctl.stats import samples_needed

    try:
        return int(samples_needed(target, x))
    except StatisticsError:
        return None  # a target of 0 can never be shown; one of 1 needs no sample


def set_support(n: int, limit: float, what: str, noun: str) -> dict[str, Any]:
    """Could a set with ``n`` samples of a label support ``limit`` at all? It can when the sample-size advice
    is met (``n`` is at least :func:`needed_samples` ``(limit, 0)``: with zero errors among them the upper
    bound would be within the limit) and the limit bounds something: a limit of :data:`LAX_LIMIT` (0.5) or
    more is met by a grader that guesses, and one of 1 accepts any rate, so neither supports trust."""
    from graderctl.stats import clopper_pearson_upper

    best = _quiet(lambda: clopper_pearson_upper(0, n)) if n else None
    needed = needed_samples(limit, 0)
    vacuous = limit >= 1
    lax = limit >= LAX_LIMIT
    big_enough = best is not None and needed is not None and n >= needed and best <= limit
    supported = big_enough and not lax
    entry: dict[str, Any] = {
        "n": n,
        "limit": limit,
        "best_possible_upper_95": best,
        "supported": supported,
        "samples_needed": needed,
    }
    if vacuous:
        entry["message"] = (
            f"max_{what} = {limit:g} accepts any rate, so this set cannot show the grader is trustworthy: "
            "set a limit below 1 in the set's [policy]"
        )
    elif lax:
        entry["message"] = (
            f"max_{what} = {limit:g} is {LAX_LIMIT:g} or more: a grader no better than a coin flip would "
            f"meet it, so this set cannot show the grader is trustworthy: set a limit below {LAX_LIMIT:g} in "
            f"the set's [policy] (and give the set enough {noun} samples: `graderctl calibrate` reports how "
            "many)"
        )
    elif not supported:
        shown = "undefined" if best is None else f"{best:.4f}"
        advice = (
            f"{needed} {noun} samples are needed"
            if needed is not None
            else "no finite number of samples suffices"
        )
        entry["message"] = (
            f"the set is too small to support max_{what} = {limit:g}: even with no errors in its {n} {noun} "
            f"samples the upper 95% bound is {shown}; {advice}"
        )
    return entry


def decide(evidence: Evidence, policy: Policy) -> TrustDecision:
    """Whether the evidence meets the policy (see the module's docstring), with every comparison and the
    reasons when it does not."""
    far_bound, far_name = evidence.false_accepts.upper_bound()
    frr_bound, frr_name = evidence.false_rejects.upper_bound()
    error_rate = evidence.errors / evidence.n_samples if evidence.n_samples else None
    checks = [
        _policy_check(FAR, far_name, far_bound, policy.max_false_accept_rate, "false accept rate"),
        _policy_check(FRR, frr_name, frr_bound, policy.max_false_reject_rate, "false reject rate"),
        _policy_check(ERROR_RATE, "value", error_rate, policy.max_error_rate, "error rate"),
    ]
    if policy.min_coverage is not None:
        graded = evidence.n_samples - evidence.errors
        coverage = coverage_estimate(graded - evidence.undecided, graded)
        checks.append(_coverage_check(coverage, policy.min_coverage))
    far_support = set_support(
        evidence.false_accepts.n_samples, policy.max_false_accept_rate, FAR, "known-bad"
    )
    frr_support = set_support(
        evidence.false_rejects.n_samples, policy.max_false_reject_rate, FRR, "known-good"
    )
    supports = {
        "supported": far_support["supported"] and frr_support["supported"],
        FAR: far_support,
        FRR: frr_support,
    }
    reasons = [c.message for c in checks if not c.passed]
    reasons += [e["message"] for e in (far_support, frr_support) if not e["supported"]]
    trusted = all(c.passed for c in checks) and bool(supports["supported"])
    return TrustDecision(trusted=trusted, checks=checks, supports=supports, reasons=reasons)


def combine(per_set: Sequence[tuple[str, bool]]) -> tuple[bool, list[str]]:
    """Trust for a check from the decisions on the sets the grader must answer to, ``(set name, trusted)``:
    trusted only when there is at least one set and it is trusted on every one. Returns the decision and
    the sets that withhold trust."""
    withheld = [name for name, trusted in per_set if not trusted]
    return bool(per_set) and not withheld, withheld
