"""Trust: is a grader calibrated, and does its calibration still hold?

Trust is bound to the pair (grader fingerprint, set fingerprint). It is read from the report under
``reports/<set>/<name>@<version>.json`` and holds only while both fingerprints equal the current ones: change
the grader (a new version, an edited prompt, a new kind implementation) or the set's samples, and the trust
lapses by itself and shows as ``stale``. Nothing is stored besides the reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from graderctl.errors import InvalidInputError
from graderctl.models.base import Check
from graderctl.models.reports import CalibrationReport
from graderctl.store.project import LoadedGrader, LoadedSet, load_set, set_folders
from graderctl.store.readers import display_path, read_toml
from graderctl.store.reports import find_report, read_report


class TrustState(StrEnum):
    #: A current report says the grader meets the set's policy.
    trusted = "trusted"
    #: A current report says it does not.
    not_trusted = "not_trusted"
    #: A report exists, but the grader or the set changed since (or it is another version's report).
    stale = "stale"
    #: No report for this grader on this set.
    never_calibrated = "never_calibrated"


@dataclass
class TrustEntry:
    grader_ref: str
    set_name: str
    state: TrustState
    report_path: str | None
    report: CalibrationReport | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "grader": self.grader_ref,
            "set": self.set_name,
            "state": self.state.value,
            "report": self.report_path,
            "detail": self.detail,
        }


def _manifest_check(folder: Path, root: Path) -> str | None:
    """The ``check`` a set's manifest declares, read without loading its samples (``None`` if unreadable)."""
    manifest = folder / "manifest.toml"
    if not manifest.is_file():
        return None
    try:
        data, _ = read_toml(manifest, display_path(manifest, root))
    except InvalidInputError:
        return None
    check = data.get("check")
    return check if isinstance(check, str) else None


def sets_of_check(root: Path, check: Check, *, strict: bool = True) -> list[LoadedSet]:
    """Every set in ``calibration_sets/`` whose check is ``check``, by name. Sets of other checks are not
    loaded. An invalid set that may be of this check raises :class:`InvalidInputError` (``strict``) or is
    skipped."""
    out: list[LoadedSet] = []
    for folder in set_folders(root):
        declared = _manifest_check(folder, root)
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


def trust_entry(grader: LoadedGrader, cal_set: LoadedSet, root: Path) -> TrustEntry:
    """The trust state of ``grader`` on ``cal_set``, from the report on disk."""
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
    try:
        report = read_report(path, root=root)
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
    if report.trusted:
        return TrustEntry(
            ref, cal_set.name, TrustState.trusted, shown, report, "meets the set's policy (current report)"
        )
    failed = [c.message for c in report.policy_checks if not c.passed]
    return TrustEntry(
        ref,
        cal_set.name,
        TrustState.not_trusted,
        shown,
        report,
        "; ".join(failed) or "does not meet the set's policy",
    )


def _short(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:12]


def trust_for_grader(
    grader: LoadedGrader, root: Path, *, sets: list[LoadedSet] | None = None
) -> list[TrustEntry]:
    """One entry per set of the grader's check (``sets`` restricts or supplies them; sets of other checks in
    it are ignored). Invalid sets are skipped."""
    if sets is None:
        sets = sets_of_check(root, grader.spec.check, strict=False)
    return [trust_entry(grader, s, root) for s in sets if s.check == grader.spec.check]


def is_trusted(grader: LoadedGrader, root: Path) -> tuple[bool, list[TrustEntry]]:
    """Whether the grader is trusted on at least one set of its check, with every entry."""
    entries = trust_for_grader(grader, root)
    return any(e.state is TrustState.trusted for e in entries), entries
