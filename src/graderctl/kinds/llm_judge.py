"""``llm_judge``: a model judges each sample through an OpenAI-compatible chat-completions endpoint.

Definition::

    kind = "llm_judge"
    check = "claim_support"
    [judge]
    model = "gpt-4o-mini"
    provider = "openai"
    [params]
    base_url = "http://127.0.0.1:8000/v1"   # the OpenAI-compatible endpoint
    api_key_env = "OPENAI_API_KEY"           # the NAME of the variable holding the key (omit: no key sent)
    prompt = "prompt.md"                     # template, relative to the definition; part of the fingerprint
    concurrency = 16                         # requests in flight at once (per grader)
    temperature = 0.0
    max_tokens = 512
    input_price_per_million = 0.15           # USD per million input tokens
    output_price_per_million = 0.60          # USD per million output tokens

The template is plain text with double-brace placeholders, so JSON examples in a prompt need no escaping:
``{{claim}}``, ``{{evidence}}`` (the evidence texts, joined by blank lines; ``source_id`` items resolved
through the set's corpus), ``{{quote}}``, ``{{citation}}``, ``{{question}}``, ``{{nuggets}}``, ``{{report}}``.
A placeholder that does not apply to the sample's check renders as an empty string; an unknown one is a
validation error.

The reply must hold a JSON verdict ``{"accept": true|false, "score": 0.0-1.0, "reason": "..."}``, possibly in
a Markdown code fence or surrounded by prose; a reply with no such object is an error for that sample
(never an accept or a reject). A judge may abstain: ``"accept": "unsure"`` (or ``"undecided"``,
``"abstain"``, ``"uncertain"``) gives an undecided verdict, counted apart by calibration (coverage).

Requests run ``concurrency`` at a time (across every batch the runner hands over, from any thread). 429, 5xx,
timeouts and connection errors are retried with exponential backoff and jitter (each wait is 50-100% of the
doubled delay), honouring ``Retry-After``, up to ``max_attempts`` attempts (``max_connect_attempts`` while
connections are refused) and ``max_retry_seconds`` per sample. When an endpoint cannot be reached at all
(every attempt refused), the kind stops calling it and every remaining sample fails at once with a message
naming the endpoint.

The API key is read from the environment once, sent only in the ``Authorization`` header, and scrubbed from
every message this module produces (reasons, errors) in case a server echoes it back, before any message is
cut short. A key holding anything but printable ASCII (a line break, a space, a control or non-ASCII
character) is refused when the grader starts, naming the variable and the position, never the key.

Faults never become verdicts: a reply that merely repeats the prompt or its example answer, and a JSON reply
(envelope or verdict) that names a key twice, are errors for the sample. ``timeout`` bounds each request as a
whole: a server that trickles bytes, each within a read timeout, still times out.

Usage counts requests as the server sees them: every attempt that reached it (a refused connection is not a
request), with ``retries`` saying how many of them repeated an earlier one.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import queue
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from graderctl.errors import GraderRunError
from graderctl.models.base import Check
from graderctl.models.calset import (
    ClaimSupportInput,
    CoverageInput,
    SampleInput,
    SourceExistenceInput,
)
from graderctl.plugin import Corpus, GraderKind, GradingContext, Usage, Verdict

if TYPE_CHECKING:
    import httpx

#: Placeholders a template may use, and what they hold.
PLACEHOLDERS: dict[str, str] = {
    "claim": "the claim (claim_support)",
    "evidence": "the evidence texts, joined by blank lines (claim_support; the cited document for "
    "source_existence)",
    "quote": "the quoted passage of the citation (source_existence)",
    "citation": "the citation's identifiers, title and quote (source_existence)",
    "question": "the research question (coverage)",
    "nuggets": "the nuggets, one per line with their importance (coverage)",
    "report": "the report text (coverage)",
}

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\r?\n?(.*?)```", re.S)
_RETRY_STATUS = frozenset({408, 409, 425, 429})
#: Keys of the reply's JSON object that carry the decision, in order of preference.
_VERDICT_KEYS = ("accept", "accepted", "verdict", "decision", "supported")
_MAX_EXCERPT = 200


def _price_aliases(side: str) -> list[str]:
    """Accepted spellings of a price per million tokens (the first is the documented one)."""
    return [
        f"{side}_price_per_million",
        f"price_per_million_{side}",
        f"price_{side}_per_million",
        f"{side}_price_per_million_tokens",
        f"price_per_million_{side}_tokens",
        f"{side}_cost_per_million",
        f"{side}_usd_per_million",
    ]


class LLMJudgeParams(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    base_url: str = Field(
        min_length=1, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1"
    )
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Name of the environment variable that holds the API key (never the key itself).",
    )
    prompt: str = Field(min_length=1, description="Prompt template, relative to the definition's folder.")
    system: str | None = Field(default=None, description="Optional system message (plain text).")
    concurrency: int = Field(default=8, ge=1, le=512)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=512, ge=1)
    seed: int | None = None
    input_price_per_million: float = Field(
        default=0.0,
        ge=0,
        validation_alias=AliasChoices(*_price_aliases("input")),
    )
    output_price_per_million: float = Field(
        default=0.0,
        ge=0,
        validation_alias=AliasChoices(*_price_aliases("output")),
    )
    #: Seconds one HTTP request may take as a whole (connect to last byte), however the bytes trickle in.
    timeout: float = Field(default=60.0, gt=0)
    #: Attempts per sample on 429, 5xx, timeouts and dropped connections.
    max_attempts: int = Field(default=8, ge=1, le=50)
    #: Attempts per sample while the endpoint refuses connections (a server that is down; fail sooner).
    max_connect_attempts: int = Field(default=4, ge=1, le=50)
    #: First backoff delay in seconds; doubles each retry, with full jitter, up to ``backoff_max``.
    backoff_initial: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=8.0, ge=0)
    #: Total time one sample may spend in retries (including waits for ``Retry-After``).
    max_retry_seconds: float = Field(default=120.0, gt=0)
    #: Extra fields merged into the request body (e.g. ``response_format``).
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(
                f"expected an http:// or https:// URL such as http://127.0.0.1:8000/v1, got {value!r}"
            )
        return value.rstrip("/")


# --- templates ----------------------------------------------------------------------------------------


def template_problems(text: str, shown: str) -> list[str]:
    """Messages for every unknown placeholder in a template (with its line)."""
    problems: list[str] = []
    allowed = ", ".join("{{" + p + "}}" for p in PLACEHOLDERS)
    for m in _PLACEHOLDER.finditer(text):
        name = m.group(1).strip()
        if name in PLACEHOLDERS:
            continue
        line = text.count("\n", 0, m.start()) + 1
        hint = (
            " (JSON in a prompt needs no escaping: write single braces)"
            if any(c in name for c in "\"':{},")
            else ""
        )
        problems.append(
            f"prompt template {shown}:{line}: unknown placeholder {m.group(0)!r}; allowed: {allowed}{hint}"
        )
    return problems


def render_template(text: str, values: dict[str, str]) -> str:
    """Substitute placeholders in one pass (a value holding ``{{...}}`` is never expanded again)."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1).strip()
        return values.get(name, "") if name in PLACEHOLDERS else m.group(0)

    return _PLACEHOLDER.sub(sub, text)


