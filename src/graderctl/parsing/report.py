"""Claims, citations and sources from a research report's raw text (plain text, Markdown or simple HTML).

What it reads, in the styles research agents write:

- numbered markers ``[1]``, ``[1][2]``, ``[1, 3]``, ``[1-3]``, ``[source 2]``, ``<sup>1</sup>``,
  ``【3†source】`` and (beside a numbered list only) superscript digits and digits glued after a full
  stop (``grew.1 Next``),
  resolved against a source list under a ``Sources:`` / ``References`` / ``Citations`` / ``Works cited`` /
  ``Bibliography`` heading (plain, bold or a Markdown heading), or a trailing block of ``[n] URL`` lines; list
  entries numbered (``1.``, ``[1]``, ``(1)``, ``[1]:``), bulleted or plain, with Markdown links, titles,
  accessed dates and URLs on one or several lines;
- Markdown footnotes ``[^n]`` with their ``[^n]: ...`` definitions, and reference-style links;
- inline Markdown links and HTML anchors (the link is the source; tracking parameters fall away in the
  normalised key), bare URLs and DOIs in any form (``doi:``, ``https://doi.org/``, ``dx.doi.org``);
- author-year citations, ``(Lewis et al., 2020)``, ``(Smith & Jones, 2019; Lee 2021)``, ``Lewis et al.
  (2020)``, matched to a reference-list entry by first author and year.

Each sentence (the project's own splitter, :func:`graderctl.language.sentences.sentence_spans`) that carries a
citation is a claim; the citations are the sentence's. A quoted passage (straight, curly or angle quotes, two
words or more) becomes the quote of the citation that follows it. A marker that points to no listed source is
kept as a citation with ``source_id=None`` (a citation to a missing source). Sentences that state something
but cite nothing are returned as ``uncited``.

Everything is done on a working copy of the text of the same length (markup, markers and source lists are
blanked, never removed), so every span points into the original text. Pure: no I/O, no global state.
"""

from __future__ import annotations

import array
import hashlib
import html
import json
import re
from bisect import bisect_right
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, islice
from operator import attrgetter, itemgetter
from typing import cast

from graderctl.language.sentences import sentence_spans
from graderctl.normalize import find_doi, normalize_url

PARSER_NAME = "report-parser"
#: Bump when a change can change what any report parses into (as a grader's version).
PARSER_VERSION = 3


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """A source the report lists (or links inline). ``id`` is the marker's key: ``"1"`` for ``[1]``,
    ``"^note"`` for a footnote, ``"lewis2020"`` for an author-year entry, ``"link3"`` for an inline link."""

    id: str
    marker: str
    url: str | None
    doi: str | None
    title: str | None
    text: str
    origin: str  # "list", "footnote", "definition" or "inline"


@dataclass(frozen=True, slots=True)
class ParsedCitation:
    #: As written: ``[3]``, ``[^2]``, ``(Lewis et al., 2020)``, or the URL / DOI of an inline link.
    marker: str
    #: The :class:`ParsedSource` it points to; ``None``: no listed source (a citation to a missing source).
    source_id: str | None
    quote: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedClaim:
    text: str
    start: int
    end: int
    citations: tuple[ParsedCitation, ...]


@dataclass(frozen=True, slots=True)
class ParsedSentence:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ParsedReport:
    claims: tuple[ParsedClaim, ...]
    sources: tuple[ParsedSource, ...]
    #: Sentences that state something and cite nothing.
    uncited: tuple[ParsedSentence, ...]

    @property
    def missing(self) -> list[tuple[int, str]]:
        """``(claim index, marker)`` of every citation that points to no listed source."""
        return [
            (i, c.marker)
            for i, claim in enumerate(self.claims)
            for c in claim.citations
            if c.source_id is None
        ]


def _setters(cls: type, *names: str) -> tuple[Callable[[object, object], None], ...]:
    return tuple(cls.__dict__[name].__set__ for name in names)


# The parser makes tens of these per report: made here as the generated __init__ of a frozen dataclass makes
# them (every field set; the same objects), without its object.__setattr__ per field, which costs about twice
# as much.
_new = object.__new__
_cit_marker, _cit_source_id, _cit_quote = _setters(ParsedCitation, "marker", "source_id", "quote")


class _PlainSource:
    """A :class:`ParsedSource` as :func:`_source` makes it: a plain class with the same slots, so its class
    can be set to :class:`ParsedSource` once its fields are (the object is then one of those in every way).
    Setting the slots of a plain class is several times faster than the descriptor calls a frozen dataclass
    needs."""

    __slots__ = ("doi", "id", "marker", "origin", "text", "title", "url")  # (the order does not matter)

    doi: str | None
    id: str
    marker: str
    origin: str
    text: str
    title: str | None
    url: str | None


def _source(
    id: str, marker: str, url: str | None, doi: str | None, title: str | None, text: str, origin: str
) -> ParsedSource:
    source: _PlainSource = _new(_PlainSource)
    source.id = id
    source.marker = marker
    source.url = url
    source.doi = doi
    source.title = title
    source.text = text
    source.origin = origin
    source.__class__ = ParsedSource  # type: ignore[assignment]
    return cast(ParsedSource, source)


def _citation(marker: str, source_id: str | None, quote: str | None) -> ParsedCitation:
    citation: ParsedCitation = _new(ParsedCitation)
    _cit_marker(citation, marker)
    _cit_source_id(citation, source_id)
    _cit_quote(citation, quote)
    return citation


def _made(
    made: dict[tuple[str, str | None, str | None], ParsedCitation],
    marker: str,
    source_id: str | None,
    quote: str | None,
) -> ParsedCitation:
    """The citation ``(marker, source_id, quote)`` from ``made``, made and kept there the first time."""
    key = (marker, source_id, quote)
    citation = made.get(key)
    if citation is None:
        citation = made[key] = _citation(marker, source_id, quote)
    return citation


class _NewClaim:
    """A :class:`ParsedClaim` as it is made: a plain class with the same slots, whose class is set to
    :class:`ParsedClaim` once its fields are (as :class:`_PlainSource` for a source): setting a plain slot is
    several times faster than the descriptor call per field a frozen dataclass needs, and the parser makes a
    claim a sentence."""

    __slots__ = ("citations", "end", "start", "text")  # (the order does not matter)

    def __init__(self, text: str, start: int, end: int, citations: tuple[ParsedCitation, ...]) -> None:
        self.text = text
        self.start = start
        self.end = end
        self.citations = citations


class _NewSentence:
    """A :class:`ParsedSentence` as it is made (see :class:`_NewClaim`): only in :func:`parse_report`'s loop,
    which sets its slots itself."""

    __slots__ = ("end", "start", "text")

    text: str
    start: int
    end: int


def _claim(text: str, start: int, end: int, citations: tuple[ParsedCitation, ...]) -> ParsedClaim:
    claim = _NewClaim(text, start, end, citations)
    claim.__class__ = ParsedClaim  # type: ignore[assignment]
    return cast(ParsedClaim, claim)


# --- patterns -------------------------------------------------------------------------------------------

_REF_WORDS = (
    "sources and references|references and sources|sources and citations|citations and sources|"
    "sources cited|cited sources|sources consulted|source list|list of sources|reference list|"
    "works cited|works consulted|works referenced|literature cited|cited works|selected sources|"
    "key sources|further reading|bibliography|references|citations|sources|footnotes|endnotes|notes|"
    "source links|links|refs"
)
_REF_HEADING = re.compile(
    r"^[ \t]{0,3}(?P<hashes>#{1,6})?[ \t]*(?:[*_]{1,3}[ \t]*)?(?:[^\w\s*_#\[(]{1,3}[ \t]*)?"
    r"(?:\d{1,2}[.)]?[ \t]+)?"
    rf"(?P<word>(?:{_REF_WORDS})(?:[ \t]*(?:&|and|/|,)[ \t]*(?:{_REF_WORDS}))*)"
    r"(?:[ \t]*\([^)\n]{0,40}\))?[ \t]*(?:[*_]{1,3})?[ \t]*:?"
    r"[ \t]*(?:[*_]{1,3})?"
    r"[ \t]*(?P<rest>.*)$",
    re.IGNORECASE,
)
_MD_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]")
#: A list entry: optional bullet, optional marker, then the entry's text.
_ENTRY = re.compile(
    r"^[ \t]*(?P<bullet>[-*+•‣◦][ \t]+)?"
    r"(?:\[(?P<b>\^?[^\]\s]{1,40})\](?!\()[ \t]*:?|\((?P<p>\d{1,3})\)|(?P<n>\d{1,3})[.)](?=[ \t])"
    r"|\^(?P<c>\d{1,3})(?=[ \t])|(?P<d>\d{1,3})[ \t]*[-–—:](?=[ \t]))?[ \t]*(?P<body>.*)$"
)
_FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^(?P<id>[^\]\s]+)\]:[ \t]*(?P<body>.*)$")
_LINK_DEF = re.compile(
    r"^[ \t]{0,3}\[(?P<label>[^\]^\n][^\]\n]{0,60})\]:[ \t]*<?(?P<url>(?:https?://|www\.|doi:|10\.)\S*?)>?"
    r"(?:[ \t]+[\"'(](?P<title>[^\"'()\n]*)[\"')])?[ \t]*$",
    re.IGNORECASE,
)
_MD_LINK = re.compile(
    r"!?\[(?P<text>[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*)\]\([ \t]*<?"
    r"(?P<url>[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r">?(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)"
)
_BARE_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'\[\]{}|\\^`]+", re.IGNORECASE)
_DOI_TEXT = re.compile(r"(?:\b(?:doi|DOI)[ \t]*:[ \t]?)?\b10\.\d{4,9}/[^\s\"<>\[\]]+")
_NAME = r"[A-Z][A-Za-zÀ-ÖØ-öø-ÿ'’\-]+"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)[a-z]?"
_BODY = re.compile(
    r"(?P<link>!?\[(?P<ltext>[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*)\]\([ \t]*<?"
    r"(?P<lurl>[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\))"
    r"|(?P<fn>\[\^(?P<fid>[^\]\s]+)\])"
    r"|(?P<num>\[[ \t]*(?i:(?:sources?|refs?|references?|citations?|cite|cited|see)[ \t]*:?[ \t]*)?"
    r"(?P<nums>\d{1,3}(?:[ \t]*(?:[-–—,;]|and)[ \t]*\d{1,3})*)[ \t]*\])"
    r"|(?P<needed>\[(?:citation|source|reference|cite)s?[ \t]+needed\])"
    r"|(?P<reflink>\[(?P<rtext>[^\[\]\n]+)\]\[(?P<rlabel>[^\[\]\n]*)\])"
    r"|(?P<oa>【(?P<oanum>\d+)[^】\n]*】)"
    r"|(?P<url>(?:[Hh][Tt][Tt][Pp][Ss]?://|www\.)[^\s<>\"'\[\]{}|\\^`]+)"
    r"|(?P<doi>(?:\b[Dd][Oo][Ii][ \t]*:[ \t]?)?"
    r"\b10\.\d{4,9}/[^\s\"<>\[\]]+)"
    rf"|(?P<paren>\((?P<pin>[^()\n]{{0,200}}?\b{_YEAR}\b[^()\n]{{0,40}})\))"
    r"|(?P<gem>(?:(?<=[a-z%)\"”’])|(?<=\b(?:19|20)\d\d))\.(?P<gemnums>\d{1,3}(?:,\d{1,3})*)"
    r"(?=[ \t]+[A-Z“\"]|[ \t]*(?:\n|$)))"
    r"|(?P<sup>[¹²³⁰⁴⁵⁶⁷⁸⁹]+(?:[,˒‚][¹²³⁰⁴⁵⁶⁷⁸⁹]+)*)"
)
_SUPERSCRIPT_DIGITS = "¹²³⁰⁴⁵⁶⁷⁸⁹"


