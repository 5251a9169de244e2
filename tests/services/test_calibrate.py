from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.calibrate_support import (
    counted_samples,
    register_test_kinds,
    sample,
    write_grader,
    write_set,
)
from tests.conftest import oracle_path

from graderctl.errors import GraderRunError, InvalidInputError
from graderctl.models.reports import CalibrationReport
from graderctl.services.calibrate import (
    CalibrationStatus,
    calibrate,
    outcomes_from_verdicts,
    report_from_outcomes,
    status_of,
)
from graderctl.services.running import RunOptions
from graderctl.stats import clopper_pearson_upper, rate_stats, samples_needed
from graderctl.store.project import find_grader, find_set
from graderctl.store.reports import read_report, report_paths

ORACLES = oracle_path("intervals.json")


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


def run(root: Path, grader: str = "scripted@1", set_name: str = "s", **kw: Any) -> CalibrationReport:
    return calibrate(find_grader(grader, root), find_set(set_name, root), root=root, **kw)


def project(
    tmp_path: Path, samples: list[dict[str, Any]], kind: str = "test_scripted", **policy: float
) -> Path:
    write_set(tmp_path, "s", samples, **policy)
    write_grader(tmp_path, "scripted", kind)
    return tmp_path


# --- acceptance 1: every number recomputed from the report's own samples, and the oracle values --------


def recompute(doc: dict[str, Any]) -> None:
    """Check every number of a report document against its own per-sample outcomes."""
    samples = doc["samples"]
    bad = [s for s in samples if s["label"] == "bad" and s["accepted"] is not None]
    good = [s for s in samples if s["label"] == "good" and s["accepted"] is not None]
    far = rate_stats(sum(s["accepted"] for s in bad), len(bad)).to_dict()
    frr = rate_stats(sum(not s["accepted"] for s in good), len(good)).to_dict()
    for key, expected in far.items():
        assert doc["false_accept_rate"][key] == expected, key
    for key, expected in frr.items():
        assert doc["false_reject_rate"][key] == expected, key
    undecided = sum(bool(s.get("undecided")) for s in samples)
    errors = sum(s["accepted"] is None and not s.get("undecided") for s in samples)
    assert doc["errors"] == errors
    if undecided or "coverage" in doc:  # abstention: coverage over the samples graded without error
        assert doc["undecided"] == undecided
        assert doc["coverage"]["decided"] == len(samples) - errors - undecided
        assert doc["coverage"]["n"] == len(samples) - errors
    assert doc["error_rate"] == errors / len(samples)
    assert doc["n_graded"] == len(samples) - errors
    assert doc["calibration_set"]["n_bad"] == sum(s["label"] == "bad" for s in samples)
    assert doc["calibration_set"]["n_good"] == sum(s["label"] == "good" for s in samples)
    for s in samples:
        expected_correct = None if s["accepted"] is None else s["accepted"] == (s["label"] == "good")
        assert s["correct"] == expected_correct
        assert (s["error"] is None) == (s["accepted"] is not None or bool(s.get("undecided")))
    categories: dict[str, dict[str, int]] = {}
    for s in samples:
        row = categories.setdefault(s["category"], {"n": 0, "accepted": 0, "rejected": 0, "errors": 0})
        row["n"] += 1
        if s.get("undecided"):
            row["undecided"] = row.get("undecided", 0) + 1
            continue
        row["errors" if s["accepted"] is None else "accepted" if s["accepted"] else "rejected"] += 1
    fields = ("n", "accepted", "rejected", "errors", "undecided")
    assert {k: {f: v[f] for f in fields if f in v} for k, v in doc["by_category"].items()} == categories
    policy = doc["policy"]
    upper_far = doc["false_accept_rate"]["upper_95"]
    upper_frr = doc["false_reject_rate"]["upper_95"]
    for rate in ("false_accept_rate", "false_reject_rate"):
        clustered = doc[rate].get("clustered")
        if clustered and clustered["upper_95"] is not None:
            if rate == "false_accept_rate":
                upper_far = max(upper_far, clustered["upper_95"])
            else:
                upper_frr = max(upper_frr, clustered["upper_95"])
    trusted = (
        upper_far is not None
        and upper_far <= policy["max_false_accept_rate"]
        and upper_frr is not None
        and upper_frr <= policy["max_false_reject_rate"]
        and doc["error_rate"] <= policy["max_error_rate"]
    )
    assert doc["trusted"] is trusted
    # Misclassified first, then errors, then the rest.
    rank = [
        0 if s["correct"] is False else 1 if s["accepted"] is None and not s.get("undecided") else 2
        for s in samples
    ]
    assert rank == sorted(rank)


