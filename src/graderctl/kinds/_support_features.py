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

On top of the fitted features, :func:`_vetoes` lists explicit, high-precision contradictions in the best
passage (when it is about the claim's named things): a claim number or date found nowhere in the evidence
against another value of the same kind in the same slot, opposite direction words with no word of the claim's
direction in the passage, a negation mismatch or a passage saying the claim's matter was not measured ("did
not measure fruit yield"); and a floor on recall (fewer than a third of the claim's content words anywhere in
the evidence). Each decides the verdict alone (``values["veto"]`` = 1, a flag, not a fitted feature).

The names in :data:`FEATURE_NAMES` are the contract with the fitted weights in
``graders/claim-support/v1.toml``: changing what a feature computes changes verdicts.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, pairwise
from typing import Any

from graderctl.language.numbers import extract_numbers
from graderctl.language.sentences import sentence_spans, split_sentences
from graderctl.language.stemming import stem
from graderctl.language.tokens import NEGATIONS as _TEXT_NEGATIONS
from graderctl.language.tokens import STOPWORDS as _TEXT_STOPWORDS
from graderctl.language.typography import fold_typography


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


# --- vocabulary ---------------------------------------------------------------------------------------

#: Function words, hedges of a figure, reporting verbs and fillers that carry no checkable content.
_EXTRA_STOPWORDS = """
am an among amongst across along around onto toward towards whether though although thus therefore hence yet
still even ever well like unlike one ones who's what's there's here's he's she's mr mrs ms dr st also
currently later early then now today recently us approximately approx roughly nearly almost some around
st nd rd th since
hundred thousand million millions billion billions trillion percent cent mln bn
zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety dozen
"""
STOPWORDS: frozenset[str] = _TEXT_STOPWORDS | frozenset(_EXTRA_STOPWORDS.split())

#: Single-word negation cues (the "n't" contractions are recognised by their ending).
NEGATIONS: frozenset[str] = (_TEXT_NEGATIONS - {"non"}) | frozenset(
    {"failing", "lacking", "nobody", "unable", "neither"}
)

#: Words after "no" that make a bound or a time, not a negation ("no more than", "no later than").
_NO_BOUND = frozenset({"later", "sooner", "more", "less", "fewer", "earlier", "greater"})

#: Groups of words read as the same thing: irregular forms and frequent synonyms of factual text, and
#: demonyms with their country ("German" = "Germany"). The first word of a group is its key.
_SYNONYM_GROUPS = (
    "marry wed married marriage",
    "spouse husband wife",
    "death die died dead dies",
    "birth born",
    "film movie movies films",
    "begin began begun start started starts commence commenced",
    "win won victory victories",
    "award prize",
    "buy bought purchase purchased",
    "sell sold",
    "make made",
    "build built construct constructed",
    "write written wrote",
    "choose chose chosen select selected",
    "leave left",
    "hold held",
    "lead led",
    "teach taught",
    "run ran",
    "increase increased increases increasing rise rises rose risen rising grow grew grown grows growing climb"
    " climbed jump jumped surge surged soar soared",
    "decrease decreased decreases decreasing fall falls fell fallen falling decline declined declines"
    " declining drop dropped drops shrink shrank shrunk slump slumped plunge plunged",
    "sing sang sung",
    "give gave given",
    "take took taken",
    "become became",
    "found establish established founded",
    "year annual annually yearly",
    "firm company companies corporation",
    "child children kid kids",
    "person people persons",
    "man men",
    "woman women",
    "largest biggest",
    "large big",
    "america american americans",
    "britain british briton",
    "england english",
    "france french",
    "germany german germans",
    "italy italian italians",
    "spain spanish",
    "portugal portuguese",
    "netherlands dutch",
    "belgium belgian",
    "poland polish",
    "sweden swedish",
    "norway norwegian",
    "denmark danish",
    "finland finnish",
    "ireland irish",
    "scotland scottish",
    "wales welsh",
    "russia russian russians",
    "ukraine ukrainian ukrainians",
    "china chinese",
    "japan japanese",
    "korea korean",
    "india indian indians",
    "pakistan pakistani",
    "brazil brazilian",
    "mexico mexican",
    "canada canadian canadians",
    "australia australian australians",
    "egypt egyptian",
    "nigeria nigerian",
    "kenya kenyan",
    "turkey turkish",
    "greece greek",
    "austria austrian",
    "switzerland swiss",
    "israel israeli",
    "iran iranian",
    "iraq iraqi",
    "europe european europeans",
    "africa african africans",
    "asia asian",
    "argentina argentine argentinian",
    "chile chilean",
    "colombia colombian",
    "peru peruvian",
    "indonesia indonesian",
    "vietnam vietnamese",
    "thailand thai",
    "philippines filipino philippine",
    "hungary hungarian",
    "romania romanian",
    "ethiopia ethiopian",
    "czechia czech",
    "bangladesh bangladeshi",
    "singapore singaporean",
    "taiwan taiwanese",
    "morocco moroccan",
    "ghana ghanaian",
    "tanzania tanzanian",
    "uganda ugandan",
    "estonia estonian",
    "latvia latvian",
    "lithuania lithuanian",
    "croatia croatian",
    "serbia serbian",
    "slovakia slovak slovakian",
    "slovenia slovenian",
    "bulgaria bulgarian",
    "iceland icelandic",
    "zealand",
    "saudi",
    "emirates",
    "venezuela venezuelan",
    "cuba cuban",
    "malaysia malaysian",
)
SYNONYMS: dict[str, str] = {}
for _group in _SYNONYM_GROUPS:
    _words = _group.split()
    _key = stem(_words[0])
    for _w in _words:
        SYNONYMS[stem(_w)] = _key
SYNONYMS.pop(stem("found"), None)  # "found" is also the past of "find": only "established" maps to it
SYNONYMS[stem("established")] = stem("found")
SYNONYMS[stem("founded")] = stem("found")

#: Keys of countries, continents and their demonyms: names whose type is a place.
COUNTRY_KEYS: frozenset[str] = frozenset(
    stem(g.split()[0]) for g in _SYNONYM_GROUPS[_SYNONYM_GROUPS.index("america american americans") :]
)

_MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
MONTH_KEYS: frozenset[str] = frozenset(stem(m) for m in _MONTHS)
_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])

#: Opposite quantity, direction or outcome words (as stems).
_ANTONYM_WORDS = (
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("bigger", "smaller"),
    ("above", "below"),
    ("major", "minor"),
    ("maximum", "minimum"),
    ("best", "worst"),
    ("better", "worse"),
    ("win", "lose"),
    ("won", "lost"),
    ("all", "some"),
    ("always", "sometimes"),
    ("success", "failure"),
    ("accept", "reject"),
    ("approve", "reject"),
    ("support", "oppose"),
    ("legal", "illegal"),
    ("possible", "impossible"),
    ("likely", "unlikely"),
    ("before", "after"),
    ("first", "last"),
)
DIRECTION_UP: frozenset[str] = _stems(
    (
        *("increase", "increased", "rise", "rose", "risen", "grow", "grew", "grown", "gain", "gained"),
        *("higher", "more", "expand", "expanded", "boost", "boosted", "climb", "climbed", "jump", "jumped"),
        *("surge", "surged", "soar", "soared", "improve", "improved", "strengthen", "accelerate", "up"),
    )
)
DIRECTION_DOWN: frozenset[str] = _stems(
    (
        *("decrease", "decreased", "fall", "fell", "fallen", "decline", "declined", "drop", "dropped"),
        *("shrink", "shrank", "shrunk", "lower", "less", "fewer", "reduce", "reduced", "cut", "lost"),
        *("lose", "contract", "contracted", "slump", "plunge", "plunged", "weaken", "slow", "slowed"),
        *("worsen", "down"),
    )
)
_ANTONYM_OF: dict[str, frozenset[str]] = {w: DIRECTION_DOWN for w in DIRECTION_UP} | {
    w: DIRECTION_UP for w in DIRECTION_DOWN
}
for _a, _b in _ANTONYM_WORDS:
    _sa, _sb = stem(_a), stem(_b)
    _ANTONYM_OF[_sa] = _ANTONYM_OF.get(_sa, frozenset()) | {_sb}
    _ANTONYM_OF[_sb] = _ANTONYM_OF.get(_sb, frozenset()) | {_sa}
_ANTONYM_OF.pop("up", None)
_ANTONYM_OF.pop("down", None)

# --- scope: universal and absolute words, and the words that limit them ---------------------------------

