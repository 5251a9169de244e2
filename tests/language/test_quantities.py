"""Quantities of the ``coverage`` kind: how a number is stated, and when a report states a nugget's."""

from __future__ import annotations

import pytest

from graderctl.kinds.coverage import _stem, clean_text
from graderctl.language.quantities import (
    ReportQuantities,
    complement_linked,
    extract_quantities,
    quantity_present,
)


def quantities(text: str, *, in_nugget: bool = False) -> list[tuple[str, float, bool, bool]]:
    return [(q.text, q.value, q.percent, q.approx) for q in extract_quantities(text, in_nugget=in_nugget)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Roughly a quarter needed care", [("a quarter", 25.0, True, True)]),
        ("two thirds of voters", [("two thirds", pytest.approx(200 / 3), True, True)]),
        ("nearly half of all deaths", [("half", 50.0, True, True)]),
        ("the market roughly halved", [("halved", 50.0, True, True)]),
        (
            "nine in ten residents; one out of five",
            [("nine in ten", 90.0, True, True), ("one out of five", 20.0, True, True)],
        ),
        ("about 26% of patients", [("26%", 26.0, True, True)]),
        ("26 percent of patients", [("26 percent", 26.0, True, False)]),
        ("more than 300 images", [("300", 300.0, False, True)]),
        ("a six-month ban", [("six", 6.0, False, False)]),
        ("the fifteenth month in a row", [("fifteenth", 15.0, False, False)]),
        ("a dozen eggs", [("a dozen", 12.0, False, False)]),
        ("one of the best, one million fans", [("one million", 1e6, False, False)]),
        ("scored 2 in 90 minutes", [("2", 2.0, False, False), ("90", 90.0, False, False)]),
        ("in the second half", [("half", 50.0, True, True)]),  # "second" is no number in a nugget
        ("about 7 per 1,000 inhabitants", [("7 per 1,000", pytest.approx(0.7), True, True)]),
        ("one hundred and sixty-six districts", [("one hundred and sixty-six", 166.0, False, False)]),
        (
            "fell from forty-six to thirty-one percent",
            [("forty-six", 46.0, True, False), ("thirty-one percent", 31.0, True, False)],
        ),
    ],
)
def test_extract_quantities(text: str, expected: list[tuple[str, float, bool, bool]]) -> None:
    assert quantities(text, in_nugget=True) == expected


def test_precision_years_and_dates() -> None:
    [q] = extract_quantities("roughly 2.3 million units")
    assert q.precision == pytest.approx(1e5) and q.approx
    [q] = extract_quantities("29.4% of controls")
    assert q.precision == pytest.approx(0.1)
    [q] = extract_quantities("in 2013")
    assert q.year and q.month is None
    day, year = extract_quantities("by April 30, 2024")
    assert (day.value, day.day_of_date, day.month) == (30.0, True, 4)
    assert (year.value, year.year, year.month) == (2024.0, True, 4)
    assert [q.text for q in extract_quantities("the second round", in_nugget=False)] == ["second"]


def present(nugget: str, report: str) -> list[bool]:
    sentences = [clean_text(report)]
    rq = ReportQuantities.build(sentences)
    nugget_stems = {_stem(t) for t in clean_text(nugget).lower().split()}
    report_stems = {_stem(t) for t in sentences[0].lower().replace(",", " ").replace(".", " ").split()}

    def linked(i: int) -> bool:
        return complement_linked(nugget_stems, report_stems, _stem)

    return [
        quantity_present(q, rq, [0], linked) for q in extract_quantities(clean_text(nugget), in_nugget=True)
    ]


@pytest.mark.parametrize(
    ("nugget", "report", "expected"),
    [
        ("26% were hospitalized", "Roughly a quarter needed hospital care.", [True]),
        ("22% were hospitalized", "Roughly a quarter needed hospital care.", [False]),
        ("sales of 2,314,000 units", "sales of 2.3 million units", [True]),
        ("sales of 2.3 million units", "sales of 2,314,000 units", [True]),
        ("sales of 2.5 million units", "sales of 2.3 million units", [False]),
        ("31.2% efficiency", "an efficiency of 33.2%", [False]),
        ("31.2% efficiency", "an efficiency of 31%", [True]),  # written to the unit
        ("87 confirmed cases", "78 confirmed cases, 91% unvaccinated", [False]),  # no percent for a count
        ("largest since 2013", "the largest since 2003", [False]),
        ("by April 30, 2024", "by the end of April 2024", [True, True]),
        ("by April 30, 2024", "by the end of April 2023", [True, False]),
        ("by April 30, 2024", "by the end of May 2024", [False, True]),  # the year is stated
        ("by April 30, 2024", "on April 28, 2024", [False, True]),
        ("retained 94% of initial efficiency", "lost only about 6% of their efficiency", [True]),
        ("91% were unvaccinated", "only 9% were vaccinated", [True]),
        ("94% of voters supported it", "6% of voters supported it", [False]),
        ("a six-month ban", "earning a 6-month ban", [True]),
        ("the 15th month in a row", "the fifteenth month in a row", [True]),
        ("35,000 deaths", "more than 35 000 deaths", [True]),
        ("about 7 per 1,000 inhabitants", "around seven in every thousand residents", [True]),
        ("about 7 per 1,000 inhabitants", "about 0.7% of inhabitants", [True]),
        ("a record 4,996 MW", "a record 4.996 GW", [True]),
        ("a record 4,996 MW", "a record 4.9 GW", [False]),
        ("85,559 MW", "about 85.6 GW", [True]),
        ("weighing about 1.4 kg", "about 1,400 g in all", [True]),
        ("1.4 kg", "1.4 g", [False]),
        ("166 of 518 districts", "one hundred and sixty-six of the 518 districts", [True, True]),
        ("fell from 46% to 31%", "fell from forty-six to thirty-one percent", [True, True]),
    ],
)
def test_quantity_present(nugget: str, report: str, expected: list[bool]) -> None:
    assert present(nugget, report) == expected


def test_complement_needs_words_of_opposite_polarity() -> None:
    assert complement_linked({_stem("retained")}, {_stem("lost")}, _stem)
    assert complement_linked({_stem("unvaccinated")}, {_stem("vaccinated")}, _stem)
    assert not complement_linked({_stem("lost")}, {_stem("lost")}, _stem)
    assert not complement_linked({_stem("supported")}, {_stem("voters")}, _stem)
