"""``compare``: does a new grader version keep scores comparable with the old one?

Both versions grade the same calibration set(s); the outcomes are paired sample by sample and compared
separately on known-good and known-bad samples (and, with ``--replay``, on frozen graded trials re-graded by
NEW). The verdict is an **equivalence decision**, not "no significant difference": a stratum passes when the
90% interval of the paired difference in accept rate (NEW - OLD) lies within ``+-margin`` (two one-sided
tests at the 5% level, :func:`graderctl.stats.equivalent_within`). Versions are comparable when every stratum
passes.

Decisions (documented in the report's messages):

- **Identical definitions.** Tango's interval with zero discordant pairs among ``n`` is still
  ``+-z^2/(n+z^2)`` (about ``+-0.022`` at ``n = 120``), so a set of ~100 samples per stratum can never show
  equivalence within ``+-0.02`` by itself. Two versions whose definitions differ only in name, version,
  description or compare_margin (same kind, params, judge, referenced files and kind implementation: the
  *behaviour fingerprint*) grade identically by construction, and are comparable whatever the set size; the
  statistics are still computed and shown. Otherwise the interval decides, and a stratum too small for the
  margin says so and gives the number of samples it would need (:func:`min_n_for_margin`).
- **Errors.** A pair where either version erred is left out and counted. A version erring on more of a
  set's samples than its ``max_error_rate`` makes the comparison fail with ``status = error_rate_exceeded``
  (the CLI exits 4).
- **Groups.** When samples carry ``group`` (not independent), the decision uses the hull of Tango's interval
  and a cluster-bootstrap interval over groups.
- **Replay.** Trials are re-graded with the score service's own trial grading. What is paired is the
  outcome of the compared check (``passed``) or, for results without ``checks``, ``success``; the interval
  is a cluster bootstrap with tasks as the unit (the task is what was sampled). pass@k and pass^k are
  computed under both versions over the trials both graded.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.base import Label
from graderctl.models.comparison import (
    ClusteredDifference,
    ComparedGrader,
    ComparisonReport,
    ErrorCounts,
    FailedStratum,
    FlippedSample,
    FlippedTrial,
    OverallAgreement,
    PairedTable,
    RateChange,
    ReplayComparison,
    SetComparison,
    SideOutcome,
    StratumComparison,
    SuccessChange,
    TrialSide,
)
from graderctl.models.reports import EnvironmentInfo, SampleOutcome
from graderctl.models.results import CheckResult, SkippedCheck
from graderctl.runner import ProgressCallback
from graderctl.services.running import DEFAULT_RUN, RunOptions
from graderctl.store.project import LoadedGrader, LoadedSet
from graderctl.store.reports import COMPARISONS_DIR as COMPARISONS_DIR  # re-exported for callers
from graderctl.store.reports import comparison_paths as comparison_paths
from graderctl.store.reports import comparison_to_json as comparison_to_json

if TYPE_CHECKING:
    from graderctl.models.trials import Trial
    from graderctl.plugin import Corpus
    from graderctl.stats import PairedOutcomes

DEFAULT_MARGIN = 0.02
#: Two-sided confidence of the intervals compared with the margin (TOST at the 5% level).
CONFIDENCE = 0.90
#: Definition fields that cannot change a verdict (left out of the behaviour fingerprint).
NON_BEHAVIOURAL_FIELDS = ("name", "version", "description", "compare_margin")
#: Seed and resamples of every bootstrap in a comparison (fixed: a report is reproducible).
N_BOOT = 2000
SEED = 20240601

IDENTICAL_MESSAGE = "same grading definition: outcomes identical by construction"

#: ``progress_for(label)`` gives a context manager yielding a progress callback (or ``None``).
ProgressFactory = Callable[[str], AbstractContextManager[ProgressCallback | None]]


class ComparisonStatus(StrEnum):
    """What a report means for the command's exit code (the CLI maps it: 0 / 1 / 4)."""

    comparable = "comparable"
    not_comparable = "not_comparable"
    error_rate_exceeded = "error_rate_exceeded"


def status_of(report: ComparisonReport) -> ComparisonStatus:
    return ComparisonStatus(report.status)


# --- identity, margin, preconditions --------------------------------------------------------------------


def behaviour_fingerprint(grader: LoadedGrader) -> str:
    """``sha256:`` over what can change a verdict: the definition without name, version, description and
    compare_margin, the text of every referenced file and the kind's implementation version. Two versions
    with equal behaviour fingerprints grade identically by construction."""
    from graderctl.store.fingerprint import fingerprint_of

    definition = {k: v for k, v in grader.definition.items() if k not in NON_BEHAVIOURAL_FIELDS}
    files = {name: text.replace("\r\n", "\n").replace("\r", "\n") for name, text in grader.files.items()}
    implementation = f"{grader.kind.name}/{grader.kind.implementation_version}"
    return fingerprint_of(
        "grader-behaviour", {"definition": definition, "files": files, "implementation": implementation}
    )


def resolve_margin(new: LoadedGrader, margin: float | None) -> tuple[float, str]:
    """The equivalence margin and where it came from: the command line, else NEW's ``compare_margin``, else
    the default 0.02."""
    if margin is not None:
        return float(margin), "command line"
    if new.spec.compare_margin is not None:
        return float(new.spec.compare_margin), f"{new.shown} compare_margin"
    return DEFAULT_MARGIN, "default"


def check_graders(old: LoadedGrader, new: LoadedGrader) -> None:
    """Both versions must grade the same check; else :class:`InvalidInputError` (exit 3)."""
    if old.spec.check == new.spec.check:
        return
    raise InvalidInputError(
        f"{old.ref} and {new.ref} grade different checks "
        f"({old.spec.check.value} and {new.spec.check.value}): there is nothing to compare",
        [
            Problem(
                file=new.shown,
                pointer="/check",
                message=f"{new.ref} grades another check than {old.ref}",
                expected=f"check = {old.spec.check.value!r}, as {old.shown} says",
                got=repr(new.spec.check.value),
                fix="compare two versions of a grader for the same check",
            )
        ],
    )


