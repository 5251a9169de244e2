"""The number reader."""

from __future__ import annotations

from decimal import Decimal

import pytest

from graderctl.language import numbers as T


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
