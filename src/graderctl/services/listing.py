"""``list``: the graders and calibration sets of a project, and each grader's trust on each set."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graderctl import plugin
from graderctl.errors import GraderctlError, InvalidInputError, Problem
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


@dataclass
class GraderListing:
    ref: str
    name: str
    version: int
    kind: str
    check: str
    fingerprint: str
    path: str
    trust: list[TrustEntry]

    @property
    def trusted(self) -> bool:
        """Trusted for its check: trusted on every set of the check (graderctl.trust_policy.combine)."""
        from graderctl.trust_policy import combine

        return combine([(e.set_name, e.state.value == "trusted") for e in self.trust])[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "name": self.name,
            "version": self.version,
            "kind": self.kind,
            "check": self.check,
            "fingerprint": self.fingerprint,
            "path": self.path,
            #: Trusted for its check: on every set of the check (one passing set is not enough).
            "trusted": self.trusted,
            "trust": [
                {"set": e.set_name, "state": e.state.value, "report": e.report_path, "detail": e.detail}
                for e in self.trust
            ],
        }


@dataclass
class SetListing:
    name: str
    version: int
    check: str
    n_good: int
    n_bad: int
    fingerprint: str
    path: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class KindListing:
    """An installed grader kind (entry point of ``graderctl.graders``), or one that could not be loaded."""

    name: str
    #: The distribution that provides it, with its version ("graderctl 0.1.0" for the built-in kinds).
    origin: str
    checks: list[str]
    model_based: bool
    implementation_version: str
    #: Why the entry point could not be loaded (then the other fields are empty).
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ProjectListing:
    graders: list[GraderListing] = field(default_factory=list)
    sets: list[SetListing] = field(default_factory=list)
    kinds: list[KindListing] = field(default_factory=list)
    #: Files that could not be loaded (``graderctl validate`` says why in detail).
    problems: list[str] = field(default_factory=list)
    #: Released grader versions edited since they were locked, or a lock missing beside reports (exit 3).
    release_problems: list[Problem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "type": "listing",
            "graders": [g.to_dict() for g in self.graders],
            "sets": [s.to_dict() for s in self.sets],
            "kinds": [k.to_dict() for k in self.kinds],
            "problems": self.problems,
            "release_problems": [p.to_dict() for p in self.release_problems],
        }


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
        listing.graders.append(
            GraderListing(
                ref=grader.ref,
                name=grader.spec.name,
                version=grader.spec.version,
                kind=grader.spec.kind,
                check=grader.spec.check.value,
                fingerprint=grader.fingerprint,
                path=grader.shown,
                # No report kept: list shows states only (a large report's decision may be cached).
                trust=trust_for_grader(
                    grader, root, sets=loaded_sets, invalid=invalid_sets, keep_reports=False
                ),
            )
        )
    listing.graders.sort(key=lambda g: (g.name, g.version))
    from graderctl.store.lock import require_released_intact

    try:
        require_released_intact(graders, root)
    except InvalidInputError as exc:
        listing.release_problems = list(exc.problems)
    return listing
