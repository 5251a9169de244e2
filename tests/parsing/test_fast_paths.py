"""The parser's shortcuts give what the plain code gives: each one is checked against a straightforward
reference (the code it replaced, or the pattern it avoids running) on random texts made of the pieces that
matter to it. Seeded, a few thousand cases each, well under a second."""

from __future__ import annotations

import random
from bisect import bisect_right

import pytest

from graderctl.language.sentences import sentence_spans
from graderctl.parsing import report as R
from tests.support.scan_reference import reference_candidates
from tests.support.sentence_reference import reference_spans


def _texts(pieces: list[str], n: int, seed: int, longest: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, longest))) for _ in range(n)]


# --- sentence_spans: blanks skipped by a regex, spans pushed inline --------------------------------------


def test_sentence_spans_equal_the_plain_splitter() -> None:
    pieces = [
        "Sales",
        " rose",
        " 3.5",
        "%",
        ".",
        "!",
        "?",
        " ",
        "     ",
        "\t",
        "\r",
        "\u00a0",
        "\n",
        "Dr",
        "U.S",
        "e.g",
        "a",
        "B",
        "1",
        "'",
        '"',
        "“",
        "(",
        ")",
        "[",
        "]",
        "-",
        ",",
        "é",
        "Ç",
        "    .",
        "\u2028",
    ]
    for text in _texts(pieces, 6000, seed=1, longest=30):
        assert sentence_spans(text) == reference_spans(text), text


# --- candidates: full stops tried only where the gem alternative can match -------------------------------


def test_full_stops_left_out_are_those_the_citation_pattern_cannot_match() -> None:
    pieces = [
        "growth",
        "2021",
        "1999",
        "3",
        ".",
        ".1",
        ".12",
        ".1,2",
        " ",
        "\n",
        "%",
        ")",
        '"',
        "”",
        "’",
        "A",
        "x",
        "[1]",
        "¹",
        "(",
        "http://a.b/c",
        "doi",
        "10.1000/x",
        "【2】",
        "![i](j)",
    ]
    for text in _texts(pieces, 4000, seed=2, longest=16):
        every_stop = [i for i in range(len(text) - 1) if text[i] == "." and text[i + 1].isdigit()]
        kept = set(R._candidates(text, True))
        for i in every_stop:
            if R._BODY.match(text, i) is not None:
                assert i in kept, (text, i)


def test_candidates_drop_only_places_where_the_citation_pattern_cannot_match() -> None:
    pieces = [
        "http://a.b",
        "https://x.y/z",
        "HTTP://A",
        "Https://q",
        "hTTps:/",
        "http",
        "://",
        "s://",
        "www.",
        "WWW.",
        "w.",
        "doi",
        "DOI",
        "dOi",
        "DOI:",
        "doi: ",
        "Doi :\t",
        ":",
        " ",
        "\t",
        "10.",
        "10.1000/x",
        "1",
        ".",
        "[1]",
        "!",
        "![",
        "(",
        "【2】",
        "İ",
        "K",
        "ſ",
        "é",
        "x",
        "\n",
        "¹",
        ".1",
        "2021",
    ]
    for text in _texts(pieces, 6000, seed=12, longest=16):
        for numbered in (False, True):
            fast = R._candidates(text, numbered)
            plain = reference_candidates(text, numbered)
            assert fast == sorted(set(fast)), text
            assert set(fast) <= set(plain), text
            assert {i for i in plain if R._BODY.match(text, i) is not None} <= set(fast), text
        for i, ch in enumerate(text):
            if ch == "(" and R._BODY.match(text, i) is not None:
                assert R._paren_inner(text, i) is not None, (text, i)


