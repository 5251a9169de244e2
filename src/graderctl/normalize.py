"""Normalisation of identifiers and text shared by the corpus index and the built-in kinds. Pure functions."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

_TRACKING_PARAMS = re.compile(
    r"^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|ref_src|igshid)$", re.I
)
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_DOI_PREFIX = re.compile(r"^\s*(?:doi:\s*|https?://(?:dx\.)?doi\.org/|(?:dx\.)?doi\.org/)", re.I)


def normalize_url(url: str) -> str:
    """A key under which variants of one page's URL compare equal.

    Ignores the scheme (http/https), host case, a leading ``www.``, default ports, a trailing slash, the
    fragment, tracking parameters (``utm_*``, ``fbclid``, ...), query-parameter order and percent-encoding
    differences."""
    text = unicodedata.normalize("NFKC", url.strip())
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    host = (parts.hostname or "").lower().rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    port = ""
    try:
        if parts.port is not None and str(parts.port) not in _DEFAULT_PORTS.values():
            port = f":{parts.port}"
    except ValueError:
        port = ""
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~")
    path = re.sub(r"/{2,}", "/", path).rstrip("/")
    if path.lower().endswith(("/index.html", "/index.htm")):
        path = path.rsplit("/", 1)[0]
    query_items = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING_PARAMS.match(k)
    ]
    query = urlencode(sorted(query_items))
    return urlunsplit(("", host + port, path, query, ""))


def normalize_doi(doi: str) -> str | None:
    """Lower-cased bare DOI (``10.xxxx/...``), or ``None`` when the text holds no DOI."""
    text = unquote(unicodedata.normalize("NFKC", doi.strip()))
    text = _DOI_PREFIX.sub("", text).strip().rstrip(".")
    if not text.lower().startswith("10."):
        return None
    return text.lower()