def check_set(grader: LoadedGrader, cal_set: LoadedSet) -> None:
    from graderctl.services.calibrate import check_pair

    check_pair(grader, cal_set)


def min_n_for_margin(margin: float, confidence: float = CONFIDENCE) -> int | None:
    """The smallest number of pairs ``n`` whose interval with zero discordant pairs, ``+-z^2/(n+z^2)``, lies
    within ``+-margin``; ``None`` when no ``n`` does (``margin`` of 0)."""
    from statistics import NormalDist

    from graderctl.stats import tango_interval

    if not 0 < margin < 1:
        return None
    z2 = NormalDist().inv_cdf(0.5 + confidence / 2) ** 2
    n = max(1, math.ceil(z2 * (1 - margin) / margin))

    def fits(k: int) -> bool:
        low, high = tango_interval(0, 0, k, confidence=confidence)
        return -margin <= low and high <= margin

    # The closed form can be one off from the interval's own root finding; settle on the interval's answer.
    while n > 1 and fits(n - 1):
        n -= 1
    while not fits(n):
        n += 1
    return n


# --- statistics of one stratum --------------------------------------------------------------------------


def _quiet(fn: Callable[[], Any]) -> Any:
    """Call a statistic whose undefined result the report states in its own words."""
    from graderctl.stats import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn()


def pct(value: float | None) -> str:
    if value is None:
        return "undefined"
    text = f"{100 * value:+.2f}".rstrip("0").rstrip(".")
    return ("+0" if text in ("+0", "-0") else text) + "%"


def _plain_pct(value: float) -> str:
    return pct(value).lstrip("+")


def _noun(label: Label) -> str:
    return "known-good" if label is Label.good else "known-bad"


def _side(o: SampleOutcome) -> SideOutcome:
    return SideOutcome(accepted=o.accepted, reason=o.reason, error=o.error)


def _drivers(flips: Sequence[FlippedSample], diff: float | None) -> list[str]:
    """The flipped samples that moved the difference the way it went (all of them when it did not move)."""
    if diff is None or diff == 0:
        return [f.id for f in flips]
    towards_accept = diff > 0
    return [f.id for f in flips if bool(f.new.accepted) == towards_accept]


@dataclass(frozen=True)
class _Interval:
    diff: float | None
    low: float | None
    high: float | None


def stratum_comparison(
    label: Label,
    pairs: Sequence[tuple[SampleOutcome, SampleOutcome]],
    *,
    margin: float,
    identical: bool,
    confidence: float = CONFIDENCE,
) -> tuple[StratumComparison, list[str]]:
    """Compare the outcomes of OLD and NEW on the samples of one stratum (pure). Returns the stratum and
    the warnings it raises."""
    from graderctl.stats import cluster_bootstrap_mean_difference, paired_difference, paired_outcomes

    warn: list[str] = []
    noun = _noun(label)
    err_old = sum(1 for o, _ in pairs if o.accepted is None and not o.undecided)
    err_new = sum(1 for _, w in pairs if w.accepted is None and not w.undecided)
    graded = [(o, w) for o, w in pairs if o.accepted is not None and w.accepted is not None]
    n = len(graded)
    errors = ErrorCounts(old=err_old, new=err_new, excluded=len(pairs) - n)
    old_acc = [bool(o.accepted) for o, _ in graded]
    new_acc = [bool(w.accepted) for _, w in graded]
    flips = [
        FlippedSample(id=o.id, label=label, category=o.category, group=o.group, old=_side(o), new=_side(w))
        for o, w in sorted(graded, key=lambda pair: pair[0].id)
        if o.accepted != w.accepted
    ]
    outcomes: PairedOutcomes = _quiet(lambda: paired_outcomes(old_acc, new_acc))
    table = PairedTable(
        both_accept=outcomes.both_true,
        old_accept_new_reject=outcomes.a_only,
        old_reject_new_accept=outcomes.b_only,
        both_reject=outcomes.both_false,
    )
    needed = min_n_for_margin(margin, confidence)
    supports = needed is not None and n >= needed
    clustered: ClusteredDifference | None = None
    if n == 0:
        warn.append(f"{noun}: no sample was graded by both versions; the difference is undefined")
        tango = _Interval(None, None, None)
        decisive = tango
        p_value = kappa = agreement = old_rate = new_rate = None
        b = c = 0
    else:
        paired = paired_difference(old_acc, new_acc, confidence=confidence)
        b, c, p_value = paired.b, paired.c, paired.p_value
        tango = _Interval(paired.diff, paired.ci_low, paired.ci_high)
        decisive = tango
        old_rate, new_rate = sum(old_acc) / n, sum(new_acc) / n
        agreement = outcomes.agreement
        assert agreement is not None  # n > 0
        kappa = outcomes.kappa
        if kappa is None:
            warn.append(
                f"{noun}: Cohen's kappa is undefined: both versions gave one and the same outcome to every "
                f"sample (agreement {_plain_pct(agreement)})"
            )
        if any(o.group is not None for o, _ in graded):
            groups = [o.group if o.group is not None else f"sample:{o.id}" for o, _ in graded]
            diff, low, high = _quiet(
                lambda: cluster_bootstrap_mean_difference(
                    [float(x) for x in old_acc],
                    [float(x) for x in new_acc],
                    groups,
                    confidence=confidence,
                    n_boot=N_BOOT,
                    seed=SEED,
                )
            )
            clustered = ClusteredDifference(
                diff=diff,
                ci_low=low,
                ci_high=high,
                n_groups=len(set(groups)),
                method="cluster-bootstrap over groups (group-weighted)",
                n_boot=N_BOOT,
                seed=SEED,
            )
            assert tango.low is not None and tango.high is not None
            decisive = _Interval(tango.diff, min(tango.low, low), max(tango.high, high))
    within = False
    if decisive.low is not None and decisive.high is not None:
        from graderctl.stats import equivalent_within

        within = equivalent_within(decisive.low, decisive.high, margin)

    rate_change = _rate_change(label, old_rate, new_rate, decisive, confidence)
    message = _stratum_message(
        label,
        n,
        b,
        c,
        decisive,
        within,
        identical,
        supports,
        needed,
        margin,
        confidence,
        len(flips),
        grouped=decisive != tango,
    )
    if identical and flips:
        warn.append(
            f"{noun}: the two definitions are identical, yet {len(flips)} outcome(s) differ: the grader is "
            "not deterministic (a model judge sampling, a command with state); its own run-to-run noise is "
            "this large"
        )
    stratum = StratumComparison(
        label=label,
        n_samples=len(pairs),
        n=n,
        errors=errors,
        old_accept_rate=old_rate,
        new_accept_rate=new_rate,
        table=table,
        b=b,
        c=c,
        mcnemar_p=p_value,
        diff=tango.diff,
        ci_low=tango.low,
        ci_high=tango.high,
        confidence=confidence,
        method="tango-score",
        clustered=clustered,
        decision_ci_low=decisive.low,
        decision_ci_high=decisive.high,
        within_margin=within,
        kappa=kappa,
        agreement=agreement,
        false_accept_rate=rate_change if label is Label.bad else None,
        false_reject_rate=rate_change if label is Label.good else None,
        min_n_for_margin=needed,
        supports_margin=supports,
        comparable=identical or within,
        decided_by="identical_definition" if identical else "interval",
        message=message,
        flipped=flips,
    )
    return stratum, warn


