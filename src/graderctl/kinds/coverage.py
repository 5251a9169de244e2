"""Built-in kind ``coverage``: does a report contain the required nuggets?

For each nugget the report is searched for its best-matching passage (windows of one and two consecutive
sentences; tokenised news text such as ``he 's`` / ``( £ 9.90 )`` / ``self - esteem`` is undone first, and
lower-cased tokenised text is split at its stand-alone sentence marks). Words are compared by their Snowball
stems (PyStemmer) with the past forms of common irregular verbs mapped to their base ("won" = "win"),
spelling slips and short/long name forms tolerated ("Ronaldo" for "Cristiano Ronaldo"), acronyms matched to
their spelled-out form ("SST": "sea surface temperature"), the alternatives a nugget offers with ``/``
("singer/Bieber") standing for one another, and coreference-lite: a sentence that refers back ("he", "the
27-year-old") to a name mentioned shortly before counts as mentioning it.

Several signals are measured in the passage and across the report: recall of the nugget's content words and
bigrams, whether its subject and first other word are there and how far apart, negation agreement, and its
numbers (see :mod:`graderctl.language.quantities`: "a quarter" ~ "26%", "2.3 million" ~ "2,314,000", a hedged
"about 7.5 million" ~ "almost 8 million", "4,996 MW" ~ "4.996 GW", a date's missing day tolerated, but "87" is
not "78" nor "2013" "2003"). A small logistic model combines them; its weights, intercept and threshold are
``[params]`` of the grader definition (fitted on development data by ``benchmarks/fit_coverage.py``), so they
are versioned and part of the fingerprint. No pickles: the model is plain arithmetic. Two hard rules veto a
match: a number of the nugget that the passage (or a sentence matching nearly as well) does not state
(``require_numbers``), and a passage that states the opposite of a word of the nugget ("rising" for "lower",
"below" for "above"; ``reject_contradictions``).

The report covers the task when every ``vital`` nugget is matched and at least ``⌊min_okay_share × n⌋`` of
its ``n`` ``okay`` ones (counted down, so one okay nugget missing out of one or two never fails a share of
0.5; the default share 0 makes okay nuggets optional, as in TREC nugget evaluation). The reason lists each
missing nugget (quoted) with the closest report passage and what it lacks: terms, numbers (with the numbers
the passage gives instead), names, opposites.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from graderctl import language
from graderctl.language import vocabulary
from graderctl.language.names import NameRun, name_runs
from graderctl.language.numbers import NUMBER_WORDS
from graderctl.language.quantities import (
    Quantity,
    ReportQuantities,
    complement_linked,
    extract_quantities,
    quantity_present,
)
from graderctl.language.stemming import stem
from graderctl.models.base import Check
from graderctl.models.calset import CoverageInput, SampleInput
from graderctl.plugin import BandParams, GraderKind, Verdict, decide

#: Features of a (nugget, report) pair, in a fixed order (the model's weights are keyed by these names).
FEATURES: tuple[str, ...] = (
    "content_recall_window",
    "content_recall_report",
    "weighted_recall_window",
    "bigram_recall_window",
    "missing_content",
    "long_missing",
    "subject_present",
    "predicate_present",
    "subject_predicate_gap",
    "name_recall",
    "nonname_recall_window",
    "nonname_recall_report",
    "number_recall",
    "negation_mismatch",
    "contradiction",
    "char_similarity",
    "order_agreement",
    "spread",
    "nugget_length",
    "report_length",
    "support_sentences",
)

#: The fitted model shipped as graders/coverage/v1.toml (benchmarks/fit_coverage.py on the REALSumm dev
#: split; 10 x 5-fold CV grouped by document: balanced accuracy 0.767 +- 0.023). Used when a definition gives
#: no model.
DEFAULT_THRESHOLD = 0.59
DEFAULT_INTERCEPT = -0.1078
DEFAULT_WEIGHTS: dict[str, float] = {
    "content_recall_report": 0.9301,
    "content_recall_window": 0.3194,
    "bigram_recall_window": 0.2876,
    "subject_present": -0.1597,
    "predicate_present": -0.2005,
    "name_recall": 0.0855,
    "number_recall": 0.4768,
    "negation_mismatch": 0.0472,
    "long_missing": -0.117,
    "subject_predicate_gap": -0.1569,
}
DEFAULT_MEANS: dict[str, float] = {
    "content_recall_report": 0.6309,
    "content_recall_window": 0.6233,
    "bigram_recall_window": 0.2393,
    "subject_present": 0.7774,
    "predicate_present": 0.4748,
    "name_recall": 0.8307,
    "number_recall": 0.9284,
    "negation_mismatch": 0.098,
    "long_missing": 0.6807,
    "subject_predicate_gap": 2.4992,
}
DEFAULT_SCALES: dict[str, float] = {
    "content_recall_report": 0.2995,
    "content_recall_window": 0.2985,
    "bigram_recall_window": 0.2257,
    "subject_present": 0.416,
    "predicate_present": 0.4994,
    "name_recall": 0.3247,
    "number_recall": 0.2556,
    "negation_mismatch": 0.2973,
    "long_missing": 0.9058,
    "subject_predicate_gap": 1.023,
}


class CoverageParams(BandParams, GraderKind.Params):
    """``[params]`` of a ``coverage`` grader. ``accept_at_or_above`` / ``reject_below`` (optional) put an
    abstention band around ``threshold`` for each nugget: matched at or above the first, missing below the
    second, unsure in between; a report is then covered when every vital nugget (and enough okay ones) is
    matched, not covered when one is missing (or too few okay ones can still be matched), else undecided."""

    min_okay_share: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description=(
            "Share of the 'okay' nuggets that must be matched, counted down: at least floor(share x n) of n "
            "okay nuggets (0.5 with one okay nugget asks for none, with three for one). 0: okay nuggets are "
            "nice-to-have, as in TREC nugget evaluation; every 'vital' nugget is always required."
        ),
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
        description=(
            "A nugget is not matched unless each of its numbers is stated in the matched passage or a "
            "sentence matching nearly as well: exactly, to the precision written ('2.3 million'), within 10% "
            "when either side is hedged ('about', 'nearly') or verbal ('a quarter', 'nine in ten'), a "
            "date's day may be left out, a year never differs, complementary percentages only with opposite "
            "words ('retained 94%' / 'lost 6%')."
        ),
    )
    require_names: bool = Field(
        default=False,
        description=(
            "A nugget with a name of which no form is in the report is not matched. Off by default: names "
            "already weigh in the model, and on REALSumm people accept name variants this gate misses."
        ),
    )
    reject_contradictions: bool = Field(
        default=True,
        description=(
            "A nugget is not matched when the passage lacks one of its words and has the word's opposite "
            "instead ('rising' for 'lower', 'below' for 'above'), unless negation makes them agree."
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
        self.check_band(self.threshold)
        return self


# --- words ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=131072)  # one cache lookup per token, as before the stemmer moved to the language layer
def _stem(token: str) -> str:
    """The stem of a lower-case token: :func:`graderctl.language.stemming.stem` with ``base_forms`` (the
    possessive ``'s`` dropped, numbers and tokens with digits unchanged, irregular past forms read as their
    base form: "won" = "win")."""
    return stem(token, base_forms=True)


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
_GLUED_SCALE = re.compile(r"(\d)(million|billion|trillion|thousand)\b", re.I)
#: Thousands separated by spaces ("35 000") or, in tokenised text, by " , " after a currency ("£ 7 , 500").
_SPACED_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![.,]?\d)")
_TOKENISED_THOUSANDS = re.compile(r"([$£€#]\s?\d{1,3}) , (\d{3})(?![.,]?\d)")
#: A currency amount whose scale abbreviation was split off ("£ 1.6 m", "$ 2 bn").
_SPLIT_ABBREVIATION = re.compile(r"([$£€#]\s?\d+(?:\.\d+)?) (m|bn|mn|k)\b")
_DIGIT = re.compile(r"\d")
_SPACED_CLITIC = re.compile(r"\s+(['’](?:s|re|ve|ll|d|m|t)|n['’]t)\b", re.I)


#: Spaces that tokenised news text puts around punctuation (" , " " ." "( £ 9.90 )" "self - esteem").
_SPACE_BEFORE = re.compile(r"\s+([,.;:!?%)\]}])")
_SPACE_AFTER = re.compile(r"([(\[{$£€#])\s+(?=\S)")
_SPACED_HYPHEN = re.compile(r"(?<=\w) - (?=\w)")
#: A sentence end in tokenised text: the mark stands alone (" . "), whatever the case of the next word.
_TOKENISED_END = re.compile(r"(?<=\s[.!?])\s+(?=\S)")


def _undo_tokenisation(text: str) -> str:
    text = language.fold_typography(text)
    text = _PTB_RE.sub(lambda m: _PTB.get(m.group().lower(), m.group()), text)
    text = _SPACED_CLITIC.sub(r"\1", text)
    text = _GLUED_SCALE.sub(r"\1 \2", text)
    if _DIGIT.search(text):
        text = _TOKENISED_THOUSANDS.sub(r"\1,\2", text)
        text = _SPLIT_ABBREVIATION.sub(r"\1\2", text)
        text = _SPACED_THOUSANDS.sub(lambda m: m.group().replace(" ", ","), text)
    return text.replace(" ` ", " ' ").replace("`", "'")


def _detokenise(text: str) -> str:
    text = _SPACED_HYPHEN.sub("-", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    return _SPACE_AFTER.sub(r"\1", text)


def clean_text(text: str) -> str:
    """Undo tokenisation artefacts of news datasets (``-lrb-``, `` ` `` quotes, ``he 's``, `` , ``,
    ``( £ 9.90 )``, ``self - esteem``) and fold typography; keeps case."""
    return language.normalize(_detokenise(_undo_tokenisation(text)), casefold=False)


def report_sentences(text: str) -> list[str]:
    """The sentences of a report, cleaned (see :func:`clean_text`). Tokenised text (``" . "``) is split at
    its stand-alone sentence marks first, so lower-cased summaries are split too; ordinary text by
    :func:`graderctl.language.sentences.split_sentences`."""
    base = language.normalize(_undo_tokenisation(text), casefold=False)
    chunks = _TOKENISED_END.split(base) if " ." in base or " ?" in base or " !" in base else [base]
    sentences: list[str] = []
    for chunk in chunks:
        for sentence in language.split_sentences(_detokenise(chunk)):
            if sentences and not any(c.isalnum() for c in sentence):
                sentences[-1] += " " + sentence  # a closing quote after the mark
            else:
                sentences.append(sentence)
    return sentences


@dataclass
class _Unit:
    """A window of consecutive report sentences, in comparison form."""

    text: str
    stems: set[str]
    bigrams: set[tuple[str, str]]
    negated: bool
    #: The window's stems in order (for word-order and distance signals).
    sequence: list[str]
    #: Indices of the window's sentences in :attr:`ReportIndex.sentences`.
    span: range


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PRONOUNS = _wordset("he she his her him himself herself they them their theirs")


@dataclass
class ReportIndex:
    """A report prepared once for all its nuggets."""

    sentences: list[str]
    units: list[_Unit]
    stems: set[str]
    long_stems: list[str]
    #: ``long_stems`` by their first five letters (a longer or shorter form shares them).
    by_prefix: dict[str, list[str]]
    quantities: ReportQuantities
    #: Stems of each sentence.
    sentence_stems: list[set[str]]
    #: Whether each sentence may refer back to a name of an earlier one (a pronoun, or it opens with "the").
    refers_back: list[bool]
    #: Each sentence's tokens without the words an acronym skips (see :meth:`spelled_out`).
    acronym_words: list[list[str]]
    _fuzzy_cache: dict[str, str | None] = field(default_factory=dict)
    _acronym_cache: dict[str, set[int]] = field(default_factory=dict)

    def spelled_out(self, acronym: str) -> set[int]:
        """The sentences with a run of words whose initials are ``acronym`` (lower case, 3+ letters):
        "sea surface temperature" for "sst"."""
        found = self._acronym_cache.get(acronym)
        if found is None:
            found = set()
            n = len(acronym)
            for j, words in enumerate(self.acronym_words):
                for i in range(len(words) - n + 1):
                    if words[i][0] == acronym[0] and all(words[i + k][:1] == acronym[k] for k in range(1, n)):
                        found.add(j)
                        break
            self._acronym_cache[acronym] = found
        return found

    @classmethod
    def build(cls, report: str, max_window: int = 2) -> ReportIndex:
        sentences = report_sentences(report) or [clean_text(report)]
        per_sentence = [_sentence_parts(s) for s in sentences]
        units: list[_Unit] = []
        for size in range(1, max_window + 1):
            for i in range(0, max(1, len(sentences) - size + 1)):
                parts = per_sentence[i : i + size]
                if not parts:
                    continue
                units.append(
                    _Unit(
                        " ".join(sentences[i : i + size]),
                        set().union(*(p.stems for p in parts)),
                        set().union(*(p.bigrams for p in parts)),
                        any(p.negated for p in parts),
                        [t for p in parts for t in p.sequence],
                        range(i, i + len(parts)),
                    )
                )
        all_stems = set().union(*(p.stems for p in per_sentence)) if per_sentence else set()
        long_stems = sorted(s for s in all_stems if len(s) >= 5 and s.isalpha())
        by_prefix: dict[str, list[str]] = {}
        for st in long_stems:
            by_prefix.setdefault(st[:5], []).append(st)
        return cls(
            sentences=sentences,
            units=units,
            stems=all_stems,
            long_stems=long_stems,
            by_prefix=by_prefix,
            quantities=ReportQuantities.build(sentences),
            sentence_stems=[p.stems for p in per_sentence],
            refers_back=[p.refers_back for p in per_sentence],
            acronym_words=[[t for t in p.tokens if t not in _ACRONYM_SKIP] for p in per_sentence],
        )


@dataclass
class _SentenceParts:
    stems: set[str]
    bigrams: set[tuple[str, str]]
    negated: bool
    sequence: list[str]
    refers_back: bool
    tokens: list[str]


#: Words an acronym skips ("Centers for Disease Control" -> "CDC").
_ACRONYM_SKIP = frozenset(["of", "and", "for", "the", "in", "on", "de", "&"])


def _sentence_parts(sentence: str) -> _SentenceParts:
    tokens = language.tokenize(sentence)
    stems = [_stem(t) for t in tokens]
    words = set(tokens)
    return _SentenceParts(
        set(stems),
        set(itertools.pairwise(stems)),
        _negated(words),
        stems,
        not _PRONOUNS.isdisjoint(words) or (bool(tokens) and tokens[0] == "the"),
        tokens,
    )


def _negated(tokens: set[str] | list[str]) -> bool:
    words = set(tokens)
    return not language.NEGATIONS.isdisjoint(words) or any(t.endswith("n't") for t in words if "'" in t)


# --- nugget features ------------------------------------------------------------------------------------

#: A sentence may carry the nugget's numbers when its content recall is at most this far below the best
#: passage's (the best passage's own sentences always may): a number elsewhere in the report is another fact.
NUMBER_SCOPE_MARGIN = 0.5
#: How many sentences back a pronoun or a description ("the 27-year-old") may refer to a name.
COREF_DISTANCE = 3


@dataclass
class NuggetMatch:
    """The features of one (nugget, report) pair and where the nugget matched best."""

    features: dict[str, float]
    best_sentence: str
    missing_terms: list[str]
    missing_numbers: list[str]
    #: Names of the nugget of which no form (full, shorter, longer) is anywhere in the report.
    missing_names: list[str] = field(default_factory=list)
    #: ``(nugget word, opposite in the passage)`` pairs (see :func:`_contradictions`).
    contradictions: list[tuple[str, str]] = field(default_factory=list)
    #: Numbers stated in the best passage (shown next to a missing number).
    passage_numbers: list[str] = field(default_factory=list)


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


_AGE = re.compile(r"\b\d+\s*-?\s*(?:years?|yrs?)\s*-?\s*old\b|\baged?\s+\d+\b", re.I)
_AGE_WORDS = frozenset({"year", "old", "age", "aged", "yr"})
_NUMBER_WORDS = frozenset(
    {"million", "billion", "trillion", "thousand", "hundred", "percent", "per", "cent", "pc", "bn", "mn"}
)
#: An acronym of three to six capitals, perhaps plural ("SSTs"); two letters are too ambiguous to spell out.
_ACRONYM = re.compile(r"\b([A-Z]{3,6})s?\b")
_DETERMINERS = _wordset("the a an his her their its our my your this that these those")
_SUBJECT_PRONOUNS = _wordset("he she it they him her them we i you")


def _edge_phrase(chunk: str, *, from_end: bool) -> list[str]:
    """The phrase at one end of a chunk of a nugget next to a ``/``: a run of capitalised words (a name) or
    a single word, determiners skipped; a pronoun gives nothing."""
    words = [w.strip("\"'“”‘’()[],;:!?.") for w in chunk.split()]
    words = [w for w in words if w]
    if from_end:
        words.reverse()
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    if not words or words[0].lower() in _SUBJECT_PRONOUNS:
        return []
    phrase = [words[0]]
    if words[0][:1].isupper():
        for w in words[1:]:
            if not w[:1].isupper() or w.lower() in _DETERMINERS:
                break
            phrase.append(w)
    if from_end:
        phrase.reverse()
    return phrase


def _alternatives(nugget: str) -> list[set[str]]:
    """Alternatives a nugget offers with ``/`` (``singer/Bieber``, ``Emmanuel Adebayor / the striker``,
    ``their owner/their trainer/Dai Aoki``): sets of stems of which any one present stands for all."""
    if "/" not in nugget:
        return []
    slots: list[set[str]] = []
    for left, right in itertools.pairwise(nugget.split("/")):
        words = _edge_phrase(left, from_end=True) + _edge_phrase(right, from_end=False)
        slot = {_stem(t) for w in words for t in language.tokenize(w)}
        if slots and slots[-1] & slot:
            slots[-1] |= slot
        elif len(slot) > 1:
            slots.append(slot)
    return slots


def _coreferences(
    groups: list[list[str]], resolved: dict[str, str | None], report: ReportIndex
) -> dict[int, list[str]]:
    """Coreference-lite: for each sentence without a name of the nugget that refers back ("he", "the
    27-year-old ...") to a sentence at most ``COREF_DISTANCE`` before it that has the name, the name's
    stems."""
    coref: dict[int, list[str]] = {}
    for g in groups:
        forms = {resolved[t] for t in g} - {None}
        last = -COREF_DISTANCE - 1
        for j, stems in enumerate(report.sentence_stems):
            if not forms.isdisjoint(stems):
                last = j
            elif j - last <= COREF_DISTANCE and report.refers_back[j]:
                coref.setdefault(j, []).extend(g)
    return coref


@dataclass(frozen=True)
class _NuggetParts:
    """What :func:`nugget_features` reads from the nugget alone (the same for every report it is matched
    against; the trials of one task share their nuggets). Read only: shared between calls."""

    cleaned: str
    tokens: list[str]
    content: list[str]
    content_stems: list[str]
    all_stems: list[str]
    negated: bool
    names: list[NameRun]
    alternatives: list[set[str]]
    #: (the acronym as written, its letters) for each acronym of the nugget
    acronyms: list[tuple[str, str]]
    quantities: list[Quantity]


@lru_cache(maxsize=8192)
def _nugget_parts(nugget: str) -> _NuggetParts:
    cleaned = clean_text(nugget).replace("/", " / ")
    tokens = language.tokenize(cleaned)
    has_age = _AGE.search(cleaned) is not None
    content = [
        t
        for t in tokens
        if t not in language.STOPWORDS
        and not _is_number_token(t)
        and t not in _NUMBER_WORDS
        and not (has_age and _stem(t) in _AGE_WORDS)
    ]
    return _NuggetParts(
        cleaned=cleaned,
        tokens=tokens,
        content=content,
        content_stems=list(dict.fromkeys(_stem(t) for t in content)),
        all_stems=[_stem(t) for t in tokens],
        negated=_negated(tokens),
        names=name_runs(cleaned, stem=_stem),
        alternatives=_alternatives(cleaned),
        acronyms=[(m.group(), m.group(1)) for m in _ACRONYM.finditer(cleaned)],
        quantities=extract_quantities(cleaned, in_nugget=True),
    )


@dataclass(frozen=True)
class _Matching:
    """A nugget read against one report: each content stem as the report spells it, the names, alternatives,
    weights, word pairs, coreferences and spelled-out acronyms every signal below reads."""

    parts: _NuggetParts
    report: ReportIndex
    #: Each nugget stem, as the report spells it (``None``: absent).
    resolved: dict[str, str | None]
    #: The stems of each name of the nugget that the nugget has as content words.
    groups: list[list[str]]
    group_of: dict[str, list[str]]
    alternatives: list[list[str]]
    weights: dict[str, float]
    total_weight: float
    bigrams: list[tuple[str, str]]
    coref: dict[int, list[str]]
    #: An acronym of the nugget the report spells out ("SST": "sea surface temperature"), by sentence.
    acronyms: dict[str, set[int]]

    def hits_in(self, stems: set[str], span: range = range(0)) -> list[str]:
        """The nugget's content stems found in ``stems`` (of the report sentences ``span``), in order."""
        content_stems, resolved = self.parts.content_stems, self.resolved
        direct = {s for s in content_stems if resolved[s] is not None and resolved[s] in stems}
        for j in span:
            direct.update(self.coref.get(j, ()))
        for st, where in self.acronyms.items():
            if any(j in where for j in span):
                direct.add(st)
        # a shorter or longer form of a name is the same name ("Ronaldo" for "Cristiano Ronaldo"); one of
        # the alternatives of "singer/Bieber" stands for all
        for g in itertools.chain(self.groups, self.alternatives):
            if any(t in direct for t in g):
                direct.update(g)
        return [s for s in content_stems if s in direct]


def _matching(parts: _NuggetParts, report: ReportIndex, slip: float) -> _Matching:
    content_stems = parts.content_stems
    resolved = {s: _resolve_stem(s, report, slip) for s in content_stems}
    groups = [g for g in ([t for t in n.stems if t in resolved] for n in parts.names) if g]
    group_of = {t: g for g in groups for t in g}
    alternatives = [
        a for a in ([t for t in content_stems if t in slot] for slot in parts.alternatives) if len(a) > 1
    ]
    weights = {s: (2.0 if s in group_of else 1.0) * (1.0 + min(len(s), 10) / 10) for s in content_stems}
    bigrams = [(resolved.get(a) or a, resolved.get(b) or b) for a, b in itertools.pairwise(parts.all_stems)]
    bigrams = [bg for bg in bigrams if not (bg[0] in language.STOPWORDS and bg[1] in language.STOPWORDS)]
    coref = _coreferences(groups, resolved, report) if groups else {}
    acronyms: dict[str, set[int]] = {}
    for written, letters in parts.acronyms:
        st = _stem(written.lower())
        where = report.spelled_out(letters.lower()) if st in resolved and resolved[st] is None else None
        if st in resolved and resolved[st] is None and where:
            acronyms[st] = where
    return _Matching(
        parts,
        report,
        resolved,
        groups,
        group_of,
        alternatives,
        weights,
        sum(weights.values()),
        bigrams,
        coref,
        acronyms,
    )


@dataclass(frozen=True)
class _Window:
    """The report window that holds the nugget best: the unit, its hits, (weighted recall, recall, bigram
    recall) and every single sentence's recall."""

    unit: _Unit | None
    hits: list[str]
    key: tuple[float, float, float]
    sentence_recall: dict[int, float]


def _best_window(m: _Matching) -> _Window:
    """The window (one or more consecutive sentences) with the best weighted recall of the nugget's content
    words, then recall, then word-pair recall, then the shortest."""
    n_content = len(m.parts.content_stems)
    best_unit: _Unit | None = None
    best_hits: list[str] = []
    best = (-1.0, -1.0, -1.0)
    sentence_recall: dict[int, float] = {}
    for unit in m.report.units:
        hits = m.hits_in(unit.stems, unit.span)
        recall = len(hits) / n_content if n_content else 0.0
        if len(unit.span) == 1:
            sentence_recall[unit.span[0]] = recall
        wrecall = sum(m.weights[s] for s in hits) / m.total_weight if n_content else 0.0
        brecall = sum(1 for bg in m.bigrams if bg in unit.bigrams) / len(m.bigrams) if m.bigrams else 0.0
        key = (wrecall, recall, brecall - len(unit.text) / 1e6)
        if key > best:
            best, best_unit, best_hits = key, unit, hits
    return _Window(best_unit, best_hits, best, sentence_recall)


def _missing_names(m: _Matching) -> list[str]:
    """Names of the nugget of which no form is in the report: one is there when its last word is (a shorter
    form: "Ronaldo" for "Cristiano Ronaldo") or all of it is ("Amanda Mulls" is not "Amanda Oleander"); an
    alternative that is there stands for the others."""
    in_report = {s_ for s_ in m.parts.content_stems if m.resolved[s_] is not None or s_ in m.acronyms}
    for alt in m.alternatives:
        if any(t in in_report for t in alt):
            in_report.update(alt)
    return [
        " ".join(n.words)
        for n, g in ((n, [t for t in n.stems if t in m.resolved]) for n in m.parts.names)
        if g and not (g[-1] in in_report or all(t in in_report for t in g))
    ]


def _number_signal(m: _Matching, window: _Window, r_window: float) -> tuple[list[bool], list[str]]:
    """Whether each quantity of the nugget is stated in the best passage or a sentence matching nearly as
    well (see :mod:`graderctl.language.quantities`), and the numbers of the best passage."""
    quantities, report, best_unit = m.parts.quantities, m.report, window.unit
    if not quantities:
        return [], []
    nugget_stem_set = set(m.parts.all_stems)
    linked_cache: dict[int, bool] = {}

    def linked(i: int) -> bool:
        if i not in linked_cache:
            linked_cache[i] = complement_linked(nugget_stem_set, report.sentence_stems[i], _stem)
        return linked_cache[i]

    if best_unit is None or not m.parts.content_stems:
        scope = list(range(len(report.sentences)))
    else:
        floor = r_window - NUMBER_SCOPE_MARGIN
        scope = sorted(set(best_unit.span) | {i for i, r in window.sentence_recall.items() if r >= floor})
    present = [quantity_present(q, report.quantities, scope, linked) for q in quantities]
    passage = [p.text for i in best_unit.span for p in report.quantities.quantities(i)] if best_unit else []
    return present, passage


def _opposite_wording(m: _Matching, window: _Window) -> list[tuple[str, str]]:
    """``contradiction``: (nugget word, opposite) pairs of the best passage, when it and the nugget agree on
    negation (see :func:`_contradictions`)."""
    if window.unit is None or window.unit.negated != m.parts.negated:
        return []
    return _contradictions(m.parts.all_stems, window.unit.stems)


def _order_signals(m: _Matching, window: _Window) -> tuple[float, float, float]:
    """Word order and compactness of the nugget's words in the best passage: (share of consecutive hits in
    order, spread of the hits, log gap between the subject and the predicate word; 3.0 when unknown)."""
    resolved, content_stems = m.resolved, m.parts.content_stems
    positions: dict[str, int] = {}
    for pos, st in enumerate(window.unit.sequence if window.unit else []):
        positions.setdefault(st, pos)
    found = [positions[r] for r in (resolved[s_] for s_ in window.hits) if r is not None and r in positions]
    if len(found) >= 2:
        in_order = sum(1 for a, b in itertools.pairwise(found) if b > a) / (len(found) - 1)
        spread = (max(found) - min(found) + 1) / len(found)
    else:
        in_order, spread = 1.0, 1.0
    hit_set = set(window.hits)
    subject = content_stems[0] if content_stems else None
    predicate = next((s for s in content_stems if s not in m.group_of), None)
    gap = 3.0
    if subject is not None and predicate is not None and subject in hit_set and predicate in hit_set:
        a_, b_ = positions.get(resolved[subject] or ""), positions.get(resolved[predicate] or "")
        if a_ is not None and b_ is not None:
            gap = math.log1p(abs(b_ - a_))
    return in_order, spread, gap


def nugget_features(nugget: str, report: ReportIndex, *, slip: float = 0.85) -> NuggetMatch:
    """Measure how well ``report`` contains ``nugget`` (see :data:`FEATURES`)."""
    from rapidfuzz import fuzz

    parts = _nugget_parts(nugget)
    content_stems = parts.content_stems
    n_content = len(content_stems)
    m = _matching(parts, report, slip)
    window = _best_window(m)
    w_window, r_window, b_window = (max(0.0, window.key[0]), max(0.0, window.key[1]), max(0.0, window.key[2]))
    unit_text = window.unit.text if window.unit else ""
    unit_negated = window.unit.negated if window.unit else False
    report_hits = set(m.hits_in(report.stems, range(len(report.sentences)) if m.acronyms else range(0)))
    hit_set = set(window.hits)
    missing_names = _missing_names(m)
    present_numbers, passage_numbers = _number_signal(m, window, r_window)
    missing_numbers = [q.text for q, ok in zip(parts.quantities, present_numbers, strict=True) if not ok]
    contradictions = _opposite_wording(m, window)
    in_order, spread, gap = _order_signals(m, window)
    subject = content_stems[0] if content_stems else None
    predicate = next((s for s in content_stems if s not in m.group_of), None)
    nonname = [s_ for s_ in content_stems if s_ not in m.group_of]
    missing_stems = [s for s in content_stems if s not in hit_set]
    groups = m.groups
    features = {
        "content_recall_window": r_window,
        "content_recall_report": len(report_hits) / n_content if n_content else 0.0,
        "weighted_recall_window": w_window,
        "bigram_recall_window": b_window,
        "missing_content": float(len(missing_stems)),
        "long_missing": float(sum(1 for s in missing_stems if len(s) >= 6)),
        "subject_present": 1.0 if subject is not None and subject in hit_set else 0.0,
        "predicate_present": 1.0 if predicate is None or predicate in hit_set else 0.0,
        "subject_predicate_gap": gap,
        "name_recall": (
            sum(1 for g in groups if any(t in report_hits for t in g)) / len(groups) if groups else 1.0
        ),
        "nonname_recall_window": sum(1 for s_ in nonname if s_ in hit_set) / len(nonname) if nonname else 1.0,
        "nonname_recall_report": (
            sum(1 for s_ in nonname if s_ in report_hits) / len(nonname) if nonname else 1.0
        ),
        "number_recall": sum(present_numbers) / len(present_numbers) if present_numbers else 1.0,
        "negation_mismatch": 1.0 if parts.negated != unit_negated else 0.0,
        "contradiction": 1.0 if contradictions else 0.0,
        "char_similarity": fuzz.partial_ratio(parts.cleaned.lower(), unit_text.lower()) / 100
        if unit_text
        else 0.0,
        "order_agreement": in_order,
        "spread": math.log(spread),
        "nugget_length": math.log1p(n_content),
        "report_length": math.log1p(len(report.stems)),
        "support_sentences": math.log1p(sum(1 for r in window.sentence_recall.values() if r >= 0.5)),
    }
    missing_terms = [t for t in parts.content if _stem(t) not in hit_set]
    return NuggetMatch(
        features,
        unit_text,
        list(dict.fromkeys(missing_terms)),
        missing_numbers,
        missing_names,
        contradictions,
        passage_numbers,
    )


@lru_cache(maxsize=1)
def _antonyms() -> dict[str, frozenset[str]]:
    """Pairs of words of opposite meaning (``data/opposites.txt``), as stems: a passage that has one where the
    nugget has the other states the opposite."""
    table: dict[str, set[str]] = {}
    for a_word, b_word in vocabulary.groups("opposites"):
        a, b = _stem(a_word), _stem(b_word)
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


def _contradictions(nugget_stems: list[str], passage: set[str]) -> list[tuple[str, str]]:
    """(nugget word, passage word) pairs where the passage lacks a word of the nugget and has its opposite,
    which the nugget does not have itself: "lower gas prices" against "rising gas prices"."""
    table = _antonyms()
    own = set(nugget_stems)
    found: list[tuple[str, str]] = []
    for s_ in dict.fromkeys(nugget_stems):
        if s_ in passage or s_ not in table:
            continue
        found.extend(
            (s_, opposite) for opposite in sorted(table[s_]) if opposite in passage and opposite not in own
        )
    return found


def _is_number_token(token: str) -> bool:
    if token[:1].isdigit():
        return True
    return token in _NUMBER_WORD_TOKENS or ("-" in token and bool(language.number_keys(token)))


#: ``zero`` ... ``ninety``.
_NUMBER_WORD_TOKENS = frozenset(NUMBER_WORDS)


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


def okay_needed(n_okay: int, share: float) -> int:
    """How many of ``n_okay`` okay nuggets a report must match: ``floor(share * n_okay)`` (a hair of tolerance
    so that 0.3 x 10 is 3)."""
    return math.floor(share * n_okay + 1e-9)


# --- the kind -------------------------------------------------------------------------------------------


def _quote(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return "“" + (text if len(text) <= limit else text[: limit - 1].rstrip() + "…") + "”"


def _why(m: NuggetMatch) -> list[str]:
    """What a nugget lacks in the report, most telling first."""
    why = []
    if m.missing_numbers:
        said = [n for n in dict.fromkeys(m.passage_numbers) if n not in m.missing_numbers]
        why.append(
            "number(s) "
            + ", ".join(m.missing_numbers)
            + " not stated"
            + (f" (the passage gives {', '.join(said[:4])})" if said else " in the report")
        )
    if m.contradictions:
        why.append(
            "the passage says the opposite: "
            + ", ".join(f"{passage!r} for {nugget!r}" for nugget, passage in m.contradictions[:3])
        )
    if m.missing_names:
        why.append("name(s) " + ", ".join(repr(n) for n in m.missing_names) + " not in the report")
    if m.missing_terms:
        why.append("lacks " + ", ".join(repr(t) for t in m.missing_terms[:5]))
    return why


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
        probability reaches the threshold and no hard rule vetoes it), and the evidence."""
        m = nugget_features(nugget, report, slip=self.p.slip_similarity)
        prob = probability(m.features, self.p)
        hit = prob >= self.p.threshold and not self.vetoed(m)
        return prob, hit, m

    def vetoed(self, m: NuggetMatch) -> bool:
        """Whether a hard rule keeps the nugget from matching whatever its probability."""
        p = self.p
        return bool(
            (p.require_numbers and m.missing_numbers)
            or (p.require_names and m.missing_names)
            or (p.reject_contradictions and m.contradictions)
        )

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
        # Each nugget's decisive number (-inf when vetoed): the report is covered at threshold t exactly
        # when every vital one and the `needed`-th best okay one reach t (graderctl tune sweeps it).
        vital_decisive: list[float] = []
        okay_decisive: list[float] = []
        row_decisive: list[float] = []
        for nug in item.nuggets:
            prob, hit, m = self.match(nug.text, index)
            decisive = -math.inf if self.vetoed(m) else prob
            row_decisive.append(decisive)
            (okay_decisive if nug.importance == "okay" else vital_decisive).append(decisive)
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
                    "contradictions": [list(c) for c in m.contradictions],
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
        needed = okay_needed(n_okay, self.p.min_okay_share)
        covered = not missing_vital and okay_hits >= needed
        decisive_all = list(vital_decisive)
        if needed:
            decisive_all.append(sorted(okay_decisive, reverse=True)[needed - 1])
        decision_score = min(decisive_all) if decisive_all else math.inf
        probs = [r["probability"] for r in rows]
        score = min(probs) if probs else 0.0
        details = {
            "nuggets": rows,
            "okay_share": round(okay_hits / n_okay, 4) if n_okay else None,
            "okay_needed": needed,
        }
        if self.p.accept_at_or_above is not None or self.p.reject_below is not None:
            return self._banded(item, rows, row_decisive, decision_score, score, details, needed)
        summary = f"{n_vital - len(missing_vital)}/{n_vital} vital nugget(s) matched"
        if n_okay:
            summary += f", {okay_hits}/{n_okay} okay ({needed} needed)"
        if covered:
            lines = [summary]
            if missing_okay:
                lines.append("missing okay: " + "; ".join(_quote(t) for t, _, _ in missing_okay[:5]))
            return Verdict.accept(
                ". ".join(lines), score=score, details=details, decision_score=decision_score
            )
        parts = [summary]
        for label, missing in (("vital", missing_vital), ("okay", missing_okay)):
            for text, prob, m in missing[:8]:
                why = _why(m)
                score_text = (
                    f"match {prob:.2f} < {self.p.threshold:.2f}"
                    if prob < self.p.threshold
                    else f"match {prob:.2f}, vetoed"
                )
                parts.append(
                    f"missing {label} nugget {_quote(text)} ({score_text}); closest: "
                    f"{_quote(m.best_sentence) if m.best_sentence else 'none'}"
                    + (f" — {'; '.join(why)}" if why else "")
                )
            if len(missing) > 8:
                parts.append(f"and {len(missing) - 8} more missing {label} nugget(s)")
        return Verdict.reject(". ".join(parts), score=score, details=details, decision_score=decision_score)

    def _banded(
        self,
        item: CoverageInput,
        rows: list[dict[str, Any]],
        decisive: list[float],
        decision_score: float,
        score: float,
        details: dict[str, Any],
        needed: int,
    ) -> Verdict:
        """The verdict with an abstention band: each nugget matched, unsure or missing; the report covered,
        not covered or undecided (the same as comparing ``decision_score`` with the band)."""
        reject_below, accept_at = self.p.band(self.p.threshold)
        status: list[str] = []
        for row, d in zip(rows, decisive, strict=True):
            state = decide(d, reject_below, accept_at)
            row["matched"] = state
            status.append("matched" if state else ("unsure" if state is None else "missing"))
        vital = [i for i, n in enumerate(item.nuggets) if n.importance != "okay"]
        okay = [i for i, n in enumerate(item.nuggets) if n.importance == "okay"]
        summary = f"{sum(status[i] == 'matched' for i in vital)}/{len(vital)} vital nugget(s) matched"
        unsure_vital = sum(status[i] == "unsure" for i in vital)
        if unsure_vital:
            summary += f", {unsure_vital} unsure"
        if okay:
            summary += f", {sum(status[i] == 'matched' for i in okay)}/{len(okay)} okay ({needed} needed)"
        band = f"band [{reject_below:.2f}, {accept_at:.2f})"
        decision = decide(decision_score, reject_below, accept_at)
        if decision:
            return Verdict.accept(summary, score=score, details=details, decision_score=decision_score)
        parts = [summary]
        wanted = "missing" if decision is False else "unsure"
        for i, nug in enumerate(item.nuggets):
            if status[i] != wanted or (nug.importance == "okay" and needed == 0):
                continue
            prob = rows[i]["probability"]
            label = "vital" if nug.importance != "okay" else "okay"
            if wanted == "unsure":
                parts.append(f"unsure of {label} nugget {_quote(nug.text)} (match {prob:.2f} in the {band})")
            else:
                how = (
                    f"match {prob:.2f} < {reject_below:.2f}"
                    if decisive[i] > -math.inf
                    else f"match {prob:.2f}, vetoed"
                )
                closest = rows[i]["closest"]
                parts.append(
                    f"missing {label} nugget {_quote(nug.text)} ({how}); closest: "
                    f"{_quote(closest) if closest else 'none'}"
                )
            if len(parts) > 9:
                break
        if decision is None:
            parts[0] = "undecided: " + parts[0]
            return Verdict.undecided(
                ". ".join(parts), score=score, details=details, decision_score=decision_score
            )
        return Verdict.reject(". ".join(parts), score=score, details=details, decision_score=decision_score)
