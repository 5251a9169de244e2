"""Every document ``score`` and ``trials import`` write or print validates against its shipped JSON Schema
(``graderctl schema``), and declares every field it holds: the CLI is run on the shipped examples
(research-agent, raw-text) and on a real Inspect AI log, and each output is checked with ``jsonschema``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app
from graderctl.store import schemas

REPO = Path(__file__).resolve().parents[2]
RESEARCH = REPO / "examples" / "research-agent" / "trials.jsonl"
RAW = REPO / "examples" / "raw-text" / "trials.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = _state.run(app, ["--root", str(REPO), *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def undeclared(value: Any, node: dict[str, Any], root: dict[str, Any], at: str = "") -> list[str]:
    """JSON pointers of the object keys in ``value`` that its schema does not name (an open model accepts
    them, so validation alone would not say the schema is silent about them)."""
    node = _resolve(node, root)
    if "anyOf" in node:
        return min(
            (undeclared(value, branch, root, at) for branch in node["anyOf"] if _fits(value, branch, root)),
            key=len,
            default=[],
        )
    out: list[str] = []
    if isinstance(value, dict):
        props = node.get("properties", {})
        extra = node.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                out += undeclared(item, props[key], root, f"{at}/{key}")
            elif isinstance(extra, dict) and extra:
                out += undeclared(item, extra, root, f"{at}/{key}")
            elif extra is True and not props:
                continue  # a dict[str, Any] field: anything goes, on purpose
            else:
                out.append(f"{at}/{key}")
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            out += undeclared(item, node["items"], root, f"{at}/{i}")
    return out


def _fits(value: Any, branch: dict[str, Any], root: dict[str, Any]) -> bool:
    kind = _resolve(branch, root).get("type")
    if kind is None:
        return True
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "null": value is None,
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
    }.get(kind, True)


def check(name: str, documents: list[Any]) -> None:
    """Each document validates against the shipped schema ``name`` and declares every key it has."""
    assert documents, f"nothing to check against {name}"
    validator = schemas.validator(name)
    schema = schemas.load(name)
    for i, doc in enumerate(documents):
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
        assert not errors, f"{name} document {i}: {errors[:3]}"
        assert not undeclared(doc, schema, schema), (
            f"{name} document {i}: undeclared {undeclared(doc, schema, schema)}"
        )


def test_score_with_review_and_rescore(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    graders = ["--grader", "source-existence@1", "--grader", "claim-support@2", "--grader", "coverage@2"]
    summary = run(
        capsys, "score", str(RESEARCH), "-o", str(out), *graders, "--allow-untrusted", "--format", "json"
    )
    check("score-summary", [summary])
    lines = jsonl(out)
    assert len(lines) == summary["trials"] == 25
    check("graded-result", lines)
    assert summary["review"] is not None
    review = (
        jsonl(REPO / summary["review"]["path"])
        if not Path(summary["review"]["path"]).is_absolute()
        else jsonl(Path(summary["review"]["path"]))
    )
    assert len(review) == summary["review"]["items"]
    check("review-item", review)

    rescored = tmp_path / "rescored.jsonl"
    again = run(
        capsys, "score", "--rescore", str(out), "--grader", "claim-support@1", "-o", str(rescored),
        "--allow-untrusted", "--format", "json",
    )  # fmt: skip
    check("score-summary", [again])
    lines = jsonl(rescored)
    assert all("rescored" in line and line["checks"]["claim_support"]["rescored_from"] for line in lines)
    check("graded-result", lines)


def test_score_raw_text_with_two_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "raw.jsonl"
    summary = run(
        capsys, "score", str(RAW), "-o", str(out), "--allow-untrusted", "--jobs", "2", "--format", "json"
    )
    check("score-summary", [summary])
    lines = jsonl(out)
    assert any(line.get("units_from") == "text" and line.get("parser") for line in lines)
    check("graded-result", lines)


def test_inspect_import_and_score(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inspect_logs: dict[str, Any]
) -> None:
    trials, corpus, results = tmp_path / "t.jsonl", tmp_path / "c.jsonl", tmp_path / "r.jsonl"
    summary = run(
        capsys, "trials", "import", "inspect", str(inspect_logs["eval"]), "-o", str(trials),
        "--corpus-output", str(corpus), "--results-output", str(results), "--format", "json",
    )  # fmt: skip
    check("trials-import-summary", [summary])
    check("trial", jsonl(trials))
    check("corpus-document", jsonl(corpus))
    check("graded-result", jsonl(results))
    scored = tmp_path / "scored.jsonl"
    summary = run(
        capsys, "score", str(inspect_logs["eval"]), "-o", str(scored), "--allow-untrusted", "--format", "json"
    )
    check("score-summary", [summary])
    check("graded-result", jsonl(scored))


def test_jsonl_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(
        "".join(
            json.dumps({"id": f"t{i % 2}", "out": {"text": f"Answer {i}."}, "m": "openai/gpt-4o", "ok": ok})
            + "\n"
            for i, ok in enumerate([True, "C", 0.2, None])
        )
    )
    trials, results = tmp_path / "t.jsonl", tmp_path / "r.jsonl"
    summary = run(
        capsys, "trials", "import", "jsonl", str(records), "-o", str(trials),
        "--results-output", str(results), "--map", "task_id=id,report=out.text,model=m,success=ok",
        "--format", "json",
    )  # fmt: skip
    check("trials-import-summary", [summary])
    check("trial", jsonl(trials))
    check("graded-result", jsonl(results))


def test_the_check_can_fail() -> None:
    """A document with a wrong type, or with a key its schema does not name, is caught."""
    with pytest.raises(AssertionError, match="score-summary"):
        check("score-summary", [{"output": "r.jsonl", "successes": "many"}])
    line = {"task_id": "t", "trial_id": "t-1", "success": True, "checks": {"coverage": {
        "passed": True, "grader": "g@1", "fingerprint": "sha256:0", "units": 1, "surprise": 1}}}  # fmt: skip
    with pytest.raises(AssertionError, match=r"undeclared.*/checks/coverage/surprise"):
        check("graded-result", [line])


def test_the_partial_files_of_an_interrupted_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RESULTS.partial`` and the review file's ``.partial``, as Ctrl-C leaves them, hold result lines and
    review items of the shipped schemas; ``--resume`` then finishes the same documents."""
    from graderctl.errors import ExitCode
    from graderctl.services import score as score_service
    from graderctl.store.results import partial_path

    real = score_service._grade_chunk
    calls: list[int] = []

    def interrupted(chunk: Any, *args: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(chunk, *args)

    monkeypatch.setattr(score_service, "_grade_chunk", interrupted)
    monkeypatch.setattr(score_service, "CHUNK_TRIALS", 4)
    out, review = tmp_path / "r.jsonl", tmp_path / "review.jsonl"
    args = ["score", str(RESEARCH), "-o", str(out), "--grader", "claim-support@2", "--allow-untrusted"]
    code = _state.run(app, ["--root", str(REPO), *args, "--review", str(review)])
    assert code == ExitCode.INTERRUPTED, capsys.readouterr().err
    capsys.readouterr()
    partial = jsonl(partial_path(out))
    assert len(partial) == 8
    check("graded-result", partial)
    check("review-item", jsonl(partial_path(review)))
    monkeypatch.setattr(score_service, "_grade_chunk", real)
    summary = run(capsys, *args, "--review", str(review), "--resume", "--format", "json")
    assert (summary["resumed"], summary["trials"]) == (8, 25)
    check("score-summary", [summary])
    check("graded-result", jsonl(out))
    check("review-item", jsonl(review))
