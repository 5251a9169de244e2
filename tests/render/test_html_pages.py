"""HTML pages of comparisons (and the others), and ``graderctl report``: every number of the JSON on the page,
nothing fetched, user text escaped, the index listing every report with its status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.compare_support import copy_project, register_kinds
from tests.conftest import REPO
from tests.render.html_check import check_page, parse

from graderctl.cli import _state, app
from graderctl.errors import ExitCode

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def _score(root: Path, name: str, grader: str) -> Path:
    from graderctl.services.score import ScoreOptions, score_trials
    from graderctl.store.project import find_grader

    out = root / name
    check = find_grader(grader, root).spec.check.value  # that check only: the others would keep theirs
    score_trials(
        ScoreOptions(
            output=out, trials=root / "trials.jsonl", graders=[grader], checks=[check], allow_untrusted=True
        ),
        root=root,
    )
    return out


def test_comparison_page_shows_every_number_of_the_json(
    capsys: pytest.CaptureFixture[str], root: Path
) -> None:
    results = _score(root, "results_v1.jsonl", "thresh@1")
    args = ["compare", "thresh@1", "thresh@3", "--replay", str(results), "-q"]
    code, out, err = run(capsys, root, *args, "--format", "json")
    assert code == ExitCode.NEGATIVE_VERDICT, err
    doc = json.loads(out)
    code, page, err = run(capsys, root, *args, "--format", "html", "--no-write")
    assert code == ExitCode.NEGATIVE_VERDICT, err
    parsed = check_page(page, doc, skip=("/environment",))
    text = " ".join(parsed.text)
    assert "NOT COMPARABLE" in text
    for stratum in doc["sets"][0]["strata"].values():
        for flip in stratum["flipped"]:
            assert flip["id"] in text
    for flip in doc["replay"]["flipped"]:
        assert flip["trial_id"] in text
    assert parsed.svgs >= 3  # strata against the margin, replay against the margin, pass@k under both


def test_compare_output_html_file(capsys: pytest.CaptureFixture[str], root: Path, tmp_path: Path) -> None:
    page = tmp_path / "cmp.html"
    code, out, err = run(capsys, root, "compare", "thresh@1", "thresh@2", "--output", str(page), "-q")
    assert code == ExitCode.OK, err
    assert not out.startswith("<!DOCTYPE")
    assert "COMPARABLE" in " ".join(parse(page.read_text()).text)


def test_report_renders_a_folder_with_an_index(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    site = tmp_path / "site"
    code, out, err = run(
        capsys, REPO, "report", str(REPO / "reports"), "--output", str(site), "--format", "json"
    )
    assert code == ExitCode.OK, err
    listing = json.loads(out)
    assert listing["type"] == "report_site"
    sources = sorted((REPO / "reports").glob("*/*.json"))
    assert len(listing["pages"]) == len(sources)
    index = (site / "index.html").read_text()
    parsed = parse(index)
    links = {a.get("href") for tag, a in parsed.tags if tag == "a"}
    for entry in listing["pages"]:
        name = Path(entry["path"]).name
        assert name in links
        doc = json.loads((REPO / entry["source"]).read_text())
        check_page((site / name).read_text(), doc, skip=("/environment", "/samples"))
        assert entry["passed"] is doc["trusted"]
    text = " ".join(parsed.text)
    trusted = sum(json.loads(p.read_text())["trusted"] for p in sources)
    assert f"{trusted} of {len(sources)} grader × set pair(s) trusted" in text
    check_page(index, {})  # the index shows no figure of its own, and fetches nothing


def test_report_refuses_an_unknown_or_newer_document_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    unknown = tmp_path / "x.json"
    unknown.write_text(json.dumps({"schema_version": 1, "type": "weather"}))
    newer = tmp_path / "n.json"
    doc = json.loads((REPO / "reports/coverage-core/coverage@1.json").read_text())
    doc["schema_version"] = 2
    newer.write_text(json.dumps(doc))
    site = tmp_path / "site"
    for bad in (unknown, newer, tmp_path / "missing.json"):
        code, _, err = run(capsys, REPO, "report", str(bad), "--output", str(site))
        assert code == ExitCode.INVALID_INPUT, err
        assert str(bad.name) in err
        assert not site.exists()


def test_report_skips_other_json_in_a_folder_with_a_note(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "notes.json").write_text("[1, 2]")
    (folder / "cal.json").write_text((REPO / "reports/coverage-core/coverage@1.json").read_text())
    code, out, err = run(capsys, REPO, "report", str(folder), "--output", str(tmp_path / "site"))
    assert code == ExitCode.OK, err
    assert "skipped" in err and "notes.json" in err
    assert "coverage@1" in out


def test_index_escapes_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = json.loads((REPO / "reports/coverage-core/coverage@1.json").read_text())
    doc["calibration_set"]["name"] = XSS
    doc["samples"][0]["reason"] = XSS
    src = tmp_path / "r.json"
    src.write_text(json.dumps(doc))
    site = tmp_path / "site"
    code, _, err = run(capsys, REPO, "report", str(src), "--output", str(site))
    assert code == ExitCode.OK, err
    for page in site.glob("*.html"):
        html = page.read_text()
        assert XSS not in html
        parsed = parse(html)
        assert not any(tag == "img" for tag, _ in parsed.tags)


def _metrics_args(results: Path) -> list[str]:
    return ["metrics", str(results), "--k", "1,2,3", "--n-boot", "200"]


def test_metrics_page_shows_every_number_of_the_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    code, _, err = run(
        capsys,
        REPO,
        "score",
        str(REPO / "examples/research-agent/trials.jsonl"),
        "--output",
        str(results),
        "--allow-untrusted",
        "-q",
    )
    assert code == ExitCode.OK, err
    code, out, err = run(capsys, REPO, *_metrics_args(results), "--format", "json")
    assert code == ExitCode.OK, err
    doc = json.loads(out)
    page = tmp_path / "m.html"
    code, out, err = run(capsys, REPO, *_metrics_args(results), "--output", str(page))
    assert code == ExitCode.OK, err
    assert not out.startswith("<!DOCTYPE")  # stdout keeps --format text
    parsed = check_page(page.read_text(), doc)
    shown = {f.pointer for f in parsed.figures}
    for k in ("1", "2", "3"):
        assert {
            f"/pass_at_k/{k}",
            f"/pass_hat_k/{k}",
            f"/pass_at_k_ci/{k}/low",
            f"/pass_hat_k_ci/{k}/high",
        } <= shown
    assert "/cost/cost_per_success/usd" in shown
    assert parsed.svgs >= 3  # pass@k over k, categories, checks


def test_metrics_page_escapes_and_points_into_odd_category_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    lines = [
        {"task_id": f"t{t}", "trial_id": f"t{t}-{i}", "success": (t + i) % 3 == 0, "category": XSS + "/a~b"}
        for t in range(4)
        for i in range(3)
    ]
    results.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run(capsys, tmp_path, *_metrics_args(results)[:2], "--format", "json")
    assert code == ExitCode.OK, err
    doc = json.loads(out)
    code, html, err = run(capsys, tmp_path, *_metrics_args(results)[:2], "--format", "html")
    assert code == ExitCode.OK, err
    assert XSS not in html
    parsed = check_page(html, doc)
    escaped = (XSS + "/a~b").replace("~", "~0").replace("/", "~1")
    assert any(f.pointer.startswith(f"/categories/{escaped}/") for f in parsed.figures)


def test_probe_page_shows_every_number_of_the_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["probe", "claim-support@1", "--probe", "length", "--probe", "order", "--no-write", "-q"]
    code, out, err = run(capsys, REPO, *args, "--format", "json")
    assert code in (ExitCode.OK, ExitCode.NEGATIVE_VERDICT), err
    doc = json.loads(out)
    page = tmp_path / "p.html"
    code, _, err = run(capsys, REPO, *args, "--output", str(page))
    parsed = check_page(page.read_text(), doc, skip=("/probes/0/samples", "/probes/1/samples"))
    text = " ".join(parsed.text)
    for probe in doc["probes"]:
        assert probe["verdict"] in text
        for s in probe["samples"]:
            if s["flipped"]:
                assert s["id"] in text
    # saved probe reports render through `graderctl report` too
    one = tmp_path / "one.json"
    one.write_text(json.dumps(doc["probes"][0]))
    site = tmp_path / "site"
    code, out, err = run(capsys, REPO, "report", str(one), str(tmp_path / "all.json"), "--output", str(site))
    assert code == ExitCode.INVALID_INPUT  # all.json does not exist: nothing written
    (tmp_path / "all.json").write_text(json.dumps(doc))
    code, out, err = run(capsys, REPO, "report", str(one), str(tmp_path / "all.json"), "--output", str(site))
    assert code == ExitCode.OK, err
    pages = sorted(p.name for p in site.glob("*.html"))
    assert len(pages) == 3 and "index.html" in pages


def test_report_renders_a_calibration_batch_with_an_index_row_per_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sources = sorted((REPO / "reports").glob("*/*@1.json"))
    batch = {
        "schema_version": 1,
        "type": "calibration_batch",
        "reports": [json.loads(p.read_text()) for p in sources],
        "failures": [{"grader": "x@1", "set": "s", "error": XSS}],
    }
    src = tmp_path / "batch.json"
    src.write_text(json.dumps(batch))
    site = tmp_path / "site"
    code, out, err = run(capsys, REPO, "report", str(src), "--output", str(site), "--format", "json")
    assert code == ExitCode.OK, err
    pages = json.loads(out)["pages"]
    assert [p["path"].rsplit("#", 1)[1] for p in pages] == [f"r{i}" for i in range(len(sources))]
    (page,) = [p for p in site.glob("*.html") if p.name != "index.html"]
    skip = tuple(f"/reports/{i}/{k}" for i in range(len(sources)) for k in ("environment", "samples"))
    html = page.read_text()
    check_page(html, batch, skip=(*skip, "/failures", "/schema_version"))
    assert XSS not in html
