"""``graderctl metrics``: pass@k, pass^k, success rates, cost and failure breakdowns from graded results.

The input is a results file (CONTRACT.md §5). Only ``task_id``, ``trial_id`` and ``success`` are required, so
results written by other tools can be measured too. :mod:`graderctl.store.metrics_inputs` reads the results
into per-task counters (every bad line a located problem ``file:line: /pointer``), the weights and the
comparison and calibration reports; this module computes from what it read and does no file I/O.

Conventions (CONTRACT.md, STYLE.md):

- ``success: null`` trials could not be graded: they are counted and shown apart, excluded from each task's
  ``n`` and never taken as failures;
- each task weighs the same unless a weighting is declared (``--weights``), and the weighting is recorded;
- pass@k and pass^k are exact (:mod:`graderctl.stats.passk`, integer binomials); the exact fractions are
  reported beside the floats;
- intervals are percentile bootstraps over tasks (the task is the unit that was sampled);
- undefined numbers are ``null`` with a warning, never 0 or NaN.
"""

from __future__ import annotations

import gc
import json
import math
import statistics
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from graderctl.errors import InvalidInputError, Problem, UsageError
from graderctl.models.metrics import (
    CategoryMetrics,
    CheckErrorRates,
    CheckFailures,
    Citations,
    CombinedCheck,
    CorrectionApplied,
    CorrectionNotApplied,
    CostSummary,
    GraderUse,
    Interval,
    IntervalSettings,
    MetricsDocument,
    NullTrials,
    RateCount,
    ResultsFile,
    StopReasonCounts,
    SuccessRates,
    TaskWeightedRate,
    TrialsPerTask,
    TrialWeightedRate,
    Untrusted,
    Weighting,
)
from graderctl.services.notes import plain_notes
from graderctl.store.metrics_inputs import (
    COST_FIELDS,
    FAIL,
    NULL,
    OK,
    ResultScan,
    Weights,
    comparison_verdicts,
    read_weights,
    scan_results,
)

if TYPE_CHECKING:
    from graderctl.stats import ErrorRateCounts

DEFAULT_KS = (1, 2, 3, 5, 10)
DEFAULT_N_BOOT = 2000
DEFAULT_SEED = 20240601
DEFAULT_CONFIDENCE = 0.95
_SHOWN = 20
_OK, _FAIL, _NULL = OK, FAIL, NULL
_COST_FIELDS = COST_FIELDS


def check_fingerprints(scan: ResultScan, root: Path) -> dict[str, CombinedCheck]:
    """Refuse results of one check graded by different fingerprints unless comparison reports found every
    pair comparable. Returns what was combined (for the report)."""
    mixed = {
        check: list(g.values())
        for check, g in scan.graders.items()
        if len({s.fingerprint for s in g.values()}) > 1
    }
    if not mixed:
        return {}
    verdicts = comparison_verdicts(root)
    problems: list[Problem] = []
    combined: dict[str, CombinedCheck] = {}
    for check, seen in sorted(mixed.items()):
        fps = sorted({s.fingerprint for s in seen if s.fingerprint}, key=str)
        names = {s.fingerprint: s.grader for s in seen}
        used: list[str] = []
        for i, a in enumerate(fps):
            for b in fps[i + 1 :]:
                v = verdicts.get(frozenset((a, b)))
                if v is not None and v.comparable:
                    used.extend(v.reports)
                    continue
                why = (
                    "no comparison report under reports/comparisons/ covers them"
                    if v is None
                    else "the comparison report(s) " + ", ".join(v.reports) + " found them not comparable"
                )
                problems.append(
                    Problem(
                        file=scan.path,
                        pointer=f"/checks/{check}/fingerprint",
                        message=(
                            f"check {check!r} was graded by {names[a]} ({_short(a)}) and by {names[b]} "
                            f"({_short(b)}) in the same file: {why}"
                        ),
                        expected="one grader fingerprint per check, or versions found comparable",
                        got=f"{len(fps)} fingerprints",
                        fix=(
                            f"re-score with one version (`graderctl score --rescore {scan.path} --grader "
                            f"{names[b] or 'NEW_REF'} --output NEW_RESULTS`), or run `graderctl compare "
                            f"{names[a]} {names[b]}` and keep its report under reports/comparisons/"
                        ),
                    )
                )
        if any(s.fingerprint is None for s in seen):
            problems.append(
                Problem(
                    file=scan.path,
                    pointer=f"/checks/{check}/fingerprint",
                    message=f"check {check!r} has results with and without a grader fingerprint",
                    expected="every check result names its grader's fingerprint",
                )
            )
        combined[check] = CombinedCheck(
            graders=[GraderUse(grader=s.grader, fingerprint=s.fingerprint, trials=s.trials) for s in seen],
            comparison_reports=sorted(set(used)),
        )
    if problems:
        graders = sorted({str(s.grader) for c in mixed for s in mixed[c]})
        raise InvalidInputError(
            f"{scan.path}: results graded by different, not-comparable versions of a check "
            f"({', '.join(graders)}) cannot be combined",
            problems,
        )
    return combined


