"""Grader definitions: ``graders/<name>/v<N>.toml`` (CONTRACT.md §2)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models.base import Check, ModelIdentity, StrictModel

GRADER_NAME_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"


class JudgeSpec(ModelIdentity):
    """The ``[judge]`` block: which model judges (model-based kinds)."""


class GraderSpec(StrictModel):
    """An authored grader definition, as written in TOML."""

    schema_version: Literal[1] = 1
    name: str = Field(pattern=GRADER_NAME_PATTERN)
    version: int = Field(ge=1)
    kind: str = Field(min_length=1)
    check: Check
    description: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    judge: JudgeSpec | None = None
    #: Optional equivalence margin used by ``compare`` for this grader (default 0.02).
    compare_margin: float | None = Field(default=None, gt=0, lt=1)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"
