"""``calibrate``: run a grader over a labelled set, measure its error rates, decide trust, write the report.

The numbers come from the per-sample outcomes only (:func:`report_from_outcomes` is pure), so anyone can
recompute a report from its own ``samples``. A sample the grader erred on is counted in ``errors`` and left
out of both rates' denominators: it is never an accept or a reject.

Trust: the grader meets a set's policy when the one-sided 95% upper bound of the false-accept rate is within
``max_false_accept_rate``, that of the false-reject rate within ``max_false_reject_rate``, and the share of
samples it erred on within ``max_error_rate``. When samples carry ``group`` the decisive bound is the larger
of the Clopper-Pearson bound and the cluster-bootstrap bound (samples in a group are not independent).
"""

from __future__ import annotations

import json
import math
import platform
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from graderctl.errors import GraderRunError, InvalidInputError, Problem
from graderctl.models.base import Label
from graderctl.models.calset import Policy, Sample
from graderctl.models.reports import (
    AdjustedBounds,
    CalibrationCheck,
    CalibrationReport,
    CascadeMemberStats,
    CascadeSummary,
    CategoryCounts,
    ClusteredEstimate,
    CoverageEstimate,
    EnvironmentInfo,
    GraderInfo,
    LabellerAgreement,
    LedgerSummary,
    RateEstimate,
    ReportCheck,
    SampleOutcome,
    SampleSizeAdvice,
    SampleUsage,
    SetInfo,
    UsageTotals,
)
from graderctl.plugin import Verdict
from graderctl.runner import ProgressCallback
from graderctl.services.running import DEFAULT_RUN, RunOptions, run_inputs, start_grader, verdict_cache
from graderctl.store.project import LoadedGrader, LoadedSet
from graderctl.trust_policy import ERROR_RATE, FAR, FRR, coverage_estimate, needed_samples

if TYPE_CHECKING:
    from graderctl.stats import ClusteredRate

#: Packages whose versions are recorded in every report's ``environment``.
ENVIRONMENT_PACKAGES = (
    "pydantic",
    "numpy",
    "scipy",
    "scikit-learn",
    "rapidfuzz",
    "krippendorff",
    "httpx",
    "typer",
    "rich",
)


class CalibrationStatus(StrEnum):
    """What a report means for the command's exit code (the CLI maps it: 0 / 1 / 4)."""

    trusted = "trusted"
    policy_not_met = "policy_not_met"
    error_rate_exceeded = "error_rate_exceeded"


def status_of(report: CalibrationReport) -> CalibrationStatus:
    if any(c.name == ERROR_RATE and not c.passed for c in report.policy_checks):
        return CalibrationStatus.error_rate_exceeded
    return CalibrationStatus.trusted if report.trusted else CalibrationStatus.policy_not_met


# --- running ------------------------------------------------------------------------------------------


