"""The HTML page of a calibration: every number of the JSON report on it, nothing fetched, user text
escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.calibrate_support import register_test_kinds, sample
from tests.conftest import DATA, REPO
from tests.render.html_check import check_page, parse
from tests.render.test_render import example, make_report

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.plugin import Verdict
from graderctl.render.html import calibration_page
from graderctl.render.html.calibration import threshold_curve
from graderctl.store.reports import read_report, report_to_json

SKIP = ("/environment", "/samples")
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


def _wrong_ids(doc: dict[str, object]) -> list[tuple[int, dict[str, object]]]:
    samples = doc["samples"]
    assert isinstance(samples, list)
    return [(i, s) for i, s in enumerate(samples) if s["correct"] is False or s["accepted"] is None]


@pytest.mark.parametrize("path", sorted((REPO / "reports").glob("*/*.json")), ids=lambda p: p.parent.name)
def test_shipped_report_page_shows_every_number_of_the_json(path: Path) -> None:
    report = read_report(path)
    doc = json.loads(path.read_text())
    html = "".join(calibration_page([report]))
    parsed = check_page(html, doc, skip=SKIP)
    text = " ".join(parsed.text)
    shown = {f.pointer for f in parsed.figures}
    for i, s in _wrong_ids(doc):
        assert s["id"] in text
        if s.get("score") is not None:
            assert f"/samples/{i}/score" in shown
    # the verdict in words
    assert ("NOT TRUSTED" in text) is (not doc["trusted"])
    assert parsed.svgs >= 4  # rates, threshold curve, categories, generators (or their absence said in words)


def test_every_number_check_fails_when_a_number_is_missing_or_wrong(tmp_path: Path) -> None:
    report = example(tmp_path)
    doc = json.loads(report_to_json(report))
    html = "".join(calibration_page([report]))
    check_page(html, doc, skip=SKIP)
    wrong = json.loads(json.dumps(doc))
    wrong["false_accept_rate"]["count"] += 1
    with pytest.raises(AssertionError, match="false_accept_rate/count"):
        check_page(html, wrong, skip=SKIP)
    extra = json.loads(json.dumps(doc))
    extra["by_category"]["misquote"]["unseen"] = 7
    with pytest.raises(AssertionError, match="not on the page"):
        check_page(html, extra, skip=SKIP)


def test_untrusted_text_is_escaped(tmp_path: Path) -> None:
    samples: list[dict[str, object]] = [
        sample("x" + str(i), "bad", "x", category=XSS if i == 0 else "c", generator=XSS) for i in range(8)
    ] + [sample(f"g{i}", "good", "x", category="ok") for i in range(8)]
    samples[1]["id"] = '"><svg onload=alert(2)>'
    verdicts = {str(s["id"]): Verdict.accept(XSS, score=0.7) for s in samples}
    verdicts["g0"] = Verdict.failed(XSS)
    report = make_report(tmp_path, verdicts, samples)
    html = "".join(calibration_page([report]))
    assert XSS not in html and "<svg onload" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    parsed = check_page(html, json.loads(report_to_json(report)), skip=SKIP)
    assert len(parsed.scripts) == 1 and "alert" not in parsed.scripts[0]
    text = " ".join(parsed.text)
    assert XSS in text  # shown as text, not as markup
    assert '"><svg onload=alert(2)>' in text


def test_threshold_curve_counts_accepts_at_or_above_each_score(tmp_path: Path) -> None:
    samples: list[dict[str, object]] = [sample(f"b{i}", "bad", "x") for i in range(4)]
    samples += [sample(f"g{i}", "good", "x") for i in range(4)]
    scores = {"b0": 0.1, "b1": 0.2, "b2": 0.6, "b3": 0.9, "g0": 0.3, "g1": 0.6, "g2": 0.8, "g3": 0.95}
    verdicts = {k: (Verdict.accept if v >= 0.5 else Verdict.reject)("r", score=v) for k, v in scores.items()}
    report = make_report(tmp_path, verdicts, samples)
    curve = threshold_curve(report.samples)
    assert curve is not None
    thresholds, far, frr, n_bad, n_good = curve
    assert (n_bad, n_good) == (4, 4)
    at = dict(zip(thresholds, zip(far, frr, strict=True), strict=True))
    assert at[0.6] == (0.5, 0.25)  # b2, b3 accepted; g0 rejected
    assert at[0.1] == (1.0, 0.0)
    assert at[0.95] == (0.0, 0.75)


def test_batch_page_points_into_the_batch_document(tmp_path: Path) -> None:
    one = example(tmp_path / "a")
    two = example(tmp_path / "b")
    html = "".join(calibration_page([one, two], [{"grader": "x@1", "set": "s", "error": XSS}]))
    doc = {"reports": [json.loads(report_to_json(one)), json.loads(report_to_json(two))]}
    parsed = check_page(
        html,
        doc,
        skip=("/reports/0/environment", "/reports/0/samples", "/reports/1/environment", "/reports/1/samples"),
    )
    assert XSS not in html
    assert {f.pointer.split("/")[2] for f in parsed.figures} == {"0", "1"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(DATA / "calibrate", dest)
    return dest


def test_cli_format_html_prints_the_page(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _state.run(
        app, ["--root", str(root), "calibrate", "scripted@1", "--set", "tiny-se", "--format", "html", "-q"]
    )
    out = capsys.readouterr()
    assert code == ExitCode.OK, out.err
    assert out.out.startswith("<!DOCTYPE html>")
    doc = json.loads((root / "reports/tiny-se/scripted@1.json").read_text())
    check_page(out.out, doc, skip=SKIP)


def test_cli_output_html_file_gets_the_page_and_stdout_the_text(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "out" / "cal.html"
    code = _state.run(
        app, ["--root", str(root), "calibrate", "scripted@1", "--set", "tiny-se", "--output", str(page), "-q"]
    )
    out = capsys.readouterr()
    assert code == ExitCode.OK, out.err
    assert out.out.startswith("scripted@1 on tiny-se")
    assert parse(page.read_text()).svgs >= 1


def test_cli_check_with_html_is_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _state.run(app, ["--root", str(root), "calibrate", "--all", "--check", "--format", "html"])
    assert code == ExitCode.USAGE_ERROR, capsys.readouterr().err


def test_cascade_page_shows_each_member(tmp_path: Path) -> None:
    from tests.kinds.test_cascade import FakeBandGrader, project
    from tests.support.fake_openai import FakeOpenAI

    from graderctl.plugin import kinds, register
    from graderctl.services.calibrate import calibrate
    from graderctl.store.project import find_grader, find_set

    if "fake_band" not in kinds():
        register(FakeBandGrader, origin="tests/kinds/test_cascade.py")
    with FakeOpenAI(mode="correct") as server:
        project(tmp_path, server.base_url)
        report = calibrate(
            find_grader("casc@1", tmp_path), find_set("cs", tmp_path), root=tmp_path, write=False
        )
    html = "".join(calibration_page([report]))
    parsed = check_page(html, json.loads(report_to_json(report)), skip=SKIP)
    shown = {f.pointer for f in parsed.figures}
    assert {"/cascade/calls_saved", "/cascade/members/1/share_of_samples", "/cascade/members/1/usd"} <= shown
    assert "Cascade members" in " ".join(parsed.text)
