"""Built-in kind ``claim_support``: does the evidence support the claim?

The evidence (corpus documents by ``source_id``, or inline ``text``) is split into sentences; every window of
1-3 consecutive sentences is a candidate passage. A cheap scan (weighted recall of the claim's stemmed content
words, from a per-document index of the sentences holding each word) keeps the best few windows, and finer
signals are computed on those: IDF-weighted recall, ordered word pairs, character 4-grams, names, numbers (by
value: "3.5 million" equals "3,500,000", "40%" is a rounding of 39.6%, 1.2 GW equals 1,200 MW), plus
linguistic rule signals: a name of the claim missing from the passage or replaced by another of the same type,
a number or date of the same kind that differs, a negation mismatch scoped to the denied word, opposite
direction words, a universal claim against a limited source, a causal claim against a correlational or silent
source (see :mod:`graderctl.kinds._support_features`).

All signals, rule signals included, are combined by one logistic model whose weights, centring, scaling,
intercept and threshold live in the grader definition's ``[params]`` (fitted by
``benchmarks/fit_claim_support.py`` on WiCE development data plus synthetic perturbations of it, so they are
versioned and fingerprinted); grading is plain arithmetic, no pickles, no model downloads::

    z = intercept + sum_f weight[f] * (x_f - center[f]) / scale[f] - sum_r penalty[r] * x_r
    score = 1 / (1 + exp(-z));  accepted when score >= threshold

except that explicit, high-precision contradictions in the best passage veto the claim whatever the fitted
model says (the score is capped at half the threshold and the reason says "rejected outright: ..."): a claim
number or date contradicted by another value of the same kind, opposite direction words on the same
predicate, a negation mismatch or a passage saying the claim's matter was not measured ("did not measure
fruit yield"), each when the passage otherwise reads like the claim; and a floor on recall: most of the
claim's content words nowhere in the evidence.

(``penalties`` are optional fixed extra penalties of rule signals; the shipped model uses none.)

Citation markers in the claim ("[1]", "[2, 3]", "[citation needed]") are dropped before grading. A claim of
several sentences (an answer paragraph) is graded sentence by sentence, a sentence of fewer than three content
words joining its neighbour, and is supported only when every sentence is: the weakest sentence (a vetoed one
first, then the lowest score) gives the verdict, the score and the reason, which names it ("claim sentence 3
of 3 (...) is not supported ..."); ``details.claim_parts`` lists each sentence with its score. Read as one,
two well-supported sentences would carry an unsupported third (implementation 3; before, the whole claim was
scored at once).

The reason quotes the best passage with its location (document id, sentence numbers counted from 1) and names
what the claim says that the passage leaves unsupported: a missing or different name, a number or date that
differs (claim says X, passage says Y), a negation mismatch, a causal claim against a correlational source, a
universal claim against a limited source, words and numbers found nowhere.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from graderctl.kinds import _support_features as sf
from graderctl.models.base import Check
from graderctl.models.calset import ClaimSupportInput, SampleInput
from graderctl.plugin import BandParams, GraderKind, GradingContext, Verdict, decide

_INDEX_KEY = "claim_support/evidence-index/v1/"

#: Rule signals (entity, number/date, negation, direction, scope, cause); fitted like every other feature.
RULE_FEATURES: tuple[str, ...] = sf.RULE_FEATURES

# The model fitted by benchmarks/fit_claim_support.py and stored in graders/claim-support/v1.toml. It is the
# default, so a definition without a fitted model still grades sensibly; tests keep the two equal.
DEFAULT_INTERCEPT = 0.330109
DEFAULT_WEIGHTS: dict[str, float] = {
    "recall_window_idf": 0.235386,
    "recall_evidence": 0.051713,
    "char_similarity": 0.495856,
    "bigram_window": -0.300756,
    "name_missing_evidence": -0.326054,
    "number_missing_evidence": -0.340356,
    "number_missing_window": -0.337215,
    "evidence_length": -0.114432,
    "entity_missing": -0.760334,
    "entity_conflict": -1.38149,
    "number_conflict": -1.62045,
    "date_conflict": -0.308083,
    "negation_mismatch": -2.28465,
    "quantity_mismatch": -1.74372,
    "scope_unsupported": -3.57426,
    "causal_unsupported": -2.7563,
}
DEFAULT_CENTER: dict[str, float] = {
    "recall_window_idf": 0.500208,
    "recall_evidence": 0.685625,
    "char_similarity": 0.453023,
    "bigram_window": 0.27159,
    "name_missing_evidence": 0.164151,
    "number_missing_evidence": 0.182956,
    "number_missing_window": 0.301021,
    "evidence_length": 2.98677,
    "entity_missing": 0,
    "entity_conflict": 0,
    "number_conflict": 0,
    "date_conflict": 0,
    "negation_mismatch": 0,
    "quantity_mismatch": 0,
    "scope_unsupported": 0,
    "causal_unsupported": 0,
}
DEFAULT_SCALE: dict[str, float] = {
    "recall_window_idf": 0.224837,
    "recall_evidence": 0.219438,
    "char_similarity": 0.179101,
    "bigram_window": 0.218613,
    "name_missing_evidence": 0.278313,
    "number_missing_evidence": 0.344854,
    "number_missing_window": 0.406222,
    "evidence_length": 1.69263,
    "entity_missing": 1,
    "entity_conflict": 1,
    "number_conflict": 1,
    "date_conflict": 1,
    "negation_mismatch": 1,
    "quantity_mismatch": 1,
    "scope_unsupported": 1,
    "causal_unsupported": 1,
}
DEFAULT_PENALTIES: dict[str, float] = {}
DEFAULT_THRESHOLD = 0.5
#: A vetoed claim's score is at most this share of the threshold (so it is rejected whatever the fit says).
VETO_SCORE_CAP = 0.5


class ClaimSupportParams(BandParams, GraderKind.Params):
    """``[params]`` of a ``claim_support`` grader (``accept_at_or_above`` / ``reject_below``: an optional
    abstention band around ``threshold``; see :class:`graderctl.plugin.BandParams`)."""

    threshold: float = Field(
        default=DEFAULT_THRESHOLD, ge=0, le=1, description="Accept when the support score is at least this."
    )
    intercept: float = Field(default=DEFAULT_INTERCEPT, description="Intercept of the logistic model.")
    weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_WEIGHTS),
        description="Weight of each feature (names from _support_features.FEATURE_NAMES), after scaling.",
    )
    center: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_CENTER), description="Value subtracted from each feature."
    )
    scale: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_SCALE), description="Divisor of each centred feature (> 0)."
    )
    penalties: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_PENALTIES),
        description=(
            "Optional fixed logit penalty of a rule signal (names from _support_features.RULE_FEATURES), "
            "multiplied by the signal's strength in [0, 1]; the fitted model puts rule signals in weights."
        ),
    )
    candidates: int = Field(
        default=4, ge=1, le=50, description="How many best windows get the finer (more expensive) signals."
    )
    passage_chars_shown: int = Field(
        default=300, ge=40, description="Longest passage quoted in a reason (the middle is elided)."
    )
    max_terms_shown: int = Field(default=6, ge=1, description="Most unsupported words named in a reason.")

    @model_validator(mode="after")
    def _consistent_model(self) -> ClaimSupportParams:
        known = set(sf.FEATURE_NAMES)
        for field_name, table in (("weights", self.weights), ("center", self.center), ("scale", self.scale)):
            unknown = sorted(set(table) - known)
            if unknown:
                raise ValueError(
                    f"{field_name} names unknown features {unknown}; known: {', '.join(sf.FEATURE_NAMES)}"
                )
        for name in self.weights:
            if name not in self.center or name not in self.scale:
                raise ValueError(f"feature {name!r} has a weight but no center/scale; give both")
            if not self.scale[name] > 0:
                raise ValueError(f"scale of {name!r} must be > 0, got {self.scale[name]}")
        unknown_rules = sorted(set(self.penalties) - set(RULE_FEATURES))
        if unknown_rules:
            raise ValueError(
                f"penalties names unknown rules {unknown_rules}; known: {', '.join(RULE_FEATURES)}"
            )
        self.check_band(self.threshold)
        return self


def support_score(values: dict[str, float], params: ClaimSupportParams) -> float:
    """The support score in [0, 1] of a feature vector under a model (the grader's arithmetic, exposed for
    the fitting script)."""
    z = params.intercept
    for name, w in params.weights.items():
        z += w * (values[name] - params.center[name]) / params.scale[name]
    for name, p in params.penalties.items():
        z -= p * values[name]
    if z >= 0:
        score = 1.0 / (1.0 + math.exp(-z))
    else:
        ez = math.exp(z)
        score = ez / (1.0 + ez)
    if values.get("veto", 0.0) > 0:
        # an explicit contradiction or a claim mostly absent from the evidence decides alone
        return min(score, VETO_SCORE_CAP * params.threshold)
    return score


class ClaimSupportGrader(GraderKind):
    """Lexical and numeric evidence of support, combined by a small fitted logistic model."""

    name = "claim_support"
    checks = frozenset({Check.claim_support})
    implementation_version: ClassVar[str] = "3"
    Params = ClaimSupportParams

    def __init__(self, params: BaseModel, context: GradingContext | None = None) -> None:
        super().__init__(params, context)
        assert isinstance(self.params, ClaimSupportParams)
        self.p: ClaimSupportParams = self.params
        self._inline: OrderedDict[str, sf.EvidenceIndex] = OrderedDict()

    # --- evidence -------------------------------------------------------------------------------------

    def _inline_index(self, text: str) -> sf.EvidenceIndex:
        idx = self._inline.get(text)
        if idx is None:
            idx = sf.index_text(text)
            self._inline[text] = idx
            if len(self._inline) > 512:
                self._inline.popitem(last=False)
        else:
            self._inline.move_to_end(text)
        return idx

    def _resolve(self, inp: ClaimSupportInput) -> tuple[list[sf.EvidenceIndex], list[str]] | str:
        """The indexed evidence and a label for each item, or an error message."""
        indexes: list[sf.EvidenceIndex] = []
        labels: list[str] = []
        corpus = self.context.corpus
        for i, ev in enumerate(inp.evidence):
            if ev.source_id is not None:
                if corpus is None:
                    return (
                        f"evidence[{i}] cites source_id {ev.source_id!r} but the set has no corpus; "
                        "add corpus.jsonl to the calibration set or give the evidence as inline text"
                    )
                doc = corpus.get(ev.source_id)
                if doc is None:
                    return (
                        f"evidence[{i}].source_id {ev.source_id!r} is not in the corpus "
                        f"({len(corpus)} documents); fix the id or add the document to corpus.jsonl"
                    )
                if not doc.text.strip():
                    return (
                        f"evidence[{i}]: corpus document {ev.source_id!r} has no text to check the claim "
                        "against; add its text to corpus.jsonl"
                    )
                text = doc.text
                indexes.append(corpus.derived(_INDEX_KEY + doc.id, lambda t=text: sf.index_text(t)))
                labels.append(f"document {doc.id!r}")
            else:
                assert ev.text is not None
                if not ev.text.strip():
                    return f"evidence[{i}].text is empty; give the passage text"
                indexes.append(self._inline_index(ev.text))
                labels.append(f"evidence[{i}]" if len(inp.evidence) > 1 else "the evidence")
        return indexes, labels

    # --- grading --------------------------------------------------------------------------------------

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        out: list[Verdict] = []
        for inp in inputs:
            if not isinstance(inp, ClaimSupportInput):
                out.append(
                    Verdict.failed(f"claim_support grades claim_support inputs, got {type(inp).__name__}")
                )
                continue
            try:
                out.append(self._grade_one(inp))
            except Exception as exc:  # one bad sample must not sink the batch
                out.append(
                    Verdict.failed(f"claim_support failed on this sample: {type(exc).__name__}: {exc}")
                )
        return out

    def _grade_one(self, inp: ClaimSupportInput) -> Verdict:
        resolved = self._resolve(inp)
        if isinstance(resolved, str):
            return Verdict.failed(resolved)
        indexes, labels = resolved
        # A claim of several sentences is supported only when each of them is: each part is graded on its
        # own, and the weakest decides (a vetoed part first, then the lowest score).
        parts = sf.claim_parts(inp.claim)
        reject_below, accept_at = self.p.band(self.p.threshold)
        # (decision, score, claim, features, decision score): a vetoed part is rejected at any threshold.
        graded: list[tuple[bool | None, float, sf.ClaimInfo, sf.Features, float]] = []
        for part in parts:
            claim = sf.analyse_claim(part)
            feats = sf.extract(claim, indexes, candidates=self.p.candidates)
            score = support_score(feats.values, self.p)
            decisive = -math.inf if feats.vetoes else score
            graded.append((decide(decisive, reject_below, accept_at), score, claim, feats, decisive))
        k = min(range(len(graded)), key=lambda i: (_RANK[graded[i][0]], graded[i][1]))
        decision, score, claim, feats, _ = graded[k]
        reason = self._reason(claim, feats, labels, score, decision)
        details = self._details(feats, inp, score)
        if len(parts) > 1:
            which = f"claim sentence {k + 1} of {len(parts)}"
            if decision:
                reason = (
                    f"each of the claim's {len(parts)} sentences is supported; weakest ({which}): {reason}"
                )
            else:
                reason = f"{which} ({_trim(parts[k], 120)!r}) is {reason}"
            details["claim_part"] = k + 1
            details["claim_parts"] = [
                {"text": part, "score": round(g[1], 6), "accepted": g[0]}
                for part, g in zip(parts, graded, strict=True)
            ]
        return Verdict.by_band(
            decision, reason, score=score, details=details, decision_score=min(g[4] for g in graded)
        )

    def _location(self, feats: sf.Features, labels: list[str]) -> str:
        p = feats.passage
        if p is None:
            return "nowhere"
        where = labels[p.evidence]
        if p.start == p.end:
            return f"{where}, sentence {p.start + 1}"
        return f"{where}, sentences {p.start + 1}-{p.end + 1}"

    def _head(self, score: float, decision: bool | None) -> str:
        p = self.p
        if p.accept_at_or_above is None and p.reject_below is None:
            verdict = "supported" if decision else "not supported"
            cmp = ">=" if decision else "<"
            return f"{verdict} (score {score:.2f} {cmp} threshold {p.threshold:.2f})"
        reject_below, accept_at = p.band(p.threshold)
        if decision:
            return f"supported (score {score:.2f} >= accept_at_or_above {accept_at:.2f})"
        if decision is None:
            return (
                f"undecided (score {score:.2f} in the abstention band: at least reject_below "
                f"{reject_below:.2f}, below accept_at_or_above {accept_at:.2f})"
            )
        return f"not supported (score {score:.2f} < reject_below {reject_below:.2f})"

    def _reason(
        self, claim: sf.ClaimInfo, feats: sf.Features, labels: list[str], score: float, decision: bool | None
    ) -> str:
        accepted = bool(decision)
        head = self._head(score, decision)
        if feats.vetoes and decision is False and score >= self.p.band(self.p.threshold)[0]:
            head = f"not supported (score {score:.2f}, vetoed)"
        if not claim.terms and not claim.numbers:
            return f"{head}: the claim has no content words to check"
        if feats.passage is None:
            return f"{head}: the evidence has no sentences"
        quote = _trim(feats.passage.text, self.p.passage_chars_shown)
        parts = [f'{head}; best passage ({self._location(feats, labels)}): "{quote}"']
        if feats.vetoes:
            parts.append("rejected outright: " + "; ".join(feats.vetoes))
        gaps: list[str] = []
        if feats.entity_conflicts:
            gaps.append(
                "different name: "
                + ", ".join(f"claim {a!r} vs passage {b!r}" for a, b in feats.entity_conflicts[:3])
            )
        if feats.missing_entities:
            gaps.append(
                "names not in the passage or next to it: "
                + ", ".join(repr(x) for x in feats.missing_entities[:4])
            )
        if feats.conflicting_numbers:
            gaps.append(
                "numbers/dates differ: "
                + ", ".join(f"claim says {a!r}, passage says {b!r}" for a, b in feats.conflicting_numbers[:3])
            )
        if feats.negation:
            gaps.append(f"negation differs: {feats.negation}")
        if feats.quantity:
            gaps.append(
                "opposite wording: "
                + ", ".join(f"claim {a!r} vs passage {b!r}" for a, b in feats.quantity[:3])
            )
        if feats.scope is not None:
            word, limit = feats.scope
            gaps.append(
                f"universal claim ({word!r}) vs limited source ({limit!r})"
                if limit
                else f"universal claim ({word!r}): the passage says nothing of that reach"
            )
        if feats.causal is not None:
            cause, hedge = feats.causal
            gaps.append(
                f"causal claim ({cause!r}) vs correlational source ({hedge!r})"
                if hedge
                else f"causal claim ({cause!r}): the passage states no cause"
            )
        if feats.missing_numbers:
            gaps.append(
                "numbers not in the evidence: " + ", ".join(repr(x) for x in feats.missing_numbers[:4])
            )
        n = self.p.max_terms_shown
        if feats.missing_terms:
            more = len(feats.missing_terms) - n
            gaps.append(
                "not in the evidence: "
                + ", ".join(repr(x) for x in feats.missing_terms[:n])
                + (f" (+{more} more)" if more > 0 else "")
            )
        if feats.missing_in_passage:
            more = len(feats.missing_in_passage) - n
            gaps.append(
                "elsewhere in the evidence but not in this passage: "
                + ", ".join(repr(x) for x in feats.missing_in_passage[:n])
                + (f" (+{more} more)" if more > 0 else "")
            )
        if gaps:
            parts.append("unsupported: " + "; ".join(gaps))
        elif accepted:
            parts.append("every content word and number of the claim is in the passage")
        return "; ".join(parts)

    def _details(self, feats: sf.Features, inp: ClaimSupportInput, score: float) -> dict[str, Any]:
        p = feats.passage
        passage: dict[str, Any] | None = None
        if p is not None:
            ev = inp.evidence[p.evidence]
            passage = {
                "evidence_index": p.evidence,
                "source_id": ev.source_id,
                "sentences": [p.start + 1, p.end + 1],
                "text": p.text,
            }
        return {
            "score": round(score, 6),
            "passage": passage,
            "features": {k: round(v, 6) for k, v in feats.values.items()},
            "missing_terms": feats.missing_terms,
            "missing_in_passage": feats.missing_in_passage,
            "missing_numbers": feats.missing_numbers,
            "conflicting_numbers": [list(x) for x in feats.conflicting_numbers],
            "negation": feats.negation or None,
            "quantity": [list(x) for x in feats.quantity],
            "missing_entities": feats.missing_entities,
            "entity_conflicts": [list(x) for x in feats.entity_conflicts],
            "scope": list(feats.scope) if feats.scope is not None else None,
            "causal": list(feats.causal) if feats.causal is not None else None,
            "vetoes": feats.vetoes,
        }


#: Which part of a multi-sentence claim decides: a rejected one first, then an undecided one.
_RANK: dict[bool | None, int] = {False: 0, None: 1, True: 2}


def _trim(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = (limit - 5) * 2 // 3
    tail = limit - 5 - head
    return f"{text[:head].rstrip()} [...] {text[-tail:].lstrip()}"
