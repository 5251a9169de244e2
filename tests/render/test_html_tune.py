"""HTML pages of ``graderctl tune`` and of a calibration with abstention (coverage, undecided samples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.calibrate_support import register_test_kinds, write_grader
from tests.render.html_check import check_page, parse
from tests.services.test_tune import project

from graderctl.cli import _state, app
from graderctl.errors import ExitCode


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "extra", [[], ["--band", "--target", "far=0.04,frr=0.06"], ["--target", "far=0.001,frr=0.01"]]
)
def test_tune_page_shows_every_number_of_the_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str]
) -> None:
    root = project(tmp_path)
    args = ["tune", "scored@1", "--set", "s", "--no-write", "-q", *extra]
    code, out, err = run(capsys, root, *args, "--format", "json")
    doc = json.loads(out)
    page = tmp_path / "tune.html"
    code2, text, err = run(capsys, root, *args, "--output", str(page))
    assert code2 == code, err
    assert not text.startswith("<!DOCTYPE")
    parsed = check_page(page.read_text(), doc)
    words = " ".join(parsed.text)
    assert ("An operating point meets the limits" in words) is doc["meets_limits"]
    assert parsed.svgs == 1
    shown = {f.pointer for f in parsed.figures}
    assert all(f"/curve/{i}/threshold" in shown for i in range(len(doc["curve"])))
    # and through `graderctl report`, listed in the index with its status
    saved = tmp_path / "tune.json"
    saved.write_text(out)
    code, listing, err = run(
        capsys, root, "report", str(saved), "--output", str(tmp_path / "site"), "--format", "json"
    )
    assert code == ExitCode.OK, err
    (entry,) = json.loads(listing)["pages"]
    assert (
        entry["type"] == "tune" and entry["passed"] is doc["meets_limits"] and entry["set"].startswith("s ")
    )


def test_calibration_page_of_a_band_shows_coverage_and_undecided_samples(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = project(tmp_path)
    write_grader(
        root, "scored", "test_scored", version=2, params={"accept_at_or_above": 0.62, "reject_below": 0.45}
    )
    args = ["calibrate", "scored@2", "--set", "s", "--no-write", "-q"]
    _, out, _ = run(capsys, root, *args, "--format", "json")
    doc = json.loads(out)
    assert doc["undecided"] > 0 and doc["coverage"]["decided"] < doc["coverage"]["n"]
    _, page, _ = run(capsys, root, *args, "--format", "html")
    parsed = check_page(page, doc, skip=("/environment", "/samples"))
    shown = {f.pointer for f in parsed.figures}
    assert {"/coverage/value", "/coverage/lower_95", "/coverage/ci_low", "/undecided"} <= shown
    undecided = [s["id"] for s in doc["samples"] if s.get("undecided")]
    rows = [a for tag, a in parse(page).tags if tag == "tr" and a.get("data-kind") == "und"]
    assert len(rows) == len(undecided)
