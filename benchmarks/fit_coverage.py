"""Fit the ``coverage`` kind's logistic model on the REALSumm development data and print CV figures.

    .venv/bin/python benchmarks/fit_coverage.py [--data ../shared/data/realsumm] [--folds 5] [--repeats 10]
                                                [--C 1.0] [--all-features]

Reads the dev data with the importer (nothing is copied into the project), computes the kind's features for
every (summary, nugget) pair, and reports cross-validated FAR, FRR and balanced accuracy with folds GROUPED BY
DOCUMENT (all summaries of one news article in the same fold), so the figures estimate performance on unseen
articles. The split into folds is REPEATED with different shuffles of the documents (``--repeats``) and the
figures are the mean ± sd over all folds of all repeats: one split of 52 documents moves balanced accuracy by
±0.01, so a single split cannot tell two feature sets apart. The threshold is chosen inside each training
fold (max balanced accuracy of the grader, hard rules included), never on the test fold. Finally it fits on
all the data and prints the ``[params]`` block to paste into graders/coverage/vN.toml.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.kinds.coverage import FEATURES, ReportIndex, nugget_features  # noqa: E402
from graderctl.models.calset import CoverageSample  # noqa: E402
from graderctl.services.importers import build_set  # noqa: E402

#: The features the shipped model uses: a small set chosen by grouped CV (backward elimination from all of
#: coverage.FEATURES changed balanced accuracy by less than its fold-to-fold noise), kept interpretable.
#: Re-checked with 3 x 8 repeated 5-fold grouped CV after the matching changes of December 2026: adding
#: nonname_recall_*, report_length, support_sentences, char_similarity or dropping name_recall each moved
#: balanced accuracy by at most ±0.002, and a gradient-boosted tree ensemble on all features did no better
#: (0.769 against 0.770), so the model stays this logistic one.
SELECTED = (
    "content_recall_report",
    "content_recall_window",
    "bigram_recall_window",
    "subject_present",
    "predicate_present",
    "name_recall",
    "number_recall",
    "negation_mismatch",
    "long_missing",
    "subject_predicate_gap",
)


def feature_matrix(
    samples: list[CoverageSample], features: tuple[str, ...] = FEATURES
) -> tuple[Any, Any, list[str], Any]:
    import numpy as np

    reports: dict[str, ReportIndex] = {}
    rows = []
    gated: list[bool] = []
    for s in samples:
        idx = reports.get(s.input.report)
        if idx is None:
            idx = reports[s.input.report] = ReportIndex.build(s.input.report)
        m = nugget_features(s.input.nuggets[0].text, idx)
        rows.append([m.features[f] for f in features])
        # the shipped grader's hard rules: the nugget's numbers (require_numbers = true) and no opposite in
        # the passage (reject_contradictions = true); names enter the model through name_recall only
        # (require_names = false: a hard name gate cost 0.004-0.02 balanced accuracy)
        gated.append(bool(m.missing_numbers) or bool(m.contradictions))
    x = np.asarray(rows, dtype=float)
    y = np.asarray([1 if s.label == "good" else 0 for s in samples])
    groups = [s.group or s.id for s in samples]
    return x, y, groups, np.asarray(gated)


def rates(y: Any, pred: Any) -> tuple[float, float, float]:
    import numpy as np

    bad, good = y == 0, y == 1
    far = float(np.mean(pred[bad])) if bad.any() else float("nan")
    frr = float(np.mean(~pred[good])) if good.any() else float("nan")
    return far, frr, 1 - (far + frr) / 2


def best_threshold(y: Any, p: Any, gated: Any = None) -> float:
    """The threshold with the best balanced accuracy (of the grader: gated nuggets never match)."""
    import numpy as np

    allowed = np.ones(len(y), dtype=bool) if gated is None else ~gated
    best_t, best_ba = 0.5, -1.0
    for t in np.linspace(0.05, 0.95, 91):
        ba = rates(y, (p >= t) & allowed)[2]
        if ba > best_ba:
            best_t, best_ba = float(t), ba
    return best_t


def fit(x: Any, y: Any, c: float) -> tuple[Any, Any, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(scaler.transform(x), y)
    return scaler, model, model.predict_proba(scaler.transform(x))[:, 1]


def main() -> None:
    import numpy as np
    from sklearn.model_selection import GroupKFold

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "realsumm")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10, help="repetitions of the grouped split (shuffled)")
    ap.add_argument("--C", type=float, default=1.0, help="inverse regularisation strength")
    ap.add_argument("--all-features", action="store_true", help="use every feature, not the selected ones")
    args = ap.parse_args()
    features = FEATURES if args.all_features else SELECTED

    t0 = time.perf_counter()
    imported = build_set("realsumm", args.data)
    samples = [s for s in imported.samples if isinstance(s, CoverageSample)]
    x, y, groups, gated = feature_matrix(samples, features)
    dt = time.perf_counter() - t0
    print(
        f"{len(samples)} samples ({int(y.sum())} good), {len(set(groups))} documents; features in {dt:.1f}s"
    )

    folds = []
    pooled = []
    for r in range(args.repeats):
        pooled_pred = np.zeros(len(y), dtype=bool)
        splitter = GroupKFold(n_splits=args.folds, shuffle=True, random_state=r)
        for tr, te in splitter.split(x, y, groups):
            scaler, model, p_tr = fit(x[tr], y[tr], args.C)
            t = best_threshold(y[tr], p_tr, gated[tr])
            p_te = model.predict_proba(scaler.transform(x[te]))[:, 1]
            # the shipped grader also applies its hard rules
            pred = (p_te >= t) & ~gated[te]
            pooled_pred[te] = pred
            folds.append(rates(y[te], pred))
        pooled.append(rates(y, pooled_pred))
        far, frr, ba = pooled[-1]
        print(f"repeat {r + 1:2d}: pooled out-of-fold FAR={far:.3f}  FRR={frr:.3f}  balanced acc={ba:.3f}")
    arr = np.asarray(folds)
    mean, sd = arr.mean(axis=0), arr.std(axis=0, ddof=1)
    print(
        f"CV ({args.repeats} x {args.folds}-fold, grouped by document; mean ± sd over {len(folds)} folds): "
        f"FAR={mean[0]:.3f}±{sd[0]:.3f}  FRR={mean[1]:.3f}±{sd[1]:.3f}  "
        f"balanced acc={mean[2]:.3f}±{sd[2]:.3f}"
    )
    parr = np.asarray(pooled)
    print(
        f"pooled out-of-fold per repeat: balanced acc {parr[:, 2].mean():.3f} "
        f"(min {parr[:, 2].min():.3f}, max {parr[:, 2].max():.3f})"
    )

    # single-feature baselines (out of fold is not needed: one threshold each, reported for orientation)
    for j, name in enumerate(features):
        t = best_threshold(y, (x[:, j] - x[:, j].min()) / (np.ptp(x[:, j]) or 1))
        p = (x[:, j] - x[:, j].min()) / (np.ptp(x[:, j]) or 1) >= t
        b1 = rates(y, p)[2]
        b2 = rates(y, ~p)[2]
        print(f"  feature {name:24s} alone: balanced acc {max(b1, b2):.3f}")

    scaler, model, p_all = fit(x, y, args.C)
    threshold = best_threshold(y, p_all, gated)
    print("\n# paste into graders/coverage/vN.toml [params]:")
    print(f"threshold = {threshold:.2f}")
    print(f"intercept = {float(model.intercept_[0]):.4f}")
    print("\n[params.weights]")
    for name, w in zip(features, model.coef_[0], strict=True):
        print(f"{name} = {float(w):.4f}")
    print("\n[params.means]")
    for name, m in zip(features, scaler.mean_, strict=True):
        print(f"{name} = {float(m):.4f}")
    print("\n[params.scales]")
    for name, s in zip(features, scaler.scale_, strict=True):
        print(f"{name} = {float(s):.4f}")


if __name__ == "__main__":
    main()
