"""``graderctl score --resolve online`` with the shipped source-existence grader, against a web server on
127.0.0.1 started by the test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.page_server import QUOTE, PageServer
from tests.support.page_server import server as server  # the fixture

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]


def trial(task: str, url: str, quote: str | None = QUOTE) -> dict[str, Any]:
    citation: dict[str, Any] = {"source_id": "s1"}
    if quote is not None:
        citation["quote"] = quote
    return {
        "task_id": task,
        "trial_id": f"{task}-1",
        "task": {"question": "Which grid upgrade was approved?"},
        "report": {
            "text": f"The northern link was approved [1].\n\nSources:\n[1] {url}",
            "claims": [{"id": "c1", "text": "The northern link was approved.", "citations": [citation]}],
            "sources": [{"id": "s1", "url": url}],
        },
    }


def test_score_resolve_online(capsys: pytest.CaptureFixture[str], tmp_path: Path, server: PageServer) -> None:
    trials = tmp_path / "trials.jsonl"
    rows = [
        trial("ok", server.url("/page")),
        trial("gone", server.url("/gone")),
        trial("down", server.url("/broken")),
    ]
    trials.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "d1", "url": "https://example.org/other", "text": "Unrelated."}) + "\n"
    )
    out = tmp_path / "results.jsonl"
    args = [
        "--root",
        str(REPO),
        "score",
        str(trials),
        "--corpus",
        str(corpus),
        "-o",
        str(out),
        "--check",
        "source_existence",
        "--no-cache",
    ]
    code = _state.run(app, [*args, "--resolve", "online"])
    _, err = capsys.readouterr()
    assert code == ExitCode.OK, err
    assert "resolves sources the corpus lacks online" in err
    by_task = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert by_task["ok"]["success"] is True
    assert (
        by_task["gone"]["success"] is False
        and "HTTP 404" in by_task["gone"]["checks"]["source_existence"]["reasons"][0]
    )
    assert by_task["down"]["success"] is None and by_task["down"]["checks"]["source_existence"]["errors"] == 1
    assert all(r["checks"]["source_existence"]["resolve"] == "online" for r in by_task.values())
    # the definition's fingerprint is unchanged: the choice is recorded beside it
    fingerprints = {r["checks"]["source_existence"]["fingerprint"] for r in by_task.values()}
    # without --resolve: the corpus only, no request, every source unknown (rejected)
    server.hits.clear()
    code = _state.run(app, [*args, "-o", str(tmp_path / "offline.jsonl")])
    _, err = capsys.readouterr()
    assert code == ExitCode.OK, err
    offline = [json.loads(x) for x in (tmp_path / "offline.jsonl").read_text().splitlines()]
    assert [r["success"] for r in offline] == [False, False, False] and sum(server.hits.values()) == 0
    assert {r["checks"]["source_existence"]["fingerprint"] for r in offline} == fingerprints
    assert all("resolve" not in r["checks"]["source_existence"] for r in offline)


def test_resolve_needs_a_source_existence_grader(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trials = tmp_path / "trials.jsonl"
    trials.write_text(json.dumps(trial("t", "https://example.org/x")) + "\n")
    code = _state.run(
        app,
        [
            "--root",
            str(REPO),
            "score",
            str(trials),
            "-o",
            str(tmp_path / "r.jsonl"),
            "--check",
            "claim_support",
            "--allow-untrusted",
            "--resolve",
            "online",
        ],
    )
    _, err = capsys.readouterr()
    assert code == ExitCode.USAGE_ERROR and "no grader in use resolves sources" in err
