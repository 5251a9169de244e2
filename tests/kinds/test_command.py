"""The command kind: an external program over a batch, JSON lines in and out."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from graderctl.errors import GraderRunError
from graderctl.kinds.command import CommandGrader
from graderctl.models.calset import ClaimSupportInput, CorpusDocument
from graderctl.plugin import Corpus, GradingContext

DATA = Path(__file__).resolve().parents[1] / "data" / "command"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(DATA / "judge.py", tmp_path / "judge.py")
    return tmp_path


def make(folder: Path, corpus: Corpus | None = None, **params: Any) -> CommandGrader:
    values: dict[str, Any] = {"argv": ["{python}", "judge.py"], **params}
    p = CommandGrader.Params.model_validate(values)
    return CommandGrader(p, GradingContext(base_dir=folder, corpus=corpus))


def claim(text: str) -> ClaimSupportInput:
    return ClaimSupportInput(claim=text, evidence=[{"text": "some evidence"}])


def test_grades_in_order(folder: Path) -> None:
    g = make(folder)
    verdicts = g.grade_batch([claim("a MARKER_GOOD"), claim("b MARKER_BAD"), claim("c MARKER_GOOD")])
    assert [v.accepted for v in verdicts] == [True, False, True]
    assert verdicts[0].score == 1.0 and verdicts[0].reason == "marker"


def test_verdicts_with_index_may_come_in_any_order(folder: Path) -> None:
    g = make(folder, argv=["{python}", "judge.py", "--reverse"])
    verdicts = g.grade_batch([claim("a MARKER_GOOD"), claim("b MARKER_BAD"), claim("c MARKER_BAD")])
    assert [v.accepted for v in verdicts] == [True, False, False]


def test_command_string_is_split_like_a_shell(folder: Path) -> None:
    g = make(folder, argv=None, command="{python} judge.py --reverse")
    assert [v.accepted for v in g.grade_batch([claim("MARKER_GOOD"), claim("x")])] == [True, False]


def test_documents_from_the_corpus_are_sent(folder: Path) -> None:
    corpus = Corpus([CorpusDocument(id="s1", text="this source says MARKER_GOOD")])
    g = make(folder, corpus=corpus)
    [v] = g.grade_batch([ClaimSupportInput(claim="plain", evidence=[{"source_id": "s1"}])])
    assert v.accepted is True


def test_malformed_line_is_an_error_for_that_sample_only(folder: Path) -> None:
    verdicts = make(folder).grade_batch([claim("MARKER_GOOD"), claim("MARKER_GARBAGE"), claim("x")])
    assert [v.accepted for v in verdicts] == [True, None, False]
    assert verdicts[1].error and "not JSON" in verdicts[1].error


def test_reported_error_and_missing_line(folder: Path) -> None:
    verdicts = make(folder, argv=["{python}", "judge.py", "--reverse"]).grade_batch(
        [claim("MARKER_ERROR"), claim("MARKER_SKIP"), claim("MARKER_GOOD")]
    )
    assert [v.accepted for v in verdicts] == [None, None, True]
    assert "cannot parse the claim" in (verdicts[0].error or "")
    assert "no verdict" in (verdicts[1].error or "")


def test_crash_is_an_error_for_every_sample_of_the_batch(folder: Path) -> None:
    verdicts = make(folder).grade_batch([claim("MARKER_GOOD"), claim("MARKER_CRASH")])
    assert [v.accepted for v in verdicts] == [None, None]
    assert all("exited with code 3" in (v.error or "") and "boom" in (v.error or "") for v in verdicts)


def test_timeout_is_an_error(folder: Path) -> None:
    verdicts = make(folder, timeout=0.5).grade_batch([claim("MARKER_HANG")])
    assert verdicts[0].accepted is None and "timed out" in (verdicts[0].error or "")


def test_program_that_cannot_start(folder: Path) -> None:
    with pytest.raises(GraderRunError, match="cannot be started"):
        make(folder, argv=["./no-such-program-here"]).grade_batch([claim("x")])


def test_script_is_a_referenced_file() -> None:
    p = CommandGrader.Params.model_validate({"argv": ["{python}", "judge.py", "-v"], "files": ["rules.txt"]})
    assert CommandGrader.referenced_files(p) == ["judge.py", "rules.txt"]
    p = CommandGrader.Params.model_validate({"command": "sh scripts/run.sh --fast", "cwd": "."})
    assert CommandGrader.referenced_files(p) == ["scripts/run.sh"]
    p = CommandGrader.Params.model_validate({"argv": ["judge.py"], "cwd": "tools"})
    assert CommandGrader.referenced_files(p) == ["tools/judge.py"]


def test_exactly_one_of_argv_and_command() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        CommandGrader.Params.model_validate({"argv": ["a"], "command": "a"})
    with pytest.raises(ValidationError):
        CommandGrader.Params.model_validate({})


def test_only_named_environment_variables_are_passed(folder: Path, monkeypatch) -> None:
    monkeypatch.setenv("PASS_ME", "1")
    monkeypatch.setenv("SECRET_NOT_PASSED", "1")
    (folder / "env.py").write_text(
        "import json, os, sys\n"
        "for raw in sys.stdin:\n"
        "    ok = 'PASS_ME' in os.environ and 'SECRET_NOT_PASSED' not in os.environ\n"
        "    print(json.dumps({'accept': ok, 'reason': 'env'}))\n"
    )
    g = make(folder, argv=["{python}", "env.py"], env=["PASS_ME"])
    assert [v.accepted for v in g.grade_batch([claim("x")])] == [True]


def test_validate_definition_flags_a_missing_cwd(folder: Path) -> None:
    p = CommandGrader.Params.model_validate({"argv": ["x"], "cwd": "nowhere", "env": ["bad-name"]})
    problems = CommandGrader.validate_definition(p, folder)
    assert len(problems) == 2 and "nowhere" in problems[0] and "bad-name" in problems[1]


def test_calibrate_with_a_command_grader_and_its_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.llm_project import judge_samples, write_set

    from graderctl.cli import _state, app
    from graderctl.store.cache import default_cache_dir
    from graderctl.store.project import load_grader

    folder = tmp_path / "graders" / "external"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "judge.py", folder / "judge.py")
    (folder / "v1.toml").write_text(
        'schema_version = 1\nname = "external"\nversion = 1\nkind = "command"\ncheck = "claim_support"\n'
        '[params]\nargv = ["{python}", "judge.py"]\ntimeout = 30\n'
    )
    write_set(tmp_path, "cs", judge_samples(6, 6))
    fingerprint = load_grader(folder / "v1.toml", root=tmp_path).fingerprint
    args = ["--root", str(tmp_path), "calibrate", "external@1", "--set", "cs", "--format", "json"]
    assert _state.run(app, args) == 0
    report = json.loads(capsys.readouterr().out)
    assert not any("usage" in s for s in report["samples"])  # graded by the program
    assert report["false_accept_rate"]["count"] == 0 and report["false_reject_rate"]["count"] == 0
    assert report["errors"] == 0
    assert _state.run(app, args) == 0
    again = json.loads(capsys.readouterr().out)
    assert all(s["usage"]["cached"] for s in again["samples"])  # the program did not run again
    cache = default_cache_dir(tmp_path)
    assert cache is not None and len(list(cache.rglob("*.json"))) == 12
    assert not (tmp_path / ".graderctl-cache").exists()  # nothing cached inside the project
    # the script is part of the fingerprint
    (folder / "judge.py").write_text((DATA / "judge.py").read_text() + "\n# changed\n")
    assert load_grader(folder / "v1.toml", root=tmp_path).fingerprint != fingerprint


def test_a_verdict_cache_committed_to_the_project_changes_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The verdict cache's key is public (the grader's fingerprint and the input): an entry forged into the
    project (committed, or shipped in a pull request) saying "accept" for every known-bad sample must not
    make calibrate (or score) reuse it. The cache lives in the user's cache folder, never in the project."""
    import json

    from tests.support.llm_project import judge_samples, write_set

    from graderctl.cli import _state, app
    from graderctl.plugin import Verdict
    from graderctl.store.cache import VerdictCache
    from graderctl.store.project import find_set, load_grader

    folder = tmp_path / "graders" / "external"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "judge.py", folder / "judge.py")
    (folder / "v1.toml").write_text(
        'schema_version = 1\nname = "external"\nversion = 1\nkind = "command"\ncheck = "claim_support"\n'
        '[params]\nargv = ["{python}", "judge.py"]\ntimeout = 30\n'
    )
    write_set(tmp_path, "cs", judge_samples(6, 6))
    grader = load_grader(folder / "v1.toml", root=tmp_path)
    cal_set = find_set("cs", tmp_path)
    instance = grader.build(corpus=cal_set.corpus, cache_dir=None)
    # Where the project's verdict cache was kept (`.graderctl-cache/verdicts`), with the key it would read.
    forged = VerdictCache(tmp_path / ".graderctl-cache" / "verdicts", grader.fingerprint)
    for sample in cal_set.samples:
        if sample.label.value == "bad":
            forged.put(instance.cache_payload(sample.input), Verdict.accept("forged: accept"))
    args = ["--root", str(tmp_path), "calibrate", "external@1", "--set", "cs", "--format", "json"]
    assert _state.run(app, args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["false_accept_rate"]["count"] == 0, "a forged cache entry decided a verdict"
    assert not any("forged" in (s.get("reason") or "") for s in report["samples"])


# --- issue 11 item 9: values of passed and secret-named variables never reach a verdict -------------------

LEAKY = r"""
import json, os, sys
mode = sys.argv[1]
passed = os.environ.get("SERVICE_PASS", "")
key = os.environ.get("OTHER_API_KEY", "")
token = os.environ.get("MY_TOKEN_FILE", "")
for i, line in enumerate(sys.stdin):
    if mode == "verdicts":
        details = {"token": token, "list": [passed]}
        out = {"accept": True, "reason": f"used {passed} and {key}", "details": details}
        if i == 1:
            out = {"error": f"service rejected key {passed}"}
        print(json.dumps(out))
    elif mode == "garbage":
        print("x" * 290 + passed)
if mode == "crash":
    sys.stderr.write("connecting with " + passed + "\n" + "y" * 250 + " " + key + "\n")
    sys.exit(3)
"""

SECRETS = {
    "SERVICE_PASS": "hunter2-service-secret",
    "OTHER_API_KEY": "sk-other-0123456789",
    "MY_TOKEN_FILE": "tok_abcdefgh",
}


@pytest.fixture
def leaky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "leaky.py").write_text(LEAKY)
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return tmp_path


