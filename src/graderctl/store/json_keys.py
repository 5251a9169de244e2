"""A cheap, exact filter before the duplicate-key check of JSON Lines records (``metrics``, and the trials
``units``, ``score`` and ``validate`` read): a line is parsed once (:func:`read_strictly`), and a
re-encoding proves that most lines have no key twice in one object, so the exact (and slower)
:func:`~graderctl.store.readers.duplicate_key_problem` runs only on the others."""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
from pydantic_core import from_json as _from_json

_generic_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format
_REENCODE_ERRORS = (msgspec.DecodeError, msgspec.EncodeError, RecursionError, OverflowError, ValueError)


#: What :func:`read_strictly` gives for a text msgspec does not read.
UNREAD: Any = object()


def read_strictly(raw: bytes) -> Any:
    """The value of the JSON text ``raw`` as msgspec reads it, or :data:`UNREAD`. msgspec reads only strict
    JSON: a text it reads holds no ``NaN``, ``Infinity`` or ``-Infinity`` and no number out of range (the
    non-finite values :func:`~graderctl.store.readers.iter_jsonl_fast` reports), and the value can be given
    to :func:`may_repeat_a_key_of` (one parse for both checks).

    The text is parsed by pydantic's parser first (the one ``model_validate_json`` uses; about 1.6 times as
    fast as msgspec on a trial's line, which is mostly a long string): with ``NaN`` and ``Infinity`` refused
    it gives msgspec's value (differential test, ``tests/store/test_trial_key_checks.py``) but for two cases.
    It reads a number out of range as an infinite float, where msgspec reads nothing: such a value is
    :data:`UNREAD` (one left out of the value, a key's value given again later in its object, makes no
    difference: the line has a repeated key, which the exact check refuses, and no non-finite value is
    reported from what is kept either way). And it refuses objects and arrays nested deeper than its limit:
    msgspec reads the text then."""
    try:
        value = _from_json(raw, allow_inf_nan=False)
    except ValueError:
        try:
            return _generic_decode(raw)
        except _REENCODE_ERRORS:
            return UNREAD
    return value if _finite(value) else UNREAD


def _finite(value: Any) -> bool:
    """Whether no float in the JSON value ``value`` is infinite (or NaN)."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list:
        items = value
    else:
        return kind is not float or math.isfinite(value)
    for item in items:
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return False
        elif (kind is dict or kind is list) and not _finite(item):
            return False
    return True


def may_repeat_a_key(raw: bytes) -> bool:
    """:func:`may_repeat_a_key_of` of ``raw`` as msgspec reads it."""
    return may_repeat_a_key_of(raw, read_strictly(raw))


def may_repeat_a_key_of(raw: bytes, value: Any) -> bool:
    """``False`` only when the JSON text ``raw`` (valid) has no key twice in one object; then the exact (and
    slower) :func:`~graderctl.store.readers.duplicate_key_problem` need not run. For a line of 1 KB: 3.5 us
    written compactly, 5 us as ``json.dumps`` writes it (``graderctl score``); the exact check takes 20 us.

    A parser keeps one member per distinct key of an object, so ``again``, the re-encoding of the parsed
    value, has exactly one key per member kept. The proofs, cheapest first:

    1. ``again == raw``: the two texts are the same bytes, so they have the same keys; ``raw`` has no key
       that the parser dropped, so none twice (a compact line as msgspec, orjson or
       ``json.dumps(separators=(",", ":"))`` write it);
    2. ``again == compact``, ``compact`` being ``raw`` with the white space between tokens removed
       (``msgspec.json.format``, which rewrites white space only: every key, escape and number is kept as
       written, repeated keys too): the same argument (``json.dumps`` with its default separators, as
       ``graderctl score`` writes);
    3. ``compact`` has no ``\\u`` escape: then every ``":`` in it ends a key, opens a string that starts
       with a colon, or is an escaped quote before a colon inside a string, and ``again`` writes each of
       them the same way (msgspec escapes ``"`` as ``\\"``; ``compact`` has no white space before a colon):
       the counts of ``":`` are equal exactly when no key was dropped (other escapes, other number forms);
    4. otherwise ``json.dumps`` of the parsed value (one key per member kept; non-ASCII text escaped when
       ``compact`` is ASCII) equal to ``compact`` (a line ``json.dumps`` wrote with ``\\u`` escapes).

    ``value`` is ``raw`` as msgspec reads it (:func:`read_strictly`). Anything else (a value msgspec cannot
    parse or write) says "maybe"."""
    if value is UNREAD:
        return True
    try:
        again = _encode(value)
        if again == raw:
            return False
        compact = _format(raw, indent=-1)
    except _REENCODE_ERRORS:
        return True
    if again == compact:
        return False
    if b"\\u" not in compact:
        return compact.count(b'":') != again.count(b'":')
    try:
        written = json.dumps(value, ensure_ascii=compact.isascii(), separators=(",", ":")).encode()
    except _REENCODE_ERRORS:
        return True
    return written != compact
