"""Throughput of the built-in rule-based grader kinds on one core (prints figures; not a test).

    .venv/bin/python benchmarks/graders.py [--docs 100000] [--citations 50000] [--claims 2000]
                                           [--nuggets 5000] [--only source_existence,claim_support,coverage]

- source_existence: citations per second against a generated corpus of ``--docs`` documents (default 100,000,
  ~1.2 kB each, with URLs and DOIs). A mix like real agent output (``MIX``, printed): most quotes verbatim or
  typographic variants (exact path), some altered (fuzzy path), some fabricated URLs, DOI and URL-variant
  citations. Reported: the one-off index builds (the corpus's id/URL/DOI index; the grader's normalised text
  of every document and its title index, built up front by ``prepare()``), a first pass (token indexes built
  for the documents whose quotes need the fuzzy path), then warm passes (the steady state of a scoring run):
  the whole mix (median of three) and each category. The mix is timed twice: as is, and with the loaded
  corpus and citations frozen from the cyclic garbage collector as ``graderctl calibrate`` runs (without it, a
  pass may include a full collection over every loaded object). Target: >= 20,000 citations/s for the mix.
  Figures on a shared machine vary by tens of percent from run to run; citations of one category graded in a
  row run faster than the same citations interleaved (the mix), which is why the mix is timed as a whole.
- claim_support: claims per second, each claim citing an evidence page of 80 sentences (only when the kind is
  installed). Reported: new pages (a freshly generated page for every claim, so the timing includes indexing
  it; median and range of 3 passes, each with its own pages; target >= 300 claims/s), repeated pages (the
  same claims again, their pages already indexed; median of 3), and pages cited by about 4 claims each.
- coverage: nugget checks per second, five nuggets per ~10-sentence report. Target: >= 1,000/s.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.models.calset import (  # noqa: E402
    ClaimSupportInput,
    CorpusDocument,
    CoverageInput,
    SourceExistenceInput,
)
from graderctl.plugin import Corpus, GraderKind, GradingContext, kinds  # noqa: E402

_COMMON_TEXT = (
    "the a of and to in for on with by from at as market study report growth revenue company companies "
    "researchers found that increased decreased percent million billion year years new data model agent "
    "results show analysis survey users customers government policy energy climate health hospital "
    "patients trial vaccine school students teachers city council budget water river bridge road "
    "technology software hardware chips battery electric vehicles sales profit loss quarter annual "
    "according officials said announced reported estimated expected rose fell doubled tripled"
)
_COMMON = _COMMON_TEXT.split()
_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "tor",
    "vu",
    "sa",
    "zel",
    "dri",
    "pon",
    "gal",
    "mer",
    "tis",
    "on",
    "bra",
)
#: Rarer words (names, terms) so that texts and titles are not all alike.
_RARE = sorted({a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES})


def _word(rng: random.Random) -> str:
    return rng.choice(_RARE) if rng.random() < 0.3 else rng.choice(_COMMON)


def _sentence(rng: random.Random) -> str:
    words = [_word(rng) for _ in range(rng.randint(10, 22))]
    if rng.random() < 0.5:
        words.insert(rng.randrange(len(words)), str(rng.randint(2, 2030)))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def make_corpus(n: int, rng: random.Random, sentences: int = 8) -> list[CorpusDocument]:
    docs = []
    for i in range(n):
        text = " ".join(_sentence(rng) for _ in range(sentences))
        docs.append(
            CorpusDocument(
                id=f"doc-{i}",
                url=f"https://www.site{i % 997}.example/news/{i}/story-{i * 7 % 1000}",
                doi=f"10.{1000 + i % 9000}/bench.{i}" if i % 5 == 0 else None,
                title=" ".join(_word(rng) for _ in range(6)).title(),
                text=text,
            )
        )
    return docs


def _typographic(quote: str) -> str:
    return "“" + quote.replace(" ", "  ", 2).replace("a", "a", 1) + "”"


#: The citation mix: (category, share). Most citations an agent writes resolve and quote verbatim or with
#: typographic variation (the exact path); altered quotes and fabricated URLs take the slower paths.
MIX = (
    ("verbatim_by_id", 0.45),
    ("typographic_by_url", 0.20),
    ("verbatim_by_doi", 0.05),
    ("ellipsis_by_id", 0.05),
    ("no_quote", 0.05),
    ("altered_quote", 0.10),
    ("fabricated_url", 0.10),
)


def make_citation(doc: CorpusDocument, category: str, rng: random.Random) -> SourceExistenceInput:
    sentences = doc.text.split(". ")
    quote = rng.choice(sentences).rstrip(".")
    words = quote.split()
    assert doc.url is not None
    cit: dict[str, Any]
    if category == "verbatim_by_id":
        cit = {"source_id": doc.id, "quote": quote}
    elif category == "typographic_by_url":
        cit = {
            "url": doc.url.replace("https://www.", "http://") + "/?utm_source=x",
            "quote": _typographic(quote),
        }
    elif category == "verbatim_by_doi" and doc.doi:
        cit = {"doi": "https://doi.org/" + doc.doi.upper(), "quote": quote}
    elif category == "ellipsis_by_id" and len(words) > 8:
        cit = {"source_id": doc.id, "quote": " ".join(words[:4]) + " ... " + " ".join(words[-3:])}
    elif category == "altered_quote":
        words[rng.randrange(len(words))] = "zebra"
        cit = {"source_id": doc.id, "quote": " ".join(words)}  # the fuzzy path; rejected
    elif category == "fabricated_url":
        url = f"https://www.site{rng.randrange(997)}.example/news/x{rng.randrange(10**6)}"
        cit = {"url": url, "title": doc.title, "quote": quote}  # rejected, closest title looked up
    else:
        cit = {"source_id": doc.id}
    return SourceExistenceInput.model_validate({"citation": cit})


def make_citations(
    docs: list[CorpusDocument], n: int, rng: random.Random
) -> list[tuple[str, SourceExistenceInput]]:
    names = [c for c, _ in MIX]
    weights = [w for _, w in MIX]
    out = []
    for _ in range(n):
        category = rng.choices(names, weights)[0]
        out.append((category, make_citation(rng.choice(docs), category, rng)))
    return out


def timed(
    label: str, n: int, unit: str, fn: Callable[[], Sequence[Any]], target: float | None = None
) -> float:
    t0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rate = n / cpu if cpu else float("inf")
    errors = sum(1 for v in result if getattr(v, "accepted", True) is None)
    mark = (
        ""
        if target is None
        else ("  (target >= {:,.0f}: {})".format(target, "met" if rate >= target else "NOT met"))
    )
    print(
        f"  {label}: {n:,} {unit} in {cpu:.2f}s CPU ({dt:.2f}s wall) = {rate:,.0f} {unit}/s of CPU; "
        f"errors {errors}{mark}"
    )
    return rate


def _median_rate(n: int, fn: Callable[[], Sequence[Any]], runs: int = 3) -> float:
    rates = []
    for _ in range(runs):
        c0 = time.process_time()
        fn()
        cpu = time.process_time() - c0
        rates.append(n / cpu if cpu else float("inf"))
    return sorted(rates)[len(rates) // 2]


def bench_source_existence(args: argparse.Namespace, rng: random.Random) -> None:
    import gc

    print(f"source_existence: generating {args.docs:,} documents ...")
    docs = make_corpus(args.docs, rng)
    t0, c0 = time.perf_counter(), time.process_time()
    corpus = Corpus(docs)
    print(
        f"  index build, corpus (ids, URLs, DOIs): {time.process_time() - c0:.2f}s CPU "
        f"({time.perf_counter() - t0:.2f}s wall)"
    )
    tagged = make_citations(docs, args.citations, rng)
    citations = [c for _, c in tagged]
    kind = kinds()["source_existence"]
    grader = kind(kind.Params(), GradingContext(corpus=corpus))
    prepare = getattr(grader, "prepare", None)
    if prepare is not None:
        t0, c0 = time.perf_counter(), time.process_time()
        prepare()
        print(
            f"  index build, grader (normalised text of {len(docs):,} documents, title/URL index): "
            f"{time.process_time() - c0:.2f}s CPU ({time.perf_counter() - t0:.2f}s wall)"
        )
    mix = ", ".join(f"{name} {share:.0%}" for name, share in MIX)
    print(f"  the mix: {mix}")
    timed(
        "first pass (token indexes built for documents whose quotes need the fuzzy path)",
        len(citations),
        "citations",
        lambda: grader.grade_batch(citations),
    )
    rate = _median_rate(len(citations), lambda: grader.grade_batch(citations))
    mark = "met" if rate >= 20_000 else "NOT met"
    print(
        f"  warm pass, the mix: {len(citations):,} citations, median of 3 = {rate:,.0f} citations/s of CPU "
        f"(target >= 20,000: {mark}); per category (median of 3):"
    )
    for category, share in MIX:
        subset = [c for cat, c in tagged if cat == category]
        if subset:
            rate = _median_rate(len(subset), functools.partial(grader.grade_batch, subset))
            print(f"    {category} ({share:.0%} of the mix): {len(subset):,} citations, {rate:,.0f}/s")
    gc.collect()
    gc.freeze()
    try:
        rate = _median_rate(len(citations), lambda: grader.grade_batch(citations))
    finally:
        gc.unfreeze()
    mark = "met" if rate >= 20_000 else "NOT met"
    print(
        f"  warm pass, the mix, loaded data frozen from the GC as `graderctl calibrate` runs: median of 3 = "
        f"{rate:,.0f} citations/s of CPU (target >= 20,000: {mark})"
    )
    verdicts = grader.grade_batch(citations)
    accepted = {cat: 0 for cat, _ in MIX}
    for (cat, _), v in zip(tagged, verdicts, strict=True):
        accepted[cat] += bool(v.accepted)
    print("  accepted per category:", ", ".join(f"{k} {v}" for k, v in accepted.items()))


def _claims_on(docs: list[CorpusDocument], n: int, rng: random.Random) -> list[ClaimSupportInput]:
    """``n`` claims, each a sentence of a page of ``docs`` cited by id (page i for claim i when there are as
    many pages as claims, else a page drawn at random)."""
    claims = []
    for i in range(n):
        doc = docs[i] if len(docs) == n else rng.choice(docs)
        sentence = rng.choice(doc.text.split(". "))
        claims.append(
            ClaimSupportInput.model_validate({"claim": sentence, "evidence": [{"source_id": doc.id}]})
        )
    return claims


def bench_claim_support(args: argparse.Namespace, rng: random.Random) -> None:
    registry = kinds()
    if "claim_support" not in registry:
        print("claim_support: kind not installed; skipped")
        return
    kind: type[GraderKind] = registry["claim_support"]
    n = args.claims
    print(
        f"claim_support: {n:,} claims, each citing an evidence page of 80 sentences "
        f"(target >= 300 claims/s on new pages)"
    )

    def new_pages() -> tuple[float, GraderKind, list[ClaimSupportInput], int]:
        # a freshly generated page for every claim: the timing includes indexing each page
        docs = make_corpus(n, rng, sentences=80)
        claims = _claims_on(docs, n, rng)
        grader = kind(kind.Params(), GradingContext(corpus=Corpus(docs)))
        c0 = time.process_time()
        verdicts = grader.grade_batch(claims)
        cpu = time.process_time() - c0
        errors = sum(1 for v in verdicts if v.accepted is None)
        return (n / cpu if cpu else float("inf")), grader, claims, errors

    rates: list[float] = []
    errors = 0
    grader: GraderKind | None = None
    claims: list[ClaimSupportInput] = []
    for _ in range(3):
        grader, claims = None, []  # each pass with its own pages and grader: drop the previous ones first
        rate, grader, claims, errs = new_pages()
        rates.append(rate)
        errors += errs
    rates.sort()
    mark = "met" if rates[1] >= 300 else "NOT met"
    print(
        f"  new pages (a new page for every claim, indexed within the timing): median of 3 passes = "
        f"{rates[1]:,.0f} claims/s of CPU (range {rates[0]:,.0f}-{rates[2]:,.0f}; target >= 300: {mark}); "
        f"errors {errors}"
    )
    assert grader is not None
    last = grader
    rate = _median_rate(n, lambda: last.grade_batch(claims))
    print(
        f"  repeated pages (the last pass's claims again, their pages indexed): median of 3 = "
        f"{rate:,.0f} claims/s of CPU"
    )
    docs = make_corpus(max(1, n // 4), rng, sentences=80)
    claims = _claims_on(docs, n, rng)
    grader = kind(kind.Params(), GradingContext(corpus=Corpus(docs)))
    timed(
        f"{len(docs):,} pages cited by {n:,} claims (about 4 a page; each page indexed once)",
        n,
        "claims",
        lambda: grader.grade_batch(claims),
    )


def bench_coverage(args: argparse.Namespace, rng: random.Random) -> None:
    kind = kinds()["coverage"]
    grader = kind(kind.Params(), GradingContext())
    inputs = []
    per = 5
    for _ in range(max(1, args.nuggets // per)):
        report = " ".join(_sentence(rng) for _ in range(10))
        sentences = report.split(". ")
        nuggets = [
            {"text": rng.choice(sentences) if rng.random() < 0.5 else _sentence(rng), "importance": "vital"}
            for _ in range(per)
        ]
        inputs.append(CoverageInput.model_validate({"question": "q", "nuggets": nuggets, "report": report}))
    n = len(inputs) * per
    print(f"coverage: {len(inputs):,} reports x {per} nuggets")
    timed("nugget checks", n, "nugget checks", lambda: grader.grade_batch(inputs), target=1_000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--citations", type=int, default=50_000)
    ap.add_argument("--claims", type=int, default=2_000)
    ap.add_argument("--nuggets", type=int, default=5_000)
    ap.add_argument("--only", default="source_existence,claim_support,coverage")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    wanted = set(args.only.split(","))
    if "source_existence" in wanted:
        bench_source_existence(args, rng)
    if "claim_support" in wanted:
        bench_claim_support(args, rng)
    if "coverage" in wanted:
        bench_coverage(args, rng)


if __name__ == "__main__":
    main()