def test_report_numbers_equal_those_recomputed_from_its_samples(tmp_path: Path) -> None:
    samples = counted_samples(bad=40, false_accepts=3, good=25, false_rejects=4, errors_bad=1, errors_good=1)
    samples += [sample("extra-1", "bad", "accept", category="odd"), sample("extra-2", "good", "reject")]
    root = project(tmp_path, samples, err=0.5)
    run(root)
    json_path, md_path = report_paths(root, "s", "scripted", 1)
    doc = json.loads(json_path.read_text())
    assert md_path.is_file()
    assert doc["schema_version"] == 1 and list(doc)[:2] == ["schema_version", "type"]
    recompute(doc)
    assert doc["false_accept_rate"]["count"] == 4 and doc["false_accept_rate"]["n"] == 41
    assert doc["errors"] == 2


def test_report_numbers_recomputed_with_groups(tmp_path: Path) -> None:
    samples = [
        sample(f"b{i}", "bad", "accept" if i % 7 == 0 else "reject", group=f"seed-{i // 5}")
        for i in range(60)
    ] + [
        sample(f"g{i}", "good", "reject" if i % 9 == 0 else "accept", group=f"seed-{i // 5}")
        for i in range(45)
    ]
    root = project(tmp_path, samples, far=0.45, frr=0.45)
    report = run(root)
    doc = json.loads(report_paths(root, "s", "scripted", 1)[0].read_text())
    recompute(doc)
    clustered = report.false_accept_rate.clustered
    assert clustered is not None
    assert clustered.n_groups == 12
    assert clustered.seed == 20240601
    assert clustered.design_effect is not None
    assert clustered.ci_low is not None and clustered.upper_95 is not None and clustered.method


def _oracle() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ORACLES.read_text())
    return data


@pytest.mark.parametrize(("x", "n"), [(0, 30), (1, 20), (2, 40), (3, 100), (5, 20)])
def test_false_accept_interval_equals_the_oracle(tmp_path: Path, x: int, n: int) -> None:
    oracle = next(c for c in _oracle()["two_sided_95"] if (c["x"], c["n"]) == (x, n))
    root = project(tmp_path, counted_samples(bad=n, false_accepts=x, good=n, false_rejects=x), far=1, frr=1)
    report = run(root, write=False)
    for rate in (report.false_accept_rate, report.false_reject_rate):
        assert (rate.count, rate.n) == (x, n)
        assert rate.ci_low == pytest.approx(oracle["wilson"][0], abs=1e-6)
        assert rate.ci_high == pytest.approx(oracle["wilson"][1], abs=1e-6)


@pytest.mark.parametrize(("x", "n"), [(0, 30), (0, 59), (1, 50), (2, 100), (6, 100)])
def test_upper_bound_equals_the_oracle(tmp_path: Path, x: int, n: int) -> None:
    oracle = next(c for c in _oracle()["one_sided_95_upper_clopper_pearson"] if (c["x"], c["n"]) == (x, n))
    root = project(tmp_path, counted_samples(bad=n, false_accepts=x, good=n, false_rejects=x), far=1, frr=1)
    report = run(root, write=False)
    assert report.false_accept_rate.upper_95 == pytest.approx(oracle["upper"], abs=1e-6)
    assert report.false_reject_rate.upper_95 == pytest.approx(oracle["upper"], abs=1e-6)
    far_check = report.policy_checks[0]
    assert far_check.name == "false_accept_rate"
    assert far_check.observed == report.false_accept_rate.upper_95


