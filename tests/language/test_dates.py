"""Dates in a text."""

from __future__ import annotations

from graderctl.language import dates as T


def test_dates() -> None:
    got = [(d.year, d.month, d.day) for d in T.extract_dates("On 14 March 2015, then March 14, 2015")]
    assert got == [(2015, 3, 14), (2015, 3, 14)]
    assert [(d.year, d.month, d.day) for d in T.extract_dates("since 2012")] == [(2012, None, None)]
    assert [(d.year, d.month, d.day) for d in T.extract_dates("2015-03-04")] == [(2015, 3, 4)]
    assert [(d.month) for d in T.extract_dates("joined in mid-March")] == [3]
    assert T.extract_dates("it may be") == []
