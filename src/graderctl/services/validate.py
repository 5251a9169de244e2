"""``graderctl validate``: check files against the contract and their cross-references."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.results import GradedResult
from graderctl.models.trials import Trial
from graderctl.store.lock import read_lock, write_lock
from graderctl.store.problems import ProblemSink
from graderctl.store.project import (
    GRADERS_DIR,
    SETS_DIR,
    LoadedGrader,
    grader_files,
    load_corpus,
    load_grader,
    load_set,
    set_folders,
)
from graderctl.store.readers import display_path, read_jsonl_models

FileType = Literal["grader", "set", "corpus", "trials", "results"]
_VERSION_FILE = re.compile(r"^v\d+\.toml$")


@dataclass
class CheckedFile:
    path: str
    type: str
    ok: bool
    problems: int = 0
    detail: str = ""


@dataclass
class ValidationOutcome:
    files: list[CheckedFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    omitted: int = 0
    notes: list[str] = field(default_factory=list)
    lock_added: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.omitted

    def to_dict(self) -> dict[str, object]:
        return {
            "schema_version": 1,
            "type": "validation",
            "ok": self.ok,
            "files": [f.__dict__ for f in self.files],
            "problems": [p.to_dict() for p in self.problems],
            "omitted_problems": self.omitted,
            "notes": self.notes,
            "lock_added": self.lock_added,
        }


def classify(path: Path) -> FileType | Literal["tree", "graders", "sets"] | None:
    if path.is_dir():
        if (path / "manifest.toml").exists():
            return "set"
        if path.name == GRADERS_DIR:
            return "graders"
        if path.name == SETS_DIR:
            return "sets"
        if (path / GRADERS_DIR).is_dir() or (path / SETS_DIR).is_dir():
            return "tree"
        if path.parent.name == SETS_DIR:
            return "set"  # a set folder that lacks its manifest: load_set reports it
        return None
    name = path.name
    if _VERSION_FILE.match(name) or (name.endswith(".toml") and path.parent.parent.name == GRADERS_DIR):
        return "grader"
    if name == "manifest.toml":
        return "set"
    if name == "corpus.jsonl" or name.endswith(".corpus.jsonl"):
        return "corpus"
    if name.endswith(".jsonl") and "trials" in name:
        return "trials"
    if name.endswith(".jsonl") and "results" in name:
        return "results"
    return None


def validate_paths(
    paths: list[Path],
    *,
    root: Path,
    as_type: FileType | None = None,
    update_lock: bool = False,
    cap: int = 100,
) -> ValidationOutcome:
    """Validate every path; never raises for bad data: problems are collected in the outcome."""
    out = ValidationOutcome()
    sink = ProblemSink(cap)
    graders: list[LoadedGrader] = []

    def run(path: Path, kind: str) -> None:
        shown = display_path(path, root)
        before = sink.count
        try:
            if kind == "grader":
                graders.append(load_grader(path, root=root))
            elif kind == "set":
                load_set(path if path.is_dir() else path.parent, root=root, sink=sink)
            elif kind == "corpus":
                load_corpus(path, shown=shown, sink=sink)
            elif kind == "trials":
                _check_unique(read_jsonl_models(path, Trial, shown=shown, sink=sink), shown, sink)
            elif kind == "results":
                _check_unique(read_jsonl_models(path, GradedResult, shown=shown, sink=sink), shown, sink)
        except InvalidInputError as exc:
            sink.extend(exc.problems)
            sink.omitted += exc.omitted
        n = sink.count - before
        out.files.append(CheckedFile(path=shown, type=kind, ok=n == 0, problems=n))

    for path in paths:
        shown = display_path(path, root)
        if not path.exists():
            sink.add(Problem(file=shown, message="no such file or folder", fix="check the path"))
            continue
        kind = as_type or classify(path)
        if kind in ("tree", "graders", "sets"):
            base = path if kind == "tree" else path.parent
            if kind in ("tree", "graders"):
                for g in grader_files(base):
                    run(g, "grader")
            if kind in ("tree", "sets"):
                for s in set_folders(base):
                    run(s, "set")
            continue
        if kind is None:
            sink.add(
                Problem(
                    file=shown,
                    message="cannot tell what this file is"
                    if path.is_file()
                    else "a folder with no manifest.toml",
                    expected="graders/<name>/v<N>.toml, a set folder with manifest.toml, corpus.jsonl, "
                    "*trials*.jsonl or *results*.jsonl",
                    got=repr(path.name),
                    fix="pass --as grader|set|corpus|trials|results"
                    if path.is_file()
                    else "add a manifest.toml, or point at a file",
                )
            )
            continue
        run(path, kind)

    _check_lock(graders, root, sink, out, update_lock)
    out.problems = sink.problems
    out.omitted = sink.omitted
    return out


def _check_unique(
    items: list[tuple[int, Trial]] | list[tuple[int, GradedResult]], shown: str, sink: ProblemSink
) -> None:
    seen: dict[tuple[str, str], int] = {}
    for line, item in items:
        key = (item.task_id, item.trial_id)
        if key in seen:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer="/trial_id",
                    message=f"duplicate trial {item.trial_id!r} of task {item.task_id!r}",
                    expected="each trial once",
                    got=f"also on line {seen[key]}",
                    fix="remove the duplicate line",
                )
            )
        else:
            seen[key] = line


def _check_lock(
    graders: list[LoadedGrader], root: Path, sink: ProblemSink, out: ValidationOutcome, update: bool
) -> None:
    if not graders:
        return
    try:
        lock = read_lock(root)
    except InvalidInputError as exc:
        sink.extend(exc.problems)
        return
    changed = False
    for g in graders:
        locked = lock.entries.get(g.ref)
        if locked is None:
            if update:
                lock.entries[g.ref] = g.fingerprint
                out.lock_added.append(g.ref)
                changed = True
            else:
                out.notes.append(
                    f"{g.shown}: {g.ref} is not in {GRADERS_DIR}/graders.lock yet (unreleased); "
                    "run `graderctl validate --update-lock` to release it"
                )
        elif locked != g.fingerprint:
            sink.add(
                Problem(
                    file=g.shown,
                    message=f"released version {g.ref} was edited: its content no longer matches the lock",
                    expected=locked,
                    got=g.fingerprint,
                    fix=f"bump the version: restore {g.path.name} and put the change in "
                    f"v{g.spec.version + 1}.toml (version = {g.spec.version + 1}), then run "
                    "`graderctl validate --update-lock`",
                )
            )
    if changed:
        write_lock(lock)