def test_sample_size_advice_equals_the_oracle(tmp_path: Path) -> None:
    cases = {(c["target"], c["x"]): c["n"] for c in _oracle()["known_bad_needed_for_far_bound"]["cases"]}
    root = project(tmp_path, counted_samples(bad=20, false_accepts=1, good=20, false_rejects=0), far=0.05)
    report = run(root, write=False)
    advice = report.sample_size_advice
    assert advice is not None
    far = advice["false_accept_rate"]
    assert far.count == 1 and far.n == 20
    assert far.samples_needed_at_this_count == cases[(0.05, 1)] == 93
    assert far.additional_samples_needed == 93 - 20
    assert far.samples_needed_by_count["0"] == cases[(0.05, 0)]
    assert far.samples_needed_by_count["2"] == cases[(0.05, 2)]
    assert far.best_upper_95 == clopper_pearson_upper(1, 20)


# --- acceptance 2: accept-everything is never trusted; a set too small is called out -------------------


def test_a_grader_that_accepts_everything_is_never_trusted(tmp_path: Path) -> None:
    root = project(
        tmp_path, counted_samples(bad=300, false_accepts=0, good=300, false_rejects=0), "test_accept_all"
    )
    report = run(root)
    assert report.trusted is False
    assert status_of(report) is CalibrationStatus.policy_not_met
    assert report.false_accept_rate.value == 1.0
    far = next(c for c in report.policy_checks if c.name == "false_accept_rate")
    assert far.passed is False
    assert far.observed == 1.0 and far.limit == 0.05
    assert far.excess == pytest.approx(0.95)
    assert "over by 0.9500" in far.message
    frr = next(c for c in report.policy_checks if c.name == "false_reject_rate")
    assert frr.passed is True
    assert report.set_supports_policy is not None and report.set_supports_policy.supported is True


def test_a_set_too_small_for_its_policy_is_called_out(tmp_path: Path) -> None:
    root = project(tmp_path, counted_samples(bad=20, false_accepts=0, good=40, false_rejects=0))
    report = run(root)
    support = report.set_supports_policy
    assert support is not None
    assert support.supported is False
    entry = support.false_accept_rate
    assert entry is not None and entry.supported is False
    assert entry.samples_needed == samples_needed(0.05) == 59
    assert entry.best_possible_upper_95 == pytest.approx(clopper_pearson_upper(0, 20))
    assert support.false_reject_rate is not None and support.false_reject_rate.supported is True
    assert any("too small to support max_false_accept_rate" in w for w in report.warnings)
    assert report.trusted is False  # a perfect grader, but the set cannot show it
    md = report_paths(root, "s", "scripted", 1)[1].read_text()
    assert "Set too small" in md and "59 known-bad samples are needed" in md


# --- acceptance 3: errors are counted apart; error rate over the policy ---------------------------------


def test_errors_are_counted_apart_from_rejects(tmp_path: Path) -> None:
    # 10% of the samples fail: 9 of 90 (some bad, some good).
    samples = counted_samples(bad=45, false_accepts=2, good=36, false_rejects=3, errors_bad=5, errors_good=4)
    root = project(tmp_path, samples, far=0.45, frr=0.45, err=0.05)
    report = run(root)
    assert report.errors == 9
    assert report.error_rate == pytest.approx(0.1)
    assert (report.false_accept_rate.count, report.false_accept_rate.n) == (2, 45)
    assert (report.false_reject_rate.count, report.false_reject_rate.n) == (3, 36)
    assert status_of(report) is CalibrationStatus.error_rate_exceeded
    assert report.trusted is False
    erred = [o for o in report.samples if o.accepted is None]
    assert len(erred) == 9 and all(
        o.error == "could not reach the source" and o.correct is None for o in erred
    )
    assert report.by_category["fake"].errors == 5
    # The same errors within a looser policy: the rates decide.
    write_set(root, "s", samples, far=0.45, frr=0.45, err=0.2)
    assert status_of(run(root)) is CalibrationStatus.trusted


