"""``graderctl metrics``: pass@k, pass^k, success rates, cost and failure breakdowns from graded results.

The input is a results file (CONTRACT.md §5). Only ``task_id``, ``trial_id`` and ``success`` are required, so
results written by other tools can be measured too. Files can be large (a million lines), so the results are
not validated by the full pydantic model: a ``msgspec`` decoder reads just the fields metrics needs, line by
line, and every bad line becomes a located problem (``file:line: /pointer``). The aggregation keeps per-task
counters only, never the lines. A file of 64 MB or more is read by two forked processes, one half each.

Conventions (CONTRACT.md, STYLE.md):

- ``success: null`` trials could not be graded: they are counted and shown apart, excluded from each task's
  ``n`` and never taken as failures;
- each task weighs the same unless a weighting is declared (``--weights``), and the weighting is recorded;
- pass@k and pass^k are exact (:mod:`graderctl.stats.passk`, integer binomials); the exact fractions are
  reported beside the floats;
- intervals are percentile bootstraps over tasks (the task is the unit that was sampled);
- undefined numbers are ``null`` with a warning, never 0 or NaN.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import hashlib
import io
import itertools
import json
import math
import re
import statistics
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec

from graderctl.errors import InvalidInputError, Problem, UsageError
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import BOM, decode_json_line, display_path

COMPARISONS_DIR = ("reports", "comparisons")
DEFAULT_KS = (1, 2, 3, 5, 10)
DEFAULT_N_BOOT = 2000
DEFAULT_SEED = 20240601
DEFAULT_CONFIDENCE = 0.95
_SHOWN = 20

#: Index of each counter in the per-task / per-category lists.
_OK, _FAIL, _NULL = 0, 1, 2


# --- the fast line decoder ------------------------------------------------------------------------------


_NonNegative = Annotated[float, msgspec.Meta(ge=0)]
_Id = Annotated[str, msgspec.Meta(min_length=1)]


class _Check(msgspec.Struct, frozen=True):
    """Frozen, so hashable: a line's checks are counted under one key."""

    passed: bool | None = None
    grader: str | None = None
    fingerprint: str | None = None
    trusted: bool | None = None


class _Cost(msgspec.Struct):
    input_tokens: _NonNegative | None = None
    output_tokens: _NonNegative | None = None
    tool_calls: _NonNegative | None = None
    usd: _NonNegative | None = None
    wall_seconds: _NonNegative | None = None


class _SelfGrading(msgspec.Struct):
    override: bool | None = None


class _Line(msgspec.Struct):
    """Exactly the fields metrics reads, typed strictly; msgspec skips the others without building Python
    objects for them. A line it refuses is diagnosed again, leniently, by :func:`_diagnose`."""

    task_id: _Id
    trial_id: _Id
    #: ``true``/``false``/``null``; raw outcome tables often say ``1``/``0``, taken as true/false (as the
    #: results model does).
    success: bool | Annotated[int, msgspec.Meta(ge=0, le=1)] | None
    checks: dict[str, _Check] | None = None
    stop_reason: str | None = None
    category: str | None = None
    cost: _Cost | None = None
    reason: str | None = None
    untrusted: list[str] | None = None
    self_grading: _SelfGrading | None = None
    #: Kept as raw JSON: only the distinct rules are counted.
    rule: msgspec.Raw = msgspec.Raw(b"")
    #: Claims citing a source / factual sentences citing nothing (``graderctl score``, issue 13).
    cited_claims: Annotated[int, msgspec.Meta(ge=0)] | None = None
    uncited_claims: Annotated[int, msgspec.Meta(ge=0)] | None = None


class _LooseCost(msgspec.Struct):
    input_tokens: float | None = None
    output_tokens: float | None = None
    tool_calls: float | None = None
    usd: float | None = None
    wall_seconds: float | None = None


class _LooseLine(msgspec.Struct):
    """The same fields, loosely typed, to say everything wrong with a refused line at once."""

    task_id: Any = msgspec.UNSET
    trial_id: Any = msgspec.UNSET
    success: Any = msgspec.UNSET
    cost: _LooseCost | None = None


def _msgspec_pointer(message: str) -> tuple[str, str]:
    """``"Expected `str`, got `int` - at `$.checks.x.grader`"`` -> (message, ``/checks/x/grader``)."""
    text, sep, where = message.rpartition(" - at `")
    if not sep:
        return message, ""
    path = where.rstrip("`").removeprefix("$")
    parts = [
        (name or index).replace("~", "~0").replace("/", "~1") for name, index in _MSGSPEC_PATH.findall(path)
    ]
    return text, "/" + "/".join(parts) if parts else ""


# ``.name`` or ``[index]`` (``[...]`` stands for an unnamed dict key)
_MSGSPEC_PATH = re.compile(r"\.([^.\[]+)|\[([^\]]*)\]")


# --- scanning -------------------------------------------------------------------------------------------


@dataclass
class GraderSeen:
    grader: str | None
    fingerprint: str | None
    trials: int = 0


@dataclass
class ResultScan:
    """Counters over a results file; never the lines themselves."""

    path: str
    lines: int = 0
    tasks: dict[str, list[int]] = field(default_factory=dict)
    categories: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    stop_reasons: dict[str, list[int]] = field(default_factory=dict)
    checks: dict[str, list[int]] = field(default_factory=dict)
    graders: dict[str, dict[tuple[str | None, str | None], GraderSeen]] = field(default_factory=dict)
    null_reasons: dict[str, int] = field(default_factory=dict)
    rules: dict[bytes, int] = field(default_factory=dict)
    cost_sum: dict[str, float] = field(default_factory=dict)
    cost_known: dict[str, int] = field(default_factory=dict)
    usd_by_outcome: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    untrusted_trials: int = 0
    untrusted_graders: set[str] = field(default_factory=set)
    self_grading_overrides: int = 0
    #: [trials with claim counts, cited claims, uncited claims, trials citing nothing]
    citations: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def trials(self) -> int:
        return sum(sum(v) for v in self.tasks.values())


_COST_FIELDS = ("input_tokens", "output_tokens", "tool_calls", "usd", "wall_seconds")


_BLOCK_BYTES = 1 << 24
#: Files at least this large are read by two processes (each half), when the machine has two cores.
PARALLEL_MIN_BYTES = 64 << 20


def _open(path: Path, shown: str) -> IO[bytes]:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise InvalidInputError(
            f"{shown}: no such file", [Problem(file=shown, message="no such file", fix="check the path")]
        ) from None
    except OSError as exc:
        raise InvalidInputError(
            f"{shown}: unreadable", [Problem(file=shown, message=f"cannot read the file: {exc.strerror}")]
        ) from None


