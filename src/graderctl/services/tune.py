"""``tune``: choose a grader's operating point on the tune split of a set and write it as a new version.

1. Only the set's tune samples are graded (:mod:`graderctl.services.splits` assigns samples by ``id``,
   ``group`` and ``split`` alone: a certify sample's input and label are never read).
2. Each verdict's tuning score (the kind's ``decision_score``, else ``score``) is the number its decision
   compares with the swept parameter: accepted at threshold ``t`` exactly when it is at least ``t``.
   scikit-learn's ``roc_curve`` gives the false-accept / false-reject counts at every threshold
   (:mod:`graderctl.stats.operating`).
3. The operating point meets the limits (the set's policy, or ``--target``) when the one-sided 95% upper
   bounds of both rates are within them, exactly as ``calibrate`` decides trust (with groups, the larger of
   the binomial and the cluster-bootstrap bound). Among those that do, the lowest false-reject count wins
   (ties: the higher threshold). With ``band`` an abstention band is chosen instead: the widest decided share
   whose rates on decided samples meet the limits (and ``min_coverage``, if the policy asks for one).
4. The point is written as ``graders/<name>/v<N+1>.toml`` (never over a released version), its description
   saying how it was chosen, and recorded in ``graders/graders.lock`` as ``validate --update-lock`` does.

The verdict on the new version is ``graderctl calibrate NEW --set SET --split certify``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.base import Label
from graderctl.models.calset import Sample
from graderctl.models.reports import GraderInfo
from graderctl.models.tuning import (
    CurvePoint,
    OperatingPointInfo,
    TunedSet,
    TuneLimits,
    TuneResult,
    WrittenVersion,
)
from graderctl.plugin import Verdict
from graderctl.runner import ProgressCallback
from graderctl.services.calibrate import check_pair, grade_set, json_safe, now_rfc3339
from graderctl.services.running import DEFAULT_RUN, RunOptions
from graderctl.services.splits import Split, count_splits, subset
from graderctl.store.project import LoadedGrader, LoadedSet

#: At most this many candidates are re-checked with the cluster bootstrap when samples carry groups.
CLUSTER_CHECKS = 24


def _problem(grader: LoadedGrader, message: str, fix: str, **kw: Any) -> InvalidInputError:
    return InvalidInputError(
        f"{grader.ref}: {message}", [Problem(file=grader.shown, message=message, fix=fix, **kw)]
    )


def param_range(grader: LoadedGrader, param: str) -> tuple[float, float]:
    """The bounds a kind's params model puts on ``param`` (default [0, 1]). Raises when the kind has no
    such parameter."""
    import annotated_types

    fields = grader.kind.Params.model_fields
    if param not in fields:
        known = ", ".join(sorted(fields)) or "none"
        raise _problem(
            grader,
            f"kind {grader.spec.kind!r} has no parameter {param!r} to tune",
            f"pass --param with one of its parameters ({known}); the kind's score is compared with it",
            pointer=f"/params/{param}",
        )
    low, high = 0.0, 1.0
    for meta in fields[param].metadata:
        if isinstance(meta, annotated_types.Ge | annotated_types.Gt):
            low = float(meta.ge if isinstance(meta, annotated_types.Ge) else meta.gt)  # type: ignore[arg-type]
        if isinstance(meta, annotated_types.Le | annotated_types.Lt):
            high = float(meta.le if isinstance(meta, annotated_types.Le) else meta.lt)  # type: ignore[arg-type]
    return low, high


def _current_value(grader: LoadedGrader, param: str) -> float | None:
    value = getattr(grader.params, param, None)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _current_band(grader: LoadedGrader, param: str) -> tuple[float, float] | None:
    """The grader's current rule as (reject_below, accept_at_or_above)."""
    threshold = _current_value(grader, param)
    if threshold is None:
        return None
    band = getattr(grader.params, "band", None)
    if param == "threshold" and callable(band):
        reject, accept = band(threshold)
        return float(reject), float(accept)
    return threshold, threshold