def _document_for(citation_like: Any, corpus: Corpus | None) -> Any:
    if corpus is None:
        return None
    if getattr(citation_like, "source_id", None):
        doc = corpus.get(citation_like.source_id)
        if doc is not None:
            return doc
    if getattr(citation_like, "doi", None):
        doc = corpus.find_doi(citation_like.doi)
        if doc is not None:
            return doc
    if getattr(citation_like, "url", None):
        return corpus.find_url(citation_like.url)
    return None


def template_values(inp: SampleInput, corpus: Corpus | None) -> dict[str, str]:
    """The text every placeholder stands for, for one sample input."""
    values = dict.fromkeys(PLACEHOLDERS, "")
    if isinstance(inp, ClaimSupportInput):
        values["claim"] = inp.claim
        texts: list[str] = []
        for ev in inp.evidence:
            if ev.text is not None:
                texts.append(ev.text)
            else:
                doc = corpus.get(ev.source_id) if (corpus is not None and ev.source_id) else None
                texts.append(doc.text if doc is not None else f"(source {ev.source_id} is not in the corpus)")
        values["evidence"] = "\n\n".join(texts)
    elif isinstance(inp, SourceExistenceInput):
        c = inp.citation
        lines = [
            f"{field}: {value}"
            for field, value in (
                ("source_id", c.source_id),
                ("url", c.url),
                ("doi", c.doi),
                ("title", c.title),
                ("quote", c.quote),
            )
            if value
        ]
        values["citation"] = "\n".join(lines)
        values["quote"] = c.quote or ""
        doc = _document_for(c, corpus)
        if doc is not None:
            head = "\n".join(
                f"{k}: {v}"
                for k, v in (("id", doc.id), ("url", doc.url), ("doi", doc.doi), ("title", doc.title))
                if v
            )
            values["evidence"] = f"{head}\n\n{doc.text}" if doc.text else head
    elif isinstance(inp, CoverageInput):
        values["question"] = inp.question
        values["nuggets"] = "\n".join(f"- [{n.importance}] {n.text}" for n in inp.nuggets)
        values["report"] = inp.report
    return values


