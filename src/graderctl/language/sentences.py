"""The sentence splitter: ``.``, ``!`` or ``?`` before an upper-case letter, a digit or a quote ends a
sentence, unless the word before is a known abbreviation (``data/abbreviations.txt``), a single initial or an
initialism (``U.S.A.``); a line break always ends one.

:func:`split_sentences` has one named option, ``cautious``, for the probes (which rewrite an answer sentence
by sentence and must never cut one in two): it splits less often than :func:`sentence_spans` -- only at a
mark that follows a lower-case letter, a digit, ``%`` or a closing bracket and comes before an upper-case
letter or an opening quote, never after any short capitalised word ("Dr.", "U.S."), and not at a line break
without a mark. The two differ on purpose (each is part of what a released command computes): "First
line\nSecond line" is two sentences but one cautious piece; "It costs $5. 3 people paid." is two
sentences but one cautious piece."""

from __future__ import annotations

import re
from collections.abc import Iterable

from graderctl.language import vocabulary

__all__ = ["ABBREVIATIONS", "sentence_spans", "split_sentences"]

#: Words a full stop does not end a sentence after.
ABBREVIATIONS: frozenset[str] = vocabulary.words("abbreviations")
_LONGEST_ABBREVIATION = max(map(len, ABBREVIATIONS), default=0)
_INITIALISM = re.compile(r"(?:[a-z]\.)+[a-z]")
#: The blanks skipped after a sentence end before looking at the next character.
_GAP = " \t\r\u00a0"


def _may_follow(c: str) -> bool:
    """Whether a sentence end may come before ``c``, the first character after the blanks that follow the mark
    (a line break at the end of the text)."""
    return (c.isupper() or c.isdigit() or c in "'\"‘“([" or not c.isalpha()) and c not in "-–—,;:"


def _char_class(chars: Iterable[str]) -> str:
    """A character class of ``chars`` (ASCII), runs written as ranges."""
    codes = sorted(map(ord, chars))
    if not codes:
        return "(?!)"  # (matches nothing)
    runs: list[list[int]] = []
    for code in codes:
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "[" + "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in runs) + "]"


def _suffix_trie(words: Iterable[str]) -> str:
    """A pattern matching exactly ``words`` (non-empty, lower-case ASCII), first letters branched once."""
    by_first: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        by_first.setdefault(word[0], []).append(word[1:])
    return "|".join(f"{first}(?:{'|'.join(rests)})" for first, rests in by_first.items())


_ASCII = [chr(i) for i in range(128)]
# What lets the patterns below decide a candidate alone (sentence_spans runs the full tests on the others):
# - the first character after the blanks: a sentence never ends before _REFUSED_NEXT (lower-case ASCII
#   letters, "-", ",", ";", ":"), so the patterns leave those candidates out; it may end before the other
#   ASCII ones that are no blank, and before a line break (_PLAIN_NEXT).
_PLAIN_NEXT = _char_class(c for c in _ASCII if c == "\n" or (not c.isspace() and _may_follow(c)))
_REFUSED_NEXT = _char_class(c for c in _ASCII if not c.isspace() and not _may_follow(c))
# - the word before a full stop (back to a blank or an opening bracket/quote) is no abbreviation, no single
#   letter and no initialism (one ends ".x"; lower() leaves lower-case ASCII letters as they are and never
#   makes a word shorter) when: its last four characters are lower-case ASCII letters and the first of them is
#   none an abbreviation has fourth from its end (a quick test first); or its last three are lower-case ASCII
#   letters that end no abbreviation; or the character before the full stop is ASCII, no letter, no full
#   stop, and ends no abbreviation; or it has more characters than the longest abbreviation, none of the last
#   ones a full stop.
_FOURTH_LAST = _char_class({w[-4] for w in ABBREVIATIONS if re.fullmatch("[a-z]{4}", w[-4:])})
_ENDS3 = sorted({w[-3:] for w in ABBREVIATIONS if re.fullmatch("[a-z]{3}", w[-3:])})
_NOT_WORD_END = _char_class(
    c for c in _ASCII if not c.isalpha() and c != "." and c not in {w[-1] for w in ABBREVIATIONS}
)
_NOT_ABBREVIATION = (
    rf"(?<=[a-z]{{4}}\.)(?<!{_FOURTH_LAST}[a-z]{{3}}\.)"
    rf"|(?<=[a-z]{{3}}\.)(?<!(?:{_suffix_trie(_ENDS3)})\.)"
    rf"|(?<={_NOT_WORD_END}\.)"
    rf"|(?<=[^\s.(\[\"'“‘]{{{_LONGEST_ABBREVIATION + 1}}}\.)"
)
_CLOSERS = "['\"”’)\\]]*"


