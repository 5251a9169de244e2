"""``graderctl tune`` results and the certify-split ledger (persisted / printed documents)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models.base import OpenModel
from graderctl.models.reports import GraderInfo


class OperatingPointInfo(OpenModel):
    """What one decision rule does on the tune samples: accept at or above ``accept_at_or_above``, reject
    below ``reject_below`` (equal: a plain threshold), undecided in between. Rates are over decided samples;
    bounds are one-sided 95% Clopper-Pearson (what a set's policy compares)."""

    reject_below: float
    accept_at_or_above: float
    false_accepts: int
    bad_decided: int
    false_accept_rate: float | None
    false_accept_rate_upper_95: float | None
    false_rejects: int
    good_decided: int
    false_reject_rate: float | None
    false_reject_rate_upper_95: float | None
    undecided: int = 0
    coverage: float | None = None
    coverage_lower_95: float | None = None
    #: Whether the point meets the limits (bounds; with groups also the cluster-bootstrap bounds).
    meets: bool | None = None
    #: How far each failing bound is from its limit (``false_accept_rate``, ``false_reject_rate``,
    #: ``coverage``); empty when it meets them.
    excess: dict[str, float] = Field(default_factory=dict)
    #: Cluster-bootstrap upper bounds, when the samples carry groups and the point was checked with them.
    clustered: dict[str, float | None] | None = None


class TuneLimits(OpenModel):
    max_false_accept_rate: float
    max_false_reject_rate: float
    min_coverage: float | None = None
    #: ``policy`` (the set's [policy]) or ``target`` (``--target``).
    source: Literal["policy", "target"] = "policy"


class TunedSet(OpenModel):
    """The calibration set whose tune split was swept (counts over the tune samples graded without error)."""

    name: str
    version: int
    fingerprint: str
    path: str | None = None
    n_good: int
    n_bad: int


class CurvePoint(OpenModel):
    """One threshold of the trade-off curve (a plain threshold: accept at or above it)."""

    threshold: float
    false_accepts: int
    false_rejects: int
    false_accept_rate_upper_95: float | None
    false_reject_rate_upper_95: float | None


class WrittenVersion(OpenModel):
    ref: str
    path: str
    fingerprint: str
    params: dict[str, Any]
    #: Whether the new version was recorded in graders/graders.lock (released).
    locked: bool = False


class TuneResult(OpenModel):
    """The outcome of ``graderctl tune``: the trade-off on the tune split, the chosen operating point and the
    new version written (``--format json`` prints it; ``type`` is ``"tune"``)."""

    schema_version: Literal[1] = 1
    type: Literal["tune"] = "tune"
    graderctl_version: str | None = None
    created_at: str | None = None
    grader: GraderInfo
    calibration_set: TunedSet
    #: The parameter swept (its value is the accept threshold).
    param: str
    mode: Literal["threshold", "band"]
    limits: TuneLimits
    #: Samples of the tune split graded, and how many erred (left out of the sweep).
    n_tune: int
    n_certify: int
    errors: int = 0
    #: The grader's current decision rule on the tune samples (for comparison).
    current: OperatingPointInfo
    #: The printed false-accept / false-reject trade-off (a selection of the curve's thresholds).
    table: list[OperatingPointInfo] = Field(default_factory=list)
    #: The whole curve, thinned to at most ~200 thresholds (for plots).
    curve: list[CurvePoint] = Field(default_factory=list)
    meets_limits: bool
    chosen: OperatingPointInfo | None = None
    #: When no candidate meets the limits: the closest one, and ``excess`` says how far it is.
    best: OperatingPointInfo | None = None
    written: WrittenVersion | None = None
    notes: list[str] = Field(default_factory=list)


class LedgerEntry(OpenModel):
    """One calibration of a grader version on a certify split (a line of ``reports/<set>/ledger.jsonl``)."""

    schema_version: Literal[1] = 1
    type: Literal["certify_look"] = "certify_look"
    at: str
    grader: str
    fingerprint: str
    set: str
    set_fingerprint: str
    split: str = "certify"
    split_fingerprint: str
    n: int
    trusted: bool
    false_accept_rate_upper_95: float | None = None
    false_reject_rate_upper_95: float | None = None
    coverage: float | None = None
