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

from graderctl.language import vocabulary

__all__ = ["ABBREVIATIONS", "sentence_spans", "split_sentences"]

#: Words a full stop does not end a sentence after.
ABBREVIATIONS: frozenset[str] = vocabulary.words("abbreviations")
_LONGEST_ABBREVIATION = max(map(len, ABBREVIATIONS), default=0)
#: A run of ``.!?`` and closing quotes/brackets before whitespace, or a line break. Written to begin with one
#: character set so that the regex engine skips to candidates quickly (it equals
#: ``[.!?]+['"”’)\]]*(?=\s)|\n``, several times slower on long texts).
_SENT_END = re.compile(r"[\n.!?](?:(?<=\n)|[.!?]*['\"”’)\]]*(?=\s))")
#: :data:`_SENT_END` with the blanks after a line break taken along (further line breaks among them included):
#: they would only end empty sentences (what the splitter reads is the same, one match a blank run).
_SENT_END_RUN = re.compile(r"[\n.!?](?:(?<=\n)\s*|[.!?]*['\"”’)\]]*(?=\s))")
_INITIALISM = re.compile(r"(?:[a-z]\.)+[a-z]")
#: The blanks skipped after a sentence end before looking at the next character.
_GAP = " \t\r\u00a0"
_GAP_RUN = re.compile(r"[ \t\r\u00a0]*")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text`` (stripped, non-empty). A sentence ends at
    ``.``, ``!`` or ``?`` followed by a space and an upper-case letter, a digit or a quote, unless the word
    before is a known abbreviation or a single initial; a line break always ends a sentence."""
    spans: list[tuple[int, int]] = []
    append = spans.append
    start = 0
    n = len(text)
    abbreviations = ABBREVIATIONS
    for m in _SENT_END_RUN.finditer(text):
        mark, end = m.span()
        c = text[mark]
        if c == "\n":
            b = mark  # what follows the line break is blank (the match took it along)
        else:
            # _ends_sentence, inline (it runs once a mark): what follows the blanks after the mark
            nxt = text[end] if end < n else "\n"
            if nxt in _GAP:
                j = end + 1
                if j < n and text[j] in _GAP:
                    gap = _GAP_RUN.match(text, j)
                    j = gap.end() if gap is not None else j
                nxt = text[j] if j < n else "\n"
            if nxt != "\n":
                if not (nxt.isupper() or nxt.isdigit() or nxt in "'\"‘“([" or not nxt.isalpha()):
                    continue
                if nxt in "-–—,;:":
                    continue
            if c == ".":
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
                    if word in abbreviations or (len(word) == 1 and word.isalpha()):
                        continue
                    if "." in word and _INITIALISM.fullmatch(word):  # U.S.A. and similar
                        continue
            b = end
        # _push_span, inline (it runs once a sentence): the span stripped (a mark ends it when it is one)
        a = start
        if a < b:
            if text[a].isspace():
                a += 1
                if a < b and text[a].isspace():
                    a = b - len(text[a:b].lstrip())
            if c == "\n" and b > a and text[b - 1].isspace():
                b = a + len(text[a:b].rstrip())
            if b > a:
                append((a, b))
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