def test_parentheses_left_untried_cannot_match() -> None:
    longest = "(" + "a" * 199 + " 2020b" + " " * 40 + ")"
    assert R._BODY.match(longest, 0) is not None and R._paren_inner(longest, 0) is not None
    pieces = [
        "(",
        ")",
        "Lewis et al., ",
        "2020",
        "1999b",
        "see ",
        "x" * 60,
        "\n",
        "[1](u)",
        ";",
        " ",
        "Smith",
    ]
    for text in _texts(pieces, 6000, seed=17, longest=14):
        for i, ch in enumerate(text):
            if ch == "(" and R._BODY.match(text, i) is not None:
                assert R._paren_inner(text, i) is not None, (text, i)


def test_tidy_blanks_equal_the_in_place_version() -> None:
    pieces = [
        "Sales rose",
        " ",
        "    ",
        " " * 70,
        "(",
        ")",
        ".",
        ",",
        ";",
        "%",
        "]",
        "x",
        "\n",
        "\t",
        ".)",
        "é",
        "( )",
        "(   )",
        "\u00a0",
    ]
    rng = random.Random(13)
    for text in _texts(pieces, 8000, seed=13, longest=24):
        ends = sorted({rng.randint(0, len(text)) for _ in range(rng.randint(0, 5))})
        cites = [R._Cite(max(0, e - 3), e, "[1]", "1") for e in ends]
        assert R._tidy_blanks(text, cites) == R._tidy_blanks_in_place(text, cites), (text, ends)
        # markers out of order, and several citations of one marker (the same end repeated)
        cites += [R._Cite(max(0, e - 3), e, "[2]", "2") for e in ends if rng.random() < 0.3]
        rng.shuffle(cites)
        assert R._tidy_blanks(text, cites) == R._tidy_blanks_in_place(text, cites), (text, ends)


def test_source_entry_shortcuts_equal_the_plain_substitutions() -> None:
    pieces = [
        "Report",
        " ",
        "\t",
        ", ",
        ";",
        ".",
        "(",
        "[",
        ")",
        "]",
        "accessed",
        "Accessed on",
        "RETRIEVED",
        "viewed",
        "reviewed",
        "last ",
        "LAST\t",
        "May 3, 2025",
        "2024",
        "12/05/24",
        ":",
        "url",
        "Available at",
        "link",
        "Source:",
        "DOI :",
        "retrieved from",
        "\n",
        "http",
        "HTTPS://a.b/c",
        "http:/",
        "www.",
        "WWW.x.y",
        "ſ",
        "x",
        "2020",
        "1999a",
        "12",
        "0",
        "15",
        "20",
        "b",
    ]
    for text in _texts(pieces, 8000, seed=14, longest=12):
        assert R._accessed_off(text) == R._ACCESSED.sub(" ", text), text
        assert R._only_url_label(text) == (R._URL_LABEL.sub("", text).strip() == ""), text
        if text.isascii() and not R._may_end_with_url_label(text):
            assert R._URL_LABEL.search(text) is None, text
        for found, fast in ((R._YEAR_IN_ENTRY.search(text), R._year_in_entry(text)),):
            assert (found and (found.span(), found.groups())) == (fast and (fast.span(), fast.groups())), text
        found, fast = R._BARE_URL.search(text), R._bare_url(text, text.lower())
        assert (found and (found.span(), found.group())) == (fast and (fast.span(), fast.group())), text


def test_a_cleaned_sentence_is_stripped_and_single_spaced() -> None:
    # _states_something counts its words by its spaces
    pieces = [
        "Sales",
        " rose",
        "  ",
        "\t",
        "\u00a0",
        "\u2003",
        "*",
        "`",
        "|",
        "- ",
        "1. ",
        "( )",
        "(;",
        "[ ]",
        "x",
    ]
    for text in _texts(pieces, 6000, seed=15, longest=14):
        cleaned = R._clean(text)
        assert cleaned == " ".join(cleaned.split()), text
        assert (cleaned.count(" ") + 1 if cleaned else 0) == len(cleaned.split())