#: Universal / absolute words by class (stems). A claim word of a class is matched by a passage word of the
#: same class.
UNIVERSAL: dict[str, frozenset[str]] = {
    "all": frozenset(
        (
            *("all", "every", "each", "entire", "entirely", "whole", "wholly", "completely", "complete"),
            *("totally", "fully", "universal", "universally", "everywhere", "everyone", "everybody"),
            *("everything", "throughout", "nationwide", "worldwide", "countrywide"),
            *("global", "globally"),
        )
    ),
    "always": frozenset(("always", "invariably", "consistently", "constantly", "forever", "permanently")),
    "none": frozenset(("none", "nobody", "nothing", "never")),
    "only": frozenset(("only", "solely", "sole", "exclusively", "uniquely")),
    "eliminate": frozenset(
        (
            *("eliminate", "eliminated", "eliminates", "eliminating", "elimination", "eradicate"),
            *("eradicated", "eradicating", "abolish", "abolished", "wiped"),
        )
    ),
    "geo": frozenset(("nationwide", "worldwide", "countrywide", "global", "globally", "everywhere")),
}
#: "across / throughout / around the <whole>" reads as a geographic universal.
_GEO_PHRASE_RE = re.compile(
    r"\b(?:across|throughout|around|all over)\s+(?:the\s+)?(?:entire\s+|whole\s+)?"
    r"(?:country|nation|world|globe|continent|region|board|state|states|industry|sector|europe|union)\b",
    re.IGNORECASE,
)
#: "every year", "each month": a frequency, not the reach of a claim.
_TIME_WORDS = frozenset(
    [
        "year",
        "years",
        "month",
        "months",
        "week",
        "weeks",
        "day",
        "days",
        "time",
        "times",
        "season",
        "seasons",
        "night",
    ]
)
#: Passage words that limit or hedge a universal: part of a set, a pilot, a partial change.
LIMITERS: frozenset[str] = frozenset(
    (
        *("some", "several", "many", "most", "mostly", "largely", "partly", "partially", "majority"),
        *("minority", "few", "certain", "selected", "pilot", "limited", "except", "excluding"),
        *("exception", "exceptions", "apart", "mixed", "varied", "uneven", "select", "trial", "half"),
        *("stable", "unchanged", "steady", "flat", "broadly", "generally", "typically", "often"),
        *("sometimes", "occasionally", "usually", "mainly", "primarily", "nearly", "almost", "partial"),
    )
)
#: Passage words that say an absolute change was only partial ("reduced" where the claim says "eliminated").
PARTIAL_CHANGE: frozenset[str] = frozenset(
    (
        *("reduce", "reduced", "reduces", "reducing", "reduction", "cut", "cuts", "lower", "lowered"),
        *("decrease", "decreased", "decreases", "fell", "declined", "decline", "halved", "curbed"),
    )
)

# --- cause and correlation --------------------------------------------------------------------------------

#: Causal cue stems (one word).
CAUSAL: frozenset[str] = frozenset(
    (
        *("cause", "caused", "causes", "causing", "because", "consequently", "therefore", "hence"),
        *("resulted", "resulting", "attributed", "attributes", "attribute", "attributable", "blamed"),
        *("blame", "triggered", "trigger", "triggers", "spurred", "spur", "fuelled", "fueled"),
        *("drove", "driven", "drives", "driving", "driver", "drivers", "responsible", "prompted"),
        *("contributed", "contributing", "owing", "thanks", "explains", "explained", "reason", "reasons"),
        *("factor", "factors", "citing", "cited", "effect", "impact", "consequence", "led"),
        *("helped", "enabled"),
    )
)
#: Claim-side causal cues are stricter: "effect", "factor", "cited", "helped" describe, they do not assert.
CLAIM_CAUSAL: frozenset[str] = CAUSAL - frozenset(
    ("effect", "impact", "factor", "factors", "reason", "reasons", "citing", "cited", "helped", "enabled")
)
_CAUSAL_PHRASE_RE = re.compile(
    r"\b(?:due to|as a result|led to|leads? to|leading to|result(?:s|ed)? in|thanks to|owing to|because of"
    r"|gave rise to|give rises? to|brought about|on account of)\b",
    re.IGNORECASE,
)
#: Correlational or uncertain wording: things went together, or the cause is not established.
CORRELATIONAL: frozenset[str] = frozenset(
    (
        *("coincided", "coincide", "coincides", "coinciding", "coincidence", "associated", "association"),
        *("correlated", "correlation", "correlates", "linked", "link", "links", "simultaneously"),
        *("alongside", "unclear", "uncertain", "unknown", "unproven", "possibly", "perhaps", "suggest"),
        *("suggests", "suggested", "studied", "investigating", "investigated", "speculated", "hypothesis"),
        *("may", "might", "could", "whether", "tentative", "preliminary"),
    )
)
_CORRELATIONAL_PHRASE_RE = re.compile(
    r"\b(?:at the same time|same period|not (?:yet )?(?:clear|established|known|proven)"
    r"|no (?:clear )?evidence"
    r"|too early|remains? to be|being studied|under study|under investigation)\b",
    re.IGNORECASE,
)

#: Words marking a figure as approximate ("about 40%").
_APPROX = frozenset(
    [
        "about",
        "around",
        "approximately",
        "approx",
        "roughly",
        "nearly",
        "almost",
        "some",
        "circa",
        "ca",
        "over",
        "under",
        "around",
        "estimated",
    ]
)

#: Words that make a capitalised span an organisation.
_ORG_WORDS: frozenset[str] = frozenset(
    stem(w)
    for w in (
        *("inc", "ltd", "corp", "corporation", "company", "co", "group", "bank", "university", "institute"),
        *("agency", "ministry", "department", "council", "commission", "association", "foundation"),
        *("society", "authority", "board", "party", "union", "organisation", "organization", "center"),
        *("centre", "hospital", "school", "college", "museum", "fund", "service", "office", "court"),
        *("committee", "network", "airlines", "airways", "systems", "technologies", "labs", "laboratory"),
        *("trust", "federation", "bureau", "administration", "club", "team", "press", "times", "news"),
        *("motors", "energy", "holdings", "partners", "plc", "llc", "gmbh", "ag", "sa", "tracker"),
    )
)
#: Words before or after a span that make it a person.
_PERSON_CUES: frozenset[str] = frozenset(
    (
        *("mr", "mrs", "ms", "dr", "prof", "professor", "sir", "lady", "lord", "director", "ceo", "chief"),
        *("minister", "president", "chair", "chairman", "chairwoman", "spokesperson", "spokesman"),
        *("spokeswoman", "founder", "author", "head", "secretary", "governor", "mayor", "senator"),
        *("economist", "analyst", "researcher", "scientist", "lead", "manager", "officer", "said", "says"),
        *("told", "wrote", "explained", "added", "coach", "captain", "judge", "editor", "investigator"),
    )
)
#: Lower-case words that may join a multiword name ("Bank of England", "Ludwig van Beethoven").
_NAME_JOINERS = frozenset({"of", "de", "du", "da", "van", "von", "der", "del", "la", "le", "&", "al", "bin"})
_NOT_NAME_WORDS = frozenset(
    [
        "i",
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "he",
        "she",
        "they",
        "we",
        "you",
        "his",
        "her",
        "their",
        "our",
        "my",
        "your",
        "there",
        "here",
        "when",
        "where",
        "while",
        "what",
        "who",
        "which",
        "why",
        "how",
        "if",
        "but",
        "and",
        "or",
        "so",
        "yet",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "to",
        "with",
        "after",
        "before",
        "since",
        "until",
        "during",
        "also",
        "however",
        "in",
        "on",
        "according",
    ]
)

#: Negation and quantity words are compared only in passage sentences holding this share of the claim.
ALIGNED_RECALL = 0.4

#: The most words after a negation cue that it governs (a clause boundary ends it sooner).
_SCOPE = 6

