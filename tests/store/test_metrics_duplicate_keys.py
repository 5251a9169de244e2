"""The quick duplicate-key filter of ``graderctl metrics`` (``metrics_inputs.may_repeat_a_key``) is exact.

A differential test over a generated corpus: every line goes through the scan twice, once with the filter
and once with the exact check (``store.readers.duplicate_key_problem``) run on every line, as if there were
no filter; the problems (file, line, JSON pointer, message, expected, got, fix) and the counters must be the
same. The corpus has repeated keys at every depth (top level, nested objects, objects in arrays, the
checks and cost that metrics reads), the same key spelt two ways (``"ab"`` and ``"a\\u0062"``), equal keys in
different objects (which are not repeated), keys and JSON text inside string values, quotes, colons,
backslashes and non-ASCII text in keys and strings, in four layouts: compact as msgspec writes, as
``json.dumps`` writes (``graderctl score``), ``json.dumps`` with ASCII escapes, and a wild one (white space
anywhere, also before colons and as carriage returns, ``\\u`` escapes of any character, ``\\/``, other number
forms, CRLF line ends).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest

from graderctl.errors import InvalidInputError, Problem
from graderctl.store import json_keys, metrics_inputs
from graderctl.store.metrics_inputs import ResultScan, may_repeat_a_key, scan_results
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import duplicate_key_problem

LAYOUTS = ("msgspec", "score", "ascii", "wild")
#: Few and alike, so that equal keys meet often: in one object (a repeat) and in different ones (not).
KEYS = ["a", "b", "ab", "a:", ":", 'q"', "\\", "é", "𝄞", "x/y", "", "task_id", "passed", "usd"]
TEXTS = [
    "",
    "plain",
    '"a": 1, "a": 2',
    '{"k": 1, "k": 2}',
    ":",
    '":',
    "\\",
    '\\":',
    "café",
    "𝄞 clef",
    "line\nbreak\ttab\x01",
    "a/b",
    " : ",
]


@dataclass
class Str:
    text: str


@dataclass
class Num:
    value: int | float


@dataclass
class Lit:
    text: str  # true, false, null


@dataclass
class Arr:
    items: list[Any] = field(default_factory=list)


@dataclass
class Obj:
    members: list[tuple[str, Any]] = field(default_factory=list)


# --- generating ------------------------------------------------------------------------------------------


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth < 4 and kind < 0.25:
        return random_object(rng, depth + 1)
    if depth < 4 and kind < 0.4:
        # arrays of objects, of scalars, of arrays
        return Arr([random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))])
    if kind < 0.7:
        return Str(rng.choice(TEXTS + KEYS))
    if kind < 0.85:
        return Num(rng.choice([0, 1, -7, 2500.0, 0.1, 1e-05, 1e16, -0.0, 3.25, 10**20]))
    return Lit(rng.choice(["true", "false", "null"]))


def random_object(rng: random.Random, depth: int) -> Obj:
    return Obj([(rng.choice(KEYS), random_value(rng, depth)) for _ in range(rng.randint(0, 4))])


def objects(node: Any) -> list[Obj]:
    if isinstance(node, Obj):
        return [node, *(o for _, v in node.members for o in objects(v))]
    if isinstance(node, Arr):
        return [o for item in node.items for o in objects(item)]
    return []


def record(rng: random.Random, number: int) -> Obj:
    """A line metrics reads (so that the typed decoder takes it and the duplicate check runs), with extra
    members of every shape; some lines get a key repeated in one of their objects."""
    line = Obj(
        [
            ("task_id", Str(f"t{number % 7}")),
            ("trial_id", Str(f"r{number}")),
            ("success", Lit(rng.choice(["true", "false", "null"]))),
        ]
    )
    if rng.random() < 0.5:
        checks = Obj()
        for name in rng.sample(["cs", "cov", "se", "a"], rng.randint(1, 3)):
            check = Obj([("passed", Lit(rng.choice(["true", "false", "null"]))), ("grader", Str("g@1"))])
            check.members += random_object(rng, 2).members if rng.random() < 0.3 else []
            checks.members.append((name, check))
        line.members.append(("checks", checks))
    if rng.random() < 0.4:
        line.members.append(("cost", Obj([("usd", Num(rng.choice([0.5, 1e-05, 2])))])))
    for _ in range(rng.randint(0, 3)):
        line.members.append((rng.choice(["extra", "note", "a", "ab", "é"]), random_value(rng, 1)))
    if rng.random() < 0.4:
        target = rng.choice(objects(line))
        if target.members:
            key, value = rng.choice(target.members)
            target.members.insert(rng.randint(0, len(target.members)), (key, value))
    return line


# --- writing in four layouts ------------------------------------------------------------------------------


def wild_string(text: str, rng: random.Random) -> str:
    out = []
    for ch in text:
        if ch == '"':
            out.append(rng.choice(['\\"', "\\u0022"]))
        elif ch == "\\":
            out.append(rng.choice(["\\\\", "\\u005c", "\\u005C"]))
        elif ch == "/":
            out.append(rng.choice(["/", "\\/"]))
        elif ord(ch) < 0x20:
            out.append(json.dumps(ch)[1:-1] if rng.random() < 0.5 else f"\\u{ord(ch):04x}")
        elif rng.random() < 0.2:
            code = ord(ch)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04X}")
            else:
                out.append(f"\\u{code:04X}" if rng.random() < 0.5 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def wild_number(value: int | float, rng: random.Random) -> str:
    if isinstance(value, float) and value == int(value) and abs(value) < 1e20:
        return rng.choice([repr(value), f"{value:e}", f"{value:E}", f"{int(value)}.000"])
    return rng.choice([repr(value), f"{value:.6e}" if isinstance(value, float) else str(value)])


def write(node: Any, layout: str, rng: random.Random) -> str:
    def ws() -> str:
        return "".join(rng.choice(" \t\r") for _ in range(rng.choice([0, 0, 1, 2])))

    def string(text: str) -> str:
        if layout == "msgspec":
            return msgspec.json.encode(text).decode()
        if layout == "score":
            return json.dumps(text, ensure_ascii=False)
        if layout == "ascii":
            return json.dumps(text)
        return wild_string(text, rng)

    def go(n: Any) -> str:
        if isinstance(n, Str):
            return string(n.text)
        if isinstance(n, Lit):
            return n.text
        if isinstance(n, Num):
            if layout == "msgspec":
                return msgspec.json.encode(n.value).decode()
            return json.dumps(n.value) if layout != "wild" else wild_number(n.value, rng)
        if isinstance(n, Arr):
            if layout == "wild":
                return "[" + ws() + ",".join(ws() + go(i) + ws() for i in n.items) + ws() + "]"
            return "[" + (", " if layout == "score" else ",").join(go(i) for i in n.items) + "]"
        if layout == "wild":
            pairs = (ws() + string(k) + ws() + ":" + ws() + go(v) + ws() for k, v in n.members)
            return "{" + ws() + ",".join(pairs) + "}"
        item, key = (", ", ": ") if layout == "score" else (",", ":")
        return "{" + item.join(string(k) + key + go(v) for k, v in n.members) + "}"

    text = go(node)
    return ws() + text + ws() if layout == "wild" else text


def corpus(seed: int, lines: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for number in range(lines):
        layout = LAYOUTS[number % len(LAYOUTS)]
        text = write(record(rng, number), layout, rng)
        if layout == "wild" and rng.random() < 0.3:
            text += "\r"  # a CRLF file
        out.append(text.encode("utf-8"))
    return out


# --- the two scans ---------------------------------------------------------------------------------------


def scan(path: Path, monkeypatch: pytest.MonkeyPatch, *, filtered: bool) -> tuple[list[Problem], Any]:
    with monkeypatch.context() as patch:
        if not filtered:  # the exact check on every line, as if there were no filter
            patch.setattr(metrics_inputs, "may_repeat_a_key", lambda raw: True)
        try:
            found: ResultScan = scan_results(path, sink=ProblemSink(cap=10**6), parallel=False)
        except InvalidInputError as exc:
            return exc.problems, None
    return [], found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_filter_refuses_exactly_the_lines_the_exact_check_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    lines = corpus(seed, 2000)
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    fast, fast_scan = scan(path, monkeypatch, filtered=True)
    exact, exact_scan = scan(path, monkeypatch, filtered=False)
    assert fast == exact  # every field: file, line, pointer, message, expected, got, fix
    assert fast_scan == exact_scan

    # the corpus is what it says: many refused lines, at every depth, in every layout
    repeated = [p for p in exact if p.message.startswith("duplicate key ")]
    assert len(repeated) > 250
    pointers = {p.pointer for p in repeated}
    assert "" in pointers and any(p.startswith("/checks/") for p in pointers)
    assert any(p.count("/") >= 3 for p in pointers)  # nested objects
    assert any(part.isdigit() for p in pointers for part in p.split("/"))  # objects in arrays
    refused = {p.line for p in repeated}
    by_layout = {layout: [n for n in refused if LAYOUTS[(n - 1) % 4] == layout] for layout in LAYOUTS}
    assert all(len(found) > 30 for found in by_layout.values()), {k: len(v) for k, v in by_layout.items()}
    assert any(b"\\u" in lines[n - 1] for n in by_layout["wild"])  # a key spelt with an escape


@pytest.mark.parametrize("seed", [4, 5])
def test_the_filter_passes_lines_whose_keys_repeat_only_across_objects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """A file with no key twice in one object (but the same names in many objects, at several depths) is
    read whole, with the same counters either way."""
    rng = random.Random(seed)
    lines = [line for line in corpus(seed, 1200) if duplicate_key_problem(line, "r", 1) is None]
    rng.shuffle(lines)
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    fast, fast_scan = scan(path, monkeypatch, filtered=True)
    exact, exact_scan = scan(path, monkeypatch, filtered=False)
    assert fast == exact == [] and fast_scan == exact_scan
    assert fast_scan is not None and fast_scan.lines == len(lines)


def test_the_filter_never_says_no_to_a_repeated_key_and_proves_the_common_layouts() -> None:
    """Line by line: "no" only when the exact check finds nothing; and "no" (no exact check needed) for
    most unrepeated lines of each layout the filter has a proof for, so every proof is exercised."""
    lines = corpus(6, 4000)
    quick = dict.fromkeys(LAYOUTS, 0)
    clean = dict.fromkeys(LAYOUTS, 0)
    for number, raw in enumerate(lines):
        layout = LAYOUTS[number % 4]
        problem = duplicate_key_problem(raw.rstrip(b"\r"), "r", 1)
        maybe = may_repeat_a_key(raw)
        if problem is not None:
            assert maybe, raw
            continue
        clean[layout] += 1
        quick[layout] += not maybe
    # msgspec's own layout and json.dumps' (numbers like 1e-05, which msgspec writes 0.00001, and \u escapes
    # take the later proofs); the wild layout (\u escapes of any character, numbers like 2.5E+03) is left to
    # the exact check
    assert clean["msgspec"] > 300 and quick["msgspec"] == clean["msgspec"]
    assert clean["score"] > 300 and quick["score"] == clean["score"]
    assert clean["ascii"] > 300 and quick["ascii"] == clean["ascii"]


@pytest.mark.parametrize(
    ("line", "pointer", "key"),
    [
        ('{"a":1,"a\\u0062":2,"ab":3}', "", "ab"),
        ('{"a": {"b": 1, "b": 2}, "b": 3}', "/a", "b"),
        ('{"x": [{"k": 1}, {"k": 1, "k": 2}]}', "/x/1", "k"),
        ('{"s": "\\"k\\": 1, \\"k\\": 2", "k": 1, "k" : 2}', "", "k"),
        ('{"\\u0022": 1, "\\"": 2}', "", '"'),
    ],
)
def test_named_cases(line: str, pointer: str, key: str) -> None:
    raw = line.encode()
    problem = duplicate_key_problem(raw, "r", 1)
    assert problem is not None and problem.pointer == pointer and f"{key!r}" in problem.message
    assert may_repeat_a_key(raw)


@pytest.mark.parametrize(
    "line",
    [
        '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}',  # one name at three depths and in two array items
        '{"s":"{\\"a\\":1,\\"a\\":2}","a":1}',  # repeated keys inside a string value
        '{"a": "\\":", "b": ":", ":": ":"}',
    ],
)
def test_named_lines_without_a_repeat(line: str) -> None:
    assert duplicate_key_problem(line.encode(), "r", 1) is None
    assert not may_repeat_a_key(line.encode())


def test_a_repeated_key_beside_a_very_long_integer_is_refused(tmp_path: Path) -> None:
    """msgspec reads integers of any length; Python's json refuses those over 4,300 digits, and the exact
    check took such a line for "not JSON, reported elsewhere": the repeated key went through."""
    line = '{"task_id": "t", "trial_id": "1", "success": true, "x": ' + "9" * 5000 + ', "x": 1}'
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        scan_results(path, parallel=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.pointer, problem.message) == (1, "", "duplicate key 'x' in one object")


def _texts_hiding_a_key(seed: int, lines: int) -> list[bytes]:
    """Lines whose long text has a member written into it (``", "k": "``, after no, one or two backslashes)
    at a random place: valid JSON with "k" twice where the quote ends the text, invalid elsewhere."""
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        text = "".join(
            rng.choice(["x", "\\", '"', " ", "é", "\n", '":', ","]) for _ in range(rng.randint(0, 40))
        )
        layout = rng.choice([{}, {"separators": (",", ":")}])
        raw = json.dumps({"id": "r", "text": text, "k": "v"}, **layout).encode()  # type: ignore[arg-type]
        start = raw.index(b'"text"') + 8 + (layout == {})
        end = raw.index(b'"k"') - 2 - (layout == {})
        cut = rng.randint(start, max(start, end))
        hidden = rng.choice([b'", "k": "', b'","k":"', b'\\", "k": "', b'\\\\", "k": "', b'\\\\\\", "k": "'])
        out.append(raw[:cut] + hidden + raw[cut:])
    return out


def test_the_filter_never_passes_a_key_hidden_in_a_text() -> None:
    """Lines whose text hides a member (a quote, escaped or not, then a key): the filter never says "no
    repeat" on a line the exact check refuses."""
    hiding = 0
    for raw in _texts_hiding_a_key(8, 3000):
        value = json_keys.read_strictly(raw)
        repeated = duplicate_key_problem(raw.rstrip(b"\r"), "r", 1) is not None
        hiding += repeated
        if repeated:
            assert json_keys.may_repeat_a_key_of(raw, value), raw
    assert hiding > 300