def _rate_change(
    label: Label,
    old_rate: float | None,
    new_rate: float | None,
    interval: _Interval,
    confidence: float,
) -> RateChange:
    """The accept-rate difference as the change of the stratum's error rate: on known-bad samples an accept
    is a false accept (same sign); on known-good samples a reject is a false reject (opposite sign)."""
    if label is Label.bad:
        return RateChange(
            name="false_accept_rate",
            old=old_rate,
            new=new_rate,
            change=interval.diff,
            ci_low=interval.low,
            ci_high=interval.high,
            confidence=confidence,
        )

    def flip(x: float | None) -> float | None:
        return None if x is None else 0.0 - x  # 0.0 - 0.0 is 0.0, never -0.0

    return RateChange(
        name="false_reject_rate",
        old=None if old_rate is None else 1 - old_rate,
        new=None if new_rate is None else 1 - new_rate,
        change=flip(interval.diff),
        ci_low=flip(interval.high),
        ci_high=flip(interval.low),
        confidence=confidence,
    )


def _stratum_message(
    label: Label,
    n: int,
    b: int,
    c: int,
    interval: _Interval,
    within: bool,
    identical: bool,
    supports: bool,
    needed: int | None,
    margin: float,
    confidence: float,
    n_flips: int,
    grouped: bool = False,
) -> str:
    noun = _noun(label)
    level = f"{round(100 * confidence)}%"
    bound = f"±{_plain_pct(margin)}"
    if interval.low is None or interval.high is None:
        stats = f"no {noun} sample was graded by both versions"
    else:
        stats = (
            f"accept-rate difference {pct(interval.diff)} ({level} CI {pct(interval.low)} to "
            f"{pct(interval.high)}{', widened for groups' if grouped else ''}) "
            f"{'within' if within else 'not within'} {bound}; "
            f"{n_flips} of {n} flipped ({c} rejected→accepted, {b} accepted→rejected)"
        )
    if identical:
        return f"{IDENTICAL_MESSAGE} ({stats})"
    if within or supports:
        return stats
    advice = (
        f"at least {needed} {noun} samples graded by both versions are needed"
        if needed is not None
        else "no finite number of samples suffices"
    )
    best = ""
    if n:
        from graderctl.stats import tango_interval

        _, high = tango_interval(0, 0, n, confidence=confidence)
        best = f" (with {n} pairs the {level} interval is at best ±{_plain_pct(high)})"
    if b + c == 0:
        return (
            f"{stats}. No sample flipped, but the stratum is too small to show equivalence within {bound} "
            f"even with zero flips{best}: {advice}"
        )
    return f"{stats}. Even with zero flips the stratum would be too small for {bound}{best}: {advice}"


# --- one set --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradedRun:
    """One version's outcomes on one calibration set, with the fingerprint of the set it graded."""

    set_fingerprint: str
    outcomes: list[SampleOutcome]


def _pairs(
    cal_set: LoadedSet, old: GradedRun, new: GradedRun
) -> Iterator[tuple[SampleOutcome, SampleOutcome]]:
    """The outcomes of both versions, sample by sample. The runs must be of the very same set."""
    if old.set_fingerprint != new.set_fingerprint or old.set_fingerprint != cal_set.fingerprint:
        raise InvalidInputError(
            f"set {cal_set.name!r}: the two versions graded different versions of the set",
            [
                Problem(
                    file=cal_set.shown,
                    message="both versions must grade the same calibration set",
                    expected=f"set fingerprint {cal_set.fingerprint} for both",
                    got=f"OLD graded {old.set_fingerprint}, NEW graded {new.set_fingerprint}",
                    fix="re-run the comparison without editing the set in between",
                )
            ],
        )
    new_by_id = {o.id: o for o in new.outcomes}
    old_ids = [o.id for o in old.outcomes]
    if (
        len(new_by_id) != len(new.outcomes)
        or set(old_ids) != set(new_by_id)
        or len(set(old_ids)) != len(old_ids)
    ):
        missing = sorted(set(old_ids) ^ set(new_by_id))[:5]
        raise InvalidInputError(
            f"set {cal_set.name!r}: the two versions graded different samples",
            [
                Problem(
                    file=cal_set.shown,
                    message="both versions must grade every sample of the set exactly once",
                    expected="the same sample ids on both sides",
                    got="differing ids: " + (", ".join(missing) or "duplicates"),
                )
            ],
        )
    for o in old.outcomes:
        yield o, new_by_id[o.id]


