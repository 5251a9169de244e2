"""The ``claim_support`` evidence index and its shortcuts: each gives what the plain computation gives."""

from __future__ import annotations

import random

import pytest

from graderctl.kinds import _support_features as sf
from graderctl.kinds._support_features import features as sf_features
from graderctl.kinds._support_features import keys as sf_keys
from graderctl.kinds._support_features import vocab as sf_vocab
from graderctl.language import tokens as sf_tokens
from graderctl.language.sentences import sentence_spans
from graderctl.language.typography import fold_typography

PAGE = (
    "The Harbour Museum opened in Lisbon on 1998-03-14.  Its collection (3,500,000 objects) comes from "
    "Asia, Africa and the musician's estate.\nAttendance rose to 412,000 visitors in 2019 - the highest "
    "figure yet!  Director Maria van Lopes didn't expand the building; musicians' unions weren't consulted. "
    "Étienne Müller said: “the museum is funded by the city council and by private donors”. "
    "Museums, music-halls and MUSIC schools share the site_2 ... 40% of it."
)


def _plain_keys(text: str) -> list[str]:
    return [k for k in (sf.word_key(w) for w in sf_tokens.WORD_TOKEN_RE.findall(text)) if k]


def _random_text(rng: random.Random) -> str:
    words = [
        *("the", "Museum", "museums", "music", "musician's", "didn't", "3,500,000", "2019.", "40%", "van"),
        *("Lopes,", "(objects)", "site_2", "Étienne", "’s", "'quoted'", "co-op", "1998-03-14", "—", "U.S."),
        *("rose", "Rose", "MAY", "may", "Ünïcode", "ﬁne", "a", "I", "x2", "...", "\u00a0", "\t", "\n"),
    ]
    return " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))


def test_text_keys_equal_the_keys_of_each_token() -> None:
    rng = random.Random(3)
    for text in [PAGE, PAGE.lower(), *(_random_text(rng).lower() for _ in range(2_000))]:
        assert list(sf.text_keys(text)) == _plain_keys(text), text


def test_index_masks_and_prefixes_equal_a_plain_inverted_index() -> None:
    rng = random.Random(4)
    for text in [PAGE, *(_random_text(rng) for _ in range(300))]:
        index = sf.index_text(text)
        folded = fold_typography(text)
        spans = sentence_spans(folded)
        assert index.spans == spans
        keys = [_plain_keys(folded[a:b].lower()) for a, b in spans]
        # ISO dates add their month to the sentence
        for i, (a, b) in enumerate(spans):
            for m in sf_keys.ISO_DATE_RE.finditer(folded[a:b]):
                keys[i].append(sf.stem(sf_vocab.MONTHS[int(m.group(2)) - 1]))
        assert [list(k) for k in index.keys] == keys
        postings: dict[str, list[int]] = {}
        for i, ks in enumerate(keys):
            for k in dict.fromkeys(ks):
                postings.setdefault(k, []).append(i)
        assert {k: index.postings(k) for k in index.masks} == postings
        assert index.postings("nowhere-at-all") == []
        for key in [*postings, "museu", "music", "zzzzz"]:
            prefix = key[:5]
            expected = {i for k, ids in postings.items() if len(k) >= 6 and k[:5] == prefix for i in ids}
            assert set(sf.mask_bits(index.prefix_mask(prefix))) == expected, (text, prefix)


def test_index_of_the_page_reads_iso_dates_and_keeps_sentence_order() -> None:
    index = sf.index_text(PAGE)
    assert len(index) == 7  # "... 40% of it." starts a sentence
    assert sf.stem("march") in index.keys[0]
    museum = sf.word_key("museum")
    assert museum is not None
    assert index.postings(museum) == [0, 4, 5]
    assert sf.mask_bits(0b1010_0001) == [0, 5, 7]
    assert sf.mask_bits(0) == []


def test_may_name_never_rules_out_a_sentence_whose_names_hold_the_key() -> None:
    rng = random.Random(6)
    texts = [PAGE, *(_random_text(rng) for _ in range(300))]
    checked = 0
    for text in texts:
        index = sf.index_text(text)
        for i in range(len(index)):
            for key in {k for k in index.keys[i]}:
                fresh = sf.index_text(text)  # no reading cached: the shortcut decides alone
                has_name = any(key in n.keys for n in fresh.reading(i).names)
                fresh = sf.index_text(text)
                if has_name:
                    assert fresh.may_name(i, key), (text, i, key)
                    checked += 1
    assert checked > 50
    # lower-case words that are no name joiner cannot be in a name: the sentence is not read
    index = sf.index_text("Prices rose and prices fell.")
    price = sf.word_key("prices")
    assert price is not None
    assert index.may_name(0, price)
    index = sf.index_text("The rise in prices was small.")
    assert not index.may_name(0, price)
    assert index.may_name(0, sf.word_key("rise") or "") is False
    lopes = sf.word_key("van")
    assert lopes is not None
    assert sf.index_text("It went to Maria van Lopes.").may_name(0, lopes)


