"""Word tokens, stopwords and negation words."""

from __future__ import annotations

import re

from graderctl.language import vocabulary

__all__ = ["CLAUSE_TOKEN_RE", "NEGATIONS", "STOPWORDS", "WORD_TOKEN_RE", "content_words", "tokenize"]

#: Function words that carry no checkable content (``data/stopwords.txt``; negations are not among them).
STOPWORDS: frozenset[str] = vocabulary.words("stopwords")
#: Words that flip a statement's meaning; a difference in any of them is never a "small" difference.
NEGATIONS: frozenset[str] = vocabulary.words("negations")

_WORD = re.compile(r"\d+(?:[.,]\d+)*(?![^\W_])|[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

#: Word tokens as the claim_support signals read them (case kept; callers lower-case first or after):
#: numbers with their separators, words with internal straight apostrophes. Unlike :func:`tokenize`, ``_``
#: is a letter, a curly apostrophe splits a word ("it’s" -> "it", "s"; the text is typography-folded first)
#: and digits glued to letters stay one token ("covid19").
WORD_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:'\w+)*")
#: The same word tokens plus clause punctuation and currency/percent signs (a sentence's finer reading).
CLAUSE_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:'\w+)*|[,;:()%$£€¥]|\s-\s")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (letters/digits, internal apostrophes kept, numbers with their separators kept);
    punctuation is dropped."""
    return [m.group().lower().replace("’", "'") for m in _WORD.finditer(text)]


def content_words(text: str) -> list[str]:
    """Tokens of ``text`` that are not stopwords (negations are kept: they carry meaning)."""
    return [t for t in tokenize(text) if t not in STOPWORDS]