class _Find:
    """Patterns that only say where :data:`_BODY` is worth trying (it cannot match anywhere else): speed, not
    rules of the parser, so they are kept out of its fingerprint (which covers the module's patterns)."""

    #: A full stop before a digit where the ``gem`` alternative of :data:`_BODY` can match (its lookbehinds):
    #: a regex finds them several times faster than stepping from full stop to full stop with ``str.find``.
    gem_stop = re.compile(r"\.(?=\d)(?:(?<=[a-z%)\"”’]\.)|(?<=\b(?:19|20)\d\d\.))")
    #: What :func:`_numbers` and the author-year parenthesis split at (compiled once; they were written
    #: in the calls).
    semicolon = re.compile(r"[ \t]*;[ \t]*")
    list_separator = re.compile(r"[ \t]*(?:[,;]|and)[ \t]*")
    range_dash = re.compile(r"[ \t]*[-–—][ \t]*")
    #: :data:`_YEAR_IN_ENTRY` (the same matches and groups) opening with the character set ``[12]`` (the
    #: engine skips to one quickly) instead of its lookbehind (which makes a search try every character): the
    #: lookbehinds after the first digit say what the first one said before it (no digit before the year)
    #: and which digit it was (``1[5-9]`` or ``20``).
    year_in_entry = re.compile(r"([12](?<!\d[12])(?:(?<=1)[5-9]|(?<=2)0)\d\d)([a-z])?(?!\d)")
    #: A run of blanks (as a marker leaves).
    blank_run = re.compile(" *")
    #: Every ASCII character but the letters. What :data:`_REF_HEADING` allows before its word (blanks,
    #: ``#``, ``*``, ``_``, punctuation, a number) holds no letter, and its words start with one: in an ASCII
    #: line the word can only start at the line's first letter.
    not_letters = "".join(chr(c) for c in range(128) if not chr(c).isalpha())
    #: The words of :data:`_REF_WORDS` (lower case), and the longest of them.
    ref_words = tuple(_REF_WORDS.split("|"))
    ref_words_longest = max(map(len, ref_words))
    #: Where :func:`_candidates` looks for a DOI and a URL without a scheme.
    ten_dot = re.compile(r"10\.")
    www = re.compile(r"www\.")
    #: The four digits of a year as :data:`_YEAR` writes it (every match of the ``paren`` alternative holds
    #: them).
    year_four = re.compile(r"(?:1[5-9]|20)\d\d")
    #: The URL of a link in its simplest form, with the ``)`` that closes it (see :func:`_scan_body`).
    link_url = re.compile(r"[^()<>\s]*\)")
    #: A run of the characters of :data:`_ORG_RUN` and the first character past it, one of :data:`_ORG_LAST`:
    #: where :data:`_ENTRY_ORG` may match (a match says so without the copy of the text ``lstrip`` makes).
    org_run = re.compile(r"[ \t*_&'’\-A-Za-zÀ-ÖØ-öø-ÿ]*+[.,(]")
    #: Whether :data:`_ENTRY` gives a line a marker ``[n]``, ``(n)`` or ``n.`` (its group b, p or n): what it
    #: matches before the marker (blanks, a bullet) is kept as first matched (the rest of the line always
    #: matches: it never backtracks), hence the atomic group; then its first three marker alternatives.
    marked = re.compile(
        r"(?>[ \t]*(?:[-*+•‣◦][ \t]+)?)(?:\[\^?[^\]\s]{1,40}\](?!\()|\(\d{1,3}\)|\d{1,3}[.)](?=[ \t]))"
    )
    #: Runs :func:`parse_report` looks for before it blanks them: a literal pattern searches a text about
    #: twice as fast as ``in`` does for a needle of two or three characters (the same answer).
    two_underscores = re.compile("__")
    three_dashes = re.compile("---")
    #: A line break, then the blanks and the first character of a line :data:`_BLANK_LINE` can match (a
    #: heading ``#``, a rule of ``-``, ``*`` or ``_``, a table rule opening with ``|``, ``:`` or ``-``).
    blank_line_start = re.compile(r"\n[ \t]*[-#*_|:]")


#: An author (or two, or "et al.") just before a parenthesised year: ``Lewis et al. (2020)``.
_NARRATIVE_NAME = re.compile(rf"\b({_NAME}(?:[ \t]+et[ \t]+al\.?|[ \t]+(?:&|and)[ \t]+{_NAME})?)[ \t]+$")
_YEAR_ONLY = re.compile(rf"{_YEAR}")
_AY_PART = re.compile(
    rf"^(?:(?:see|e\.g\.|cf\.|also|see also|as in)[ \t,]+)?(?P<name>{_NAME}(?:[ \t]+{_NAME}){{0,4}})"
    rf"(?P<more>[ \t]+et[ \t]+al\.?|(?:,[ \t]*{_NAME})*,?[ \t]+(?:&|and)[ \t]+{_NAME})?"
    rf",?[ \t]+(?P<year>{_YEAR})"
    r"(?:[ \t]*,[ \t]*(?:pp?\.|page|para\.?|ch\.|chap\.|fig\.|table|sec\.)[ \t]*[\w\-–]+)?$"
)
#: Capitalised words that, before a year, are not authors.
_NOT_AUTHORS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "in",
        "since",
        "by",
        "from",
        "until",
        "before",
        "after",
        "as",
        "up",
        "down",
        "around",
        "about",
        "circa",
        "est",
        "approx",
        "see",
        "between",
        "and",
        "or",
        "published",
        "updated",
        "accessed",
        "retrieved",
        "data",
        "source",
        "sources",
        "figure",
        "fig",
        "table",
        "q",
        "fy",
        "h",
        "cy",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "early",
        "late",
        "mid",
        "end",
        "start",
        "the",
        "a",
        "an",
        "of",
        "for",
        "to",
        "at",
        "on",
        "this",
        "that",
        "these",
        "those",
        "year",
        "years",
        "during",
        "through",
        "till",
    ]
)
_SUPERSCRIPT = str.maketrans("¹²³⁰⁴⁵⁶⁷⁸⁹˒‚", "1230456789,,")
_ACCESSED = re.compile(
    r"[,;.]?[ \t]*(?:\(|\[)?(?:last[ \t]+)?(?:accessed|retrieved|visited|viewed|consulted)"
    r"(?:[ \t]+on)?[ \t]*:?[ \t]*[^;()\[\]\n]*?(?:\d{4}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})(?:\)|\])?",
    re.IGNORECASE,
)
_URL_LABEL = re.compile(
    r"(?:available[ \t]+(?:at|from|online)|retrieved[ \t]+from|url|link|online|web|source|from|at|doi)"
    r"[ \t]*:?[ \t]*$",
    re.IGNORECASE,
)
#: How every match of :data:`_URL_LABEL` ends (before its blanks and colon): 6 letters at most.
_URL_LABEL_ENDS = ("at", "from", "online", "url", "link", "web", "source", "doi")
#: The last character of a text :func:`_may_end_with_url_label` can say yes to (what ends one of those
#: words, in either case, or what it takes off the end first).
_URL_LABEL_LAST = frozenset("".join(w[-1] + w[-1].upper() for w in _URL_LABEL_ENDS) + ": \t\n")
#: One of these is in every match of :data:`_ACCESSED`.
_ACCESSED_WORDS = ("accessed", "retrieved", "visited", "viewed", "consulted")
#: Every character :data:`_ACCESSED` can match before one of its words (``,;.``, blanks, brackets, ``last``).
_ACCESSED_OPENING = ",;. \t([lastLAST"
_QUOTED_TITLE = re.compile(r"[\"“]([^\"“”\n]{3,}?)[\"”]")
_YEAR_IN_ENTRY = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)([a-z])?(?!\d)")
_ENTRY_AUTHOR = re.compile(
    rf"^[ \t*_]*(?P<name>{_NAME}(?:[ \t]+(?:van|von|de|der|da|del|la|le|di|du)[ \t]+{_NAME})?)"
)
#: An organisation as author: capitalised words up to the first punctuation (``Rho Motion. (2025).``).
_ENTRY_ORG = re.compile(rf"^[ \t*_]*({_NAME}(?:[ \t]+(?:of|for|and|the|&|{_NAME}))*)[ \t]*[.,(]")
_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&]{1,9})\)")
#: Every character :data:`_ENTRY_ORG` can match before its last one (blanks, ``*_``, the letters of a name,
#: ``&``), and that last one.
_ORG_RUN = (
    " \t*_&'’-"
    + "".join(map(chr, range(ord("A"), ord("Z") + 1)))
    + "".join(map(chr, range(ord("a"), ord("z") + 1)))
    + "".join(map(chr, range(ord("À"), ord("Ö") + 1)))
    + "".join(map(chr, range(ord("Ø"), ord("ö") + 1)))
    + "".join(map(chr, range(ord("ø"), ord("ÿ") + 1)))
)
_ORG_LAST = (".", ",", "(")
_QUOTE = re.compile(
    r"\"(?P<a>[^\"\n]{2,}?)\"|“(?P<b>[^”\n]{2,}?)”|„(?P<c>[^“”\n]{2,}?)[“”]|«[ \t]?(?P<d>[^»\n]{2,}?)[ \t]?»"
    r"|(?<!\w)‘(?P<e>(?:[^’\n]|’(?=\w)){2,}?)’(?!\w)"
)
_HTML_HINT = re.compile(
    r"<(?:a|sup|p|br|li|ul|ol|div|span|h[1-6]|strong|em|b|i|cite|blockquote|table|tr|td|th)\b", re.I
)
_HTML_SUP = re.compile(
    r"<sup\b[^>]*>[ \t]*\[?(\d{1,3}(?:[ \t]*[,–-][ \t]*\d{1,3})*)\]?[ \t]*</sup[ \t]*>", re.I
)
_HTML_ANCHOR = re.compile(
    r"<a\b[^>]*?\bhref[ \t]*=[ \t]*(?:\"(?P<u1>[^\"]*)\"|'(?P<u2>[^']*)'|(?P<u3>[^\s>]+))[^>]*>"
    r"(?P<text>.*?)</a[ \t]*>",
    re.I | re.S,
)
_HTML_BLOCK = re.compile(
    r"</?(?:p|br|li|ul|ol|div|h[1-6]|tr|table|blockquote|section|article|hr)\b[^>]*>", re.I
)
_HTML_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
_HTML_ENTITY = re.compile(r"&(?:#\d{1,6}|#x[0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~).*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.M | re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")
_BLANK_LINE = re.compile(
    r"^[ \t]{0,3}(?:#{1,6}[ \t].*|[-*_][ \t]*(?:[-*_][ \t]*){2,}"
    r"|\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*)$",
    re.M,
)
_EMPTY_PARENS = re.compile(r"\(\s*[,;:]?\s*\)|\[\s*[,;]?\s*\]")
_TRAILING_PUNCT = frozenset(".,;:!?%)]")
_STRUCTURAL_LINE = re.compile(r"(?:[-*+•][ \t]|\d{1,3}[.)][ \t])")
_NOT_CONTENT = " .,;:!?()[]-–—|'\"“”‘’*_#>•"
_ATTRIBUTION_START = frozenset("sSvVrRcCfFdD([")
_LEADING_CHARS = frozenset("-*+•‣◦>0123456789")
_LEADING = re.compile(r"^(?:[-*+•‣◦>][ \t]*|\d{1,3}[.)][ \t]+)+")
_ATTRIBUTION_LINE = re.compile(
    r"^[(\[]?(?:sources?|via|refs?|references?|citations?|cited in|from|credit|data)[ \t]*[:\-–—][ \t]*",
    re.IGNORECASE,
)
_META_START = (
    "this report",
    "in this report",
    "this section",
    "this analysis",
    "this summary",
    "this brief",
    "this document",
    "this overview",
    "the following",
    "following are",
    "here is",
    "here are",
    "here's",
    "below is",
    "below are",
    "below,",
    "below i",
    "let me",
    "let's",
    "i ",
    "i'm",
    "i’m",
    "i've",
    "i’ve",
    "i'll",
    "i’ll",
    "we ",
    "we'll",
    "we’ll",
    "we've",
    "we’ve",
    "note:",
    "note that",
    "please ",
    "feel free",
    "if you",
    "i hope",
    "hope this",
    "as an ai",
    "for more",
    "see ",
    "sources",
    "references",
    "disclaimer",
)
#: :data:`_META_START` by first character (a text can only start with those that share its first one).
_META_START_BY_FIRST = {
    first: tuple(start for start in _META_START if start[0] == first) for first in {s[0] for s in _META_START}
}
_META_START_LONGEST = max(map(len, _META_START))
_WORD_CHAR = re.compile(r"\w")
_LINK_CITATION_TEXT = re.compile(
    r"^(?:\[?\d{1,3}\]?|\^?\d{1,3}|source|sources|link|here|ref|reference|citation|cite|\W*)$", re.IGNORECASE
)
_DOMAIN_LIKE = re.compile(r"^(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)+(?:/\S*)?$", re.IGNORECASE)
_RANGE_LIMIT = 50


