"""The body scan's fast paths give what the plain scan gives (tests/support/scan_reference.py: every
candidate place tried with the citation pattern, edits applied by ``_apply``, inline sources made by
``_source``): on random texts made of the markers, links, URLs and parentheses it reads, each against a few
source lists. Seeded, a few thousand cases each."""

from __future__ import annotations

import random
from collections.abc import Callable

from graderctl.parsing import report as R
from tests.support.scan_reference import reference_html, reference_scan_body

_BODY_PIECES = [
    "Sales rose",
    " ",
    "  ",
    ".",
    ", ",
    "\n",
    "\t",
    "[1]",
    "[2]",
    "[12]",
    "[1234]",
    "[01]",
    "[1, 2]",
    "[3, 2]",
    "[1,2]",
    "[1-3]",
    "[2 and 4]",
    "[source 2]",
    "[ 3 ]",
    "[^1]",
    "[^2]",
    "[^note]",
    "[^a b]",
    "[^x[y]]",
    "[^]",
    "[^link1]",
    "[]",
    "[",
    "]",
    "(",
    ")",
    "!",
    "![",
    "[1](https://a.org/x)",
    "[source](https://www.iea.org/r/1?utm_source=agent)",
    "[source](https://www.iea.org/r/1?utm_source=agent).",
    "[[2]](https://b.org/y)",
    "[Title words](http://c.org/z)",
    "[t](u v)",
    "[t](<https://d.org>)",
    '[t](https://e.org "title")',
    "[t](#ref-1)",
    "[2](#2)",
    "![img](pic.png)",
    "[t]()",
    "[x](a(b)c)",
    "[x](a)b)",
    "[a\nb](https://j.org)",
    "[a [b] c](https://k.org)",
    "[x]( https://l.org)",
    "[x](https://m.org )",
    "[x](https://n.org>)",
    "[x][ref]",
    "[ref][]",
    "[citation needed]",
    "【3†source】",
    "https://doi.org/10.1000/abc.1",
    "(https://doi.org/10.1000/abc.1)",
    "doi:10.5555/zz",
    "DOI: 10.1234/q)",
    "10.1234/x",
    "310.5",
    "www.f.com/a",
    "http://g.org/b.",
    "HTTP://H.ORG",
    "http://",
    "(Lewis et al., 2020)",
    "(Gao et al., 2012; Liu 2013)",
    "(Smith & Jones, 2019)",
    "Lewis et al. (2020)",
    "Lewis (2020)",
    " (2020)",
    "(see 2021)",
    "(March 2020)",
    "(in 2020, up 5%)",
    "([source](https://i.org/c))",
    "(e.g. x)",
    "growth.1 Next",
    "in 2021.2 The",
    ".12",
    "¹",
    "²³",
    "km²",
    "growth¹",
    "İ",
    "é",
]


def _sources(kind: int) -> Callable[[], R._Sources]:
    """A fresh copy of one of a few source lists each time (the scan adds inline sources to it)."""

    def make() -> R._Sources:
        sources = R._Sources()
        if kind in (1, 3):
            for n in ("1", "2", "3", "4"):
                url = f"https://a.org/x{n}" if n != "2" else "https://www.iea.org/r/1"
                sources.add(R._source(n, f"[{n}]", url, None, f"T{n}", f"T{n} {url}", "list"))
        if kind in (2, 3):
            sources.add(R._source("^1", "[^1]", "https://b.org/y", None, None, "b", "footnote"))
            sources.add(R._source("note", "[note]", None, "10.1000/abc.1", None, "n", "definition"))
            sources.add(R._source("link1", "[link1]", None, None, None, "l", "definition"))
        if kind == 3:
            sources.by_author[("lewis", "2020")] = "1"
            sources.by_author[("gao", "2012")] = "2"
            sources.has_author_entries = True
        return sources

    return make


def _cites(cites: list[R._Cite]) -> list[tuple[int, int, str, str | None]]:
    return [(c.start, c.end, c.marker, c.source_id) for c in cites]


def _state(sources: R._Sources) -> tuple[object, ...]:
    return (
        [(k, repr(v), type(v)) for k, v in sources.by_id.items()],
        sources.by_raw,
        sources.by_doi,
        sources.links,
    )


def test_body_scan_equals_the_plain_scan() -> None:
    rng = random.Random(21)
    link_defs = {"ref": "1", "x": "^1"}
    for kind in range(4):
        make = _sources(kind)
        for _ in range(2500):
            text = "".join(rng.choice(_BODY_PIECES) for _ in range(rng.randint(0, 14)))
            fast_sources, plain_sources = make(), make()
            plain = reference_scan_body(text, plain_sources, link_defs)
            work, cites = R._scan_body(text, fast_sources, link_defs)
            assert (work, _cites(cites)) == plain, text
            assert _state(fast_sources) == _state(plain_sources), text


