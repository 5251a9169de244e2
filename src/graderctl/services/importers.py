"""Importing public human-labelled datasets as calibration sets (``graderctl sets import``).

- ``wice`` (WiCE, Kamoi et al. 2023): real Wikipedia claims with the web page they cite, labelled
  ``supported`` / ``partially_supported`` / ``not_supported``. Imported as a ``claim_support`` set (one sample
  per claim, its page a corpus document), or with ``as_check=source_existence`` as quote checks built from the
  annotated supporting sentences of real pages (real sentences, typographic variants and ellipses as good;
  changed numbers and words, negations, spliced passages, sentences of another page and fabricated URLs as
  bad).
- ``realsumm`` (REALSumm, Bhandari et al. 2020): crowd judgements of whether a nugget (SCU) is present in a
  news summary. Imported as a ``coverage`` set: one sample per (summary, nugget), the nugget vital, the
  summary the report, labelled by the crowd majority (ties dropped and counted).
- ``attributionbench`` (AttributionBench, Li et al. 2024): claims of generated answers with the references
  they cite, labelled ``attributable`` / ``not attributable`` by the compiled datasets' annotators.
  Imported as a ``claim_support`` set: one sample per claim, each reference an inline evidence text,
  category = source dataset and label, group = the question (records with an unknown label, no claim or no
  reference are dropped and counted).

Reading is strict: a malformed upstream file is an :class:`InvalidInputError` naming file, line and field.
The set folder is written atomically (all files or none). Policies are copied from the project's shipped set
for the same check when there is one, else from :data:`FALLBACK_POLICIES`; the manifest says which.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from graderctl.errors import InvalidInputError, Problem, UsageError
from graderctl.models.base import Check, Label
from graderctl.models.calset import (
    SAMPLE_MODELS,
    Citation,
    CorpusDocument,
    Policy,
    Sample,
    SetManifest,
    SourceExistenceInput,
    SourceExistenceSample,
)
from graderctl.models.imports import ImportSummary
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import decode_json_line, display_path, iter_json_lines, read_bytes
from graderctl.store.upstream import (
    attributionbench_files,
    jsonl_text,
    manifest_toml,
    realsumm_rating_files,
    shipped_manifests,
    wice_files,
    write_set_folder,
)

DATASETS = ("wice", "realsumm", "attributionbench")
PartialMode = Literal["bad", "drop", "good"]

#: Used when the project ships no set for the check. Same numbers as the shipped sets' defaults.
FALLBACK_POLICIES: dict[Check, Policy] = {
    Check.source_existence: Policy(max_false_accept_rate=0.02, max_false_reject_rate=0.05),
    Check.claim_support: Policy(max_false_accept_rate=0.10, max_false_reject_rate=0.25),
    Check.coverage: Policy(max_false_accept_rate=0.20, max_false_reject_rate=0.25),
}

WICE_SOURCE = (
    "WiCE: Wikipedia Citation Entailment (Kamoi, Goyal, Rodriguez, Durrett; EMNLP 2023), "
    "github.com/ryokamoi/wice"
)
WICE_LICENCE = (
    "annotations ODC-BY 1.0; claim text from Wikipedia (CC BY-SA); evidence pages archived by Common Crawl "
    "(Common Crawl terms of use)"
)
WICE_CITATION = (
    "Ryo Kamoi, Tanya Goyal, Juan Diego Rodriguez, Greg Durrett. WiCE: Real-World Entailment for Claims in "
    "Wikipedia. EMNLP 2023, pp. 7561-7583."
)
REALSUMM_SOURCE = (
    "REALSumm nugget (SCU) presence judgements (Bhandari et al., EMNLP 2020), github.com/neulab/REALSumm "
    "human_annotations/SCUs_and_annotations"
)
REALSUMM_LICENCE = "CC BY 4.0; summaries derived from CNN/DailyMail articles (research use)"
REALSUMM_CITATION = (
    "Manik Bhandari, Pranav Gour, Atabak Ashfaq, Pengfei Liu, Graham Neubig. Re-evaluating Evaluation in "
    "Text Summarization. EMNLP 2020."
)


@dataclass
class ImportedSet:
    """A calibration set built in memory from an upstream dataset."""

    manifest: SetManifest
    samples: list[Sample]
    corpus: list[CorpusDocument]
    #: Upstream records left out, by reason (``tie``, ``partially_supported``, ...).
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def n_good(self) -> int:
        return sum(1 for s in self.samples if s.label == "good")

    @property
    def n_bad(self) -> int:
        return sum(1 for s in self.samples if s.label == "bad")

    @property
    def n_groups(self) -> int:
        return len({s.group for s in self.samples if s.group})

    def summary(self, path: str) -> ImportSummary:
        """What ``sets import`` prints (``--format json``) about the set written to ``path``."""
        cats = Counter(s.category for s in self.samples)
        return ImportSummary(
            path=path,
            name=self.manifest.name,
            check=self.manifest.check,
            samples=len(self.samples),
            n_good=self.n_good,
            n_bad=self.n_bad,
            documents=len(self.corpus),
            groups=self.n_groups,
            by_category=dict(sorted(cats.items())),
            dropped=dict(self.dropped),
            notes=list(self.notes),
        )


@dataclass
class ImportOutcome:
    path: Path
    imported: ImportedSet

    def summary(self, root: Path | None = None) -> ImportSummary:
        return self.imported.summary(display_path(self.path, root))


# --- policies -------------------------------------------------------------------------------------------


def default_policy(check: Check, root: Path | None) -> tuple[Policy, str]:
    """The policy of the project's shipped set for ``check`` (the first by name), else the fallback."""
    if root is not None:
        for folder, m in shipped_manifests(root):
            if m.check == check:
                return (
                    m.policy,
                    f"policy copied from the shipped set {m.name!r} (calibration_sets/{folder.name})",
                )
    return FALLBACK_POLICIES[
        check
    ], "policy: graderctl's default for this check (the project ships no set for it)"


