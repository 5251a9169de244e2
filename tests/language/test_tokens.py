"""Word tokens, stopwords and negation words."""

from __future__ import annotations

from graderctl.language import tokens as T


def test_tokenize() -> None:
    assert T.tokenize("Don’t say 3,500.5 it's") == ["don't", "say", "3,500.5", "it's"]
    assert T.tokenize("U.S. GDP (2.5%) rose; well-known") == ["u", "s", "gdp", "2.5", "rose", "well", "known"]
    assert T.tokenize("") == []


def test_content_words_keep_negations() -> None:
    assert T.content_words("it is not here") == ["not"]  # "here" is a stopword
    assert T.content_words("the cat sat without a hat") == ["cat", "sat", "without", "hat"]


def test_stopwords_and_negations_are_apart() -> None:
    assert {"the", "a", "said", "according"} <= T.STOPWORDS
    assert {"no", "not", "nor", "never", "without"}.isdisjoint(T.STOPWORDS)
    assert {"not", "never", "without", "can't", "fail"} <= T.NEGATIONS


def test_the_claim_support_token_patterns() -> None:
    text = "It's covid19 in the U.S., 3,500.5 (about 40%) - a_b it’s"
    assert T.WORD_TOKEN_RE.findall(text) == [
        "It's",
        "covid19",
        "in",
        "the",
        "U",
        "S",
        "3,500.5",
        "about",
        "40",
        "a_b",
        "it",
        "s",
    ]
    assert T.tokenize(text) == [
        "it's",
        "covid19",
        "in",
        "the",
        "u",
        "s",
        "3,500.5",
        "about",
        "40",
        "a",
        "b",
        "it's",
    ]
    assert T.CLAUSE_TOKEN_RE.findall("Sales (in 2024), fell 5% - $3") == [
        *("Sales", "(", "in", "2024", ")", ",", "fell", "5", "%", " - ", "$", "3"),
    ]
