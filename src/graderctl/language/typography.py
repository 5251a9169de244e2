"""Typography folding and the comparison form of a text: NFKC, curly and straight quotes, dashes, soft
hyphens, zero-width characters, exotic spaces, whitespace runs, case. Pure functions, standard library
only."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["collapse_whitespace", "fold_typography", "normalize", "split_ellipsis"]

_QUOTES = "\"'`´‘’‚‛“”„‟«»‹›′″〝〞＂＇"
_DASHES = "‐‑‒–—―−﹘﹣－⁃"
#: Deleted outright: soft hyphen, zero-width space / joiners, word joiner, BOM.
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"


def _typo_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for ch in _QUOTES:
        table[ord(ch)] = "'"
    for ch in _DASHES:
        table[ord(ch)] = "-"
    for ch in _INVISIBLE:
        table[ord(ch)] = None
    for ch in _SPACES:
        table[ord(ch)] = " "
    table[ord("…")] = "..."
    return table


_TYPO_TABLE: dict[int, str | None] = _typo_table()
#: The few ASCII characters the table changes (it maps the rest of ASCII to itself): an ASCII text is folded
#: by replacing just these, many times faster than ``str.translate`` with a dict. No replacement contains a
#: character that is replaced, so doing them one after the other equals the table.
_ASCII_FOLDS = tuple((chr(k), v or "") for k, v in _TYPO_TABLE.items() if k < 128 and v != chr(k))
#: The characters the table changes, as one pattern: other texts are folded by replacing each match, many
#: times faster than ``str.translate`` with a dict (which looks every character up); the same result.
_TYPO_RE = re.compile("[" + "".join(re.escape(chr(k)) for k, v in _TYPO_TABLE.items() if v != chr(k)) + "]")
_TYPO_STR = {chr(k): v or "" for k, v in _TYPO_TABLE.items()}


def collapse_whitespace(text: str) -> str:
    """Every run of whitespace (spaces, tabs, line breaks) becomes one space; the ends are stripped."""
    # str.split() splits at exactly the characters ``\s`` matches, and is several times faster than a regex
    return " ".join(text.split())


def fold_typography(text: str) -> str:
    """NFKC; every quote mark (curly, straight, guillemets, primes) becomes ``'``; every dash or minus becomes
    ``-``; soft hyphens and zero-width characters are removed; exotic spaces become plain spaces; ``…``
    becomes ``...``. Case and whitespace runs are kept."""
    if text.isascii():
        for char, folded in _ASCII_FOLDS:
            if char in text:
                text = text.replace(char, folded)
        return text
    text = unicodedata.normalize("NFKC", text)
    if _TYPO_RE.search(text) is None:
        return text
    return _TYPO_RE.sub(lambda m: _TYPO_STR[m.group()], text)


def normalize(text: str, *, casefold: bool = True) -> str:
    """The form texts are compared in: :func:`fold_typography`, whitespace runs collapsed, lower case."""
    text = collapse_whitespace(fold_typography(text))
    return text.lower() if casefold else text


_ELLIPSIS = re.compile(r"[\[(]?\s*(?:\.\s?\.\s?\.|…)\s*[\])]?")


def split_ellipsis(text: str) -> list[str]:
    """Split a quote at ellipses (``...``, ``…``, ``[...]``, ``(...)``) into the fragments it joins, in order.
    Empty fragments are dropped; the fragments keep their own text (not normalised)."""
    has_ellipsis = "…" in text or ".." in text or ". ." in text
    parts = _ELLIPSIS.split(text) if has_ellipsis else [text]  # the common case skips the regex
    return [p.strip() for p in parts if p.strip(" .,;:'\"")]
