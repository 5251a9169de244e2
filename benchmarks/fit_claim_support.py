"""Fit the ``claim_support`` kind's logistic model on the WiCE development data; print CV figures and params.

    .venv/bin/python benchmarks/fit_claim_support.py [--data ../shared/data/wice] [--repeats 10] [--C 0.1]
        [--partial-weight 0.25] [--features a,b,...] [--no-penalties]

Reads ``claims-dev.jsonl`` and ``oracle-chunks-dev.jsonl`` from the shared data folder (nothing is copied into
the project). Evidence is built as the WiCE importer builds it: the page's sentences without the leading
``(meta data)`` lines, one per line. Two readings of the same claims are scored:

- ``page``: the full cited page (about 120 sentences on average);
- ``chunks``: the upstream oracle chunks (about 19 sentences each, 3 per claim), each graded on its own and
  the claim scored by the maximum over its chunks (upstream's advice); ``chunks-union`` grades the chunks
  together as several evidence items of one sample.

A fourth reading, ``gold sentences``, gives only the first annotator's supporting sentences as evidence: a
claim with a short reference passage, as in attribution benchmarks (AttributionBench-style), where a
``partially_supported`` claim is the typical hard negative.

Training rows are the page, chunks-union and gold-sentences readings of the training claims; labels
``supported`` = 1, ``not_supported`` = 0, ``partially_supported`` = 0 with a smaller weight
(``--partial-weight``); positives and negatives get equal total weight, so the natural threshold is 0.5.
Folds are stratified by label and GROUPED BY WIKIPEDIA ARTICLE (claims of one article never straddle train
and test), repeated with reshuffles. Scores are computed with the grader's own arithmetic
(:func:`support_score`, penalties of the rule signals included), so the figures are the figures of the
shipped grader. Finally it fits on all the data and prints the ``[params]`` block to paste into
``graders/claim-support/vN.toml``.

``--throughput`` instead times the grader on generated evidence pages of about 80 sentences (one core).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.kinds import _support_features as sf  # noqa: E402
from graderctl.kinds.claim_support import (  # noqa: E402
    DEFAULT_PENALTIES,
    ClaimSupportParams,
    support_score,
)

DEFAULT_FEATURES = (
    "recall_window_idf",
    "recall_evidence",
    "char_similarity",
    "name_missing_evidence",
    "number_missing_evidence",
    "evidence_length",
)
LABEL = {"supported": 1.0, "partially_supported": 0.5, "not_supported": 0.0}


def _page_text(sentences: list[str]) -> str:
    return "\n".join(s for s in sentences if not s.startswith("(meta data)"))


def _gold_text(sentences: list[str], groups: list[list[int]]) -> str | None:
    """The first annotator's supporting sentences, in page order: a short reference passage."""
    for g in groups:
        kept = [sentences[i] for i in sorted(set(g)) if not sentences[i].startswith("(meta data)")]
        if kept:
            return "\n".join(kept)
    return None


def load(data: Path) -> list[dict[str, Any]]:
    chunks: dict[str, list[str]] = defaultdict(list)
    with open(data / "oracle-chunks-dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            chunks[row["meta"]["id"]].append(_page_text(row["evidence"]))
    claims: list[dict[str, Any]] = []
    with open(data / "claims-dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            claims.append(
                {
                    "id": row["meta"]["id"],
                    "article": row["meta"].get("claim_title") or row["meta"]["id"],
                    "label": row["label"],
                    "claim": row["claim"],
                    "page": _page_text(row["evidence"]),
                    "chunks": chunks.get(row["meta"]["id"], []),
                    "gold": _gold_text(row["evidence"], row.get("supporting_sentences") or []),
                }
            )
    return claims


def featurise(claims: list[dict[str, Any]]) -> None:
    """Adds ``page``, ``union`` and ``each`` feature dicts to every claim (grader code paths)."""
    for c in claims:
        info = sf.analyse_claim(c["claim"])
        page = sf.index_text(c["page"])
        chunk_idx = [sf.index_text(t) for t in c["chunks"]] or [page]
        c["f_page"] = sf.extract(info, [page]).values
        c["f_union"] = sf.extract(info, chunk_idx).values
        c["f_each"] = [sf.extract(info, [ix]).values for ix in chunk_idx]
        c["f_gold"] = sf.extract(info, [sf.index_text(c["gold"])]).values if c["gold"] else None


def params_from(
    model: Any, mu: Any, sd: Any, features: list[str], penalties: dict[str, float]
) -> ClaimSupportParams:
    return ClaimSupportParams(
        threshold=0.5,
        intercept=float(model.intercept_[0]),
        weights={f: float(w) for f, w in zip(features, model.coef_[0], strict=True)},
        center={f: float(m) for f, m in zip(features, mu, strict=True)},
        scale={f: float(s) for f, s in zip(features, sd, strict=True)},
        penalties=penalties,
    )


def fit(
    claims: list[dict[str, Any]], features: list[str], c_reg: float, wp: float, penalties: dict[str, float]
) -> ClaimSupportParams:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    views = ("f_page", "f_union", "f_gold")
    rows = [c[v] for c in claims for v in views if c[v] is not None]
    labels = [LABEL[c["label"]] for c in claims for v in views if c[v] is not None]
    x = np.array([[r[f] for f in features] for r in rows])
    y = np.array([lab == 1.0 for lab in labels])
    w = np.array([wp if lab == 0.5 else 1.0 for lab in labels])
    w = w * np.where(y, 0.5 / w[y].sum(), 0.5 / w[~y].sum()) * len(y)
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-6] = 1.0
    model = LogisticRegression(C=c_reg, max_iter=5000).fit((x - mu) / sd, y, sample_weight=w)
    return params_from(model, mu, sd, features, penalties)