def _scores(
    grader: LoadedGrader, samples: Sequence[Sample], verdicts: Sequence[Verdict]
) -> tuple[list[float], list[bool], list[str | None], int]:
    scores: list[float] = []
    good: list[bool] = []
    groups: list[str | None] = []
    errors = 0
    missing = 0
    for sample, verdict in zip(samples, verdicts, strict=True):
        if verdict.is_error:
            errors += 1
            continue
        value = verdict.tuning_score
        if value is None or (isinstance(value, float) and (math.isnan(value) or value == math.inf)):
            missing += 1
            continue
        scores.append(float(value))
        good.append(sample.label == Label.good)
        groups.append(sample.group)
    if missing:
        raise _problem(
            grader,
            f"{missing} of its verdicts on the tune split carry no score, so there is no threshold to sweep",
            "tune graders whose kind gives every verdict a score (decision_score or score), such as "
            "claim_support and coverage",
        )
    return scores, good, groups, errors


def _info(
    point: Any, *, meets: bool | None = None, excess: dict[str, float] | None = None
) -> OperatingPointInfo:
    return OperatingPointInfo(**point.as_dict(), meets=meets, excess=excess or {})


def _excess(info: OperatingPointInfo, limits: TuneLimits) -> dict[str, float]:
    out: dict[str, float] = {}
    far, frr = info.false_accept_rate_upper_95, info.false_reject_rate_upper_95
    if far is None or far > limits.max_false_accept_rate:
        out["false_accept_rate"] = math.inf if far is None else far - limits.max_false_accept_rate
    if frr is None or frr > limits.max_false_reject_rate:
        out["false_reject_rate"] = math.inf if frr is None else frr - limits.max_false_reject_rate
    cov = info.coverage_lower_95
    if limits.min_coverage is not None and (cov is None or cov < limits.min_coverage):
        out["coverage"] = math.inf if cov is None else limits.min_coverage - cov
    return {k: (round(v, 6) if math.isfinite(v) else 1.0) for k, v in out.items()}


def _clustered_ok(
    scores: Sequence[float],
    good: Sequence[bool],
    groups: Sequence[str | None],
    reject_below: float,
    accept_at: float,
    limits: TuneLimits,
) -> tuple[bool, dict[str, float | None]]:
    """Whether a point also meets the limits with the bound ``calibrate`` uses for grouped samples (the
    larger of the binomial and the cluster-bootstrap bound), over decided samples."""
    far_events: list[bool] = []
    far_groups: list[str | None] = []
    frr_events: list[bool] = []
    frr_groups: list[str | None] = []
    for s, g, grp in zip(scores, good, groups, strict=True):
        if reject_below <= s < accept_at:
            continue
        accepted = s >= accept_at
        if g:
            frr_events.append(not accepted)
            frr_groups.append(grp)
        else:
            far_events.append(accepted)
            far_groups.append(grp)
    far_bound = _decisive_bound(far_events, far_groups)
    frr_bound = _decisive_bound(frr_events, frr_groups)
    ok = (
        far_bound is not None
        and far_bound <= limits.max_false_accept_rate
        and frr_bound is not None
        and frr_bound <= limits.max_false_reject_rate
    )
    return ok, {"false_accept_rate_upper_95": far_bound, "false_reject_rate_upper_95": frr_bound}


def _first_passing(
    rules: list[tuple[float, float]],
    scores: Sequence[float],
    good: Sequence[bool],
    groups: Sequence[str | None],
    limits: TuneLimits,
    has_groups: bool,
    *,
    monotone: bool = True,
) -> tuple[int, dict[str, float | None] | None] | None:
    """The first candidate rule (in order of preference) that meets the limits with the bound the trust
    policy uses. Without groups that is the first one (the binomial bounds chose them). With groups, passing
    is close to monotone along the preference (later candidates are more conservative): an exponential then
    binary search with the cluster bootstrap finds the first passing one in a few checks (at most
    ``CLUSTER_CHECKS``), and its bounds are returned. Bands (``monotone`` false: a wider band is not always
    safer) are scanned in order instead, up to ``CLUSTER_CHECKS`` of them."""
    if not rules:
        return None
    if not has_groups:
        return 0, None
    memo: dict[int, tuple[bool, dict[str, float | None]]] = {}

    def check(i: int) -> bool:
        if i not in memo:
            memo[i] = _clustered_ok(scores, good, groups, rules[i][0], rules[i][1], limits)
        return memo[i][0]

    if check(0):
        return 0, memo[0][1]
    if not monotone:
        for i in range(1, min(len(rules), CLUSTER_CHECKS)):
            if check(i):
                return i, memo[i][1]
        return None
    failing, step, passing = 0, 1, None
    while len(memo) < CLUSTER_CHECKS:
        i = min(failing + step, len(rules) - 1)
        if check(i):
            passing = i
            break
        failing = i
        if i == len(rules) - 1:
            return None
        step *= 2
    if passing is None:
        return None
    while passing - failing > 1 and len(memo) < CLUSTER_CHECKS:
        mid = (failing + passing) // 2
        if check(mid):
            passing = mid
        else:
            failing = mid
    return passing, memo[passing][1]


