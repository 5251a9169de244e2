"""``graderctl validate`` on a corpus of broken files (tests/data/broken).

Every problem is named with file, line, JSON pointer, expected and got; exit 3; never a traceback. Tolerated
oddities (BOM, CRLF, blank lines, no final newline) pass."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "data" / "broken"
SHOWN = "tests/data/broken"


@dataclass(frozen=True)
class Case:
    path: str  # relative to tests/data/broken: what is passed to validate
    file: str  # the file the problem is reported in, relative to tests/data/broken
    line: int | None
    pointer: str
    expected: str
    got: str
    fix: str = ""

    @property
    def id(self) -> str:
        return self.path


CASES = [
    # --- grader definitions --------------------------------------------------------------------------
    Case(
        "graders/unknown-kind/v1.toml",
        "graders/unknown-kind/v1.toml",
        4,
        "/kind",
        "one of: ",
        "'no_such_kind'",
    ),
    Case(
        "graders/kind-typo/v1.toml",
        "graders/kind-typo/v1.toml",
        4,
        "/kind",
        "source_existence",
        "'source_existance'",
        "did you mean 'source_existence'?",
    ),
    Case(
        "graders/name-mismatch/v1.toml",
        "graders/name-mismatch/v1.toml",
        2,
        "/name",
        "'name-mismatch'",
        "'other-name'",
        "set name = 'name-mismatch'",
    ),
    Case(
        "graders/version-mismatch/v2.toml",
        "graders/version-mismatch/v2.toml",
        3,
        "/version",
        "expected 2",
        "got 3",
        "rename the file to v3.toml",
    ),
    Case(
        "graders/toml-syntax/v1.toml",
        "graders/toml-syntax/v1.toml",
        9,
        "",
        "valid TOML",
        "check_quote = = true",
    ),
    Case(
        "graders/field-typo/v1.toml",
        "graders/field-typo/v1.toml",
        6,
        "/descripton",
        "description",
        "'descripton'",
        "did you mean 'description'?",
    ),
    Case("graders/bad-check/v1.toml", "graders/bad-check/v1.toml", 5, "/check", "'claim_support'", '"vibes"'),
    Case(
        "graders/wrong-type/v1.toml",
        "graders/wrong-type/v1.toml",
        3,
        "/version",
        "an integer",
        'a string "1"',
        "write 1 without quotes",
    ),
    Case("graders/missing-check/v1.toml", "graders/missing-check/v1.toml", 1, "/check", "'check'", "nothing"),
    Case("graders/empty/v1.toml", "graders/empty/v1.toml", 1, "", "a TOML document", "no content"),
    Case("graders/bad-utf8/v1.toml", "graders/bad-utf8/v1.toml", 6, "", "UTF-8 text", "byte 0xe9"),
    Case(
        "graders/params-typo/v1.toml",
        "graders/params-typo/v1.toml",
        9,
        "/params/check_qoute",
        "check_quote",
        "'check_qoute'",
        "did you mean 'check_quote'?",
    ),
    Case(
        "graders/params-type/v1.toml",
        "graders/params-type/v1.toml",
        9,
        "/params/check_quote",
        "true or false",
        'a string "yes"',
    ),
    Case(
        "graders/judge-no-model/v1.toml",
        "graders/judge-no-model/v1.toml",
        11,
        "/judge/model",
        "'model'",
        "nothing",
    ),
    Case(
        "graders/check-not-graded/v1.toml",
        "graders/check-not-graded/v1.toml",
        5,
        "/check",
        "'source_existence'",
        "'coverage'",
    ),
    Case(
        "graders/bad-filename", "graders/bad-filename/latest.toml", 1, "", "v1.toml, v2.toml", "'latest.toml'"
    ),
    Case("graders/schema-version/v1.toml", "graders/schema-version/v1.toml", 1, "/schema_version", "1", "2"),
    Case(
        "graders/nan-param/v1.toml",
        "graders/nan-param/v1.toml",
        10,
        "/params/max_char_edit_ratio",
        "a finite number",
        "got nan",
    ),
    Case("graders/not-a-table/v1.toml", "graders/not-a-table/v1.toml", 8, "/params", "an object", "a string"),
    # --- calibration sets ----------------------------------------------------------------------------
    Case(
        "calibration_sets/no-manifest",
        "calibration_sets/no-manifest/manifest.toml",
        None,
        "",
        "manifest.toml with",
        "samples.jsonl",
        "add a manifest.toml",
    ),
    Case(
        "calibration_sets/manifest-syntax",
        "calibration_sets/manifest-syntax/manifest.toml",
        4,
        "",
        "valid TOML",
        "unterminated",
    ),
    Case(
        "calibration_sets/policy-rate",
        "calibration_sets/policy-rate/manifest.toml",
        9,
        "/policy/max_false_accept_rate",
        "<= 1",
        "1.5",
    ),
    Case(
        "calibration_sets/no-policy",
        "calibration_sets/no-policy/manifest.toml",
        1,
        "/policy",
        "'policy'",
        "nothing",
    ),
    Case(
        "calibration_sets/manifest-bad-check",
        "calibration_sets/manifest-bad-check/manifest.toml",
        4,
        "/check",
        "'claim_support'",
        '"claims"',
        "did you mean 'claim_support'?",
    ),
    Case(
        "calibration_sets/manifest-typo",
        "calibration_sets/manifest-typo/manifest.toml",
        10,
        "/policy/max_false_rejects_rate",
        "max_false_reject_rate",
        "'max_false_rejects_rate'",
        "did you mean 'max_false_reject_rate'?",
    ),
    Case(
        "calibration_sets/set-name-mismatch",
        "calibration_sets/set-name-mismatch/manifest.toml",
        2,
        "/name",
        "'set-name-mismatch'",
        "'another-set'",
    ),
    Case(
        "calibration_sets/label-maybe",
        "calibration_sets/label-maybe/samples.jsonl",
        2,
        "/label",
        "'good' or 'bad'",
        '"maybe"',
    ),
    Case(
        "calibration_sets/label-typo",
        "calibration_sets/label-typo/samples.jsonl",
        2,
        "/lable",
        "label",
        "'lable'",
        "did you mean 'label'?",
    ),
    Case(
        "calibration_sets/citation-no-id",
        "calibration_sets/citation-no-id/samples.jsonl",
        2,
        "/input/citation",
        "at least one of source_id, url, doi",
        '"title": "A paper"',
    ),
    Case(
        "calibration_sets/citation-url-type",
        "calibration_sets/citation-url-type/samples.jsonl",
        2,
        "/input/citation/url",
        "a string",
        "an integer 5",
    ),
    Case(
        "calibration_sets/coverage-in-claim",
        "calibration_sets/coverage-in-claim/samples.jsonl",
        2,
        "/input",
        "a claim_support input with claim, evidence",
        "a coverage input with question, nuggets, report",
        "move the sample to a coverage set",
    ),
    Case(
        "calibration_sets/duplicate-ids",
        "calibration_sets/duplicate-ids/samples.jsonl",
        3,
        "/id",
        "a unique id",
        "first on line 1",
    ),
    Case(
        "calibration_sets/unknown-source",
        "calibration_sets/unknown-source/samples.jsonl",
        2,
        "/input/evidence/1/source_id",
        "an id from corpus.jsonl",
        "'nope'",
    ),
    Case(
        "calibration_sets/empty-samples",
        "calibration_sets/empty-samples/samples.jsonl",
        1,
        "",
        "one JSON object per line",
        "no content",
    ),
    Case(
        "calibration_sets/blank-samples",
        "calibration_sets/blank-samples/samples.jsonl",
        1,
        "",
        "one JSON object per line",
        "no content",
    ),
    Case(
        "calibration_sets/not-object",
        "calibration_sets/not-object/samples.jsonl",
        2,
        "",
        "an object",
        "an array [1, 2, 3]",
    ),
    Case(
        "calibration_sets/truncated",
        "calibration_sets/truncated/samples.jsonl",
        2,
        "",
        "one complete JSON object",
        '"categ`',
        "complete the last line or remove it",
    ),
    Case(
        "calibration_sets/bad-utf8",
        "calibration_sets/bad-utf8/samples.jsonl",
        2,
        "",
        "UTF-8 text",
        "byte 0xe9",
        "re-save the file as UTF-8",
    ),
    Case(
        "calibration_sets/no-samples",
        "calibration_sets/no-samples/samples.jsonl",
        None,
        "",
        "samples.jsonl, one labelled sample per line",
        "no file",
    ),
    Case(
        "calibration_sets/samples-misnamed",
        "calibration_sets/samples-misnamed/samples.jsonl",
        None,
        "",
        "samples.jsonl, one labelled sample per line",
        "(the folder has sample.jsonl)",
        "rename the samples file to samples.jsonl",
    ),
    Case(
        "calibration_sets/evidence-both",
        "calibration_sets/evidence-both/samples.jsonl",
        2,
        "/input/evidence/0",
        "exactly one of source_id or text",
        '"text": "also text"',
    ),
    Case(
        "calibration_sets/empty-evidence",
        "calibration_sets/empty-evidence/samples.jsonl",
        2,
        "/input/evidence",
        "a non-empty array",
        "an empty array []",
    ),
    Case(
        "calibration_sets/json-syntax",
        "calibration_sets/json-syntax/samples.jsonl",
        2,
        "",
        "one complete JSON object",
        '"good",}',
        "no trailing commas",
    ),
    Case(
        "calibration_sets/corpus-dup",
        "calibration_sets/corpus-dup/corpus.jsonl",
        3,
        "/id",
        "a unique id",
        "'d1' again (first on line 1)",
    ),
    Case(
        "calibration_sets/corpus-not-object",
        "calibration_sets/corpus-not-object/corpus.jsonl",
        3,
        "",
        "an object",
        'a string "just a string"',
    ),
    Case(
        "calibration_sets/wrong-type",
        "calibration_sets/wrong-type/samples.jsonl",
        2,
        "/category",
        "a string",
        "an integer 3",
    ),
    Case(
        "calibration_sets/missing-input",
        "calibration_sets/missing-input/samples.jsonl",
        2,
        "/input",
        "'input'",
        "nothing",
    ),
    Case(
        "calibration_sets/generator-typo",
        "calibration_sets/generator-typo/samples.jsonl",
        2,
        "/generator/provder",
        "model, provider",
        "'provder'",
        "did you mean 'provider'?",
    ),
    Case(
        "calibration_sets/nugget-importance",
        "calibration_sets/nugget-importance/samples.jsonl",
        1,
        "/input/nuggets/0/importance",
        "'vital' or 'okay'",
        '"critical"',
    ),
    Case(
        "calibration_sets/deep-nesting",
        "calibration_sets/deep-nesting/samples.jsonl",
        2,
        "",
        "moderate depth",
        '"cs-002',
    ),
    Case(
        "calibration_sets/many-problems",
        "calibration_sets/many-problems/samples.jsonl",
        30,
        "/label",
        "'good' or 'bad'",
        '"maybe"',
    ),
    # --- trials and results --------------------------------------------------------------------------
    Case(
        "trials/missing-task-id.trials.jsonl",
        "trials/missing-task-id.trials.jsonl",
        2,
        "/task_id",
        "'task_id'",
        "nothing",
    ),
    Case(
        "trials/duplicate.trials.jsonl",
        "trials/duplicate.trials.jsonl",
        3,
        "/trial_id",
        "each (task_id, trial_id) once",
        "first on line 1",
    ),
    Case(
        "trials/negative-cost.trials.jsonl",
        "trials/negative-cost.trials.jsonl",
        1,
        "/cost/usd",
        ">= 0",
        "-0.5",
    ),
    Case(
        "trials/duplicate-claim.trials.jsonl",
        "trials/duplicate-claim.trials.jsonl",
        1,
        "/report/claims/1/id",
        "a unique claim id",
        "'c1' again",
    ),
    Case(
        "trials/field-typo.trials.jsonl",
        "trials/field-typo.trials.jsonl",
        1,
        "/stop_reasn",
        "stop_reason",
        "'stop_reasn'",
        "did you mean 'stop_reason'?",
    ),
    Case(
        "results/bad-success.results.jsonl",
        "results/bad-success.results.jsonl",
        2,
        "/success",
        "true or false",
        'a string "yes"',
    ),
    Case(
        "results/missing-success.results.jsonl",
        "results/missing-success.results.jsonl",
        1,
        "/success",
        "'success'",
        "nothing",
    ),
    Case(
        "results/duplicate.results.jsonl",
        "results/duplicate.results.jsonl",
        2,
        "/trial_id",
        "each (task_id, trial_id) once",
        "first on line 1",
    ),
    Case(
        "results/not-object.results.jsonl",
        "results/not-object.results.jsonl",
        2,
        "",
        "an object",
        "a boolean true",
    ),
    Case(
        "results/crlf-truncated.results.jsonl",
        "results/crlf-truncated.results.jsonl",
        2,
        "",
        "one complete JSON object",
        '"succ',
        "complete the last line",
    ),
    Case(
        "results/nan.results.jsonl",
        "results/nan.results.jsonl",
        2,
        "/cost/usd",
        "or null when the value is undefined",
        "got NaN",
    ),
    Case(
        "results/pretty.results.jsonl",
        "results/pretty.results.jsonl",
        1,
        "",
        "one JSON object per line",
        "an array spread over several lines",
        "jq -c",
    ),
    Case(
        "results/extra-data.results.jsonl",
        "results/extra-data.results.jsonl",
        1,
        "",
        "one complete JSON object on this line",
        '{"task_id": "t1"}`',
        "fix the JSON syntax",
    ),
    Case("misc/notes.txt", "misc/notes.txt", None, "", "*trials*.jsonl", "'notes.txt'", "--as"),
    Case("misc", "misc", None, "", "manifest.toml", "a folder with none of these"),
]


def run(*args: str) -> int:
    return _state.run(app, ["--root", str(REPO), *args])


def _problem_line(out: str, case: Case) -> str:
    where = f"{SHOWN}/{case.file}" + (f":{case.line}" if case.line is not None else "")
    prefix = f"{where}: {case.pointer}: " if case.pointer else f"{where}: "
    lines = [line for line in out.splitlines() if line.startswith(prefix)]
    assert lines, f"no problem reported at {prefix!r}; output:\n{out}"
    wanted = [line for line in lines if case.expected in line and case.got in line and case.fix in line]
    assert wanted, (
        f"problem at {prefix!r} lacks expected {case.expected!r} / got {case.got!r}:\n" + "\n".join(lines)
    )
    return wanted[0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_broken_file_is_reported_precisely(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate", str(BROKEN / case.path))
    captured = capsys.readouterr()
    assert code == ExitCode.INVALID_INPUT, captured
    line = _problem_line(captured.out, case)
    assert "; expected " in line and ", got " in line
    assert "Traceback" not in captured.out + captured.err


def test_every_broken_fixture_has_a_case() -> None:
    covered = {c.path.split("/")[0] + "/" + c.path.split("/")[1] for c in CASES if "/" in c.path}
    covered |= {c.path for c in CASES}
    fixtures = {
        f"{top.name}/{child.name}"
        for top in BROKEN.iterdir()
        if top.is_dir() and top.name not in ("tolerated", "misc")
        for child in top.iterdir()
    }
    assert fixtures - covered == set(), "broken fixtures without an expectation in CASES"


def test_json_format_prints_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate", "--format", "json", str(BROKEN / "calibration_sets" / "label-maybe"))
    assert code == ExitCode.INVALID_INPUT
    doc = json.loads(capsys.readouterr().out)  # exactly one document, nothing else on stdout
    assert doc["schema_version"] == 1 and doc["type"] == "validation" and doc["ok"] is False
    [problem] = doc["problems"]
    assert problem == {
        "file": f"{SHOWN}/calibration_sets/label-maybe/samples.jsonl",
        "line": 2,
        "pointer": "/label",
        "message": "value not allowed",
        "expected": "'good' or 'bad'",
        "got": 'a string "maybe"',
        "fix": None,
    }
    assert doc["files"][0]["type"] == "set" and doc["files"][0]["ok"] is False


TOLERATED = [str(BROKEN / "tolerated" / name) for name in ("", "crlf.trials.jsonl", "bom.results.jsonl")]


def test_json_format_on_valid_input_reports_fingerprints(capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate", "--format", "json", *TOLERATED)
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["problems"] == []
    types = sorted(f["type"] for f in doc["files"])
    assert types == ["grader", "results", "set", "trials"]
    for f in doc["files"]:
        if f["type"] in ("grader", "set"):
            assert f["fingerprint"].startswith("sha256:")


def test_problem_cap_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate", "--max-problems", "5", str(BROKEN / "calibration_sets" / "many-problems"))
    assert code == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 7
    assert out[-2].startswith("... and 25 more problem(s)")
    assert out[-1] == "1 file(s) checked, 30 problem(s)"  # the summary, on stdout too (issue 11, item 20)
    code = run(
        "validate",
        "--format",
        "json",
        "--max-problems",
        "5",
        str(BROKEN / "calibration_sets" / "many-problems"),
    )
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["problems"]) == 5 and doc["omitted_problems"] == 25 and doc["problem_count"] == 30


def test_tolerated_bom_crlf_files_pass(capsys: pytest.CaptureFixture[str]) -> None:
    raw = (BROKEN / "tolerated" / "calibration_sets" / "bom-crlf" / "samples.jsonl").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw and not raw.endswith(b"\n"), (
        "fixture was mangled"
    )
    code = run("validate", *TOLERATED)
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "4 file(s) checked: all valid" in captured.out


def test_every_problem_of_a_folder_is_reported_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        "validate", "--max-problems", "1000", str(BROKEN / "graders"), str(BROKEN / "calibration_sets")
    )
    assert code == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out
    for case in CASES:
        if case.path.startswith(("graders/", "calibration_sets/")):
            _problem_line(out, case)


def test_whole_broken_tree_in_a_subprocess_never_prints_a_traceback() -> None:
    env = {**os.environ, "GRADERCTL_ROOT": str(REPO)}
    targets = [str(BROKEN / name) for name in ("graders", "calibration_sets", "trials", "results", "misc")]
    targets += [str(BROKEN / c.path) for c in CASES if c.path.startswith("misc/")]
    proc = subprocess.run(
        [sys.executable, "-m", "graderctl", "validate", "--max-problems", "1000", *targets],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert proc.returncode == ExitCode.INVALID_INPUT, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    for case in CASES:
        _problem_line(proc.stdout, case)
    *lines, summary = proc.stdout.splitlines()
    for line in lines:
        assert line.startswith((SHOWN + "/", "... and ")), f"not a problem line: {line!r}"
    assert re.fullmatch(r"\d+ file\(s\) checked, \d+ problem\(s\)", summary), summary


def test_shipped_tree_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate")
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err


def test_python_dash_m_validate_on_the_shipped_tree() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "graderctl", "validate", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "GRADERCTL_ROOT"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_missing_path_is_a_problem_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    code = run("validate", str(BROKEN / "does-not-exist.jsonl"))
    captured = capsys.readouterr()
    assert code == ExitCode.INVALID_INPUT
    assert "does-not-exist.jsonl: no such file or folder" in captured.out


def test_as_overrides_the_guess(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"trial": "t-1", "ok": "no"}\n', encoding="utf-8")
    assert run("validate", str(odd)) == ExitCode.INVALID_INPUT
    assert "odd.jsonl: cannot tell what this file is" in capsys.readouterr().out
    assert run("validate", "--as", "results", str(odd)) == ExitCode.INVALID_INPUT
    out = capsys.readouterr().out
    assert "odd.jsonl:1: /task_id: missing required field 'task_id'" in out


def test_files_with_uninformative_names_are_guessed_from_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "graded.jsonl": '{"task_id": "t", "trial_id": "t-1", "success": "no"}\n',
        "data.jsonl": json.dumps(
            {"id": "a", "label": "maybe", "category": "c", "input": {"citation": {"url": "https://x.org"}}}
        )
        + "\n",
        "def.toml": 'name = "x"\nversion = 1\nkind = "source_existence"\ncheck = "vibes"\n',
        "set.toml": 'name = "x"\nversion = 1\ncheck = "coverage"\n[policy]\nmax_false_accept_rate = 2\n',
        "bad.toml": 'name = "x\n',
        "scalars.jsonl": '"hello"\n',
        "nothing.jsonl": "",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = _state.run(app, ["--root", str(tmp_path), "validate", *(str(tmp_path / n) for n in files)])
    captured = capsys.readouterr()
    assert code == ExitCode.INVALID_INPUT
    out = captured.out
    assert "graded.jsonl:1: /success: wrong type; expected true or false" in out
    assert "data.jsonl:1: /label: value not allowed" in out
    assert "def.toml:4: /check: value not allowed" in out
    assert "set.toml:5: /policy/max_false_accept_rate: invalid value; expected a number <= 1" in out
    assert "set.toml:1: /policy/max_false_reject_rate: missing" not in out  # located at its table
    assert "set.toml:4: /policy/max_false_reject_rate: missing required field" in out
    assert "bad.toml:1: TOML syntax error" in out
    assert "scalars.jsonl:1: not a JSON object" in out
    assert "nothing.jsonl:1: the file is empty" in out
    assert "graded.jsonl: treated as results (guessed from its content" in captured.err
    assert "Traceback" not in out + captured.err


def test_bad_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("validate", "--as", "nonsense", str(BROKEN)) == ExitCode.USAGE_ERROR
    assert run("validate", "--max-problems", "0", str(BROKEN)) == ExitCode.USAGE_ERROR


def test_internal_error_shows_a_traceback_only_with_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import graderctl.services.validate as service

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(service, "validate_paths", boom)
    assert run("validate", str(BROKEN)) == ExitCode.INTERNAL_ERROR
    captured = capsys.readouterr()
    assert "internal error: RuntimeError: simulated bug" in captured.err
    assert "Traceback" not in captured.out + captured.err
    assert (
        _state.run(app, ["--debug", "--root", str(REPO), "validate", str(BROKEN)]) == ExitCode.INTERNAL_ERROR
    )
    assert "Traceback" in capsys.readouterr().err
    _state.DEBUG = False


def test_debug_flag_in_a_subprocess() -> None:
    base = [sys.executable, "-m", "graderctl"]
    quiet = subprocess.run([*base, "schema", "no-such-schema"], capture_output=True, text=True, cwd=REPO)
    loud = subprocess.run(
        [*base, "--debug", "schema", "no-such-schema"], capture_output=True, text=True, cwd=REPO
    )
    assert quiet.returncode == loud.returncode == ExitCode.USAGE_ERROR
    assert "unknown schema 'no-such-schema'" in quiet.stderr
    assert "Traceback" not in quiet.stderr
    assert "Traceback" in loud.stderr
