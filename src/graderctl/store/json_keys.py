"""A cheap, exact filter before the duplicate-key check of JSON Lines records (``metrics``, and the trials
``units``, ``score`` and ``validate`` read): a line is parsed once (:func:`read_strictly`), and a
re-encoding proves that most lines have no key twice in one object, so the exact (and slower)
:func:`~graderctl.store.readers.duplicate_key_problem` runs only on the others."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
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
    parse or write) says "maybe". Before them all, for a line with a long text (a trial's report):
    :func:`_holds_one_text_of`."""
    if value is UNREAD:
        return True
    if type(value) is dict and _holds_one_text_of(raw, value):
        return False
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


#: Proof 0 of :func:`may_repeat_a_key_of` is tried on a line whose longest text has at least this many
#: characters (on a shorter line re-encoding it all costs no more).
SPLICE_FROM = 200
#: A text no line holds, put in place of the longest one; and as both encoders write it.
_HOLE = "\x00graderctl hole\x00"
_WRITTEN_HOLE = b'"\\u0000graderctl hole\\u0000"'
_BACKSLASH = ord("\\")
#: A ``"`` with no backslash just before it, or two (the proof takes no others for escaped).
_UNESCAPED_QUOTE = re.compile(rb'"(?:(?<!\\")|(?<=\\\\"))')


def _no_default(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def _spaced_writer() -> Callable[[Any], str]:
    """``json.dumps`` (its layout: ", " and ": ", non-ASCII text escaped), without the encoder it makes at
    each call (most of its time on a small value): the C encoder, made once, when this Python has it."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(check_circular=False).encode
    escaped = json.encoder.encode_basestring_ascii
    chunks = make(None, _no_default, escaped, None, ": ", ", ", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_dumps = _spaced_writer()


def _longest_text(value: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The object (``value`` or one directly in it) and key of the longest string among their values (a
    trial's report text), when it has at least :data:`SPLICE_FROM` characters."""
    longest, where = SPLICE_FROM - 1, None
    for key, item in value.items():
        if type(item) is str:
            if len(item) > longest:
                longest, where = len(item), (value, key)
        elif type(item) is dict:
            for inner, text in item.items():
                if type(text) is str and len(text) > longest:
                    longest, where = len(text), (item, inner)
    return where


def _holds_one_text_of(raw: bytes, value: dict[str, Any]) -> bool:
    """Proof 0 of :func:`may_repeat_a_key_of`, without writing the long text again: ``True`` only when
    ``raw`` has no key twice in one object. ``skeleton``, ``value`` with its longest text replaced by
    :data:`_HOLE`, written in the layout of ``raw`` (as msgspec or as ``json.dumps`` writes), has one key per
    member kept. When ``raw`` is the bytes of ``skeleton`` before the hole (``head``, ending with the quote
    that opens it), any bytes in which every ``"`` is escaped (one backslash before it, no backslash before
    that one) and that do not end with a backslash, then the bytes of ``skeleton`` after the hole (``tail``,
    beginning with the quote that closes it): reading ``raw`` from its start, ``head`` gives the tokens it
    gives in ``skeleton``, the string it opens ends exactly where ``tail`` begins, and ``tail`` gives the
    tokens it gives in ``skeleton``. So ``raw`` has the tokens of ``skeleton`` but the one string's content:
    as many keys as ``value`` keeps, none dropped."""
    where = _longest_text(value)
    if where is None:
        return False
    holder, key = where
    text = holder[key]
    holder[key] = _HOLE  # (put back below: the skeleton is written from ``value`` itself, not a copy)
    try:
        written = _dumps(value).encode() if raw.find(b'": ', 0, 80) >= 0 else _encode(value)
    except _REENCODE_ERRORS:
        return False
    finally:
        holder[key] = text
    hole = written.find(_WRITTEN_HOLE)
    if hole < 0 or written.find(_WRITTEN_HOLE, hole + 1) >= 0:
        return False  # (a text of the line written like the hole)
    head, tail = written[: hole + 1], written[hole + len(_WRITTEN_HOLE) - 1 :]
    start, end = len(head), len(raw) - len(tail)
    if end < start or raw[end - 1] == _BACKSLASH or not raw.startswith(head) or not raw.endswith(tail):
        return False
    quote = raw.find(b'"', start, end)  # (most texts have none: memchr finds that fastest)
    return quote < 0 or _UNESCAPED_QUOTE.search(raw, quote, end) is None
