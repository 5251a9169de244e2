"""Each signal of the coverage kind on its own, on one-sentence nuggets and reports worked by hand."""

from __future__ import annotations

import math

import pytest

from graderctl.kinds import coverage as C


def read(nugget: str, report: str) -> tuple[C._Matching, C._Window]:
    m = C._matching(C._nugget_parts(nugget), C.ReportIndex.build(report), 0.85)
    return m, C._best_window(m)


def test_missing_names() -> None:
    # a shorter form of a name is the name ("Ronaldo" for "Cristiano Ronaldo") ...
    m, w = read("Cristiano Ronaldo scored twice.", "Ronaldo scored two goals on Sunday.")
    assert C._missing_names(m) == []
    assert w.hits == ["cristiano", "ronaldo", "score"]
    # ... another surname is not ("Amanda Mulls" is not "Amanda Oleander")
    m, _ = read("Amanda Mulls won the race.", "Amanda Oleander won the race.")
    assert C._missing_names(m) == ["Amanda Mulls"]


def test_opposite_wording() -> None:
    # "rose" and "fell" are read as their base forms rise / fall
    m, w = read("Gas prices rose in March.", "Gas prices fell in March.")
    assert C._opposite_wording(m, w) == [("rise", "fall")]
    m, w = read("Gas prices rose in March.", "Gas prices rose in March.")
    assert C._opposite_wording(m, w) == []


def test_number_signal() -> None:
    # "about 38,000" is hedged: within 10% of 40,000
    m, w = read("The club sold 40,000 tickets.", "The club sold about 38,000 tickets.")
    assert C._number_signal(m, w, w.key[1]) == ([True], ["38,000"])
    m, w = read("The club sold 40,000 tickets.", "The club sold 41,000 tickets.")
    assert C._number_signal(m, w, w.key[1]) == ([False], ["41,000"])
    m, w = read("Gas prices rose.", "Gas prices rose.")
    assert C._number_signal(m, w, w.key[1]) == ([], [])


def test_order_signals() -> None:
    # positions in "gas price fall in march": gas 0, price 1, march 4 -> in order; spread (4 - 0 + 1) / 3;
    # "Gas" opens the nugget (a name run), so the predicate is "price": gap log(1 + 1)
    m, w = read("Gas prices rose in March.", "Gas prices fell in March.")
    assert C._order_signals(m, w) == pytest.approx((1.0, 5 / 3, math.log(2)))
    # passive: mayor 7, open 4, new 1, bridge 2 -> one pair of three in order; spread (7 - 1 + 1) / 4; the
    # subject is the predicate word (no names): gap log(1 + 0)
    m, w = read("The mayor opened the new bridge.", "The new bridge was opened by the mayor.")
    assert C._order_signals(m, w) == pytest.approx((1 / 3, 7 / 4, 0.0))