#: Rounds of the band search with limits shrunk by the clustered / binomial ratio (samples with groups).
BAND_ROUNDS = 4


def _shrunk(limit: float, binomial: float | None, clustered: float | None) -> float:
    """``limit`` scaled by binomial / clustered bound (a bit more, so the next round moves)."""
    if binomial is None or clustered is None or clustered <= binomial or clustered <= 0:
        return limit
    return limit * binomial / clustered * 0.98


def _clustered_best(
    candidate: Any,
    scores: Sequence[float],
    good: Sequence[bool],
    groups: Sequence[str | None],
    limits: TuneLimits,
) -> OperatingPointInfo:
    """The closest point when every candidate meets the binomial bounds but none the clustered ones: the
    preferred candidate, its excess measured with the clustered bounds."""
    info = _info(candidate)
    _, bounds = _clustered_ok(
        scores, good, groups, candidate.reject_below, candidate.accept_at_or_above, limits
    )
    info.clustered = bounds
    clustered = info.model_copy(
        update={
            "false_accept_rate_upper_95": bounds["false_accept_rate_upper_95"],
            "false_reject_rate_upper_95": bounds["false_reject_rate_upper_95"],
        }
    )
    info.excess = {f"clustered {k}": v for k, v in _excess(clustered, limits).items()}
    return info


def _decisive_bound(events: list[bool], groups: list[str | None]) -> float | None:
    """The bound the trust policy compares: the larger of the one-sided Clopper-Pearson and the
    cluster-bootstrap upper bound (:class:`graderctl.trust_policy.RateEvidence`)."""
    from graderctl.stats import UndefinedMetricWarning, cluster_bootstrap_rate
    from graderctl.trust_policy import RateEvidence

    if not events:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        clustered = cluster_bootstrap_rate(events, groups)
    evidence = RateEvidence(sum(events), len(events), len(events), clustered.upper_95)
    return evidence.upper_bound()[0]


def _written_value(value: float, below: float | None) -> float:
    """``value`` (an observed score, the most conservative threshold giving its decisions) rounded down to
    six decimals when that keeps every decision (no observed score in between), else as it is."""
    rounded = math.floor(value * 1e6) / 1e6
    return rounded if below is None or rounded > below else value


