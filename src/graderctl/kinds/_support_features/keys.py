"""Content keys of words: the Snowball stem of a token, canonicalised through the synonym groups, or nothing
for a function word, a negation or a number (tokens from :data:`graderctl.language.tokens.WORD_TOKEN_RE`);
and the patterns the readings share (ISO dates, digit runs, number words, clause splits).

The caches here only remember what a pure function gave (a word's key, a chunk's keys, which keys share their
first letters): they never change a result, only how fast it comes."""

from __future__ import annotations

import re
import threading
from itertools import chain

from graderctl.kinds._support_features.vocab import MONTH_ABBR, MONTHS, NEGATIONS, STOPWORDS, SYNONYMS
from graderctl.language.stemming import stem
from graderctl.language.tokens import WORD_TOKEN_RE

ISO_DATE_RE = re.compile(r"\b(1\d{3}|20\d{2})-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\d|3[01])\b")
DIGITS_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")
#: A number word from "two" to "ninety" or "hundred", as a whole word, case ignored: the same matches as
#: ``(?i)\b(?:two|three|...|ninety|hundred)\b``, written to begin with one character set (the first letters,
#: and the characters case-insensitive matching takes for them) so that the regex engine skips to candidates
#: quickly (several times faster on long pages).
NUMBER_WORDS_RE = re.compile(
    r"[EFHNSTefhnst\u017f](?<!\w.)(?i:"
    r"(?<=t)(?:wo|hree|en|welve|hirteen|wenty|hirty)"
    r"|(?<=f)(?:our|ive|ourteen|ifteen|ifty|orty)"
    r"|(?<=s)(?:ix|even|ixteen|eventeen|ixty|eventy)"
    r"|(?<=e)(?:ight|leven|ighteen|ighty)"
    r"|(?<=n)(?:ine|ineteen|inety)"
    r"|(?<=h)undred"
    r")(?!\w)"
)
CLAUSE_SPLIT_RE = re.compile(
    r"[,;:()\[\]]|\s-\s|\b(?:and|but|while|which|who|whom|whose|whereas|although|though|including|where|"
    r"when|after|before|because|since)\b",
    re.IGNORECASE,
)


def _word_key(word: str) -> str | None:
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("'"):
        w = w[:-1]
    if len(w) < 2 or w in STOPWORDS or w in NEGATIONS or w.endswith("n't"):
        return None
    if w[0].isdigit():
        return None  # numbers are compared by value
    if len(w) <= 4 and w in MONTH_ABBR:
        w = MONTH_ABBR[w]
    s = stem(w)
    return SYNONYMS.get(s, s)


class _KeyCache(dict[str, str | None]):
    def __missing__(self, word: str) -> str | None:
        key = _word_key(word)
        if key is not None and len(key) >= 6:
            _register_prefix(key)
        if len(self) < 1_000_000:
            self[word] = key
        return key


#: First 5 letters -> every content key of 6 letters or more made so far that starts with them (each key
#: passes through :class:`_KeyCache` before it can be in an evidence index): a page's keys sharing a claim
#: term's first letters are found with a few lookups, without scanning the page's vocabulary.
PREFIX_KEYS: dict[str, tuple[str, ...]] = {}
_PREFIX_LOCK = threading.Lock()
#: Past this many keys the table stops growing and pages are scanned instead (see prefix_mask).
PREFIX_KEYS_LIMIT = 2_000_000
prefix_keys_count = [0]


def _register_prefix(key: str) -> None:
    with _PREFIX_LOCK:
        if prefix_keys_count[0] >= PREFIX_KEYS_LIMIT:
            return
        group = PREFIX_KEYS.get(key[:5], ())
        if key not in group:
            PREFIX_KEYS[key[:5]] = (*group, key)
            prefix_keys_count[0] += 1


KEY_CACHE = _KeyCache()
for _m in MONTHS:
    if len(stem(_m)) >= 6:
        _register_prefix(stem(_m))  # ISO dates add their month's key to a sentence without the cache


def word_key(word: str) -> str | None:
    """The content key of a token (its Snowball stem, canonicalised through :data:`SYNONYMS`), or ``None``
    for a function word, a negation or a number. Case does not matter."""
    return KEY_CACHE[word]


class _StemCache(dict[str, str]):
    def __missing__(self, word: str) -> str:
        s = stem(word)
        if len(self) < 1_000_000:
            self[word] = s
        return s


STEM_CACHE = _StemCache()


class _ChunkKeys(dict[str, tuple[str, ...]]):
    """Content keys (:func:`word_key`, function words dropped) of a chunk of lower-case text without
    whitespace. A token never spans whitespace, so the keys of a text are those of its chunks one after the
    other, and a page is keyed with one dictionary lookup per chunk (chunks recur: "growth.", "said,")."""

    def __missing__(self, chunk: str) -> tuple[str, ...]:
        keys = tuple(filter(None, map(KEY_CACHE.__getitem__, WORD_TOKEN_RE.findall(chunk))))
        if len(self) < 1_000_000:
            self[chunk] = keys
        return keys


_CHUNK_KEYS = _ChunkKeys()


def text_keys(text: str) -> tuple[str, ...]:
    """The content keys of a lower-case text, in order: :func:`word_key` of each token, function words,
    negations and numbers dropped."""
    return tuple(chain.from_iterable(map(_CHUNK_KEYS.__getitem__, text.split())))
