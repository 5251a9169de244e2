"""The source-list shortcuts of the parser give what the plain code gives: each one against the code it
replaced (kept here as the reference) or the pattern it avoids running, on random texts made of the pieces
that matter to it. Seeded, a few thousand cases each."""

from __future__ import annotations

import random
import re
import unicodedata
from urllib.parse import unquote

from graderctl import normalize as N
from graderctl.parsing import report as R


def _texts(pieces: list[str], n: int, seed: int, longest: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, longest))) for _ in range(n)]


def _same(a: re.Match[str] | None, b: re.Match[str] | None) -> bool:
    return (a and (a.span(), a.groups(), a.groupdict())) == (b and (b.span(), b.groups(), b.groupdict()))


_ENTRY_PIECES = [
    "Report 3 on the subject",
    "Smith, A., ",
    "Other, B., et al. ",
    "Source 5",
    "Rho Motion",
    "International Energy Agency (IEA)",
    "(2014)",
    "(IEA)",
    "(OECD).",
    " of the ",
    "van der Berg",
    "O’Neil",
    "Émile",
    "(",
    ")",
    ". ",
    ", ",
    ",",
    " ",
    "  ",
    "\t",
    "*",
    "_",
    "`",
    "<",
    ">",
    '"A quoted title"',
    "“Curly title”",
    "accessed May 3, 2025",
    ", accessed ",
    "ACCESSED",
    "Retrieved",
    "retrieved from",
    "visited",
    "viewed",
    "consulted",
    "last ",
    "[",
    "]",
    ";",
    "2025",
    "1999a",
    "12/03/2024",
    "20201",
    "1750",
    "3",
    "https://ember-energy.org/reports/3319-item-1?utm_source=agent",
    "HTTP://C.D/x.",
    "http",
    "www.e.f",
    "WWW.",
    "www",
    "[title](https://x.org/a)",
    "[https://x.org](https://x.org)",
    "doi:10.1000/xyz",
    "10.1000/abc",
    "10.",
    "Available at: ",
    "URL:",
    " url",
    " link",
    " Online",
    " web",
    " source",
    " from",
    " at",
    " DOI",
    ":",
    "-",
    "–",
    "|",
    "İ",
    "ſ",
    "K",
    "é",
    "Ø",
    "÷",
    "×",
    "’",
    "'",
    "&",
    "\n",
]


# --- whole functions: the code as it was (the reference) against the code as it is -------------------


def _reference_entry_source(entry: R._Entry, sources: R._Sources, ordinal: int) -> R.ParsedSource:
    """``_entry_source`` before its shortcuts (report-parser@3, main 128595f)."""
    body = entry.text.strip()
    url: str | None = None
    title: str | None = None
    link = R._MD_LINK.search(body) if "](" in body else None
    rest = body
    if link is not None:
        url = R._trim_url(link.group("url")) or None
        text = link.group("text").strip().strip("*_`")
        if text and not R._is_url_like(text) and not R._LINK_CITATION_TEXT.match(text):
            title = text
        rest = body[: link.start()] + " " + body[link.end() :]
    lowered = body.lower()
    has_url = "http" in lowered or "www." in lowered
    if url is None and has_url:
        bare = R._BARE_URL.search(body)
        if bare is not None:
            url = R._trim_url(bare.group())
            rest = body[: bare.start()] + " " + body[bare.end() :]
    doi = R.find_doi(body) if ("10." in body) else None
    if url and url.lower().startswith(("doi:", "10.")):
        url = None
    if title is None:
        quoted = R._QUOTED_TITLE.search(rest)
        if quoted is not None:
            title = quoted.group(1).strip(" .,")
    if title is None:
        cleaned = R._ACCESSED.sub(" ", rest)
        cleaned = R._DOI_TEXT.sub(" ", cleaned)
        cleaned = R._BARE_URL.sub(" ", cleaned)
        cleaned = cleaned.replace("*", "").replace("`", "").replace("<", " ").replace(">", " ")
        cleaned = " ".join(cleaned.split())
        cleaned = R._URL_LABEL.sub("", cleaned).strip(" -–—|,;:.")
        title = cleaned[:300] or None
    sid = entry.id or str(ordinal)
    marker = entry.marker or f"[{sid}]"
    source = R._source(sid, marker, url, doi, title, body, entry.origin)
    author = R._ENTRY_AUTHOR.match(body)
    year = R._YEAR_IN_ENTRY.search(body[:300])
    if author is not None and year is not None:
        names = {author.group("name").lower().replace("’", "'")}
        org = R._ENTRY_ORG.match(body)
        if org is not None:
            names.add(" ".join(org.group(1).lower().replace("’", "'").split()))
        names.update(a.lower() for a in R._ACRONYM.findall(body[: year.start() + 8]))
        names = {n for n in names if n not in R._NOT_AUTHORS}
        for name in names:
            for key in ((name, year.group(1) + (year.group(2) or "")), (name, year.group(1))):
                sources.by_author.setdefault(key, sid)
        if names:
            sources.has_author_entries = True
    return source