def _plain_clean(text: str) -> str:
    """:func:`graderctl.parsing.report._clean` as first written (the blanks always collapsed by a split)."""
    if "*" in text or "`" in text:
        text = text.replace("*", "").replace("`", "")
    if "|" in text:
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        text = ", ".join(c for c in cells if c)
    text = " ".join(text.split())
    if text[:1] in R._LEADING_CHARS:
        text = R._LEADING.sub("", text)
    if ("(" in text and ("( " in text or "()" in text or "(;" in text or "(," in text)) or (
        "[" in text and ("[ " in text or "[]" in text)
    ):
        text = R._EMPTY_PARENS.sub("", text)
        text = " ".join(text.split())
    return text.strip()


def test_clean_skips_collapsing_only_what_is_collapsed() -> None:
    pieces = [
        "Sales",
        " rose",
        "  ",
        " ",
        "\t",
        "\x0b",
        "\x1f",
        "\u00a0",
        "\u2003",
        "\u2028",
        "\u200b",
        "*",
        "`",
    ]
    pieces += ["|", "- ", "1. ", "( )", "(;", "[ ]", "x", "é", "\u00ad", "\n"]
    for text in _texts(pieces, 8000, seed=16, longest=14):
        text = text.strip()  # a sentence span is stripped
        assert R._clean(text) == _plain_clean(text), text
        if R._spaces_only(text) and "\n" not in text:  # no sentence holds a line break
            assert R._clean(text, True) == _plain_clean(text), text
    assert all(not ch.isprintable() for ch in map(chr, range(0x110000)) if ch.isspace() and ch != " ")


def test_meta_starts_found_by_first_character() -> None:
    pieces = [*R._META_START, "The ", "“", '"', "(", "I", "We", "x", " ", "Note", "HERE ARE", "é"]
    for text in _texts(pieces, 6000, seed=18, longest=6):
        low = text.lower().lstrip("\"'“‘(")
        assert low.startswith(R._META_START_BY_FIRST.get(low[:1], ())) == low.startswith(R._META_START), text
    assert sorted(s for group in R._META_START_BY_FIRST.values() for s in group) == sorted(R._META_START)


# --- marker blanks tidied in an array of code points -------------------------------------------------------


