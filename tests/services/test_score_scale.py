"""``score`` at scale (issue 16): one worker pool per run, trials read as the file goes, lines written as
chunks finish, and the same bytes whatever the jobs, the chunk size or an interruption."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tests.data.score.fake_kind import ensure_registered, make_project

from graderctl.errors import GraderRunError, InvalidInputError
from graderctl.runner import can_use_processes
from graderctl.services import score as score_service
from graderctl.services.running import RunOptions
from graderctl.services.score import ScoreOptions, index_trials, partial_path, score_trials

needs_fork = pytest.mark.skipif(not can_use_processes(), reason="worker processes need fork (Linux)")


@pytest.fixture(autouse=True)
def _kind() -> None:
    ensure_registered()


def run(root: Path, trials: Path, output: Path, **kw: Any) -> score_service.ScoreOutcome:
    return score_trials(ScoreOptions(output=output, trials=trials, **kw), root=root)


class CountingPool(score_service.WorkerPool):
    started: ClassVar[list[int]] = []

    def __init__(self, jobs: int, state: Any) -> None:
        CountingPool.started.append(jobs)
        super().__init__(jobs, state)


@needs_fork
def test_jobs_2_grades_in_one_pool_for_the_whole_run_with_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials, _ = make_project(tmp_path)
    ref = tmp_path / "ref.jsonl"
    reference = run(tmp_path, trials, ref)
    CountingPool.started = []
    monkeypatch.setattr(score_service, "WorkerPool", CountingPool)
    out = tmp_path / "j2.jsonl"
    outcome = run(tmp_path, trials, out, run=RunOptions(jobs=2), chunk_trials=1)
    assert CountingPool.started == [2]  # five chunks, three graders: one pool
    assert out.read_bytes() == ref.read_bytes()
    assert (outcome.trials, outcome.successes, outcome.failures, outcome.null) == (
        reference.trials,
        reference.successes,
        reference.failures,
        reference.null,
    )
    assert outcome.failures_by_check == reference.failures_by_check
    assert outcome.errors_by_check == reference.errors_by_check


@needs_fork
def test_graders_in_threads_and_in_the_pool_merge_in_check_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials, _ = make_project(tmp_path)
    ref = tmp_path / "ref.jsonl"
    run(tmp_path, trials, ref)
    real = score_service._pooled_graders

    def only_coverage(*args: Any) -> Any:  # source existence and claim support then grade here, in threads
        return [g for g in real(*args) if g.spec.check.value == "coverage"]

    monkeypatch.setattr(score_service, "_pooled_graders", only_coverage)
    out = tmp_path / "mixed.jsonl"
    run(tmp_path, trials, out, run=RunOptions(jobs=2), chunk_trials=2)
    assert out.read_bytes() == ref.read_bytes()


def _die(state: Any, raws: Any) -> Any:
    os._exit(3)  # a worker process that dies (out of memory, segfault): the pool breaks


@needs_fork
def test_a_dead_worker_gives_errors_never_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trials, _ = make_project(tmp_path)
    monkeypatch.setattr(score_service, "_worker_grade", _die)
    out = tmp_path / "dead.jsonl"
    with pytest.raises(GraderRunError, match="could not grade any unit"):
        run(tmp_path, trials, out, run=RunOptions(jobs=2), chunk_trials=2)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 5
    for line in lines:
        for check in line["checks"].values():
            assert check["passed"] is not True
            if check["errors"]:
                assert any("the grading process failed" in r for r in check["reasons"])
        assert line["success"] is not True


def test_trials_are_indexed_not_kept(tmp_path: Path) -> None:
    """The validation pass keeps ids, generator and the line's place; reading a line back gives the trial."""
    trials, _ = make_project(tmp_path)
    refs, fh = index_trials(trials, tmp_path)
    with fh:
        lines = [x for x in trials.read_bytes().split(b"\n") if x.strip()]
        assert len(refs) == len(lines)
        for ref, line in zip(refs, lines, strict=True):
            assert score_service.read_chunk(fh.fileno(), [ref]) == [line]
            assert (ref.task_id, ref.trial_id) == (json.loads(line)["task_id"], json.loads(line)["trial_id"])
    # the same problems as the whole-file reader: duplicate trials, bad lines
    dup = tmp_path / "dup.jsonl"
    dup.write_bytes(b"\xef\xbb\xbf" + lines[0] + b"\r\n" + lines[0] + b"\n")
    with pytest.raises(InvalidInputError) as info:
        index_trials(dup, tmp_path)
    assert "duplicate trial" in info.value.problems[0].message and info.value.problems[0].line == 2