# --- WiCE -----------------------------------------------------------------------------------------------

_WICE_LABELS = ("supported", "partially_supported", "not_supported")
_META_PREFIX = "(meta data)"
_META_TITLE = re.compile(r"^\(meta data\)\s*TITLE:\s*(.*)$", re.S)


@dataclass
class _WiceClaim:
    id: str
    claim: str
    label: str
    title: str | None
    sentences: list[str]  # the page's sentences without the metadata lines
    supporting: list[list[int]]  # indices into ``sentences``
    article: str | None
    file: str
    line: int


def read_wice(source: Path, *, root: Path | None = None) -> list[_WiceClaim]:
    """Read and check WiCE claim files; every problem is reported with file, line and field."""
    sink = ProblemSink()
    claims: list[_WiceClaim] = []
    seen: dict[str, str] = {}
    for path in wice_files(source):
        shown = display_path(path, root)
        data = read_bytes(path, shown)
        lines = list(iter_json_lines(data, shown, sink))
        for k, (number, raw) in enumerate(lines):
            value = decode_json_line(raw, number, shown, sink, is_last=k == len(lines) - 1)
            if value is None:
                continue
            claim = _wice_record(value, shown, number, sink)
            if claim is None:
                continue
            if claim.id in seen:
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer="/meta/id",
                        message=f"duplicate claim id {claim.id!r}",
                        expected="a unique id",
                        got=f"also in {seen[claim.id]}",
                    )
                )
                continue
            seen[claim.id] = f"{shown}:{number}"
            claims.append(claim)
    sink.raise_if_any(f"{source}: invalid WiCE data")
    return claims


def _value_reporter(
    sink: ProblemSink, shown: str, line: int, what: str, *, fix: str | None = None
) -> Callable[[str, str, Any], None]:
    """``bad(pointer, expected, got)``: records an unexpected value of one upstream record (``what``, e.g.
    "a WiCE record") at ``shown:line`` in ``sink``."""

    def bad(pointer: str, expected: str, got: Any) -> None:
        sink.add(
            Problem(
                file=shown,
                line=line,
                pointer=pointer,
                message=f"unexpected value in {what}",
                expected=expected,
                got=json.dumps(got, ensure_ascii=False)[:80],
                fix=fix,
            )
        )

    return bad


def _wice_record(value: Any, shown: str, line: int, sink: ProblemSink) -> _WiceClaim | None:
    bad = _value_reporter(sink, shown, line, "a WiCE record")

    if not isinstance(value, dict):
        bad("", "a JSON object", value)
        return None
    ok = True
    claim = value.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        bad("/claim", "a non-empty string", claim)
        ok = False
    label = value.get("label")
    if label not in _WICE_LABELS:
        bad("/label", " or ".join(_WICE_LABELS), label)
        ok = False
    evidence = value.get("evidence")
    if not isinstance(evidence, list) or not all(isinstance(s, str) for s in evidence):
        bad("/evidence", "a list of sentences (strings)", type(evidence).__name__)
        ok = False
        evidence = []
    supporting = value.get("supporting_sentences", [])
    if not (
        isinstance(supporting, list)
        and all(isinstance(g, list) and all(isinstance(i, int) for i in g) for g in supporting)
    ):
        bad("/supporting_sentences", "a list of lists of sentence indices", supporting)
        ok = False
        supporting = []
    else:
        for gi, group in enumerate(supporting):
            for ii, idx in enumerate(group):
                if not 0 <= idx < len(evidence):
                    bad(f"/supporting_sentences/{gi}/{ii}", f"an index below {len(evidence)}", idx)
                    ok = False
    meta = value.get("meta")
    mid = meta.get("id") if isinstance(meta, dict) else None
    if not isinstance(mid, str) or not mid:
        bad("/meta/id", "a non-empty string", mid)
        ok = False
    if not ok:
        return None
    assert (
        isinstance(meta, dict) and isinstance(mid, str) and isinstance(claim, str) and isinstance(label, str)
    )
    n_meta = 0
    title: str | None = None
    while n_meta < len(evidence) and evidence[n_meta].startswith(_META_PREFIX):
        m = _META_TITLE.match(evidence[n_meta])
        if m and m.group(1).strip():
            title = m.group(1).strip()
        n_meta += 1
    sentences = list(evidence[n_meta:])
    groups = [[i - n_meta for i in g if i >= n_meta] for g in supporting]
    article = meta.get("claim_title")
    return _WiceClaim(
        id=mid,
        claim=claim.strip(),
        label=label,
        title=title,
        sentences=sentences,
        supporting=[g for g in groups if g],
        article=article if isinstance(article, str) and article else None,
        file=shown,
        line=line,
    )


def _page_url(claim_id: str) -> str:
    # WiCE keeps no page URLs; a stable made-up one (the reserved .invalid domain) lets citations use URLs.
    return f"https://wice-pages.invalid/{claim_id}"


