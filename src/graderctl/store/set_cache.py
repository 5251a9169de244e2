"""A cache of what trust needs from a large calibration set, so ``list`` (and ``score``'s trust check) do not
re-validate and re-fingerprint 100,000 samples on every run.

What is cached: a valid set's manifest (as validated), fingerprint, label counts and each sample's label by
id, i.e. what :func:`graderctl.store.project.index_set` returns; an entry is written only when the set's files
hashed to the same key before and after they were read, so it holds what those very bytes give. Every read
of a whole large set leaves its entry: ``list`` and ``score``'s trust check (:func:`index_set`), and
``validate``, ``calibrate`` and the other commands that load a set, so ``list`` after ``calibrate`` is warm.
An entry made while duplicate JSON keys were checked (``validate``, ``score``) serves every reader; one made
without serves only readers that do not check them.

Content-addressed, never stale: the key is SHA-256 over the bytes of the set's ``manifest.toml``,
``samples.jsonl`` and ``corpus.jsonl``, its folder name, and the code that checks and fingerprints them
(graderctl's, pydantic's and msgspec's versions and the size and modification time of every source file of
``graderctl.models`` and ``graderctl.store``). Change one byte of a set, hand-edit it and restore its
modification time, or edit the checking code, and the key is another one: the set is checked and
fingerprinted again in full. Hashing the files costs about 1 ms per MB; checking them costs about 40.

Where: ``$GRADERCTL_CACHE_DIR/sets/`` when that variable is set (``off`` turns the cache off), else
``$XDG_CACHE_HOME/graderctl/sets/``, else ``~/.cache/graderctl/sets/``; one JSON file per entry, written
atomically; the oldest entries beyond :data:`MAX_ENTRIES` are removed. The cache lives outside the project
on purpose: an entry stands in for a set's fingerprint, so a cache committed to a repository (or shipped in
a pull request) could make a changed set look unchanged; the user's own cache folder cannot be written by a
project. Only valid sets are stored, and only sets whose samples file holds at least :data:`MIN_BYTES`
(smaller ones are checked in milliseconds). A cache that cannot be read or written (no home folder, a
read-only disk, a malformed entry) is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graderctl.models.base import Label
from graderctl.store.atomic import atomic_write_text
from graderctl.store.fingerprint import FINGERPRINT_ALGORITHM

CACHE_FORMAT = 1
#: Sets whose ``samples.jsonl`` is smaller than this are not cached (about 2,500 samples).
MIN_BYTES = 1 << 20
#: Entries kept; the least recently written beyond this are removed.
MAX_ENTRIES = 32
ENV_VAR = "GRADERCTL_CACHE_DIR"
#: The files of a set folder the key covers (a missing one is part of the key too).
SET_FILES = ("manifest.toml", "samples.jsonl", "corpus.jsonl")

_code_identity: str | None = None


@dataclass(frozen=True)
class CachedIndex:
    #: The validated manifest's JSON dump.
    manifest: dict[str, Any]
    fingerprint: str
    labels: dict[str, Label]
    n_good: int
    n_bad: int
    #: Made while duplicate JSON keys were checked (then it serves readers that check them too).
    duplicate_keys_checked: bool = False

    def serves(self, duplicate_keys_checked: bool) -> bool:
        """Whether this entry answers a reader that does (or does not) check duplicate keys."""
        return self.duplicate_keys_checked or not duplicate_keys_checked


def cache_root() -> Path | None:
    """The user's graderctl cache folder (``$GRADERCTL_CACHE_DIR``, else ``$XDG_CACHE_HOME/graderctl``, else
    ``~/.cache/graderctl``), or ``None`` when caching is off or there is no home folder. Every cache of
    graderctl lives under it (sets, trust decisions, verdicts), never inside a project."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        if chosen.strip().lower() in ("", "off", "0", "none"):
            return None
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "graderctl"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):
        return None
    return home / ".cache" / "graderctl"


def cache_dir() -> Path | None:
    """The folder of set entries, or ``None`` when the cache is off or there is no home folder."""
    root = cache_root()
    return None if root is None else root / "sets"


