"""The vocabularies of the claim-support signals, as Snowball stems where they are compared with stems: read
from the language layer's packaged word lists (``graderctl/language/data``), built once at import, never
changed afterwards."""

from __future__ import annotations

import re
from collections.abc import Iterable

from graderctl.language import vocabulary
from graderctl.language.names import (
    COUNTRY_KEYS,
    MONTH_ABBR,
    MONTH_KEYS,
    MONTH_NAMES,
    NAME_JOINERS,
    NOT_NAME_WORDS,
    ORG_WORDS,
    PERSON_CUES,
    WEEKDAYS,
)
from graderctl.language.stemming import stem
from graderctl.language.tokens import NEGATIONS as _TEXT_NEGATIONS
from graderctl.language.tokens import STOPWORDS as _TEXT_STOPWORDS

__all__ = [
    "COUNTRY_KEYS",
    "MONTH_ABBR",
    "MONTH_KEYS",
    "NAME_JOINERS",
    "NOT_NAME_WORDS",
    "ORG_WORDS",
    "PERSON_CUES",
    "WEEKDAYS",
]


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


#: Function words, hedges of a figure, reporting verbs and fillers that carry no checkable content.
STOPWORDS: frozenset[str] = _TEXT_STOPWORDS | vocabulary.words("stopwords_claims")

#: Single-word negation cues (the "n't" contractions are recognised by their ending).
NEGATIONS: frozenset[str] = (_TEXT_NEGATIONS - {"non"}) | frozenset(
    {"failing", "lacking", "nobody", "unable", "neither"}
)

#: Words after "no" that make a bound or a time, not a negation ("no more than", "no later than").
NO_BOUND = frozenset({"later", "sooner", "more", "less", "fewer", "earlier", "greater"})


def _synonyms(groups: Iterable[tuple[str, ...]]) -> dict[str, str]:
    """Stem of each word of a group -> stem of the group's first word (a later group wins)."""
    out: dict[str, str] = {}
    for group in groups:
        key = stem(group[0])
        for w in group:
            out[stem(w)] = key
    out.pop(stem("found"), None)  # "found" is also the past of "find": only "established" maps to it
    out[stem("established")] = stem("found")
    out[stem("founded")] = stem("found")
    return out


#: Groups of words read as the same thing: irregular forms and frequent synonyms of factual text, and
#: demonyms with their country ("German" = "Germany"). The first word of a group is its key.
SYNONYMS: dict[str, str] = _synonyms((*vocabulary.groups("synonyms"), *vocabulary.groups("demonyms")))

#: Keys of countries, continents and their demonyms (names whose type is a place), months and weekdays: from
#: the name finder.
MONTHS: tuple[str, ...] = MONTH_NAMES

DIRECTION_UP: frozenset[str] = _stems(vocabulary.word_list("direction_up"))
DIRECTION_DOWN: frozenset[str] = _stems(vocabulary.word_list("direction_down"))


def _antonyms() -> dict[str, frozenset[str]]:
    """Stem -> the stems of its opposites: a direction word's are all the words of the other direction."""
    out: dict[str, frozenset[str]] = {w: DIRECTION_DOWN for w in DIRECTION_UP} | {
        w: DIRECTION_UP for w in DIRECTION_DOWN
    }
    for a, b in vocabulary.groups("antonyms"):
        sa, sb = stem(a), stem(b)
        out[sa] = out.get(sa, frozenset()) | {sb}
        out[sb] = out.get(sb, frozenset()) | {sa}
    out.pop("up", None)
    out.pop("down", None)
    return out


#: Opposite quantity, direction or outcome words (as stems).
ANTONYM_OF: dict[str, frozenset[str]] = _antonyms()

# --- scope: universal and absolute words, and the words that limit them ---------------------------------

#: Universal / absolute words by class. A claim word of a class is matched by a passage word of the same
#: class.
UNIVERSAL: dict[str, frozenset[str]] = {g[0]: frozenset(g[1:]) for g in vocabulary.groups("universal")}
#: "across / throughout / around the <whole>" reads as a geographic universal.
GEO_PHRASE_RE = re.compile(
    r"\b(?:across|throughout|around|all over)\s+(?:the\s+)?(?:entire\s+|whole\s+)?"
    r"(?:country|nation|world|globe|continent|region|board|state|states|industry|sector|europe|union)\b",
    re.IGNORECASE,
)
#: "every year", "each month": a frequency, not the reach of a claim.
TIME_WORDS: frozenset[str] = vocabulary.words("frequency_words")
#: Passage words that limit or hedge a universal: part of a set, a pilot, a partial change.
LIMITERS: frozenset[str] = vocabulary.words("limiters")
#: Passage words that say an absolute change was only partial ("reduced" where the claim says "eliminated").
PARTIAL_CHANGE: frozenset[str] = vocabulary.words("partial_change")

# --- cause and correlation --------------------------------------------------------------------------------

#: Causal cue words (one word).
CAUSAL: frozenset[str] = vocabulary.words("causal")
#: Claim-side causal cues are stricter: "effect", "factor", "cited", "helped" describe, they do not assert.
CLAIM_CAUSAL: frozenset[str] = CAUSAL - vocabulary.words("causal_descriptive")
CAUSAL_PHRASE_RE = re.compile(
    r"\b(?:due to|as a result|led to|leads? to|leading to|result(?:s|ed)? in|thanks to|owing to|because of"
    r"|gave rise to|give rises? to|brought about|on account of)\b",
    re.IGNORECASE,
)
#: Correlational or uncertain wording: things went together, or the cause is not established.
CORRELATIONAL: frozenset[str] = vocabulary.words("correlational")
CORRELATIONAL_PHRASE_RE = re.compile(
    r"\b(?:at the same time|same period|not (?:yet )?(?:clear|established|known|proven)"
    r"|no (?:clear )?evidence"
    r"|too early|remains? to be|being studied|under study|under investigation)\b",
    re.IGNORECASE,
)
#: Stems of verbs of observing or reporting: "did not measure / record / report X" says X is not known.
UNOBSERVED_VERBS: frozenset[str] = _stems(vocabulary.word_list("observing_verbs"))

#: Words marking a figure as approximate ("about 40%").
APPROX: frozenset[str] = vocabulary.words("approximators")

# --- numbers --------------------------------------------------------------------------------------------

#: Units converted to a base unit: (dimension, factor).
UNITS: dict[str, tuple[str, float]] = {
    k: (v.split()[0], float(v.split()[1])) for k, v in vocabulary.table("units_case_folded").items()
}
CURRENCY_SIGNS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY"}
CURRENCY_WORDS: dict[str, str] = vocabulary.table("currency_words")
