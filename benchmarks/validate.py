"""Validation throughput and peak memory of ``graderctl validate`` on a large calibration set.

Builds a calibration set of ``--n`` samples (default 100,000) with a corpus in a temporary folder, runs
``graderctl validate`` on it in-process, and prints samples per second and peak memory.

Target (issue 2): at least 20,000 samples/s and under 500 MB.

    .venv/bin/python benchmarks/validate.py [--n 100000] [--check claim_support] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

TARGET_RATE = 20_000
TARGET_MB = 500
CHECKS = ("claim_support", "source_existence", "coverage")

_WORDS = [
    "model",
    "agent",
    "report",
    "claim",
    "source",
    "evidence",
    "study",
    "result",
    "dataset",
    "market",
    "growth",
    "revenue",
    "survey",
    "paper",
    "analysis",
    "trial",
    "benchmark",
    "finding",
    "quote",
    "citation",
    "author",
    "journal",
    "métrique",
    "naïve",
    "café",
    "résumé",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _input(check: str, rng: random.Random, i: int, n_docs: int) -> dict[str, object]:
    doc = f"doc-{rng.randrange(n_docs):05d}"
    if check == "claim_support":
        evidence: list[dict[str, str]] = [{"source_id": doc}]
        if i % 3 == 0:
            evidence.append({"text": _text(rng, 25)})
        return {"claim": _text(rng, 14), "evidence": evidence}
    if check == "source_existence":
        citation: dict[str, str] = {"source_id": doc, "title": _text(rng, 6)}
        if i % 2:
            citation["quote"] = _text(rng, 12)
        if i % 5 == 0:
            citation["url"] = f"https://example.org/{doc}"
        return {"citation": citation}
    return {
        "question": _text(rng, 10),
        "nuggets": [{"text": _text(rng, 6), "importance": "vital" if k % 2 else "okay"} for k in range(3)],
        "report": _text(rng, 60),
    }


def build_set(folder: Path, n: int, check: str, n_docs: int = 2_000, seed: int = 7) -> Path:
    rng = random.Random(seed)
    set_dir = folder / "calibration_sets" / "bench"
    set_dir.mkdir(parents=True)
    (set_dir / "manifest.toml").write_text(
        "schema_version = 1\n"
        'name = "bench"\n'
        "version = 1\n"
        f'check = "{check}"\n'
        'description = "synthetic benchmark set"\n'
        'source = "benchmarks/validate.py"\n'
        "[policy]\n"
        "max_false_accept_rate = 0.05\n"
        "max_false_reject_rate = 0.2\n",
        encoding="utf-8",
    )
    with (set_dir / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for d in range(n_docs):
            doc = {
                "id": f"doc-{d:05d}",
                "url": f"https://example.org/doc-{d:05d}",
                "title": _text(rng, 6),
                "text": _text(rng, 200),
            }
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    categories = ("paraphrase", "misquote", "negation_flip", "fabricated_source", "missing_vital_nugget")
    with (set_dir / "samples.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n):
            sample: dict[str, object] = {
                "id": f"s-{i:07d}",
                "label": "good" if i % 2 else "bad",
                "category": categories[i % len(categories)],
                "group": f"seed-{i // 4}",
                "rationale": _text(rng, 8),
                "input": _input(check, rng, i, n_docs),
            }
            if i % 10 == 0:
                sample["generator"] = {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"}
            fh.write(json.dumps(sample, ensure_ascii=False) + "\n")
    return set_dir


def run_validate(root: Path, set_dir: Path) -> tuple[int, str, str]:
    from graderctl.cli import _state, app

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = _state.run(app, ["--root", str(root), "validate", str(set_dir)])
    return code, out.getvalue(), err.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=100_000, help="number of samples")
    parser.add_argument("--check", choices=CHECKS, default="claim_support")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="graderctl-bench-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        set_dir = build_set(root, args.n, args.check)
        size_mb = sum(p.stat().st_size for p in set_dir.iterdir()) / 1e6
        print(
            f"built {args.n:,} {args.check} samples ({size_mb:.1f} MB on disk) in "
            f"{time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
        # Warm up imports (not part of the per-sample cost) on a tiny copy.
        run_validate(root, set_dir.parent / "none")

        times = []
        for _ in range(max(1, args.repeat)):
            gc.collect()
            t = time.perf_counter()
            code, out, err = run_validate(root, set_dir)
            times.append(time.perf_counter() - t)
            if code != 0:
                print(out + err, file=sys.stderr)
                print(f"validate exited {code}: the generated set should be valid", file=sys.stderr)
                return 1
        best = min(times)
        rate = args.n / best

        # Peak memory: the process's maximum resident set (includes the interpreter and imports), and the
        # Python heap peak of one run measured by tracemalloc (slower, so measured separately).
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        gc.collect()
        tracemalloc.start()
        run_validate(root, set_dir)
        _, heap_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        heap_mb = heap_peak / 1e6

        if args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            run_validate(root, set_dir)
            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)

    ok_rate = rate >= TARGET_RATE
    ok_mem = rss_mb < TARGET_MB
    print(f"samples:          {args.n:,} ({args.check}, with a 2,000-document corpus)")
    print(f"time (best of {len(times)}): {best:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})")
    verdict = "met" if ok_rate else "MISSED"
    print(f"throughput:       {rate:,.0f} samples/s  (target >= {TARGET_RATE:,}: {verdict})")
    print(f"peak RSS:         {rss_mb:.0f} MB  (target < {TARGET_MB} MB: {'met' if ok_mem else 'MISSED'})")
    print(f"peak Python heap: {heap_mb:.0f} MB  (tracemalloc, one run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
