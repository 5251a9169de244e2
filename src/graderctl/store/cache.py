"""An on-disk cache of verdicts, so that re-running a calibration, a probe or a score costs no model calls
(or external-program runs) for what was already graded.

An entry is keyed by sha256 over (grader fingerprint, canonical sample payload, repeat index). The payload is
whatever the kind says determines its verdict (``GraderKind.cache_payload``): for the LLM judge that is the
rendered prompt, so a change to a corpus document an evidence item points at is a different key, never a
stale hit. The grader fingerprint covers the definition, the prompt text and the kind's implementation
version.

Where: the user's cache folder, one folder per project (:func:`default_cache_dir`), never the project itself:
an entry stands in for a verdict, so one committed to a repository could decide verdicts.

Layout: ``<dir>/<fingerprint hex[:16]>/<key[:2]>/<key>.json``, one small JSON file per verdict, written to a
temporary file and renamed into place, so concurrent writers (threads or processes) never leave half an entry.
An unreadable or malformed entry is ignored (treated as a miss and overwritten). Error verdicts are never
stored: an error is worth retrying next time.

A verdict read back from the cache has ``usage.cached = True`` and zero tokens and cost (it cost nothing this
time); the tokens and cost of the original call are kept in the entry and returned in
``details["cached_usage"]``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from graderctl.plugin import Usage, Verdict
from graderctl.store.fingerprint import canonical_bytes

#: Where the verdict cache was kept before it moved out of projects; nothing reads it any more (an entry
#: there, committed or forged, decides nothing).
CACHE_DIR_NAME = ".graderctl-cache"
CACHE_FORMAT = 1


def default_cache_dir(root: Path) -> Path | None:
    """Where the verdicts graded in the project at ``root`` are cached: ``verdicts/<project>/`` in the user's
    cache folder (:func:`graderctl.store.set_cache.cache_root`: ``$GRADERCTL_CACHE_DIR``, ``off`` turns it
    off), one folder per project (by its resolved path). ``None`` when caching is off or there is no home
    folder.

    Never inside the project: the key is computed from public things (the grader's fingerprint and the
    input), so an entry committed to a repository or shipped in a pull request could otherwise decide a
    verdict on inputs it was never graded on; the user's own cache folder cannot be written by a project."""
    from graderctl.store.set_cache import cache_root

    base = cache_root()
    if base is None:
        return None
    try:
        where = str(root.resolve())
    except (OSError, RuntimeError):
        where = str(root.absolute())
    project = hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return base / "verdicts" / project


class VerdictCache:
    """Get and put verdicts of one grader (one fingerprint). Safe to share between threads."""

    def __init__(self, directory: Path, grader_fingerprint: str) -> None:
        self.grader_fingerprint = grader_fingerprint
        digest = grader_fingerprint.split(":", 1)[-1]
        self.directory = Path(directory) / digest[:16]
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def __repr__(self) -> str:
        return f"VerdictCache({str(self.directory)!r})"

    def key(self, payload: Any, repeat: int = 0) -> str:
        h = hashlib.sha256()
        h.update(f"graderctl-verdict-cache-v{CACHE_FORMAT}\n".encode())
        h.update(self.grader_fingerprint.encode())
        h.update(b"\n")
        h.update(canonical_bytes(payload))
        h.update(f"\nrepeat={int(repeat)}".encode())
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, payload: Any, repeat: int = 0) -> Verdict | None:
        """The stored verdict for ``payload`` (as a cached, free verdict), or ``None``."""
        path = self._path(self.key(payload, repeat))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            verdict = _verdict_from_entry(data, self.grader_fingerprint)
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            verdict = None
        if verdict is None:
            self.misses += 1
        else:
            self.hits += 1
        return verdict

    def put(self, payload: Any, verdict: Verdict, repeat: int = 0) -> None:
        """Store a verdict; error verdicts and already-cached verdicts are not stored."""
        if verdict.is_error or (verdict.usage is not None and verdict.usage.cached):
            return
        path = self._path(self.key(payload, repeat))
        entry = _entry_from_verdict(verdict, self.grader_fingerprint)
        try:
            text = json.dumps(entry, ensure_ascii=False, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            return  # details that do not serialise: not worth failing a run over a cache entry
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        self.writes += 1


def _entry_from_verdict(verdict: Verdict, fingerprint: str) -> dict[str, Any]:
    usage = verdict.usage
    return {
        "format": CACHE_FORMAT,
        "fingerprint": fingerprint,
        "accepted": verdict.accepted,
        **({"undecided": True} if verdict.is_undecided else {}),
        "reason": verdict.reason,
        "score": verdict.score,
        "details": verdict.details,
        "usage": None
        if usage is None
        else {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "usd": usage.usd,
            "requests": usage.requests,
        },
    }


def _verdict_from_entry(data: Any, fingerprint: str) -> Verdict | None:
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return None
    if data.get("fingerprint") != fingerprint:
        return None
    accepted = data.get("accepted")
    undecided = data.get("undecided") is True and accepted is None
    if not (isinstance(accepted, bool) or undecided):
        return None
    reason = data.get("reason")
    score = data.get("score")
    if not isinstance(reason, str) or not (score is None or isinstance(score, int | float)):
        return None
    details = data.get("details")
    details = dict(details) if isinstance(details, dict) else {}
    original = data.get("usage")
    if isinstance(original, dict):
        details["cached_usage"] = original
    return Verdict(
        accepted=accepted,
        reason=reason,
        score=None if score is None else float(score),
        usage=Usage(cached=True),
        details=details or None,
        abstained=undecided,
    )