def calibrate(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
    write: bool = True,
    repeats: int = 1,
    written: list[Path] | None = None,
    split: str | None = None,
) -> CalibrationReport:
    """Grade every sample of ``cal_set`` with ``grader`` and build its calibration report; unless ``write`` is
    false, write ``reports/<set>/<name>@<version>.json`` and ``.md`` atomically (both or neither).

    Raises :class:`InvalidInputError` when the grader and the set are for different checks or the grader is
    an edited released version (``graders.lock``; nothing is written), and
    :class:`GraderRunError` when the grader cannot run at all (it cannot be built, or errs on every sample).
    ``KeyboardInterrupt`` propagates and nothing is written. ``options`` sets jobs, batch size and timeout;
    kinds that are ``cacheable`` (model judges, commands) read and fill the verdict cache unless
    ``options.use_cache`` is false. With ``repeats`` > 1 every sample is graded that many times and the
    report gains a ``repeats`` section (self-consistency and the rates of each repeat; see
    :mod:`graderctl.services.repeats`); the rates are those of the first run. A report whose findings equal
    the one on disk is not rewritten (its ``created_at`` is kept); the paths written are appended to
    ``written``.

    With ``split`` (``"tune"`` or ``"certify"``) only that split of the set is graded and the report goes to
    ``reports/<set>/<name>@<version>.<split>.json``. Every calibration on a certify split is recorded in the
    set's ledger (``reports/<set>/ledger.jsonl``, even without ``write``: a look is a look), and the report
    warns when the certify split has already judged several versions of the grader.
    """
    whole = cal_set
    if split is not None:
        from graderctl.services.splits import Split, subset

        cal_set = subset(whole, Split(split))
    check_pair(grader, cal_set)
    from graderctl.store.lock import require_released_intact

    require_released_intact([grader], root)  # an edited released version never overwrites its report
    if repeats != 1:
        from graderctl.services.repeats import check_repeats

        check_repeats(repeats)
    verdicts = grade_set(grader, cal_set, root=root, options=options, progress=progress)
    runs: list[list[Verdict]] = [verdicts]
    if repeats > 1:
        from graderctl.services.repeats import grade_repeats

        runs += grade_repeats(grader, cal_set, repeats, root=root, options=options, progress=progress)
    outcomes = outcomes_from_verdicts(cal_set.samples, verdicts)
    report = report_from_outcomes(
        grader,
        cal_set,
        outcomes,
        usage=sum_usage(v for run in runs for v in run),
        created_at=now_rfc3339(),
        environment=environment_info(),
    )
    from graderctl.store.lock import is_released

    report.grader.released = True if is_released(grader, root) else None
    if repeats > 1:
        from graderctl.services.repeats import summarize_repeats

        report.repeats = summarize_repeats(cal_set.samples, runs)
    if split is not None:
        _mark_split(report, whole, split, root=root)
    if write:
        from graderctl.render.markdown import render_markdown
        from graderctl.store.reports import keep_unchanged_report, write_report

        same = keep_unchanged_report(root, report)  # the same findings keep the committed report as it is
        paths = write_report(root, report, render_markdown(report), keep_json=same)
        if written is not None:
            written.extend(paths)
        if split is None:
            from graderctl.services.trust import remember_decision

            remember_decision(grader, cal_set, root)  # list after calibrate is warm (a large report)
    return report


#: A certify split that has judged this many versions of one grader gives an optimistic estimate for the
#: best of them (choosing among versions on the same samples): calibrate warns.
MANY_LOOKS = 3


def _mark_split(report: CalibrationReport, whole: LoadedSet, split: str, *, root: Path) -> None:
    """Record which split the report covers; for the certify split, append the look to the ledger and warn
    when the split has already been used to choose among several versions of the grader."""
    from graderctl.models.tuning import LedgerEntry
    from graderctl.services.splits import Split, split_fingerprint
    from graderctl.stats import clopper_pearson_upper
    from graderctl.store.ledger import append_ledger, read_ledger

    report.split = split
    fingerprint = split_fingerprint(whole, Split(split))
    report.calibration_set.split = split
    report.calibration_set.split_fingerprint = fingerprint
    if split != Split.certify:
        return
    earlier = [e for e in read_ledger(root, whole.name) if e.split_fingerprint == fingerprint]
    entry = LedgerEntry(
        at=report.created_at or now_rfc3339(),
        grader=f"{report.grader.name}@{report.grader.version}",
        fingerprint=report.grader.fingerprint,
        set=whole.name,
        set_fingerprint=whole.fingerprint,
        split_fingerprint=fingerprint,
        n=len(report.samples),
        trusted=report.trusted,
        false_accept_rate_upper_95=report.false_accept_rate.upper_95,
        false_reject_rate_upper_95=report.false_reject_rate.upper_95,
        coverage=report.coverage.value if report.coverage is not None else None,
    )
    append_ledger(root, entry)
    looks = [*earlier, entry]
    same_grader = [e for e in looks if e.grader.partition("@")[0] == report.grader.name]
    versions = sorted({e.grader for e in same_grader}, key=lambda r: int(r.partition("@")[2] or 0))
    k = len({e.fingerprint for e in same_grader})
    ledger = LedgerSummary(
        looks=len(looks),
        looks_by_this_grader=len(same_grader),
        versions=versions,
        distinct_fingerprints=k,
    )
    if k >= MANY_LOOKS:
        # the best of k looks: a Bonferroni bound at 95% over k comparisons says how optimistic it can be
        far, frr = report.false_accept_rate, report.false_reject_rate
        adjusted = AdjustedBounds(
            confidence=1 - 0.05 / k,
            false_accept_rate=_quiet(lambda: clopper_pearson_upper(far.count, far.n, confidence=1 - 0.05 / k))
            if far.n
            else None,
            false_reject_rate=_quiet(lambda: clopper_pearson_upper(frr.count, frr.n, confidence=1 - 0.05 / k))
            if frr.n
            else None,
        )
        ledger.adjusted_upper_95 = adjusted
        report.warnings.append(
            f"the certify split of {whole.name!r} ({len(report.samples)} samples) has now judged "
            f"{k} versions of {report.grader.name} ({', '.join(versions)}): choosing among them on the "
            "same samples makes this estimate optimistic (Bonferroni-adjusted upper bounds: false accept "
            f"{_fmt_bound(adjusted.false_accept_rate)}, "
            f"false reject {_fmt_bound(adjusted.false_reject_rate)}); "
            "the fix is new certify samples"
        )
    report.ledger = ledger


