"""The name finder: capitalised spans of a text (people, organisations, places), never titles, months,
weekdays or function words.

Two readings of a text's names, in one place because they share the idea but not the input:

- :func:`find_names` reads the tokens of a sentence (with each token's content key) and types each span
  (``person`` after a title or before "said", ``org`` with "Bank", "Ltd", ``place`` for a country or after
  "in"); a sentence-initial word counts only before another capitalised word, or as a country or an acronym.
  The claim_support kind reads claims and evidence sentences this way.
- :func:`name_runs` reads a short statement word by word (split at spaces) and keeps runs of capitalised
  words as stems; a statement's first word counts unless it is a common opener ("Police", "Several"). The
  coverage kind reads its nuggets this way, where a name often opens the statement.

They differ on purpose (each is part of what a released grader computes): "Lisbon hosted the summit." has
no name for :func:`find_names` (a lone sentence-initial capital) but the run "Lisbon" (flagged ``initial``)
for :func:`name_runs`; "Mr. Smith of Acme Ltd said so." is one span "Smith of Acme Ltd" (a person, the title
dropped) for :func:`find_names` but the runs "Mr Smith" and "Acme Ltd" for :func:`name_runs`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graderctl.language import vocabulary
from graderctl.language.dates import MONTHS
from graderctl.language.numbers import number_keys
from graderctl.language.stemming import stem
from graderctl.language.tokens import STOPWORDS, tokenize

__all__ = [
    "COUNTRY_KEYS",
    "MONTH_ABBR",
    "MONTH_KEYS",
    "MONTH_NAMES",
    "NAME_JOINERS",
    "NOT_NAME_WORDS",
    "ORG_WORDS",
    "PERSON_CUES",
    "WEEKDAYS",
    "Name",
    "NameRun",
    "find_names",
    "name_runs",
]

#: Month names, January to December (``data/months.txt`` lists them first, then the abbreviations).
MONTH_NAMES: tuple[str, ...] = tuple(MONTHS)[:12]
#: Three-letter abbreviations (and "sept") -> the month name.
MONTH_ABBR: dict[str, str] = {m[:3]: m for m in MONTH_NAMES} | {"sept": "september"}
#: Snowball stems of the month names.
MONTH_KEYS: frozenset[str] = frozenset(stem(m) for m in MONTH_NAMES)
WEEKDAYS: frozenset[str] = vocabulary.words("weekdays")
#: Stems of countries, continents and regions (the first word of each line of ``data/demonyms.txt``).
COUNTRY_KEYS: frozenset[str] = frozenset(stem(g[0]) for g in vocabulary.groups("demonyms"))
#: Stems of words that make a capitalised span an organisation.
ORG_WORDS: frozenset[str] = frozenset(stem(w) for w in vocabulary.word_list("organisation_words"))
#: Words before or after a span that make it a person.
PERSON_CUES: frozenset[str] = vocabulary.words("person_cues")
#: Lower-case words that may join a multiword name ("Bank of England", "Ludwig van Beethoven").
NAME_JOINERS: frozenset[str] = vocabulary.words("name_joiners")
#: Capitalised words that are never part of a name.
NOT_NAME_WORDS: frozenset[str] = vocabulary.words("not_name_words")


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


def find_names(words: Sequence[str], lower: Sequence[str], keys: Sequence[str | None]) -> list[Name]:
    """Capitalised spans of a sentence's tokens ``words`` (``lower``: the same lower-cased; ``keys``: each
    token's content key, ``None`` for a function word); a sentence-initial word only when a capitalised word
    follows, when it is a country or an acronym. A title ("Director") is left out of the span but makes it a
    person."""
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
            if not (nxt_cap or keys[i] in COUNTRY_KEYS or (w.isupper() and len(w) > 1)):
                i += 1
                continue
        j = i
        while True:
            if j + 1 < n and _is_cap(words[j + 1], lower[j + 1]):
                j += 1
            elif j + 2 < n and lower[j + 1] in NAME_JOINERS and _is_cap(words[j + 2], lower[j + 2]):
                j += 2
            else:
                break
        a = i
        while a < j and lower[a] in PERSON_CUES:
            a += 1  # "Director Maria Lopes": the title is not part of the name, but says it is a person
        span_keys = tuple(k for k in keys[a : j + 1] if k and k not in MONTH_KEYS)
        if span_keys:
            kind = "person" if a > i else _name_type(span_keys, lower, i, j)
            out.append(Name(span_keys, " ".join(words[a : j + 1]), kind, a, j))
        i = j + 1
    return out


def _is_cap(word: str, low: str) -> bool:
    if not word[:1].isupper() or low in NOT_NAME_WORDS or low in WEEKDAYS:
        return False
    return not (low in MONTH_ABBR or low in MONTH_NAMES)


def _name_type(keys: tuple[str, ...], lower: Sequence[str], i: int, j: int) -> str:
    if any(k in ORG_WORDS for k in keys):
        return "org"
    if len(keys) == 1 and keys[0] in COUNTRY_KEYS:
        return "place"
    before = lower[i - 1] if i > 0 else ""
    after = lower[j + 1] if j + 1 < len(lower) else ""
    after2 = lower[j + 2] if j + 2 < len(lower) else ""
    if before in PERSON_CUES or after in PERSON_CUES or (after == "," and after2 in PERSON_CUES):
        return "person"
    if len(keys) == 1 and before in ("in", "at", "near", "across"):
        return "place"
    return ""


@dataclass
class NameRun:
    """A run of capitalised words of a statement: its stems, its words, and whether it is a lone word opening
    the statement (then perhaps an ordinary word: "Bundles of notes spilled ...")."""

    stems: list[str]
    words: list[str]
    initial: bool


#: Ordinary words that often open a statement (and so are capitalised without being names).
COMMON_INITIAL: frozenset[str] = vocabulary.words("common_initial_words")
_CAPITALISED = re.compile(r"[A-Z][\w'’.-]*")


def name_runs(statement: str, *, stem: Callable[[str], str]) -> list[NameRun]:
    """Runs of capitalised words in a short statement (its names), each word's tokens stemmed by ``stem``.
    Statements often start with a name, so a first capital counts unless it is a common opener; stopwords,
    months and number words never count; a comma or a colon ends a run."""
    names: list[NameRun] = []
    current: list[str] = []
    words: list[str] = []
    start = 0

    def close() -> None:
        nonlocal current, words
        if current:
            names.append(NameRun(current, words, start == 0 and len(words) == 1))
        current, words = [], []

    for i, raw in enumerate(statement.split()):
        word = raw.strip("\"'“”‘’()[],;:!?.")
        low = word.lower()
        capital = (
            bool(_CAPITALISED.fullmatch(word))
            and low not in STOPWORDS
            and low not in MONTHS
            and not number_keys(low)
            and not (i == 0 and low in COMMON_INITIAL)
        )
        if capital:
            if not current:
                start = i
            current.extend(stem(t) for t in tokenize(word))
            words.append(word)
        else:
            close()
        if current and raw[-1:] in ",;:!?":
            close()
    close()
    return names
