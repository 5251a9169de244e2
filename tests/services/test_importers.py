"""Importing WiCE and REALSumm as calibration sets: hand-made fixtures, and the real dev data when present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import DATA, shared_data

from graderctl.cli import _state, app
from graderctl.errors import InvalidInputError, UsageError
from graderctl.models.base import Check
from graderctl.models.calset import ClaimSupportSample, CoverageSample, SourceExistenceSample
from graderctl.services import importers as imp
from graderctl.store.project import load_set
from graderctl.store.upstream import manifest_toml

FIX = DATA / "importers"


# --- WiCE -----------------------------------------------------------------------------------------------


def test_wice_claim_support_strict_reading(tmp_path: Path) -> None:
    out = imp.import_set("wice", FIX / "wice", tmp_path)
    loaded = load_set(out.path)
    assert loaded.manifest.check is Check.claim_support
    assert loaded.manifest.label_mapping == {
        "supported": "good",
        "not_supported": "bad",
        "partially_supported": "bad",
    }
    assert loaded.manifest.licence and loaded.manifest.citation and "WiCE" in loaded.manifest.source
    assert "strict reading" in loaded.manifest.description
    by_id = {s.id: s for s in loaded.samples}
    assert set(by_id) == {"wice-toy001", "wice-toy002", "wice-toy003", "wice-toy004"}
    s2 = by_id["wice-toy002"]
    assert isinstance(s2, ClaimSupportSample)
    assert (s2.label, s2.category, s2.group) == ("bad", "partially_supported", "Northfield Robotics Club")
    assert s2.input.evidence[0].source_id == "toy002"
    doc = {d.id: d for d in loaded.corpus_documents}["toy001"]
    assert doc.title == "About the Harbour Lantern Festival"
    assert "(meta data)" not in doc.text
    assert doc.text.startswith("Skip to content\nThe Harbour Lantern Festival was first held in 1998")


@pytest.mark.parametrize(("partial", "n", "label"), [("drop", 3, None), ("good", 4, "good")])
def test_wice_partial_options(tmp_path: Path, partial: imp.PartialMode, n: int, label: str | None) -> None:
    built = imp.build_set("wice", FIX / "wice", partial=partial)
    assert len(built.samples) == n
    assert {s.id for s in built.samples if s.category == "partially_supported"} == (
        {"wice-toy002"} if label else set()
    )
    if partial == "drop":
        assert built.dropped == {"partially_supported": 1}
        assert len(built.corpus) == 3


def test_wice_source_existence_quote_checks(tmp_path: Path) -> None:
    out = imp.import_set("wice", FIX / "wice", tmp_path, as_check=Check.source_existence)
    loaded = load_set(out.path)
    assert loaded.manifest.check is Check.source_existence
    cats = {s.category for s in loaded.samples}
    assert {"verbatim_quote", "typographic_variant"} <= cats
    assert any(s.label == "bad" for s in loaded.samples)
    docs = {d.id: d for d in loaded.corpus_documents}
    for s in loaded.samples:
        assert isinstance(s, SourceExistenceSample)
        if s.category == "verbatim_quote":
            assert s.input.citation.quote and s.input.citation.quote in docs[s.group or ""].text
        if s.category == "changed_number":
            assert s.input.citation.quote not in docs[s.group or ""].text
    # reproducible: the same seed gives the same set, another seed another one
    a = imp.build_set("wice", FIX / "wice", as_check=Check.source_existence)
    b = imp.build_set("wice", FIX / "wice", as_check=Check.source_existence)
    c = imp.build_set("wice", FIX / "wice", as_check=Check.source_existence, seed=7)
    assert imp.content_digest(a) == imp.content_digest(b) != imp.content_digest(c)


def test_wice_errors_name_file_line_and_field() -> None:
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("wice", FIX / "wice-bad")
    problems = info.value.problems
    where = {(p.line, p.pointer) for p in problems}
    assert (1, "/label") in where
    assert (1, "/supporting_sentences/0/0") in where
    assert (2, "/claim") in where and (2, "/evidence") in where and (2, "/meta/id") in where
    assert any(p.line == 3 and "truncated" in p.message for p in problems)
    assert all(p.file.endswith("claims-dev.jsonl") for p in problems)


def test_wice_missing_source() -> None:
    with pytest.raises(InvalidInputError):
        imp.build_set("wice", FIX / "nothing-here")
    with pytest.raises(InvalidInputError):
        imp.build_set("wice", FIX / "realsumm")  # a folder without claim files


# --- REALSumm -------------------------------------------------------------------------------------------


def test_realsumm_majority_labels_ties_and_workers(tmp_path: Path) -> None:
    out = imp.import_set("realsumm", FIX / "realsumm", tmp_path)
    loaded = load_set(out.path)
    assert loaded.manifest.check is Check.coverage
    assert out.imported.dropped == {"tie": 1}
    got = {s.id: s for s in loaded.samples}
    assert len(got) == 7
    s = got["realsumm-doc1-abs_toysys-2"]
    assert isinstance(s, CoverageSample)
    assert (s.label, s.category, s.group) == ("good", "present_majority", "doc1")
    assert s.labels is not None and [x.label for x in s.labels] == ["good", "good", "bad"]
    assert s.input.nuggets[0].text == "Harriet Vance is 34 years old."
    assert s.input.nuggets[0].importance == "vital"
    assert s.input.report.startswith("Harriet Vance , 34")
    assert got["realsumm-doc1-abs_toysys-1"].category == "present_unanimous"
    assert got["realsumm-doc1-ext_toysys-2"].label == "bad"
    # the abs and ext summaries of one system are different reports
    assert "realsumm-doc1-ext_toysys-1" not in got  # the tie
    assert loaded.manifest.label_mapping == {
        "majority present": "good",
        "majority not present": "bad",
        "tie": "dropped",
    }


def test_realsumm_errors_name_file_line_and_field() -> None:
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("realsumm", FIX / "realsumm-bad")
    problems = {(Path(p.file).name, p.line, p.pointer) for p in info.value.problems}
    assert ("abs_broken.csv", 2, "Answer.S2Answer") in problems
    assert ("abs_broken.csv", 3, "Input.qIdList") in problems
    assert any(f == "ext_nocols.csv" and line == 1 for f, line, _ in problems)


# --- options, policy, writing ---------------------------------------------------------------------------


def test_bad_combinations_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        imp.build_set("realsumm", FIX / "realsumm", as_check=Check.claim_support)
    with pytest.raises(UsageError):
        imp.build_set("wice", FIX / "wice", name="Bad Name")
    with pytest.raises(UsageError):
        imp.build_set("other", FIX / "wice")


def test_policy_comes_from_the_shipped_set_for_the_check(tmp_path: Path) -> None:
    shipped = tmp_path / "calibration_sets" / "coverage-core"
    shipped.mkdir(parents=True)
    (shipped / "manifest.toml").write_text(
        'schema_version = 1\nname = "coverage-core"\nversion = 1\ncheck = "coverage"\n'
        "[policy]\nmax_false_accept_rate = 0.07\nmax_false_reject_rate = 0.3\n"
    )
    built = imp.build_set("realsumm", FIX / "realsumm", root=tmp_path)
    assert built.manifest.policy.max_false_accept_rate == 0.07
    assert "coverage-core" in built.manifest.description
    fallback = imp.build_set("wice", FIX / "wice", root=tmp_path)
    assert fallback.manifest.policy == imp.FALLBACK_POLICIES[Check.claim_support]
    assert "default" in fallback.manifest.description


def test_existing_folder_needs_force(tmp_path: Path) -> None:
    first = imp.import_set("wice", FIX / "wice", tmp_path)
    (first.path / "stray.txt").write_text("x")
    with pytest.raises(UsageError):
        imp.import_set("wice", FIX / "wice", tmp_path)
    again = imp.import_set("wice", FIX / "wice", tmp_path, force=True, partial="drop")
    assert not (again.path / "stray.txt").exists()
    assert len(load_set(again.path).samples) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["wice-claim-support"]  # no temporaries left


def test_manifest_toml_round_trips(tmp_path: Path) -> None:
    import tomllib

    built = imp.build_set("wice", FIX / "wice")
    data = tomllib.loads(manifest_toml(built.manifest))
    assert data["label_mapping"]["partially_supported"] == "bad"
    assert data["policy"]["max_false_reject_rate"] == built.manifest.policy.max_false_reject_rate


def test_cli_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def run(*args: str) -> int:
        return _state.run(app, list(args))

    code = run(
        "sets", "import", "realsumm", str(FIX / "realsumm"), "--output", str(tmp_path), "--format", "json"
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    doc = json.loads(out.out)
    assert doc["type"] == "import" and doc["samples"] == 7 and doc["dropped"] == {"tie": 1}
    assert run("sets", "import", "realsumm", str(FIX / "realsumm"), "-o", str(tmp_path)) == 2
    assert "--force" in capsys.readouterr().err
    assert run("sets", "import", "realsumm", str(FIX / "realsumm-bad"), "-o", str(tmp_path / "x")) == 3
    err = capsys.readouterr().err
    assert "abs_broken.csv:2" in err and "Answer.S2Answer" in err
    code = run(
        "sets", "import", "wice", str(FIX / "wice"), "-o", str(tmp_path), "--as-check", "source_existence"
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "wice-source-existence" in out.out


# --- the real development data --------------------------------------------------------------------------


def test_real_wice_dev() -> None:
    built = imp.build_set("wice", shared_data("wice"))
    assert (len(built.samples), built.n_good, built.n_bad) == (349, 115, 234)
    assert all(not d.text.startswith("(meta data)") for d in built.corpus)
    quotes = imp.build_set("wice", shared_data("wice"), as_check=Check.source_existence)
    assert quotes.n_good > 500 and quotes.n_bad > 400


def test_real_realsumm_dev() -> None:
    built = imp.build_set("realsumm", shared_data("realsumm"))
    assert len({s.group for s in built.samples}) == 52
    assert built.dropped["tie"] > 0
    assert len(built.samples) > 10000
    assert 0.4 < built.n_good / len(built.samples) < 0.6