def tune(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    *,
    root: Path,
    param: str = "threshold",
    target: dict[str, float] | None = None,
    band: bool = False,
    write: bool = True,
    update_lock: bool = True,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
    command: str | None = None,
) -> TuneResult:
    """Choose an operating point on the tune split of ``cal_set`` and (unless ``write`` is false, or no
    point meets the limits) write it as a new version of ``grader``. ``target`` overrides the policy's
    limits (keys ``far``, ``frr``, ``coverage``). Raises :class:`InvalidInputError` for a set without tune
    samples, a kind without the parameter or without scores, and :class:`GraderRunError` when the grader
    cannot run."""
    from graderctl import __version__
    from graderctl.stats.operating import choose_band, choose_threshold, point, sweep, table_rows

    check_pair(grader, cal_set)
    low, high = param_range(grader, param)
    if band:
        fields = grader.kind.Params.model_fields
        if param != "threshold" or not {"accept_at_or_above", "reject_below"} <= set(fields):
            raise _problem(
                grader,
                f"kind {grader.spec.kind!r} has no abstention band around {param!r}",
                "leave out --band, or tune a kind with accept_at_or_above / reject_below params "
                "(claim_support, coverage)",
            )
    policy = cal_set.manifest.policy
    limits = TuneLimits(
        max_false_accept_rate=(target or {}).get("far", policy.max_false_accept_rate),
        max_false_reject_rate=(target or {}).get("frr", policy.max_false_reject_rate),
        min_coverage=(target or {}).get("coverage", policy.min_coverage),
        source="target" if target else "policy",
    )
    counts = count_splits(cal_set)  # reads id, group and split only
    tune_set = subset(cal_set, Split.tune)
    notes: list[str] = []
    if counts["certify"] == 0:
        notes.append(
            f"set {cal_set.name!r} has no certify split: the new version's verdict needs held-out samples "
            "(`calibrate --split certify`)"
        )
    verdicts = grade_set(grader, tune_set, root=root, options=options, progress=progress)
    scores, good, groups, errors = _scores(grader, tune_set.samples, verdicts)
    if errors:
        notes.append(
            f"the grader erred on {errors} of {len(verdicts)} tune samples; they are left out of the sweep "
            "(a threshold cannot fix errors)"
        )
    n_good = sum(good)
    if n_good == 0 or n_good == len(good):
        raise InvalidInputError(
            f"the tune split of {cal_set.name!r} needs known-good and known-bad samples",
            [
                Problem(
                    file=tune_set.shown,
                    message="a trade-off needs both labels on the tune split",
                    got=f"{n_good} good, {len(good) - n_good} bad (graded without error)",
                    fix="move samples of the missing label into the tune split",
                )
            ],
        )
    sw = sweep(scores, good)
    has_groups = any(g is not None for g in groups)

    current_rule = _current_band(grader, param)
    current = (
        _info(point(sw, *current_rule))
        if current_rule is not None
        else OperatingPointInfo(**point(sw, math.inf, math.inf).as_dict())
    )
    current.excess = _excess(current, limits)
    current.meets = not current.excess
    if current_rule is not None:
        predicted = sum(
            1
            for v in verdicts
            if not v.is_error
            and v.tuning_score is not None
            and (None if v.is_undecided else v.accepted) is not _decide(v.tuning_score, *current_rule)
        )
        if predicted:
            notes.append(
                f"the kind's scores do not explain {predicted} of its verdicts at the current {param}; the "
                "sweep assumes accept exactly when the score reaches the threshold"
            )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        choice = choose_threshold(
            sw, max_far=limits.max_false_accept_rate, max_frr=limits.max_false_reject_rate, low=low, high=high
        )
    rows = table_rows(choice, 15)
    table = [_info(point(sw, float(choice.thresholds[i]), float(choice.thresholds[i]))) for i in rows]
    for row in table:
        row.excess = _excess(row, limits)
        row.meets = not row.excess
    curve = _curve(choice)

    chosen: OperatingPointInfo | None = None
    best: OperatingPointInfo | None = None
    if band:
        # With groups, the clustered bounds are wider than the binomial ones the grid search uses: when no
        # preferred band passes them, search again with limits shrunk by the ratio observed (the design
        # effect on the bound), up to BAND_ROUNDS times.
        max_far, max_frr = limits.max_false_accept_rate, limits.max_false_reject_rate
        for _ in range(BAND_ROUNDS):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                bands = choose_band(
                    sw,
                    scores,
                    max_far=max_far,
                    max_frr=max_frr,
                    min_coverage=limits.min_coverage,
                    low=low,
                    high=high,
                )
            found = _first_passing(
                [(p.reject_below, p.accept_at_or_above) for p in bands.preference],
                scores,
                good,
                groups,
                limits,
                has_groups,
                monotone=False,
            )
            if found is not None or not bands.preference or not has_groups:
                break
            top = _info(bands.preference[0])
            _, top_bounds = _clustered_ok(
                scores, good, groups, top.reject_below, top.accept_at_or_above, limits
            )
            max_far = _shrunk(
                max_far, top.false_accept_rate_upper_95, top_bounds["false_accept_rate_upper_95"]
            )
            max_frr = _shrunk(
                max_frr, top.false_reject_rate_upper_95, top_bounds["false_reject_rate_upper_95"]
            )
        if found is not None:
            i, bounds = found
            chosen = _info(bands.preference[i])
            chosen.clustered = bounds
        elif bands.preference:  # meets the binomial bounds, not the clustered ones
            best = _clustered_best(bands.preference[0], scores, good, groups, limits)
        else:
            best = _info(bands.best)
    else:
        rules = [(float(choice.thresholds[i]),) * 2 for i in choice.preference]
        found = _first_passing(rules, scores, good, groups, limits, has_groups)
        if found is not None:
            i, bounds = found
            chosen = _info(point(sw, *rules[i]))
            chosen.clustered = bounds
        elif choice.preference:
            t = float(choice.thresholds[choice.preference[0]])
            best = _clustered_best(point(sw, t, t), scores, good, groups, limits)
        else:
            t = float(choice.thresholds[choice.best])
            best = _info(point(sw, t, t))
    if chosen is not None:
        chosen.meets, chosen.excess = True, {}
    else:
        assert best is not None
        if best.clustered is None:
            best.excess = _excess(best, limits)
        best.meets = False
        notes.append(
            "no operating point meets the limits on the tune split; the closest one: "
            + ", ".join(f"{k} over by {v:.4f}" for k, v in best.excess.items())
        )

    if chosen is not None:
        ordered = sorted(set(scores))
        chosen.reject_below = _written_value(chosen.reject_below, _below(ordered, chosen.reject_below))
        chosen.accept_at_or_above = _written_value(
            chosen.accept_at_or_above, _below(ordered, chosen.accept_at_or_above)
        )
        if chosen.reject_below > chosen.accept_at_or_above:  # rounding can only lower both; keep the order
            chosen.reject_below = chosen.accept_at_or_above

    spec = grader.spec
    result = TuneResult(
        graderctl_version=__version__,
        created_at=now_rfc3339(),
        grader=GraderInfo(
            name=spec.name,
            version=spec.version,
            kind=spec.kind,
            fingerprint=grader.fingerprint,
            check=spec.check.value,
            params=json_safe(spec.params),
            path=grader.shown,
        ),
        calibration_set=TunedSet(
            name=cal_set.name,
            version=cal_set.manifest.version,
            fingerprint=cal_set.fingerprint,
            path=cal_set.shown,
            n_good=n_good,
            n_bad=len(good) - n_good,
        ),
        param=param,
        mode="band" if band else "threshold",
        limits=limits,
        n_tune=len(tune_set.samples),
        n_certify=counts["certify"],
        errors=errors,
        current=current,
        table=table,
        curve=curve,
        meets_limits=chosen is not None,
        chosen=chosen,
        best=best,
        notes=notes,
    )
    if chosen is not None and write:
        result.written = _write_version(
            grader, result, chosen, root=root, command=command, update_lock=update_lock
        )
    return result


