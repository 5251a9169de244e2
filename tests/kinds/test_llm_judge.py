"""The llm_judge kind against a real HTTP server on 127.0.0.1 (tests/support/fake_openai.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.fake_openai import FakeOpenAI, closed_port

from graderctl.errors import GraderRunError, InvalidInputError
from graderctl.kinds.llm_judge import (
    LLMJudgeGrader,
    parse_verdict,
    render_template,
    template_problems,
    template_values,
)
from graderctl.models.calset import (
    ClaimSupportInput,
    CorpusDocument,
    CoverageInput,
    SourceExistenceInput,
)
from graderctl.models.grader import JudgeSpec
from graderctl.plugin import Corpus, GradingContext, get_kind

DATA = Path(__file__).resolve().parents[1] / "data" / "llm"
KEY = "sk-test-THIS-KEY-MUST-NEVER-LEAK-123456"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as srv:
        yield srv


@pytest.fixture
def prompt_dir(tmp_path: Path) -> Path:
    shutil.copy(DATA / "prompt.md", tmp_path / "prompt.md")
    return tmp_path


def make(base_url: str, base_dir: Path, corpus: Corpus | None = None, **params: Any) -> LLMJudgeGrader:
    values: dict[str, Any] = {
        "base_url": base_url,
        "prompt": "prompt.md",
        "backoff_initial": 0.001,
        "backoff_max": 0.01,
        **params,
    }
    p = LLMJudgeGrader.Params.model_validate(values)
    return LLMJudgeGrader(
        p,
        GradingContext(
            judge=JudgeSpec(model="gpt-4o-mini", provider="openai"), base_dir=base_dir, corpus=corpus
        ),
    )


def claims(n: int) -> list[ClaimSupportInput]:
    return [
        ClaimSupportInput(
            claim=f"Claim number {i} MARKER_{'GOOD' if i % 3 else 'BAD'}.",
            evidence=[{"text": f"Evidence {i}."}],
        )
        for i in range(n)
    ]


def expected(n: int) -> list[bool]:
    return [bool(i % 3) for i in range(n)]


def test_registered_as_a_model_based_cacheable_kind() -> None:
    kind = get_kind("llm_judge")
    assert kind is LLMJudgeGrader
    assert kind.model_based and kind.cacheable
    assert {c.value for c in kind.checks} == {"source_existence", "claim_support", "coverage"}


def test_correct_judge_outcomes_tokens_and_cost(server: FakeOpenAI, prompt_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    g = make(
        server.base_url,
        prompt_dir,
        api_key_env="JUDGE_KEY",
        concurrency=4,
        input_price_per_million=2.5,
        output_price_per_million=10.0,
    )
    verdicts = g.grade_batch(claims(12))
    g.close()
    assert [v.accepted for v in verdicts] == expected(12)
    assert all(v.error is None and v.usage is not None for v in verdicts)
    tokens_in = sum(v.usage.input_tokens for v in verdicts if v.usage)
    tokens_out = sum(v.usage.output_tokens for v in verdicts if v.usage)
    assert tokens_in == server.usage_totals["prompt_tokens"] > 0
    assert tokens_out == server.usage_totals["completion_tokens"] > 0
    usd = sum(v.usage.usd for v in verdicts if v.usage)
    assert usd == pytest.approx(tokens_in / 1e6 * 2.5 + tokens_out / 1e6 * 10.0)
    assert server.requests == 12
    assert set(server.authorization) == {f"Bearer {KEY}"}
    body = server.bodies[0]
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0 and body["max_tokens"] == 512
    assert "MARKER_" in body["messages"][-1]["content"]


def test_no_key_variable_means_no_authorization_header(server: FakeOpenAI, prompt_dir: Path) -> None:
    g = make(server.base_url, prompt_dir)
    assert [v.accepted for v in g.grade_batch(claims(3))] == expected(3)
    assert server.authorization == [None, None, None]


def test_missing_key_names_the_variable_and_endpoint(prompt_dir: Path, monkeypatch) -> None:
    monkeypatch.delenv("NO_SUCH_JUDGE_KEY", raising=False)
    with pytest.raises(GraderRunError) as info:
        make("http://127.0.0.1:9/v1", prompt_dir, api_key_env="NO_SUCH_JUDGE_KEY")
    message = str(info.value)
    assert "set the environment variable NO_SUCH_JUDGE_KEY" in message
    assert "http://127.0.0.1:9/v1" in message


def test_concurrency_is_bounded(prompt_dir: Path) -> None:
    with FakeOpenAI(latency=0.05) as srv:
        g = make(srv.base_url, prompt_dir, concurrency=3)
        verdicts = g.grade_batch(claims(15))
    assert [v.accepted for v in verdicts] == expected(15)
    assert srv.max_in_flight <= 3
    assert srv.max_in_flight >= 2  # it does run requests in parallel


def test_429_and_500_bursts_are_retried(server: FakeOpenAI, prompt_dir: Path) -> None:
    server.script.extend(
        [{"status": 429, "retry_after": "0"}] * 6 + [{"status": 500}] * 4 + [{"status": 503}]
    )
    g = make(server.base_url, prompt_dir, concurrency=2, max_attempts=20)
    verdicts = g.grade_batch(claims(6))
    assert [v.accepted for v in verdicts] == expected(6)
    assert server.requests == 6 + 11
    assert sum(v.usage.requests for v in verdicts if v.usage) == 17


def test_retry_after_is_honoured(server: FakeOpenAI, prompt_dir: Path) -> None:
    import time

    server.script.append({"status": 429, "retry_after": "0.3"})
    g = make(server.base_url, prompt_dir, backoff_initial=0.0, backoff_max=0.0)
    started = time.monotonic()
    [v] = g.grade_batch(claims(1))
    assert v.accepted is False and v.error is None
    assert time.monotonic() - started >= 0.3


def test_persistent_500_is_an_error_not_a_reject(server: FakeOpenAI, prompt_dir: Path) -> None:
    server.script.extend([{"status": 500}] * 3)
    g = make(server.base_url, prompt_dir, max_attempts=3)
    [v] = g.grade_batch(claims(1))
    assert v.accepted is None
    assert v.error and "HTTP 500" in v.error and "3 attempt" in v.error


def test_client_error_is_not_retried(server: FakeOpenAI, prompt_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    server.script.append({"status": 401})
    g = make(server.base_url, prompt_dir, api_key_env="JUDGE_KEY")
    [v] = g.grade_batch(claims(1))
    assert v.accepted is None and v.error is not None
    assert "HTTP 401" in v.error and "JUDGE_KEY" in v.error and KEY not in v.error
    assert server.requests == 1


def test_server_down_every_sample_errs_naming_the_endpoint(prompt_dir: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    g = make(url, prompt_dir, concurrency=4, max_attempts=3)
    verdicts = g.grade_batch(claims(10))
    assert all(v.accepted is None for v in verdicts)
    assert all(v.error and url in v.error and "cannot reach" in v.error for v in verdicts)


def test_timeouts_are_errors(prompt_dir: Path) -> None:
    with FakeOpenAI(latency=1.0) as srv:
        g = make(srv.base_url, prompt_dir, timeout=0.1, max_attempts=2)
        [v] = g.grade_batch(claims(1))
        g.close()
    assert v.accepted is None and v.error and "timed out" in v.error


@pytest.mark.parametrize(
    ("mode", "ok"), [("fenced", True), ("malformed", False), ("bad_body", False)], ids=str
)
def test_reply_shapes(prompt_dir: Path, mode: str, ok: bool) -> None:
    with FakeOpenAI(mode=mode) as srv:
        g = make(srv.base_url, prompt_dir)
        verdicts = g.grade_batch(claims(3))
    if ok:
        assert [v.accepted for v in verdicts] == expected(3)
    else:
        assert all(v.accepted is None and v.error for v in verdicts)
        if mode == "malformed":
            assert all(v.usage and v.usage.input_tokens > 0 for v in verdicts)  # the call still cost tokens


def test_key_never_leaks_even_when_the_server_echoes_it(prompt_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    with FakeOpenAI(mode="echo_auth") as srv:
        g = make(srv.base_url, prompt_dir, api_key_env="JUDGE_KEY")
        verdicts = g.grade_batch(claims(2))
        assert srv.authorization == [f"Bearer {KEY}"] * 2  # the key was sent ...
    for v in verdicts:
        assert KEY not in repr(v)  # ... but never appears in what the kind returns
    assert KEY not in repr(g) and KEY not in repr(g.params)


# --- templates and replies ----------------------------------------------------------------------------


def test_unknown_placeholders_are_named_with_the_allowed_ones() -> None:
    problems = template_problems((DATA / "bad_prompt.md").read_text(), "bad_prompt.md")
    assert len(problems) == 2
    assert "{{source_text}}" in problems[0] and "bad_prompt.md:2" in problems[0]
    assert "{{claim}}" in problems[0] and "{{nuggets}}" in problems[0]
    assert "single braces" in problems[1]


def test_definition_with_unknown_placeholder_is_invalid(tmp_path: Path) -> None:
    from graderctl.store.project import load_grader

    folder = tmp_path / "graders" / "judge"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "bad_prompt.md", folder / "prompt.md")
    (folder / "v1.toml").write_text(
        'schema_version = 1\nname = "judge"\nversion = 1\nkind = "llm_judge"\ncheck = "claim_support"\n'
        '[judge]\nmodel = "gpt-4o-mini"\nprovider = "openai"\n'
        '[params]\nbase_url = "http://127.0.0.1:8000/v1"\nprompt = "prompt.md"\n'
    )
    with pytest.raises(InvalidInputError) as info:
        load_grader(folder / "v1.toml", root=tmp_path)
    text = " ".join(p.message for p in info.value.problems)
    assert "{{source_text}}" in text


def test_prompt_text_is_part_of_the_fingerprint(tmp_path: Path) -> None:
    from graderctl.store.project import load_grader

    folder = tmp_path / "graders" / "judge"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "prompt.md", folder / "prompt.md")
    (folder / "v1.toml").write_text(
        'schema_version = 1\nname = "judge"\nversion = 1\nkind = "llm_judge"\ncheck = "claim_support"\n'
        '[judge]\nmodel = "gpt-4o-mini"\n'
        '[params]\nbase_url = "http://127.0.0.1:8000/v1"\nprompt = "prompt.md"\n'
    )
    first = load_grader(folder / "v1.toml", root=tmp_path).fingerprint
    (folder / "prompt.md").write_text((DATA / "prompt.md").read_text() + "\nBe strict.\n")
    assert load_grader(folder / "v1.toml", root=tmp_path).fingerprint != first


def test_template_values_for_every_check() -> None:
    corpus = Corpus(
        [
            CorpusDocument(id="s1", url="https://example.org/a", title="A report", text="The rate rose 5%."),
            CorpusDocument(id="s2", text="Second passage."),
        ]
    )
    cs = template_values(
        ClaimSupportInput(claim="It rose.", evidence=[{"source_id": "s1"}, {"text": "Inline."}]), corpus
    )
    assert cs["claim"] == "It rose." and cs["evidence"] == "The rate rose 5%.\n\nInline."
    se = template_values(
        SourceExistenceInput(citation={"url": "http://www.example.org/a/", "quote": "rose 5%"}), corpus
    )
    assert se["quote"] == "rose 5%" and "url: http://www.example.org/a/" in se["citation"]
    assert "The rate rose 5%." in se["evidence"]  # the cited document, found by its normalised URL
    cov = template_values(
        CoverageInput(
            question="Why?",
            nuggets=[{"text": "A", "importance": "vital"}, {"text": "B", "importance": "okay"}],
            report="R.",
        ),
        None,
    )
    assert cov["nuggets"] == "- [vital] A\n- [okay] B" and cov["report"] == "R." and cov["claim"] == ""


def test_render_is_single_pass_and_keeps_json_braces() -> None:
    text = 'Claim: {{ claim }}\nReply {"accept": true}'
    out = render_template(text, {"claim": "{{evidence}} literally"})
    assert out == 'Claim: {{evidence}} literally\nReply {"accept": true}'


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ('{"accept": true, "score": 0.8, "reason": "ok"}', (True, 0.8, "ok")),
        ('```json\n{"accept": false, "reason": "no"}\n```', (False, None, "no")),
        ('Sure! ```\n{"accept": true}\n``` done', (True, None, "")),
        ('My verdict: {"accept": "false", "reason": "x"} -- end', (False, None, "x")),
    ],
)
def test_parse_verdict(reply: str, want: tuple[bool, float | None, str]) -> None:
    assert parse_verdict(reply) == want


@pytest.mark.parametrize("reply", ["probably yes", '{"score": 1}', '{"accept": "maybe"}', "[true]"])
def test_parse_verdict_rejects_replies_without_a_verdict(reply: str) -> None:
    from graderctl.kinds.llm_judge import ReplyError

    with pytest.raises(ReplyError):
        parse_verdict(reply)


def test_base_url_must_be_http() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        LLMJudgeGrader.Params.model_validate({"base_url": "127.0.0.1:8000", "prompt": "p.md"})


def test_cache_payload_is_the_rendered_prompt(server: FakeOpenAI, prompt_dir: Path) -> None:
    corpus_a = Corpus([CorpusDocument(id="s1", text="Old text.")])
    corpus_b = Corpus([CorpusDocument(id="s1", text="New text.")])
    inp = ClaimSupportInput(claim="x", evidence=[{"source_id": "s1"}])
    a = make(server.base_url, prompt_dir, corpus=corpus_a).cache_payload(inp)
    b = make(server.base_url, prompt_dir, corpus=corpus_b).cache_payload(inp)
    assert a != b and "Old text." in str(a)


# --- end to end through `graderctl calibrate` -------------------------------------------------------------


def cli(root: Path, *args: str) -> int:
    from graderctl.cli import _state, app

    return _state.run(app, ["--root", str(root), *args])


def all_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


@pytest.fixture
def key(monkeypatch) -> str:
    monkeypatch.setenv("JUDGE_TEST_KEY", KEY)
    return KEY


def test_calibration_report_has_outcomes_tokens_and_cost(
    server: FakeOpenAI, tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.llm_project import write_llm_project

    write_llm_project(tmp_path, server.base_url, n_good=8, n_bad=7)
    code = cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--format", "json")
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert report["false_accept_rate"]["count"] == 0 and report["false_reject_rate"]["count"] == 0
    assert {s["id"]: s["accepted"] for s in report["samples"]} == {
        **{f"g{i:04d}": True for i in range(8)},
        **{f"b{i:04d}": False for i in range(7)},
    }
    usage = report["usage"]
    assert usage["input_tokens"] == server.usage_totals["prompt_tokens"]
    assert usage["output_tokens"] == server.usage_totals["completion_tokens"]
    assert usage["requests"] == server.requests == 15
    expected_usd = usage["input_tokens"] / 1e6 * 2.5 + usage["output_tokens"] / 1e6 * 10.0
    assert usage["usd"] == pytest.approx(expected_usd, abs=1e-6)
    per_sample = [s["usage"] for s in report["samples"]]
    assert sum(u["input_tokens"] for u in per_sample) == usage["input_tokens"]
    assert sum(u["usd"] for u in per_sample) == pytest.approx(expected_usd, abs=1e-6)
    assert KEY not in out.out + out.err + all_text(tmp_path)


def test_second_run_makes_no_requests_and_no_cache_bypasses(
    server: FakeOpenAI, tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.llm_project import write_llm_project

    write_llm_project(tmp_path, server.base_url)
    assert cli(tmp_path, "calibrate", "judge@1", "--set", "cs") == 0
    first = server.requests
    assert first == 12
    capsys.readouterr()
    assert cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--format", "json") == 0
    assert server.requests == first  # every verdict came from the cache
    report = json.loads(capsys.readouterr().out)
    assert report["usage"]["cached"] == 12 and report["usage"]["requests"] == 0
    assert report["false_accept_rate"]["count"] == 0
    assert cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--no-cache") == 0
    assert server.requests == 2 * first
    from graderctl.store.cache import default_cache_dir

    cache = default_cache_dir(tmp_path)
    assert cache is not None and list(cache.rglob("*.json"))
    assert not (tmp_path / ".graderctl-cache").exists()
    assert KEY not in all_text(tmp_path)


def test_bursts_of_429_and_500_are_retried_and_the_run_finishes(
    server: FakeOpenAI, tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.llm_project import write_llm_project

    write_llm_project(tmp_path, server.base_url, max_attempts=30)
    server.script.extend([{"status": 429, "retry_after": "0"}] * 10 + [{"status": 500}] * 10)
    code = cli(tmp_path, "calibrate", "judge@1", "--set", "cs")
    out = capsys.readouterr()
    assert code == 0, out.err
    assert server.requests == 12 + 20
    assert "errors         0/12" in out.out


def test_server_down_exits_4_naming_the_endpoint_and_counts_no_reject(
    tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.llm_project import write_llm_project

    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_llm_project(tmp_path, url, max_attempts=3)
    code = cli(tmp_path, "calibrate", "judge@1", "--set", "cs")
    out = capsys.readouterr()
    assert code == 4, out
    assert url in out.err
    assert not (tmp_path / "reports").exists()  # nothing written: no sample was counted as a reject
    assert KEY not in out.out + out.err + all_text(tmp_path)


def test_server_down_for_some_samples_shows_errors_not_rejects(
    tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.llm_project import write_llm_project

    with FakeOpenAI() as srv:
        write_llm_project(tmp_path, srv.base_url, max_attempts=2)
        srv.script.extend([{"status": 500}] * 4)  # two samples fail both attempts
        cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--format", "json", "--batch-size", "1")
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 2
    erred = [s for s in report["samples"] if s["accepted"] is None]
    assert len(erred) == 2 and all("HTTP 500" in s["error"] for s in erred)
    assert report["false_accept_rate"]["count"] == 0 and report["false_reject_rate"]["count"] == 0


def test_missing_key_exits_4_saying_which_variable_to_set(
    server: FakeOpenAI, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.llm_project import write_llm_project

    monkeypatch.delenv("JUDGE_TEST_KEY", raising=False)
    write_llm_project(tmp_path, server.base_url)
    code = cli(tmp_path, "calibrate", "judge@1", "--set", "cs")
    err = capsys.readouterr().err
    assert code == 4
    assert "set the environment variable JUDGE_TEST_KEY" in err and server.base_url in err
    assert server.requests == 0


def test_repeats_report_self_consistency_and_cost_nothing_the_second_time(
    server: FakeOpenAI, tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.support.llm_project import judge_samples, write_judge, write_set

    # 9 of each label: one false accept in 9 still meets a limit of 0.45 (upper 95% bound 0.429)
    samples = judge_samples(9, 9)
    samples[0]["input"]["claim"] += " MARKER_FLAKY"  # good: accept, reject, accept
    samples[10]["input"]["claim"] += " MARKER_FLAKY"  # bad: accept, reject, accept
    write_judge(tmp_path, server.base_url)
    write_set(tmp_path, "cs", samples, far=0.45, frr=0.45)
    code = cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--repeats", "3", "--format", "json")
    out = capsys.readouterr()
    assert code == 0, out.err
    assert server.requests == 54
    rep = json.loads(out.out)["repeats"]
    assert rep["r"] == 3 and rep["n"] == 18 and rep["flipped"] == 2
    assert rep["self_consistency"] == pytest.approx(2 / 18)
    assert [f["id"] for f in rep["flipped_samples"]] == ["g0000", "b0001"]
    assert rep["flipped_samples"][1]["outcomes"] == [True, False, True]
    per = rep["per_repeat"]
    assert [p["false_accept_rate"]["count"] for p in per] == [1, 0, 1]
    assert [p["false_reject_rate"]["count"] for p in per] == [0, 1, 0]
    md = (tmp_path / "reports/cs/judge@1.md").read_text()
    assert "## Repeats" in md and "2 of 18 samples" in md
    assert cli(tmp_path, "calibrate", "judge@1", "--set", "cs", "--repeats", "3") == 0
    assert server.requests == 54  # every repeat came from the cache


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ('{"verdict": "ACCEPT", "score": "0.7", "reason": "r"}', (True, 0.7, "r")),
        ('{"decision": "reject"}', (False, None, "")),
        ('{"accept": true, "score": "high"}', (True, None, "")),
    ],
)
def test_parse_verdict_tolerates_common_variants(reply: str, want: tuple[bool, float | None, str]) -> None:
    assert parse_verdict(reply) == want


def test_price_aliases() -> None:
    p = LLMJudgeGrader.Params.model_validate(
        {
            "base_url": "http://x/v1",
            "prompt": "p.md",
            "price_per_million_input": 1,
            "output_usd_per_million": 2,
        }
    )
    assert (p.input_price_per_million, p.output_price_per_million) == (1.0, 2.0)


def test_refused_connections_give_up_sooner_than_5xx(prompt_dir: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    g = make(url, prompt_dir, max_attempts=50, max_connect_attempts=2)
    [v] = g.grade_batch(claims(1))
    assert v.error and "on 2 attempt(s)" in v.error


# --- issue 11: secrets, faults that must not become verdicts, requests as the server sees them -----------


def test_key_cut_by_the_error_excerpt_is_still_redacted(
    server: FakeOpenAI, prompt_dir: Path, monkeypatch
) -> None:
    # item 9: the excerpt keeps 200 characters; the key starts at 190, so truncating first leaves a fragment
    monkeypatch.setenv("JUDGE_KEY", KEY)
    server.script.append({"status": 401, "body": "x" * 183 + "{auth} was refused"})
    g = make(server.base_url, prompt_dir, api_key_env="JUDGE_KEY")
    [v] = g.grade_batch(claims(1))
    assert v.error is not None and "HTTP 401" in v.error
    assert KEY[:12] not in v.error and KEY[-8:] not in v.error and "sk-test" not in v.error
    server.script.append({"status": 500, "body": "Bearer " + KEY})
    server.script.append({"status": 200, "body": "not json " * 20 + KEY})
    [v] = make(server.base_url, prompt_dir, api_key_env="JUDGE_KEY", max_attempts=2).grade_batch(claims(1))
    assert v.error is not None and "not JSON" in v.error and "sk-test" not in v.error


def test_key_echoed_in_an_unparseable_reply_is_redacted(
    server: FakeOpenAI, prompt_dir: Path, monkeypatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    server.script.append({"content": "I cannot decide. " * 11 + KEY})
    [v] = make(server.base_url, prompt_dir, api_key_env="JUDGE_KEY").grade_batch(claims(1))
    assert v.error is not None and "unparseable" in v.error and "sk-test" not in v.error


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("sk-abc\ndef", "a line break at character 7"),
        ("sk-abc\rX-Injected: 1", "a line break"),
        ("sk-abc def", "a space or tab"),
        ("sk-abc\x07def", "a control character (U+0007)"),
        ("sk-abc\u200bdef", "a non-ASCII character (U+200B)"),
        ("sk-abcdef\n", "a line break at character 10 of 10"),
    ],
    ids=["newline", "carriage-return", "space", "bell", "zero-width", "trailing-newline"],
)
def test_a_key_with_odd_characters_is_refused_at_load(
    prompt_dir: Path, monkeypatch, value: str, what: str
) -> None:
    monkeypatch.setenv("JUDGE_KEY", value)
    with pytest.raises(GraderRunError) as info:
        make("http://127.0.0.1:9/v1", prompt_dir, api_key_env="JUDGE_KEY")
    message = str(info.value)
    assert "JUDGE_KEY" in message and what in message
    assert value not in message and "sk-abc" not in message


def test_echo_problem_is_a_pure_rule() -> None:
    from graderctl.kinds.llm_judge import echo_problem

    prompt = 'Judge this claim: the rate rose.\nReply like {"accept": true, "reason": "it says so"}.'
    assert echo_problem(prompt, prompt) == "the reply repeats the prompt"
    assert "example answer" in (echo_problem('{"accept": true, "reason": "it says so"}', prompt) or "")
    assert "example answer" in (echo_problem('{"reason": "it says so", "accept": true}', prompt) or "")
    assert "a part of the prompt" in (
        echo_problem("Judge this claim: the rate rose.\nReply like", prompt) or ""
    )
    assert echo_problem('{"accept": false, "reason": "the passage says it fell"}', prompt) is None
    assert echo_problem('{"accept": true}', "no example here") is None


def test_a_reply_echoing_the_prompt_is_an_error(prompt_dir: Path) -> None:
    # item 10: the prompt holds an example answer {"accept": true, ...}; echoing it is no verdict
    with FakeOpenAI(mode="echo_prompt") as srv:
        verdicts = make(srv.base_url, prompt_dir).grade_batch(claims(3))
    assert all(v.accepted is None and not v.is_undecided for v in verdicts)
    assert all(v.error and "repeats the prompt" in v.error for v in verdicts)


def test_a_reply_repeating_the_example_answer_is_an_error(server: FakeOpenAI, prompt_dir: Path) -> None:
    example = '{"accept": true, "score": 0.9, "reason": "the evidence states it"}'
    server.script.extend([{"content": example}, {"content": f"```json\n{example}\n```"}])
    server.script.append({"content": '{"accept": true, "score": 0.9, "reason": "the passage says so"}'})
    first, second, third = make(server.base_url, prompt_dir, concurrency=1).grade_batch(claims(1) * 3)
    assert first.accepted is None and first.error and "example answer" in first.error
    assert second.accepted is None and second.error and "example answer" in second.error
    assert third.accepted is True  # a verdict of its own, in the example's shape, is a verdict


@pytest.mark.parametrize(
    "content",
    [
        '{"accept": false, "accept": true, "reason": "x"}',
        '```json\n{"accept": true, "reason": "a", "reason": "b"}\n```',
        'Verdict: {"accept": true, "details": {"k": 1, "k": 2}}',
    ],
    ids=["accept-twice", "reason-twice-fenced", "nested"],
)
def test_a_verdict_with_a_duplicate_key_is_an_error(
    server: FakeOpenAI, prompt_dir: Path, content: str
) -> None:
    server.script.append({"content": content})
    [v] = make(server.base_url, prompt_dir).grade_batch(claims(1))
    assert v.accepted is None and v.error and "more than once" in v.error


def test_an_envelope_with_a_duplicate_key_is_an_error(server: FakeOpenAI, prompt_dir: Path) -> None:
    good = {"index": 0, "message": {"role": "assistant", "content": '{"accept": true}'}}
    bad = {"index": 0, "message": {"role": "assistant", "content": '{"accept": false}'}}
    raw = '{"choices": [' + json.dumps(bad) + '], "choices": [' + json.dumps(good) + "]}"
    server.script.append({"body": raw})
    [v] = make(server.base_url, prompt_dir, max_attempts=1).grade_batch(claims(1))
    assert v.accepted is None and v.error and "'choices' more than once" in v.error


def test_timeout_bounds_the_whole_request_not_each_read(server: FakeOpenAI, prompt_dir: Path) -> None:
    # item 10: ~500 bytes at 10 ms each take ~5 s; every byte comes well within the 0.5 s timeout
    import time

    server.script.append({"trickle": 0.01})
    g = make(server.base_url, prompt_dir, timeout=0.5, max_attempts=1)
    started = time.monotonic()
    [v] = g.grade_batch(claims(1))
    took = time.monotonic() - started
    g.close()
    assert v.accepted is None and v.error and "timed out after 0.5 s" in v.error
    assert took < 2.0, took
    assert v.usage is not None and v.usage.requests == 1  # the server saw it


def test_requests_are_counted_as_the_server_sees_them(server: FakeOpenAI, prompt_dir: Path) -> None:
    # item 11: three 500s then a verdict: four requests reached the server, three of them retries
    server.script.extend([{"status": 500}] * 3)
    [v] = make(server.base_url, prompt_dir, max_attempts=5).grade_batch(claims(1))
    assert v.accepted is False and v.usage is not None
    assert (v.usage.requests, v.usage.retries) == (4, 3) == (server.requests, server.requests - 1)


def test_refused_connections_are_not_requests(prompt_dir: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    [v] = make(url, prompt_dir, max_connect_attempts=3).grade_batch(claims(1))
    assert v.accepted is None and v.usage is not None
    assert (v.usage.requests, v.usage.retries) == (0, 0)  # the server never saw anything
