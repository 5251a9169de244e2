"""Graded results, the output of ``score`` and the input of ``metrics`` (CONTRACT.md §5), and the summary
documents ``score`` and ``trials import`` print.

A result line is written with ``model_dump(exclude_unset=True)``: a field is in the line when it was set
(``score`` sets only what applies to the trial), so a line reads exactly as it did when it was a dict. The
fields are declared in the order they are written.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graderctl.models.base import ModelIdentity, NonEmptyStr, OpenModel
from graderctl.models.trials import Cost


class RescoredFrom(OpenModel):
    """The grader a re-scored check was graded by before (``score --rescore``)."""

    grader: str | None = None
    fingerprint: str | None = None


class CheckResult(OpenModel):
    #: ``None`` when the check could not be graded (every unit erred).
    passed: bool | None
    grader: str
    fingerprint: str
    units: int = Field(ge=0)
    failed_units: list[str] = Field(default_factory=list)
    errors: int = Field(default=0, ge=0)
    reasons: list[str] = Field(default_factory=list)
    # Optional extensions written by `graderctl score`:
    #: Whether the grader was trusted for this check when it graded (``False`` only with --allow-untrusted).
    trusted: bool | None = None
    #: Units the grader left undecided (it abstained, or a cascade's members disagreed); absent when none.
    undecided: int | None = Field(default=None, ge=0)
    #: ``false`` when the check found no citation to grade and the task does not require citations
    #: (``task.requires_citations = false``): it passed with 0 units. Absent otherwise.
    citations_required: bool | None = None
    #: The calibration reports that made it trusted.
    calibration: list[str] | None = None
    #: Why it was not trusted (with ``trusted: false``).
    trust: str | None = None
    #: ``online`` when the source-existence grader resolved sources online (``--resolve online``).
    resolve: str | None = None
    #: What this check was re-scored from (``score --rescore``).
    rescored_from: RescoredFrom | None = None


class SkippedCheck(OpenModel):
    """A check that does not apply to a trial (coverage of a task without nuggets)."""

    grader: str | None = None
    fingerprint: str | None = None
    why: str = ""


class ScoringRule(OpenModel):
    """When a trial succeeds: every check of ``require`` passes (``combine: all``)."""

    require: list[str] = Field(default_factory=list)
    combine: str = "all"


class ModelRefRecord(OpenModel):
    """A model as the family map identifies it."""

    model: str
    provider: str | None
    canonical: str
    family: str | None


class SelfGradingMatchRecord(OpenModel):
    """A judge that would grade trials of its own model or family, and how many."""

    relation: Literal["same_model", "same_family"]
    judge: ModelRefRecord
    generator: ModelRefRecord
    trials: int = Field(ge=0)


class FalseAccepts(OpenModel):
    false_accepts: int = Field(ge=0)
    n: int = Field(ge=0)
    #: ``false_accepts / n``; ``null`` when ``n`` is 0.
    far: float | None


class RateCount(OpenModel):
    count: int = Field(ge=0)
    n: int = Field(ge=0)
    value: float | None


class SelfPreferenceComparison(OpenModel):
    """:func:`graderctl.stats.self_preference`: own-family vs other-family false-accept rates."""

    own_family: RateCount
    other_families: RateCount
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    method: str
    margin: float
    min_samples: int
    outcome: str
    explanation: str


class SelfGradingEvidence(OpenModel):
    """Whether the judge is more lenient on its own family, from its calibration reports."""

    reports: list[str]
    judge: ModelRefRecord
    own_family: FalseAccepts
    other_families: FalseAccepts
    bad_samples_without_generator: int = Field(ge=0)
    comparison: SelfPreferenceComparison
    rule: str
    allowed: bool


class SelfGradingGrader(OpenModel):
    matches: list[SelfGradingMatchRecord]
    evidence: SelfGradingEvidence


class SelfGradingRecord(OpenModel):
    """``--allow-self-grading``: the override, its reason and the evidence, recorded in every result line."""

    override: bool
    reason: str
    graders: dict[str, SelfGradingGrader] = Field(default_factory=dict)


class Rescored(OpenModel):
    #: The results file the trials were re-scored from.
    from_: str = Field(alias="from")


class ImportedScore(OpenModel):
    """``trials import --results-output``: where a line's success came from (an Inspect scorer and log, or
    the mapped path of a JSON Lines record) and the raw value."""

    scorer: str | None = None
    path: str | None = None
    value: Any = None
    log: str | None = None


class ParserRecord(OpenModel):
    """The report parser that read a trial's text into units: like a grader, a name, a version and a
    ``sha256:`` fingerprint."""

    name: str
    version: int = Field(ge=1)
    fingerprint: str


class GradedResult(OpenModel):
    """One graded trial. Only ``task_id``, ``trial_id`` and ``success`` are required, so results written
    by other tools can be measured too; unknown fields are kept."""

    task_id: NonEmptyStr
    trial_id: NonEmptyStr
    success: bool | None
    #: Why ``success`` is ``null``.
    reason: str | None = None
    checks: dict[str, CheckResult] | None = None
    #: Checks that do not apply to this trial.
    skipped_checks: dict[str, SkippedCheck] | None = None
    rule: ScoringRule | None = None
    #: The untrusted graders this line's checks were graded by (``--allow-untrusted``).
    untrusted: list[str] | None = None
    self_grading: SelfGradingRecord | None = None
    category: str | None = None
    generator: ModelIdentity | None = None
    stop_reason: str | None = None
    cost: Cost | None = None
    #: What the units came from: ``text`` (parsed from ``report.text``), ``structured`` or ``empty``.
    units_from: str | None = None
    #: The report parser of the scoring plan (it read ``report.text`` when ``units_from`` is ``text``).
    parser: ParserRecord | None = None
    #: Claims that cite at least one source, and sentences (or structured claims) that state something and
    #: cite nothing; citation coverage = cited / (cited + uncited).
    cited_claims: int | None = Field(default=None, ge=0)
    uncited_claims: int | None = Field(default=None, ge=0)
    #: The trials and corpus files scored (relative to the project root when inside it).
    trials_file: str | None = None
    corpus_file: str | None = None
    rescored: Rescored | None = None
    imported_score: ImportedScore | None = None
    extra: dict[str, Any] | None = None

    def to_line(self) -> dict[str, Any]:
        """The JSON object of the line: the fields that were set, in declaration order."""
        return self.model_dump(exclude_unset=True, by_alias=True)


# --- the summary `score --format json` prints --------------------------------------------------------


class _Summary(BaseModel):
    """A summary printed by a command (no config of its own): its validator is built when first used, not
    at import (``list`` and ``--help`` import this module but never use it)."""

    model_config = ConfigDict(defer_build=True)


class ScoredGrader(_Summary):
    grader: str
    check: str
    fingerprint: str
    trusted: bool
    #: The sets its trust was decided on (every set of its check, or those named by ``--trust-set``).
    trust_sets: list[str]


class ReviewSummary(_Summary):
    """The review file ``score`` wrote: its path, how many units it holds and why."""

    path: str
    items: int = Field(ge=0)
    by_status: dict[str, int]


class ScoreSummary(_Summary):
    """What ``graderctl score --format json`` prints: counts over the results file written."""

    schema_version: Literal[1] = 1
    type: Literal["score"] = "score"
    output: str
    trials: int = 0
    graded_now: int = 0
    resumed: int = 0
    successes: int = 0
    failures: int = 0
    null: int = 0
    graders: list[ScoredGrader] = Field(default_factory=list)
    rule: ScoringRule | None = None
    untrusted: list[str] = Field(default_factory=list)
    self_grading: SelfGradingRecord | None = None
    #: Trials that do not name their generator: the self-grading guard could not check them against the
    #: model judges (``judges``).
    trials_without_generator: int = 0
    judges: list[str] = Field(default_factory=list)
    failures_by_check: dict[str, int] = Field(default_factory=dict)
    errors_by_check: dict[str, int] = Field(default_factory=dict)
    #: Per citation check: trials in which it found nothing to grade and failed (``no citations found``).
    no_citations: dict[str, int] = Field(default_factory=dict)
    #: Trials whose citation checks found nothing to grade but whose task does not require citations.
    citations_not_required: int = 0
    cited_claims: int = 0
    uncited_claims: int = 0
    #: The report parser, when any trial's units were parsed from its text.
    parser: ParserRecord | None = None
    #: The review file (``null`` when no unit needs review).
    review: ReviewSummary | None = None
    notes: list[str] = Field(default_factory=list)


# --- the summary `trials import --format json` prints ------------------------------------------------


class ImportedResults(_Summary):
    """The result lines written with ``--results-output``: success from the harness's own scores."""

    scorer: str | None
    successes: int = Field(ge=0)
    failures: int = Field(ge=0)
    null: int = Field(ge=0)


class ImportedCost(_Summary):
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    usd: float | None


class TrialsImportSummary(_Summary):
    """What ``graderctl trials import ... --format json`` prints."""

    schema_version: Literal[1] = 1
    type: Literal["trials_import"] = "trials_import"
    source: Literal["inspect", "jsonl"]
    inputs: list[str]
    output: str
    trials: int = 0
    tasks: int = 0
    epochs: list[int] = Field(default_factory=list)
    generators: list[str] = Field(default_factory=list)
    corpus_output: str | None = None
    documents: int = 0
    results_output: str | None = None
    results: ImportedResults | None = None
    cost: ImportedCost = Field(
        default_factory=lambda: ImportedCost(input_tokens=0, output_tokens=0, usd=None)
    )
    notes: list[str] = Field(default_factory=list)
