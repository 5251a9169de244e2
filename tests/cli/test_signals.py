"""SIGTERM stops graderctl as Ctrl-C does: worker processes and the programs graders started end with it.

Each test runs the real CLI entry point (``graderctl.cli.main``) in a child Python process, waits until its
grading has started (worker processes or grader programs alive), sends SIGTERM to that process only (as a
process supervisor or ``kill PID`` does), and then checks that none of its descendants is still running.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process tree from /proc (Linux only)"
)

REPO = Path(__file__).resolve().parents[2]

#: Registers a rule-based kind that sleeps (so it runs in worker processes with --jobs 2), then runs the CLI.
DRIVER = textwrap.dedent(
    """
    import sys, time
    from graderctl.plugin import GraderKind, Verdict, register
    from graderctl.models.base import Check

    class Sleepy(GraderKind):
        name = "test_sleepy"
        checks = frozenset({Check.source_existence})

        def grade_batch(self, inputs):
            time.sleep(120)
            return [Verdict.accept("slept") for _ in inputs]

    register(Sleepy)
    from graderctl.cli import main
    main(sys.argv[1:])
    """
)

#: A grader program that never answers in time.
SLOW_PROGRAM = "import sys, time\nsys.stdin.read()\ntime.sleep(120)\n"


def _project(root: Path, kind: str, params: str = "") -> None:
    grader = root / "graders" / "slow"
    grader.mkdir(parents=True)
    (grader / "v1.toml").write_text(
        f'schema_version = 1\nname = "slow"\nversion = 1\nkind = "{kind}"\ncheck = "source_existence"\n'
        f'description = "sleeps"\n{params}'
    )
    (grader / "slow.py").write_text(SLOW_PROGRAM)
    cal = root / "calibration_sets" / "se"
    cal.mkdir(parents=True)
    (cal / "manifest.toml").write_text(
        'schema_version = 1\nname = "se"\nversion = 1\ncheck = "source_existence"\ndescription = "t"\n'
        'source = "tests"\n[policy]\nmax_false_accept_rate = 0.5\nmax_false_reject_rate = 0.5\n'
        "max_error_rate = 0.5\n"
    )
    rows = [
        {
            "id": f"s{i}",
            "label": "good" if i % 2 else "bad",
            "category": "c",
            "input": {"citation": {"url": f"https://example.org/{i}"}},
        }
        for i in range(8)
    ]
    (cal / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="utf-8") as f:
                found |= {int(x) for x in f.read().split()}
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            state = next(line for line in f if line.startswith("State:"))
    except (FileNotFoundError, StopIteration, ProcessLookupError):
        return False
    return "zombie" not in state and "dead" not in state


def _terminate_and_check(tmp_path: Path, args: list[str], want_children: int) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen(
        [sys.executable, str(driver), "--root", str(tmp_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    descendants: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            descendants = _descendants(proc.pid)
            if len(descendants) >= want_children:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        assert len(descendants) >= want_children, descendants
        time.sleep(0.3)  # let the workers settle into grading
        descendants |= _descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err, err
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_running(p) for p in descendants):
        time.sleep(0.05)
    alive = [p for p in descendants if _running(p)]
    for p in alive:  # do not leave them behind even when the test fails
        with_suppress_kill(p)
    assert not alive, f"orphans still running after SIGTERM: {alive}"
    assert not (tmp_path / "reports" / "se" / "slow@1.json").exists()


def with_suppress_kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def test_sigterm_ends_worker_processes(tmp_path: Path) -> None:
    _project(tmp_path, "test_sleepy")
    _terminate_and_check(tmp_path, ["calibrate", "slow@1", "--jobs", "2", "--batch-size", "1"], 2)


def test_sigterm_ends_grader_programs_run_from_threads(tmp_path: Path) -> None:
    _project(tmp_path, "command", '[params]\nargv = ["{python}", "slow.py"]\ntimeout = 300\n')
    args = ["calibrate", "slow@1", "--jobs", "2", "--batch-size", "1", "--no-cache"]
    _terminate_and_check(tmp_path, args, 2)
