"""Reading JSON Lines and TOML files into validated models, reporting every problem precisely."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.problems import ProblemSink, problems_from_validation

M = TypeVar("M", bound=BaseModel)

BOM = b"\xef\xbb\xbf"


def display_path(path: Path, root: Path | None = None) -> str:
    """Paths in messages and reports are relative to the project root (or the working directory)."""
    base = root or Path.cwd()
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


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
            f"{shown}: is a folder", [Problem(file=shown, message="expected a file, got a folder")]
        ) from None
    except OSError as exc:
        raise InvalidInputError(
            f"{shown}: unreadable", [Problem(file=shown, message=f"cannot read the file: {exc.strerror}")]
        ) from None


def iter_json_lines(data: bytes, shown: str, sink: ProblemSink) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` for non-blank lines. Tolerates a UTF-8 BOM and CRLF line ends;
    reports an empty file."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if not data.strip():
        sink.add(
            Problem(
                file=shown,
                line=1,
                message="the file is empty",
                expected="one JSON object per line",
                got="no content",
                fix="add records, or remove the file",
            )
        )
        return
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.strip():
            yield number, raw


def decode_json_line(
    raw: bytes, number: int, shown: str, sink: ProblemSink, *, is_last: bool, pointer_prefix: str = ""
) -> Any:
    """Decode one line to a JSON value, or record the problem and return ``None``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        sink.add(
            Problem(
                file=shown,
                line=number,
                message=f"invalid UTF-8 at byte {exc.start + 1} of the line",
                expected="UTF-8 text",
                got=f"byte 0x{raw[exc.start]:02x}",
                fix="re-save the file as UTF-8",
            )
        )
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        truncated = is_last and exc.pos >= len(text.rstrip()) - 1
        sink.add(
            Problem(
                file=shown,
                line=number,
                message=f"invalid JSON at column {exc.colno}: {exc.msg}",
                expected="one complete JSON object on this line",
                got=_snippet(text, exc.pos),
                fix="the last line looks truncated: complete it or remove it"
                if truncated
                else "fix the JSON syntax (one object per line, no trailing commas)",
            )
        )
        return None


def _snippet(text: str, pos: int, width: int = 24) -> str:
    start = max(0, pos - width)
    piece = text[start : pos + width]
    return json.dumps(("…" if start else "") + piece + ("…" if pos + width < len(text) else ""))


def read_jsonl_models(
    path: Path,
    model: type[M],
    *,
    shown: str,
    sink: ProblemSink,
    post: Callable[[M, int], None] | None = None,
) -> list[tuple[int, M]]:
    """Parse and validate a JSON Lines file; every problem goes to ``sink``. Returns ``(line, model)``."""
    data = read_bytes(path, shown)
    out: list[tuple[int, M]] = []
    lines = list(iter_json_lines(data, shown, sink))
    last = lines[-1][0] if lines else 0
    for number, raw in lines:
        # Fast path: pydantic parses and validates the raw bytes directly.
        try:
            item = model.model_validate_json(raw)
        except ValidationError:
            item = None
        if item is None:
            value = decode_json_line(raw, number, shown, sink, is_last=number == last)
            if value is None:
                continue
            if not isinstance(value, dict):
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        message="not a JSON object",
                        expected="an object {...}",
                        got=_kind_of(value),
                        fix="each line must be one JSON object",
                    )
                )
                continue
            try:
                item = model.model_validate(value)
            except ValidationError as exc:
                sink.extend(problems_from_validation(exc, file=shown, model=model, line=number))
                continue
        if post is not None:
            post(item, number)
        out.append((number, item))
    return out


def _kind_of(value: Any) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_toml(path: Path, shown: str) -> tuple[dict[str, Any], str]:
    """Parse a TOML file; a syntax error becomes a located problem. Returns the data and the text."""
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
                )
            ],
        )
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_POS.search(str(exc))
        err_line = int(m.group(1)) if m else None
        msg = _TOML_POS.sub("", str(exc)).strip()
        raise InvalidInputError(
            f"{shown}: TOML syntax error",
            [
                Problem(
                    file=shown,
                    line=err_line,
                    message=f"TOML syntax error: {msg}",
                    expected="valid TOML",
                    got=_line_text(text, err_line),
                    fix="see https://toml.io for the syntax",
                )
            ],
        ) from None


def _line_text(text: str, line: int | None) -> str | None:
    if line is None:
        return None
    lines = text.splitlines()
    return json.dumps(lines[line - 1].strip()) if 0 < line <= len(lines) else None


def toml_line_of(text: str) -> Callable[[tuple[Any, ...]], int | None]:
    """Best-effort line number of a (table, key) location in a TOML text, for messages."""
    lines = text.splitlines()

    def find(loc: tuple[Any, ...]) -> int | None:
        keys = [str(p) for p in loc if not isinstance(p, int)]
        if not keys:
            return None
        section = None
        target = keys[-1]
        if len(keys) >= 2:
            section = keys[-2]
        current_section: str | None = None
        fallback: int | None = None
        for i, raw in enumerate(lines, start=1):
            s = raw.strip()
            if s.startswith("[") and s.endswith("]"):
                current_section = s.strip("[]").strip().split(".")[-1]
                if section and current_section == section and target == section:
                    return i
                continue
            if re.match(rf"^{re.escape(target)}\s*=", s) or re.match(rf'^"{re.escape(target)}"\s*=', s):
                if section is None and current_section is None:
                    return i
                if section is not None and current_section == section:
                    return i
                fallback = fallback or i
        if section is not None:
            for i, raw in enumerate(lines, start=1):
                if raw.strip().strip("[]").strip().split(".")[-1] == section and raw.strip().startswith("["):
                    return i
        return fallback

    return find
