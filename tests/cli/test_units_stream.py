"""``graderctl units --format json`` with stdout a regular file (``> units.json``, ``>> log``): the trials are
written as they are made (memory stays flat), the document is byte for byte the one a pipe gets, and a failure
after writing began leaves the file as it was before the command (then the command ends as it always did)."""

from __future__ import annotations

import io
import itertools
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.render.units import UnitsJsonWriter

REPO = Path(__file__).resolve().parents[2]
PREVIOUS = b'{"an earlier line": true}\n'

REPORT = (
    "Sales fell 21% in 2024 [1]. Prices fell to 115 dollars per kWh [3]. Heat pumps rose 5% in 2023 [2].\n\n"
    "## References\n1. [Heat pump tracker](https://www.iea.org/reports/heat-pumps-2024)\n"
    "2. Prices, https://example.org/prices?utm_source=x\n"
)


def _trials(path: Path, n: int = 40) -> Path:
    rows = []
    for i in range(n):
        text = REPORT * (1 + i % 3) if i % 5 else ""  # empty reports too
        rows.append(
            {
                "task_id": f"t{i // 4}",
                "trial_id": f"t-{i}",
                "task": {"question": "q"},
                "report": {"text": text},
            }
        )
    rows.append(
        {
            "task_id": "s",
            "trial_id": "structured",
            "task": {"question": "q"},
            "report": {
                "text": "x",
                "claims": [
                    {"id": "a", "text": "Claim a \u00e9 \U0001f600.", "citations": [{"source_id": "s1"}]}
                ],
                "sources": [{"id": "s1", "url": "https://example.org/a"}],
            },
        }
    )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _through_text_stream(
    capsys: pytest.CaptureFixture[str], root: Path, *args: str
) -> tuple[int, bytes, str]:
    """The command with stdout a text stream (what a test capture or a pipe gets: written at the end)."""
    capsys.readouterr()
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out.encode("utf-8"), err


def _into_file(
    monkeypatch: pytest.MonkeyPatch, path: Path, how: str, root: Path, *args: str
) -> tuple[int, bytes]:
    """The command with stdout the regular file ``path``: ``how`` ``>`` (truncated), ``>>`` (appended:
    O_APPEND) or ``+`` (opened for update, positioned at its end: ``{ echo x; graderctl ...; } > f``)."""
    mode = {">": "wb", ">>": "ab", "+": "r+b"}[how]
    with open(path, mode, buffering=0) as raw:
        if how == "+":
            raw.seek(0, os.SEEK_END)
        stream = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", write_through=False)
        monkeypatch.setattr(sys, "stdout", stream)
        code = _state.run(app, ["--root", str(root), *args])
        stream.flush()
        assert raw.tell() == path.stat().st_size  # the next write would follow the document
    monkeypatch.undo()
    return code, path.read_bytes()


def _each_row(monkeypatch: pytest.MonkeyPatch, hook: Callable[[int], None]) -> None:
    """Call ``hook(i)`` as trial ``i``'s row, just made by the service's unit builder, is handed to the JSON
    writer (the row sink: every row passes there, however the service's own functions are named; an exception
    there ends ``list_units`` as one from the builder does), and write each row at once (not 256 KiB at a
    time)."""
    write_row = UnitsJsonWriter.__call__
    count = itertools.count()

    def call(self: UnitsJsonWriter, row: Any) -> None:
        hook(next(count))
        write_row(self, row)

    monkeypatch.setattr(UnitsJsonWriter, "__call__", call)
    monkeypatch.setattr(UnitsJsonWriter, "BATCH", 1)


@pytest.mark.parametrize("how", [">", ">>", "+"])
def test_regular_file_gets_the_same_document_written_trial_by_trial(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str
) -> None:
    trials = _trials(tmp_path / "trials.jsonl")
    args = ("units", str(trials), "--format", "json")
    code, want, _ = _through_text_stream(capsys, tmp_path, *args)
    assert code == 0 and json.loads(want)["summary"]["trials"] == 41
    out = tmp_path / "units.json"
    before = b"" if how == ">" else PREVIOUS
    out.write_bytes(PREVIOUS)
    sizes: list[int] = []
    _each_row(monkeypatch, lambda i: sizes.append(out.stat().st_size))
    code, got = _into_file(monkeypatch, out, how, tmp_path, *args)
    assert code == 0
    assert got == before + want
    # streamed: each trial was in the file before the next one was made
    assert len(sizes) == 41 and all(a < b for a, b in itertools.pairwise(sizes)), sizes


