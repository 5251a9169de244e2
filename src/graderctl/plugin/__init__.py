"""The grader plugin API (:mod:`graderctl.plugin.api`) and the kind registry (:mod:`.registry`).

A grader kind is a class with a ``name``, a pydantic ``Params`` model and a ``grade_batch`` method that grades
many sample inputs at once. Kinds are found through the entry-point group ``graderctl.graders``; the built-in
kinds register through that same group, so a third-party kind in another installed package works the same way.

A minimal third-party kind::

    class AlwaysAccept(GraderKind):
        name = "always_accept"
        checks = frozenset({Check.claim_support})

        class Params(BaseModel):
            model_config = ConfigDict(extra="forbid")

        def grade_batch(self, inputs):
            return [Verdict.accept("accepts everything") for _ in inputs]

registered in its ``pyproject.toml`` as::

    [project.entry-points."graderctl.graders"]
    always_accept = "my_package.module:AlwaysAccept"
"""

from __future__ import annotations

from graderctl.plugin.api import (
    BandParams,
    Corpus,
    GraderKind,
    GradingContext,
    Member,
    Usage,
    Verdict,
    decide,
)
from graderctl.plugin.registry import (
    ENTRY_POINT_GROUP,
    KindRegistry,
    broken_kinds,
    default_registry,
    get_kind,
    kind_origin,
    kinds,
    register,
    validate_kind,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "BandParams",
    "Corpus",
    "GraderKind",
    "GradingContext",
    "KindRegistry",
    "Member",
    "Usage",
    "Verdict",
    "broken_kinds",
    "decide",
    "default_registry",
    "get_kind",
    "kind_origin",
    "kinds",
    "register",
    "validate_kind",
]
