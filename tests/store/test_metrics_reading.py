"""``graderctl metrics`` reads a results file a block of lines at a time (``metrics_inputs._line_blocks``),
the whole file or the byte ranges its two workers read: the lines are those of the file, whatever the block
size."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from graderctl.store import metrics_inputs


@pytest.mark.parametrize("block", [3, 4, 7, 64, 1 << 20])
def test_line_blocks_give_the_lines_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Lines longer than a block, blank lines, CRLF, a BOM, no final newline; the whole file and byte
    ranges starting at line starts (as the two workers read it)."""
    monkeypatch.setattr(metrics_inputs, "_BLOCK_BYTES", block)
    rng = random.Random(block)
    for case in range(40):
        lines = [
            "".join(rng.choice("ab{}\r é") for _ in range(rng.choice([0, 1, 5, 30, 200])))
            for _ in range(rng.randint(0, 12))
        ]
        data = "\n".join(lines).encode() + (b"\n" if rng.random() < 0.5 else b"")
        if case % 3 == 0:
            data = metrics_inputs.BOM + data
        path = tmp_path / f"{case}.jsonl"
        path.write_bytes(data)
        expected = data.removeprefix(metrics_inputs.BOM).split(b"\n")
        if expected[-1] == b"":
            expected.pop()
        got = [line for lines_ in metrics_inputs._line_blocks(path, "x") for line in lines_]
        assert got == expected, (block, data)
        for parts in (2, 3):
            ranges = metrics_inputs._ranges(path, parts)
            pieces = [
                line
                for a, b in ranges
                for lines_ in metrics_inputs._line_blocks(path, "x", a, b)
                for line in lines_
            ]
            assert pieces == expected, (block, parts, data)
