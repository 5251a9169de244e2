"""Importing AttributionBench as a claim_support set: hand-made fixtures in the upstream JSONL format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import DATA, REPO

from graderctl.cli import _state, app
from graderctl.errors import InvalidInputError, UsageError
from graderctl.models.base import Check
from graderctl.models.calset import ClaimSupportSample
from graderctl.services import importers as imp
from graderctl.services.validate import validate_paths
from graderctl.store.project import load_set

FIX = DATA / "importers"
FOLDER = FIX / "attributionbench"
TEST_FILE = FOLDER / "attribution_eval_binary_test_v1_5.jsonl"
BAD = FIX / "attributionbench-bad"


def by_id(samples: list[ClaimSupportSample]) -> dict[str, ClaimSupportSample]:
    return {s.id: s for s in samples}


def claim_samples(path: Path) -> dict[str, ClaimSupportSample]:
    loaded = load_set(path)
    assert loaded.manifest.check is Check.claim_support
    samples = [s for s in loaded.samples if isinstance(s, ClaimSupportSample)]
    assert len(samples) == len(loaded.samples)
    return by_id(samples)


def test_one_file_labels_categories_evidence_and_dropped(tmp_path: Path) -> None:
    out = imp.import_set("attributionbench", TEST_FILE, tmp_path)
    assert out.path == tmp_path / "attributionbench-claim-support"
    assert validate_paths([out.path], root=tmp_path).ok
    got = claim_samples(out.path)
    assert set(got) == {
        "attributionbench-ExpertQA_toy-0001",
        "attributionbench-ExpertQA_toy-0002",
        "attributionbench-Stanford-GenSearch_toy-0003",
        "attributionbench-LFQA_toy-0004",
        "attributionbench-toy-shared-0001",  # one file: no collision, no prefix
    }
    assert out.imported.dropped == {"unknown_label": 1, "no_reference": 1, "no_claim": 1}
    assert (out.imported.n_good, out.imported.n_bad) == (3, 2)

    first = got["attributionbench-ExpertQA_toy-0001"]
    assert (first.label, first.category) == ("good", "expertqa_attributable")
    assert first.input.claim.startswith("Beekeepers often wrap hives")
    assert [e.text for e in first.input.evidence] == [
        "Wrapping a hive in an insulating cover reduces the heat the winter cluster loses to the cold air.",
        "Many keepers in northern regions insulate their hives each autumn.",
    ]
    assert all(e.source_id is None for e in first.input.evidence)
    assert first.rationale is not None
    assert "ExpertQA" in first.rationale and "ExpertQA_toy-0001" in first.rationale
    assert "attribution_eval_binary_test_v1_5.jsonl line 1" in first.rationale
    assert first.rationale.endswith(": attributable")

    # " Not Attributable " (case and spaces) is a known label
    third = got["attributionbench-Stanford-GenSearch_toy-0003"]
    assert (third.label, third.category) == ("bad", "stanford_gensearch_not_attributable")
    assert got["attributionbench-ExpertQA_toy-0002"].category == "expertqa_not_attributable"

    # "ATTRIBUTABLE", unknown extra fields tolerated, the blank reference left out of the evidence
    lfqa = got["attributionbench-LFQA_toy-0004"]
    assert (lfqa.label, lfqa.category) == ("good", "lfqa_attributable")
    assert [e.text for e in lfqa.input.evidence] == [
        "A red sector in a lighthouse beam warns ships that they are heading towards rocks or shallows."
    ]


def test_groups_keep_the_claims_of_one_question_together() -> None:
    built = imp.build_set("attributionbench", TEST_FILE)
    group = {s.id.removeprefix("attributionbench-"): s.group for s in built.samples}
    assert all(g and g.startswith("q-") for g in group.values())
    assert group["ExpertQA_toy-0001"] == group["ExpertQA_toy-0002"]  # the same question
    # the same question, with other case and spacing
    assert group["Stanford-GenSearch_toy-0003"] == group["toy-shared-0001"]
    assert (
        len({group["ExpertQA_toy-0001"], group["Stanford-GenSearch_toy-0003"], group["LFQA_toy-0004"]}) == 3
    )
    assert built.n_groups == 3


def test_folder_reads_every_jsonl_and_keeps_ids_unique(tmp_path: Path) -> None:
    out = imp.import_set("attributionbench", FOLDER, tmp_path)
    assert validate_paths([out.path], root=tmp_path).ok
    got = claim_samples(out.path)
    assert len(got) == 8
    assert (out.imported.n_good, out.imported.n_bad) == (4, 4)
    assert out.imported.dropped == {"unknown_label": 1, "no_reference": 1, "no_claim": 1, "duplicate_id": 1}
    # the id used in both files is prefixed with each file's stem; the others are not
    shared_test = got["attributionbench-attribution_eval_binary_test_v1_5-toy-shared-0001"]
    shared_ood = got["attributionbench-attribution_eval_binary_test_ood_v1_5-toy-shared-0001"]
    assert (shared_test.label, shared_ood.label) == ("good", "bad")
    assert shared_ood.category == "attreval_gensearch_not_attributable"
    assert "attributionbench-HAGRID_toy-0101" in got
    # the second HAGRID_toy-0101 of the same file is dropped, the first kept
    hagrid = got["attributionbench-HAGRID_toy-0101"]
    assert hagrid.input.evidence[0].text and hagrid.input.evidence[0].text.startswith("After breeding")
    # a record without an id (early versions) is named by its file and line
    begin = got["attributionbench-attribution_eval_binary_test_ood_v1_5-3"]
    assert (begin.label, begin.category) == ("bad", "begin_not_attributable")
    assert any("prefixed with the file name" in n for n in out.imported.notes)
    summary = out.summary(tmp_path)
    assert summary.by_category["hagrid_attributable"] == 1 and summary.documents == 0


def test_manifest_records_provenance_mapping_and_dropped_counts(tmp_path: Path) -> None:
    import tomllib

    out = imp.import_set("attributionbench", FOLDER, tmp_path)
    manifest = load_set(out.path).manifest
    assert manifest.name == "attributionbench-claim-support" and manifest.version == 1
    assert "osunlp/AttributionBench" in manifest.source
    assert "attribution_eval_binary_test_v1_5.jsonl" in manifest.source
    assert "attribution_eval_binary_test_ood_v1_5.jsonl" in manifest.source
    assert manifest.licence is not None and manifest.licence.startswith("Apache-2.0")
    assert manifest.citation is not None
    assert "AttributionBench: How Hard is Automatic Attribution Evaluation?" in manifest.citation
    assert manifest.label_mapping == {
        "attributable": "good",
        "not attributable": "bad",
        "any other label": "dropped",
    }
    assert "1 duplicate_id, 1 no_claim, 1 no_reference, 1 unknown_label" in manifest.description
    raw = tomllib.loads((out.path / "manifest.toml").read_text(encoding="utf-8"))
    assert raw["label_mapping"]["not attributable"] == "bad"
    assert any(n.startswith("1 record(s) left out: unknown_label") for n in out.imported.notes)


def test_policy_is_chosen_like_the_other_importers(tmp_path: Path) -> None:
    fallback = imp.build_set("attributionbench", TEST_FILE, root=tmp_path)  # a project with no sets
    assert fallback.manifest.policy == imp.FALLBACK_POLICIES[Check.claim_support]
    assert "default" in fallback.manifest.description
    shipped = tmp_path / "calibration_sets" / "my-claims"
    shipped.mkdir(parents=True)
    (shipped / "manifest.toml").write_text(
        'schema_version = 1\nname = "my-claims"\nversion = 1\ncheck = "claim_support"\n'
        "[policy]\nmax_false_accept_rate = 0.05\nmax_false_reject_rate = 0.3\n"
    )
    copied = imp.build_set("attributionbench", TEST_FILE, root=tmp_path)
    assert copied.manifest.policy.max_false_accept_rate == 0.05
    assert "my-claims" in copied.manifest.description


def test_labels_are_folded_leniently() -> None:
    fold = imp._fold_label
    assert fold("attributable") == fold(" Attributable\n") == "attributable"
    assert (
        fold("Not Attributable") == fold("not_attributable") == fold("NOT-attributable") == "not attributable"
    )
    assert fold("partially attributable") is None
    assert fold(None) is None and fold(1) is None


def test_imports_are_reproducible() -> None:
    a = imp.build_set("attributionbench", FOLDER)
    b = imp.build_set("attributionbench", FOLDER)
    assert imp.content_digest(a) == imp.content_digest(b)
    assert imp.content_digest(a) != imp.content_digest(imp.build_set("attributionbench", TEST_FILE))


# --- bad input ------------------------------------------------------------------------------------------


def test_errors_name_file_line_pointer_and_fix() -> None:
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("attributionbench", BAD)
    problems = info.value.problems
    where = {(p.line, p.pointer) for p in problems}
    assert (3, "/references") in where and (4, "/claim") in where
    assert any(p.line == 2 and "invalid JSON" in p.message for p in problems)
    assert all(p.file.endswith("attribution_eval_binary_dev_v1_5.jsonl") for p in problems)
    assert all(p.expected and p.got and p.fix for p in problems)
    assert len(problems) == 3  # the valid lines 1 and 5 are not reported


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_no_known_label_anywhere_is_a_problem(tmp_path: Path) -> None:
    row = {"claim": "A claim.", "references": ["A reference."], "src_dataset": "ExpertQA"}
    source = write_jsonl(
        tmp_path / "v1_6_1.jsonl",
        [row | {"id": "a", "attribution_label": "The claim is supported. Attributable"}, row | {"id": "b"}],
    )
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("attributionbench", source)
    [problem] = info.value.problems
    assert problem.pointer == "/attribution_label" and "no record has a known" in problem.message
    assert problem.got is not None and "The claim is supported" in problem.got


def test_wrong_types_and_non_objects(tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"claim": "c", "references": ["r", 3], "attribution_label": "attributable", "id": "x"},
            {"claim": "c", "references": ["r"], "attribution_label": "attributable", "id": ["x"]},
            {"claim": "c", "references": ["r"], "attribution_label": "attributable", "question": 1},
        ],
    )
    with source.open("a", encoding="utf-8") as fh:
        fh.write("[1, 2]\n")
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("attributionbench", source)
    assert {(p.line, p.pointer) for p in info.value.problems} == {
        (1, "/references/1"),
        (2, "/id"),
        (3, "/question"),
        (4, ""),
    }


def test_git_lfs_pointer_is_named(tmp_path: Path) -> None:
    pointer = tmp_path / "attribution_eval_binary_test_v1_5.jsonl"
    pointer.write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 123\n",
        encoding="utf-8",
    )
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("attributionbench", tmp_path)
    [problem] = info.value.problems
    assert problem.line == 1 and "LFS" in problem.message and problem.fix and "git lfs pull" in problem.fix


def test_missing_source_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        imp.build_set("attributionbench", tmp_path / "nothing-here")
    with pytest.raises(InvalidInputError) as info:
        imp.build_set("attributionbench", FIX / "realsumm")  # a folder without .jsonl files
    assert "*.jsonl" in (info.value.problems[0].expected or "")


def test_only_claim_support() -> None:
    with pytest.raises(UsageError):
        imp.build_set("attributionbench", TEST_FILE, as_check=Check.source_existence)


def test_nothing_usable_is_an_error(tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "t.jsonl", [{"claim": "c", "references": [], "attribution_label": "attributable"}]
    )
    with pytest.raises(InvalidInputError):
        imp.import_set("attributionbench", source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- command line ---------------------------------------------------------------------------------------


def run(*args: str) -> int:
    return _state.run(app, ["--root", str(REPO), *args])


def test_cli_import_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run("sets", "import", "attributionbench", str(FOLDER), "-o", str(tmp_path), "--format", "json")
    out = capsys.readouterr()
    assert code == 0, out.err
    doc = json.loads(out.out)
    assert doc["type"] == "import" and doc["check"] == "claim_support"
    assert (doc["samples"], doc["n_good"], doc["n_bad"]) == (8, 4, 4)
    assert doc["dropped"] == {"unknown_label": 1, "no_reference": 1, "no_claim": 1, "duplicate_id": 1}
    assert run("sets", "import", "attributionbench", str(TEST_FILE), "-o", str(tmp_path / "text")) == 0
    out = capsys.readouterr()
    assert "5 samples (3 good, 2 bad)" in out.out and "expertqa_attributable: 1" in out.out
    assert "left out: 1 (unknown_label)" in out.err and "left out: 1 (no_reference)" in out.err
    assert (
        run("sets", "import", "attributionbench", str(FOLDER), "-o", str(tmp_path), "--as-check", "coverage")
        == 2
    )


def test_cli_bad_json_exits_3_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out"
    code = run("sets", "import", "attributionbench", str(BAD), "-o", str(target))
    err = capsys.readouterr().err
    assert code == 3
    assert "attribution_eval_binary_dev_v1_5.jsonl:2: invalid JSON" in err
    assert "attribution_eval_binary_dev_v1_5.jsonl:3: /references" in err
    assert "Traceback" not in err
    assert not target.exists()


def test_cli_calibrate_runs_on_the_imported_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("sets", "import", "attributionbench", str(FOLDER), "-o", str(tmp_path)) == 0
    capsys.readouterr()
    set_dir = tmp_path / "attributionbench-claim-support"
    assert run("validate", str(set_dir)) == 0
    capsys.readouterr()
    reports_before = sorted(p.name for p in (REPO / "reports").iterdir())
    code = run("calibrate", "claim-support@1", "--set", str(set_dir), "--no-write", "--format", "json")
    out = capsys.readouterr()
    assert code in (0, 1), out.err  # trusted or not, the grader ran over every sample
    report = json.loads(out.out)
    assert report["calibration_set"]["name"] == "attributionbench-claim-support"
    assert (report["calibration_set"]["n_good"], report["calibration_set"]["n_bad"]) == (4, 4)
    assert report["n_graded"] == 8 and report["errors"] == 0
    assert {s["category"] for s in report["samples"]} >= {"hagrid_attributable", "begin_not_attributable"}
    assert sorted(p.name for p in (REPO / "reports").iterdir()) == reports_before