def _mark_pattern(first: str, sure: str) -> re.Pattern[str]:
    # (the lookahead after the first character only saves time: every candidate passes it, a decimal point
    # does not)
    return re.compile(
        rf"{first}(?=[.!?'\"”’)\]\s])"
        rf"(?:(?:{sure})[.!?]*{_CLOSERS}(?=\s)([ \t\r\u00a0]*+(?={_PLAIN_NEXT})\s*)"
        rf"|[.!?]*{_CLOSERS}(?=\s)(?![ \t\r\u00a0]*+{_REFUSED_NEXT}))"
    )


#: A sentence end candidate: a run of ``.!?`` and closing quotes/brackets before a blank (``[.!?]+['"”’)\]]*
#: (?=\s)``), unless the first character after the blanks is one a sentence never ends before. Group 1 (the
#: blanks after the run) matches only when the run surely ends a sentence: the word before a full stop is no
#: abbreviation (see above) and the next character is a plain ASCII one. :data:`_FULL_STOP` begins with the
#: full stop itself, so the regex engine skips to candidates several times faster than with a character set
#: (it finds what a scan with :data:`_MARK` finds, less the candidates that begin with ``!`` or ``?``: those
#: are tried one by one, see :func:`_candidates`).
_FULL_STOP = _mark_pattern(r"\.", _NOT_ABBREVIATION)
_MARK = _mark_pattern("[.!?]", rf"(?<=[!?])|{_NOT_ABBREVIATION}")
_GAP_RUN = re.compile(r"[ \t\r\u00a0]*")
_BLANKS = re.compile(r"\s*")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text`` (stripped, non-empty). A sentence ends at
    ``.``, ``!`` or ``?`` followed by a space and an upper-case letter, a digit or a quote, unless the word
    before is a known abbreviation or a single initial; a line break always ends a sentence."""
    spans: list[tuple[int, int]] = []
    append = spans.append
    n = len(text)
    # start: where the next sentence begins, past the blanks (a span needs no stripping in front), or the line
    # break that comes first (the fast path leaves it there: no sentence lies between)
    start = _past_blanks(text, 0)
    # q: the next line break (n + 1: none); the breaks are merged with the marks by position (neither ever
    # holds the other)
    q = text.find("\n")
    if q < 0:
        q = n + 1
    for m in _candidates(text) if "!" in text or "?" in text else _FULL_STOP.finditer(text):
        b, after = m.span(1)  # (-1, -1) when the pattern leaves the run to the full tests
        if b >= 0:  # surely an end: the run ends at b, the next sentence begins after the blanks
            while q < b:  # the line breaks before this run end their sentences first
                start, q = _line_break(text, start, q, spans)
            append((start, b))
            start = after
            if q < after:  # line breaks among the blanks: what _line_break would find, the next sentence
                q = text.find("\n", after)  # beginning past them all (no span between)
                if q < 0:
                    q = n + 1
            continue
        mark, b = m.span()
        while q < b:  # the line breaks before this run end their sentences first
            start, q = _line_break(text, start, q, spans)
        # the full tests: what follows the blanks after the run, then the word before a full stop
        nxt = text[b] if b < n else "\n"
        if nxt in _GAP:
            j = _GAP_RUN.match(text, b).end()  # type: ignore[union-attr]  # (it matches everywhere)
            nxt = text[j] if j < n else "\n"
        if nxt != "\n" and not _may_follow(nxt):
            continue
        if text[mark] == ".":
            # (start bounds nothing: a blank is just before it, or it is 0)
            w = text.rfind(" ", start, mark) + 1 or start
            word = text[w:mark]
            if not word.isalnum():
                w = mark
                while w > start and not text[w - 1].isspace() and text[w - 1] not in "([\"'“‘":
                    w -= 1
                word = text[w:mark]
            # a word longer than every abbreviation, without a full stop, is none of the three (lower
            # case never makes a word shorter)
            if len(word) <= _LONGEST_ABBREVIATION or "." in word:
                word = word.lower()
                if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                    continue
                if "." in word and _INITIALISM.fullmatch(word):  # U.S.A. and similar
                    continue
        append((start, b))
        start = _past_blanks(text, b)
    while q <= n:
        start, q = _line_break(text, start, q, spans)
    if start < n:
        append((start, _before_blanks(text, start, n)))
    return spans


def _candidates(text: str) -> list[re.Match[str]]:
    """What ``_MARK.finditer(text)`` finds: the full stops' candidates (one quick scan) and those tried at
    each ``!`` and ``?``, in order. A run found twice (".?" from both of its marks) ends at the same blank
    both times: it is kept from its first mark, as the scan would keep it."""
    found = list(_FULL_STOP.finditer(text))
    for mark in "!?":
        i = text.find(mark)
        while i >= 0:
            m = _MARK.match(text, i)
            if m is not None:
                found.append(m)
            i = text.find(mark, i + 1)
    found.sort(key=re.Match.start)
    kept: list[re.Match[str]] = []
    end = -1
    for m in found:
        if m.start() >= end:
            kept.append(m)
            end = m.end()
    return kept


def _line_break(text: str, start: int, q: int, spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The line break at ``q`` ends the sentence from ``start`` (if one lies between); where the next sentence
    begins (past the blanks, further line breaks among them) and the next line break (``len(text) + 1``:
    none)."""
    if start < q:
        spans.append((start, _before_blanks(text, start, q)))
    start = _past_blanks(text, q + 1)
    q = text.find("\n", start)
    return start, q if q >= 0 else len(text) + 1


