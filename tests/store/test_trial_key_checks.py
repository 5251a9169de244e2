"""Trials (and every file read with duplicate keys checked) are read once by msgspec, which proves most lines
free of repeated keys and of NaN/Infinity, so the exact checks run only on the others: the problems, their
order and the records must be exactly those of the exact checks run on every line (differential tests)."""

from __future__ import annotations

import json
import random
import types
from pathlib import Path
from typing import Any

import msgspec
import pytest

from graderctl.models.trials import Trial
from graderctl.store import json_keys, readers
from graderctl.store.problems import ProblemSink

#: A stand-in for :mod:`graderctl.store.json_keys` that proves nothing: every line gets the NaN/Infinity scan
#: and the exact duplicate-key check, as before the filter.
_EXACT = types.SimpleNamespace(
    UNREAD=json_keys.UNREAD,
    read_strictly=lambda raw: json_keys.UNREAD,
    may_repeat_a_key_of=lambda raw, value: True,
)

_T = '"task_id": "t", "task": {"question": "q"}, '
_REPORT = '"report": {"text": "Sales rose to 5 GW in 2023 [1].\\n\\nSources:\\n[1] https://a.org/x"}'
_LINES = [
    "{" + _T + '"trial_id": "a", ' + _REPORT + "}",
    ("{" + _T + '"trial_id":"b",' + _REPORT + "}").replace(": ", ":").replace(", ", ","),
    "{" + _T + '"trial_id": "c", "trial_id": "c2", ' + _REPORT + "}",
    "{" + _T + '"trial_id": "d", "report": {"text": "x", "text": "y"}}',
    "{" + _T + '"trial_id": "e", "report": {"text": "NaN and Infinity in prose"}}',
    "{" + _T + '"trial_id": "f", "report": {"text": "NaN"}, "cost": {"usd": NaN}}',
    "{" + _T + '"trial_id": "g", "report": {"text": "Infinity"}, "cost": {"usd": 1e999}}',
    "{" + _T + '"trial_id": "h", "report": {"text": "NaN"}, "cost": {"x": -Infinity}}',
    "{" + _T + '"trial_id": "i", "report": {"text": "NaN"}, "cost": {"usd": 1.797693134862315808e308}}',
    "{" + _T + '"trial_id": "j", "report": {"text": "NaN"}, "cost": {"usd": 1.7976931348623158e308}}',
    "{" + _T + '"trial_id": "k", "report": {"text": "NaN"}, "cost": {"x": ' + "9" * 5000 + "}}",
    "{" + _T + '"trial_id": "l", "report": {"text": "NaN"}, "cost": {"x": ' + "9" * 5000 + ', "x": 1}}',
    "{" + _T + '"trial_id": "m", "report": {"text": "z"}, "cost": {"a": [{"k": 1, "k": 2}]}}',
    "{" + _T + '"trial_id": "n", "\\u0074rial_id": "n2", "report": {"text": "z"}}',
    "{" + _T + '"trial_id": "o", "report": {"text": "caf\\u00e9 \\"q\\": x", "sources": []}}',
    "{" + _T + '"trial_id": "p", "report": {"text": "\\ud800 lone"}, "cost": {"a": 1, "a": 1}}',
    "{" + _T + '"trial_id": "q", "report": {"text": "NaN"}, "cost": {"v": NaN, "v": 2}}',
    "{" + _T + '"trial_id": "r", "report": {"text": "ok"}, "cost": {"usd": 1.5}}',
    "{" + _T + '"trial_id": "s", "report": {"text": "ok"}}  ',
    "{" + _T + '"trial_id": "u", "report": {"text": "Infinity"}, "cost": {"x": [1, 2e400]}}',
    "{" + _T + '"trial_id": "v", "report": {"text": "Infinity"}, "cost": {"x": [1, 2e300]}}',
    '{"task_id": "t", "trial_id": "w", "report": {"text": "NaN"}, "cost": {"usd": NaN}}',
]


def _read(path: Path, keys: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], ...]:
    monkeypatch.setattr(readers, "_key_checks", lambda: keys)
    out = []
    with readers.duplicate_keys_checked():
        sink = ProblemSink(cap=10_000)
        rows = readers.read_jsonl_models(path, Trial, shown="trials.jsonl", sink=sink)
        out.append([(n, t.model_dump()) for n, t in rows])
        out.append([p.model_dump() if hasattr(p, "model_dump") else repr(p) for p in sink.problems])
        sink = ProblemSink(cap=10_000)
        items = list(readers.iter_jsonl_file_models(path, Trial, shown="trials.jsonl", sink=sink))
        out.append([(n, o, ln, t.model_dump()) for n, o, ln, t in items])
        out.append([p.model_dump() if hasattr(p, "model_dump") else repr(p) for p in sink.problems])
    return tuple(out)


