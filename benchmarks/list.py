"""Wall time and peak memory of ``graderctl list`` on a project with a large calibration set.

Builds, in a temporary folder, a copy of this project's graders, calibration sets and reports plus one extra
calibration set of ``--n`` samples (default 100,000, built as in ``benchmarks/validate.py``), then runs
``graderctl list`` in a fresh process (as a user would) and prints its wall time and peak resident memory.

Target (issue 11, item 21): under 2 s.

    .venv/bin/python benchmarks/list.py [--n 100000] [--check claim_support] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
TARGET_SECONDS = 2.0

sys.path.insert(0, str(HERE))
from validate import CHECKS, build_set  # noqa: E402


def run_list(root: Path, fmt: str) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one ``graderctl --root ROOT list`` in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "graderctl", "--root", str(root), "list", "--format", fmt],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - t
    # ru_maxrss of the children is the largest child so far; each run is the largest, or ties.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr, file=sys.stderr)
    return seconds, max(peak, before) / 1024, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=100_000, help="samples in the large set")
    parser.add_argument("--check", choices=CHECKS, default="claim_support")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="graderctl-bench-list-") as tmp:
        root = Path(tmp)
        for part in ("graders", "calibration_sets", "reports"):
            shutil.copytree(PROJECT / part, root / part, ignore=shutil.ignore_patterns("_build"))
        t0 = time.perf_counter()
        set_dir = build_set(root, args.n, args.check)
        size_mb = sum(p.stat().st_size for p in set_dir.iterdir()) / 1e6
        print(
            f"built {args.n:,} {args.check} samples ({size_mb:.1f} MB on disk) in "
            f"{time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
        # The empty-project run: interpreter start-up and imports, for reference.
        empty = root / "empty"
        (empty / "graders").mkdir(parents=True)
        base_s, base_mb, _ = run_list(empty, "text")
        runs: list[tuple[float, float]] = []
        for _ in range(max(1, args.repeat)):
            seconds, mb, code = run_list(root, "text")
            if code != 0:
                print(f"graderctl list exited {code}", file=sys.stderr)
                return 1
            runs.append((seconds, mb))
        json_s, _, _ = run_list(root, "json")
    best = min(s for s, _ in runs)
    peak = max(mb for _, mb in runs)
    ok = best < TARGET_SECONDS
    print(f"project:          shipped graders and sets + one {args.n:,}-sample {args.check} set")
    print(
        f"time (best of {len(runs)}): {best:.2f} s  (runs: {', '.join(f'{s:.2f}' for s, _ in runs)}; "
        f"target < {TARGET_SECONDS:.0f} s: {'met' if ok else 'MISSED'})"
    )
    print(f"time --format json: {json_s:.2f} s")
    print(f"peak RSS:         {peak:.0f} MB")
    print(f"empty project:    {base_s:.2f} s, {base_mb:.0f} MB (start-up and imports)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
