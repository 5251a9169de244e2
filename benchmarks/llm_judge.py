"""Wall time of ``graderctl calibrate`` with an ``llm_judge`` grader against a slow local server.

Starts the OpenAI-compatible stand-in of the tests (``tests/support/fake_openai.py``) on 127.0.0.1 with a
fixed latency per reply, writes a project whose judge has ``concurrency`` requests in flight, calibrates
``--n`` samples in-process (cache off, so every sample is a real HTTP request), and prints the wall time, the
requests made and the most requests the server saw in flight at once. A second run shows the cached time.

Target (issue 7): 400 samples, 200 ms per reply, concurrency 16: under 10 s.

    .venv/bin/python benchmarks/llm_judge.py [--n 400] [--latency 0.2] [--concurrency 16] [--jobs 1]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.fake_openai import FakeOpenAI  # noqa: E402
from tests.support.llm_project import judge_samples, write_judge, write_set  # noqa: E402

from graderctl.cli import _state, app  # noqa: E402

TARGET_SECONDS = 10.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=400, help="samples (half good, half bad)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=1, help="graderctl calibrate --jobs")
    args = parser.parse_args()

    os.environ["BENCH_JUDGE_KEY"] = "sk-benchmark-not-a-real-key"
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(latency=args.latency) as server:
        root = Path(tmp)
        write_judge(root, server.base_url, key_env="BENCH_JUDGE_KEY", concurrency=args.concurrency)
        write_set(root, "bench", judge_samples(args.n - args.n // 2, args.n // 2), far=0.5, frr=0.5)
        argv = ["--root", str(root), "calibrate", "judge@1", "--set", "bench", "--quiet"]
        argv += ["--jobs", str(args.jobs)]
        timings = []
        for label, extra in (
            ("cold (no cache)", ["--no-cache"]),
            ("cold, filling the cache", []),
            ("cached", []),
        ):
            before = server.requests
            started = time.perf_counter()
            with redirect_stdout(io.StringIO()):
                code = _state.run(app, [*argv, *extra])
            elapsed = time.perf_counter() - started
            timings.append(elapsed)
            print(
                f"{label:24} {elapsed:6.2f} s  exit {code}  requests {server.requests - before:4d}  "
                f"max in flight {server.max_in_flight}"
            )
        ideal = args.n / args.concurrency * args.latency
        print(
            f"samples {args.n}, latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}, "
            f"jobs {args.jobs}: {timings[0]:.2f} s (ideal {ideal:.2f} s; target < {TARGET_SECONDS:g} s)"
        )
        ok = timings[0] < TARGET_SECONDS
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