def _short(fingerprint: str | None) -> str:
    return "no fingerprint" if not fingerprint else fingerprint.removeprefix("sha256:")[:12]


# --- grader-error correction -------------------------------------------------------------------------------


@dataclass
class ErrorRates:
    """A check's false accepts and false rejects, pooled over the calibration reports named in ``reports``
    (summed as they are read; :class:`graderctl.stats.ErrorRateCounts` once pooled)."""

    far_count: int
    far_n: int
    frr_count: int
    frr_n: int
    reports: list[str]

    def counts(self) -> ErrorRateCounts:
        from graderctl.stats import ErrorRateCounts

        return ErrorRateCounts(self.far_count, self.far_n, self.frr_count, self.frr_n)


def _calibration_rates(
    scan: ResultScan, root: Path, explicit: Sequence[Path]
) -> tuple[dict[str, ErrorRates], list[str]]:
    """Per check, FAR and FRR pooled over the calibration reports of the graders that graded it (matched by
    fingerprint), or over the reports given explicitly."""
    from graderctl.store.metrics_inputs import read_calibration_reports

    wanted: dict[str, str] = {}
    for check, seen in scan.graders.items():
        for s in seen.values():
            if s.fingerprint:
                wanted[s.fingerprint] = check
    reports, notes = read_calibration_reports(root, explicit)
    pooled: dict[str, ErrorRates] = {}
    for shown, report in reports:
        if explicit:
            check = str(report.grader.check or "") or wanted.get(report.grader.fingerprint, "")
            if not check:
                check = next(iter(scan.graders), "")
        else:
            check = wanted.get(report.grader.fingerprint, "")
        if not check:
            continue
        far, frr = report.false_accept_rate, report.false_reject_rate
        rates = pooled.setdefault(check, ErrorRates(0, 0, 0, 0, []))
        rates.far_count += far.count
        rates.far_n += far.n
        rates.frr_count += frr.count
        rates.frr_n += frr.n
        rates.reports.append(shown)
    return pooled, notes