def compare_outcomes(
    cal_set: LoadedSet,
    old: GradedRun,
    new: GradedRun,
    *,
    margin: float,
    identical: bool,
    confidence: float = CONFIDENCE,
) -> tuple[SetComparison, list[FailedStratum], list[str]]:
    """Every number of one set's comparison from the two versions' outcomes (pure)."""
    from graderctl.stats import paired_outcomes

    pairs = list(_pairs(cal_set, old, new))
    warn: list[str] = []
    strata: dict[str, StratumComparison] = {}
    failed: list[FailedStratum] = []
    for label in (Label.good, Label.bad):
        chosen = [(o, w) for o, w in pairs if o.label is label]
        stratum, stratum_warnings = stratum_comparison(
            label, chosen, margin=margin, identical=identical, confidence=confidence
        )
        warn.extend(f"set {cal_set.name}: {w}" for w in stratum_warnings)
        strata[label.value] = stratum
        if not stratum.comparable:
            failed.append(
                FailedStratum(
                    set=cal_set.name,
                    stratum=label.value,
                    reason=stratum.message,
                    samples=_drivers(stratum.flipped, stratum.diff),
                )
            )

    total = len(pairs)
    # An undecided sample (the grader abstained) is not an error: it is counted apart, below.
    err_old = sum(1 for o, _ in pairs if o.accepted is None and not o.undecided)
    err_new = sum(1 for _, w in pairs if w.accepted is None and not w.undecided)
    und_old = sum(1 for o, _ in pairs if o.undecided)
    und_new = sum(1 for _, w in pairs if w.undecided)
    limit = cal_set.manifest.policy.max_error_rate
    rates = {"old": err_old / total if total else None, "new": err_new / total if total else None}
    exceeded = any(r is not None and r > limit for r in rates.values())
    for side, rate in rates.items():
        if rate is not None and rate > limit:
            warn.append(
                f"set {cal_set.name}: {side.upper()} erred on {_plain_pct(rate)} of the samples, over the "
                f"set's max_error_rate {_plain_pct(limit)}: the comparison cannot be trusted"
            )
        elif rate:
            warn.append(
                f"set {cal_set.name}: {side.upper()} erred on {_plain_pct(rate)} of the samples; those pairs "
                "are left out"
            )
    undecided_rate: dict[str, float | None] | None = None
    if und_old or und_new:
        undecided_rate = {"old": und_old / total, "new": und_new / total}
        shift = abs(und_new - und_old) / total
        message = (
            f"OLD left {und_old} and NEW {und_new} of {total} samples undecided (abstained); the pairs with "
            "an undecided side are left out of the rates"
        )
        if shift > margin:
            message += (
                f": the share decided changes by {_plain_pct(shift)}, more than the margin "
                f"{_plain_pct(margin)}, so trials graded by NEW would be left ungraded (success null) where "
                "OLD decided them, or the reverse: not comparable, re-score history"
            )
            failed.append(FailedStratum(set=cal_set.name, stratum="decided", reason=message, samples=[]))
        warn.append(f"set {cal_set.name}: {message}")
    graded = [(o, w) for o, w in pairs if o.accepted is not None and w.accepted is not None]
    overall = OverallAgreement(n=len(graded))
    if graded:
        a = [bool(o.accepted) for o, _ in graded]
        b = [bool(w.accepted) for _, w in graded]
        outcomes: PairedOutcomes = _quiet(lambda: paired_outcomes(a, b))
        overall.agreement = outcomes.agreement
        overall.kappa = outcomes.kappa
        if overall.kappa is None:
            warn.append(
                f"set {cal_set.name}: Cohen's kappa over all samples is undefined: both versions gave one "
                "outcome to every sample"
            )
    comparison = SetComparison(
        name=cal_set.name,
        version=cal_set.manifest.version,
        fingerprint=cal_set.fingerprint,
        path=cal_set.shown,
        n_samples=total,
        max_error_rate=limit,
        error_rate=rates,
        error_rate_exceeded=exceeded,
        undecided_rate=undecided_rate,
        overall=overall,
        strata=strata,
    )
    return comparison, failed, warn


# --- running --------------------------------------------------------------------------------------------


def grader_info(grader: LoadedGrader) -> ComparedGrader:
    from graderctl.services.calibrate import json_safe

    spec = grader.spec
    return ComparedGrader(
        ref=spec.ref,
        name=spec.name,
        version=spec.version,
        kind=spec.kind,
        fingerprint=grader.fingerprint,
        behaviour_fingerprint=behaviour_fingerprint(grader),
        check=spec.check.value,
        params=json_safe(spec.params),
        judge=spec.judge.model_dump(mode="json", exclude_none=True) if spec.judge else None,
        compare_margin=spec.compare_margin,
        path=grader.shown,
    )


def _no_progress(label: str) -> AbstractContextManager[ProgressCallback | None]:
    return nullcontext(None)


