"""Probe reports (``graderctl probe``): ``reports/probes/<set>/<name>@<version>-<probe>.json`` and the
document ``probe --format json`` prints (one report, or every report under ``probes``).

A paired probe (``length``, ``order``, ``format``) grades the set's samples as they are and transformed and
pairs the outcomes; the ``self`` probe compares the judge's false accept rate on its own family's known-bad
answers with other families'. Field order is the order of the written document. Optional sections are left
out of a document unless the probe produced them (a ``null`` that was produced is kept).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import RootModel

from graderctl.models._written import Number
from graderctl.models._written import WrittenModel as ProbeModel

Outcome = Literal["biased", "no_bias", "inconclusive", "not_applicable"]


class ProbeGrader(ProbeModel):
    name: str
    version: int
    kind: str
    fingerprint: str
    check: str
    #: The judge of a model-based grader (as declared), else ``null``.
    judge: dict[str, Any] | None


class ProbeSet(ProbeModel):
    name: str
    version: int
    fingerprint: str
    #: Relative to the project root when the set is inside it.
    path: str
    n_good: int
    n_bad: int


class ProbeErrors(ProbeModel):
    """Samples the grader erred on (left out of the comparison): before and after the transformation."""

    before: int
    after: int


class ProbeUsage(ProbeModel):
    """What the probe's own grading cost (verdicts of the untransformed set are counted once, in the first
    probe that needed them)."""

    input_tokens: int
    output_tokens: int
    usd: Number
    requests: int
    retries: int
    cached: int


class ProbeEnvelope(ProbeModel):
    """What every probe report starts with."""

    schema_version: Literal[1] = 1
    type: Literal["probe"] = "probe"
    probe: Literal["length", "order", "format", "self"]
    graderctl_version: str
    created_at: str
    grader: ProbeGrader
    calibration_set: ProbeSet
    question: str
    margin: Number
    seed: int


class RateCount(ProbeModel):
    count: int
    n: int
    value: Number | None


class PairedDifference(ProbeModel):
    """The change in the watched rate over the pairs (after minus before), Tango's interval, McNemar p."""

    n: int
    b: int
    c: int
    diff: Number | None
    ci_low: Number | None
    ci_high: Number | None
    confidence: Number
    method: str
    p_value: Number | None


class Flips(ProbeModel):
    """``order``: outcomes that changed when the passages were shuffled, with a Wilson interval."""

    count: int
    n: int
    value: Number
    ci_low: Number | None
    ci_high: Number | None
    confidence: Number
    to_accept: int
    to_reject: int


class AcceptRates(ProbeModel):
    before: Number
    after: Number


class ProbeSampleRow(ProbeModel):
    """One transformed sample: its outcome before and after."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("error", "undecided")
    id: str
    label: str
    category: str | None
    #: ``null`` when the grader erred or abstained.
    before: bool | None
    after: bool | None
    flipped: bool | None
    transformation: str
    #: Present when the grader erred on either side (left out of the pairs).
    error: str | None = None
    #: Present (true) when the grader abstained on either side (left out of the pairs).
    undecided: bool | None = None


class PairedProbeReport(ProbeEnvelope):
    """A ``length``, ``order`` or ``format`` probe."""

    OPTIONAL: ClassVar[tuple[str, ...]] = (
        "undecided",
        "before",
        "after",
        "difference",
        "flips",
        "accept_rate",
        "mcnemar_p",
        "warnings",
        "environment",
    )
    #: ``false_accept_rate`` (length), ``flip_rate`` (order) or ``false_reject_rate`` (format).
    rate: str
    n_targeted: int
    n_transformed: int
    n_unchanged: int
    #: Pairs compared (both sides decided).
    n: int
    errors: ProbeErrors
    undecided: int | None = None
    applicable: bool
    before: RateCount | None = None
    after: RateCount | None = None
    difference: PairedDifference | None = None
    flips: Flips | None = None
    accept_rate: AcceptRates | None = None
    mcnemar_p: Number | None = None
    biased: bool
    outcome: Outcome
    verdict: str
    warnings: list[str] | None = None
    samples: list[ProbeSampleRow]
    usage: ProbeUsage
    environment: dict[str, Any] | None = None


class FamilyRate(ProbeModel):
    """False accepts on known-bad answers of one group of generators."""

    count: int
    n: int
    value: Number | None


class SelfPreferenceResult(ProbeModel):
    """The comparison behind the ``self`` probe (the same rule as ``score --allow-self-grading``)."""

    own_family: FamilyRate
    other_families: FamilyRate
    diff: Number | None
    ci_low: Number | None
    ci_high: Number | None
    confidence: Number
    method: str
    margin: Number
    min_samples: int
    #: ``biased``, ``no_bias``, ``inconclusive`` or ``insufficient`` (too few samples in a group).
    outcome: Literal["biased", "no_bias", "inconclusive", "insufficient"]
    explanation: str


class SelfDifference(ProbeModel):
    diff: Number | None
    ci_low: Number | None
    ci_high: Number | None
    confidence: Number
    method: str


class JudgeIdentity(ProbeModel):
    model: str
    provider: str | None
    canonical: str
    family: str | None


class SelfSampleRow(ProbeModel):
    id: str
    generator: str
    family: str | None
    own_family: bool
    accepted: bool


class SelfProbeReport(ProbeEnvelope):
    """The ``self`` probe of a model-based grader."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("difference", "environment")
    rate: str
    judge: JudgeIdentity
    n_without_generator: int
    errors: ProbeErrors
    own_family: FamilyRate
    other_families: FamilyRate
    samples: list[SelfSampleRow]
    outcome: Outcome
    self_preference: SelfPreferenceResult
    applicable: bool
    difference: SelfDifference | None = None
    biased: bool
    verdict: str
    usage: ProbeUsage
    environment: dict[str, Any] | None = None


class SelfProbeNotApplicable(ProbeEnvelope):
    """The ``self`` probe of a grader that is not model-based: nothing to probe."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("environment",)
    rate: str
    applicable: Literal[False] = False
    biased: Literal[False] = False
    outcome: Literal["not_applicable"] = "not_applicable"
    verdict: str
    usage: ProbeUsage
    environment: dict[str, Any] | None = None


AnyProbeReport = PairedProbeReport | SelfProbeReport | SelfProbeNotApplicable


class ProbeReport(RootModel[AnyProbeReport]):
    """One probe report: a paired probe (``length``, ``order``, ``format``) or the ``self`` probe."""


class ProbesDocument(ProbeModel):
    """``probe --format json`` when several probes (or sets) ran: every report under ``probes``."""

    schema_version: Literal[1] = 1
    type: Literal["probes"] = "probes"
    #: ``name@version``.
    grader: str
    biased: bool
    probes: list[AnyProbeReport]


__all__ = [
    "AnyProbeReport",
    "PairedProbeReport",
    "ProbeReport",
    "ProbesDocument",
    "SelfProbeNotApplicable",
    "SelfProbeReport",
]
