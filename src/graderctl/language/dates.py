"""Dates in a text: day, month and year mentions (month names in ``data/months.txt``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graderctl.language import vocabulary

__all__ = ["MONTHS", "DateMention", "extract_dates"]

#: Month names and abbreviations -> month number.
MONTHS: dict[str, int] = {k: int(v) for k, v in vocabulary.table("months").items()}
_MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DATE_RE = re.compile(
    r"\b(?P<iso>(?P<iy>1\d{3}|2\d{3})-(?P<im>0?[1-9]|1[0-2])-(?P<id>0?[1-9]|[12]\d|3[01]))\b"
    rf"|\b(?:(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<m1>{_MONTH_RE})"
    r"(?:\s+(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\b)?(?:,?\s+(?P<y1>1\d{3}|2\d{3})\b)?"
    r"|\b(?:in|since|by|from|until|of|year)\s+(?P<y2>1[5-9]\d{2}|20\d{2})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date (or part of one) found in a text; unknown parts are ``None``."""

    year: int | None
    month: int | None
    day: int | None
    text: str
    start: int
    end: int


def extract_dates(text: str) -> list[DateMention]:
    """Dates in ``text``: ISO ``2015-03-14``, ``14 March 2015``, ``14th of March``, ``March 14, 2015``,
    ``March 2015``, ``mid-March`` (month only) and years after ``in``/``since``/``by``/... (``in 2012``).
    The month ``may`` counts only when a day or year goes with it."""
    found: list[DateMention] = []
    for m in _DATE_RE.finditer(text):
        if m.group("iso"):
            found.append(
                DateMention(
                    int(m.group("iy")), int(m.group("im")), int(m.group("id")), m.group(), m.start(), m.end()
                )
            )
        elif m.group("m1"):
            month_word = m.group("m1").lower().rstrip(".")
            day_text = m.group("d1") or m.group("d2")
            year = int(m.group("y1")) if m.group("y1") else None
            if month_word == "may" and day_text is None and year is None:
                continue
            if month_word in {"mar", "dec", "jan"} and m.group("m1")[0].islower() and not (day_text or year):
                continue
            day = int(day_text) if day_text else None
            if day is not None and not 1 <= day <= 31:
                day = None
            found.append(DateMention(year, MONTHS[month_word], day, m.group(), m.start(), m.end()))
        elif m.group("y2"):
            found.append(DateMention(int(m.group("y2")), None, None, m.group("y2"), m.start("y2"), m.end()))
    return found
