"""The units document as it is built and printed: msgspec Structs, class for class and field for field the
pydantic models of :mod:`graderctl.models.units` (which stay the contract: the shipped JSON Schema is
generated from them, and ``tests/models/test_units_data.py`` holds the two equal, name, fields and order).

Why a second form of the same document: ``graderctl units`` makes a few hundred of these objects per trial
(a claim, a citation, a unit each) and must read thousands of reports a second; a Struct is typed like a
model, several times cheaper to make than a pydantic model (or even a dict) and encoded by msgspec in the
order of its fields, so the printed JSON is what ``model_dump(mode="json")`` of the pydantic document gives.
Every Struct here is never changed once made (``frozen``; equal objects may be shared) and never part of a
reference cycle (``gc=False``: the cyclic garbage collector does not track them).

The unit inputs (``SourceExistenceInput``, ``ClaimSupportInput``, ``CoverageInput``) mirror the pydantic
inputs of :mod:`graderctl.models.calset` the same way, and print what their
``model_dump(mode="json", exclude_none=True)`` gives (``omit_defaults`` where a ``None`` is left out).
"""

from __future__ import annotations

from typing import Literal

import msgspec


class ParserInfo(msgspec.Struct, frozen=True, gc=False):
    name: str
    version: int
    fingerprint: str


# --- unit inputs (graderctl.models.calset) ------------------------------------------------------------------


class Citation(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None


class SourceExistenceInput(msgspec.Struct, frozen=True, gc=False):
    citation: Citation


class Evidence(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    source_id: str | None = None
    text: str | None = None


class ClaimSupportInput(msgspec.Struct, frozen=True, gc=False):
    claim: str
    evidence: list[Evidence]


class Nugget(msgspec.Struct, frozen=True, gc=False):
    text: str
    importance: Literal["vital", "okay"]


class CoverageInput(msgspec.Struct, frozen=True, gc=False):
    question: str
    nuggets: list[Nugget]
    report: str


UnitInput = SourceExistenceInput | ClaimSupportInput | CoverageInput


# --- the document (graderctl.models.units) ------------------------------------------------------------------


class UnitsCitation(msgspec.Struct, frozen=True, gc=False):
    marker: str | None
    source_id: str | None
    url: str | None
    doi: str | None
    title: str | None
    quote: str | None
    missing: bool


class UnitsClaim(msgspec.Struct, frozen=True, gc=False):
    id: str
    text: str
    span: tuple[int, int] | None
    citations: list[UnitsCitation]


class UnitsSource(msgspec.Struct, frozen=True, gc=False):
    id: str
    marker: str | None
    origin: str
    url: str | None
    url_key: str | None
    doi: str | None
    title: str | None


class UncitedClaim(msgspec.Struct, frozen=True, gc=False):
    text: str
    span: tuple[int, int] | None


class MissingSource(msgspec.Struct, frozen=True, gc=False):
    claim: str
    marker: str


class CheckUnit(msgspec.Struct, frozen=True, gc=False):
    id: str
    input: UnitInput | None
    failure: str | None


class CheckUnits(msgspec.Struct, frozen=True, gc=False):
    applies: bool
    units: list[CheckUnit]
    note: str | None


class UnitsChecks(msgspec.Struct, frozen=True, gc=False):
    source_existence: CheckUnits
    claim_support: CheckUnits
    coverage: CheckUnits


class TrialUnits(msgspec.Struct, frozen=True, gc=False):
    task_id: str
    trial_id: str
    units_from: Literal["text", "structured", "empty"]
    parser: ParserInfo | None
    requires_citations: bool
    claims: list[UnitsClaim]
    sources: list[UnitsSource]
    uncited_claims: list[UncitedClaim]
    missing_sources: list[MissingSource]
    checks: UnitsChecks


class UnitsSummary(msgspec.Struct, frozen=True, gc=False):
    trials: int
    from_text: int
    structured: int
    empty: int
    claims: int
    citations: int
    uncited_claims: int
    missing_sources: int
    no_citations: int
    citation_coverage: float | None


class UnitsDocument(msgspec.Struct, frozen=True, gc=False):
    schema_version: Literal[1]
    type: Literal["units"]
    trials_file: str
    corpus_file: str | None
    parser: ParserInfo
    summary: UnitsSummary
    #: Empty when the trials were handed, one at a time, to a ``row_sink`` instead of kept (see
    #: :func:`graderctl.services.units.list_units`).
    trials: list[TrialUnits]
