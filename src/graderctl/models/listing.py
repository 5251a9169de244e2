"""What ``graderctl list --format json`` prints: graders with their trust on each set, sets, grader kinds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graderctl.models.base import OpenModel
from graderctl.models.validation import ProblemRecord


class TrustRecord(OpenModel):
    """A grader's trust on one calibration set of its check."""

    set: str
    #: trusted, not_trusted, stale, never_calibrated or invalid_set.
    state: str
    #: The report the state was computed from, when there is one.
    report: str | None
    detail: str


class GraderListing(OpenModel):
    """A grader definition and its trust on each set of its check."""

    ref: str
    name: str
    version: int
    kind: str
    check: str
    fingerprint: str
    path: str
    #: Trusted for its check: on every set of the check (one passing set is not enough).
    trusted: bool
    trust: list[TrustRecord]


class SetListing(OpenModel):
    """A calibration set."""

    name: str
    version: int
    check: str
    n_good: int
    n_bad: int
    fingerprint: str
    path: str


class KindListing(OpenModel):
    """An installed grader kind (entry point of ``graderctl.graders``), or one that could not be loaded."""

    name: str
    #: The distribution that provides it, with its version ("graderctl 0.1.0" for the built-in kinds).
    origin: str
    checks: list[str]
    model_based: bool
    implementation_version: str
    #: Why the entry point could not be loaded (then the other fields are empty).
    error: str | None = None


class ProjectListing(OpenModel):
    schema_version: Literal[1] = 1
    type: Literal["listing"] = "listing"
    graders: list[GraderListing] = Field(default_factory=list)
    sets: list[SetListing] = Field(default_factory=list)
    kinds: list[KindListing] = Field(default_factory=list)
    #: Files that could not be loaded (``graderctl validate`` says why in detail).
    problems: list[str] = Field(default_factory=list)
    #: Released grader versions edited since they were locked, or a lock missing beside reports (exit 3).
    release_problems: list[ProblemRecord] = Field(default_factory=list)