def _correction(
    scan: ResultScan,
    root: Path,
    *,
    required: list[str],
    successes: int,
    graded: int,
    explicit: Sequence[Path],
    forced: bool,
    confidence: float,
    seed: int,
) -> tuple[CorrectionApplied | CorrectionNotApplied, list[str]]:
    from graderctl.errors import StatisticsError
    from graderctl.stats import composite_error_rates, rogan_gladen_interval

    rates, notes = _calibration_rates(scan, root, explicit)
    checks = required or sorted(scan.graders)
    missing = [c for c in checks if c not in rates or rates[c].far_n == 0 or rates[c].frr_n == 0]
    if not checks or missing or graded == 0:
        why = (
            "no graded trial"
            if graded == 0
            else "the results name no grader (no `checks`); give the calibration reports with --calibration"
            if not checks
            else "no calibration report (with known-good and known-bad samples) for the grader(s) of "
            + ", ".join(missing)
            + " under reports/"
        )
        if forced:
            raise InvalidInputError(
                f"cannot correct for grader error: {why}",
                [
                    Problem(
                        file=scan.path,
                        message=f"cannot correct for grader error: {why}",
                        fix="calibrate the graders (`graderctl calibrate REF`) or pass --calibration REPORT",
                    )
                ],
            )
        return CorrectionNotApplied(why=why), notes
    used = {c: rates[c].counts() for c in checks}
    if len(used) == 1:
        ((check, rule),) = used.items()
        approach = f"single check {check!r}: FAR and FRR of its grader, pooled over its calibration report(s)"
        approximation = False
    else:
        # A trial succeeds when every required check passes: stats.composite_error_rates (largest FAR,
        # FRR = 1 - prod(1 - FRR_i) over the smallest calibration set).
        rule = composite_error_rates(list(used.values()))
        approach = (
            "approximation for a rule of several checks: FAR = the largest check FAR (a bad trial usually "
            "fails one check), FRR = 1 - prod(1 - FRR_check) (independent errors), with the smallest "
            "calibration set as the FRR sample size"
        )
        approximation = True
    far_count, far_n, frr_count, frr_n = rule.far_count, rule.far_n, rule.frr_count, rule.frr_n
    far = far_count / far_n
    frr = frr_count / frr_n
    base = CorrectionNotApplied(
        why="",
        approach=approach,
        approximation=approximation,
        caveat=(
            "calibration measures a grader's error per unit (one citation, one claim, one report); a trial "
            "has several units, so trial-level error rates may differ"
        ),
        far=RateCount(value=far, count=far_count, n=far_n),
        frr=RateCount(value=frr, count=frr_count, n=frr_n),
        by_check={
            c: CheckErrorRates(
                far=RateCount(value=r.far, count=r.far_count, n=r.far_n),
                frr=RateCount(value=r.frr, count=r.frr_count, n=r.frr_n),
                reports=rates[c].reports,
            )
            for c, r in used.items()
        },
    )
    if far + frr >= 1:
        why = f"FAR + FRR = {far + frr:.3f} >= 1: the graders are no better than chance; no correction"
        if forced:
            raise StatisticsError(why)
        base.why = why
        return base, notes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corrected = rogan_gladen_interval(
            successes, graded, far_count, far_n, frr_count, frr_n, confidence=confidence, seed=seed
        )
    notes.extend(plain_notes(caught))
    assert base.approach is not None and base.approximation is not None and base.caveat is not None
    assert base.far is not None and base.frr is not None and base.by_check is not None
    out = CorrectionApplied(
        observed=corrected.observed,
        value=corrected.value,
        raw=corrected.raw,
        clipped=corrected.clipped,
        ci_low=corrected.ci_low,
        ci_high=corrected.ci_high,
        method=corrected.method,
        approach=base.approach,
        approximation=base.approximation,
        caveat=base.caveat,
        far=base.far,
        frr=base.frr,
        by_check=base.by_check,
    )
    if corrected.clipped:
        out.flag = f"the raw corrected value {corrected.raw:.4f} fell outside [0, 1] and was clipped"
    return out, notes


# --- the computation ---------------------------------------------------------------------------------------


@dataclass
class MetricsOptions:
    ks: list[int] | None = None
    weights: Path | None = None
    correct: bool = False
    calibration: list[Path] = field(default_factory=list)
    confidence: float = DEFAULT_CONFIDENCE
    n_boot: int = DEFAULT_N_BOOT
    seed: int = DEFAULT_SEED


@dataclass
class MetricsReport:
    document: MetricsDocument
    warnings: list[str]


def _interval(values: Sequence[float], options: MetricsOptions, notes: list[str]) -> Interval | None:
    from graderctl.stats import bootstrap_tasks_interval

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = bootstrap_tasks_interval(
            values, confidence=options.confidence, n_boot=options.n_boot, seed=options.seed
        )
    for note in plain_notes(caught):
        if note not in notes:
            notes.append(note)
    return None if ci is None else Interval(low=ci[0], high=ci[1])


def _one_task_note(n_tasks: int) -> str:
    what = "one task" if n_tasks == 1 else f"one of the {n_tasks} tasks carries weight"
    rates = "both success rates" if n_tasks == 1 else "the task-weighted success rate"
    return (
        f"{what}: the intervals of pass@k, pass^k and {rates} are undefined (null), because one task gives "
        "no between-task variance (the intervals resample tasks); run more tasks for an interval"
    )


def _num(value: float | Fraction) -> float:
    return float(value)