def _same(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], ...]:
    filtered = _read(path, json_keys, monkeypatch)
    exact = _read(path, _EXACT, monkeypatch)
    assert filtered == exact
    return filtered


def test_key_and_non_finite_checks_as_the_exact_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trials.jsonl"
    path.write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    rows, problems, _, _ = _same(path, monkeypatch)
    messages = " | ".join(str(p) for p in problems)
    # the bad lines are still refused, for the same reasons
    assert "duplicate key 'trial_id'" in messages and "duplicate key 'text'" in messages
    assert "not a finite number" in messages and "duplicate key 'k'" in messages
    assert [n for n, _ in rows][:2] == [1, 2]
    for line in _LINES:  # one line at a time too (a problem on the first line is read differently)
        path.write_text(line + "\n", encoding="utf-8")
        _same(path, monkeypatch)


def test_random_lines_as_the_exact_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    words = ["NaN", "Infinity", "-Infinity", "1e999", "1.5", "2", '"s"', "null", '"NaN"', "true"]
    keys = ["a", "b", "text", "trial_id", "\\u0061"]

    def value(depth: int) -> str:
        roll = rng.random()
        if depth < 3 and roll < 0.2:
            return "[" + ", ".join(value(depth + 1) for _ in range(rng.randint(0, 3))) + "]"
        if depth < 3 and roll < 0.4:
            members = [f'"{rng.choice(keys)}": {value(depth + 1)}' for _ in range(rng.randint(0, 3))]
            return "{" + rng.choice([", ", ","]).join(members) + "}"
        return rng.choice(words)

    lines = []
    for i in range(400):
        extra = ", ".join(f'"{rng.choice(keys)}": {value(1)}' for _ in range(rng.randint(0, 3)))
        text = rng.choice(["plain", "NaN", "Infinity"])
        line = f'{{{_T}"trial_id": "r{i}", "report": {{"text": "{text}"}}, "cost": {{{extra}}}}}'
        if rng.random() < 0.1:
            line = line.replace('"trial_id"', '"trial_id": "x", "trial_id"')
        lines.append(line)
    path = tmp_path / "trials.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows, problems, _, _ = _same(path, monkeypatch)
    assert rows and problems  # both kinds occur


def test_compact_and_spaced_lines_are_proved_free_of_repeats() -> None:
    line = {"task_id": "t", "trial_id": "a", "report": {"text": "NaN x", "sources": [{"id": "1"}]}}
    for raw in (json.dumps(line).encode(), json.dumps(line, separators=(",", ":")).encode()):
        value = json_keys.read_strictly(raw)
        assert value is not json_keys.UNREAD
        assert not json_keys.may_repeat_a_key_of(raw, value)
    assert json_keys.read_strictly(b'{"a": NaN}') is json_keys.UNREAD
    assert json_keys.read_strictly(b'{"a": 1e999}') is json_keys.UNREAD


# --- trials validated from msgspec's value (Python mode) as from the bytes (JSON mode) --------------------

