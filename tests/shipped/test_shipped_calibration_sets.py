"""The shipped calibration sets: valid, reproducible from their seeds, shaped as documented."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from graderctl.models.calset import CoverageSample
from graderctl.store.project import load_set

REPO = Path(__file__).resolve().parents[2]
SETS = REPO / "calibration_sets"
NAMES = ["source-existence-core", "claim-support-core", "coverage-core"]


@cache
def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calset_build", SETS / "_build" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_committed_sets_are_what_the_builder_writes() -> None:
    files = _builder().render()
    stale = [str(p.relative_to(REPO)) for p, text in files.items() if p.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date, run .venv/bin/python calibration_sets/_build/build.py: {stale}"


@pytest.mark.parametrize("name", NAMES)
def test_set_is_valid_balanced_and_documented(name: str) -> None:
    builder = _builder()
    loaded = load_set(SETS / name, root=REPO)  # raises on any schema or cross-reference problem
    assert loaded.n_good >= 120 and loaded.n_bad >= 120
    expected = {
        "source_existence": (builder.SE_GOOD, builder.SE_BAD),
        "claim_support": (builder.CS_GOOD, builder.CS_BAD),
        "coverage": (builder.COV_GOOD, builder.COV_BAD),
    }[loaded.manifest.check]
    by_label = {
        label: Counter(s.category for s in loaded.samples if s.label == label) for label in ("good", "bad")
    }
    assert set(by_label["good"]) == expected[0]
    assert set(by_label["bad"]) == expected[1]
    for s in loaded.samples:
        assert s.group and s.rationale and len(s.rationale) >= 25, s.id
    for label in ("good", "bad"):
        of_label = [s for s in loaded.samples if s.label == label]
        share = sum(s.generator is not None for s in of_label) / len(of_label)
        assert 0.25 <= share <= 0.42, (label, share)
    assert loaded.manifest.name == name and loaded.manifest.version >= 1


def test_coverage_labellers_agree_with_the_majority_and_sometimes_disagree() -> None:
    loaded = load_set(SETS / "coverage-core", root=REPO)
    with_labels = [s for s in loaded.samples if isinstance(s, CoverageSample) and s.labels]
    assert 35 <= len(with_labels) <= 45
    split = 0
    for s in with_labels:
        assert s.labels is not None and 2 <= len(s.labels) <= 3
        votes = Counter(x.label for x in s.labels)
        assert votes[s.label] > len(s.labels) / 2, s.id
        split += len(votes) > 1
    assert 3 <= split <= 10
    for s in loaded.samples:
        assert isinstance(s, CoverageSample)
        assert 120 <= len(s.input.report.split()) <= 350, s.id


def test_builder_refuses_a_misquote_that_is_really_in_the_document() -> None:
    builder = _builder()
    docs = builder.load_docs()
    doc = docs[0]
    doc.num = [doc.quotes[0], doc.quotes[0][:-1] + doc.quotes[0][-1]]  # "misquote" identical to the text
    with pytest.raises(builder.SeedError, match="misquote is in the text"):
        builder.check_docs(docs)
