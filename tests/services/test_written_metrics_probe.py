"""Real outputs of ``metrics``, ``probe`` and ``calibrate --repeats`` on the shipped project validate against
the shipped JSON Schemas (``src/graderctl/schemas``), with jsonschema: the schemas say what the files hold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.store import schemas

REPO = Path(__file__).resolve().parents[2]
PROJECT_PARTS = ("graders", "calibration_sets", "reports", "examples")
TRIALS = "examples/research-agent/trials.jsonl"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped project with graded results of the example trials (``results.jsonl``)."""
    root = tmp_path_factory.mktemp("written")
    for part in PROJECT_PARTS:
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    results = str(root / "results.jsonl")
    args = ["--root", str(root), "score", str(root / TRIALS), "-o", results, "-q", "--allow-untrusted"]
    code = _state.run(app, [*args, "--format", "json"])
    assert code == ExitCode.OK
    return root


def run_json(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = _state.run(app, ["--root", str(root), *args])
    out = capsys.readouterr()
    return code, json.loads(out.out)


def assert_valid(name: str, document: Any) -> None:
    errors = sorted(schemas.validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def test_metrics_documents_validate(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = str(project / "results.jsonl")
    code, doc = run_json(project, capsys, "metrics", results, "--k", "1,2,3", "--format", "json")
    assert code == ExitCode.OK
    assert doc["type"] == "metrics" and doc["grader_error_correction"]["applied"] in (True, False)
    assert_valid("metrics", doc)
    tasks = sorted({json.loads(line)["task_id"] for line in Path(results).read_text().splitlines()})
    weights = project / "weights.json"
    weights.write_text(json.dumps({t: i + 1 for i, t in enumerate(tasks)}))
    code, doc = run_json(project, capsys, "metrics", results, "--weights", str(weights), "--format", "json")
    assert code == ExitCode.OK and doc["weighting"]["kind"] == "declared"
    assert_valid("metrics", doc)


def test_a_document_the_schema_refuses(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The check can fail: a changed type or an unknown field is refused."""
    _, doc = run_json(project, capsys, "metrics", str(project / "results.jsonl"), "--format", "json")
    with pytest.raises(AssertionError):
        assert_valid("metrics", {**doc, "tasks": "4"})
    with pytest.raises(AssertionError):
        assert_valid("metrics", {**doc, "surprise": 1})


def test_probe_reports_printed_and_written_validate(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = run_json(
        project,
        capsys,
        "probe",
        "claim-support@1",
        "--set",
        "claim-support-core",
        "--probe",
        "length",
        "--probe",
        "order",
        "--format",
        "json",
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT)
    assert doc["type"] == "probes" and len(doc["probes"]) == 2
    assert_valid("probes", doc)
    for report in doc["probes"]:
        assert_valid("probe-report", report)
    written = sorted((project / "reports" / "probes" / "claim-support-core").glob("*.json"))
    assert [p.name for p in written] == ["claim-support@1-length.json", "claim-support@1-order.json"]
    for path in written:
        assert_valid("probe-report", json.loads(path.read_text(encoding="utf-8")))
    code, doc = run_json(
        project, capsys, "probe", "coverage@1", "--probe", "format", "--no-write", "--format", "json"
    )
    assert doc["type"] == "probe" and doc["probe"] == "format"
    assert_valid("probe-report", doc)
    # the self probe of a grader that is not model-based: nothing to probe, still a valid report
    code, doc = run_json(
        project, capsys, "probe", "source-existence@1", "--probe", "self", "--no-write", "--format", "json"
    )
    assert code == ExitCode.OK and doc["outcome"] == "not_applicable"
    assert_valid("probe-report", doc)


def test_the_repeats_section_validates(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(
        project,
        capsys,
        "calibrate",
        "claim-support@1",
        "--set",
        "claim-support-core",
        "--repeats",
        "2",
        "--no-write",
        "--format",
        "json",
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT)
    assert doc["repeats"]["r"] == 2 and doc["repeats"]["outcome"] in ("consistent", "inconclusive")
    assert_valid("calibration-report", doc)
    with pytest.raises(AssertionError):
        assert_valid("calibration-report", {**doc, "repeats": {**doc["repeats"], "n": "x"}})
