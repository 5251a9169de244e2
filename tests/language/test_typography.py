"""Typography folding and the comparison form of a text."""

from __future__ import annotations

import pytest

from graderctl.language import typography as T


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


def test_split_ellipsis() -> None:
    assert T.split_ellipsis("He said that ... the thing […] was good…and fine") == [
        "He said that",
        "the thing",
        "was good",
        "and fine",
    ]
    assert T.split_ellipsis("no ellipsis here.") == ["no ellipsis here."]
