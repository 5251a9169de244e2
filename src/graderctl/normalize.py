"""Normalisation of identifiers and text shared by the corpus index and the built-in kinds. Pure functions."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from typing import TypeVar
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

#: Query parameters that only track where a click came from; they never change the page.
_TRACKING_PARAMS = re.compile(
    r"^(utm_[a-z_]+|fbclid|gclid|gclsrc|dclid|msclkid|yclid|twclid|ttclid|li_fat_id|igshid|mc_cid|mc_eid"
    r"|_ga|_gl|_hsenc|_hsmi|mkt_tok|ref_src|ref_url|oly_anon_id|oly_enc_id|vero_id|wt\.mc_id|cmpid"
    r"|s_cid|icid|ncid|sr_share|spm|share_id|__twitter_impression)$",
    re.I,
)
_DEFAULT_PORTS = frozenset({80, 443})
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sid)=[^/?#]*", re.I)
_DOI_PREFIX = re.compile(
    r"^\s*(?:doi\s*:\s*|info:doi/|urn:doi:|(?:https?://)?(?:www\.)?(?:dx\.)?doi\.org/)", re.I
)
_DOI_ANYWHERE = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>]+)", re.I)
_DOI_START = re.compile(r"10\.\d+/\S")
_DOI_URL_END = re.compile(r"[?#&]")
_SLASH_RUN = re.compile(r"/{2,}")
#: A URL none of whose parts needs the general treatment (http(s) or no scheme, a plain ASCII host, a path
#: of characters that percent-encoding leaves alone, no port, query or fragment): the common case, keyed
#: without urllib. (Possessive quantifiers: no part can end where it would let the next one match, so giving
#: characters back never makes a match; they only spare the engine the attempts.)
_SIMPLE_URL = re.compile(
    r"(?:https?://|//)?+([A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)*+\.?+)(/[A-Za-z0-9._~/-]*+)?+"
)
#: The same with a query of plain ``key=value`` pairs (and any fragment): keyed without urllib too.
_SIMPLE_QUERY_URL = re.compile(
    r"(?:https?://|//)?+([A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)*+\.?+)(/[A-Za-z0-9._~/-]*+)?+\?([A-Za-z0-9._~=&-]*+)"
    r"(?:#.*)?",
    re.DOTALL,
)
_INDEX_PAGES = ("/index.html", "/index.htm", "/index.php", "/default.aspx")
#: Characters a URL or DOI picks up from the prose around it.
_TRAILING_PROSE = ".,;:!?"


def _strip_prose(text: str) -> str:
    text = text.strip().strip("<>\"'")
    while text and text[-1] in _TRAILING_PROSE:
        text = text[:-1]
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1]
    return text


#: :func:`_host_key` and :func:`_is_tracking` by their argument: a few hosts and query keys recur across
#: thousands of URLs (the memo is emptied when it grows past ``_MEMO_LIMIT`` entries)
_HOST_KEYS: dict[str, str] = {}
_TRACKING: dict[str, bool] = {}
_MEMO_LIMIT = 4096


_V = TypeVar("_V")


def _kept(memo: dict[str, _V], limit: int, key: str, value: _V) -> _V:
    """``value`` kept in ``memo`` under ``key``; the memo is emptied first when it holds ``limit`` entries
    (every memo of this module is small on purpose: a table that stays in the CPU's cache). Called on a miss
    only: a hit is a plain ``dict.get`` where the memo is read."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


def _host_key(host: str) -> str:
    key = _HOST_KEYS.get(host)
    if key is None:
        key = _kept(_HOST_KEYS, _MEMO_LIMIT, host, _host_key_of(host))
    return key


def _is_tracking(key: str) -> bool:
    """Whether a query parameter named ``key`` only tracks where a click came from."""
    tracking = _TRACKING.get(key)
    if tracking is None:
        tracking = _kept(_TRACKING, _MEMO_LIMIT, key, _TRACKING_PARAMS.match(key) is not None)
    return tracking


def _host_key_of(host: str) -> str:
    host = host.lower().rstrip(".")
    if not host.isascii():
        with contextlib.suppress(UnicodeError):
            host = host.encode("idna").decode("ascii")
    if host.startswith("www."):
        host = host[4:]
    return host


#: :func:`normalize_url` by the URL as given: the trials of a task, which cite the same pages, are mostly next
#: to each other in a trials file, and the parser and the unit builder key the same URLs of a report. Small
#: (emptied when it grows past ``_URL_MEMO_LIMIT`` entries) on purpose: a table that stays in the CPU's cache;
#: a large one (65,536) cost more in lookups than it saved when most URLs are new (``units`` on the 10,000
#: benchmark reports: ~9 us a report, against ~1 us for this one). A plain dict: cheaper than ``lru_cache``.
_URL_KEYS: dict[str, str] = {}
_URL_MEMO_LIMIT = 1024
#: What a plain query (``a=1&utm_source=x``) adds to a URL's key (``?a=1``, or ``""``), by the query: a few
#: queries (tracking parameters) recur across thousands of URLs (bounded like the other memos)
_QUERY_KEYS: dict[str, str] = {}


def normalize_url(url: str) -> str:
    """A key under which variants of one page's URL compare equal.

    Ignores the scheme (http/https), host case, a leading ``www.``, internationalised host spelling (Unicode
    or punycode), default ports, a trailing slash or ``index.html``, the fragment, session ids in the path,
    tracking parameters (``utm_*``, ``fbclid``, ``gclid``, ...), query-parameter order, percent-encoding
    differences, and punctuation the URL picked up from surrounding prose (a trailing ``.`` or ``,``)."""
    key = _URL_KEYS.get(url)
    if key is None:
        key = _kept(_URL_KEYS, _URL_MEMO_LIMIT, url, _url_key(url))
    return key


def _url_key(url: str) -> str:
    """:func:`normalize_url`, not memoised."""
    if url.isascii() and url[:1] in _KEPT_ENDS and url[-1:] in _KEPT_ENDS:
        # NFKC leaves ASCII as it is, and _strip_prose takes nothing off such ends
        text = url
    else:
        text = _strip_prose(unicodedata.normalize("NFKC", url))
    # _SIMPLE_URL cannot match a text with "?", _SIMPLE_QUERY_URL only one with it (trying the one that cannot
    # match costs more than the rest of the key); _SLASH_RUN only changes a path with "//"
    if "?" not in text:
        simple = _SIMPLE_URL.fullmatch(text)
        if simple is None:
            return _normalize_url_general(text)
        host, path = simple.groups()
        query = None
    else:
        simple = _SIMPLE_QUERY_URL.fullmatch(text)
        if simple is None:
            return _normalize_url_general(text)
        host, path, query = simple.groups()
    # the same steps as _normalize_url_general, those that can change such a URL
    host = _host_key(host)
    if path:
        path = (_SLASH_RUN.sub("/", path) if "//" in path else path).rstrip("/")
        # every index page ends in l, m, p or x: the lower-cased copy only for a path that may be one
        if path[-1:] in _INDEX_LAST and path.lower().endswith(_INDEX_PAGES):
            path = path.rsplit("/", 1)[0]
    else:
        path = ""
    if not query:  # none, or "?" alone (urlencode of no pairs is "")
        return "//" + host + path
    return "//" + host + path + _query_key(query)


_INDEX_LAST = frozenset("lmpxLMPX")
#: Characters _strip_prose never takes off either end of a text.
_KEPT_ENDS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-_~=&")


def _query_key(query: str) -> str:
    """What a plain query (``_SIMPLE_QUERY_URL``'s third group) adds to a URL's key: what parse_qsl, the
    tracking filter, sort and urlencode give for it (``""`` when it holds only tracking parameters)."""
    key = _QUERY_KEYS.get(query)
    if key is None:
        items = []
        for piece in query.split("&"):
            if piece:
                name, _, value = piece.partition("=")
                if not _is_tracking(name):
                    items.append((name, value))
        if not items:  # only tracking parameters (or none)
            key = ""
        else:
            items.sort()
            key = "?" + "&".join(f"{k}={v.replace('=', '%3D')}" for k, v in items)
        _kept(_QUERY_KEYS, _MEMO_LIMIT, query, key)
    return key


def _normalize_url_general(text: str) -> str:
    """:func:`normalize_url` of a prose-stripped, NFKC-normalised URL, through urllib."""
    if text.startswith("//"):
        text = "http:" + text
    elif "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        host = _host_key_of(parts.hostname or "")
    except ValueError:
        # a bracketed host urllib refuses ("http://[^1]", "https://[::1"): keyed as written, without its
        # scheme (it names no page another spelling could name; it must not stop a report being read)
        return text.split("://", 1)[1].rstrip("/")
    port = ""
    try:
        if parts.port is not None and parts.port not in _DEFAULT_PORTS:
            port = f":{parts.port}"
    except ValueError:
        port = ""
    path = _SESSION_PATH_PARAM.sub("", parts.path)
    path = quote(unquote(path), safe="/:@!$&'()*+,;=-._~")
    path = _SLASH_RUN.sub("/", path).rstrip("/")
    if path.lower().endswith(_INDEX_PAGES):
        path = path.rsplit("/", 1)[0]
    query_items = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING_PARAMS.match(k)
    ]
    query = urlencode(sorted(query_items))
    return urlunsplit(("", host + port, path, query, ""))