def test_body_scan_on_the_benchmark_shapes() -> None:
    """Long texts in the benchmark's styles (many markers, repeated spellings and URLs, a source list)."""
    rng = random.Random(22)
    styles = [
        lambda n: f" [{n}]",
        lambda n: f" [{n}, {rng.randint(1, 8)}]",
        lambda n: f".[^{n}]",
        lambda n: f" [source](https://www.iea.org/reports/{rng.randint(1, 5)}-item-{n}?utm_source=agent)",
        lambda n: f" [[{n}]](https://ec.europa.eu/r/{n})",
        lambda n: f" ([source](https://x.org/{n}))",
        lambda n: f" (https://doi.org/10.100{n}/abc.{n})",
        lambda n: f" (Gao et al., 201{n})",
        lambda n: f" Lewis et al. (20{10 + n})",
    ]
    for kind in range(4):
        make = _sources(kind)
        for _ in range(150):
            style = rng.choice(styles)
            text = "".join(
                f"Sales rose to {rng.randint(1, 999)}.{rng.randint(0, 9)} GW in 20{rng.randint(10, 25)}"
                + style(rng.randint(1, 9))
                + rng.choice([". ", ".\n\n", " "])
                for _ in range(rng.randint(1, 40))
            )
            fast_sources, plain_sources = make(), make()
            work, cites = R._scan_body(text, fast_sources, {})
            assert (work, _cites(cites)) == reference_scan_body(text, plain_sources, {}), text
            assert _state(fast_sources) == _state(plain_sources), text


def test_an_inline_source_is_a_parsed_source() -> None:
    sources = R._Sources()
    sid = sources.inline("https://a.org", "10.1/x", "T")
    made = sources.by_id[sid]
    assert type(made) is R.ParsedSource
    plain = R.ParsedSource(sid, "", "https://a.org", "10.1/x", "T", "https://a.org", "inline")
    assert made == plain
    assert hash(made) == hash(plain)
    assert sorted(R._PlainSource.__slots__) == sorted(R.ParsedSource.__slots__)
    assert R._LINK_IDS[7] == "link7"


def test_claims_and_sentences_made_as_plain_objects_are_parsed_ones() -> None:
    cites = (R.ParsedCitation("[1]", "1"),)
    claim = R._claim("Sales rose.", 0, 11, cites)
    assert type(claim) is R.ParsedClaim
    assert claim == R.ParsedClaim("Sales rose.", 0, 11, cites)
    assert hash(claim) == hash(R.ParsedClaim("Sales rose.", 0, 11, cites))
    assert sorted(R._NewClaim.__slots__) == sorted(R.ParsedClaim.__slots__)
    assert sorted(R._NewSentence.__slots__) == sorted(R.ParsedSentence.__slots__)
    # what parse_report makes inline in its loop is the same
    parsed = R.parse_report(
        "Sales rose by ten percent in 2023 [1]. Prices fell by half in the last year.\n\n"
        "Sources:\n1. https://a.org/x\n"
    )
    assert all(type(c) is R.ParsedClaim for c in parsed.claims) and parsed.claims
    assert all(type(s) is R.ParsedSentence for s in parsed.uncited) and parsed.uncited
    # every slot set, to what the dataclasses would hold (the claim ends with its marker, after the sentence)
    assert parsed.claims == (
        R.ParsedClaim("Sales rose by ten percent in 2023.", 0, 37, (R.ParsedCitation("[1]", "1"),)),
    )
    assert parsed.uncited == (R.ParsedSentence("Prices fell by half in the last year.", 39, 76),)


def test_html_equals_the_plain_substitutions() -> None:
    pieces = [
        "<p>",
        "</p>",
        "<sup>1</sup>",
        "<SUP>[2]</SUP>",
        '<a href="https://x.org/a">[1]</a>',
        '<a href="https://x.org/a">  two\n words </a>',
        '<a href=" https://y.org ">Title &amp; more</a>',
        '<a href="https://x.org/b"><b>bold</b> text</a>',
        '<a href="https://x.org/c"><i>it</i></a>',
        "<A HREF='#r1'>1</A>",
        '<a href="#n">note 12</a>',
        '<a href="#n">1234</a>',
        "<a href=z>z</a>",
        '<a class="c" href="https://c.org">c</a>',
        "<a>",
        "</a>",
        "<abbr>",
        "&amp;",
        "&nbsp;",
        "&#8212;",
        "Sales rose 5% in 2020. ",
        " [1]",
        "<br>",
        "<li>",
        "İ",
        "\n",
        "<strong>",
        "text",
    ]
    rng = random.Random(23)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        assert R._html(text) == reference_html(text), text
