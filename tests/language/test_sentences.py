"""The sentence splitter."""

from __future__ import annotations

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