def normalize_doi(doi: str) -> str | None:
    """Lower-cased bare DOI (``10.xxxx/...``), or ``None`` when the text holds no DOI.

    Accepts ``doi:``/``DOI:`` prefixes, ``https://doi.org/`` and ``dx.doi.org`` links, ``info:doi/`` and
    ``urn:doi:`` forms, percent-encoding and trailing prose punctuation."""
    text = _strip_prose(_unescaped(doi))
    # _DOI_PREFIX is anchored at the start and never matches nothing: a substitution takes off at most its
    # match there (and _strip_prose strips the text first)
    prefix = _DOI_PREFIX.match(text)
    if prefix is not None:
        text = text[prefix.end() :]
    text = _strip_prose(text)
    if not _DOI_START.match(text):
        return None
    return text.lower()


def _doi_anywhere(text: str) -> re.Match[str] | None:
    """``_DOI_ANYWHERE.search(text)``, tried only where ``10.`` is written (every match starts so; a search
    tries every character, as the pattern opens with ``\\b``, which a match from a place still checks against
    the character before it)."""
    at = text.find("10.")
    while at != -1:
        m = _DOI_ANYWHERE.match(text, at)
        if m is not None:
            return m
        at = text.find("10.", at + 1)
    return None


def _unescaped(text: str) -> str:
    """``unquote(unicodedata.normalize("NFKC", text))``: NFKC leaves an ASCII text as it is, and unquote a
    text without ``%``."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return unquote(text) if "%" in text else text


def find_doi(text: str) -> str | None:
    """The first DOI written anywhere in ``text`` (a publisher URL such as
    ``https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0123456``), normalised; ``None`` if
    there is none."""
    if "10." not in text and "%" not in text and text.isascii():
        # every DOI starts "10."; only percent-escapes or NFKC (full-width digits) could spell one otherwise
        return None
    direct = normalize_doi(text)
    if direct:
        return direct
    m = _doi_anywhere(_unescaped(text))
    if m is None:
        return None
    found = m.group(1)
    # a DOI embedded in a URL ends where the URL's query or fragment starts
    found = _DOI_URL_END.split(found, maxsplit=1)[0]
    return normalize_doi(found)
