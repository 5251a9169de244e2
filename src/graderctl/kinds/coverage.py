"""Built-in kind ``coverage``: does a report contain the required nuggets?

For each nugget the report is searched for its best-matching passage (windows of one and two consecutive
sentences). Several signals are measured there and across the whole report: recall of the nugget's content
words (light stemming, one-letter spelling slips and short/long name forms tolerated), recall of its word
bigrams, presence of its key terms (names and numbers; numbers compared approximately, "7.5 million" ~ "almost
8 million"), agreement of negations, and character-level similarity. A small logistic model combines them;
its weights, intercept and threshold are ``[params]`` of the grader definition (fitted on development data by
``benchmarks/fit_coverage.py``), so they are versioned and part of the fingerprint. No pickles: the model is
plain arithmetic.

The report covers the task when every ``vital`` nugget is matched and at least ``min_okay_share`` of the
``okay`` ones. The reason lists each missing nugget (quoted) with the closest report sentence and the key term
it lacks.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from graderctl.kinds import _text
from graderctl.models.base import Check
from graderctl.models.calset import CoverageInput, SampleInput
from graderctl.plugin import GraderKind, Verdict

#: Features of a (nugget, report) pair, in a fixed order (the model's weights are keyed by these names).
FEATURES: tuple[str, ...] = (
    "content_recall_window",
    "content_recall_report",
    "weighted_recall_window",
    "soft_recall_window",
    "bigram_recall_window",
    "missing_content",
    "subject_present",
    "name_recall",
    "number_recall",
    "number_missing",
    "negation_mismatch",
    "char_similarity",
    "token_set_similarity",
    "nugget_length",
    "lenient_recall_window",
    "long_missing",
    "predicate_present",
    "order_agreement",
    "spread",
    "subject_predicate_gap",
)

#: The fitted model shipped as graders/coverage/v1.toml (benchmarks/fit_coverage.py on the REALSumm dev split;
#: 5-fold CV grouped by document: balanced accuracy 0.769 +- 0.032). Used when a definition gives no model.
DEFAULT_THRESHOLD = 0.55
DEFAULT_INTERCEPT = -0.0994
DEFAULT_WEIGHTS: dict[str, float] = {
    "content_recall_report": 0.9477,
    "content_recall_window": 0.3561,
    "bigram_recall_window": 0.2086,
    "subject_present": -0.1946,
    "predicate_present": -0.1822,
    "name_recall": 0.0517,
    "number_recall": 0.4229,
    "negation_mismatch": 0.0692,
    "long_missing": -0.1451,
    "subject_predicate_gap": -0.2079,
}
DEFAULT_MEANS: dict[str, float] = {
    "content_recall_report": 0.6234,
    "content_recall_window": 0.6078,
    "bigram_recall_window": 0.241,
    "subject_present": 0.7676,
    "predicate_present": 0.4479,
    "name_recall": 0.8298,
    "number_recall": 0.9256,
    "negation_mismatch": 0.1271,
    "long_missing": 0.7598,
    "subject_predicate_gap": 2.5139,
}
DEFAULT_SCALES: dict[str, float] = {
    "content_recall_report": 0.2984,
    "content_recall_window": 0.2964,
    "bigram_recall_window": 0.2236,
    "subject_present": 0.4224,
    "predicate_present": 0.4973,
    "name_recall": 0.3253,
    "number_recall": 0.26,
    "negation_mismatch": 0.3331,
    "long_missing": 0.9376,
    "subject_predicate_gap": 1.0416,
}


class CoverageParams(GraderKind.Params):
    """``[params]`` of a ``coverage`` grader."""

    min_okay_share: float = Field(
        default=0.5, ge=0, le=1, description="Share of the 'okay' nuggets that must be matched."
    )
    threshold: float = Field(
        default=DEFAULT_THRESHOLD,
        gt=0,
        lt=1,
        description="A nugget is matched when the model's probability reaches this.",
    )
    intercept: float = Field(default=DEFAULT_INTERCEPT, description="Intercept of the logistic model.")
    weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_WEIGHTS),
        description="Weight of each feature in the logistic model (see coverage.FEATURES).",
    )
    means: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_MEANS),
        description="Feature means used to standardise features before weighting (absent: 0).",
    )
    scales: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_SCALES),
        description="Feature standard deviations used to standardise features (absent: 1).",
    )
    max_window_sentences: int = Field(
        default=2, ge=1, le=4, description="Longest run of consecutive sentences a nugget may be matched in."
    )
    require_numbers: bool = Field(
        default=True,
        description="A nugget whose numbers are not (approximately) in the report is not matched.",
    )
    require_names: bool = Field(
        default=False,
        description=(
            "A nugget with a name of which no form is in the report is not matched. Off by default: names "
            "already weigh in the model, and on REALSumm people accept name variants this gate misses."
        ),
    )
    slip_similarity: float = Field(
        default=0.85,
        ge=0.5,
        le=1,
        description="Two words of at least 5 letters this similar (0-1) count as the same word (spelling).",
    )

    @model_validator(mode="after")
    def _known_features(self) -> CoverageParams:
        unknown = sorted((set(self.weights) | set(self.means) | set(self.scales)) - set(FEATURES))
        if unknown:
            raise ValueError(f"unknown feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
        for name, scale in self.scales.items():
            if scale <= 0:
                raise ValueError(f"scales.{name} must be positive, got {scale}")
        return self


# --- report preparation ---------------------------------------------------------------------------------

_PTB = {
    "-lrb-": "(",
    "-rrb-": ")",
    "-lsb-": "[",
    "-rsb-": "]",
    "-lcb-": "{",
    "-rcb-": "}",
    "``": '"',
    "''": '"',
}
_PTB_RE = re.compile(r"-[lr][rsc]b-|``|''", re.I)
_GLUED_SCALE = re.compile(r"(\d)(million|billion|trillion|thousand|bn|mn|m|k)\b", re.I)
_SPACED_CLITIC = re.compile(r"\s+(['’](?:s|re|ve|ll|d|m|t)|n['’]t)\b", re.I)


def clean_text(text: str) -> str:
    """Undo tokenisation artefacts of news datasets (``-lrb-``, `` ` `` quotes, ``he 's``) and fold
    typography; keeps case."""
    text = _PTB_RE.sub(lambda m: _PTB.get(m.group().lower(), m.group()), text)
    text = _SPACED_CLITIC.sub(r"\1", text)
    text = _GLUED_SCALE.sub(r"\1 \2", text)
    text = text.replace(" ` ", " ' ").replace("`", "'")
    return _text.normalize(text, casefold=False)


@dataclass
class _Unit:
    """A window of consecutive report sentences, in comparison form."""

    text: str
    stems: set[str]
    bigrams: set[tuple[str, str]]
    negated: bool
    #: The window's stems in order (for word-order and distance signals).
    sequence: list[str] = field(default_factory=list)


@dataclass
class ReportIndex:
    """A report prepared once for all its nuggets."""

    sentences: list[str]
    units: list[_Unit]
    stems: set[str]
    long_stems: list[str]
    #: ``long_stems`` by their first five letters (a longer or shorter form shares them).
    by_prefix: dict[str, list[str]]
    numbers: list[float]
    percents: list[float]
    text_lower: str
    _fuzzy_cache: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def build(cls, report: str, max_window: int = 2) -> ReportIndex:
        cleaned = clean_text(report)
        sentences = _text.split_sentences(cleaned) or [cleaned]
        per_sentence = [_sentence_parts(s) for s in sentences]
        units: list[_Unit] = []
        for size in range(1, max_window + 1):
            for i in range(0, max(1, len(sentences) - size + 1)):
                parts = per_sentence[i : i + size]
                if not parts:
                    continue
                stems = set().union(*(p[0] for p in parts))
                bigrams = set().union(*(p[1] for p in parts))
                units.append(
                    _Unit(
                        " ".join(sentences[i : i + size]),
                        stems,
                        bigrams,
                        any(p[2] for p in parts),
                        [t for p in parts for t in p[3]],
                    )
                )
        all_stems = set().union(*(p[0] for p in per_sentence)) if per_sentence else set()
        long_stems = sorted(s for s in all_stems if len(s) >= 5 and s.isalpha())
        by_prefix: dict[str, list[str]] = {}
        for st in long_stems:
            by_prefix.setdefault(st[:5], []).append(st)
        numbers: list[float] = []
        percents: list[float] = []
        for n in _text.extract_numbers(cleaned):
            (percents if n.percent else numbers).append(float(n.value))
        return cls(
            sentences=sentences,
            units=units,
            stems=all_stems,
            long_stems=long_stems,
            by_prefix=by_prefix,
            numbers=numbers,
            percents=percents,
            text_lower=cleaned.lower(),
        )


def _sentence_parts(sentence: str) -> tuple[set[str], set[tuple[str, str]], bool, list[str]]:
    tokens = _text.tokenize(sentence)
    stems = [_text.stem(t) for t in tokens]
    negated = any(t in _text.NEGATIONS or t.endswith("n't") for t in tokens)
    return set(stems), set(itertools.pairwise(stems)), negated, stems


# --- nugget features ------------------------------------------------------------------------------------


@dataclass
class NuggetMatch:
    """The features of one (nugget, report) pair and where the nugget matched best."""

    features: dict[str, float]
    best_sentence: str
    missing_terms: list[str]
    missing_numbers: list[str]
    #: Names of the nugget of which no form (full, shorter, longer) is anywhere in the report.
    missing_names: list[str] = field(default_factory=list)


def _resolve_stem(stem: str, report: ReportIndex, slip: float) -> str | None:
    """The report stem a nugget stem stands for: itself, a spelling variant, or a longer/shorter form
    (``buhar`` -> ``buhari``, ``nigeria`` -> ``nigerian``); ``None`` if the report lacks it."""
    if stem in report.stems:
        return stem
    if len(stem) < 5 or not stem.isalpha():
        return None
    if stem in report._fuzzy_cache:
        return report._fuzzy_cache[stem]
    from rapidfuzz import fuzz, process

    found: str | None = None
    for cand in report.by_prefix.get(stem[:5], ()):
        if cand.startswith(stem) or stem.startswith(cand):
            found = cand
            break
    if found is None and report.long_stems:
        hit = process.extractOne(stem, report.long_stems, scorer=fuzz.ratio, score_cutoff=slip * 100)
        if hit is not None:
            found = str(hit[0])
    report._fuzzy_cache[stem] = found
    return found


def _numbers_present(values: list[float], pool: list[float]) -> list[bool]:
    return [any(_text.numbers_close(v, p) for p in pool) for v in values]


_AGE = re.compile(r"\b\d+\s*-?\s*(?:years?|yrs?)\s*-?\s*old\b|\baged?\s+\d+\b", re.I)
_AGE_WORDS = frozenset({"year", "old", "ag", "aged", "yr"})
_NUMBER_WORDS = frozenset(
    {"million", "billion", "trillion", "thousand", "hundred", "percent", "per", "cent", "pc", "bn", "mn"}
)
#: Ordinary words that often open a statement (and so are capitalised without being names).
_INITIAL_WORDS = """
    almost about around nearly over under more less many much several some most all both each every few
    only just even still now today yesterday tomorrow recently later earlier eventually finally also
    then when while although though because since after before during despite following according among
    police officials experts researchers scientists doctors authorities people someone everyone nobody
    new old former current last first next another other such one this these those that there their his
    her its our your my we they he she it you i
"""
_COMMON_INITIAL = frozenset(_INITIAL_WORDS.split())
_CAPITALISED = re.compile(r"[A-Z][\w'’.-]*")


def _name_groups(nugget: str) -> list[list[str]]:
    """Runs of capitalised words in a nugget (its names), as stems. Nuggets are short statements that often
    start with a name, so a sentence-initial capital counts unless it is a function word."""
    groups: list[list[str]] = []
    current: list[str] = []
    for i, raw in enumerate(nugget.split()):
        word = raw.strip("\"'“”‘’()[],;:!?.")
        low = word.lower()
        capital = (
            bool(_CAPITALISED.fullmatch(word))
            and low not in _text.STOPWORDS
            and low not in _text.MONTHS
            and not _text.number_keys(low)
            and not (i == 0 and low in _COMMON_INITIAL)
        )
        if capital:
            current.extend(_text.stem(t) for t in _text.tokenize(word))
        elif current:
            groups.append(current)
            current = []
        if current and raw[-1:] in ",;:!?":
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def nugget_features(nugget: str, report: ReportIndex, *, slip: float = 0.85) -> NuggetMatch:
    """Measure how well ``report`` contains ``nugget`` (see :data:`FEATURES`)."""
    from rapidfuzz import fuzz, process

    cleaned = clean_text(nugget)
    tokens = _text.tokenize(cleaned)
    has_age = _AGE.search(cleaned) is not None
    content = [
        t
        for t in tokens
        if t not in _text.STOPWORDS
        and not _is_number_token(t)
        and t not in _NUMBER_WORDS
        and not (has_age and _text.stem(t) in _AGE_WORDS)
    ]
    content_stems = list(dict.fromkeys(_text.stem(t) for t in content))
    all_stems = [_text.stem(t) for t in tokens]
    nugget_negated = any(t in _text.NEGATIONS or t.endswith("n't") for t in tokens)
    # each nugget stem, as the report spells it (None: absent)
    resolved = {s: _resolve_stem(s, report, slip) for s in content_stems}
    groups = [[t for t in g if t in resolved] for g in _name_groups(cleaned)]
    groups = [g for g in groups if g]
    group_of = {t: g for g in groups for t in g}
    weights = {s: (2.0 if s in group_of else 1.0) * (1.0 + min(len(s), 10) / 10) for s in content_stems}
    total_weight = sum(weights.values())
    bigrams = [(resolved.get(a) or a, resolved.get(b) or b) for a, b in itertools.pairwise(all_stems)]
    bigrams = [bg for bg in bigrams if not (bg[0] in _text.STOPWORDS and bg[1] in _text.STOPWORDS)]

    def hits_in(stems: set[str]) -> list[str]:
        direct = {s for s in content_stems if resolved[s] is not None and resolved[s] in stems}
        # a shorter or longer form of a name is the same name ("Ronaldo" for "Cristiano Ronaldo")
        for g in groups:
            if any(t in direct for t in g):
                direct.update(g)
        return [s for s in content_stems if s in direct]

    best_unit: _Unit | None = None
    best_hits: list[str] = []
    best = (-1.0, -1.0, -1.0)
    for unit in report.units:
        hits = hits_in(unit.stems)
        recall = len(hits) / len(content_stems) if content_stems else 0.0
        wrecall = sum(weights[s] for s in hits) / total_weight if content_stems else 0.0
        brecall = sum(1 for bg in bigrams if bg in unit.bigrams) / len(bigrams) if bigrams else 0.0
        key = (wrecall, recall, brecall - len(unit.text) / 1e6)
        if key > best:
            best, best_unit, best_hits = key, unit, hits
    w_window, r_window, b_window = (max(0.0, best[0]), max(0.0, best[1]), max(0.0, best[2]))
    unit_text = best_unit.text if best_unit else ""
    unit_stems = best_unit.stems if best_unit else set()
    report_hits = hits_in(report.stems)

    # soft recall: a missing word counts by its closest spelling in the window
    soft = 0.0
    hit_set = set(best_hits)
    window_vocab = sorted(unit_stems)
    for s in content_stems:
        if s in hit_set:
            soft += 1.0
        elif window_vocab:
            close = process.extractOne(s, window_vocab, scorer=fuzz.ratio)
            soft += float(close[1]) / 100 if close else 0.0
    soft_recall = soft / len(content_stems) if content_stems else 0.0

    names_total = len(groups)
    names_present = sum(1 for g in groups if any(t in report_hits for t in g))
    # a name is there when its last word is (a shorter form: "Ronaldo" for "Cristiano Ronaldo") or all of it
    # is; "Amanda Mulls" is not "Amanda Oleander"
    in_report = {s_ for s_ in content_stems if resolved[s_] is not None}
    missing_names = [
        " ".join(g) for g in groups if not (g[-1] in in_report or all(t in in_report for t in g))
    ]

    numbers: list[float] = []
    percents: list[float] = []
    mentions = _text.extract_numbers(cleaned)
    for n in mentions:
        (percents if n.percent else numbers).append(float(n.value))
    present_numbers = _numbers_present(numbers, report.numbers + report.percents) + _numbers_present(
        percents, report.percents + report.numbers
    )
    n_numbers = len(present_numbers)
    ordered = [m for m in mentions if not m.percent] + [m for m in mentions if m.percent]
    missing_numbers = [m.text for m, ok in zip(ordered, present_numbers, strict=True) if not ok]

    unit_negated = best_unit.negated if best_unit else False
    lower = cleaned.lower()
    features = {
        "content_recall_window": r_window,
        "content_recall_report": len(report_hits) / len(content_stems) if content_stems else 0.0,
        "weighted_recall_window": w_window,
        "soft_recall_window": soft_recall,
        "bigram_recall_window": b_window,
        "missing_content": float(len(content_stems) - len(best_hits)),
        "subject_present": 1.0 if content_stems and content_stems[0] in hit_set else 0.0,
        "name_recall": names_present / names_total if names_total else 1.0,
        "number_recall": sum(present_numbers) / n_numbers if n_numbers else 1.0,
        "number_missing": 1.0 if n_numbers and not all(present_numbers) else 0.0,
        "negation_mismatch": 1.0 if nugget_negated != unit_negated else 0.0,
        "char_similarity": fuzz.partial_ratio(lower, unit_text.lower()) / 100 if unit_text else 0.0,
        "token_set_similarity": fuzz.token_set_ratio(lower, unit_text.lower()) / 100 if unit_text else 0.0,
        "nugget_length": math.log1p(len(content_stems)),
    }
    missing_stems = [s for s in content_stems if s not in hit_set]
    predicate = next((s for s in content_stems if s not in group_of), None)
    lenient = 0
    window_prefixes = {w[:4] for w in unit_stems if len(w) >= 4}
    for s in content_stems:
        if s in hit_set or (len(s) >= 4 and s[:4] in window_prefixes):
            lenient += 1
    # word order and compactness of the nugget's words in the window
    positions: dict[str, int] = {}
    seq = best_unit.sequence if best_unit else []
    for pos, st in enumerate(seq):
        positions.setdefault(st, pos)
    found = [positions[resolved[s_]] for s_ in best_hits if resolved.get(s_) in positions]  # type: ignore[index]
    if len(found) >= 2:
        in_order = sum(1 for a, b in itertools.pairwise(found) if b > a) / (len(found) - 1)
        spread = (max(found) - min(found) + 1) / len(found)
    else:
        in_order, spread = 1.0, 1.0
    features["order_agreement"] = in_order
    features["spread"] = math.log(spread)
    subj = content_stems[0] if content_stems else None
    if subj is not None and predicate is not None and subj in hit_set and predicate in hit_set:
        a_, b_ = positions.get(resolved[subj] or ""), positions.get(resolved[predicate] or "")
        features["subject_predicate_gap"] = (
            math.log1p(abs(b_ - a_)) if a_ is not None and b_ is not None else 3.0
        )
    else:
        features["subject_predicate_gap"] = 3.0
    features["lenient_recall_window"] = lenient / len(content_stems) if content_stems else 0.0
    features["long_missing"] = float(sum(1 for s in missing_stems if len(s) >= 6))
    features["predicate_present"] = 1.0 if predicate is None or predicate in hit_set else 0.0
    missing_terms = [t for t in content if _text.stem(t) not in hit_set]
    return NuggetMatch(
        features, unit_text, list(dict.fromkeys(missing_terms)), missing_numbers, missing_names
    )


def _is_number_token(token: str) -> bool:
    if token[:1].isdigit():
        return True
    return token in _NUMBER_WORD_TOKENS or ("-" in token and bool(_text.number_keys(token)))


_NUMBER_WORDS_TEXT = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety"
)
_NUMBER_WORD_TOKENS = frozenset(_NUMBER_WORDS_TEXT.split())


