"""Built-in kind ``source_existence``: does the cited source exist, and does it contain the quote?

A citation ``{source_id, url, doi, title, quote}`` is resolved against the corpus by ``source_id``, else by
its normalised URL, else by DOI. Every identifier that is given must resolve, and all to the same document:
a URL or DOI that resolves nowhere is a fabricated or mangled source even when the title matches a real
document (the reason names the closest document by title so a person can see what was probably meant).

A quote must appear in the resolved document. Texts are compared after NFKC, quote/dash folding, soft-hyphen
removal, whitespace collapsing and lower-casing; a quote with ``...``/``…`` is several fragments that must
appear in order. Matching is tried in three steps, cheapest first: exact substring; exact over word tokens
(punctuation and the page's footnote markers such as ``[12]`` ignored); then a fuzzy alignment (rapidfuzz)
whose differences must all be tiny: spacing (``e-mail``/``email``, a word broken at a line end,
``infor-\nmation``) or at most ``max_word_edits`` one-letter spelling slips in long quotes. Every number in
the quote must appear in the matched passage, and a changed, added, dropped or negated word (or number word:
``millions``/``billions``) is never tolerated, so changed numbers, swapped words, negations and spliced
passages are rejected.

Speed: each document's comparison form is built once per corpus (on first use, or all at once by
:meth:`SourceExistenceGrader.prepare`) and kept as plain tuples the garbage collector does not walk; its word
tokens only when a quote is not in it verbatim. The closest-title hint searches a token index of the titles.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from graderctl import __version__, language
from graderctl.models.base import Check
from graderctl.models.calset import CorpusDocument, SampleInput, SourceExistenceInput
from graderctl.normalize import find_doi, normalize_doi, normalize_url
from graderctl.plugin import Corpus, GraderKind, Verdict

if TYPE_CHECKING:
    from graderctl.kinds._online import OnlineResolver

_LOOSE_TOKEN = re.compile(r"\d+(?:[.,]\d+)*(?![^\W_])|[^\W_]+|%")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NUMBERISH = frozenset({"percent", "per", "cent", "million", "billion", "trillion", "thousand", "hundred"})


def _canonical(tok: str) -> str:
    if tok == "%":
        return "percent"
    if tok[0].isdigit() and "," in tok and _THOUSANDS.fullmatch(tok):
        return tok.replace(",", "")
    return tok


def _loose_words(text: str) -> list[str]:
    """Word tokens of a normalised text in canonical form (``%`` -> ``percent``, ``3,500`` -> ``3500``): the
    form in which punctuation differences vanish."""
    words: list[str] = _LOOSE_TOKEN.findall(text)
    if "%" in text or "," in text:  # else no token has a canonical form of its own
        return [_canonical(t) for t in words]
    return words


_EDGE_PUNCT = " .,;:!?'\"-"
_ASCII_DIGIT = re.compile(r"[0-9]")
_COUNT = itemgetter(1)


def _has_digit(text: str) -> bool:
    """``any(c.isdigit() for c in text)``, without a Python-level loop over an ASCII text."""
    if text.isascii():
        return _ASCII_DIGIT.search(text) is not None
    return any(c.isdigit() for c in text)


_INDEX_KEY = "source_existence/doc-texts/v2"
_LOOSE_KEY = "source_existence/doc-tokens/v2"
_TITLE_KEY = "source_existence/title-index/v2"


class SourceExistenceParams(GraderKind.Params):
    """``[params]`` of a ``source_existence`` grader."""

    check_quote: bool = Field(
        default=True, description="Check that a citation's quote appears in the resolved document."
    )
    require_quote: bool = Field(default=False, description="Reject citations that carry no quote.")
    identifiers_must_agree: bool = Field(
        default=True,
        description=(
            "Every identifier given (source_id, url, doi) must resolve, and to the same document; otherwise "
            "the citation is rejected as fabricated or mangled."
        ),
    )
    max_char_edit_ratio: float = Field(
        default=0.06,
        ge=0,
        le=0.5,
        description=(
            "Fuzzy matches only: largest share of characters (punctuation ignored) that may differ between a "
            "quote fragment and the passage."
        ),
    )
    max_word_edits: int = Field(
        default=1,
        ge=0,
        description="Fuzzy matches only: how many one-letter spelling slips a quote fragment may contain.",
    )
    words_per_edit: int = Field(
        default=12,
        ge=1,
        description="A fragment may hold one spelling slip per this many words (short quotes: none).",
    )
    min_slip_word_length: int = Field(
        default=6, ge=1, description="A spelling slip is tolerated only in words at least this long."
    )
    min_fuzzy_similarity: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="Below this similarity no passage is considered a candidate at all (only reported).",
    )
    passage_chars_shown: int = Field(
        default=240, ge=40, description="Longest passage quoted in a reason (the middle is elided)."
    )
    # Online resolution (off by default; the defaults below are not written into shipped definitions, so
    # their fingerprints and verdicts are unchanged).
    resolve: Literal["corpus", "online"] = Field(
        default="corpus",
        description=(
            "corpus: a source must be in the corpus. online: a URL or DOI the corpus lacks is fetched "
            "(redirects followed); 404/410 = does not exist (rejected), 5xx/timeouts/connection or DNS "
            "failures = an error (never a verdict); a fetched page becomes a corpus document for the quote "
            "check. Lookups are cached on disk (`score --no-cache` turns that off)."
        ),
    )
    doi_resolver: str = Field(
        default="https://doi.org/",
        pattern=r"^https?://",
        description="online: where a DOI is resolved (the DOI is appended to this address).",
    )
    online_timeout: float = Field(default=10.0, gt=0, le=300, description="online: seconds per request.")
    online_per_host: int = Field(default=2, ge=1, le=32, description="online: requests at a time per host.")
    online_user_agent: str = Field(
        default=f"graderctl/{__version__} (source-existence check of cited pages; one request per page)",
        min_length=1,
        description="online: the User-Agent header sent.",
    )
    online_max_bytes: int = Field(
        default=5_000_000, ge=1024, description="online: largest page body read (the rest is not read)."
    )


# --- per-document index ---------------------------------------------------------------------------------


class _DocIndex:
    """A document's text in comparison form (a view; what the corpus caches is below)."""

    __slots__ = ("_id", "_looses", "blank", "display", "norm")

    def __init__(self, texts: _DocTexts, doc_id: str, looses: dict[str, _LooseIndex]) -> None:
        self.norm, self.display, self.blank = texts
        self._id = doc_id
        self._looses = looses

    @staticmethod
    def texts(text: str) -> _DocTexts:
        """``(norm, display, blank)`` of a document's text: ``norm`` is the comparison form; ``display`` the
        same with its case kept, when it aligns character for character with ``norm`` (for reasons);
        ``blank`` says the text is empty or only whitespace (its quotes cannot be checked)."""
        display = language.normalize(_unescape(text), casefold=False)
        norm = display.lower()
        if len(norm) != len(display):  # rare: a lower-casing that changes length (e.g. "İ")
            display = norm
        return (norm, display, not text or text.isspace())

    @property
    def loose(self) -> _LooseIndex:
        loose = self._looses.get(self._id)
        if loose is None:
            loose = self._looses[self._id] = _LooseIndex.build(self.norm)
        return loose