def _past_blanks(text: str, i: int) -> int:
    """The first position from ``i`` on that is no blank (``\\s`` reads what ``str.isspace`` reads)."""
    if i < len(text) and text[i].isspace():
        return _BLANKS.match(text, i).end()  # type: ignore[union-attr]  # (it matches everywhere)
    return i


def _before_blanks(text: str, start: int, end: int) -> int:
    """``end`` moved back over the blanks before it, not past ``start`` (which is no blank)."""
    if text[end - 1].isspace():
        return start + len(text[start:end].rstrip())
    return end


def split_sentences(text: str, *, cautious: bool = False) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`); ``cautious``: the probes' split (see the module
    docstring), pieces stripped."""
    if cautious:
        return _cautious_split(text)
    return [text[a:b] for a, b in sentence_spans(text)]


_CAUTIOUS_END = re.compile(r"(?<=[a-z0-9%)\]][.!?])\s+(?=[A-Z\"“‘(])")
_CAUTIOUS_ABBREV = re.compile(r"\b(?:[A-Z]|[A-Z][a-z]{0,2}|[a-z]\.[a-z]|etc|al|vs|approx)\.$")


def _cautious_split(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _CAUTIOUS_END.finditer(text):
        candidate = text[start : m.start()]
        if _CAUTIOUS_ABBREV.search(candidate):
            continue
        pieces.append(candidate.strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return [p for p in pieces if p]
