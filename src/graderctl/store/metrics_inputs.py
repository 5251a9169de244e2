"""What ``graderctl metrics`` reads: result lines (a fast ``msgspec`` decoder into per-task counters, every
bad line a located problem), declared task weights (``--weights``), the verdicts of comparison reports under
``reports/comparisons/`` (to combine results of comparable grader versions) and calibration reports.

Files can be large (a million lines), so the results are not validated by the full pydantic model: the decoder
reads just the fields metrics needs, line by line, and keeps per-task counters only, never the lines. A file
of 64 MB or more is read by two forked processes, one half each.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import itertools
import json
import math
import re
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.reports import CalibrationReport
from graderctl.store.json_keys import may_repeat_a_key
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import BOM, decode_json_line, display_path, duplicate_key_problem

COMPARISONS_DIR = ("reports", "comparisons")

#: Index of each counter in the per-task / per-category lists.
OK, FAIL, NULL = 0, 1, 2
_OK, _FAIL, _NULL = OK, FAIL, NULL

COST_FIELDS = ("input_tokens", "output_tokens", "tool_calls", "usd", "wall_seconds")
_COST_FIELDS = COST_FIELDS


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


#: Read a MB at a time: a worker holds a few blocks (was 16 MB: 70 MB more in each worker, no faster).
_BLOCK_BYTES = 1 << 20
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
    dropped. Each byte is copied once (into its line), a line longer than a block too."""
    with _open(path, shown) as fh:
        if start:  # a pipe (``<(...)``, ``/dev/stdin``) cannot seek, and is read whole from its start
            fh.seek(start)
        remaining = None if end is None else end - start
        pending: list[bytes] = []  # the start of an unfinished line, in pieces
        first = start == 0
        while True:
            size = _BLOCK_BYTES if remaining is None else min(_BLOCK_BYTES, remaining)
            block = fh.read(size) if size > 0 else b""
            if remaining is not None:
                remaining -= len(block)
            if not block:
                if pending:
                    yield [b"".join(pending)]
                return
            if first:
                block = block.removeprefix(BOM)
                first = False
            if b"\n" not in block:
                if block:
                    pending.append(block)
                continue
            lines = block.split(b"\n")
            if pending:
                pending.append(lines[0])
                lines[0] = b"".join(pending)
            last = lines.pop()
            pending = [last] if last else []
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
    #: The keys' hashes, when the part was read by a worker process (then ``keys`` is empty).
    hashes: array[int] = field(default_factory=lambda: array("q"))
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
            if may_repeat_a_key(raw):
                duplicate = duplicate_key_problem(raw.rstrip(b"\r"), shown, number)
                if duplicate is not None:
                    sink.add(duplicate)
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
    worker shares the parent's hash seed), which is enough to find duplicates across parts; as an array of
    8-byte integers (4 MB for half a million lines; a set of them took 32 MB in the worker and again in the
    parent, and a pickled integer each way)."""
    part = _scan_part(path, shown, start, end, cap)
    part.hashes = array("q", map(hash, part.keys))
    part.keys = set()
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
    # A (task, trial) in two parts (or two keys with one hash): let the serial scan say exactly where (rare:
    # a broken file).
    seen = set(parts[0].hashes)
    for i, part in enumerate(parts[1:], start=2):
        if not seen.isdisjoint(part.hashes):
            return None
        if i < len(parts):
            seen.update(part.hashes)
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


def read_calibration_reports(
    root: Path, explicit: Sequence[Path]
) -> tuple[list[tuple[str, CalibrationReport]], list[str]]:
    """The calibration reports given explicitly (an unreadable one is an error), or every report under
    ``reports/`` (an unreadable one is skipped with a note), each with its path as shown."""
    from graderctl.store.reports import read_report, report_files

    notes: list[str] = []
    found: list[tuple[str, CalibrationReport]] = []
    for path in list(explicit) if explicit else report_files(root):
        try:
            report = read_report(path, root=root)
        except InvalidInputError as exc:
            if explicit:
                raise
            notes.append(f"skipped unreadable report {display_path(path, root)}: {exc}")
            continue
        found.append((display_path(path, root), report))
    return found, notes