def code_identity() -> str:
    """What the checking and fingerprinting code is: versions, and every source file of ``graderctl.models``
    and ``graderctl.store`` by name, size and modification time (an edited checkout is another identity)."""
    global _code_identity
    if _code_identity is None:
        import msgspec
        import pydantic
        import pydantic_core

        from graderctl import __version__

        package = Path(__file__).resolve().parents[1]  # the graderctl package folder
        parts = [
            f"graderctl {__version__}",
            f"pydantic {pydantic.VERSION} {pydantic_core.__version__}",
            f"msgspec {msgspec.__version__}",
            FINGERPRINT_ALGORITHM,
        ]
        for sub in ("models", "store"):
            for source in sorted((package / sub).glob("*.py")):
                st = source.stat()
                parts.append(f"{sub}/{source.name} {st.st_size} {st.st_mtime_ns}")
        errors = package / "errors.py"
        if errors.is_file():
            st = errors.stat()
            parts.append(f"errors.py {st.st_size} {st.st_mtime_ns}")
        _code_identity = "\n".join(parts)
    return _code_identity


def set_key(folder: Path, *, samples_digest: bytes | None = None) -> str | None:
    """The content key of the set in ``folder`` (``None`` when a file cannot be read, or the samples file is
    smaller than :data:`MIN_BYTES`: then the set is not worth caching). ``samples_digest``: the SHA-256
    digest of the samples file's bytes, when the caller has read them (and checked their size)."""
    try:
        samples = folder / SET_FILES[1]
        if samples_digest is None and samples.stat().st_size < MIN_BYTES:
            return None
        h = hashlib.sha256()
        h.update(f"graderctl-set-cache-v{CACHE_FORMAT}\n{code_identity()}\n".encode())
        h.update(b"folder\0" + os.fsencode(folder.name) + b"\n")
        for name in SET_FILES:
            path = folder / name
            h.update(name.encode() + b"\0")
            if samples_digest is not None and name == SET_FILES[1]:
                h.update(samples_digest + b"\n")
                continue
            if not path.exists():
                h.update(b"absent\n")
                continue
            with path.open("rb") as fh:
                h.update(hashlib.file_digest(fh, "sha256").digest())
            h.update(b"\n")
        return h.hexdigest()
    except (OSError, ValueError, RuntimeError):
        return None


def _entry_path(key: str) -> Path | None:
    base = cache_dir()
    return None if base is None else base / f"{key}.json"


def get(key: str) -> CachedIndex | None:
    """The entry stored under ``key``, or ``None`` (missing, unreadable or malformed)."""
    path = _entry_path(key)
    if path is None:
        return None
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return _from_entry(data, key)


def put(key: str, index: CachedIndex) -> None:
    """Store an entry (best effort: a cache that cannot be written is left alone)."""
    path = _entry_path(key)
    if path is None:
        return
    labels = index.labels
    entry = {
        "format": CACHE_FORMAT,
        "key": key,
        "manifest": index.manifest,
        "fingerprint": index.fingerprint,
        "n_good": index.n_good,
        "n_bad": index.n_bad,
        "duplicate_keys_checked": index.duplicate_keys_checked,
        "ids": list(labels),
        "labels": "".join("g" if label is Label.good else "b" for label in labels.values()),
    }
    with contextlib.suppress(OSError, ValueError):
        atomic_write_text(path, json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        prune(path.parent)


def prune(folder: Path) -> None:
    """Remove the entries of ``folder`` beyond the :data:`MAX_ENTRIES` most recently written."""
    entries = []
    for p in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            entries.append((p.stat().st_mtime_ns, p))
    entries.sort(reverse=True)
    for _, old in entries[MAX_ENTRIES:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _from_entry(data: Any, key: str) -> CachedIndex | None:
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
        return None
    fingerprint, ids, labels = data.get("fingerprint"), data.get("ids"), data.get("labels")
    manifest, n_good, n_bad = data.get("manifest"), data.get("n_good"), data.get("n_bad")
    strict = data.get("duplicate_keys_checked")
    if not (
        isinstance(strict, bool)
        and isinstance(manifest, dict)
        and isinstance(fingerprint, str)
        and isinstance(ids, list)
        and isinstance(labels, str)
        and isinstance(n_good, int)
        and isinstance(n_bad, int)
        and len(ids) == len(labels) == n_good + n_bad
        and labels.count("g") == n_good
        and labels.count("b") == n_bad
        and all(isinstance(i, str) for i in ids)
    ):
        return None
    by_id = dict(zip(ids, (Label.good if c == "g" else Label.bad for c in labels), strict=True))
    if len(by_id) != len(ids):
        return None
    return CachedIndex(manifest, fingerprint, by_id, n_good, n_bad, strict)
