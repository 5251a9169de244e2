"""Quantities for the ``coverage`` kind: the numbers of a text with how exactly they were stated, and when a
number a nugget requires counts as stated by a report.

A quantity is a number (:func:`graderctl.language.numbers.extract_numbers`: digits, scale words, percentages,
number words) plus what the text says about its precision:

- *hedged* (``about 26%``, ``nearly 8 million``, ``more than 300``): compared within 10%;
- *verbal* fractions and proportions (``a quarter``, ``half``, ``two thirds``, ``nine in ten``, ``halved``):
  percentages, always approximate;
- *precision as written*: ``2.3 million`` stands for anything that rounds to it (``2,314,000``), ``21%`` for
  ``21.4%``; a plain integer is exact to its last digit (``40,000`` is not ``41,000``);
- *years* (``2013``) are compared exactly, never approximately;
- dates: a nugget's day and year are stated when the report gives the same month with the same day or none
  (``by April 30, 2024`` ~ ``by the end of April``) and the same year, or, when its date has no year, the
  year anywhere;
- complementary percentages (``retained 94%`` ~ ``lost about 6%``) count only when the two sentences are
  linked by words of opposite polarity (retain/lose, support/oppose, vaccinated/unvaccinated, ...).

The bare word ``one`` is not a quantity (it is mostly a pronoun: "one of the ..."), nor are ``first`` and
``second`` in a nugget; ordinal words from ``third`` on are (``fifteenth`` = ``15th``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from graderctl.language import vocabulary
from graderctl.language.dates import MONTHS, DateMention, extract_dates
from graderctl.language.numbers import NUMBER_WORDS, extract_numbers, numbers_close

__all__ = ["Quantity", "ReportQuantities", "complement_linked", "extract_quantities", "quantity_present"]

#: ``one`` ... ``twelve`` -> value.
_UNIT_WORDS: dict[str, int] = {k: v for k, v in NUMBER_WORDS.items() if 1 <= v <= 12}
#: Ordinal words from ``third`` on -> value.
_ORDINALS: dict[str, int] = {k: int(v) for k, v in vocabulary.table("ordinal_words").items()}
#: ``twenty`` ... ``ninety`` -> value.
_TENS: dict[str, int] = {k: v for k, v in NUMBER_WORDS.items() if v >= 20}
#: Fractions by their denominator word (singular and plural).
_DENOMINATORS: dict[str, int] = {k: int(v) for k, v in vocabulary.table("fraction_denominators").items()}
_TIME_UNITS = r"(?:second|minute|hour|day|week|month|year|game|match|matche|race|start|attempt|season)s?\b"
_NUMBER_WORDS = "|".join(sorted([*_UNIT_WORDS, *_TENS], key=len, reverse=True))
_SMALL = rf"(?:\d{{1,3}}|a|an|{_NUMBER_WORDS})"
_ORDINAL_RE = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(_TENS)})-)?(?P<ord>{'|'.join(sorted(_ORDINALS, key=len, reverse=True))}"
    r"|first|second)\b",
    re.I,
)
_FRACTION_RE = re.compile(
    rf"\b(?P<num>a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+"
    rf"(?P<den>{'|'.join(sorted(_DENOMINATORS, key=len, reverse=True))})\b"
    rf"|\b(?P<half>half)\b(?!-?(?:time|term|way|hour|day|century|brother|sister|marathon)s?\b)"
    r"|\b(?P<halved>halv(?:e|ed|es|ing))\b"
    rf"|\b(?P<pn>\d{{1,3}}|{_NUMBER_WORDS})\s+(?:in|out\s+of|per)\s+(?:every\s+)?"
    rf"(?P<pd>\d{{1,3}}(?:,\d{{3}})*|(?:(?:a|one)\s+)?(?:hundred|thousand|million)|{_NUMBER_WORDS})\b"
    rf"(?![.,]?\d)(?!\s+{_TIME_UNITS})",
    re.I,
)
_A_SCALE_RE = re.compile(r"\b(?:a|one)\s+(?P<scale>dozen|hundred|thousand|million|billion)\b", re.I)
#: ``six-month`` -> ``six month`` (same length) so the number word is found; ``twenty-one`` is kept.
_HYPHENATED_WORD = re.compile(rf"\b(?:{_NUMBER_WORDS})(?P<h>-)(?=[a-z])(?!(?:{_NUMBER_WORDS})\b)", re.I)
#: Words before a figure that make it approximate (``data/hedges.txt``), or a sign (``~``, ``<``).
_HEDGE_BEFORE = re.compile(
    r"(?:\b(?:"
    + "|".join(r"\s+".join(map(re.escape, words)) for words in vocabulary.groups("hedges"))
    + r")|~|≈|<|>|≤|≥)\s*(?:an?\s+)?(?:[$£€¥#]\s?)?$",
    re.I,
)
_HEDGE_AFTER = re.compile(r"^\s*(?:or\s+so\b|-?odd\b|\+|plus\b)", re.I)
_SCALE_OR_DECIMAL = re.compile(
    r"(?P<mant>\d+(?:[.,]\d+)*)\s?(?:million|billion|trillion|thousand|bn|mn|mln|m|k|tn)\b", re.I
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number of a text. ``precision``: the place of its last written digit (``2.3 million`` -> 100,000,
    ``29.4`` -> 0.1, ``193,000`` -> 1), ``None`` for a word or a verbal fraction."""

    value: float
    percent: bool
    text: str
    start: int
    end: int
    approx: bool = False
    year: bool = False
    precision: float | None = 1.0
    #: Month of the date this number is the day or year of (``None``: not part of a dated mention).
    month: int | None = None
    day_of_date: bool = False
    #: The base unit of a measurement written with an SI prefix or a unit word (``4.996 GW`` -> ``W`` with
    #: ``factor`` 1e9, ``1.4 kg`` -> ``g`` with 1e3); ``None`` without a known unit.
    unit: str | None = None
    factor: float = 1.0


