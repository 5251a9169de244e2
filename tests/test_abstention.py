"""Abstention: an undecided verdict is neither an accept, a reject nor an error; calibration reports coverage
and the rates on decided samples; policy may ask for a minimum coverage; score-based kinds abstain in a band
and expose the number their decision compares, consistently at every threshold."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from graderctl.kinds.claim_support import ClaimSupportGrader
from graderctl.kinds.coverage import CoverageGrader
from graderctl.plugin import Corpus, GradingContext, Verdict, decide
from graderctl.runner import run_grader
from graderctl.services.calibrate import calibrate
from graderctl.store.cache import VerdictCache
from graderctl.store.project import find_grader, find_set, load_set
from graderctl.store.reports import report_to_json
from tests.calibrate_support import register_test_kinds, sample, write_grader, write_set
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


def test_an_undecided_verdict_is_neither_a_decision_nor_an_error() -> None:
    v = Verdict.undecided("score in the band", score=0.55)
    assert v.accepted is None and v.error is None
    assert v.is_undecided and not v.is_error
    assert Verdict.failed("boom").is_error and not Verdict.failed("boom").is_undecided
    assert not Verdict.accept("ok").is_undecided and not Verdict.reject("no").is_undecided
    assert Verdict.by_band(None, "r").is_undecided
    assert Verdict.by_band(True, "r").accepted is True
    assert Verdict.by_band(False, "r").accepted is False


def test_decide_is_a_threshold_when_the_band_is_empty() -> None:
    for score in (0.0, 0.49, 0.5, 0.51, 1.0):
        assert decide(score, 0.5, 0.5) is (score >= 0.5)
    assert decide(0.3, 0.4, 0.7) is False
    assert decide(0.4, 0.4, 0.7) is None
    assert decide(0.69, 0.4, 0.7) is None
    assert decide(0.7, 0.4, 0.7) is True
    assert decide(-math.inf, 0.0, 0.0) is False


def test_the_runner_keeps_undecided_verdicts(tmp_path: Path) -> None:
    write_set(tmp_path, "s", [sample("a", "good", "undecided"), sample("b", "bad", "reject")])
    write_grader(tmp_path, "scripted", "test_scripted")
    grader = find_grader("scripted@1", tmp_path)
    verdicts = run_grader(grader.build(), [s.input for s in find_set("s", tmp_path).samples])
    assert verdicts[0].is_undecided and verdicts[0].reason == "in the band"
    assert verdicts[1].accepted is False


def _abstaining_project(tmp_path: Path, min_coverage: float | None = None) -> Path:
    samples = (
        [sample(f"b{i}", "bad", "reject") for i in range(10)]
        + [sample(f"ba{i}", "bad", "accept") for i in range(2)]
        + [sample(f"bu{i}", "bad", "undecided", category="hard") for i in range(5)]
        + [sample(f"g{i}", "good", "accept") for i in range(10)]
        + [sample(f"gu{i}", "good", "undecided", category="hard") for i in range(3)]
    )
    write_set(tmp_path, "s", samples, far=0.45, frr=0.45, min_coverage=min_coverage)
    write_grader(tmp_path, "scripted", "test_scripted")
    return tmp_path


def test_undecided_samples_count_in_no_rate_and_coverage_is_reported(tmp_path: Path) -> None:
    root = _abstaining_project(tmp_path)
    report = calibrate(find_grader("scripted@1", root), find_set("s", root), root=root, write=False)
    assert (report.false_accept_rate.count, report.false_accept_rate.n) == (2, 12)
    assert (report.false_reject_rate.count, report.false_reject_rate.n) == (0, 10)
    assert report.errors == 0 and report.error_rate == 0
    assert report.undecided == 8
    cov = report.coverage
    assert cov is not None and (cov.decided, cov.n) == (22, 30)
    assert cov.value == pytest.approx(22 / 30)
    assert cov.ci_low is not None and cov.ci_high is not None and cov.lower_95 is not None
    assert cov.ci_low < cov.lower_95 < cov.value < cov.ci_high
    assert report.by_category["hard"].undecided == 8
    assert report.by_category["hard"].errors == 0
    assert all(c.name != "coverage" for c in report.policy_checks)  # the policy asks for none
    assert any("undecided" in w for w in report.warnings)
    undecided = [o for o in report.samples if o.undecided]
    assert len(undecided) == 8 and all(o.accepted is None and o.error is None for o in undecided)
    doc = json.loads(report_to_json(report))
    assert doc["coverage"]["decided"] == 22 and doc["undecided"] == 8
    assert sum(1 for s in doc["samples"] if s.get("undecided")) == 8


@pytest.mark.parametrize(("minimum", "trusted"), [(0.95, False), (0.4, True)])
def test_min_coverage_is_compared_with_the_lower_bound(tmp_path: Path, minimum: float, trusted: bool) -> None:
    root = _abstaining_project(tmp_path, min_coverage=minimum)
    report = calibrate(find_grader("scripted@1", root), find_set("s", root), root=root, write=False)
    [check] = [c for c in report.policy_checks if c.name == "coverage"]
    assert report.coverage is not None
    assert check.bound == "lower_95" and check.observed == report.coverage.lower_95
    assert check.passed is trusted and report.trusted is trusted
    if not trusted:
        assert check.excess == pytest.approx(minimum - (report.coverage.lower_95 or 0))
        assert "abstains too often" in check.message


def test_a_report_without_abstention_has_no_new_fields(tmp_path: Path) -> None:
    write_set(tmp_path, "s", [sample("a", "good", "accept"), sample("b", "bad", "reject")])
    write_grader(tmp_path, "scripted", "test_scripted")
    report = calibrate(
        find_grader("scripted@1", tmp_path), find_set("s", tmp_path), root=tmp_path, write=False
    )
    doc = json.loads(report_to_json(report))
    assert "coverage" not in doc and "undecided" not in doc and "split" not in doc
    assert all("undecided" not in s for s in doc["samples"])
    assert all("undecided" not in row for row in doc["by_category"].values())


def test_the_verdict_cache_keeps_undecided_verdicts(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, "sha256:" + "0" * 64)
    cache.put({"x": 1}, Verdict.undecided("unsure", score=0.5))
    hit = cache.get({"x": 1})
    assert hit is not None and hit.is_undecided and hit.reason == "unsure"


# --- the score-based kinds: band, and a decision score that is consistent at every threshold ----------


def _shipped_params(name: str) -> dict[str, Any]:
    import tomllib

    return dict(tomllib.loads((REPO / "graders" / name / "v1.toml").read_text(encoding="utf-8"))["params"])


def _grade_shipped(kind: type[Any], set_name: str, **overrides: Any) -> list[Verdict]:
    cal_set = load_set(REPO / "calibration_sets" / set_name, root=REPO)
    params = kind.Params(**{**_shipped_params(set_name.removesuffix("-core")), **overrides})
    grader = kind(params, GradingContext(corpus=Corpus(cal_set.corpus.documents)))
    return grader.grade_batch([s.input for s in cal_set.samples])


@pytest.mark.parametrize(
    ("kind", "set_name", "band"),
    [(ClaimSupportGrader, "claim-support-core", (0.35, 0.7)), (CoverageGrader, "coverage-core", (0.4, 0.75))],
)
def test_band_verdicts_follow_the_decision_score(
    kind: type[Any], set_name: str, band: tuple[float, float]
) -> None:
    base = _grade_shipped(kind, set_name)
    threshold = _shipped_params(set_name.removesuffix("-core"))["threshold"]
    for v in base:  # the shipped threshold: accept exactly when the decision score reaches it
        assert v.decision_score is not None
        assert (v.accepted is True) == (v.decision_score >= threshold)
    low, high = band
    banded = _grade_shipped(kind, set_name, reject_below=low, accept_at_or_above=high)
    counts = {True: 0, False: 0, None: 0}
    for before, after in zip(base, banded, strict=True):
        expected = decide(before.decision_score or 0.0, low, high)
        got = None if after.is_undecided else after.accepted
        assert got is expected, after.reason
        assert after.decision_score == before.decision_score
        counts[got] += 1
        if got is None:
            assert "undecided" in after.reason
    assert min(counts.values()) > 0, counts
    # a new plain threshold gives what the decision scores of the first run predict (what `tune` relies on)
    moved = _grade_shipped(kind, set_name, threshold=high)
    for before, after in zip(base, moved, strict=True):
        assert (after.accepted is True) == ((before.decision_score or 0.0) >= high)


def test_an_upside_down_band_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="reject_below"):
        ClaimSupportGrader.Params(threshold=0.5, reject_below=0.8, accept_at_or_above=0.6)
    with pytest.raises(ValueError, match="reject_below"):
        CoverageGrader.Params(threshold=0.5, reject_below=0.7)


@pytest.mark.parametrize("word", ["unsure", "Undecided", " abstain ", "uncertain"])
def test_a_judge_replying_unsure_abstains(word: str) -> None:
    from graderctl.kinds.llm_judge import parse_verdict

    assert parse_verdict(f'{{"accept": "{word}", "score": 0.5, "reason": "hard"}}') == (None, 0.5, "hard")
