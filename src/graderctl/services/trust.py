"""Trust: is a grader calibrated, and does its calibration still hold?

Trust is bound to the pair (grader fingerprint, set fingerprint). It is read from the report under
``reports/<set>/<name>@<version>.json`` and holds only while both fingerprints equal the current ones: change
the grader (a new version, an edited prompt, a new kind implementation) or the set's samples, and the trust
lapses by itself and shows as ``stale``. Nothing is stored besides the reports.

A report is evidence, not a claim: its ``trusted`` is not believed. The decision is recomputed by
:mod:`graderctl.trust_policy` from the report's own per-sample outcomes (which must be the set's samples with
the set's labels, and agree with the report's counts) under the set's current policy.

Trust for a check (:func:`is_trusted`) needs a trusted entry on *every* set of the check the project declares
(or on every set named explicitly); a set of the check that cannot be loaded withholds trust too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from graderctl.errors import InvalidInputError
from graderctl.models.base import Check
from graderctl.models.reports import CalibrationReport
from graderctl.store.project import (
    LoadedGrader,
    LoadedSet,
    SetIndex,
    index_set,
    load_set,
    manifest_check,
    set_folders,
)
from graderctl.store.readers import display_path
from graderctl.store.reports import find_report, read_report

if TYPE_CHECKING:
    from graderctl.trust_policy import Evidence, Outcome

#: A set as trust reads it: loaded whole, or only its labels by id (``store.project.index_set``).
TrustSet = LoadedSet | SetIndex


class TrustState(StrEnum):
    #: A current report says the grader meets the set's policy.
    trusted = "trusted"
    #: A current report says it does not.
    not_trusted = "not_trusted"
    #: A report exists, but the grader or the set changed since (or it is another version's report).
    stale = "stale"
    #: No report for this grader on this set.
    never_calibrated = "never_calibrated"
    #: The set cannot be loaded (``graderctl validate`` says why): it cannot vouch for anything.
    invalid_set = "invalid_set"


@dataclass
class TrustEntry:
    grader_ref: str
    set_name: str
    state: TrustState
    report_path: str | None
    report: CalibrationReport | None
    detail: str


def sets_of_check(root: Path, check: Check, *, strict: bool = True) -> list[LoadedSet]:
    """Every set in ``calibration_sets/`` whose check is ``check``, by name. Sets of other checks are not
    loaded. An invalid set that may be of this check raises :class:`InvalidInputError` (``strict``) or is
    skipped."""
    out: list[LoadedSet] = []
    for folder in set_folders(root):
        declared = manifest_check(folder, root)
        if declared is not None and declared != check.value:
            continue
        try:
            loaded = load_set(folder, root=root)
        except InvalidInputError:
            if strict:
                raise
            continue
        if loaded.check == check:
            out.append(loaded)
    return sorted(out, key=lambda s: s.name)


def chosen_sets(
    root: Path, check: Check, names: list[str] | None, *, required: bool = True
) -> list[LoadedSet]:
    """The sets a command runs a grader of ``check`` on: the ones named (``--set``: a name or a folder), else
    every set of the check. With ``required``, finding none is an :class:`InvalidInputError`."""
    from graderctl.errors import Problem
    from graderctl.store.project import find_set

    chosen = [find_set(s, root) for s in names] if names else sets_of_check(root, check)
    if required and not chosen:
        raise InvalidInputError(
            f"no calibration set for check {check.value}",
            [
                Problem(
                    file="calibration_sets",
                    message=f"no calibration set with check = {check.value!r}",
                    fix="add one under calibration_sets/, give a set folder with --set, or point at another "
                    "project with `graderctl --root PROJECT ...`",
                )
            ],
        )
    return chosen


def trust_entry(
    grader: LoadedGrader, cal_set: TrustSet, root: Path, *, keep_report: bool = True
) -> TrustEntry:
    """The trust state of ``grader`` on ``cal_set``, from the report on disk. Without ``keep_report``
    (``list``) the entry holds no report, and the decision on a large report may come from the user's cache of
    decisions (:mod:`graderctl.store.trust_cache`: keyed by the report's bytes, the grader, the set and the
    code, so an edited report, grader or set is decided afresh)."""
    ref = grader.ref
    path = find_report(root, cal_set.name, grader.spec.name, grader.spec.version)
    if path is None:
        return TrustEntry(
            ref,
            cal_set.name,
            TrustState.never_calibrated,
            None,
            None,
            f"never calibrated on this set; run `graderctl calibrate {ref} --set {cal_set.name}`",
        )
    shown = display_path(path, root)
    if keep_report:
        return _entry_from_report(grader, cal_set, root, path, shown)
    from graderctl.store import trust_cache

    inputs = _decision_inputs(grader, cal_set, shown)
    key = trust_cache.decision_key(path, inputs)
    hit = trust_cache.get(key) if key is not None else None
    if hit is not None and hit[0] in {s.value for s in TrustState}:
        return TrustEntry(ref, cal_set.name, TrustState(hit[0]), shown, None, hit[1])
    entry = _entry_from_report(grader, cal_set, root, path, shown, light=True)
    if key is not None and trust_cache.decision_key(path, inputs) == key:
        trust_cache.put(key, entry.state.value, entry.detail)
    entry.report = None
    return entry


def _decision_inputs(grader: LoadedGrader, cal_set: TrustSet, shown: str) -> list[str]:
    """What a cached decision on a report depends on besides the report's bytes and the code."""
    spec = grader.spec
    return [
        grader.ref,
        spec.name,
        str(spec.version),
        grader.fingerprint,
        cal_set.name,
        cal_set.fingerprint,
        shown,
    ]


