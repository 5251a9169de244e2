"""Quality of every shipped grader on the public development data (prints figures; not a test).

    .venv/bin/python benchmarks/quality.py [--data ../shared/data] [--only coverage,claim_support,...]
                                           [--attributionbench FILE_OR_FOLDER]

Imports the WiCE and REALSumm development splits with the project's importers into a temporary folder (nothing
is written into the project), then runs each shipped grader (``graders/*/v*.toml``; model-based and command
graders are skipped: they need an endpoint) on the imported sets of its check and prints n, FAR (false accept
rate: bad samples accepted), FRR (false reject rate: good samples rejected), balanced accuracy
(1 - (FAR + FRR) / 2), errors, and the accept rate per category.

Sets:
- source_existence: ``wice --as-check source_existence`` (quote checks over real pages);
- claim_support: WiCE supported vs not_supported (partially supported dropped), and the strict reading
  (partially supported counted bad);
- coverage: REALSumm (one vital nugget per sample; crowd majority);
- claim_support on AttributionBench (attributable vs not attributable, answers from several
  question-answering sources), when a copy of its JSONL files is in ``DATA/attributionbench`` or given with
  ``--attributionbench`` (not in the shared development data: skipped otherwise); balanced accuracy is also
  printed per source dataset.

These are the development data the kinds were built with (the coverage model was fitted on REALSumm dev), so
the figures are optimistic for coverage; benchmarks/fit_coverage.py prints its cross-validated figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.errors import GraderctlError  # noqa: E402
from graderctl.models.base import Check  # noqa: E402
from graderctl.services.importers import import_set  # noqa: E402
from graderctl.store.project import LoadedSet, grader_files, load_grader, load_set  # noqa: E402

#: (set name, dataset, options, what it measures)
SETS: dict[Check, list[tuple[str, str, dict[str, Any], str]]] = {
    Check.source_existence: [
        ("wice-source-existence", "wice", {"as_check": Check.source_existence}, "WiCE quote checks"),
    ],
    Check.claim_support: [
        ("wice-claim-support-no-partial", "wice", {"partial": "drop"}, "WiCE supported vs not_supported"),
        ("wice-claim-support-strict", "wice", {"partial": "bad"}, "WiCE strict: partially supported = bad"),
        ("attributionbench-claim-support", "attributionbench", {}, "AttributionBench attributable vs not"),
    ],
    Check.coverage: [
        ("realsumm-coverage", "realsumm", {}, "REALSumm nugget presence (crowd majority)"),
    ],
}


def measure(grader: Any, loaded: LoadedSet) -> dict[str, Any]:
    samples = loaded.samples
    t0 = time.perf_counter()
    verdicts = grader.grade_batch([s.input for s in samples])
    seconds = time.perf_counter() - t0
    fa = fr = n_good = n_bad = errors = undecided = 0
    by_cat: dict[str, Counter[str]] = {}
    for s, v in zip(samples, verdicts, strict=True):
        c = by_cat.setdefault(s.category, Counter())
        c["n"] += 1
        if v.is_undecided:
            undecided += 1
            c["undecided"] += 1
            continue
        if v.accepted is None:
            errors += 1
            c["error"] += 1
            continue
        c["accepted"] += bool(v.accepted)
        if s.label == "good":
            n_good += 1
            fr += not v.accepted
        else:
            n_bad += 1
            fa += bool(v.accepted)
    far = fa / n_bad if n_bad else None
    frr = fr / n_good if n_good else None
    ba = 1 - (far + frr) / 2 if far is not None and frr is not None else None
    graded = len(samples) - errors
    return {
        "n": len(samples),
        "n_good": n_good,
        "n_bad": n_bad,
        "undecided": undecided,
        "coverage": (graded - undecided) / graded if graded else None,
        "far": far,
        "frr": frr,
        "balanced": ba,
        "errors": errors,
        "seconds": seconds,
        "by_category": by_cat,
    }


def per_source(by_category: dict[str, Counter[str]]) -> dict[str, float | None]:
    """Balanced accuracy per source dataset of an AttributionBench import (categories
    ``<source>_attributable`` / ``<source>_not_attributable``); empty for other sets."""
    out: dict[str, float | None] = {}
    for cat, good in by_category.items():
        if not cat.endswith("_attributable") or cat.endswith("_not_attributable"):
            continue
        source = cat.removesuffix("_attributable")
        bad = by_category.get(f"{source}_not_attributable")
        judged_good = good["n"] - good["error"]
        judged_bad = bad["n"] - bad["error"] if bad else 0
        if not judged_good or not bad or not judged_bad:
            out[source] = None
            continue
        frr = 1 - good["accepted"] / judged_good
        far = bad["accepted"] / judged_bad
        out[source] = 1 - (far + frr) / 2
    return out


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--only", default="", help="comma-separated checks to measure (default: all)")
    ap.add_argument(
        "--attributionbench",
        type=Path,
        default=None,
        help="AttributionBench JSONL file or folder (default: DATA/attributionbench when present)",
    )
    args = ap.parse_args()
    only = {Check(c) for c in args.only.split(",") if c}
    with tempfile.TemporaryDirectory(prefix="graderctl-quality-") as tmp:
        out = Path(tmp)
        loaded_sets: dict[Check, list[tuple[str, LoadedSet]]] = {}
        for check, specs in SETS.items():
            if only and check not in only:
                continue
            for name, dataset, opts, what in specs:
                source = args.data / dataset
                if dataset == "attributionbench" and args.attributionbench is not None:
                    source = args.attributionbench
                if not source.exists():
                    print(f"{name}: {source} is absent; skipped")
                    continue
                outcome = import_set(dataset, source, out, name=name, root=REPO, **opts)
                loaded_sets.setdefault(check, []).append((what, load_set(outcome.path, root=out)))
        for check, core in ((Check.claim_support, "claim-support-core"), (Check.coverage, "coverage-core")):
            if not only or check in only:
                shipped = load_set(REPO / "calibration_sets" / core, root=REPO)
                loaded_sets.setdefault(check, []).append(("the shipped core set", shipped))
        results: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
        for path in grader_files(REPO):
            try:
                lg = load_grader(path, root=REPO)
            except GraderctlError as exc:
                print(f"{path.relative_to(REPO)}: cannot be loaded ({exc}); skipped")
                continue
            if lg.kind.model_based or lg.spec.kind == "command":
                print(f"{lg.ref} ({lg.spec.kind}): needs an endpoint or a command; skipped")
                continue
            for what, loaded in loaded_sets.get(lg.spec.check, []):
                grader = lg.build(corpus=loaded.corpus)
                r = measure(grader, loaded)
                decided = (
                    f"  coverage={fmt(r['coverage'])} ({r['undecided']} undecided; rates over decided)"
                    if r["undecided"]
                    else ""
                )
                print(
                    f"{lg.ref} on {loaded.name} ({what}): n={r['n']} ({r['n_good']} good, {r['n_bad']} bad "
                    f"decided)  FAR={fmt(r['far'])}  FRR={fmt(r['frr'])}  "
                    f"balanced accuracy={fmt(r['balanced'])}"
                    f"  errors={r['errors']}{decided}  ({r['n'] / r['seconds']:,.0f} samples/s)"
                )
                results.setdefault((lg.spec.name, loaded.name), {})[lg.spec.version] = r
                for cat, c in sorted(r["by_category"].items()):
                    err = f", {c['error']} errors" if c["error"] else ""
                    und = f", {c['undecided']} undecided" if c["undecided"] else ""
                    print(f"    {cat:28s} n={c['n']:5d}  accepted {c['accepted'] / c['n']:.1%}{err}{und}")
                for source, ba in per_source(r["by_category"]).items():
                    print(f"    balanced accuracy on {source:19s} {fmt(ba)}")
        print_versions(results)


def print_versions(results: dict[tuple[str, str], dict[int, dict[str, Any]]]) -> None:
    """@1 against the newest version of each grader: false accept rate on decided samples (the share of
    accepted known-bad among known-bad decided), its ratio, coverage and false reject rate on decided."""
    lines = []
    for (name, set_name), by_version in sorted(results.items()):
        if 1 not in by_version or len(by_version) < 2:
            continue
        newest = max(by_version)
        old, new = by_version[1], by_version[newest]
        ratio = new["far"] / old["far"] if old["far"] and new["far"] is not None else None
        lines.append(
            f"  {name}@1 -> @{newest} on {set_name}: FAR on decided {fmt(old['far'])} -> {fmt(new['far'])}"
            f" (x{fmt(ratio)}), coverage {fmt(old['coverage'])} -> {fmt(new['coverage'])}, FRR on decided "
            f"{fmt(old['frr'])} -> {fmt(new['frr'])}"
        )
    if lines:
        print(
            "\nversions compared (the @2 graders were tuned with `graderctl tune --band` on the tune half of"
        )
        print("benchmarks/dev_sets.py's WiCE + core and REALSumm + core sets; see their descriptions):")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
