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
    # Optional extensions written by `graderctl score`:
    #: The success rule: ``{"require": [checks], "combine": "all"}``.
    rule: dict[str, Any] | None = None
    #: Checks that did not apply to the trial (coverage of a task without nuggets), with grader and why.
    skipped_checks: dict[str, Any] | None = None
    #: Graders not trusted for their check that graded this trial (scored with --allow-untrusted).
    untrusted: list[str] | None = None
    #: The self-grading override, its reason and its evidence (scored with --allow-self-grading).
    self_grading: dict[str, Any] | None = None
    generator: dict[str, Any] | None = None
    #: Where the trial and the corpus were read from (relative to the project root), for --rescore.
    trials_file: str | None = None
    corpus_file: str | None = None
    #: ``{"from": "old-results.jsonl"}`` when the line was re-scored.
    rescored: dict[str, Any] | None = None
