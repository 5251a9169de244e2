"""Identity hashes of graders and calibration sets.

The algorithm is versioned: ``FINGERPRINT_ALGORITHM`` is hashed in, so a change to the canonical form changes
every fingerprint at once (and the golden tests in ``tests/store/test_fingerprint.py`` say so).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from typing import Any

FINGERPRINT_ALGORITHM = "graderctl-fingerprint-v1"


def canonicalize(value: Any) -> Any:
    """Sorted keys, NFC-normalised strings, integral floats as ints; the rest as JSON has it."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {canonicalize(str(k)): canonicalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonicalize(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def canonical_bytes(value: Any) -> bytes:
    return json.dumps(
        canonicalize(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def fingerprint_of(kind: str, value: Any) -> str:
    h = hashlib.sha256()
    h.update(f"{FINGERPRINT_ALGORITHM}\n{kind}\n".encode())
    h.update(canonical_bytes(value))
    return "sha256:" + h.hexdigest()


def grader_fingerprint(
    definition: dict[str, Any], files: dict[str, str], *, implementation: str = "1"
) -> str:
    """Over the resolved definition (as parsed from TOML), the text of every file it references and the kind's
    implementation version. Line ends in referenced files are normalised to ``\\n`` so a checkout on Windows
    does not change it."""
    texts = {name: text.replace("\r\n", "\n") for name, text in files.items()}
    return fingerprint_of(
        "grader", {"definition": definition, "files": texts, "implementation": implementation}
    )


def set_fingerprint(
    manifest: dict[str, Any], samples: Iterable[dict[str, Any]], corpus: Iterable[dict[str, Any]]
) -> str:
    """Over the manifest, the samples ordered by id and the corpus documents ordered by id."""
    h = hashlib.sha256()
    h.update(f"{FINGERPRINT_ALGORITHM}\nset\n".encode())
    h.update(canonical_bytes(manifest))
    for part, items in (("samples", samples), ("corpus", corpus)):
        h.update(f"\n{part}\n".encode())
        for item in sorted(items, key=lambda d: str(d.get("id", ""))):
            h.update(canonical_bytes(item))
            h.update(b"\n")
    return "sha256:" + h.hexdigest()
