"""Persisted report documents (CONTRACT.md §6). Every document starts with ``schema_version``."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from graderctl.models.base import Label, OpenModel
from graderctl.models.calset import Policy
from graderctl.models.repeats import RepeatsSection


def _unset(value: Any) -> bool:
    """Optional extensions are left out of a document when unset, so older documents stay byte-identical."""
    return value is None


#: A number kept as it was computed: an integer stays an integer in the document (``float`` would print
#: ``0`` as ``0.0``).
Number = int | float


class ClusteredEstimate(OpenModel):
    """A rate's cluster-bootstrap interval over groups of samples (``graderctl.stats.ClusteredRate``)."""

    value: Number | None = None
    n: int = 0
    ci_low: Number | None = None
    ci_high: Number | None = None
    #: One-sided 95% upper bound (the 95th percentile of the bootstrap).
    upper_95: Number | None = None
    #: How much the grouping inflates the variance over independent samples (``None`` when undefined).
    design_effect: Number | None = None
    n_groups: int | None = None
    n_boot: int | None = None
    seed: int | None = None
    method: str | None = None


class SampleUsage(OpenModel):
    """Tokens and money one verdict cost (model judges; a cached verdict costs 0)."""

    input_tokens: int = 0
    output_tokens: int = 0
    usd: Number = 0.0
    requests: int = 0
    #: Retries among ``requests`` (absent when none).
    retries: int | None = Field(default=None, exclude_if=_unset)
    cached: bool = False


class UsageTotals(OpenModel):
    """Tokens and money over every verdict of a calibration (with ``--repeats``, every repeat)."""

    input_tokens: int = 0
    output_tokens: int = 0
    usd: Number = 0.0
    requests: int = 0
    retries: int = 0
    #: Verdicts read from the verdict cache.
    cached: int = 0
    #: Verdicts that reported usage.
    samples: int = 0


class EnvironmentInfo(OpenModel):
    """Where a report was computed: Python, platform and the versions of the packages that matter."""

    python: str | None = None
    implementation: str | None = None
    platform: str | None = None
    graderctl: str | None = None
    #: Package -> installed version (``None`` when not installed).
    packages: dict[str, str | None] = Field(default_factory=dict)


class LabellerAgreement(OpenModel):
    """Agreement between the labellers of samples that carry ``labels``."""

    #: ``cohen_kappa`` (two labellers), ``krippendorff_alpha_nominal`` (more) or ``none``.
    method: str
    #: ``None`` when undefined (too few jointly labelled samples, or no variation).
    value: Number | None = None
    labellers: list[str] = Field(default_factory=list)
    n_units: int = 0
    n_contested: int = 0
    #: Samples whose labellers disagree with each other or with the set's label.
    contested: list[str] = Field(default_factory=list)


class SampleSizeAdvice(OpenModel):
    """With ``count`` errors in ``n`` samples of a label: the best bound the set supports, and how many
    samples the policy's bound needs (if no further errors occur)."""

    count: int
    n: int
    best_upper_95: Number | None = None
    target: Number
    samples_needed_at_this_count: int | None = None
    additional_samples_needed: int | None = None
    #: Errors (``"0"``, ``"1"``, ``"2"``) -> samples needed with that many errors.
    samples_needed_by_count: dict[str, int | None] = Field(default_factory=dict)
    observed_rate_exceeds_target: bool = False
    #: Present when more samples will not help (the observed rate already reaches the target).
    note: str | None = Field(default=None, exclude_if=_unset)


class SetSupport(OpenModel):
    """Could the set's samples of one label support the policy's limit at all (with zero errors)?"""

    n: int
    limit: Number
    best_possible_upper_95: Number | None = None
    supported: bool
    samples_needed: int | None = None
    #: Why not (absent when supported).
    message: str | None = Field(default=None, exclude_if=_unset)


class SetSupportsPolicy(OpenModel):
    """Whether the set can support its policy at all: both rates' limits (``supported``: both)."""

    supported: bool
    false_accept_rate: SetSupport | None = None
    false_reject_rate: SetSupport | None = None


class AdjustedBounds(OpenModel):
    """Bonferroni-adjusted upper bounds over the ``k`` versions a certify split has judged."""

    confidence: Number
    false_accept_rate: Number | None = None
    false_reject_rate: Number | None = None