def test_entry_source_equals_the_reference() -> None:
    for i, text in enumerate(_texts(_ENTRY_PIECES, 6000, seed=21, longest=14)):
        entry_id = (None, "3", "^2", "ref")[i % 4]
        origin = ("list", "footnote", "definition")[i % 3]
        fast_sources, plain_sources = R._Sources(), R._Sources()
        fast = R._entry_source(R._Entry(entry_id, "", text, origin), fast_sources, i % 7)
        plain = _reference_entry_source(R._Entry(entry_id, "", text, origin), plain_sources, i % 7)
        assert fast == plain, text
        assert fast_sources.by_author == plain_sources.by_author, text
        assert fast_sources.has_author_entries == plain_sources.has_author_entries, text


_ENTRY_ENDS = [
    "",
    ", accessed May 3, 2025, ",
    ", accessed May 3, 2025",
    ". Accessed 12/03/2024.",
    " (accessed May 2025) ",
    " (last viewed 2024)",
    "; retrieved 3 June 2021 from ",
    ", accessed: no date",
    " Accessed at ",
    ", accessed May 3, 2025, (IEA) ",
    " (2019), accessed May 3, 2025. URL:",
    " 2019(AB) ",
    " (OECD) 2021(IEA)",
]


_ENTRY_LINKS = ["", "https://x.org/a", "doi:10.1/z", "[d](doi:10.1/z)", "[t](10.1/x)", "[t](DOI:10.1/y)"]


def test_a_source_is_made_as_the_dataclass_makes_it() -> None:
    for fields in [
        ("1", "1.", "https://a.org", None, "Title", "Title https://a.org", "list"),
        ("^2", "[^2]", None, "10.1/x", None, "", "footnote"),
        ("ref", "[ref]", "www.r.org", "10.2/y", "T", "www.r.org", "definition"),
    ]:
        made, plain = R._source(*fields), R.ParsedSource(*fields)
        assert type(made) is R.ParsedSource
        assert made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)


def _reference_add(sources: R._Sources, source: R.ParsedSource) -> str:
    """``_Sources.add`` as it was."""
    if source.id in sources.by_id:
        return source.id
    sources.by_id[source.id] = source
    if source.doi and source.doi not in sources.by_doi:
        sources.by_doi[source.doi] = source.id
    if source.url:
        sources.by_raw.setdefault(source.url, source.id)
        if source.origin != "inline":
            sources.listed_urls.append((source.url, source.id))
    return source.id


def test_entries_of_a_list_equal_the_reference() -> None:
    """The entries of one list share the _Sources of the report (and so what _accessed_off kept for their
    ends): random entries ending alike, a list at a time, each added as it was."""
    rng = random.Random(22)
    starts = _texts(_ENTRY_PIECES, 3000, seed=23, longest=8)
    for k in range(0, len(starts), 6):
        fast_sources, plain_sources = R._Sources(), R._Sources()
        for i, start in enumerate(starts[k : k + 6], start=1):
            text = start + rng.choice(_ENTRY_ENDS) + rng.choice(_ENTRY_LINKS)
            entry_id = rng.choice([None, None, "1", "2"])  # (an id again: add keeps the first)
            fast = R._entry_source(R._Entry(entry_id, "", text, "list"), fast_sources, i)
            plain = _reference_entry_source(R._Entry(entry_id, "", text, "list"), plain_sources, i)
            assert fast == plain, text
            assert type(fast) is R.ParsedSource and hash(fast) == hash(plain), text
            assert fast_sources.add(fast) == _reference_add(plain_sources, plain)
        for name in ("by_id", "by_doi", "by_raw", "listed_urls", "by_author"):
            assert getattr(fast_sources, name) == getattr(plain_sources, name), (name, starts[k : k + 6])
        assert fast_sources.has_author_entries == plain_sources.has_author_entries, starts[k : k + 6]