def _fmt_bound(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def check_pair(grader: LoadedGrader, cal_set: LoadedSet) -> None:
    if grader.spec.check != cal_set.check:
        raise InvalidInputError(
            f"{grader.ref} grades {grader.spec.check.value}, "
            f"but set {cal_set.name!r} is for {cal_set.check.value}",
            [
                Problem(
                    file=cal_set.shown,
                    message=f"set {cal_set.name!r} is for another check than grader {grader.ref}",
                    expected=grader.spec.check.value,
                    got=cal_set.check.value,
                    fix="pick a set of the grader's check (`graderctl list` shows them), or leave out --set",
                )
            ],
        )
    if not cal_set.samples:
        raise InvalidInputError(
            f"set {cal_set.name!r} has no samples",
            [
                Problem(
                    file=cal_set.shown, message="the set has no samples", fix="add samples to samples.jsonl"
                )
            ],
        )


def grade_set(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> list[Verdict]:
    """One verdict per sample of the set. Raises :class:`GraderRunError` when the grader cannot run at all.
    Unless ``options.use_cache`` is false, a ``cacheable`` kind's verdicts are read from and kept in the
    project's verdict cache (in the user's cache folder: :func:`graderctl.store.cache.default_cache_dir`)."""
    cache_dir = options.cache_dir(root)
    instance = start_grader(grader, cal_set.corpus, cache_dir)
    cache = verdict_cache(grader, cache_dir)
    try:
        verdicts = run_inputs(
            instance, [s.input for s in cal_set.samples], options, progress=progress, cache=cache
        )
    finally:
        instance.close()
    if verdicts and all(v.is_error for v in verdicts):
        cause, count = Counter(v.error or "unknown error" for v in verdicts).most_common(1)[0]
        raise GraderRunError(
            f"{grader.ref} could not grade any of the {len(verdicts)} samples of set {cal_set.name!r}: "
            f"{cause}" + ("" if count == len(verdicts) else f" (and {len(verdicts) - count} other errors)")
        )
    return verdicts


# --- per-sample outcomes ------------------------------------------------------------------------------


def _finite(value: float | None) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


_CHECK_JSON = json.JSONEncoder(allow_nan=False, check_circular=False).encode


def json_safe(value: Any) -> Any:
    """``value`` made JSON-safe: no NaN or infinity (they become ``None``), unknown objects as strings. A
    value that is already safe is returned as it is (checked by the C encoder: no copy)."""
    try:
        _CHECK_JSON(value)
    except (TypeError, ValueError, RecursionError):
        return _json_copy(value)
    return value


def _json_copy(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(v) for v in value]
    if value is None or isinstance(value, str | int | bool):
        return value
    return str(value)


def outcomes_from_verdicts(samples: Sequence[Sample], verdicts: Sequence[Verdict]) -> list[SampleOutcome]:
    """Pair each sample with its verdict; an error verdict gives ``accepted`` and ``correct`` ``None``."""
    if len(samples) != len(verdicts):
        raise ValueError(f"{len(verdicts)} verdict(s) for {len(samples)} sample(s)")
    out: list[SampleOutcome] = []
    for sample, verdict in zip(samples, verdicts, strict=True):
        undecided = verdict.is_undecided
        accepted = None if (verdict.is_error or undecided) else bool(verdict.accepted)
        usage: SampleUsage | None = None
        if verdict.usage is not None:  # per-sample tokens and cost (model judges); cached verdicts cost 0
            u = verdict.usage
            usage = SampleUsage(
                input_tokens=u.input_tokens,
                output_tokens=u.output_tokens,
                usd=round(u.usd, 8),
                requests=u.requests,
                retries=u.retries or None,
                cached=u.cached,
            )
        outcome = SampleOutcome(
            id=sample.id,
            label=sample.label,
            accepted=accepted,
            error=(verdict.error or "unknown error") if accepted is None and not undecided else None,
            reason=verdict.reason or "",
            score=_finite(verdict.score),
            category=sample.category,
            group=sample.group,
            generator=sample.generator.model if sample.generator else None,
            correct=None if accepted is None else accepted == (sample.label == Label.good),
            undecided=True if undecided else None,
            details=json_safe(verdict.details) if verdict.details else None,
            usage=usage,
        )
        out.append(outcome)
    return out


def sum_usage(verdicts: Iterable[Verdict]) -> UsageTotals | None:
    """Tokens and money over every verdict that reports usage; ``None`` when none does."""
    total: UsageTotals | None = None
    usd = 0.0
    for v in verdicts:
        if v.usage is None:
            continue
        if total is None:
            total = UsageTotals()
        total.input_tokens += v.usage.input_tokens
        total.output_tokens += v.usage.output_tokens
        usd += v.usage.usd
        total.requests += v.usage.requests
        total.retries += v.usage.retries
        total.cached += int(v.usage.cached)
        total.samples += 1
    if total is not None:
        total.usd = round(usd, 6)
    return total


# --- statistics ---------------------------------------------------------------------------------------


def _quiet(fn: Callable[[], Any]) -> Any:
    """Call a statistic whose undefined result the report states in its own words (``warnings``)."""
    from graderctl.stats import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn()


def rate_estimate(count: int, n: int, clustered: ClusteredRate | None) -> RateEstimate:
    """The report's estimate of a rate: ``count`` of ``n`` with its Wilson interval and Clopper-Pearson bound,
    plus the cluster bootstrap (:func:`graderctl.trust_policy.evidence_from_outcomes`) when samples are
    grouped."""
    from graderctl.stats import rate_stats

    stats = _quiet(lambda: rate_stats(count, n))
    estimate = RateEstimate(**stats.to_dict(), interval="wilson", upper_bound="clopper-pearson one-sided")
    if clustered is not None:
        estimate.clustered = ClusteredEstimate.model_validate(json_safe(clustered.to_dict()))
    return estimate


def can_abstain(grader: LoadedGrader) -> bool:
    """Whether the definition declares an abstention band, or is a cascade (whose last member may leave a
    sample undecided): its report then always shows coverage."""
    params = grader.spec.params
    band = params.get("accept_at_or_above") is not None or params.get("reject_below") is not None
    return band or bool(grader.members)


def cascade_summary(grader: LoadedGrader, outcomes: Sequence[SampleOutcome]) -> CascadeSummary | None:
    """Per member of a cascade: samples graded, decided (accepted/rejected), left undecided, erred on, skipped
    (an earlier member decided) and cost, read from every sample's ``details.cascade`` trail (so each figure
    traces back to the samples of the report). ``None`` for a grader that is not a cascade."""
    if not grader.members:
        return None
    refs = [m.ref for m in grader.members]
    rows = {ref: Counter[str]() for ref in refs}
    cost = {ref: 0.0 for ref in refs}
    undecided = 0
    for o in outcomes:
        info = (o.details or {}).get("cascade") or {}
        steps = info.get("members") or []
        if o.undecided:
            undecided += 1
        for step in steps:
            ref = step.get("member")
            if ref not in rows:
                continue
            row = rows[ref]
            row["graded"] += 1
            outcome = step.get("outcome")
            row[outcome if outcome in ("undecided", "error") else "opinion"] += 1
            row["requests"] += int(step.get("requests") or 0)
            cost[ref] += float(step.get("usd") or 0.0)
        decided_by = info.get("decided_by")
        if decided_by in rows:
            rows[decided_by]["accepted" if o.accepted else "rejected"] += 1
    n = len(outcomes)
    members = []
    for ref in refs:
        row = rows[ref]
        decided = row["accepted"] + row["rejected"]
        members.append(
            CascadeMemberStats(
                ref=ref,
                graded=row["graded"],
                decided=decided,
                accepted=row["accepted"],
                rejected=row["rejected"],
                undecided=row["undecided"],
                errors=row["error"],
                share_of_samples=decided / n if n else None,
                skipped=n - row["graded"],
                requests=row["requests"],
                usd=round(cost[ref], 8),
            )
        )
    total_usd = sum(cost.values())
    any_cost = any(m.kind.model_based for m in grader.members)
    return CascadeSummary(
        mode=str(grader.spec.params.get("mode", "first_decided")),
        members=members,
        undecided=undecided,
        calls_saved=sum(m.skipped for m in members[1:]),
        usd_per_sample=round(total_usd / n, 8) if n and any_cost else None,
    )


def _advice(count: int, n: int, limit: float, noun: str) -> SampleSizeAdvice:
    """With ``count`` errors in ``n`` samples: the best bound the set supports, and how many samples the
    policy's bound needs (if no further errors occur)."""
    from graderctl.stats import clopper_pearson_upper

    best = _quiet(lambda: clopper_pearson_upper(count, n)) if n else None
    needed = needed_samples(limit, count)
    entry = SampleSizeAdvice(
        count=count,
        n=n,
        best_upper_95=best,
        target=limit,
        samples_needed_at_this_count=needed,
        additional_samples_needed=None if needed is None else max(0, needed - n),
        samples_needed_by_count={str(x): needed_samples(limit, x) for x in range(3)},
        observed_rate_exceeds_target=bool(n and count / n >= limit),
    )
    if n and count / n >= limit:
        entry.note = (
            f"the observed rate {count / n:.4f} already reaches the target {limit:g}: more {noun} samples "
            "will not help, the grader must improve"
        )
    return entry


@dataclass
class _Tally:
    """The counts of one row of :func:`breakdown` while the outcomes are read."""

    n: int = 0
    accepted: int = 0
    rejected: int = 0
    errors: int = 0
    undecided: int = 0
    n_good: int = 0
    n_bad: int = 0
    false_accepts: int = 0
    false_rejects: int = 0


def breakdown(
    outcomes: Iterable[SampleOutcome], key: Callable[[SampleOutcome], str | None]
) -> dict[str, CategoryCounts]:
    """Counts per key (category, generator): the contract's ``{n, accepted, rejected}`` plus errors, the
    labels, the misclassifications and their ``rate`` (misclassified / graded; ``None`` when none graded)."""
    rows: dict[str, _Tally] = {}
    for o in outcomes:
        k = key(o)
        if k is None:
            continue
        row = rows.setdefault(k, _Tally())
        row.n += 1
        if o.label == Label.good:
            row.n_good += 1
        else:
            row.n_bad += 1
        if o.undecided:
            row.undecided += 1
        elif o.accepted is None:
            row.errors += 1
        elif o.accepted:
            row.accepted += 1
            row.false_accepts += o.label == Label.bad
        else:
            row.rejected += 1
            row.false_rejects += o.label == Label.good
    out: dict[str, CategoryCounts] = {}
    for k in sorted(rows):
        row = rows[k]
        graded = row.accepted + row.rejected
        wrong = row.false_accepts + row.false_rejects
        out[k] = CategoryCounts(
            n=row.n,
            accepted=row.accepted,
            rejected=row.rejected,
            errors=row.errors,
            undecided=row.undecided or None,  # absent when none
            n_good=row.n_good,
            n_bad=row.n_bad,
            false_accepts=row.false_accepts,
            false_rejects=row.false_rejects,
            rate=wrong / graded if graded else None,
        )
    return out


def agreement_of(samples: Sequence[Sample]) -> tuple[LabellerAgreement | None, list[str]]:
    """Agreement between labellers where samples carry ``labels``: Cohen's kappa for two labellers,
    Krippendorff's alpha (nominal) otherwise; contested samples are those whose labellers disagree with each
    other or with the set's label."""
    from graderctl.stats import cohen_kappa, krippendorff_alpha_nominal

    labelled = [s for s in samples if s.labels]
    if not labelled:
        return None, []
    warn: list[str] = []
    labellers = sorted({item.labeler for s in labelled for item in s.labels or []})
    table: list[dict[str, str]] = []
    contested: list[str] = []
    for s in labelled:
        given = {item.labeler: item.label.value for item in s.labels or []}
        table.append(given)
        if len(set(given.values()) | {s.label.value}) > 1:
            contested.append(s.id)
    value: float | None
    if len(labellers) == 2:
        a, b = labellers
        pairs = [(row[a], row[b]) for row in table if a in row and b in row]
        method = "cohen_kappa"
        value = _quiet(lambda: cohen_kappa([p[0] for p in pairs], [p[1] for p in pairs])) if pairs else None
        n_units = len(pairs)
    elif len(labellers) > 2:
        method = "krippendorff_alpha_nominal"
        ratings: list[list[Hashable | None]] = [[row.get(r) for r in labellers] for row in table]
        value = _quiet(lambda: krippendorff_alpha_nominal(ratings))
        n_units = len(table)
    else:
        method = "none"
        value = None
        n_units = len(table)
    if value is None and len(labellers) > 1:
        warn.append(
            f"labeller agreement ({method}) is undefined: too few jointly labelled samples or no variation"
        )
    elif len(labellers) == 1:
        warn.append("agreement between labellers needs at least two labellers; only one is named")
    result = LabellerAgreement(
        method=method,
        value=_finite(value),
        labellers=labellers,
        n_units=n_units,
        n_contested=len(contested),
        contested=sorted(contested),
    )
    return result, warn


# --- the report ---------------------------------------------------------------------------------------


def _order(outcomes: Sequence[SampleOutcome]) -> list[SampleOutcome]:
    """Misclassified first, then errors, then the rest; by id within each."""

    def rank(o: SampleOutcome) -> int:
        if o.undecided:
            return 2
        if o.accepted is None:
            return 1
        return 0 if o.correct is False else 2

    return sorted(outcomes, key=lambda o: (rank(o), o.id))


def report_from_outcomes(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    outcomes: Sequence[SampleOutcome],
    *,
    usage: UsageTotals | None = None,
    created_at: str | None = None,
    environment: EnvironmentInfo | None = None,
    policy: Policy | None = None,
) -> CalibrationReport:
    """Every number of a calibration report from the per-sample outcomes (pure: no I/O, no clock unless
    ``created_at`` is left out, in which case it stays ``None``)."""
    from graderctl import __version__
    from graderctl.trust_policy import decide, evidence_from_outcomes

    policy = policy or cal_set.manifest.policy
    warn: list[str] = []
    bad = [o for o in outcomes if o.label == Label.bad]
    good = [o for o in outcomes if o.label == Label.good]
    found = evidence_from_outcomes(outcomes)
    evidence = found.evidence
    fa, fr = evidence.false_accepts, evidence.false_rejects
    far = rate_estimate(fa.count, fa.n, found.far_clustered)
    frr = rate_estimate(fr.count, fr.n, found.frr_clustered)
    if not fa.n:
        warn.append("false accept rate undefined: no known-bad sample graded")
    if not fr.n:
        warn.append("false reject rate undefined: no known-good sample graded")

    undecided = evidence.undecided
    errors = evidence.errors
    error_rate = errors / len(outcomes) if outcomes else None
    if errors:
        warn.append(f"the grader erred on {errors} of {len(outcomes)} samples; they count in neither rate")
    if undecided:
        warn.append(
            f"the grader left {undecided} of {len(outcomes)} samples undecided; the rates are over the "
            "decided samples only"
        )

    decision = decide(evidence, policy)  # the one trust rule (graderctl.trust_policy), as list and score
    checks = decision.checks
    trusted = decision.trusted
    supports = decision.supports
    coverage: CoverageEstimate | None = None
    if undecided or policy.min_coverage is not None or can_abstain(grader):
        coverage = coverage_estimate(len(outcomes) - errors - undecided, len(outcomes) - errors)
    for key in (FAR, FRR):
        if "message" in supports[key]:
            warn.append(supports[key]["message"])
    advice = {
        FAR: _advice(far.count, far.n, policy.max_false_accept_rate, "known-bad"),
        FRR: _advice(frr.count, frr.n, policy.max_false_reject_rate, "known-good"),
    }

    agreement, agreement_warnings = agreement_of(cal_set.samples)
    warn.extend(agreement_warnings)

    spec = grader.spec
    return CalibrationReport(
        graderctl_version=__version__,
        created_at=created_at,
        environment=environment,
        grader=GraderInfo(
            name=spec.name,
            version=spec.version,
            kind=spec.kind,
            fingerprint=grader.fingerprint,
            check=spec.check.value,
            params=json_safe(spec.params),
            judge=spec.judge.model_dump(mode="json", exclude_none=True) if spec.judge else None,
            path=grader.shown,
        ),
        calibration_set=SetInfo(
            name=cal_set.name,
            version=cal_set.manifest.version,
            fingerprint=cal_set.fingerprint,
            n_good=len(good),
            n_bad=len(bad),
            path=cal_set.shown,
            check=cal_set.check.value,
            n_samples=len(outcomes),
        ),
        false_accept_rate=far,
        false_reject_rate=frr,
        errors=errors,
        error_rate=error_rate,
        n_graded=len(outcomes) - errors,
        undecided=undecided if coverage is not None else None,
        coverage=coverage,
        trusted=trusted,
        policy=policy,
        policy_checks=checks,
        set_supports_policy=supports,
        sample_size_advice=advice,
        by_category=breakdown(outcomes, lambda o: o.category),
        by_generator=breakdown(outcomes, lambda o: o.generator),
        agreement=agreement,
        warnings=warn,
        usage=usage,
        cascade=cascade_summary(grader, outcomes),
        samples=_order(outcomes),
    )


# --- environment --------------------------------------------------------------------------------------


def now_rfc3339() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def environment_info() -> EnvironmentInfo:
    from importlib.metadata import PackageNotFoundError, version

    from graderctl import __version__

    packages: dict[str, str | None] = {}
    for name in ENVIRONMENT_PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return EnvironmentInfo(
        python=platform.python_version(),
        implementation=sys.implementation.name,
        platform=platform.platform(),
        graderctl=__version__,
        packages=packages,
    )


# --- the Python API -----------------------------------------------------------------------------------


def api_calibrate(
    grader: str | Path,
    set: str | Path | None = None,
    *,
    root: str | Path | None = None,
    jobs: int = 1,
    write: bool = True,
) -> CalibrationReport | list[CalibrationReport]:
    """Calibrate a grader and return its report (``graderctl.calibrate``).

    ``grader`` is ``name@version``, ``name`` (newest version) or a path to a ``v<N>.toml`` definition.
    ``set`` is a set name or a path to a set folder; without it every set of the grader's check in
    ``calibration_sets/`` is used and a list of reports is returned (one per set, by set name). ``root`` is
    the project root (default: found from the working directory). Reports are written under ``reports/``
    unless ``write`` is false. Raises :class:`graderctl.errors.InvalidInputError` for bad input and
    :class:`graderctl.errors.GraderRunError` when the grader cannot run; an error rate over the policy is
    not raised, it shows in the report (``trusted`` false, a failed ``error_rate`` policy check).
    """
    from graderctl.services.trust import sets_of_check
    from graderctl.store.layout import find_root
    from graderctl.store.project import find_grader, find_set

    base = Path(root).resolve() if root is not None else find_root()
    loaded = find_grader(str(grader), base)
    options = RunOptions(jobs=jobs)
    if set is not None:
        return calibrate(loaded, find_set(str(set), base), root=base, options=options, write=write)
    sets = sets_of_check(base, loaded.spec.check)
    if not sets:
        raise InvalidInputError(
            f"no calibration set for check {loaded.spec.check.value}",
            [
                Problem(
                    file="calibration_sets",
                    message=f"no calibration set for check {loaded.spec.check.value!r}",
                    fix="add one under calibration_sets/, or pass a set folder",
                )
            ],
        )
    return [calibrate(loaded, s, root=base, options=options, write=write) for s in sets]


# --- every shipped grader, and whether its reports are current --------------------------------------------


def shipped_pairs(root: Path) -> tuple[list[tuple[LoadedGrader, LoadedSet]], list[str]]:
    """Every grader definition under ``graders/`` with every set of its check, and notes about graders that
    have no set. An invalid definition or set raises :class:`InvalidInputError`."""
    from graderctl.services.trust import sets_of_check
    from graderctl.store.project import grader_files, load_grader

    pairs: list[tuple[LoadedGrader, LoadedSet]] = []
    notes: list[str] = []
    by_check: dict[str, list[LoadedSet]] = {}
    for path in grader_files(root):
        grader = load_grader(path, root=root)
        check = grader.spec.check
        if check.value not in by_check:
            by_check[check.value] = sets_of_check(root, check)
        sets = by_check[check.value]
        if not sets:
            notes.append(f"{grader.ref}: no calibration set for check {check.value}; nothing to calibrate")
        pairs.extend((grader, s) for s in sets)
    return pairs, notes


#: Opens the progress display of one (grader, set) pair while it is checked (``None``: no display).
PairProgress = Callable[[LoadedGrader, LoadedSet], AbstractContextManager[ProgressCallback | None]]


def check_reports(
    pairs: Iterable[tuple[LoadedGrader, LoadedSet]],
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: PairProgress | None = None,
) -> CalibrationCheck:
    """``calibrate --check``: whether the report of every pair is current (:func:`check_current`, in order),
    as the document ``--format json`` prints. Writes nothing."""
    results: list[ReportCheck] = []
    for grader, cal_set in pairs:
        shown = progress(grader, cal_set) if progress is not None else nullcontext(None)
        with shown as callback:
            results.append(check_current(grader, cal_set, root=root, options=options, progress=callback))
    return CalibrationCheck(current=all(r.current for r in results), reports=results)


def check_current(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> ReportCheck:
    """A report is stale when it is missing (or its Markdown is), unreadable, its fingerprints differ from the
    current grader and set, or re-running the grader gives different per-sample outcomes (accepted, rejected
    or error) or a different decision. Writes nothing."""
    from graderctl.store.lock import require_released_intact
    from graderctl.store.readers import display_path
    from graderctl.store.reports import read_report, report_files_present, report_paths

    require_released_intact([grader], root)
    ref, name = grader.ref, cal_set.name
    json_path, md_path = report_paths(root, name, grader.spec.name, grader.spec.version)
    shown = display_path(json_path, root)
    fix = f"run `graderctl calibrate {ref} --set {name}` and commit reports/"

    def stale(
        detail: str, report: str | None = shown, state: Literal["stale", "could_not_run"] = "stale"
    ) -> ReportCheck:
        return ReportCheck(grader=ref, set=name, state=state, report=report, detail=detail)

    json_there, md_there = report_files_present(json_path, md_path)
    if not json_there:
        return stale(f"no report ({shown}); {fix}", None)
    if not md_there:
        return stale(f"the Markdown report beside {shown} is missing; {fix}")
    try:
        old = read_report(json_path, root=root)
    except InvalidInputError as exc:
        return stale(f"the report cannot be read: {exc}; {fix}")
    if old.grader.fingerprint != grader.fingerprint:
        return stale(f"the grader changed since the report was written; {fix}")
    if old.calibration_set.fingerprint != cal_set.fingerprint:
        return stale(f"the set changed since the report was written; {fix}")
    try:
        verdicts = grade_set(grader, cal_set, root=root, options=options, progress=progress)
    except GraderRunError as exc:
        return stale(f"could not re-run the grader: {exc}", state="could_not_run")
    outcomes = outcomes_from_verdicts(cal_set.samples, verdicts)

    def key(o: SampleOutcome) -> tuple[bool | None, bool, bool]:
        return o.accepted, o.error is not None, bool(o.undecided)

    before = {o.id: key(o) for o in old.samples}
    after = {o.id: key(o) for o in outcomes}
    differ = sorted(i for i in before.keys() | after.keys() if before.get(i) != after.get(i))
    if differ:
        shown_ids = ", ".join(differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
        return stale(f"re-running the grader changes {len(differ)} outcome(s): {shown_ids}; {fix}")
    new = report_from_outcomes(grader, cal_set, outcomes)
    if new.trusted != old.trusted or [c.passed for c in new.policy_checks] != [
        c.passed for c in old.policy_checks
    ]:
        return stale(f"the trust decision computed now differs from the report's; {fix}")
    return ReportCheck(grader=ref, set=name, state="current", report=shown, detail="current")
