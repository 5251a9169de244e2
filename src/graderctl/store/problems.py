"""Collecting problems found in input files, up to a cap, with a count of the rest; turning pydantic errors
into problems a person can act on (pointer, expected, got, fix)."""

from __future__ import annotations

import difflib
import json
import types
import typing
from collections.abc import Callable, Iterable
from enum import Enum
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

    def absorb(self, exc: InvalidInputError) -> None:
        """Take over the problems (and the count of omitted ones) of an error raised by a loader."""
        self.extend(exc.problems)
        self.omitted += exc.omitted
        if not exc.problems and not exc.omitted:
            self.add(Problem(file="?", message=str(exc)))

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
    parts = [str(item).replace("~", "~0").replace("/", "~1") for item in loc]
    return "/" + "/".join(parts) if parts else ""


def short_value(value: Any, limit: int = 60) -> str:
    """A value as JSON, shortened for a one-line message."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _got(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict) and not value:
        return "an empty object {}"
    if isinstance(value, list) and not value:
        return "an empty array []"
    return f"{type_name(value)} {short_value(value)}"


# --- the model structure behind an error location ----------------------------------------------------


class _DictOf:
    """Marks a ``dict[str, X]`` on the way down a location: the next part is a key, not a field."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values


def _unwrap(ann: Any) -> list[Any]:
    """The component types of an annotation: ``X | None`` -> [X]; ``list[X]`` -> [X]; ``dict[str, X]`` ->
    [_DictOf([X])]."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(ann)[0])
    if origin in (typing.Union, types.UnionType):
        return [a for arg in typing.get_args(ann) if arg is not type(None) for a in _unwrap(arg)]
    if origin in (list, tuple, set, frozenset):
        args = typing.get_args(ann)
        return [a for arg in args[:1] for a in _unwrap(arg)]
    if origin is dict:
        args = typing.get_args(ann)
        return [_DictOf(_unwrap(args[1]) if len(args) == 2 else [])]
    return [ann]


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _field_type_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[Any]:
    """Candidate types at ``loc`` inside ``model`` (several for unions)."""
    current: list[Any] = [model]
    for part in loc:
        if isinstance(part, int):
            continue  # list index: _unwrap already descended into the item type
        nxt: list[Any] = []
        for t in current:
            if _is_model(t):
                field = t.model_fields.get(str(part))
                if field is not None:
                    nxt.extend(_unwrap(field.annotation))
            elif isinstance(t, _DictOf):
                nxt.extend(t.values)
        if not nxt:
            return []
        current = nxt
    return current


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the (nested) model at ``loc``, for suggesting the nearest known name."""
    names: list[str] = []
    for t in _field_type_at(model, loc):
        if _is_model(t):
            names.extend(n for n in t.model_fields if n not in names)
    return names


def _allowed_values(model: type[BaseModel], loc: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for t in _field_type_at(model, loc):
        if isinstance(t, type) and issubclass(t, Enum):
            out.extend(m.value for m in t)
        elif typing.get_origin(t) is typing.Literal:
            out.extend(typing.get_args(t))
    return out


def _show(value: Any) -> str:
    """An allowed value as a person would write it: strings quoted, numbers and booleans as JSON has them."""
    return repr(value) if isinstance(value, str) else short_value(value)


def _unquote_fix(value: Any, wanted: tuple[type, ...]) -> str | None:
    """When a number or boolean was written as a string ("2", "true"), say to drop the quotes."""
    if not isinstance(value, str):
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    if isinstance(parsed, wanted) and not (isinstance(parsed, bool) and bool not in wanted):
        return f"write {short_value(parsed)} without quotes"
    return None


_UNQUOTE: dict[str, tuple[type, ...]] = {
    "int_type": (int,),
    "int_parsing": (int,),
    "float_type": (int, float),
    "float_parsing": (int, float),
    "bool_type": (bool,),
    "bool_parsing": (bool,),
}


_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
    "string_too_short": "a non-empty string",
    "too_short": "a non-empty array",
    "finite_number": "a finite number",
}


def _bound(ctx: dict[str, Any], etype: str) -> str | None:
    words = {
        "greater_than_equal": ("ge", "a number >= {}"),
        "greater_than": ("gt", "a number > {}"),
        "less_than_equal": ("le", "a number <= {}"),
        "less_than": ("lt", "a number < {}"),
    }
    if etype in words:
        key, template = words[etype]
        if key in ctx:
            return template.format(ctx[key])
    if etype == "string_pattern_mismatch" and "pattern" in ctx:
        return f"text matching {ctx['pattern']}"
    if etype in ("string_too_short", "too_short") and int(ctx.get("min_length", 1)) > 1:
        n = ctx["min_length"]
        return f"at least {n} item(s)" if etype == "too_short" else f"at least {n} characters"
    if etype in ("string_too_long", "too_long") and "max_length" in ctx:
        return (
            f"at most {ctx['max_length']} item(s)"
            if etype == "too_long"
            else f"at most {ctx['max_length']} characters"
        )
    return None