def _precision(text: str, value: float) -> float | None:
    digits = re.sub(r"[^\d.,]", "", text)
    if not digits or not digits[0].isdigit():
        return None
    m = _SCALE_OR_DECIMAL.search(text)
    mantissa = m.group("mant") if m else digits
    mantissa = mantissa.replace(",", "")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    unit = 10.0**-decimals
    if m:
        whole = float(mantissa) if mantissa.replace(".", "", 1).isdigit() else 0.0
        unit *= value / whole if whole else 1.0
    return unit


def _hedged(text: str, start: int, end: int) -> bool:
    return bool(_HEDGE_BEFORE.search(text[max(0, start - 40) : start])) or bool(
        _HEDGE_AFTER.match(text[end : end + 8])
    )


def _word_value(word: str) -> float | None:
    w = word.lower().replace(",", "")
    if w.split()[-1] in _SCALE_VALUES:  # "thousand", "a thousand"
        return float(_SCALE_VALUES[w.split()[-1]])
    if w.isdigit():
        return float(w)
    if w in ("a", "an"):
        return 1.0
    if w in _UNIT_WORDS:
        return float(_UNIT_WORDS[w])
    if w in _TENS:
        return float(_TENS[w])
    return None


_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[a-z]+")
#: Words without which a text without digits has no quantity (the patterns are not run on it).
_TRIGGERS = frozenset(
    [
        *_UNIT_WORDS,
        *_TENS,
        *_ORDINALS,
        *_DENOMINATORS,
        *[
            "first",
            "second",
            "dozen",
            "hundred",
            "thousand",
            "million",
            "billion",
            "trillion",
            "halve",
            "halved",
            "halves",
            "halving",
        ],
        *["zero", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"],
    ]
)
_MONTH_WORDS = frozenset(MONTHS)
#: Words one of which each pattern needs (proportions "3 in 10" need "in" or "out").
_FRACTION_WORDS = frozenset([*_DENOMINATORS, "halve", "halved", "halves", "halving", "in", "out", "per"])
_SCALE_WORDS = frozenset(["dozen", "hundred", "thousand", "million", "billion"])
_ORDINAL_WORDS = frozenset([*_ORDINALS, "first", "second"])


def _dates(text: str) -> list[DateMention]:
    """:func:`graderctl.language.dates.extract_dates`, skipped for a text with neither a digit nor a month."""
    if _DIGIT.search(text) is None and _MONTH_WORDS.isdisjoint(_WORD.findall(text.lower())):
        return []
    return extract_dates(text)


def extract_quantities(
    text: str, *, in_nugget: bool = False, dates: list[DateMention] | None = None
) -> list[Quantity]:
    """The quantities of ``text`` (a cleaned text, see :func:`graderctl.kinds.coverage.clean_text`).
    ``in_nugget``: leave out ``first``/``second`` (too often not numbers) -- a report keeps them. ``dates``:
    the text's dates, when already known."""
    words = set(_WORD.findall(text.lower()))
    if _DIGIT.search(text) is None and _TRIGGERS.isdisjoint(words):
        return []
    probe = _HYPHENATED_WORD.sub(lambda m: m.group().replace("-", " "), text) if "-" in text else text
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []

    def add(q: Quantity) -> None:
        found.append(q)
        taken.append((q.start, q.end))

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    if "hundred" in words:
        for m in _HUNDRED_AND_RE.finditer(probe):
            rest = _words_number(m.group("rest"))
            head = _word_value(m.group("h"))
            if rest is not None and head is not None and free(m.start(), m.end()):
                add(Quantity(head * 100 + rest, False, m.group(), m.start(), m.end(), precision=None))
    fractions = _FRACTION_RE.finditer(probe) if not _FRACTION_WORDS.isdisjoint(words) else ()
    for m in fractions:
        if m.group("den"):
            num = _word_value(m.group("num"))
            den = _DENOMINATORS[m.group("den").lower()]
            if num is None or num >= den:
                continue
            value = 100.0 * num / den
        elif m.group("half") or m.group("halved"):
            value = 50.0
        else:
            pn, pd = _word_value(m.group("pn")), _word_value(m.group("pd"))
            if pn is None or not pd or pn > pd or pd < 2:
                continue
            value = 100.0 * pn / pd
        add(Quantity(value, True, m.group(), m.start(), m.end(), approx=True, precision=None))
    for m in _A_SCALE_RE.finditer(probe) if not _SCALE_WORDS.isdisjoint(words) else ():
        if free(m.start(), m.end()):
            word = m.group("scale").lower()
            value = 12.0 if word == "dozen" else float(_SCALE_VALUES[word])
            add(Quantity(value, False, m.group(), m.start(), m.end(), precision=None))
    for m in _ORDINAL_RE.finditer(probe) if not _ORDINAL_WORDS.isdisjoint(words) else ():
        word = m.group("ord").lower()
        if word in ("first", "second") and in_nugget and not m.group("tens"):
            continue
        if not free(m.start(), m.end()):
            continue
        base = {"first": 1, "second": 2}.get(word) or _ORDINALS[word]
        value = float(base + (_TENS[m.group("tens").lower()] if m.group("tens") else 0))
        add(Quantity(value, False, m.group(), m.start(), m.end(), precision=None))
    if dates is None:
        dates = _dates(text)
    for n in extract_numbers(probe):
        if not free(n.start, n.end):
            continue
        raw = text[n.start : n.end]
        value = float(n.value)
        if raw.strip().lower() == "one":
            continue  # "one of the ...": a pronoun far more often than a number
        is_word = not any(c.isdigit() for c in raw)
        year = (
            not is_word
            and not n.percent
            and value.is_integer()
            and 1800 <= value <= 2100
            and re.fullmatch(r"\d{4}s?", raw.strip()) is not None
        )
        month: int | None = None
        day = False
        for d in dates:
            if d.month is not None and d.start <= n.start and n.end <= d.end:
                month = d.month
                day = not year
                break
        add(
            Quantity(
                value,
                n.percent,
                raw,
                n.start,
                n.end,
                approx=_hedged(text, n.start, n.end),
                year=year,
                precision=None if is_word else _precision(raw, value),
                month=month,
                day_of_date=day,
                **_unit_after(text, n.end, n.percent),
            )
        )
    found.sort(key=lambda q: q.start)
    return _percent_ranges(text, found)


#: Units with SI prefixes or as words: (base unit, factor). Case matters ("MW" is not "mW").
_UNITS: dict[str, tuple[str, float]] = {
    k: (v.split()[0], float(v.split()[1])) for k, v in vocabulary.table("unit_symbols").items()
}
_UNIT_WORDS_TABLE: dict[str, tuple[str, float]] = {
    k: (v.split()[0], float(v.split()[1])) for k, v in vocabulary.table("unit_words").items()
}
_UNIT_RE = re.compile(
    r"\s?(?:(?P<sym>[kMGT]?Wh?|[kmc]?[mg]|t)(?![\w/])"
    rf"|(?P<word>(?:{'|'.join(sorted(_UNIT_WORDS_TABLE, key=len, reverse=True))})s?)\b)"
)


def _unit_after(text: str, end: int, percent: bool) -> dict[str, Any]:
    if percent:
        return {}
    m = _UNIT_RE.match(text, end)
    if m is None:
        return {}
    if m.group("sym"):
        unit, factor = _UNITS[m.group("sym")]
    else:
        unit, factor = _UNIT_WORDS_TABLE[m.group("word").lower().removesuffix("s")]
    return {"unit": unit, "factor": factor}


_RANGE_JOIN = re.compile(r"\s*(?:to|and|or|-|–|—)\s*")


def _percent_ranges(text: str, found: list[Quantity]) -> list[Quantity]:
    """A number joined to a percentage by "to"/"and"/a dash is a percentage too ("from forty-six to
    thirty-one percent", "between 5 and 7%")."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):
        q, nxt = out[i], out[i + 1]
        if nxt.percent and not q.percent and not q.year and _RANGE_JOIN.fullmatch(text[q.end : nxt.start]):
            out[i] = replace(q, percent=True)
    return out


_HUNDRED_AND_RE = re.compile(
    rf"\b(?P<h>a|one|two|three|four|five|six|seven|eight|nine)\s+hundred\s+(?:and\s+)?"
    rf"(?P<rest>(?:{'|'.join(_TENS)})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen)\b",
    re.I,
)


def _words_number(words: str) -> float | None:
    total = 0.0
    for part in re.split(r"[\s-]+", words.lower()):
        value = _TEENS.get(part)
        if value is None:
            return None
        total += value
    return total


_TEENS = {
    **{k: float(v) for k, v in _UNIT_WORDS.items()},
    **{k: float(v) for k, v in _TENS.items()},
    "thirteen": 13.0,
    "fourteen": 14.0,
    "fifteen": 15.0,
    "sixteen": 16.0,
    "seventeen": 17.0,
    "eighteen": 18.0,
    "nineteen": 19.0,
}


_SCALE_VALUES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}


def _in_base(q: Quantity) -> Quantity:
    precision = q.precision * q.factor if q.precision is not None else None
    return replace(q, value=q.value * q.factor, precision=precision, factor=1.0)


def _rounds_to(value: float, other: Quantity) -> bool:
    """Whether ``value`` written to ``other``'s precision is ``other``."""
    if other.precision is None or other.precision <= 0:
        return False
    return abs(round(value / other.precision) * other.precision - other.value) <= other.precision * 1e-6


def _values_match(q: Quantity, p: Quantity, value: float | None = None) -> bool:
    if value is None and q.unit is not None and q.unit == p.unit and q.factor != p.factor:
        # the same kind of measurement in other units ("4.996 GW", "4,996 MW"): compare in the base unit
        return _values_match(_in_base(q), _in_base(p))
    v = q.value if value is None else value
    if v == p.value:
        return True
    if q.year or p.year:
        return False
    if _rounds_to(v, p) or (value is None and _rounds_to(p.value, q)):
        return True
    if q.approx or p.approx:
        return numbers_close(v, p.value, rel=0.1)
    return False


class ReportQuantities:
    """The quantities and dates of a report, by sentence. A sentence is read when first asked for (a nugget
    with numbers looks at a few sentences only; a report whose nuggets have none is never read)."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self._sentences = list(sentences)
        self._quantities: list[list[Quantity] | None] = [None] * len(self._sentences)
        self._dates: list[list[DateMention] | None] = [None] * len(self._sentences)
        self._years: frozenset[int] | None = None

    @classmethod
    def build(cls, sentences: Sequence[str]) -> ReportQuantities:
        return cls(sentences)

    def dates(self, i: int) -> list[DateMention]:
        got = self._dates[i]
        if got is None:
            got = self._dates[i] = _dates(self._sentences[i])
        return got

    def quantities(self, i: int) -> list[Quantity]:
        got = self._quantities[i]
        if got is None:
            got = self._quantities[i] = extract_quantities(self._sentences[i], dates=self.dates(i))
        return got

    @property
    def by_sentence(self) -> list[list[Quantity]]:
        return [self.quantities(i) for i in range(len(self._sentences))]

    @property
    def dates_by_sentence(self) -> list[list[DateMention]]:
        return [self.dates(i) for i in range(len(self._sentences))]

    @property
    def years(self) -> frozenset[int]:
        """Every year the report names (as a quantity or in a date)."""
        if self._years is None:
            years = frozenset(int(q.value) for qs in self.by_sentence for q in qs if q.year)
            self._years = years | frozenset(
                d.year for ds in self.dates_by_sentence for d in ds if d.year is not None
            )
        return self._years


def quantity_present(
    q: Quantity, report: ReportQuantities, sentences: Iterable[int], linked: Callable[[int], bool]
) -> bool:
    """Whether the report states ``q`` in one of ``sentences`` (indices). ``linked(i)``: whether sentence
    ``i`` and the nugget are linked by words of opposite polarity (for complementary percentages)."""
    for i in sentences:
        if q.month is not None:
            for d in report.dates(i):
                if d.month != q.month:
                    continue
                if q.day_of_date and d.day not in (None, int(q.value)):
                    continue
                if (
                    q.year
                    and d.year != int(q.value)
                    and not (d.year is None and int(q.value) in report.years)
                ):
                    continue
                return True
        for p in report.quantities(i):
            if p.percent != q.percent:
                continue
            if _values_match(q, p):
                return True
            if q.percent and 0 < q.value < 100 and _values_match(q, p, 100.0 - q.value) and linked(i):
                return True
    return False


_POSITIVE = vocabulary.word_list("polarity_positive")
_NEGATIVE = vocabulary.word_list("polarity_negative")


def complement_linked(nugget_stems: set[str], sentence_stems: set[str], stem: Callable[[str], str]) -> bool:
    """Whether a nugget and a report sentence are linked by words of opposite polarity (one says retained,
    the other lost; vaccinated / unvaccinated), so that complementary percentages state the same fact."""
    pos, neg = _polarity_sets(stem)
    if (nugget_stems & pos and sentence_stems & neg) or (nugget_stems & neg and sentence_stems & pos):
        return True
    for a, b in ((nugget_stems, sentence_stems), (sentence_stems, nugget_stems)):
        for w in a:
            if len(w) > 4 and w[:2] == "un" and w[2:] in b:
                return True
            if len(w) > 5 and w[:3] == "non" and w[3:] in b:
                return True
    return False


@lru_cache(maxsize=8)
def _polarity_sets(stem: Callable[[str], str]) -> tuple[frozenset[str], frozenset[str]]:
    """The stems (by ``stem``) of the positive and the negative polarity words."""
    return frozenset(map(stem, _POSITIVE)), frozenset(map(stem, _NEGATIVE))
