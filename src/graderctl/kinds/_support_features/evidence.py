"""The evidence index: one evidence text split into sentences and keyed once, with finer readings of its
sentences on demand."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graderctl.kinds._support_features.keys import (
    DIGITS_RE,
    ISO_DATE_RE,
    KEY_CACHE,
    NUMBER_WORDS_RE,
    PREFIX_KEYS,
    PREFIX_KEYS_LIMIT,
    prefix_keys_count,
    text_keys,
)
from graderctl.kinds._support_features.numbers import Number, has_number, numbers_in
from graderctl.kinds._support_features.reading import Reading
from graderctl.kinds._support_features.vocab import MONTHS, NAME_JOINERS
from graderctl.language.sentences import sentence_spans
from graderctl.language.stemming import stem
from graderctl.language.tokens import WORD_TOKEN_RE
from graderctl.language.typography import fold_typography

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
        if by_prefix is None and prefix_keys_count[0] < PREFIX_KEYS_LIMIT:
            group = PREFIX_KEYS.get(prefix, ())
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
        """Whether sentence ``i`` may have a name holding ``key`` (see :func:`find_names`): a word of that key
        capitalised, or a name joiner ("van"). ``False`` means it has none, without reading the sentence."""
        if i in self._readings:
            return True
        get = KEY_CACHE.__getitem__
        for w in WORD_TOKEN_RE.findall(self.text, *self.spans[i]):
            if w[:1].isupper():
                if get(w.lower()) == key:
                    return True
            else:
                low = w.lower()
                if low in NAME_JOINERS and get(low) == key:
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
            got = numbers_in(text) if has_number(text) else []
            self._numbers[i] = got
        return got

    def digit_runs(self) -> tuple[Any, Any]:
        """Significands (see :func:`_significand`) and sentences of every digit run in the text, as numpy
        arrays: a cheap prefilter for numbers."""
        if self._digits is None:
            import numpy as np

            runs = [(m.start(), m.group().replace(",", "")) for m in DIGITS_RE.finditer(self.text)]
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
            out.update(bisect_right(starts, m.start()) - 1 for m in NUMBER_WORDS_RE.finditer(self.text))
        out.discard(-1)
        return out


def _significand(x: float) -> float:
    """``x`` scaled into [1, 10): 3,400,000 and 3.4 both give 3.4."""
    if x <= 0:
        return 1.0
    return x / 10.0 ** math.floor(math.log10(x))


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
        for m in ISO_DATE_RE.finditer(text):
            i = bisect_right(starts, m.start()) - 1
            if i >= 0:
                keys[i] += (stem(MONTHS[int(m.group(2)) - 1]),)
    masks: dict[str, int] = {}
    get = masks.get
    for i, ks in enumerate(keys):
        bit = 1 << i
        for k in ks:
            masks[k] = get(k, 0) | bit
    return EvidenceIndex(text, spans, keys, masks)
