"""Signals for the ``claim_support`` kind: how well a passage of the evidence supports a claim.

Plain Python plus numpy for the window scan: no model, no download. The pieces:

- :func:`index_text` turns one evidence text into an :class:`EvidenceIndex` (sentence spans, stemmed content
  words per sentence, an inverted index, the numbers with their values). It is the expensive step, done once
  per document (the grader caches it per corpus document).
- :func:`analyse_claim` turns a claim into a :class:`ClaimInfo` (content terms, names, numbers, clauses,
  negation).
- :func:`extract` scores every window of 1-3 consecutive sentences cheaply (weighted recall of the claim's
  terms, from the inverted index), keeps the best few windows, computes the finer signals on those (bigrams,
  character n-grams, precision, numbers, scoped negation and quantity words), and returns :class:`Features`:
  the feature values by name plus what a reason needs (best passage, missing terms, mismatched numbers).

The names in :data:`FEATURE_NAMES` are the contract with the fitted weights in
``graders/claim-support/v1.toml``: changing what a feature computes changes verdicts (bump the kind's
``implementation_version``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from graderctl.kinds._porter import stem
from graderctl.kinds._text import NEGATIONS as _TEXT_NEGATIONS
from graderctl.kinds._text import STOPWORDS as _TEXT_STOPWORDS
from graderctl.kinds._text import extract_numbers, fold_typography, sentence_spans

# --- vocabulary ---------------------------------------------------------------------------------------

#: Function words plus a few reporting verbs and fillers that carry no checkable content.
_EXTRA_STOPWORDS = """
am an among amongst across along around onto toward towards whether though although thus therefore hence yet
still even ever well like unlike one ones who's what's there's here's he's she's mr mrs ms dr st also
currently later early then now today recently us
hundred thousand million millions billion billions trillion percent cent mln bn
zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety dozen
"""
STOPWORDS: frozenset[str] = _TEXT_STOPWORDS | frozenset(_EXTRA_STOPWORDS.split())

#: Words that negate what follows them.
NEGATIONS: frozenset[str] = _TEXT_NEGATIONS | frozenset({"failing", "lacking", "nobody"})

#: Pairs of words (as Porter stems) that say opposite things about a quantity, a direction or an outcome.
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("increas", "decreas"),
    ("increas", "reduc"),
    ("increas", "declin"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("grow", "shrink"),
    ("gain", "loss"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("bigger", "smaller"),
    ("biggest", "smallest"),
    ("abov", "below"),
    ("major", "minor"),
    ("maximum", "minimum"),
    ("best", "worst"),
    ("better", "wors"),
    ("win", "lose"),
    ("won", "lost"),
    ("all", "some"),
    ("alwai", "sometim"),
    ("success", "failur"),
    ("accept", "reject"),
    ("approv", "reject"),
    ("support", "oppos"),
    ("legal", "illeg"),
    ("possibl", "imposs"),
    ("like", "unlik"),
)
#: Stems saying a quantity went up, and stems saying it went down: any word of one group is the opposite of
#: every word of the other.
DIRECTION_UP = frozenset(
    (
        *("increas", "rise", "rose", "risen", "grow", "grew", "grown", "gain", "higher", "more", "expand"),
        *("ad", "boost", "climb", "jump", "surg", "soar", "improv", "strengthen", "acceler"),
    )
)
DIRECTION_DOWN = frozenset(
    (
        *(
            "decreas",
            "fall",
            "fell",
            "fallen",
            "declin",
            "drop",
            "shrink",
            "shrank",
            "shrunk",
            "lower",
            "less",
        ),
        *("fewer", "reduc", "cut", "lost", "lose", "contract", "slump", "plung", "weaken", "slow", "worsen"),
    )
)
_ANTONYM_OF: dict[str, frozenset[str]] = {w: DIRECTION_DOWN for w in DIRECTION_UP} | {
    w: DIRECTION_UP for w in DIRECTION_DOWN
}
for _a, _b in ANTONYMS:
    _ANTONYM_OF[_a] = _ANTONYM_OF.get(_a, frozenset()) | {_b}
    _ANTONYM_OF[_b] = _ANTONYM_OF.get(_b, frozenset()) | {_a}

#: Equivalences stemming cannot see: irregular forms and frequent synonyms of factual text (stem -> key).
SYNONYMS: dict[str, str] = {
    "wed": "marri",
    "husband": "spous",
    "wife": "spous",
    "die": "death",
    "dead": "death",
    "born": "birth",
    "movi": "film",
    "began": "begin",
    "begun": "begin",
    "start": "begin",
    "commenc": "begin",
    "won": "win",
    "victori": "win",
    "prize": "award",
    "bought": "bui",
    "purchas": "bui",
    "sold": "sell",
    "made": "make",
    "built": "build",
    "construct": "build",
    "written": "write",
    "wrote": "write",
    "chose": "choos",
    "chosen": "choos",
    "select": "choos",
    "left": "leav",
    "held": "hold",
    "led": "lead",
    "taught": "teach",
    "ran": "run",
    "grew": "grow",
    "sang": "sing",
    "sung": "sing",
    "gave": "give",
    "given": "give",
    "took": "take",
    "taken": "take",
    "becam": "becom",
    "establish": "found",
    "approxim": "about",
    "roughli": "about",
    "nearli": "about",
    "almost": "about",
    "annual": "year",
    "yearli": "year",
    "compani": "firm",
    "corpor": "firm",
    "kid": "child",
    "children": "child",
    "peopl": "person",
    "men": "man",
    "women": "woman",
    "biggest": "largest",
}

_MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}

#: Negation and quantity words are compared only in a passage sentence holding this share of the claim.
ALIGNED_RECALL = 0.4

#: How many words after a negation cue it governs.
_SCOPE = 4

_TOKEN_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*|\d+(?:[.,]\d+)*")
_ISO_DATE_RE = re.compile(r"\b(1\d{3}|20\d{2})-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\d|3[01])\b")
#: Where a number may start: digits, or a number word (checked by _text.extract_numbers).
_NUMBERISH_RE = re.compile(
    r"\d+|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b",
    re.IGNORECASE,
)
_CLAUSE_SPLIT_RE = re.compile(
    r"[,;:()\[\]]|\s-\s|\b(?:and|but|while|which|who|whom|whose|whereas|although|though|including|where|"
    r"when|after|before|because|since)\b",
    re.IGNORECASE,
)


def _word_key(word: str) -> str | None:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) < 2 or word in STOPWORDS or word in NEGATIONS or word.endswith("n't"):
        return None
    if word[0].isdigit():
        return None  # numbers are compared by value, see _numbers
    if len(word) <= 4 and word in _MONTH_ABBR:
        word = _MONTH_ABBR[word]
    s = stem(word)
    return SYNONYMS.get(s, s)


class _KeyCache(dict[str, str | None]):
    def __missing__(self, word: str) -> str | None:
        key = _word_key(word)
        if len(self) < 1_000_000:
            self[word] = key
        return key


_KEY_CACHE = _KeyCache()


def word_key(word: str) -> str | None:
    """The content key of a lower-case token (stem, canonicalised), or ``None`` for a function word,
    a negation or a number."""
    return _KEY_CACHE[word]


# --- numbers ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    """A number mentioned in a text."""

    value: float
    text: str
    #: Significant digits as written ("3.5 million" has 2), for rounded matches.
    digits: int
    #: Content key of the next word ("21 awards" -> "award"): the thing counted.
    unit: str
    start: int
    percent: bool = False
    #: The figure as written before a scale word ("906 million" -> 906), else the value.
    mantissa: float = 0.0

    @property
    def year_like(self) -> bool:
        return not self.percent and self.value == int(self.value) and 1000 <= self.value <= 2100

    def same_kind(self, other: Number) -> bool:
        """Whether two numbers count the same kind of thing: both years, both percentages, or the same
        word after them ("21 awards" / "19 awards")."""
        if self.year_like or other.year_like:
            return self.year_like and other.year_like
        if self.percent or other.percent:
            return self.percent and other.percent
        return bool(self.unit) and self.unit == other.unit


_SCALE_SUFFIX_RE = re.compile(r"\d\s?(m|bn|k)$")
_SCALE_SUFFIX = {"m": 1e6, "bn": 1e9, "k": 1e3}


def _significant_digits(text: str) -> int:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if not m:
        return 2
    core = m.group().replace(",", "")
    if "." in core:
        return max(1, len(core.replace(".", "").lstrip("0")))
    return max(1, len(core.lstrip("0").rstrip("0")))


def _numbers(text: str, *, skip_one: bool) -> list[Number]:
    """Numbers of a (typography-folded) text: values from :func:`_text.extract_numbers`, plus "2018-19"
    read as 2019 and the counted thing after each number."""
    out: list[Number] = []
    for m in extract_numbers(text):
        low = m.text.lower()
        if skip_one and low in ("one", "zero"):
            continue  # "one of the ..." is rarely a checkable quantity
        value = float(m.value)
        if len(low) == 2 and low.isdigit() and m.start >= 5 and text[m.start - 1] == "-":
            prev = text[m.start - 5 : m.start - 1]
            if prev.isdigit():
                value = float(int(prev) // 100 * 100 + int(low))
        suffix = _SCALE_SUFFIX_RE.search(low)
        if suffix and value < 1e4 and not m.percent:
            value *= _SCALE_SUFFIX[suffix.group(1)]  # "1.9m", "2bn" without a currency sign
        unit = ""
        for w in _TOKEN_RE.findall(text[m.end : m.end + 40].lower()):
            k = word_key(w)
            if k is not None:
                unit = k
                break
        written = re.match(r"[^\d]*(\d[\d,]*(?:\.\d+)?)", m.text)
        mantissa = float(written.group(1).replace(",", "")) if written else value
        out.append(Number(value, m.text, _significant_digits(m.text), unit, m.start, m.percent, mantissa))
    return out


def number_matches(num: Number, values: Sequence[float]) -> bool:
    """Whether ``num`` equals one of ``values``, exactly or as the claim rounded it ("about 3.5 million"
    matches 3,482,000)."""
    if num.value in values:
        return True
    if num.value == 0 or num.year_like or num.digits < 2:
        return False
    mag = math.floor(math.log10(abs(num.value)))
    half_step = 10.0 ** (mag - num.digits + 1) / 2
    return any(v and abs(v - num.value) <= half_step + 1e-9 * abs(num.value) for v in values)


# --- evidence -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class EvidenceIndex:
    """One evidence text, split into sentences and tokenised once."""

    text: str
    spans: list[tuple[int, int]]
    #: Content keys per sentence, in order.
    keys: list[list[str]]
    #: key -> ids of the sentences holding it.
    postings: dict[str, list[int]]
    #: first 5 letters of a key -> sentence ids (a weaker, morphological match: "musician" ~ "music").
    prefixes: dict[str, list[int]]
    _numbers: tuple[list[Number], list[int]] | None = None

    def __len__(self) -> int:
        return len(self.spans)

    def sentence(self, i: int) -> str:
        a, b = self.spans[i]
        return self.text[a:b]

    def numbers(self) -> tuple[list[Number], list[int]]:
        """The numbers of the text and the sentence of each (computed on first use: most claims have none)."""
        if self._numbers is None:
            nums: list[Number] = []
            where: list[int] = []
            starts = [a for a, _ in self.spans]
            todo = {bisect_right(starts, m.start()) - 1 for m in _NUMBERISH_RE.finditer(self.text)}
            for i in sorted(todo):
                if i < 0:
                    continue
                a, b = self.spans[i]
                found = _numbers(self.text[a:b], skip_one=False)
                if found:
                    nums.extend(found)
                    where.extend([i] * len(found))
            self._numbers = (nums, where)
        return self._numbers


def index_text(text: str) -> EvidenceIndex:
    """Index one evidence text (see :class:`EvidenceIndex`)."""
    text = fold_typography(text)
    spans = sentence_spans(text)
    lower = text.lower()
    get = _KEY_CACHE.__getitem__
    findall = _TOKEN_RE.findall
    keys = [[k for k in map(get, findall(lower, a, b)) if k] for a, b in spans]
    if "-" in text:
        starts = [a for a, _ in spans]
        for m in _ISO_DATE_RE.finditer(text):
            i = bisect_right(starts, m.start()) - 1
            if i >= 0:
                keys[i].append(_MONTHS[int(m.group(2)) - 1])
    postings: dict[str, list[int]] = {}
    for i, ks in enumerate(keys):
        for k in set(ks):
            if k in postings:
                postings[k].append(i)
            else:
                postings[k] = [i]
    prefixes: dict[str, list[int]] = {}
    for k, ids in postings.items():
        if len(k) >= 6:
            if k[:5] in prefixes:
                prefixes[k[:5]].extend(ids)
            else:
                prefixes[k[:5]] = list(ids)
    return EvidenceIndex(text, spans, keys, postings, prefixes)


# --- claims -------------------------------------------------------------------------------------------


@dataclass(slots=True)
class ClaimInfo:
    text: str
    #: Unique content keys, in order of first appearance.
    terms: list[str]
    #: A readable word of the claim for each key (for reasons).
    surface: dict[str, str]
    #: Keys written with a capital inside the sentence, or in capitals: names, places, titles, months.
    names: frozenset[str]
    numbers: list[Number]
    #: Pairs of consecutive content keys.
    bigrams: frozenset[tuple[str, str]]
    negated: bool
    #: Stems of all words (for quantity words).
    stems: frozenset[str]
    #: Content keys of each clause (split at commas, brackets and conjunctions).
    clauses: list[list[str]] = field(default_factory=list)
    #: The claim's first negation cue and the content keys right after its cues ("did not win" -> win).
    negation_scope: tuple[str, frozenset[str]] = ("", frozenset())


def _iso_month_words(text: str) -> str:
    return _ISO_DATE_RE.sub(lambda m: f"{m.group(0)} {_MONTHS[int(m.group(2)) - 1]}", text)


def analyse_claim(text: str) -> ClaimInfo:
    text = fold_typography(text)
    text_x = _iso_month_words(text) if "-" in text else text
    raw = _TOKEN_RE.findall(text_x)
    terms: list[str] = []
    surface: dict[str, str] = {}
    names: set[str] = set()
    seq: list[str] = []
    lower = [w.lower() for w in raw]
    for i, (w, lw) in enumerate(zip(raw, lower, strict=True)):
        k = word_key(lw)
        if k is None:
            continue
        seq.append(k)
        if k not in surface:
            surface[k] = w
            terms.append(k)
        if w[0].isupper() and (i > 0 or (w.isupper() and len(w) > 1)):
            names.add(k)
    clauses: list[list[str]] = []
    for part in _CLAUSE_SPLIT_RE.split(text_x):
        ks = [k for k in (word_key(w) for w in _TOKEN_RE.findall(part.lower())) if k] if part else []
        if not ks:
            continue
        if clauses and (len(ks) < 2 or len(clauses[-1]) < 2):
            clauses[-1].extend(ks)
        else:
            clauses.append(ks)
    return ClaimInfo(
        text=text,
        terms=terms,
        surface=surface,
        names=frozenset(names),
        numbers=_numbers(text, skip_one=True),
        bigrams=frozenset(pairwise(seq)),
        negated=_negation_count(lower) % 2 == 1,
        negation_scope=_negation_scope(lower),
        stems=frozenset(stem(w) for w in lower),
        clauses=clauses,
    )


def _is_negation(words: Sequence[str], i: int) -> bool:
    w = words[i]
    if w not in NEGATIONS and not w.endswith("n't"):
        return False
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if w == "not" and nxt == "only":
        return False
    return not (w == "no" and nxt in ("longer", "later", "more", "sooner", "less", "fewer"))


def _negation_scope(words: Sequence[str]) -> tuple[str, frozenset[str]]:
    cue = ""
    scope: set[str] = set()
    for i in range(len(words)):
        if _is_negation(words, i):
            cue = cue or words[i]
            scope.update(k for k in map(word_key, words[i + 1 : i + 1 + _SCOPE]) if k)
    return cue, frozenset(scope)


def _negation_count(words: Sequence[str]) -> int:
    return sum(1 for i in range(len(words)) if _is_negation(words, i))


# --- features -----------------------------------------------------------------------------------------

FEATURE_NAMES: tuple[str, ...] = (
    # weighted recall of the claim's content terms (names count 1.5)
    "recall_window",  # in the best window of 1-3 sentences
    "recall_window_idf",  # same, terms weighted by IDF over the evidence's sentences
    "recall_sentence",  # in the best single sentence
    "recall_top3",  # in the union of the 3 best windows
    "recall_evidence",  # anywhere in the evidence
    "precision_window",  # share of the window's content words that are claim terms
    "bigram_window",  # share of the claim's consecutive term pairs found (in order, gap <= 1) in the window
    "bigram_evidence",  # same, anywhere in the evidence
    "char_similarity",  # share of the claim's character 4-grams found in the window
    "clause_min_recall",  # recall of the worst-covered clause of the claim, anywhere in the evidence
    "name_missing_window",  # share of the claim's names absent from the window
    "name_missing_evidence",  # share of the claim's names absent from the evidence
    "number_missing_window",  # share of the claim's numbers absent from the window
    "number_missing_evidence",  # share of the claim's numbers absent from the evidence
    "missing_count",  # log(1 + number of claim terms absent from the evidence)
    "max_missing_weight",  # IDF of the rarest absent term / IDF of the rarest term
    "claim_length",  # log(1 + number of claim terms)
    "evidence_length",  # log(1 + number of evidence sentences): a short passage leaves context unsaid
    # rule signals, penalised with fixed weights; 0 when absent, else a strength in (0, 1]: how closely the
    # passage otherwise reads like the claim (a difference in a near-verbatim passage is a contradiction)
    "negation_mismatch",  # the claim and the passage disagree on negation (scoped to shared words)
    "quantity_mismatch",  # the passage says the opposite quantity/direction word (more/less, rise/fall ...)
    "number_conflict",  # the window gives another number of the same thing ("21 awards" vs "19 awards")
    "name_conflict",  # half the claim's names are absent from the evidence, its other words in the passage
)


@dataclass(slots=True)
class Passage:
    evidence: int
    #: First and last sentence (0-based, inclusive).
    start: int
    end: int
    text: str


@dataclass(slots=True)
class Features:
    values: dict[str, float]
    passage: Passage | None
    #: Claim words found nowhere in the evidence.
    missing_terms: list[str]
    #: Claim words found in the evidence but not in the best passage.
    missing_in_passage: list[str]
    #: Claim numbers found nowhere in the evidence.
    missing_numbers: list[str]
    #: (claim number, passage number) pairs counting the same thing differently.
    conflicting_numbers: list[tuple[str, str]]
    #: The negation cue that differs ("claim: not" or "passage: never"), or "".
    negation: str
    #: (claim word, passage word) opposite pairs.
    quantity: list[tuple[str, str]]

    def vector(self) -> list[float]:
        return [self.values[name] for name in FEATURE_NAMES]


def _scoped_negation(words: Sequence[str], wkeys: Sequence[str | None], terms: frozenset[str]) -> str:
    """The first negation cue in ``words`` with a claim term within the next few words, or ""."""
    for i in range(len(words)):
        if _is_negation(words, i) and any(k in terms for k in wkeys[i + 1 : i + 1 + _SCOPE] if k):
            return words[i]
    return ""


def extract(claim: ClaimInfo, evidence: Sequence[EvidenceIndex], *, candidates: int = 4) -> Features:
    """Every signal of how well ``evidence`` (one or more texts) supports ``claim``."""
    import numpy as np

    terms = claim.terms
    n_terms = len(terms)
    total_sent = sum(len(ev) for ev in evidence)
    weights = np.array([1.5 if t in claim.names else 1.0 for t in terms], dtype=np.float64)
    df = np.array(
        [sum(len(ev.postings.get(t, ())) for ev in evidence) for t in terms], dtype=np.float64
    ).reshape(n_terms)
    idf = np.log((total_sent + 1.0) / (df + 0.5)) + 1.0
    widf = weights * idf
    wsum = float(weights.sum()) or 1.0
    widf_sum = float(widf.sum()) or 1.0
    claim_values = [n.value for n in claim.numbers]

    # 1. cheap scan of every window of 1..3 sentences, from the inverted index
    found_anywhere = np.zeros(n_terms, dtype=np.float64)
    best_sentence = 0.0
    cands: list[tuple[float, int, int, int]] = []  # (rank score, evidence, first, last)
    for e, ev in enumerate(evidence):
        n = len(ev)
        if n == 0:
            continue
        pres = np.zeros((n_terms, n), dtype=np.float64)
        for i, t in enumerate(terms):
            if len(t) >= 6:
                ps = ev.prefixes.get(t[:5])
                if ps:
                    pres[i, ps] = 0.5
            ids = ev.postings.get(t)
            if ids:
                pres[i, ids] = 1.0
        if n_terms:
            np.maximum(found_anywhere, pres.max(axis=1), out=found_anywhere)
        num_hits = np.zeros(n, dtype=np.float64)
        if claim_values:
            for num, s in zip(*ev.numbers(), strict=True):
                if num.value in claim_values:
                    num_hits[s] += 1.0
        for size in (1, 2, 3):
            if size > n:
                break
            m = n - size + 1
            win = pres[:, :m].copy()
            nh = num_hits[:m].copy()
            for off in range(1, size):
                np.maximum(win, pres[:, off : off + m], out=win)
                nh += num_hits[off : off + m]
            scores = (widf @ win) / widf_sum if n_terms else np.zeros(m)
            if size == 1 and m:
                best_sentence = max(best_sentence, float(((weights @ win) / wsum).max()) if n_terms else 0.0)
            rank = scores + 0.1 * np.minimum(nh, len(claim_values)) / max(1, len(claim_values)) - 0.01 * size
            k = min(candidates, m)
            top = np.argpartition(-rank, k - 1)[:k] if m > k else np.arange(m)
            cands.extend((float(rank[s]), e, int(s), int(s) + size - 1) for s in top.tolist())
    cands.sort(key=lambda c: (-c[0], c[1], c[2], c[3]))
    cands = cands[:candidates]

    values = dict.fromkeys(FEATURE_NAMES, 0.0)
    term_set = frozenset(terms)
    present = {t for i, t in enumerate(terms) if found_anywhere[i] >= 1.0}
    values["recall_evidence"] = float(weights @ found_anywhere) / wsum if n_terms else 0.0
    values["recall_sentence"] = best_sentence
    values["claim_length"] = math.log1p(n_terms)
    values["evidence_length"] = math.log1p(total_sent)
    values["missing_count"] = math.log1p(n_terms - len(present))
    missing_idf = [float(widf[i]) for i in range(n_terms) if terms[i] not in present]
    values["max_missing_weight"] = max(missing_idf) / float(widf.max()) if missing_idf else 0.0
    values["clause_min_recall"] = (
        min(sum(1 for k in c if k in present) / len(c) for c in claim.clauses) if claim.clauses else 0.0
    )
    names = [t for t in terms if t in claim.names]
    values["name_missing_evidence"] = sum(1 for t in names if t not in present) / len(names) if names else 0.0
    all_values = (
        [v for ev in evidence for n in ev.numbers()[0] for v in {n.value, n.mantissa}]
        if claim.numbers
        else []
    )
    missing_numbers = [n for n in claim.numbers if not number_matches(n, all_values)]
    values["number_missing_evidence"] = len(missing_numbers) / len(claim.numbers) if claim.numbers else 0.0
    if claim.bigrams:
        hit = 0
        for a, b in claim.bigrams:
            done = False
            for ev in evidence:
                pa, pb = ev.postings.get(a), ev.postings.get(b)
                if not pa or not pb:
                    continue
                for s in sorted(set(pa) & set(pb)):
                    if _has_bigram(ev.keys[s], a, b):
                        done = True
                        break
                if done:
                    break
            hit += done
        values["bigram_evidence"] = hit / len(claim.bigrams)

    # 2. finer signals on the best few windows; keep the one with the best combined evidence
    best: _Window | None = None
    for _rank, e, first, last in cands:
        w = _window_signals(claim, evidence[e], e, first, last, weights, widf, names)
        if best is None or w.quality > best.quality + 1e-12:
            best = w

    passage: Passage | None = None
    conflicts: list[tuple[str, str]] = []
    negation = ""
    quantity: list[tuple[str, str]] = []
    missing_in_passage: list[str] = []
    if best is not None:
        values.update(best.values)
        ev = evidence[best.evidence]
        passage = Passage(
            best.evidence, best.first, best.last, ev.text[ev.spans[best.first][0] : ev.spans[best.last][1]]
        )
        union = best.presence.copy()
        for _rank, e, first, last in cands[:3]:
            ks = {k for j in range(first, last + 1) for k in evidence[e].keys[j]}
            union = np.maximum(union, np.array([1.0 if x in ks else 0.0 for x in terms]))
        values["recall_top3"] = float(weights @ union) / wsum if n_terms else 0.0
        values["char_similarity"] = _char_similarity(claim.text, passage.text)
        missing_in_passage = [claim.surface[x] for x in terms if x in present and x not in best.keys]
        # a claim number missing from the passage while the passage gives another number of the same kind
        passage_values = [v for pn in best.numbers for v in {pn.value, pn.mantissa}]
        for cn in claim.numbers:
            if number_matches(cn, passage_values) or (cn.year_like and cn not in missing_numbers):
                continue  # a year is checked against the whole evidence (dates sit in headers)
            for pn in best.numbers:
                if pn.value != cn.value and cn.same_kind(pn):
                    conflicts.append((cn.text, pn.text))
                    break
        # negation and quantity words: judged sentence by sentence in the passage, only in sentences that
        # hold a good share of the claim (elsewhere a "not" is about something else); the strength of a
        # mismatch is that share or the passage's recall of the claim, whichever is larger
        ev = evidence[best.evidence]
        neg_strength = quant_strength = 0.0
        claim_cue, claim_scope = claim.negation_scope
        for j in range(best.first, best.last + 1):
            ks = set(ev.keys[j])
            r = sum(float(weights[i]) for i, x in enumerate(terms) if x in ks) / wsum if n_terms else 0.0
            if r < ALIGNED_RECALL:
                continue
            words_p = [x.lower() for x in _TOKEN_RE.findall(ev.sentence(j))]
            wkeys_p = [word_key(x) for x in words_p]
            neg_p = _scoped_negation(words_p, wkeys_p, term_set)
            if claim_cue and not neg_p and claim_scope & ks and r > neg_strength:
                negation = f"the claim says {claim_cue!r} but the passage does not"
                neg_strength = r
            elif neg_p and not claim_cue and r > neg_strength:
                negation = f"the passage says {neg_p!r} but the claim does not"
                neg_strength = r
            stems_p = [stem(x) for x in words_p]
            stems_p_set = frozenset(stems_p)
            for word in claim.stems & _ANTONYM_OF.keys():
                if word in stems_p_set or (_ANTONYM_OF[word] & claim.stems):
                    continue
                if word in DIRECTION_UP or word in DIRECTION_DOWN:
                    same_side = DIRECTION_UP if word in DIRECTION_UP else DIRECTION_DOWN
                    if same_side & stems_p_set:
                        continue  # the passage also says the claim's direction
                for opposite in sorted(_ANTONYM_OF[word] & stems_p_set):
                    if _near_claim_term(stems_p, wkeys_p, opposite, term_set):
                        if (word, opposite) not in quantity:
                            quantity.append((word, opposite))
                        quant_strength = max(quant_strength, r)
                        break
        closeness = values["recall_window"]
        values["negation_mismatch"] = max(neg_strength, closeness) if negation else 0.0
        values["quantity_mismatch"] = max(quant_strength, closeness) if quantity else 0.0
        values["number_conflict"] = values["recall_window"] if conflicts else 0.0
        others = [i for i, x in enumerate(terms) if x not in claim.names]
        if values["name_missing_evidence"] >= 0.5 and others:
            rest = sum(float(best.presence[i]) for i in others) / len(others)
            values["name_conflict"] = rest if rest >= 0.8 else 0.0
    return Features(
        values=values,
        passage=passage,
        missing_terms=[claim.surface[x] for x in terms if x not in present],
        missing_in_passage=missing_in_passage,
        missing_numbers=[n.text for n in missing_numbers],
        conflicting_numbers=conflicts,
        negation=negation,
        quantity=sorted(quantity),
    )


@dataclass(slots=True)
class _Window:
    evidence: int
    first: int
    last: int
    values: dict[str, float]
    presence: Any
    keys: set[str]
    numbers: list[Number]
    quality: float


def _window_signals(
    claim: ClaimInfo,
    ev: EvidenceIndex,
    e: int,
    first: int,
    last: int,
    weights: Any,
    widf: Any,
    names: list[str],
) -> _Window:
    import numpy as np

    terms = claim.terms
    keys_w = [k for j in range(first, last + 1) for k in ev.keys[j]]
    set_w = set(keys_w)
    pref_w = {k[:5] for k in set_w if len(k) >= 6}
    pres = np.array(
        [1.0 if x in set_w else (0.5 if len(x) >= 6 and x[:5] in pref_w else 0.0) for x in terms],
        dtype=np.float64,
    )
    wsum = float(weights.sum()) or 1.0
    widf_sum = float(widf.sum()) or 1.0
    f: dict[str, float] = {}
    f["recall_window"] = float(weights @ pres) / wsum if terms else 0.0
    f["recall_window_idf"] = float(widf @ pres) / widf_sum if terms else 0.0
    f["precision_window"] = len(set_w.intersection(terms)) / len(set_w) if set_w else 0.0
    f["bigram_window"] = (
        sum(1 for a, b in claim.bigrams if _has_bigram(keys_w, a, b)) / len(claim.bigrams)
        if claim.bigrams
        else 0.0
    )
    f["name_missing_window"] = sum(1 for x in names if x not in set_w) / len(names) if names else 0.0
    nums: list[Number] = []
    if claim.numbers:
        nums = [num for num, j in zip(*ev.numbers(), strict=True) if first <= j <= last]
        values = [v for num in nums for v in {num.value, num.mantissa}]
        missing = sum(1 for n in claim.numbers if not number_matches(n, values))
        f["number_missing_window"] = missing / len(claim.numbers)
    else:
        f["number_missing_window"] = 0.0
    quality = (
        f["recall_window_idf"]
        + 0.3 * f["bigram_window"]
        - 0.2 * f["number_missing_window"]
        - 0.01 * (last - first)
    )
    return _Window(e, first, last, f, pres, set_w, nums, quality)


def _has_bigram(keys: Sequence[str], a: str, b: str) -> bool:
    """Whether ``b`` follows ``a`` in ``keys`` with at most one key between them."""
    return any(k == a and b in keys[i + 1 : i + 3] for i, k in enumerate(keys))


def _near_claim_term(
    stems_p: Sequence[str], wkeys_p: Sequence[str | None], word: str, terms: frozenset[str]
) -> bool:
    for i, s in enumerate(stems_p):
        if s == word and any(k in terms for k in wkeys_p[max(0, i - _SCOPE) : i + 1 + _SCOPE] if k):
            return True
    return False


def _char_ngrams(text: str, n: int = 4) -> set[str]:
    t = " " + " ".join(_TOKEN_RE.findall(text.lower())) + " "
    return {t[i : i + n] for i in range(len(t) - n + 1)}


def _char_similarity(claim: str, passage: str) -> float:
    """Share of the claim's character 4-grams found in the passage, in [0, 1]: sees morphology and spelling
    variants that stemming misses."""
    a = _char_ngrams(claim)
    return len(a & _char_ngrams(passage)) / len(a) if a else 0.0
