"""Every JSON document the commands print or write, from REAL runs on the shipped project (and an import of
a small fixture), validates against the JSON Schema shipped for it (``graderctl schema``), with jsonschema."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.store import schemas
from tests.conftest import DATA, REPO


def printed(capsys: pytest.CaptureFixture[str], *args: str, root: Path = REPO) -> tuple[int, Any]:
    """Run ``graderctl --root ROOT ARGS`` in process; its exit code and the one JSON document on stdout."""
    code = _state.run(app, ["--root", str(root), *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def assert_valid(name: str, document: Any) -> None:
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in schemas.validator(name).iter_errors(document)
    ]
    assert not errors, f"{name}: " + "\n".join(errors[:10])


def test_calibrate_all_prints_a_batch_that_validates(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = printed(capsys, "calibrate", "--all", "--no-write", "--no-cache", "--format", "json", "-q")
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT)
    assert doc["type"] == "calibration_batch" and len(doc["reports"]) >= 5
    assert_valid("calibration-batch", doc)
    for report in doc["reports"]:
        assert_valid("calibration-report", report)


def test_calibrate_one_set_prints_a_report_that_validates(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = printed(
        capsys, "calibrate", "claim-support@1", "--no-write", "--no-cache", "--format", "json", "-q"
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT)
    assert doc["type"] == "calibration"
    assert_valid("calibration-report", doc)


def test_the_schema_declares_every_field_of_the_category_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """``by_category`` / ``by_generator`` rows carry the labels, the misclassifications and their rate: the
    shipped schema declares each of them (it said less than the files contain), and the types hold."""
    code, doc = printed(
        capsys, "calibrate", "claim-support@1", "--no-write", "--no-cache", "--format", "json", "-q"
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT)
    shipped = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((REPO / "reports").glob("*/*.json"))]
    rows = [r for d in [doc, *shipped] for key in ("by_category", "by_generator") for r in d[key].values()]
    assert rows and all({"n_good", "n_bad", "false_accepts", "false_rejects", "rate"} <= set(r) for r in rows)
    declared = schemas.load("calibration-report")["$defs"]["CategoryCounts"]["properties"]
    assert {k for r in rows for k in r} <= set(declared)
    assert_valid("calibration-report", doc)


def test_calibrate_check_prints_a_check_document_that_validates(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = printed(capsys, "calibrate", "--all", "--check", "--no-cache", "--format", "json", "-q")
    assert code == ExitCode.OK, doc
    assert doc["type"] == "calibration_check" and doc["current"] is True
    assert {r["state"] for r in doc["reports"]} == {"current"}
    assert_valid("calibration-check", doc)


def test_a_stale_check_document_validates_and_is_the_services(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every way a report can be stale, printed by ``calibrate --all --check --format json``: the document
    validates, and it is the model :func:`check_reports` returns (the command only prints it)."""
    from graderctl.services.calibrate import check_reports, shipped_pairs

    for folder in ("graders", "calibration_sets", "reports"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    reports = tmp_path / "reports"
    changed = reports / "claim-support-core" / "claim-support@1.json"
    doc = json.loads(changed.read_text(encoding="utf-8"))
    doc["samples"][0]["accepted"] = not doc["samples"][0]["accepted"]  # re-running gives another outcome
    changed.write_text(json.dumps(doc), encoding="utf-8")
    (reports / "claim-support-core" / "claim-support@2.md").unlink()  # the Markdown is missing
    (reports / "coverage-core" / "coverage@1.json").write_text("{not json", encoding="utf-8")  # unreadable
    (reports / "coverage-core" / "coverage@2.json").unlink()  # no report
    edited = reports / "source-existence-core" / "source-existence@1.json"  # another grader fingerprint
    doc = json.loads(edited.read_text(encoding="utf-8"))
    doc["grader"]["fingerprint"] = "sha256:" + "0" * 64
    edited.write_text(json.dumps(doc), encoding="utf-8")

    code, printed_doc = printed(
        capsys, "calibrate", "--all", "--check", "--no-cache", "--format", "json", "-q", root=tmp_path
    )
    assert code == ExitCode.NEGATIVE_VERDICT, printed_doc
    assert printed_doc["type"] == "calibration_check" and printed_doc["current"] is False
    assert [r["state"] for r in printed_doc["reports"]] == ["stale"] * 5
    assert_valid("calibration-check", printed_doc)
    pairs, _ = shipped_pairs(tmp_path)
    assert check_reports(pairs, root=tmp_path).model_dump(mode="json") == printed_doc


@pytest.mark.parametrize(
    ("dataset", "extra"),
    [("wice", ()), ("wice", ("--as-check", "source_existence")), ("realsumm", ()), ("attributionbench", ())],
)
def test_an_import_of_a_small_fixture_prints_a_summary_that_validates(
    dataset: str, extra: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = DATA / "importers" / dataset
    code, doc = printed(
        capsys, "sets", "import", dataset, str(source), "--output", str(tmp_path), "--format", "json", *extra
    )
    assert code == ExitCode.OK, doc
    assert doc["type"] == "import" and doc["samples"] > 0
    assert (tmp_path / doc["name"] / "samples.jsonl").is_file()
    assert_valid("import-summary", doc)


@pytest.mark.parametrize(
    ("paths", "ok"),
    [((), True), (("examples/research-agent", "examples/raw-text"), True), (("tests/data/broken",), False)],
)
def test_validate_prints_a_document_that_validates(
    paths: tuple[str, ...], ok: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = printed(capsys, "validate", *(str(REPO / p) for p in paths), "--format", "json")
    assert code == (ExitCode.OK if ok else ExitCode.INVALID_INPUT)
    assert doc["type"] == "validation" and doc["ok"] is ok and doc["files"]
    assert ok or doc["problems"]
    assert_valid("validation", doc)


@pytest.fixture(scope="module")
def split_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped graders and sets, claim-support-core given a tune/certify split."""
    root = tmp_path_factory.mktemp("split-project")
    for folder in ("graders", "calibration_sets"):
        shutil.copytree(REPO / folder, root / folder)
    manifest = root / "calibration_sets" / "claim-support-core" / "manifest.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n[split]\ntune_fraction = 0.5\nseed = 3\n")
    return root


@pytest.mark.parametrize("extra", [("--no-write",), ("--no-write", "--band"), ("--no-lock",)])
def test_tune_prints_a_result_that_validates(
    extra: tuple[str, ...], split_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = printed(
        capsys,
        "tune",
        "claim-support@1",
        "--set",
        "claim-support-core",
        "--format",
        "json",
        "-q",
        *extra,
        root=split_project,
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT), doc
    assert doc["type"] == "tune" and doc["curve"] and doc["calibration_set"]["name"] == "claim-support-core"
    assert_valid("tune-result", doc)
    if "--no-write" not in extra and code == ExitCode.OK:
        assert doc["written"] and (split_project / doc["written"]["path"]).is_file()


def test_calibrate_on_the_certify_split_prints_a_report_with_its_ledger_that_validates(
    split_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for version in ("1", "2", "1"):
        code, doc = printed(
            capsys,
            "calibrate",
            f"claim-support@{version}",
            "--set",
            "claim-support-core",
            "--split",
            "certify",
            "--no-write",
            "--format",
            "json",
            "-q",
            root=split_project,
        )
        assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT), doc
        assert_valid("calibration-report", doc)
    assert doc["split"] == "certify" and doc["ledger"]["looks"] == 3
    ledger = split_project / "reports" / "claim-support-core" / "ledger.jsonl"
    for line in ledger.read_text(encoding="utf-8").splitlines():
        assert_valid("certify-ledger-entry", json.loads(line))


def test_score_review_lines_and_sets_add_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """score writes the units claim-support@2 left undecided for review; labelled, `sets add` adds them."""
    root = tmp_path / "project"
    for folder in ("graders", "calibration_sets"):
        shutil.copytree(REPO / folder, root / folder)
    trials = REPO / "examples" / "research-agent" / "trials.jsonl"
    results = tmp_path / "results.jsonl"
    argv = [
        "--root",
        str(root),
        "score",
        str(trials),
        "--grader",
        "claim-support@2",
        "--output",
        str(results),
    ]
    code = _state.run(app, [*argv, "--allow-untrusted", "-q"])
    capsys.readouterr()
    assert code == ExitCode.OK
    review = tmp_path / "results.review.jsonl"
    items = [json.loads(line) for line in review.read_text(encoding="utf-8").splitlines()]
    assert items
    for item in items:
        assert_valid("review-item", item)
    for i, item in enumerate(items[:4]):
        item["label"] = "good" if i % 2 else "bad"
    review.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    for dry in (("--dry-run",), ()):
        code, doc = printed(
            capsys,
            "sets",
            "add",
            "claim-support-core",
            "--from",
            str(review),
            "--format",
            "json",
            *dry,
            root=root,
        )
        assert code == ExitCode.OK, doc
        assert doc["type"] == "sets_add" and doc["added"] == 4 and doc["version_after"] == 2
        assert_valid("sets-add", doc)
    assert "version = 2" in (root / "calibration_sets" / "claim-support-core" / "manifest.toml").read_text()


@pytest.mark.parametrize(
    ("old", "new"), [("claim-support@1", "claim-support@2"), ("coverage@1", "coverage@2")]
)
def test_compare_prints_a_comparison_that_validates(
    old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = printed(capsys, "compare", old, new, "--format", "json", "--no-write", "-q")
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT), doc
    assert doc["type"] == "comparison" and doc["sets"]
    assert_valid("comparison-report", doc)


def test_compare_replay_prints_a_replay_section_that_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trials = REPO / "examples" / "research-agent" / "trials.jsonl"
    results = tmp_path / "results.jsonl"
    argv = [
        "score",
        str(trials),
        "--grader",
        "claim-support@1",
        "--output",
        str(results),
        "--allow-untrusted",
    ]
    code = _state.run(app, ["--root", str(REPO), *argv, "--no-cache", "-q"])
    capsys.readouterr()
    assert code == ExitCode.OK
    for line in results.read_text(encoding="utf-8").splitlines():
        assert_valid("graded-result", json.loads(line))
    code, doc = printed(
        capsys,
        "compare",
        "claim-support@1",
        "claim-support@2",
        "--replay",
        str(results),
        "--trials",
        str(trials),
        "--format",
        "json",
        "--no-write",
        "-q",
    )
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT), doc
    assert (
        doc["replay"] is not None and doc["replay"]["n_trials"] > 0 and doc["replay"]["success"] is not None
    )
    assert_valid("comparison-report", doc)


def test_the_shipped_reports_validate() -> None:
    found = sorted((REPO / "reports").rglob("*.json"))
    assert found
    for path in found:
        doc = json.loads(path.read_text(encoding="utf-8"))
        name = {"calibration": "calibration-report", "comparison": "comparison-report"}[doc["type"]]
        assert_valid(name, doc)


@pytest.mark.parametrize(
    ("name", "document"),
    [
        ("calibration-check", {"schema_version": 1, "type": "calibration_check", "current": True}),
        (
            "calibration-check",
            {
                "schema_version": 1,
                "type": "calibration_check",
                "current": False,
                "reports": [{"grader": "a@1", "set": "s", "state": "old", "report": None, "detail": ""}],
            },
        ),
        ("calibration-batch", {"schema_version": 1, "type": "calibration_batch", "reports": [{}]}),
    ],
)
def test_a_broken_document_fails_its_schema(name: str, document: dict[str, Any]) -> None:
    """The schemas say something: a document missing a field or with an unknown state does not pass."""
    assert not schemas.validator(name).is_valid(document)


@pytest.mark.parametrize("edit_released", [False, True])
def test_list_prints_a_listing_that_validates(
    edit_released: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("graders", "calibration_sets", "reports"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    if edit_released:  # a released version edited since it was locked: listed, with its release problem
        grader = tmp_path / "graders" / "claim-support" / "v1.toml"
        text = grader.read_text(encoding="utf-8").replace('"""\\\n', '"""\\\nEdited. ', 1)
        grader.write_text(text, encoding="utf-8")
    code, doc = printed(capsys, "list", "--format", "json", root=tmp_path)
    assert code == (ExitCode.INVALID_INPUT if edit_released else ExitCode.OK), doc
    assert doc["type"] == "listing" and doc["graders"] and doc["sets"] and doc["kinds"]
    assert bool(doc["release_problems"]) is edit_released
    assert_valid("listing", doc)


def test_a_site_of_every_kind_of_report_validates_and_is_the_services(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report`` over calibration reports, a batch, a probes document and a stray JSON file (skipped with a
    note): the printed listing validates against report-site, is the model :func:`write_site` returns, and
    the text output lists the same pages."""
    from graderctl.render.html.site import site_text
    from graderctl.services.report_site import write_site

    extra = tmp_path / "extra"
    extra.mkdir()
    code, batch = printed(
        capsys, "calibrate", "claim-support@1", "--set", "claim-support-core", "--set", "claim-support-core",
        "--no-write", "--no-cache", "--format", "json", "-q",
    )  # fmt: skip
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT) and batch["type"] == "calibration_batch"
    (extra / "batch.json").write_text(json.dumps(batch), encoding="utf-8")
    code, probes = printed(capsys, "probe", "claim-support@2", "--no-write", "--format", "json", "-q")
    assert code == ExitCode.OK and probes["type"] == "probes"
    (extra / "probes.json").write_text(json.dumps(probes), encoding="utf-8")
    (extra / "other.json").write_text('{"not": "a report"}', encoding="utf-8")

    sources = [REPO / "reports", extra]
    code = _state.run(
        app,
        [
            "--root",
            str(REPO),
            "report",
            *map(str, sources),
            "--output",
            str(tmp_path / "a"),
            "--format",
            "json",
        ],
    )
    out = capsys.readouterr()
    assert code == ExitCode.OK, out.err
    assert "note: skipped" in out.err and "other.json" in out.err
    doc = json.loads(out.out)
    assert_valid("report-site", doc)
    assert {p["type"] for p in doc["pages"]} == {"calibration", "probes"}
    assert sum("#r" in p["path"] for p in doc["pages"]) == 2  # the batch: one page, a row per report
    written = write_site(sources, tmp_path / "b", root=REPO)
    assert written.listing.model_dump(mode="json") == json.loads(
        out.out.replace(f"{tmp_path}/a", f"{tmp_path}/b")
    )
    assert written.pages == len(list((tmp_path / "b").glob("*.html"))) - 1  # the index aside
    code = _state.run(
        app, ["--root", str(REPO), "report", *map(str, sources), "--output", str(tmp_path / "b")]
    )
    text = capsys.readouterr().out
    assert code == ExitCode.OK
    assert text == site_text(written.listing, pages=written.pages)
    assert len(text.splitlines()) == len(doc["pages"]) + 1


def test_an_error_document_with_problems_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refusal with located problems (exit 3): the document lists each, and validates against ``error``."""
    stray = tmp_path / "x.json"
    stray.write_text('{"schema_version": 1, "type": "weather"}', encoding="utf-8")
    code, doc = printed(capsys, "report", str(stray), "--output", str(tmp_path / "site"), "--format", "json")
    assert code == ExitCode.INVALID_INPUT
    assert doc["type"] == "error" and doc["exit_code"] == 3
    assert doc["problems"] == [
        {
            "file": str(stray),
            "line": None,
            "pointer": "/type",
            "message": "no page for this kind of report",
            "expected": "calibration, calibration_batch, comparison, metrics, probe, probes, tune",
            "got": "'weather'",
            "fix": None,
        }
    ]
    assert_valid("error", doc)


def test_report_prints_a_site_listing_that_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = printed(
        capsys, "report", str(REPO / "reports"), "--output", str(tmp_path / "site"), "--format", "json"
    )
    assert code == ExitCode.OK
    assert_valid("report-site", doc)
    assert doc["pages"] and all(Path(p["path"]).is_file() for p in doc["pages"])
    assert Path(doc["index"]).is_file()
