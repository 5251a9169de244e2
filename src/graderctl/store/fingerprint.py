"""Identity hashes of graders and calibration sets.

A fingerprint is ``sha256:`` + 64 hex digits. The algorithm is versioned: ``FINGERPRINT_ALGORITHM`` is hashed
in first, so a change to the canonical form changes every fingerprint at once, and the golden tests in
``tests/store/test_fingerprint.py`` fail until the version string is bumped on purpose. Never change what is
hashed without bumping it: trust in reports and ``graders/graders.lock`` is bound to these values.

Algorithm ``graderctl-fingerprint-v1``:

* canonical JSON of a value (:func:`canonical_bytes`): object keys sorted, strings in Unicode NFC, floats with
  an integral value written as integers (TOML ``1`` and ``1.0`` agree), no whitespace, UTF-8.
* grader: ``sha256("graderctl-fingerprint-v1\\ngrader\\n" + canonical({"definition": <parsed TOML>,
  "files": {<relative path>: <text with \\n line ends>},
  "implementation": "<kind>/<implementation version>"}))``.
  Parsing makes key order, TOML formatting and comments irrelevant. A composite grader (``cascade``) adds
  ``"members": [<fingerprint of each member, in order>]``; other graders have no such key, so their
  fingerprints are what they were.
* calibration set: ``sha256("graderctl-fingerprint-v1\\nset\\n" + canonical(manifest) + "\\nsamples\\n" +
  <digest of each sample, ordered by id> + "\\ncorpus\\n" + <digest of each corpus document, ordered by id>)``
  where an item's digest is the raw SHA-256 of its :func:`item_bytes`. Items are dumps of validated models
  (``exclude_none``), so defaults are explicit and every field has one JSON type: a float field reads ``1.0``
  whether the file said ``1`` or ``1.0``; item bytes therefore skip the integral-float rule and are computed
  by the C JSON encoder, which keeps large sets fast.
"""

from __future__ import annotations

import hashlib
import json
import operator
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

FINGERPRINT_ALGORITHM = "graderctl-fingerprint-v1"
PREFIX = "sha256:"


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


# One encoder for every call: ``json.dumps`` with non-default options builds a new one each time.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical_bytes(value: Any) -> bytes:
    return _ENCODER.encode(canonicalize(value)).encode("utf-8")


def _nfc(text: str) -> str:
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


#: The bytes below 0xCC: every byte of the UTF-8 text of characters below U+0300, the first combining mark.
#: Text made of those characters only is in NFC already (each is a starter NFC leaves as it is, whatever its
#: neighbours: tests/store/test_fingerprint.py checks every pair), so a batch of item JSON with no other byte
#: needs no normalisation.
_BELOW_U0300 = bytes(range(0xCC))
_DIGEST = operator.methodcaller("digest")


def _nfc_bytes(encoded: bytes) -> bytes:
    if encoded.isascii():
        return encoded
    text = encoded.decode("utf-8")
    normal = _nfc(text)
    return encoded if normal is text else normal.encode("utf-8")


def item_bytes(dump: dict[str, Any]) -> bytes:
    """Canonical bytes of one set item (a validated model's JSON dump): keys sorted, text in NFC.

    NFC over the whole JSON text equals NFC of each string in it: JSON's own characters are ASCII starters,
    which no normalisation composes with or reorders around."""
    return _nfc(_ENCODER.encode(dump)).encode("utf-8")


def item_digest(dump: dict[str, Any]) -> bytes:
    return hashlib.sha256(item_bytes(dump)).digest()


def fingerprint_of(kind: str, value: Any) -> str:
    h = hashlib.sha256()
    h.update(f"{FINGERPRINT_ALGORITHM}\n{kind}\n".encode())
    h.update(canonical_bytes(value))
    return PREFIX + h.hexdigest()


def grader_fingerprint(
    definition: dict[str, Any],
    files: dict[str, str],
    *,
    implementation: str = "1",
    members: Sequence[str] = (),
) -> str:
    """Over the resolved definition (as parsed from TOML), the text of every file it references, the kind's
    implementation version and, for a composite grader, its members' fingerprints in order. Line ends in
    referenced files are normalised to ``\\n`` so a checkout on Windows does not change it."""
    texts = {name: text.replace("\r\n", "\n").replace("\r", "\n") for name, text in files.items()}
    value: dict[str, Any] = {"definition": definition, "files": texts, "implementation": implementation}
    if members:
        value["members"] = list(members)
    return fingerprint_of("grader", value)


class SetFingerprinter:
    """Builds a calibration-set fingerprint from items fed one at a time (any order), keeping only a
    32-byte digest per item."""

    def __init__(self) -> None:
        self._samples: list[tuple[str, bytes]] = []
        self._corpus: list[tuple[str, bytes]] = []

    def add_sample(self, dump: dict[str, Any]) -> None:
        self._samples.append((_nfc(str(dump.get("id", ""))), item_digest(dump)))

    def add_samples_json(self, ids: Sequence[str], items: Sequence[bytes]) -> None:
        """Samples given as their ids and item JSON before NFC: the JSON :func:`item_bytes` encodes, as UTF-8
        bytes (keys sorted, no whitespace, Python's escapes). The same digests as :meth:`add_sample` of their
        dumps."""
        if b"".join(items).translate(None, _BELOW_U0300):  # a byte of a character at or above U+0300
            items = [_nfc_bytes(item) for item in items]
        digests = map(_DIGEST, map(hashlib.sha256, items))
        keys = ids if "".join(ids).isascii() else [_nfc(i) for i in ids]
        self._samples.extend(zip(keys, digests, strict=True))

    def add_document(self, dump: dict[str, Any]) -> None:
        self._corpus.append((_nfc(str(dump.get("id", ""))), item_digest(dump)))

    def fingerprint(self, manifest: dict[str, Any]) -> str:
        h = hashlib.sha256()
        h.update(f"{FINGERPRINT_ALGORITHM}\nset\n".encode())
        h.update(canonical_bytes(manifest))
        for part, items in (("samples", self._samples), ("corpus", self._corpus)):
            h.update(f"\n{part}\n".encode())
            for _, digest in sorted(items):
                h.update(digest)
        return PREFIX + h.hexdigest()


def set_fingerprint(
    manifest: dict[str, Any], samples: Iterable[dict[str, Any]], corpus: Iterable[dict[str, Any]]
) -> str:
    """Over the manifest, the samples ordered by id and the corpus documents ordered by id (each given as
    the JSON dump of its validated model, ``exclude_none=True``)."""
    fp = SetFingerprinter()
    for s in samples:
        fp.add_sample(s)
    for d in corpus:
        fp.add_document(d)
    return fp.fingerprint(manifest)
