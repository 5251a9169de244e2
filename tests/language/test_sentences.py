"""The sentence splitter."""

from __future__ import annotations

import pytest
from tests.support.sentence_reference import reference_spans

from graderctl.language import sentences as T


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
        assert T.sentence_spans(text) == reference_spans(text), text


def test_sentences_of_tokenised_news_text() -> None:
    text = "Lindsay Sandiford , 58 , fears she will be next . She was sentenced to death ."
    assert len(T.split_sentences(text)) == 2


def test_cautious_split_cuts_less() -> None:
    # a line break without a mark ends a sentence, but not a cautious piece; nor does a mark before a digit
    assert T.split_sentences("First line\nSecond line") == ["First line", "Second line"]
    assert T.split_sentences("First line\nSecond line", cautious=True) == ["First line\nSecond line"]
    assert T.split_sentences("It costs $5. 3 people paid.") == ["It costs $5.", "3 people paid."]
    assert T.split_sentences("It costs $5. 3 people paid.", cautious=True) == ["It costs $5. 3 people paid."]
    # after "5%" and a lower-case word it splits; after "Dr." (a short capitalised word) it does not
    assert T.split_sentences("Growth hit 5%. Then Dr. Lee spoke. She left!", cautious=True) == [
        "Growth hit 5%.",
        "Then Dr. Lee spoke.",
        "She left!",
    ]
    assert T.split_sentences("  ", cautious=True) == []


# --- the fast splitter: patterns that decide most candidates alone, line breaks merged by position ---------
# (checked against the plain reference; its slow path keeps the full tests for everything the patterns leave
# open: possible abbreviations, non-ASCII or no next character, blanks other than " \t\r\xa0")

_TRICKY = (
    "abcdegijkmnprstuvxyzAMSUK .!?\n\t\r\u00a0\u2003\u2028\x0b\x0c\x1c\x85'\")]([“‘”’"
    "\u212a\u0130\u017fǅⒶ²½1-–—,;:é中%$_"
)


def test_sentence_spans_equal_the_reference_on_random_strings_of_tricky_characters() -> None:
    import random

    rng = random.Random(13)
    for _ in range(30_000):
        alphabet = rng.sample(_TRICKY, rng.randint(3, len(_TRICKY)))
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert T.sentence_spans(text) == reference_spans(text), text


def test_sentence_spans_equal_the_reference_on_words_around_full_stops() -> None:
    import random

    rng = random.Random(17)
    pieces = [
        # abbreviations in every case, words that end like one, long words, non-ASCII ones lower() changes
        *(
            "Mr",
            "MR",
            "mR",
            "u.s",
            "U.S.A",
            "ph.d",
            "e.g",
            "approx",
            "Sept",
            "jan",
            "xjan",
            "Bjan",
            "Inc",
            "p.m",
        ),
        *(
            "year",
            "growth",
            "review",
            "abcdefg",
            "ABCDEFG",
            "abcdef",
            "\u212a",
            "u.\u212a",
            "\u0130nc",
            "\u017f",
        ),
        *("a", "B", "é", "É", "中", "1", "2015", "3.5", "It", "The", "k", "s.", "a.b.c", "_", "%", "$"),
        *(
            ".",
            ". ",
            "..",
            "...",
            "!",
            "?",
            "?!",
            ".)",
            ".'",
            '."',
            "’",
            "”",
            ")",
            "]",
            "(",
            "[",
            "'",
            '"',
            "“",
        ),
        *(" ", "  ", "    ", "\t", "\r", "\u00a0", "\u2003", "\u2028", "\x0b", "\x1c", "\x85", "\n", "\n\n"),
        *(" \n", "-", "–", "—", ",", ";", ":"),
    ]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert T.sentence_spans(text) == reference_spans(text), text