def test_the_head_is_made_room_for_in_small_steps(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The trials written before the head was known are moved up to make room for it, a step at a time: steps
    smaller than the head (the pieces overlap) and larger give the same bytes."""
    trials = _trials(tmp_path / "trials.jsonl", 7)
    args = ("units", str(trials), "--format", "json")
    _, want, _ = _through_text_stream(capsys, tmp_path, *args)
    for step in (1, 7, 100, 4096, 1 << 20):
        monkeypatch.setattr(_state, "MOVE_STEP", step)
        out = tmp_path / f"units-{step}.json"
        out.write_bytes(PREVIOUS)
        code, got = _into_file(monkeypatch, out, ">>", tmp_path, *args)
        assert code == 0 and got == PREVIOUS + want, step


def _fail_on(
    monkeypatch: pytest.MonkeyPatch, n: int, exc: BaseException, watch: Path | None = None
) -> list[int]:
    """Make the making of trial ``n``'s row (from 0) raise ``exc``; returns the size ``watch`` had then."""
    seen: list[int] = []

    def fail(i: int) -> None:
        if i == n:
            if watch is not None:
                seen.append(watch.stat().st_size)
            raise exc

    _each_row(monkeypatch, fail)
    return seen


@pytest.mark.parametrize("how", [">", ">>", "+"])
@pytest.mark.parametrize(
    ("exc", "code"),
    [(RuntimeError("boom"), ExitCode.INTERNAL_ERROR), (KeyboardInterrupt(), ExitCode.INTERRUPTED)],
)
def test_a_failure_among_the_trials_leaves_the_file_as_it_was(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    how: str,
    exc: BaseException,
    code: int,
) -> None:
    """A trial that fails after 25 were written: the file is cut back to where the document began, then the
    command ends as it does when its stdout is not a file (same exit code, same message, the same error
    document on stdout)."""
    trials = _trials(tmp_path / "trials.jsonl")
    args = ("units", str(trials), "--format", "json")
    _fail_on(monkeypatch, 25, exc)
    want_code, want, want_err = _through_text_stream(capsys, tmp_path, *args)
    assert want_code == code and json.loads(want)["type"] == "error"
    out = tmp_path / "units.json"
    out.write_bytes(PREVIOUS)
    seen = _fail_on(monkeypatch, 25, exc, out)
    got_code, got = _into_file(monkeypatch, out, how, tmp_path, *args)
    assert got_code == code and capsys.readouterr().err == want_err
    assert seen[0] > len(PREVIOUS) + 25 * 100  # 25 trials were in the file when the 26th failed
    assert got == (b"" if how == ">" else PREVIOUS) + want


def _cli(args: list[str], stdout: Any, fsize: int | None = None) -> subprocess.CompletedProcess[bytes]:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, "-m", "graderctl", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=limit,
        check=False,
    )


@pytest.fixture
def cli_trials(tmp_path: Path) -> Iterator[list[str]]:
    yield ["--root", str(tmp_path), "units", str(_trials(tmp_path / "trials.jsonl", 120)), "--format", "json"]


def test_a_file_and_a_pipe_get_the_same_bytes(tmp_path: Path, cli_trials: list[str]) -> None:
    piped = _cli(cli_trials, subprocess.PIPE)
    assert piped.returncode == 0, piped.stderr
    out = tmp_path / "units.json"
    out.write_bytes(PREVIOUS)
    with out.open("ab") as fh:  # >> units.json
        done = _cli(cli_trials, fh)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == PREVIOUS + piped.stdout


def test_a_write_error_leaves_the_file_as_it_was(tmp_path: Path, cli_trials: list[str]) -> None:
    """The file-size limit (``ulimit -f``) reached in the middle of the document: the file is cut back to what
    it held before, the command says why and exits 3 as it always did (the document could not be written, so
    no error document either)."""
    out = tmp_path / "units.json"
    out.write_bytes(PREVIOUS)
    with out.open("ab") as fh:
        done = _cli(cli_trials, fh, fsize=64 * 1024)
    assert done.returncode == ExitCode.INVALID_INPUT
    assert b"file-size limit" in done.stderr
    assert out.read_bytes() == PREVIOUS


def test_a_file_opened_for_reading_only_is_not_written(tmp_path: Path, cli_trials: list[str]) -> None:
    """stdout a file opened read-only (``1< file``): the command cannot write its document, as ever (exit 3),
    and does not write it through a descriptor of its own either."""
    out = tmp_path / "units.json"
    for before in (b"", PREVIOUS):
        out.write_bytes(before)
        with out.open("rb") as fh:
            done = _cli(cli_trials, fh)
        assert done.returncode == ExitCode.INVALID_INPUT, done.stderr
        assert out.read_bytes() == before