def remember_decision(grader: LoadedGrader, cal_set: TrustSet, root: Path) -> None:
    """Decide the report of ``grader`` on ``cal_set`` as ``list`` does and keep the decision in the user's
    cache, when the report is large enough to be cached (``calibrate`` calls this after writing a report, so
    the first ``list`` after it does not check the report again)."""
    from graderctl.store import trust_cache

    path = find_report(root, cal_set.name, grader.spec.name, grader.spec.version)
    if path is None:
        return
    if trust_cache.decision_key(path, _decision_inputs(grader, cal_set, display_path(path, root))) is None:
        return  # a small report (or no cache): list decides it in milliseconds
    trust_entry(grader, cal_set, root, keep_report=False)


def _entry_from_report(
    grader: LoadedGrader, cal_set: TrustSet, root: Path, path: Path, shown: str, *, light: bool = False
) -> TrustEntry:
    """The entry from the report at ``path``. ``light`` (the entry will not keep the report): the outcomes
    are read as light records (:mod:`graderctl.store.report_outcomes`: checked the same, refused the same),
    and the entry's report has no samples."""
    ref = grader.ref
    try:
        if light:
            from graderctl.store.report_outcomes import read_report_outcomes

            report, light_outcomes = read_report_outcomes(path, root=root)
        else:
            report, light_outcomes = read_report(path, root=root), None
    except InvalidInputError as exc:
        return TrustEntry(
            ref,
            cal_set.name,
            TrustState.stale,
            shown,
            None,
            f"the report cannot be read ({exc}); run `graderctl calibrate {ref} --set {cal_set.name}`",
        )
    rerun = f"run `graderctl calibrate {ref} --set {cal_set.name}`"
    if report.grader.version != grader.spec.version or report.grader.name != grader.spec.name:
        return TrustEntry(
            ref,
            cal_set.name,
            TrustState.stale,
            shown,
            report,
            f"only {report.grader.name}@{report.grader.version} was calibrated on this set; its trust does "
            f"not carry over to {ref}: {rerun}",
        )
    changed = []
    if report.grader.fingerprint != grader.fingerprint:
        changed.append(
            f"the grader changed since it was calibrated ({_short(report.grader.fingerprint)} -> "
            f"{_short(grader.fingerprint)})"
        )
    if report.calibration_set.fingerprint != cal_set.fingerprint:
        changed.append(
            f"the set changed since the grader was calibrated ({_short(report.calibration_set.fingerprint)} "
            f"-> {_short(cal_set.fingerprint)})"
        )
    if changed:
        return TrustEntry(
            ref, cal_set.name, TrustState.stale, shown, report, "; ".join(changed) + f": {rerun}"
        )
    from graderctl.trust_policy import decide, evidence_from_outcomes

    # Computed once (its cluster bootstraps are the costly part): checked against the report's counts, then
    # decided under the set's current policy.
    outcomes: Sequence[Outcome] = report.samples if light_outcomes is None else light_outcomes
    evidence = evidence_from_outcomes(outcomes).evidence
    tampered = evidence_problem(report, cal_set, evidence=evidence, outcomes=outcomes)
    if tampered is not None:
        return TrustEntry(
            ref,
            cal_set.name,
            TrustState.stale,
            shown,
            report,
            f"the report is not the evidence of a calibration on this set ({tampered}; edited by hand?): "
            f"{rerun}",
        )
    decision = decide(evidence, cal_set.manifest.policy)
    if decision.trusted and report.trusted:
        return TrustEntry(
            ref,
            cal_set.name,
            TrustState.trusted,
            shown,
            report,
            f"meets the set's policy (recomputed from the report's {len(outcomes)} outcomes)",
        )
    if decision.trusted:
        detail = (
            "the report says the grader is not trusted, though its outcomes meet the set's current policy: "
            + rerun
        )
    else:
        detail = "; ".join(decision.reasons)
        if report.trusted:
            detail = (
                f"the report says trusted, but its outcomes do not meet the set's current policy: {detail}"
            )
    return TrustEntry(ref, cal_set.name, TrustState.not_trusted, shown, report, detail)


