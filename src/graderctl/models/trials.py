"""Agent trials, the input of ``score`` (CONTRACT.md §4)."""

from __future__ import annotations

from pydantic import Field

from graderctl.models.base import ModelIdentity, NonEmptyStr, OpenModel, StrictModel
from graderctl.models.calset import Nugget


class TrialCitation(StrictModel):
    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None


class TrialClaim(StrictModel):
    id: NonEmptyStr
    text: NonEmptyStr
    citations: list[TrialCitation] = Field(default_factory=list)


class TrialSource(StrictModel):
    id: NonEmptyStr
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    #: Optional: the fetched text of the source, when the agent captured it.
    text: str | None = None


class TrialReport(StrictModel):
    text: str = ""
    claims: list[TrialClaim] = Field(default_factory=list)
    sources: list[TrialSource] = Field(default_factory=list)


class TrialTask(StrictModel):
    question: str = ""
    nuggets: list[Nugget] = Field(default_factory=list)
    #: Whether the report must cite sources (default ``true``). When ``false``, a trial whose report cites
    #: nothing passes source_existence and claim_support with 0 units (the result says so) instead of failing
    #: them with ``no citations found``.
    requires_citations: bool = True


class Cost(OpenModel):
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    tool_calls: int | None = Field(default=None, ge=0)
    usd: float | None = Field(default=None, ge=0)
    wall_seconds: float | None = Field(default=None, ge=0)


class Trial(StrictModel):
    task_id: NonEmptyStr
    trial_id: NonEmptyStr
    category: str | None = None
    generator: ModelIdentity | None = None
    task: TrialTask
    report: TrialReport
    stop_reason: str | None = None
    cost: Cost | None = None
    trajectory: str | None = None
