"""Collecting problems found in input files, up to a cap, with a count of the rest."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, Problem

DEFAULT_CAP = 100


class ProblemSink:
    """Keeps the first ``cap`` problems and counts the others."""

    def __init__(self, cap: int = DEFAULT_CAP) -> None:
        self.cap = cap
        self.problems: list[Problem] = []
        self.omitted = 0

    def add(self, problem: Problem) -> None:
        if len(self.problems) < self.cap:
            self.problems.append(problem)
        else:
            self.omitted += 1

    def extend(self, problems: Iterable[Problem]) -> None:
        for p in problems:
            self.add(p)

    @property
    def count(self) -> int:
        return len(self.problems) + self.omitted

    def __bool__(self) -> bool:
        return self.count > 0

    def raise_if_any(self, what: str) -> None:
        if self:
            raise InvalidInputError(f"{what}: {self.count} problem(s)", self.problems, omitted=self.omitted)


def pointer(loc: Iterable[Any]) -> str:
    """A JSON pointer (RFC 6901) for a pydantic error location."""
    parts = []
    for item in loc:
        text = str(item).replace("~", "~0").replace("/", "~1")
        parts.append(text)
    return "/" + "/".join(parts) if parts else ""


def _short(value: Any, limit: int = 60) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the (nested) model at ``loc``, for suggesting the nearest known name."""
    import typing

    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        field = current.model_fields.get(str(part))
        if field is None:
            return []
        ann = field.annotation
        # unwrap Optional[...] / list[...]
        for _ in range(3):
            args = [a for a in typing.get_args(ann) if a is not type(None)]
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                break
            if not args:
                break
            ann = args[0]
        current = ann
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


_EXPECTED = {
    "missing": "this required field",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "string_too_short": "a non-empty string",
    "too_short": "a non-empty array",
    "literal_error": "one of the allowed values",
    "enum": "one of the allowed values",
}


def problems_from_validation(
    exc: ValidationError,
    *,
    file: str,
    model: type[BaseModel],
    line: int | None = None,
    pointer_prefix: str = "",
    line_of: Any = None,
) -> list[Problem]:
    """Turn a pydantic error into one problem per field, with pointer, expected, got and a fix."""
    out: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err.get("loc", ()))
        # drop pydantic's union/tag noise such as 'function-after[...]'
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p and "]" in p)))
        ptr = pointer_prefix + pointer(loc)
        etype = err.get("type", "")
        value = err.get("input")
        where_line = line_of(loc) if line_of is not None else line
        if etype == "extra_forbidden":
            name = str(loc[-1]) if loc else "?"
            known = _fields_at(model, loc[:-1])
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            fix = f"did you mean {close[0]!r}?" if close else None
            if not fix and known:
                fix = "remove it; known fields here: " + ", ".join(known)
            out.append(
                Problem(
                    file=file,
                    line=where_line,
                    pointer=ptr,
                    message=f"unknown field {name!r}",
                    expected="one of the known fields",
                    got=repr(name),
                    fix=fix,
                )
            )
            continue
        if etype == "missing":
            out.append(
                Problem(
                    file=file,
                    line=where_line,
                    pointer=ptr,
                    message="missing required field",
                    expected=f"a value for {loc[-1]!r}" if loc else "a value",
                    got="nothing",
                    fix=f"add {loc[-1]!r}" if loc else None,
                )
            )
            continue
        expected = _EXPECTED.get(etype)
        msg = str(err.get("msg", "invalid value"))
        if expected is None or etype in ("literal_error", "enum"):
            ctx = err.get("ctx") or {}
            expected = str(ctx.get("expected")) if "expected" in ctx else (expected or msg)
        if etype.startswith("value_error") or etype == "assertion_error":
            expected = msg.removeprefix("Value error, ")
            msg = "invalid value"
        got = (
            f"{_type_name(value)} {_short(value)}"
            if not isinstance(value, dict | list)
            else _type_name(value)
        )
        out.append(Problem(file=file, line=where_line, pointer=ptr, message=msg, expected=expected, got=got))
    return out