def test_accessed_off_with_the_ends_it_kept() -> None:
    rng = random.Random(24)
    cuts: dict[str, str] = {}
    for start in _texts(_ENTRY_PIECES, 6000, seed=26, longest=6):
        text = start + rng.choice(_ENTRY_ENDS) + rng.choice(["", " ", ", ", "x", "2025"])
        if text.isascii():  # (it is used on ASCII texts only)
            assert R._accessed_off(text, cuts) == R._ACCESSED.sub(" ", text), text
            assert R._accessed_off(text) == R._ACCESSED.sub(" ", text), text
    assert len(cuts) > 20  # ends were kept, and used again


def _reference_region_entries(lines: list[str], origin: str = "list") -> list[R._Entry]:
    entries: list[R._Entry] = []
    for line in lines:
        if not line.strip():
            continue
        m = R._ENTRY.match(line)
        assert m is not None
        b, p, n, c, d = m.group("b"), m.group("p"), m.group("n"), m.group("c"), m.group("d")
        ident, marker = (
            (b, f"[{b}]")
            if b is not None
            else (p, f"({p})")
            if p is not None
            else (n, f"{n}.")
            if n is not None
            else (c, f"^{c}")
            if c is not None
            else (d, d)
            if d is not None
            else (None, "")
        )
        body = m.group("body").strip()
        if not body and ident is None:
            continue
        starts_new = ident is not None or m.group("bullet") is not None
        if not starts_new and entries:
            indented = line[:1] in " \t"
            current = entries[-1]
            only_link = R._BARE_URL.match(body) is not None or (
                R._URL_LABEL.sub("", body.split("http")[0]).strip() == ""
            )
            has_link = R._BARE_URL.search(current.text) is not None or "10." in current.text
            if indented or (only_link and not has_link) or body[:1].islower():
                current.text += " " + body
                continue
        entries.append(R._Entry(ident, marker, body, origin))
    return entries


def _reference_find_regions(lines: list[str]) -> list[tuple[int, int, str]]:
    regions: list[tuple[int, int, str]] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        m = R._REF_HEADING.match(line) if 0 < len(line) < 200 else None
        if m is not None:
            rest = m.group("rest").strip()
            if rest and not (
                R._BARE_URL.search(rest)
                or R._DOI_TEXT.search(rest)
                or re.match(r"\[?\^?\d{1,3}[\].):]", rest)
            ):
                m = None
        if m is None:
            i += 1
            continue
        level = len(m.group("hashes") or "") or 7
        j = i + 1
        while j < n:
            h = R._MD_HEADING.match(lines[j])
            if h is not None and len(h.group(1)) <= level and R._REF_HEADING.match(lines[j]) is None:
                break
            j += 1
        regions.append((i, j, m.group("rest").strip()))
        i = j
    last_end = regions[-1][1] if regions else 0
    j = n
    while j > last_end and not lines[j - 1].strip():
        j -= 1
    k = j
    while k > last_end:
        line = lines[k - 1]
        if not line.strip():
            k -= 1
            continue
        m2 = R._ENTRY.match(line)
        marked = m2 is not None and (m2.group("b") or m2.group("n") or m2.group("p"))
        if marked and (R._BARE_URL.search(line) or R._DOI_TEXT.search(line)):
            k -= 1
            continue
        break
    if k < j and (regions == [] or regions[-1][1] < k or regions[-1][1] == n):
        while k < j and not lines[k].strip():
            k += 1
        if not regions or regions[-1][1] <= k:
            regions.append((k - 1, j, ""))
    return regions