def test_prefix_masks_are_the_same_when_the_table_of_prefixes_is_full() -> None:
    pages = [PAGE, "Held on 2019-09-14. Septembers differ. Nothing here.", "Musicals and museum-goers."]
    prefixes = ["museu", "music", "septe", "zzzzz", "diffe"]
    expected = {(t, p): sf.index_text(t).prefix_mask(p) for t in pages for p in prefixes}
    assert expected[(pages[1], "septe")] == 0b011  # the ISO date's month, and "Septembers"
    # an ISO date adds its month's key to a sentence directly: the table knows every month from the start
    for month in sf_vocab.MONTHS:
        key = sf.stem(month)
        assert len(key) < 6 or key in sf_keys.PREFIX_KEYS[key[:5]]
    count = sf_keys.prefix_keys_count[0]
    sf_keys.prefix_keys_count[0] = sf_keys.PREFIX_KEYS_LIMIT  # the table stops growing: pages are scanned
    try:
        assert {(t, p): sf.index_text(t).prefix_mask(p) for t in pages for p in prefixes} == expected
    finally:
        sf_keys.prefix_keys_count[0] = count


def test_a_window_quality_is_bounded_by_its_recall() -> None:
    """extract() skips a candidate window whose IDF-weighted recall (from the cheap scan) plus the most the
    other terms of its quality can add is no better than the best window so far: check that bound."""
    import numpy as np

    rng = random.Random(8)
    pages = [
        PAGE,
        *(_random_text(rng) + ". " + _random_text(rng) + ". " + _random_text(rng) for _ in range(60)),
    ]
    checked = 0
    for text in pages:
        index = sf.index_text(text)
        for claim_text in (_random_text(rng), index.sentence(0), "The museum has 3.5 million objects."):
            claim = sf.analyse_claim(claim_text)
            n_terms = len(claim.terms)
            if not n_terms:
                continue
            weights = np.array([1.5 if t in claim.names else 1.0 for t in claim.terms])
            widf = weights * rng.uniform(0.5, 3.0)
            names = [t for t in claim.terms if t in claim.names]
            for first in range(len(index)):
                for last in range(first, min(len(index), first + 3)):
                    w = sf_features.window_signals(claim, index, 0, first, last, weights, widf, names)
                    bound = w.values["recall_window_idf"] + 0.3 - 0.03 * (last - first)
                    assert w.quality <= bound + 1e-12
                    checked += 1
    assert checked > 500


def test_skipping_windows_that_cannot_win_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    cases = []
    for _ in range(150):
        page = ". ".join(_random_text(rng).capitalize() for _ in range(rng.randint(1, 12)))
        sentences = page.split(". ")
        claim = rng.choice([_random_text(rng), rng.choice(sentences), " ".join(sentences[:2])])
        cases.append((claim, page))
    cases.append(("The museum opened in Lisbon in 1998 with 3.5 million objects.", PAGE))

    def run() -> list[sf.Features]:
        return [sf.extract(sf.analyse_claim(c), [sf.index_text(p)]) for c, p in cases]

    fast = run()
    monkeypatch.setattr(sf_features, "_SKIP_BOUNDED_WINDOWS", False)
    assert run() == fast


def test_number_words_pattern_equals_the_plain_case_insensitive_one() -> None:
    import re
    import sys

    plain = re.compile(
        r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
        r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)\b",
        re.IGNORECASE,
    )
    # the leading character set holds every character that case-insensitive matching takes for a first letter
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    firsts = {m.group() for m in re.finditer("(?i)[efhnst]", every)}
    assert firsts == set("EFHNSTefhnst\u017f")
    words = [
        *(
            "two",
            "Two",
            "TWO",
            "\u017fix",
            "\u017fIX",
            "fourteen",
            "four",
            "Fourteenth",
            "hundred",
            "hundreds",
        ),
        *("eighty", "seven", "seventeen", "seventy", "_two", "two_", "2two", "twoa", "Nineteen", "ninety"),
        *(
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fifteen",
            "sixteen",
            "eighteen",
            "twenty",
            "thirty",
            "forty",
        ),
        *(
            "fifty",
            "sixty",
            "three",
            "five",
            "eight",
            "six",
            "nine",
            "x",
            "e",
            "t",
            "é",
            "tén",
            "ı",
            "İ",
            "K",
        ),
        *("\ufb01ve", "\u0301", "twó", "s\u0301ix", "-", " ", ".", "'"),
    ]
    rng = random.Random(10)
    for _ in range(30_000):
        seps = ["", " ", "-", ",", "'", "_", "1", "é"]
        text = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(0, 6)))
        assert [m.span() for m in sf_keys.NUMBER_WORDS_RE.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], text


def test_prefix_masks_of_a_prefix_shared_by_many_keys() -> None:
    words = [f"zqxwa{a}{b}" for a in "bcdfghjklm" for b in "bcdfghjk"]  # 80 keys made with one prefix
    for w in words:
        sf.word_key(w)
    key = sf.word_key(words[0])
    assert key is not None
    assert len(sf_keys.PREFIX_KEYS[key[:5]]) > 64  # the page is scanned
    page = f"Museums here. One {words[3]} there. And {words[70]} {words[5]}. Zqxwa alone."
    index = sf.index_text(page)
    assert index.prefix_mask(key[:5]) == 0b0110
    assert index.prefix_mask("museu") == 0b0001
