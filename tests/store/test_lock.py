"""graders/graders.lock: released versions are immutable."""

from __future__ import annotations

from pathlib import Path

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode, InvalidInputError
from graderctl.store.lock import Lock, check_graders, read_lock, read_lock_at, write_lock
from graderctl.store.project import load_grader
from tests.store.fixture_kind import PromptKind, copy_project, registered

V1 = Path("graders/judge/v1.toml")
LOCK = Path("graders/graders.lock")


@pytest.fixture(autouse=True)
def _fixture_kind() -> object:
    with registered():
        yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def validate(root: Path, *args: str) -> int:
    return _state.run(app, ["--root", str(root), "validate", *args])


def released(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert validate(project, "--update-lock") == 0, capsys.readouterr()
    capsys.readouterr()
    return project


def test_update_lock_adds_new_versions(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert not (project / LOCK).exists()
    assert validate(project) == 0
    err = capsys.readouterr().err
    assert "judge@1 is not in graders/graders.lock yet (unreleased)" in err
    assert validate(project, "--update-lock") == 0
    assert "locked judge@1" in capsys.readouterr().err
    lock = read_lock(project)
    fp = load_grader(project / V1, root=project).fingerprint
    assert lock.entries == {"judge@1": fp}
    assert lock.implementations == {"judge@1": "fixture_prompt/1"}
    text = (project / LOCK).read_text(encoding="utf-8")
    assert text.startswith("# Released grader versions")
    assert f'"judge@1" = "{fp}"' in text
    # idempotent: a second run changes nothing
    assert validate(project, "--update-lock") == 0
    assert "locked" not in capsys.readouterr().err
    assert (project / LOCK).read_text(encoding="utf-8") == text


def test_editing_a_released_version_fails_and_says_bump_the_version(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, capsys)
    path = project / V1
    path.write_text(path.read_text(encoding="utf-8").replace("threshold = 0.5", "threshold = 0.6"))
    assert validate(project) == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out
    assert "graders/judge/v1.toml" in out
    assert "released version judge@1 was edited" in out
    assert "bump the version" in out
    assert "graders/judge/v2.toml with version = 2" in out
    assert "Traceback" not in out


def test_editing_a_referenced_file_of_a_released_version_fails(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, capsys)
    prompt = project / "graders/judge/prompt.txt"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "Be strict.\n", encoding="utf-8")
    assert validate(project) == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out
    assert "bump the version" in out and "prompt.txt" in out


def test_cosmetic_edits_of_a_released_version_pass(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released(project, capsys)
    path = project / V1
    path.write_text(
        "# a new comment\n" + path.read_text(encoding="utf-8").replace(" = ", "="), encoding="utf-8"
    )
    assert validate(project) == 0, capsys.readouterr()


def test_update_lock_never_rewrites_a_changed_entry(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, capsys)
    before = (project / LOCK).read_text(encoding="utf-8")
    path = project / V1
    path.write_text(path.read_text(encoding="utf-8").replace("threshold = 0.5", "threshold = 0.6"))
    assert validate(project, "--update-lock") == ExitCode.INVALID_INPUT
    assert "bump the version" in capsys.readouterr().out
    assert (project / LOCK).read_text(encoding="utf-8") == before


def test_bumping_the_version_is_the_way_out(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released(project, capsys)
    v1 = (project / V1).read_text(encoding="utf-8")
    (project / "graders/judge/v2.toml").write_text(
        v1.replace("\nversion = 1", "\nversion = 2").replace("threshold = 0.5", "threshold = 0.6"),
        encoding="utf-8",
    )
    assert validate(project) == 0, capsys.readouterr()
    assert validate(project, "--update-lock") == 0
    assert "locked judge@2" in capsys.readouterr().err
    assert set(read_lock(project).entries) == {"judge@1", "judge@2"}
    # with v2 present, an edit of v1 points at v3
    (project / V1).write_text(v1.replace("threshold = 0.5", "threshold = 0.7"), encoding="utf-8")
    assert validate(project) == ExitCode.INVALID_INPUT
    assert "graders/judge/v3.toml with version = 3" in capsys.readouterr().out


def test_a_released_version_whose_file_is_missing_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, capsys)
    (project / V1).unlink()
    assert validate(project) == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out
    assert "graders/graders.lock" in out and "judge@1" in out and "definition is missing" in out


def test_implementation_change_alone_is_a_note_and_relocks(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, capsys)
    old = read_lock(project).entries["judge@1"]

    class Reimplemented(PromptKind):
        implementation_version = "2"

    with registered(Reimplemented):
        assert validate(project) == 0
        err = capsys.readouterr().err
        assert "implementation changed (fixture_prompt/1 -> fixture_prompt/2)" in err
        assert "definition is unchanged" in err
        assert validate(project, "--update-lock") == 0
        new = read_lock(project)
        assert new.entries["judge@1"] != old
        assert new.implementations["judge@1"] == "fixture_prompt/2"
        # but an edit on top of it is still an edit
        path = project / V1
        path.write_text(path.read_text(encoding="utf-8").replace("threshold = 0.5", "threshold = 0.6"))
        assert validate(project) == ExitCode.INVALID_INPUT


def test_lock_without_implementations_treats_any_change_as_an_edit(project: Path) -> None:
    grader = load_grader(project / V1, root=project)
    lock = Lock(path=project / LOCK, entries={"judge@1": "sha256:" + "0" * 64})
    result = check_graders([grader], lock, root=project)
    assert len(result.problems) == 1 and "bump the version" in (result.problems[0].fix or "")


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('schema_version = 1\n[graders]\n"judge@1" = "md5:abc"\n', 3, "malformed lock entry"),
        (
            'schema_version = 1\n[graders]\n"Judge one" = "sha256:' + "a" * 64 + '"\n',
            3,
            "malformed lock entry",
        ),
        ("schema_version = 2\n[graders]\n", 1, "schema_version"),
        ('schema_version = 1\ngraders = "all"\n', 2, "[graders] is not a table"),
        ("schema_version = 1\n[graders\n", 2, "TOML syntax error"),
        ("schema_version = 1\n[graders]\n[extra]\n", 3, "unknown key 'extra'"),
    ],
    ids=["bad fingerprint", "bad ref", "schema version", "not a table", "toml syntax", "unknown table"],
)
def test_lock_read_errors_are_clean(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, needle: str
) -> None:
    (project / LOCK).write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        read_lock_at(project / LOCK, root=project)
    problem = info.value.problems[0]
    assert problem.file == "graders/graders.lock"
    assert problem.line == line
    assert needle in problem.format()
    assert validate(project) == ExitCode.INVALID_INPUT
    captured = capsys.readouterr()
    assert f"graders/graders.lock:{line}" in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    lock = Lock(
        path=tmp_path / "graders.lock",
        entries={"b@2": "sha256:" + "b" * 64, "a@1": "sha256:" + "a" * 64},
        implementations={"a@1": "k/1"},
    )
    write_lock(lock)
    again = read_lock_at(lock.path)
    assert again.entries == lock.entries and again.implementations == lock.implementations
    text = lock.path.read_text(encoding="utf-8")
    assert text.index('"a@1"') < text.index('"b@2"')


def test_missing_lock_is_empty(tmp_path: Path) -> None:
    assert read_lock(tmp_path).entries == {}


def test_graders_outside_a_graders_folder_are_not_locked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project(tmp_path / "p")
    loose = tmp_path / "loose" / "judge"
    loose.mkdir(parents=True)
    (loose / "v1.toml").write_text((project / V1).read_text(encoding="utf-8"), encoding="utf-8")
    (loose / "prompt.txt").write_text("x\n", encoding="utf-8")
    assert validate(project, "--update-lock", "--as", "grader", str(loose / "v1.toml")) == 0, (
        capsys.readouterr()
    )
    assert not (tmp_path / "loose" / "graders.lock").exists()
