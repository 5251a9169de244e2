"""Reading JSON Lines and TOML files into validated models, reporting every problem precisely.

Bad input is the normal case: every reader reports what is wrong (file, line, JSON pointer, expected, got,
fix) instead of raising on the first problem. Tolerated without complaint: a UTF-8 byte-order mark, CRLF
line ends, blank lines, and a last line without its newline.

Validation is strict (``strict=True`` on JSON input): ``"success": "yes"`` or ``"version": "2"`` are errors,
not silently coerced, so the models agree with the JSON Schemas generated from them.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import functools
import gc
import json
import math
import os
import re
import stat
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.problems import ProblemSink, pointer, problems_from_validation, short_value, type_name

M = TypeVar("M", bound=BaseModel)
F = TypeVar("F")

BOM = b"\xef\xbb\xbf"


def display_path(path: Path, root: Path | None = None) -> str:
    """Paths in messages and reports are relative to the project root (or the working directory)."""
    try:
        base = root or Path.cwd()
        return str(path.resolve().relative_to(base.resolve()))
    except (ValueError, OSError, RuntimeError):  # outside the root; a symlink loop (RuntimeError before 3.13)
        return str(path)


def recorded_path(path: Path, root: Path) -> str:
    """How a file is named in results: relative to the project root when inside it, else absolute, so that
    ``--rescore`` finds it again from anywhere in the project."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(resolved)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic objects (models) are created.

    Validated models hold no reference cycles, but each generation-0 collection still walks the ever-growing
    set of live objects: on a 100,000-sample set that costs more than the parsing itself."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_bytes(path: Path, shown: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InvalidInputError(
            f"{shown}: no such file",
            [Problem(file=shown, message="no such file", fix="check the path")],
        ) from None
    except IsADirectoryError:
        raise InvalidInputError(
            f"{shown}: is a folder",
            [Problem(file=shown, message="expected a file", expected="a file", got="a folder")],
        ) from None
    except OSError as exc:
        raise _unreadable(shown, exc) from None


def _unreadable(shown: str, exc: OSError) -> InvalidInputError:
    """A file that exists but cannot be read (permissions, I/O error): exit 3 with the system's reason."""
    return InvalidInputError(
        f"{shown}: unreadable",
        [Problem(file=shown, message=f"cannot read the file: {exc.strerror}", fix="check its permissions")],
    )


def _empty_file(shown: str) -> Problem:
    return Problem(
        file=shown,
        line=1,
        message="the file is empty",
        expected="one JSON object per line",
        got="no content",
        fix="add records, or remove the file",
    )


