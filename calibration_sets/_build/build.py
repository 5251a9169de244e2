"""Build the project's own calibration sets from the hand-written seeds in ``seeds/``.

    .venv/bin/python calibration_sets/_build/build.py            # (re)write the three sets
    .venv/bin/python calibration_sets/_build/build.py --check    # exit 1 if the committed files differ

The output is deterministic: same seeds, same bytes. Variants (URL and DOI spellings, quote typography,
ellipses, report assembly) are derived here; every document, quote, misquote, claim and report sentence is
hand-written in the seed files. The builder asserts the facts each label rests on (a quote is or is not in its
document, a URL variant normalises to the document's URL, a mangled URL does not, ...) and stops with a
message when a seed breaks one of them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
SETS_DIR = HERE.parent
sys.path.insert(0, str(SETS_DIR.parent / "src"))

from graderctl.normalize import normalize_doi, normalize_url  # noqa: E402

SOURCE = "Original samples written for graderctl; licence Apache-2.0 (same as the project)"
GENERATORS = [
    {"model": "gpt-4o-2024-08-06", "provider": "openai"},
    {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"},
    {"model": "llama-3.1-70b-instruct", "provider": "meta"},
    {"model": "gemini-1.5-pro-002", "provider": "google"},
]

SE_GOOD = {
    "exact_citation",
    "url_variant",
    "doi_variant",
    "typographic_quote",
    "ellipsis_quote",
    "source_id_citation",
}
SE_BAD = {
    "fabricated_source",
    "mangled_url",
    "mangled_doi",
    "misquote_number",
    "misquote_word_swap",
    "spliced_quote",
    "quote_from_other_document",
}
CS_GOOD = {"paraphrase", "number_format", "exact_support", "multi_sentence_support", "inline_evidence"}
CS_BAD = {
    "changed_number",
    "changed_date",
    "negation_flip",
    "overgeneralisation",
    "different_entity",
    "correlation_as_cause",
    "unmentioned_claim",
}
COV_GOOD = {"full_coverage", "paraphrased_nuggets", "number_format", "okay_nugget_missing"}
COV_BAD = {"missing_vital_nugget", "padded_missing_nugget", "wrong_fact_in_nugget"}


class SeedError(Exception):
    """A seed breaks a fact its label rests on."""


def fail(where: str, message: str) -> None:
    raise SeedError(f"{where}: {message}")


def clean(text: str) -> str:
    """Seed prose is wrapped for reading; join lines with single spaces (non-breaking spaces are kept)."""
    return re.sub(r"[ \t\r\n]+", " ", text).strip()


_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u00ad": None,
    }
)


def fold(text: str) -> str:
    """Typography-insensitive form, used only to check that a variant really is the same quote."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).translate(_FOLD)).translate(
        _FOLD
    )


