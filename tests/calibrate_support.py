"""Test-only grader kinds and tiny project builders for the runner, calibrate, trust and list tests.

Samples are ``source_existence`` samples whose citation ``title`` tells the scripted kinds what to do:
``accept``, ``reject``, ``error`` (an error verdict), ``poison`` (the batch raises), ``sleep`` (sleeps past
any test timeout), ``interrupt`` (raises KeyboardInterrupt, as Ctrl-C would).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from graderctl.models.base import Check
from graderctl.models.calset import SampleInput, SourceExistenceInput
from graderctl.plugin import BandParams, GraderKind, Verdict, decide, register


def directive(inp: SampleInput) -> str:
    assert isinstance(inp, SourceExistenceInput)
    return inp.citation.title or ""


class _NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AcceptAll(GraderKind):
    name = "test_accept_all"
    checks = frozenset({Check.source_existence})

    class Params(_NoParams):
        pass

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.accept("accepts everything") for _ in inputs]


class Scripted(GraderKind):
    """Does what each sample's title says; ``invert`` flips every decision (a "new version")."""

    name = "test_scripted"
    checks = frozenset({Check.source_existence})

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        invert: bool = False
        sleep: float = 2.0

    calls = 0
    lock = threading.Lock()

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        with Scripted.lock:
            Scripted.calls += 1
        invert = bool(getattr(self.params, "invert", False))
        out: list[Verdict] = []
        for inp in inputs:
            what = directive(inp)
            if what == "poison":
                raise RuntimeError("backend exploded")
            if what == "interrupt":
                raise KeyboardInterrupt
            if what == "sleep":
                time.sleep(float(getattr(self.params, "sleep", 2.0)))
                what = "accept"
            if what == "error":
                out.append(Verdict.failed("could not reach the source"))
            elif what == "undecided":
                out.append(Verdict.undecided("in the band", score=0.5))
            elif (what == "accept") != invert:
                out.append(Verdict.accept(f"found it ({what})", score=0.9))
            else:
                out.append(Verdict.reject(f"not found ({what})", score=0.1))
        return out


class RaiseAlways(GraderKind):
    name = "test_raise_always"
    checks = frozenset({Check.source_existence})

    class Params(_NoParams):
        pass

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        raise ConnectionError("endpoint http://127.0.0.1:9 refused the connection")


class Costly(Scripted):
    """A model-like kind: reports usage and may be cached."""

    name = "test_costly"
    cacheable = True

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        from dataclasses import replace

        from graderctl.plugin import Usage

        return [
            replace(v, usage=Usage(input_tokens=100, output_tokens=10, usd=0.001, requests=1))
            for v in super().grade_batch(inputs)
        ]


class _ScoredParams(BandParams):
    model_config = ConfigDict(extra="forbid")
    threshold: float = Field(default=0.5, ge=0, le=1)


class Scored(GraderKind):
    """A score-based kind: the score is in the citation title (``score=0.73``, maybe followed by a blank and
    anything; ``error`` gives an error);
    accepts at or above ``threshold`` (or the band of ``accept_at_or_above`` / ``reject_below``)."""

    name = "test_scored"
    checks = frozenset({Check.source_existence})
    Params = _ScoredParams
    #: every input graded, for tests that check what a command read
    seen: ClassVar[list[str]] = []

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        assert isinstance(self.params, _ScoredParams)
        reject_below, accept_at = self.params.band(self.params.threshold)
        out: list[Verdict] = []
        for inp in inputs:
            what = directive(inp)
            Scored.seen.append(what)
            if what == "error":
                out.append(Verdict.failed("no score"))
                continue
            score = float(what.split()[0].partition("=")[2])
            out.append(Verdict.by_band(decide(score, reject_below, accept_at), f"score {score}", score=score))
        return out


KINDS: list[type[GraderKind]] = [AcceptAll, Scripted, RaiseAlways, Costly, Scored]


def register_test_kinds() -> None:
    for cls in KINDS:
        register(cls, origin="tests/calibrate_support.py")


# --- project builders ---------------------------------------------------------------------------------


def sample(
    sid: str,
    label: str,
    what: str,
    *,
    category: str = "plain",
    group: str | None = None,
    generator: str | None = None,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": sid,
        "label": label,
        "category": category,
        "input": {"citation": {"url": f"https://example.org/{sid}", "title": what}},
    }
    if group is not None:
        data["group"] = group
    if generator is not None:
        data["generator"] = {"model": generator, "provider": "test"}
    if labels is not None:
        data["labels"] = [{"labeler": k, "label": v} for k, v in labels.items()]
    return data


def counted_samples(
    *, bad: int, false_accepts: int, good: int, false_rejects: int, errors_bad: int = 0, errors_good: int = 0
) -> list[dict[str, Any]]:
    """A set for the scripted kind with exactly these counts (errors come on top of the graded samples)."""
    out = []
    for i in range(bad):
        out.append(sample(f"b{i:05d}", "bad", "accept" if i < false_accepts else "reject", category="fake"))
    for i in range(errors_bad):
        out.append(sample(f"be{i:05d}", "bad", "error", category="fake"))
    for i in range(good):
        out.append(sample(f"g{i:05d}", "good", "reject" if i < false_rejects else "accept", category="real"))
    for i in range(errors_good):
        out.append(sample(f"ge{i:05d}", "good", "error", category="real"))
    return out


def write_set(
    root: Path,
    name: str,
    samples: list[dict[str, Any]],
    *,
    far: float = 0.05,
    frr: float = 0.2,
    err: float = 0.01,
    check: str = "source_existence",
    min_coverage: float | None = None,
) -> Path:
    folder = root / "calibration_sets" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(
        f'schema_version = 1\nname = "{name}"\nversion = 1\ncheck = "{check}"\n'
        f'description = "test set"\nsource = "generated by tests"\n\n[policy]\n'
        f"max_false_accept_rate = {far}\nmax_false_reject_rate = {frr}\nmax_error_rate = {err}\n"
        + ("" if min_coverage is None else f"min_coverage = {min_coverage}\n"),
        encoding="utf-8",
    )
    (folder / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    return folder


def write_grader(
    root: Path,
    name: str,
    kind: str,
    *,
    version: int = 1,
    params: dict[str, Any] | None = None,
    check: str = "source_existence",
) -> Path:
    folder = root / "graders" / name
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        "schema_version = 1",
        f'name = "{name}"',
        f"version = {version}",
        f'kind = "{kind}"',
        f'check = "{check}"',
        'description = "test grader"',
        "[params]",
    ]
    for key, value in (params or {}).items():
        lines.append(f"{key} = {json.dumps(value)}")
    path = folder / f"v{version}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
