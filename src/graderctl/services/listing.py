"""``list``: the graders and calibration sets of a project, and each grader's trust on each set."""

from __future__ import annotations

from pathlib import Path

from graderctl import plugin
from graderctl.errors import GraderctlError, InvalidInputError
from graderctl.models.listing import GraderListing, KindListing, ProjectListing, SetListing, TrustRecord
from graderctl.models.validation import ProblemRecord
from graderctl.services.trust import InvalidSet, TrustEntry, trust_for_grader
from graderctl.store.project import (
    LoadedGrader,
    SetIndex,
    grader_files,
    index_set,
    load_grader,
    manifest_check,
    set_folders,
)
from graderctl.store.readers import display_path


def _trusted(trust: list[TrustEntry]) -> bool:
    """Trusted for its check: trusted on every set of the check (graderctl.trust_policy.combine)."""
    from graderctl.trust_policy import combine

    return combine([(e.set_name, e.state.value == "trusted") for e in trust])[0]


def _trust_record(e: TrustEntry) -> TrustRecord:
    return TrustRecord(set=e.set_name, state=e.state.value, report=e.report_path, detail=e.detail)


def list_kinds() -> list[KindListing]:
    """Every installed grader kind, built-in or from another package, and the entry points that are broken."""
    out = [
        KindListing(
            name=name,
            origin=plugin.kind_origin(name),
            checks=sorted(c.value for c in cls.checks),
            model_based=bool(cls.model_based),
            implementation_version=cls.implementation_version,
        )
        for name, cls in plugin.kinds().items()
    ]
    out += [
        KindListing(name=name, origin="", checks=[], model_based=False, implementation_version="", error=why)
        for name, why in plugin.broken_kinds().items()
    ]
    return sorted(out, key=lambda k: k.name)


def list_project(root: Path) -> ProjectListing:
    """Every grader definition and calibration set under ``root``; invalid ones are named in ``problems``."""
    listing = ProjectListing(kinds=list_kinds())
    # Sets are read as trust needs them (labels by id, not the samples): checked and fingerprinted exactly as
    # `load_set` does, without holding a large set's samples in memory.
    loaded_sets: list[SetIndex] = []
    invalid_sets: list[InvalidSet] = []
    for folder in set_folders(root):
        try:
            loaded_sets.append(index_set(folder, root=root))
        except GraderctlError as exc:
            listing.problems.append(f"{display_path(folder, root)}: {exc} (run `graderctl validate`)")
            shown = display_path(folder, root)
            invalid_sets.append(InvalidSet(folder.name, shown, manifest_check(folder, root), str(exc)))
    loaded_sets.sort(key=lambda s: s.name)
    for s in loaded_sets:
        listing.sets.append(
            SetListing(
                name=s.name,
                version=s.manifest.version,
                check=s.check.value,
                n_good=s.n_good,
                n_bad=s.n_bad,
                fingerprint=s.fingerprint,
                path=s.shown,
            )
        )
    graders: list[LoadedGrader] = []
    for path in grader_files(root):
        try:
            grader = load_grader(path, root=root)
        except GraderctlError as exc:
            listing.problems.append(f"{display_path(path, root)}: {exc} (run `graderctl validate`)")
            continue
        graders.append(grader)
        # No report kept: list shows states only (a large report's decision may be cached).
        trust = trust_for_grader(grader, root, sets=loaded_sets, invalid=invalid_sets, keep_reports=False)
        listing.graders.append(
            GraderListing(
                ref=grader.ref,
                name=grader.spec.name,
                version=grader.spec.version,
                kind=grader.spec.kind,
                check=grader.spec.check.value,
                fingerprint=grader.fingerprint,
                path=grader.shown,
                trusted=_trusted(trust),
                trust=[_trust_record(e) for e in trust],
            )
        )
    listing.graders.sort(key=lambda g: (g.name, g.version))
    from graderctl.store.lock import require_released_intact

    try:
        require_released_intact(graders, root)
    except InvalidInputError as exc:
        listing.release_problems = [ProblemRecord.model_validate(p.to_dict()) for p in exc.problems]
    return listing