def scores(claims: list[dict[str, Any]], params: ClaimSupportParams) -> dict[str, list[float]]:
    return {
        "page": [support_score(c["f_page"], params) for c in claims],
        "chunks(max)": [max(support_score(v, params) for v in c["f_each"]) for c in claims],
        "chunks(union)": [support_score(c["f_union"], params) for c in claims],
        "gold sentences": [support_score(c["f_gold"], params) if c["f_gold"] else -1.0 for c in claims],
    }


def bacc(labels: list[str], score: list[float], threshold: float, bad: tuple[str, ...]) -> float | None:
    good = [s for lab, s in zip(labels, score, strict=True) if lab == "supported" and s >= 0]
    neg = [s for lab, s in zip(labels, score, strict=True) if lab in bad and s >= 0]
    if not good or not neg:
        return None
    frr = sum(1 for s in good if s < threshold) / len(good)
    far = sum(1 for s in neg if s >= threshold) / len(neg)
    return 1 - (far + frr) / 2


def auc(labels: list[str], score: list[float]) -> float:
    from sklearn.metrics import roc_auc_score

    pairs = [
        (lab == "supported", s) for lab, s in zip(labels, score, strict=True) if lab != "partially_supported"
    ]
    return float(roc_auc_score([p[0] for p in pairs], [p[1] for p in pairs]))


READINGS = {
    "S vs N": ("not_supported",),
    "S vs P+N": ("not_supported", "partially_supported"),
    "S vs P": ("partially_supported",),
}


def cross_validate(
    claims: list[dict[str, Any]],
    features: list[str],
    c_reg: float,
    wp: float,
    penalties: dict[str, float],
    repeats: int,
    folds: int,
) -> dict[str, dict[str, list[float]]]:
    import numpy as np
    from sklearn.model_selection import StratifiedGroupKFold

    articles = sorted({c["article"] for c in claims})
    groups = np.array([articles.index(c["article"]) for c in claims])
    strata = np.array([int(LABEL[c["label"]] * 2) for c in claims])
    labels = [c["label"] for c in claims]
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rep in range(repeats):
        cv = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=rep)
        pred: dict[str, list[float]] = {}
        for train, test in cv.split(np.zeros(len(claims)), strata, groups):
            params = fit([claims[i] for i in train], features, c_reg, wp, penalties)
            got = scores([claims[i] for i in test], params)
            for view, vals in got.items():
                arr = pred.setdefault(view, [0.0] * len(claims))
                for i, v in zip(test, vals, strict=True):
                    arr[i] = v
        for view, vals in pred.items():
            for reading, bad in READINGS.items():
                b = bacc(labels, vals, 0.5, bad)
                if b is not None:
                    out[view][reading].append(b)
            out[view]["AUC S vs N"].append(auc(labels, vals))
    return out


def _fmt_params(p: ClaimSupportParams) -> str:
    def table(d: dict[str, float]) -> str:
        return "{ " + ", ".join(f"{k} = {v:.6g}" for k, v in d.items()) + " }"

    return "\n".join(
        [
            "[params]",
            f"threshold = {p.threshold}",
            f"intercept = {p.intercept:.6g}",
            f"weights = {table(p.weights)}",
            f"center = {table(p.center)}",
            f"scale = {table(p.scale)}",
            f"penalties = {table(p.penalties)}",
        ]
    )