def evidence_problem(
    report: CalibrationReport,
    cal_set: TrustSet,
    *,
    evidence: Evidence | None = None,
    outcomes: Sequence[Outcome] | None = None,
) -> str | None:
    """Why the report's outcomes are not a calibration of ``cal_set`` (``None`` when they can be): every
    sample of the set exactly once, with the set's label, and counts that agree with the outcomes
    (``evidence``: their evidence, when the caller has computed it already; ``outcomes``: the report's
    outcomes when they were read apart from it)."""
    samples: Sequence[Outcome] = report.samples if outcomes is None else outcomes
    labels = cal_set.labels
    if len(samples) != len(labels):
        return f"it has {len(samples)} outcomes for the set's {len(labels)} samples"
    seen: set[str] = set()
    for o in samples:
        label = labels.get(o.id)
        if label is None or o.id in seen:
            return f"outcome {o.id!r} is {'repeated' if o.id in seen else 'not a sample of the set'}"
        if label != o.label:
            return f"outcome {o.id!r} is labelled {o.label.value}, the set says {label.value}"
        seen.add(o.id)
    from graderctl.trust_policy import evidence_from_outcomes

    found = evidence if evidence is not None else evidence_from_outcomes(samples).evidence
    claimed = (
        (report.false_accept_rate.count, report.false_accept_rate.n),
        (report.false_reject_rate.count, report.false_reject_rate.n),
        report.errors,
    )
    actual = (
        (found.false_accepts.count, found.false_accepts.n),
        (found.false_rejects.count, found.false_rejects.n),
        found.errors,
    )
    if claimed != actual:
        return f"its counts {claimed} do not match its outcomes {actual}"
    return None


def _short(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:12]


def trust_for_grader(
    grader: LoadedGrader,
    root: Path,
    *,
    sets: Sequence[TrustSet] | None = None,
    invalid: list[InvalidSet] | None = None,
    keep_reports: bool = True,
) -> list[TrustEntry]:
    """One entry per set of the grader's check (``sets`` restricts or supplies them; sets of other checks in
    it are ignored), and one ``invalid_set`` entry per set of the check that cannot be loaded (found under
    ``calibration_sets/`` unless ``sets`` is given; then ``invalid`` supplies them). Without
    ``keep_reports`` the entries hold no report (see :func:`trust_entry`)."""
    if sets is None:
        sets, invalid = sets_for_trust(root, grader.spec.check)
    entries = [
        trust_entry(grader, s, root, keep_report=keep_reports) for s in sets if s.check == grader.spec.check
    ]
    for bad in invalid or []:
        if bad.check is None or bad.check == grader.spec.check.value:
            entries.append(
                TrustEntry(
                    grader.ref,
                    bad.name,
                    TrustState.invalid_set,
                    None,
                    None,
                    f"set {bad.shown} cannot be loaded ({bad.error}); it may be a set of this check, so "
                    "it withholds trust until it is fixed: run `graderctl validate`",
                )
            )
    return sorted(entries, key=lambda e: e.set_name)


@dataclass
class InvalidSet:
    """A folder under ``calibration_sets/`` that cannot be loaded."""

    name: str
    shown: str
    #: The check its manifest declares (``None`` when even that cannot be read).
    check: str | None
    error: str


def sets_for_trust(root: Path, check: Check) -> tuple[list[TrustSet], list[InvalidSet]]:
    """Every set of ``check`` under ``calibration_sets/`` (read as trust needs it: labels by id, not the
    samples), and the folders that cannot be loaded whose manifest names this check or cannot be read (either
    could be hiding a set the grader must answer to)."""
    loaded: list[TrustSet] = []
    invalid: list[InvalidSet] = []
    for folder in set_folders(root):
        declared = manifest_check(folder, root)
        if declared is not None and declared != check.value:
            continue
        try:
            one = index_set(folder, root=root)
        except InvalidInputError as exc:
            invalid.append(InvalidSet(folder.name, display_path(folder, root), declared, str(exc)))
            continue
        if one.check == check:
            loaded.append(one)
    return sorted(loaded, key=lambda s: s.name), invalid


def is_trusted(
    grader: LoadedGrader, root: Path, *, sets: Sequence[TrustSet] | None = None
) -> tuple[bool, list[TrustEntry]]:
    """Whether the grader is trusted for its check: on every set of the check the project declares (or on
    every one of ``sets``, when the sets are named explicitly), with every entry. One passing set does not
    outweigh another that fails, is stale, was never run or cannot be loaded."""
    from graderctl.trust_policy import combine

    entries = trust_for_grader(grader, root, sets=sets)
    trusted, _ = combine([(e.set_name, e.state is TrustState.trusted) for e in entries])
    return trusted, entries
