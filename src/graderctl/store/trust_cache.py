"""A cache of ``list``'s trust decisions on large calibration reports, so a 100,000-outcome report is not read
and checked against its set again on every ``graderctl list``.

An entry is one decision of :func:`graderctl.services.trust.trust_entry` (its state and detail), stored
under SHA-256 over everything that decision is a function of: the report file's bytes; the grader (reference,
name, version, fingerprint); the set (name and fingerprint: the fingerprint covers its samples, their labels
and its ``[policy]``); the report's path as shown; and the code (graderctl's and pydantic's versions and every
source file of graderctl by name, size and modification time). Hand-edit the report (``"trusted": true``),
change the grader or the set, or edit graderctl, and the key is another one: the report is read and checked
in full again. An entry is written only when the report hashed to the same key before and after it was read.

Only ``list`` uses it (``score`` needs the report itself), only for reports of at least
:data:`graderctl.store.set_cache.MIN_BYTES`, in ``trust/`` beside the set cache's ``sets/`` (the user's cache
folder, never the project; ``GRADERCTL_CACHE_DIR=off`` turns both off). A cache that cannot be read or
written is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graderctl.store import set_cache
from graderctl.store.atomic import atomic_write_text

CACHE_FORMAT = 1
_code_identity: str | None = None


def cache_dir() -> Path | None:
    sets = set_cache.cache_dir()
    return None if sets is None else sets.parent / "trust"


def code_identity() -> str:
    """graderctl's and pydantic's versions and every source file of graderctl by name, size and mtime."""
    global _code_identity
    if _code_identity is None:
        package = Path(__file__).resolve().parents[1]
        parts = [set_cache.code_identity()]
        for source in sorted(package.rglob("*.py")):
            st = source.stat()
            parts.append(f"{source.relative_to(package).as_posix()} {st.st_size} {st.st_mtime_ns}")
        _code_identity = "\n".join(parts)
    return _code_identity


def decision_key(report: Path, inputs: Sequence[str]) -> str | None:
    """The key of a decision on ``report`` with these other inputs (``None``: not cached: a small report,
    no cache, or a file that cannot be read)."""
    if cache_dir() is None:
        return None
    try:
        if report.stat().st_size < set_cache.MIN_BYTES:
            return None
        h = hashlib.sha256()
        h.update(f"graderctl-trust-cache-v{CACHE_FORMAT}\n{code_identity()}\n".encode())
        for value in inputs:
            h.update(value.encode("utf-8", "surrogateescape") + b"\0")
        with report.open("rb") as fh:
            h.update(hashlib.file_digest(fh, "sha256").digest())
        return h.hexdigest()
    except (OSError, ValueError, RuntimeError):
        return None


def get(key: str) -> tuple[str, str] | None:
    """The ``(state, detail)`` stored under ``key``, or ``None``."""
    base = cache_dir()
    if base is None:
        return None
    try:
        data: Any = json.loads((base / f"{key}.json").read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
        return None
    state, detail = data.get("state"), data.get("detail")
    if not isinstance(state, str) or not isinstance(detail, str):
        return None
    return state, detail


def put(key: str, state: str, detail: str) -> None:
    base = cache_dir()
    if base is None:
        return
    entry = {"format": CACHE_FORMAT, "key": key, "state": state, "detail": detail}
    with contextlib.suppress(OSError, ValueError):
        atomic_write_text(base / f"{key}.json", json.dumps(entry, ensure_ascii=False))
        set_cache.prune(base)
