"""Time and peak memory of ``graderctl calibrate source-existence@1 --jobs 2`` on 100,000 generated samples.

Builds a project in a temporary folder: the shipped ``graders/source-existence/v1.toml`` (or a default
``source_existence`` definition when it is absent) and a ``source_existence`` set of ``--n`` samples over a
corpus of generated documents (half known-good: real sources quoted verbatim; half known-bad: fabricated
URLs, changed numbers, quotes from another document), grouped by four and spread over three generator models.
Then runs the command in a child process, as a user would (text summary on stdout, JSON and Markdown reports
written), and prints the wall time, the CPU time and the peak memory.

Target (issue 4): under 30 s and under 1 GB.

    .venv/bin/python benchmarks/calibrate.py [--n 100000] [--jobs 2] [--docs 2000] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TARGET_SECONDS = 30.0
TARGET_MB = 1024.0
REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "graders" / "source-existence" / "v1.toml"

_VOCABULARY = """
model agent report claim source evidence study result dataset market growth revenue survey paper analysis
trial benchmark finding author journal policy region sector forecast baseline sample median quarter
estimate increase decline council program energy climate health transport housing labour wages
"""
WORDS = _VOCABULARY.split()
GENERATORS = ["gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022", "llama-3.1-70b-instruct"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 14))]
    if rng.random() < 0.6:
        words.insert(rng.randint(1, len(words) - 1), str(rng.randint(2, 9800)))
    return " ".join(words).capitalize() + "."


def build_project(root: Path, n: int, docs: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    grader_dir = root / "graders" / "source-existence"
    grader_dir.mkdir(parents=True)
    if SHIPPED.is_file():
        shutil.copy(SHIPPED, grader_dir / "v1.toml")
    else:
        (grader_dir / "v1.toml").write_text(
            'schema_version = 1\nname = "source-existence"\nversion = 1\nkind = "source_existence"\n'
            'check = "source_existence"\n[params]\n',
            encoding="utf-8",
        )
    set_dir = root / "calibration_sets" / "bench"
    set_dir.mkdir(parents=True)
    (set_dir / "manifest.toml").write_text(
        'schema_version = 1\nname = "bench"\nversion = 1\ncheck = "source_existence"\n'
        'description = "generated for benchmarks/calibrate.py"\nsource = "generated"\n\n[policy]\n'
        "max_false_accept_rate = 0.05\nmax_false_reject_rate = 0.2\nmax_error_rate = 0.01\n",
        encoding="utf-8",
    )
    corpus: list[dict[str, object]] = []
    sentences: list[list[str]] = []
    for i in range(docs):
        parts = [_sentence(rng) for _ in range(rng.randint(6, 12))]
        sentences.append(parts)
        corpus.append(
            {
                "id": f"d{i:05d}",
                "url": f"https://example.org/articles/{i:05d}",
                "doi": f"10.5555/bench.{i:05d}",
                "title": " ".join(rng.choice(WORDS) for _ in range(5)).title(),
                "text": " ".join(parts),
            }
        )
    with (set_dir / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for doc in corpus:
            fh.write(json.dumps(doc) + "\n")
    with (set_dir / "samples.jsonl").open("w", encoding="utf-8") as fh:
        for k in range(n):
            d = rng.randrange(docs)
            doc = corpus[d]
            quote = rng.choice(sentences[d])
            citation: dict[str, object] = {"title": doc["title"]}
            how = rng.choice(("source_id", "url", "doi"))
            citation[how] = doc["id"] if how == "source_id" else doc[how]
            label = "good" if k % 2 == 0 else "bad"
            category = "exact_citation"
            if label == "bad":
                category = rng.choice(("fabricated_source", "misquote_number", "quote_from_other_document"))
                if category == "fabricated_source":
                    citation = {"url": f"https://example.org/made-up/{k}", "title": doc["title"]}
                elif category == "misquote_number":
                    digits = [w for w in quote.split() if w.isdigit()]
                    if digits:
                        quote = quote.replace(digits[0], str(int(digits[0]) + 13), 1)
                    else:
                        category = "quote_from_other_document"
                if category == "quote_from_other_document":
                    quote = rng.choice(sentences[(d + 1) % docs])
            citation["quote"] = quote
            sample = {
                "id": f"s{k:06d}",
                "label": label,
                "category": category,
                "group": f"g{k // 4:05d}",
                "generator": {"model": GENERATORS[k % 3], "provider": "bench"},
                "input": {"citation": citation},
            }
            fh.write(json.dumps(sample) + "\n")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


class _TreeMemory(threading.Thread):
    """Samples the proportional set size (shared pages split between sharers) of a process and its children
    (Linux ``/proc``); nothing elsewhere."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_pss_mb = 0.0
        self._halt = threading.Event()

    def _tree(self) -> list[int]:
        out, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                with contextlib.suppress(OSError):
                    todo.extend(int(c) for c in task.read_text().split())
        return out

    def run(self) -> None:
        while not self._halt.wait(0.1):
            total = 0
            for pid in self._tree():
                with contextlib.suppress(OSError, ValueError):
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1])
            self.peak_pss_mb = max(self.peak_pss_mb, total / 1024)

    def stop(self) -> None:
        self._halt.set()
        self.join(1)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=100_000, help="samples (default 100,000)")
    parser.add_argument("--docs", type=int, default=2_000, help="corpus documents (default 2,000)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the temporary project and print its path")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="graderctl-bench-calibrate-"))
    try:
        t0 = time.perf_counter()
        build_project(tmp, args.n, args.docs)
        built = time.perf_counter() - t0
        command = [
            sys.executable,
            "-m",
            "graderctl",
            "--root",
            str(tmp),
            "calibrate",
            "source-existence@1",
            "--set",
            "bench",
            "--jobs",
            str(args.jobs),
            "--quiet",
        ]
        load_before = _loadavg()
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sampler = _TreeMemory(proc.pid)
        sampler.start()
        _, stderr = proc.communicate()
        seconds = time.perf_counter() - t0
        sampler.stop()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_mb = usage.ru_maxrss / 1024  # KiB on Linux: the largest single process (the main one)
        cpu = usage.ru_utime + usage.ru_stime
        if proc.returncode not in (0, 1):
            print(stderr, file=sys.stderr)
            print(f"graderctl calibrate exited {proc.returncode}", file=sys.stderr)
            return 1
        report = tmp / "reports" / "bench" / "source-existence@1.json"
        doc = json.loads(report.read_text(encoding="utf-8"))
        far, frr = doc["false_accept_rate"], doc["false_reject_rate"]
        print(f"set built in {built:.1f} s ({args.n:,} samples, {args.docs:,} corpus documents)")
        print(f"graderctl calibrate source-existence@1 --jobs {args.jobs}: exit {proc.returncode}")
        rate = args.n / seconds
        print(f"  time         {seconds:6.1f} s   ({rate:,.0f} samples/s; target < {TARGET_SECONDS:g} s)")
        print(f"  cpu time     {cpu:6.1f} s   (user + system, every process; load average {load_before})")
        print(f"  peak memory  {peak_mb:6.0f} MB  (largest process, peak RSS; target < {TARGET_MB:g} MB)")
        if sampler.peak_pss_mb:
            total = sampler.peak_pss_mb
            print(f"  peak total   {total:6.0f} MB  (all processes, proportional set size, sampled)")
        print(
            f"  report       {report.stat().st_size / 1e6:.1f} MB JSON; trusted={doc['trusted']}, "
            f"FAR {far['count']}/{far['n']}, FRR {frr['count']}/{frr['n']}, errors {doc['errors']}"
        )
        ok = seconds < TARGET_SECONDS and peak_mb < TARGET_MB
        print("  within target" if ok else "  OVER TARGET")
        if args.keep:
            print(f"project kept at {tmp}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
