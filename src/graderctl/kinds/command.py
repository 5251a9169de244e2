"""``command``: an external program grades a batch of samples.

Definition::

    kind = "command"
    check = "claim_support"
    [params]
    argv = ["{python}", "judge.py", "--strict"]   # or: command = "{python} judge.py --strict"
    timeout = 60                                  # seconds per batch
    cwd = "."                                     # relative to the definition's folder (the default)
    env = ["MY_SERVICE_TOKEN"]                    # environment variables passed through (besides PATH etc.)

One process per batch. Its stdin receives one JSON line per sample::

    {"index": 0, "check": "claim_support", "input": {...}, "documents": {"s1": {"id": "s1", "text": "..."}}}

(``documents`` holds the corpus documents the sample points at, so the program needs no corpus of its own.)
Its stdout must hold one JSON line per sample, in order or with ``"index"``::

    {"accept": true, "score": 0.93, "reason": "..."}            or   {"index": 3, "error": "cannot parse"}

optionally with ``"usage": {"input_tokens": ..., "output_tokens": ..., "usd": ...}``. Blank lines are
ignored. A malformed line is an error for the sample concerned; a sample with no verdict line is an error; a
non-zero exit, a crash or a timeout is an error for every sample of the batch (with the end of stderr). An
error is never an accept or a reject.

The values of the environment variables listed in ``env``, and of any variable named like a secret
(``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ...), are removed from everything the program's output
can put into a verdict (its stderr, reasons, errors, details) before anything is cut short, so they never
reach a report or a results file.

``{python}`` in ``argv`` stands for the Python interpreter graderctl runs under. Script files named in
``argv`` (relative paths ending in ``.py``, ``.sh``, ``.js``, ...) are part of the grader's fingerprint; list
other files the program reads in ``files``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graderctl.errors import GraderRunError
from graderctl.models.base import Check
from graderctl.models.calset import (
    ClaimSupportInput,
    CoverageInput,
    SampleInput,
    SourceExistenceInput,
)
from graderctl.plugin import Corpus, GraderKind, GradingContext, Usage, Verdict

PYTHON_TOKEN = "{python}"
_SCRIPT_SUFFIX = re.compile(r"\.(py|sh|bash|js|mjs|ts|rb|pl|r|R|jl|lua|php)$")
#: Always passed through, so the program can find its interpreter and a temporary folder.
_BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "PATHEXT")
_MAX_STDERR = 300
#: Environment variables whose values are secrets wherever they are set: ``*_KEY``, ``*TOKEN*``, and the
#: like. Their values (and those of the variables listed in ``env``) never appear in a verdict.
_SECRET_NAME = re.compile(
    r"(?:_KEYS?$|^KEYS?$|API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL)", re.I
)
#: Values shorter than this are not redacted (a flag such as "1" or "yes" is no secret, and replacing it
#: everywhere would garble messages).
_MIN_SECRET = 4
_REDACTED = "[redacted]"


class CommandParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    argv: list[str] | None = Field(default=None, min_length=1, description="The program and its arguments.")
    command: str | None = Field(default=None, min_length=1, description="A command line, split like a shell.")
    timeout: float = Field(default=120.0, gt=0, description="Seconds a batch may take.")
    cwd: str = Field(default=".", description="Working folder, relative to the definition's folder.")
    env: list[str] = Field(default_factory=list, description="Names of environment variables to pass.")
    files: list[str] = Field(
        default_factory=list, description="Further files (relative to the definition) in the fingerprint."
    )

    @model_validator(mode="after")
    def _one_program(self) -> CommandParams:
        if (self.argv is None) == (self.command is None):
            raise ValueError("give exactly one of argv (a list) or command (a string)")
        if self.command is not None:
            try:
                parts = shlex.split(self.command)
            except ValueError as exc:
                raise ValueError(f"command cannot be split: {exc}") from None
            if not parts:
                raise ValueError("command is empty")
        return self

    def program(self) -> list[str]:
        return list(self.argv) if self.argv is not None else shlex.split(self.command or "")


def _script_files(params: CommandParams) -> list[str]:
    found: list[str] = []
    for arg in params.program():
        if arg.startswith("-") or arg == PYTHON_TOKEN or os.path.isabs(arg) or "://" in arg:
            continue
        if _SCRIPT_SUFFIX.search(arg):
            cwd = Path(params.cwd)
            rel = os.path.normpath(str(cwd / arg)) if params.cwd not in ("", ".") else os.path.normpath(arg)
            found.append(rel)
    return found


def _documents(inp: SampleInput, corpus: Corpus | None) -> dict[str, Any]:
    if corpus is None:
        return {}
    docs = []
    if isinstance(inp, ClaimSupportInput):
        docs = [corpus.get(ev.source_id) for ev in inp.evidence if ev.source_id]
    elif isinstance(inp, SourceExistenceInput):
        c = inp.citation
        docs = [
            (corpus.get(c.source_id) if c.source_id else None)
            or (corpus.find_doi(c.doi) if c.doi else None)
            or (corpus.find_url(c.url) if c.url else None)
        ]
    return {d.id: d.model_dump(mode="json", exclude_none=True) for d in docs if d is not None}


def _tail(text: str) -> str:
    text = text.strip()
    if len(text) > _MAX_STDERR:
        text = "…" + text[-_MAX_STDERR:]
    return " ".join(text.split())


class CommandGrader(GraderKind):
    name = "command"
    checks = frozenset({Check.source_existence, Check.claim_support, Check.coverage})
    cacheable = True
    implementation_version = "1"

    class Params(CommandParams):
        pass

    def __init__(self, params: BaseModel, context: GradingContext | None = None) -> None:
        super().__init__(params, context)
        assert isinstance(params, CommandParams)
        self.p: CommandParams = params
        base = self.context.base_dir or Path.cwd()
        self.cwd = (base / self.p.cwd).resolve()
        self.argv = [sys.executable if a == PYTHON_TOKEN else a for a in self.p.program()]
        self.shown = " ".join(shlex.quote(a) for a in self.p.program())
        self._secrets = secret_values(self.p.env, os.environ)
        #: Programs running now (from any thread); close() ends them, so an interrupted run leaves none.
        self._running: set[subprocess.Popen[str]] = set()
        self._running_lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"CommandGrader({self.shown!r})"

    @classmethod
    def referenced_files(cls, params: BaseModel) -> list[str]:
        assert isinstance(params, CommandParams)
        return sorted(set(_script_files(params)) | set(params.files))

    @classmethod
    def validate_definition(cls, params: BaseModel, base_dir: Path) -> list[str]:
        assert isinstance(params, CommandParams)
        problems: list[str] = []
        cwd = base_dir / params.cwd
        if not cwd.is_dir():
            problems.append(f"cwd {params.cwd!r} is not a folder (it is relative to the definition's folder)")
        for name in params.env:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
                problems.append(f"env lists {name!r}, which is not an environment variable name")
        return problems

    def _line(self, index: int, inp: SampleInput) -> dict[str, Any]:
        check = (
            Check.claim_support
            if isinstance(inp, ClaimSupportInput)
            else Check.coverage
            if isinstance(inp, CoverageInput)
            else Check.source_existence
        )
        return {
            "index": index,
            "check": check.value,
            "input": inp.model_dump(mode="json", exclude_none=True),
            "documents": _documents(inp, self.context.corpus),
        }

    def cache_payload(self, inp: SampleInput) -> Any:
        line = self._line(0, inp)
        del line["index"]
        return line

    def _env(self) -> dict[str, str]:
        names = (*_BASE_ENV, *self.p.env)
        return {k: os.environ[k] for k in names if k in os.environ}

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [self._redact_verdict(v) for v in self._grade_batch(inputs)]

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def _redact_verdict(self, verdict: Verdict) -> Verdict:
        if not self._secrets:
            return verdict
        return replace(
            verdict,
            reason=self._redact(verdict.reason),
            error=None if verdict.error is None else self._redact(verdict.error),
            details=None if verdict.details is None else _redact_json(verdict.details, self._secrets),
        )

    def _grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        n = len(inputs)
        if n == 0:
            return []
        stdin = "".join(
            json.dumps(self._line(i, inp), ensure_ascii=False) + "\n" for i, inp in enumerate(inputs)
        )
        try:
            proc = self._run(stdin)
        except FileNotFoundError as exc:
            raise GraderRunError(
                f"the grader program {self.shown!r} cannot be started: {exc.strerror or exc}; "
                f"check argv/command (run from {self.cwd})"
            ) from None
        except PermissionError as exc:
            raise GraderRunError(f"the grader program {self.shown!r} is not executable: {exc}") from None
        except subprocess.TimeoutExpired:
            return [
                Verdict.failed(f"the grader program {self.shown!r} timed out after {self.p.timeout:g} s")
            ] * n
        if proc.returncode != 0:
            how = (
                f"was killed by signal {-proc.returncode}"
                if proc.returncode < 0
                else f"exited with code {proc.returncode}"
            )
            stderr = _tail(self._redact(proc.stderr))
            message = f"the grader program {self.shown!r} {how}" + (f": {stderr}" if stderr else "")
            return [Verdict.failed(message)] * n
        return self._parse(proc.stdout, n)

    def _run(self, stdin: str) -> subprocess.CompletedProcess[str]:
        """``subprocess.run`` with the program registered while it runs (see :meth:`close`)."""
        with subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            cwd=self.cwd,
            env=self._env(),
        ) as process:
            with self._running_lock:
                self._running.add(process)
                closed = self._closed
            try:
                if closed:
                    process.kill()
                stdout, stderr = process.communicate(stdin, timeout=self.p.timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
            except BaseException:  # an interruption (Ctrl-C, SIGTERM): the program must not outlive us
                process.kill()
                raise
            finally:
                with self._running_lock:
                    self._running.discard(process)
        return subprocess.CompletedProcess(self.argv, process.returncode, stdout, stderr)

    def close(self) -> None:
        """End every program still running (an interrupted run, a worker thread abandoned on a timeout)."""
        with self._running_lock:
            self._closed = True
            running = list(self._running)
        for process in running:
            with contextlib.suppress(OSError):
                process.kill()

    def _parse(self, stdout: str, n: int) -> list[Verdict]:
        results: list[Verdict | None] = [None] * n
        position = 0
        lines = [(no, line) for no, line in enumerate(stdout.splitlines(), start=1) if line.strip()]
        for no, line in lines:
            slot = position
            position += 1
            try:
                data = json.loads(line)
            except ValueError:
                if slot < n and results[slot] is None:
                    results[slot] = Verdict.failed(
                        f"stdout line {no} is not JSON: {_tail(self._redact(line))!r}"
                    )
                continue
            if not isinstance(data, dict):
                if slot < n and results[slot] is None:
                    results[slot] = Verdict.failed(f"stdout line {no} is not a JSON object")
                continue
            index = data.get("index", slot)
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n:
                if slot < n and results[slot] is None:
                    results[slot] = Verdict.failed(f"stdout line {no}: index {index!r} is not in 0..{n - 1}")
                continue
            if results[index] is not None:
                results[index] = Verdict.failed(f"stdout line {no}: a second verdict for sample {index}")
                continue
            results[index] = _verdict(data, no)
        return [
            v
            if v is not None
            else Verdict.failed(
                f"the grader program wrote no verdict for this sample ({len(lines)} line(s) for {n})"
            )
            for v in results
        ]


def secret_values(passed: Sequence[str], environ: Any) -> tuple[str, ...]:
    """The values to keep out of every message: those of the variables passed to the program, and of every
    variable named like a secret; longest first (so a secret containing another is removed whole)."""
    values = {str(environ[name]) for name in passed if name in environ}
    values |= {str(value) for name, value in environ.items() if _SECRET_NAME.search(name)}
    forms: set[str] = set()
    for value in values:
        value = value.strip()
        if len(value) < _MIN_SECRET:
            continue
        forms |= {value, json.dumps(value)[1:-1], repr(value)[1:-1]}
        forms |= {line.strip() for line in value.splitlines() if len(line.strip()) >= _MIN_SECRET}
    return tuple(sorted(forms, key=len, reverse=True))


def redact(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, _REDACTED)
    return text


def _redact_json(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(str(k), secrets): _redact_json(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_json(v, secrets) for v in value]
    return value


def _verdict(data: dict[str, Any], no: int) -> Verdict:
    usage = _usage(data.get("usage"))
    if data.get("error"):
        return Verdict.failed(f"the grader program reported: {data['error']}", usage=usage)
    accept = data.get("accept", data.get("accepted"))
    if not isinstance(accept, bool):
        return Verdict.failed(
            f'stdout line {no}: "accept" is {accept!r}, expected true or false', usage=usage
        )
    score = data.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        return Verdict.failed(f'stdout line {no}: "score" is {score!r}, expected a number', usage=usage)
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        reason = json.dumps(reason)
    details = data.get("details") if isinstance(data.get("details"), dict) else None
    if accept:
        return Verdict.accept(reason, None if score is None else float(score), usage=usage, details=details)
    return Verdict.reject(reason, None if score is None else float(score), usage=usage, details=details)


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None

    def num(key: str) -> float:
        v = raw.get(key, 0)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 else 0.0

    return Usage(
        input_tokens=int(num("input_tokens")),
        output_tokens=int(num("output_tokens")),
        usd=num("usd"),
        requests=int(num("requests")),
    )