class LedgerSummary(OpenModel):
    """On a certify split: the looks the set's ledger records at this split, and the versions judged."""

    looks: int
    looks_by_this_grader: int
    versions: list[str] = Field(default_factory=list)
    distinct_fingerprints: int
    #: From three distinct versions on: how optimistic the best of them can be.
    adjusted_upper_95: AdjustedBounds | None = Field(default=None, exclude_if=_unset)


class GraderInfo(OpenModel):
    name: str
    version: int
    kind: str
    fingerprint: str
    check: str | None = None
    params: dict[str, Any] | None = None
    judge: dict[str, Any] | None = None
    #: ``True`` when ``name@version`` was released (in ``graders/graders.lock`` with this fingerprint) when it
    #: was calibrated; a project whose reports say so and whose lock is missing is refused (exit 3).
    released: bool | None = Field(default=None, exclude_if=_unset)


class RateEstimate(OpenModel):
    """An error rate with its intervals. ``value`` and the bounds are ``None`` when ``n`` is 0."""

    value: float | None
    count: int = Field(ge=0)
    n: int = Field(ge=0)
    ci_low: float | None
    ci_high: float | None
    upper_95: float | None
    #: Interval that respects ``group`` (cluster bootstrap), when samples carry groups.
    clustered: ClusteredEstimate | None = None


class SetInfo(OpenModel):
    name: str
    version: int
    fingerprint: str
    n_good: int
    n_bad: int
    path: str | None = None
    #: ``calibrate --split``: which split of the set the report covers, and that split's fingerprint.
    split: str | None = Field(default=None, exclude_if=_unset)
    split_fingerprint: str | None = Field(default=None, exclude_if=_unset)


class SampleOutcome(OpenModel):
    id: str
    label: Label
    #: ``None`` when the grader erred on the sample: counted apart, never an accept or a reject.
    accepted: bool | None
    error: str | None = None
    reason: str = ""
    score: float | None = None
    category: str | None = None
    group: str | None = None
    generator: str | None = None
    correct: bool | None = None
    #: True when the grader abstained (``accepted`` and ``error`` are then ``None``); absent otherwise.
    undecided: bool | None = Field(default=None, exclude_if=_unset)
    #: What the kind said beyond the verdict (free-form, JSON-safe); absent when nothing.
    details: dict[str, Any] | None = Field(default=None, exclude_if=_unset)
    #: Tokens and money of this verdict (model judges); absent for kinds that report none.
    usage: SampleUsage | None = Field(default=None, exclude_if=_unset)