# --- replies ------------------------------------------------------------------------------------------


class ReplyError(ValueError):
    """A judge's reply holds no usable verdict."""


class _DuplicateKeyError(Exception):
    """A JSON object names one key twice (deliberately not a ValueError, so no parser fallback hides it)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads`: a key twice is an error, never last-one-wins."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _json_objects(text: str) -> list[Any]:
    """Every JSON object written in ``text`` (e.g. the example answer of a prompt)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        start = text.find("{", end)
    return found


def echo_problem(reply: str, prompt: str, examples: list[Any] | None = None) -> str | None:
    """Why ``reply`` is no verdict but the prompt (or a part of it, such as its example answer) repeated,
    or ``None``. A judge that echoes its input has not judged anything: its "verdict" would be whatever the
    prompt's example says. ``examples``: the JSON objects the prompt's template holds (default: those found
    in ``prompt``)."""
    said, asked = _squeeze(reply), _squeeze(prompt)
    if not said:
        return None
    if said == asked:
        return "the reply repeats the prompt"
    objects = examples
    if objects is None:
        try:
            objects = _json_objects(prompt)
        except RecursionError:
            objects = []
    if objects:
        for candidate in [m.group(1) for m in _FENCE.finditer(reply)] + [reply.strip()]:
            try:
                value = json.loads(candidate.strip())
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict) and value in objects:
                return "the reply repeats the prompt's example answer"
        first, last = reply.find("{"), reply.rfind("}")
        if 0 <= first < last:
            try:
                value = json.loads(reply[first : last + 1])
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict) and value in objects:
                return "the reply repeats the prompt's example answer"
    if len(said) >= 40 and said in asked:
        return "the reply repeats a part of the prompt"
    return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"true", "yes", "accept", "accepted", "supported", "pass"}:
            return True
        if text in {"false", "no", "reject", "rejected", "unsupported", "fail"}:
            return False
    return None


#: Replies of a judge that abstains (an undecided verdict, neither accept nor reject nor error).
_UNSURE = frozenset({"unsure", "undecided", "abstain", "uncertain"})


