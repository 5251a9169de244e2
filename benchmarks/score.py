"""Speed and peak memory of ``graderctl score`` with the three shipped graders, by number of trials and jobs.

Generates trials from the shipped research-agent example (``examples/research-agent``): each generated trial
is one of the 25 example trials with its own ids, a task of its own every five trials, its generator model
drawn from three, and its report varied the way agents vary (a sentence added, a number changed in a claim or
a quote, a claim dropped, now and then no nuggets), so no two reports are the same. Then runs, as a user
would, in a child process::

    graderctl --root REPO score TRIALS --corpus examples/research-agent/corpus.jsonl -o RESULTS \
        --allow-untrusted --quiet --jobs J

for every size and every ``--jobs`` value, and prints a table: wall time, trials/s, the peak resident memory
of the largest process (``wait4``: the main process or a worker), and the sampled peak of the whole process
tree (the sum of every process's resident memory; PSS beside it, which counts pages shared after ``fork``
once).

Targets (issue 16, 2 cores): ``--jobs 2`` at least 1.6x faster than ``--jobs 1`` on 10,000 trials; 100,000
trials with ``--jobs 2`` at least 150 trials/s and under 600 MB (largest process). Issue 11 (item 21): 200,000
trials under 600 MB.

    .venv/bin/python benchmarks/score.py                       # 1k, 10k, 100k x --jobs 1, 2 (long)
    .venv/bin/python benchmarks/score.py --sizes 1000 --jobs 1,2
    .venv/bin/python benchmarks/score.py --generate 2000 --out trials.jsonl   # only write trials
    .venv/bin/python benchmarks/score.py --sizes 200000 --jobs 2 -- --grader source-existence@1  # memory

``cores`` in the table is CPU time / wall time: on a machine shared with other work, the wall time (and so
trials/s and the speedup) follows the load, the CPU time per trial does not.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "research-agent"
TARGET_SPEEDUP = 1.6
TARGET_RATE = 150.0
TARGET_MB = 600.0
GENERATORS = [
    {"model": "gpt-4o-2024-08-06", "provider": "openai"},
    {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"},
    {"model": "llama-3.1-70b-instruct", "provider": "meta"},
]
FILLERS = [
    "Figures are rounded and may not add up exactly.",
    "The picture differs noticeably between regions and between years.",
    "Several of the sources use slightly different definitions, which limits direct comparison.",
    "Data for the most recent quarter are provisional and may be revised.",
    "Analysts expect the trend to continue, although estimates vary widely.",
    "This summary relies on the most recent public figures available at the time of writing.",
]
_NUMBER = re.compile(r"\d+")


def _bump_number(text: str, rng: random.Random) -> str:
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return text
    m = rng.choice(numbers)
    return text[: m.start()] + str(int(m.group()) + rng.randint(1, 9)) + text[m.end() :]


def vary(base: dict[str, Any], i: int, rng: random.Random) -> dict[str, Any]:
    """Trial ``i``: the example trial ``base`` with ids of its own and a varied report."""
    trial = copy.deepcopy(base)
    group = i // 25
    trial["task_id"] = f"{base['task_id']}-{group // 5:05d}"
    trial["trial_id"] = f"{base['trial_id']}-{group:05d}"
    trial["generator"] = dict(GENERATORS[rng.randrange(len(GENERATORS))])
    report = trial["report"]
    paragraphs = report["text"].split("\n\n")
    at = rng.randrange(max(1, len(paragraphs) - 1))
    paragraphs[at] += " " + rng.choice(FILLERS) + f" (Review {i}.)"
    report["text"] = "\n\n".join(paragraphs)
    claims = report["claims"]
    if claims and rng.random() < 0.5:
        claim = rng.choice(claims)
        claim["text"] = _bump_number(claim["text"], rng)
    if claims and rng.random() < 0.3:
        cits = [c for claim in claims for c in claim["citations"] if c.get("quote")]
        if cits:
            cit = rng.choice(cits)
            cit["quote"] = _bump_number(cit["quote"], rng)
    if len(claims) > 2 and rng.random() < 0.1:
        del claims[rng.randrange(len(claims))]
    if rng.random() < 0.02:
        trial["task"]["nuggets"] = []
    if trial.get("cost") and rng.random() < 0.5:
        trial["cost"]["usd"] = round(trial["cost"].get("usd", 0.0) * rng.uniform(0.5, 1.5), 4)
    return trial


def generate(n: int, path: Path, seed: int = 16) -> None:
    """Write ``n`` generated trials to ``path`` (deterministic for a seed)."""
    rng = random.Random(seed)
    bases = [json.loads(line) for line in (EXAMPLE / "trials.jsonl").read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(vary(bases[i % len(bases)], i, rng), ensure_ascii=False) + "\n")


class _TreeMemory(threading.Thread):
    """Samples the summed resident set size and proportional set size of a process and its descendants
    (Linux ``/proc``, every 0.1 s)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_rss_mb = 0.0
        self.peak_pss_mb = 0.0
        self.most_processes = 0
        self._halt = threading.Event()

    def _tree(self) -> list[int]:
        out, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                with contextlib.suppress(OSError, ValueError):
                    todo.extend(int(c) for c in task.read_text().split())
        return out

    def run(self) -> None:
        while not self._halt.wait(0.1):
            rss = pss = 0
            tree = self._tree()
            for pid in tree:
                with contextlib.suppress(OSError, ValueError):
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Rss:"):
                            rss += int(line.split()[1])
                        elif line.startswith("Pss:"):
                            pss += int(line.split()[1])
            self.peak_rss_mb = max(self.peak_rss_mb, rss / 1024)
            self.peak_pss_mb = max(self.peak_pss_mb, pss / 1024)
            self.most_processes = max(self.most_processes, len(tree))

    def stop(self) -> None:
        self._halt.set()
        self.join(1)


