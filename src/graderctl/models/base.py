"""Shared model base: strict, no I/O."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class StrictModel(BaseModel):
    """Authored inputs reject unknown fields, so a typo is an error and not silently ignored. Numbers are
    finite: ``1e400`` (infinity to a JSON parser) is an error, not a cost of ``inf``."""

    model_config = ConfigDict(
        extra="forbid", frozen=False, populate_by_name=True, allow_inf_nan=False, defer_build=True
    )


class OpenModel(BaseModel):
    """Documents written by other tools (results) may carry fields we do not know; keep them."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False, defer_build=True)


class Check(StrEnum):
    """The three checks of a research report, graded separately."""

    source_existence = "source_existence"
    claim_support = "claim_support"
    coverage = "coverage"


class Label(StrEnum):
    good = "good"
    bad = "bad"


NonEmptyStr = Annotated[str, Field(min_length=1)]


class ModelIdentity(StrictModel):
    """Who wrote a text or who judges it."""

    model: NonEmptyStr
    provider: str | None = None