def test_trials_from_a_pipe_are_read_twice(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    ref = tmp_path / "ref.jsonl"
    run(tmp_path, trials, ref)
    fifo = tmp_path / "trials.fifo"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer end of the pipe
        try:
            with fifo.open("wb") as w:
                w.write(trials.read_bytes())
        finally:
            os._exit(0)
    try:
        out = tmp_path / "piped.jsonl"
        outcome = run(tmp_path, fifo, out, corpus=trials.parent / "corpus.jsonl")
    finally:
        os.waitpid(pid, 0)
    assert outcome.trials == 5
    strip = [
        {k: v for k, v in json.loads(x).items() if k != "trials_file"} for x in out.read_text().splitlines()
    ]
    want = [
        {k: v for k, v in json.loads(x).items() if k != "trials_file"} for x in ref.read_text().splitlines()
    ]
    assert strip == want


# --- SIGKILL mid-run, then --resume: the same bytes as a run never interrupted ---------------------------


def _many_trials(repo_root: Path, path: Path, copies: int) -> None:
    base = (repo_root / "examples" / "research-agent" / "trials.jsonl").read_text().splitlines()
    with path.open("w") as fh:
        for k in range(copies):
            for line in base:
                trial = json.loads(line)
                trial["task_id"] += f"-{k}"
                trial["trial_id"] += f"-{k}"
                fh.write(json.dumps(trial) + "\n")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out.extend(int(c) for c in task.read_text().split())
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@needs_fork
def test_resume_after_sigkill_gives_the_same_bytes(tmp_path: Path, repo_root: Path) -> None:
    """A real run with worker processes, killed with SIGKILL mid-run: no worker outlives it, and --resume
    (also past a last line cut short) writes exactly what an uninterrupted run writes."""
    jobs = 2
    trials = tmp_path / "trials.jsonl"
    _many_trials(repo_root, trials, 10)  # 250 trials: a few seconds of grading
    corpus = repo_root / "examples" / "research-agent" / "corpus.jsonl"

    def command(output: Path, *extra: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "graderctl",
            "--root",
            str(repo_root),
            "score",
            str(trials),
            "--corpus",
            str(corpus),
            "--output",
            str(output),
            "--allow-untrusted",
            "--quiet",
            "--jobs",
            str(jobs),
            *extra,
        ]

    reference = tmp_path / "reference.jsonl"
    subprocess.run(command(reference), check=True, capture_output=True)

    output = tmp_path / "killed.jsonl"
    partial = partial_path(output)
    proc = subprocess.Popen(command(output), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        workers = sorted(set(workers) | set(_children(proc.pid)))
        if partial.exists() and partial.read_bytes().count(b"\n") >= 40:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    got = partial.read_bytes()
    assert 40 <= got.count(b"\n") < 250 and not output.exists()
    assert workers, "no worker process was seen"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "worker processes outlived the killed run"
    # a crash may also cut the last line short: resume drops it and grades that trial again
    partial.write_bytes(got + b'{"task_id": "cut sh')

    done = subprocess.run(command(output, "--resume"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not partial.exists()
    assert output.read_bytes() == reference.read_bytes()