def parse_verdict(text: str) -> tuple[bool | None, float | None, str]:
    """``(accept, score, reason)`` from a judge's reply: a JSON object, maybe fenced or wrapped in prose.
    ``accept`` is ``None`` when the judge says it is unsure."""
    candidates: list[str] = [m.group(1) for m in _FENCE.finditer(text)]
    stripped = text.strip()
    candidates.append(stripped)
    first, last = stripped.find("{"), stripped.rfind("}")
    if 0 <= first < last:
        candidates.append(stripped[first : last + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate.strip(), object_pairs_hook=_unique_keys)
        except _DuplicateKeyError as exc:
            raise ReplyError(f"the reply's JSON has the key {exc.key!r} more than once") from None
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        raw = next((data[k] for k in _VERDICT_KEYS if k in data), None)
        accept = _as_bool(raw)
        unsure = isinstance(raw, str) and raw.strip().lower() in _UNSURE
        if accept is None and not unsure:
            raise ReplyError(f'the reply\'s "accept" is {raw!r}, expected true, false or "unsure"')
        score_raw = data.get("score")
        score: float | None = None
        if isinstance(score_raw, int | float) and not isinstance(score_raw, bool):
            score = float(score_raw)
        elif isinstance(score_raw, str):
            try:
                score = float(score_raw.strip())
            except ValueError:
                score = None
        if score is not None and not math.isfinite(score):
            score = None
        reason = data.get("reason", "")
        return accept, score, reason if isinstance(reason, str) else json.dumps(reason)
    raise ReplyError('the reply holds no JSON object with "accept"')


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be an API key (it would break or inject into the ``Authorization`` header, and a
    library's message about it could show the key), or ``None``. The key itself is never in the message."""
    for index, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        if char in "\r\n":
            what = "a line break"
        elif char.isspace():
            what = "a space or tab"
        elif ord(char) < 32 or ord(char) == 127:
            what = f"a control character (U+{ord(char):04X})"
        else:
            what = f"a non-ASCII character (U+{ord(char):04X})"
        return f"holds {what} at character {index} of {len(key)}"
    return None


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_EXCERPT else text[: _MAX_EXCERPT - 1] + "…"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class _Unreachable(Exception):
    def __init__(self, message: str, sent: int = 0) -> None:
        super().__init__(message)
        self.sent = sent


class _CallFailed(Exception):
    def __init__(self, message: str, sent: int) -> None:
        super().__init__(message)
        self.sent = sent


def _request_usage(sent: int) -> Usage:
    """Requests as the server saw them (attempts that reached it), and how many of those were retries."""
    return Usage(requests=sent, retries=max(0, sent - 1))


class _DeadlineStream:
    """A network stream whose every read, write and TLS handshake waits at most until the deadline of the
    request running in this thread, so ``timeout`` bounds the whole request: a server trickling bytes, each
    within a per-read timeout, still hits it."""

    def __init__(self, inner: Any, deadline: Callable[[float | None, str], float | None]) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return bytes(self._inner.read(max_bytes, self._deadline(timeout, "read")))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline(timeout, "write"))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> Any:
        stream = self._inner.start_tls(ssl_context, server_hostname, self._deadline(timeout, "connect"))
        return _DeadlineStream(stream, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """Wraps httpcore's network backend so that every stream it opens is a :class:`_DeadlineStream`."""

    def __init__(self, inner: Any, deadline: Callable[[float | None, str], float | None]) -> None:
        self._inner = inner
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        stream = self._inner.connect_tcp(
            host, port, self._deadline(timeout, "connect"), local_address, socket_options
        )
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        stream = self._inner.connect_unix_socket(path, self._deadline(timeout, "connect"), socket_options)
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


# --- the kind -----------------------------------------------------------------------------------------


class LLMJudgeGrader(GraderKind):
    name = "llm_judge"
    checks = frozenset({Check.source_existence, Check.claim_support, Check.coverage})
    model_based = True
    cacheable = True
    implementation_version = "1"

    class Params(LLMJudgeParams):
        pass

    def __init__(self, params: BaseModel, context: GradingContext | None = None) -> None:
        super().__init__(params, context)
        assert isinstance(params, LLMJudgeParams)
        self.p: LLMJudgeParams = params
        judge = self.context.judge
        if judge is None:
            raise GraderRunError(
                "an llm_judge grader needs a [judge] block naming the model; "
                'add [judge] model = "..." provider = "..." to the definition'
            )
        self.model = judge.model
        self.endpoint = self.p.base_url
        self.url = f"{self.endpoint}/chat/completions"
        self.__key: str | None = None
        if self.p.api_key_env:
            key = os.environ.get(self.p.api_key_env, "")
            if not key.strip():
                raise GraderRunError(
                    f"no API key for the judge endpoint {self.endpoint}: set the environment variable "
                    f"{self.p.api_key_env} to your API key (the definition's api_key_env names it)"
                )
            problem = key_problem(key)
            if problem is not None:
                raise GraderRunError(
                    f"the API key in the environment variable {self.p.api_key_env} {problem}; an API key is "
                    "printable ASCII without spaces: set the variable to the key alone (e.g. "
                    f"export {self.p.api_key_env}=\"$(tr -d '\\n' < keyfile)\")"
                )
            self.__key = key
        base = self.context.base_dir or Path.cwd()
        prompt_path = (base / self.p.prompt).resolve()
        try:
            self.template = prompt_path.read_text(encoding="utf-8").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise GraderRunError(f"cannot read the prompt template {prompt_path}: {exc}") from None
        try:  # the example answers the template shows (a reply repeating one has judged nothing)
            self._examples = _json_objects(self.template + "\n" + (self.p.system or ""))
        except RecursionError:
            self._examples = []
        self._slots = threading.BoundedSemaphore(self.p.concurrency)
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()
        self._closed = threading.Event()
        self._down: str | None = None
        self._rng = random.Random()
        self._rng_lock = threading.Lock()
        #: ``value``: the monotonic deadline of the request this thread is sending (see _clamp).
        self._deadline = threading.local()

    def __repr__(self) -> str:
        return f"LLMJudgeGrader(model={self.model!r}, base_url={self.endpoint!r})"

    # -- definition-time hooks --

    @classmethod
    def referenced_files(cls, params: BaseModel) -> list[str]:
        assert isinstance(params, LLMJudgeParams)
        return [params.prompt]

    @classmethod
    def validate_definition(cls, params: BaseModel, base_dir: Path) -> list[str]:
        assert isinstance(params, LLMJudgeParams)
        path = base_dir / params.prompt
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []  # the loader reports an unreadable referenced file itself
        problems = template_problems(text, params.prompt)
        if not _PLACEHOLDER.search(text):
            problems.append(
                f"prompt template {params.prompt} has no placeholder, so the judge would never see the "
                "sample; use e.g. {{claim}} and {{evidence}}"
            )
        return problems

    # -- grading --

    def messages(self, inp: SampleInput) -> list[dict[str, str]]:
        prompt = render_template(self.template, template_values(inp, self.context.corpus))
        out: list[dict[str, str]] = []
        if self.p.system:
            out.append({"role": "system", "content": self.p.system})
        out.append({"role": "user", "content": prompt})
        return out

    def cache_payload(self, inp: SampleInput) -> Any:
        return {"messages": self.messages(inp)}

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        n = len(inputs)
        if n == 0:
            return []
        results: list[Verdict | None] = [None] * n
        todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for i in range(n):
            todo.put(i)

        def worker() -> None:
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[i] = self._grade_one(inputs[i])
                except Exception as exc:  # a bug here must not lose the sample: record it
                    results[i] = Verdict.failed(self._redact(f"{type(exc).__name__}: {exc}"))

        threads = [
            threading.Thread(target=worker, name=f"graderctl-llm-{k}", daemon=True)
            for k in range(min(n, self.p.concurrency))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [v if v is not None else Verdict.failed("no verdict was produced") for v in results]

    def _grade_one(self, inp: SampleInput) -> Verdict:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self.messages(inp),
            "temperature": self.p.temperature,
            "max_tokens": self.p.max_tokens,
        }
        if self.p.seed is not None:
            body["seed"] = self.p.seed
        body.update(self.p.extra_body)
        try:
            reply, sent = self._post(body)
        except (_Unreachable, _CallFailed) as exc:
            return Verdict.failed(self._redact(str(exc)), usage=_request_usage(exc.sent))
        usage = self._usage(reply, sent)
        try:
            content = _content_of(reply)
        except ReplyError as exc:
            return Verdict.failed(self._redact(f"malformed reply from {self.url}: {exc}"), usage=usage)
        try:
            accept, score, reason = parse_verdict(content)
        except ReplyError as exc:
            return Verdict.failed(
                f"unparseable judge reply ({self._redact(str(exc))}): {_excerpt(self._redact(content))!r}",
                usage=usage,
            )
        prompt = "\n".join(m["content"] for m in body["messages"] if isinstance(m, dict) and "content" in m)
        echo = echo_problem(content, prompt, self._examples)
        if echo is not None:
            return Verdict.failed(
                f"no verdict: {echo} instead of judging the sample ({_excerpt(self._redact(content))!r}); "
                "check the model name and the prompt template",
                usage=usage,
            )
        reason = self._redact(reason)
        if accept is None:
            return Verdict.undecided(reason or "the judge is unsure", score, usage=usage)
        if accept:
            return Verdict.accept(reason, score, usage=usage)
        return Verdict.reject(reason, score, usage=usage)

    def _usage(self, reply: dict[str, Any], sent: int) -> Usage:
        raw = reply.get("usage")
        tokens_in = tokens_out = 0
        if isinstance(raw, dict):
            tokens_in = _int(raw.get("prompt_tokens", raw.get("input_tokens")))
            tokens_out = _int(raw.get("completion_tokens", raw.get("output_tokens")))
        usd = (
            tokens_in / 1e6 * self.p.input_price_per_million
            + tokens_out / 1e6 * self.p.output_price_per_million
        )
        return Usage(
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            usd=usd,
            requests=sent,
            retries=max(0, sent - 1),
        )

    # -- HTTP --

    def _http(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                import httpx

                limits = httpx.Limits(
                    max_connections=self.p.concurrency, max_keepalive_connections=self.p.concurrency
                )
                # TCP_NODELAY: a request goes out as headers then body; with Nagle's algorithm the body
                # waits for the server's (delayed) ACK of the headers, adding up to 40 ms per request.
                transport = httpx.HTTPTransport(
                    limits=limits, socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
                )
                # Every read and write waits at most until the running request's deadline (see _post).
                # httpx has no public hook for the network backend: set it on its connection pool.
                pool = getattr(transport, "_pool", None)
                backend = getattr(pool, "_network_backend", None)
                if pool is not None and backend is not None:
                    pool._network_backend = _DeadlineBackend(backend, self._clamp)
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.p.timeout, connect=min(self.p.timeout, 10.0)),
                    transport=transport,
                    follow_redirects=False,
                )
            return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.__key:
            headers["Authorization"] = f"Bearer {self.__key}"
        return headers

    def _redact(self, text: str) -> str:
        """``text`` without the API key, in any of the spellings a message may carry it (as is, JSON- or
        repr-escaped). Applied before anything is cut short, so no fragment of the key survives."""
        key = self.__key
        if key and len(key) >= 4:
            for form in {key, json.dumps(key)[1:-1], repr(key)[1:-1]}:
                text = text.replace(form, "[redacted]")
        return text

    def _clamp(self, timeout: float | None, operation: str) -> float | None:
        """The timeout of one network operation: at most what is left of this thread's request deadline."""
        deadline: float | None = getattr(self._deadline, "value", None)
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            import httpcore

            error = {"connect": httpcore.ConnectTimeout, "write": httpcore.WriteTimeout}.get(
                operation, httpcore.ReadTimeout
            )
            raise error(f"the request took longer than {self.p.timeout:g} s")
        return left if timeout is None else min(timeout, left)

    def _backoff(self, attempt: int) -> float:
        cap = min(self.p.backoff_max, self.p.backoff_initial * (2 ** (attempt - 1)))
        with self._rng_lock:
            jitter: float = self._rng.random()
        return float(cap) * (0.5 + 0.5 * jitter)

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._closed.wait(seconds)

    def _post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """POST with retries; the parsed JSON reply and the number of requests the server saw (attempts that
        reached it: a refused connection is not one). ``timeout`` bounds each attempt as a whole."""
        import httpx

        started = time.monotonic()
        attempt = 0
        sent = 0
        while True:
            if self._down is not None:
                raise _Unreachable(self._down, sent)
            if self._closed.is_set():
                raise _CallFailed("the grader was closed", sent)
            attempt += 1
            retry_after: float | None = None
            connect_failure = False
            with self._slots:
                self._deadline.value = time.monotonic() + self.p.timeout
                try:
                    resp = self._http().post(self.url, json=body, headers=self._headers())
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    problem = f"cannot connect ({_describe(exc)})"
                    connect_failure = True
                except httpx.PoolTimeout as exc:
                    problem = f"no free connection ({_describe(exc)})"
                except httpx.TimeoutException as exc:
                    sent += 1
                    problem = f"timed out after {self.p.timeout:g} s ({type(exc).__name__})"
                except httpx.TransportError as exc:
                    sent += 1
                    problem = f"connection error ({_describe(exc)})"
                else:
                    sent += 1
                    status = resp.status_code
                    if 200 <= status < 300:
                        return self._json_reply(resp, sent), sent
                    problem = f"HTTP {status}: {_excerpt(self._redact(resp.text))}"
                    if status not in _RETRY_STATUS and status < 500:
                        raise _CallFailed(
                            f"the judge endpoint {self.url} refused the request with {problem}; "
                            + _fix_for(status, self.p.api_key_env),
                            sent,
                        )
                    retry_after = _retry_after(resp.headers.get("retry-after"))
                finally:
                    self._deadline.value = None
            elapsed = time.monotonic() - started
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            limit = self.p.max_connect_attempts if connect_failure else self.p.max_attempts
            if attempt >= limit or elapsed + delay > self.p.max_retry_seconds:
                if connect_failure:
                    message = (
                        f"cannot reach the judge endpoint {self.endpoint}: {problem} on {attempt} "
                        "attempt(s); check that the server is running and that base_url is right"
                    )
                    self._down = message
                    raise _Unreachable(message, sent)
                raise _CallFailed(
                    f"the judge endpoint {self.url} failed after {attempt} attempt(s) over "
                    f"{elapsed:.1f} s; last: {problem}",
                    sent,
                )
            self._wait(delay)

    def _json_reply(self, resp: httpx.Response, sent: int) -> dict[str, Any]:
        """The body of a 2xx reply as a JSON object; anything else (not JSON, a key twice, not an object) is
        a failed call."""
        status = resp.status_code
        try:
            data = json.loads(resp.content, object_pairs_hook=_unique_keys)
        except _DuplicateKeyError as exc:
            raise _CallFailed(
                f"the judge endpoint {self.url} answered HTTP {status} with JSON that has the key "
                f"{exc.key!r} more than once",
                sent,
            ) from None
        except (ValueError, RecursionError):
            raise _CallFailed(
                f"the judge endpoint {self.url} answered HTTP {status} with a body that is "
                f"not JSON: {_excerpt(self._redact(resp.text))!r}",
                sent,
            ) from None
        if not isinstance(data, dict):
            raise _CallFailed(f"the judge endpoint {self.url} answered with JSON that is not an object", sent)
        return data

    def close(self) -> None:
        self._closed.set()
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def _content_of(reply: dict[str, Any]) -> str:
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ReplyError('no "choices" in the reply')
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else choices[0].get("text")
    if isinstance(content, list):  # content parts
        content = "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    if not isinstance(content, str) or not content.strip():
        raise ReplyError("the reply's message has no text content")
    return content


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value.is_integer():
        return max(0, int(value))
    return 0


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _fix_for(status: int, key_env: str | None) -> str:
    if status in (401, 403):
        if key_env:
            return f"check the API key in the environment variable {key_env}"
        return "the endpoint wants an API key: set api_key_env in [params] to the variable that holds it"
    if status == 404:
        return "check base_url (it should end before /chat/completions, e.g. http://127.0.0.1:8000/v1)"
    return "check the judge model name and the request parameters"
