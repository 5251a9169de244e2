"""Shared text primitives for the built-in kinds. Pure functions, standard library only, fast on long texts.

- :func:`normalize` / :func:`fold_typography`: NFKC, curly and straight quotes, dashes, soft hyphens,
  zero-width characters, whitespace runs, case.
- :func:`split_sentences` / :func:`sentence_spans`: a rule-based sentence splitter (abbreviations, initials,
  decimals, line breaks).
- :func:`tokenize`, :func:`content_words`, :func:`stem`: word tokens, stopwords and a light suffix stemmer.
- :func:`extract_numbers` / :func:`number_keys`: numbers with their value, so "3.5 million" equals
  "3,500,000", "40%" equals "40 percent" and "five" equals "5".
- :func:`extract_dates`: day / month / year mentions.
- :func:`extract_names`: capitalised names (people, places, organisations).

Other kinds import from here; public names are never removed or renamed once published (append only).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

__all__ = [
    "MONTHS",
    "NEGATIONS",
    "STOPWORDS",
    "DateMention",
    "NumberMention",
    "char_ngrams",
    "collapse_whitespace",
    "content_words",
    "extract_dates",
    "extract_names",
    "extract_numbers",
    "fold_typography",
    "is_ascii",
    "normalize",
    "number_key",
    "number_keys",
    "numbers_close",
    "sentence_spans",
    "split_ellipsis",
    "split_sentences",
    "stem",
    "stems",
    "tokenize",
    "word_spans",
]


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- normalisation ------------------------------------------------------------------------------------

_QUOTES = "\"'`´‘’‚‛“”„‟«»‹›′″〝〞＂＇"
_DASHES = "‐‑‒–—―−﹘﹣－⁃"
#: Deleted outright: soft hyphen, zero-width space / joiners, word joiner, BOM.
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

_TYPO_TABLE: dict[int, str | None] = {}
for _ch in _QUOTES:
    _TYPO_TABLE[ord(_ch)] = "'"
for _ch in _DASHES:
    _TYPO_TABLE[ord(_ch)] = "-"
for _ch in _INVISIBLE:
    _TYPO_TABLE[ord(_ch)] = None
for _ch in _SPACES:
    _TYPO_TABLE[ord(_ch)] = " "
_TYPO_TABLE[ord("…")] = "..."
#: The few ASCII characters the table changes (it maps the rest of ASCII to itself): an ASCII text is folded
#: by replacing just these, many times faster than ``str.translate`` with a dict. No replacement contains a
#: character that is replaced, so doing them one after the other equals the table.
_ASCII_FOLDS = tuple((chr(k), v or "") for k, v in _TYPO_TABLE.items() if k < 128 and v != chr(k))
#: The characters the table changes, as one pattern: other texts are folded by replacing each match, many
#: times faster than ``str.translate`` with a dict (which looks every character up); the same result.
_TYPO_RE = re.compile("[" + "".join(re.escape(chr(k)) for k, v in _TYPO_TABLE.items() if v != chr(k)) + "]")
_TYPO_STR = {chr(k): v or "" for k, v in _TYPO_TABLE.items()}

_WS_RUN = re.compile(r"\s+")


def is_ascii(text: str) -> bool:
    return text.isascii()


def collapse_whitespace(text: str) -> str:
    """Every run of whitespace (spaces, tabs, line breaks) becomes one space; the ends are stripped."""
    # str.split() splits at exactly the characters ``\s`` matches, and is several times faster than _WS_RUN
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


def split_ellipsis(text: str) -> list[str]:
    """Split a quote at ellipses (``...``, ``…``, ``[...]``, ``(...)``) into the fragments it joins, in order.
    Empty fragments are dropped; the fragments keep their own text (not normalised)."""
    has_ellipsis = "…" in text or ".." in text or ". ." in text
    parts = _ELLIPSIS.split(text) if has_ellipsis else [text]  # the common case skips the regex
    return [p.strip() for p in parts if p.strip(" .,;:'\"")]


_ELLIPSIS = re.compile(r"[\[(]?\s*(?:\.\s?\.\s?\.|…)\s*[\])]?")


# --- sentences ----------------------------------------------------------------------------------------

_ABBREVIATIONS = _wordset(
    """
    mr mrs ms dr prof st sr jr mt ft gen sen rep gov lt col capt sgt maj adm cmdr rev hon pres supt insp
    inc ltd co corp bros plc llc dept univ assn est approx vs etc al e.g i.e cf viz no nos vol fig figs pp
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    u.s u.k u.n e.u a.m p.m d.c ph.d b.a m.a"""
)
#: A run of ``.!?`` and closing quotes/brackets before whitespace, or a line break. Written to begin with one
#: character set so that the regex engine skips to candidates quickly (it equals
#: ``[.!?]+['"”’)\]]*(?=\s)|\n``, several times slower on long texts).
_SENT_END = re.compile(r"[\n.!?](?:(?<=\n)|[.!?]*['\"”’)\]]*(?=\s))")
_INITIALISM = re.compile(r"(?:[a-z]\.)+[a-z]")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text`` (stripped, non-empty). A sentence ends at
    ``.``, ``!`` or ``?`` followed by a space and an upper-case letter, a digit or a quote, unless the word
    before is a known abbreviation or a single initial; a line break always ends a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in _SENT_END.finditer(text):
        end = m.end()
        if m.group() != "\n":
            # look at what follows the whitespace
            j = end
            while j < n and text[j] in " \t\r\u00a0":
                j += 1
            if j < n and text[j] != "\n":
                nxt = text[j]
                if not (nxt.isupper() or nxt.isdigit() or nxt in "'\"‘“([" or not nxt.isalpha()):
                    continue
                if nxt in "-–—,;:":
                    continue
            if text[m.start()] == ".":
                k = m.start()
                # the word before the full stop: after the last space (letters and digits up to it), or
                # scanned back character by character when it holds anything else
                w = text.rfind(" ", start, k) + 1 or start
                if not text[w:k].isalnum():
                    w = k
                    while w > start and not text[w - 1].isspace() and text[w - 1] not in "([\"'“‘":
                        w -= 1
                word = text[w:k].lower()
                if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                    continue
                if "." in word and _INITIALISM.fullmatch(word):  # U.S.A. and similar
                    continue
        _push_span(text, start, end, spans)
        start = end
    _push_span(text, start, n, spans)
    return spans


def _push_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    # str.strip() removes exactly the characters str.isspace() accepts; on long runs of blanks it is much
    # faster than stepping over them one by one
    if start < end and text[start].isspace():
        start = end - len(text[start:end].lstrip())
    if end > start and text[end - 1].isspace():
        end = start + len(text[start:end].rstrip())
    if end > start:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text)]


# --- words --------------------------------------------------------------------------------------------

_WORD = re.compile(r"\d+(?:[.,]\d+)*(?![^\W_])|[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

STOPWORDS: frozenset[str] = _wordset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it it's its itself just let's me more
    most my myself of off on once only or other our ours ourselves out over own same she should so some such
    than that that's the their theirs them themselves then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your yours
    yourself yourselves s t d ll m re ve 's said says say told according also however would may might must
    shall one's upon via per within without"""
) - frozenset({"no", "not", "nor", "never", "without"})