#: What the per-corpus cache holds for each document: plain tuples of strings, which the cyclic garbage
#: collector stops tracking (100,000 objects it would otherwise walk at every full collection).
_DocTexts = tuple[str, str, bool]


class _LooseIndex:
    """A document's canonical word tokens (see :func:`_loose_words`), built on the first quote that is not
    in the text verbatim: ``text`` is the tokens joined by single spaces (``padded`` the same with a space
    at either end), ``offsets[i]`` where token ``i`` starts in ``text``, and ``starts[i]`` / ``ends[i]`` its
    span in the document's normalised text. Numbers are kept in arrays, tokens in a tuple: compact, and
    nothing for the garbage collector to walk."""

    __slots__ = ("ends", "offsets", "padded", "starts", "text", "tokens")

    def __init__(
        self,
        tokens: tuple[str, ...],
        offsets: array[int],
        starts: array[int],
        ends: array[int],
        text: str,
        padded: str,
    ) -> None:
        self.tokens = tokens
        self.offsets = offsets
        self.starts = starts
        self.ends = ends
        self.text = text
        self.padded = padded

    @classmethod
    def build(cls, norm: str) -> _LooseIndex:
        tokens: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        offsets: list[int] = []
        pos = 0
        for m in _LOOSE_TOKEN.finditer(norm):
            tok = m.group()
            a, b = m.span()
            if tok[0].isdigit():
                if len(tok) <= 3 and norm[a - 1 : a] == "[" and norm[b : b + 1] == "]" and tok.isdigit():
                    continue  # a footnote marker ("spending.[12]"), which quotes leave out
                if "," in tok:
                    tok = _canonical(tok)
            elif tok == "%":
                tok = _canonical(tok)
            tokens.append(tok)
            starts.append(a)
            ends.append(b)
            offsets.append(pos)
            pos += len(tok) + 1
        text = " ".join(tokens)
        return cls(
            tuple(tokens), array("q", offsets), array("q", starts), array("q", ends), text, " " + text + " "
        )


