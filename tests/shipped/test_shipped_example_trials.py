"""The shipped research-agent example: valid trials and corpus, reproducible, and an expected.json whose units
name real claims, sources and nuggets, with flaws that really are flaws."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from graderctl.models.trials import Trial
from graderctl.normalize import normalize_doi, normalize_url
from graderctl.plugin import Corpus
from graderctl.services.score import citation_units, claim_units
from graderctl.services.validate import validate_paths
from graderctl.store.corpus import load_corpus
from graderctl.store.problems import ProblemSink

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "research-agent"


@cache
def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_build", EXAMPLE / "_build" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _trials() -> list[Trial]:
    lines = (EXAMPLE / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    return [Trial.model_validate_json(line) for line in lines]


def _expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLE / "expected.json").read_text(encoding="utf-8"))
    return data


def test_files_are_what_the_builder_writes() -> None:
    stale = [p.name for p, text in _builder().render().items() if p.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date, run .venv/bin/python examples/research-agent/_build/build.py: {stale}"


def test_trials_and_corpus_validate() -> None:
    for path, as_type in ((EXAMPLE / "trials.jsonl", "trials"), (EXAMPLE / "corpus.jsonl", "corpus")):
        outcome = validate_paths([path], root=REPO, as_type=as_type)  # type: ignore[arg-type]
        assert outcome.ok, [p.to_dict() for p in outcome.problems]


def test_shape_matches_the_brief() -> None:
    trials = _trials()
    by_task = Counter(t.task_id for t in trials)
    assert 5 <= len(by_task) <= 6 and set(by_task.values()) == {5}
    docs = load_corpus(EXAMPLE / "corpus.jsonl", shown="corpus.jsonl", sink=ProblemSink())
    assert 15 <= len(docs) <= 25
    for t in trials:
        assert t.generator is not None and t.category and t.cost is not None and t.cost.usd is not None
        assert 3 <= len(t.task.nuggets) <= 5
        if t.stop_reason == "completed":
            assert 3 <= len(t.report.claims) <= 6, t.trial_id
            assert t.report.text.count("\n\n") >= 3, t.trial_id  # several paragraphs and a source list
    assert {t.stop_reason for t in trials} >= {"completed", "max_turns", "error"}
    outcomes = Counter(e["success"] for e in _expected().values())
    assert outcomes[True] >= 5 and outcomes[False] >= 10


def test_expected_units_name_real_things_and_flaws_are_real() -> None:
    trials = {t.trial_id: t for t in _trials()}
    expected = _expected()
    assert set(expected) == set(trials)
    docs = load_corpus(EXAMPLE / "corpus.jsonl", shown="corpus.jsonl", sink=ProblemSink())
    corpus = Corpus(docs)
    for tid, e in expected.items():
        t = trials[tid]
        se_units = {u.id: u for u in citation_units(t)}
        cs_units = {u.id for u in claim_units(t, corpus)}
        failed = e["failed_units"]
        assert e["success"] == (not failed)
        for uid in failed.get("source_existence", []):
            unit = se_units[uid]
            cit = unit.input.citation if unit.input is not None else None  # type: ignore[union-attr]
            assert cit is not None
            doc = (corpus.find_doi(cit.doi) if cit.doi else None) or (
                corpus.find_url(cit.url) if cit.url else None
            )
            # a failing citation either names no corpus document or quotes something that is not in it
            assert doc is None or cit.quote is None or cit.quote not in doc.text, (tid, uid)
        for uid in failed.get("claim_support", []):
            assert uid in cs_units, (tid, uid)
        for uid in failed.get("coverage", []):
            n = int(uid.split(":")[1])
            assert t.task.nuggets[n - 1].importance == "vital", (tid, uid)
        # every citation not expected to fail resolves to a corpus document
        for uid, unit in se_units.items():
            if uid in failed.get("source_existence", []):
                continue
            assert unit.input is not None, (tid, uid)
            cit = unit.input.citation  # type: ignore[union-attr]
            keys = (normalize_doi(cit.doi) if cit.doi else None, normalize_url(cit.url) if cit.url else None)
            assert (keys[0] in corpus.by_doi) or (keys[1] in corpus.by_url), (tid, uid, cit)
