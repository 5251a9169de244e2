"""Loading grader definitions and calibration sets: every problem, cross-references, public API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from graderctl.errors import InvalidInputError
from graderctl.store.problems import ProblemSink
from graderctl.store.project import (
    check_set,
    find_grader,
    find_set,
    grader_files,
    load_grader,
    load_set,
    parse_ref,
    set_folders,
    stray_grader_files,
)
from tests.store.fixture_kind import FIXTURES, PromptKind, copy_project, registered

V1 = Path("graders/judge/v1.toml")
SET = Path("calibration_sets/fp-set")


@pytest.fixture(autouse=True)
def _fixture_kind() -> object:
    with registered():
        yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def problems_of(call: object) -> list[str]:
    assert callable(call)
    with pytest.raises(InvalidInputError) as info:
        call()
    return [p.format() for p in info.value.problems]


# --- graders ------------------------------------------------------------------------------------------


def test_load_grader(project: Path) -> None:
    g = load_grader(project / V1, root=project)
    assert g.ref == "judge@1" and g.shown == "graders/judge/v1.toml"
    assert g.kind is PromptKind and g.params.model_dump()["threshold"] == 0.5
    assert g.files["prompt.txt"].startswith("Is the claim supported")
    built = g.build()
    assert built.context.fingerprint == g.fingerprint and built.context.base_dir == project / "graders/judge"


def test_find_grader_by_ref_name_and_path(project: Path) -> None:
    v1 = (project / V1).read_text(encoding="utf-8")
    (project / "graders/judge/v2.toml").write_text(
        v1.replace("\nversion = 1", "\nversion = 2"), encoding="utf-8"
    )
    assert find_grader("judge", project).ref == "judge@2"
    assert find_grader("judge@1", project).ref == "judge@1"
    assert find_grader(str(project / V1), project).ref == "judge@1"
    assert grader_files(project) == [project / V1, project / "graders/judge/v2.toml"]


@pytest.mark.parametrize(
    ("ref", "needle"),
    [
        ("nobody", "unknown grader 'nobody'"),
        ("judge@7", "judge has no version 7"),
        ("judge@x", "bad grader reference"),
    ],
)
def test_find_grader_errors(project: Path, ref: str, needle: str) -> None:
    assert any(needle in p for p in problems_of(lambda: find_grader(ref, project)))


def test_parse_ref() -> None:
    assert parse_ref("a@2") == ("a", 2) and parse_ref("a@v3") == ("a", 3) and parse_ref("a") == ("a", None)


def test_all_grader_problems_are_reported_together(project: Path) -> None:
    path = project / V1
    text = path.read_text(encoding="utf-8")
    renamed = text.replace('name = "judge"', 'name = "judge2"')
    path.write_text(renamed.replace("threshold = 0.5", "threshold = 0.5\nbogus = 1"), encoding="utf-8")
    found = problems_of(lambda: load_grader(path, root=project))
    assert any("/name: the name does not match the folder" in p for p in found)
    assert any("/params/bogus: unknown field 'bogus'" in p for p in found)
    # the kind's own definition checks run once its params are valid
    path.write_text(renamed.replace("threshold = 0.5", "threshold = 2.0"), encoding="utf-8")
    found = problems_of(lambda: load_grader(path, root=project))
    assert any("/name: the name does not match the folder" in p for p in found)
    assert any("graders/judge/v1.toml:9: /params: threshold must be between 0 and 1" in p for p in found)


@pytest.mark.parametrize(
    ("prompt", "needle"),
    [
        ("missing.txt", "cannot read referenced file 'missing.txt'"),
        ("/etc/hostname", "is an absolute path"),
        ("latin1.txt", "is not UTF-8 text"),
    ],
)
def test_referenced_file_problems(project: Path, prompt: str, needle: str) -> None:
    (project / "graders/judge/latin1.txt").write_bytes(b"caf\xe9\n")
    path = project / V1
    path.write_text(
        path.read_text(encoding="utf-8").replace('"prompt.txt"', json.dumps(prompt)), encoding="utf-8"
    )
    found = problems_of(lambda: load_grader(path, root=project))
    assert any(needle in p and p.startswith("graders/judge/v1.toml:") for p in found), found


def test_a_crashing_kind_hook_is_a_problem_not_a_crash(project: Path) -> None:
    class Crashing(PromptKind):
        @classmethod
        def validate_definition(cls, params: BaseModel, base_dir: Path) -> list[str]:
            raise ZeroDivisionError("oops")

    with registered(Crashing):
        found = problems_of(lambda: load_grader(project / V1, root=project))
    assert any(
        "failed in validate_definition/referenced_files(): ZeroDivisionError: oops" in p for p in found
    )


def test_model_based_kind_requires_a_judge(project: Path) -> None:
    class Judged(PromptKind):
        model_based = True

    path = project / V1
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("[judge]")], encoding="utf-8")
    with registered(Judged):
        found = problems_of(lambda: load_grader(path, root=project))
    assert any("/judge:" in p and "add [judge]" in p for p in found)


def test_stray_toml_files_are_found_unless_referenced(project: Path) -> None:
    stray = project / "graders/judge/latest.toml"
    stray.write_text("x = 1\n", encoding="utf-8")
    assert stray_grader_files(project, set()) == [stray]
    assert stray_grader_files(project, {stray.resolve()}) == []


# --- sets ---------------------------------------------------------------------------------------------


def sample(ident: str, label: str, evidence: list[dict[str, str]] | None = None) -> str:
    value = {
        "id": ident,
        "label": label,
        "category": "c",
        "input": {"claim": "x", "evidence": evidence or [{"text": "t"}]},
    }
    return json.dumps(value) + "\n"


def test_load_set_and_check_set_agree(project: Path) -> None:
    loaded = load_set(project / SET, root=project)
    assert loaded.name == "fp-set" and loaded.check == "claim_support"
    assert (loaded.n_good, loaded.n_bad) == (1, 2)
    assert [s.id for s in loaded.samples] == ["fp-001", "fp-002", "fp-003"]
    assert loaded.sample_lines == {"fp-001": 1, "fp-002": 2, "fp-003": 3}
    assert loaded.corpus.get("d1") is not None
    sink = ProblemSink()
    summary = check_set(project / SET, root=project, sink=sink)
    assert not sink
    assert summary.fingerprint == loaded.fingerprint
    assert (summary.n_samples, summary.n_good, summary.n_bad, summary.n_documents) == (3, 1, 2, 2)


def test_find_set_by_name_and_path(project: Path) -> None:
    assert find_set("fp-set", project).name == "fp-set"
    assert find_set(str(project / SET), project).name == "fp-set"
    assert set_folders(project) == [project / SET]
    assert any("unknown calibration set 'nope'" in p for p in problems_of(lambda: find_set("nope", project)))


def test_a_set_name_is_the_projects_set_whatever_the_current_folder_holds(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder in the current folder named like a set does not shadow the project's set: a name is a name;
    a path is a path only when it looks like one (a separator, ``./``, or a ``.jsonl`` name)."""
    here = tmp_path / "elsewhere"
    import shutil

    shutil.copytree(project / SET, here / "fp-set")
    lines = (here / "fp-set" / "samples.jsonl").read_text().splitlines()
    (here / "fp-set" / "samples.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # another set, same name
    monkeypatch.chdir(here)
    assert find_set("fp-set", project).path.resolve() == (project / SET).resolve()
    assert find_set("./fp-set", project).path.resolve() == (here / "fp-set").resolve()
    assert find_set(str(here / "fp-set"), project).path.resolve() == (here / "fp-set").resolve()
    assert find_set("fp-set/samples.jsonl", project).path.resolve() == (here / "fp-set").resolve()
    # A bare name the project lacks is a folder of the current folder (the contract: a set name or a path).
    shutil.move(here / "fp-set", here / "mine")
    problems = problems_of(lambda: find_set("mine", project))
    assert problems and not any("unknown calibration set" in p for p in problems), problems
    assert all(p.startswith("mine/") for p in problems), problems
    assert any("unknown calibration set 'nope'" in p for p in problems_of(lambda: find_set("nope", project)))


def test_load_set_reports_manifest_samples_and_corpus_problems_together(project: Path) -> None:
    folder = project / SET
    manifest = folder / "manifest.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("0.05", "1.05"), encoding="utf-8")
    with (folder / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(sample("fp-001", "good", evidence=[{"source_id": "zz"}]))
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"id": "d2"}\n')
    found = problems_of(lambda: load_set(folder, root=project))
    assert any(
        p.startswith("calibration_sets/fp-set/manifest.toml:9: /policy/max_false_accept_rate") for p in found
    )
    assert any(
        p.startswith("calibration_sets/fp-set/samples.jsonl:4: /id: duplicate sample id 'fp-001'")
        for p in found
    )
    assert any(
        p.startswith("calibration_sets/fp-set/corpus.jsonl:3: /id: duplicate document id 'd2'") for p in found
    )


def test_samples_are_checked_even_when_the_manifest_is_broken(project: Path) -> None:
    folder = project / SET
    manifest = folder / "manifest.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("[policy]", "[policy]\nbogus = 1"), encoding="utf-8"
    )
    with (folder / "samples.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(sample("fp-004", "maybe"))
    found = problems_of(lambda: load_set(folder, root=project))
    assert any("/policy/bogus" in p for p in found)
    assert any("samples.jsonl:4: /label" in p for p in found)
    # a manifest that cannot be parsed at all: samples still get their JSON and envelope checks
    manifest.write_text("name = \n", encoding="utf-8")
    sink = ProblemSink()
    summary = check_set(folder, root=project, sink=sink)
    messages = [p.format() for p in sink.problems]
    assert summary.fingerprint is None
    assert any("TOML syntax error" in m for m in messages)
    assert any("samples.jsonl:4: /label" in m for m in messages)


def test_a_source_id_with_no_corpus_says_so(project: Path) -> None:
    (project / SET / "corpus.jsonl").unlink()
    found = problems_of(lambda: load_set(project / SET, root=project))
    assert any("(the set has no corpus)" in p for p in found)


def test_check_set_streams_large_sets_without_keeping_samples(project: Path) -> None:
    folder = project / SET
    lines = [
        json.dumps(
            {
                "id": f"s{i}",
                "label": "good" if i % 2 else "bad",
                "category": "c",
                "input": {"claim": "x", "evidence": [{"source_id": "d1"}]},
            }
        )
        for i in range(2000)
    ]
    (folder / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sink = ProblemSink()
    summary = check_set(folder, root=project, sink=sink)
    assert not sink and summary.n_samples == 2000 and summary.n_good == 1000
    assert summary.fingerprint == load_set(folder, root=project).fingerprint


def test_fixture_set_is_valid() -> None:
    assert load_set(FIXTURES / SET, root=FIXTURES).fingerprint.startswith("sha256:")
