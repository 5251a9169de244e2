"""Signals for the ``claim_support`` kind: how well a passage of the evidence supports a claim.

Plain Python plus numpy for the window scan; Snowball English stems from PyStemmer; no model, no download.

- :func:`index_text` turns one evidence text into an :class:`EvidenceIndex`: sentence spans, the stemmed
  content words of each sentence and, for each of them, a bit mask of the sentences holding it. That is all
  that is computed for every sentence (it is the cost paid once per document, often for a single claim, so
  it is kept small: the text is keyed chunk by chunk through a cache, and the index holds few objects for
  the garbage collector); the finer reading of a sentence (capitalised names, numbers, negation cues and
  their scope, quantifier, hedge and causal words) is computed on demand for the few sentences of the best
  windows, and cached.
- :func:`analyse_claim` turns a claim into a :class:`ClaimInfo` with the same reading.
- :func:`extract` scores every window of 1-3 consecutive sentences cheaply (weighted recall of the claim's
  terms, from the bit masks), keeps the best few, computes the finer signals on those, and returns
  :class:`Features`: the feature values by name plus what a reason needs (best passage, missing terms and
  names, numbers that differ, negation, scope and causal mismatches).

The rule signals are linguistic, not tied to any data set:

- names: a capitalised span of the claim (a person, an organisation, a country; multiword spans kept whole;
  demonyms read as their country) must be in the passage, or in a sentence next to it; a name of the same
  type (country, organisation, person) in the passage where the claim's is missing is a conflict;
- numbers and dates: a claim number with no equal in the passage (same value after scale words, units and
  rounding to the precision written) while the passage gives another number of the same kind (year and year,
  percent and percent, the same currency, the same unit or counted thing) is a conflict;
- negation: a cue (not, n't, never, no, no longer, failed to, lack of, without, un-/non- before a word the
  other side has bare) whose scope (the words after it, up to a clause boundary) holds words of the other
  side, present in one and absent from the other;
- scope: a universal or absolute word in the claim (every, all, always, only, never, none, entirely,
  eliminated, nationwide, worldwide, across the country ...) with no word of the same reach in the passage,
  worse when the passage limits or hedges (some, most, several, partly, a count of things, reduced ...);
- cause: a causal verb or connective in the claim (caused, led to, due to, because, drove, attributed to,
  resulted in, thanks to ...) with no causal wording in the passage, worse when the passage only says things
  went together or are uncertain (coincided, associated with, correlated, linked to, may, still being
  studied ...);
- direction: opposite quantity or direction words (rose/fell, more/less, all/some ...) near shared words.

Each rule signal is 0 when absent, else the passage's recall of the claim (a difference in a passage that
otherwise reads like the claim is a contradiction; in a loosely related one it says little), and enters the
fitted logistic model like every other feature.

On top of the fitted features, :func:`~.vetoes.apply_vetoes` lists explicit, high-precision contradictions
in the best passage (when it is about the claim's named things): a claim number or date found nowhere in the
evidence against another value of the same kind in the same slot, opposite direction words with no word of
the claim's direction in the passage, a negation mismatch or a passage saying the claim's matter was not
measured ("did not measure fruit yield"); and a floor on recall (fewer than a third of the claim's content
words anywhere in the evidence). Each decides the verdict alone (``values["veto"]`` = 1, a flag, not a fitted
feature).

The names in :data:`FEATURE_NAMES` are the contract with the fitted weights in
``graders/claim-support/v1.toml``: changing what a feature computes changes verdicts.

The package, in the order a claim goes through it: :mod:`.vocab` (the word lists, from the language layer's
packaged data), :mod:`.keys` (content keys of words), :mod:`.numbers` (numbers with their kind),
:mod:`.reading` (the finer reading of a sentence: names and cues), :mod:`.evidence` (the evidence index),
:mod:`.claims` (a claim's reading), :mod:`.features` (the window scan and the fitted features),
:mod:`.rules` (one function per rule signal), :mod:`.vetoes`.
"""

from __future__ import annotations

from graderctl.kinds._support_features.claims import (
    MIN_PART_TERMS,
    ClaimInfo,
    analyse_claim,
    claim_parts,
    strip_citation_markers,
)
from graderctl.kinds._support_features.evidence import EvidenceIndex, index_text, mask_bits
from graderctl.kinds._support_features.features import extract
from graderctl.kinds._support_features.keys import text_keys, word_key
from graderctl.kinds._support_features.model import FEATURE_NAMES, RULE_FEATURES, Features, Passage
from graderctl.kinds._support_features.numbers import Number, number_matches, numbers_in
from graderctl.kinds._support_features.reading import Reading, read
from graderctl.kinds._support_features.vetoes import RECALL_FLOOR, VETO_STRENGTH
from graderctl.language.names import Name
from graderctl.language.stemming import stem

__all__ = [
    "FEATURE_NAMES",
    "MIN_PART_TERMS",
    "RECALL_FLOOR",
    "RULE_FEATURES",
    "VETO_STRENGTH",
    "ClaimInfo",
    "EvidenceIndex",
    "Features",
    "Name",
    "Number",
    "Passage",
    "Reading",
    "analyse_claim",
    "claim_parts",
    "extract",
    "index_text",
    "mask_bits",
    "number_matches",
    "numbers_in",
    "read",
    "stem",
    "strip_citation_markers",
    "text_keys",
    "word_key",
]
