"""Online resolution of cited URLs and DOIs for ``source_existence`` (``resolve = "online"``; off by default).

A URL is fetched with a GET that follows redirects; a DOI through a resolver (``doi_resolver``, by default
``https://doi.org/``). The outcome of one lookup is one of:

- ``found``: a 2xx answer. The page (HTML turned into text) becomes a corpus document, so the quote check
  runs on it;
- ``missing``: 404 or 410 (or a URL that is not an http(s) address at all): the source does not exist;
- ``error``: anything else (a 5xx, 401/403/429 and other statuses, a timeout, a connection or DNS failure,
  too many redirects). An error is never a verdict: the citation is recorded as one the grader could not
  grade.

Politeness: a ``User-Agent`` that names graderctl, at most ``per_host`` requests at a time to one host, each
URL or DOI fetched once per run (lookups are shared between threads, a second asker waits for the first),
and an on-disk cache (one JSON file per lookup in ``cache_dir``, written atomically) so that a second run
makes no request at all. Only ``found`` and ``missing`` are cached: an error is tried again next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlsplit

import httpx

from graderctl.htmltext import html_to_text, looks_like_html
from graderctl.normalize import normalize_doi, normalize_url

Outcome = Literal["found", "missing", "error"]
_CACHE_VERSION = 1
#: Statuses that say the source does not exist.
MISSING_STATUSES = frozenset({404, 410})
_TEXT_TYPES = ("text/", "application/xhtml", "application/xml", "application/json")


@dataclass(frozen=True)
class Lookup:
    """What one online lookup found."""

    outcome: Outcome
    #: ``url`` or ``doi``, and the identifier as cited.
    kind: str
    value: str
    #: The address requested, and where the redirects ended.
    requested: str
    final_url: str | None = None
    status: int | None = None
    title: str | None = None
    text: str = ""
    #: Human-readable: ``HTTP 404``, ``timed out after 10 s``, ...
    detail: str = ""
    cached: bool = False
    #: The page was longer than ``max_bytes``: only its beginning was read.
    truncated: bool = False

    def describe(self) -> str:
        where = f"{self.kind} {self.value!r}"
        if self.outcome == "found":
            moved = (
                f" (redirected to {self.final_url})"
                if self.final_url and self.final_url != self.requested
                else ""
            )
            return f"{where} fetched online: {self.detail}{moved}"
        if self.outcome == "missing":
            return f"{where} does not exist online ({self.detail} from {self.requested})"
        return f"{where} could not be checked online ({self.detail} from {self.requested})"


@dataclass(frozen=True)
class OnlineSettings:
    doi_resolver: str = "https://doi.org/"
    timeout: float = 10.0
    per_host: int = 2
    user_agent: str = "graderctl (source-existence check of cited pages)"
    max_bytes: int = 5_000_000
    #: Lookups fetched at once by :meth:`OnlineResolver.prefetch` (within the per-host limit).
    workers: int = 8


class OnlineResolver:
    """Looks up URLs and DOIs online, at most once each (memory, then disk cache, then the network).
    Thread-safe."""

    def __init__(
        self,
        settings: OnlineSettings,
        cache_dir: Path | None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.cache_dir = cache_dir
        self._client = httpx.Client(
            follow_redirects=True,
            max_redirects=10,
            timeout=httpx.Timeout(settings.timeout),
            headers={"User-Agent": settings.user_agent, "Accept": "text/html, text/plain;q=0.9, */*;q=0.5"},
            transport=transport,
        )
        self._lock = threading.Lock()
        self._memo: dict[str, Lookup] = {}
        self._pending: dict[str, threading.Event] = {}
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        #: Requests sent (for reports and tests).
        self.requests = 0

    def close(self) -> None:
        self._client.close()

    # -- keys and addresses --

    def _key(self, kind: str, value: str) -> str:
        if kind == "doi":
            return "doi:" + (normalize_doi(value) or value.strip())
        return "url:" + normalize_url(value)

    def address(self, kind: str, value: str) -> str:
        if kind == "doi":
            doi = normalize_doi(value) or value.strip()
            return self.settings.doi_resolver.rstrip("/") + "/" + quote(doi, safe="/")
        return value.strip()

    # -- lookups --

    def lookup(self, kind: str, value: str) -> Lookup:
        key = self._key(kind, value)
        while True:
            with self._lock:
                done = self._memo.get(key)
                if done is not None:
                    return done
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    break
            waiting.wait()
        try:
            result = self._read_cache(key, kind, value)
            if result is None:
                result = self._fetch(kind, value)
                if result.outcome != "error":
                    self._write_cache(key, result)
        except BaseException:
            with self._lock:
                self._pending.pop(key).set()
            raise
        with self._lock:
            self._memo[key] = result
            self._pending.pop(key).set()
        return result

    def prefetch(self, items: Iterable[tuple[str, str]]) -> None:
        """Look up several identifiers at once (the per-host limit still applies)."""
        todo: dict[str, tuple[str, str]] = {}
        for kind, value in items:
            key = self._key(kind, value)
            with self._lock:
                if key in self._memo:
                    continue
            todo.setdefault(key, (kind, value))
        if len(todo) <= 1:
            for kind, value in todo.values():
                self.lookup(kind, value)
            return
        with ThreadPoolExecutor(max_workers=min(self.settings.workers, len(todo))) as pool:
            list(pool.map(lambda kv: self.lookup(*kv), todo.values()))

    def _host_limit(self, address: str) -> threading.BoundedSemaphore:
        host = (urlsplit(address).hostname or "").lower()
        with self._lock:
            sem = self._hosts.get(host)
            if sem is None:
                sem = self._hosts[host] = threading.BoundedSemaphore(self.settings.per_host)
            return sem

    def _fetch(self, kind: str, value: str) -> Lookup:
        address = self.address(kind, value)
        scheme = urlsplit(address).scheme.lower()
        if scheme not in ("http", "https") or not urlsplit(address).hostname:
            return Lookup("missing", kind, value, address, detail="not an http(s) address")
        with self._host_limit(address):
            with self._lock:
                self.requests += 1
            try:
                with self._client.stream("GET", address) as response:
                    status = response.status_code
                    final = str(response.url)
                    if 200 <= status < 300:
                        body = b""
                        kind_of = response.headers.get("content-type", "").lower()
                        if not kind_of or kind_of.startswith(_TEXT_TYPES):
                            chunks: list[bytes] = []
                            size = 0
                            for chunk in response.iter_bytes():
                                chunks.append(chunk)
                                size += len(chunk)
                                if size >= self.settings.max_bytes:
                                    break
                            body = b"".join(chunks)[: self.settings.max_bytes]
                        encoding = response.charset_encoding or "utf-8"
                        page = _page(kind, value, address, final, status, body, encoding, kind_of)
                        if len(body) >= self.settings.max_bytes:
                            page = replace(page, truncated=True, detail=page.detail + ", truncated")
                        return page
                    if status in MISSING_STATUSES:
                        return Lookup("missing", kind, value, address, final, status, detail=f"HTTP {status}")
                    return Lookup("error", kind, value, address, final, status, detail=f"HTTP {status}")
            except httpx.TimeoutException:
                detail = f"timed out after {self.settings.timeout:g} s"
            except httpx.TooManyRedirects:
                detail = "too many redirects"
            except httpx.ConnectError as exc:
                detail = f"could not connect (connection or DNS failure: {exc})"
            except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
                return Lookup("missing", kind, value, address, detail=f"not a valid address ({exc})")
            except httpx.HTTPError as exc:
                detail = f"{type(exc).__name__}: {exc}"
            return Lookup("error", kind, value, address, detail=detail)

    # -- the disk cache --

    def _cache_file(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.cache_dir / digest[:2] / f"{digest}.json"

    def _read_cache(self, key: str, kind: str, value: str) -> Lookup | None:
        path = self._cache_file(key)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or damaged: fetch again
        if (
            not isinstance(data, dict)
            or data.get("cache_version") != _CACHE_VERSION
            or data.get("key") != key
        ):
            return None
        try:
            return Lookup(
                outcome=data["outcome"],
                kind=kind,
                value=value,
                requested=str(data["requested"]),
                final_url=data.get("final_url"),
                status=data.get("status"),
                title=data.get("title"),
                text=str(data.get("text") or ""),
                detail=str(data.get("detail") or ""),
                cached=True,
                truncated=bool(data.get("truncated")),
            )
        except (KeyError, TypeError):
            return None

    def _write_cache(self, key: str, result: Lookup) -> None:
        path = self._cache_file(key)
        if path is None:
            return
        record = asdict(result)
        for name in ("kind", "value", "cached"):
            record.pop(name)
        record.update(cache_version=_CACHE_VERSION, key=key, fetched_at=datetime.now(UTC).isoformat())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".page-", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(record, fh, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass  # a cache that cannot be written costs a request next run, nothing more


def _page(
    kind: str,
    value: str,
    address: str,
    final: str,
    status: int,
    body: bytes,
    encoding: str,
    content_type: str,
) -> Lookup:
    try:
        text = body.decode(encoding, errors="replace")
    except LookupError:  # an unknown charset name
        text = body.decode("utf-8", errors="replace")
    title = None
    if "html" in content_type or looks_like_html(text):
        title, text = html_to_text(text)
    detail = f"HTTP {status}" + ("" if text.strip() else f", no text ({content_type or 'no content type'})")
    return Lookup("found", kind, value, address, final, status, title, text, detail)
