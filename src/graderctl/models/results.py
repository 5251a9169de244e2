"""Graded results, the output of ``score`` and the input of ``metrics`` (CONTRACT.md §5)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from graderctl.models.base import NonEmptyStr, OpenModel
from graderctl.models.trials import Cost


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
    #: Why it was not trusted (with ``trusted: false``).
    trust: str | None = None
    #: The calibration reports that made it trusted.
    calibration: list[str] | None = None
    #: ``{"grader": "name@version", "fingerprint": "sha256:..."}``: what this check was re-scored from.
    rescored_from: dict[str, Any] | None = None
    #: ``false`` when the check found no citation to grade and the task does not require citations
    #: (``task.requires_citations = false``): it passed with 0 units. Absent otherwise.
    citations_required: bool | None = None


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
    checks: dict[str, CheckResult] | None = None
    stop_reason: str | None = None
    cost: Cost | None = None
    category: str | None = None
    reason: str | None = None
    extra: dict[str, Any] | None = None
    #: What the units came from: ``text`` (parsed from ``report.text``), ``structured`` or ``empty``.
    units_from: str | None = None
    #: The report parser of the scoring plan (it read ``report.text`` when ``units_from`` is ``text``).
    parser: ParserRecord | None = None
    #: Claims that cite at least one source, and sentences (or structured claims) that state something and
    #: cite nothing; citation coverage = cited / (cited + uncited).
    cited_claims: int | None = Field(default=None, ge=0)
    uncited_claims: int | None = Field(default=None, ge=0)
    # `graderctl score` also writes `rule`, `skipped_checks`, `untrusted`, `self_grading`, `generator`,
    # `trials_file`, `corpus_file` and `rescored` (see graderctl.services.score); they are kept as extra
    # fields (``model_extra``), where `compare --replay` reads them.