_LINE_PIECES = [
    "Sources:",
    "## References",
    "### Works cited",
    "# Notes",
    "**Bibliography**",
    "Further reading",
    "SOURCES AND REFERENCES",
    "References (selected)",
    "1. Sources",
    "> Links:",
    "Sources: [1] https://a.org [2] https://b.org",
    "References: see below",
    "Report 3 on the subject, accessed May 3, 2025, https://x.org/a?utm_source=agent",
    "Smith, A. (2014). A study. https://y.org",
    "Source 5, https://www.iea.org/reports/1790-item-5",
    "[^1]: Source 1, https://www.iea.org/r",
    "[2]: https://b.org",
    "[3] https://c.org",
    "4. doi:10.1000/x",
    "(5) www.d.org",
    "- ",
    "* ",
    "  ",
    "1. ",
    "## Results",
    "#",
    "####",
    "   # Heading",
    "    # not a heading",
    "Some prose about sources and references.",
    "x" * 210,
    "İ",
    "ſources",
    "K",
    "Réferences",
    "reference list",
    "refs",
    "",
    "https://e.org",
    "available at",
    "continued on this line",
]


def test_find_regions_and_entries_equal_the_reference() -> None:
    rng = random.Random(22)
    for _ in range(4000):
        lines = []
        for _ in range(rng.randint(0, 12)):
            line = "".join(rng.choice(_LINE_PIECES) for _ in range(rng.randint(0, 3)))
            lines.append(line)
        assert R._find_regions(lines) == _reference_find_regions(lines), lines
        assert R._region_entries(lines) == _reference_region_entries(lines), lines


# --- the prechecks: where they say no, the pattern cannot match --------------------------------------


def test_heading_precheck_never_skips_a_heading() -> None:
    pieces = [*R._Find.ref_words, "#", "## ", "**", "__", "_", "*", " ", "\t", "1.", "2)", "12 ", ":", "-"]
    pieces += ["–", "•", ">", "(", "[", "(all)", " & ", " and ", "/", ",", "x", "A", "é", "İ", "ſ"]
    pieces += ["K", "Ö", "ı"]
    pieces += [w.upper() for w in R._Find.ref_words] + [w.title() for w in R._Find.ref_words]
    for text in _texts(pieces, 8000, seed=23, longest=8):
        if R._REF_HEADING.match(text) is not None:
            assert R._may_be_ref_heading(text), text
        assert _same(R._ref_heading(text), R._REF_HEADING.match(text)), text
    assert not any(ch.isalpha() for ch in R._Find.not_letters)
    assert len(R._Find.not_letters) == 128 - 52


def test_first_url_place_gives_what_every_place_gives() -> None:
    pieces = [
        "http",
        "https://a.b",
        "HTTP://C.D",
        "www.",
        "WWW.x.y",
        "www",
        "ww",
        "w",
        "ftp://",
        ":",
        "/",
        " ",
        "<",
        '"',
        "x",
        "İ",
        "ſ",
        "K",
        "é",
        "[",
        "]",
        "(",
        ")",
    ]
    for text in _texts(pieces, 8000, seed=24, longest=10):
        lowered = text.lower()
        assert _same(R._url_in_entry(text, lowered), R._BARE_URL.search(text)), text


def test_org_and_label_prechecks_never_skip_a_match() -> None:
    for text in _texts(_ENTRY_PIECES, 8000, seed=25, longest=8):
        if text.lstrip(R._ORG_RUN)[:1] not in R._ORG_LAST:
            assert R._ENTRY_ORG.match(text) is None, text
        author = R._ENTRY_AUTHOR.match(text)
        if author is not None and text[author.end() : author.end() + 1] in R._ORG_LAST:
            name = author.group("name")
            if " " not in name and "\t" not in name:  # _entry_source takes the organisation to be the name
                org = R._ENTRY_ORG.match(text)
                assert org is not None and org.group(1) == name, text
        if text.isascii() and text[-1:] not in R._URL_LABEL_LAST:
            assert R._URL_LABEL.search(text) is None, text
        if text.isascii():  # (it is used on ASCII texts only)
            assert R._accessed_off(text) == R._ACCESSED.sub(" ", text), text
    # every character the run of _ENTRY_ORG allows, and only those
    name_char = R._NAME[R._NAME.index("]") + 1 : R._NAME.rindex("]") + 1]  # [A-Za-z...] after [A-Z]
    for ch in [*map(chr, range(0x250)), "’", "‘", "–"]:
        allowed = re.fullmatch(rf"[ \t*_&]|{name_char}", ch) is not None
        assert (ch in R._ORG_RUN) == allowed, repr(ch)
        # _Find.org_run: the same run, then one of _ORG_LAST
        for last in [".", ",", "(", ")", "x", ""]:
            expected = (allowed and last in R._ORG_LAST) or ch in R._ORG_LAST
            assert (R._Find.org_run.match(ch + last) is not None) == expected, repr(ch + last)