def _line_blocks(path: Path, shown: str, start: int = 0, end: int | None = None) -> Iterator[list[bytes]]:
    """The lines of bytes ``[start, end)`` of the file (without ``\\n``; a ``\\r`` left is JSON whitespace),
    a block of lines at a time: a generator step per block instead of per line. A leading UTF-8 BOM is
    dropped."""
    with _open(path, shown) as fh:
        if start:  # a pipe (``<(...)``, ``/dev/stdin``) cannot seek, and is read whole from its start
            fh.seek(start)
        remaining = None if end is None else end - start
        rest = b""
        first = start == 0
        while True:
            size = _BLOCK_BYTES if remaining is None else min(_BLOCK_BYTES, remaining)
            block = fh.read(size) if size > 0 else b""
            if remaining is not None:
                remaining -= len(block)
            if not block:
                if rest:
                    yield [rest]
                return
            if first:
                block = block.removeprefix(BOM)
                first = False
            lines = (rest + block).split(b"\n") if rest else block.split(b"\n")
            rest = lines.pop()
            yield lines


@dataclass
class _Part:
    """Raw counters over one byte range of a results file, merged into a :class:`ResultScan`."""

    physical_lines: int = 0
    any_line: bool = False
    problems: list[Problem] = field(default_factory=list)
    omitted: int = 0
    lines: int = 0
    tasks: dict[str, list[int]] = field(default_factory=dict)
    keys: set[Any] = field(default_factory=set)
    by_category: dict[tuple[str, str, int], int] = field(default_factory=dict)
    by_stop: dict[tuple[str | None, int], int] = field(default_factory=dict)
    by_check: dict[tuple[tuple[str, _Check], ...], int] = field(default_factory=dict)
    null_reasons: dict[str, int] = field(default_factory=dict)
    rules: dict[bytes, int] = field(default_factory=dict)
    untrusted_lists: dict[tuple[str, ...], int] = field(default_factory=dict)
    overrides: int = 0
    cost: list[float] = field(default_factory=lambda: [0.0] * 5)
    cost_known: list[int] = field(default_factory=lambda: [0] * 5)
    usd_by_outcome: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    citations: list[int] = field(default_factory=lambda: [0, 0, 0, 0])


def _scan_part(path: Path, shown: str, start: int = 0, end: int | None = None, cap: int = 100) -> _Part:
    """Scan bytes ``[start, end)``; line numbers in problems count from the range's first line."""
    sink = ProblemSink(cap)
    part = _Part()
    decode = msgspec.json.Decoder(_Line).decode
    # RecursionError: msgspec's answer to JSON nested thousands of levels deep.
    errors = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
    seen = part.keys
    tasks = part.tasks
    # Flat counters keyed by tuples (one dict operation per fact), folded into the scan after the loop.
    by_category = part.by_category
    by_stop = part.by_stop
    by_check = part.by_check
    null_reasons = part.null_reasons
    rules = part.rules
    untrusted_lists = part.untrusted_lists
    overrides = 0
    counted = cited_total = uncited_total = citing_nothing = 0
    in_tok = out_tok = calls = usd = wall = 0.0
    n_in = n_out = n_calls = n_usd = n_wall = 0
    usd_by_outcome = part.usd_by_outcome
    lines = 0
    any_line = False
    number = 0
    for block in _line_blocks(path, shown, start, end):
        for raw in block:
            number += 1
            if not raw or raw == b"\r":
                continue
            any_line = True
            try:
                line = decode(raw)
            except errors as exc:
                _diagnose(raw.rstrip(b"\r"), number, shown, sink, str(exc))
                continue
            task_id = line.task_id
            key = (task_id, line.trial_id)
            if key in seen:
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer="/trial_id",
                        message=f"duplicate trial {line.trial_id!r} of task {task_id!r}",
                        expected="each (task_id, trial_id) once",
                        got="a second line for it",
                        fix="remove the duplicate line (a resumed run may have written it twice)",
                    )
                )
                continue
            seen.add(key)
            lines += 1
            success = line.success
            slot = _NULL if success is None else _OK if success else _FAIL
            counts = tasks.get(task_id)
            if counts is None:
                counts = tasks[task_id] = [0, 0, 0]
            counts[slot] += 1
            if slot == _NULL:
                reason = line.reason or "no reason given"
                null_reasons[reason] = null_reasons.get(reason, 0) + 1
            if line.category is not None:
                ckey = (line.category, task_id, slot)
                by_category[ckey] = by_category.get(ckey, 0) + 1
            skey = (line.stop_reason, slot)
            by_stop[skey] = by_stop.get(skey, 0) + 1
            checks = line.checks
            if checks:
                gkey = tuple(checks.items())
                by_check[gkey] = by_check.get(gkey, 0) + 1
            elif line.untrusted:
                ukey = tuple(line.untrusted)
                untrusted_lists[ukey] = untrusted_lists.get(ukey, 0) + 1
            if line.self_grading is not None and line.self_grading.override:
                overrides += 1
            if line.cited_claims is not None or line.uncited_claims is not None:
                counted += 1
                cited_total += line.cited_claims or 0
                uncited_total += line.uncited_claims or 0
                citing_nothing += not line.cited_claims
            if line.rule:
                rule_key = bytes(line.rule)
                rules[rule_key] = rules.get(rule_key, 0) + 1
            cost = line.cost
            if cost is not None:
                if cost.input_tokens is not None:
                    in_tok += cost.input_tokens
                    n_in += 1
                if cost.output_tokens is not None:
                    out_tok += cost.output_tokens
                    n_out += 1
                if cost.tool_calls is not None:
                    calls += cost.tool_calls
                    n_calls += 1
                if cost.wall_seconds is not None:
                    wall += cost.wall_seconds
                    n_wall += 1
                if cost.usd is not None:
                    usd += cost.usd
                    n_usd += 1
                    usd_by_outcome[slot] += cost.usd

    part.physical_lines = number
    part.any_line = any_line
    part.lines = lines
    part.overrides = overrides
    part.citations = [counted, cited_total, uncited_total, citing_nothing]
    part.cost = [in_tok, out_tok, calls, usd, wall]
    part.cost_known = [n_in, n_out, n_calls, n_usd, n_wall]
    part.problems = sink.problems
    part.omitted = sink.omitted
    return part


def _scan_part_hashed(path: Path, shown: str, start: int, end: int, cap: int) -> _Part:
    """:func:`_scan_part` in a worker process: the (task, trial) keys travel back as their hashes (a forked
    worker shares the parent's hash seed), which is enough to find duplicates across parts."""
    part = _scan_part(path, shown, start, end, cap)
    part.keys = {hash(k) for k in part.keys}
    return part