#: Words that flip a statement's meaning; a difference in any of them is never a "small" difference.
NEGATIONS: frozenset[str] = _wordset(
    """
    no not nor never none nobody nothing nowhere neither without cannot can't won't don't doesn't didn't
    isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't mustn't needn't n't non
    unable fail failed fails lack lacks lacked"""
)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (letters/digits, internal apostrophes kept, numbers with their separators kept);
    punctuation is dropped."""
    return [m.group().lower().replace("’", "'") for m in _WORD.finditer(text)]


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens of :func:`tokenize`."""
    return [m.span() for m in _WORD.finditer(text)]


def _has_vowel(w: str) -> bool:
    return any(c in "aeiouy" for c in w)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stemmer: plural ``-s``/``-es``/``-ies``, ``-ed``, ``-ing``, ``-ly``, final ``-e``,
    doubled final consonants. Crude but stable: ``used``/``uses``/``use`` -> ``us``;
    ``studies``/``studied`` -> ``study``; ``running``/``runs`` -> ``run``."""
    w = word.lower()
    if len(w) <= 2 or not w.replace("'", "").isalpha():
        return w
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith(("ies", "ied")) and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ing") and len(w) > 5 and _has_vowel(w[:-3]):
        w = w[:-3]
    elif w.endswith("eed") and len(w) > 5:
        w = w[:-1]
    elif (w.endswith("ed") and not w.endswith("eed") and len(w) > 3 and _has_vowel(w[:-2])) or (
        (w.endswith("es") and len(w) > 4 and w[-3] in "sxz") or w.endswith(("ches", "shes"))
    ):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    elif w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    if len(w) > 2 and w.endswith("e"):
        w = w[:-1]
    return w


def stems(text: str) -> list[str]:
    """Stems of the tokens of ``text``."""
    return [stem(t) for t in tokenize(text)]


def content_words(text: str) -> list[str]:
    """Tokens of ``text`` that are not stopwords (negations are kept: they carry meaning)."""
    return [t for t in tokenize(text) if t not in STOPWORDS]


def char_ngrams(text: str, n: int = 3) -> set[str]:
    """The set of character ``n``-grams of the normalised text (spaces included), for fuzzy overlap."""
    t = normalize(text)
    return {t[i : i + n] for i in range(max(0, len(t) - n + 1))}


# --- numbers ------------------------------------------------------------------------------------------

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {
    "hundred": 10**2,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_ABBREV_SCALES = {"k": 10**3, "m": 10**6, "mn": 10**6, "mln": 10**6, "bn": 10**9, "b": 10**9, "tn": 10**12}

_NUM_WORD = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
_SCALE_WORD = "hundred|thousand|million|billion|trillion"
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
_NUMBER_WORD_SET = frozenset([*_UNITS, *_TENS])


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
        if part in _UNITS:
            total += _UNITS[part]
        elif part in _TENS:
            total += _TENS[part]
        else:
            return None
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
                    value *= _SCALES[m.group("scale").lower()]
                elif m.group("abbr") and m.group("cur"):
                    value *= _ABBREV_SCALES[m.group("abbr").lower()]
            else:
                w = _words_value(m.group("words"))
                if w is None:
                    continue
                value = Decimal(w)
                if m.group("wscale"):
                    value *= _SCALES[m.group("wscale").lower()]
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


# --- dates --------------------------------------------------------------------------------------------

MONTHS: dict[str, int] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
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


# --- names --------------------------------------------------------------------------------------------

_CAP_WORD = re.compile(r"[A-Z][\w'’.-]*[\w]|[A-Z]")
_NAME_JOINERS = frozenset({"of", "de", "da", "van", "von", "der", "del", "la", "le", "al", "bin", "st.", "&"})
_NOT_NAMES = _wordset(
    """
    i a an the this that these those it its he she they we you his her their our my your there here
    when where while what who which why how if but and or so yet as at by for from in into of on to with
    after before since until during monday tuesday wednesday thursday friday saturday sunday mr mrs ms dr
    prof sir madam"""
)


def _is_number_word(word: str) -> bool:
    return all(p in _UNITS or p in _TENS or p in _SCALES for p in word.split("-"))


def extract_names(text: str) -> list[str]:
    """Capitalised names in ``text`` (``Lindsay Sandiford``, ``Bank of England``, ``NASA``), lower-cased.
    A sentence-initial capital counts only when the word is not a common function word; titles (Mr, Dr)
    are dropped. Months are not names."""
    names: list[str] = []
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        toks = list(re.finditer(r"\S+", sentence))
        current: list[str] = []
        pending_joiners: list[str] = []
        for i, t in enumerate(toks):
            raw = t.group().strip("\"'“”‘’()[],;:!?")
            if raw.endswith(".") and not re.fullmatch(r"(?:[A-Z]\.)+", raw):
                raw = raw[:-1]
            low = raw.lower().replace("’", "'")
            if low.endswith("'s"):
                low = low[:-2]
            is_cap = bool(raw) and raw[0].isupper() and _CAP_WORD.match(raw) is not None
            if is_cap and (low in _NOT_NAMES or low in MONTHS or _is_number_word(low)):
                is_cap = False
            if is_cap and i == 0 and not raw.isupper():
                # a sentence-initial capital is a name only when another capitalised word follows
                nxt = toks[1].group().strip("\"'“”‘’()[]") if len(toks) > 1 else ""
                if low in STOPWORDS or not (nxt[:1].isupper() and nxt.lower() not in _NOT_NAMES):
                    is_cap = False
            if is_cap:
                current.extend(pending_joiners)
                pending_joiners = []
                current.append(low)
            elif current and low in _NAME_JOINERS:
                pending_joiners.append(low)
            else:
                if current:
                    names.append(" ".join(current))
                current, pending_joiners = [], []
            # punctuation after the token ends a name
            if current and t.group()[-1:] in ",;:!?)" and not raw.endswith("."):
                names.append(" ".join(current))
                current, pending_joiners = [], []
        if current:
            names.append(" ".join(current))
    return names