def test_marked_says_what_the_entry_pattern_says() -> None:
    pieces = [*_LINE_PIECES, "[^1]:", "[1](", "[a b]", "(12)", "(1234)", "12.", "12)", "1234.", "^3 ", "4 - "]
    pieces += ["- ", "* ", "• ", "-", "\t", "  ", "[", "]", "(", ")", "1", ".", " ", "x", "[^]"]
    pieces += ["[" + "y" * 40 + "]", "[" + "y" * 41 + "]", "[^" + "y" * 40 + "]"]
    for text in _texts(pieces, 8000, seed=29, longest=6):
        m = R._ENTRY.match(text)
        assert m is not None
        assert (R._Find.marked.match(text) is not None) == any(m.group("b", "n", "p")), text


def test_org_run_says_what_the_stripped_text_says() -> None:
    pieces = [*_ENTRY_PIECES, "Rho Motion", ". (2025)", "Smith,", "IEA ("]
    for text in _texts(pieces, 8000, seed=28, longest=8):
        expected = text.lstrip(R._ORG_RUN)[:1] in R._ORG_LAST
        assert (R._Find.org_run.match(text) is not None) == expected, text


def test_year_pattern_finds_what_the_entry_year_pattern_finds() -> None:
    pieces = [
        "1",
        "2",
        "0",
        "5",
        "9",
        "15",
        "19",
        "20",
        "2025",
        "1999",
        "1499",
        "2100",
        "a",
        "b",
        "z",
        "A",
        " ",
        "(",
        ")",
        "-",
        "/",
        "٣",
        "２",
        "x",
        "\n",
        "ab",
    ]
    for text in _texts(pieces, 12000, seed=26, longest=10):
        assert _same(R._year_in_entry(text), R._YEAR_IN_ENTRY.search(text)), text
        for start in range(len(text)):
            assert _same(R._Find.year_in_entry.match(text, start), R._YEAR_IN_ENTRY.match(text, start)), text


def _reference_source_lists(lines: list[str], sources: R._Sources, link_defs: dict[str, str]) -> set[int]:
    """The block of ``parse_report`` that read the definitions and lists, as it was (main 128595f)."""
    in_footnote = False
    footnotes: list[R._Entry] = []
    definitions: list[R._Entry] = []
    skip: set[int] = set()
    if "]:" in "\n".join(lines):
        for idx, line in enumerate(lines):
            if "]:" in line:
                fm = R._FOOTNOTE_DEF.match(line)
                if fm is not None:
                    footnotes.append(
                        R._Entry("^" + fm.group("id"), f"[^{fm.group('id')}]", fm.group("body"), "footnote")
                    )
                    skip.add(idx)
                    in_footnote = True
                    continue
                lm = R._LINK_DEF.match(line)
                if lm is not None:
                    label = lm.group("label").strip()
                    body = lm.group("url") + (f' "{lm.group("title")}"' if lm.group("title") else "")
                    definitions.append(R._Entry(label, f"[{label}]", body, "definition"))
                    skip.add(idx)
                    in_footnote = False
                    continue
            if in_footnote and line[:1] in " \t" and line.strip():
                footnotes[-1].text += " " + line.strip()
                skip.add(idx)
                continue
            in_footnote = False
    regions = _reference_find_regions(lines)
    region_entries: list[list[R._Entry]] = []
    for first, end, rest in regions:
        body_lines = [lines[k] for k in range(first + 1, end) if k not in skip]
        if rest:
            pieces = re.split(r"(?=\[\d{1,3}\])", rest)
            body_lines = [p for p in pieces if p.strip()] + body_lines
        region_entries.append(_reference_region_entries(body_lines))
        for k in range(first, end):
            skip.add(k)
    for entries in region_entries:
        for ordinal, entry in enumerate(entries, start=1):
            sources.add(_reference_entry_source(entry, sources, ordinal))
    for entry in footnotes:
        sources.add(_reference_entry_source(entry, sources, 0))
    for entry in definitions:
        source = _reference_entry_source(entry, sources, 0)
        sources.add(source)
        link_defs[entry.id.lower() if entry.id else ""] = source.id
    return skip