def grade_on_set(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> GradedRun:
    """Grade every sample of ``cal_set`` with ``grader`` (the calibrate service's runner and outcomes)."""
    from graderctl.services.calibrate import grade_set, outcomes_from_verdicts

    verdicts = grade_set(grader, cal_set, root=root, options=options, progress=progress)
    return GradedRun(cal_set.fingerprint, outcomes_from_verdicts(cal_set.samples, verdicts))


def compare(
    old: LoadedGrader,
    new: LoadedGrader,
    sets: Sequence[LoadedSet],
    *,
    root: Path,
    margin: float | None = None,
    replay: ReplayInput | None = None,
    options: RunOptions = DEFAULT_RUN,
    progress_for: ProgressFactory | None = None,
    write: bool = True,
) -> ComparisonReport:
    """Grade every set with both versions (and re-grade the replayed trials with NEW), build the comparison
    report and, unless ``write`` is false, write ``reports/comparisons/<old>--<new>.json`` and ``.md``
    atomically.

    Raises :class:`InvalidInputError` (exit 3) when the versions grade different checks, a set is for
    another check, or a released version was edited (graders.lock); :class:`GraderRunError` (exit 4) when a
    version cannot run at all. An error rate over a set's limit is not raised: the report's ``status`` says
    so.
    """
    from graderctl.services.calibrate import environment_info, now_rfc3339
    from graderctl.store.lock import require_released_intact

    check_graders(old, new)
    require_released_intact([old, new], root)
    if not sets and replay is None:
        raise InvalidInputError(
            f"no calibration set for check {old.spec.check.value}",
            [
                Problem(
                    file="calibration_sets",
                    message=f"no calibration set with check = {old.spec.check.value!r}",
                    fix="add one under calibration_sets/, or give a set folder with --set",
                )
            ],
        )
    for cal_set in sets:  # every precondition is checked before anything runs
        check_set(old, cal_set)
        check_set(new, cal_set)
    # The replayed inputs are read (and refused when bad) before any set is graded.
    loaded_replay = load_replay(replay, old, root=root) if replay is not None else None
    chosen_margin, margin_source = resolve_margin(new, margin)
    identical = behaviour_fingerprint(old) == behaviour_fingerprint(new)
    progress_for = progress_for or _no_progress

    compared: list[SetComparison] = []
    failed: list[FailedStratum] = []
    warn: list[str] = []
    for cal_set in sets:
        runs: list[GradedRun] = []
        for side, grader in (("OLD", old), ("NEW", new)):
            with progress_for(f"{side} {grader.ref} on {cal_set.name}") as progress:
                runs.append(grade_on_set(grader, cal_set, root=root, options=options, progress=progress))
        comparison, set_failed, set_warnings = compare_outcomes(
            cal_set, runs[0], runs[1], margin=chosen_margin, identical=identical
        )
        compared.append(comparison)
        failed.extend(set_failed)
        warn.extend(set_warnings)

    replayed = None
    if replay is not None and loaded_replay is not None:
        with progress_for(f"NEW {new.ref} on {replay.results_shown}") as progress:
            replayed, replay_failed, replay_warnings = replay_comparison(
                old,
                new,
                loaded_replay,
                margin=chosen_margin,
                identical=identical,
                root=root,
                max_error_rate=min((s.manifest.policy.max_error_rate for s in sets), default=0.01),
                options=options,
                progress=progress,
            )
        failed.extend(replay_failed)
        warn.extend(replay_warnings)

    report = build_report(
        old,
        new,
        compared,
        replayed,
        failed,
        warn,
        margin=chosen_margin,
        margin_source=margin_source,
        identical=identical,
        created_at=now_rfc3339(),
        environment=environment_info(),
    )
    if write:
        write_comparison(root, report)
    return report


def build_report(
    old: LoadedGrader,
    new: LoadedGrader,
    sets: list[SetComparison],
    replay: ReplayComparison | None,
    failed: list[FailedStratum],
    warn: list[str],
    *,
    margin: float,
    margin_source: str,
    identical: bool,
    created_at: str | None = None,
    environment: EnvironmentInfo | None = None,
) -> ComparisonReport:
    """The report document from the per-set (and replay) comparisons (pure)."""
    from graderctl import __version__

    exceeded = any(s.error_rate_exceeded for s in sets) or (replay is not None and replay.error_rate_exceeded)
    comparable = not failed and not exceeded
    if exceeded:
        status = ComparisonStatus.error_rate_exceeded
    elif comparable:
        status = ComparisonStatus.comparable
    else:
        status = ComparisonStatus.not_comparable
    notes = list(warn)
    if identical:
        notes.insert(
            0,
            f"{IDENTICAL_MESSAGE}: {old.ref} and {new.ref} differ only in name, version, description or "
            "compare_margin, so they are comparable whatever the sample size; the statistics below are "
            "shown for the record",
        )
    return ComparisonReport(
        comparable=comparable,
        status=status.value,
        margin=margin,
        margin_source=margin_source,
        confidence=CONFIDENCE,
        old=grader_info(old),
        new=grader_info(new),
        check=old.spec.check.value,
        identical_definition=identical,
        sets=sets,
        replay=replay,
        failed_strata=failed,
        graderctl_version=__version__,
        created_at=created_at,
        environment=environment,
        warnings=notes,
    )


# --- the report on disk ---------------------------------------------------------------------------------


def write_comparison(root: Path, report: ComparisonReport) -> tuple[Path, Path]:
    """Write the JSON document and its Markdown rendering together, atomically (``store.reports``); a report
    with the same findings as the one on disk keeps its timestamps."""
    from graderctl.render.compare import render_markdown
    from graderctl.store.reports import keep_unchanged_comparison, write_comparison_files

    keep = keep_unchanged_comparison(root, report)
    return write_comparison_files(root, report, render_markdown(report), keep_json=keep)


# --- replay ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayInput:
    """Frozen graded results to replay, the trials they graded and the corpus those trials cite."""

    results: Path
    results_shown: str
    trials: Path | None = None
    corpus: Path | None = None

    @classmethod
    def from_paths(
        cls, results: Path, *, trials: Path | None = None, corpus: Path | None = None, root: Path
    ) -> ReplayInput:
        from graderctl.store.readers import display_path

        return cls(results=results, results_shown=display_path(results, root), trials=trials, corpus=corpus)


@dataclass(frozen=True)
class ReplayRecord:
    """One frozen graded trial: what OLD decided, and what NEW decided when it re-graded the trial."""

    task_id: str
    trial_id: str
    #: The compared outcome under OLD (the check's ``passed``, or ``success``); ``None``: OLD could not grade.
    old: bool | None
    #: The same outcome under NEW; ``None``: NEW erred on the trial.
    new: bool | None
    #: ``success`` as recorded (OLD) and recomputed with the results' rule (NEW).
    old_success: bool | None
    new_success: bool | None
    old_reasons: tuple[str, ...] = ()
    new_reasons: tuple[str, ...] = ()
    #: NEW left the check undecided (it abstained on a unit; no unit erred): not an error.
    new_undecided: bool = False


#: At most this many k in the side-by-side pass@k / pass^k tables (``graderctl metrics --k`` for more).
MAX_K = 20


def _per_task(pairs: Sequence[tuple[str, bool]]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for task, ok in pairs:
        row = counts.setdefault(task, [0, 0])
        row[0] += 1
        row[1] += int(ok)
    return {t: (n, c) for t, (n, c) in counts.items()}


def _pass_tables(
    records: Sequence[ReplayRecord],
) -> tuple[list[int], dict[str, dict[str, float | None]], dict[str, dict[str, float | None]], list[str]]:
    """pass@k and pass^k of ``success`` under both versions, over the trials both graded."""
    from graderctl.stats import mean_pass_at_k, mean_pass_hat_k

    both = [r for r in records if r.old_success is not None and r.new_success is not None]
    warn: list[str] = []
    if not both:
        warn.append("replay: no trial has a success under both versions; pass@k and pass^k are undefined")
        return [], {}, {}, warn
    old_tasks = _per_task([(r.task_id, bool(r.old_success)) for r in both])
    new_tasks = _per_task([(r.task_id, bool(r.new_success)) for r in both])
    tasks = sorted(old_tasks)
    smallest = min(old_tasks[t][0] for t in tasks)
    ks = list(range(1, min(smallest, MAX_K) + 1))
    if smallest > MAX_K:
        warn.append(f"replay: pass@k and pass^k shown for k <= {MAX_K}; `graderctl metrics --k` gives more")
    at: dict[str, dict[str, float | None]] = {"old": {}, "new": {}}
    hat: dict[str, dict[str, float | None]] = {"old": {}, "new": {}}
    for side, per_task in (("old", old_tasks), ("new", new_tasks)):
        pairs = [per_task[t] for t in tasks]
        for k in ks:
            at[side][str(k)] = float(mean_pass_at_k(pairs, k))
            hat[side][str(k)] = float(mean_pass_hat_k(pairs, k))
    return ks, at, hat, warn


def _task_weighted_rate(pairs: Sequence[tuple[str, bool]]) -> float | None:
    per_task = _per_task(pairs)
    if not per_task:
        return None
    return math.fsum(c / n for n, c in per_task.values()) / len(per_task)


def replay_from_records(
    records: Sequence[ReplayRecord],
    *,
    results: str,
    trials: str | None,
    check: str,
    outcome: str,
    margin: float,
    identical: bool,
    max_error_rate: float,
    confidence: float = CONFIDENCE,
) -> tuple[ReplayComparison, list[FailedStratum], list[str]]:
    """Every number of the replay stratum from the per-trial outcomes (pure)."""
    from graderctl.stats import cluster_bootstrap_mean_difference, equivalent_within, paired_outcomes

    warn: list[str] = []
    graded = [r for r in records if r.old is not None and r.new is not None]
    n = len(graded)
    err_old = sum(1 for r in records if r.old is None)
    err_new = sum(1 for r in records if r.new is None and not r.new_undecided)
    und_new = sum(1 for r in records if r.new is None and r.new_undecided)
    errors = ErrorCounts(old=err_old, new=err_new, excluded=len(records) - n)
    old_ok = [bool(r.old) for r in graded]
    new_ok = [bool(r.new) for r in graded]
    outcomes: PairedOutcomes = _quiet(lambda: paired_outcomes(old_ok, new_ok))
    b, c = outcomes.a_only, outcomes.b_only
    table = PairedTable(
        both_accept=outcomes.both_true,
        old_accept_new_reject=b,
        old_reject_new_accept=c,
        both_reject=outcomes.both_false,
    )
    flipped = [
        FlippedTrial(
            task_id=r.task_id,
            trial_id=r.trial_id,
            old=TrialSide(passed=r.old, reasons=list(r.old_reasons)),
            new=TrialSide(passed=r.new, reasons=list(r.new_reasons)),
        )
        for r in sorted(graded, key=lambda r: (r.task_id, r.trial_id))
        if r.old != r.new
    ]
    diff = low = high = kappa = agreement = p_value = old_rate = new_rate = None
    within = False
    if n:
        tasks = [r.task_id for r in graded]
        diff, low, high = _quiet(
            lambda: cluster_bootstrap_mean_difference(
                [float(x) for x in old_ok],
                [float(x) for x in new_ok],
                tasks,
                confidence=confidence,
                n_boot=N_BOOT,
                seed=SEED,
            )
        )
        if len(set(tasks)) < 2:
            warn.append("replay: one task cannot show task-to-task variation; the interval is a point")
        within = equivalent_within(low, high, margin)
        agreement = outcomes.agreement
        p_value = outcomes.mcnemar_p
        kappa = outcomes.kappa
        if kappa is None:
            warn.append(
                "replay: Cohen's kappa is undefined: both versions gave one and the same outcome to every "
                "trial"
            )
        old_rate = _task_weighted_rate(list(zip(tasks, old_ok, strict=True)))
        new_rate = _task_weighted_rate(list(zip(tasks, new_ok, strict=True)))
    else:
        warn.append("replay: no trial was graded by both versions; the difference is undefined")
    exceeded = bool(records) and err_new / len(records) > max_error_rate
    if exceeded:
        warn.append(
            f"replay: NEW erred on {err_new} of {len(records)} trials, over the max_error_rate "
            f"{_plain_pct(max_error_rate)}: the comparison cannot be trusted"
        )
    elif err_new:
        warn.append(f"replay: NEW erred on {err_new} of {len(records)} trials; those trials are left out")
    if err_old:
        warn.append(f"replay: {err_old} trial(s) were not graded by OLD (null); they are left out")
    level = f"{round(100 * confidence)}%"
    bound = f"±{_plain_pct(margin)}"
    if diff is None:
        stats = "no trial was graded by both versions"
    else:
        stats = (
            f"pass-rate difference {pct(diff)} ({level} CI over tasks {pct(low)} to {pct(high)}) "
            f"{'within' if within else 'not within'} {bound}; {len(flipped)} of {n} trials flipped "
            f"({c} fail→pass, {b} pass→fail)"
        )
    message = f"{IDENTICAL_MESSAGE} ({stats})" if identical else stats
    comparable = identical or within
    ks, at, hat, pass_warnings = _pass_tables(records)
    warn.extend(pass_warnings)
    both_success = [r for r in records if r.old_success is not None and r.new_success is not None]
    success = SuccessChange(
        n=len(both_success),
        old_rate=_task_weighted_rate([(r.task_id, bool(r.old_success)) for r in both_success]),
        new_rate=_task_weighted_rate([(r.task_id, bool(r.new_success)) for r in both_success]),
        changed=sum(1 for r in both_success if r.old_success != r.new_success),
        weighting="task",
    )
    replay = ReplayComparison(
        results=results,
        trials=trials,
        check=check,
        outcome="check" if outcome == "check" else "success",
        n_trials=len(records),
        n_tasks=len({r.task_id for r in records}),
        n=n,
        errors=errors,
        old_pass_rate=old_rate,
        new_pass_rate=new_rate,
        table=table,
        b=b,
        c=c,
        mcnemar_p=p_value,
        agreement=agreement,
        kappa=kappa,
        diff=diff,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        method="cluster-bootstrap over tasks (task-weighted)",
        n_boot=N_BOOT,
        seed=SEED,
        within_margin=within,
        comparable=comparable,
        decided_by="identical_definition" if identical else "interval",
        message=message,
        success=success,
        ks=ks,
        pass_at_k=at,
        pass_hat_k=hat,
        flipped=flipped,
        error_rate_exceeded=exceeded,
    )
    failed: list[FailedStratum] = []
    if und_new:
        undecided = (
            f"replay: NEW left {und_new} of {len(records)} trials undecided (it abstained on a unit); those "
            "trials are left out"
        )
        if und_new / len(records) > margin:
            undecided += (
                f": more than the margin {_plain_pct(margin)}, so NEW would leave trials ungraded that OLD "
                "decided: not comparable, re-score history"
            )
            failed.append(FailedStratum(set=None, stratum="decided", reason=undecided, samples=[]))
        warn.append(undecided)
    if not comparable:
        towards_pass = diff is not None and diff > 0
        drivers = [
            f.trial_id for f in flipped if diff is None or diff == 0 or bool(f.new.passed) == towards_pass
        ]
        failed.append(FailedStratum(set=None, stratum="replay", reason=message, samples=drivers))
    return replay, failed, warn


def _recorded(text: str, root: Path) -> Path:
    """A path as ``score`` records it in results: relative to the project root, or absolute."""
    path = Path(text)
    return path if path.is_absolute() else root / path


@dataclass
class _Frozen:
    """One line of the frozen results, reduced to what the replay needs."""

    line: int
    task_id: str
    trial_id: str
    old: bool | None
    old_success: bool | None
    old_reasons: tuple[str, ...]
    #: The line's other checks and skipped checks, and its rule's required checks (to recompute success).
    checks: dict[str, CheckResult]
    skipped: dict[str, SkippedCheck]
    require: list[str] | None


def read_frozen_results(
    replay: ReplayInput, old: LoadedGrader, *, root: Path
) -> tuple[list[_Frozen], str, dict[str, str | None], list[str]]:
    """Read the results to replay; every line must have been graded by OLD for the compared check (or carry
    no checks at all, then ``success`` is compared). Returns the lines, what is compared (``check`` or
    ``success``), the recorded files (``trials_file``, ``corpus_file``) and notes."""
    from graderctl.models.results import GradedResult
    from graderctl.store.problems import ProblemSink, note_duplicate_trial
    from graderctl.store.readers import read_jsonl_models

    check = old.spec.check.value
    shown = replay.results_shown
    sink = ProblemSink()
    rows = read_jsonl_models(replay.results, GradedResult, shown=shown, sink=sink, strict=False)
    sink.raise_if_any(shown)
    notes: list[str] = []
    frozen: list[_Frozen] = []
    recorded: dict[str, set[str]] = {"trials_file": set(), "corpus_file": set()}
    seen: dict[tuple[str, str], int] = {}
    skipped_here = 0
    without_checks = 0
    others: set[str] = set()
    for number, result in rows:
        for key in recorded:
            value = getattr(result, key)
            if isinstance(value, str):
                recorded[key].add(value)
        if note_duplicate_trial(seen, result.task_id, result.trial_id, number, shown, sink):
            continue
        ident = (result.task_id, result.trial_id)
        skipped = dict(result.skipped_checks or {})
        rule = result.rule
        require = rule.require if rule is not None and "require" in rule.model_fields_set else None
        checks = dict(result.checks or {})
        if not checks:
            without_checks += 1
            frozen.append(_Frozen(number, *ident, result.success, result.success, (), {}, {}, None))
            continue
        if check in skipped and check not in checks:
            skipped_here += 1
            continue
        mine = (result.checks or {}).get(check)
        if mine is None:
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    pointer="/checks",
                    message=f"the trial was not graded for {check}",
                    expected=f"a {check} check result graded by {old.ref}",
                    got="checks: " + ", ".join(sorted(checks)),
                    fix=f"replay results that {old.ref} graded",
                )
            )
            continue
        if mine.fingerprint != old.fingerprint:
            others.add(mine.grader)
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    pointer=f"/checks/{check}/fingerprint",
                    message=f"{check} was graded by {mine.grader}, not by OLD ({old.ref})",
                    expected=old.fingerprint,
                    got=mine.fingerprint,
                    fix=f"replay results graded by {old.ref}, or compare {mine.grader} with the new version",
                )
            )
            continue
        frozen.append(
            _Frozen(
                number,
                *ident,
                mine.passed,
                result.success,
                tuple(mine.reasons),
                checks,
                skipped,
                [str(c) for c in require] if isinstance(require, list) else None,
            )
        )
    if others and sink:
        raise InvalidInputError(
            f"{shown}: {check} was graded by {', '.join(sorted(others))}, not by OLD ({old.ref}); a replay "
            "re-grades results that OLD graded",
            sink.problems,
            omitted=sink.omitted,
        )
    sink.raise_if_any(shown)
    if without_checks and without_checks < len(rows):
        raise InvalidInputError(
            f"{shown}: some lines record their checks and others do not",
            [
                Problem(
                    file=shown,
                    pointer="/checks",
                    message=f"{without_checks} of {len(rows)} lines have no checks",
                    expected="checks on every line (graderctl score) or on none (success only)",
                    fix="replay results written by one tool",
                )
            ],
        )
    outcome = "success" if without_checks else "check"
    if without_checks:
        notes.append(
            f"replay: {shown} records no checks, only success; it is taken as graded by {old.ref} and "
            f"success is compared with NEW's {check} outcome"
        )
    if skipped_here:
        notes.append(f"replay: {skipped_here} trial(s) skip {check} (it does not apply to them); left out")
    if not frozen:
        raise InvalidInputError(
            f"{shown}: no trial to replay",
            [Problem(file=shown, message=f"no result line graded for {check}", fix="check the results file")],
        )
    files = {k: (v.pop() if len(v) == 1 else None) for k, v in recorded.items()}
    return frozen, outcome, files, notes