def compute_metrics(results: Path, *, root: Path, options: MetricsOptions | None = None) -> MetricsReport:
    """Everything ``graderctl metrics`` reports, as one JSON-ready document (CONTRACT.md §6)."""
    from graderctl import __version__
    from graderctl.stats import (
        mean_pass_at_k_grouped,
        mean_pass_hat_k_grouped,
        pass_at_k,
        pass_hat_k,
        weight_scaled,
        weighted_mean,
    )

    options = options or MetricsOptions()
    notes: list[str] = []
    # A million result lines make millions of small objects that the cyclic garbage collector would walk
    # again and again; none of them forms a cycle, so it is paused while the file is read.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        scan = scan_results(results, root=root)
    finally:
        if gc_was_enabled:
            gc.enable()
    combined = check_fingerprints(scan, root)

    task_ids = list(scan.tasks)
    graded_ids = [t for t in task_ids if sum(scan.tasks[t][:2]) > 0]
    ungraded_tasks = [t for t in task_ids if sum(scan.tasks[t][:2]) == 0]
    nulls = sum(c[_NULL] for c in scan.tasks.values())
    successes = sum(c[_OK] for c in scan.tasks.values())
    failures = sum(c[_FAIL] for c in scan.tasks.values())
    graded = successes + failures
    if ungraded_tasks:
        shown = ", ".join(ungraded_tasks[:_SHOWN]) + (" ..." if len(ungraded_tasks) > _SHOWN else "")
        notes.append(
            f"{len(ungraded_tasks)} task(s) have no graded trial (every trial is null) and are left out of "
            f"pass@k: {shown}"
        )
    if not graded_ids:
        raise InvalidInputError(
            f"{scan.path}: no trial could be graded",
            [
                Problem(
                    file=scan.path,
                    message=f"all {nulls} trial(s) have success null",
                    expected="at least one trial with success true or false",
                    fix="see each line's `reason`; fix the grader errors and re-score",
                )
            ],
        )
    ns = {t: scan.tasks[t][_OK] + scan.tasks[t][_FAIL] for t in graded_ids}
    n_values = sorted(ns.values())
    min_n = n_values[0]

    # k values
    if options.ks:
        ks = sorted(set(options.ks))
        too_small = {k: [t for t in graded_ids if ns[t] < k] for k in ks}
        bad = {k: ts for k, ts in too_small.items() if ts}
        if bad:
            problems = []
            for k, ts in bad.items():
                for t in ts[:_SHOWN]:
                    problems.append(
                        Problem(
                            file=scan.path,
                            message=f"task {t!r} has n = {ns[t]} graded trial(s), fewer than k = {k}",
                            expected=f"n >= {k}",
                            got=f"n = {ns[t]}",
                            fix=f"use --k with values <= {min_n}, or run more trials of this task",
                        )
                    )
            k_max = max(bad)
            names = bad[k_max]
            listed = ", ".join(names[:_SHOWN]) + (
                f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
            )
            raise InvalidInputError(
                f"k = {k_max} is larger than the number of graded trials of {len(names)} task(s): {listed}. "
                f"pass@k and pass^k need k <= n for every task (smallest n here: {min_n})",
                problems,
            )
    else:
        ks = sorted({1} | {k for k in DEFAULT_KS if k <= min_n})

    # weights
    weights: Weights | None = None
    weight_list: list[float] | None = None
    if options.weights is not None:
        weights = read_weights(options.weights, root=root)
        missing = [t for t in graded_ids if t not in weights.by_task]
        if missing:
            listed = ", ".join(missing[:_SHOWN]) + (" ..." if len(missing) > _SHOWN else "")
            raise InvalidInputError(
                f"{weights.path}: no weight for {len(missing)} task(s): {listed}",
                [
                    Problem(
                        file=weights.path,
                        message=f"no weight for task {t!r}",
                        expected="a weight for every task in the results",
                        fix="add the task, with weight 0 to leave it out",
                    )
                    for t in missing[:_SHOWN]
                ],
            )
        extra = [t for t in weights.by_task if t not in ns]
        if extra:
            notes.append(f"{len(extra)} weighted task(s) are not in the results and are ignored")
        weight_list = [weights.by_task[t] for t in graded_ids]
        if math.fsum(weight_list) <= 0:
            raise InvalidInputError(
                f"{weights.path}: the weights of the tasks in the results sum to 0",
                [Problem(file=weights.path, message="the weights sum to 0", expected="a positive sum")],
            )

    groups: dict[tuple[int, int], int] = {}
    pairs: list[tuple[int, int]] = []
    for t in graded_ids:
        pair = (ns[t], scan.tasks[t][_OK])
        pairs.append(pair)
        groups[pair] = groups.get(pair, 0) + 1

    doc_pass: dict[str, float] = {}
    doc_pass_exact: dict[str, str] = {}
    doc_pass_ci: dict[str, Interval | None] = {}
    doc_hat: dict[str, float] = {}
    doc_hat_exact: dict[str, str] = {}
    doc_hat_ci: dict[str, Interval | None] = {}
    n_tasks = len(graded_ids)
    # The intervals resample tasks: one task (or one task that carries weight) gives no between-task
    # variance, so the interval is undefined (null), never a zero-width interval around the one value.
    spread = n_tasks if weight_list is None else sum(1 for w in weight_list if w > 0)
    if spread < 2:
        notes.append(_one_task_note(n_tasks))
    for k in ks:
        for fn, mean_of, out, out_exact, out_ci in (
            (pass_at_k, mean_pass_at_k_grouped, doc_pass, doc_pass_exact, doc_pass_ci),
            (pass_hat_k, mean_pass_hat_k_grouped, doc_hat, doc_hat_exact, doc_hat_ci),
        ):
            as_float = {pair: float(fn(pair[0], pair[1], k)) for pair in groups}
            per_task = [as_float[p] for p in pairs]
            if weight_list is None:
                exact = mean_of(groups, k)  # exact; each distinct (n, c) computed once
                out[str(k)] = float(exact)
                out_exact[str(k)] = str(exact)
            else:
                out[str(k)] = weighted_mean(per_task, weight_list)
                per_task = weight_scaled(per_task, weight_list)  # their plain mean is the weighted mean
            if k == 1 and out is doc_hat and weight_list is None:
                out_ci["1"] = doc_pass_ci["1"]  # pass^1 = pass@1 task by task: same interval
            else:
                out_ci[str(k)] = _interval(per_task, options, notes) if spread > 1 else None

    # success rates: task-weighted (= pass@1) beside trial-weighted
    from graderctl.stats import cluster_bootstrap_rate

    outcomes: list[bool] = []
    owners: list[str] = []
    for i, t in enumerate(graded_ids):
        c, n = scan.tasks[t][_OK], ns[t]
        outcomes.extend([True] * c + [False] * (n - c))
        owners.extend([str(i)] * n)
    trial_low = trial_high = None
    if n_tasks > 1:  # over one task the cluster bootstrap has one cluster: a zero-width interval
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            trial_ci = cluster_bootstrap_rate(
                outcomes, owners, confidence=options.confidence, n_boot=options.n_boot, seed=options.seed
            )
        # The design effect is not part of the document: a note about it would say nothing to the reader.
        notes.extend(plain_notes(caught, leave_out=("design effect",)))
        trial_low, trial_high = trial_ci.ci_low, trial_ci.ci_high
    del outcomes, owners

    pass1_ci = doc_pass_ci["1"]
    success_rate = SuccessRates(
        task_weighted=TaskWeightedRate(
            label="task-weighted (each task counts once; = pass@1"
            + (", declared weights" if weights else "")
            + ")",
            value=doc_pass["1"],
            exact=doc_pass_exact.get("1"),
            ci_low=None if pass1_ci is None else pass1_ci.low,
            ci_high=None if pass1_ci is None else pass1_ci.high,
        ),
        trial_weighted=TrialWeightedRate(
            label="trial-weighted (every graded trial counts once; tasks with more trials weigh more)",
            value=successes / graded,
            successes=successes,
            trials=graded,
            ci_low=trial_low,
            ci_high=trial_high,
            method="cluster bootstrap over tasks",
        ),
    )

    # categories
    categories: dict[str, CategoryMetrics] = {}
    single: list[str] = []  # categories with one task: no interval
    for cat, per_task_counts in sorted(scan.categories.items()):
        ok = sum(v[_OK] for v in per_task_counts.values())
        fail = sum(v[_FAIL] for v in per_task_counts.values())
        null = sum(v[_NULL] for v in per_task_counts.values())
        task_rates = [v[_OK] / (v[_OK] + v[_FAIL]) for v in per_task_counts.values() if v[_OK] + v[_FAIL]]
        categories[cat] = CategoryMetrics(
            tasks=len(per_task_counts),
            trials=ok + fail + null,
            successes=ok,
            failures=fail,
            null=null,
            success_rate_task_weighted=statistics.fmean(task_rates) if task_rates else None,
            success_rate_trial_weighted=ok / (ok + fail) if ok + fail else None,
            ci=_interval(task_rates, options, notes) if len(task_rates) > 1 else None,
        )
        if not task_rates:
            notes.append(f"category {cat!r} has no graded trial: its success rates are null")
        elif len(task_rates) == 1 and n_tasks > 1:
            single.append(cat)
    if single:  # one note for them all (every category of a small run may have one task)
        listed = ", ".join(repr(c) for c in single[:_SHOWN]) + (" ..." if len(single) > _SHOWN else "")
        notes.append(
            (f"category {listed} has" if len(single) == 1 else f"{len(single)} categories ({listed}) have")
            + " one task with graded trials: the interval of each is undefined (null), because one task "
            "gives no between-task variance"
        )

    failures_by_check = {
        check: CheckFailures(
            failed=v[_FAIL],
            passed=v[_OK],
            null=v[_NULL],
            graders=[
                GraderUse(grader=s.grader, fingerprint=s.fingerprint, trials=s.trials)
                for s in scan.graders.get(check, {}).values()
            ],
        )
        for check, v in sorted(scan.checks.items())
    }
    by_stop_reason = {
        reason: StopReasonCounts(trials=sum(v), successes=v[_OK], failures=v[_FAIL], null=v[_NULL])
        for reason, v in sorted(scan.stop_reasons.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    }

    cost = _cost(scan, successes, failures, nulls, notes)
    citations = _citations(scan, notes)

    rules = [json.loads(r) for r in scan.rules]
    rules = [r for i, r in enumerate(rules) if r not in rules[:i]]
    if len(rules) > 1:
        notes.append(f"the results were graded under {len(rules)} different success rules: {rules}")
    required: list[str] = []
    if len(rules) == 1 and isinstance(rules[0].get("require"), list):
        required = [str(c) for c in rules[0]["require"]]

    correction, corr_notes = _correction(
        scan,
        root,
        required=required,
        successes=successes,
        graded=graded,
        explicit=options.calibration,
        forced=options.correct,
        confidence=options.confidence,
        seed=options.seed,
    )
    notes.extend(corr_notes)

    if scan.untrusted_trials:
        notes.append(
            f"{scan.untrusted_trials} trial(s) were graded by grader(s) not trusted for their check "
            f"({', '.join(sorted(scan.untrusted_graders))}, scored with --allow-untrusted)"
        )
    if scan.self_grading_overrides:
        notes.append(
            f"{scan.self_grading_overrides} trial(s) were graded by a judge of the generator's own family "
            "(--allow-self-grading); see each line's `self_grading`"
        )
    if nulls:
        notes.append(
            f"{nulls} trial(s) could not be graded (success null): counted apart, left out of each task's n, "
            "never taken as failures"
        )

    document = MetricsDocument(
        graderctl_version=__version__,
        results=ResultsFile(path=scan.path, lines=scan.lines),
        tasks=n_tasks,
        trials=scan.lines,
        graded_trials=graded,
        successes=successes,
        failures=failures,
        null_trials=NullTrials(
            count=nulls,
            tasks_without_graded_trials=len(ungraded_tasks),
            by_reason=dict(sorted(scan.null_reasons.items(), key=lambda kv: -kv[1])[:_SHOWN]),
            note="trials with success null are excluded from each task's n and never counted as failures",
        ),
        trials_per_task=TrialsPerTask(
            min=n_values[0],
            median=statistics.median(n_values),
            max=n_values[-1],
            counts="graded trials (success true or false)",
        ),
        k=ks,
        pass_at_k=doc_pass,
        pass_hat_k=doc_hat,
        pass_at_k_exact=doc_pass_exact,
        pass_hat_k_exact=doc_hat_exact,
        pass_at_k_ci=doc_pass_ci,
        pass_hat_k_ci=doc_hat_ci,
        success_rate=success_rate,
        weighting=(
            Weighting(kind="equal", description="each task weighted equally")
            if weights is None
            else Weighting(
                kind="declared",
                file=weights.path,
                sha256=weights.sha256,
                description="tasks weighted as declared in the file; exact fractions are not reported",
            )
        ),
        interval=IntervalSettings(
            confidence=options.confidence,
            method="percentile bootstrap over tasks"
            + (" (per-task values scaled by weight x tasks / total weight)" if weights else ""),
            n_boot=options.n_boot,
            seed=options.seed,
        ),
        categories=categories,
        failures_by_check=failures_by_check,
        by_stop_reason=by_stop_reason,
        citations=citations,
        cost=cost,
        grader_error_correction=correction,
        rules=rules,
        combined_graders=combined,
        untrusted=Untrusted(trials=scan.untrusted_trials, graders=sorted(scan.untrusted_graders)),
        self_grading_overrides=scan.self_grading_overrides,
        warnings=notes,
    )
    return MetricsReport(document=document, warnings=notes)


def _citations(scan: ResultScan, notes: list[str]) -> Citations | None:
    """Citation coverage over the trials whose lines count their claims (ALCE's citation recall, at the level
    of sentences): cited claims / (cited + uncited). ``None`` when no line counts claims."""
    counted, cited, uncited, nothing = scan.citations
    if not counted:
        return None
    total = cited + uncited
    if not total:
        notes.append("no claim was found in any trial: citation coverage is undefined (null)")
    elif nothing:
        notes.append(
            f"{nothing} trial(s) cite no source at all: their source_existence and claim_support checks fail "
            "with 'no citations found' unless the task sets requires_citations = false"
        )
    return Citations(
        trials=counted,
        cited_claims=cited,
        uncited_claims=uncited,
        citation_coverage=cited / total if total else None,
        trials_without_citations=nothing,
        definition="claims that cite a source / (those + factual sentences that cite nothing), over the "
        "trials whose result lines count them (uncited_claims, cited_claims)",
    )


def _cost(scan: ResultScan, successes: int, failures: int, nulls: int, notes: list[str]) -> CostSummary:
    total_trials = successes + failures + nulls
    totals: dict[str, float | int | None] = {}
    for name in _COST_FIELDS:
        if name in scan.cost_known:
            value = scan.cost_sum[name]
            totals[name] = (
                int(value) if name != "usd" and name != "wall_seconds" and value.is_integer() else value
            )
        else:
            totals[name] = None
    if totals["input_tokens"] is None and totals["output_tokens"] is None:
        tokens: float | int | None = None
    else:
        tokens = (totals["input_tokens"] or 0) + (totals["output_tokens"] or 0)
    per_success: dict[str, float | None] = {}
    spent: dict[str, float | int | None] = {
        "usd": totals["usd"],
        "tokens": tokens,
        "wall_seconds": totals["wall_seconds"],
    }
    for name, amount in spent.items():
        per_success[name] = None if amount is None or successes == 0 else amount / successes
    if successes == 0:
        notes.append("no trial succeeded: cost per success is null (undefined, not 0)")
    usd_total = totals["usd"]
    failed_share: float | None
    null_share: float | None
    if usd_total is None:
        failed_share = null_share = None
        notes.append("no trial records cost.usd: dollar figures are null")
    elif usd_total == 0:
        failed_share = null_share = None
        notes.append("the recorded dollar cost is 0: the share spent on failed trials is undefined (null)")
    else:
        failed_share = scan.usd_by_outcome[_FAIL] / float(usd_total)
        null_share = scan.usd_by_outcome[_NULL] / float(usd_total)
    known = {name: scan.cost_known.get(name, 0) for name in _COST_FIELDS}
    partial = [name for name, n in known.items() if 0 < n < total_trials]
    if partial:
        notes.append(
            "cost is recorded for only some trials ("
            + ", ".join(f"{name}: {known[name]} of {total_trials}" for name in partial)
            + "); totals cover those"
        )
    return CostSummary(
        over="all trials: successful, failed and ungraded",
        trials_with_cost=known,
        input_tokens=totals["input_tokens"],
        output_tokens=totals["output_tokens"],
        tokens=tokens,
        tool_calls=totals["tool_calls"],
        usd=usd_total,
        wall_seconds=totals["wall_seconds"],
        successes=successes,
        cost_per_success=per_success,
        failed_share_usd=failed_share,
        ungraded_share_usd=null_share,
    )


def parse_ks(text: str) -> list[int]:
    """``"1,2,5"`` -> ``[1, 2, 5]``; a usage error for anything else."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            k = int(part)
        except ValueError:
            raise UsageError(
                f"--k takes whole numbers separated by commas, e.g. 1,2,5; got {text!r}"
            ) from None
        if k < 1:
            raise UsageError(f"--k values must be >= 1; got {k}")
        out.append(k)
    if not out:
        raise UsageError(f"--k takes whole numbers separated by commas, e.g. 1,2,5; got {text!r}")
    return out
