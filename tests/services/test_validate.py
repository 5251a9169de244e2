"""The validate service: what a path is, walking folders, the outcome document, locks per graders/ folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.store.fixture_kind import copy_project, registered

from graderctl.services.validate import classify, validate_paths

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "data" / "broken"


@pytest.fixture(autouse=True)
def _fixture_kind() -> object:
    with registered():
        yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def test_classify(project: Path, tmp_path: Path) -> None:
    assert classify(project) == "tree"
    assert classify(project / "graders") == "graders"
    assert classify(project / "calibration_sets") == "sets"
    assert classify(project / "calibration_sets/fp-set") == "set"
    assert classify(project / "calibration_sets/fp-set/manifest.toml") == "set"
    assert classify(project / "calibration_sets/fp-set/corpus.jsonl") == "corpus"
    assert classify(project / "graders/judge/v1.toml") == "grader"
    assert classify(BROKEN / "calibration_sets/no-manifest") == "set"
    assert classify(BROKEN / "trials/duplicate.trials.jsonl") == "trials"
    assert classify(BROKEN / "results/duplicate.results.jsonl") == "results"
    assert classify(BROKEN / "misc/notes.txt") is None
    assert classify(BROKEN / "misc") == "folder"
    (project / "graders/graders.lock").write_text("schema_version = 1\n", encoding="utf-8")
    assert classify(project / "graders/graders.lock") is None


def test_valid_tree_outcome(project: Path) -> None:
    out = validate_paths([project], root=project)
    assert out.ok and out.problem_count == 0
    doc = out.document().model_dump(mode="json")
    json.dumps(doc)  # serialisable
    assert doc["schema_version"] == 1 and doc["type"] == "validation"
    by_type = {f["type"]: f for f in doc["files"]}
    assert by_type["grader"]["path"] == "graders/judge/v1.toml"
    assert by_type["grader"]["detail"] == "judge@1 (fixture_prompt, claim_support)"
    assert by_type["set"]["path"] == "calibration_sets/fp-set" and by_type["set"]["records"] == 3
    assert by_type["set"]["fingerprint"].startswith("sha256:")
    assert any("judge@1 is not in graders/graders.lock yet" in n for n in out.notes)


def test_plain_folders_are_searched(tmp_path: Path) -> None:
    base = tmp_path / "misc-folder"
    shutil.copytree(BROKEN / "tolerated", base / "deeper" / "tree")
    for name in ("crlf.trials.jsonl", "bom.results.jsonl"):
        shutil.move(base / "deeper" / "tree" / name, base / name)
    (base / "README.txt").write_text("ignored in a walk\n", encoding="utf-8")
    out = validate_paths([base], root=tmp_path)
    assert out.ok, [p.format() for p in out.problems]
    assert sorted(f.type for f in out.files) == ["grader", "results", "set", "trials"]


def test_each_file_is_checked_once(project: Path) -> None:
    out = validate_paths(
        [
            project,
            project / "graders",
            project / "graders/judge/v1.toml",
            project / "calibration_sets/fp-set",
            project / "calibration_sets/fp-set/manifest.toml",
        ],
        root=project,
    )
    assert sorted(f.path for f in out.files) == ["calibration_sets/fp-set", "graders/judge/v1.toml"]


def test_nothing_to_validate(tmp_path: Path) -> None:
    (tmp_path / "graders").mkdir()
    out = validate_paths([tmp_path], root=tmp_path)
    assert out.ok and out.files == []
    assert out.notes == ["nothing to validate: no grader definitions or calibration sets found"]


def test_cap_is_shared_across_files() -> None:
    out = validate_paths([BROKEN / "calibration_sets"], root=REPO, cap=3)
    assert len(out.problems) == 3 and out.omitted > 0 and not out.ok
    assert out.problem_count == len(out.problems) + out.omitted
    failing = [f for f in out.files if not f.ok]
    assert sum(f.problems for f in failing) == out.problem_count


def test_lock_lives_in_the_graders_folder_of_each_tree(tmp_path: Path) -> None:
    a = copy_project(tmp_path / "a")
    b = copy_project(tmp_path / "b")
    out = validate_paths([a, b], root=tmp_path, update_lock=True)
    assert out.ok and out.lock_added == ["judge@1", "judge@1"]
    assert (a / "graders/graders.lock").is_file() and (b / "graders/graders.lock").is_file()
    # editing the grader in one tree fails there only
    v1 = b / "graders/judge/v1.toml"
    v1.write_text(v1.read_text(encoding="utf-8").replace("0.5", "0.4"), encoding="utf-8")
    out = validate_paths([a, b], root=tmp_path)
    assert [p.file for p in out.problems] == ["b/graders/judge/v1.toml"]
    status = {f.path: f.ok for f in out.files}
    assert status == {
        "a/calibration_sets/fp-set": True,
        "a/graders/judge/v1.toml": True,
        "b/calibration_sets/fp-set": True,
        "b/graders/judge/v1.toml": False,
    }


def test_a_folder_walk_checks_data_files_whose_names_say_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "incoming"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jsonl").write_text('{"task_id": "t", "trial_id": "1", "success": "yes"}\n', encoding="utf-8")
    (folder / "sub" / "b.jsonl").write_text("[1]\n", encoding="utf-8")
    (folder / "c.toml").write_text('name = "unterminated\n', encoding="utf-8")
    (folder / "fine.jsonl").write_text('{"x": 1}\n', encoding="utf-8")
    (folder / "notes.md").write_text("# not data\n", encoding="utf-8")
    out = validate_paths([folder], root=tmp_path)
    assert not out.ok
    where = sorted((p.file, p.line) for p in out.problems)
    assert where == [("incoming/a.jsonl", 1), ("incoming/c.toml", 1), ("incoming/sub/b.jsonl", 1)]
    assert any("incoming/fine.jsonl: skipped" in n for n in out.notes)
    assert not any("notes.md" in n for n in out.notes)


def test_a_named_tree_also_checks_its_top_level_data_files(project: Path) -> None:
    (project / "runs").mkdir()
    (project / "runs" / "deep.trials.jsonl").write_text("[1]\n", encoding="utf-8")
    (project / "top.results.jsonl").write_text('{"task_id": "t", "trial_id": "1"}\n', encoding="utf-8")
    named = validate_paths([project], root=project)
    assert [(p.file, p.pointer) for p in named.problems] == [("top.results.jsonl", "/success")]
    default = validate_paths([], root=project)  # the project: graders/ and calibration_sets/ only
    assert default.ok and sorted(f.type for f in default.files) == ["grader", "set"]