def _page_document(c: _WiceClaim) -> CorpusDocument:
    return CorpusDocument(id=c.id, url=_page_url(c.id), title=c.title, text="\n".join(c.sentences))


def build_wice_claim_support(
    claims: list[_WiceClaim],
    *,
    name: str,
    partial: PartialMode,
    policy: Policy,
    policy_origin: str,
) -> ImportedSet:
    mapping = {"supported": "good", "not_supported": "bad"}
    mapping["partially_supported"] = "dropped" if partial == "drop" else partial
    model = SAMPLE_MODELS[Check.claim_support]
    samples: list[Sample] = []
    corpus: list[CorpusDocument] = []
    dropped: Counter[str] = Counter()
    for c in claims:
        target = mapping[c.label]
        if target == "dropped":
            dropped[c.label] += 1
            continue
        corpus.append(_page_document(c))
        n_sets = len(c.supporting)
        samples.append(
            model.model_validate(
                {
                    "id": f"wice-{c.id}",
                    "label": target,
                    "category": c.label,
                    "group": c.article,
                    "rationale": f"WiCE annotators: {c.label.replace('_', ' ')}"
                    + (f" ({n_sets} alternative set(s) of supporting sentences)" if n_sets else ""),
                    "input": {"claim": c.claim, "evidence": [{"source_id": c.id}]},
                }
            )
        )
    reading = {
        "bad": "strict reading: partially supported claims are bad (the claim says more than the source)",
        "drop": "partially supported claims are left out",
        "good": "lenient reading: partially supported claims are good",
    }[partial]
    manifest = SetManifest(
        name=name,
        version=1,
        check=Check.claim_support,
        description=(
            f"WiCE claims with the web page each cites, imported by `graderctl sets import wice`; {reading}. "
            f"{policy_origin.capitalize()}."
        ),
        source=WICE_SOURCE,
        licence=WICE_LICENCE,
        citation=WICE_CITATION,
        label_mapping=mapping,
        policy=policy,
    )
    notes = [reading, policy_origin]
    return ImportedSet(manifest, samples, corpus, dict(dropped), notes)


# source_existence quote checks from WiCE pages ---------------------------------------------------------

_ANTONYMS = {
    "increase": "decrease", "increased": "decreased", "rise": "fall", "rose": "fell", "won": "lost",
    "first": "last", "before": "after", "more": "less", "larger": "smaller", "largest": "smallest",
    "higher": "lower", "highest": "lowest", "early": "late", "earlier": "later", "north": "south",
    "east": "west", "born": "died", "joined": "left", "opened": "closed", "began": "ended",
    "major": "minor", "older": "younger", "oldest": "youngest", "best": "worst", "male": "female",
    "private": "public", "former": "current", "new": "old", "accepted": "rejected", "win": "lose",
    "always": "rarely", "many": "few", "most": "least", "above": "below", "top": "bottom",
}  # fmt: skip
_ANTONYMS.update({v: k for k, v in list(_ANTONYMS.items())})
_AUX = re.compile(r"\b(is|was|are|were|has|have|had|will|can|could|would|should|did|does|do)\b", re.I)
_NEGATED = re.compile(r"\b(not|never)\s+|n't\b", re.I)
_WORDS_RE = re.compile(r"[A-Za-z]{4,}")
_DIGITS = re.compile(r"\d+")


def _norm(text: str) -> str:
    from graderctl.language.typography import normalize

    return normalize(text)


def _good_sentence(s: str) -> bool:
    words = s.split()
    return 6 <= len(words) <= 80 and not s.startswith(_META_PREFIX) and sum(c.isalpha() for c in s) > 25


def _typographic_variant(sentence: str, rng: random.Random) -> str:
    """The same sentence as a person might paste it: other quote marks and dashes, odd spaces, a soft
    hyphen, a ligature, changed case, a dropped final period, wrapping quotes."""
    s = sentence
    ops = rng.sample(range(8), 3)
    for op in ops:
        if op == 0:
            s = s.replace("'", "’").replace('"', "“") if ("'" in s or '"' in s) else s.replace("’", "'")
        elif op == 1:
            s = re.sub(r"(?<=\w)-(?=\w)", "–", s, count=1) if "-" in s else s.replace(" ", "\u00a0", 2)
        elif op == 2:
            words = s.split(" ")
            if len(words) > 3:
                i = rng.randrange(1, len(words) - 1)
                words[i] = words[i] + " "
                s = " ".join(words)
        elif op == 3:
            m = re.search(r"[A-Za-z]{8,}", s)
            if m:
                cut = m.start() + 4
                s = s[:cut] + "\u00ad" + s[cut:]
        elif op == 4:
            s = s.replace("fi", "ﬁ", 1)
        elif op == 5:
            s = s[:1].lower() + s[1:]
        elif op == 6:
            s = s.rstrip(".")
        else:
            s = f"“{s}”"
    return s