def test_a_batch_that_raises_on_one_sample_costs_only_that_sample(tmp_path: Path) -> None:
    samples = counted_samples(bad=10, false_accepts=0, good=10, false_rejects=0)
    samples.append(sample("poisoned", "bad", "poison"))
    root = project(tmp_path, samples, err=0.5, far=1, frr=1)
    report = run(root, options=RunOptions(batch_size=64))
    assert report.errors == 1
    (erred,) = [o for o in report.samples if o.accepted is None]
    assert erred.id == "poisoned" and erred.error == "RuntimeError: backend exploded"


def test_a_grader_that_cannot_run_raises_and_writes_nothing(tmp_path: Path) -> None:
    root = project(
        tmp_path, counted_samples(bad=5, false_accepts=0, good=5, false_rejects=0), "test_raise_always"
    )
    with pytest.raises(
        GraderRunError, match=r"could not grade any of the 10 samples.*refused the connection"
    ):
        run(root)
    assert not (root / "reports").exists()


def test_a_sample_that_times_out_is_an_error(tmp_path: Path) -> None:
    samples = [sample("slow", "good", "sleep"), sample("quick", "bad", "reject")]
    root = project(tmp_path, samples, err=1, far=1, frr=1)
    write_grader(root, "scripted", "test_scripted", params={"sleep": 1.0})
    report = run(root, options=RunOptions(timeout=0.1))
    slow = next(o for o in report.samples if o.id == "slow")
    assert slow.accepted is None and "timed out" in (slow.error or "")


# --- interrupt: no partial report ----------------------------------------------------------------------


def test_interrupt_leaves_no_report_and_keeps_the_old_one(tmp_path: Path) -> None:
    samples = counted_samples(bad=3, false_accepts=0, good=3, false_rejects=0)
    root = project(tmp_path, samples)
    run(root)
    json_path, md_path = report_paths(root, "s", "scripted", 1)
    before = (json_path.read_text(), md_path.read_text())
    write_set(root, "s", [*samples, sample("ctrl-c", "bad", "interrupt")])
    with pytest.raises(KeyboardInterrupt):
        run(root, options=RunOptions(batch_size=1, jobs=2))
    assert (json_path.read_text(), md_path.read_text()) == before
    assert sorted(p.name for p in json_path.parent.iterdir()) == ["scripted@1.json", "scripted@1.md"]


def test_interrupt_on_first_run_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, [sample("a", "good", "accept"), sample("ctrl-c", "bad", "interrupt")])
    with pytest.raises(KeyboardInterrupt):
        run(root)
    assert not (root / "reports").exists()


# --- undefined rates, breakdowns, agreement, usage -----------------------------------------------------


def test_no_known_bad_sample_gives_null_and_a_warning(tmp_path: Path) -> None:
    root = project(tmp_path, counted_samples(bad=0, false_accepts=0, good=10, false_rejects=0))
    report = run(root)
    far = report.false_accept_rate
    assert far.n == 0 and far.value is None and far.ci_low is None and far.upper_95 is None
    assert "false accept rate undefined: no known-bad sample graded" in report.warnings
    assert report.trusted is False
    doc = json.loads(report_paths(root, "s", "scripted", 1)[0].read_text())
    assert doc["false_accept_rate"]["value"] is None
    assert "NaN" not in report_paths(root, "s", "scripted", 1)[0].read_text()


def test_known_bad_all_erred_is_undefined_not_zero(tmp_path: Path) -> None:
    samples = counted_samples(bad=0, false_accepts=0, good=10, false_rejects=0, errors_bad=3)
    root = project(tmp_path, samples, err=1)
    report = run(root)
    assert report.false_accept_rate.value is None and report.false_accept_rate.n == 0
    assert report.errors == 3


