"""A grader kind for store tests: it references a prompt file, so fingerprints cover referenced files.

Registered per test with :func:`registered` (never through entry points), so these tests do not depend on
the built-in kinds' parameters or implementation versions."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graderctl import plugin
from graderctl.models.base import Check
from graderctl.models.calset import SampleInput
from graderctl.plugin import GraderKind, Verdict

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fingerprint"


class PromptParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: str
    threshold: float = 0.5
    labels: list[str] = ["yes", "no"]


class PromptKind(GraderKind):
    """Accepts everything; its identity includes the text of ``params.prompt``."""

    name = "fixture_prompt"
    checks = frozenset({Check.claim_support})
    implementation_version = "1"
    Params = PromptParams

    @classmethod
    def referenced_files(cls, params: BaseModel) -> list[str]:
        assert isinstance(params, PromptParams)
        return [params.prompt]

    @classmethod
    def validate_definition(cls, params: BaseModel, base_dir: Path) -> list[str]:
        assert isinstance(params, PromptParams)
        return [] if 0 <= params.threshold <= 1 else ["threshold must be between 0 and 1"]

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.accept("fixture") for _ in inputs]


@contextmanager
def registered(kind: type[GraderKind] = PromptKind) -> Iterator[None]:
    """Make ``kind`` known to the registry for the duration of a test."""
    registry = plugin.kinds()
    previous = registry.get(kind.name)
    registry[kind.name] = kind
    try:
        yield
    finally:
        if previous is None:
            registry.pop(kind.name, None)
        else:
            registry[kind.name] = previous


def copy_project(dest: Path) -> Path:
    """A writable copy of the fingerprint fixture project (graders/judge, calibration_sets/fp-set)."""
    shutil.copytree(FIXTURES, dest, dirs_exist_ok=True)
    return dest