def test_source_lists_equal_the_reference() -> None:
    pieces = [
        *_LINE_PIECES,
        "[^1]: Source 1, https://www.iea.org/r",
        "   [^note]: Smith, A. (2019). Title. https://s.org",
        "    [^2]: four blanks",
        "[^3]:",
        "  continued footnote text, accessed May 3, 2025",
        "\tindented",
        '[Label]: https://l.org "A title"',
        " [ref-2]: <www.r.org>",
        "[x]: doi:10.1000/y",
        "[bad]: not a url",
        "[1]: https://one.org",
        "text [1]: inline",
        "]:",
        "[",
        "\u00a0[^4]: non-breaking space before",
        "\u2003[5]: https://em.org",
    ]
    rng = random.Random(27)
    for _ in range(4000):
        lines = [
            "".join(rng.choice(pieces) for _ in range(rng.randint(0, 2))) for _ in range(rng.randint(0, 10))
        ]
        fast_sources, plain_sources = R._Sources(), R._Sources()
        fast_defs: dict[str, str] = {}
        plain_defs: dict[str, str] = {}
        fast = R._source_lists(lines, fast_sources, fast_defs)
        plain = _reference_source_lists(lines, plain_sources, plain_defs)
        assert fast == plain, lines
        assert fast_defs == plain_defs, lines
        assert list(fast_sources.by_id.items()) == list(plain_sources.by_id.items()), lines
        assert fast_sources.by_author == plain_sources.by_author, lines


# --- DOIs: the reading of a DOI as it was ------------------------------------------------------------------


def _reference_normalize_doi(doi: str) -> str | None:
    text = N._strip_prose(unquote(unicodedata.normalize("NFKC", doi)))
    text = N._DOI_PREFIX.sub("", text).strip()
    text = N._strip_prose(text)
    if not N._DOI_START.match(text):
        return None
    return text.lower()


def _reference_find_doi(text: str) -> str | None:
    if "10." not in text and "%" not in text and text.isascii():
        return None
    direct = _reference_normalize_doi(text)
    if direct:
        return direct
    m = N._DOI_ANYWHERE.search(unquote(unicodedata.normalize("NFKC", text)))
    if m is None:
        return None
    return _reference_normalize_doi(N._DOI_URL_END.split(m.group(1), maxsplit=1)[0])


def test_doi_reading_equals_the_reference() -> None:
    pieces = [
        "doi:",
        "DOI :",
        " doi: ",
        "https://doi.org/",
        "http://dx.doi.org/",
        "www.",
        "doi.org/",
        "info:doi/",
        "urn:doi:",
        "10.",
        "1000",
        "12345",
        "/",
        "abc",
        "X.Y",
        "%2F",
        "%31%30.",
        "%",
        "%zz",
        "１０．",
        "．",
        " ",
        "\u00a0",
        "\t",
        ".",
        ",",
        ";",
        ")",
        "(",
        "<",
        ">",
        '"',
        "'",
        "İ",
        "K",
        "ﬁ",
        "?",
        "#",
        "&",
        "é",
    ]
    for text in _texts(pieces, 12000, seed=28, longest=8):
        assert N.normalize_doi(text) == _reference_normalize_doi(text), text
        assert N.find_doi(text) == _reference_find_doi(text), text


def test_doi_found_where_10_is_written_as_a_search_finds_it() -> None:
    pieces = [
        "10.",
        "10",
        "1",
        "0",
        ".",
        "1000/",
        "12345/x",
        "/",
        "a",
        "_",
        " ",
        "%",
        "é",
        "١٠.",
        "x10.",
        "(",
        '"',
    ]
    for text in _texts(pieces, 12000, seed=29, longest=10):
        found, fast = N._DOI_ANYWHERE.search(text), N._doi_anywhere(text)
        assert (found and (found.span(), found.groups())) == (fast and (fast.span(), fast.groups())), text