def _decide(score: float, reject_below: float, accept_at: float) -> bool | None:
    from graderctl.plugin import decide

    return decide(score, reject_below, accept_at)


def _below(ordered: list[float], value: float) -> float | None:
    """The largest observed score below ``value`` (``None`` when there is none)."""
    import bisect

    i = bisect.bisect_left(ordered, value)
    return ordered[i - 1] if i > 0 else None


def _curve(choice: Any, limit: int = 200) -> list[CurvePoint]:
    import numpy as np

    size = len(choice.thresholds)
    idx = np.unique(np.linspace(0, size - 1, min(limit, size)).round().astype(int))
    return [
        CurvePoint(
            threshold=float(choice.thresholds[i]),
            false_accepts=int(choice.false_accepts[i]),
            false_rejects=int(choice.false_rejects[i]),
            false_accept_rate_upper_95=_num(choice.far_upper[i]),
            false_reject_rate_upper_95=_num(choice.frr_upper[i]),
        )
        for i in idx
    ]


def _num(value: Any) -> float | None:
    v = float(value)
    return v if math.isfinite(v) else None


def _write_version(
    grader: LoadedGrader,
    result: TuneResult,
    chosen: OperatingPointInfo,
    *,
    root: Path,
    command: str | None,
    update_lock: bool,
) -> WrittenVersion:
    from graderctl.render.tune import version_description
    from graderctl.store.lock import release_in_own_lock
    from graderctl.store.readers import display_path
    from graderctl.store.versions import write_and_load_new_version

    param = result.param
    if result.mode == "band":
        set_params: dict[str, float] = {
            "accept_at_or_above": chosen.accept_at_or_above,
            "reject_below": chosen.reject_below,
        }
        drop: tuple[str, ...] = ()
    else:
        set_params = {param: chosen.accept_at_or_above}
        # a plain threshold: a band of the old version would override it
        drop = ("accept_at_or_above", "reject_below") if param == "threshold" else ()
    note = version_description(result, chosen, command)
    old = grader.spec.description.rstrip()
    description = f"{old}\n\n{note}" if old else note
    new = write_and_load_new_version(
        grader.path, description=description, set_params=set_params, drop_params=drop, root=root
    )
    locked = release_in_own_lock(new, root) if update_lock else False
    return WrittenVersion(
        ref=new.ref,
        path=display_path(new.path, root),
        fingerprint=new.fingerprint,
        params={**{k: v for k, v in new.spec.params.items() if k in set_params}},
        locked=locked,
    )
