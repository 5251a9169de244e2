"""A claim read for grading: its content terms, names, numbers, word pairs and clauses, and the parts of a
several-sentence claim."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from graderctl.kinds._support_features.keys import CLAUSE_SPLIT_RE, ISO_DATE_RE, word_key
from graderctl.kinds._support_features.numbers import Number
from graderctl.kinds._support_features.reading import Reading, read
from graderctl.kinds._support_features.vocab import MONTHS
from graderctl.language.sentences import split_sentences
from graderctl.language.tokens import WORD_TOKEN_RE
from graderctl.language.typography import fold_typography

# --- claims -------------------------------------------------------------------------------------------


@dataclass(slots=True)
class ClaimInfo:
    text: str
    #: Unique content keys, in order of first appearance.
    terms: list[str]
    #: A readable word of the claim for each key (for reasons).
    surface: dict[str, str]
    #: Keys of the claim's names (capitalised spans).
    names: frozenset[str]
    numbers: list[Number]
    #: Pairs of consecutive content keys.
    bigrams: frozenset[tuple[str, str]]
    reading: Reading
    #: Content keys of each clause (split at commas, brackets and conjunctions).
    clauses: list[list[str]]
    #: The claim's first word (lower case) when it is capitalised only because it starts the sentence.
    initial_key: str | None = None
    term_set: frozenset[str] = frozenset()

    @property
    def negated(self) -> bool:
        return bool(self.reading.negations)


def _iso_month_words(text: str) -> str:
    return ISO_DATE_RE.sub(lambda m: f"{m.group(0)} {MONTHS[int(m.group(2)) - 1]}", text)


#: Citation markers a report puts in a claim ("[1]", "[2, 3]", "[4-6]", "[citation needed]"): not part of
#: what the claim says, so not numbers to find in the evidence.
_CITATION_MARKER_RE = re.compile(
    r"\s*\[(?:\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*|citation needed|source|sources?\s*\d{1,3})\]", re.IGNORECASE
)


def strip_citation_markers(text: str) -> str:
    """The claim without its citation markers ("... in 2019 [1][2]." -> "... in 2019.")."""
    return _CITATION_MARKER_RE.sub("", text) if "[" in text else text


#: A sentence of a several-sentence claim with fewer content terms than this is graded with the one before
#: it (or after it), not alone ("This matters.", "It grew.").
MIN_PART_TERMS = 3


def claim_parts(text: str) -> list[str]:
    """The parts of a claim to grade one by one: its sentences, each with at least :data:`MIN_PART_TERMS`
    content terms (a shorter sentence joins its neighbour). A one-sentence claim is one part."""
    text = strip_citation_markers(text).strip()
    sentences = split_sentences(text)
    if len(sentences) < 2:
        return [text]
    parts: list[str] = []
    terms: list[int] = []  # content terms of each part, counted once per part (again only when it grows)
    for sentence in sentences:
        n = len(analyse_claim(sentence).terms)
        if parts and (n < MIN_PART_TERMS or terms[-1] < MIN_PART_TERMS):
            parts[-1] = f"{parts[-1]} {sentence}"
            terms[-1] = len(analyse_claim(parts[-1]).terms)
        else:
            parts.append(sentence)
            terms.append(n)
    return parts


def analyse_claim(text: str) -> ClaimInfo:
    text = fold_typography(strip_citation_markers(text)).strip()
    text_x = _iso_month_words(text) if "-" in text else text
    r = read(text_x, skip_one=True)
    terms: list[str] = []
    surface: dict[str, str] = {}
    seq: list[str] = []
    for w, k in zip(r.words, r.wkeys, strict=True):
        if k is None:
            continue
        seq.append(k)
        if k not in surface:
            surface[k] = w
            terms.append(k)
    names = {k for n in r.names for k in n.keys}
    clauses: list[list[str]] = []
    for part in CLAUSE_SPLIT_RE.split(text_x):
        ks = [k for k in (word_key(w) for w in WORD_TOKEN_RE.findall(part)) if k] if part else []
        if not ks:
            continue
        if clauses and (len(ks) < 2 or len(clauses[-1]) < 2):
            clauses[-1].extend(ks)
        else:
            clauses.append(ks)
    initial = None
    if r.words and r.words[0][:1].isupper() and r.wkeys[0] and not any(n.first == 0 for n in r.names):
        initial = r.wkeys[0]
    return ClaimInfo(
        text=text,
        terms=terms,
        surface=surface,
        names=frozenset(names),
        numbers=r.numbers,
        bigrams=frozenset(pairwise(seq)),
        reading=r,
        clauses=clauses,
        initial_key=initial,
        term_set=frozenset(terms),
    )