def _ranges(path: Path, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges of the file that start at line starts."""
    size = path.stat().st_size
    bounds = [0]
    with path.open("rb") as fh:
        for i in range(1, parts):
            fh.seek(max(bounds[-1], size * i // parts))
            fh.readline()
            bounds.append(min(fh.tell(), size))
    bounds.append(size)
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a] or [(0, size)]


def os_cpu_count() -> int | None:
    import os

    return os.cpu_count()


def _parallel_parts(path: Path, shown: str, cap: int) -> list[_Part] | None:
    """Scan a large file in two forked processes; ``None`` when that is not possible or not worth it (then
    the caller scans it in this process)."""
    import multiprocessing

    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size < PARALLEL_MIN_BYTES or (os_cpu_count() or 1) < 2:
        return None
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    from concurrent.futures import ProcessPoolExecutor

    ranges = _ranges(path, 2)
    if len(ranges) < 2:
        return None
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=len(ranges), mp_context=context) as pool:
        futures = [pool.submit(_scan_part_hashed, path, shown, a, b, cap) for a, b in ranges]
        parts = [f.result() for f in futures]
    # A (task, trial) in two parts: let the serial scan say exactly where (rare: a broken file).
    total = sum(len(p.keys) for p in parts)
    if len(set().union(*(p.keys for p in parts))) != total:
        return None
    return parts


def _add_counts(target: dict[Any, int], source: Mapping[Any, int]) -> None:
    for key, count in source.items():
        target[key] = target.get(key, 0) + count


def scan_results(
    path: Path, *, root: Path | None = None, sink: ProblemSink | None = None, parallel: bool = True
) -> ResultScan:
    """Read a results file into counters. Every bad line is a problem; raises :class:`InvalidInputError`
    listing them (up to the sink's cap, with a count of the rest) when there is any. A large file is read by
    two processes when ``parallel`` (same result)."""
    shown = display_path(path, root)
    sink = sink if sink is not None else ProblemSink()
    parts = _parallel_parts(path, shown, sink.cap) if parallel else None
    if parts is None:
        parts = [_scan_part(path, shown, cap=sink.cap)]
    scan = ResultScan(path=shown)
    offset = 0
    by_category: dict[tuple[str, str, int], int] = {}
    by_stop: dict[tuple[str | None, int], int] = {}
    by_check: dict[tuple[tuple[str, _Check], ...], int] = {}
    untrusted_lists: dict[tuple[str, ...], int] = {}
    cost = [0.0] * 5
    cost_known = [0] * 5
    for part in parts:
        for problem in part.problems:
            sink.add(replace(problem, line=None if problem.line is None else problem.line + offset))
        sink.omitted += part.omitted
        offset += part.physical_lines
        scan.lines += part.lines
        scan.self_grading_overrides += part.overrides
        for i in range(4):
            scan.citations[i] += part.citations[i]
        for task_id, counts in part.tasks.items():
            mine = scan.tasks.get(task_id)
            if mine is None:
                scan.tasks[task_id] = counts
            else:
                for i in range(3):
                    mine[i] += counts[i]
        _add_counts(by_category, part.by_category)
        _add_counts(by_stop, part.by_stop)
        _add_counts(by_check, part.by_check)
        _add_counts(untrusted_lists, part.untrusted_lists)
        _add_counts(scan.null_reasons, part.null_reasons)
        _add_counts(scan.rules, part.rules)
        for i in range(5):
            cost[i] += part.cost[i]
            cost_known[i] += part.cost_known[i]
        for i in range(3):
            scan.usd_by_outcome[i] += part.usd_by_outcome[i]
    for name, total, known in zip(_COST_FIELDS, cost, cost_known, strict=True):
        if known:
            scan.cost_sum[name] = total
            scan.cost_known[name] = known
    for (category, task_id, slot), count in by_category.items():
        per_task = scan.categories.setdefault(category, {}).setdefault(task_id, [0, 0, 0])
        per_task[slot] += count
    for (stop, slot), count in by_stop.items():
        scan.stop_reasons.setdefault(stop if stop is not None else "(none)", [0, 0, 0])[slot] += count
    for items, count in by_check.items():
        if any(result.trusted is False for _, result in items):
            scan.untrusted_trials += count
        for check, result in items:
            passed = result.passed
            scan.checks.setdefault(check, [0, 0, 0])[
                _OK if passed is True else _FAIL if passed is False else _NULL
            ] += count
            seen_grader = scan.graders.setdefault(check, {}).setdefault(
                (result.grader, result.fingerprint), GraderSeen(result.grader, result.fingerprint)
            )
            seen_grader.trials += count
            if result.trusted is False:
                scan.untrusted_graders.add(result.grader or "?")
    for names, count in untrusted_lists.items():
        scan.untrusted_trials += count
        scan.untrusted_graders.update(names)
    if not any(p.any_line for p in parts) and not sink:
        sink.add(
            Problem(
                file=shown,
                line=1,
                message="the file is empty",
                expected="one graded trial per line",
                got="no content",
                fix="score some trials first: `graderctl score TRIALS --output RESULTS`",
            )
        )
    sink.raise_if_any(shown)
    return scan


def _diagnose(raw: bytes, number: int, shown: str, sink: ProblemSink, message: str) -> None:
    """Say everything wrong with a line the strict decoder refused."""
    if not raw.strip():
        return  # a blank line
    before = sink.count
    try:
        loose = msgspec.json.decode(raw, type=_LooseLine)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        loose = None
    if loose is not None:
        for name in ("task_id", "trial_id"):
            value = getattr(loose, name)
            if value is msgspec.UNSET:
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer=f"/{name}",
                        message="missing required field",
                        expected=f"a value for {name!r}",
                        got="nothing",
                        fix=f"add {name!r}",
                    )
                )
            elif not isinstance(value, str) or not value:
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer=f"/{name}",
                        message="invalid value",
                        expected="a non-empty string",
                        got=json.dumps(value),
                    )
                )
        if loose.success is msgspec.UNSET:
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    pointer="/success",
                    message="missing required field",
                    expected="true, false or null (null: the trial could not be graded)",
                    got="nothing",
                    fix="add 'success'",
                )
            )
        elif loose.success is not None and not (
            isinstance(loose.success, bool) or (isinstance(loose.success, int) and loose.success in (0, 1))
        ):
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    pointer="/success",
                    message="invalid value",
                    expected="true, false or null",
                    got=json.dumps(loose.success),
                )
            )
        if loose.cost is not None:
            for name in _COST_FIELDS:
                value = getattr(loose.cost, name)
                if value is not None and value < 0:
                    sink.add(
                        Problem(
                            file=shown,
                            line=number,
                            pointer=f"/cost/{name}",
                            message="invalid value",
                            expected="a non-negative number",
                            got=json.dumps(value),
                        )
                    )
    if sink.count == before:
        _bad_line(raw, number, shown, sink, message)


def _bad_line(raw: bytes, number: int, shown: str, sink: ProblemSink, message: str) -> None:
    """A line msgspec refused: a JSON syntax error (located by the stdlib decoder) or a wrong type."""
    local = ProblemSink()
    value = decode_json_line(raw, number, shown, local, is_last=False)
    if local:
        sink.extend(local.problems)
        return
    if not isinstance(value, dict):
        sink.add(
            Problem(
                file=shown,
                line=number,
                message="not a JSON object",
                expected="one object {...} per line",
                got=json.dumps(value)[:40],
            )
        )
        return
    text, ptr = _msgspec_pointer(message)
    checks = value.get("checks")
    if ptr.startswith("/checks/...") and isinstance(checks, dict):
        # msgspec does not name dict keys in its paths: find the check whose result is malformed.
        for name, result in checks.items():
            try:
                msgspec.convert(result, type=_Check)
            except msgspec.ValidationError as exc:
                text, sub = _msgspec_pointer(str(exc))
                escaped = str(name).replace("~", "~0").replace("/", "~1")
                ptr = f"/checks/{escaped}{sub}"
                break
    sink.add(Problem(file=shown, line=number, pointer=ptr, message=f"invalid value: {text}"))


# --- weights ---------------------------------------------------------------------------------------------


@dataclass
class Weights:
    by_task: dict[str, float]
    path: str
    sha256: str


def read_weights(path: Path, *, root: Path | None = None) -> Weights:
    """``--weights FILE``: a JSON object ``{"task_id": weight}`` or a CSV with columns ``task_id,weight``."""
    shown = display_path(path, root)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(
            f"{shown}: unreadable",
            [
                Problem(
                    file=shown, message=f"cannot read the weights file: {exc.strerror}", fix="check the path"
                )
            ],
        ) from None
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    text = data.decode("utf-8-sig", errors="replace")
    sink = ProblemSink()
    weights: dict[str, float] = {}
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{shown}: invalid JSON",
                [
                    Problem(
                        file=shown,
                        line=exc.lineno,
                        message=f"invalid JSON at column {exc.colno}: {exc.msg}",
                        expected='{"task_id": weight, ...}',
                    )
                ],
            ) from None
        except (ValueError, RecursionError) as exc:  # nested too deeply, a number of 5,000 digits
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise InvalidInputError(
                f"{shown}: invalid JSON",
                [Problem(file=shown, message=f"invalid JSON: {why}", expected='{"task_id": weight, ...}')],
            ) from None
        if not isinstance(obj, dict):
            raise InvalidInputError(
                f"{shown}: not an object",
                [Problem(file=shown, message="not a JSON object", expected='{"task_id": weight, ...}')],
            )
        for task, w in obj.items():
            _add_weight(weights, task, w, shown, None, f"/{task}", sink)
    else:
        try:
            rows = list(csv.reader(io.StringIO(text)))
        except csv.Error as exc:  # e.g. a lone carriage return, NUL bytes: not a CSV file
            raise InvalidInputError(
                f"{shown}: not a weights file",
                [
                    Problem(
                        file=shown,
                        message=f"cannot read it as CSV: {exc}",
                        expected="task_id,weight rows, or a JSON object {task_id: weight}",
                    )
                ],
            ) from None
        start = 1 if rows and rows[0] and rows[0][0].strip().lower() in {"task_id", "task"} else 0
        for index, row in enumerate(rows[start:], start=start + 1):
            if not row or not any(cell.strip() for cell in row):
                continue
            if len(row) != 2:
                sink.add(
                    Problem(
                        file=shown,
                        line=index,
                        message="a weights row has two columns",
                        expected="task_id,weight",
                        got=",".join(row),
                    )
                )
                continue
            cell: object = row[1]
            with contextlib.suppress(ValueError):
                cell = float(row[1])
            _add_weight(weights, row[0].strip(), cell, shown, index, "", sink)
    sink.raise_if_any(shown)
    if not weights:
        raise InvalidInputError(
            f"{shown}: no weights",
            [Problem(file=shown, message="the weights file names no task", expected="task_id -> weight")],
        )
    return Weights(weights, shown, digest)


def _add_weight(
    weights: dict[str, float],
    task: str,
    w: object,
    shown: str,
    line: int | None,
    ptr: str,
    sink: ProblemSink,
) -> None:
    if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or w < 0:
        sink.add(
            Problem(
                file=shown,
                line=line,
                pointer=ptr,
                message=f"bad weight for task {task!r}",
                expected="a finite number >= 0",
                got=json.dumps(w) if not isinstance(w, float) else repr(w),
            )
        )
        return
    if task in weights:
        sink.add(Problem(file=shown, line=line, pointer=ptr, message=f"task {task!r} is weighted twice"))
        return
    weights[task] = float(w)


# --- comparisons (issue 5: mixed fingerprints) -------------------------------------------------------------


@dataclass
class ComparisonVerdict:
    comparable: bool | None
    reports: list[str]


def comparison_verdicts(root: Path) -> dict[frozenset[str], ComparisonVerdict]:
    """Comparison reports under ``reports/comparisons/*.json``, keyed by their fingerprint pair (either
    order). A pair is comparable when some report says so and none says otherwise. Unreadable files are
    skipped (``graderctl validate`` reports them)."""
    folder = root.joinpath(*COMPARISONS_DIR)
    out: dict[frozenset[str], ComparisonVerdict] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON, nested too deeply
            continue
        if not isinstance(doc, dict) or doc.get("type") != "comparison":
            continue
        old, new = doc.get("old"), doc.get("new")
        if not (isinstance(old, dict) and isinstance(new, dict)):
            continue
        a, b = old.get("fingerprint"), new.get("fingerprint")
        comparable = doc.get("comparable")
        if not (isinstance(a, str) and isinstance(b, str) and isinstance(comparable, bool)):
            continue
        key = frozenset((a, b))
        verdict = out.setdefault(key, ComparisonVerdict(None, []))
        verdict.reports.append(display_path(path, root))
        if verdict.comparable is None:
            verdict.comparable = comparable
        elif verdict.comparable != comparable:
            verdict.comparable = False
    return out


def check_fingerprints(scan: ResultScan, root: Path) -> dict[str, Any]:
    """Refuse results of one check graded by different fingerprints unless comparison reports found every
    pair comparable. Returns what was combined (for the report)."""
    mixed = {
        check: list(g.values())
        for check, g in scan.graders.items()
        if len({s.fingerprint for s in g.values()}) > 1
    }
    if not mixed:
        return {}
    verdicts = comparison_verdicts(root)
    problems: list[Problem] = []
    combined: dict[str, Any] = {}
    for check, seen in sorted(mixed.items()):
        fps = sorted({s.fingerprint for s in seen if s.fingerprint}, key=str)
        names = {s.fingerprint: s.grader for s in seen}
        used: list[str] = []
        for i, a in enumerate(fps):
            for b in fps[i + 1 :]:
                v = verdicts.get(frozenset((a, b)))
                if v is not None and v.comparable:
                    used.extend(v.reports)
                    continue
                why = (
                    "no comparison report under reports/comparisons/ covers them"
                    if v is None
                    else "the comparison report(s) " + ", ".join(v.reports) + " found them not comparable"
                )
                problems.append(
                    Problem(
                        file=scan.path,
                        pointer=f"/checks/{check}/fingerprint",
                        message=(
                            f"check {check!r} was graded by {names[a]} ({_short(a)}) and by {names[b]} "
                            f"({_short(b)}) in the same file: {why}"
                        ),
                        expected="one grader fingerprint per check, or versions found comparable",
                        got=f"{len(fps)} fingerprints",
                        fix=(
                            f"re-score with one version (`graderctl score --rescore {scan.path} --grader "
                            f"{names[b] or 'NEW_REF'} --output NEW_RESULTS`), or run `graderctl compare "
                            f"{names[a]} {names[b]}` and keep its report under reports/comparisons/"
                        ),
                    )
                )
        if any(s.fingerprint is None for s in seen):
            problems.append(
                Problem(
                    file=scan.path,
                    pointer=f"/checks/{check}/fingerprint",
                    message=f"check {check!r} has results with and without a grader fingerprint",
                    expected="every check result names its grader's fingerprint",
                )
            )
        combined[check] = {
            "graders": [{"grader": s.grader, "fingerprint": s.fingerprint, "trials": s.trials} for s in seen],
            "comparison_reports": sorted(set(used)),
        }
    if problems:
        graders = sorted({str(s.grader) for c in mixed for s in mixed[c]})
        raise InvalidInputError(
            f"{scan.path}: results graded by different, not-comparable versions of a check "
            f"({', '.join(graders)}) cannot be combined",
            problems,
        )
    return combined


def _short(fingerprint: str | None) -> str:
    return "no fingerprint" if not fingerprint else fingerprint.removeprefix("sha256:")[:12]


# --- grader-error correction -------------------------------------------------------------------------------


@dataclass
class ErrorRates:
    far_count: int
    far_n: int
    frr_count: int
    frr_n: int
    reports: list[str]

    @property
    def far(self) -> float:
        return self.far_count / self.far_n

    @property
    def frr(self) -> float:
        return self.frr_count / self.frr_n


def _calibration_rates(
    scan: ResultScan, root: Path, explicit: Sequence[Path]
) -> tuple[dict[str, ErrorRates], list[str]]:
    """Per check, FAR and FRR pooled over the calibration reports of the graders that graded it (matched by
    fingerprint), or over the reports given explicitly."""
    from graderctl.store.reports import read_report, report_files

    notes: list[str] = []
    wanted: dict[str, str] = {}
    for check, seen in scan.graders.items():
        for s in seen.values():
            if s.fingerprint:
                wanted[s.fingerprint] = check
    paths = list(explicit) if explicit else report_files(root)
    pooled: dict[str, ErrorRates] = {}
    for path in paths:
        try:
            report = read_report(path, root=root)
        except InvalidInputError as exc:
            if explicit:
                raise
            notes.append(f"skipped unreadable report {display_path(path, root)}: {exc}")
            continue
        if explicit:
            check = str(report.grader.check or "") or wanted.get(report.grader.fingerprint, "")
            if not check:
                check = next(iter(scan.graders), "")
        else:
            check = wanted.get(report.grader.fingerprint, "")
        if not check:
            continue
        far, frr = report.false_accept_rate, report.false_reject_rate
        rates = pooled.setdefault(check, ErrorRates(0, 0, 0, 0, []))
        rates.far_count += far.count
        rates.far_n += far.n
        rates.frr_count += frr.count
        rates.frr_n += frr.n
        rates.reports.append(display_path(path, root))
    return pooled, notes


def _correction(
    scan: ResultScan,
    root: Path,
    *,
    required: list[str],
    successes: int,
    graded: int,
    explicit: Sequence[Path],
    forced: bool,
    confidence: float,
    seed: int,
) -> tuple[dict[str, Any], list[str]]:
    from graderctl.errors import StatisticsError
    from graderctl.stats import rogan_gladen_interval

    rates, notes = _calibration_rates(scan, root, explicit)
    checks = required or sorted(scan.graders)
    missing = [c for c in checks if c not in rates or rates[c].far_n == 0 or rates[c].frr_n == 0]
    if not checks or missing or graded == 0:
        why = (
            "no graded trial"
            if graded == 0
            else "the results name no grader (no `checks`); give the calibration reports with --calibration"
            if not checks
            else "no calibration report (with known-good and known-bad samples) for the grader(s) of "
            + ", ".join(missing)
            + " under reports/"
        )
        if forced:
            raise InvalidInputError(
                f"cannot correct for grader error: {why}",
                [
                    Problem(
                        file=scan.path,
                        message=f"cannot correct for grader error: {why}",
                        fix="calibrate the graders (`graderctl calibrate REF`) or pass --calibration REPORT",
                    )
                ],
            )
        return {"applied": False, "why": why}, notes
    used = {c: rates[c] for c in checks}
    if len(used) == 1:
        ((check, r),) = used.items()
        far_count, far_n, frr_count, frr_n = r.far_count, r.far_n, r.frr_count, r.frr_n
        approach = f"single check {check!r}: FAR and FRR of its grader, pooled over its calibration report(s)"
        approximation = False
    else:
        # A trial succeeds when every required check passes. A truly bad trial usually fails one check and
        # slips through when that check's grader falsely accepts: the largest FAR is the conservative
        # choice. A truly good trial must be accepted by every grader: with independent errors the
        # composite FRR is 1 - prod(1 - FRR_i). Its interval uses the smallest calibration set as n.
        worst = max(used.values(), key=lambda r: r.far)
        far_count, far_n = worst.far_count, worst.far_n
        keep = 1.0
        for r in used.values():
            keep *= 1.0 - r.frr
        frr_n = min(r.frr_n for r in used.values())
        frr_count = min(frr_n, round((1.0 - keep) * frr_n))
        approach = (
            "approximation for a rule of several checks: FAR = the largest check FAR (a bad trial usually "
            "fails one check), FRR = 1 - prod(1 - FRR_check) (independent errors), with the smallest "
            "calibration set as the FRR sample size"
        )
        approximation = True
    far = far_count / far_n
    frr = frr_count / frr_n
    base: dict[str, Any] = {
        "approach": approach,
        "approximation": approximation,
        "caveat": (
            "calibration measures a grader's error per unit (one citation, one claim, one report); a trial "
            "has several units, so trial-level error rates may differ"
        ),
        "far": {"value": far, "count": far_count, "n": far_n},
        "frr": {"value": frr, "count": frr_count, "n": frr_n},
        "by_check": {
            c: {
                "far": {"value": r.far, "count": r.far_count, "n": r.far_n},
                "frr": {"value": r.frr, "count": r.frr_count, "n": r.frr_n},
                "reports": r.reports,
            }
            for c, r in used.items()
        },
    }
    if far + frr >= 1:
        why = f"FAR + FRR = {far + frr:.3f} >= 1: the graders are no better than chance; no correction"
        if forced:
            raise StatisticsError(why)
        return {"applied": False, "why": why, **base}, notes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corrected = rogan_gladen_interval(
            successes, graded, far_count, far_n, frr_count, frr_n, confidence=confidence, seed=seed
        )
    notes.extend(str(w.message) for w in caught)
    out = {"applied": True, **corrected.to_dict(), **base}
    if corrected.clipped:
        out["flag"] = f"the raw corrected value {corrected.raw:.4f} fell outside [0, 1] and was clipped"
    return out, notes


# --- the computation ---------------------------------------------------------------------------------------


@dataclass
class MetricsOptions:
    ks: list[int] | None = None
    weights: Path | None = None
    correct: bool = False
    calibration: list[Path] = field(default_factory=list)
    confidence: float = DEFAULT_CONFIDENCE
    n_boot: int = DEFAULT_N_BOOT
    seed: int = DEFAULT_SEED


@dataclass
class MetricsReport:
    document: dict[str, Any]
    warnings: list[str]


def _exact_mean(
    groups: Mapping[tuple[int, int], int], values: Mapping[tuple[int, int], Fraction]
) -> Fraction:
    """The equally weighted mean over tasks of a per-task value computed once per distinct ``(n, c)``:
    exact, and quick for 100,000 tasks (summing one Fraction per task is not)."""
    total = 0
    acc = Fraction(0)
    for pair, count in groups.items():
        acc += count * values[pair]
        total += count
    return acc / total


def _interval(values: Sequence[float], options: MetricsOptions, notes: list[str]) -> dict[str, float] | None:
    from graderctl.stats import bootstrap_tasks_interval

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = bootstrap_tasks_interval(
            values, confidence=options.confidence, n_boot=options.n_boot, seed=options.seed
        )
    for w in caught:
        msg = str(w.message)
        if msg not in notes:
            notes.append(msg)
    return None if ci is None else {"low": ci[0], "high": ci[1]}


def _num(value: float | Fraction) -> float:
    return float(value)


def compute_metrics(results: Path, *, root: Path, options: MetricsOptions | None = None) -> MetricsReport:
    """Everything ``graderctl metrics`` reports, as one JSON-ready document (CONTRACT.md §6)."""
    from graderctl import __version__
    from graderctl.stats import pass_at_k, pass_hat_k

    options = options or MetricsOptions()
    notes: list[str] = []
    # A million result lines make millions of small objects that the cyclic garbage collector would walk
    # again and again; none of them forms a cycle, so it is paused while the file is read.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        scan = scan_results(results, root=root)
    finally:
        if gc_was_enabled:
            gc.enable()
    combined = check_fingerprints(scan, root)

    task_ids = list(scan.tasks)
    graded_ids = [t for t in task_ids if sum(scan.tasks[t][:2]) > 0]
    ungraded_tasks = [t for t in task_ids if sum(scan.tasks[t][:2]) == 0]
    nulls = sum(c[_NULL] for c in scan.tasks.values())
    successes = sum(c[_OK] for c in scan.tasks.values())
    failures = sum(c[_FAIL] for c in scan.tasks.values())
    graded = successes + failures
    if ungraded_tasks:
        shown = ", ".join(ungraded_tasks[:_SHOWN]) + (" ..." if len(ungraded_tasks) > _SHOWN else "")
        notes.append(
            f"{len(ungraded_tasks)} task(s) have no graded trial (every trial is null) and are left out of "
            f"pass@k: {shown}"
        )
    if not graded_ids:
        raise InvalidInputError(
            f"{scan.path}: no trial could be graded",
            [
                Problem(
                    file=scan.path,
                    message=f"all {nulls} trial(s) have success null",
                    expected="at least one trial with success true or false",
                    fix="see each line's `reason`; fix the grader errors and re-score",
                )
            ],
        )
    ns = {t: scan.tasks[t][_OK] + scan.tasks[t][_FAIL] for t in graded_ids}
    n_values = sorted(ns.values())
    min_n = n_values[0]

    # k values
    if options.ks:
        ks = sorted(set(options.ks))
        too_small = {k: [t for t in graded_ids if ns[t] < k] for k in ks}
        bad = {k: ts for k, ts in too_small.items() if ts}
        if bad:
            problems = []
            for k, ts in bad.items():
                for t in ts[:_SHOWN]:
                    problems.append(
                        Problem(
                            file=scan.path,
                            message=f"task {t!r} has n = {ns[t]} graded trial(s), fewer than k = {k}",
                            expected=f"n >= {k}",
                            got=f"n = {ns[t]}",
                            fix=f"use --k with values <= {min_n}, or run more trials of this task",
                        )
                    )
            k_max = max(bad)
            names = bad[k_max]
            listed = ", ".join(names[:_SHOWN]) + (
                f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
            )
            raise InvalidInputError(
                f"k = {k_max} is larger than the number of graded trials of {len(names)} task(s): {listed}. "
                f"pass@k and pass^k need k <= n for every task (smallest n here: {min_n})",
                problems,
            )
    else:
        ks = sorted({1} | {k for k in DEFAULT_KS if k <= min_n})

    # weights
    weights: Weights | None = None
    weight_list: list[float] | None = None
    if options.weights is not None:
        weights = read_weights(options.weights, root=root)
        missing = [t for t in graded_ids if t not in weights.by_task]
        if missing:
            listed = ", ".join(missing[:_SHOWN]) + (" ..." if len(missing) > _SHOWN else "")
            raise InvalidInputError(
                f"{weights.path}: no weight for {len(missing)} task(s): {listed}",
                [
                    Problem(
                        file=weights.path,
                        message=f"no weight for task {t!r}",
                        expected="a weight for every task in the results",
                        fix="add the task, with weight 0 to leave it out",
                    )
                    for t in missing[:_SHOWN]
                ],
            )
        extra = [t for t in weights.by_task if t not in ns]
        if extra:
            notes.append(f"{len(extra)} weighted task(s) are not in the results and are ignored")
        weight_list = [weights.by_task[t] for t in graded_ids]
        if math.fsum(weight_list) <= 0:
            raise InvalidInputError(
                f"{weights.path}: the weights of the tasks in the results sum to 0",
                [Problem(file=weights.path, message="the weights sum to 0", expected="a positive sum")],
            )

    groups: dict[tuple[int, int], int] = {}
    pairs: list[tuple[int, int]] = []
    for t in graded_ids:
        pair = (ns[t], scan.tasks[t][_OK])
        pairs.append(pair)
        groups[pair] = groups.get(pair, 0) + 1

    doc_pass: dict[str, float] = {}
    doc_pass_exact: dict[str, str] = {}
    doc_pass_ci: dict[str, Any] = {}
    doc_hat: dict[str, float] = {}
    doc_hat_exact: dict[str, str] = {}
    doc_hat_ci: dict[str, Any] = {}
    n_tasks = len(graded_ids)
    if weight_list is not None:
        total_w = math.fsum(weight_list)
        scale = [w * n_tasks / total_w for w in weight_list]
    for k in ks:
        for fn, out, out_exact, out_ci in (
            (pass_at_k, doc_pass, doc_pass_exact, doc_pass_ci),
            (pass_hat_k, doc_hat, doc_hat_exact, doc_hat_ci),
        ):
            cache = {pair: fn(pair[0], pair[1], k) for pair in groups}
            as_float = {pair: float(value) for pair, value in cache.items()}
            per_task = [as_float[p] for p in pairs]
            if weight_list is None:
                exact = _exact_mean(groups, cache)
                out[str(k)] = float(exact)
                out_exact[str(k)] = str(exact)
            else:
                out[str(k)] = math.fsum(w * v for w, v in zip(weight_list, per_task, strict=True)) / total_w
                per_task = [s * v for s, v in zip(scale, per_task, strict=True)]
            if k == 1 and out is doc_hat and weight_list is None:
                out_ci["1"] = doc_pass_ci["1"]  # pass^1 = pass@1 task by task: same interval
            else:
                out_ci[str(k)] = _interval(per_task, options, notes)

    # success rates: task-weighted (= pass@1) beside trial-weighted
    from graderctl.stats import cluster_bootstrap_rate

    outcomes: list[bool] = []
    owners: list[str] = []
    for i, t in enumerate(graded_ids):
        c, n = scan.tasks[t][_OK], ns[t]
        outcomes.extend([True] * c + [False] * (n - c))
        owners.extend([str(i)] * n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trial_ci = cluster_bootstrap_rate(
            outcomes, owners, confidence=options.confidence, n_boot=options.n_boot, seed=options.seed
        )
    notes.extend(str(w.message) for w in caught)
    del outcomes, owners

    success_rate = {
        "task_weighted": {
            "label": "task-weighted (each task counts once; = pass@1"
            + (", declared weights" if weights else "")
            + ")",
            "value": doc_pass["1"],
            "exact": doc_pass_exact.get("1"),
            "ci_low": (doc_pass_ci["1"] or {}).get("low"),
            "ci_high": (doc_pass_ci["1"] or {}).get("high"),
        },
        "trial_weighted": {
            "label": "trial-weighted (every graded trial counts once; tasks with more trials weigh more)",
            "value": successes / graded,
            "successes": successes,
            "trials": graded,
            "ci_low": trial_ci.ci_low,
            "ci_high": trial_ci.ci_high,
            "method": "cluster bootstrap over tasks",
        },
    }

    # categories
    categories: dict[str, Any] = {}
    for cat, per_task_counts in sorted(scan.categories.items()):
        ok = sum(v[_OK] for v in per_task_counts.values())
        fail = sum(v[_FAIL] for v in per_task_counts.values())
        null = sum(v[_NULL] for v in per_task_counts.values())
        task_rates = [v[_OK] / (v[_OK] + v[_FAIL]) for v in per_task_counts.values() if v[_OK] + v[_FAIL]]
        categories[cat] = {
            "tasks": len(per_task_counts),
            "trials": ok + fail + null,
            "successes": ok,
            "failures": fail,
            "null": null,
            "success_rate_task_weighted": statistics.fmean(task_rates) if task_rates else None,
            "success_rate_trial_weighted": ok / (ok + fail) if ok + fail else None,
            "ci": _interval(task_rates, options, notes) if len(task_rates) > 1 else None,
        }
        if not task_rates:
            notes.append(f"category {cat!r} has no graded trial: its success rates are null")

    failures_by_check = {
        check: {
            "failed": v[_FAIL],
            "passed": v[_OK],
            "null": v[_NULL],
            "graders": [
                {"grader": s.grader, "fingerprint": s.fingerprint, "trials": s.trials}
                for s in scan.graders.get(check, {}).values()
            ],
        }
        for check, v in sorted(scan.checks.items())
    }
    by_stop_reason = {
        reason: {"trials": sum(v), "successes": v[_OK], "failures": v[_FAIL], "null": v[_NULL]}
        for reason, v in sorted(scan.stop_reasons.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    }

    cost = _cost(scan, successes, failures, nulls, notes)
    citations = _citations(scan, notes)

    rules = [json.loads(r) for r in scan.rules]
    rules = [r for i, r in enumerate(rules) if r not in rules[:i]]
    if len(rules) > 1:
        notes.append(f"the results were graded under {len(rules)} different success rules: {rules}")
    required: list[str] = []
    if len(rules) == 1 and isinstance(rules[0].get("require"), list):
        required = [str(c) for c in rules[0]["require"]]

    correction: dict[str, Any] | None
    corr_notes: list[str] = []
    correction, corr_notes = _correction(
        scan,
        root,
        required=required,
        successes=successes,
        graded=graded,
        explicit=options.calibration,
        forced=options.correct,
        confidence=options.confidence,
        seed=options.seed,
    )
    notes.extend(corr_notes)

    if scan.untrusted_trials:
        notes.append(
            f"{scan.untrusted_trials} trial(s) were graded by grader(s) not trusted for their check "
            f"({', '.join(sorted(scan.untrusted_graders))}, scored with --allow-untrusted)"
        )
    if scan.self_grading_overrides:
        notes.append(
            f"{scan.self_grading_overrides} trial(s) were graded by a judge of the generator's own family "
            "(--allow-self-grading); see each line's `self_grading`"
        )
    if nulls:
        notes.append(
            f"{nulls} trial(s) could not be graded (success null): counted apart, left out of each task's n, "
            "never taken as failures"
        )

    document: dict[str, Any] = {
        "schema_version": 1,
        "type": "metrics",
        "graderctl_version": __version__,
        "results": {"path": scan.path, "lines": scan.lines},
        "tasks": n_tasks,
        "trials": scan.lines,
        "graded_trials": graded,
        "successes": successes,
        "failures": failures,
        "null_trials": {
            "count": nulls,
            "tasks_without_graded_trials": len(ungraded_tasks),
            "by_reason": dict(sorted(scan.null_reasons.items(), key=lambda kv: -kv[1])[:_SHOWN]),
            "note": "trials with success null are excluded from each task's n and never counted as failures",
        },
        "trials_per_task": {
            "min": n_values[0],
            "median": statistics.median(n_values),
            "max": n_values[-1],
            "counts": "graded trials (success true or false)",
        },
        "k": ks,
        "pass_at_k": doc_pass,
        "pass_hat_k": doc_hat,
        "pass_at_k_exact": doc_pass_exact,
        "pass_hat_k_exact": doc_hat_exact,
        "pass_at_k_ci": doc_pass_ci,
        "pass_hat_k_ci": doc_hat_ci,
        "success_rate": success_rate,
        "weighting": (
            {"kind": "equal", "description": "each task weighted equally"}
            if weights is None
            else {
                "kind": "declared",
                "file": weights.path,
                "sha256": weights.sha256,
                "description": "tasks weighted as declared in the file; exact fractions are not reported",
            }
        ),
        "interval": {
            "confidence": options.confidence,
            "method": "percentile bootstrap over tasks"
            + (" (per-task values scaled by weight x tasks / total weight)" if weights else ""),
            "n_boot": options.n_boot,
            "seed": options.seed,
        },
        "categories": categories,
        "failures_by_check": failures_by_check,
        "by_stop_reason": by_stop_reason,
        "citations": citations,
        "cost": cost,
        "grader_error_correction": correction,
        "rules": rules,
        "combined_graders": combined,
        "untrusted": {"trials": scan.untrusted_trials, "graders": sorted(scan.untrusted_graders)},
        "self_grading_overrides": scan.self_grading_overrides,
        "warnings": notes,
    }
    return MetricsReport(document=document, warnings=notes)


def _citations(scan: ResultScan, notes: list[str]) -> dict[str, Any] | None:
    """Citation coverage over the trials whose lines count their claims (ALCE's citation recall, at the level
    of sentences): cited claims / (cited + uncited). ``None`` when no line counts claims."""
    counted, cited, uncited, nothing = scan.citations
    if not counted:
        return None
    total = cited + uncited
    if not total:
        notes.append("no claim was found in any trial: citation coverage is undefined (null)")
    elif nothing:
        notes.append(
            f"{nothing} trial(s) cite no source at all: their source_existence and claim_support checks fail "
            "with 'no citations found' unless the task sets requires_citations = false"
        )
    return {
        "trials": counted,
        "cited_claims": cited,
        "uncited_claims": uncited,
        "citation_coverage": cited / total if total else None,
        "trials_without_citations": nothing,
        "definition": "claims that cite a source / (those + factual sentences that cite nothing), over the "
        "trials whose result lines count them (uncited_claims, cited_claims)",
    }


def _cost(scan: ResultScan, successes: int, failures: int, nulls: int, notes: list[str]) -> dict[str, Any]:
    total_trials = successes + failures + nulls
    totals: dict[str, float | int | None] = {}
    for name in _COST_FIELDS:
        if name in scan.cost_known:
            value = scan.cost_sum[name]
            totals[name] = (
                int(value) if name != "usd" and name != "wall_seconds" and value.is_integer() else value
            )
        else:
            totals[name] = None
    if totals["input_tokens"] is None and totals["output_tokens"] is None:
        tokens: float | int | None = None
    else:
        tokens = (totals["input_tokens"] or 0) + (totals["output_tokens"] or 0)
    per_success: dict[str, float | None] = {}
    spent: dict[str, float | int | None] = {
        "usd": totals["usd"],
        "tokens": tokens,
        "wall_seconds": totals["wall_seconds"],
    }
    for name, amount in spent.items():
        per_success[name] = None if amount is None or successes == 0 else amount / successes
    if successes == 0:
        notes.append("no trial succeeded: cost per success is null (undefined, not 0)")
    usd_total = totals["usd"]
    failed_share: float | None
    null_share: float | None
    if usd_total is None:
        failed_share = null_share = None
        notes.append("no trial records cost.usd: dollar figures are null")
    elif usd_total == 0:
        failed_share = null_share = None
        notes.append("the recorded dollar cost is 0: the share spent on failed trials is undefined (null)")
    else:
        failed_share = scan.usd_by_outcome[_FAIL] / float(usd_total)
        null_share = scan.usd_by_outcome[_NULL] / float(usd_total)
    known = {name: scan.cost_known.get(name, 0) for name in _COST_FIELDS}
    partial = [name for name, n in known.items() if 0 < n < total_trials]
    if partial:
        notes.append(
            "cost is recorded for only some trials ("
            + ", ".join(f"{name}: {known[name]} of {total_trials}" for name in partial)
            + "); totals cover those"
        )
    return {
        "over": "all trials: successful, failed and ungraded",
        "trials_with_cost": known,
        "input_tokens": totals["input_tokens"],
        "output_tokens": totals["output_tokens"],
        "tokens": tokens,
        "tool_calls": totals["tool_calls"],
        "usd": usd_total,
        "wall_seconds": totals["wall_seconds"],
        "successes": successes,
        "cost_per_success": per_success,
        "failed_share_usd": failed_share,
        "ungraded_share_usd": null_share,
    }


def parse_ks(text: str) -> list[int]:
    """``"1,2,5"`` -> ``[1, 2, 5]``; a usage error for anything else."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            k = int(part)
        except ValueError:
            raise UsageError(
                f"--k takes whole numbers separated by commas, e.g. 1,2,5; got {text!r}"
            ) from None
        if k < 1:
            raise UsageError(f"--k values must be >= 1; got {k}")
        out.append(k)
    if not out:
        raise UsageError(f"--k takes whole numbers separated by commas, e.g. 1,2,5; got {text!r}")
    return out