def _no_secret(text: str) -> None:
    for value in SECRETS.values():
        assert value not in text and value[:8] not in text, (value, text)


@pytest.mark.parametrize("mode", ["verdicts", "garbage", "crash"])
def test_secrets_never_reach_a_verdict(leaky: Path, mode: str) -> None:
    # SERVICE_PASS is passed explicitly; the other two are not passed but are named like secrets
    g = make(
        leaky, argv=["{python}", "leaky.py", mode], env=["SERVICE_PASS", "OTHER_API_KEY", "MY_TOKEN_FILE"]
    )
    verdicts = g.grade_batch([claim("a"), claim("b")])
    assert len(verdicts) == 2
    for v in verdicts:
        _no_secret(repr(v))
    if mode == "verdicts":
        assert verdicts[0].accepted is True and "[redacted]" in verdicts[0].reason
        assert verdicts[0].details == {"token": "[redacted]", "list": ["[redacted]"]}
        assert verdicts[1].error and "[redacted]" in verdicts[1].error
    elif mode == "crash":
        assert verdicts[0].error and "exited with code 3" in verdicts[0].error


def test_short_or_innocent_values_are_left_alone() -> None:
    from graderctl.kinds.command import secret_values

    env = {"SERVICE_PASS": "abc", "LANG": "C.UTF-8", "GIT_AUTHOR_NAME": "Jane Doe", "X_TOKEN": "tok-123456"}
    assert secret_values(["SERVICE_PASS"], env) == ("tok-123456",)


