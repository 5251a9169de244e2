"""What the signals give: the feature names (the contract with the fitted weights), the best passage and
:class:`Features`."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    "char_similarity",  # share of the claim's character 4-grams found in the window
    "clause_min_recall",  # recall of the worst-covered clause of the claim, anywhere in the evidence
    "name_missing_window",  # share of the claim's name words absent from the window
    "name_missing_evidence",  # share of the claim's name words absent from the evidence
    "number_missing_window",  # share of the claim's numbers absent from the window
    "number_missing_evidence",  # share of the claim's numbers absent from the evidence
    "missing_count",  # log(1 + number of claim terms absent from the evidence)
    "max_missing_weight",  # IDF of the rarest absent term / IDF of the rarest term
    "claim_length",  # log(1 + number of claim terms)
    "evidence_length",  # log(1 + number of evidence sentences): a short passage leaves context unsaid
    # rule signals: 0 when absent, else the passage's recall of the claim (see the module docstring)
    "entity_missing",  # a name of the claim is neither in the passage nor in a sentence next to it
    "entity_conflict",  # ... and the passage has another name of the same type in its place
    "number_conflict",  # the passage gives another number of the same kind (not a year)
    "date_conflict",  # the passage gives another year or month where the claim's is missing
    "negation_mismatch",  # the claim and the passage disagree on negation (scoped to shared words)
    "quantity_mismatch",  # the passage says the opposite quantity/direction word (more/less, rise/fall ...)
    "scope_unsupported",  # a universal/absolute word of the claim has no counterpart in the passage
    "scope_limited",  # ... and the passage limits or hedges (some, most, a count of things, reduced ...)
    "causal_unsupported",  # the claim states a cause; the passage has no causal wording
    "causal_hedged",  # ... and the passage says things only went together, or are uncertain
)

#: The rule signals among :data:`FEATURE_NAMES`.
RULE_FEATURES: tuple[str, ...] = FEATURE_NAMES[FEATURE_NAMES.index("entity_missing") :]


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
    #: (claim number, passage number) pairs counting the same thing differently (dates included).
    conflicting_numbers: list[tuple[str, str]]
    #: What differs about negation ("the claim says 'not' but the passage does not"), or "".
    negation: str
    #: (claim word, passage word) opposite pairs.
    quantity: list[tuple[str, str]]
    #: Names of the claim missing from the passage (and the sentences next to it).
    missing_entities: list[str] = field(default_factory=list)
    #: (claim name, passage name of the same type) pairs.
    entity_conflicts: list[tuple[str, str]] = field(default_factory=list)
    #: (claim universal word, passage limiting word or "") when the passage does not match the claim's reach.
    scope: tuple[str, str] | None = None
    #: (claim causal wording, passage correlational wording or "") when the passage does not state the cause.
    causal: tuple[str, str] | None = None
    #: Explicit contradictions or gaps that decide a verdict alone (see ``vetoes.apply_vetoes``), as reasons.
    vetoes: list[str] = field(default_factory=list)
    #: The negation found is a passage saying the claim's matter was not measured or reported.
    negated_predicate: bool = False
    #: Claim numbers bounded like a passage number of the same kind but with another value ("over five
    #: summers" / "over two summers").
    bound_conflicts: list[str] = field(default_factory=list)
    #: Opposite wording where no sentence of the passage also says the claim's word or direction.
    quantity_explicit: bool = False

    def vector(self) -> list[float]:
        return [self.values[name] for name in FEATURE_NAMES]
