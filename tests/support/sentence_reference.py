"""A plain reference for :func:`graderctl.language.sentences.sentence_spans`, the splitter as first written:
the blanks after a mark stepped over one by one, every span pushed through a helper. The language and parser
tests check the fast splitter against it on random texts."""

from __future__ import annotations

import re

from graderctl.language.sentences import ABBREVIATIONS

#: The candidates as the splitter first found them: a run of ``.!?`` and closing quotes/brackets before a
#: blank, or a line break.
_SENT_END = re.compile(r"[.!?]+['\"”’)\]]*(?=\s)|\n")


def reference_spans(text: str) -> list[tuple[int, int]]:
    """The splitter as it was: the blanks after a mark stepped over one by one, every span pushed through a
    helper."""

    def push(start: int, end: int, spans: list[tuple[int, int]]) -> None:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            spans.append((start, end))

    spans: list[tuple[int, int]] = []
    start, n = 0, len(text)
    for m in _SENT_END.finditer(text):
        end = m.end()
        if m.group() != "\n":
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
                w = k
                while w > start and not text[w - 1].isspace() and text[w - 1] not in "([\"'“‘":
                    w -= 1
                word = text[w:k].lower()
                if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                    continue
                if "." in word and re.fullmatch(r"(?:[a-z]\.)+[a-z]", word):
                    continue
        push(start, end, spans)
        start = end
    push(start, n, spans)
    return spans
