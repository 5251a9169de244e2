"""``compare``: paired outcomes of two grader versions, the equivalence decision and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.compare_support import (
    FLIPPED_BY_V3,
    PROJECT,
    copy_project,
    register_kinds,
    sample,
    spread,
    write_grader,
    write_set,
)
from tests.conftest import oracle_path

from graderctl.errors import InvalidInputError
from graderctl.models.base import Label
from graderctl.models.comparison import ComparisonReport
from graderctl.models.reports import SampleOutcome
from graderctl.services.compare import (
    DEFAULT_MARGIN,
    IDENTICAL_MESSAGE,
    GradedRun,
    ReplayInput,
    ReplayRecord,
    behaviour_fingerprint,
    compare,
    compare_outcomes,
    comparison_paths,
    min_n_for_margin,
    replay_from_records,
    resolve_margin,
    stratum_comparison,
)
from graderctl.stats import tango_interval
from graderctl.store.project import find_grader, find_set, load_set

ORACLE = oracle_path("paired.json")


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def run(root: Path, old: str, new: str, **kw: object) -> ComparisonReport:
    sets = [find_set(s, root) for s in kw.pop("sets", ["scores"])]  # type: ignore[attr-defined]
    return compare(find_grader(old, root), find_grader(new, root), sets, root=root, **kw)  # type: ignore[arg-type]


def outcome(sid: str, label: str, accepted: bool | None, group: str | None = None) -> SampleOutcome:
    return SampleOutcome(
        id=sid,
        label=Label(label),
        accepted=accepted,
        error="boom" if accepted is None else None,
        reason="" if accepted is None else ("yes" if accepted else "no"),
        group=group,
    )


def pairs_with(b: int, c: int, *, both_accept: int = 10, both_reject: int = 10, label: str = "bad") -> list:
    """Pairs with exactly ``b`` (old accepts, new rejects) and ``c`` (the reverse) discordant pairs."""
    spec = (
        [(True, False)] * b
        + [(False, True)] * c
        + [(True, True)] * both_accept
        + [(False, False)] * both_reject
    )
    return [(outcome(f"s{i}", label, o), outcome(f"s{i}", label, w)) for i, (o, w) in enumerate(spec)]


# --- the pieces -----------------------------------------------------------------------------------------


def test_min_n_for_margin_is_the_smallest_n_an_identical_copy_could_pass_with() -> None:
    n = min_n_for_margin(0.02)
    assert n == 133  # z^2 (1 - m) / m = 2.7055 * 49 = 132.6
    assert tango_interval(0, 0, n, confidence=0.9)[1] <= 0.02
    assert tango_interval(0, 0, n - 1, confidence=0.9)[1] > 0.02
    # at n = 120 (a typical stratum) zero flips still give about +-0.022
    assert tango_interval(0, 0, 120, confidence=0.9)[1] == pytest.approx(0.02205, abs=1e-4)
    assert min_n_for_margin(0.05) == 52
    assert min_n_for_margin(0.0) is None


def test_behaviour_fingerprint_ignores_only_what_cannot_change_a_verdict() -> None:
    v1, v2, v3 = (find_grader(f"thresh@{v}", PROJECT) for v in (1, 2, 3))
    assert v1.fingerprint != v2.fingerprint  # different versions: different identities
    assert behaviour_fingerprint(v1) == behaviour_fingerprint(v2)  # name/version/description/margin only
    assert behaviour_fingerprint(v1) != behaviour_fingerprint(v3)  # threshold changed


def test_margin_precedence_command_line_then_new_grader_then_default() -> None:
    v1, v2 = find_grader("thresh@1", PROJECT), find_grader("thresh@2", PROJECT)
    assert resolve_margin(v2, 0.05) == (0.05, "command line")
    assert resolve_margin(v2, None) == (0.03, "graders/thresh/v2.toml compare_margin")
    assert resolve_margin(v1, None) == (DEFAULT_MARGIN, "default")


def _oracle_cases() -> list[tuple[int, int, float]]:
    data = json.loads(ORACLE.read_text())
    return [(c["b"], c["c"], c["p"]) for c in data["mcnemar_exact_two_sided"]["cases"]]


@pytest.mark.parametrize("label", ["good", "bad"])
@pytest.mark.parametrize(("b", "c", "p"), _oracle_cases())
def test_mcnemar_p_values_match_the_published_oracle(b: int, c: int, p: float, label: str) -> None:
    stratum, _ = stratum_comparison(Label(label), pairs_with(b, c, label=label), margin=0.02, identical=False)
    assert (stratum.b, stratum.c) == (b, c)
    assert stratum.mcnemar_p == pytest.approx(p, abs=5e-7)
    assert stratum.table.old_accept_new_reject == b and stratum.table.old_reject_new_accept == c
    # The same p-value with the roles swapped (b and c are "only the old / only the new is right").
    swapped, _ = stratum_comparison(Label(label), pairs_with(c, b, label=label), margin=0.02, identical=False)
    assert swapped.mcnemar_p == pytest.approx(p, abs=5e-7)


def test_stratum_numbers_by_hand() -> None:
    stratum, _ = stratum_comparison(
        Label.bad, pairs_with(1, 5, both_accept=4, both_reject=30), margin=0.02, identical=False
    )
    assert stratum.n == 40
    assert stratum.old_accept_rate == pytest.approx(5 / 40)
    assert stratum.new_accept_rate == pytest.approx(9 / 40)
    assert stratum.diff == pytest.approx(4 / 40)
    assert stratum.agreement == pytest.approx(34 / 40)
    assert stratum.ci_low < stratum.diff < stratum.ci_high
    far = stratum.false_accept_rate
    assert far is not None and stratum.false_reject_rate is None
    assert far.change == pytest.approx(0.1) and (far.ci_low, far.ci_high) == (stratum.ci_low, stratum.ci_high)
    assert not stratum.within_margin and not stratum.comparable
    assert [f.id for f in stratum.flipped] == sorted(f"s{i}" for i in range(6))


def test_good_stratum_reports_the_false_reject_change_with_the_opposite_sign() -> None:
    stratum, _ = stratum_comparison(
        Label.good, pairs_with(3, 0, both_accept=30, both_reject=2), margin=0.02, identical=False
    )
    frr = stratum.false_reject_rate
    assert frr is not None and stratum.false_accept_rate is None
    assert stratum.diff == pytest.approx(-3 / 35)
    assert frr.change == pytest.approx(3 / 35)
    assert frr.old == pytest.approx(2 / 35) and frr.new == pytest.approx(5 / 35)
    assert (frr.ci_low, frr.ci_high) == (-stratum.ci_high, -stratum.ci_low)


def test_kappa_undefined_when_both_versions_give_one_outcome_is_null_with_a_warning() -> None:
    stratum, warn = stratum_comparison(
        Label.bad, pairs_with(0, 0, both_accept=0, both_reject=20), margin=0.02, identical=True
    )
    assert stratum.kappa is None
    assert stratum.agreement == 1.0
    assert any("kappa is undefined" in w for w in warn)
    assert stratum.comparable and stratum.decided_by == "identical_definition"


def test_errors_are_left_out_of_the_pairs_and_counted() -> None:
    pairs = pairs_with(0, 1)
    pairs.append((outcome("e1", "bad", None), outcome("e1", "bad", True)))
    pairs.append((outcome("e2", "bad", False), outcome("e2", "bad", None)))
    pairs.append((outcome("e3", "bad", None), outcome("e3", "bad", None)))
    stratum, _ = stratum_comparison(Label.bad, pairs, margin=0.02, identical=False)
    assert stratum.n_samples == 24 and stratum.n == 21
    assert (stratum.errors.old, stratum.errors.new, stratum.errors.excluded) == (2, 2, 3)
    assert [f.id for f in stratum.flipped] == ["s0"]  # an error is not a flip


def test_an_empty_stratum_cannot_show_equivalence() -> None:
    stratum, warn = stratum_comparison(Label.good, [], margin=0.02, identical=False)
    assert stratum.n == 0 and stratum.diff is None and stratum.kappa is None
    assert not stratum.comparable
    assert warn


def test_groups_widen_the_interval_to_the_hull_with_the_cluster_bootstrap() -> None:
    # Four groups of 100; all six flips fall in one group, so they are not independent.
    pairs = [
        (
            outcome(f"s{i}", "bad", False, group=f"seed-{i // 100}"),
            outcome(f"s{i}", "bad", i < 6, group=f"seed-{i // 100}"),
        )
        for i in range(400)
    ]
    ungrouped = [(o.model_copy(update={"group": None}), w) for o, w in pairs]
    tango_only, _ = stratum_comparison(Label.bad, ungrouped, margin=0.04, identical=False)
    assert tango_only.clustered is None
    assert tango_only.ci_high == pytest.approx(0.02874, abs=1e-4)
    assert tango_only.within_margin  # as if the 400 samples were independent
    grouped, _ = stratum_comparison(Label.bad, pairs, margin=0.04, identical=False)
    assert grouped.clustered is not None and grouped.clustered.n_groups == 4
    assert grouped.clustered.ci_high == pytest.approx(0.045)
    assert (grouped.ci_low, grouped.ci_high) == (tango_only.ci_low, tango_only.ci_high)  # Tango, as such
    assert (grouped.decision_ci_low, grouped.decision_ci_high) == (0.0, pytest.approx(0.045))
    assert not grouped.within_margin and not grouped.comparable  # the hull decides
    assert "widened for groups" in grouped.message and "widened" not in tango_only.message
    assert "0.045" not in grouped.message and "4.5%" in grouped.message


# --- set-level guards -----------------------------------------------------------------------------------


def test_runs_of_different_set_versions_are_refused(root: Path) -> None:
    cal_set = find_set("scores", root)
    outcomes = [outcome(s.id, s.label.value, True) for s in cal_set.samples]
    same = GradedRun(cal_set.fingerprint, outcomes)
    other = GradedRun("sha256:" + "0" * 64, outcomes)
    with pytest.raises(InvalidInputError, match="different versions of the set"):
        compare_outcomes(cal_set, same, other, margin=0.02, identical=False)
    with pytest.raises(InvalidInputError, match="different samples"):
        compare_outcomes(
            cal_set, same, GradedRun(cal_set.fingerprint, outcomes[:-1]), margin=0.02, identical=False
        )


def test_graders_of_different_checks_are_refused(root: Path) -> None:
    with pytest.raises(InvalidInputError, match="grade different checks") as info:
        run(root, "thresh@1", "other@1")
    assert info.value.problems[0].pointer == "/check"


def test_a_set_of_another_check_is_refused(root: Path) -> None:
    write_set(root, "claims", [sample("x", "good", 0.9)])
    manifest = root / "calibration_sets" / "claims" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace("source_existence", "claim_support"))
    (root / "calibration_sets" / "claims" / "samples.jsonl").write_text(
        json.dumps({"id": "x", "label": "good", "input": {"claim": "0.9", "evidence": [{"text": "e"}]}})
        + "\n"
    )
    with pytest.raises(InvalidInputError):
        run(root, "thresh@1", "thresh@3", sets=["claims"])


# --- end to end -----------------------------------------------------------------------------------------


def test_identical_copy_gives_kappa_1_no_flips_and_is_comparable(root: Path) -> None:
    report = run(root, "thresh@1", "thresh@2")
    assert report.comparable and report.status == "comparable"
    assert report.identical_definition
    assert report.margin == 0.03 and report.margin_source == "graders/thresh/v2.toml compare_margin"
    (s,) = report.sets
    assert s.overall.kappa == 1.0 and s.overall.agreement == 1.0
    for stratum in s.strata.values():
        assert stratum.kappa == 1.0
        assert stratum.flipped == [] and stratum.b == stratum.c == 0
        assert stratum.mcnemar_p == 1.0
        assert stratum.decided_by == "identical_definition" and stratum.comparable
        assert stratum.message.startswith(IDENTICAL_MESSAGE)
    assert report.failed_strata == []
    assert any(w.startswith(IDENTICAL_MESSAGE) for w in report.warnings)


def test_identical_copy_is_comparable_even_where_the_interval_cannot_show_it(root: Path) -> None:
    report = run(root, "thresh@1", "thresh@2", margin=0.02)
    good = report.sets[0].strata["good"]
    assert good.n == 120 and good.min_n_for_margin == 133 and not good.supports_margin
    assert not good.within_margin  # the interval alone could not show it ...
    assert report.comparable  # ... the identical definition does


def test_threshold_flipping_a_few_known_bad_samples_is_not_comparable(root: Path) -> None:
    report = run(root, "thresh@1", "thresh@3")
    assert not report.comparable and report.status == "not_comparable"
    assert not report.identical_definition
    bad = report.sets[0].strata["bad"]
    assert [f.id for f in bad.flipped] == FLIPPED_BY_V3
    assert (bad.b, bad.c) == (0, 4)
    assert bad.mcnemar_p == pytest.approx(0.125)
    assert bad.diff == pytest.approx(4 / 120)
    assert bad.false_accept_rate is not None
    assert bad.false_accept_rate.old == pytest.approx(5 / 120)
    assert bad.false_accept_rate.new == pytest.approx(9 / 120)
    assert bad.ci_low > 0  # the known-bad accept rate went up, and the interval says so
    for f in bad.flipped:
        assert f.label is Label.bad and f.category == "fabricated_source"
        assert f.old.accepted is False and f.new.accepted is True
        assert "< 0.5" in f.old.reason and ">= 0.45" in f.new.reason
    failed = {f.stratum: f for f in report.failed_strata}
    assert failed["bad"].samples == FLIPPED_BY_V3 and failed["bad"].set == "scores"
    # known-good: nothing flipped, but 120 samples cannot show +-2%: said so, with the number needed
    good = report.sets[0].strata["good"]
    assert good.flipped == [] and not good.comparable
    assert "too small" in good.message and "133" in good.message
    assert failed["good"].samples == []


def test_a_large_enough_set_shows_equivalence_through_the_interval(root: Path) -> None:
    samples = [
        sample(f"g{i:03d}", "good", s) for i, s in enumerate([*spread(10, 0.1, 0.45), *spread(150, 0.52, 1)])
    ]
    samples += [
        sample(f"b{i:03d}", "bad", s) for i, s in enumerate([*spread(10, 0.6, 0.9), *spread(150, 0, 0.45)])
    ]
    write_set(root, "big", samples)
    write_grader(root, "thresh", 4, threshold=0.51)  # no score in [0.5, 0.51): nothing flips
    report = run(root, "thresh@1", "thresh@4", sets=["big"])
    assert report.comparable and not report.identical_definition
    for stratum in report.sets[0].strata.values():
        assert stratum.decided_by == "interval" and stratum.within_margin and stratum.supports_margin
        assert stratum.ci_high <= 0.02 and stratum.ci_low >= -0.02
        assert stratum.kappa == 1.0


def test_errors_over_the_sets_limit_make_the_comparison_fail(root: Path) -> None:
    samples = [sample(f"g{i}", "good", 0.9) for i in range(20)] + [
        sample(f"b{i}", "bad", 0.1) for i in range(18)
    ]
    samples += [sample("be1", "bad", "error"), sample("be2", "bad", "error")]
    write_set(root, "flaky", samples, max_error_rate=0.01)
    report = run(root, "thresh@1", "thresh@2", sets=["flaky"])
    assert report.status == "error_rate_exceeded" and not report.comparable
    s = report.sets[0]
    assert s.error_rate_exceeded and s.error_rate == {"old": 0.05, "new": 0.05}
    assert s.strata["bad"].errors.excluded == 2 and s.strata["bad"].n == 18
    write_set(root, "flaky", samples, max_error_rate=0.1)
    report = run(root, "thresh@1", "thresh@2", sets=["flaky"])
    assert report.status == "comparable"
    assert any("erred on 5%" in w for w in report.warnings)


def test_the_report_is_written_and_metrics_can_find_it(root: Path) -> None:
    from graderctl.services.metrics import comparison_verdicts

    report = run(root, "thresh@1", "thresh@3")
    json_path, md_path = comparison_paths(root, "thresh@1", "thresh@3")
    assert json_path == root / "reports" / "comparisons" / "thresh@1--thresh@3.json"
    doc = json.loads(json_path.read_text())
    assert list(doc)[:4] == ["schema_version", "type", "comparable", "status"]
    assert doc["type"] == "comparison" and doc["comparable"] is False
    assert doc["old"]["fingerprint"] == report.old.fingerprint
    assert doc["new"]["fingerprint"] == report.new.fingerprint
    assert doc["old"]["fingerprint"].startswith("sha256:") and doc["new"]["fingerprint"].startswith("sha256:")
    assert (
        doc["sets"][0]["fingerprint"] == load_set(root / "calibration_sets" / "scores", root=root).fingerprint
    )
    assert ComparisonReport.model_validate(doc) == report
    md = md_path.read_text()
    assert md.startswith("# Comparison of `thresh@1` (old) and `thresh@3` (new)")
    assert "**Verdict: NOT COMPARABLE" in md
    verdicts = comparison_verdicts(root)
    key = frozenset((report.old.fingerprint, report.new.fingerprint))
    assert verdicts[key].comparable is False


def test_no_write_writes_nothing(root: Path) -> None:
    run(root, "thresh@1", "thresh@2", write=False)
    assert not (root / "reports").exists()


# --- replay ---------------------------------------------------------------------------------------------

#: The trials of tests/data/compare/trials.jsonl whose source_existence outcome thresh@3 flips to passed.
FLIPPED_TRIALS = ["t2-1", "t3-1", "t3-2"]


def score_with(root: Path, name: str, *graders: str) -> Path:
    """Frozen results of ``graderctl score`` (trust gate overridden: the test graders are not calibrated)."""
    from graderctl.services.score import ScoreOptions, score_trials
    from graderctl.store.project import find_grader

    out = root / name
    checks = [find_grader(g, root).spec.check.value for g in graders]  # those checks only
    options = ScoreOptions(
        output=out, trials=root / "trials.jsonl", graders=list(graders), checks=checks, allow_untrusted=True
    )
    score_trials(options, root=root)
    return out


def replay_input(root: Path, results: Path, **kw: Path) -> ReplayInput:
    return ReplayInput.from_paths(results, root=root, **kw)


def record(task: str, trial: str, old: bool | None, new: bool | None) -> ReplayRecord:
    return ReplayRecord(task, trial, old, new, old, new)


def test_replay_numbers_by_hand() -> None:
    # task a: 3 trials, old passes 2, new passes 3; task b: 2 trials (+1 NEW error), old 0, new 1
    records = [
        record("a", "a1", True, True),
        record("a", "a2", True, True),
        record("a", "a3", False, True),
        record("b", "b1", False, False),
        record("b", "b2", False, True),
        record("b", "b3", True, None),
    ]
    replay, failed, warn = replay_from_records(
        records,
        results="r.jsonl",
        trials=None,
        check="claim_support",
        outcome="check",
        margin=0.02,
        identical=False,
        max_error_rate=0.5,
    )
    assert (replay.n_trials, replay.n_tasks, replay.n) == (6, 2, 5)
    assert (replay.errors.old, replay.errors.new, replay.errors.excluded) == (0, 1, 1)
    assert (replay.b, replay.c) == (0, 2)
    assert replay.mcnemar_p == pytest.approx(0.5)
    assert replay.agreement == pytest.approx(3 / 5)
    # task-weighted: old (2/3 + 0/2) / 2, new (3/3 + 1/2) / 2
    assert replay.old_pass_rate == pytest.approx(1 / 3)
    assert replay.new_pass_rate == pytest.approx(3 / 4)
    assert replay.diff == pytest.approx(3 / 4 - 1 / 3)
    assert replay.ks == [1, 2]  # the smallest task has 2 trials graded by both
    assert replay.pass_at_k["old"]["1"] == pytest.approx(1 / 3)
    assert replay.pass_at_k["new"]["2"] == pytest.approx((1 + 1) / 2)
    assert replay.pass_hat_k["old"]["2"] == pytest.approx((1 / 3 + 0) / 2)
    assert replay.pass_hat_k["new"]["2"] == pytest.approx((1 + 0) / 2)
    assert [f.trial_id for f in replay.flipped] == ["a3", "b2"]
    assert not replay.comparable and failed[0].stratum == "replay" and failed[0].samples == ["a3", "b2"]
    assert any("NEW erred on 1 of 6" in w for w in warn)
    assert not replay.error_rate_exceeded
    over, _, _ = replay_from_records(
        records,
        results="r.jsonl",
        trials=None,
        check="claim_support",
        outcome="check",
        margin=0.02,
        identical=False,
        max_error_rate=0.1,
    )
    assert over.error_rate_exceeded


def test_replay_of_a_threshold_change_reports_both_pass_at_k_tables(root: Path) -> None:
    results = score_with(root, "results_v1.jsonl", "thresh@1")
    report = run(root, "thresh@1", "thresh@3", replay=replay_input(root, results))
    r = report.replay
    assert r is not None and r.outcome == "check" and r.check == "source_existence"
    assert r.trials == "trials.jsonl"  # recorded in the results by score
    assert (r.n_trials, r.n_tasks, r.n) == (12, 4, 12)
    assert [f.trial_id for f in r.flipped] == FLIPPED_TRIALS
    assert (r.b, r.c) == (0, 3)
    assert r.old_pass_rate == pytest.approx(5 / 12)  # t1 3/3, t2 1/3, t3 0/3, t4 1/3
    assert r.new_pass_rate == pytest.approx(8 / 12)  # t1 3/3, t2 2/3, t3 2/3, t4 1/3
    assert r.ks == [1, 2, 3]
    assert r.pass_at_k["old"] == pytest.approx({"1": 5 / 12, "2": 7 / 12, "3": 0.75})
    assert r.pass_at_k["new"] == pytest.approx({"1": 8 / 12, "2": 11 / 12, "3": 1.0})
    assert r.pass_hat_k["old"] == pytest.approx({"1": 5 / 12, "2": 0.25, "3": 0.25})
    assert r.pass_hat_k["new"] == pytest.approx({"1": 8 / 12, "2": 5 / 12, "3": 0.25})
    assert r.success is not None and r.success.changed == 3
    assert not r.comparable and not report.comparable
    assert {"set": None, "stratum": "replay"}.items() <= report.failed_strata[-1].model_dump().items()
    assert report.failed_strata[-1].samples == FLIPPED_TRIALS
    flip = r.flipped[0]
    assert flip.old.passed is False and flip.new.passed is True
    assert any("0.47 < 0.5" in reason for reason in flip.old.reasons)


def test_replay_of_an_identical_copy_agrees_on_every_trial(root: Path) -> None:
    results = score_with(root, "results_v1.jsonl", "thresh@1")
    report = run(root, "thresh@1", "thresh@2", replay=replay_input(root, results))
    r = report.replay
    assert r is not None and r.comparable and report.comparable
    assert r.kappa == 1.0 and r.flipped == [] and r.diff == 0.0
    assert r.pass_at_k["old"] == r.pass_at_k["new"]


def test_replay_recomputes_success_with_the_recorded_rule(root: Path) -> None:
    # Graded for two checks; claim_support fails every trial (no evidence), so success stays false even where
    # the source_existence outcome flips.
    results = score_with(root, "results_two.jsonl", "thresh@1", "other@1")
    report = run(root, "thresh@1", "thresh@3", replay=replay_input(root, results))
    r = report.replay
    assert r is not None
    assert [f.trial_id for f in r.flipped] == FLIPPED_TRIALS  # the compared check flips ...
    assert (
        r.success is not None and r.success.changed == 0 and r.success.new_rate == 0.0
    )  # ... success does not
    assert r.pass_at_k["old"] == r.pass_at_k["new"] == pytest.approx({"1": 0.0, "2": 0.0, "3": 0.0})


def test_replay_of_success_only_results_compares_success(root: Path) -> None:
    lines = [
        {"task_id": t["task_id"], "trial_id": t["trial_id"], "success": t["trial_id"] in ("t1-1", "t2-1")}
        for t in map(json.loads, (root / "trials.jsonl").read_text().splitlines())
    ]
    results = root / "other_tool_results.jsonl"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = run(
        root, "thresh@1", "thresh@1", replay=replay_input(root, results, trials=root / "trials.jsonl")
    )
    r = report.replay
    assert r is not None and r.outcome == "success"
    assert any("records no checks" in w for w in report.warnings)
    # recorded success vs thresh@1's outcome: t1-2, t1-3, t2-3, t4-2 pass now; t2-1 passed before
    assert sorted(f.trial_id for f in r.flipped) == ["t1-2", "t1-3", "t2-1", "t2-3", "t4-2"]


def test_replay_needs_results_graded_by_old(root: Path) -> None:
    results = score_with(root, "results_v3.jsonl", "thresh@3")
    with pytest.raises(InvalidInputError, match="graded by thresh@3, not by OLD") as info:
        run(root, "thresh@1", "thresh@2", replay=replay_input(root, results))
    problem = info.value.problems[0]
    assert problem.pointer == "/checks/source_existence/fingerprint" and problem.line == 1
    assert "graded by thresh@3, not by OLD (thresh@1)" in problem.message


def test_replay_needs_every_trial(root: Path) -> None:
    results = score_with(root, "results_v1.jsonl", "thresh@1")
    trials = root / "fewer_trials.jsonl"
    trials.write_text("".join((root / "trials.jsonl").read_text().splitlines(keepends=True)[:-2]))
    with pytest.raises(InvalidInputError, match="2 trial") as info:
        run(root, "thresh@1", "thresh@3", replay=replay_input(root, results, trials=trials))
    assert "t4-2" in info.value.problems[0].message


def test_replay_without_sets(root: Path) -> None:
    results = score_with(root, "results_v1.jsonl", "thresh@1")
    report = run(root, "thresh@1", "thresh@2", sets=[], replay=replay_input(root, results))
    assert report.sets == [] and report.replay is not None and report.comparable


def test_the_report_matches_its_shipped_json_schema(root: Path) -> None:
    from graderctl.store import schemas

    results = score_with(root, "results_v1.jsonl", "thresh@1")
    run(root, "thresh@1", "thresh@3", replay=replay_input(root, results))
    doc = json.loads(comparison_paths(root, "thresh@1", "thresh@3")[0].read_text())
    assert schemas.stale().get("comparison-report") is None, "run `graderctl schema --write`"
    schemas.validator("comparison-report").validate(doc)