def _is_name_stem(stem: str, nugget: str) -> bool:
    return any(stem == _text.stem(t) for n in _text.extract_names(nugget) for t in n.split())


# --- the model ------------------------------------------------------------------------------------------


def probability(features: dict[str, float], params: CoverageParams) -> float:
    """The logistic model: ``1 / (1 + exp(-(intercept + sum w_i * (x_i - mean_i) / scale_i)))``."""
    z = params.intercept
    for name, w in params.weights.items():
        x = features.get(name, 0.0)
        z += w * (x - params.means.get(name, 0.0)) / params.scales.get(name, 1.0)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


# --- the kind -------------------------------------------------------------------------------------------


def _quote(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return "“" + (text if len(text) <= limit else text[: limit - 1].rstrip() + "…") + "”"


class CoverageGrader(GraderKind):
    """Accepts a report when it contains every vital nugget and enough of the okay ones."""

    name: ClassVar[str] = "coverage"
    checks: ClassVar[frozenset[Check]] = frozenset({Check.coverage})
    Params = CoverageParams

    def __init__(self, params: BaseModel, context: Any = None) -> None:
        super().__init__(params, context)
        assert isinstance(self.params, CoverageParams)
        self.p: CoverageParams = self.params

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        reports: dict[str, ReportIndex] = {}
        verdicts: list[Verdict] = []
        for item in inputs:
            try:
                verdicts.append(self._grade(item, reports))
            except Exception as exc:  # one bad input must not sink the batch
                verdicts.append(Verdict.failed(f"{type(exc).__name__}: {exc}"))
        return verdicts

    def match(self, nugget: str, report: ReportIndex) -> tuple[float, bool, NuggetMatch]:
        """The model's probability that ``report`` contains ``nugget``, whether it counts as matched (the
        probability reaches the threshold and no required key term is missing), and the evidence."""
        m = nugget_features(nugget, report, slip=self.p.slip_similarity)
        prob = probability(m.features, self.p)
        hit = prob >= self.p.threshold
        if self.p.require_numbers and m.missing_numbers:
            hit = False
        if self.p.require_names and m.missing_names:
            hit = False
        return prob, hit, m

    def _grade(self, item: SampleInput, reports: dict[str, ReportIndex]) -> Verdict:
        if not isinstance(item, CoverageInput):
            return Verdict.failed(f"expected a coverage input, got {type(item).__name__}")
        if not item.report.strip():
            return Verdict.reject("the report is empty", score=0.0, details={"nuggets": []})
        index = reports.get(item.report)
        if index is None:
            index = reports[item.report] = ReportIndex.build(item.report, self.p.max_window_sentences)
        rows: list[dict[str, Any]] = []
        missing_vital: list[tuple[str, float, NuggetMatch]] = []
        missing_okay: list[tuple[str, float, NuggetMatch]] = []
        n_okay = okay_hits = 0
        for nug in item.nuggets:
            prob, hit, m = self.match(nug.text, index)
            rows.append(
                {
                    "nugget": nug.text,
                    "importance": nug.importance,
                    "matched": hit,
                    "probability": round(prob, 4),
                    "closest": m.best_sentence,
                    "missing_terms": m.missing_terms,
                    "missing_numbers": m.missing_numbers,
                    "missing_names": m.missing_names,
                }
            )
            if nug.importance == "okay":
                n_okay += 1
                okay_hits += hit
                if not hit:
                    missing_okay.append((nug.text, prob, m))
            elif not hit:
                missing_vital.append((nug.text, prob, m))
        n_vital = len(item.nuggets) - n_okay
        okay_share = okay_hits / n_okay if n_okay else 1.0
        covered = not missing_vital and okay_share >= self.p.min_okay_share
        probs = [r["probability"] for r in rows]
        score = min(probs) if probs else 0.0
        details = {"nuggets": rows, "okay_share": round(okay_share, 4) if n_okay else None}
        summary = f"{n_vital - len(missing_vital)}/{n_vital} vital nugget(s) matched"
        if n_okay:
            summary += (
                f", {okay_hits}/{n_okay} okay ({okay_share:.0%}; at least {self.p.min_okay_share:.0%} needed)"
            )
        if covered:
            lines = [summary]
            if missing_okay:
                lines.append("missing okay: " + "; ".join(_quote(t) for t, _, _ in missing_okay[:5]))
            return Verdict.accept(". ".join(lines), score=score, details=details)
        parts = [summary]
        for label, missing in (("vital", missing_vital), ("okay", missing_okay)):
            for text, prob, m in missing[:8]:
                why = []
                if m.missing_numbers:
                    why.append("number(s) " + ", ".join(m.missing_numbers) + " not in the report")
                if m.missing_names:
                    why.append(
                        "name(s) " + ", ".join(repr(n) for n in m.missing_names) + " not in the report"
                    )
                if m.missing_terms:
                    why.append("lacks " + ", ".join(repr(t) for t in m.missing_terms[:5]))
                parts.append(
                    f"missing {label} nugget {_quote(text)} (match {prob:.2f}); closest: "
                    f"{_quote(m.best_sentence) if m.best_sentence else 'none'}"
                    + (f" — {'; '.join(why)}" if why else "")
                )
            if len(missing) > 8:
                parts.append(f"and {len(missing) - 8} more missing {label} nugget(s)")
        return Verdict.reject(". ".join(parts), score=score, details=details)
