from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.calibrate_support import register_test_kinds, sample, write_grader, write_set

from graderctl.models.reports import CalibrationReport
from graderctl.plugin import Verdict
from graderctl.render.markdown import MAX_LISTED, render_markdown
from graderctl.render.text import render_text, table
from graderctl.services.calibrate import outcomes_from_verdicts, report_from_outcomes
from graderctl.store.project import find_grader, find_set

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "calibration_report.md"
#: Set GRADERCTL_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change of the rendering.
UPDATE = os.environ.get("GRADERCTL_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


def make_report(
    tmp_path: Path, verdicts: dict[str, Verdict], samples: list[dict[str, object]]
) -> CalibrationReport:
    write_set(tmp_path, "s", samples)
    write_grader(tmp_path, "scripted", "test_scripted")
    grader, cal_set = find_grader("scripted@1", tmp_path), find_set("s", tmp_path)
    outcomes = outcomes_from_verdicts(cal_set.samples, [verdicts[s.id] for s in cal_set.samples])
    return report_from_outcomes(grader, cal_set, outcomes, created_at="2026-01-02T03:04:05Z")


def example(tmp_path: Path) -> CalibrationReport:
    samples: list[dict[str, object]] = []
    verdicts: dict[str, Verdict] = {}
    for i in range(70):
        category = ("fabricated_source", "misquote")[i % 2]
        samples.append(sample(f"bad-{i:02d}", "bad", "x", category=category, generator="model-a"))
        wrong = i in (1, 3, 5, 8)
        verdicts[f"bad-{i:02d}"] = (
            Verdict.accept(f"quote | found on page {i}") if wrong else Verdict.reject("no such source")
        )
    for i in range(30):
        samples.append(sample(f"good-{i:02d}", "good", "x", category="real_source"))
        verdicts[f"good-{i:02d}"] = Verdict.reject("title differs") if i == 0 else Verdict.accept("found")
    samples.append(sample("odd", "good", "x", category="real_source"))
    verdicts["odd"] = Verdict.failed("timed out after 5 s")
    return make_report(tmp_path, verdicts, samples)


def test_markdown_puts_the_verdict_first_then_rates_categories_and_misclassified(tmp_path: Path) -> None:
    md = render_markdown(example(tmp_path))
    lines = md.splitlines()
    assert lines[0] == "# Calibration of `scripted@1` on `s` (version 1)"
    assert lines[2].startswith("**Verdict: NOT TRUSTED")
    order = [
        md.index(h)
        for h in ("## Error rates", "## Categories that fail most", "## Misclassified samples (5)")
    ]
    assert order == sorted(order)
    assert "| false accept (known-bad accepted) | 4 / 70 | 5.71% |" in md
    # The categories that fail most, worst first.
    categories = md.split("## Categories that fail most")[1].split("##")[0]
    # misquote 3/35 wrong, real_source 1/30, fabricated_source 1/35
    assert categories.index("| misquote |") < categories.index("| real_source |")
    assert categories.index("| real_source |") < categories.index("| fabricated_source |")
    # Misclassified samples with their reasons; pipes in reasons do not break the table.
    assert "| bad-01 | bad | accepted | misquote | quote \\| found on page 1 |" in md
    assert "| good-00 | good | rejected | real_source | title differs |" in md
    assert "| odd | good | real_source | timed out after 5 s |" in md


def test_markdown_golden(tmp_path: Path) -> None:
    md = render_markdown(example(tmp_path))
    if UPDATE:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(md, encoding="utf-8")
    assert GOLDEN.is_file(), "run with GRADERCTL_UPDATE_GOLDEN=1 to create the golden file"
    assert md == GOLDEN.read_text(encoding="utf-8")


def test_markdown_caps_long_lists(tmp_path: Path) -> None:
    n = MAX_LISTED + 7
    samples = [sample(f"b{i:04d}", "bad", "x") for i in range(n)]
    report = make_report(tmp_path, {s["id"]: Verdict.accept("oops") for s in samples}, samples)  # type: ignore[misc]
    md = render_markdown(report)
    assert f"## Misclassified samples ({n})" in md
    assert "… and 7 more in the JSON report." in md
    assert md.count("| oops |") == MAX_LISTED


def test_trusted_report(tmp_path: Path) -> None:
    samples = [sample(f"b{i}", "bad", "x") for i in range(60)] + [
        sample(f"g{i}", "good", "x") for i in range(20)
    ]
    verdicts = {f"b{i}": Verdict.reject("no") for i in range(60)} | {
        f"g{i}": Verdict.accept("yes") for i in range(20)
    }
    report = make_report(tmp_path, verdicts, samples)
    md = render_markdown(report)
    assert md.splitlines()[2] == "**Verdict: TRUSTED: the grader meets the set's policy.**"
    assert "## Misclassified samples (0)\n\nNone." in md
    assert "No category has a misclassified sample or an error." in md
    text = render_text(report)
    assert text.splitlines()[0] == "scripted@1 on s (v1): TRUSTED: the grader meets the set's policy"


def test_text_summary(tmp_path: Path) -> None:
    text = render_text(example(tmp_path))
    lines = text.splitlines()
    assert lines[0].startswith("scripted@1 on s (v1): NOT TRUSTED")
    assert any(line.split()[:3] == ["false", "accept", "4/70"] for line in lines)
    assert any("FAIL (+" in line for line in lines)
    assert "  misclassified: 5" in lines
    assert "    odd: timed out after 5 s" in lines


def test_table_alignment() -> None:
    out = table(["a", "num"], [["x", "1"], ["longer", "100"]], right=(1,))
    assert out.splitlines() == ["a       num", "------  ---", "x         1", "longer  100"]


def test_the_tables_show_the_bound_the_verdict_uses_when_the_clustered_one_is_larger(tmp_path: Path) -> None:
    # 40 bad samples in 4 groups of 10; every false accept is in one group, so the cluster bootstrap's bound
    # is far above the binomial (Clopper-Pearson) bound, and it is the one the policy compares.
    samples: list[dict[str, object]] = []
    verdicts: dict[str, Verdict] = {}
    for i in range(40):
        samples.append(sample(f"b{i:02d}", "bad", "x", group=f"g{i // 10}"))
        verdicts[f"b{i:02d}"] = Verdict.accept("yes") if i < 6 else Verdict.reject("no")
    for i in range(20):
        samples.append(sample(f"k{i:02d}", "good", "x", group=f"h{i}"))
        verdicts[f"k{i:02d}"] = Verdict.accept("yes")
    report = make_report(tmp_path, verdicts, samples)
    check = next(c for c in report.policy_checks if c.name == "false_accept_rate")
    assert check.bound == "clustered.upper_95"
    assert report.false_accept_rate.upper_95 is not None and check.observed is not None
    assert check.observed > report.false_accept_rate.upper_95
    from graderctl.render._fmt import pct

    shown, binomial = pct(check.observed), pct(report.false_accept_rate.upper_95)
    row = next(line for line in render_text(report).splitlines() if line.split()[:2] == ["false", "accept"])
    assert f"{shown} (clustered)" in row and binomial not in row
    md_row = next(line for line in render_markdown(report).splitlines() if line.startswith("| false accept"))
    assert f"{shown} (clustered)" in md_row and binomial not in md_row


def test_the_verdict_names_a_set_that_cannot_support_its_policy(tmp_path: Path) -> None:
    samples = [sample("b0", "bad", "x"), sample("g0", "good", "x")]
    write_set(tmp_path, "s", samples, far=1.0, frr=1.0, err=1.0)
    write_grader(tmp_path, "scripted", "test_scripted")
    grader, cal_set = find_grader("scripted@1", tmp_path), find_set("s", tmp_path)
    verdicts = [Verdict.reject("no"), Verdict.accept("yes")]
    report = report_from_outcomes(grader, cal_set, outcomes_from_verdicts(cal_set.samples, verdicts))
    assert not report.trusted and all(c.passed for c in report.policy_checks)
    assert "NOT TRUSTED: the set cannot support its own policy" in render_text(report).splitlines()[0]
    assert "accepts any rate" in render_markdown(report)
