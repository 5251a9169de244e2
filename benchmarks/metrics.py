"""Time and peak memory of ``graderctl metrics`` over a large results file.

Writes ``--lines`` result lines (default 1,000,000) in ``--tasks`` tasks (default 100,000) to a temporary
file, shaped as ``graderctl score`` writes them (three checks with grader fingerprints, rule, cost, category,
stop reason; about 1 KB a line, with a few null trials), then runs ``graderctl metrics --format json`` on it
in a child process and prints its wall and CPU time, its critical path (its own CPU time and its slowest
worker's: the wall time on an idle machine with two cores, which a machine shared with other work inflates
less than the wall time) and peak resident memory (of the largest process, and summed over the process and
the two workers that read the file's halves).

Target (issue 6): under 10 s and under 1 GB.

    .venv/bin/python benchmarks/metrics.py [--lines 1000000] [--tasks 100000] [--spaced] [--keep PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TARGET_SECONDS = 10.0
TARGET_MB = 1024
CHECKS = ("source_existence", "claim_support", "coverage")
CATEGORIES = ("market-research", "literature-review", "due-diligence", "news-summary")
STOPS = ("completed", "completed", "completed", "max_turns", "error")


def write_results(path: Path, lines: int, tasks: int, seed: int = 7, *, spaced: bool = False) -> None:
    rng = random.Random(seed)
    per_task = lines // tasks
    extra = lines - per_task * tasks
    fingerprints = {c: "sha256:" + f"{i:x}" * 64 for i, c in enumerate(CHECKS, start=10)}
    rule = {"require": list(CHECKS), "combine": "all"}
    # compact, or spaced as `graderctl score` writes (json.dumps' default separators)
    dumps: dict[str, Any] = {"ensure_ascii": False} if spaced else {"separators": (",", ":")}
    with path.open("w", encoding="utf-8") as fh:
        written = 0
        for t in range(tasks):
            task_id = f"task-{t:06d}"
            skill = rng.random()
            category = CATEGORIES[t % len(CATEGORIES)]
            for j in range(per_task + (1 if t < extra else 0)):
                checks = {}
                for c in CHECKS:
                    passed = rng.random() < 0.5 + skill / 2
                    checks[c] = {
                        "passed": passed,
                        "grader": f"{c.replace('_', '-')}@1",
                        "fingerprint": fingerprints[c],
                        "units": 5,
                        "failed_units": [] if passed else ["claim:c2"],
                        "errors": 0,
                        "reasons": [] if passed else ["claim:c2: the evidence does not state the figure"],
                        "trusted": True,
                    }
                null = rng.random() < 0.01
                success = None if null else all(v["passed"] for v in checks.values())
                row = {
                    "task_id": task_id,
                    "trial_id": f"{task_id}-{j}",
                    "success": success,
                    "checks": checks,
                    "rule": rule,
                    "category": category,
                    "stop_reason": rng.choice(STOPS),
                    "cost": {
                        "input_tokens": rng.randint(500, 5000),
                        "output_tokens": rng.randint(100, 900),
                        "tool_calls": rng.randint(0, 12),
                        "usd": round(rng.uniform(0.001, 0.05), 5),
                        "wall_seconds": round(rng.uniform(3, 90), 2),
                    },
                    "trials_file": "runs/trials.jsonl",
                }
                if null:
                    row["reason"] = "claim_support: the grader erred on every unit"
                fh.write(json.dumps(row, **dumps) + "\n")
                written += 1
    assert written == lines


class TreeMemory(threading.Thread):
    """Samples the resident memory of a process and its children (Linux /proc) every 50 ms, and the CPU time
    of each child (its last sample: up to 50 ms short)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.child_cpu: dict[int, float] = {}
        self.stop = threading.Event()

    def _cpu_seconds(self, pid: int) -> float | None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def _rss_kb(self, pid: int) -> int:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def _children(self, pid: int) -> list[int]:
        try:
            text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:
            return []
        return [int(x) for x in text.split()]

    def run(self) -> None:
        while not self.stop.is_set():
            children = self._children(self.pid)
            self.peak_kb = max(self.peak_kb, sum(self._rss_kb(p) for p in [self.pid, *children]))
            for child in children:
                seconds = self._cpu_seconds(child)
                if seconds is not None:
                    self.child_cpu[child] = max(seconds, self.child_cpu.get(child, 0.0))
            self.stop.wait(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument(
        "--keep", type=Path, help="write the results file here and keep it (reused when it exists)"
    )
    parser.add_argument(
        "--spaced",
        action="store_true",
        help="write the lines as `graderctl score` does (', ' and ': ' separators; default: compact)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "results.jsonl"
        t0 = time.perf_counter()
        if args.keep is not None and args.keep.is_file():
            print(f"reusing {args.keep}", file=sys.stderr)
        else:
            write_results(path, args.lines, args.tasks, spaced=args.spaced)
        size_mb = path.stat().st_size / 2**20
        print(
            f"{args.lines:,} lines in {args.tasks:,} tasks ({size_mb:,.0f} MB) "
            f"ready in {time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
        env = dict(os.environ, GRADERCTL_ROOT=tmp)
        usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        before = usage_before.ru_maxrss
        t0 = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "graderctl", "metrics", str(path), "--format", "json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        sampler = TreeMemory(child.pid)
        sampler.start()
        stdout, stderr = child.communicate()
        seconds = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
        proc = subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_kb = usage.ru_maxrss
        cpu = (usage.ru_utime - usage_before.ru_utime) + (usage.ru_stime - usage_before.ru_stime)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            print(f"metrics failed with exit code {proc.returncode}")
            return 1
        doc = json.loads(proc.stdout)
        peak_mb = max(peak_kb, before) / 1024
        print(
            f"metrics: {doc['trials']:,} lines, {doc['tasks']:,} tasks, "
            f"pass@1 = {doc['pass_at_k']['1']:.4f}, k = {doc['k']}"
        )
        print(f"time: {seconds:.2f} s wall, {cpu:.2f} s CPU (target < {TARGET_SECONDS:.0f} s)")
        if sampler.child_cpu:
            # The two workers run at once: on an idle machine with two cores the wall time is about the
            # process's own CPU time and its slowest worker's (a measure that a busy machine inflates less).
            slowest = max(sampler.child_cpu.values())
            own = cpu - sum(sampler.child_cpu.values())
            print(
                f"critical path: {own + slowest:.2f} s CPU (the process's own {own:.2f} s + its slowest "
                f"worker's {slowest:.2f} s, of {len(sampler.child_cpu)} workers)"
            )
        load = os.getloadavg()[0]
        if load > (os.cpu_count() or 1):
            print(f"note: load average {load:.1f} on {os.cpu_count()} cores: wall time is inflated")
        tree_mb = sampler.peak_kb / 1024
        print(
            f"peak memory: {peak_mb:,.0f} MB in one process; {tree_mb:,.0f} MB summed over the process and "
            f"its workers, sampled (target < {TARGET_MB} MB)"
        )
        ok = seconds < TARGET_SECONDS and max(peak_mb, tree_mb) < TARGET_MB
        print("within target" if ok else "OVER TARGET")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
