"""A tiny, deterministic grader kind for the score tests, and a project builder around it.

``fake_keyword`` rejects a unit whose text holds ``reject_word`` and errs on one holding ``error_word``.
For coverage it matches each nugget by substring and reports per-nugget rows in ``details`` like the
built-in kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from graderctl.models.calset import ClaimSupportInput, CoverageInput, SampleInput, SourceExistenceInput
from graderctl.plugin import GraderKind, Verdict, kinds, register

HERE = Path(__file__).resolve().parent


class FakeKeywordGrader(GraderKind):
    name = "fake_keyword"
    implementation_version = "1"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        reject_word: str = "BAD"
        error_word: str = "ERR"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        p: Any = self.params
        out: list[Verdict] = []
        for item in inputs:
            if isinstance(item, CoverageInput):
                rows = [
                    {
                        "nugget": n.text,
                        "importance": n.importance,
                        "matched": n.text.lower() in item.report.lower(),
                    }
                    for n in item.nuggets
                ]
                missing = [r for r in rows if not r["matched"] and r["importance"] == "vital"]
                if missing:
                    out.append(
                        Verdict.reject(f"{len(missing)} vital nugget(s) missing", details={"nuggets": rows})
                    )
                else:
                    out.append(Verdict.accept("all vital nuggets found", details={"nuggets": rows}))
                continue
            if isinstance(item, SourceExistenceInput):
                c = item.citation
                text = " ".join(x or "" for x in (c.source_id, c.url, c.doi, c.title, c.quote))
            elif isinstance(item, ClaimSupportInput):
                evidence = ", ".join(e.source_id or f"text:{e.text}" for e in item.evidence)
                text = f"{item.claim} [{evidence}]"
            else:
                out.append(Verdict.failed("unexpected input"))
                continue
            if p.error_word in text:
                out.append(Verdict.failed(f"the fake grader erred on {p.error_word}"))
            elif p.reject_word in text:
                out.append(Verdict.reject(f"holds {p.reject_word!r}: {text}"))
            else:
                out.append(Verdict.accept(f"fine: {text}"))
        return out


def ensure_registered() -> None:
    if "fake_keyword" not in kinds():
        register(FakeKeywordGrader, origin="tests/data/score/fake_kind.py")


#: The loosest policy a set can grant trust under: limits below 0.5 (one a coin flip meets grants none), which
#: 6 samples of each label support (0 errors in 6: upper 95% bound 0.393).
POLICY = "[policy]\nmax_false_accept_rate = 0.45\nmax_false_reject_rate = 0.45\nmax_error_rate = 0.5\n"


def write_grader(
    root: Path,
    name: str,
    check: str,
    *,
    version: int = 1,
    judge: tuple[str, str] | None = None,
    **params: str,
) -> None:
    folder = root / "graders" / name
    folder.mkdir(parents=True, exist_ok=True)
    text = (
        f'schema_version = 1\nname = "{name}"\nversion = {version}\nkind = "fake_keyword"\n'
        f'check = "{check}"\ndescription = "test grader"\n'
    )
    if params:
        text += "[params]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in params.items())
    if judge is not None:
        text += f'[judge]\nmodel = "{judge[0]}"\nprovider = "{judge[1]}"\n'
    (folder / f"v{version}.toml").write_text(text)


def _sample_inputs(check: str, good: bool, i: int) -> dict[str, Any]:
    word = "fine" if good else "BAD"
    if check == "source_existence":
        return {"citation": {"url": f"https://example.org/{word}/{i}", "quote": f"{word} quote"}}
    if check == "claim_support":
        return {"claim": f"a {word} claim number {i}", "evidence": [{"text": "some evidence"}]}
    return {
        "question": "q",
        "nuggets": [{"text": "alpha"}],
        "report": "alpha is here" if good else "nothing relevant",
    }


def write_set(
    root: Path, check: str, *, generators: dict[str, list[tuple[str, bool]]] | None = None, n: int = 6
) -> str:
    """A small set of ``check``: ``n`` good and ``n`` bad samples. ``generators`` adds bad samples by
    generator model: ``{"gpt-4o-mini": [(label, accepted_by_fake?)...]}`` is not needed: the fake decides by
    the word, so an own-family bad sample the fake accepts is written with ``fine`` text."""
    name = f"{check.replace('_', '-')}-test"
    folder = root / "calibration_sets" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(
        f'schema_version = 1\nname = "{name}"\nversion = 1\ncheck = "{check}"\ndescription = "t"\n'
        f'source = "tests"\n' + POLICY
    )
    rows = []
    for i in range(n):
        rows.append(
            {"id": f"g{i}", "label": "good", "category": "ok", "input": _sample_inputs(check, True, i)}
        )
        rows.append(
            {"id": f"b{i}", "label": "bad", "category": "bad", "input": _sample_inputs(check, False, i)}
        )
    for model, samples in (generators or {}).items():
        for j, (label, fooled) in enumerate(samples):
            rows.append(
                {
                    "id": f"gen-{model}-{j}",
                    "label": label,
                    "category": "generated",
                    "generator": {"model": model},
                    # a bad sample the fake accepts (it lacks the reject word): a false accept
                    "input": _sample_inputs(check, fooled, 100 + j),
                }
            )
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return name


def copy_trials(root: Path) -> tuple[Path, Path]:
    trials = root / "runs" / "trials.jsonl"
    trials.parent.mkdir(parents=True, exist_ok=True)
    trials.write_text((HERE / "trials.jsonl").read_text())
    corpus = root / "runs" / "corpus.jsonl"
    corpus.write_text((HERE / "corpus.jsonl").read_text())
    return trials, corpus


def make_project(root: Path, *, calibrate: bool = True) -> tuple[Path, Path]:
    """Three fake graders (one per check), a small set per check, calibrated (trusted) unless told not to."""
    ensure_registered()
    for name, check in (
        ("se-fake", "source_existence"),
        ("cs-fake", "claim_support"),
        ("cov-fake", "coverage"),
    ):
        write_grader(root, name, check)
        write_set(root, check)
    if calibrate:
        from graderctl.services.calibrate import api_calibrate

        for name in ("se-fake", "cs-fake", "cov-fake"):
            api_calibrate(f"{name}@1", root=root)
    return copy_trials(root)