_B = '"task_id": "t", "trial_id": "r", '
_TYPED = [  # values whose type Python mode and JSON mode might read differently
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"usd": 1}',
    _B
    + '"task": {}, "report": {"text": "x"}, "cost": {"usd": -0.0, "wall_seconds": 1e308, "input_tokens": 0}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"usd": 1.5, "x": {"a": [1, 2.5, null, true]}}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"big": 123456789012345678901234567890}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"input_tokens": true}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"input_tokens": 1.0}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"input_tokens": -1}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"usd": "1"}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": {"usd": -1}',
    _B + '"task": {}, "report": {"text": "x"}, "cost": null',
    _B + '"task": {}, "report": {"text": "x"}, "cost": []',
    _B + '"task": {}, "report": {"text": "x"}, "generator": {"model": "m", "provider": null}',
    _B + '"task": {}, "report": {"text": "x"}, "generator": {"model": ""}',
    _B + '"task": {}, "report": {"text": "x"}, "generator": {"model": "m", "x": 1}',
    _B + '"task": {}, "report": {"text": "x"}, "generator": "m"',
    _B + '"task": {"requires_citations": 0}, "report": {"text": "x"}',
    _B + '"task": {"requires_citations": false, "question": null}, "report": {"text": "x"}',
    _B + '"task": {"nuggets": [{"text": "a", "importance": "okay"}, {"text": "b"}]}, "report": {}',
    _B + '"task": {"nuggets": [{"text": "a", "importance": "OKAY"}]}, "report": {}',
    _B + '"task": {"nuggets": [{"text": ""}]}, "report": {}',
    _B + '"task": {"nuggets": {"text": "a"}}, "report": {}',
    _B + '"task": {}, "report": {"claims": [{"id": "c", "text": "t", "citations": [{"source_id": "1"}]}]}',
    _B + '"task": {}, "report": {"claims": [{"id": "c", "text": "t", "citations": [{}, {"quote": 1}]}]}',
    _B + '"task": {}, "report": {"sources": [{"id": "1", "url": "u", "text": null}, {"id": ""}]}',
    _B + '"task": {}, "report": {"text": null}',
    _B + '"task": {}, "report": null',
    _B + '"task": {}, "report": [], "stop_reason": 1',
    _B + '"task": {}, "report": {}, "trajectory": "ok", "category": null, "stop_reason": "end"',
    _B + '"task": {}, "report": {}, "unknown": 1',
    _B + '"task": {}, "report": {"extra": 1}',
    '"task_id": "", "trial_id": 5, "task": {}, "report": {}',
    '"trial_id": "r", "task": {}, "report": {}',
    _B + '"task": {}, "report": {"text": "caf\\u00e9 \\ud83d\\ude00 \\"q\\": x\\n"}',
]


def _read_models(path: Path, from_value: bool) -> tuple[list[Any], list[Any]]:
    with readers.duplicate_keys_checked():
        sink = ProblemSink(cap=10_000)
        rows = readers.read_jsonl_models(path, Trial, shown="t.jsonl", sink=sink, from_value=from_value)
    seen = [
        (n, repr(t), t.model_dump(), t.model_fields_set, t.cost.model_extra if t.cost else None)
        for n, t in rows
    ]
    return seen, [p.model_dump() if hasattr(p, "model_dump") else repr(p) for p in sink.problems]


def test_trials_validated_from_the_value_as_from_the_bytes(tmp_path: Path) -> None:
    """read_trials validates msgspec's value of a line in Python mode (``from_value``): the same trials
    (values, their types, the fields set, the extra fields), the same problems in the same order as from the
    bytes."""
    path = tmp_path / "trials.jsonl"
    lines = ["{" + t + "}" for t in _TYPED] + _LINES
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows, problems = _read_models(path, True)
    assert (rows, problems) == _read_models(path, False)
    assert len(rows) > 10 and len(problems) > 10
    # and JSON mode never sees a line Python mode accepted, nor the reverse, one line at a time
    for line in lines:
        path.write_text(line + "\n", encoding="utf-8")
        assert _read_models(path, True) == _read_models(path, False)


def test_trials_from_the_value_used_when_keys_are_checked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The fast path is taken (not a test of two equal paths): Python mode validates every valid line."""
    calls: list[Any] = []
    real = readers._valid_value
    monkeypatch.setattr(readers, "_valid_value", lambda *a: calls.append(a) or real(*a))
    path = tmp_path / "trials.jsonl"
    path.write_text("\n".join("{" + t + "}" for t in _TYPED[:3]) + "\n", encoding="utf-8")
    rows, _ = _read_models(path, True)
    assert len(calls) == len(rows) == 3


# --- pydantic's parser reads a line as msgspec would -------------------------------------------------------


def _msgspec_reading(raw: bytes) -> Any:
    try:
        return msgspec.json.Decoder().decode(raw)
    except (msgspec.DecodeError, RecursionError, ValueError, OverflowError):
        return json_keys.UNREAD


def _alike(a: Any, b: Any) -> bool:
    """Equal values of equal types, keys in the same order (a float by its repr: -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_alike(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_alike, a, b))
    return repr(a) == repr(b) if isinstance(a, float) else bool(a == b)


