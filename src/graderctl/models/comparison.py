"""The comparison report of ``graderctl compare OLD NEW`` (CONTRACT.md §6): does NEW keep scores comparable?

Written to ``reports/comparisons/<old_ref>--<new_ref>.json`` beside its Markdown rendering.
``graderctl metrics`` reads ``type``, ``comparable`` and the two ``fingerprint`` fields to decide whether
results graded by the two versions may be combined; everything else is for people and review.

Conventions: ``b`` counts pairs OLD accepts (or passes) and NEW rejects, ``c`` the reverse; every difference
is ``NEW - OLD``. Undefined numbers are ``null`` (with a line in ``warnings``), never NaN or 0.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models.base import Label, OpenModel
from graderctl.models.reports import EnvironmentInfo, Number

#: How a stratum's verdict was reached.
DecidedBy = Literal["identical_definition", "interval"]


class ComparedGrader(OpenModel):
    """One side of the comparison."""

    ref: str
    name: str
    version: int
    kind: str
    fingerprint: str
    #: Over the definition without name, version, description and compare_margin, plus referenced files and
    #: the kind's implementation version: equal for two versions that grade identically by construction.
    behaviour_fingerprint: str | None = None
    check: str | None = None
    params: dict[str, Any] | None = None
    judge: dict[str, Any] | None = None
    compare_margin: float | None = None
    path: str | None = None


class SideOutcome(OpenModel):
    """What one version said about a sample (``accepted`` is ``None`` when it erred)."""

    accepted: bool | None
    reason: str = ""
    error: str | None = None


class FlippedSample(OpenModel):
    """A sample the two versions decided differently."""

    id: str
    label: Label
    category: str | None = None
    group: str | None = None
    old: SideOutcome
    new: SideOutcome


class PairedTable(OpenModel):
    """The 2x2 table of paired outcomes (errors on either side excluded)."""

    both_accept: int = Field(ge=0)
    old_accept_new_reject: int = Field(ge=0)
    old_reject_new_accept: int = Field(ge=0)
    both_reject: int = Field(ge=0)


class ErrorCounts(OpenModel):
    """Samples (or trials) a version erred on; a pair with an error on either side is left out."""

    old: int = Field(ge=0)
    new: int = Field(ge=0)
    #: Pairs excluded because either side erred.
    excluded: int = Field(ge=0)


class RateChange(OpenModel):
    """The change of an error rate (false accept on known-bad, false reject on known-good), NEW - OLD."""

    name: Literal["false_accept_rate", "false_reject_rate"]
    old: float | None
    new: float | None
    change: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float


class ClusteredDifference(OpenModel):
    """The cluster-bootstrap interval of a stratum's difference in accept rate, over sample groups."""

    diff: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    n_groups: int | None = None
    method: str | None = None
    n_boot: int | None = None
    seed: int | None = None


class StratumComparison(OpenModel):
    """Known-good or known-bad samples of one set, graded by both versions."""

    label: Label
    n_samples: int = Field(ge=0)
    #: Pairs compared (samples neither version erred on).
    n: int = Field(ge=0)
    errors: ErrorCounts
    old_accept_rate: float | None
    new_accept_rate: float | None
    table: PairedTable
    b: int = Field(ge=0)
    c: int = Field(ge=0)
    #: Exact two-sided McNemar p-value on the discordant pairs (1 when there are none).
    mcnemar_p: float | None
    #: Difference in accept rate, NEW - OLD, with its interval (Tango's score interval).
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    method: str
    #: When samples carry ``group``: the cluster-bootstrap interval over groups; the decision then uses the
    #: hull of both intervals.
    clustered: ClusteredDifference | None = None
    #: The interval compared with the margin: Tango's, or its hull with ``clustered`` (samples with groups).
    decision_ci_low: float | None = None
    decision_ci_high: float | None = None
    #: Whether the decisive interval lies within +-margin.
    within_margin: bool
    kappa: float | None
    #: Share of pairs on which the versions agree.
    agreement: float | None
    false_accept_rate: RateChange | None = None
    false_reject_rate: RateChange | None = None
    #: Smallest n whose interval with zero flips fits the margin, and whether this stratum has it.
    min_n_for_margin: int | None = None
    supports_margin: bool
    comparable: bool
    decided_by: DecidedBy
    message: str = ""
    flipped: list[FlippedSample] = Field(default_factory=list)


