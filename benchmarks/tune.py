"""Time of ``graderctl tune`` over 100,000 scored samples (prints figures; not a test).

Builds a project in a temporary folder: a set of ``--n`` samples whose scores are already known (a
``source_existence`` sample carries its score in the citation title; good scores ~ Beta(5, 2), bad ~
Beta(2, 4), three decimals so many ties), grouped by four, with ``[split] tune_fraction`` (default 1.0 - a
sample-level split puts every sample in the tune split, so all ``--n`` are swept), and a grader of a tiny
score-reading kind registered in this process. Then runs the tune service twice, as ``graderctl tune`` does
(threshold, then ``--band``), writing the new version each time, and prints:

- the whole ``tune`` call (grading the scored samples through the runner, the sweep with scikit-learn's
  ``roc_curve``, the bounds at every threshold, the choice, the cluster-bootstrap re-check of the chosen point
  with groups, and writing ``v<N+1>.toml``);
- the statistics alone (sweep + choice) on the same scores.

Target (issue 14, acceptance 4): ``tune`` over 100,000 scored samples in under 5 s.

    .venv/bin/python benchmarks/tune.py [--n 100000] [--groups 4]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from pydantic import ConfigDict, Field  # noqa: E402

from graderctl.models.base import Check  # noqa: E402
from graderctl.models.calset import SampleInput, SourceExistenceInput  # noqa: E402
from graderctl.plugin import BandParams, GraderKind, Verdict, decide, register  # noqa: E402

TARGET_SECONDS = 5.0


class _Params(BandParams):
    model_config = ConfigDict(extra="forbid")
    threshold: float = Field(default=0.5, ge=0, le=1)


class ScoreInTitle(GraderKind):
    """Reads the score a sample carries (its citation title); accepts at or above the threshold."""

    name = "bench_score_in_title"
    checks = frozenset({Check.source_existence})
    Params = _Params

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        assert isinstance(self.params, _Params)
        reject, accept = self.params.band(self.params.threshold)
        out = []
        for inp in inputs:
            assert isinstance(inp, SourceExistenceInput)
            score = float(inp.citation.title or 0)
            out.append(Verdict.by_band(decide(score, reject, accept), "score", score=score))
        return out


def build(root: Path, n: int, group_size: int) -> None:
    rng = random.Random(14)
    folder = root / "calibration_sets" / "scored"
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(
        'schema_version = 1\nname = "scored"\nversion = 1\ncheck = "source_existence"\n'
        'description = "generated scores"\nsource = "benchmarks/tune.py"\n\n[policy]\n'
        "max_false_accept_rate = 0.05\nmax_false_reject_rate = 0.5\nmax_error_rate = 0.01\n",
        encoding="utf-8",
    )
    with (folder / "samples.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n):
            good = i % 2 == 0
            score = rng.betavariate(5, 2) if good else rng.betavariate(2, 4)
            fh.write(
                json.dumps(
                    {
                        "id": f"s{i:06d}",
                        "label": "good" if good else "bad",
                        "category": "generated",
                        "group": f"g{i // group_size}",
                        "split": "tune" if i % 10 else "certify",
                        "input": {"citation": {"url": f"https://example.org/{i}", "title": f"{score:.3f}"}},
                    }
                )
                + "\n"
            )
    grader = root / "graders" / "scored"
    grader.mkdir(parents=True)
    (grader / "v1.toml").write_text(
        'schema_version = 1\nname = "scored"\nversion = 1\nkind = "bench_score_in_title"\n'
        'check = "source_existence"\ndescription = "reads the score"\n\n[params]\nthreshold = 0.3\n',
        encoding="utf-8",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--n", type=int, default=111_112, help="samples in the set (9 in 10 are in the tune split)"
    )
    ap.add_argument("--groups", type=int, default=4, help="samples per group")
    args = ap.parse_args()
    register(ScoreInTitle, origin="benchmarks/tune.py")

    from graderctl.services.splits import Split, samples_of
    from graderctl.services.tune import tune
    from graderctl.stats.operating import choose_band, choose_threshold, sweep
    from graderctl.store.project import find_grader, find_set

    with tempfile.TemporaryDirectory(prefix="graderctl-bench-tune-") as tmp:
        root = Path(tmp)
        build(root, args.n, args.groups)
        import sklearn.metrics  # noqa: F401  (imported once per process by any tune; timed apart)

        t0 = time.perf_counter()
        cal_set = find_set("scored", root)
        load = time.perf_counter() - t0
        n_tune = len(samples_of(cal_set, Split.tune))
        print(f"set: {len(cal_set.samples):,} samples, {n_tune:,} in the tune split; loaded in {load:.2f} s")
        figures = []
        for band in (False, True):
            grader = find_grader("scored@1", root)
            t0, c0 = time.perf_counter(), time.process_time()
            result = tune(grader, cal_set, root=root, band=band, target={"far": 0.05, "frr": 0.5})
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            figures.append((seconds, cpu))
            chosen = result.chosen
            what = "band" if band else "threshold"
            point = (
                "none meets the limits"
                if chosen is None
                else f"reject below {chosen.reject_below:.4f}, "
                f"accept at or above {chosen.accept_at_or_above:.4f}"
                f" (FAR {chosen.false_accepts}/{chosen.bad_decided}, FRR {chosen.false_rejects}/"
                f"{chosen.good_decided}, {chosen.undecided} undecided)"
            )
            written = result.written.ref if result.written else "nothing"
            print(
                f"tune ({what}) over {result.n_tune:,} scored samples: {seconds:.2f} s wall, {cpu:.2f} s CPU "
                f"(target < {TARGET_SECONDS:g} s: {'met' if seconds < TARGET_SECONDS else 'NOT met'}); "
                f"{point}; wrote {written}"
            )
        tune_samples = samples_of(cal_set, Split.tune)
        scores = [float(s.input.citation.title or 0) for s in tune_samples]  # type: ignore[union-attr]
        good = [s.label == "good" for s in tune_samples]
        t0 = time.perf_counter()
        sw = sweep(scores, good)
        choose_threshold(sw, max_far=0.05, max_frr=0.5)
        stats_threshold = time.perf_counter() - t0
        t0 = time.perf_counter()
        choose_band(sw, scores, max_far=0.05, max_frr=0.5)
        stats_band = time.perf_counter() - t0
        print(
            f"statistics alone: sweep + threshold choice {stats_threshold:.3f} s over "
            f"{len(sw.thresholds):,} thresholds; band choice {stats_band:.3f} s"
        )
        wall, cpu = max(figures)
        print(
            f"figure: tune over {n_tune:,} scored samples in {wall:.2f} s wall ({cpu:.2f} s CPU; "
            f"slowest of the two runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )


if __name__ == "__main__":
    main()
