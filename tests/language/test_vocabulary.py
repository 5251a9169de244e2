"""The packaged vocabularies: every file parses, and the formats read as documented."""

from __future__ import annotations

from importlib.resources import files

import pytest

from graderctl.language import vocabulary

NAMES = sorted(
    p.name.removesuffix(".txt")
    for p in files("graderctl.language").joinpath("data").iterdir()
    if p.name.endswith(".txt")
)


def test_vocabularies_ship_with_the_package() -> None:
    assert {"stopwords", "negations", "abbreviations", "months", "irregular_verbs"} <= set(NAMES)


TABLES = {
    *("months", "number_words", "scale_words", "scale_abbreviations", "ordinal_words"),
    *("fraction_denominators", "unit_words", "unit_symbols", "units_case_folded", "currency_words"),
}


@pytest.mark.parametrize("name", NAMES)
def test_every_vocabulary_has_words_and_tables_have_one_value_a_key(name: str) -> None:
    words = vocabulary.word_list(name)
    assert words
    assert all(w == w.strip() and w for w in words)
    if name in TABLES:
        keys = [line.split()[0] for line in vocabulary._lines(name)]
        assert len(keys) == len(set(keys)), name
        assert all(len(line.split()) in (2, 3) for line in vocabulary._lines(name)), name


def test_formats() -> None:
    assert vocabulary.table("months")["sept"] == "9"
    assert list(vocabulary.table("months"))[:2] == ["january", "february"]
    assert vocabulary.table("unit_words")["gigawatt"] == "W 1000000000.0"
    assert vocabulary.groups("irregular_verbs")[0] == ("arise", "arose", "arisen")
    assert "mr" in vocabulary.words("abbreviations")
    assert vocabulary.word_list("polarity_positive")[:3] == ("retain", "retained", "retains")