def _json_texts(seed: int, n: int) -> list[bytes]:
    """JSON texts and near-JSON ones: numbers of every form and size (out of range too), strings with
    escapes, lone surrogates, control characters and bad UTF-8, white space of every kind, keys given twice
    (also spelt two ways), trailing commas, NaN and Infinity, and nesting around and beyond the parsers'
    limits."""
    rng = random.Random(seed)
    atoms = [
        *(
            "0",
            "-0",
            "1",
            "-1",
            "01",
            "1.",
            ".5",
            "1.5",
            "-0.0",
            "1e5",
            "1E+5",
            "1e-5",
            "2.5E+03",
            "4.9e-324",
        ),
        *(
            "1e308",
            "1e309",
            "-1e309",
            "1.7976931348623157e308",
            "1.797693134862315808e308",
            "1e-400",
            "1e400",
        ),
        *("9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616"),
        *("1" * 30 + ".5", "1" * 310, "1" * 5000, "0.1000000000000000055511151231257827", "123456789" * 4),
        *("true", "false", "null", "NaN", "Infinity", "-Infinity", "nan", "tru", '"a"', '""', '"\\u0000"'),
        *(
            '"\\ud800"',
            '"\\udc00"',
            '"\\ud83d\\ude00"',
            '"\\ud83d"',
            '"\\x"',
            '"\\/"',
            '"\t"',
            '"\x01"',
            '"\x7f"',
        ),
        *('"é"', '"\xff"', '"\xc3"', '"\xed\xa0\x80"', '"\\u00e9"', '"a\\"b"', "'a'", "[]", "{}", "[1,]"),
        *('{"a":1,}', '{"a" 1}', '{"a":1 "b":2}', '"\\u12"'),
    ]
    blanks = ["", " ", "\t", "\n", "\r", "\f", "\x0b", "\xc2\xa0"]

    def value(depth: int) -> str:
        roll = rng.random()
        if depth < 4 and roll < 0.25:
            items = ",".join(value(depth + 1) for _ in range(rng.randint(0, 3)))
            return "[" + rng.choice(blanks) + items + rng.choice(blanks) + "]"
        if depth < 4 and roll < 0.5:
            keys = ["a", "b", "a", "\\u0061", ""]
            members = (
                f'{rng.choice(blanks)}"{rng.choice(keys)}"{rng.choice(blanks)}:{rng.choice(blanks)}'
                + value(depth + 1)
                for _ in range(rng.randint(0, 3))
            )
            return "{" + ",".join(members) + "}"
        if roll < 0.6:
            digits = str(rng.randint(0, 10 ** rng.randint(1, 40)))
            fraction = str(rng.randint(0, 10 ** rng.randint(1, 30)))
            exponent = rng.choice(["", f"e{rng.randint(-330, 330)}", f"E+{rng.randint(290, 320)}"])
            return rng.choice(["", "-"]) + digits + "." + fraction + exponent
        return rng.choice(atoms)

    texts = [value(0).encode("latin-1") for _ in range(n)]
    texts += [b"[" * k + b"]" * k for k in (100, 199, 200, 201, 255, 256, 257, 1000)]
    texts += [b'{"a":' * k + b"1" + b"}" * k for k in (199, 200, 201, 257, 1000)]
    texts += [b'{"a":' * k + b"1e999" + b"}" * k for k in (5, 300)]
    texts += [b'{"a": 1e999, "a": 1}', b'{"b": {"a": [-1e400]}, "\\u0062": 0}', b'[{"x": 2e308, "x": 1}]']
    return texts


def test_pydantic_parser_reads_what_msgspec_reads() -> None:
    """read_strictly parses with pydantic's parser and gives msgspec's value, or UNREAD where msgspec reads
    nothing, on every text but one kind: a number out of range in a member given again later (dropped), a
    line the exact check refuses for its repeated key."""
    kinds = {"same": 0, "both unread": 0, "out of range": 0, "deep": 0, "dropped": 0}
    for raw in _json_texts(31, 40_000):
        got, want = json_keys.read_strictly(raw), _msgspec_reading(raw)
        if got is json_keys.UNREAD or want is json_keys.UNREAD:
            if got is want:
                kinds["both unread"] += 1
                kinds["out of range"] += b"e3" in raw or b"E+3" in raw
                continue
            assert want is json_keys.UNREAD, raw
            assert readers.duplicate_key_problem(raw, "t", 1) is not None, raw
            kinds["dropped"] += 1
            continue
        assert _alike(got, want), raw
        kinds["same"] += 1
        kinds["deep"] += raw.count(b"[") > 200 or raw.count(b"{") > 200
    assert kinds["same"] > 10_000 and kinds["both unread"] > 10_000, kinds
    assert kinds["out of range"] > 1_000 and kinds["deep"] >= 3 and kinds["dropped"] >= 4, kinds
