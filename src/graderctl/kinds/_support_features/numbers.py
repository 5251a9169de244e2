"""Numbers of a claim or a passage read with their kind (year, percent, currency, unit, counted thing),
scale, precision and bound, and when two of them state the same figure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graderctl.kinds._support_features.keys import NUMBER_WORDS_RE, word_key
from graderctl.kinds._support_features.vocab import (
    APPROX,
    CURRENCY_SIGNS,
    CURRENCY_WORDS,
    MONTH_ABBR,
    MONTHS,
    UNITS,
)
from graderctl.language.numbers import extract_numbers
from graderctl.language.tokens import WORD_TOKEN_RE

_SCALE_WORDS = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mln": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "tn": 1e12,
}
_SUFFIX_RE = re.compile(r"\d\s?(k|m|mn|mln|bn|b|tn)$")
_MIN_BOUND = frozenset({"more than", "over", "at least", "above", "exceeding", "upwards of", "greater than"})
_MAX_BOUND = frozenset({"less than", "under", "up to", "below", "fewer than", "at most", "no more than"})
_AFTER_NUMBER_RE = re.compile(
    r"\s?(?:(?P<scale>thousand|million|billion|trillion|mn|mln|bn|tn|[kmb])\b\s?)?"
    r"(?P<word>[A-Za-z]+)?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Number:
    """A number mentioned in a text, read with its scale, unit and precision."""

    value: float
    text: str
    #: "year", "percent", "currency:USD", "unit:W", "count:<key of the counted thing>", or "" (bare).
    kind: str
    #: Half the last written digit's place, in the value's units: 39.6 is a rounding of 40 when
    #: |40 - 39.6| <= 0.5. 0 for years (exact).
    half_step: float
    #: Marked as approximate ("about 40%", "nearly 2 million").
    approx: bool
    #: The figure as written before a scale word ("906 million" -> 906).
    mantissa: float
    start: int = 0
    #: "min" for "more than / over / at least X", "max" for "less than / under / up to X", else "".
    bound: str = ""

    @property
    def is_year(self) -> bool:
        return self.kind == "year"

    def comparable(self, other: Number) -> bool:
        """Whether two numbers measure the same kind of thing, so that different values contradict."""
        if self.kind == "" or other.kind == "":
            return False
        return self.kind == other.kind

    def compatible(self, other: Number) -> bool:
        """Whether two numbers could be the same quantity (kinds equal, or one of them bare)."""
        if self.kind in ("year", "day") or other.kind in ("year", "day"):
            return self.kind == other.kind
        if (
            self.kind.startswith("count:")
            or other.kind.startswith("count:")
            or not self.kind
            or not other.kind
        ):
            return (self.kind.startswith("percent")) == (other.kind.startswith("percent"))
        return self.kind == other.kind


def _half_step(written: str, factor: float, approx: bool) -> float:
    """Half the place of the last written digit of ``written`` ("3.5" -> 0.05), times ``factor``; for an
    approximate figure the last significant digit ("about 40" -> 5)."""
    core = written.replace(",", "")
    if "." in core:
        decimals = len(core) - core.index(".") - 1
        return 0.5 * 10.0**-decimals * factor
    if approx:
        trailing = len(core) - len(core.rstrip("0"))
        return 0.5 * 10.0**trailing * factor
    return 0.5 * factor


def numbers_in(text: str, *, skip_one: bool = False) -> list[Number]:
    """Numbers of a (typography-folded) text with their kind, from
    :func:`graderctl.language.numbers.extract_numbers`, "2018-19" read as 2019, scale suffixes ("1.9m"),
    currencies, units (GW = 1,000 MW; bps = 0.01 percentage points) and the counted thing after each
    number."""
    out: list[Number] = []
    for m in extract_numbers(text):
        low = m.text.lower()
        if skip_one and low in ("one", "zero"):
            continue  # "one of the ..." is rarely a checkable quantity
        value = float(m.value)
        written_m = re.search(r"\d[\d,]*(?:\.\d+)?", m.text)
        written = written_m.group() if written_m else str(int(value))
        mantissa = float(written.replace(",", "")) if written_m else value
        factor = value / mantissa if mantissa else 1.0
        before = text[max(0, m.start - 20) : m.start].lower().split()
        approx = bool(before) and before[-1] in APPROX
        last2 = " ".join(before[-2:])
        bound = ""
        if last2 in _MIN_BOUND or (before and before[-1] in _MIN_BOUND):
            bound = "min"
        elif last2 in _MAX_BOUND or (before and before[-1] in _MAX_BOUND):
            bound = "max"
        kind = ""
        end = m.end
        if m.percent:
            kind = "percent"
        elif m.text[:1] in CURRENCY_SIGNS:
            kind = "currency:" + CURRENCY_SIGNS[m.text[0]]
        if len(low) == 2 and low.isdigit() and m.start >= 5 and text[m.start - 1] == "-":
            prev = text[m.start - 5 : m.start - 1]
            if prev.isdigit():
                value = float(int(prev) // 100 * 100 + int(low))  # "2018-19"
                mantissa, factor = value, 1.0
        suffix = _SUFFIX_RE.search(low)
        if suffix and not kind and factor == 1.0:
            factor = _SCALE_WORDS[suffix.group(1)]  # "1.9m", "2bn" without a currency sign
            value = mantissa * factor
        after = _AFTER_NUMBER_RE.match(text, end)
        word = ""
        if after is not None:
            scale = after.group("scale")
            if scale and factor == 1.0 and not m.percent and (scale.lower() not in "kmb" or kind):
                factor = _SCALE_WORDS[scale.lower()]
                value = mantissa * factor
            elif scale and scale.lower() in "kmb" and not kind and factor == 1.0 and value < 1e4:
                factor = _SCALE_WORDS[scale.lower()]  # "1.9m", "2bn": a scale suffix without a sign
                value = mantissa * factor
            word = (after.group("word") or "").lower()
        if not kind:
            if word in ("bps", "bp", "basis"):
                kind, value, factor = "percent", value / 100.0, factor / 100.0
            elif word in UNITS:
                dim, f = UNITS[word]
                kind, value, factor = "unit:" + dim, value * f, factor * f
            elif word in CURRENCY_WORDS:
                kind = "currency:" + CURRENCY_WORDS[word]
            elif value == int(value) and 1200 <= value <= 2100 and factor == 1.0 and "," not in m.text:
                kind = "year"
            elif value == int(value) and 1 <= value <= 31 and _next_to_month(text, m.start, end, word):
                kind = "day"
            else:
                unit = ""
                for w in WORD_TOKEN_RE.findall(text, end, min(len(text), end + 40)):
                    k = word_key(w)
                    if k is not None:
                        unit = k
                        break
                kind = "count:" + unit if unit else ""
        half = 0.0 if kind in ("year", "day") else _half_step(written, factor, approx)
        out.append(Number(value, m.text, kind, half, approx, mantissa, m.start, bound))
    return out


def _is_month(word: str) -> bool:
    return word in MONTHS or word.rstrip(".") in MONTH_ABBR


def _next_to_month(text: str, start: int, end: int, word_after: str) -> bool:
    """Whether a number is a day of the month ("March 1", "1 March", "the 1st of March")."""
    if _is_month(word_after):
        return True
    if word_after in ("of", "st", "nd", "rd", "th"):
        nxt = text[end : end + 24].lower().split()
        return any(_is_month(w) for w in nxt[:3])
    before = text[max(0, start - 12) : start].lower().split()
    return bool(before) and _is_month(before[-1])


def number_matches(num: Number, others: Sequence[Number]) -> bool:
    """Whether ``num`` is one of ``others``: the same value, or one a rounding of the other to the precision
    it was written with ("about 3.5 million" matches 3,482,000; "40%" matches 39.6%)."""
    for o in others:
        if not num.compatible(o):
            continue
        if o.value == num.value:
            return True
        if (num.bound == "min" and o.value >= num.value) or (num.bound == "max" and o.value <= num.value):
            return True  # "more than 2,000" is borne out by 2,314
        if num.is_year or num.kind == "day":
            continue
        diff = abs(o.value - num.value)
        if diff <= num.half_step + 1e-9 * abs(num.value) or diff <= o.half_step + 1e-9 * abs(o.value):
            return True
        if (num.approx or o.approx) and diff <= 0.03 * max(abs(num.value), abs(o.value)):
            return True
    return False


def has_number(text: str) -> bool:
    if text.isascii():  # the digits of ASCII text are 0-9 (str.isdigit also knows superscripts and others)
        return _ASCII_DIGIT_RE.search(text) is not None or NUMBER_WORDS_RE.search(text) is not None
    return any(c.isdigit() for c in text) or NUMBER_WORDS_RE.search(text) is not None


_ASCII_DIGIT_RE = re.compile(r"[0-9]")
