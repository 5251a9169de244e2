"""The stemmer: Snowball (Porter2) stems, and the ``base_forms`` reading the coverage kind uses."""

from __future__ import annotations

import pytest

from graderctl.language.stemming import IRREGULAR_VERBS, stem


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # Porter2 by hand: step 1a (sses -> ss, ies -> i, s after a vowel earlier), step 1b (ing), step 2/3
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("cats", "cat"),
        ("running", "run"),
        ("studies", "studi"),
        ("happiness", "happi"),
        ("generously", "generous"),
        ("it's", "it"),  # step 0 drops the possessive
        ("won", "won"),  # a stemmer leaves an irregular past form alone
        ("e-mails", "e-mail"),
    ],
)
def test_snowball_stems(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("won", "win"),  # irregular past form -> base form -> stem
        ("was", "be"),
        ("found", "find"),
        ("ran", "run"),
        ("bank’s", "bank"),  # a curly possessive too (Snowball keeps it: "bank’")
        ("e-mails", "e-mails"),  # not all letters: kept as it is
        ("1990s", "1990s"),
        ("running", "run"),
    ],
)
def test_base_forms(word: str, expected: str) -> None:
    assert stem(word, base_forms=True) == expected


def test_the_two_readings_differ_only_where_documented() -> None:
    assert stem("bank’s") == "bank’"
    assert stem("won") != stem("won", base_forms=True)
    for word in ("market", "growth", "elections", "reported", "countries"):
        assert stem(word) == stem(word, base_forms=True)


def test_irregular_verbs_table() -> None:
    assert IRREGULAR_VERBS["won"] == "win"
    assert IRREGULAR_VERBS["written"] == "write"
    assert "win" not in IRREGULAR_VERBS  # base forms are not keys
    assert all(" " not in k and k.isalpha() for k in IRREGULAR_VERBS)