def _ellipsis_variant(sentence: str, rng: random.Random) -> str | None:
    words = sentence.split()
    if len(words) < 14:
        return None
    head = rng.randrange(4, len(words) // 2 - 1)
    tail = rng.randrange(len(words) // 2 + 2, len(words) - 3)
    return " ".join(words[:head]) + rng.choice([" ... ", " … ", " [...] "]) + " ".join(words[tail:])


def _change_number(sentence: str, rng: random.Random) -> str | None:
    found = list(_DIGITS.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    value = int(m.group())
    delta = rng.choice([1, 2, 3, 5, 10]) if value >= 100 else rng.choice([1, 2, 3])
    new = value + delta if rng.random() < 0.5 or value < delta + 1 else value - delta
    text = str(new).zfill(len(m.group())) if m.group().startswith("0") else str(new)
    return sentence[: m.start()] + text + sentence[m.end() :]


def _change_word(sentence: str, rng: random.Random, vocabulary: list[str]) -> str | None:
    from graderctl.language.tokens import STOPWORDS

    candidates = [
        m for m in _WORDS_RE.finditer(sentence) if m.group().lower() not in STOPWORDS and m.start() > 0
    ]
    if not candidates:
        return None
    antonym = [m for m in candidates if m.group().lower() in _ANTONYMS]
    m = rng.choice(antonym or candidates)
    word = m.group()
    new = _ANTONYMS.get(word.lower())
    if new is None:
        for _ in range(20):
            pick = rng.choice(vocabulary)
            if pick.lower() != word.lower() and abs(len(pick) - len(word)) <= 3:
                new = pick
                break
    if new is None:
        return None
    if word[0].isupper():
        new = new[0].upper() + new[1:]
    return sentence[: m.start()] + new + sentence[m.end() :]


def _negate(sentence: str) -> str | None:
    m = _NEGATED.search(sentence)
    if m:
        return sentence[: m.start()] + sentence[m.end() :]
    m = _AUX.search(sentence)
    if m:
        return sentence[: m.end()] + " not" + sentence[m.end() :]
    return None


def _mangle_url(url: str, rng: random.Random) -> str:
    head, _, tail = url.rpartition("/")
    choice = rng.randrange(3)
    if choice == 0:
        tail = tail[:-1] + str((int(tail[-1]) + 1) % 10) if tail[-1:].isdigit() else tail + "1"
    elif choice == 1:
        tail = tail + "-" + rng.choice(["full", "archive", "2", "amp"])
    else:
        head = head.replace("wice-pages", rng.choice(["wice-page", "wicepages", "wice-pages-archive"]))
    return f"{head}/{tail}"


def _quote_checks(
    c: _WiceClaim,
    quotable: list[int],
    *,
    rng: random.Random,
    page: str,
    bad_category: str,
    vocabulary: list[str],
    all_quotes: list[tuple[str, str]],
    skipped: Counter[str],
) -> list[tuple[str, str, Citation, str]]:
    """The quote checks made from one WiCE page: ``(label, category, citation, rationale)``."""
    url = _page_url(c.id)
    sentence = c.sentences[rng.choice(quotable)]
    made: list[tuple[str, str, Citation, str]] = []

    def add(label: str, category: str, citation: Citation, why: str) -> None:
        quote = citation.quote
        # a corruption that happens to be on the page after all is no bad example
        if (
            label == "bad"
            and quote is not None
            and category != "fabricated_source"
            and (_norm(quote).strip(" .'") in page)
        ):
            skipped[f"{category}: still on the page"] += 1
            return
        made.append((label, category, citation, why))

    add(
        "good",
        "verbatim_quote",
        Citation(source_id=c.id, quote=sentence),
        "a supporting sentence, verbatim",
    )
    variant_url = rng.choice(
        [
            url.replace("https://", "http://"),
            url + "/",
            url + "?utm_source=chatbot",
            url.upper()[:8] + url[8:],
        ]
    )
    add(
        "good",
        "typographic_variant",
        Citation(url=variant_url, title=c.title, quote=_typographic_variant(sentence, rng)),
        "a supporting sentence with typographic variation, cited by a URL variant",
    )
    ell = _ellipsis_variant(sentence, rng)
    if ell:
        add(
            "good",
            "ellipsis_quote",
            Citation(source_id=c.id, url=url, quote=ell),
            "a sentence with an omission marked by an ellipsis",
        )
    changed = _change_number(sentence, rng)
    if changed:
        add(
            "bad",
            "changed_number",
            Citation(source_id=c.id, quote=changed),
            "a number of the sentence changed",
        )
    else:
        changed = _change_word(sentence, rng, vocabulary)
        if changed:
            add(
                "bad",
                "changed_word",
                Citation(source_id=c.id, quote=changed),
                "a word of the sentence changed",
            )
    category = bad_category
    if category == "negation_flip":
        neg = _negate(sentence)
        if neg:
            add("bad", category, Citation(source_id=c.id, quote=neg), "the sentence's negation flipped")
        else:
            category = "quote_from_other_page"
    if category == "quote_from_other_page":
        for _ in range(20):
            other_id, other = rng.choice(all_quotes)
            if other_id != c.id:
                add(
                    "bad",
                    category,
                    Citation(source_id=c.id, url=url, quote=other),
                    f"a sentence of another page ({other_id})",
                )
                break
    elif category == "spliced_quote":
        idx = [i for i, s in enumerate(c.sentences) if _good_sentence(s)]
        pairs = [(i, j) for i in idx for j in idx if j >= i + 2]
        if pairs:
            i, j = rng.choice(pairs)
            add(
                "bad",
                category,
                Citation(source_id=c.id, quote=c.sentences[i].rstrip() + " " + c.sentences[j].lstrip()),
                "two sentences of the page that are not adjacent, joined without an ellipsis",
            )
    elif category == "fabricated_source":
        add(
            "bad",
            category,
            Citation(url=_mangle_url(url, rng), title=c.title, quote=sentence),
            "a real sentence and title, but a URL that is not the page's",
        )
    return made


def build_wice_source_existence(
    claims: list[_WiceClaim], *, name: str, policy: Policy, policy_origin: str, seed: int = 0
) -> ImportedSet:
    """Quote checks over the real WiCE pages (see the module docstring)."""
    corpus = [_page_document(c) for c in claims]
    norm_pages = {c.id: _norm("\n".join(c.sentences)) for c in claims}
    vocabulary = sorted(
        {w for c in claims for s in c.sentences[:200] for w in _WORDS_RE.findall(s) if w.islower()}
    )
    quotable = {
        c.id: sorted({i for g in c.supporting for i in g if _good_sentence(c.sentences[i])}) for c in claims
    }
    all_quotes = [(c.id, c.sentences[i]) for c in claims for i in quotable[c.id]]
    samples: list[Sample] = []
    skipped: Counter[str] = Counter()
    bad_cycle = ["negation_flip", "quote_from_other_page", "spliced_quote", "fabricated_source"]
    for k, c in enumerate(claims):
        if not quotable[c.id]:
            skipped["no quotable supporting sentence"] += 1
            continue
        made = _quote_checks(
            c,
            quotable[c.id],
            rng=random.Random(f"{seed}:{c.id}"),
            page=norm_pages[c.id],
            bad_category=bad_cycle[k % len(bad_cycle)],
            vocabulary=vocabulary,
            all_quotes=all_quotes,
            skipped=skipped,
        )
        for n, (label, cat, citation, why) in enumerate(made):
            samples.append(
                SourceExistenceSample(
                    id=f"wice-se-{c.id}-{n + 1}",
                    label=Label(label),
                    category=cat,
                    group=c.id,
                    rationale=why,
                    input=SourceExistenceInput(citation=citation),
                )
            )
    manifest = SetManifest(
        name=name,
        version=1,
        check=Check.source_existence,
        description=(
            "Quote checks over real web pages cited by Wikipedia (WiCE), imported by `graderctl sets "
            "import wice --as-check source_existence`. Good: an annotated supporting sentence of the page, "
            "verbatim, with typographic variation, or with an omission marked by an ellipsis. Bad: a changed "
            "number or word, a flipped negation, two non-adjacent sentences spliced, a sentence of another "
            "page, or a made-up URL for a real title. Pages have synthetic URLs (wice-pages.invalid), since "
            f"WiCE keeps none. {policy_origin.capitalize()}."
        ),
        source=WICE_SOURCE + f"; quote variants generated by graderctl (seed {seed})",
        licence=WICE_LICENCE,
        citation=WICE_CITATION,
        label_mapping={
            "annotated supporting sentence (or typographic/ellipsis variant)": "good",
            "altered or misattributed quote": "bad",
        },
        policy=policy,
    )
    return ImportedSet(manifest, samples, corpus, dict(skipped), [policy_origin])


# --- REALSumm -------------------------------------------------------------------------------------------

_RS_REQUIRED = ("Input.eventId", "Input.summaryId", "Input.qIdList", "Input.summary_text")
_MAX_STATEMENTS = 16


@dataclass
class _Judged:
    event: str
    system: str
    nugget_id: str
    nugget: str
    summary: str
    votes: list[str] = field(default_factory=list)  # 'p' / 'n', one per worker row
    where: str = ""


def read_realsumm(source: Path, *, root: Path | None = None) -> list[_Judged]:
    """Every (summary, nugget) pair with its workers' votes, in file order."""
    sink = ProblemSink()
    pairs: dict[tuple[str, str, str], _Judged] = {}
    for path in realsumm_rating_files(source):
        shown = display_path(path, root)
        data = read_bytes(path, shown)
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            sink.add(
                Problem(file=shown, message=f"invalid UTF-8 at byte {exc.start + 1}", fix="re-save as UTF-8")
            )
            continue
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames or []
        missing = [c for c in _RS_REQUIRED if c not in header]
        if missing:
            sink.add(
                Problem(
                    file=shown,
                    line=1,
                    message="missing column(s) " + ", ".join(missing),
                    expected="a REALSumm ratings CSV with " + ", ".join(_RS_REQUIRED),
                    got="columns " + ", ".join(header[:8]) + ("..." if len(header) > 8 else ""),
                )
            )
            continue
        prefix = path.stem.split("_", 1)[0] if "_" in path.stem else path.stem
        for row in reader:
            _realsumm_row(row, reader.line_num, shown, prefix, pairs, sink)
    sink.raise_if_any(f"{source}: invalid REALSumm data")
    return list(pairs.values())


def _realsumm_row(
    row: dict[str, str | None],
    line: int,
    shown: str,
    prefix: str,
    pairs: dict[tuple[str, str, str], _Judged],
    sink: ProblemSink,
) -> None:
    bad = _value_reporter(sink, shown, line, "a REALSumm rating row")

    event = (row.get("Input.eventId") or "").strip()
    system = (row.get("Input.summaryId") or "").strip()
    summary = row.get("Input.summary_text") or ""
    if not event:
        bad("Input.eventId", "a document id such as cnndm1273", row.get("Input.eventId"))
        return
    if not system:
        bad("Input.summaryId", "a system name", row.get("Input.summaryId"))
        return
    if not summary.strip():
        bad("Input.summary_text", "the summary text", summary)
        return
    try:
        ids = ast.literal_eval(row.get("Input.qIdList") or "")
        if not (isinstance(ids, list | tuple) and all(isinstance(i, str | int) for i in ids)):
            raise ValueError
    except (ValueError, SyntaxError):
        bad("Input.qIdList", "a list of nugget ids like ['1584', '1585']", row.get("Input.qIdList"))
        return
    for i in range(1, _MAX_STATEMENTS + 1):
        statement = row.get(f"Input.statement_{i}")
        if statement is None:
            break
        statement = statement.strip()
        if not statement or statement == "BLANK":
            continue
        answer = (row.get(f"Answer.S{i}Answer") or "").strip().lower()
        if answer not in ("p", "n"):
            bad(f"Answer.S{i}Answer", "p (present) or n (not present)", row.get(f"Answer.S{i}Answer"))
            continue
        if i > len(ids):
            bad("Input.qIdList", f"at least {i} nugget ids (statement_{i} is not BLANK)", len(ids))
            return
        key = (event, f"{prefix}_{system}", str(ids[i - 1]))
        judged = pairs.get(key)
        if judged is None:
            judged = pairs[key] = _Judged(event, f"{prefix}_{system}", str(ids[i - 1]), statement, summary)
            judged.where = f"{shown}:{line}"
        judged.votes.append(answer)


def build_realsumm_coverage(
    judged: list[_Judged], *, name: str, policy: Policy, policy_origin: str
) -> ImportedSet:
    model = SAMPLE_MODELS[Check.coverage]
    samples: list[Sample] = []
    dropped: Counter[str] = Counter()
    for j in judged:
        p, n = j.votes.count("p"), j.votes.count("n")
        if p == n:
            dropped["tie"] += 1
            continue
        label = "good" if p > n else "bad"
        unanimous = p == 0 or n == 0
        category = ("present" if label == "good" else "absent") + ("_unanimous" if unanimous else "_majority")
        samples.append(
            model.model_validate(
                {
                    "id": f"realsumm-{j.event}-{j.system}-{j.nugget_id}",
                    "label": label,
                    "category": category,
                    "group": j.event,
                    "rationale": f"{p} of {p + n} crowd workers judged the nugget present in the summary",
                    "labels": [
                        {"labeler": f"worker-{k + 1}", "label": "good" if v == "p" else "bad"}
                        for k, v in enumerate(j.votes)
                    ],
                    "input": {
                        "question": "",
                        "nuggets": [{"text": j.nugget, "importance": "vital"}],
                        "report": j.summary,
                    },
                }
            )
        )
    manifest = SetManifest(
        name=name,
        version=1,
        check=Check.coverage,
        description=(
            "REALSumm: is a nugget (SCU) present in a news summary? One sample per (summary, nugget), the "
            "nugget vital and the summary as the report, labelled by the crowd majority (ties left out). "
            "Imported by "
            f"`graderctl sets import realsumm`. {policy_origin.capitalize()}."
        ),
        source=REALSUMM_SOURCE,
        licence=REALSUMM_LICENCE,
        citation=REALSUMM_CITATION,
        label_mapping={"majority present": "good", "majority not present": "bad", "tie": "dropped"},
        policy=policy,
    )
    notes = [f"{dropped['tie']} (summary, nugget) pair(s) with tied votes left out", policy_origin]
    return ImportedSet(manifest, samples, [], dict(dropped), notes)


# --- AttributionBench -----------------------------------------------------------------------------------

ATTRIBUTIONBENCH_SOURCE = (
    "AttributionBench (Li, Yue, Liao, Sun 2024), huggingface.co/datasets/osunlp/AttributionBench; "
    "compiled from ExpertQA, Stanford-GenSearch, AttributedQA, LFQA, BEGIN, AttrEval-GenSearch and HAGRID"
)
ATTRIBUTIONBENCH_LICENCE = (
    "Apache-2.0 (AttributionBench dataset card); the compiled datasets' questions, answers and references "
    "remain under their own terms"
)
ATTRIBUTIONBENCH_CITATION = (
    "Yifei Li, Xiang Yue, Zeyi Liao, Huan Sun. AttributionBench: How Hard is Automatic Attribution "
    "Evaluation? Findings of ACL 2024 (arXiv:2402.15089)."
)
#: Upstream label (after folding case, whitespace, '_' and '-') -> calibration label.
_AB_LABELS = {"attributable": "good", "not attributable": "bad"}
_AB_DROP_REASONS = {
    "unknown_label": "an attribution_label other than attributable / not attributable",
    "no_claim": "no claim text",
    "no_reference": "no non-empty reference",
    "duplicate_id": "an id already used earlier in the same file",
}
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


@dataclass
class _AttributionRecord:
    id: str
    stem: str  # the file's name without its extension
    fname: str  # the file's name
    question: str
    claim: str
    references: list[str]  # non-blank, stripped
    label: str | None  # "attributable" / "not attributable", or None when unknown
    raw_label: str  # as found upstream (for the unknown-label problem)
    dataset: str
    file: str
    line: int


def _fold_label(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    folded = " ".join(re.split(r"[\s_-]+", value.strip().lower())).strip()
    return folded if folded in _AB_LABELS else None


def read_attributionbench(source: Path, *, root: Path | None = None) -> list[_AttributionRecord]:
    """Read and check AttributionBench files: every record, its label folded (``None`` when unknown).

    Malformed lines and fields of the wrong type are problems (file, line, JSON pointer); records that are
    well-formed but unusable (unknown label, no claim, no reference) are kept for the builder to count."""
    sink = ProblemSink()
    records: list[_AttributionRecord] = []
    files = attributionbench_files(source)
    for path in files:
        shown = display_path(path, root)
        data = read_bytes(path, shown)
        if data.startswith(_LFS_POINTER):
            sink.add(
                Problem(
                    file=shown,
                    line=1,
                    message="a Git LFS pointer, not the data",
                    expected="one JSON object per line",
                    got="a Git LFS pointer file",
                    fix="fetch the file's content (`git lfs pull` in your clone, or download it from the "
                    "dataset page)",
                )
            )
            continue
        lines = list(iter_json_lines(data, shown, sink))
        for k, (number, raw) in enumerate(lines):
            value = decode_json_line(raw, number, shown, sink, is_last=k == len(lines) - 1)
            if value is None:
                continue
            record = _attribution_record(value, path, shown, number, sink)
            if record is not None:
                records.append(record)
    if records and all(r.label is None for r in records):
        seen = Counter(r.raw_label for r in records)
        sink.add(
            Problem(
                file=display_path(source, root),
                message="no record has a known attribution_label",
                pointer="/attribution_label",
                expected="attributable or not attributable",
                got=", ".join(f"{label!r} ({n})" for label, n in seen.most_common(3))
                + (", ..." if len(seen) > 3 else ""),
                fix="import a binary-label split (e.g. attribution_eval_binary_test_v1_5.jsonl)",
            )
        )
    sink.raise_if_any(f"{source}: invalid AttributionBench data")
    return records


def _attribution_record(
    value: Any, path: Path, shown: str, line: int, sink: ProblemSink
) -> _AttributionRecord | None:
    bad = _value_reporter(
        sink,
        shown,
        line,
        "an AttributionBench record",
        fix="correct the field, or remove the record from your copy",
    )

    if not isinstance(value, dict):
        bad("", "a JSON object", value)
        return None
    ok = True
    texts: dict[str, str] = {}
    for key in ("question", "claim", "src_dataset"):
        field_value = value.get(key)
        if field_value is None:
            texts[key] = ""
        elif isinstance(field_value, str):
            texts[key] = field_value.strip()
        else:
            bad(f"/{key}", "a string", field_value)
            ok = False
    refs = value.get("references")
    references: list[str] = []
    if isinstance(refs, list):
        for i, ref in enumerate(refs):
            if isinstance(ref, str):
                if ref.strip():
                    references.append(ref.strip())
            elif ref is not None:
                bad(f"/references/{i}", "a string (a document or paragraph)", ref)
                ok = False
    elif refs is not None:
        bad("/references", "a list of strings (documents or paragraphs)", refs)
        ok = False
    upstream_id = value.get("id")
    rid = f"{path.stem}-{line}"  # early versions have no id: the file and line identify the record
    if isinstance(upstream_id, str | int) and not isinstance(upstream_id, bool):
        rid = str(upstream_id).strip() or rid
    elif upstream_id is not None:
        bad("/id", "a string", upstream_id)
        ok = False
    if not ok:
        return None
    raw_label = value.get("attribution_label")
    return _AttributionRecord(
        id=rid,
        stem=path.stem,
        fname=path.name,
        question=texts["question"],
        claim=texts["claim"],
        references=references,
        label=_fold_label(raw_label),
        raw_label=raw_label if isinstance(raw_label, str) else json.dumps(raw_label)[:40],
        dataset=texts["src_dataset"],
        file=shown,
        line=line,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _question_group(question: str) -> str | None:
    folded = " ".join(question.casefold().split())
    if not folded:
        return None
    return "q-" + hashlib.sha256(folded.encode("utf-8")).hexdigest()[:12]


def build_attributionbench_claim_support(
    records: list[_AttributionRecord],
    *,
    name: str,
    files: list[str],
    policy: Policy,
    policy_origin: str,
) -> ImportedSet:
    model = SAMPLE_MODELS[Check.claim_support]
    dropped: Counter[str] = Counter()
    kept: list[_AttributionRecord] = []
    seen: set[tuple[str, str]] = set()
    for r in records:
        if r.label is None:
            dropped["unknown_label"] += 1
        elif not r.claim:
            dropped["no_claim"] += 1
        elif not r.references:
            dropped["no_reference"] += 1
        elif (r.file, r.id) in seen:
            dropped["duplicate_id"] += 1
        else:
            seen.add((r.file, r.id))
            kept.append(r)
    files_of: dict[str, set[str]] = {}
    for r in kept:
        files_of.setdefault(r.id, set()).add(r.file)
    shared = {i for i, fs in files_of.items() if len(fs) > 1}
    samples: list[Sample] = []
    for r in kept:
        label = r.label or ""
        dataset = _slug(r.dataset) or "unknown"
        sample_id = f"attributionbench-{r.stem}-{r.id}" if r.id in shared else f"attributionbench-{r.id}"
        samples.append(
            model.model_validate(
                {
                    "id": sample_id,
                    "label": _AB_LABELS[label],
                    "category": f"{dataset}_{_slug(label)}",
                    "group": _question_group(r.question),
                    "rationale": f"AttributionBench ({r.dataset or 'unknown source dataset'}, id {r.id}, "
                    f"{r.fname} line {r.line}): {label}",
                    "input": {"claim": r.claim, "evidence": [{"text": ref} for ref in r.references]},
                }
            )
        )
    left_out = [f"{n} {reason}" for reason, n in sorted(dropped.items())]
    notes = [
        f"{n} record(s) left out: {reason} ({_AB_DROP_REASONS[reason]})"
        for reason, n in sorted(dropped.items())
    ]
    if shared:
        notes.append(
            f"{len(shared)} upstream id(s) occur in several files: their sample ids are prefixed with the "
            "file name"
        )
    notes.append(policy_origin)
    manifest = SetManifest(
        name=name,
        version=1,
        check=Check.claim_support,
        description=(
            "AttributionBench: is a claim of a generated answer supported by its references? One sample per "
            "claim, each reference an inline evidence text, labelled by the upstream human annotation "
            "(attributable good, not attributable bad); category = source dataset and label, group = the "
            "question. Imported by `graderctl sets import attributionbench` from "
            + ", ".join(files)
            + ". Left out: "
            + (", ".join(left_out) or "none")
            + f". {policy_origin.capitalize()}."
        ),
        source=ATTRIBUTIONBENCH_SOURCE + "; files: " + ", ".join(files),
        licence=ATTRIBUTIONBENCH_LICENCE,
        citation=ATTRIBUTIONBENCH_CITATION,
        label_mapping={"attributable": "good", "not attributable": "bad", "any other label": "dropped"},
        policy=policy,
    )
    return ImportedSet(manifest, samples, [], dict(dropped), notes)


# --- writing --------------------------------------------------------------------------------------------


def write_set(imported: ImportedSet, parent: Path, *, force: bool = False) -> Path:
    """Write the set to ``parent/<name>/`` atomically (all files or none; ``store.upstream``). An existing
    folder is replaced only with ``force``."""
    files = {"manifest.toml": manifest_toml(imported.manifest), "samples.jsonl": jsonl_text(imported.samples)}
    if imported.corpus:
        files["corpus.jsonl"] = jsonl_text(imported.corpus)
    return write_set_folder(parent, imported.manifest.name, files, force=force)


# --- entry point ----------------------------------------------------------------------------------------

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def default_name(dataset: str, check: Check) -> str:
    return f"{dataset}-{check.value.replace('_', '-')}"


def build_set(
    dataset: str,
    source: Path,
    *,
    name: str | None = None,
    as_check: Check | None = None,
    partial: PartialMode = "bad",
    seed: int = 0,
    root: Path | None = None,
) -> ImportedSet:
    """Read an upstream dataset and build the set in memory (nothing is written)."""
    if dataset not in DATASETS:
        raise UsageError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
    natural = Check.coverage if dataset == "realsumm" else Check.claim_support
    check = as_check or natural
    allowed = {
        "wice": {Check.claim_support, Check.source_existence},
        "realsumm": {Check.coverage},
        "attributionbench": {Check.claim_support},
    }[dataset]
    if check not in allowed:
        raise UsageError(
            f"{dataset} cannot be imported as a {check.value} set; choose --as-check "
            + " or ".join(sorted(c.value for c in allowed))
        )
    set_name = name or default_name(dataset, check)
    if not _NAME_RE.match(set_name):
        raise UsageError(f"bad set name {set_name!r}: use lower-case letters, digits, '.', '_' and '-'")
    policy, origin = default_policy(check, root)
    if dataset == "wice":
        claims = read_wice(source, root=root)
        if check is Check.source_existence:
            return build_wice_source_existence(
                claims, name=set_name, policy=policy, policy_origin=origin, seed=seed
            )
        return build_wice_claim_support(
            claims, name=set_name, partial=partial, policy=policy, policy_origin=origin
        )
    if dataset == "attributionbench":
        records = read_attributionbench(source, root=root)
        return build_attributionbench_claim_support(
            records,
            name=set_name,
            files=[p.name for p in attributionbench_files(source)],
            policy=policy,
            policy_origin=origin,
        )
    judged = read_realsumm(source, root=root)
    return build_realsumm_coverage(judged, name=set_name, policy=policy, policy_origin=origin)


def import_set(
    dataset: str,
    source: Path,
    output: Path,
    *,
    name: str | None = None,
    as_check: Check | None = None,
    partial: PartialMode = "bad",
    seed: int = 0,
    force: bool = False,
    root: Path | None = None,
) -> ImportOutcome:
    """Build the set and write it to ``output/<name>/``."""
    imported = build_set(dataset, source, name=name, as_check=as_check, partial=partial, seed=seed, root=root)
    if not imported.samples:
        raise InvalidInputError(
            f"{source}: nothing to import",
            [Problem(file=str(source), message="no sample could be built from the upstream files")],
        )
    from graderctl.store.outputs import check_outputs

    # The set folder written (replaced with --force) must not hold, be, or lie inside the source (exit 2).
    check_outputs([("the set folder", output / imported.manifest.name)], [("SOURCE", source)])
    path = write_set(imported, output, force=force)
    return ImportOutcome(path, imported)


def content_digest(imported: ImportedSet) -> str:
    """A digest of the built set (to check that imports are reproducible)."""
    h = hashlib.sha256()
    h.update(manifest_toml(imported.manifest).encode())
    h.update(jsonl_text(imported.samples).encode())
    h.update(jsonl_text(imported.corpus).encode())
    return h.hexdigest()