def test_tidy_blanks_same_with_an_array_or_a_list(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = ["Sales rose", " ", "    ", "(", ")", ".", ",", ";", "%", "x", "😀", "\n", "é"]
    rng = random.Random(3)
    cases = []
    for text in _texts(pieces, 3000, seed=3, longest=20):
        ends = sorted({rng.randint(0, len(text)) for _ in range(rng.randint(1, 4))})
        cases.append((text, [R._Cite(max(0, e - 3), e, "[1]", "1") for e in ends]))
    with_array = [R._tidy_blanks(text, cites) for text, cites in cases]
    monkeypatch.setattr(R, "_UCS4", None)
    assert [R._tidy_blanks(text, cites) for text, cites in cases] == with_array
    assert isinstance(R._chars("x"), list)


# --- patterns run only where they can match -------------------------------------------------------------


def test_prechecks_never_skip_a_match() -> None:
    pieces = [
        "Report",
        " ",
        ", ",
        "accessed",
        "ACCESSED",
        "Retrieved",
        "visited",
        "Viewed",
        "consulted",
        "last ",
        "(",
        "[",
        "2024",
        "3/4/21",
        "available at",
        "Available online",
        "URL:",
        "url",
        "link",
        "web",
        "source",
        "from",
        "at",
        "doi",
        "DOI:",
        "10.1000/x",
        "https://a.b",
        "HTTP://C.D",
        "www.e.f",
        "WWW.G",
        "[t](u)",
        "İ",
        "ı",
        "ſ",
        "K",
        "Sources",
        "REFERENCES",
        "## Works cited",
        "Notes:",
        "refs",
        "Further Reading",
        "Bibliography",
        "Links",
        "cited",
    ]
    words = R._ACCESSED_WORDS
    for text in _texts(pieces, 6000, seed=4, longest=10):
        lowered = text.lower()
        if "](" not in text:
            assert R._MD_LINK.search(text) is None
        if "http" not in lowered and "www." not in lowered:
            assert R._BARE_URL.search(text) is None
        if "10." not in text:
            assert R._DOI_TEXT.search(text) is None
        if text.isascii() and not any(w in lowered for w in words):
            assert R._ACCESSED.search(text) is None
        one_spaced = " ".join(text.split())
        cut = max(0, len(one_spaced) - 32)
        assert one_spaced[:cut] + R._URL_LABEL.sub("", one_spaced[cut:]) == R._URL_LABEL.sub("", one_spaced)
        heading = R._REF_HEADING.match(text)
        fast = R._ref_heading(text)
        assert (heading and (heading.span(), heading.groupdict())) == (
            fast and (fast.span(), fast.groupdict())
        )
    assert all(word == word.lower() for word in R._Find.ref_words)  # _may_be_ref_heading compares lower case


# --- the sentences read in one pass ---------------------------------------------------------------------


def _plain_read_sentences(work: str, spans: list[tuple[int, int]]) -> tuple[list[str], list[int]]:
    """:func:`graderctl.parsing.report._read_sentences` as first written (three comprehensions)."""
    spaces_only = R._spaces_only(work)
    cleaned = [R._clean(work[a:b], spaces_only) for a, b in spans]
    real = [bool(t.strip(R._NOT_CONTENT)) for t in cleaned]
    attribution = [
        t[:1] in R._ATTRIBUTION_START and bool(R._ATTRIBUTION_LINE.match(t)) and len(t.split()) <= 25
        for t in cleaned
    ]
    assert not any(at and not r for r, at in zip(real, attribution, strict=True))  # no content: no words
    kinds = [
        R._EMPTY if not r else R._ATTRIBUTION if at else R._PLAIN
        for r, at in zip(real, attribution, strict=True)
    ]
    return cleaned, kinds


def test_sentences_read_in_one_pass_equal_the_plain_comprehensions() -> None:
    pieces = [
        "Sales rose",
        " 5%",
        ". ",
        "\n",
        "  ",
        "\t",
        "\u00a0",
        "\x0b",
        "*",
        "`",
        "|",
        "- ",
        "1. ",
        "> ",
        "( )",
        "(;",
        "()",
        "[ ]",
        "(x)",
        "[x]",
        "Source: ",
        "sources - ",
        "Via ",
        "via—",
        "Refs:",
        "(Sources: ",
        "[cited in: ",
        "From: ",
        "CREDIT:",
        "Data – ",
        "Da",
        "Spot",
        "Coffee",
        "cı",
        "vİa:",
        "ſource:",
        "Sſ",
        "cıted in: ",
        "Citations: ",
        "cited in - ",
        "vıa: ",
        "CİTATIONS: ",
        "FROM—",
        "dAtA: ",
        "cRedit - ",
        "Sou",
        "Dengue",
        "Refined",
        ".",
        "—",
        "é",
        "?",
    ]
    for text in _texts(pieces, 8000, seed=21, longest=16):
        spans = sentence_spans(text)
        assert R._read_sentences(text, spans) == _plain_read_sentences(text, spans), text


def _plain_states_something(text: str) -> bool:
    """:func:`graderctl.parsing.report._states_something` as first written (the whole text in lower case)."""
    if text.endswith(("?", ":")):
        return False
    words = text.count(" ") + 1
    if words < 5:
        return False
    if words < 12 and text[-1] not in ".!\"”’')]%" and "," not in text:
        return False
    low = text.lower().lstrip("\"'“‘(")
    return not low.startswith(R._META_START)


def test_states_something_reads_only_the_opening() -> None:
    pieces = [
        *R._META_START,
        "This",
        " report",
        "İ",
        "ı",
        "Σ",
        "ΑΣ ",
        "ß",
        "ﬁ",
        '"',
        "'",
        "“",
        "‘",
        "(",
        " x",
    ]
    pieces += [" sales rose", ",", ".", "?", ":", " ", "%"]
    for text in _texts(pieces, 8000, seed=22, longest=14):
        text = " ".join(text.split())  # a cleaned sentence: stripped, single-spaced
        if text:
            assert R._states_something(text) == _plain_states_something(text), text


def _plain_owners(
    work: str, spans: list[tuple[int, int]], kinds: list[int], cites: list[R._Cite]
) -> list[list[int] | None]:
    """:func:`graderctl.parsing.report._owners` as first written (a bisection for each citation, the loops
    over the kinds always run, a list for each sentence), as the ids of the citations."""
    starts = [a for a, _ in spans]
    n_spans = len(spans)
    owners: list[list[int] | None] = [None] * n_spans
    last_start = last_end = last_idx = -1
    for cite in cites:
        start = cite.start
        if start == last_start and cite.end == last_end:
            idx = last_idx
        else:
            idx = bisect_right(starts, start) - 1
            if idx < 0:
                idx = 0 if spans else -1
            elif (
                idx + 1 < n_spans
                and start >= spans[idx][1]
                and "\n" in work[spans[idx][1] : start]
                and not work[cite.end : spans[idx + 1][0]].strip()
            ):
                idx += 1
            while idx > 0 and kinds[idx] != R._PLAIN:
                idx -= 1
            while idx < n_spans - 1 and kinds[idx] == R._EMPTY:
                idx += 1
            last_start, last_end, last_idx = start, cite.end, idx
        if idx >= 0:
            owners[idx] = (owners[idx] or []) + [id(cite)]
    return owners


def test_citations_placed_stepping_on_equal_the_plain_bisection() -> None:
    """_owners steps from sentence to sentence while the citations come in order (a bisection when one does
    not) and skips the loops over the kinds when every sentence is plain: the same sentences."""
    rng = random.Random(31)
    kinds_to_pick = [R._PLAIN, R._PLAIN, R._EMPTY, R._ATTRIBUTION]
    for _ in range(6000):
        n = rng.randint(0, 60)
        work = "".join(rng.choice("ab .\n") for _ in range(n))
        cuts = sorted(rng.sample(range(n + 1), min(n + 1, 2 * rng.randint(0, 6))))
        spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2) if cuts[i] < cuts[i + 1]]
        every_plain = rng.random() < 0.5
        kinds = [R._PLAIN if every_plain else rng.choice(kinds_to_pick) for _ in spans]
        cites: list[R._Cite] = []
        for _ in range(rng.randint(0, 8)):
            start = rng.randint(0, n)
            end = min(n, start + rng.randint(0, 5))
            cites.append(R._Cite(start, end, "[1]", "1"))
            if rng.random() < 0.3:  # a marker of two citations
                cites.append(R._Cite(start, end, "[2]", None))
        if rng.random() < 0.7:  # in order, mostly
            cites.sort(key=lambda c: c.start)
        fast = [
            None if o is None else [id(o)] if isinstance(o, R._Cite) else [id(c) for c in o]
            for o in R._owners(work, spans, kinds, cites)
        ]
        assert fast == _plain_owners(work, spans, kinds, cites), (work, spans, kinds, cites)


# --- blank lines: the pattern tried only where a line can open a match --------------------------------------


def test_blank_lines_equal_the_pattern_run_over_the_whole_text() -> None:
    """_blank_lines tries _BLANK_LINE only at the starts of lines that can open a match; ``sub`` over the
    whole text is the reference (headings, rules of each kind, table rules, the same marks inside lines)."""
    pieces = ["\n", "\n", " ", "   ", "\t", "#", "## ", "###### x", "####### x", "-", "---", "- - -", "*"]
    pieces += ["_"]
    pieces += ["***", "___", "|", "| --- |", ":---:", "|:--|--:|", "text", " word", ".", "\u00a0", "\r", "\f"]
    blank = R._BLANK_LINE
    texts = _texts(pieces, 6000, 41, longest=16)
    for text in texts:
        assert R._blank_lines(text) == blank.sub(lambda m: " " * len(m.group()), text), repr(text)
    assert sum(blank.search(t) is not None for t in texts) > 1000  # a fifth hold a line it blanks