def _trim_url(url: str) -> str:
    """A URL found in prose without the punctuation the prose put after it (``.``, ``,``, an unbalanced
    ``)``, Markdown emphasis)."""
    while url:
        last = url[-1]
        if (
            last in ".,;:!?'\"*_>”’"
            or (last == ")" and url.count(")") > url.count("("))
            or (last == "]" and url.count("]") > url.count("["))
        ):
            url = url[:-1]
        else:
            break
    return url


def _is_url_like(text: str) -> bool:
    return bool(_DOMAIN_LIKE.match(text.strip()))


def _blank(segment: str) -> str:
    if "\n" in segment:
        return _NOT_NEWLINE.sub(" ", segment)
    return " " * len(segment)


def _pad(replacement: str, length: int) -> str:
    replacement = replacement.replace("\n", " ")[:length]
    return replacement + " " * (length - len(replacement))


def _apply(text: str, edits: list[tuple[int, int, str | None]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied (``None``: blanked); same length."""
    if not edits:
        return text
    edits.sort(key=_first)
    out: list[str] = []
    last = 0
    for start, end, rep in edits:
        if start < last:  # overlapping edits: the first one wins
            continue
        out.append(text[last:start])
        if rep is not None:
            out.append(_pad(rep, end - start))
        else:  # _blank, inline
            segment = text[start:end]
            out.append(_NOT_NEWLINE.sub(" ", segment) if "\n" in segment else " " * (end - start))
        last = end
    out.append(text[last:])
    return "".join(out)


def _numbers(text: str) -> list[int]:
    """``1, 3-5`` -> ``[1, 3, 4, 5]`` (ranges longer than 50 are read as their two ends)."""
    text = text.strip()
    if text.isdigit():  # one number, the common case: what the splits below give for it
        return [int(text)]
    found: list[int] = []
    for part in _Find.list_separator.split(text):
        if not part:
            continue
        bounds = _Find.range_dash.split(part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            a, b = int(bounds[0]), int(bounds[1])
            if a <= b and b - a <= _RANGE_LIMIT:
                found.extend(range(a, b + 1))
            else:
                found.extend((a, b))
        elif part.isdigit():
            found.append(int(part))
    return found


# --- the source list ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    id: str | None
    marker: str
    text: str
    origin: str


@dataclass
class _Sources:
    """The sources found so far, and the keys that lead to them."""

    by_id: dict[str, ParsedSource] = field(default_factory=dict)
    by_url: dict[str, str] = field(default_factory=dict)
    by_doi: dict[str, str] = field(default_factory=dict)
    by_author: dict[tuple[str, str], str] = field(default_factory=dict)
    by_raw: dict[str, str] = field(default_factory=dict)
    listed_urls: list[tuple[str, str]] = field(default_factory=list)
    has_author_entries: bool = False
    links: int = 0
    #: :func:`_accessed_off` by the end of an entry from its accessed date on (the entries of a list mostly
    #: share it: ``, accessed May 3, 2025,``)
    accessed_cuts: dict[str, str] = field(default_factory=dict)

    def add(self, source: ParsedSource) -> str:
        sid, url, doi = source.id, source.url, source.doi  # (each field read once)
        by_id = self.by_id
        if sid in by_id:
            return sid
        by_id[sid] = source
        if doi and doi not in self.by_doi:
            self.by_doi[doi] = sid
        if url:
            self.by_raw.setdefault(url, sid)
            if source.origin != "inline":
                # listed sources are matched by normalised URL (computed when first needed); inline links
                # only by their spelling (normalising every inline URL is costly)
                self.listed_urls.append((url, sid))
        return sid

    def find(self, url: str | None, doi: str | None) -> str | None:
        if doi and doi in self.by_doi:
            return self.by_doi[doi]
        if url:
            found = self.by_raw.get(url)
            if found is not None:
                return found
            if self.listed_urls:
                for listed, sid in self.listed_urls:
                    self.by_url.setdefault(normalize_url(listed), sid)
                self.listed_urls.clear()
            if self.by_url:
                return self.by_url.get(normalize_url(url))
        return None

    def inline(self, url: str | None, doi: str | None, title: str | None) -> str:
        """The id of the source an inline link points to: a listed source with the same DOI or normalised
        URL, else a new ``link<n>`` source."""
        # find(), inline: the DOI, the URL as written, then (when there are any) the normalised URLs
        by_doi = self.by_doi
        if doi:
            found = by_doi.get(doi)
            if found is not None:
                return found
        by_raw = self.by_raw
        if url:
            found = by_raw.get(url)
            if found is not None:
                return found
            if self.listed_urls or self.by_url:
                found = self.find(url, None)  # (the DOI and the URL as written are not known)
                if found is not None:
                    return found
        links = self.links + 1
        sid = _LINK_IDS[links] if links < len(_LINK_IDS) else f"link{links}"
        by_id = self.by_id
        while sid in by_id:
            links += 1
            sid = _LINK_IDS[links] if links < len(_LINK_IDS) else f"link{links}"
        self.links = links
        # what add() does for a new inline source (its id is new; inline URLs are not normalised; neither its
        # DOI nor its URL is known, see above)
        by_id[sid] = _source(sid, "", url, doi, title, url or doi or "", "inline")
        if doi:
            by_doi[doi] = sid
        if url:
            by_raw[url] = sid
        return sid


#: ``link<n>`` for the first few hundred n (the id of a report's n-th inline source), made once: formatting
#: the number and hashing the new string were a fifth of making an inline source.
_LINK_IDS = tuple(f"link{n}" for n in range(512))


def _entry_source(entry: _Entry, sources: _Sources, ordinal: int) -> ParsedSource:
    body = entry.text.strip()
    url: str | None = None
    title: str | None = None
    # each pattern below is tried only where it can match: _MD_LINK needs "](", _BARE_URL "http" or "www." (in
    # any case), _DOI_TEXT "10.", _ACCESSED one of its words; in an ASCII text a lower-case search for them
    # is exact (the only other characters IGNORECASE lets match an ASCII letter stand for i, k and s)
    link = _MD_LINK.search(body) if "](" in body else None
    rest = body
    if link is not None:
        url = _trim_url(link.group("url")) or None
        text = link.group("text").strip().strip("*_`")
        if text and not _is_url_like(text) and not _LINK_CITATION_TEXT.match(text):
            title = text
        rest = body[: link.start()] + " " + body[link.end() :]
    lowered = body.lower()
    http, www = lowered.find("http"), lowered.find("www.")
    has_url = http != -1 or www != -1
    if url is None and has_url:
        # _url_in_entry, inline (the first place a URL can start is known)
        bare = (
            _BARE_URL.match(body, http if www == -1 or -1 < http < www else www) if body.isascii() else None
        )
        if bare is None:
            bare = _bare_url(body, lowered)
        if bare is not None:
            url = _trim_url(bare.group())
            rest = body[: bare.start()] + " " + body[bare.end() :]
    doi = find_doi(body) if ("10." in body) else None
    # (a bare URL starts with "http" or "www.": only a link's can start so)
    if link is not None and url and url[:4].lower().startswith(("doi:", "10.")):
        url = None
    if title is None and ('"' in rest or "“" in rest):  # _QUOTED_TITLE opens with one of them
        quoted = _QUOTED_TITLE.search(rest)
        if quoted is not None:
            title = quoted.group(1).strip(" .,")
    if title is None:
        cleaned = rest
        # (_accessed_off finds the words itself: the text as is when it has none)
        if rest.isascii():
            cleaned = _accessed_off(cleaned, sources.accessed_cuts)
        else:
            cleaned = _ACCESSED.sub(" ", cleaned)
        if "10." in cleaned:
            cleaned = _DOI_TEXT.sub(" ", cleaned)
        if has_url:  # rest is body less its link, if any (so when body has none, rest has none)
            low = cleaned.lower()
            if "http" in low or "www." in low:
                cleaned = _BARE_URL.sub(" ", cleaned)
        cleaned = cleaned.replace("*", "").replace("`", "").replace("<", " ").replace(">", " ")
        cleaned = " ".join(cleaned.split())
        # _URL_LABEL ends the text and, with single spaces, is at most 19 characters long: look at the end
        # only (the same first match); in an ASCII text, only where the last character can end it
        cut = max(0, len(cleaned) - 32)
        end = cleaned[cut:]
        last = end[-1:]
        if not end.isascii():
            may_end_with_label = True
        elif last == ":":
            may_end_with_label = _may_end_with_url_label(end)
        else:  # _may_end_with_url_label, for a text with no blank at its end (split above): one of its words
            may_end_with_label = last in _URL_LABEL_LAST and end[-6:].lower().endswith(_URL_LABEL_ENDS)
        if may_end_with_label:
            cleaned = cleaned[:cut] + _URL_LABEL.sub("", end)
        title = cleaned.strip(" -–—|,;:.")[:300] or None
    sid = entry.id or str(ordinal)
    marker = entry.marker or f"[{sid}]"
    source = _source(sid, marker, url, doi, title, body, entry.origin)
    # author-year keys: first author's surname (and an acronym in parentheses) with the year
    author = _ENTRY_AUTHOR.match(body)
    if author is None:
        return source
    name = author.group("name")
    names = {name.lower().replace("’", "'")}
    # _ENTRY_ORG is tried only where it can match: what it matches before its last character ([.,(]) is a
    # run of the characters of _ORG_RUN, so that character is the first one past such a run. Right after a
    # one-word author ("Smith, A."), it matches that word (its first name is the author's, and its
    # repetition gives way to [.,(]): the name is in names already.
    if body[author.end() : author.end() + 1] in _ORG_LAST and " " not in name and "\t" not in name:
        pass
    elif _Find.org_run.match(body) is not None:  # (body.lstrip(_ORG_RUN)[:1] in _ORG_LAST)
        org = _ENTRY_ORG.match(body)
        if org is not None:
            names.add(" ".join(org.group(1).lower().replace("’", "'").split()))
    if names <= _NOT_AUTHORS and "(" not in body:
        return source  # no name is kept, whatever the year (an acronym would be in parentheses)
    year = _year_in_entry(body[:300])
    if year is None:
        return source
    before = year.start() + 8
    if body.find("(", 0, before) != -1:  # _ACRONYM opens with "("
        # (endpos: the pattern then sees the text end there, as in body[:before]; it looks at nothing around)
        acronyms = _ACRONYM.findall(body, 0, before)
        if acronyms:
            names.update(a.lower() for a in acronyms)
    kept = [n for n in names if n not in _NOT_AUTHORS]
    if kept:
        # the year as written (its digits and any letter: the whole match), and its digits
        written, digits = year.group(0, 1)
        by_author = sources.by_author
        for name in kept:
            by_author.setdefault((name, written), sid)
            if len(written) > 4:  # (without a letter the two keys are one: every year has 4 digits)
                by_author.setdefault((name, digits), sid)
        sources.has_author_entries = True
    return source


def _url_in_entry(text: str, lowered: str) -> re.Match[str] | None:
    """``_bare_url(text, lowered)``: in an ASCII text the first place it tries is the first ``http`` or
    ``www.`` of ``lowered``; when a URL starts there (the common case) that is its answer, found without
    listing every place."""
    if text.isascii():
        at = lowered.find("http")
        www = lowered.find("www.")
        if www != -1 and (at == -1 or www < at):
            at = www
        if at == -1:
            return None
        m = _BARE_URL.match(text, at)
        if m is not None:
            return m
    return _bare_url(text, lowered)


def _year_in_entry(text: str) -> re.Match[str] | None:
    """``_YEAR_IN_ENTRY.search(text)``, by :attr:`_Find.year_in_entry` (one search the engine runs faster)."""
    return _Find.year_in_entry.search(text)


def _bare_url(body: str, lowered: str) -> re.Match[str] | None:
    """``_BARE_URL.search(body)`` (``lowered``: ``body.lower()``): in an ASCII text a match can only start at
    a ``http`` or ``www.`` of its lower case, so it is tried there (a search tries every character)."""
    if not body.isascii():
        return _BARE_URL.search(body)
    places: list[int] = []
    for needle in ("http", "www."):
        i = lowered.find(needle)
        while i != -1:
            places.append(i)
            i = lowered.find(needle, i + 1)
    places.sort()
    for i in places:
        m = _BARE_URL.match(body, i)
        if m is not None:
            return m
    return None


def _may_end_with_url_label(text: str) -> bool:
    """False only where :data:`_URL_LABEL` cannot match the ASCII ``text``: it ends the text with one of its
    words (then blanks, a colon, blanks)."""
    if text.endswith("\n"):  # "$" matches before a last line break too
        text = text[:-1]
    text = text.rstrip(" \t")
    if text.endswith(":"):
        text = text[:-1].rstrip(" \t")
    return text.lower().endswith(_URL_LABEL_ENDS)


def _accessed_off(text: str, cuts: dict[str, str] | None = None) -> str:
    """``_ACCESSED.sub(" ", text)`` for an ASCII ``text``: where one of its words is written only once (the
    common case: one match at most), the match is looked for from the characters that can open it before the
    word (a run of ``,;.([`` blanks and ``last``) and, found, replaced (the pattern looks at nothing before
    where it starts: a search from there finds what a substitution on the text from there finds, and what a
    search of the text from there alone finds). ``cuts``: what this gave for such ends of texts (the
    entries of a list mostly end alike), kept there."""
    lowered = text.lower()
    count = lowered.count("ed")
    if not count:  # every word ends so
        return text
    # each written word ends with its own "ed" (no word ends another): with one "ed", "accessed" (the common
    # word) found is the only word, written once
    at = lowered.find("accessed") if count == 1 else -1
    if at == -1:
        for word in _ACCESSED_WORDS:
            i = lowered.find(word)
            if i != -1:
                if at != -1 or lowered.find(word, i + 1) != -1:  # written more than once
                    return _ACCESSED.sub(" ", text)
                at = i
        if at == -1:  # no word: no match
            return text
    at = len(text[:at].rstrip(_ACCESSED_OPENING))  # back over what can open the match
    end = text[at:]
    cut = cuts.get(end) if cuts is not None else None
    if cut is None:
        m = _ACCESSED.search(end)
        cut = end if m is None else end[: m.start()] + " " + end[m.end() :]
        if cuts is not None:
            cuts[end] = cut
    return text[:at] + cut


def _only_url_label(text: str) -> bool:
    """Whether ``text`` is blank once :data:`_URL_LABEL` is taken off its end: that pattern starts with a
    letter and ends the text, so this is whether it matches from the text's first non-blank character (one
    match there instead of a search from every character)."""
    first = len(text) - len(text.lstrip())
    return first == len(text) or _URL_LABEL.match(text, first) is not None


def _entry_id(
    b: str | None, p: str | None, n: str | None, c: str | None, d: str | None
) -> tuple[str | None, str]:
    """The id and marker of a list entry from the groups b, p, n, c, d of :data:`_ENTRY`."""
    if n is not None:  # (at most one of them is set: the order does not matter; "1." is the common one)
        return n, f"{n}."
    if b is not None:
        return b, f"[{b}]"
    if p is not None:
        return p, f"({p})"
    if c is not None:
        return c, f"^{c}"
    if d is not None:
        return d, d
    return None, ""


def _region_entries(lines: list[str], origin: str = "list") -> list[_Entry]:
    """The entries of a source list, one per marker, bullet or line; a line that only continues an entry
    (indented, or just its URL) is joined to it."""
    entries: list[_Entry] = []
    for line in lines:
        if not line.strip():
            continue
        m = _ENTRY.match(line)
        assert m is not None  # the pattern matches every line
        bullet, b, p, n, c, d, body = m.groups()  # (every group of the pattern, in this order)
        ident, marker = _entry_id(b, p, n, c, d)
        body = body.strip()
        if not body and ident is None:
            continue
        starts_new = ident is not None or bullet is not None
        if not starts_new and entries:
            current = entries[-1]
            # (the cheap tests first: each one alone joins the line)
            if line[:1] in " \t" or body[:1].islower() or (_only_link(body) and not _has_link(current.text)):
                current.text += " " + body
                continue
        entries.append(_Entry(ident, marker, body, origin))
    return entries


def _only_link(body: str) -> bool:
    """Whether a line of a list holds only a URL (a label before it at most)."""
    return _BARE_URL.match(body) is not None or _only_url_label(body.partition("http")[0])


def _has_link(text: str) -> bool:
    """Whether an entry holds a URL or what may be a DOI."""
    return "10." in text or _url_in_entry(text, text.lower()) is not None


def _ref_heading(line: str) -> re.Match[str] | None:
    """:data:`_REF_HEADING` matched on ``line``, tried only where it can match
    (:func:`_may_be_ref_heading`)."""
    return _REF_HEADING.match(line) if _may_be_ref_heading(line) else None


def _may_be_ref_heading(line: str) -> bool:
    """False only where :data:`_REF_HEADING` cannot match ``line``: in an ASCII line its word starts at the
    first letter (:attr:`_Find.not_letters`), so the line from there starts with one of its words (in an
    ASCII text a case-insensitive match is a match of the lower case); other lines are always tried."""
    if not line.isascii():
        return True
    return line.lstrip(_Find.not_letters)[: _Find.ref_words_longest].lower().startswith(_Find.ref_words)


def _find_regions(lines: list[str], short: list[int] | None = None) -> list[tuple[int, int, str]]:
    """``(first line, end line, text after the heading)`` of each source list: from a reference heading to
    the next heading of the same or a higher level; or a trailing block of marked lines with URLs. ``short``:
    the indices of the lines of 1 to 199 characters, if known."""
    regions: list[tuple[int, int, str]] = []
    n = len(lines)
    not_letters, words, longest = _Find.not_letters, _Find.ref_words, _Find.ref_words_longest
    after = 0  # the first line after the last list
    # a heading is a line of 1 to 199 characters: only those are tried, from the top, past each list found
    if short is None:
        short = [k for k, size in enumerate(map(len, lines)) if 0 < size < 200]
    for i in short:
        if i < after:
            continue
        line = lines[i]
        # _ref_heading, inline (it runs once a line)
        m = (
            _REF_HEADING.match(line)
            if not line.isascii() or line.lstrip(not_letters)[:longest].lower().startswith(words)
            else None
        )
        if m is not None:
            rest = m.group("rest").strip()
            if rest and not (
                _BARE_URL.search(rest) or _DOI_TEXT.search(rest) or re.match(r"\[?\^?\d{1,3}[\].):]", rest)
            ):
                m = None
        if m is None:
            continue
        level = len(m.group("hashes") or "") or 7
        j = i + 1
        while j < n:
            below = lines[j]
            if "#" in below[:4]:  # where _MD_HEADING can match: "#" after at most three blanks
                h = _MD_HEADING.match(below)
                if h is not None and len(h.group(1)) <= level and _ref_heading(below) is None:
                    break
            j += 1
        regions.append((i, j, m.group("rest").strip()))
        after = j
    # a trailing block of "[n] URL" / "n. URL" lines without a heading (Perplexity and API answers)
    last_end = regions[-1][1] if regions else 0
    j = n
    while j > last_end and not lines[j - 1].strip():
        j -= 1
    k = j
    while k > last_end:
        line = lines[k - 1]
        if not line.strip():
            k -= 1
            continue
        marked = _Find.marked.match(line) is not None  # (_ENTRY gives it group b, n or p)
        if marked and (_url_in_entry(line, line.lower()) or ("10." in line and _DOI_TEXT.search(line))):
            k -= 1
            continue
        break
    if k < j and (regions == [] or regions[-1][1] < k or regions[-1][1] == n):
        while k < j and not lines[k].strip():
            k += 1
        if not regions or regions[-1][1] <= k:
            regions.append((k - 1, j, ""))  # "heading" line k - 1 is not part of the list itself
    return regions


# --- the body -------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Cite:
    start: int
    end: int
    marker: str
    source_id: str | None


_start_of = attrgetter("start")
_end_of = attrgetter("end")
_first = itemgetter(0)


def _html(text: str) -> str:
    """Simple HTML made into Markdown of the same length: anchors become links, ``<sup>n</sup>`` a marker,
    block tags line breaks, other tags blanks, entities their character."""

    def sup(m: re.Match[str]) -> str:
        return _pad("[" + m.group(1) + "]", len(m.group()))

    def anchor(m: re.Match[str]) -> str:
        u1, u2, u3, inner = m.groups()  # (every group of the pattern, in this order)
        url = (u1 or u2 or u3 or "").strip()
        if "<" in inner:  # (every match of _HTML_TAG starts with one)
            inner = _HTML_TAG.sub("", inner)
        inner = " ".join(inner.split())  # (split() drops the blanks at the ends that strip() would)
        if "&" in inner:  # (html.unescape changes nothing else)
            inner = html.unescape(inner)
        if url.startswith("#"):
            digits = re.sub(r"\D", "", inner)
            return _pad(f"[{digits}]" if digits and len(digits) <= 3 else inner, m.end() - m.start())
        return _pad(f"[{inner}]({url})", m.end() - m.start())

    # <sup needs "sup" in any case (in a non-ASCII text ſ can stand for s), <a "<a" (a and A only), an entity
    # "&": each substitution is run only where it can match
    lowered = text.lower()
    if "<sup" in lowered or not text.isascii():
        text = _HTML_SUP.sub(sup, text)
    if "<a" in lowered:
        text = _HTML_ANCHOR.sub(anchor, text)
    text = _HTML_BLOCK.sub(lambda m: " " * (len(m.group()) - 1) + "\n", text)
    text = _HTML_TAG.sub(lambda m: " " * len(m.group()), text)
    if "&" in text:
        text = _HTML_ENTITY.sub(lambda m: _pad(html.unescape(m.group()), len(m.group())), text)
    return text


def _author_year_parts(part: str) -> tuple[str, str, str, bool] | None:
    """``(name, first name, year, more authors)`` of an author-year citation ``part`` (stripped), ``None``
    when it is none."""
    m = _AY_PART.match(part)
    if m is None:
        return None
    name = " ".join(m.group("name").lower().replace("’", "'").split())
    first = name.split()[0]
    if first in _NOT_AUTHORS:
        return None
    return name, first, m.group("year"), bool(m.group("more"))


def _author_year(part: str, sources: _Sources, *, strict: bool) -> tuple[bool, str | None]:
    """Whether ``part`` (``Lewis et al., 2020``) is an author-year citation, and the source it names."""
    found = _author_year_parts(part.strip())
    if found is None:
        return False, None
    name, first, year, more = found
    by_author = sources.by_author
    sid = (
        by_author.get((name, year))
        or by_author.get((name, year[:4]))
        or by_author.get((first, year))
        or by_author.get((first, year[:4]))
    )
    if sid is not None:
        return True, sid
    # no entry: a citation to a missing source only when it is unmistakably one
    if sources.has_author_entries or more or not strict:
        return True, None
    return False, None


def _link_text_is_citation(text: str, work: str, start: int) -> bool:
    """A link whose text is a number, ``source``, a domain or URL, or that stands in parentheses, only
    cites; its text is not part of the sentence."""
    return bool(_LINK_CITATION_TEXT.match(text) or _is_url_like(text)) or _in_parentheses(text, work, start)


def _in_parentheses(text: str, work: str, start: int) -> bool:
    """A link's ``text`` of eight words or fewer after ``(``, ``;`` or ``,`` (a citation in parentheses)."""
    k = start - 1
    while k >= 0 and work[k] in " \t":
        k -= 1
    return k >= 0 and work[k] in "(;," and len(text.split()) <= 8


def _marker_pairs(numbers: list[int], by_id: dict[str, ParsedSource]) -> list[tuple[str, str | None]]:
    """``(marker, source id)`` of each number of a numbered marker (:func:`_numbers` of its ``nums``)."""
    pairs: list[tuple[str, str | None]] = []
    for n in numbers:
        key = str(n)
        pairs.append((f"[{key}]", key if key in by_id else ("^" + key if "^" + key in by_id else None)))
    return pairs


def _plain_numbers(inner: str) -> list[int] | None:
    """The numbers of ``inner`` when it is one to three ASCII digits, or several such joined by ``", "``
    (``1``, ``12, 3``): then ``[inner]`` is a match of the ``num`` alternative of :data:`_BODY` with ``nums``
    the whole of ``inner``, and these are what :func:`_numbers` reads in it (no range); else ``None``."""
    if not inner.isascii():
        return None
    if inner.isdigit():  # (one number, the common case)
        return [int(inner)] if len(inner) <= 3 else None
    parts = inner.split(", ")
    for part in parts:
        if not (0 < len(part) <= 3 and part.isdigit()):
            return None
    return [int(part) for part in parts]


def _scan_body(work: str, sources: _Sources, link_defs: dict[str, str]) -> tuple[str, list[_Cite]]:
    """The citations of the body, and the body with their markers blanked (a link's text kept where it is
    part of the sentence): :data:`_BODY` matched at each of :func:`_candidates`, left to right.

    The blanked text is put together as the matches are read: each match starts at or after the end of the
    one before (a candidate inside a match is skipped), so the edits come in order and never overlap, and no
    alternative of :data:`_BODY` spans a line break (so a blank is spaces only): what :func:`_apply` would
    make of them, without sorting them."""
    cites: list[_Cite] = []
    out: list[str] = []  # the text up to ``done``, markers blanked
    done = 0
    by_id = sources.by_id  # the same dict throughout (sources found here are added to it)
    # (every source so far comes from a list, a footnote or a definition: inline ones are added below)
    numbered = False
    for key in filter(str.isdigit, by_id):
        if by_id[key].origin in ("list", "definition", "footnote"):
            numbered = True
            break
    pos = 0
    match = _BODY.match
    find = work.find
    # a numbered marker's citations depend only on its text and the listed ids (no digit id is added while
    # the body is read): worked out once per spelling
    markers: dict[str, list[tuple[str, str | None]]] = {}
    # whether _BODY matches at a "(" depends only on what lies between it and the first ")" after it (see
    # _paren_inner); the citations of a parenthesis only on that text and the author keys of the listed
    # sources (none is added while the body is read): both worked out once per spelling
    paren_kinds: dict[str, int] = {}  # 0: no match; 1: a year alone ("Lewis et al. (2020)"); 2: other
    parens: dict[str, list[tuple[str, str | None]]] = {}
    # a URL as written -> the URL without trailing prose punctuation, and its DOI (pure functions of it)
    url_keys: dict[str, tuple[str, str | None]] = {}
    # a link's text -> whether it only cites whatever stands around it (a number, "source", a domain or URL),
    # as _link_text_is_citation says (its patterns read the text alone)
    cites_only: dict[str, bool] = {}
    for candidate in _candidates(work, numbered):
        if candidate < pos:
            continue
        first = work[candidate]
        if first == "(":
            inner = _paren_inner(work, candidate)
            if inner is None:
                continue
            close = candidate + 1 + len(inner)
            paren_kind = paren_kinds.get(inner)
            if paren_kind is None:
                # (a year's four digits are in every match: most parentheses without one are not tried)
                if _Find.year_four.search(inner) is None or match(work, candidate) is None:
                    paren_kind = 0
                else:
                    paren_kind = 1 if _YEAR_ONLY.fullmatch(inner) else 2
                paren_kinds[inner] = paren_kind
            if not paren_kind:
                continue
            start, end = candidate, close + 1
            pos = end
            if paren_kind == 1:  # "Lewis et al. (2020)": the name stays in the sentence
                before = _NARRATIVE_NAME.search(work, max(0, start - 80), start)
                if before is None:
                    pos = start + 1
                    continue
                name = before.group(1)
                ok, sid = _author_year(f"{name}, {inner}", sources, strict=True)
                if not ok:
                    pos = start + 1
                    continue
                out.append(work[done:start])
                out.append(" " * (end - start))
                done = end
                cites.append(_Cite(before.start(1), end, f"{name} ({inner})", sid))
                continue
            paren = parens.get(inner)
            if paren is None:
                parts = [p for p in _Find.semicolon.split(inner) if p.strip()]
                found = [_author_year(p, sources, strict=True) for p in parts]
                if found and all(ok for ok, _ in found):
                    paren = [(f"({part.strip()})", sid) for part, (_, sid) in zip(parts, found, strict=True)]
                else:
                    paren = []
                parens[inner] = paren
            if not paren:
                pos = start + 1  # something else in parentheses: look inside it again
                continue
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
            for marker, sid in paren:
                cites.append(_Cite(start, end, marker, sid))
            continue
        kind: str | None = None
        if first == "[":
            # "[12]", "[1, 3]" and "[^2]" read without the pattern. Such a match ends at the first "]"; when
            # no "(" follows it the "link" alternative (tried first) cannot match there, as the text in
            # between holds no "[" (a link's text ends at its first "]" then, and "](" must follow it)
            close = find("]", candidate + 1, candidate + 48)
            if close == -1:
                pass
            elif work.startswith("(", close + 1):
                # "[text](url)" read without the pattern where the text holds no "[" nor line break and the
                # URL no blank, "(", "<" or ">" before its ")": the first way the "link" alternative tries
                # (its text up to the first "]", its URL up to the first character it cannot hold) matches
                text = work[candidate + 1 : close]
                if "[" not in text and "\n" not in text:
                    url_end = _Find.link_url.match(work, close + 2)
                    if url_end is not None:
                        kind = "link"
                        start, end = candidate, url_end.end()
                        raw_url = work[close + 2 : end - 1]
            else:
                written = work[candidate : close + 1]
                pairs = markers.get(written)  # a spelling matched as "num" before
                if pairs is None:
                    inner = written[1:-1]
                    if inner[:1] == "^":
                        if inner.isascii() and inner[1:].isalnum():
                            # the "fn" alternative (no "num" starts with "^"): its id has no blank nor "["
                            fid = inner[1:]
                            sid = "^" + fid if "^" + fid in by_id else (fid if fid in by_id else None)
                            out.append(work[done:candidate])
                            out.append(" " * len(written))
                            pos = done = close + 1
                            cites.append(_Cite(candidate, done, written, sid))
                            continue
                    elif inner[:1].isdigit():
                        numbers = _plain_numbers(inner)
                        if numbers is not None:
                            pairs = markers[written] = _marker_pairs(numbers, by_id)
                if pairs is not None:  # the "num" alternative, as below
                    if not pairs:
                        pos = candidate + 1
                        continue
                    out.append(work[done:candidate])
                    out.append(" " * len(written))
                    pos = done = close + 1
                    for marker, sid in pairs:
                        cites.append(_Cite(candidate, done, marker, sid))
                    continue
        if kind is None:
            found_match = match(work, candidate)
            if found_match is None:
                continue
            m = found_match
            kind = m.lastgroup
            start, end = m.span()
            if kind == "link":
                text, raw_url = m.group("ltext", "lurl")
        pos = end
        if kind == "link":
            text = text.strip()
            raw_url = raw_url.strip()
            if first == "!" or not raw_url or raw_url.startswith("#"):
                digits = text.strip("[]^ ")
                out.append(work[done:start])
                if raw_url.startswith("#") and digits.isdigit() and len(digits) <= 3:
                    sid = digits if digits in by_id else None
                    out.append(" " * (end - start))
                    cites.append(_Cite(start, end, f"[{digits}]", sid))
                else:
                    out.append(" " * (end - start) if first == "!" else _pad(text, end - start))
                done = end
                continue
            known = url_keys.get(raw_url)
            if known is None:
                url = _trim_url(raw_url)
                known = url_keys[raw_url] = (url, find_doi(url) if "10." in url else None)
            url, doi = known
            # what _link_text_is_citation says, each pattern tried once: a number, "source", a domain or URL
            # only cites (no title); other text is the title, and only cites when it stands in parentheses
            only_cites = cites_only.get(text)
            if only_cites is None:
                only_cites = cites_only[text] = bool(_LINK_CITATION_TEXT.match(text) or _is_url_like(text))
            if only_cites:
                title = None
            else:
                title, only_cites = text.strip("*_` "), _in_parentheses(text, work, start)
            sid = sources.inline(url, doi, title)
            cites.append(_Cite(start, end, url, sid))
            out.append(work[done:start])
            out.append(" " * (end - start) if only_cites else _pad(text, end - start))
            done = end
        elif kind == "url":
            raw = m.group()
            known = url_keys.get(raw)
            if known is None:
                url = _trim_url(raw)
                known = url_keys[raw] = (url, find_doi(url) if "10." in url else None)
            url, doi = known
            end = start + len(url)
            pos = end
            if len(url) < 8:
                continue
            sid = sources.inline(url, doi, None)
            cites.append(_Cite(start, end, url, sid))
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
        elif kind == "num":
            written = m.group()
            pairs = markers.get(written)
            if pairs is None:
                pairs = markers[written] = _marker_pairs(_numbers(m.group("nums")), by_id)
            if not pairs:
                pos = start + 1
                continue
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
            for marker, sid in pairs:
                cites.append(_Cite(start, end, marker, sid))
        elif kind == "fn":
            fid = m.group("fid")
            sid = "^" + fid if "^" + fid in by_id else (fid if fid in by_id else None)
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
            cites.append(_Cite(start, end, m.group(), sid))
        elif kind == "reflink":
            rtext, rlabel = m.group("rtext", "rlabel")
            label = (rlabel or rtext).strip().lower()
            target = link_defs.get(label)
            if target is None:
                pos = start + 1
                continue
            cites.append(_Cite(start, end, m.group(), target))
            out.append(work[done:start])
            out.append(
                " " * (end - start)
                if _link_text_is_citation(rtext, work, start)
                else _pad(rtext, end - start)
            )
            done = end
        elif kind == "doi":
            raw = _trim_url(m.group())
            end = start + len(raw)
            pos = end
            doi = find_doi(raw)
            if doi is None:
                continue
            sid = sources.inline(None, doi, None)
            cites.append(_Cite(start, end, raw, sid))
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
        elif kind == "oa":
            key = m.group("oanum")
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
            cites.append(_Cite(start, end, m.group(), key if key in by_id else None))
        elif kind == "needed":
            out.append(work[done:start])
            out.append(" " * (end - start))
            done = end
        elif kind in ("gem", "sup"):
            if not numbered:
                continue
            group = "gemnums" if kind == "gem" else "sup"
            s, e = m.span(group)
            digits = m.group(group).translate(_SUPERSCRIPT)
            nums = _numbers(digits)
            if kind == "sup":
                k = s - 1
                if k >= 0 and work[k].isalnum() and not work[k].isdigit() and not _sup_after_word(work, k):
                    continue
            if not nums or any(str(x) not in by_id for x in nums):
                continue
            out.append(work[done:s])
            out.append(" " * (e - s))
            done = e
            for x in nums:
                cites.append(_Cite(s, e, f"[{x}]", str(x)))
    if not out:
        return work, cites
    out.append(work[done:])
    return "".join(out), cites


def _candidates(work: str, numbered: bool) -> list[int]:
    """Where a citation can start, in order: ``[``, ``![``, ``(``, ``【``, ``http``, ``www.``, ``doi``,
    ``10.``; with a numbered source list also a full stop before a digit and superscript digits. Found with
    ``str.find`` and, for needles of several characters, small literal patterns (both much faster than
    searching the text with the citation pattern).

    Only places where :data:`_BODY` can match are kept (dropping one where it cannot changes nothing): a
    ``http`` only before ``://`` or ``s://`` (found from the colons, which are few: a search for one
    character is several times faster than one for several, and no lower-case copy is needed), a ``doi``
    only before ``:`` and ``10.``, ``www.`` and ``10.`` only as written (the patterns that start there want
    them so)."""
    found: list[int] = []
    find = work.find
    for needle in ("[", "(", "【"):
        i = find(needle)
        while i != -1:
            found.append(i)
            i = find(needle, i + 1)
    # (a needle of several characters is found faster by a regex than by str.find, which only a single
    # character makes fast; neither can overlap itself, so finditer finds every one)
    tens = [m.start() for m in _Find.ten_dot.finditer(work)]
    found.extend(tens)
    i = find("!")
    while i != -1:
        if work.startswith("[", i + 1):
            found.append(i)
        i = find("!", i + 1)
    found.extend([m.start() for m in _Find.www.finditer(work)])
    # a place searched in lower case before (http, doi) is kept as such only where the text and its lower
    # case line up (else it was searched as written)
    same_length: bool | None = True if work.isascii() else None
    i = find(":")
    while i != -1:
        if i >= 5 and work.startswith("https://", i - 5):  # the common case of what follows
            found.append(i - 5)
            i = find(":", i + 1)
            continue
        if not work.startswith("//", i + 1):
            i = find(":", i + 1)
            continue
        h = i - 5 if work[i - 1 : i] in ("s", "S") else i - 4
        word = work[h : h + 4] if h >= 0 else ""
        if word == "http" or (word.lower() == "http" and word.isascii()):
            if word != "http" and same_length is None:
                same_length = len(work.lower()) == len(work)
            if word == "http" or same_length:
                found.append(h)
        i = find(":", i + 1)
    for i in tens:
        k = i
        if k > 0 and work[k - 1] in " \t":
            k -= 1
        if k > 0 and work[k - 1] == ":":
            k -= 1
            while k > 0 and work[k - 1] in " \t":
                k -= 1
            word = work[k - 3 : k] if k >= 3 else ""
            if word == "doi" or (word.lower() == "doi" and word.isascii()):
                if word != "doi" and same_length is None:
                    same_length = len(work.lower()) == len(work)
                if word == "doi" or same_length:
                    found.append(k - 3)
    if numbered:
        # a full stop before a digit, where the "gem" alternative of _BODY can match (not a decimal point)
        found.extend([m.start() for m in _Find.gem_stop.finditer(work)])
        for ch in _SUPERSCRIPT_DIGITS if not work.isascii() else ():  # (none in an ASCII text)
            i = work.find(ch)
            while i != -1:
                found.append(i)
                i = work.find(ch, i + 1)
    found.sort()
    return found


def _paren_inner(work: str, i: int) -> str | None:
    """The text inside the parenthesis that opens at ``i``; ``None`` only where :data:`_BODY` cannot match
    there: only its ``paren`` alternative starts with ``(``, and its ``)`` is the first of ``(``, ``)`` and a
    line break after it, at most 246 characters on (200 + a year of 5 + 40 inside). Whether it matches then
    depends only on the text in between (its word boundaries look at the parentheses at most)."""
    close = work.find(")", i + 1, i + 248)
    if close == -1:
        return None
    inner = work[i + 1 : close]
    return None if "(" in inner or "\n" in inner else inner


def _sup_after_word(work: str, k: int) -> bool:
    """A superscript after a letter is a citation only after a word of three letters or more (``growth¹``),
    not after a unit (``m²``, ``km²``)."""
    w = k
    while w >= 0 and work[w].isalpha():
        w -= 1
    word = work[w + 1 : k + 1]
    return len(word) >= 3 and word.lower() not in ("km", "cm", "mm", "sq")


# --- sentences ------------------------------------------------------------------------------------------


def _blank_lines(work: str) -> str:
    """``work`` with every match of :data:`_BLANK_LINE` (headings, rules, table rules) blanked, as
    ``_BLANK_LINE.sub`` with spaces of each match's length gives it, but the pattern is tried only at the
    start of a line that can open a match (the text's start, and :attr:`_Find.blank_line_start`). Equal: a
    match opens with ``^`` (a line's start), takes no line break and ends with ``$`` (its line's end), and is
    never empty, so the matches of ``sub`` are the lines that match from their start. The search ``sub``
    makes tries ``^`` at every character: about 20 us on an 800-word report with one heading."""
    pieces: list[str] = []
    last = 0
    match = _BLANK_LINE.match
    for start in chain((0,), (m.start() + 1 for m in _Find.blank_line_start.finditer(work))):
        found = match(work, start)
        if found is not None:
            end = found.end()
            pieces.append(work[last:start])
            pieces.append(" " * (end - start))
            last = end
    if not pieces:
        return work
    pieces.append(work[last:])
    return "".join(pieces)


def _join_soft_breaks(work: str) -> str:
    """A line break inside a paragraph (the next line goes on with the sentence, as in hard-wrapped text)
    becomes a space; breaks before list items, headings, table rows, quotes and blank lines stay."""
    lines = work.split("\n")
    joins: list[int] = []  # i: the break after line i becomes a space
    tail = lines[0].rstrip(" \t")
    for i in range(1, len(lines)):
        line = lines[i]
        nxt = line.lstrip(" \t")
        if not nxt:  # a blank line: no break next to it joins
            tail = ""
            continue
        if tail and tail[-1] != "|" and nxt[0] not in "#|>" and _STRUCTURAL_LINE.match(nxt) is None:
            joins.append(i - 1)
        tail = line.rstrip(" \t")
    if not joins:
        return work
    ends = list(accumulate(map(len, lines)))  # the break after line i is at ends[i] + i
    out: list[str] = []
    at = 0
    for i in joins:
        k = ends[i] + i
        out.append(work[at:k])
        out.append(" ")
        at = k + 1
    out.append(work[at:])
    return "".join(out)


#: An array type code whose items are whole code points (4 bytes): ``w`` (Python 3.13+), else ``u`` where
#: wchar_t has 4 bytes (not Windows); ``None``: none, lists of characters instead.
_UCS4: str | None = "w" if "w" in array.typecodes else "u" if array.array("u").itemsize == 4 else None


def _chars(text: str) -> MutableSequence[str]:
    """A mutable copy of ``text``, one character an item, of the same type whatever the text: an array of
    code points (made and joined back in microseconds, where a list of a report's characters takes a tenth
    of a millisecond each way), or a list where the platform has no array of whole code points."""
    if _UCS4 is not None:
        return array.array(_UCS4, text)
    return list(text)


def _joined(chars: MutableSequence[str]) -> str:
    return chars.tounicode() if isinstance(chars, array.array) else "".join(chars)


def _tidy_blanks(work: str, cites: list[_Cite]) -> str:
    """Tidy the blanks the markers left (same length): parentheses that held only citations are blanked, and
    punctuation after a blank run moves before it (``"36%    ."`` -> ``"36%.    "``).

    What :func:`_tidy_blanks_in_place` does, read from the text itself and put together once at the end: as
    long as no marker end looks at a character an end before it changed (checked, else that version runs).
    An end changes nothing unless punctuation (``)`` among it) follows its blank run (the character there
    is one no end before it changed: see below): the run before the end is looked for only then."""
    n = len(work)
    # the blank run around a marker's end, found by one regex match forwards (and one on the text reversed,
    # backwards, made when first needed) instead of stepping over it
    blanks = _Find.blank_run.match
    backwards = ""
    punctuation = _TRAILING_PUNCT
    out: list[str] = []  # the text up to the last change, in pieces
    last = 0  # the end of the last change: what is read must lie after it
    # each end once, in order: the markers come in order (repeats are skipped); when one does not, the
    # markers are taken again sorted by their ends
    previous = -1
    for cite in cites:
        end = cite.end
        if end <= previous:
            if end == previous:
                continue
            return _tidy_blanks(work, sorted(cites, key=_end_of))
        previous = end
        if end >= n:
            continue
        # j: where the blank run after the end stops. The character there, when it is no blank, is one no
        # end before changed (a change reaches only into its own run and the punctuation after it): an end
        # whose run is followed by anything but punctuation changes nothing, in either version
        c = work[end]
        if c == " ":
            run = blanks(work, end)
            j = run.end() if run is not None else end
            if j >= n or work[j] not in punctuation:
                continue
            before = end > 0 and work[end - 1] == " "
        elif c in punctuation and end > 0 and work[end - 1] == " ":
            j = end
            before = True
        else:
            continue
        k = end
        if before:
            if not backwards:
                backwards = work[::-1]
            run = blanks(backwards, n - end)
            k = n - run.end() if run is not None else end
        lo = hi = -1
        if k > 0 and work[k - 1] == "(" and work[j] == ")":
            lo, hi = k - 1, j + 1
            if not backwards:
                backwards = work[::-1]
            run = blanks(backwards, n - lo)
            k = n - run.end() if run is not None else lo
            run = blanks(work, hi)
            j = run.end() if run is not None else hi
        if last and k - 1 < last:  # an end before this one changed what it reads
            return _tidy_blanks_in_place(work, cites)
        if k == 0 or j >= n or work[j] not in punctuation or work[k - 1].isspace():
            p = -1
        else:
            p = j + 1
            while p < n and work[p] in punctuation:
                p += 1
            if p < n and not work[p].isspace():
                p = -1
        if p != -1:
            punct = work[j:p]
            out.append(work[last:k])
            out.append(punct + " " * (p - k - len(punct)))
            last = p
        elif lo != -1:
            out.append(work[last:lo])
            out.append(" " * (hi - lo))
            last = hi
    if not out:
        return work
    out.append(work[last:])
    return "".join(out)


def _tidy_blanks_in_place(work: str, cites: list[_Cite]) -> str:
    """:func:`_tidy_blanks` one marker end after the other on a mutable copy of the text (each end sees what
    the ends before it changed): the plain version, used when two ends' blank runs touch."""
    buf: MutableSequence[str] | None = None
    text: str | MutableSequence[str] = work
    n = len(work)
    for end in sorted({c.end for c in cites}):
        if not (work[end - 1 : end] == " " or work[end : end + 1] == " "):
            continue
        k = end
        while k > 0:  # back over the blank run, a window at a time
            window = work[max(0, k - 64) : k]
            kept = len(window.rstrip(" "))
            k -= len(window) - kept
            if kept:
                break
        j = end
        while j < n:
            window = work[j : j + 64]
            rest = len(window.lstrip(" "))
            j += len(window) - rest
            if rest:
                break
        if k == j:
            continue
        if k > 0 and j < n and text[k - 1] == "(" and text[j] == ")":
            if buf is None:
                buf = _chars(work)
                text = buf
            buf[k - 1] = buf[j] = " "
            k -= 1
            while k > 0 and text[k - 1] == " ":
                k -= 1
            j += 1
            while j < n and text[j] == " ":
                j += 1
        if k == 0 or j >= n or text[j] not in _TRAILING_PUNCT or text[k - 1].isspace():
            continue
        p = j
        while p < n and text[p] in _TRAILING_PUNCT:
            p += 1
        if p < n and not text[p].isspace():
            continue
        if buf is None:
            buf = _chars(work)
            text = buf
        punct = buf[j:p]
        buf[k : k + len(punct)] = punct
        buf[k + len(punct) : p] = _chars(" " * (p - k - len(punct)))
    return work if buf is None else _joined(buf)


def _clean(text: str, spaces_only: bool = False) -> str:
    """A sentence of the working text as a claim: Markdown emphasis, list bullets, table pipes, emptied
    parentheses and the blanks left by markers removed. ``spaces_only``: the text has no blank but the space
    (see :func:`_spaces_only`)."""
    if "*" in text or "`" in text:
        text = text.replace("*", "").replace("`", "")
    if "|" in text:
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        text = ", ".join(c for c in cells if c)
    # the blanks collapsed: nothing to do when the only blank is the space, never two in a row nor at an end
    # (splitting a sentence into words costs more than the rest of this function)
    if not (
        (spaces_only or text.isprintable())  # (every blank but the space is unprintable)
        and "  " not in text
        and text[:1] != " "
        and text[-1:] != " "
    ):
        text = " ".join(text.split())
    if text[:1] in _LEADING_CHARS:
        text = _LEADING.sub("", text)
    if ("(" in text and ("( " in text or "()" in text or "(;" in text or "(," in text)) or (
        "[" in text and ("[ " in text or "[]" in text)
    ):
        text = _EMPTY_PARENS.sub("", text)
        text = " ".join(text.split())
    return text.strip()


def _spaces_only(text: str) -> bool:
    """Whether the only blanks of ``text`` are spaces and line breaks (no sentence holds a line break)."""
    return text.isascii() and not any(map(text.__contains__, "\t\r\x0b\x0c\x1c\x1d\x1e\x1f"))


#: The first three characters of the words :data:`_ATTRIBUTION_LINE` reads (``sources``, ``via``, ``refs``,
#: ``citations``, ``cited in``, ``from``, ``credit``, ``data``), in lower case.
_ATTRIBUTION_OPENINGS = frozenset(("sou", "via", "ref", "cit", "fro", "cre", "dat"))


#: What :func:`_read_sentences` says of a sentence: it holds content and is no attribution line; it holds no
#: content (only characters of :data:`_NOT_CONTENT`); it is an attribution line (``Source: ...``).
_PLAIN, _EMPTY, _ATTRIBUTION = 0, 1, 2


def _read_sentences(work: str, spans: list[tuple[int, int]]) -> tuple[list[str], list[int]]:
    """Each sentence's cleaned text (:func:`_clean`) and what it is (:data:`_PLAIN`, :data:`_EMPTY` or
    :data:`_ATTRIBUTION`; a sentence without content is no attribution line: the pattern needs a word)."""
    spaces_only = _spaces_only(work)
    # what _clean changes, looked for once in the whole text where it is one character (a fast search)
    marked = "*" in work or "`" in work or "|" in work
    has_paren = "(" in work
    has_bracket = "[" in work
    not_content = _NOT_CONTENT
    leading = _LEADING_CHARS
    attribution_start = _ATTRIBUTION_START
    openings = _ATTRIBUTION_OPENINGS
    attribution_line = _ATTRIBUTION_LINE.match
    cleaned: list[str] = []
    kinds: list[int] = []
    keep, say = cleaned.append, kinds.append  # (bound once: they run once a sentence)
    plain, empty, attribution = _PLAIN, _EMPTY, _ATTRIBUTION
    for a, b in spans:
        said = work[a:b]
        first = said[0]  # (a span is stripped and not empty)
        # _clean leaves a sentence as it is when it has no emphasis, pipe, leading bullet or number, two
        # blanks in a row, parenthesis, bracket or unprintable blank
        if (
            marked
            or first in leading
            or "  " in said
            or (has_paren and "(" in said)
            or (has_bracket and "[" in said)
            or not (spaces_only or said.isprintable())
        ):
            said = _clean(said, spaces_only)
            first = said[:1]  # ("" when nothing is left)
        keep(said)
        # content: a character that is not in _NOT_CONTENT (the first one, mostly; "" is in every string)
        if not (first not in not_content or said.strip(not_content)):
            say(empty)
        # an attribution line starts with one of its words (optionally after "(" or "["): its first three
        # characters are looked at before the pattern (in ASCII the pattern's IGNORECASE is lower(); a
        # character outside ASCII may match a letter in any case: the pattern decides then)
        elif (
            first in attribution_start
            and (said[:3].lower() in openings or first in "([" or not said[1:3].isascii())
            and attribution_line(said) is not None
            and len(said.split()) <= 25
        ):
            say(attribution)
        else:
            say(plain)
    return cleaned, kinds


def _states_something(text: str) -> bool:
    """A sentence that states something (a claim that should cite a source): five words or more, not a
    question, not an introduction of a list, not about the report itself. ``text``: a cleaned sentence
    (stripped, single-spaced, not empty)."""
    if text[-1] in "?:":  # (text.endswith(("?", ":")))
        return False
    words = text.count(" ") + 1  # len(text.split()): a cleaned sentence is stripped and single-spaced
    if words < 5:
        return False
    if words < 12 and text[-1] not in ".!\"”’')]%" and "," not in text:
        return False  # a title or a label on a line of its own, not a sentence
    # the opening in lower case: only its first characters are compared (the longest opening has
    # _META_START_LONGEST; lower case never makes a text shorter, and the quotes stripped have no case)
    low = text.lstrip("\"'“‘(")[: _META_START_LONGEST + 2].lower()
    return not low.startswith(_META_START_BY_FIRST.get(low[:1], ()))


def _quotes(sentence: str) -> list[tuple[int, int, str]]:
    """``(start, end, quote)`` of the quoted passages of two words or more in a sentence."""
    found: list[tuple[int, int, str]] = []
    for m in _QUOTE.finditer(sentence):
        quote = next(g for g in m.groups() if g is not None)
        quote = " ".join(quote.split()).strip(" ,;")
        if len(quote.split()) >= 2:
            found.append((m.start(), m.end(), quote))
    return found


def _assign_quotes(work: str, a: int, cites: list[_Cite]) -> list[str | None]:
    quotes_of: list[list[str]] = [[] for _ in cites]
    if not cites:
        return []
    b = max(c.end for c in cites)
    sentence = work[a:b]
    if (
        '"' not in sentence
        and "“" not in sentence
        and "„" not in sentence
        and "«" not in sentence
        and "‘" not in sentence
    ):
        return [None] * len(cites)
    for qs, qe, quote in _quotes(sentence):
        qs += a
        qe += a
        after = [i for i, c in enumerate(cites) if c.start >= qe]
        if after:
            first = after[0]
            group = [first]
            for i in range(first + 1, len(cites)):
                prev = cites[group[-1]]
                if cites[i].start == prev.start or not work[prev.end : cites[i].start].strip(" \t,;"):
                    group.append(i)
                else:
                    break
        else:
            before = [i for i, c in enumerate(cites) if c.end <= qs]
            if not before:
                continue
            last = before[-1]
            group = [i for i, c in enumerate(cites) if c.start == cites[last].start]
        for i in group:
            quotes_of[i].append(quote)
    return [" ... ".join(q) if q else None for q in quotes_of]


def _owners(
    work: str, spans: list[tuple[int, int]], kinds: list[int], cites: list[_Cite]
) -> list[_Cite | list[_Cite] | None]:
    """The citations of each sentence of ``spans`` (``None``: none; one is kept as it is, without a list of
    its own), in the order of ``cites``: a citation belongs to the sentence it stands in or after (a marker
    opening a line: to the one after it), one after a sentence without content or on an attribution line to
    the real sentence before."""
    starts = list(map(_first, spans))
    n_spans = len(spans)
    owners: list[_Cite | list[_Cite] | None] = [None] * n_spans
    # the sentence of a citation depends only on its span: the citations of one marker share it
    last_start = last_end = last_idx = -1
    after = 0  # the first sentence that starts after the last citation's start (bisect_right(starts, start))
    # whether a sentence has no content or is an attribution line (_PLAIN is 0): when none is, the loops
    # below that move a citation off such a sentence find nothing to do
    moves = any(kinds)
    for cite in cites:
        start = cite.start
        if start == last_start and cite.end == last_end:
            idx = last_idx
        else:
            if start >= last_start:  # (in order, the common case: step on from the last one)
                while after < n_spans and starts[after] <= start:
                    after += 1
            else:
                after = bisect_right(starts, start)
            idx = after - 1
            if idx < 0:
                idx = 0 if spans else -1
            elif (
                idx + 1 < n_spans
                and start >= spans[idx][1]
                and "\n" in work[spans[idx][1] : start]
                and not work[cite.end : spans[idx + 1][0]].strip()
            ):
                # a marker opening a line ("- [2] Fast chargers ...") belongs to the sentence after it
                idx += 1
            # a citation standing alone (after the full stop, on an attribution line) belongs to the sentence
            # before it (one that is real and no attribution line)
            if moves:
                while idx > 0 and kinds[idx] != _PLAIN:
                    idx -= 1
                while idx < n_spans - 1 and kinds[idx] == _EMPTY:
                    idx += 1
            last_start, last_end, last_idx = start, cite.end, idx
        if idx >= 0:
            mine = owners[idx]
            if mine is None:
                owners[idx] = cite
            elif isinstance(mine, _Cite):
                owners[idx] = [mine, cite]
            else:
                mine.append(cite)
    return owners


def _source_lists(lines: list[str], sources: _Sources, link_defs: dict[str, str]) -> set[int]:
    """The source lists, footnote definitions and link definitions of a report's lines, read into ``sources``
    (and ``link_defs``: each definition's label, in lower case, to its source's id); returns the indices of
    the lines they take up (blanked in the text)."""
    # one pass over the lines for the lines that may be a reference heading (1 to 199 characters) and the
    # first that may be a definition: both definition patterns open with "[" after at most three blanks, so
    # no line before the first with "[" in its first four characters holds one, nor continues one
    short: list[int] = []
    first_def = -1
    for k, line in enumerate(lines):
        if 0 < len(line) < 200:
            short.append(k)
        if first_def == -1 and "[" in line[:4]:
            first_def = k
    # footnote definitions and link definitions, anywhere
    in_footnote = False
    footnotes: list[_Entry] = []
    definitions: list[_Entry] = []
    skip: set[int] = set()
    if first_def != -1:
        for idx, line in enumerate(islice(lines, first_def, None), first_def):
            if "[" in line[:4] and "]:" in line:
                fm = _FOOTNOTE_DEF.match(line)
                if fm is not None:
                    footnotes.append(
                        _Entry("^" + fm.group("id"), f"[^{fm.group('id')}]", fm.group("body"), "footnote")
                    )
                    skip.add(idx)
                    in_footnote = True
                    continue
                lm = _LINK_DEF.match(line)
                if lm is not None:
                    label = lm.group("label").strip()
                    body = lm.group("url") + (f' "{lm.group("title")}"' if lm.group("title") else "")
                    definitions.append(_Entry(label, f"[{label}]", body, "definition"))
                    skip.add(idx)
                    in_footnote = False
                    continue
            if in_footnote and line[:1] in " \t" and line.strip():
                footnotes[-1].text += " " + line.strip()
                skip.add(idx)
                continue
            in_footnote = False
    regions = _find_regions(lines, short)
    region_entries: list[list[_Entry]] = []
    for first, end, rest in regions:
        body_lines = [lines[k] for k in range(first + 1, end) if k not in skip]
        if rest:
            # "Sources: [1] https://a [2] https://b" on the heading's line
            pieces = re.split(r"(?=\[\d{1,3}\])", rest)
            body_lines = [p for p in pieces if p.strip()] + body_lines
        region_entries.append(_region_entries(body_lines))
        skip.update(range(first, end))
    # ids: explicit markers; else the entry's place in its list
    for entries in region_entries:
        for ordinal, entry in enumerate(entries, start=1):
            sources.add(_entry_source(entry, sources, ordinal))
    for entry in footnotes:
        sources.add(_entry_source(entry, sources, 0))
    for entry in definitions:
        source = _entry_source(entry, sources, 0)
        sources.add(source)
        link_defs[entry.id.lower() if entry.id else ""] = source.id
    return skip


def parse_report(text: str) -> ParsedReport:
    """The claims (cited sentences), sources and uncited sentences of a report's text."""
    if not text or text.isspace():  # (what strip() leaves empty, without the copy)
        return ParsedReport((), (), ())
    work = text
    if "\r" in work:
        work = work.replace("\r\n", " \n").replace("\r", "\n")
    # a search for a run of characters costs several times one for a single character: the character first
    if ("`" in work and "```" in work) or ("~" in work and "~~~" in work):
        work = _FENCE.sub(lambda m: _blank(m.group()), work)
    if "<" in work and _HTML_HINT.search(work):
        work = _html(work)
    if "*" in work and "**" in work:
        work = work.replace("**", "  ")
    if _Find.two_underscores.search(work) is not None:  # ("__" in work; "_" alone is in most URLs)
        work = work.replace("__", "  ")
    if "\t" in work:
        work = work.replace("\t", " ")

    lines = work.split("\n")
    sources = _Sources()
    edits: list[tuple[int, int, str | None]] = []
    link_defs: dict[str, str] = {}
    skip = _source_lists(lines, sources, link_defs)
    if skip:
        ends = list(accumulate(map(len, lines)))  # line k starts at ends[k] - len(lines[k]) + k
        for k in sorted(skip):
            start = ends[k] - len(lines[k]) + k
            edits.append((start, start + len(lines[k]), None))
    work = _apply(work, edits)
    # ("***" and "___" cannot be left: every "**" and "__" was blanked above)
    if "#" in work or _Find.three_dashes.search(work) is not None:  # ("---" in work)
        work = _blank_lines(work)

    work, cites = _scan_body(work, sources, link_defs)
    if "\n" in work:
        work = _join_soft_breaks(work)
    if cites:
        work = _tidy_blanks(work, cites)

    # the blanked source list at the end is no sentence: leave it out of the split (spans are unchanged)
    spans = sentence_spans(work.rstrip())  # (the text up to its last non-blank: one copy, not two)
    cleaned, kinds = _read_sentences(work, spans)
    # the citations of each sentence (None: none; one is kept as it is, without a list of its own)
    owners = _owners(work, spans, kinds, cites)
    claims: list[ParsedClaim] = []
    uncited: list[ParsedSentence] = []
    # a text without any quotation mark has no quote in any sentence (_assign_quotes would say so sentence
    # by sentence)
    has_quotes = '"' in work or "“" in work or "„" in work or "«" in work or "‘" in work
    # a citation is a frozen value: the sentences that cite the same source the same way share one (and
    # the one-citation tuple), made once
    made: dict[tuple[str, str | None, str | None], ParsedCitation] = {}
    alone: dict[tuple[str, str | None], tuple[ParsedCitation]] = {}
    new_object, claim_class, sentence_class = _new, ParsedClaim, ParsedSentence
    first_start = spans[0][0] if spans else 0
    for (a, b), said, kind, mine in zip(spans, cleaned, kinds, owners, strict=True):
        if kind == _EMPTY:
            continue
        if mine is None:
            if kind != _ATTRIBUTION and _states_something(said):
                # (it runs once an uncited sentence: the slots set here, without a call)
                sentence: _NewSentence = new_object(_NewSentence)
                sentence.text = said
                sentence.start = a
                sentence.end = b
                sentence.__class__ = sentence_class  # type: ignore[assignment]
                uncited.append(sentence)  # type: ignore[arg-type]
            continue
        if kind == _ATTRIBUTION and a != first_start:
            continue  # its citations went to the sentence before (only the first sentence keeps them)
        if isinstance(mine, _Cite) and not has_quotes:  # one citation, no quote: the common case below
            only = mine
            pair = (only.marker, only.source_id)
            single = alone.get(pair)
            if single is None:
                # _made, inline
                made_key = (only.marker, only.source_id, None)
                citation = made.get(made_key)
                if citation is None:
                    # _citation, inline
                    citation = made[made_key] = new_object(ParsedCitation)
                    _cit_marker(citation, only.marker)
                    _cit_source_id(citation, only.source_id)
                    _cit_quote(citation, None)
                single = alone[pair] = (citation,)
            # _claim, inline (it runs once a claim; the slots set here, not by __init__, which costs a call)
            end = only.end
            claim: _NewClaim = new_object(_NewClaim)
            claim.text = said
            claim.start = a
            claim.end = b if b >= end else end  # (max(b, end), without the call)
            claim.citations = single
            claim.__class__ = claim_class  # type: ignore[assignment]
            claims.append(claim)  # type: ignore[arg-type]
            continue
        if isinstance(mine, _Cite):
            mine = [mine]
        mine.sort(key=_start_of)
        quotes = _assign_quotes(work, a, mine) if has_quotes else [None] * len(mine)
        citations: list[ParsedCitation] = []
        seen: dict[str, int] = {}
        for cite, quote in zip(mine, quotes, strict=True):
            key = cite.source_id if cite.source_id is not None else "?" + cite.marker
            if key in seen:
                i = seen[key]
                if quote and citations[i].quote is None:
                    citations[i] = _made(made, citations[i].marker, citations[i].source_id, quote)
                continue
            seen[key] = len(citations)
            citations.append(_made(made, cite.marker, cite.source_id, quote))
        claims.append(_claim(said, a, max(b, mine[-1].end), tuple(citations)))
    return ParsedReport(tuple(claims), tuple(sources.by_id.values()), tuple(uncited))


# --- identity -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParserIdentity:
    name: str
    version: int
    fingerprint: str

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "version": self.version, "fingerprint": self.fingerprint}


def _fingerprint() -> str:
    """``sha256:`` over the parser's name, version and every rule it reads a report with (patterns and word
    lists), canonical JSON; pinned by a golden test, so a changed rule without a new version is caught."""
    rules = {
        name: value.pattern if isinstance(value, re.Pattern) else value
        for name, value in sorted(globals().items())
        if isinstance(value, re.Pattern)
    }
    words = {
        "meta_start": list(_META_START),
        "not_authors": sorted(_NOT_AUTHORS),
        "range_limit": _RANGE_LIMIT,
    }
    payload = {"name": PARSER_NAME, "version": PARSER_VERSION, "rules": rules, "words": words}
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


PARSER = ParserIdentity(PARSER_NAME, PARSER_VERSION, _fingerprint())