def iter_json_lines(data: bytes, shown: str, sink: ProblemSink) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` for non-blank lines, without their line end. Tolerates a UTF-8 BOM
    and CRLF line ends; reports an empty file."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    seen = False
    pos, size, number = 0, len(data), 0
    while pos < size:
        end = data.find(b"\n", pos)
        if end < 0:
            end = size
        number += 1
        raw = data[pos:end]
        pos = end + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.strip():
            seen = True
            yield number, raw
    if not seen:
        sink.add(_empty_file(shown))


def decode_json_line(
    raw: bytes,
    number: int,
    shown: str,
    sink: ProblemSink,
    *,
    is_last: bool,
    pointer_prefix: str = "",
    parser_message: str | None = None,
) -> Any:
    """Decode one line to a JSON value, or record the problem and return ``None``.

    ``is_last`` says the line is the file's last one and has no line end: an incomplete value there is
    reported as a truncated line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        sink.add(
            Problem(
                file=shown,
                line=number,
                pointer=pointer_prefix,
                message=f"invalid UTF-8 at byte {exc.start + 1} of the line",
                expected="UTF-8 text",
                got=f"byte 0x{raw[exc.start]:02x}",
                fix="re-save the file as UTF-8",
            )
        )
        return None
    try:
        return json.loads(text)
    except RecursionError:
        exc_msg = "nested too deeply"
        sink.add(
            Problem(
                file=shown,
                line=number,
                pointer=pointer_prefix,
                message=f"invalid JSON: {exc_msg}",
                expected="at most 200 levels of nesting",
                got="deeper nesting",
                fix="flatten the record",
            )
        )
        return None
    except json.JSONDecodeError as exc:
        at_end = exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string")
        if is_last and at_end:
            message, fix = (
                "the last line is truncated: the JSON value is incomplete",
                "complete the last line or remove it (was the file cut short while being written?)",
            )
        else:
            message, fix = (
                f"invalid JSON at column {exc.colno}: {exc.msg}",
                "fix the JSON syntax (one complete object per line, double quotes, no trailing commas)",
            )
        sink.add(
            Problem(
                file=shown,
                line=number,
                pointer=pointer_prefix,
                message=message,
                expected="one complete JSON object on this line",
                got=_snippet(text, exc.pos),
                fix=fix,
            )
        )
        return None
    except ValueError as exc:  # e.g. integers with too many digits
        sink.add(
            Problem(
                file=shown,
                line=number,
                pointer=pointer_prefix,
                message=f"invalid JSON: {exc}",
                expected="a JSON object",
                got=_snippet(text, 0),
            )
        )
        return None


def _snippet(text: str, pos: int, width: int = 24) -> str:
    """The text around ``pos``, in backticks, on one line; "<end of line>" when the text stops there."""
    start = max(0, pos - width)
    piece = text[start : pos + width].replace("\r", "\\r").replace("\n", "\\n")
    before = "…" if start else ""
    after = "…" if pos + width < len(text) else ""
    end = " <end of line>" if pos >= len(text.rstrip()) else ""
    return f"`{before}{piece}{after}`{end}"


def _problems_of_line(
    exc: ValidationError,
    raw: bytes,
    number: int,
    shown: str,
    sink: ProblemSink,
    model: type[BaseModel],
    *,
    last: bool,
) -> None:
    """Explain why a line failed validation: bad bytes or JSON syntax, not an object, or schema errors."""
    errors = exc.errors(include_url=False)
    if any(e.get("type") == "json_invalid" for e in errors):
        before = sink.count
        value = decode_json_line(raw, number, shown, sink, is_last=last)
        if sink.count > before:
            return
        if value is not None or raw.strip() == b"null":
            # json accepted what pydantic's parser refused (nesting deeper than its limit, ...).
            msg = str(errors[0].get("msg", "invalid JSON")).removeprefix("Invalid JSON: ")
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    message=f"invalid JSON: {msg}",
                    expected="a JSON object of moderate depth",
                    got=_snippet(raw.decode("utf-8", "replace"), 0),
                )
            )
        return
    if len(errors) == 1 and errors[0].get("type") == "model_type" and not errors[0].get("loc"):
        value = errors[0].get("input")
        sink.add(
            Problem(
                file=shown,
                line=number,
                message="not a JSON object",
                expected="an object {...}",
                got=f"{type_name(value)} {short_value(value)}",
                fix="each line must be one JSON object",
            )
        )
        return
    sink.extend(problems_from_validation(exc, file=shown, model=model, line=number))


def _one_document(
    exc: ValidationError, raw: bytes, data: bytes, number: int, shown: str, sink: ProblemSink
) -> bool:
    """A pretty-printed JSON document (or array) where JSON Lines are expected: one problem, not one per
    line. True when that is what the file is."""
    if not any(e.get("type") == "json_invalid" for e in exc.errors(include_url=False)):
        return False
    try:
        json.loads(raw)
        return False  # the line is complete JSON by itself
    except (ValueError, RecursionError):
        pass
    try:
        value = json.loads(data.removeprefix(BOM))
    except (ValueError, RecursionError):
        return False
    lines = len(data.splitlines())
    sink.add(
        Problem(
            file=shown,
            line=number,
            message=f"the file is one JSON document over {lines} lines, not JSON Lines",
            expected="one JSON object per line (JSON Lines)",
            got=f"{type_name(value)} spread over several lines",
            fix="write one compact object per line, e.g. `jq -c '.[]' FILE` for an array",
        )
    )
    return True


Explainer = Callable[[ValidationError, bytes, int], "list[Problem] | None"]

#: Whether valid lines are also checked for duplicate keys (``validate`` and ``score`` turn it on; a JSON
#: parser keeps the last of two equal keys silently, so ``{"success": false, "success": true}`` would pass).
_CHECK_DUPLICATE_KEYS: contextvars.ContextVar[bool] = contextvars.ContextVar("duplicate_keys", default=False)


@contextlib.contextmanager
def duplicate_keys_checked() -> Iterator[None]:
    """Within this block, a JSON Lines record with a key twice in one object is a problem."""
    token = _CHECK_DUPLICATE_KEYS.set(True)
    try:
        yield
    finally:
        _CHECK_DUPLICATE_KEYS.reset(token)


class _Pairs(list[tuple[str, Any]]):
    """An object's members in file order, duplicates kept."""


def _first_duplicate(value: Any, loc: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    if isinstance(value, _Pairs):
        seen: set[str] = set()
        for key, _ in value:
            if key in seen:
                return loc, key
            seen.add(key)
        for key, item in value:
            found = _first_duplicate(item, (*loc, key))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_duplicate(item, (*loc, i))
            if found is not None:
                return found
    return None


def duplicate_key_problem(raw: bytes | str, shown: str, line: int | None) -> Problem | None:
    """The first key that appears twice in one object of a JSON text, as a problem; ``None`` if none does
    (or if the text is not JSON: that is reported elsewhere)."""
    try:
        # Numbers stay text: only keys matter here, and Python refuses integers of over 4,300 digits that
        # other parsers (msgspec, pydantic) read.
        value = json.loads(raw, object_pairs_hook=_Pairs, parse_int=str, parse_float=str)
    except (ValueError, RecursionError):
        return None
    found = _first_duplicate(value)
    if found is None:
        return None
    loc, key = found
    return Problem(
        file=shown,
        line=line,
        pointer=pointer(loc),
        message=f"duplicate key {key!r} in one object",
        expected="each key once per object",
        got=f"{key!r} twice",
        fix="remove one of them (JSON readers disagree on which one counts)",
    )


def _key_checks() -> types.ModuleType | None:
    """:mod:`graderctl.store.json_keys` when records are checked for duplicate keys (else ``None``): each
    line is then read once (:func:`~graderctl.store.json_keys.read_strictly`: the value msgspec reads), which
    proves most lines free of repeated keys and of non-finite numbers (the exact checks run on the others)."""
    if not _CHECK_DUPLICATE_KEYS.get():
        return None
    from graderctl.store import json_keys

    return json_keys


def _non_finite_refused(
    keys: types.ModuleType | None, value: Any, raw: bytes, number: int, shown: str, sink: ProblemSink
) -> bool:
    """Whether line ``number`` holds a NaN or Infinity literal (its problem said). Looked for only where
    msgspec could not read the line (``value`` from :func:`_key_checks`), as msgspec reads no NaN, Infinity
    or number out of range."""
    return (
        (keys is None or value is keys.UNREAD)
        and (b"NaN" in raw or b"Infinity" in raw)
        and _non_finite_json(raw, number, shown, sink)
    )


def _repeated_key_refused(
    keys: types.ModuleType | None, value: Any, raw: bytes, number: int, shown: str, sink: ProblemSink
) -> bool:
    """Whether line ``number`` repeats a key in one object (its problem said), when keys are checked: the
    exact check runs only on a line the cheap filter cannot clear."""
    if keys is None or not keys.may_repeat_a_key_of(raw, value):
        return False
    duplicate = duplicate_key_problem(raw, shown, number)
    if duplicate is None:
        return False
    sink.add(duplicate)
    return True


def iter_jsonl_models(
    path: Path,
    model: type[M],
    *,
    shown: str,
    sink: ProblemSink,
    strict: bool = True,
    explain: Explainer | None = None,
) -> Iterator[tuple[int, M]]:
    """Parse and validate a JSON Lines file line by line; every problem goes to ``sink``. Yields
    ``(line, model)`` for each valid line. ``explain(error, raw_line, line)`` may replace the problems of a
    line that is valid JSON but fails validation (return ``None`` to keep the default ones)."""
    return iter_jsonl_fast(path, model, shown=shown, sink=sink, strict=strict, explain=explain, fast=None)


def iter_jsonl_fast(
    path: Path,
    model: type[M],
    *,
    shown: str,
    sink: ProblemSink,
    fast: Callable[[bytes], F | None] | None,
    strict: bool = True,
    explain: Explainer | None = None,
    data: bytes | None = None,
    from_value: bool = False,
) -> Iterator[tuple[int, M | F]]:
    """:func:`iter_jsonl_models` with a fast path: ``fast(raw_line)`` returns the line's record when it
    accepts the line (it must accept only lines ``model`` accepts, with the same values), else ``None``, and
    the line is validated by ``model`` as usual (its problems reported the same way). Yields ``(line, record
    or model)``. ``data``: the file's bytes, when the caller has read them.

    ``from_value``: when keys are checked (the line is then read into a value anyway), validate that value in
    Python mode first (about twice as fast as parsing the bytes again); a value refused that way is validated
    from the bytes as usual, so every problem is JSON mode's. Only for a model whose strict Python-mode
    validation of JSON values accepts exactly the values strict JSON mode accepts, with the same result (no
    tuples, enums, dates or bytes, which Python mode refuses and JSON mode reads): :class:`Trial` (tested,
    ``tests/store/test_trial_key_checks.py``)."""
    whole: Callable[[], bytes]
    lines: Iterator[tuple[int, bytes, bool]]
    if data is None and _regular_file(path):
        # read as it goes: reading a large file whole first copies it into memory the process must first be
        # given, page by page (~4 us a line of 6 KB of the 10,000 benchmark trials, against ~1.5 us)
        lines = ((number, raw, last) for number, _, raw, last in iter_file_lines(path, shown, sink))
        whole = functools.partial(read_bytes, path, shown)  # only for a problem on the first line
    else:
        if data is None:
            data = read_bytes(path, shown)
        lines = _json_lines_of(data, shown, sink)
        whole = functools.partial(bytes, data)
    first = True
    keys = _key_checks()
    for number, raw, last_open in lines:
        value = keys.read_strictly(raw) if keys is not None else None
        if _non_finite_refused(keys, value, raw, number, shown, sink):
            continue
        record: M | F | None = fast(raw) if fast is not None else None
        if record is None and from_value and keys is not None and value is not keys.UNREAD:
            record = _valid_value(model, value, strict)
        if record is not None:
            first = False
            if _repeated_key_refused(keys, value, raw, number, shown, sink):
                continue
            yield number, record
            continue
        try:
            # pydantic parses and validates the raw bytes in one go.
            item: M | F = model.model_validate_json(raw, strict=strict)
        except ValidationError as exc:
            if first and _one_document(exc, raw, whole(), number, shown, sink):
                return
            first = False
            custom = explain(exc, raw, number) if explain is not None else None
            if custom is not None:
                sink.extend(custom)
            else:
                _problems_of_line(exc, raw, number, shown, sink, model, last=last_open)
            continue
        first = False
        if _repeated_key_refused(keys, value, raw, number, shown, sink):
            continue
        yield number, item


def _regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):  # reading it says why (the same problem as before)
        return False


def _json_lines_of(data: bytes, shown: str, sink: ProblemSink) -> Iterator[tuple[int, bytes, bool]]:
    """:func:`iter_json_lines` of ``data`` as ``(line_number, raw_line, last_open)``: ``last_open`` says the
    line is the last one and has no line end."""
    last_line_open = not data.endswith(b"\n")
    total = data.count(b"\n") + (1 if last_line_open else 0)
    for number, raw in iter_json_lines(data, shown, sink):
        yield number, raw, last_line_open and number == total


def _valid_value(model: type[M], value: Any, strict: bool) -> M | None:
    """``value`` validated by ``model`` in Python mode, or ``None`` when it is refused (see
    :func:`iter_jsonl_fast`, ``from_value``)."""
    try:
        # (what model_validate runs, without its own Python frame: 0.5 us of the 3.5 a benchmark trial takes)
        record: M = model.__pydantic_validator__.validate_python(value, strict=strict)
    except ValidationError:
        return None
    return record


def open_binary(path: Path, shown: str) -> BinaryIO:
    """``path`` opened for reading bytes; the same :class:`InvalidInputError` as :func:`read_bytes` when it
    cannot be."""
    try:
        return path.open("rb", buffering=1 << 16)  # (a 64 KB buffer: fewer reads of a large file than 8 KB)
    except OSError:
        read_bytes(path, shown)  # raises the InvalidInputError that says why
        raise


def iter_file_lines(
    path: Path, shown: str, sink: ProblemSink, *, fh: BinaryIO | None = None
) -> Iterator[tuple[int, int, bytes, bool]]:
    """Like :func:`iter_json_lines`, but reading the file as it goes (memory bounded by the longest line):
    yields ``(line_number, offset, raw_line, last_open)`` for non-blank lines, where ``offset`` is the byte
    offset of ``raw_line`` in the file (``os.pread(fd, len(raw_line), offset)`` reads it again) and
    ``last_open`` says the line is the file's last one and has no line end. Reads ``fh`` (from its start)
    when given, else opens ``path``."""
    own = fh is None
    if fh is None:
        fh = open_binary(path, shown)
    else:
        fh.seek(0)
    seen = False
    with fh if own else contextlib.nullcontext(fh):
        offset = 0
        for number, line in enumerate(_read_lines(fh, path, shown), start=1):
            start = offset
            offset += len(line)
            raw = line
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
                start += len(BOM)
            is_open = not raw.endswith(b"\n")
            if not is_open:
                raw = raw[:-1]
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if raw.strip():
                seen = True
                yield number, start, raw, is_open
    if not seen:
        sink.add(_empty_file(shown))


def _whole(path: Path, shown: str, fh: BinaryIO | None) -> bytes:
    if fh is None:
        return read_bytes(path, shown)
    return os.pread(fh.fileno(), os.fstat(fh.fileno()).st_size, 0)


def _read_lines(fh: Any, path: Path, shown: str) -> Iterator[bytes]:
    try:
        yield from fh
    except OSError as exc:
        raise _unreadable(shown, exc) from None


def iter_jsonl_file_models(
    path: Path,
    model: type[M],
    *,
    shown: str,
    sink: ProblemSink,
    strict: bool = True,
    fh: BinaryIO | None = None,
) -> Iterator[tuple[int, int, int, M]]:
    """:func:`iter_jsonl_models` reading the file as it goes (the same problems, memory bounded by the
    longest line): yields ``(line, offset, length, model)`` for each valid line, where ``offset`` and
    ``length`` locate the line's bytes in the file."""
    first = True
    keys = _key_checks()
    for number, offset, raw, last_open in iter_file_lines(path, shown, sink, fh=fh):
        value = keys.read_strictly(raw) if keys is not None else None
        if _non_finite_refused(keys, value, raw, number, shown, sink):
            continue
        try:
            item = model.model_validate_json(raw, strict=strict)
        except ValidationError as exc:
            if first and _one_document(exc, raw, _whole(path, shown, fh), number, shown, sink):
                return
            first = False
            _problems_of_line(exc, raw, number, shown, sink, model, last=last_open)
            continue
        first = False
        if _repeated_key_refused(keys, value, raw, number, shown, sink):
            continue
        yield number, offset, len(raw), item


def read_jsonl_models(
    path: Path,
    model: type[M],
    *,
    shown: str,
    sink: ProblemSink,
    post: Callable[[M, int], None] | None = None,
    strict: bool = True,
    from_value: bool = False,
) -> list[tuple[int, M]]:
    """Parse and validate a JSON Lines file; every problem goes to ``sink``. Returns ``(line, model)``.
    ``from_value``: see :func:`iter_jsonl_fast`."""
    out: list[tuple[int, M]] = []
    with paused_gc():
        lines = iter_jsonl_fast(
            path, model, shown=shown, sink=sink, strict=strict, fast=None, from_value=from_value
        )
        for number, item in lines:
            if post is not None:
                post(item, number)
            out.append((number, item))
    return out


class _Constant:
    """Stands for a NaN or Infinity literal while looking for where it is."""

    def __init__(self, text: str) -> None:
        self.text = text


def _constants(value: Any, loc: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, _Constant):
        yield loc, value.text
    elif isinstance(value, float) and not math.isfinite(value):
        yield loc, {"nan": "nan"}.get(str(value), str(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _constants(v, (*loc, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _constants(v, (*loc, i))


def _non_finite_problem(
    shown: str, line: int | None, loc: tuple[Any, ...], text: str, *, toml: bool = False
) -> Problem:
    return Problem(
        file=shown,
        line=line,
        pointer=pointer(loc),
        message="not a finite number",
        expected="a finite number" + ("" if toml else ", or null when the value is undefined"),
        got=text,
        fix="write the number" if toml else "write null when the value is undefined",
    )


def _non_finite_json(raw: bytes, number: int, shown: str, sink: ProblemSink) -> bool:
    """Report NaN and Infinity literals (not JSON, though Python and pydantic accept them); True if any."""
    try:
        value = json.loads(raw, parse_constant=_Constant)
    except (ValueError, RecursionError):
        return False
    found = list(_constants(value))
    for loc, text in found:
        sink.add(_non_finite_problem(shown, number, loc, text))
    return bool(found)


def toml_non_finite(
    data: dict[str, Any], shown: str, line_of: Callable[[tuple[Any, ...]], int | None]
) -> list[Problem]:
    """``nan`` and ``inf`` in a TOML document: never meaningful in graderctl's files."""
    return [_non_finite_problem(shown, line_of(loc), loc, text, toml=True) for loc, text in _constants(data)]


def without_pointers(problems: list[Problem], taken: list[Problem]) -> list[Problem]:
    """``problems`` minus those at a pointer already reported in ``taken`` (one problem per field)."""
    seen = {p.pointer for p in taken}
    return [p for p in problems if p.pointer not in seen]


# --- TOML ---------------------------------------------------------------------------------------------

_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)")
_TOML_END = re.compile(r"\s*\(at end of document\)")


def read_toml(path: Path, shown: str) -> tuple[dict[str, Any], str]:
    """Parse a TOML file; a syntax error becomes a located problem. Returns the data and the text."""
    import tomllib  # imported here: a run that reads no TOML file (units, score) does not load the parser

    data = read_bytes(path, shown)
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InvalidInputError(
            f"{shown}: invalid UTF-8",
            [
                Problem(
                    file=shown,
                    line=line,
                    message="invalid UTF-8",
                    expected="UTF-8 text",
                    got=f"byte 0x{data[exc.start]:02x}",
                    fix="re-save the file as UTF-8",
                )
            ],
        ) from None
    if not text.strip():
        raise InvalidInputError(
            f"{shown}: empty",
            [
                Problem(
                    file=shown,
                    line=1,
                    message="the file is empty",
                    expected="a TOML document",
                    got="no content",
                    fix="write the definition (see CONTRACT.md), or remove the file",
                )
            ],
        )
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raw_msg = str(exc)
        m = _TOML_POS.search(raw_msg)
        err_line: int | None = int(m.group(1)) if m else None
        if err_line is None and _TOML_END.search(raw_msg):
            err_line = max(1, len(text.splitlines()))
        msg = _TOML_END.sub("", _TOML_POS.sub("", raw_msg)).strip()
        raise InvalidInputError(
            f"{shown}: TOML syntax error",
            [
                Problem(
                    file=shown,
                    line=err_line,
                    message=f"TOML syntax error: {msg}",
                    expected="valid TOML",
                    got=_line_text(text, err_line),
                    fix='check this line: key = value, strings in "double quotes", [table] headers '
                    "(see https://toml.io)",
                )
            ],
        ) from None


def _line_text(text: str, line: int | None) -> str | None:
    if line is None:
        return None
    lines = text.splitlines()
    return f"`{lines[line - 1].strip()}`" if 0 < line <= len(lines) else None


def toml_to_json(value: Any) -> Any:
    """TOML values as JSON has them (dates and times become RFC 3339 strings), so TOML documents are
    validated by the same strict JSON rules as JSON Lines."""
    if isinstance(value, dict):
        return {k: toml_to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [toml_to_json(v) for v in value]
    if isinstance(value, _dt.date | _dt.time):
        return value.isoformat()
    return value


def validate_toml_data(model: type[M], data: dict[str, Any]) -> M:
    """Strictly validate parsed TOML against a model (raises :class:`ValidationError`)."""
    return model.model_validate_json(json.dumps(toml_to_json(data), allow_nan=True), strict=True)


_KEY = r'(?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\')'
_HEADER = re.compile(rf"^\s*\[\[?\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*=")


def _split_key(key: str) -> tuple[str, ...]:
    parts = re.findall(r'"[^"]*"|\'[^\']*\'|[^.\s]+', key)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def toml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line of each table header and key assignment of a TOML text, by full dotted path.

    Multi-line strings and arrays are skipped over only approximately; this serves messages, not parsing."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline is not None:
            if line.count(in_multiline) % 2 == 1:
                in_multiline = None
            continue
        m = _HEADER.match(line)
        if m:
            table = _split_key(m.group(1))
            found.setdefault(table, number)
            continue
        m = _ASSIGN.match(line)
        if m:
            key = (*table, *_split_key(m.group(1)))
            found.setdefault(key, number)
            rest = line[m.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) % 2 == 1:
                    in_multiline = quote
    return found


def toml_line_of(text: str) -> Callable[[tuple[Any, ...]], int | None]:
    """A function from a (table, key, index...) location to its line in a TOML text (best effort): the key's
    own line, else its nearest enclosing table's or key's line, else line 1 (a missing top-level key)."""
    lines = toml_key_lines(text)

    def find(loc: tuple[Any, ...]) -> int | None:
        keys = tuple(str(p) for p in loc if not isinstance(p, int))
        while keys:
            if keys in lines:
                return lines[keys]
            keys = keys[:-1]
        return 1

    return find