#: Fast tokeniser of the evidence index (lower-cased text): numbers, and words with internal apostrophes.
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:'\w+)*")
#: The finer tokeniser: the same word tokens plus clause punctuation and currency/percent signs.
_RICH_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:'\w+)*|[,;:()%$£€¥]|\s-\s")
#: Cues that contrast rather than deny ("rather than", "instead of"): they mark a sentence as negating but
#: are not compared word by word.
_CONTRASTIVE = frozenset({"rather than", "instead of"})
_CLAUSE_BREAKS = frozenset({",", ";", ":", "(", ")", " - ", "but", "while", "whereas", "although", "though"})
_ISO_DATE_RE = re.compile(r"\b(1\d{3}|20\d{2})-(0?[1-9]|1[0-2])-(0?[1-9]|[12]\d|3[01])\b")
_DIGITS_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")
#: A number word from "two" to "ninety" or "hundred", as a whole word, case ignored: the same matches as
#: ``(?i)\b(?:two|three|...|ninety|hundred)\b``, written to begin with one character set (the first letters,
#: and the characters case-insensitive matching takes for them) so that the regex engine skips to candidates
#: quickly (several times faster on long pages).
_NUMBER_WORDS_RE = re.compile(
    r"[EFHNSTefhnst\u017f](?<!\w.)(?i:"
    r"(?<=t)(?:wo|hree|en|welve|hirteen|wenty|hirty)"
    r"|(?<=f)(?:our|ive|ourteen|ifteen|ifty|orty)"
    r"|(?<=s)(?:ix|even|ixteen|eventeen|ixty|eventy)"
    r"|(?<=e)(?:ight|leven|ighteen|ighty)"
    r"|(?<=n)(?:ine|ineteen|inety)"
    r"|(?<=h)undred"
    r")(?!\w)"
)
_CLAUSE_SPLIT_RE = re.compile(
    r"[,;:()\[\]]|\s-\s|\b(?:and|but|while|which|who|whom|whose|whereas|although|though|including|where|"
    r"when|after|before|because|since)\b",
    re.IGNORECASE,
)


def _word_key(word: str) -> str | None:
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("'"):
        w = w[:-1]
    if len(w) < 2 or w in STOPWORDS or w in NEGATIONS or w.endswith("n't"):
        return None
    if w[0].isdigit():
        return None  # numbers are compared by value
    if len(w) <= 4 and w in _MONTH_ABBR:
        w = _MONTH_ABBR[w]
    s = stem(w)
    return SYNONYMS.get(s, s)


class _KeyCache(dict[str, str | None]):
    def __missing__(self, word: str) -> str | None:
        key = _word_key(word)
        if key is not None and len(key) >= 6:
            _register_prefix(key)
        if len(self) < 1_000_000:
            self[word] = key
        return key


#: First 5 letters -> every content key of 6 letters or more made so far that starts with them (each key
#: passes through :class:`_KeyCache` before it can be in an evidence index): a page's keys sharing a claim
#: term's first letters are found with a few lookups, without scanning the page's vocabulary.
_PREFIX_KEYS: dict[str, tuple[str, ...]] = {}
_PREFIX_LOCK = threading.Lock()
#: Past this many keys the table stops growing and pages are scanned instead (see prefix_mask).
_PREFIX_KEYS_LIMIT = 2_000_000
_prefix_keys_count = [0]


def _register_prefix(key: str) -> None:
    with _PREFIX_LOCK:
        if _prefix_keys_count[0] >= _PREFIX_KEYS_LIMIT:
            return
        group = _PREFIX_KEYS.get(key[:5], ())
        if key not in group:
            _PREFIX_KEYS[key[:5]] = (*group, key)
            _prefix_keys_count[0] += 1


_KEY_CACHE = _KeyCache()
for _m in _MONTHS:
    if len(stem(_m)) >= 6:
        _register_prefix(stem(_m))  # ISO dates add their month's key to a sentence without the cache


def word_key(word: str) -> str | None:
    """The content key of a token (its Snowball stem, canonicalised through :data:`SYNONYMS`), or ``None``
    for a function word, a negation or a number. Case does not matter."""
    return _KEY_CACHE[word]


class _StemCache(dict[str, str]):
    def __missing__(self, word: str) -> str:
        s = stem(word)
        if len(self) < 1_000_000:
            self[word] = s
        return s


_STEM_CACHE = _StemCache()


# --- numbers ------------------------------------------------------------------------------------------

