"""The language layer of the rule-based kinds and the report parser: pure functions over text, standard
library plus PyStemmer; the only I/O is reading the packaged vocabularies (``data/*.txt``, see
:mod:`graderctl.language.vocabulary`).

- :mod:`~graderctl.language.typography`: :func:`fold_typography`, :func:`normalize` (the comparison form),
  :func:`split_ellipsis`.
- :mod:`~graderctl.language.sentences`: the sentence splitter (:func:`sentence_spans`,
  :func:`split_sentences`).
- :mod:`~graderctl.language.tokens`: :func:`tokenize`, :func:`content_words`, :data:`STOPWORDS`,
  :data:`NEGATIONS`, and the token patterns of the claim_support signals.
- :mod:`~graderctl.language.stemming`: the stemmer (:func:`stem`, Snowball, with a named option).
- :mod:`~graderctl.language.numbers`: the number reader (:func:`extract_numbers`: "3.5 million" = 3,500,000).
- :mod:`~graderctl.language.dates`: :func:`extract_dates`, :data:`MONTHS`.
- :mod:`~graderctl.language.names`: the name finder (typed spans of a sentence; runs of capitalised words of
  a short statement).
- :mod:`~graderctl.language.quantities`: numbers with how exactly they were stated (hedges, fractions,
  precision, units), and when a report states a quantity.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graderctl.language.dates import MONTHS, DateMention, extract_dates
    from graderctl.language.numbers import (
        NumberMention,
        extract_numbers,
        number_key,
        number_keys,
        numbers_close,
    )
    from graderctl.language.sentences import sentence_spans, split_sentences
    from graderctl.language.stemming import stem
    from graderctl.language.tokens import NEGATIONS, STOPWORDS, content_words, tokenize
    from graderctl.language.typography import collapse_whitespace, fold_typography, normalize, split_ellipsis

#: Each name above -> its module, imported on first use (PEP 562): the report parser needs only the sentence
#: splitter, not the stemmer or the number and date readers.
_HOMES = {
    **dict.fromkeys(("MONTHS", "DateMention", "extract_dates"), "dates"),
    **dict.fromkeys(
        ("NumberMention", "extract_numbers", "number_key", "number_keys", "numbers_close"), "numbers"
    ),
    **dict.fromkeys(("sentence_spans", "split_sentences"), "sentences"),
    "stem": "stemming",
    **dict.fromkeys(("NEGATIONS", "STOPWORDS", "content_words", "tokenize"), "tokens"),
    **dict.fromkeys(("collapse_whitespace", "fold_typography", "normalize", "split_ellipsis"), "typography"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "MONTHS",
    "NEGATIONS",
    "STOPWORDS",
    "DateMention",
    "NumberMention",
    "collapse_whitespace",
    "content_words",
    "extract_dates",
    "extract_numbers",
    "fold_typography",
    "normalize",
    "number_key",
    "number_keys",
    "numbers_close",
    "sentence_spans",
    "split_ellipsis",
    "split_sentences",
    "stem",
    "tokenize",
]