def throughput(n_claims: int = 3000, n_docs: int = 300, sentences: int = 80) -> None:
    """Claims per second of the grader on one core: generated pages of ``sentences`` sentences, each page
    cited by ``n_claims / n_docs`` claims (a corpus document is indexed once and reused)."""
    import random

    from graderctl.kinds.claim_support import ClaimSupportGrader
    from graderctl.models.calset import ClaimSupportInput, CorpusDocument
    from graderctl.plugin import Corpus, GradingContext

    rng = random.Random(7)
    words = [
        *("museum", "council", "report", "annual", "growth", "revenue", "market", "survey", "river"),
        *("bridge", "station", "election", "minister", "company", "factory", "harbour", "festival"),
        *("library", "research", "hospital", "school", "university", "province", "district"),
    ]

    def sentence() -> str:
        ws = [rng.choice(words) for _ in range(rng.randint(12, 24))]
        ws.insert(rng.randint(1, len(ws) - 1), str(rng.randint(2, 9800)))
        return " ".join(ws).capitalize() + "."

    docs = [
        CorpusDocument(id=f"d{i}", text="\n".join(sentence() for _ in range(sentences)))
        for i in range(n_docs)
    ]
    inputs = [
        ClaimSupportInput.model_validate(
            {"claim": sentence(), "evidence": [{"source_id": f"d{rng.randrange(n_docs)}"}]}
        )
        for _ in range(n_claims)
    ]
    for label, corpus_docs in (("docs reused", docs), ("every claim its own page", None)):
        if corpus_docs is None:
            corpus_docs = [
                CorpusDocument(id=f"u{i}", text=docs[i % n_docs].text + " ") for i in range(n_claims)
            ]
            inputs = [
                ClaimSupportInput.model_validate({"claim": inp.claim, "evidence": [{"source_id": f"u{i}"}]})
                for i, inp in enumerate(inputs)
            ]
        grader = ClaimSupportGrader(ClaimSupportGrader.Params(), GradingContext(corpus=Corpus(corpus_docs)))
        t0 = time.process_time()
        grader.grade_batch(inputs)
        spent = time.process_time() - t0
        print(f"{label}: {n_claims / spent:.0f} claims/s ({sentences}-sentence pages, CPU time, one core)")


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "wice")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--C", dest="c_reg", type=float, default=0.1, help="inverse L2 strength")
    ap.add_argument("--partial-weight", type=float, default=0.25)
    ap.add_argument("--features", default=",".join(DEFAULT_FEATURES))
    ap.add_argument("--no-penalties", action="store_true", help="also show the CV figures without penalties")
    ap.add_argument("--throughput", action="store_true", help="time the grader instead of fitting")
    args = ap.parse_args(argv)
    if args.throughput:
        throughput()
        return 0
    features = [f for f in args.features.split(",") if f]
    unknown = sorted(set(features) - set(sf.FEATURE_NAMES))
    if unknown:
        ap.error(f"unknown features {unknown}; known: {', '.join(sf.FEATURE_NAMES)}")
    if not (args.data / "claims-dev.jsonl").is_file():
        print(f"no WiCE dev data at {args.data}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    claims = load(args.data)
    featurise(claims)
    counts = {lab: sum(1 for c in claims if c["label"] == lab) for lab in LABEL}
    print(f"{len(claims)} claims {counts}; features in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print(
        f"features ({len(features)}): {', '.join(features)}; "
        f"C={args.c_reg}; partial weight={args.partial_weight}"
    )
    print(f"CV: {args.repeats} x {args.folds}-fold, stratified, grouped by Wikipedia article; threshold 0.5")

    variants = [("with penalties", dict(DEFAULT_PENALTIES))]
    if args.no_penalties:
        variants.append(("no penalties", dict.fromkeys(DEFAULT_PENALTIES, 0.0)))
    for title, penalties in variants:
        res = cross_validate(
            claims, features, args.c_reg, args.partial_weight, penalties, args.repeats, args.folds
        )
        print(f"\n{title}: balanced accuracy (mean ± sd over repeats)")
        for view, by in res.items():
            cells = [f"{r} {np.mean(v):.3f}±{np.std(v):.3f}" for r, v in by.items()]
            print(f"  {view:14s} " + "   ".join(cells))

    final = fit(claims, features, args.c_reg, args.partial_weight, dict(DEFAULT_PENALTIES))
    labels = [c["label"] for c in claims]
    print("\nfitted on all dev claims (resubstitution, optimistic):")
    for view, vals in scores(claims, final).items():
        cells = [f"{r} {bacc(labels, vals, final.threshold, bad):.3f}" for r, bad in READINGS.items()]
        print(f"  {view:14s} " + "   ".join(cells) + f"   AUC S vs N {auc(labels, vals):.3f}")
    print("\n# paste into graders/claim-support/vN.toml")
    print(_fmt_params(final))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