def test_by_category_and_by_generator(tmp_path: Path) -> None:
    samples = [
        sample("a", "bad", "accept", category="misquote", generator="model-x"),
        sample("b", "bad", "reject", category="misquote", generator="model-x"),
        sample("c", "good", "reject", category="paraphrase", generator="model-y"),
        sample("d", "good", "accept", category="paraphrase"),
    ]
    report = run(project(tmp_path, samples), write=False)
    misquote = report.by_category["misquote"]
    assert (misquote.n, misquote.accepted, misquote.rejected, misquote.errors) == (2, 1, 1, 0)
    assert misquote.false_accepts == 1 and misquote.rate == 0.5  # type: ignore[attr-defined]
    assert set(report.by_generator) == {"model-x", "model-y"}
    assert report.by_generator["model-y"].false_rejects == 1  # type: ignore[attr-defined]


def test_agreement_of_two_labellers_is_cohen_kappa(tmp_path: Path) -> None:
    from graderctl.stats import cohen_kappa

    a = ["bad", "bad", "good", "good", "bad", "good"]
    b = ["bad", "good", "good", "good", "bad", "bad"]
    samples = [
        sample(f"s{i}", a[i], "reject" if a[i] == "bad" else "accept", labels={"ann": a[i], "bob": b[i]})
        for i in range(6)
    ]
    report = run(project(tmp_path, samples), write=False)
    agreement = report.agreement
    assert agreement is not None
    assert agreement.method == "cohen_kappa"
    assert agreement.value == pytest.approx(cohen_kappa(a, b))
    assert agreement.contested == ["s1", "s5"]
    assert agreement.labellers == ["ann", "bob"]


def test_agreement_of_three_labellers_is_krippendorff_alpha(tmp_path: Path) -> None:
    from graderctl.stats import krippendorff_alpha_nominal

    rows = [("bad", "bad", "bad"), ("good", "good", "bad"), ("good", "good", "good"), ("bad", "bad", None)]
    samples = []
    for i, row in enumerate(rows):
        labels = {name: lab for name, lab in zip(("a", "b", "c"), row, strict=True) if lab is not None}
        samples.append(sample(f"u{i}", row[0], "accept", labels=labels))
    report = run(project(tmp_path, samples), write=False)
    agreement = report.agreement
    assert agreement is not None and agreement.method == "krippendorff_alpha_nominal"
    assert agreement.value == pytest.approx(krippendorff_alpha_nominal([list(r) for r in rows]))
    assert agreement.contested == ["u1"]


def test_no_labels_no_agreement(tmp_path: Path) -> None:
    report = run(project(tmp_path, [sample("a", "good", "accept")]), write=False)
    assert report.agreement is None


def test_usage_is_summed(tmp_path: Path) -> None:
    root = project(tmp_path, counted_samples(bad=2, false_accepts=0, good=3, false_rejects=0), "test_costly")
    report = run(root, options=RunOptions(use_cache=False))
    assert report.usage is not None and report.usage.model_dump() == {
        "input_tokens": 500,
        "output_tokens": 50,
        "usd": 0.005,
        "requests": 5,
        "retries": 0,
        "cached": 0,
        "samples": 5,
    }
    run(root)  # fills the cache
    again = run(root)
    assert again.usage is not None and again.usage.cached == 5 and again.usage.input_tokens == 0


def test_pure_recomputation_from_outcomes(tmp_path: Path) -> None:
    root = project(tmp_path, counted_samples(bad=12, false_accepts=2, good=8, false_rejects=1))
    report = run(root)
    grader, cal_set = find_grader("scripted@1", root), find_set("s", root)
    again = report_from_outcomes(grader, cal_set, report.samples, created_at=report.created_at)
    assert again.model_dump(exclude={"environment"}) == report.model_dump(exclude={"environment"})
    with pytest.raises(ValueError, match="verdict"):
        outcomes_from_verdicts(cal_set.samples, [])