def test_sentence_spans_equal_the_reference_on_the_example_reports() -> None:
    import json
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    texts = [
        json.loads(line)["report"]["text"]
        for path in sorted(examples.glob("*/trials.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(texts) >= 20
    for text in texts:
        for variant in (text, text.replace("\n", " "), text.replace(". ", ".    "), text.replace("?", ".")):
            assert T.sentence_spans(variant) == reference_spans(variant)


def test_most_full_stops_of_plain_prose_are_decided_by_the_pattern() -> None:
    # the fast path is taken (group 1) after ordinary words and numbers, not after an abbreviation or initial
    text = (
        "Growth rose 5%. Sales fell in 2024. It was a good year. Mr. Lee spoke. J. Doe left. See the U.S. So"
    )
    sure = [text[: m.start()].split()[-1] for m in T._FULL_STOP.finditer(text) if m.lastindex]
    assert sure == ["5%", "2024", "year", "spoke", "left"]
    assert T.sentence_spans(text) == reference_spans(text)


def test_sentence_spans_equal_the_reference_around_every_abbreviation() -> None:
    # the patterns' quick "no abbreviation" tests read the last letters of the word: every abbreviation, cased
    # and with letters added or dropped in front and behind, before every kind of next character
    nexts = (" A", " a", " 1", "  B", "\nC", " (", " é", " É", " -", "", ") X", ".\n")
    for a in sorted(T.ABBREVIATIONS):
        for word in (
            a,
            a.upper(),
            a.title(),
            a.replace("k", "\u212a"),
            "x" + a,
            "abcd" + a,
            "é" + a,
            a[1:],
            a[2:],
            a[:-1],
            a + "s",
        ):
            for nxt in nexts:
                text = f"So ({word}.{nxt} end"
                assert T.sentence_spans(text) == reference_spans(text), text
                text = f"{word}.{nxt}"
                assert T.sentence_spans(text) == reference_spans(text), text


def test_candidates_of_a_text_with_other_marks_are_those_of_one_scan() -> None:
    import random

    rng = random.Random(19)
    pieces = ("a", "Mr", "B", "1", ".", "!", "?", "?!", ".?", "!.", ")", '"', " ", "  ", "\n", "\u2003", "-")
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        if "!" in text or "?" in text:
            got = [(m.span(), m.lastindex, m.span(1)) for m in T._candidates(text)]
            assert got == [(m.span(), m.lastindex, m.span(1)) for m in T._MARK.finditer(text)], text


def test_line_breaks_in_the_blanks_after_a_sure_end_are_passed_in_one_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sentence end the pattern decides takes the blanks after it, line breaks among them (a paragraph
    break), in one match: the splitter then looks for the next line break past them instead of ending an
    empty sentence at each. The spans are the reference's, whatever the blanks and what follows them."""
    import random

    rng = random.Random(23)
    ends = [
        "growth.",
        "year.)",
        'costs."',
        "it.”",
        "U.S.",
        "e.g.",
        "x.",
        "Word!",
        "Why?",
        "rose 3.5",
        "no end",
    ]
    blanks = [" ", "\n", "\n\n", " \n", "\t\n ", "\r\n", "\u00a0\n", "\u2003", "\n\u2003", "\x0b", "\x0c\n"]
    starts = ["Next", "next", "3 more", "(Then", "- item", '"Quote', "", "Ünter", "é"]
    for _ in range(8_000):
        text = "".join(
            rng.choice(ends)
            + "".join(rng.choice(blanks) for _ in range(rng.randint(0, 3)))
            + rng.choice(starts)
            for _ in range(rng.randint(1, 5))
        )
        assert T.sentence_spans(text) == reference_spans(text), text
    calls: list[int] = []
    real = T._line_break
    monkeypatch.setattr(
        T, "_line_break", lambda text, start, q, spans: calls.append(q) or real(text, start, q, spans)
    )
    text = "Sales rose in the year.    \n\nPrices fell in the year.\n\n\n  Costs rose.\nThen"
    assert T.sentence_spans(text) == reference_spans(text) == [(0, 23), (29, 53), (58, 69), (70, 74)]
    assert calls == []
