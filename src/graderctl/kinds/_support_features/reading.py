"""The finer reading of a sentence or a claim: tokens, content keys, numbers, months, capitalised names and
the cues of negation (with their scope), scope (universal and limiting words) and cause (causal and
correlational wording)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graderctl.kinds._support_features.keys import KEY_CACHE, STEM_CACHE
from graderctl.kinds._support_features.numbers import Number, has_number, numbers_in
from graderctl.kinds._support_features.vocab import (
    CAUSAL,
    CAUSAL_PHRASE_RE,
    CORRELATIONAL,
    CORRELATIONAL_PHRASE_RE,
    GEO_PHRASE_RE,
    LIMITERS,
    MONTH_KEYS,
    NEGATIONS,
    NO_BOUND,
    TIME_WORDS,
    UNIVERSAL,
)
from graderctl.language.names import Name, find_names
from graderctl.language.tokens import CLAUSE_TOKEN_RE

#: The most words after a negation cue that it governs (a clause boundary ends it sooner).
_SCOPE = 6
#: Cues that contrast rather than deny ("rather than", "instead of"): they mark a sentence as negating but
#: are not compared word by word.
CONTRASTIVE = frozenset({"rather than", "instead of"})
_CLAUSE_BREAKS = frozenset({",", ";", ":", "(", ")", " - ", "but", "while", "whereas", "although", "though"})
# --- the finer reading of a sentence --------------------------------------------------------------------


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
        words = tuple(CLAUSE_TOKEN_RE.findall(text))
        self.words: tuple[str, ...] = words
        lower = tuple(map(str.lower, words))
        self.lower: tuple[str, ...] = lower
        get = KEY_CACHE.__getitem__
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
                got = numbers_in(self.text) if has_number(self.text) else []
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
            stems = tuple([STEM_CACHE[w] if w[0].isalpha() else w for w in self.lower])
            got = self._stems = (stems, frozenset(stems))
        return got

    @property
    def names(self) -> list[Name]:
        got = self._names
        if got is None:
            got = self._names = find_names(self.words, self.lower, self.wkeys)
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
        numbers = numbers_in(text, skip_one=skip_one) if has_number(text) else []
    return Reading(text, numbers)


def _read_cues(r: Reading) -> _Cues:
    text, words, lower, wkeys = r.text, r.words, r.lower, r.wkeys
    get = KEY_CACHE.__getitem__
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
                if cue not in CONTRASTIVE:
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
                w in ("every", "each", "all") and nxt in TIME_WORDS
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
        geo = GEO_PHRASE_RE.search(text)
        if geo is not None:
            universal.setdefault("geo", geo.group())
            universal.setdefault("all", geo.group())
    causal.extend(m.group() for m in CAUSAL_PHRASE_RE.finditer(text))
    correlational.extend(m.group() for m in CORRELATIONAL_PHRASE_RE.finditer(text))
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
    if w == "no" and nxt in NO_BOUND:
        return ""
    if w == "no" and nxt == "longer":
        return "no longer"
    if w == "without" and nxt.endswith("ing"):
        return ""  # "without reducing yields": a manner, not a denial
    return w
