"""The units document's JSON is byte for byte ``json.dumps(..., ensure_ascii=False)`` (msgspec encodes the
trials)."""

from __future__ import annotations

import json
from typing import Any

from graderctl.render.units import units_json_chunks


def _expected(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def test_same_bytes_as_json_dumps() -> None:
    rows = [
        {
            "task_id": f"t{i}",
            "text": 'Prix « 3 € » — naïve\u2028\ttab\x01 "q" \\ 😀',
            "span": [i, i + 10],
            "ok": i % 2 == 0,
            "none": None,
            "nested": {"units": [{"id": "c1", "input": {"claim": "x", "evidence": [{"text": "y"}]}}]},
        }
        for i in range(8000)  # more than one chunk (1 MB)
    ]
    doc = {"schema_version": 1, "summary": {"citation_coverage": 1e-05, "big": 1e16}, "trials": rows}
    assert b"".join(units_json_chunks(doc)) == _expected(doc)
    empty = {**doc, "trials": []}
    assert b"".join(units_json_chunks(empty)) == _expected(empty)


def test_lone_surrogate_still_gives_valid_json() -> None:
    doc = {"schema_version": 1, "trials": [{"text": "a\ud800b"}, {"text": "ok"}]}
    parsed = json.loads(b"".join(units_json_chunks(doc)))
    assert parsed == doc
