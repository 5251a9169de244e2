"""Writing a new version of a grader definition (``graderctl tune``): ``graders/<name>/v<N+1>.toml``.

The new file is the released one's text with ``version``, ``description`` and some ``[params]`` keys
changed, so comments and layout survive; the result is parsed back and must equal the intended definition
exactly, else nothing is written. A file that exists is never overwritten (a released version is never
edited).
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.project import _VERSION_FILE, LoadedGrader
from graderctl.store.readers import display_path

_TABLE = re.compile(r"^\s*\[")


def next_version_path(definition: Path) -> tuple[int, Path]:
    """The next free version number of a grader folder and its file."""
    versions = [
        int(m.group(1)) for p in definition.parent.glob("v*.toml") if (m := _VERSION_FILE.match(p.name))
    ]
    nxt = max(versions, default=0) + 1
    return nxt, definition.parent / f"v{nxt}.toml"


def toml_value(value: Any) -> str:
    """A TOML literal for a number, bool or string (strings as JSON-escaped basic strings, valid TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as a TOML number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot write a {type(value).__name__} as a TOML value")


def toml_multiline(text: str, width: int = 108) -> str:
    """``text`` as a TOML multi-line basic string wrapped at ``width`` with line-ending backslashes (which
    TOML removes with the newline and the next line's leading blanks), as the shipped definitions write it."""
    import textwrap

    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    lines = textwrap.wrap(
        escaped, width=width, break_long_words=False, break_on_hyphens=False, drop_whitespace=True
    )
    # a wrapped line must not end in an escape's backslash, nor may a blank start the next (it would be lost)
    body = " \\\n".join(lines)
    return '"""\\\n' + body + '"""'


def _key_line(key: str, lines: list[str], start: int, end: int) -> int | None:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(start, end):
        if pattern.match(lines[i]):
            return i
    return None


def _description_span(text: str) -> tuple[int, int] | None:
    for pattern in (
        r'^description\s*=\s*"""(?:.|\n)*?"""[ \t]*\n?',
        r"^description\s*=\s*'''(?:.|\n)*?'''[ \t]*\n?",
        r'^description\s*=\s*"(?:[^"\\\n]|\\.)*"[ \t]*\n?',
        r"^description\s*=\s*'[^'\n]*'[ \t]*\n?",
    ):
        m = re.search(pattern, text, flags=re.MULTILINE)
        if m:
            return m.start(), m.end()
    return None


def edited_definition(
    text: str,
    *,
    version: int,
    description: str,
    set_params: dict[str, Any],
    drop_params: tuple[str, ...] = (),
    multiline: bool = True,
) -> str:
    """``text`` (a definition) with a new version, description and params, layout kept."""
    span = _description_span(text)
    shown = toml_multiline(description) if multiline else toml_value(description)
    new_desc = f"description = {shown}\n"
    if span is not None:
        text = text[: span[0]] + new_desc + text[span[1] :]
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _TABLE.match(line):
            break
        if re.match(r"^version\s*=", line):
            lines[i] = f"version = {version}\n"
            break
    if span is None:
        at = next((i + 1 for i, line in enumerate(lines) if re.match(r"^check\s*=", line)), len(lines))
        lines.insert(at, new_desc)
    found = next((i for i, line in enumerate(lines) if re.match(r"^\s*\[params\]\s*(#.*)?$", line)), None)
    if found is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += ["\n", "[params]\n"]
        found = len(lines) - 1
    header: int = found
    end = next((i for i in range(header + 1, len(lines)) if _TABLE.match(lines[i])), len(lines))
    for key in drop_params:
        gone = _key_line(key, lines, header + 1, end)
        if gone is not None:
            del lines[gone]
            end -= 1
    for key, value in set_params.items():
        where = _key_line(key, lines, header + 1, end)
        if where is not None:
            lines[where] = f"{key} = {toml_value(value)}\n"
        else:
            lines.insert(header + 1, f"{key} = {toml_value(value)}\n")
            end += 1
    return "".join(lines)


def write_new_version(
    definition: Path,
    *,
    description: str,
    set_params: dict[str, Any],
    drop_params: tuple[str, ...] = (),
    root: Path | None = None,
) -> tuple[int, Path]:
    """Write ``v<N+1>.toml`` beside ``definition`` (N = the highest version there); return its version and
    path. Raises :class:`InvalidInputError` when the definition cannot be edited safely or the file exists."""
    shown = display_path(definition, root)
    text = definition.read_text(encoding="utf-8")
    original = tomllib.loads(text)
    version, path = next_version_path(definition)
    expected = dict(original)
    expected["version"] = version
    expected["description"] = description
    params = {k: v for k, v in dict(original.get("params", {})).items() if k not in drop_params}
    params.update(set_params)
    expected["params"] = params
    parsed: dict[str, Any] | None = None
    for multiline in (True, False):  # wrapped for reading; on one line if wrapping would change the text
        new_text = edited_definition(
            text,
            version=version,
            description=description,
            set_params=set_params,
            drop_params=drop_params,
            multiline=multiline,
        )
        try:
            parsed = tomllib.loads(new_text)
        except tomllib.TOMLDecodeError:
            parsed = None
        if parsed == expected:
            break
    if parsed != expected:
        raise InvalidInputError(
            f"{shown}: cannot write the new version safely",
            [
                Problem(
                    file=shown,
                    message="the definition's layout (e.g. params as an inline table) could not be edited "
                    "into a new version that parses to the intended definition",
                    fix=f"write {display_path(path, root)} by hand with these params: "
                    + ", ".join(f"{k} = {toml_value(v)}" for k, v in set_params.items()),
                )
            ],
        )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise InvalidInputError(
            f"{display_path(path, root)} already exists",
            [Problem(file=display_path(path, root), message="a version is never overwritten", fix="retry")],
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new_text)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return version, path


def write_and_load_new_version(
    definition: Path,
    *,
    description: str,
    set_params: dict[str, Any],
    drop_params: tuple[str, ...] = (),
    root: Path,
) -> LoadedGrader:
    """:func:`write_new_version`, then load the new definition; one that does not load is removed (a
    definition that does not load is never left behind) and the error propagates."""
    from graderctl.store.project import load_grader

    _, path = write_new_version(
        definition, description=description, set_params=set_params, drop_params=drop_params, root=root
    )
    try:
        return load_grader(path, root=root)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
