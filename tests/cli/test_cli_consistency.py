"""One command line (issue 11, item 20): every command takes ``-q/--quiet`` with the same meaning,
``-o/--output`` is always what the command writes, help texts point only at what the repository ships,
"not found" messages say how to point at another project (``--root``), ``validate`` prints its summary on
stdout, and ``--format json`` prints exactly one JSON document on stdout when a command refuses or fails."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from graderctl.cli import _options, _state, app
from graderctl.errors import ExitCode
from graderctl.store import schemas

REPO = Path(__file__).resolve().parents[2]
TRIALS = "examples/research-agent/trials.jsonl"


def _leaves() -> Iterator[tuple[str, Any]]:
    """Every command a user can run, by its full name (``sets import``, ``trials import jsonl``)."""

    def walk(prefix: str, command: Any) -> Iterator[tuple[str, Any]]:
        if hasattr(command, "commands"):  # a group (typer's own click)
            for name, sub in sorted(command.commands.items()):
                yield from walk(f"{prefix} {name}".strip(), sub)
        else:
            yield prefix, command

    yield from walk("", typer.main.get_command(app))


LEAVES = dict(_leaves())


def _option(command: Any, name: str) -> Any:
    for p in command.params:
        if p.param_type_name == "option" and name in p.opts + p.secondary_opts:
            return p
    return None


def test_every_command_is_walked() -> None:
    assert {"validate", "score", "sets import", "trials import jsonl", "trials import inspect"} <= set(LEAVES)
    assert len(LEAVES) >= 15


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_quiet_is_everywhere_with_one_meaning(name: str) -> None:
    quiet = _option(LEAVES[name], "--quiet")
    assert quiet is not None, f"`graderctl {name}` has no --quiet"
    assert "-q" in quiet.opts, f"`graderctl {name} --quiet` has no -q"
    (expected,) = [o for o in _options.Quiet.__metadata__ if isinstance(o, typer.models.OptionInfo)]
    assert quiet.help == expected.help, f"`graderctl {name} --quiet` says something else: {quiet.help!r}"


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_output_is_always_o_and_what_is_written(name: str) -> None:
    output = _option(LEAVES[name], "--output")
    if output is None:
        return
    assert "-o" in output.opts, f"`graderctl {name} --output` has no -o"
    assert output.help and re.search(r"\b(write|writes|written)\b", output.help), output.help


def _help(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    code = _state.run(app, [*words, "--help"])
    assert code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["", *sorted(LEAVES), "sets", "trials", "trials import"])
def test_help_references_only_files_the_repository_ships(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text = _help(capsys, *name.split())
    assert "CONTRACT" not in text, text
    for ref in re.findall(r"[\w./-]+\.md\b", text):
        assert (REPO / ref).is_file(), f"`graderctl {name} --help` names {ref}, which the repository lacks"


def test_schema_list_names_no_file_the_repository_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert _state.run(app, ["schema"]) == 0
    out = capsys.readouterr().out
    assert "CONTRACT" not in out, out


# --- --root in the "not found" messages -----------------------------------------------------------------


@pytest.fixture
def empty_project(tmp_path: Path) -> Path:
    (tmp_path / "graders").mkdir()
    (tmp_path / "calibration_sets").mkdir()
    return tmp_path


def test_no_grader_found_says_how_to_point_at_the_project(
    capsys: pytest.CaptureFixture[str], empty_project: Path
) -> None:
    trials = empty_project / "trials.jsonl"
    shutil.copy(REPO / TRIALS, trials)
    code = _state.run(
        app, ["--root", str(empty_project), "score", str(trials), "-o", str(empty_project / "r.jsonl")]
    )
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR, err
    assert "no grader" in err and "--root" in err, err


def test_unknown_set_says_how_to_point_at_the_project(capsys: pytest.CaptureFixture[str]) -> None:
    code = _state.run(app, ["--root", str(REPO), "calibrate", "claim-support@1", "--set", "nosuch"])
    err = capsys.readouterr().err
    assert code == ExitCode.INVALID_INPUT and "--root" in err, err


def test_no_set_of_the_check_says_how_to_point_at_the_project(
    capsys: pytest.CaptureFixture[str], empty_project: Path
) -> None:
    shutil.copytree(REPO / "graders" / "claim-support", empty_project / "graders" / "claim-support")
    code = _state.run(app, ["--root", str(empty_project), "probe", "claim-support@1"])
    err = capsys.readouterr().err
    assert code == ExitCode.INVALID_INPUT and "no calibration set" in err and "--root" in err, err


# --- validate: the summary on stdout, problems on stdout, an error line on stderr -------------------------


def test_validate_prints_its_summary_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = _state.run(app, ["--root", str(REPO), "validate"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(r"\d+ file\(s\) checked: all valid\n\Z", out), out
    assert "file(s) checked" not in err  # the status of each file is there, not the summary


def test_validate_problems_go_to_stdout_and_the_failure_to_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "trials.jsonl"
    bad.write_text('{"task_id": 1}\n')
    code = _state.run(app, ["--root", str(REPO), "validate", str(bad)])
    out, err = capsys.readouterr()
    assert code == ExitCode.INVALID_INPUT
    assert "trials.jsonl:1" in out and re.search(r"1 file\(s\) checked, \d+ problem\(s\)\n\Z", out), out
    assert err.splitlines()[-1].startswith("error: ") and "problem(s)" in err, err


def test_validate_quiet_keeps_the_summary_and_drops_notes(capsys: pytest.CaptureFixture[str]) -> None:
    code = _state.run(app, ["--root", str(REPO), "validate", "-q", str(REPO / TRIALS)])
    out, err = capsys.readouterr()
    assert code == 0 and "1 file(s) checked: all valid" in out and not err, (out, err)


# --- --format json: exactly one JSON document on stdout, whatever goes wrong -----------------------------

FAILING: dict[str, list[str]] = {
    "validate": ["validate", "README.md", "--as", "trials"],
    "list": ["--root", "/nonexistent/graderctl-project", "list"],
    "calibrate": ["calibrate", "nosuch@1", "--no-write"],
    "calibrate usage": ["calibrate"],
    "compare": ["compare", "nosuch@1", "nosuch@2", "--no-write"],
    "score": ["score", "nosuch.jsonl", "-o", "{tmp}/r.jsonl"],
    "score refused": ["score", TRIALS, "-o", "{tmp}/r.jsonl"],
    "units": ["units", "nosuch.jsonl"],
    "metrics": ["metrics", "nosuch.jsonl"],
    "probe": ["probe", "nosuch@1", "--no-write"],
    "tune": ["tune", "nosuch@1", "--set", "claim-support-core", "--no-write"],
    "schema": ["schema", "nosuch"],
    "report": ["report", "nosuch.json", "-o", "{tmp}/site"],
    "sets import": ["sets", "import", "wice", "{tmp}/nosuch", "-o", "{tmp}/sets"],
    "sets add": ["sets", "add", "claim-support-core", "--from", "{tmp}/nosuch.jsonl", "--dry-run"],
    "trials import jsonl": ["trials", "import", "jsonl", "{tmp}/nosuch.jsonl", "-o", "{tmp}/t.jsonl",
                            "--map", "task_id=id,report=text"],
    "trials import inspect": ["trials", "import", "inspect", "{tmp}/nosuch.eval", "-o", "{tmp}/t.jsonl"],
}  # fmt: skip


def test_every_command_has_a_failing_case() -> None:
    assert set(LEAVES) <= {name.removesuffix(" usage").removesuffix(" refused") for name in FAILING}


@pytest.mark.parametrize("case", sorted(FAILING))
def test_format_json_prints_one_document_when_a_command_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str
) -> None:
    monkeypatch.chdir(REPO)
    args = [a.replace("{tmp}", str(tmp_path)) for a in FAILING[case]]
    code = _state.run(app, [*args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code >= 2, (code, out, err)
    doc = json.loads(out)  # exactly one document, nothing else on stdout
    assert isinstance(doc, dict) and doc["schema_version"] == 1
    if case == "validate":  # its own document lists the problems
        assert doc["ok"] is False
    else:
        assert doc["type"] == "error" and doc["exit_code"] == code and doc["error"], doc
        assert not [e.message for e in schemas.validator("error").iter_errors(doc)], doc  # the shipped schema
    assert err.strip(), "the error is said on stderr too"


@pytest.mark.parametrize("command", ["calibrate", "score", "tune"])
def test_format_json_prints_an_error_document_when_interrupted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    def interrupt(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    target, args = {
        "calibrate": ("graderctl.services.calibrate.calibrate",
                      ["calibrate", "claim-support@1", "--no-write"]),
        "score": ("graderctl.services.score.score_trials",
                  ["score", TRIALS, "-o", str(tmp_path / "r.jsonl"), "--allow-untrusted"]),
        "tune": ("graderctl.services.tune.tune",
                 ["tune", "claim-support@1", "--set", "claim-support-core", "--no-write"]),
    }[command]  # fmt: skip
    monkeypatch.setattr(target, interrupt)
    monkeypatch.chdir(REPO)
    code = _state.run(app, [*args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == ExitCode.INTERRUPTED, (out, err)
    doc = json.loads(out)
    assert (
        doc["type"] == "error" and doc["exit_code"] == ExitCode.INTERRUPTED and "interrupted" in doc["error"]
    )
    assert not [e.message for e in schemas.validator("error").iter_errors(doc)], doc


def test_timeout_must_be_finite(capsys: pytest.CaptureFixture[str]) -> None:
    """``--timeout inf`` was accepted and every sample then erred (exit 4: 'timestamp out of range')."""
    code = _state.run(app, ["--root", str(REPO), "calibrate", "claim-support@1", "--timeout", "inf"])
    assert code == ExitCode.USAGE_ERROR and "--timeout" in capsys.readouterr().err