#: Units converted to a base unit: (dimension, factor).
_UNITS: dict[str, tuple[str, float]] = {
    "w": ("W", 1.0),
    "kw": ("W", 1e3),
    "mw": ("W", 1e6),
    "gw": ("W", 1e9),
    "tw": ("W", 1e12),
    "wh": ("Wh", 1.0),
    "kwh": ("Wh", 1e3),
    "mwh": ("Wh", 1e6),
    "gwh": ("Wh", 1e9),
    "twh": ("Wh", 1e12),
    "watts": ("W", 1.0),
    "kilowatts": ("W", 1e3),
    "megawatts": ("W", 1e6),
    "gigawatts": ("W", 1e9),
    "km": ("m", 1e3),
    "kilometres": ("m", 1e3),
    "kilometers": ("m", 1e3),
    "metres": ("m", 1.0),
    "meters": ("m", 1.0),
    "kg": ("g", 1e3),
    "tonnes": ("g", 1e6),
    "tons": ("g", 1e6),
    "kilograms": ("g", 1e3),
}
_CURRENCY_SIGNS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY"}
_CURRENCY_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "usd": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "gbp": "GBP",
    "sterling": "GBP",
    "yen": "JPY",
    "jpy": "JPY",
    "yuan": "CNY",
    "renminbi": "CNY",
    "rupees": "INR",
    "francs": "CHF",
}
_SCALE_WORDS = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mln": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "tn": 1e12,
}
_SUFFIX_RE = re.compile(r"\d\s?(k|m|mn|mln|bn|b|tn)$")
_MIN_BOUND = frozenset({"more than", "over", "at least", "above", "exceeding", "upwards of", "greater than"})
_MAX_BOUND = frozenset({"less than", "under", "up to", "below", "fewer than", "at most", "no more than"})
_AFTER_NUMBER_RE = re.compile(
    r"\s?(?:(?P<scale>thousand|million|billion|trillion|mn|mln|bn|tn|[kmb])\b\s?)?"
    r"(?P<word>[A-Za-z]+)?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Number:
    """A number mentioned in a text, read with its scale, unit and precision."""

    value: float
    text: str
    #: "year", "percent", "currency:USD", "unit:W", "count:<key of the counted thing>", or "" (bare).
    kind: str
    #: Half the last written digit's place, in the value's units: 39.6 is a rounding of 40 when
    #: |40 - 39.6| <= 0.5. 0 for years (exact).
    half_step: float
    #: Marked as approximate ("about 40%", "nearly 2 million").
    approx: bool
    #: The figure as written before a scale word ("906 million" -> 906).
    mantissa: float
    start: int = 0
    #: "min" for "more than / over / at least X", "max" for "less than / under / up to X", else "".
    bound: str = ""

    @property
    def is_year(self) -> bool:
        return self.kind == "year"

    def comparable(self, other: Number) -> bool:
        """Whether two numbers measure the same kind of thing, so that different values contradict."""
        if self.kind == "" or other.kind == "":
            return False
        return self.kind == other.kind

    def compatible(self, other: Number) -> bool:
        """Whether two numbers could be the same quantity (kinds equal, or one of them bare)."""
        if self.kind in ("year", "day") or other.kind in ("year", "day"):
            return self.kind == other.kind
        if (
            self.kind.startswith("count:")
            or other.kind.startswith("count:")
            or not self.kind
            or not other.kind
        ):
            return (self.kind.startswith("percent")) == (other.kind.startswith("percent"))
        return self.kind == other.kind


def _half_step(written: str, factor: float, approx: bool) -> float:
    """Half the place of the last written digit of ``written`` ("3.5" -> 0.05), times ``factor``; for an
    approximate figure the last significant digit ("about 40" -> 5)."""
    core = written.replace(",", "")
    if "." in core:
        decimals = len(core) - core.index(".") - 1
        return 0.5 * 10.0**-decimals * factor
    if approx:
        trailing = len(core) - len(core.rstrip("0"))
        return 0.5 * 10.0**trailing * factor
    return 0.5 * factor


def numbers_in(text: str, *, skip_one: bool = False) -> list[Number]:
    """Numbers of a (typography-folded) text with their kind, from
    :func:`graderctl.language.numbers.extract_numbers`, "2018-19" read as 2019, scale suffixes ("1.9m"),
    currencies, units (GW = 1,000 MW; bps = 0.01 percentage points) and the counted thing after each
    number."""
    out: list[Number] = []
    for m in extract_numbers(text):
        low = m.text.lower()
        if skip_one and low in ("one", "zero"):
            continue  # "one of the ..." is rarely a checkable quantity
        value = float(m.value)
        written_m = re.search(r"\d[\d,]*(?:\.\d+)?", m.text)
        written = written_m.group() if written_m else str(int(value))
        mantissa = float(written.replace(",", "")) if written_m else value
        factor = value / mantissa if mantissa else 1.0
        before = text[max(0, m.start - 20) : m.start].lower().split()
        approx = bool(before) and before[-1] in _APPROX
        last2 = " ".join(before[-2:])
        bound = ""
        if last2 in _MIN_BOUND or (before and before[-1] in _MIN_BOUND):
            bound = "min"
        elif last2 in _MAX_BOUND or (before and before[-1] in _MAX_BOUND):
            bound = "max"
        kind = ""
        end = m.end
        if m.percent:
            kind = "percent"
        elif m.text[:1] in _CURRENCY_SIGNS:
            kind = "currency:" + _CURRENCY_SIGNS[m.text[0]]
        if len(low) == 2 and low.isdigit() and m.start >= 5 and text[m.start - 1] == "-":
            prev = text[m.start - 5 : m.start - 1]
            if prev.isdigit():
                value = float(int(prev) // 100 * 100 + int(low))  # "2018-19"
                mantissa, factor = value, 1.0
        suffix = _SUFFIX_RE.search(low)
        if suffix and not kind and factor == 1.0:
            factor = _SCALE_WORDS[suffix.group(1)]  # "1.9m", "2bn" without a currency sign
            value = mantissa * factor
        after = _AFTER_NUMBER_RE.match(text, end)
        word = ""
        if after is not None:
            scale = after.group("scale")
            if scale and factor == 1.0 and not m.percent and (scale.lower() not in "kmb" or kind):
                factor = _SCALE_WORDS[scale.lower()]
                value = mantissa * factor
            elif scale and scale.lower() in "kmb" and not kind and factor == 1.0 and value < 1e4:
                factor = _SCALE_WORDS[scale.lower()]  # "1.9m", "2bn": a scale suffix without a sign
                value = mantissa * factor
            word = (after.group("word") or "").lower()
        if not kind:
            if word in ("bps", "bp", "basis"):
                kind, value, factor = "percent", value / 100.0, factor / 100.0
            elif word in _UNITS:
                dim, f = _UNITS[word]
                kind, value, factor = "unit:" + dim, value * f, factor * f
            elif word in _CURRENCY_WORDS:
                kind = "currency:" + _CURRENCY_WORDS[word]
            elif value == int(value) and 1200 <= value <= 2100 and factor == 1.0 and "," not in m.text:
                kind = "year"
            elif value == int(value) and 1 <= value <= 31 and _next_to_month(text, m.start, end, word):
                kind = "day"
            else:
                unit = ""
                for w in _TOKEN_RE.findall(text, end, min(len(text), end + 40)):
                    k = word_key(w)
                    if k is not None:
                        unit = k
                        break
                kind = "count:" + unit if unit else ""
        half = 0.0 if kind in ("year", "day") else _half_step(written, factor, approx)
        out.append(Number(value, m.text, kind, half, approx, mantissa, m.start, bound))
    return out


def _is_month(word: str) -> bool:
    return word in _MONTHS or word.rstrip(".") in _MONTH_ABBR


def _next_to_month(text: str, start: int, end: int, word_after: str) -> bool:
    """Whether a number is a day of the month ("March 1", "1 March", "the 1st of March")."""
    if _is_month(word_after):
        return True
    if word_after in ("of", "st", "nd", "rd", "th"):
        nxt = text[end : end + 24].lower().split()
        return any(_is_month(w) for w in nxt[:3])
    before = text[max(0, start - 12) : start].lower().split()
    return bool(before) and _is_month(before[-1])


def number_matches(num: Number, others: Sequence[Number]) -> bool:
    """Whether ``num`` is one of ``others``: the same value, or one a rounding of the other to the precision
    it was written with ("about 3.5 million" matches 3,482,000; "40%" matches 39.6%)."""
    for o in others:
        if not num.compatible(o):
            continue
        if o.value == num.value:
            return True
        if (num.bound == "min" and o.value >= num.value) or (num.bound == "max" and o.value <= num.value):
            return True  # "more than 2,000" is borne out by 2,314
        if num.is_year or num.kind == "day":
            continue
        diff = abs(o.value - num.value)
        if diff <= num.half_step + 1e-9 * abs(num.value) or diff <= o.half_step + 1e-9 * abs(o.value):
            return True
        if (num.approx or o.approx) and diff <= 0.03 * max(abs(num.value), abs(o.value)):
            return True
    return False


# --- the finer reading of a sentence --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Name:
    """A capitalised span: a person, an organisation, a place or a title."""

    keys: tuple[str, ...]
    text: str
    #: "place", "org", "person" or "" (unknown).
    type: str
    #: Index of the span's first and last token.
    first: int
    last: int


class Reading:
    """The finer reading of one sentence (or a claim): tokens, names, numbers, cues.

    The tokens, content keys, numbers and months are read at once; stems, names and the cues (negation,
    scope, cause) when first asked for: sentences next to the best passage need only the first."""

    __slots__ = (
        *("_cues", "_names", "_number_cache", "_numbers", "_sentence", "_stems", "keys", "lower", "months"),
        *("text", "wkeys", "words"),
    )

    def __init__(
        self,
        text: str,
        numbers: list[Number] | None,
        number_cache: dict[int, list[Number]] | None = None,
        sentence: int = 0,
    ) -> None:
        """``numbers`` when known, else read on first use (shared through ``number_cache[sentence]``)."""
        self.text = text
        words = tuple(_RICH_TOKEN_RE.findall(text))
        self.words: tuple[str, ...] = words
        lower = tuple(map(str.lower, words))
        self.lower: tuple[str, ...] = lower
        get = _KEY_CACHE.__getitem__
        wkeys = tuple([get(w) if w[0].isalnum() else None for w in lower])
        self.wkeys: tuple[str | None, ...] = wkeys
        self.keys: frozenset[str] = frozenset(filter(None, wkeys))
        self._numbers = numbers
        self._number_cache = number_cache
        self._sentence = sentence
        months = MONTH_KEYS.intersection(wkeys)
        if "may" in months:
            months = months - {"may"}
        if "May" in words:
            months = months | {"may"}
        self.months: frozenset[str] = months
        self._stems: tuple[tuple[str, ...], frozenset[str]] | None = None
        self._names: list[Name] | None = None
        self._cues: _Cues | None = None

    @property
    def numbers(self) -> list[Number]:
        got = self._numbers
        if got is None:
            cache = self._number_cache
            got = cache.get(self._sentence) if cache is not None else None
            if got is None:
                got = numbers_in(self.text) if _has_number(self.text) else []
                if cache is not None:
                    cache[self._sentence] = got
            self._numbers = got
            self._number_cache = None
        return got

    @property
    def stems(self) -> tuple[str, ...]:
        return self._stem_pair()[0]

    @property
    def stem_set(self) -> frozenset[str]:
        return self._stem_pair()[1]

    def _stem_pair(self) -> tuple[tuple[str, ...], frozenset[str]]:
        got = self._stems
        if got is None:
            stems = tuple([_STEM_CACHE[w] if w[0].isalpha() else w for w in self.lower])
            got = self._stems = (stems, frozenset(stems))
        return got

    @property
    def names(self) -> list[Name]:
        got = self._names
        if got is None:
            got = self._names = _names(self.words, self.lower, self.wkeys)
        return got

    @property
    def cues(self) -> _Cues:
        got = self._cues
        if got is None:
            got = self._cues = _read_cues(self)
        return got

    @property
    def negations(self) -> list[tuple[str, frozenset[str]]]:
        """(cue, content keys in its scope) for every negation cue."""
        return self.cues.negations

    @property
    def negated_heads(self) -> dict[str, str]:
        """The first content key after each (non-contrastive) negation cue -> the cue: what is denied."""
        return self.cues.negated_heads

    @property
    def affirmed(self) -> frozenset[str]:
        """Keys said at least once outside every negation scope."""
        return self.cues.affirmed

    @property
    def prefix_negated(self) -> frozenset[str]:
        """Keys negated by a prefix ("unknown" -> "known", "non-profit" -> "profit")."""
        return self.cues.prefix_negated

    @property
    def universal(self) -> dict[str, str]:
        """Universal classes present, with the word that says it."""
        return self.cues.universal

    @property
    def limiters(self) -> list[str]:
        """Words that limit or hedge a universal (see :data:`LIMITERS`)."""
        return self.cues.limiters

    @property
    def causal(self) -> list[str]:
        """Causal wording (see :data:`CAUSAL`)."""
        return self.cues.causal

    @property
    def correlational(self) -> list[str]:
        """Correlational or uncertain wording (see :data:`CORRELATIONAL`)."""
        return self.cues.correlational


@dataclass(slots=True)
class _Cues:
    """Negation, scope and cause cues of a :class:`Reading`."""

    negations: list[tuple[str, frozenset[str]]]
    negated_heads: dict[str, str]
    affirmed: frozenset[str]
    prefix_negated: frozenset[str]
    universal: dict[str, str]
    limiters: list[str]
    causal: list[str]
    correlational: list[str]


def read(text: str, *, skip_one: bool = False, numbers: list[Number] | None = None) -> Reading:
    """The finer reading of a sentence or claim (typography-folded text); ``numbers`` when already known."""
    if numbers is None:
        numbers = numbers_in(text, skip_one=skip_one) if _has_number(text) else []
    return Reading(text, numbers)


def _read_cues(r: Reading) -> _Cues:
    text, words, lower, wkeys = r.text, r.words, r.lower, r.wkeys
    get = _KEY_CACHE.__getitem__
    negations: list[tuple[str, frozenset[str]]] = []
    heads: dict[str, str] = {}
    in_scope: set[int] = set()
    prefix_negated: set[str] = set()
    universal: dict[str, str] = {}
    limiters: list[str] = []
    causal: list[str] = []
    correlational: list[str] = []
    n = len(lower)
    flags_of = _WORD_FLAGS.get
    for i, w in enumerate(lower):
        fl = flags_of(w, 0)
        if len(w) >= 6 and (w[:2] == "un" or w[:3] == "non") and w.isalpha():
            k = get(w[3:] if w[:3] == "non" else w[2:])
            if k:
                prefix_negated.add(k)  # "unknown" -> known, "nonprofit" -> profit
        if not fl:
            if not w.endswith("n't"):
                continue
            fl = _F_NEG
        if fl & _F_NEG:
            cue = _negation_cue(lower, i)
            if cue:
                if cue not in _CONTRASTIVE:
                    at = i + 2 if cue == "no longer" else i + 1
                    head = next((k for k in wkeys[at : at + _SCOPE] if k), None)
                    if head is not None:
                        heads.setdefault(head, cue)
                scope: set[str] = set()
                for j in range(i + 1, min(n, i + 1 + _SCOPE)):
                    if lower[j] in _CLAUSE_BREAKS:
                        break
                    in_scope.add(j)
                    k = wkeys[j]
                    if k:
                        scope.add(k)
                negations.append((cue, frozenset(scope)))
        if fl & _F_NON and i + 1 < n:
            k = wkeys[i + 1]  # "non-profit" -> profit
            if k:
                prefix_negated.add(k)
        if fl & _F_UNIVERSAL:
            nxt = lower[i + 1] if i + 1 < n else ""
            if not (w == "only" and _only_is_comparative(lower, i)) and not (
                w in ("every", "each", "all") and nxt in _TIME_WORDS
            ):
                for cls, vocab in UNIVERSAL.items():
                    if w in vocab:
                        universal.setdefault(cls, words[i])
        if fl & _F_LIMIT:
            limiters.append(words[i])
        if fl & _F_CAUSAL and not _weak_causal(lower, i):
            causal.append(words[i])
        if fl & _F_CORREL and not (w == "may" and words[i] == "May"):
            correlational.append(words[i])
    affirmed = frozenset(k for j, k in enumerate(wkeys) if k and j not in in_scope)
    if "ross" in text or "round" in text or "hroughout" in text or "over" in text:
        geo = _GEO_PHRASE_RE.search(text)
        if geo is not None:
            universal.setdefault("geo", geo.group())
            universal.setdefault("all", geo.group())
    causal.extend(m.group() for m in _CAUSAL_PHRASE_RE.finditer(text))
    correlational.extend(m.group() for m in _CORRELATIONAL_PHRASE_RE.finditer(text))
    return _Cues(
        negations=negations,
        negated_heads=heads,
        affirmed=affirmed,
        prefix_negated=frozenset(prefix_negated - r.keys),
        universal=universal,
        limiters=limiters,
        causal=causal,
        correlational=correlational,
    )


_F_NEG, _F_NON, _F_UNIVERSAL, _F_LIMIT, _F_CAUSAL, _F_CORREL = 1, 2, 4, 8, 16, 32
_WORD_FLAGS: dict[str, int] = {}
for _flag, _vocab in (
    (
        _F_NEG,
        NEGATIONS | {"lack", "lacks", "lacked", "lacking", "fail", "failed", "fails", "rather", "instead"},
    ),
    (_F_UNIVERSAL, frozenset().union(*UNIVERSAL.values())),
    (_F_LIMIT, LIMITERS),
    (_F_CAUSAL, CAUSAL),
    (_F_CORREL, CORRELATIONAL),
):
    for _w in _vocab:
        _WORD_FLAGS[_w] = _WORD_FLAGS.get(_w, 0) | _flag
_WORD_FLAGS["non"] = _WORD_FLAGS.get("non", 0) | _F_NON


def _has_number(text: str) -> bool:
    if text.isascii():  # the digits of ASCII text are 0-9 (str.isdigit also knows superscripts and others)
        return _ASCII_DIGIT_RE.search(text) is not None or _NUMBER_WORDS_RE.search(text) is not None
    return any(c.isdigit() for c in text) or _NUMBER_WORDS_RE.search(text) is not None


_ASCII_DIGIT_RE = re.compile(r"[0-9]")


def _only_is_comparative(lower: Sequence[str], i: int) -> bool:
    """ "only 11%", "only two", "not only", "only a few": a comparison or a conjunction, not exclusivity."""
    if lower[i] != "only":
        return False
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    prev = lower[i - 1] if i > 0 else ""
    return nxt[:1].isdigit() or nxt in _NUMBER_WORD_SET or prev == "not" or nxt in ("a", "about", "after")


_NUMBER_WORD_SET = frozenset(
    [
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
    ]
)


def _weak_causal(lower: Sequence[str], i: int) -> bool:
    """Cue words that are causal only in some uses: "led" only as "led to/by", "thanks" only as "thanks to",
    "owing" only as "owing to", "driver" of a car, "responsible for"."""
    w = lower[i]
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    if w == "led":
        return nxt not in ("to", "by")
    if w in ("thanks", "owing"):
        return nxt != "to"
    if w == "responsible":
        return nxt != "for"
    if w in ("cause", "causes", "effect", "impact", "reason", "reasons"):
        prev = lower[i - 1] if i > 0 else ""
        return prev in ("the", "a", "an", "its", "their", "main", "root", "no", "this", "that")
    return False


def _negation_cue(lower: Sequence[str], i: int) -> str:
    w = lower[i]
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    if w in ("lack", "lacks", "lacked", "lacking"):
        return (
            w if nxt == "of" or i == 0 or lower[i - 1] in ("a", "the", "its", "their") or w != "lack" else ""
        )
    if w in ("fail", "failed", "fails", "failing"):
        return w if nxt == "to" else ""
    if (w == "rather" and nxt == "than") or (w == "instead" and nxt == "of"):
        return w + " " + nxt  # "the cement savings, rather than the stored CO2"
    if w not in NEGATIONS and not w.endswith("n't"):
        return ""
    if w == "not" and nxt == "only":
        return ""
    if w == "no" and nxt in _NO_BOUND:
        return ""
    if w == "no" and nxt == "longer":
        return "no longer"
    if w == "without" and nxt.endswith("ing"):
        return ""  # "without reducing yields": a manner, not a denial
    return w


def _names(words: Sequence[str], lower: Sequence[str], wkeys: Sequence[str | None]) -> list[Name]:
    """Capitalised spans; a sentence-initial word only when a capitalised word follows, when it is a country
    or an acronym."""
    out: list[Name] = []
    n = len(words)
    i = 0
    while i < n:
        w = words[i]
        if not _is_cap(w, lower[i]):
            i += 1
            continue
        if i == 0 or (i > 0 and words[i - 1] in ("(", ":")):
            nxt_cap = i + 1 < n and _is_cap(words[i + 1], lower[i + 1])
            if not (nxt_cap or wkeys[i] in COUNTRY_KEYS or (w.isupper() and len(w) > 1)):
                i += 1
                continue
        j = i
        while True:
            if j + 1 < n and _is_cap(words[j + 1], lower[j + 1]):
                j += 1
            elif j + 2 < n and lower[j + 1] in _NAME_JOINERS and _is_cap(words[j + 2], lower[j + 2]):
                j += 2
            else:
                break
        a = i
        while a < j and lower[a] in _PERSON_CUES:
            a += 1  # "Director Maria Lopes": the title is not part of the name, but says it is a person
        keys = tuple(k for k in wkeys[a : j + 1] if k and k not in MONTH_KEYS)
        if keys:
            kind = "person" if a > i else _name_type(keys, lower, i, j)
            out.append(Name(keys, " ".join(words[a : j + 1]), kind, a, j))
        i = j + 1
    return out


def _is_cap(word: str, low: str) -> bool:
    if not word[:1].isupper() or low in _NOT_NAME_WORDS or low in _WEEKDAYS:
        return False
    return not (low in _MONTH_ABBR or low in _MONTHS)


def _name_type(keys: tuple[str, ...], lower: Sequence[str], i: int, j: int) -> str:
    if any(k in _ORG_WORDS for k in keys):
        return "org"
    if len(keys) == 1 and keys[0] in COUNTRY_KEYS:
        return "place"
    before = lower[i - 1] if i > 0 else ""
    after = lower[j + 1] if j + 1 < len(lower) else ""
    after2 = lower[j + 2] if j + 2 < len(lower) else ""
    if before in _PERSON_CUES or after in _PERSON_CUES or (after == "," and after2 in _PERSON_CUES):
        return "person"
    if len(keys) == 1 and before in ("in", "at", "near", "across"):
        return "place"
    return ""


# --- evidence -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class EvidenceIndex:
    """One evidence text, split into sentences and tokenised once; finer readings on demand.

    Built for every page a claim cites, and kept for the whole run (``Corpus.derived``): so it is cheap to
    build and holds few objects the cyclic garbage collector has to scan again and again (plain strings,
    integers and tuples; which sentences hold a key is a bit mask)."""

    text: str
    spans: list[tuple[int, int]]
    #: Content keys per sentence, in order.
    keys: list[tuple[str, ...]]
    #: key -> bit mask of the sentences holding it (bit i: sentence i).
    masks: dict[str, int]
    #: first 5 letters of a key of 6 letters or more -> bit mask of the sentences holding such a key (a
    #: weaker, morphological match: "musician" ~ "music"); built on first use.
    _prefix_masks: dict[str, int] | None = None
    _readings: dict[int, Reading] = field(default_factory=dict)
    _digits: tuple[Any, Any] | None = None
    _numbers: dict[int, list[Number]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.spans)

    def postings(self, key: str) -> list[int]:
        """Ids of the sentences holding ``key``, in order (empty when none does)."""
        return mask_bits(self.masks.get(key, 0))

    def prefix_mask(self, prefix: str) -> int:
        """Bit mask of the sentences holding a key of 6 letters or more that starts with the 5 letters
        ``prefix``."""
        by_prefix = self._prefix_masks
        if by_prefix is None and _prefix_keys_count[0] < _PREFIX_KEYS_LIMIT:
            group = _PREFIX_KEYS.get(prefix, ())
            if len(group) <= 64:  # else ("inter", "under" in a large vocabulary) scanning the page is cheaper
                mask = 0
                get = self.masks.get
                for k in group:
                    mask |= get(k, 0)
                return mask
        if by_prefix is None:
            by_prefix = {}
            get = by_prefix.get
            for k, m in self.masks.items():
                if len(k) >= 6:
                    p = k[:5]
                    by_prefix[p] = get(p, 0) | m
            self._prefix_masks = by_prefix
        return by_prefix.get(prefix, 0)

    def sentence(self, i: int) -> str:
        a, b = self.spans[i]
        return self.text[a:b]

    def may_name(self, i: int, key: str) -> bool:
        """Whether sentence ``i`` may have a name holding ``key`` (see :func:`_names`): a word of that key
        capitalised, or a name joiner ("van"). ``False`` means it has none, without reading the sentence."""
        if i in self._readings:
            return True
        get = _KEY_CACHE.__getitem__
        for w in _TOKEN_RE.findall(self.text, *self.spans[i]):
            if w[:1].isupper():
                if get(w.lower()) == key:
                    return True
            else:
                low = w.lower()
                if low in _NAME_JOINERS and get(low) == key:
                    return True
        return False

    def reading(self, i: int) -> Reading:
        r = self._readings.get(i)
        if r is None:
            r = Reading(self.sentence(i), self._numbers.get(i), self._numbers, i)
            self._readings[i] = r
        return r

    def sentence_numbers(self, i: int) -> list[Number]:
        got = self._numbers.get(i)
        if got is None:
            text = self.sentence(i)
            got = numbers_in(text) if _has_number(text) else []
            self._numbers[i] = got
        return got

    def digit_runs(self) -> tuple[Any, Any]:
        """Significands (see :func:`_significand`) and sentences of every digit run in the text, as numpy
        arrays: a cheap prefilter for numbers."""
        if self._digits is None:
            import numpy as np

            runs = [(m.start(), m.group().replace(",", "")) for m in _DIGITS_RE.finditer(self.text)]
            values = np.array([float(d) for _, d in runs], dtype=np.float64)
            positive = values > 0
            sig = np.ones(len(values), dtype=np.float64)
            sig[positive] = values[positive] / 10.0 ** np.floor(np.log10(values[positive]))
            starts = np.array([a for a, _ in self.spans], dtype=np.int64)
            where = np.array([p for p, _ in runs], dtype=np.int64)
            sent = np.searchsorted(starts, where, side="right") - 1
            self._digits = (sig, sent)
        return self._digits

    def number_sentences(self, claim_numbers: Sequence[Number]) -> set[int]:
        """Sentences that may hold one of ``claim_numbers`` (a digit run near its value or its mantissa, or a
        number word)."""
        import numpy as np

        sig, sent = self.digit_runs()
        if any(n.bound for n in claim_numbers):
            out = set(sent.tolist())
        else:
            mask = np.zeros(len(sig), dtype=bool)
            for n in claim_numbers:
                # as close as the figure's rounding allows (at least 0.5%; 6% for an approximate figure)
                rel = max(0.005, 1.5 * n.half_step / n.value if n.value else 0.0, 0.06 if n.approx else 0.0)
                for t in {_significand(n.value), _significand(n.mantissa)}:
                    d = np.abs(sig - t)
                    mask |= (d <= rel * t + 1e-9) | (d >= 10.0 - 10.0 * rel - 1e-9)  # 9.96 rounds to 10
            out = set(sent[mask].tolist())
        if any(n.mantissa <= 100 and n.mantissa == int(n.mantissa) for n in claim_numbers):
            starts = [a for a, _ in self.spans]
            out.update(bisect_right(starts, m.start()) - 1 for m in _NUMBER_WORDS_RE.finditer(self.text))
        out.discard(-1)
        return out


def _significand(x: float) -> float:
    """``x`` scaled into [1, 10): 3,400,000 and 3.4 both give 3.4."""
    if x <= 0:
        return 1.0
    return x / 10.0 ** math.floor(math.log10(x))


class _ChunkKeys(dict[str, tuple[str, ...]]):
    """Content keys (:func:`word_key`, function words dropped) of a chunk of lower-case text without
    whitespace. A token never spans whitespace, so the keys of a text are those of its chunks one after the
    other, and a page is keyed with one dictionary lookup per chunk (chunks recur: "growth.", "said,")."""

    def __missing__(self, chunk: str) -> tuple[str, ...]:
        keys = tuple(filter(None, map(_KEY_CACHE.__getitem__, _TOKEN_RE.findall(chunk))))
        if len(self) < 1_000_000:
            self[chunk] = keys
        return keys


_CHUNK_KEYS = _ChunkKeys()


def text_keys(text: str) -> tuple[str, ...]:
    """The content keys of a lower-case text, in order: :func:`word_key` of each token, function words,
    negations and numbers dropped."""
    return tuple(chain.from_iterable(map(_CHUNK_KEYS.__getitem__, text.split())))


def mask_bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask`` (a bit mask of sentences), in increasing order."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def index_text(text: str) -> EvidenceIndex:
    """Index one evidence text (see :class:`EvidenceIndex`)."""
    text = fold_typography(text)
    spans = sentence_spans(text)
    lower = text.lower()
    keys = [text_keys(lower[a:b]) for a, b in spans]
    if "-" in text:
        starts = [a for a, _ in spans]
        for m in _ISO_DATE_RE.finditer(text):
            i = bisect_right(starts, m.start()) - 1
            if i >= 0:
                keys[i] += (stem(_MONTHS[int(m.group(2)) - 1]),)
    masks: dict[str, int] = {}
    get = masks.get
    for i, ks in enumerate(keys):
        bit = 1 << i
        for k in ks:
            masks[k] = get(k, 0) | bit
    return EvidenceIndex(text, spans, keys, masks)


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
    return _ISO_DATE_RE.sub(lambda m: f"{m.group(0)} {_MONTHS[int(m.group(2)) - 1]}", text)


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
    for part in _CLAUSE_SPLIT_RE.split(text_x):
        ks = [k for k in (word_key(w) for w in _TOKEN_RE.findall(part)) if k] if part else []
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
    #: Explicit contradictions or gaps that decide a verdict alone (see :func:`_vetoes`), as reason phrases.
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
    best: _Window | None = None
    for _rank, e, first, last, recall_idf in cands:
        if (
            best is not None
            and _SKIP_BOUNDED_WINDOWS
            and recall_idf + 0.3 - 0.03 * (last - first) + 1e-9 <= best.quality + 1e-12
        ):
            # its quality (see _window_signals) is at most this, even with every word pair in order and
            # every number: it cannot be better than the best so far
            continue
        w = _window_signals(claim, evidence[e], e, first, last, weights, widf, names)
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
        _vetoes(claim, feats)
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
    values["char_similarity"] = _char_similarity(claim.text, feats.passage.text)
    feats.missing_in_passage = [claim.surface[x] for x in terms if x in present and x not in best.keys]
    _rules(claim, ev, best, feats, weights, wsum)
    _vetoes(claim, feats)
    return feats


#: Skip a candidate window that cannot beat the best so far (tests turn it off to check that nothing changes).
_SKIP_BOUNDED_WINDOWS = True


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
    return _Window(e, first, last, f, pres, set_w, nums, quality)


def _rules(
    claim: ClaimInfo, ev: EvidenceIndex, best: _Window, feats: Features, weights: Any, wsum: float
) -> None:
    """The rule signals on the best window (see the module docstring)."""
    values = feats.values
    terms = claim.terms
    term_set = frozenset(terms)
    cr = claim.reading
    closeness = values["recall_window"]
    first, last = best.first, best.last
    window = [ev.reading(j) for j in range(first, last + 1)]
    lo, hi = max(0, first - 1), min(len(ev) - 1, last + 1)
    around = [ev.reading(j) for j in range(lo, hi + 1) if j < first or j > last]
    # aligned sentences: those holding a good share of the claim (and always the best one)
    recalls = [
        sum(float(weights[i]) for i, x in enumerate(terms) if x in r.keys) / wsum if terms else 0.0
        for r in window
    ]
    top = max(recalls) if recalls else 0.0
    aligned = [r for r, rc in zip(window, recalls, strict=True) if rc >= ALIGNED_RECALL or rc == top]
    strength = max(closeness, top)

    # names
    window_keys = set().union(*(r.keys for r in window))
    around_keys = set().union(*(r.keys for r in around)) if around else set()
    claim_names = list(cr.names)
    if claim.initial_key and claim.initial_key in ev.masks:
        # a sentence-initial word is a name when the evidence writes it capitalised mid-sentence
        for s in ev.postings(claim.initial_key)[:3]:
            if not ev.may_name(s, claim.initial_key):
                continue
            rd = ev.reading(s)
            if any(claim.initial_key in n.keys for n in rd.names):
                claim_names.append(Name((claim.initial_key,), cr.words[0], "", 0, 0))
                break
    # the predicate sentence: the window sentence holding most of the claim's words other than names
    others = [i for i, x in enumerate(terms) if x not in claim.names]
    other_w = sum(float(weights[i]) for i in others) or 1.0
    pred_recall = [sum(float(weights[i]) for i in others if terms[i] in r.keys) / other_w for r in window]
    pred = window[max(range(len(window)), key=lambda j: (pred_recall[j], recalls[j]))]
    rest = sum(float(best.presence[i]) for i in others) / len(others) if others else closeness
    name_strength = max(rest, closeness)
    claim_name_keys = {k for nm in claim_names for k in nm.keys}
    missing: list[Name] = []
    for nm in claim_names:
        in_window = all(k in window_keys for k in nm.keys) or (
            nm.keys[-1] in window_keys and all(k in ev.masks for k in nm.keys)
        )  # "Lopes" in the passage, "Maria Lopes" elsewhere
        if not in_window and not all(k in window_keys or k in around_keys for k in nm.keys):
            missing.append(nm)  # not even linked in the next or previous sentence
        if in_window and all(k in pred.keys for k in nm.keys[-1:]):
            continue
        # missing where the claim's predicate is: a name of the same type, or in the same slot, is a rival
        rival = _rival(nm, cr, pred, claim_name_keys)
        if rival is not None:
            feats.entity_conflicts.append((nm.text, rival.text))
    if missing and claim_names:
        values["entity_missing"] = name_strength * len(missing) / len(claim_names)
        feats.missing_entities = [nm.text for nm in missing]
    if feats.entity_conflicts:
        values["entity_conflict"] = (
            name_strength * pred_recall[window.index(pred)] if others else name_strength
        )

    # numbers and dates
    near_numbers: list[Number] = []
    aligned_numbers: list[Number] = []
    if claim.numbers:
        near_numbers = [n for r in (*window, *around) for n in r.numbers]
        # the tail of a compound quantity ("2 hours and 40 minutes") is no figure of its own
        aligned_numbers = [n for r in aligned for n in r.numbers if not _compound_tail(n, r.numbers)]
    for cn in claim.numbers:
        if number_matches(cn, near_numbers):
            # a bound ("over five summers") is borne out by a larger figure, unless the passage bounds the
            # same kind of thing with the same word and another value ("over two summers")
            if not cn.bound or number_matches(replace(cn, bound=""), near_numbers):
                continue
            rival_n = next(
                (
                    pn
                    for pn in aligned_numbers
                    if cn.comparable(pn) and pn.bound == cn.bound and pn.value != cn.value
                ),
                None,
            )
            if rival_n is not None:
                feats.bound_conflicts.append(cn.text)
        else:
            # a passage figure the claim itself gives elsewhere stands in another slot, not this one
            rival_n = next(
                (
                    pn
                    for pn in aligned_numbers
                    if cn.comparable(pn) and pn.value != cn.value and not number_matches(pn, claim.numbers)
                ),
                None,
            )
        if rival_n is not None:
            feats.conflicting_numbers.append((cn.text, rival_n.text))
            key = "date_conflict" if cn.is_year else "number_conflict"
            values[key] = strength
    near_months = set().union(*(r.months for r in (*window, *around)))
    for mo in sorted(cr.months):
        if mo in near_months:
            continue
        rival_m = sorted(set().union(*(r.months for r in aligned)) - cr.months)
        if rival_m:
            feats.conflicting_numbers.append((claim.surface.get(mo, mo), rival_m[0].capitalize()))
            values["date_conflict"] = strength

    # negation, scoped to words: a claim word said only under a negation on one side and plainly on the other
    p_neg = {k: cue for r in window for k, cue in r.negated_heads.items() if k in term_set}
    p_aff = set().union(*(r.affirmed for r in window)) & term_set
    p_negated_sentences = set().union(*(r.keys for r in window if r.negations or r.prefix_negated))
    p_prefix = set().union(*(r.prefix_negated for r in window))
    c_neg = cr.negated_heads
    for k in terms:
        if k in p_neg and k not in p_aff and k in cr.affirmed and not cr.negations and not cr.prefix_negated:
            feats.negation = (
                f"the passage says {p_neg[k]!r} about {claim.surface[k]!r} but the claim does not"
            )
        elif k in c_neg and k not in cr.affirmed and k in p_aff and k not in p_negated_sentences:
            feats.negation = (
                f"the claim says {c_neg[k]!r} about {claim.surface[k]!r} but the passage does not"
            )
        elif k in cr.prefix_negated and k in p_aff and k not in p_prefix:
            feats.negation = (
                f"the claim negates {claim.surface.get(k, k)!r} by a prefix but the passage does not"
            )
        elif k in p_prefix and k in cr.affirmed and k not in cr.prefix_negated and not cr.negations:
            feats.negation = f"the passage negates {claim.surface[k]!r} by a prefix but the claim does not"
        if feats.negation:
            break
    for k in sorted(cr.prefix_negated - term_set):
        if not feats.negation and k in p_aff - p_prefix:
            feats.negation = f"the claim negates {k!r} by a prefix but the passage does not"
    if not feats.negation and not cr.negations and not cr.prefix_negated:
        # the passage says the claim's matter was not measured / reported ("did not measure fruit yield")
        for r in aligned:
            for cue, scope_keys in r.negations:
                if cue in _CONTRASTIVE:
                    continue
                said = sorted(k for k in scope_keys & term_set if k in cr.affirmed)
                verb = next((k for k in scope_keys if k in _UNOBSERVED_VERBS), None)
                if verb is not None and said:
                    shown = next((r.words[i] for i, k in enumerate(r.wkeys) if k == verb), verb)
                    feats.negation = (
                        f"the passage says {cue!r} {shown!r} about "
                        + ", ".join(repr(claim.surface.get(k, k)) for k in said[:3])
                        + " but the claim states a finding"
                    )
                    feats.negated_predicate = True
                    break
            if feats.negation:
                break
    if feats.negation:
        values["negation_mismatch"] = strength

    # opposite quantity / direction words near shared words
    claim_stems = cr.stem_set
    for r in aligned:
        for word in sorted(claim_stems & _ANTONYM_OF.keys()):
            if word in r.stem_set or (_ANTONYM_OF[word] & claim_stems):
                continue
            if word in DIRECTION_UP or word in DIRECTION_DOWN:
                same_side = DIRECTION_UP if word in DIRECTION_UP else DIRECTION_DOWN
                if same_side & r.stem_set:
                    continue  # the passage also says the claim's direction
            for opposite in sorted(_ANTONYM_OF[word] & r.stem_set):
                if _near_claim_term(r.stems, r.wkeys, opposite, term_set):
                    if (word, opposite) not in feats.quantity:
                        feats.quantity.append((word, opposite))
                    break
    if feats.quantity:
        values["quantity_mismatch"] = strength
        window_stems = set().union(*(r.stem_set for r in window))
        feats.quantity_explicit = not any(
            a in window_stems
            or (a in DIRECTION_UP and DIRECTION_UP & window_stems)
            or (a in DIRECTION_DOWN and DIRECTION_DOWN & window_stems)
            for a, _b in feats.quantity
        )

    # scope: universal / absolute words
    passage_universal: dict[str, str] = {}
    for r in window:
        for cls, w in r.universal.items():
            passage_universal.setdefault(cls, w)
    for cls, word in cr.universal.items():
        if cls in passage_universal or (cls == "geo" and "all" in passage_universal):
            continue
        if cls == "none" and any(r.negations for r in aligned):
            continue  # "none of them" is matched by a negation ("no deaths")
        if cls == "only" and "all" in passage_universal:
            continue
        limiter = ""
        for r in (*aligned, *around):
            if r.limiters:
                limiter = r.limiters[0]
                break
            if cls == "eliminate":
                part = next((r.words[i] for i, w in enumerate(r.lower) if w in PARTIAL_CHANGE), None)
                if part:
                    limiter = part
                    break
            if cls in ("all", "geo"):
                cnt = next((n for n in r.numbers if n.kind.startswith("count:")), None)
                if cnt is not None:
                    limiter = cnt.text
                    break
        feats.scope = (word, limiter)
        values["scope_unsupported"] = strength
        if limiter:
            values["scope_limited"] = strength
        break

    # cause stated, passage only correlational or silent
    claim_causal = [w for w in cr.causal if w.lower() in CLAIM_CAUSAL or " " in w]
    if claim_causal:
        if not any(r.causal for r in window):
            hedge = next((r.correlational[0] for r in (*window, *around) if r.correlational), "")
            feats.causal = (claim_causal[0], hedge)
            values["causal_unsupported"] = strength
            if hedge:
                values["causal_hedged"] = strength
        else:
            hedge = next((r.correlational[0] for r in aligned if r.correlational), "")
            if hedge:
                feats.causal = (claim_causal[0], hedge)
                values["causal_hedged"] = strength


#: Stems of verbs of observing or reporting: "did not measure / record / report X" says X is not known.
_UNOBSERVED_VERBS: frozenset[str] = _stems(
    (
        *("measure", "measured", "assess", "assessed", "record", "recorded", "report", "reported", "track"),
        *("tracked", "evaluate", "evaluated", "examine", "examined", "investigate", "investigated", "test"),
        *("tested", "collect", "collected", "quantify", "quantified", "monitor", "monitored", "analyse"),
        *("analyze", "analysed", "analyzed", "study", "studied", "estimate", "estimated", "address"),
    )
)
#: A rule signal at least this strong (the passage's recall of the claim) is an explicit contradiction.
VETO_STRENGTH = 0.5
#: Reject when the evidence holds less than this share of the claim's content words (paraphrases of short
#: passages often reword half of them, so the floor is lower than one half).
RECALL_FLOOR = 1 / 3


def _vetoes(claim: ClaimInfo, feats: Features) -> None:
    """Explicit, high-precision contradictions in the best passage, and a floor on content-word recall:
    each decides the verdict alone (``values["veto"]`` = 1) and is named in ``feats.vetoes``."""
    values = feats.values
    out = feats.vetoes
    if claim.terms:
        present = 1 - len(feats.missing_terms) / len(claim.terms)
        if present < RECALL_FLOOR - 1e-9:
            out.append(
                f"{len(feats.missing_terms)} of the claim's {len(claim.terms)} content words are nowhere "
                "in the evidence"
            )
    # a contradiction is explicit only when the passage is about the claim's named things
    same_subject = not feats.entity_conflicts and not feats.missing_entities
    if not same_subject:
        values["veto"] = 1.0 if out else 0.0
        return
    nowhere = set(feats.missing_numbers) | set(feats.bound_conflicts)
    numbers = [(a, b) for a, b in feats.conflicting_numbers if a in nowhere]  # the claim's figure is nowhere
    strong = max(values.get("number_conflict", 0.0), values.get("date_conflict", 0.0))
    if numbers and strong >= VETO_STRENGTH:
        out.append(
            "contradicting number/date: "
            + ", ".join(f"claim says {a!r}, passage says {b!r}" for a, b in numbers[:3])
        )
    if feats.quantity_explicit and values.get("quantity_mismatch", 0.0) >= VETO_STRENGTH:
        out.append(
            "opposite wording: " + ", ".join(f"claim {a!r} vs passage {b!r}" for a, b in feats.quantity[:3])
        )
    if feats.negation and (values.get("negation_mismatch", 0.0) >= VETO_STRENGTH or feats.negated_predicate):
        out.append(f"negated predicate: {feats.negation}")
    values["veto"] = 1.0 if out else 0.0


def _compound_tail(num: Number, numbers: Sequence[Number]) -> bool:
    """Whether ``num`` follows closely on a number counting another unit ("2 hours and 40 minutes",
    "5 feet 2 inches")."""
    return any(
        o.start < num.start <= o.start + 20 and o.kind != num.kind and o.kind.startswith("count:")
        for o in numbers
    ) and num.kind.startswith("count:")


_SLOT_WORDS = frozenset(["in", "at", "by", "from", "of", "for", "with", "to", "near", "on", "as"])


def _rival(nm: Name, cr: Reading, sentence: Reading, claim_name_keys: set[str]) -> Name | None:
    """A name of ``sentence`` that stands where the claim's name ``nm`` would: of the same known type, or
    after the same preposition ("in Lisbon" / "in Porto")."""
    slot = cr.lower[nm.first - 1] if nm.first > 0 else ""
    for p in sentence.names:
        if set(p.keys) & claim_name_keys:
            continue
        if nm.type and p.type == nm.type:
            return p
        if (
            slot in _SLOT_WORDS
            and p.first > 0
            and sentence.lower[p.first - 1] == slot
            and (not nm.type or not p.type)
        ):
            return p
    return None


def _near_claim_term(
    stems_p: Sequence[str], wkeys_p: Sequence[str | None], word: str, terms: frozenset[str]
) -> bool:
    for i, s in enumerate(stems_p):
        if s == word and any(k in terms for k in wkeys_p[max(0, i - 4) : i + 5] if k):
            return True
    return False


def _char_ngrams(text: str, n: int = 4) -> set[str]:
    t = " " + " ".join(_TOKEN_RE.findall(text.lower())) + " "
    return {t[i : i + n] for i in range(len(t) - n + 1)}


@functools.lru_cache(maxsize=4096)
def _passage_ngrams(passage: str) -> frozenset[str]:
    """:func:`_char_ngrams` of a passage of the evidence (the same pages are cited again and again)."""
    return frozenset(_char_ngrams(passage))


def _char_similarity(claim: str, passage: str) -> float:
    """Share of the claim's character 4-grams found in the passage, in [0, 1]: sees morphology and spelling
    variants that stemming misses."""
    a = _char_ngrams(claim)
    return len(a & _passage_ngrams(passage)) / len(a) if a else 0.0
