"""The name finder: typed spans of a sentence's tokens, and runs of capitalised words of a statement."""

from __future__ import annotations

import pytest

from graderctl.language import names as N
from graderctl.language.stemming import stem


def spans(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    words = text.replace(".", " .").replace(",", " ,").split()
    lower = [w.lower() for w in words]
    keys = [None if w in {"the", "of", "in", "said", ".", ","} else stem(w) for w in lower]
    return [(n.text, n.type, n.keys) for n in N.find_names(words, lower, keys)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a title is left out of the span but makes it a person
        ("Director Maria Lopes spoke .", [("Maria Lopes", "person", ("maria", "lope"))]),
        # an organisation word, a joiner inside a name
        ("He joined the Bank of England .", [("Bank of England", "org", ("bank", "england"))]),
        # a country at the start of a sentence counts; a lone ordinary capital does not
        ("Germany won .", [("Germany", "place", ("germani",))]),
        ("Lisbon hosted it .", []),
        # a name after "in" is a place; "said" after a name makes it a person
        ("They met in Porto .", [("Porto", "place", ("porto",))]),
        ("They said Costa said so .", [("Costa", "person", ("costa",))]),
        # months and weekdays are not names
        ("They met on Monday in March .", []),
    ],
)
def test_find_names(text: str, expected: list[tuple[str, str, tuple[str, ...]]]) -> None:
    assert spans(text) == expected


def test_name_runs() -> None:
    runs = N.name_runs("Mr. Smith of Acme Ltd said so.", stem=stem)
    assert [(r.words, r.stems, r.initial) for r in runs] == [
        (["Mr", "Smith"], ["mr", "smith"], False),
        (["Acme", "Ltd"], ["acm", "ltd"], False),
    ]
    # a statement's first word counts unless it is a common opener; a comma ends a run
    assert [(r.words, r.initial) for r in N.name_runs("Lisbon, Porto and Faro.", stem=stem)] == [
        (["Lisbon"], True),
        (["Porto"], False),
        (["Faro"], False),
    ]
    assert N.name_runs("Police said nothing.", stem=stem) == []
    # months and number words never count
    assert N.name_runs("In March Twenty people left.", stem=stem) == []


def test_vocabularies() -> None:
    assert N.MONTH_NAMES[0] == "january" and N.MONTH_NAMES[-1] == "december" and len(N.MONTH_NAMES) == 12
    assert N.MONTH_ABBR["sept"] == "september" and N.MONTH_ABBR["jan"] == "january"
    assert stem("germany") in N.COUNTRY_KEYS and stem("ltd") in N.ORG_WORDS