def _clean_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Drop pydantic's internal location parts (``function-after[...]``, union member tags)."""
    return tuple(p for p in loc if not (isinstance(p, str) and ("[" in p and "]" in p)))


def problems_from_validation(
    exc: ValidationError,
    *,
    file: str,
    model: type[BaseModel],
    line: int | None = None,
    pointer_prefix: str = "",
    line_of: Callable[[tuple[Any, ...]], int | None] | None = None,
) -> list[Problem]:
    """Turn a pydantic error into one problem per field, with pointer, expected, got and a fix."""
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in exc.errors(include_url=False):
        loc = _clean_loc(tuple(err.get("loc", ())))
        ptr = pointer_prefix + pointer(loc)
        etype = str(err.get("type", ""))
        value = err.get("input")
        ctx: dict[str, Any] = dict(err.get("ctx") or {})
        where_line = line_of(loc) if line_of is not None else line
        if (ptr, etype) in seen:
            continue
        seen.add((ptr, etype))
        if etype == "extra_forbidden":
            name = str(loc[-1]) if loc else "?"
            known = _fields_at(model, loc[:-1])
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            if close:
                hint = f"did you mean {close[0]!r}?"
            elif "params" in known:
                hint = "settings of the grader's kind go in the [params] table; otherwise remove it"
            else:
                hint = "remove it, or correct its name"
            out.append(
                Problem(
                    file=file,
                    line=where_line,
                    pointer=ptr,
                    message=f"unknown field {name!r}",
                    expected="one of the known fields" if not known else "one of: " + ", ".join(known),
                    got=repr(name),
                    fix=hint,
                )
            )
            continue
        if etype == "missing":
            name = str(loc[-1]) if loc else "?"
            out.append(
                Problem(
                    file=file,
                    line=where_line,
                    pointer=ptr,
                    message=f"missing required field {name!r}",
                    expected=f"a value for {name!r}",
                    got="nothing",
                    fix=f"add {name!r}",
                )
            )
            continue
        msg = str(err.get("msg", "invalid value"))
        fix: str | None = None
        if etype in ("enum", "literal_error"):
            allowed = _allowed_values(model, loc)
            expected = " or ".join(_show(a) for a in allowed) if allowed else str(ctx.get("expected", msg))
            texts = [a for a in allowed if isinstance(a, str)]
            if isinstance(value, str) and texts:
                close = difflib.get_close_matches(value, texts, n=1, cutoff=0.6)
                if close:
                    fix = f"did you mean {close[0]!r}?"
            elif allowed and not texts:
                fix = _unquote_fix(value, tuple({type(a) for a in allowed}))
            msg = "value not allowed"
        elif etype.startswith("value_error") or etype == "assertion_error":
            expected = msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
            msg = "invalid value"
        else:
            expected = _bound(ctx, etype) or _EXPECTED.get(etype) or msg
            if etype in _EXPECTED or _bound(ctx, etype):
                msg = "wrong type" if etype.endswith(("_type", "_parsing")) else "invalid value"
            if etype in _UNQUOTE:
                fix = _unquote_fix(value, _UNQUOTE[etype])
        out.append(
            Problem(
                file=file,
                line=where_line,
                pointer=ptr,
                message=msg,
                expected=expected,
                got=_got(value),
                fix=fix,
            )
        )
    return out


def duplicate_id(shown: str, line: int, what: str, ident: str, first: int) -> Problem:
    """The problem of a ``what`` (sample, document) whose id ``ident`` was first given on line ``first``."""
    return Problem(
        file=shown,
        line=line,
        pointer="/id",
        message=f"duplicate {what} id {ident!r}",
        expected="a unique id",
        got=f"{ident!r} again (first on line {first})",
        fix=f"give each {what} its own id",
    )


def note_duplicate_trial(
    seen: dict[tuple[str, str], int], task_id: str, trial_id: str, line: int, shown: str, sink: ProblemSink
) -> bool:
    """Record ``(task_id, trial_id)`` as seen on ``line``; when it was seen before, add a problem and return
    ``True``. Shared by every reader of trials and results files."""
    key = (task_id, trial_id)
    first = seen.get(key)
    if first is None:
        seen[key] = line
        return False
    sink.add(
        Problem(
            file=shown,
            line=line,
            pointer="/trial_id",
            message=f"duplicate trial {trial_id!r} of task {task_id!r}",
            expected="each (task_id, trial_id) once",
            got=f"the same pair again (first on line {first})",
            fix="remove the duplicate line, or give the trial its own trial_id",
        )
    )
    return True
