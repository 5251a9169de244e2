"""Shared text primitives of the built-in kinds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from graderctl.kinds import _text as T


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("“Hello”  world", "'hello' world"),
        ("a\u00a0b\tc\n\nd", "a b c d"),
        ("infor\u00admation", "information"),
        ("zero\u200bwidth", "zerowidth"),
        ("2010–2015 — well", "2010-2015 - well"),
        ("ﬁne Ｆｕｌｌ", "fine full"),
        ("wait…", "wait..."),
        ("It’s", "it's"),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert T.normalize(raw) == expected


def test_fold_typography_equals_the_translation_table() -> None:
    import random
    import sys
    import unicodedata

    def reference(text: str) -> str:
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        return text.translate(T._TYPO_TABLE)

    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert T.fold_typography(every) == reference(every)
    pieces = [*map(chr, T._TYPO_TABLE), *"ab Éé\u0301ﬁ１…\"'-x", "\u212a", "\u017f", "“quoted” — text"]
    rng = random.Random(2)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert T.fold_typography(text) == reference(text), text


def test_normalize_keeps_case_when_asked() -> None:
    assert T.normalize("  The  U.S. ", casefold=False) == "The U.S."


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("3.5 million", "3,500,000"),
        ("40%", "40 percent"),
        ("40 per cent", "40%"),
        ("five", "5"),
        ("twenty-one", "21"),
        ("three million", "3000000"),
        ("$2bn", "2,000,000,000"),
        ("14th", "14"),
        ("2.50", "2.5"),
    ],
)
def test_number_equivalences(a: str, b: str) -> None:
    assert T.number_keys(a) == T.number_keys(b)
    assert len(T.number_keys(a)) == 1


def test_numbers_distinguish_what_differs() -> None:
    assert T.number_keys("40%") != T.number_keys("40")
    assert T.number_keys("3.5 million") != T.number_keys("3.6 million")
    # "m" without a currency sign is not a scale (5m could be metres)
    assert T.number_keys("5m") == ["5"]
    assert T.number_keys("version 1.2.3") != ["1.2"]


def test_number_mentions_have_positions() -> None:
    text = "It rose by 40 per cent to £3.5m."
    found = T.extract_numbers(text)
    assert [n.key for n in found] == ["40%", "3500000"]
    assert text[found[0].start : found[0].end] == "40 per cent"
    assert found[1].value == Decimal("3500000")


def test_numbers_close() -> None:
    assert T.numbers_close(7.5e6, 8e6)
    assert not T.numbers_close(7, 9)


def test_dates() -> None:
    got = [(d.year, d.month, d.day) for d in T.extract_dates("On 14 March 2015, then March 14, 2015")]
    assert got == [(2015, 3, 14), (2015, 3, 14)]
    assert [(d.year, d.month, d.day) for d in T.extract_dates("since 2012")] == [(2012, None, None)]
    assert [(d.year, d.month, d.day) for d in T.extract_dates("2015-03-04")] == [(2015, 3, 4)]
    assert [(d.month) for d in T.extract_dates("joined in mid-March")] == [3]
    assert T.extract_dates("it may be") == []


def test_sentences() -> None:
    text = (
        "Mr. Smith went to the U.S. on Jan. 5, 2015. It cost $3.5 million! Did it? "
        "J. K. Rowling wrote it.\nA new line"
    )
    assert T.split_sentences(text) == [
        "Mr. Smith went to the U.S. on Jan. 5, 2015.",
        "It cost $3.5 million!",
        "Did it?",
        "J. K. Rowling wrote it.",
        "A new line",
    ]
    spans = T.sentence_spans(text)
    assert text[spans[1][0] : spans[1][1]] == "It cost $3.5 million!"


def _reference_sentence_spans(text: str) -> list[tuple[int, int]]:
    """``sentence_spans`` as first written (slower): the fast version must split every text the same way."""
    import re

    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in re.finditer(r"[.!?]+['\"”’)\]]*(?=\s)|\n", text):
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
                if word in T._ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                    continue
                if re.fullmatch(r"(?:[a-z]\.)+[a-z]", word):
                    continue
        T._push_span(text, start, end, spans)
        start = end
    T._push_span(text, start, n, spans)
    return spans


def test_sentence_spans_equal_the_reference_on_random_texts() -> None:
    import random

    rng = random.Random(5)
    pieces = [
        *("Mr", "U.S", "e.g", "a.b.c", "J", "Dr", "etc", "Inc", "x", "No", "it", "Word", "2015", "3.5", "12"),
        *(".", ". ", "! ", "? ", "...", ".)", ".'", '."', "’", "”", ")", "]", "(", "[", "'", '"', "“", "‘"),
        *(" ", "  ", "\n", "\t", "\r", "\u00a0", "\u2003", "-", "–", ",", ";", ":", "a", "B", "é", "Ä", "1"),
    ]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert T.sentence_spans(text) == _reference_sentence_spans(text), text


def test_sentences_of_tokenised_news_text() -> None:
    text = "Lindsay Sandiford , 58 , fears she will be next . She was sentenced to death ."
    assert len(T.split_sentences(text)) == 2


def test_tokens_and_stems() -> None:
    assert T.tokenize("Don’t say 3,500.5 it's") == ["don't", "say", "3,500.5", "it's"]
    for group in [("use", "used", "uses"), ("study", "studies", "studied"), ("run", "runs", "running")]:
        assert len({T.stem(w) for w in group}) == 1, group
    assert T.stem("glass") == "glass"
    assert "not" in T.content_words("it is not here")
    assert "the" not in T.content_words("the cat")


def test_names() -> None:
    text = "Lindsay Sandiford , 58 , from Cheltenham said so. Obama agreed. Barack Obama met NASA staff."
    assert T.extract_names(text) == ["lindsay sandiford", "cheltenham", "barack obama", "nasa"]


def test_split_ellipsis() -> None:
    assert T.split_ellipsis("He said that ... the thing […] was good…and fine") == [
        "He said that",
        "the thing",
        "was good",
        "and fine",
    ]
    assert T.split_ellipsis("no ellipsis here.") == ["no ellipsis here."]


def test_char_ngrams() -> None:
    assert T.char_ngrams("abcd") == {"abc", "bcd"}
