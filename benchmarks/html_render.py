"""Time and size of the HTML page of a 10,000-sample calibration report.

Builds the report from the shipped ``reports/claim-support-core/claim-support@1.json`` (273 samples, scores
and the grader's long reasons with quoted passages) by repeating its samples under new ids until there are
``--samples`` (default 10,000), scaling every count to match, then renders the page
(``graderctl.render.html.calibration_page``) ``--repeat`` times and prints the best and median wall time and
the page size. A second, worst case, makes every sample misclassified (so the sample table is as long as it
gets).

Targets (issue 15): under 2 s and under 5 MB.

(Named html_render.py, not html.py: a benchmarks/html.py would shadow the standard library's ``html`` module
for every script in this folder.)

    .venv/bin/python benchmarks/html_render.py [--samples 10000] [--repeat 5] [--keep PAGE.html]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from graderctl.models.reports import CalibrationReport
from graderctl.render.html import calibration_page

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "reports" / "claim-support-core" / "claim-support@1.json"
TARGET_SECONDS = 2.0
TARGET_MB = 5.0


def _scale_counts(node: Any, factor: int) -> Any:
    """Multiply every count (an int under a known counting key) by ``factor``; rates stay as they are."""
    keys = {
        "count",
        "n",
        "n_good",
        "n_bad",
        "accepted",
        "rejected",
        "errors",
        "false_accepts",
        "false_rejects",
        "n_graded",
    }
    if isinstance(node, dict):
        return {
            k: (
                v * factor
                if k in keys and isinstance(v, int) and not isinstance(v, bool)
                else _scale_counts(v, factor)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_scale_counts(v, factor) for v in node]
    return node


def big_report(samples: int, *, all_wrong: bool = False) -> CalibrationReport:
    doc = json.loads(SOURCE.read_text())
    base = doc.pop("samples")
    factor = -(-samples // len(base))
    doc = _scale_counts(doc, factor)
    out: list[dict[str, Any]] = []
    for i in range(samples):
        s = dict(base[i % len(base)])
        s["id"] = f"{s['id']}-{i // len(base):03d}"
        s["group"] = f"{s.get('group')}-{i // len(base):03d}"
        if s.get("score") is not None:
            s["score"] = min(1.0, max(0.0, s["score"] + ((i * 7919) % 101 - 50) / 5000))
        if all_wrong:
            s["accepted"] = s["label"] == "bad"
            s["correct"] = False
        out.append(s)
    doc["samples"] = out
    return CalibrationReport.model_validate(doc)


def measure(report: CalibrationReport, repeat: int) -> tuple[list[float], str]:
    times: list[float] = []
    page = ""
    for _ in range(repeat):
        start = time.perf_counter()
        page = "".join(calibration_page([report]))
        times.append(time.perf_counter() - start)
    return times, page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Write the typical page here (to open it in a browser).")
    args = parser.parse_args(argv)

    ok = True
    for label, all_wrong in (
        ("typical (the shipped report's 28% misclassified)", False),
        ("worst case (every sample misclassified)", True),
    ):
        start = time.perf_counter()
        report = big_report(args.samples, all_wrong=all_wrong)
        built = time.perf_counter() - start
        times, page = measure(report, args.repeat)
        size_mb = len(page.encode("utf-8")) / 1e6
        best, median = min(times), statistics.median(times)
        wrong = sum(1 for s in report.samples if s.correct is False)
        passed = median < TARGET_SECONDS and size_mb < TARGET_MB
        ok &= passed
        print(f"{label}: {len(report.samples):,} samples, {wrong:,} misclassified")
        print(f"  report model built in {built:.2f} s (not counted)")
        print(
            f"  render: best {best:.3f} s, median {median:.3f} s over {args.repeat} runs "
            f"(target < {TARGET_SECONDS:g} s); page {size_mb:.2f} MB (target < {TARGET_MB:g} MB): "
            f"{'OK' if passed else 'OVER TARGET'}"
        )
        if args.keep and not all_wrong:
            args.keep.write_text(page, encoding="utf-8")
            print(f"  wrote {args.keep}")
    ok &= end_to_end(args.samples)
    return 0 if ok else 1


def end_to_end(samples: int) -> bool:
    """``graderctl report REPORT.json --output SITE/`` on the saved 10,000-sample report, in a child process:
    read and validate the JSON, render, write the page and the index."""
    import resource
    import subprocess
    import tempfile

    from graderctl.store.reports import report_to_json

    with tempfile.TemporaryDirectory(prefix="graderctl-html-") as tmp:
        source = Path(tmp) / "report.json"
        source.write_text(report_to_json(big_report(samples)), encoding="utf-8")
        command = [
            sys.executable,
            "-m",
            "graderctl",
            "report",
            str(source),
            "--output",
            str(Path(tmp) / "site"),
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*command, "-q"], check=True, capture_output=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        pages = sorted((Path(tmp) / "site").glob("*.html"))
        size = max(p.stat().st_size for p in pages) / 1e6
        json_mb = source.stat().st_size / 1e6
    passed = wall < TARGET_SECONDS and size < TARGET_MB
    print(
        f"end to end: graderctl report on the saved {samples:,}-sample report ({json_mb:.1f} MB of JSON): "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU (process start, read, validate, render, write); "
        f"page {size:.2f} MB: {'OK' if passed else 'OVER TARGET'}"
    )
    return passed


if __name__ == "__main__":
    sys.exit(main())