def run_score(trials: Path, output: Path, jobs: int, extra: list[str]) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "graderctl",
        "--root",
        str(REPO),
        "score",
        str(trials),
        "--corpus",
        str(EXAMPLE / "corpus.jsonl"),
        "--output",
        str(output),
        "--allow-untrusted",
        "--quiet",
        "--jobs",
        str(jobs),
        *extra,
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = _TreeMemory(proc.pid)
    sampler.start()
    assert proc.stderr is not None
    err_chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    reader.join(5)
    sampler.stop()
    if proc.returncode != 0:
        sys.stderr.write(b"".join(err_chunks).decode(errors="replace"))
        raise SystemExit(f"graderctl score exited {proc.returncode}: {' '.join(command)}")
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "largest_mb": usage.ru_maxrss / 1024,  # KiB on Linux: the largest process of the tree
        "tree_rss_mb": sampler.peak_rss_mb,
        "tree_pss_mb": sampler.peak_pss_mb,
        "processes": sampler.most_processes,
    }


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000", help="numbers of trials, comma-separated")
    parser.add_argument("--jobs", default="1,2", help="--jobs values, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the median is shown")
    parser.add_argument("--generate", type=int, help="only write this many trials to --out and stop")
    parser.add_argument("--out", type=Path, help="with --generate: the trials file to write")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print its path")
    parser.add_argument("extra", nargs="*", help="more options for graderctl score (after --)")
    args = parser.parse_args()
    if args.generate is not None:
        if args.out is None:
            parser.error("--generate needs --out FILE")
        generate(args.generate, args.out)
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    jobs_values = [int(j) for j in args.jobs.split(",") if j.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="graderctl-bench-score-"))
    rows: list[tuple[int, int, dict[str, Any]]] = []
    try:
        print(f"cores: {os.cpu_count()}, load average before: {_loadavg()}", flush=True)
        for n in sizes:
            trials = tmp / f"trials-{n}.jsonl"
            generate(n, trials)
            print(f"{n:,} trials generated ({trials.stat().st_size / 1e6:.1f} MB)", flush=True)
            for jobs in jobs_values:
                runs = []
                for _ in range(max(1, args.repeat)):
                    out = tmp / f"results-{n}-{jobs}.jsonl"
                    runs.append(run_score(trials, out, jobs, args.extra))
                    out.unlink()
                runs.sort(key=lambda r: r["seconds"])
                result = runs[len(runs) // 2]
                rows.append((n, jobs, result))
                print(
                    f"  --jobs {jobs}: {result['seconds']:.1f} s, {n / result['seconds']:,.0f} trials/s, "
                    f"largest process {result['largest_mb']:.0f} MB",
                    flush=True,
                )
        print()
        print(f"load average after: {_loadavg()}")
        header = (
            f"{'trials':>8} {'jobs':>4} {'seconds':>8} {'trials/s':>9} {'speedup':>8} {'cpu s':>7} "
            f"{'cores':>5} {'largest MB':>10} {'tree RSS MB':>11} {'tree PSS MB':>11} {'procs':>5}"
        )
        print(header)
        print("-" * len(header))
        base: dict[int, float] = {}
        for n, jobs, r in rows:
            if jobs == 1:
                base[n] = r["seconds"]
            speedup = f"{base[n] / r['seconds']:.2f}x" if n in base else "-"
            print(
                f"{n:>8,} {jobs:>4} {r['seconds']:>8.1f} {n / r['seconds']:>9,.0f} {speedup:>8} "
                f"{r['cpu']:>7.1f} {r['cpu'] / r['seconds']:>5.2f} {r['largest_mb']:>10.0f} "
                f"{r['tree_rss_mb']:>11.0f} {r['tree_pss_mb']:>11.0f} {r['processes']:>5}"
            )
        print()
        print(
            "cores = cpu s / seconds: the CPU the run got (at most --jobs); on a shared machine the wall "
            "time follows the load, the CPU time per trial does not"
        )
        print(
            f"targets: --jobs 2 >= {TARGET_SPEEDUP}x --jobs 1 at 10,000 trials; at 100,000 trials with "
            f"--jobs 2 >= {TARGET_RATE:g} trials/s and largest process < {TARGET_MB:g} MB"
        )
        if args.keep:
            print(f"kept: {tmp}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