def test_secrets_never_reach_reports_or_the_cache(leaky: Path) -> None:
    import json

    from graderctl.services.calibrate import api_calibrate

    root = leaky
    grader = root / "graders" / "leaky"
    grader.mkdir(parents=True)
    (root / "leaky.py").rename(grader / "leaky.py")
    (grader / "v1.toml").write_text(
        'schema_version = 1\nname = "leaky"\nversion = 1\nkind = "command"\ncheck = "claim_support"\n'
        'description = "t"\n[params]\nargv = ["{python}", "leaky.py", "verdicts"]\nenv = ["SERVICE_PASS"]\n'
    )
    cal = root / "calibration_sets" / "cs"
    cal.mkdir(parents=True)
    (cal / "manifest.toml").write_text(
        'schema_version = 1\nname = "cs"\nversion = 1\ncheck = "claim_support"\ndescription = "t"\n'
        'source = "tests"\n[policy]\nmax_false_accept_rate = 1.0\nmax_false_reject_rate = 1.0\n'
        "max_error_rate = 1.0\n"
    )
    rows = [
        {
            "id": f"s{i}",
            "label": "good" if i % 2 else "bad",
            "category": "c",
            "input": claim(f"c{i}").model_dump(),
        }
        for i in range(4)
    ]
    (cal / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    api_calibrate("leaky@1", root=root)
    written = [p for p in root.rglob("*") if p.is_file() and p.suffix in {".json", ".md", ".jsonl"}]
    assert any(p.parent.name == "cs" and p.suffix == ".json" for p in written), written
    for path in written:
        _no_secret(path.read_text(encoding="utf-8"))
