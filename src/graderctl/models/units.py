"""The document ``graderctl units --format json`` prints: per trial, what each check would grade.

Every key is always printed (``null`` where there is nothing), so every field is required: the JSON Schema
generated from these models (``graderctl schema units``) says exactly what the document holds. The document is
built as the msgspec Structs of :mod:`graderctl.models.units_data`, field for field these models."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graderctl.models.base import StrictModel
from graderctl.models.calset import ClaimSupportInput, CoverageInput, SourceExistenceInput


class ParserInfo(StrictModel):
    """The report parser that read a trial's text: recorded like a grader's identity."""

    name: str
    version: int = Field(ge=1)
    fingerprint: str


class UnitsCitation(StrictModel):
    #: The marker as written (``[3]``, ``[^2]``, ``(Lewis et al., 2020)``, an inline URL); ``null`` for
    #: structured claims.
    marker: str | None
    #: The id of the cited source in ``sources``; ``null`` when the marker points to no listed source.
    source_id: str | None
    url: str | None
    doi: str | None
    title: str | None
    quote: str | None
    #: The citation points to no source the report lists (a failed unit).
    missing: bool


class UnitsClaim(StrictModel):
    id: str
    text: str
    #: ``[start, end)`` character offsets in ``report.text`` (parsed claims only).
    span: tuple[int, int] | None
    citations: list[UnitsCitation]


class UnitsSource(StrictModel):
    id: str
    marker: str | None
    #: ``structured``, or where the parser found it: ``list``, ``footnote``, ``definition``, ``inline``.
    origin: str
    url: str | None
    #: The normalised URL the corpus is searched by (scheme, ``www.``, tracking parameters, ... dropped).
    url_key: str | None
    #: Normalised bare DOI (``10.xxxx/...``, lower case).
    doi: str | None
    title: str | None


class UncitedClaim(StrictModel):
    text: str
    span: tuple[int, int] | None


class MissingSource(StrictModel):
    claim: str
    marker: str


class CheckUnit(StrictModel):
    id: str
    #: What the grader is given; ``null`` for a unit that fails without grading (``failure`` says why).
    input: SourceExistenceInput | ClaimSupportInput | CoverageInput | None
    failure: str | None


class CheckUnits(StrictModel):
    #: ``false`` when the check does not apply (coverage of a task without nuggets).
    applies: bool
    units: list[CheckUnit]
    #: ``no citations found`` when a citation check has no unit (the check fails unless citations are not
    #: required); why the check does not apply otherwise.
    note: str | None


class UnitsChecks(StrictModel):
    """Every check's units (``applies`` says whether the check applies to the trial)."""

    source_existence: CheckUnits
    claim_support: CheckUnits
    coverage: CheckUnits


class TrialUnits(StrictModel):
    task_id: str
    trial_id: str
    #: ``text`` (parsed from ``report.text``), ``structured`` (``report.claims``) or ``empty``.
    units_from: Literal["text", "structured", "empty"]
    parser: ParserInfo | None
    requires_citations: bool
    claims: list[UnitsClaim]
    sources: list[UnitsSource]
    uncited_claims: list[UncitedClaim]
    missing_sources: list[MissingSource]
    checks: UnitsChecks


class UnitsSummary(StrictModel):
    trials: int = Field(ge=0)
    from_text: int = Field(ge=0)
    structured: int = Field(ge=0)
    empty: int = Field(ge=0)
    claims: int = Field(ge=0)
    citations: int = Field(ge=0)
    uncited_claims: int = Field(ge=0)
    missing_sources: int = Field(ge=0)
    #: Trials in which source_existence / claim_support find nothing to grade and citations are required:
    #: `score` fails those checks with `no citations found`.
    no_citations: int = Field(ge=0)
    #: cited claims / (cited + uncited claims); ``null`` when there is no claim at all.
    citation_coverage: float | None


class UnitsDocument(StrictModel):
    """``graderctl units --format json``: exactly the units each check would grade, per trial."""

    schema_version: Literal[1]
    type: Literal["units"]
    trials_file: str
    corpus_file: str | None
    parser: ParserInfo
    summary: UnitsSummary
    trials: list[TrialUnits]