def differ(a: str, b: str, seps: str = " ") -> tuple[str, str]:
    """The differing middle of two strings, widened to the separators in ``seps``, for rationales."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    while i > 0 and a[i - 1] not in seps:
        i -= 1
    while j > 0 and a[len(a) - j] not in seps:
        j -= 1
    return a[i : len(a) - j].strip(seps + ",;"), b[i : len(b) - j].strip(seps + ",;")


URL_SEPS = " /-_.?=&"


# --- documents --------------------------------------------------------------------------------------


@dataclass
class Doc:
    n: int
    key: str
    id: str
    url: str
    title: str
    text: str
    doi: str | None
    quotes: list[str]
    ellipsis: list[str]
    num: list[str]
    swap: list[str]
    splice: list[str]
    mangled_url: str | None
    mangled_doi: str | None
    other: str | None
    claims: list[dict[str, Any]] = field(default_factory=list)

    def corpus_line(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "url": self.url}
        if self.doi:
            out["doi"] = self.doi
        out["title"] = self.title
        out["text"] = self.text
        return out


def load_docs() -> list[Doc]:
    docs: list[Doc] = []
    for path in sorted(SEEDS.glob("documents_*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for raw in data["doc"]:
            docs.append(
                Doc(
                    n=len(docs) + 1,
                    key=raw["key"],
                    id=raw["id"],
                    url=raw["url"],
                    title=raw["title"],
                    text=clean(raw["text"]),
                    doi=raw.get("doi"),
                    quotes=raw["quotes"],
                    ellipsis=raw["ellipsis"],
                    num=raw["num"],
                    swap=raw["swap"],
                    splice=raw["splice"],
                    mangled_url=raw.get("mangled_url"),
                    mangled_doi=raw.get("mangled_doi"),
                    other=raw.get("other"),
                    claims=raw.get("claim", []),
                )
            )
    check_docs(docs)
    return docs


def check_docs(docs: list[Doc]) -> None:
    keys = [d.key for d in docs]
    ids = [d.id for d in docs]
    for name, values in (("key", keys), ("id", ids)):
        dupes = {v for v in values if values.count(v) > 1}
        if dupes:
            fail("documents", f"duplicate {name}s {sorted(dupes)}")
    by_url = {normalize_url(d.url): d.key for d in docs}
    if len(by_url) != len(docs):
        fail("documents", "two documents share a normalised URL")
    by_key = {d.key: d for d in docs}
    all_dois = {normalize_doi(d.doi) for d in docs if d.doi}
    for d in docs:
        where = f"document {d.key!r}"
        n_sent = len(re.findall(r"[.!?](?:\s|$)", d.text))
        if not 8 <= n_sent <= 34:
            fail(where, f"has {n_sent} sentences; expected 8-30ish")
        for q in d.quotes:
            if q not in d.text:
                fail(where, f"quote not in text: {q!r}")
        a, b = d.ellipsis
        ia, ib = d.text.find(a), d.text.find(b)
        if ia < 0 or ib < 0:
            fail(where, f"ellipsis fragment not in text: {a if ia < 0 else b!r}")
        if ib < ia + len(a) + 2:
            fail(where, "ellipsis fragments must be in order with some text omitted between them")
        for pair, label in ((d.num, "num"), (d.swap, "swap")):
            orig, mis = pair
            if orig not in d.text:
                fail(where, f"{label} original not in text: {orig!r}")
            if mis == orig or fold(mis) in fold(d.text):
                fail(where, f"{label} misquote is in the text: {mis!r}")
        a, b = d.splice
        ia, ib = d.text.find(a), d.text.find(b)
        if ia < 0 or ib < 0:
            fail(where, f"splice fragment not in text: {a if ia < 0 else b!r}")
        joined = f"{a} {b}"
        if fold(joined) in fold(d.text):
            fail(where, "spliced quote occurs verbatim")
        gap = d.text[ia + len(a) : ib] if ib > ia else "x" * 10
        if len(re.findall(r"\w", gap)) < 3:
            fail(where, "splice fragments are adjacent: nothing is left out between them")
        if d.mangled_url and normalize_url(d.mangled_url) in by_url:
            fail(where, "mangled URL normalises to a corpus URL")
        if d.mangled_doi and normalize_doi(d.mangled_doi) in all_dois:
            fail(where, "mangled DOI is a corpus DOI")
        if not (d.mangled_url or d.mangled_doi):
            fail(where, "needs mangled_url or mangled_doi")
        if d.other:
            if d.other not in by_key or d.other == d.key:
                fail(where, f"unknown other document {d.other!r}")
            borrowed = by_key[d.other].quotes[-1]
            if fold(borrowed) in fold(d.text):
                fail(where, f"the borrowed quote of {d.other!r} also occurs in this document")
        for c in d.claims:
            cat = c["cat"]
            if cat not in CS_GOOD | CS_BAD:
                fail(where, f"unknown claim category {cat!r}")
            for t in c.get("inline", []):
                if t not in d.text:
                    fail(where, f"inline evidence not in text: {t[:60]!r}")
            if cat == "inline_evidence" and not c.get("inline"):
                fail(where, "an inline_evidence claim needs `inline`")
            if cat != "inline_evidence" and cat in CS_GOOD and c.get("inline"):
                fail(where, "a good claim with inline evidence must have category inline_evidence")


# --- URL, DOI and quote variants ------------------------------------------------------------------

Variant = tuple[str, str]


def _split(url: str) -> tuple[str, str, str, str, str]:
    p = urlsplit(url)
    return p.scheme, p.netloc, p.path, p.query, p.fragment


def _utm(url: str) -> Variant | None:
    sep = "&" if "?" in url else "?"
    return url + f"{sep}utm_source=chatgpt.com", "adds a utm_source=chatgpt.com tracking parameter"


def _utm_campaign(url: str) -> Variant | None:
    sep = "&" if "?" in url else "?"
    return (
        url + f"{sep}utm_medium=email&utm_campaign=weekly-briefing",
        "adds newsletter tracking parameters (utm_medium, utm_campaign)",
    )


def _http(url: str) -> Variant | None:
    if not url.startswith("https://"):
        return None
    return "http://" + url[len("https://") :], "uses http:// instead of https://"


def _www(url: str) -> Variant | None:
    s, host, path, q, f = _split(url)
    if host.startswith("www."):
        return urlunsplit((s, host[4:], path, q, f)), "drops the leading 'www.'"
    if host.count(".") == 1:
        return urlunsplit((s, "www." + host, path, q, f)), "adds a leading 'www.'"
    return None


def _slash(url: str) -> Variant | None:
    s, host, path, q, f = _split(url)
    if q or f:
        return None
    if path.endswith("/"):
        return urlunsplit((s, host, path.rstrip("/"), q, f)), "drops the trailing slash"
    if "." in path.rsplit("/", 1)[-1]:
        return None  # a file name: a trailing slash would name a different resource
    return urlunsplit((s, host, path + "/", q, f)), "adds a trailing slash"


def _fragment(url: str) -> Variant | None:
    if "#" in url:
        return None
    return url + "#key-findings", "adds a #key-findings fragment"


def _text_fragment(url: str) -> Variant | None:
    if "#" in url:
        return None
    return (
        url + "#:~:text=Key%20findings",
        "adds a #:~:text= highlight fragment (as copied from a search result)",
    )


def _port(url: str) -> Variant | None:
    s, host, path, q, f = _split(url)
    if s != "https" or ":" in host:
        return None
    return urlunsplit((s, host + ":443", path, q, f)), "spells out the default port :443"


def _percent(url: str) -> Variant | None:
    s, host, path, q, f = _split(url)
    if "%" in path:
        return urlunsplit((s, host, unquote(path), q, f)), "writes the percent-encoded characters decoded"
    if any(ord(ch) > 127 for ch in path):
        return urlunsplit((s, host, quote(path, safe="/"), q, f)), "percent-encodes the non-ASCII characters"
    return None


def _percent_lower(url: str) -> Variant | None:
    if not re.search(r"%[0-9A-F]{2}", url):
        return None
    return re.sub(
        r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), url
    ), "writes the percent-escapes in lower case"


def _query_order(url: str) -> Variant | None:
    s, host, path, q, f = _split(url)
    parts = q.split("&") if q else []
    if len(parts) < 2:
        return None
    return urlunsplit(
        (s, host, path, "&".join(reversed(parts)), f)
    ), "lists the query parameters in another order"


def _index(url: str) -> Variant | None:
    if not url.endswith("/index.html"):
        return None
    return url[: -len("index.html")], "omits the index.html file name"


def _combo(url: str) -> Variant | None:
    a = _http(url)
    b = _www(a[0]) if a else None
    if not (a and b):
        return None
    c = _utm(b[0])
    assert c is not None
    return c[0], "uses http://, toggles 'www.' and adds a utm_source parameter"


SPECIAL_URL_VARIANTS: list[Callable[[str], Variant | None]] = [_percent, _query_order, _index]
URL_VARIANTS: list[Callable[[str], Variant | None]] = [
    _utm,
    _http,
    _www,
    _slash,
    _fragment,
    _port,
    _combo,
    _utm_campaign,
    _text_fragment,
    _percent_lower,
]


def url_variant(url: str, k: int, *, special_first: bool = False) -> Variant:
    order = list(URL_VARIANTS[k % len(URL_VARIANTS) :] + URL_VARIANTS[: k % len(URL_VARIANTS)])
    if special_first:
        order = SPECIAL_URL_VARIANTS + order
    for fn in order:
        got = fn(url)
        if got and got[0] != url and normalize_url(got[0]) == normalize_url(url):
            return got
    raise SeedError(f"no URL variant applies to {url}")


def doi_variant(doi: str, k: int) -> tuple[str, str, str]:
    """(field, value, description)"""
    options = [
        ("doi", f"doi:{doi}", "writes it with a doi: prefix"),
        ("doi", f"https://doi.org/{doi}", "writes it as a https://doi.org/ link"),
        ("doi", doi.upper(), "writes it in upper case (DOIs are case-insensitive)"),
        ("url", f"https://doi.org/{doi}", "gives the DOI as a https://doi.org/ link in the url field"),
        ("doi", f"DOI: {doi}", "writes it with a 'DOI: ' label"),
        ("doi", f"https://dx.doi.org/{doi}", "writes it as a legacy dx.doi.org link"),
    ]
    fieldname, value, desc = options[k % len(options)]
    if value == doi or normalize_doi(value) != normalize_doi(doi):
        fieldname, value, desc = options[0]
    return fieldname, value, desc


_APOS = re.compile(r"(?<=\w)'(?=\w)")
_SQUOTED = re.compile(r"(?<![\w])'([^']+?)'(?![\w])")


def _t_curly_apostrophe(q: str) -> Variant | None:
    if not _APOS.search(q):
        return None
    return _APOS.sub("\u2019", q), "straight apostrophes written as curly ones (\u2019)"


def _t_curly_quotes(q: str) -> Variant | None:
    if not _SQUOTED.search(q):
        return None
    out = _SQUOTED.sub(lambda m: f"\u2018{m.group(1)}\u2019", q)
    return _APOS.sub("\u2019", out), "straight quotation marks written as curly ones (\u2018 \u2019)"


def _t_straighten(q: str) -> Variant | None:
    table = {"\u2013": "-", "\u2014": "-", "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}
    if not any(ch in q for ch in table):
        return None
    return "".join(
        table.get(ch, ch) for ch in q
    ), "the document's typographic dashes/quotes typed as plain ASCII"


def _t_en_dash(q: str) -> Variant | None:
    if not re.search(r"\d-\d", q):
        return None
    return re.sub(r"(?<=\d)-(?=\d)", "\u2013", q), "a hyphen between numbers written as an en dash (\u2013)"


def _t_nbsp(q: str) -> Variant | None:
    m = re.search(r"(?<=\d) (?=\S)", q)
    if not m:
        return None
    i = m.start()
    return q[:i] + "\u00a0" + q[
        i + 1 :
    ], "a non-breaking space (U+00A0) after a number, as copied from a web page"


def _t_soft_hyphen(q: str) -> Variant | None:
    words = [w for w in re.findall(r"[A-Za-z]{9,}", q)]
    if not words:
        return None
    w = max(words, key=len)
    cut = len(w) // 2
    return q.replace(w, w[:cut] + "\u00ad" + w[cut:], 1), f"an invisible soft hyphen (U+00AD) inside '{w}'"


def _t_nb_hyphen(q: str) -> Variant | None:
    if not re.search(r"[A-Za-z]-[A-Za-z]", q):
        return None
    return re.sub(
        r"(?<=[A-Za-z])-(?=[A-Za-z])", "\u2011", q, count=1
    ), "a hyphen written as a non-breaking hyphen (U+2011)"


def _t_nfd(q: str) -> Variant | None:
    out = unicodedata.normalize("NFD", q)
    if out == q:
        return None
    return out, "accented letters in decomposed Unicode form (NFD), as pasted from some systems"


def _t_em_dash(q: str) -> Variant | None:
    if " - " not in q:
        return None
    return q.replace(" - ", " \u2014 ", 1), "a spaced hyphen written as an em dash"


TYPO_VARIANTS: list[Callable[[str], Variant | None]] = [
    _t_curly_apostrophe,
    _t_nbsp,
    _t_straighten,
    _t_curly_quotes,
    _t_soft_hyphen,
    _t_en_dash,
    _t_nb_hyphen,
    _t_nfd,
    _t_em_dash,
]


def typo_variant(quotes: list[str], k: int) -> tuple[str, str, str]:
    """(original quote, variant, description), preferring a transformation that actually applies."""
    order = TYPO_VARIANTS[k % len(TYPO_VARIANTS) :] + TYPO_VARIANTS[: k % len(TYPO_VARIANTS)]
    # Document-native typography and diacritics are the most telling cases: try them first.
    order = [_t_straighten, _t_nfd] + [t for t in order if t not in (_t_straighten, _t_nfd)]
    if k % 2:
        order = order[2:] + order[:2]
    for fn in order:
        for q in quotes:
            got = fn(q)
            if got and got[0] != q and fold(got[0]) == fold(q):
                return q, got[0], got[1]
    raise SeedError(f"no typographic variant applies to {quotes}")


ELLIPSES = [" ... ", " \u2026 ", " [...] ", "... ", " \u2026"]


# --- sample helpers -----------------------------------------------------------------------------------


def sample(label: str, category: str, group: str, rationale: str, inp: dict[str, Any]) -> dict[str, Any]:
    return {"label": label, "category": category, "group": group, "rationale": rationale, "input": inp}


def finish(prefix: str, samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number the samples and give about a third of them a generator, spread over both labels."""
    out: list[dict[str, Any]] = []
    for i, s in enumerate(samples):
        row: dict[str, Any] = {"id": f"{prefix}-{i + 1:04d}", "label": s["label"], "category": s["category"]}
        row["group"] = s["group"]
        row["rationale"] = s["rationale"]
        if i % 3 == 1:
            row["generator"] = GENERATORS[(i // 3) % len(GENERATORS)]
        if s.get("labels"):
            row["labels"] = s["labels"]
        row["input"] = s["input"]
        out.append(row)
    return out


def citation(**fields: str | None) -> dict[str, Any]:
    order = ("source_id", "url", "doi", "title", "quote")
    return {"citation": {k: fields[k] for k in order if fields.get(k)}}


# --- source-existence-core ----------------------------------------------------------------------------


def where_of(d: Doc) -> str:
    return f"corpus document {d.id} ({d.url})"


def ident(d: Doc, j: int) -> tuple[dict[str, str | None], str]:
    """The j-th of several ways to name document ``d`` in a citation, and how a rationale describes it."""
    forms = ["url", "source_id", "url_variant", "doi" if d.doi else "url_title"]
    form = forms[j % len(forms)]
    if form == "url":
        return {"url": d.url, "title": d.title}, f"The URL is that of {where_of(d)}"
    if form == "url_title":
        return {"url": d.url}, f"The URL is that of {where_of(d)}"
    if form == "source_id":
        return {"source_id": d.id}, f"The source_id names corpus document {d.id}"
    if form == "doi":
        return {"doi": d.doi, "title": d.title}, f"The DOI {d.doi} is that of corpus document {d.id}"
    v, desc = url_variant(d.url, j + 7)
    return {"url": v}, f"The URL is {where_of(d)} written differently (it {desc})"


def build_source_existence(docs: list[Doc], fabricated: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key = {d.key: d for d in docs}
    out: list[dict[str, Any]] = []
    for d in docs:
        g = f"se-seed-{d.n:02d}"
        k = d.n
        where = where_of(d)

        # exact citation
        if d.doi and k % 2 == 0:
            cit = citation(doi=d.doi, title=d.title, quote=d.quotes[0])
            lead = f"The DOI {d.doi} and title are those of corpus document {d.id}"
        else:
            cit = citation(url=d.url, title=d.title, quote=d.quotes[0])
            lead = f"The URL and title are those of {where}"
        out.append(
            sample("good", "exact_citation", g, f"{lead}, and the quote appears verbatim in its text.", cit)
        )
        # source id
        out.append(
            sample(
                "good",
                "source_id_citation",
                g,
                f"Cites corpus document {d.id} by source_id; the quote appears verbatim in its text.",
                citation(source_id=d.id, quote=d.quotes[1]),
            )
        )
        # URL variant
        v, desc = url_variant(d.url, k, special_first=True)
        with_quote = k % 2 == 1
        cit = citation(url=v, title=d.title if k % 3 else None, quote=d.quotes[2] if with_quote else None)
        rat = f"Same page as {where}: the cited URL only {desc}."
        if with_quote:
            rat += " The quote appears verbatim in the document."
        out.append(sample("good", "url_variant", g, rat, cit))
        # DOI variant
        if d.doi:
            fieldname, value, desc = doi_variant(d.doi, k)
            cit = citation(**{fieldname: value, "title": d.title})
            out.append(
                sample(
                    "good",
                    "doi_variant",
                    g,
                    f"Names corpus document {d.id} (DOI {d.doi}); the citation only {desc}.",
                    cit,
                )
            )
        # typography
        orig, variant, desc = typo_variant(d.quotes, k)
        idf, lead = ident(d, k)
        out.append(
            sample(
                "good",
                "typographic_quote",
                g,
                f"{lead}. The quote is the document's sentence '{orig}' with only a typographic difference: "
                f"{desc}. Same words, same order.",
                citation(**idf, quote=variant),
            )
        )
        # ellipsis
        a, b = d.ellipsis
        sep = ELLIPSES[k % len(ELLIPSES)]
        if sep == " \u2026":  # trailing form: "a … b" with the ellipsis attached to the first fragment
            sep = "\u2026 "
        idf, lead = ident(d, k + 1)
        out.append(
            sample(
                "good",
                "ellipsis_quote",
                g,
                f"{lead}. The quote joins two fragments that appear in this order in the document, "
                f"marking the omitted words with an ellipsis ('{sep.strip()}').",
                citation(**idf, quote=f"{a}{sep}{b}"),
            )
        )
        # an identifier-only citation for every third document
        if k % 3 == 0:
            if d.doi:
                cit, lead = citation(doi=d.doi), f"The DOI {d.doi} is that of corpus document {d.id}"
            else:
                cit, lead = citation(url=d.url), f"The URL is that of {where}"
            out.append(
                sample(
                    "good", "exact_citation", g, f"{lead}; no quote is given, so nothing else to check.", cit
                )
            )

        # --- bad ---
        if d.mangled_url:
            was, now = differ(unquote(d.url), unquote(d.mangled_url), URL_SEPS)
            cit = citation(
                url=d.mangled_url, title=d.title if k % 2 else None, quote=d.quotes[0] if k % 3 == 0 else None
            )
            out.append(
                sample(
                    "bad",
                    "mangled_url",
                    g,
                    f"The corpus has this document at {d.url}; the cited URL has '{now}' where the real "
                    "one has "
                    f"'{was}', so the link points at a page that is not in the corpus.",
                    cit,
                )
            )
        if d.mangled_doi:
            assert d.doi is not None
            was, now = differ(d.doi, d.mangled_doi, URL_SEPS)
            out.append(
                sample(
                    "bad",
                    "mangled_doi",
                    g,
                    f"The corpus document's DOI is {d.doi}; the cited DOI has '{now}' where the real one has "
                    f"'{was}', so it resolves to no document in the corpus.",
                    citation(doi=d.mangled_doi, title=d.title if k % 2 == 0 else None),
                )
            )
        for j, (cat, pair) in enumerate((("misquote_number", d.num), ("misquote_word_swap", d.swap))):
            orig, mis = pair
            was, now = differ(orig, mis)
            idf, lead = ident(d, k + 2 + j)
            kind = "number" if cat == "misquote_number" else "word"
            out.append(
                sample(
                    "bad",
                    cat,
                    g,
                    f"{lead}, but the quote is not in it: the document says '{orig}', and the quote "
                    "changes the "
                    f"{kind} '{was}' to '{now}'.",
                    citation(**idf, quote=mis),
                )
            )
        a, b = d.splice
        idf, lead = ident(d, k + 3)
        out.append(
            sample(
                "bad",
                "spliced_quote",
                g,
                f"{lead}, but the quote does not occur in it: '{a}' and '{b}' come from different "
                "places in the "
                "document and are joined as one passage without an ellipsis.",
                citation(**idf, quote=f"{a} {b}"),
            )
        )
        if d.other:
            o = by_key[d.other]
            borrowed = o.quotes[-1]
            idf, lead = ident(d, k + (0 if k % 2 else 3))
            out.append(
                sample(
                    "bad",
                    "quote_from_other_document",
                    g,
                    f"{lead}, but the quote is not in it; it comes from a different corpus document, {o.id} "
                    f"('{o.title}').",
                    citation(**idf, quote=borrowed),
                )
            )

    corpus_urls = {normalize_url(d.url) for d in docs}
    corpus_dois = {normalize_doi(d.doi) for d in docs if d.doi}
    for i, f in enumerate(fabricated, start=1):
        where = f"fabricated source {i}"
        if f.get("url") and normalize_url(f["url"]) in corpus_urls:
            fail(where, "its URL is in the corpus")
        if f.get("doi") and normalize_doi(f["doi"]) in corpus_dois:
            fail(where, "its DOI is in the corpus")
        if not (f.get("url") or f.get("doi")):
            fail(where, "needs a url or a doi")
        what = " and ".join(x for x in ("url", "doi") if f.get(x))
        ident_text = f.get("url") or f.get("doi")
        out.append(
            sample(
                "bad",
                "fabricated_source",
                f"se-fab-{i:02d}",
                f"No corpus document has this {what} ({ident_text}) or the title '{f['title']}'; {f['why']}",
                citation(url=f.get("url"), doi=f.get("doi"), title=f["title"], quote=f.get("quote")),
            )
        )
    return finish("se", out)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9'‘“])")


def best_sentence(text: str, claim: str) -> str:
    """The document sentence sharing the most words with the claim (to show the support in a rationale)."""
    words = set(re.findall(r"\w+", claim.lower()))
    sentences = _SENTENCE_END.split(text)
    return max(sentences, key=lambda s: len(words & set(re.findall(r"\w+", s.lower()))))


def build_claim_support(docs: list[Doc]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for d in docs:
        g = f"cs-seed-{d.n:02d}"
        for c in d.claims:
            cat = c["cat"]
            label = "good" if cat in CS_GOOD else "bad"
            inline = c.get("inline")
            evidence = [{"text": t} for t in inline] if inline else [{"source_id": d.id}]
            why = c["why"]
            if why.startswith("Stated"):
                why += f" The document: '{best_sentence(d.text, c['claim'])}'"
            out.append(sample(label, cat, g, why, {"claim": c["claim"], "evidence": evidence}))
    return finish("cs", out)


# --- coverage-core --------------------------------------------------------------------------------------

MIN_WORDS, MAX_WORDS = 120, 350
PAD_TO = 160  # filler is added until a report reaches about this length


def load_coverage_seeds() -> list[dict[str, Any]]:
    seeds: list[dict[str, Any]] = []
    for path in sorted(SEEDS.glob("coverage_*.toml")):
        seeds.extend(tomllib.loads(path.read_text(encoding="utf-8"))["seed"])
    keys = [s["key"] for s in seeds]
    if len(set(keys)) != len(keys):
        fail("coverage seeds", "duplicate keys")
    for s in seeds:
        where = f"coverage seed {s['key']!r}"
        vital = [n for n in s["nugget"] if n["importance"] == "vital"]
        if len(vital) < 2 or len(vital) == len(s["nugget"]):
            fail(where, "needs at least two vital nuggets and at least one okay nugget")
        if not any(n.get("numfmt") for n in s["nugget"]):
            fail(where, "needs a numfmt sentence on at least one nugget")
        if len(s["filler"]) < 3:
            fail(where, "needs at least three filler sentences")
        for n in s["nugget"]:
            for f in ("direct", "para", "wrong", "wrong_note"):
                if not n.get(f):
                    fail(where, f"nugget {n['text']!r} lacks {f}")
            if len({n["direct"], n["para"], n["wrong"], n.get("numfmt", "")}) < 3 + bool(n.get("numfmt")):
                fail(where, f"nugget {n['text']!r} repeats a sentence across variants")
    return seeds


def _report(seed: dict[str, Any], sentences: list[str], fillers: list[str]) -> str:
    """Intro and the first two nugget sentences, then the rest with filler, then the close."""
    extra = [f for f in seed["filler"] if f not in fillers]
    while True:
        body = sentences + fillers
        paras = [" ".join([seed["intro"], *body[:2]]), " ".join(body[2:]), seed["close"]]
        text = "\n\n".join(p for p in paras if p)
        if seed.get("sources"):
            text += "\n\n" + seed["sources"]
        words = len(text.split())
        if words >= PAD_TO or not extra:
            break
        fillers = [*fillers, extra.pop(0)]
    if not MIN_WORDS <= words <= MAX_WORDS:
        fail(
            f"coverage seed {seed['key']!r}", f"a report has {words} words; expected {MIN_WORDS}-{MAX_WORDS}"
        )
    return text


def build_coverage(seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, seed in enumerate(seeds, start=1):
        g = f"cov-seed-{n:02d}"
        nug = seed["nugget"]
        vital = [i for i, x in enumerate(nug) if x["importance"] == "vital"]
        okay = [i for i, x in enumerate(nug) if x["importance"] == "okay"]
        fil = seed["filler"]
        nuggets = [{"text": x["text"], "importance": x["importance"]} for x in nug]
        nug = [{**x, "text": x["text"].rstrip(".")} for x in nug]  # rationales quote nuggets mid-sentence

        def add(
            label: str,
            cat: str,
            rationale: str,
            sentences: list[str],
            fillers: list[str],
            seed: dict[str, Any] = seed,
            nuggets: list[dict[str, str]] = nuggets,
            g: str = g,
        ) -> None:
            report = _report(seed, sentences, fillers)
            inp = {"question": seed["question"], "nuggets": nuggets, "report": report}
            out.append(sample(label, cat, g, rationale, inp))

        vital_list = "; ".join(f"'{nug[i]['text']}'" for i in vital)
        add(
            "good",
            "full_coverage",
            f"Every nugget is stated explicitly, including all vital ones: {vital_list}.",
            [x["direct"] for x in nug],
            [fil[0]],
        )
        shown = vital[n % len(vital)]
        add(
            "good",
            "paraphrased_nuggets",
            "Every nugget is present in other words; for example the vital nugget "
            f"'{nug[shown]['text']}' appears as '{nug[shown]['para']}'.",
            [x["para"] for x in nug],
            [fil[1]],
        )
        fmt = next(i for i in [*vital, *okay] if nug[i].get("numfmt"))
        add(
            "good",
            "number_format",
            f"Every nugget is present; '{nug[fmt]['text']}' is written with the numbers in another format: "
            f"'{nug[fmt]['numfmt']}'.",
            [x.get("numfmt") or x["direct"] for x in nug],
            [fil[2]],
        )
        dropped_okay = "; ".join(f"'{nug[i]['text']}'" for i in okay)
        add(
            "good",
            "okay_nugget_missing",
            f"All vital nuggets are present ({vital_list}); only the okay nugget {dropped_okay} is left out, "
            "which a good report may do.",
            [nug[i]["para"] if k % 2 else nug[i]["direct"] for k, i in enumerate(vital)],
            [fil[0], fil[-1]],
        )
        miss = vital[n % len(vital)]
        add(
            "bad",
            "missing_vital_nugget",
            f"The vital nugget '{nug[miss]['text']}' is not in the report; the other nuggets are.",
            [x["direct"] for i, x in enumerate(nug) if i != miss],
            [fil[0], fil[1]],
        )
        if len(vital) >= 3:
            miss2 = vital[(n + 1) % len(vital)]
            add(
                "bad",
                "missing_vital_nugget",
                f"The vital nugget '{nug[miss2]['text']}' is not in the report; the other nuggets are "
                "present "
                "(paraphrased).",
                [x["para"] for i, x in enumerate(nug) if i != miss2],
                [fil[2]],
            )
        order = vital[(n + 2) % len(vital) :] + vital[: (n + 2) % len(vital)]
        pad = next((i for i in order if nug[i].get("near")), order[0])
        near = nug[pad].get("near")
        sentences = [near if i == pad else x["direct"] for i, x in enumerate(nug) if i != pad or near]
        rationale = f"The report never states the vital nugget '{nug[pad]['text']}'"
        if near:
            rationale += f"; the nearby sentence '{near}' touches its topic without giving the key fact"
        rationale += ", and the rest is on-topic padding."
        add("bad", "padded_missing_nugget", rationale, sentences, list(fil))
        wrong = vital[(n + 1) % len(vital)]
        add(
            "bad",
            "wrong_fact_in_nugget",
            f"The report addresses the vital nugget '{nug[wrong]['text']}' but {nug[wrong]['wrong_note']}: "
            f"'{nug[wrong]['wrong']}'.",
            [nug[wrong]["wrong"] if i == wrong else x["direct"] for i, x in enumerate(nug)],
            [fil[1]],
        )
    add_labellers(out)
    return out


_DISSENT = {
    "okay_nugget_missing": (
        "c",
        "bad",
        "Labeller c marked it bad, treating the missing okay nugget as essential",
    ),
    "padded_missing_nugget": (
        "c",
        "good",
        "Labeller c marked it good, reading the related sentence as coverage",
    ),
    "paraphrased_nuggets": ("b", "bad", "Labeller b marked it bad, finding one paraphrase too loose"),
    "wrong_fact_in_nugget": ("b", "good", "Labeller b marked it good, having overlooked the wrong figure"),
}


def add_labellers(samples: list[dict[str, Any]], *, every: int = 7, max_dissent: int = 7) -> None:
    """Give about one sample in seven individual labels (two or three labellers), with a few honest
    disagreements on the categories where people do disagree; the sample's label is always the majority."""
    dissent = 0
    for i, s in enumerate(samples):
        if i % every != 2:
            continue
        label = s["label"]
        who = ["a", "b"] if (i // every) % 3 == 0 else ["a", "b", "c"]
        labels = [{"labeler": w, "label": label} for w in who]
        d = _DISSENT.get(s["category"])
        if d and len(who) == 3 and dissent < max_dissent:
            labeller, other, note = d
            assert other != label
            labels = [{"labeler": w, "label": other if w == labeller else label} for w in who]
            s["rationale"] += f" {note}; the majority label is {label}."
            dissent += 1
        s["labels"] = labels


# --- writing --------------------------------------------------------------------------------------------


def jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


#: Bump a set's version when a released set changes (its fingerprint changes with any seed edit).
VERSIONS = {"source-existence-core": 1, "claim-support-core": 1, "coverage-core": 1}


def manifest(name: str, check: str, description: str, policy: tuple[float, float, float]) -> str:
    fa, fr, er = policy
    desc = description.replace('"', '\\"')
    return (
        "schema_version = 1\n"
        f'name = "{name}"\n'
        f"version = {VERSIONS[name]}\n"
        f'check = "{check}"\n'
        f'description = "{desc}"\n'
        f'source = "{SOURCE}"\n'
        'licence = "Apache-2.0"\n'
        "\n"
        "[policy]\n"
        f"max_false_accept_rate = {fa}\n"
        f"max_false_reject_rate = {fr}\n"
        f"max_error_rate = {er}\n"
    )


SE_DESCRIPTION = (
    "Citations as research agents write them (URL, DOI or corpus id, title, optional quote), resolved "
    "against "
    "a corpus of 45 invented source pages. Good: exact citations and the harmless variants naive rules "
    "reject "
    "(URL and DOI spellings, typographic quotes, ellipses, source ids). Bad: fabricated sources, mangled "
    "URLs/DOIs, misquoted numbers and words, spliced quotes, quotes taken from another document."
)
CS_DESCRIPTION = (
    "Claims checked against a cited corpus document (or inline evidence text). Good: paraphrases, number "
    "formats, exact and two-sentence support, inline evidence. Bad: changed numbers and dates, negation "
    "flips, "
    "overgeneralisation, wrong entities, correlation stated as cause, claims the source does not mention."
)
COV_DESCRIPTION = (
    "Research reports (120-350 words) against a question and its nuggets (vital/okay). Good: every vital "
    "nugget present, directly, paraphrased or with numbers written differently, possibly without okay "
    "nuggets. "
    "Bad: a vital nugget missing (also under on-topic padding) or stated with the wrong key fact."
)


def render() -> dict[Path, str]:
    docs = load_docs()
    fabricated = tomllib.loads((SEEDS / "fabricated_sources.toml").read_text(encoding="utf-8"))["source"]
    corpus = jsonl(d.corpus_line() for d in docs)
    files: dict[Path, str] = {}
    se = SETS_DIR / "source-existence-core"
    files[se / "manifest.toml"] = manifest(
        "source-existence-core", "source_existence", SE_DESCRIPTION, (0.05, 0.10, 0.01)
    )
    files[se / "samples.jsonl"] = jsonl(build_source_existence(docs, fabricated))
    files[se / "corpus.jsonl"] = corpus
    cs = SETS_DIR / "claim-support-core"
    files[cs / "manifest.toml"] = manifest(
        "claim-support-core", "claim_support", CS_DESCRIPTION, (0.10, 0.20, 0.01)
    )
    files[cs / "samples.jsonl"] = jsonl(build_claim_support(docs))
    files[cs / "corpus.jsonl"] = corpus
    cov = SETS_DIR / "coverage-core"
    files[cov / "manifest.toml"] = manifest("coverage-core", "coverage", COV_DESCRIPTION, (0.10, 0.20, 0.01))
    files[cov / "samples.jsonl"] = jsonl(finish("cov", build_coverage(load_coverage_seeds())))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    args = parser.parse_args(argv)
    try:
        files = render()
    except SeedError as exc:
        print(f"seed error: {exc}", file=sys.stderr)
        return 2
    stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for p in stale:
            print(f"out of date: {p.relative_to(SETS_DIR.parent)}", file=sys.stderr)
        return 1 if stale else 0
    for p, text in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    for p in sorted(files):
        print(f"wrote {p.relative_to(SETS_DIR.parent)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
