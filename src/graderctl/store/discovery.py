"""What a path named to ``graderctl validate`` is, from its place, its name and (when those say nothing) its
first lines; the walk of plain folders; and the small file-system questions validation asks (does it exist,
is it a pipe, is there a lock). ``graderctl.services.validate`` decides what to check from the answers.

What a path is comes from its place and name (CONTRACT.md §1): ``graders/<name>/v<N>.toml`` is a grader
definition; a folder with ``manifest.toml`` (or any folder inside ``calibration_sets/``, or one holding
``samples.jsonl``) is a calibration set; ``corpus.jsonl``, ``*trials*.jsonl`` and ``*results*.jsonl`` are what
they say; a folder holding ``graders/`` or ``calibration_sets/`` is a project tree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from graderctl.errors import InvalidInputError
from graderctl.models.base import Check
from graderctl.store.layout import CORPUS_NAME, GRADERS_DIR, LOCK_NAME, MANIFEST_NAME, SAMPLES_NAME, SETS_DIR
from graderctl.store.problems import ProblemSink
from graderctl.store.project import _VERSION_FILE, guess_check
from graderctl.store.readers import BOM, iter_jsonl_models, read_toml

FileType = Literal["grader", "set", "corpus", "trials", "results", "samples", "manifest", "review"]
FILE_TYPES: tuple[FileType, ...] = (
    "grader",
    "set",
    "corpus",
    "trials",
    "results",
    "samples",
    "manifest",
    "review",
)


class _AnyObject(BaseModel):
    """Any JSON object: the line-level checks of a JSON Lines file whose kind cannot be told."""

    model_config = ConfigDict(extra="allow")


#: "project": the default, a project's graders/ and calibration_sets/; "tree": a folder holding either,
#: named on the command line, which also has the data files at its top level checked.
Kind = FileType | Literal["project", "tree", "graders", "sets", "graders-of", "sets-of", "folder", "unknown"]
#: Suffixes of data files worth a look in a folder walk even when their name says nothing.
_DATA_SUFFIXES = (".jsonl", ".ndjson", ".toml")


def classify(path: Path) -> Kind | None:
    """What a path is, from its place and name; ``None`` when it cannot be told."""
    if path.is_dir():
        if (path / MANIFEST_NAME).exists():
            return "set"
        if path.name == GRADERS_DIR:
            return "graders"
        if path.name == SETS_DIR:
            return "sets"
        if (path / GRADERS_DIR).is_dir() or (path / SETS_DIR).is_dir():
            return "tree"
        if path.parent.name == SETS_DIR or (path / SAMPLES_NAME).exists():
            return "set"  # a set folder that lacks its manifest: the set check reports it
        return "folder"
    name = path.name
    if _VERSION_FILE.match(name) or (name.endswith(".toml") and path.parent.parent.name == GRADERS_DIR):
        return "grader" if name != LOCK_NAME else None
    if name == MANIFEST_NAME:
        return "set"
    if name == CORPUS_NAME or name.endswith(".corpus.jsonl"):
        return "corpus"
    if name.endswith(".review.jsonl"):
        return "review"
    if name.endswith(".jsonl") and "trials" in name:
        return "trials"
    if name.endswith(".jsonl") and "results" in name:
        return "results"
    if name == SAMPLES_NAME:
        in_set = (path.parent / MANIFEST_NAME).exists() or path.parent.parent.name == SETS_DIR
        return "set" if in_set else "samples"
    return None


def walk(folder: Path, *, recurse: bool = True) -> list[tuple[Path, Kind]]:
    """Recognisable things inside a plain folder (sets, trees, grader folders, data files), depth first;
    with ``recurse=False`` only the data files directly in it."""
    found: list[tuple[Path, Kind]] = []
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return found  # unreadable: nothing found here; the caller says so
    for child in children:
        if child.name.startswith((".", "_")) or (child.is_symlink() and child.is_dir()):
            continue
        if not recurse and not child.is_file():
            continue
        kind = classify(child)
        if kind == "folder":
            found.extend(walk(child))
        elif kind is not None and not (kind == "set" and child.is_file()):
            found.append((child, kind))
        elif kind is None and child.is_file() and child.suffix in _DATA_SUFFIXES:
            found.append((child, "unknown"))
    return found


_CORPUS_KEYS = {"id", "url", "doi", "title", "text"}


def first_object(path: Path, limit: int = 200) -> dict[str, object] | None:
    """The first line of a JSON Lines file that is a JSON object (looking at most ``limit`` lines)."""
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh):
                if number >= limit:
                    break
                try:
                    value = json.loads(raw.removeprefix(BOM) if number == 0 else raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(value, dict):
                    return value
    except OSError:
        return None
    return None


def sniff(path: Path) -> tuple[FileType | None, Check | None]:
    """Guess what a file whose name says nothing is, from its content: ``(type, check of samples)``."""
    if path.suffix == ".toml":
        try:
            data, _ = read_toml(path, str(path))
        except InvalidInputError:
            return None, None
        if "kind" in data:
            return "grader", None
        if "policy" in data or "check" in data:
            return "manifest", None
        return None, None
    first = first_object(path)
    if first is None:
        return None, None
    keys = set(first)
    if first.get("type") == "review":
        return "review", None
    if "label" in keys and "input" in keys:
        return "samples", samples_check(path, first)
    if "success" in keys:
        return "results", None
    if "task_id" in keys or "trial_id" in keys:
        return ("trials" if keys & {"report", "task"} else "results"), None
    if "id" in keys and keys <= _CORPUS_KEYS:
        return "corpus", None
    return None, None


def samples_check(path: Path, first: dict[str, object] | None = None) -> Check | None:
    """The check of a samples file: its set's manifest when it has one, else the shape of its first input."""
    manifest = path.parent / MANIFEST_NAME
    if manifest.is_file():
        try:
            data, _ = read_toml(manifest, str(manifest))
        except InvalidInputError:
            data = {}
        if data.get("check") in Check.__members__:
            return Check(str(data["check"]))
    if first is None:
        first = first_object(path)
    return guess_check(first.get("input")) if first else None


def check_syntax(path: Path, shown: str, sink: ProblemSink) -> None:
    """Check only the syntax of a file whose kind cannot be told (TOML, or JSON Lines of objects); problems
    go to ``sink``. Not a regular file: nothing is read."""
    if not path.is_file():
        return
    try:
        if path.suffix == ".toml":
            read_toml(path, shown)
        elif path.suffix in (".jsonl", ".ndjson", ".json"):
            for _ in iter_jsonl_models(path, _AnyObject, shown=shown, sink=sink):
                pass
    except InvalidInputError as exc:
        sink.absorb(exc)


PathState = Literal["file", "folder", "missing", "broken_link", "special"]


def path_state(path: Path) -> PathState:
    """A named path: a regular file, a folder, nothing (``broken_link``: a symlink loop or one whose target
    is missing), or something else (a pipe or device, which can be read once)."""
    if not path.exists():
        return "broken_link" if path.is_symlink() else "missing"
    if path.is_file():
        return "file"
    return "folder" if path.is_dir() else "special"


def set_folder_of(path: Path) -> Path:
    """A set is checked as a whole, whichever of its files was named: the folder of a file, else the path."""
    return path.parent if path.is_file() else path


def has_lock(graders_dir: Path) -> bool:
    """Whether a ``graders/`` folder holds a ``graders.lock``."""
    return (graders_dir / LOCK_NAME).exists()
