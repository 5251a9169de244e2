"""The document ``graderctl metrics --format json`` prints (CONTRACT.md §6): pass@k, pass^k, success rates,
breakdowns, cost and the correction for grader error, computed from a results file.

Field order is the order of the printed document. Numbers that may be whole or fractional (totals, medians,
interval ends) are :data:`Number`, so a whole number stays ``3`` and a fraction ``0.5``; undefined numbers are
``null`` (with a warning in ``warnings``), never 0 or NaN.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models._written import Number
from graderctl.models._written import WrittenModel as MetricsModel


def _unset(value: Any) -> bool:
    return value is None


class ResultsFile(MetricsModel):
    path: str
    lines: int = Field(ge=0)


class NullTrials(MetricsModel):
    """Trials with ``success: null`` (could not be graded): counted apart, never failures."""

    count: int = Field(ge=0)
    tasks_without_graded_trials: int = Field(ge=0)
    #: The most frequent reasons (at most 20), most frequent first.
    by_reason: dict[str, int]
    note: str


class TrialsPerTask(MetricsModel):
    min: int
    median: Number
    max: int
    counts: str


class Interval(MetricsModel):
    low: Number
    high: Number


class TaskWeightedRate(MetricsModel):
    label: str
    value: Number
    #: The exact fraction (equal weights only).
    exact: str | None
    ci_low: Number | None
    ci_high: Number | None


class TrialWeightedRate(MetricsModel):
    label: str
    value: Number
    successes: int
    trials: int
    ci_low: Number | None
    ci_high: Number | None
    method: str


class SuccessRates(MetricsModel):
    task_weighted: TaskWeightedRate
    trial_weighted: TrialWeightedRate


class Weighting(MetricsModel):
    kind: Literal["equal", "declared"]
    #: The weights file and its digest (declared weights only).
    file: str | None = Field(default=None, exclude_if=_unset)
    sha256: str | None = Field(default=None, exclude_if=_unset)
    description: str


class IntervalSettings(MetricsModel):
    confidence: Number
    method: str
    n_boot: int
    seed: int


class CategoryMetrics(MetricsModel):
    tasks: int
    trials: int
    successes: int
    failures: int
    null: int
    success_rate_task_weighted: Number | None
    success_rate_trial_weighted: Number | None
    ci: Interval | None


class GraderUse(MetricsModel):
    """A grader (by fingerprint) that graded a check, and on how many trials."""

    grader: str | None
    fingerprint: str | None
    trials: int


class CheckFailures(MetricsModel):
    failed: int
    passed: int
    null: int
    graders: list[GraderUse]


class StopReasonCounts(MetricsModel):
    trials: int
    successes: int
    failures: int
    null: int


class Citations(MetricsModel):
    trials: int
    cited_claims: int
    uncited_claims: int
    citation_coverage: Number | None
    trials_without_citations: int
    definition: str


class CostSummary(MetricsModel):
    over: str
    trials_with_cost: dict[str, int]
    input_tokens: Number | None
    output_tokens: Number | None
    tokens: Number | None
    tool_calls: Number | None
    usd: Number | None
    wall_seconds: Number | None
    successes: int
    cost_per_success: dict[str, Number | None]
    failed_share_usd: Number | None
    ungraded_share_usd: Number | None


class RateCount(MetricsModel):
    value: Number
    count: int
    n: int


class CheckErrorRates(MetricsModel):
    far: RateCount
    frr: RateCount
    reports: list[str]


class CorrectionNotApplied(MetricsModel):
    """Why the success rate was not corrected for grader error; the error rates found, if any."""

    applied: Literal[False] = False
    why: str
    # The error rates found (present when calibration reports were found):
    approach: str | None = Field(default=None, exclude_if=_unset)
    approximation: bool | None = Field(default=None, exclude_if=_unset)
    caveat: str | None = Field(default=None, exclude_if=_unset)
    far: RateCount | None = Field(default=None, exclude_if=_unset)
    frr: RateCount | None = Field(default=None, exclude_if=_unset)
    by_check: dict[str, CheckErrorRates] | None = Field(default=None, exclude_if=_unset)


class CorrectionApplied(MetricsModel):
    """The success rate corrected for grader error (Rogan-Gladen) with its interval, and the rates used."""

    applied: Literal[True] = True
    observed: Number
    value: Number | None
    raw: Number | None
    clipped: bool
    ci_low: Number | None
    ci_high: Number | None
    method: str
    approach: str
    approximation: bool
    caveat: str
    far: RateCount
    frr: RateCount
    by_check: dict[str, CheckErrorRates]
    #: Set when the raw corrected value fell outside [0, 1] and was clipped.
    flag: str | None = Field(default=None, exclude_if=_unset)


class CombinedCheck(MetricsModel):
    """A check graded by several grader versions that comparison reports found comparable."""

    graders: list[GraderUse]
    comparison_reports: list[str]


class Untrusted(MetricsModel):
    trials: int
    graders: list[str]


class MetricsDocument(MetricsModel):
    schema_version: Literal[1] = 1
    type: Literal["metrics"] = "metrics"
    graderctl_version: str
    results: ResultsFile
    tasks: int
    trials: int
    graded_trials: int
    successes: int
    failures: int
    null_trials: NullTrials
    trials_per_task: TrialsPerTask
    k: list[int]
    #: Keyed by k (as a string).
    pass_at_k: dict[str, Number]
    pass_hat_k: dict[str, Number]
    pass_at_k_exact: dict[str, str]
    pass_hat_k_exact: dict[str, str]
    pass_at_k_ci: dict[str, Interval | None]
    pass_hat_k_ci: dict[str, Interval | None]
    success_rate: SuccessRates
    weighting: Weighting
    interval: IntervalSettings
    categories: dict[str, CategoryMetrics]
    failures_by_check: dict[str, CheckFailures]
    by_stop_reason: dict[str, StopReasonCounts]
    citations: Citations | None
    cost: CostSummary
    grader_error_correction: CorrectionApplied | CorrectionNotApplied
    #: The distinct success rules the results were graded under (as recorded in the result lines).
    rules: list[Any]
    combined_graders: dict[str, CombinedCheck]
    untrusted: Untrusted
    self_grading_overrides: int
    warnings: list[str]
