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
