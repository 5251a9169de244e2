"""Every signal of how well the evidence supports a claim: the cheap scan of every window of 1-3 sentences,
the finer signals of the best few windows, then the rule signals and the vetoes on the best one."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graderctl.kinds._support_features.claims import ClaimInfo
from graderctl.kinds._support_features.evidence import EvidenceIndex
from graderctl.kinds._support_features.model import FEATURE_NAMES, Features, Passage
from graderctl.kinds._support_features.numbers import Number, number_matches
from graderctl.kinds._support_features.rules import apply_rules, rule_context
from graderctl.kinds._support_features.vetoes import apply_vetoes
from graderctl.language.tokens import WORD_TOKEN_RE


def extract(claim: ClaimInfo, evidence: Sequence[EvidenceIndex], *, candidates: int = 4) -> Features:
    """Every signal of how well ``evidence`` (one or more texts) supports ``claim``."""
    import numpy as np

    terms = claim.terms
    n_terms = len(terms)
    total_sent = sum(len(ev) for ev in evidence)
    weights = np.array([1.5 if t in claim.names else 1.0 for t in terms], dtype=np.float64)
    df = np.array(
        [sum(ev.masks.get(t, 0).bit_count() for ev in evidence) for t in terms], dtype=np.float64
    ).reshape(n_terms)
    idf = np.log((total_sent + 1.0) / (df + 0.5)) + 1.0
    widf = weights * idf
    wsum = float(weights.sum()) or 1.0
    widf_sum = float(widf.sum()) or 1.0

    # numbers of the claim found in the evidence, and the sentences holding them
    number_hit_sentences: list[set[int]] = [set() for _ in evidence]
    found_numbers = [False] * len(claim.numbers)
    if claim.numbers:
        for e, ev in enumerate(evidence):
            for s in sorted(ev.number_sentences(claim.numbers)):
                nums = ev.sentence_numbers(s)
                for c, cn in enumerate(claim.numbers):
                    if number_matches(cn, nums) or any(
                        (cn.is_year == pn.is_year) and {cn.value, cn.mantissa} & {pn.value, pn.mantissa}
                        for pn in nums
                    ):
                        found_numbers[c] = True
                        number_hit_sentences[e].add(s)

    # 1. cheap scan of every window of 1..3 sentences, from the inverted index
    found_anywhere = np.zeros(n_terms, dtype=np.float64)
    best_sentence = 0.0
    # (rank score, evidence, first, last, IDF-weighted recall of the window)
    cands: list[tuple[float, int, int, int, float]] = []
    n_claim_numbers = len(claim.numbers)
    for e, ev in enumerate(evidence):
        n = len(ev)
        if n == 0:
            continue
        # presence of each term in each sentence: 1 for the term, 0.5 for a word sharing its first 5 letters
        nb = (n + 7) // 8
        exact = [ev.masks.get(t, 0) for t in terms]
        near = [ev.prefix_mask(t[:5]) if len(t) >= 6 else 0 for t in terms]
        raw = np.frombuffer(b"".join(m.to_bytes(nb, "little") for m in (*exact, *near)), dtype=np.uint8)
        bits = np.unpackbits(raw.reshape(2 * n_terms, nb), axis=1, count=n, bitorder="little")
        pres = np.where(bits[:n_terms], 1.0, np.where(bits[n_terms:], 0.5, 0.0))
        if n_terms:
            np.maximum(found_anywhere, pres.max(axis=1), out=found_anywhere)
        num_hits = np.zeros(n if n_claim_numbers else 0, dtype=np.float64)
        for s in number_hit_sentences[e]:
            num_hits[s] = 1.0
        for size in (1, 2, 3):
            if size > n:
                break
            m = n - size + 1
            win = pres[:, :m].copy()
            for off in range(1, size):
                np.maximum(win, pres[:, off : off + m], out=win)
            scores = (widf @ win) / widf_sum if n_terms else np.zeros(m)
            if size == 1 and m:
                best_sentence = max(best_sentence, float(((weights @ win) / wsum).max()) if n_terms else 0.0)
            rank = scores - 0.03 * (size - 1)
            if n_claim_numbers:
                nh = num_hits[:m].copy()
                for off in range(1, size):
                    nh += num_hits[off : off + m]
                rank = rank + 0.15 * np.minimum(nh, n_claim_numbers) / n_claim_numbers
            k = min(candidates, m)
            top = np.argpartition(-rank, k - 1)[:k] if m > k else np.arange(m)
            cands.extend(
                (float(rank[s]), e, int(s), int(s) + size - 1, float(scores[s])) for s in top.tolist()
            )
    cands.sort(key=lambda c: (-c[0], c[1], c[2], c[3]))
    cands = cands[:candidates]

    values = dict.fromkeys(FEATURE_NAMES, 0.0)
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
    missing_numbers = [n for n, ok in zip(claim.numbers, found_numbers, strict=True) if not ok]
    values["number_missing_evidence"] = len(missing_numbers) / len(claim.numbers) if claim.numbers else 0.0

    # 2. finer signals on the best few windows; keep the one with the best combined evidence
    best: Window | None = None
    for _rank, e, first, last, recall_idf in cands:
        if (
            best is not None
            and _SKIP_BOUNDED_WINDOWS
            and recall_idf + 0.3 - 0.03 * (last - first) + 1e-9 <= best.quality + 1e-12
        ):
            # its quality (see window_signals) is at most this, even with every word pair in order and
            # every number: it cannot be better than the best so far
            continue
        w = window_signals(claim, evidence[e], e, first, last, weights, widf, names)
        if best is None or w.quality > best.quality + 1e-12:
            best = w

    feats = Features(
        values=values,
        passage=None,
        missing_terms=[claim.surface[x] for x in terms if x not in present],
        missing_in_passage=[],
        missing_numbers=[n.text for n in missing_numbers],
        conflicting_numbers=[],
        negation="",
        quantity=[],
    )
    if best is None:
        apply_vetoes(claim, feats)
        return feats
    values.update(best.values)
    ev = evidence[best.evidence]
    feats.passage = Passage(
        best.evidence, best.first, best.last, ev.text[ev.spans[best.first][0] : ev.spans[best.last][1]]
    )
    union = best.presence.copy()
    for _rank, e, first, last, _recall in cands[:3]:
        ks = {k for j in range(first, last + 1) for k in evidence[e].keys[j]}
        union = np.maximum(union, np.array([1.0 if x in ks else 0.0 for x in terms]))
    values["recall_top3"] = float(weights @ union) / wsum if n_terms else 0.0
    values["char_similarity"] = char_similarity(claim.text, feats.passage.text)
    feats.missing_in_passage = [claim.surface[x] for x in terms if x in present and x not in best.keys]
    ctx = rule_context(
        claim,
        ev,
        best.first,
        best.last,
        presence=best.presence,
        weights=weights,
        wsum=wsum,
        closeness=values["recall_window"],
    )
    apply_rules(ctx, feats)
    apply_vetoes(claim, feats)
    return feats


#: Skip a candidate window that cannot beat the best so far (tests turn it off to check that nothing changes).
_SKIP_BOUNDED_WINDOWS = True


@dataclass(slots=True)
class Window:
    evidence: int
    first: int
    last: int
    values: dict[str, float]
    presence: Any
    keys: set[str]
    numbers: list[Number]
    quality: float


def window_signals(
    claim: ClaimInfo,
    ev: EvidenceIndex,
    e: int,
    first: int,
    last: int,
    weights: Any,
    widf: Any,
    names: list[str],
) -> Window:
    import numpy as np

    terms = claim.terms
    pres_terms = claim.term_set
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
    if claim.bigrams:
        pos: dict[str, set[int]] = {}
        for i, k in enumerate(keys_w):
            if k in claim.names or k in pres_terms:
                pos.setdefault(k, set()).add(i)
        hits = 0
        for a, b in claim.bigrams:
            pa, pb = pos.get(a), pos.get(b)
            if pa and pb and any(i + 1 in pb or i + 2 in pb for i in pa):
                hits += 1
        f["bigram_window"] = hits / len(claim.bigrams)
    else:
        f["bigram_window"] = 0.0
    f["name_missing_window"] = sum(1 for x in names if x not in set_w) / len(names) if names else 0.0
    nums: list[Number] = []
    if claim.numbers:
        for j in range(first, last + 1):
            nums.extend(ev.sentence_numbers(j))
        missing = sum(1 for n in claim.numbers if not number_matches(n, nums))
        f["number_missing_window"] = missing / len(claim.numbers)
    else:
        f["number_missing_window"] = 0.0
    quality = (
        f["recall_window_idf"]
        + 0.3 * f["bigram_window"]
        - 0.2 * f["number_missing_window"]
        - 0.03 * (last - first)
    )
    return Window(e, first, last, f, pres, set_w, nums, quality)


def _char_ngrams(text: str, n: int = 4) -> set[str]:
    t = " " + " ".join(WORD_TOKEN_RE.findall(text.lower())) + " "
    return {t[i : i + n] for i in range(len(t) - n + 1)}


@functools.lru_cache(maxsize=4096)
def _passage_ngrams(passage: str) -> frozenset[str]:
    """:func:`_char_ngrams` of a passage of the evidence (the same pages are cited again and again)."""
    return frozenset(_char_ngrams(passage))


def char_similarity(claim: str, passage: str) -> float:
    """Share of the claim's character 4-grams found in the passage, in [0, 1]: sees morphology and spelling
    variants that stemming misses."""
    a = _char_ngrams(claim)
    return len(a & _passage_ngrams(passage)) / len(a) if a else 0.0
