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