def grade_trials(
    grader: LoadedGrader,
    trials: Sequence[Any],
    corpus: Any,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> list[CheckResult | None]:
    """The check result (CONTRACT.md §5) of ``grader`` on each trial, split into units and judged exactly as
    ``graderctl score`` does (its :func:`~graderctl.services.score.build_units` and
    :func:`~graderctl.services.score.check_result`); ``None`` where the check does not apply."""
    from graderctl.services.running import run_inputs, start_grader, verdict_cache
    from graderctl.services.score import TrustInfo, build_units, check_result

    check = grader.spec.check
    cache_dir = options.cache_dir(root)
    instance = start_grader(grader, corpus, cache_dir)
    cache = verdict_cache(grader, cache_dir)
    built = [build_units(check, t, corpus) for t in trials]
    inputs = []
    where: list[tuple[int, int]] = []
    for ti, units in enumerate(built):
        for ui, unit in enumerate(units or []):
            if unit.input is not None:
                inputs.append(unit.input)
                where.append((ti, ui))
    try:
        verdicts = run_inputs(instance, inputs, options, progress=progress, cache=cache)
    finally:
        instance.close()
    slots: list[list[Any]] = [[None] * len(units or []) for units in built]
    for (ti, ui), verdict in zip(where, verdicts, strict=True):
        slots[ti][ui] = verdict
    trust = TrustInfo(False, "not checked: a replay re-grades frozen trials, it does not score them", [], [])
    return [
        None if units is None else check_result(check, grader, trial, units, slots[ti], trust)
        for ti, (trial, units) in enumerate(zip(trials, built, strict=True))
    ]


@dataclass(frozen=True)
class LoadedReplay:
    """The replayed inputs, read and checked before anything is graded: the frozen lines, what is compared,
    the trials they graded (in the lines' order), the corpus those trials cite and the reading notes."""

    replay: ReplayInput
    frozen: list[_Frozen]
    outcome: str
    trials: list[Trial]
    trials_shown: str
    corpus: Corpus | None
    notes: list[str]


def load_replay(replay: ReplayInput, old: LoadedGrader, *, root: Path) -> LoadedReplay:
    """Read the results to replay, their trials and corpus; every input problem is raised here, so that
    ``compare`` refuses a bad ``--replay`` before it grades any set."""
    from graderctl.errors import UsageError
    from graderctl.store.layout import corpus_beside
    from graderctl.store.readers import display_path
    from graderctl.store.trials import read_corpus, read_trials

    frozen, outcome, files, notes = read_frozen_results(replay, old, root=root)
    trials_path = replay.trials
    if trials_path is None:
        if files["trials_file"] is None:
            raise UsageError(
                f"{replay.results_shown} does not record one trials file for all its lines; give the trials "
                "with --trials TRIALS"
            )
        trials_path = _recorded(files["trials_file"], root)
    corpus_path = replay.corpus
    if corpus_path is None and files["corpus_file"] is not None:
        corpus_path = _recorded(files["corpus_file"], root)
    if corpus_path is None:
        corpus_path = corpus_beside(trials_path)
    trials_shown = display_path(trials_path, root)
    by_key = {(t.task_id, t.trial_id): t for t in read_trials(trials_path, root)}
    missing = [f for f in frozen if (f.task_id, f.trial_id) not in by_key]
    if missing:
        raise InvalidInputError(
            f"{trials_shown}: {len(missing)} trial(s) of the results are not in the trials file",
            [
                Problem(
                    file=replay.results_shown,
                    line=f.line,
                    message=f"no trial {f.trial_id!r} of task {f.task_id!r} in {trials_shown}",
                    expected="every replayed trial in the trials file",
                    fix="give the trials file the results were scored from with --trials",
                )
                for f in missing[:10]
            ],
        )
    corpus = read_corpus(corpus_path, root) if corpus_path is not None else None
    return LoadedReplay(
        replay=replay,
        frozen=frozen,
        outcome=outcome,
        trials=[by_key[(f.task_id, f.trial_id)] for f in frozen],
        trials_shown=trials_shown,
        corpus=corpus,
        notes=notes,
    )


def replay_comparison(
    old: LoadedGrader,
    new: LoadedGrader,
    loaded: LoadedReplay,
    *,
    root: Path,
    margin: float,
    identical: bool,
    max_error_rate: float,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> tuple[ReplayComparison, list[FailedStratum], list[str]]:
    """Re-grade the trials of the frozen results with NEW and compare with what OLD recorded (the inputs
    read by :func:`load_replay`)."""
    from graderctl.services.score import decide

    frozen, outcome, replay = loaded.frozen, loaded.outcome, loaded.replay
    trials_shown, notes = loaded.trials_shown, list(loaded.notes)
    results = grade_trials(
        new,
        loaded.trials,
        loaded.corpus,
        root=root,
        options=options,
        progress=progress,
    )
    check = old.spec.check.value
    records: list[ReplayRecord] = []
    not_applicable = 0
    for f, result in zip(frozen, results, strict=True):
        if result is None:
            not_applicable += 1
            continue
        if outcome == "success":
            new_success = result.passed
        else:
            checks = {**f.checks, check: result}
            require = f.require if f.require is not None else list(checks)
            new_success = decide(checks, f.skipped, require)[0]
        records.append(
            ReplayRecord(
                task_id=f.task_id,
                trial_id=f.trial_id,
                old=f.old,
                new=result.passed,
                old_success=f.old_success,
                new_success=new_success,
                old_reasons=f.old_reasons,
                new_reasons=tuple(result.reasons),
                new_undecided=result.passed is None and not result.errors and bool(result.undecided),
            )
        )
    if not_applicable:
        notes.append(f"replay: {check} does not apply to {not_applicable} trial(s) under NEW; left out")
    replayed, failed, warn = replay_from_records(
        records,
        results=replay.results_shown,
        trials=trials_shown,
        check=check,
        outcome=outcome,
        margin=margin,
        identical=identical,
        max_error_rate=max_error_rate,
    )
    return replayed, failed, notes + warn
