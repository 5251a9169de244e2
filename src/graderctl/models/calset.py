"""Calibration sets: ``calibration_sets/<set>/`` (CONTRACT.md §3)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from graderctl.models.base import Check, Label, ModelIdentity, NonEmptyStr, StrictModel


class Policy(StrictModel):
    """What a grader must show on a set to be trusted (compared with one-sided 95% upper bounds)."""

    max_false_accept_rate: float = Field(ge=0, le=1)
    max_false_reject_rate: float = Field(ge=0, le=1)
    max_error_rate: float = Field(default=0.01, ge=0, le=1)
    #: Optional: the least share of samples the grader must decide (it may abstain on the rest); compared
    #: with the one-sided 95% lower bound of its coverage. Unset: any coverage will do.
    min_coverage: float | None = Field(default=None, ge=0, le=1)


class SplitSpec(StrictModel):
    """``[split]`` of a manifest: a deterministic tune/certify split of the samples that carry no ``split``.

    Samples are split by ``group`` (a sample without one is its own group), so variants of one seed never
    land on both sides: a group goes to ``tune`` when ``sha256(seed + group)`` maps below ``tune_fraction``.
    """

    tune_fraction: float = Field(gt=0, lt=1)
    seed: int = 0


class SetManifest(StrictModel):
    schema_version: Literal[1] = 1
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    version: int = Field(ge=1)
    check: Check
    description: str = ""
    source: str = ""
    #: Optional: how labels from an upstream dataset were mapped (importers record it).
    label_mapping: dict[str, str] | None = None
    licence: str | None = None
    citation: str | None = None
    policy: Policy
    #: Optional: a deterministic grouped tune/certify split (samples may also say ``split`` themselves).
    split: SplitSpec | None = None


# --- sample inputs, one shape per check -------------------------------------------------------------


def _nonempty(name: str) -> dict[str, Any]:
    return {"required": [name], "properties": {name: {"type": "string", "minLength": 1}}}


class Citation(StrictModel):
    # The JSON Schema states the identifier rule of the validator below (schemas are generated from models).
    model_config = ConfigDict(
        json_schema_extra={"anyOf": [_nonempty("source_id"), _nonempty("url"), _nonempty("doi")]}
    )

    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None

    @model_validator(mode="after")
    def _needs_an_identifier(self) -> Citation:
        if not (self.source_id or self.url or self.doi):
            raise ValueError("a citation needs at least one of source_id, url, doi")
        return self


class SourceExistenceInput(StrictModel):
    citation: Citation


class Evidence(StrictModel):
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"required": ["source_id"], "properties": {"source_id": {"type": "string"}}},
                {"required": ["text"], "properties": {"text": {"type": "string"}}},
            ]
        }
    )

    source_id: str | None = None
    text: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Evidence:
        if (self.source_id is None) == (self.text is None):
            raise ValueError("an evidence item has exactly one of source_id or text")
        return self


class ClaimSupportInput(StrictModel):
    claim: NonEmptyStr
    evidence: list[Evidence] = Field(min_length=1)


class Nugget(StrictModel):
    text: NonEmptyStr
    importance: Literal["vital", "okay"] = "vital"


class CoverageInput(StrictModel):
    question: str = ""
    nuggets: list[Nugget] = Field(min_length=1)
    report: str


SampleInput = SourceExistenceInput | ClaimSupportInput | CoverageInput

INPUT_MODELS: dict[Check, type[SourceExistenceInput] | type[ClaimSupportInput] | type[CoverageInput]] = {
    Check.source_existence: SourceExistenceInput,
    Check.claim_support: ClaimSupportInput,
    Check.coverage: CoverageInput,
}


class LabelerLabel(StrictModel):
    labeler: NonEmptyStr
    label: Label


class SampleProvenance(StrictModel):
    """Where a sample added by ``graderctl sets add`` comes from: a reviewed unit of a scored trial."""

    source: Literal["review"] = "review"
    #: The review file it was read from (relative to the project root when inside it).
    file: str
    line: int
    task_id: str
    trial_id: str
    unit: str
    status: str
    grader: str
    fingerprint: str
    labeler: str | None = None
    added_at: str


class _SampleBase(StrictModel):
    id: NonEmptyStr
    label: Label
    category: NonEmptyStr
    group: str | None = None
    rationale: str | None = None
    generator: ModelIdentity | None = None
    labels: list[LabelerLabel] | None = None
    #: Optional: ``tune`` (may be used to choose a grader's operating point) or ``certify`` (held out for
    #: the verdict). Without it, the manifest's ``[split]`` decides, if any.
    split: Literal["tune", "certify"] | None = None
    #: Optional: where the sample came from when ``graderctl sets add`` made it from a reviewed unit.
    provenance: SampleProvenance | None = None


class SourceExistenceSample(_SampleBase):
    input: SourceExistenceInput


class ClaimSupportSample(_SampleBase):
    input: ClaimSupportInput


class CoverageSample(_SampleBase):
    input: CoverageInput


Sample = SourceExistenceSample | ClaimSupportSample | CoverageSample

SAMPLE_MODELS: dict[Check, type[SourceExistenceSample] | type[ClaimSupportSample] | type[CoverageSample]] = {
    Check.source_existence: SourceExistenceSample,
    Check.claim_support: ClaimSupportSample,
    Check.coverage: CoverageSample,
}


class CorpusDocument(StrictModel):
    id: NonEmptyStr
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    text: str = ""