def test_report_reads_back(tmp_path: Path) -> None:
    root = project(tmp_path, counted_samples(bad=4, false_accepts=1, good=4, false_rejects=0))
    report = run(root)
    back = read_report(report_paths(root, "s", "scripted", 1)[0])
    assert back == report
    assert report.created_at is not None and report.created_at.endswith("Z")
    assert report.environment is not None and report.environment.python
    assert report.grader.path == "graders/scripted/v1.toml"
    assert report.calibration_set.path == "calibration_sets/s"


def test_grader_and_set_of_different_checks(tmp_path: Path) -> None:
    root = project(tmp_path, [sample("a", "good", "accept")])
    write_grader(root, "other", "test_accept_all", check="claim_support")
    with pytest.raises(InvalidInputError):
        run(root, grader="other@1")


# --- the Python API ------------------------------------------------------------------------------------


def test_python_api(tmp_path: Path) -> None:
    import graderctl

    root = project(tmp_path, counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_set(root, "t", counted_samples(bad=3, false_accepts=0, good=3, false_rejects=0))
    one = graderctl.calibrate("scripted@1", "s", root=root, write=False)
    assert isinstance(one, CalibrationReport) and one.trusted
    assert not (root / "reports").exists()
    many = graderctl.calibrate("scripted", root=root)
    assert isinstance(many, list) and [r.calibration_set.name for r in many] == ["s", "t"]
    assert report_paths(root, "t", "scripted", 1)[0].is_file()


def test_importing_graderctl_stays_light() -> None:
    code = (
        "import sys, graderctl; "
        "print(','.join(m for m in ('graderctl.services.calibrate', 'numpy', 'scipy') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


SHIPPED_REPORTS = sorted((Path(__file__).resolve().parents[2] / "reports").glob("*/*.json"))


@pytest.mark.parametrize("path", SHIPPED_REPORTS, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED_REPORTS])
def test_every_shipped_report_recomputes_from_its_own_samples(path: Path) -> None:
    recompute(json.loads(path.read_text(encoding="utf-8")))
    assert path.with_suffix(".md").is_file()


# --- files written with the user's umask; an unchanged re-run rewrites nothing ------------------------


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_reports_are_written_with_the_users_umask(tmp_path: Path, umask: int) -> None:
    root = project(tmp_path, counted_samples(bad=3, false_accepts=0, good=3, false_rejects=0))
    old = os.umask(umask)
    try:
        run(root)
    finally:
        os.umask(old)
    for path in report_paths(root, "s", "scripted", 1):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path


def test_a_rerun_with_the_same_findings_rewrites_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graderctl.services.calibrate as service

    samples = counted_samples(bad=3, false_accepts=0, good=3, false_rejects=0)
    root = project(tmp_path, samples)
    monkeypatch.setattr(service, "now_rfc3339", lambda: "2026-01-01T00:00:00Z")
    written: list[Path] = []
    run(root, written=written)
    paths = report_paths(root, "s", "scripted", 1)
    assert written == list(paths)
    before = [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino) for p in paths]
    monkeypatch.setattr(service, "now_rfc3339", lambda: "2026-06-30T12:00:00Z")  # only the time differs
    written = []
    report = run(root, written=written)
    assert written == []
    assert report.created_at == "2026-01-01T00:00:00Z"
    assert [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino) for p in paths] == before
    # A changed finding is written, with the new time.
    write_set(root, "s", counted_samples(bad=3, false_accepts=1, good=3, false_rejects=0))
    run(root, written=written)
    assert written == list(paths)
    assert read_report(paths[0]).created_at == "2026-06-30T12:00:00Z"
    # A lost Markdown rendering is restored alone.
    paths[1].unlink()
    written = []
    run(root, written=written)
    assert written == [paths[1]]
