"""Persisted report documents (CONTRACT.md §6). Every document starts with ``schema_version``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models.base import Label, OpenModel
from graderctl.models.calset import Policy
from graderctl.models.repeats import RepeatsSection


def _unset(value: Any) -> bool:
    """Optional extensions are left out of a document when unset, so older documents stay byte-identical."""
    return value is None


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
    clustered: dict[str, Any] | None = None


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


class CategoryCounts(OpenModel):
    n: int
    accepted: int
    rejected: int
    errors: int = 0
    #: Samples the grader left undecided (absent when none).
    undecided: int | None = Field(default=None, exclude_if=_unset)


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
    environment: dict[str, Any] | None = None
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
    set_supports_policy: dict[str, Any] | None = None
    sample_size_advice: dict[str, Any] | None = None
    by_generator: dict[str, CategoryCounts] = Field(default_factory=dict)
    agreement: dict[str, Any] | None = None
    warnings: list[str] = Field(default_factory=list)
    usage: dict[str, Any] | None = None
    #: ``calibrate --repeats R``: self-consistency and per-repeat rates (graderctl.services.repeats).
    repeats: RepeatsSection | None = None
    #: Abstention (optional; present when the grader can abstain, did, or the policy asks for coverage):
    #: samples left undecided, and the share decided. The rates above are over decided samples only.
    undecided: int | None = Field(default=None, exclude_if=_unset)
    coverage: CoverageEstimate | None = Field(default=None, exclude_if=_unset)
    #: ``calibrate --split tune|certify``: the samples of that split only (absent: the whole set).
    split: str | None = Field(default=None, exclude_if=_unset)
    #: On a certify split: how many looks the set's ledger records at this split (and versions judged).
    ledger: dict[str, Any] | None = Field(default=None, exclude_if=_unset)
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
