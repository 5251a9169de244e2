"""The number reader: numbers of a text with their exact value, so "3.5 million" equals "3,500,000", "40%"
equals "40 percent" and "five" equals "5". Number words, scale words and abbreviations are in
``data/number_words.txt``, ``data/scale_words.txt`` and ``data/scale_abbreviations.txt``.

Every number the rule kinds compare is found here. Two readings build on it, each part of what a released
grader computes: :mod:`graderctl.language.quantities` (coverage: precision as written, hedges from
``data/hedges.txt``, verbal fractions, case-sensitive units) and ``kinds._support_features.numbers``
(claim_support: the kind of a figure -- year, percent, currency, unit, counted thing -- its bound, units read
case-folded, hedges from ``data/approximators.txt``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from graderctl.language import vocabulary

__all__ = [
    "NUMBER_WORDS",
    "SCALE_WORDS",
    "NumberMention",
    "extract_numbers",
    "number_key",
    "number_keys",
    "numbers_close",
]

#: Number words from ``zero`` to ``ninety`` -> value.
NUMBER_WORDS: dict[str, int] = {k: int(v) for k, v in vocabulary.table("number_words").items()}
#: ``hundred`` ... ``trillion`` -> value.
SCALE_WORDS: dict[str, int] = {k: int(v) for k, v in vocabulary.table("scale_words").items()}
#: ``k``, ``m``, ``bn`` ... -> value (they count only after a currency sign).
_ABBREV_SCALES: dict[str, int] = {k: int(v) for k, v in vocabulary.table("scale_abbreviations").items()}

_NUM_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_SCALE_WORD = "|".join(SCALE_WORDS)
_NUMBER_RE = re.compile(
    r"(?P<cur>[$£€¥#]\s?)?"
    r"(?<![\w.,])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?(?![.,]?\d)"
    r"(?:(?:st|nd|rd|th|s)\b)?"
    r"(?:\s?(?P<unit>%|percent\b|per\s?cent\b|pc\b|percentage points?\b)"
    rf"|\s?(?P<scale>(?:{_SCALE_WORD})\b)"
    r"|(?P<abbr>k|mn|mln|m|bn|b|tn)\b)?"
    rf"|(?<![\w-])(?P<words>(?:{_NUM_WORD})(?:[\s-](?:{_NUM_WORD}))?)"
    rf"(?:\s(?P<wscale>(?:{_SCALE_WORD})\b))?(?![\w-])"
    rf"(?:\s?(?P<wunit>percent\b|per\s?cent\b))?",
    re.IGNORECASE,
)
_HAS_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[a-z]+")
_NUMBER_WORD_SET = frozenset(NUMBER_WORDS)


@dataclass(frozen=True, slots=True)
class NumberMention:
    """A number found in a text: its exact ``value``, whether it is a percentage, and where it was."""

    value: Decimal
    percent: bool
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        return number_key(self.value, self.percent)


def number_key(value: Decimal, percent: bool = False) -> str:
    """Canonical text of a number: ``3500000``, ``3.5``, ``40%``."""
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + ("%" if percent else "")


def _words_value(words: str) -> int | None:
    total = 0
    for part in re.split(r"[\s-]+", words.lower()):
        if part not in NUMBER_WORDS:
            return None
        total += NUMBER_WORDS[part]
    return total


def extract_numbers(text: str) -> list[NumberMention]:
    """Numbers in ``text`` with their values: digits with thousands separators and decimals, ordinals
    (``14th`` -> 14), decades (``1990s`` -> 1990), scale words (``3.5 million``), currency abbreviations
    (``$2bn``; ``m``/``k``/``bn`` count only after a currency sign), percentages (``40%``, ``40 percent``,
    ``40 per cent``) and number words up to ninety-nine (``five``, ``twenty-one``, ``three million``)."""
    if _HAS_DIGIT.search(text) is None and _NUMBER_WORD_SET.isdisjoint(_LETTERS.findall(text.lower())):
        return []  # the common case, decided without the large pattern
    found: list[NumberMention] = []
    for m in _NUMBER_RE.finditer(text):
        percent = False
        try:
            if m.group("int") is not None:
                value = Decimal(m.group("int").replace(",", ""))
                if m.group("frac"):
                    value = Decimal(m.group("int").replace(",", "") + "." + m.group("frac"))
                if m.group("unit"):
                    percent = True
                elif m.group("scale"):
                    value *= SCALE_WORDS[m.group("scale").lower()]
                elif m.group("abbr") and m.group("cur"):
                    value *= _ABBREV_SCALES[m.group("abbr").lower()]
            else:
                w = _words_value(m.group("words"))
                if w is None:
                    continue
                value = Decimal(w)
                if m.group("wscale"):
                    value *= SCALE_WORDS[m.group("wscale").lower()]
                if m.group("wunit"):
                    percent = True
        except InvalidOperation:  # pragma: no cover - the pattern only admits digits
            continue
        found.append(NumberMention(value, percent, m.group(), m.start(), m.end()))
    return found


def number_keys(text: str) -> list[str]:
    """Canonical keys of the numbers in ``text`` (see :func:`extract_numbers`), in order of appearance."""
    return [n.key for n in extract_numbers(text)]


def numbers_close(a: Decimal | float, b: Decimal | float, *, rel: float = 0.1) -> bool:
    """Whether two numbers agree approximately (``almost 8 million`` vs ``7.5 million``): within ``rel`` of
    the larger magnitude."""
    fa, fb = float(a), float(b)
    if fa == fb:
        return True
    return abs(fa - fb) <= rel * max(abs(fa), abs(fb))
