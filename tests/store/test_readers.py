"""Readers: JSON Lines and TOML with precise problems; BOM, CRLF, blank lines tolerated."""

from __future__ import annotations

import datetime as dt
import gc
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from graderctl.errors import InvalidInputError
from graderctl.models.results import GradedResult
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import (
    display_path,
    iter_json_lines,
    paused_gc,
    read_jsonl_models,
    read_toml,
    toml_key_lines,
    toml_line_of,
    toml_to_json,
    validate_toml_data,
)


def _write(tmp_path: Path, data: bytes, name: str = "x.results.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read(tmp_path: Path, data: bytes) -> tuple[list[tuple[int, GradedResult]], ProblemSink]:
    sink = ProblemSink()
    items = read_jsonl_models(_write(tmp_path, data), GradedResult, shown="r.jsonl", sink=sink)
    return items, sink


OK1 = b'{"task_id": "t", "trial_id": "t-1", "success": true}'
OK2 = b'{"task_id": "t", "trial_id": "t-2", "success": null}'


def test_bom_crlf_blank_lines_and_no_final_newline_are_tolerated(tmp_path: Path) -> None:
    items, sink = read(tmp_path, b"\xef\xbb\xbf" + OK1 + b"\r\n\r\n   \r\n" + OK2)
    assert not sink, sink.problems
    assert [(line, r.trial_id) for line, r in items] == [(1, "t-1"), (4, "t-2")]


@pytest.mark.parametrize(
    "data", [b"", b"\n\n", b"\xef\xbb\xbf", b"  \r\n\t\n"], ids=["empty", "newlines", "bom", "ws"]
)
def test_empty_files_are_one_problem(tmp_path: Path, data: bytes) -> None:
    items, sink = read(tmp_path, data)
    assert items == []
    [p] = sink.problems
    assert (p.file, p.line, p.message) == ("r.jsonl", 1, "the file is empty")


def test_every_bad_line_is_reported_and_good_lines_kept(tmp_path: Path) -> None:
    data = b"\n".join(
        [
            OK1,
            b"[1]",
            b'{"task_id": "t", "trial_id": "t-3", "success": "maybe"}',
            b'{"task_id": "t", "trial_id": "\xff"}',
            b'{"task_id": "t",, }',
            OK2,
            b'{"task_id": "t", "trial_id": "t-9", "succ',
        ]
    )
    items, sink = read(tmp_path, data)
    assert [line for line, _ in items] == [1, 6]
    by_line = {p.line: p for p in sink.problems}
    assert set(by_line) == {2, 3, 4, 5, 7}
    assert by_line[2].message == "not a JSON object" and by_line[2].got == "an array [1]"
    assert by_line[3].pointer == "/success" and by_line[3].got == 'a string "maybe"'
    assert "invalid UTF-8" in by_line[4].message and by_line[4].got == "byte 0xff"
    assert "invalid JSON at column" in by_line[5].message
    assert "last line is truncated" in by_line[7].message and "complete the last line" in (
        by_line[7].fix or ""
    )


def test_a_broken_middle_line_is_not_called_truncated(tmp_path: Path) -> None:
    _, sink = read(tmp_path, OK1 + b'\n{"task_id": "t", "trial_id": "t-9", "succ\n' + OK2 + b"\n")
    [p] = sink.problems
    assert p.line == 2 and "truncated" not in p.message


def test_nesting_deeper_than_the_parser_allows(tmp_path: Path) -> None:
    deep = b'{"task_id": "t", "trial_id": "x", "success": true, "extra": ' + b"[" * 500 + b"]" * 500 + b"}"
    _, sink = read(tmp_path, deep + b"\n")
    [p] = sink.problems
    assert p.line == 1 and "invalid JSON" in p.message


def test_validation_is_strict(tmp_path: Path) -> None:
    _, sink = read(tmp_path, b'{"task_id": "t", "trial_id": "t-1", "success": 1}\n')
    [p] = sink.problems
    assert p.pointer == "/success" and p.expected == "true or false"


def test_nan_and_infinity_are_not_json(tmp_path: Path) -> None:
    items, sink = read(
        tmp_path,
        b'{"task_id": "t", "trial_id": "NaN-1", "success": true, '
        b'"cost": {"usd": NaN, "wall_seconds": -Infinity}}\n'
        b'{"task_id": "t", "trial_id": "Infinity", "success": true}\n',
    )
    assert [r.trial_id for _, r in items] == ["Infinity"]  # the word inside a string is fine
    assert [(p.line, p.pointer, p.got) for p in sink.problems] == [
        (1, "/cost/usd", "NaN"),
        (1, "/cost/wall_seconds", "-Infinity"),
    ]


def test_display_path(tmp_path: Path) -> None:
    assert display_path(tmp_path / "a" / "b.toml", tmp_path) == "a/b.toml"
    assert display_path(Path("/elsewhere/x"), tmp_path) == "/elsewhere/x"


def test_iter_json_lines_numbers_physical_lines() -> None:
    sink = ProblemSink()
    assert list(iter_json_lines(b"a\r\n\r\nb\nc", "f", sink)) == [(1, b"a"), (3, b"b"), (4, b"c")]
    assert not sink


# --- TOML -------------------------------------------------------------------------------------------


def test_read_toml_with_bom_and_crlf(tmp_path: Path) -> None:
    path = _write(tmp_path, b'\xef\xbb\xbfa = 1\r\n[t]\r\nb = "x"\r\n', "x.toml")
    data, text = read_toml(path, "x.toml")
    assert data == {"a": 1, "t": {"b": "x"}}
    assert text.startswith("a = 1")


@pytest.mark.parametrize(
    ("data", "line", "needle"),
    [
        (b"a = 1\nb = = 2\n", 2, "TOML syntax error"),
        (b"a = 1\n[t\n", 2, "TOML syntax error"),
        (b'a = "\xe9"\n', 1, "invalid UTF-8"),
        (b"", 1, "the file is empty"),
        (b"# only a comment\n\n", None, None),
    ],
    ids=["double equals", "unclosed table", "latin-1", "empty", "comment only"],
)
def test_read_toml_problems(tmp_path: Path, data: bytes, line: int | None, needle: str | None) -> None:
    path = _write(tmp_path, data, "x.toml")
    if needle is None:
        assert read_toml(path, "x.toml")[0] == {}
        return
    with pytest.raises(InvalidInputError) as info:
        read_toml(path, "x.toml")
    [p] = info.value.problems
    assert p.file == "x.toml" and p.line == line and needle in p.message


def test_read_toml_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such file"):
        read_toml(tmp_path / "nope.toml", "nope.toml")
    with pytest.raises(InvalidInputError) as info:
        read_toml(tmp_path, "dir")
    assert info.value.problems[0].got == "a folder"


TOML = '''\
# comment
schema_version = 1
name = "x"
description = """
name = "not a key"
"""
[params]
threshold = 0.5
"quoted key" = 1
nested.deep = 2

[judge]
model = "m"
'''


def test_toml_key_lines() -> None:
    lines = toml_key_lines(TOML)
    assert lines[("schema_version",)] == 2
    assert lines[("name",)] == 3
    assert lines[("params",)] == 7
    assert lines[("params", "threshold")] == 8
    assert lines[("params", "quoted key")] == 9
    assert lines[("params", "nested", "deep")] == 10
    assert lines[("judge", "model")] == 13


def test_toml_line_of_falls_back_to_the_enclosing_table_then_line_1() -> None:
    line_of = toml_line_of(TOML)
    assert line_of(("params", "threshold")) == 8
    assert line_of(("judge", "provider")) == 12  # missing key: the [judge] header
    assert line_of(("params", "labels", 0)) == 7
    assert line_of(("check",)) == 1  # missing top-level key


def test_toml_values_are_validated_strictly_as_json() -> None:
    class M(BaseModel):
        model_config = ConfigDict(extra="forbid")
        when: str
        n: int

    assert toml_to_json({"d": dt.date(2024, 1, 2), "l": [dt.time(1, 2)]}) == {
        "d": "2024-01-02",
        "l": ["01:02:00"],
    }
    assert validate_toml_data(M, {"when": dt.date(2024, 1, 2), "n": 3}).when == "2024-01-02"
    with pytest.raises(ValidationError):
        validate_toml_data(M, {"when": "x", "n": "3"})
    with pytest.raises(ValidationError):
        validate_toml_data(M, {"when": "x", "n": True})


def test_paused_gc_restores_the_previous_state() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError
    assert gc.isenabled()