@dataclass
class _TitleIndex:
    """Finds the documents whose title (or URL) is closest to a citation's, for messages."""

    # Tuples of strings and arrays of numbers: compact, and nothing for the garbage collector to walk.
    titles: tuple[str, ...]  # normalised, by position in the corpus
    urls: tuple[str, ...]  # normalised ("" when none)
    #: content word -> positions of the documents whose title has it, ascending
    by_token: dict[str, array[int]]
    #: host -> positions of the documents on it; "" -> every document with a URL
    by_host: dict[str, array[int]]
    _host_urls: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, corpus: Corpus) -> _TitleIndex:
        titles: list[str] = []
        urls: list[str] = []
        by_token: dict[str, list[int]] = {}
        by_host: dict[str, list[int]] = {}
        # the corpus has normalised every URL already: reuse its keys (a document whose URL another one
        # claimed first is normalised here)
        url_keys = {id(doc): key for key, doc in corpus.by_url.items()}
        normalize = language.normalize
        content_words = language.content_words
        for i, doc in enumerate(corpus.documents):
            title = normalize(doc.title) if doc.title else ""
            titles.append(title)
            url = (url_keys.get(id(doc)) or normalize_url(doc.url)) if doc.url else ""
            urls.append(url)
            if title:
                for tok in set(content_words(title)):
                    posting = by_token.get(tok)
                    if posting is None:
                        by_token[tok] = [i]
                    else:
                        posting.append(i)
            if url:
                by_host.setdefault("", []).append(i)
                posting = by_host.get(_url_host(url))
                if posting is None:
                    by_host[_url_host(url)] = [i]
                else:
                    posting.append(i)
        return cls(
            tuple(titles),
            tuple(urls),
            {tok: array("q", posting) for tok, posting in by_token.items()},
            {host: array("q", posting) for host, posting in by_host.items()},
        )

    def closest_by_title(
        self, title: str, per_word: int = 400, shortlist: int = 64, min_similarity: float = 0.0
    ) -> tuple[int, float] | None:
        """The document whose title is most like ``title``: candidates share its rarest words (each word's
        postings capped), the best-sharing few are compared with rapidfuzz. ``None`` when no candidate
        reaches ``min_similarity``."""
        from collections import Counter

        import rapidfuzz.fuzz as fuzz  # (not `from`: cheaper when run per citation)
        import rapidfuzz.process as process

        query = language.normalize(title)
        by_token = self.by_token
        # rarest first; ties by the word itself, so the hint does not depend on the process's hash seed
        words = sorted(set(language.content_words(query)), key=lambda w: (len(by_token.get(w, ())), w))
        common = max(per_word, len(self.titles) // 100)
        postings: list[array[int]] = []
        for w in words[:4]:
            posting = by_token.get(w)
            if not posting:
                continue
            if len(posting) > common and postings:
                break  # the rarer words already found the candidates; common ones add only noise
            postings.append(posting[:per_word])
        if not postings:
            return None
        # the `shortlist` documents sharing the most of these words, ties in order of first appearance
        # (exactly Counter.most_common, which is a stable sort by count)
        if len(postings) == 1:
            top: Sequence[int] = postings[0][:shortlist]  # counts are all 1: a posting holds a document once
        else:
            shared: Counter[int] = Counter()
            for posting in postings:
                shared.update(posting)
            if len(shared) == sum(map(len, postings)):
                top = list(islice(shared, shortlist))  # no document shares two words: counts are all 1
            else:
                top = [i for i, _ in sorted(shared.items(), key=_COUNT, reverse=True)[:shortlist]]
        titles = self.titles
        best = process.extractOne(
            query,
            [titles[i] for i in top],
            scorer=fuzz.token_sort_ratio,
            score_cutoff=_cutoff(min_similarity),
        )
        if best is None:
            return None
        return top[best[2]], float(best[1]) / 100

    def closest_by_url(
        self, url: str, limit: int = 5000, min_similarity: float = 0.0
    ) -> tuple[int, float] | None:
        import rapidfuzz.fuzz as fuzz  # (not `from`: cheaper when run per citation)
        import rapidfuzz.process as process

        key = normalize_url(url)
        # a corpus of up to `limit` pages is searched whole (a mangled host still finds its page); a larger
        # one only among the pages on the same host
        everything = self.by_host.get("", ())
        host = "" if len(everything) <= limit else _url_host(key)
        posting = self.by_host.get(host)
        if not posting:
            return None
        choices = self._host_urls.get(host)
        if choices is None:
            choices = self._host_urls[host] = tuple(self.urls[i] for i in posting[:limit])
        best = process.extractOne(key, choices, scorer=fuzz.ratio, score_cutoff=_cutoff(min_similarity))
        if best is None:
            return None
        return posting[best[2]], float(best[1]) / 100


def _url_host(key: str) -> str:
    """The host (and port) of a normalised URL (``//host/path?query``); never empty for a URL with a host."""
    return _HOST_END.split(key[2:] if key.startswith("//") else key, maxsplit=1)[0] or "?"


_HOST_END = re.compile(r"[/?]")


def _cutoff(min_similarity: float) -> float:
    """A rapidfuzz ``score_cutoff`` (0-100) that keeps every score whose ``score / 100`` may still reach
    ``min_similarity`` (a hair below, for rounding): callers compare ``score / 100`` themselves, and the best
    choice among those kept is the one a search without a cutoff finds."""
    return max(0.0, min_similarity * 100 - 1e-6)


# --- quote matching -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _FragmentMatch:
    fragment: str
    found: bool
    how: str  # exact | tokens | fuzzy | none
    similarity: float
    start: int = -1  # span in the document's normalised text
    end: int = -1
    problems: list[str] = field(default_factory=list)


def _unescape(text: str) -> str:
    """Decode HTML character references (``&amp;``, ``&#8217;``) that page extraction sometimes leaves."""
    if "&" not in text:
        return text
    import html

    return html.unescape(text)


def _clean_fragment(fragment: str) -> str:
    return language.normalize(_unescape(fragment)).strip(_EDGE_PUNCT)


def _find_word_bounded(hay: str, needle: str, start: int) -> int:
    """``hay.find(needle, start)`` where the match does not begin or end inside a word."""
    n = len(needle)
    check_left = needle[:1].isalnum()
    check_right = needle[-1:].isalnum()
    pos = hay.find(needle, start)
    while pos >= 0:
        left_ok = (
            not check_left
            or pos == 0
            or not (hay[pos - 1].isalnum() or (needle[0].isdigit() and _digit_joiner(hay, pos - 1, -1)))
        )
        right_ok = (
            not check_right
            or pos + n >= len(hay)
            or not (hay[pos + n].isalnum() or (needle[-1].isdigit() and _digit_joiner(hay, pos + n, 1)))
        )
        if left_ok and right_ok:
            return pos
        pos = hay.find(needle, pos + 1)
    return -1


def _digit_joiner(hay: str, i: int, step: int) -> bool:
    """Whether ``hay[i]`` is a decimal point or thousands separator continuing a number (``3`` in ``3.5``)."""
    j = i + step
    return hay[i] in ".," and 0 <= j < len(hay) and hay[j].isdigit()


def _is_spelling_slip(a: str, b: str, min_len: int) -> bool:
    """Two different words that are one keystroke apart (substitution, insertion, deletion or a swap of
    neighbours), both long enough, neither a number nor a negation."""
    import rapidfuzz.distance.DamerauLevenshtein as DamerauLevenshtein

    if min(len(a), len(b)) < min_len:
        return False
    if not (a.isalpha() and b.isalpha()):
        return False
    if a in language.NEGATIONS or b in language.NEGATIONS:
        return False
    number_a, number_b = _number_word(a), _number_word(b)
    if number_a and number_b and number_a != number_b:
        return False  # "millions" / "billions", "eighty" / "eighth": a changed number, not a slip
    return int(DamerauLevenshtein.distance(a, b)) <= 1


#: Words that state a quantity or a rank.
_NUMBER_WORDS_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
    billion trillion dozen half quarter percent percentage cent first second third fourth fifth sixth seventh
    eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth
    nineteenth twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth hundredth
    thousandth millionth billionth trillionth single double triple quadruple twice thrice"""
_NUMBER_WORDS = frozenset(_NUMBER_WORDS_TEXT.split())


def _number_word(word: str) -> str | None:
    """The number word ``word`` is (its singular), or ``None``."""
    if word in _NUMBER_WORDS:
        return word
    if word.endswith("s") and word[:-1] in _NUMBER_WORDS:
        return word[:-1]
    return None


class _QuoteMatcher:
    def __init__(self, params: SourceExistenceParams) -> None:
        self.p = params

    def match(self, quote: str, index: _DocIndex) -> list[_FragmentMatch]:
        fragments = _fragments(quote)
        if len(fragments) == 1:  # the common case: one fragment, searched from the start
            return [self._match_fragment(fragments[0], index, 0)]
        results: list[_FragmentMatch] = []
        cursor = 0
        for frag in fragments:
            m = self._match_fragment(frag, index, cursor)
            if not m.found and cursor > 0:
                earlier = self._match_fragment(frag, index, 0)
                if earlier.found:
                    m.problems.append("this fragment appears only before the previous one (out of order)")
                    m.start, m.end, m.similarity = earlier.start, earlier.end, earlier.similarity
            results.append(m)
            if m.found:
                cursor = m.end
        return results

    def _match_fragment(self, frag: str, index: _DocIndex, cursor: int) -> _FragmentMatch:
        pos = _find_word_bounded(index.norm, frag, cursor)
        if pos >= 0:
            return _FragmentMatch(frag, True, "exact", 1.0, pos, pos + len(frag))
        loose = index.loose
        offsets = loose.offsets
        q_tokens = _loose_words(frag)
        if not q_tokens:
            return _FragmentMatch(frag, False, "none", 0.0, problems=["the fragment holds no words"])
        loose_q = " ".join(q_tokens)
        tok_cursor = bisect.bisect_left(loose.starts, cursor) if cursor else 0
        loose_cursor = offsets[tok_cursor] if tok_cursor < len(offsets) else len(loose.text)
        lpos = loose.padded.find(" " + loose_q + " ", loose_cursor)
        if lpos >= 0:
            first = bisect.bisect_left(offsets, lpos)
            last = first + len(q_tokens) - 1
            return _FragmentMatch(frag, True, "tokens", 1.0, loose.starts[first], loose.ends[last])
        return self._fuzzy(frag, q_tokens, loose_q, index, tok_cursor)

    def _fuzzy(
        self, frag: str, q_tokens: list[str], loose_q: str, index: _DocIndex, tok_cursor: int
    ) -> _FragmentMatch:
        import rapidfuzz.distance.Levenshtein as Levenshtein
        import rapidfuzz.fuzz as fuzz

        loose = index.loose
        offsets, doc_tokens = loose.offsets, loose.tokens
        n_spans = len(doc_tokens)
        if tok_cursor >= n_spans:
            return _FragmentMatch(
                frag, False, "none", 0.0, problems=["no text left after the previous fragment"]
            )
        base = offsets[tok_cursor]
        hay = loose.text[base:] if base else loose.text
        al = fuzz.partial_ratio_alignment(loose_q, hay)
        if al is None:
            return _FragmentMatch(frag, False, "none", 0.0, problems=["no passage resembles it"])
        similarity = al.score / 100
        if similarity == 0:
            return _FragmentMatch(frag, False, "none", 0.0, problems=["no passage resembles it"])
        # the aligned window, in tokens, then the best token window within two tokens of it: one with the
        # quote's very letters if there is one (a word split at a line break, "infor- mation", or spelt
        # "e-mail" for "email", at either end of the quote), else the fewest word edits
        t0 = bisect.bisect_right(offsets, base + al.dest_start) - 1
        t1 = bisect.bisect_left(offsets, base + al.dest_end)
        t0, t1 = max(t0, tok_cursor), max(t1, t0 + 1)
        best: tuple[bool, int, int, int, int] | None = None
        n_q = len(q_tokens)
        q_letters = "".join(q_tokens)
        lo, hi = max(tok_cursor, t0 - 1), min(n_spans, t1 + 1)
        region = list(doc_tokens[lo:hi])
        end_offset = len(loose.text) + 1  # where a token after the last one would start
        distance = Levenshtein.distance
        for a in range(lo, min(n_spans, t0 + 2)):
            for b in range(max(a + 1, t1 - 1), hi + 1):
                window = region[a - lo : b - lo]
                d = int(distance(q_tokens, window))
                # the window's letters, counted from the offsets before they are compared
                n_letters = (offsets[b] if b < n_spans else end_offset) - offsets[a] - (b - a)
                same = n_letters == len(q_letters) and "".join(window) == q_letters
                key = (not same, d, abs(b - a - n_q), a, b)
                if best is None or key < best:
                    best = key
        assert best is not None
        a, b = best[3], best[4]
        p_tokens = list(doc_tokens[a:b])
        start, end = loose.starts[a], loose.ends[b - 1]
        loose_p = " ".join(p_tokens)
        similarity = max(similarity, fuzz.ratio(loose_q, loose_p) / 100)
        match = _FragmentMatch(frag, False, "fuzzy", similarity, start, end)
        if similarity < self.p.min_fuzzy_similarity:
            match.problems.append("no passage is close to it")
            return match
        match.problems, slip_chars = self._differences(frag, q_tokens, p_tokens, index.display[start:end])
        char_ratio = slip_chars / max(1, len(loose_q))
        if not match.problems and char_ratio > self.p.max_char_edit_ratio:
            match.problems.append(
                f"{char_ratio:.0%} of its characters differ "
                f"(at most {self.p.max_char_edit_ratio:.0%} allowed)"
            )
        match.found = not match.problems
        return match

    def _differences(self, frag: str, q: list[str], p: list[str], passage: str) -> tuple[list[str], int]:
        """What differs between the quote's words ``q`` and the passage's words ``p``, as messages (an empty
        list when every difference is tolerable), and how many characters the tolerated slips changed."""

        problems: list[str] = []
        # numbers written in digits must reappear; numbers in words are compared as words below
        q_numbers = set(language.number_keys(frag)) if _has_digit(frag) else set()
        p_numbers = set(language.number_keys(passage)) if q_numbers else set()
        missing_numbers = sorted(q_numbers - p_numbers)
        if missing_numbers:
            have = ", ".join(sorted(p_numbers)) or "none"
            problems.append(
                f"the number(s) {', '.join(missing_numbers)} are not in the passage (it has {have})"
            )
        if "".join(q) == "".join(p):
            return problems, 0  # only spacing/hyphenation differs
        slips = slip_chars = 0
        allowed = min(self.p.max_word_edits, len(q) // self.p.words_per_edit)
        for qa, pb in _diff_blocks(q, p):
            if qa and pb and "".join(qa) == "".join(pb):
                continue
            if qa and pb and _same_number(qa, pb):
                continue
            if len(qa) == 1 and len(pb) == 1 and _is_spelling_slip(qa[0], pb[0], self.p.min_slip_word_length):
                slips += 1
                slip_chars += 1  # a slip is one keystroke
                if slips <= allowed:
                    continue
                problems.append(
                    f"'{qa[0]}' where the source has '{pb[0]}' (more spelling differences than allowed)"
                )
                continue
            negated = sorted({w for w in (*qa, *pb) if w in language.NEGATIONS})
            note = f" (negation: {', '.join(negated)})" if negated else ""
            if qa and pb:
                problems.append(f"'{' '.join(qa)}' where the source has '{' '.join(pb)}'{note}")
            elif qa:
                problems.append(f"'{' '.join(qa)}' is not in the source{note}")
            else:
                problems.append(f"the source has '{' '.join(pb)}' here, which the quote leaves out{note}")
        return problems, slip_chars


def _diff_blocks(q: list[str], p: list[str]) -> list[tuple[list[str], list[str]]]:
    """The differing stretches of two token lists, neighbouring edits merged into one block."""
    import rapidfuzz.distance.Levenshtein as Levenshtein

    blocks: list[tuple[list[str], list[str]]] = []
    pending: tuple[int, int, int, int] | None = None
    for op in Levenshtein.opcodes(q, p):
        if op.tag == "equal":
            if pending is not None:
                blocks.append((q[pending[0] : pending[1]], p[pending[2] : pending[3]]))
                pending = None
            continue
        if pending is None:
            pending = (op.src_start, op.src_end, op.dest_start, op.dest_end)
        else:
            pending = (pending[0], op.src_end, pending[2], op.dest_end)
    if pending is not None:
        blocks.append((q[pending[0] : pending[1]], p[pending[2] : pending[3]]))
    return blocks


def _same_number(a: list[str], b: list[str]) -> bool:
    """The same number written two ways (``3.5 million`` / ``3500000``, ``forty`` / ``40``)."""

    def numeric(tokens: list[str]) -> bool:
        return all(t[0].isdigit() or t in _NUMBERISH or language.number_keys(t) for t in tokens)

    if not (numeric(a) and numeric(b)):
        return False
    ka, kb = language.number_keys(" ".join(a)), language.number_keys(" ".join(b))
    return bool(ka) and ka == kb


def _split_quote(quote: str) -> list[str]:
    """Fragments of a quote: split at ellipses and at bracketed editorial insertions (``[he]``)."""
    stripped = quote.strip()
    if len(stripped) >= 2 and stripped[0] in "\"'“‘«" and stripped[-1] in "\"'”’»":
        stripped = stripped[1:-1]
    out: list[str] = []
    for part in language.split_ellipsis(stripped):
        if "[" in part:
            out.extend(p for p in _BRACKETED.split(part) if p.strip(_EDGE_PUNCT))
        else:
            out.append(part)
    return out


_BRACKETED = re.compile(r"\[[^\]]*\]")


def _fragments(quote: str) -> list[str]:
    """The fragments of a quote to look for, in order, in comparison form (empty ones dropped)."""
    out: list[str] = []
    for part in _split_quote(quote):
        fragment = _clean_fragment(part)
        if fragment:
            out.append(fragment)
    return out


# --- the kind -------------------------------------------------------------------------------------------


def _doc_indexes(corpus: Corpus) -> tuple[dict[str, _DocTexts], dict[str, _LooseIndex]]:
    """The corpus's documents in comparison form, and their token indexes, by document id; both filled as
    they are first needed."""
    texts: dict[str, _DocTexts] = corpus.derived(_INDEX_KEY, dict)
    looses: dict[str, _LooseIndex] = corpus.derived(_LOOSE_KEY, dict)
    return texts, looses


def _title_index(corpus: Corpus) -> _TitleIndex:
    index: _TitleIndex = corpus.derived(_TITLE_KEY, lambda: _TitleIndex.build(corpus))
    return index


@dataclass(slots=True)
class _Resolution:
    doc: CorpusDocument | None
    how: str  # human-readable: which identifier resolved
    problems: list[str]
    closest: str | None = None


#: How a quote was found, for the reason (the least exact step any fragment needed).
_HOW_FOUND = {
    "exact": "verbatim (after normalising case, quotes, dashes and spaces)",
    "tokens": "with punctuation differences only",
    "fuzzy": "with tiny spelling differences",
}


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return text[:half].rstrip() + " … " + text[-half:].lstrip()


class SourceExistenceGrader(GraderKind):
    """Accepts a citation when its source is in the corpus under every identifier it gives and its quote (if
    any) appears in that source."""

    name: ClassVar[str] = "source_existence"
    checks: ClassVar[frozenset[Check]] = frozenset({Check.source_existence})
    Params = SourceExistenceParams
    #: 2: a word split at a line break or spelt with a hyphen at either end of a quote, and footnote markers
    #: in the page, no longer fail a real quote; a number word is never a spelling slip ("millions" /
    #: "billions").
    implementation_version: ClassVar[str] = "2"

    def __init__(self, params: BaseModel, context: Any = None) -> None:
        super().__init__(params, context)
        assert isinstance(self.params, SourceExistenceParams)
        self.p: SourceExistenceParams = self.params
        self._matcher = _QuoteMatcher(self.p)
        self._online: OnlineResolver | None = None
        if self.p.resolve == "online":
            from graderctl.kinds._online import OnlineResolver, OnlineSettings

            cache = self.context.cache_dir
            self._online = OnlineResolver(
                OnlineSettings(
                    doi_resolver=self.p.doi_resolver,
                    timeout=self.p.online_timeout,
                    per_host=self.p.online_per_host,
                    user_agent=self.p.online_user_agent,
                    max_bytes=self.p.online_max_bytes,
                ),
                cache / "online-pages" if cache is not None else None,
            )
            # waiting on the network: threads, not forked processes (which would each fetch and cache alone)
            self.parallelism = "threads"
            if self.context.corpus is None:  # every source is then looked up online
                self.context.corpus = Corpus([])

    def close(self) -> None:
        if self._online is not None:
            self._online.close()

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        corpus = self.context.corpus
        if self._online is not None and corpus is not None:
            self._online.prefetch(self._unresolved(inputs, corpus))
        indexes = _doc_indexes(corpus) if corpus is not None else ({}, {})
        verdicts: list[Verdict] = []
        for item in inputs:
            try:
                verdicts.append(self._grade(item, corpus, indexes))
            except Exception as exc:  # one bad input must not sink the batch
                verdicts.append(Verdict.failed(f"{type(exc).__name__}: {exc}"))
        return verdicts

    def prepare(self) -> None:
        """Build the corpus indexes now instead of on first use: every document's text in comparison form
        and the title/URL index behind the hints for unresolved identifiers. Optional (a long run or a
        benchmark may want the one-off cost up front); the indexes live with the corpus."""
        corpus = self.context.corpus
        if corpus is None:
            return
        texts = _doc_indexes(corpus)[0]
        for doc in corpus.documents:
            if doc.id not in texts:
                texts[doc.id] = _DocIndex.texts(doc.text)
        _title_index(corpus)

    # -- one citation --

    def _grade(
        self,
        item: SampleInput,
        corpus: Corpus | None,
        indexes: tuple[dict[str, _DocTexts], dict[str, _LooseIndex]],
    ) -> Verdict:
        if not isinstance(item, SourceExistenceInput):
            return Verdict.failed(f"expected a source_existence input, got {type(item).__name__}")
        if corpus is None:
            return Verdict.failed(
                "no corpus to resolve citations against; give the set a corpus.jsonl (or --corpus)"
            )
        cit = item.citation
        res = self._resolve(cit, corpus)
        online: list[Any] = []
        if self._online is not None and (res.doc is None or res.problems):
            res, online, error = self._resolve_online(cit, corpus, res)
            if error is not None:
                return Verdict.failed(error, details={"online": [_online_detail(x) for x in online]})
        details: dict[str, Any] = {"resolved_by": res.how if res.doc else None}
        if online:
            details["online"] = [_online_detail(x) for x in online]
        if res.doc is None or res.problems:
            reason = "; ".join(res.problems)
            if res.closest:
                reason += f"; {res.closest}"
            details["document_id"] = res.doc.id if res.doc else None
            return Verdict.reject(reason, score=0.0, details=details)
        doc = res.doc
        details["document_id"] = doc.id
        where = f"{res.how} (document {doc.id!r}" + (f", title {doc.title!r})" if doc.title else ")")
        quote = cit.quote
        if not quote or quote.isspace():
            if self.p.require_quote:
                return Verdict.reject(f"{where}, but the citation has no quote", score=0.0, details=details)
            return Verdict.accept(f"{where}; no quote to check", score=1.0, details=details)
        if not self.p.check_quote:
            return Verdict.accept(
                f"{where}; quote not checked (check_quote = false)", score=1.0, details=details
            )
        all_texts, looses = indexes
        texts = all_texts.get(doc.id)
        if texts is None:
            texts = all_texts[doc.id] = _DocIndex.texts(doc.text)
        if texts[2]:
            return Verdict.failed(f"{where}, but the document has no text, so the quote cannot be checked")
        index = _DocIndex(texts, doc.id, looses)
        matches = self._matcher.match(quote, index)
        if not matches:
            return Verdict.reject(
                f"{where}; the quote holds no words to look for", score=0.0, details=details
            )
        verdict = self._quote_verdict(where, matches, index, details)
        if verdict.accepted is False and any(x.truncated for x in online):
            return Verdict.failed(
                f"{where}: the page is longer than online_max_bytes and the quote is not in the part read, "
                "so the quote cannot be checked",
                details=details,
            )
        return verdict

    def _quote_verdict(
        self, where: str, matches: list[_FragmentMatch], index: _DocIndex, details: dict[str, Any]
    ) -> Verdict:
        limit = self.p.passage_chars_shown
        display = index.display
        if len(matches) == 1 and matches[0].found:  # the common case, written out (same as below)
            m = matches[0]
            passage = display[m.start : m.end]
            similarity = round(m.similarity, 4)
            details["similarity"] = similarity
            details["fragments"] = [
                {
                    "fragment": m.fragment,
                    "found": True,
                    "how": m.how,
                    "similarity": similarity,
                    "passage": passage,
                    "start": m.start,
                }
            ]
            shown = passage if len(passage) <= limit else _shorten(passage, limit)
            found = f"quote found {_HOW_FOUND[m.how]}: “{shown}” at {m.start}"
            return Verdict(
                True,
                f"{where}; {found}; similarity {m.similarity:.2f}",
                score=m.similarity,
                details=details,
            )
        passages = [display[m.start : m.end] if m.start >= 0 else None for m in matches]
        score = min(m.similarity for m in matches)
        details["similarity"] = round(score, 4)
        details["fragments"] = [
            {
                "fragment": m.fragment,
                "found": m.found,
                "how": m.how,
                "similarity": round(m.similarity, 4),
                "passage": passage,
                "start": m.start if m.start >= 0 else None,
            }
            for m, passage in zip(matches, passages, strict=True)
        ]
        several = len(matches) > 1
        if all(m.found for m in matches):
            how = {m.how for m in matches}
            kind = _HOW_FOUND[
                "exact" if how == {"exact"} else "tokens" if how <= {"exact", "tokens"} else "fuzzy"
            ]
            parts = [
                f"“{_shorten(passage or '', limit)}” at {m.start}"
                for m, passage in zip(matches, passages, strict=True)
            ]
            frag_note = f" ({len(matches)} fragments, in order)" if several else ""
            return Verdict(
                True,
                f"{where}; quote found {kind}{frag_note}: " + " … ".join(parts) + f"; similarity {score:.2f}",
                score=score,
                details=details,
            )
        bad = [(i, m) for i, m in enumerate(matches) if not m.found]
        msgs = []
        for i, m in bad[:3]:
            label = f"fragment {i + 1} “{_shorten(m.fragment, 80)}”" if several else "the quote"
            if m.start >= 0:
                passage = _shorten(passages[i] or "", limit)
                msg = (
                    f"{label} is not in the document; "
                    f"closest passage (similarity {m.similarity:.2f}): “{passage}”"
                )
            else:
                msg = f"{label} is not in the document and no passage resembles it"
            if m.problems:
                msg += " — " + "; ".join(m.problems[:3])
            msgs.append(msg)
        if len(bad) > 3:
            msgs.append(f"and {len(bad) - 3} more fragment(s) not found")
        return Verdict.reject(f"{where}; " + "; ".join(msgs), score=score, details=details)

    # -- online resolution --

    @staticmethod
    def _in_corpus(kind: str, value: str, corpus: Corpus) -> CorpusDocument | None:
        if kind == "url":
            doc = corpus.by_url.get(normalize_url(value))
            if doc is None:
                embedded = find_doi(value)
                doc = corpus.by_doi.get(embedded) if embedded else None
            return doc
        key = normalize_doi(value)
        return corpus.by_doi.get(key) if key else None

    def _unresolved(self, inputs: Sequence[SampleInput], corpus: Corpus) -> list[tuple[str, str]]:
        """The URLs and DOIs of a batch's citations that the corpus does not have (to fetch at once)."""
        out: list[tuple[str, str]] = []
        for item in inputs:
            if not isinstance(item, SourceExistenceInput):
                continue
            for kind, value in (("url", item.citation.url), ("doi", item.citation.doi)):
                if value and self._in_corpus(kind, value, corpus) is None:
                    out.append((kind, value))
        return out

    def _resolve_online(
        self, cit: Any, corpus: Corpus, offline: _Resolution
    ) -> tuple[_Resolution, list[Any], str | None]:
        """Resolve the citation, looking up online the URLs and DOIs the corpus lacks: ``(resolution,
        lookups, error)``; ``error`` is set when a lookup failed and nothing else decides (never a
        verdict)."""
        assert self._online is not None
        found: list[tuple[str, str, CorpusDocument | None]] = []
        lookups = []
        missing: list[str] = []
        errors: list[str] = []
        if cit.source_id:
            found.append(("source_id", cit.source_id, corpus.get(cit.source_id)))
        for kind, value in (("url", cit.url), ("doi", cit.doi)):
            if not value:
                continue
            doc = self._in_corpus(kind, value, corpus)
            if doc is not None:
                found.append((kind, value, doc))
                continue
            lookup = self._online.lookup(kind, value)
            lookups.append(lookup)
            if lookup.outcome == "found":
                found.append((f"{kind} (online)", value, _online_document(lookup)))
            else:
                found.append((kind, value, None))
                (missing if lookup.outcome == "missing" else errors).append(lookup.describe())
        if not lookups:  # nothing the corpus lacks could be looked up (a source_id): as without online
            return offline, [], None
        if errors and not missing:
            return offline, lookups, "; ".join(errors) + ": whether the source exists is unknown"
        resolved = [(k, v, d) for k, v, d in found if d is not None]
        problems: list[str] = list(missing)
        unresolved = [(k, v) for k, v, d in found if d is None and k == "source_id"]
        if not resolved:
            if not problems:
                problems.append("no document in the corpus or online has the cited identifiers")
            return _Resolution(None, "nothing", problems, self._closest(cit, corpus, None)), lookups, None
        kind0, value0, doc0 = resolved[0]
        assert doc0 is not None
        how = f"resolved by {kind0} {value0!r}"
        if self.p.identifiers_must_agree:
            problems = [f"{how}, but {p}" for p in problems]
            for k, v in unresolved:
                problems.append(
                    f"{how}, but its {k} {v!r} resolves to no document: a fabricated or mangled {k}"
                )
            for k, v, d in resolved[1:]:
                assert d is not None
                if not _same_document(doc0, d):
                    problems.append(
                        f"{kind0} {value0!r} is {_doc_name(doc0)} but {k} {v!r} is {_doc_name(d)}: the "
                        "identifiers disagree"
                    )
        else:
            problems = []
        return _Resolution(doc0, how, problems), lookups, None

    # -- identifiers --

    def _resolve(self, cit: Any, corpus: Corpus) -> _Resolution:
        source_id, url, doi = cit.source_id, cit.url, cit.doi
        # the common case, one identifier that resolves: what the general path below concludes, sooner
        if source_id and not url and not doi:
            doc = corpus.get(source_id)
            if doc is not None:
                return _Resolution(doc, f"resolved by source_id {source_id!r}", [])
        elif url and not source_id and not doi:
            doc = corpus.by_url.get(normalize_url(url))  # Corpus.find_url, without its per-call import
            if doc is not None:
                return _Resolution(doc, f"resolved by url {url!r}", [])
        found: list[tuple[str, str, CorpusDocument | None]] = []  # (identifier kind, value, document)
        if cit.source_id:
            found.append(("source_id", cit.source_id, corpus.get(cit.source_id)))
        if cit.url:
            doc = corpus.by_url.get(normalize_url(cit.url))
            kind = "url"
            if doc is None:
                embedded = find_doi(cit.url)
                if embedded and embedded in corpus.by_doi:
                    doc, kind = corpus.by_doi[embedded], "url (the DOI it holds)"
            found.append((kind, cit.url, doc))
        if cit.doi:
            key = normalize_doi(cit.doi)
            found.append(("doi", cit.doi, corpus.by_doi.get(key) if key else None))
        resolved = [(k, v, d) for k, v, d in found if d is not None]
        unresolved = [(k, v) for k, v, d in found if d is None]
        problems: list[str] = []
        if not resolved:
            kinds = " or ".join(f"{k} {v!r}" for k, v in unresolved)
            problems.append(f"no document in the corpus has {kinds}: a fabricated or mangled source")
            return _Resolution(None, "nothing", problems, self._closest(cit, corpus, None))
        kind0, value0, doc0 = resolved[0]
        assert doc0 is not None
        how = f"resolved by {kind0} {value0!r}"
        if self.p.identifiers_must_agree:
            for k, v in unresolved:
                problems.append(
                    f"{how}, but its {k} {v!r} resolves to no document: "
                    f"a fabricated or mangled {k.split()[0]}"
                )
            for k, v, d in resolved[1:]:
                assert d is not None
                if d.id != doc0.id:
                    problems.append(
                        f"{kind0} {value0!r} is document {doc0.id!r} but {k} {v!r} is document {d.id!r}: "
                        "the identifiers disagree"
                    )
        closest = self._closest(cit, corpus, doc0) if unresolved and problems else None
        return _Resolution(doc0, how, problems, closest)

    def _closest(self, cit: Any, corpus: Corpus, resolved: CorpusDocument | None) -> str | None:
        """A hint naming the document the citation probably meant (by title, else by URL)."""
        if not corpus.documents:
            return None
        titles = _title_index(corpus)
        hints = []
        if cit.title:
            hit = titles.closest_by_title(cit.title, min_similarity=0.5)
            if hit is not None and hit[1] >= 0.5:
                doc = corpus.documents[hit[0]]
                hints.append(
                    f"closest document by title: {doc.title!r} (id {doc.id!r}"
                    + (f", url {doc.url}" if doc.url else "")
                    + f", title similarity {hit[1]:.2f})"
                )
        if cit.url and not hints:
            hit = titles.closest_by_url(cit.url, min_similarity=0.6)
            if hit is not None and hit[1] >= 0.6:
                doc = corpus.documents[hit[0]]
                hints.append(
                    f"closest document by URL: {doc.url} (id {doc.id!r}"
                    + (f", title {doc.title!r}" if doc.title else "")
                    + f", URL similarity {hit[1]:.2f})"
                )
        if not hints and cit.title:
            hints.append(f"no document has a title like {cit.title!r}")
        return "; ".join(hints) or None


def _online_document(lookup: Any) -> CorpusDocument:
    """A page fetched online as a corpus document (its id names the address it was found at)."""
    url = lookup.final_url or lookup.requested
    return CorpusDocument(
        id=f"online:{url}",
        url=url,
        doi=normalize_doi(lookup.value) if lookup.kind == "doi" else find_doi(url),
        title=lookup.title,
        text=lookup.text,
    )


def _online_detail(lookup: Any) -> dict[str, Any]:
    return {
        "identifier": lookup.kind,
        "value": lookup.value,
        "outcome": lookup.outcome,
        "requested": lookup.requested,
        "final_url": lookup.final_url,
        "status": lookup.status,
        "detail": lookup.detail,
        "cached": lookup.cached,
    }


def _same_document(a: CorpusDocument, b: CorpusDocument) -> bool:
    """Whether two documents (from the corpus or fetched online) are one source: the same id, URL or DOI."""
    if a.id == b.id:
        return True
    if a.url and b.url and normalize_url(a.url) == normalize_url(b.url):
        return True
    da = normalize_doi(a.doi) if a.doi else None
    db = normalize_doi(b.doi) if b.doi else None
    return bool(da and da == db)


def _doc_name(doc: CorpusDocument) -> str:
    if doc.id.startswith("online:"):
        return f"the page at {doc.url}"
    return f"document {doc.id!r}"
