"""``list``: the graders and calibration sets of a project, and each grader's trust on each set."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graderctl.errors import GraderctlError
from graderctl.services.trust import TrustEntry, trust_for_grader
from graderctl.store.project import LoadedSet, grader_files, load_grader, load_set, set_folders
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "name": self.name,
            "version": self.version,
            "kind": self.kind,
            "check": self.check,
            "fingerprint": self.fingerprint,
            "path": self.path,
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
class ProjectListing:
    graders: list[GraderListing] = field(default_factory=list)
    sets: list[SetListing] = field(default_factory=list)
    #: Files that could not be loaded (``graderctl validate`` says why in detail).
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "type": "listing",
            "graders": [g.to_dict() for g in self.graders],
            "sets": [s.to_dict() for s in self.sets],
            "problems": self.problems,
        }


def list_project(root: Path) -> ProjectListing:
    """Every grader definition and calibration set under ``root``; invalid ones are named in ``problems``."""
    listing = ProjectListing()
    loaded_sets: list[LoadedSet] = []
    for folder in set_folders(root):
        try:
            loaded_sets.append(load_set(folder, root=root))
        except GraderctlError as exc:
            listing.problems.append(f"{display_path(folder, root)}: {exc} (run `graderctl validate`)")
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
    for path in grader_files(root):
        try:
            grader = load_grader(path, root=root)
        except GraderctlError as exc:
            listing.problems.append(f"{display_path(path, root)}: {exc} (run `graderctl validate`)")
            continue
        listing.graders.append(
            GraderListing(
                ref=grader.ref,
                name=grader.spec.name,
                version=grader.spec.version,
                kind=grader.spec.kind,
                check=grader.spec.check.value,
                fingerprint=grader.fingerprint,
                path=grader.shown,
                trust=trust_for_grader(grader, root, sets=loaded_sets),
            )
        )
    listing.graders.sort(key=lambda g: (g.name, g.version))
    return listing
