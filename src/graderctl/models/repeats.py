"""The ``repeats`` section of a calibration report (``calibrate --repeats R``): how often the grader's outcome
on a sample changed when the same sample was graded again."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict

from graderctl.models._written import Number, WrittenModel


class RepeatRate(WrittenModel):
    """An error rate of one repeat (``null`` value and bounds when ``n`` is 0)."""

    value: Number | None
    count: int
    n: int
    ci_low: Number | None
    ci_high: Number | None
    upper_95: Number | None


class RepeatRates(WrittenModel):
    repeat: int
    false_accept_rate: RepeatRate
    false_reject_rate: RepeatRate
    errors: int


class FlippedSample(WrittenModel):
    OPTIONAL: ClassVar[tuple[str, ...]] = ("category",)
    id: str
    label: str
    category: str | None = None
    #: The outcome of each repeat (``null``: the grader erred or abstained in that repeat).
    outcomes: list[bool | None]


class FlippedInterval(WrittenModel):
    low: Number
    high: Number
    confidence: Number


class RepeatsSection(WrittenModel):
    """``self_consistency`` is the share of samples (decided in at least two repeats) whose outcome changed;
    ``outcome`` compares its interval with ``margin``."""

    # Reports written by older versions lack the interval and the outcome; extra fields are kept.
    model_config = ConfigDict(extra="allow")
    OPTIONAL: ClassVar[tuple[str, ...]] = ("flipped", "flipped_ci", "margin", "outcome")
    r: int
    self_consistency: Number | None
    consistent_share: Number | None
    n: int
    flipped: int | None = None
    flipped_ci: FlippedInterval | None = None
    margin: Number | None = None
    outcome: Literal["consistent", "inconsistent", "inconclusive"] | None = None
    flipped_samples: list[FlippedSample]
    per_repeat: list[RepeatRates]
