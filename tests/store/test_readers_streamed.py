"""A regular JSON Lines file is read as it goes (``iter_file_lines``), other files and given bytes whole
(``iter_json_lines``): the two give the same records and the same problems, in the same order, on every file
(differential test over hostile files: BOM, CRLF, blank and white-space lines, a last line without its end or
cut short, an empty file, a pretty-printed document, bad UTF-8, NaN, repeated keys, lines longer than the
read buffer)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from graderctl.errors import Problem
from graderctl.models.results import GradedResult
from graderctl.models.trials import Trial
from graderctl.store import readers
from graderctl.store.problems import ProblemSink

_T = b'{"task_id": "t", "trial_id": "%d", "task": {}, "report": {"text": "%s"}}'
_OK = [_T % (i, b"x" * i) for i in range(5)]
_LONG = _T % (9, b"y" * 200_000)  # longer than the 64 KB read buffer
_PRETTY = json.dumps({"task_id": "t", "trial_id": "p", "task": {}, "report": {}}, indent=2).encode()

FILES = [
    b"",
    b"\n",
    b"  \n\t\r\n",
    readers.BOM,
    readers.BOM + b"\n",
    readers.BOM + _OK[0] + b"\n" + _OK[1],
    b"\n".join(_OK) + b"\n",
    b"\n".join(_OK),
    b"\r\n".join(_OK) + b"\r\n",
    b"\n\n" + _OK[0] + b"\n   \n" + _OK[1] + b"\r\n\r\n",
    _OK[0] + b"\n" + _OK[1][:-7],  # the last line cut short
    _OK[0] + b"\n" + _OK[1][:-7] + b"\n",
    _OK[0][:-3] + b"\n" + _OK[1],
    _PRETTY,
    _PRETTY + b"\n",
    b"[\n" + _OK[0] + b",\n" + _OK[1] + b"\n]\n",
    _OK[0] + b"\n\xff\xfe bad utf-8\n" + _OK[1],
    _OK[0] + b"\n" + _OK[1].replace(b'"report"', b'"cost": {"usd": NaN}, "report"') + b"\n",
    _OK[0] + b"\n" + _OK[1].replace(b'"task"', b'"trial_id": "z", "task"') + b"\n",
    _OK[0] + b'\n[1, 2]\nnull\n"s"\n' + _OK[2],
    _LONG + b"\n" + _OK[0] + b"\n" + _LONG,
    _LONG[:-100],
    b"\r",
    _OK[0] + b"\r",
    _OK[0] + b"\n\r",
]


def _read(path: Path, model: Any, *, whole: bool, keys: bool, explain: Any = None) -> tuple[Any, ...]:
    data = path.read_bytes() if whole else None
    sink = ProblemSink(cap=10_000)

    def run() -> list[Any]:
        lines = readers.iter_jsonl_fast(
            path, model, shown="f.jsonl", sink=sink, fast=None, explain=explain, data=data, from_value=keys
        )
        return [(n, r.model_dump()) for n, r in lines]

    if keys:
        with readers.duplicate_keys_checked():
            rows = run()
    else:
        rows = run()
    return rows, [p.model_dump() if hasattr(p, "model_dump") else repr(p) for p in sink.problems]


def _explain(exc: ValidationError, raw: bytes, line: int) -> list[Problem] | None:
    return [Problem(file="f.jsonl", line=line, message=f"custom {len(raw)}")] if line % 2 else None


@pytest.mark.parametrize("index", range(len(FILES)))
def test_streamed_as_whole(tmp_path: Path, index: int) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(FILES[index])
    for model in (Trial, GradedResult):
        for keys in (False, True):
            streamed = _read(path, model, whole=False, keys=keys)
            assert streamed == _read(path, model, whole=True, keys=keys)
    assert _read(path, Trial, whole=False, keys=False, explain=_explain) == _read(
        path, Trial, whole=True, keys=False, explain=_explain
    )


def test_streamed_as_whole_random(tmp_path: Path) -> None:
    rng = random.Random(13)
    pieces = [*_OK, b"", b" ", b"\r", b"{", b"}", b'"', readers.BOM, b"\xff", _PRETTY, b"NaN", b"[1]"]
    path = tmp_path / "f.jsonl"
    for _ in range(150):
        data = b"".join(
            rng.choice(pieces) + rng.choice([b"\n", b"\r\n", b""]) for _ in range(rng.randint(0, 8))
        )
        path.write_bytes(data)
        assert _read(path, Trial, whole=False, keys=True) == _read(path, Trial, whole=True, keys=True)


def test_a_regular_file_is_read_as_it_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a test of two equal paths: a regular file is not read whole (only for a problem on line 1)."""
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join(_OK) + b"\n")
    read_whole: list[Path] = []
    real = readers.read_bytes
    monkeypatch.setattr(readers, "read_bytes", lambda p, s: read_whole.append(p) or real(p, s))
    rows, problems = _read(path, Trial, whole=False, keys=True)
    assert len(rows) == 5 and not problems and not read_whole