class CategoryCounts(OpenModel):
    """The outcomes of the samples of one category (or generator) of a set."""

    #: Written only when given (a report that lacks them stays without them).
    RECORDED: ClassVar[tuple[str, ...]] = ("n_good", "n_bad", "false_accepts", "false_rejects", "rate")
    n: int
    accepted: int
    rejected: int
    errors: int = 0
    #: Samples the grader left undecided (absent when none).
    undecided: int | None = Field(default=None, exclude_if=_unset)
    #: Known-good and known-bad samples in the row.
    n_good: int | None = None
    n_bad: int | None = None
    #: Known-bad samples accepted, known-good samples rejected.
    false_accepts: int | None = None
    false_rejects: int | None = None
    #: Misclassified over graded (accepted + rejected); ``null`` when none was graded.
    rate: float | None = None

    @model_serializer(mode="wrap")
    def _leave_out_unrecorded(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in self.RECORDED:
                if name not in self.model_fields_set:
                    data.pop(name, None)
        return data


class CoverageEstimate(OpenModel):
    """The share of graded samples the grader decided (accepted or rejected) rather than left undecided."""

    value: float | None
    decided: int = Field(ge=0)
    #: Samples graded without error (decided + undecided).
    n: int = Field(ge=0)
    ci_low: float | None
    ci_high: float | None
    #: One-sided 95% Clopper-Pearson lower bound (what ``min_coverage`` is compared with).
    lower_95: float | None
    interval: str = "wilson"


class CascadeMemberStats(OpenModel):
    """What one member of a cascade did over a calibration set (from the samples' ``details.cascade``)."""

    ref: str
    #: Samples this member graded (those the members before it left undecided).
    graded: int
    #: Samples whose final verdict this member gave (accepted + rejected).
    decided: int
    accepted: int
    rejected: int
    undecided: int
    errors: int
    #: ``decided`` over all samples of the set (``None`` for an empty set).
    share_of_samples: float | None
    #: Samples the member never saw because an earlier member decided them (calls saved for a judge).
    skipped: int
    requests: int = 0
    usd: float = 0.0


class CascadeSummary(OpenModel):
    """Per-member share of decisions, errors and cost of a ``cascade`` grader's calibration."""

    mode: str
    members: list[CascadeMemberStats]
    #: Samples no member decided (left for review).
    undecided: int
    #: Calls the later members did not make because an earlier member decided (sum of their ``skipped``).
    calls_saved: int
    #: Mean money spent per sample over the whole cascade (``None`` when no member reports cost).
    usd_per_sample: float | None = None


class PolicyCheck(OpenModel):
    """One comparison of the trust decision: an observed bound against the policy's limit."""

    #: ``false_accept_rate``, ``false_reject_rate`` or ``error_rate``.
    name: str
    #: Which statistic was compared (``upper_95``, ``clustered.upper_95`` or ``value``).
    bound: str
    observed: float | None
    limit: float
    passed: bool
    #: How far the observed bound is over the limit (``None`` when it passed or is undefined).
    excess: float | None = None
    message: str = ""


class CalibrationReport(OpenModel):
    schema_version: Literal[1] = 1
    type: Literal["calibration"] = "calibration"
    graderctl_version: str | None = None
    created_at: str | None = None
    environment: EnvironmentInfo | None = None
    grader: GraderInfo
    calibration_set: SetInfo
    false_accept_rate: RateEstimate
    false_reject_rate: RateEstimate
    errors: int
    error_rate: float | None = None
    trusted: bool
    policy: Policy
    by_category: dict[str, CategoryCounts] = Field(default_factory=dict)
    # Optional extensions of CONTRACT.md §6 (written by `graderctl calibrate`):
    n_graded: int | None = None
    policy_checks: list[PolicyCheck] = Field(default_factory=list)
    set_supports_policy: SetSupportsPolicy | None = None
    #: Per rate (``false_accept_rate``, ``false_reject_rate``).
    sample_size_advice: dict[str, SampleSizeAdvice] | None = None
    by_generator: dict[str, CategoryCounts] = Field(default_factory=dict)
    agreement: LabellerAgreement | None = None
    warnings: list[str] = Field(default_factory=list)
    usage: UsageTotals | None = None
    #: ``calibrate --repeats R``: self-consistency and per-repeat rates (graderctl.services.repeats).
    repeats: RepeatsSection | None = None
    #: Abstention (optional; present when the grader can abstain, did, or the policy asks for coverage):
    #: samples left undecided, and the share decided. The rates above are over decided samples only.
    undecided: int | None = Field(default=None, exclude_if=_unset)
    coverage: CoverageEstimate | None = Field(default=None, exclude_if=_unset)
    #: ``calibrate --split tune|certify``: the samples of that split only (absent: the whole set).
    split: str | None = Field(default=None, exclude_if=_unset)
    #: On a certify split: how many looks the set's ledger records at this split (and versions judged).
    ledger: LedgerSummary | None = Field(default=None, exclude_if=_unset)
    #: A ``cascade`` grader: what each member decided, erred on and cost, and the calls saved.
    cascade: CascadeSummary | None = Field(default=None, exclude_if=_unset)
    samples: list[SampleOutcome]


class BatchFailure(OpenModel):
    """A (grader, set) pair of a batch whose grader could not run (exit 4)."""

    grader: str
    set: str
    error: str


class CalibrationBatch(OpenModel):
    """``graderctl calibrate --format json`` over several sets (or ``--all``): one report per pair run, and
    the pairs whose grader could not run."""

    schema_version: Literal[1] = 1
    type: Literal["calibration_batch"] = "calibration_batch"
    reports: list[CalibrationReport]
    failures: list[BatchFailure] = Field(default_factory=list)


class ReportCheck(OpenModel):
    """``calibrate --check``: whether the shipped report of one grader on one set is current."""

    grader: str
    set: str
    #: ``stale`` when missing, unreadable, or re-running gives other outcomes or another decision;
    #: ``could_not_run`` when the grader could not be re-run to compare (exit 4).
    state: Literal["current", "stale", "could_not_run"]
    #: The report's path relative to the project root (``None`` when there is none).
    report: str | None = None
    detail: str

    @property
    def current(self) -> bool:
        return self.state == "current"

    @property
    def could_run(self) -> bool:
        return self.state != "could_not_run"


class CalibrationCheck(OpenModel):
    """The document ``graderctl calibrate --check --format json`` prints."""

    schema_version: Literal[1] = 1
    type: Literal["calibration_check"] = "calibration_check"
    #: Every report checked is current.
    current: bool
    reports: list[ReportCheck]