class OverallAgreement(OpenModel):
    """Agreement of the two versions over both strata of a set (pairs neither version erred on)."""

    n: int = 0
    agreement: Number | None = None
    kappa: Number | None = None


class SetComparison(OpenModel):
    name: str
    version: int
    fingerprint: str
    path: str | None = None
    n_samples: int = Field(ge=0)
    max_error_rate: float | None = None
    #: Error rate of each version over the whole set, and whether it is over the set's ``max_error_rate``.
    error_rate: dict[str, float | None] = Field(default_factory=dict)
    error_rate_exceeded: bool = False
    #: Share of samples each version left undecided (abstained), when either did; absent otherwise.
    undecided_rate: dict[str, float | None] | None = Field(default=None, exclude_if=lambda v: v is None)
    #: Agreement over both strata together: ``{"n", "agreement", "kappa"}``.
    overall: OverallAgreement = Field(default_factory=OverallAgreement)
    strata: dict[str, StratumComparison]


class TrialSide(OpenModel):
    """What one version's grading of a trial's check gave: passed (``None``: undecided or erred) and why."""

    passed: bool | None = None
    reasons: list[str] = Field(default_factory=list)


class FlippedTrial(OpenModel):
    task_id: str
    trial_id: str
    old: TrialSide
    new: TrialSide


class SuccessChange(OpenModel):
    """Trial success under both versions (OLD as recorded, NEW recomputed with the results' rule)."""

    #: Trials whose success both versions decided.
    n: int = 0
    old_rate: Number | None = None
    new_rate: Number | None = None
    #: Trials whose success changed.
    changed: int = 0
    #: ``task``: each task weighs the same, whatever its number of trials.
    weighting: str = "task"


class ReplayComparison(OpenModel):
    """Frozen graded trials (graded by OLD) re-graded by NEW."""

    results: str
    trials: str | None = None
    check: str
    #: What is compared per trial: the check's ``passed`` or, when the results carry no checks, ``success``.
    outcome: Literal["check", "success"]
    n_trials: int = Field(ge=0)
    n_tasks: int = Field(ge=0)
    n: int = Field(ge=0)
    errors: ErrorCounts
    old_pass_rate: float | None
    new_pass_rate: float | None
    table: PairedTable
    b: int = Field(ge=0)
    c: int = Field(ge=0)
    mcnemar_p: float | None
    agreement: float | None
    kappa: float | None
    #: Paired difference in pass rate, NEW - OLD, with a cluster-bootstrap interval over tasks.
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    method: str
    n_boot: int | None = None
    seed: int | None = None
    within_margin: bool
    comparable: bool
    decided_by: DecidedBy
    message: str = ""
    #: Whether NEW erred on more trials than the compared sets' smallest ``max_error_rate`` allows.
    error_rate_exceeded: bool = False
    #: Success under both versions (OLD as recorded, NEW recomputed with the results' rule).
    success: SuccessChange | None = None
    ks: list[int] = Field(default_factory=list)
    #: ``{"old": {"1": 0.5, ...}, "new": {...}}`` over the trials graded by both versions.
    pass_at_k: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    pass_hat_k: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    flipped: list[FlippedTrial] = Field(default_factory=list)


class FailedStratum(OpenModel):
    """A stratum that did not show equivalence, and the samples that drove it."""

    set: str | None
    #: ``decided``: the versions' shares of undecided samples differ by more than the margin.
    stratum: Literal["good", "bad", "replay", "decided"]
    reason: str
    samples: list[str] = Field(default_factory=list)


class ComparisonReport(OpenModel):
    schema_version: Literal[1] = 1
    type: Literal["comparison"] = "comparison"
    comparable: bool
    #: ``comparable``, ``not_comparable`` or ``error_rate_exceeded`` (a version erred too often: exit 4).
    status: Literal["comparable", "not_comparable", "error_rate_exceeded"]
    margin: float
    #: ``command line``, ``<grader path> compare_margin`` or ``default``.
    margin_source: str
    confidence: float
    old: ComparedGrader
    new: ComparedGrader
    check: str
    identical_definition: bool
    sets: list[SetComparison]
    replay: ReplayComparison | None = None
    failed_strata: list[FailedStratum] = Field(default_factory=list)
    graderctl_version: str | None = None
    created_at: str | None = None
    environment: EnvironmentInfo | None = None
    warnings: list[str] = Field(default_factory=list)
