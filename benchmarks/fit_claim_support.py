"""Fit the ``claim_support`` kind's logistic model on WiCE development data plus synthetic known-bad claims;
print grouped-CV figures and the ``[params]`` block.

    .venv/bin/python benchmarks/fit_claim_support.py [--data ../shared/data/wice] [--repeats 5] [--C 1.0]
        [--partial-weight 0.25] [--synthetic-weight 0.5] [--balance-kinds] [--features a,b,...] [--seed 13]
    .venv/bin/python benchmarks/fit_claim_support.py --throughput

Nothing derived from the data is written to the project: the data is read from the shared folder at run time
and the script prints figures and parameters only.

Data
----
``claims-dev.jsonl`` (349 Wikipedia claims with the web page each cites, labelled ``supported``,
``partially_supported``, ``not_supported``) and ``oracle-chunks-dev.jsonl``. Evidence is the page's sentences
without the leading ``(meta data)`` lines, one per line. Readings of the same claim:

- ``page``: the full cited page (about 120 sentences);
- ``chunks``: the upstream oracle chunks, each graded alone, the claim scored by the maximum (upstream's
  advice); ``chunks-union`` grades them together as several evidence items of one sample;
- ``gold``: only the first annotator's supporting sentences: a claim with a short reference passage, as in
  attribution benchmarks (AttributionBench-style).

Synthetic known-bad claims
--------------------------
WiCE has few negatives of the kinds agents produce (43 ``not_supported``, mostly unmentioned content), so
every ``supported`` claim is also perturbed programmatically into known-bad claims, each a linguistic
operation independent of any calibration set:

- ``negation``: the main verb negated ("won" -> "did not win" via an auxiliary, or "never" before a past
  verb), or an existing negation removed;
- ``number`` / ``date``: one number of the claim changed to another value the page gives (most often: the
  figure copied from the wrong place), else to a nearby value (a year by 1-7, a count by 20-150%);
- ``entity``: a capitalised name of the claim swapped for another name found elsewhere in the page (of the
  same type when one is known);
- ``universal``: a universal or absolute word added (every/all before a noun, "always", "entirely",
  "the only", "nationwide", "worldwide", "across the country");
- ``direction``: a direction or comparison word replaced by its opposite (rose/fell, increased/decreased,
  more/less, higher/lower, largest/smallest, before/after, first/last, won/lost);
- ``causal``: the claim joined to another sentence of the same page by a causal connective ("because",
  "which led to", "due to", "as a result of", "thanks to"): both facts are in the page, the cause is not.

A synthetic claim shares its source claim's Wikipedia article, so grouped CV never trains on a perturbation
of a test claim. Synthetic rows use the ``page`` and ``gold`` readings.

Fitting
-------
Logistic regression on standardised features with balanced class weights (positives = ``supported``;
negatives = ``not_supported``, ``partially_supported`` at ``--partial-weight``, synthetic at
``--synthetic-weight``; ``--balance-kinds`` gives every kind of perturbation the same total weight); the
rule signals' weights are bounded to be <= 0 (a contradiction never
raises support), solved with L-BFGS-B and an L2 penalty 1/(2C). Folds are stratified and GROUPED BY WIKIPEDIA
ARTICLE, repeated with reshuffles. Scores use the grader's own arithmetic (:func:`support_score`, vetoes of
explicit contradictions included: a vetoed claim scores below the threshold whatever the fit), so the
figures are the figures of the shipped grader. Finally it fits on all the data and prints the ``[params]``
block for ``graders/claim-support/vN.toml``.

``--throughput`` times the grader on generated evidence pages of about 80 sentences (one core), with pages
cited by several claims, and with every claim citing its own new page.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.kinds import _support_features as sf  # noqa: E402
from graderctl.kinds.claim_support import ClaimSupportParams, support_score  # noqa: E402

DEFAULT_FEATURES = (
    "recall_window_idf",
    "recall_evidence",
    "char_similarity",
    "bigram_window",
    "name_missing_evidence",
    "number_missing_evidence",
    "number_missing_window",
    "evidence_length",
    *sf.RULE_FEATURES,
)
LABEL = {"supported": 1.0, "partially_supported": 0.5, "not_supported": 0.0}
SYNTHETIC_KINDS = ("negation", "number", "date", "entity", "universal", "causal", "direction")


# --- data -------------------------------------------------------------------------------------------


def _page_sentences(sentences: list[str]) -> list[str]:
    return [s for s in sentences if not s.startswith("(meta data)")]


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
            chunks[row["meta"]["id"]].append("\n".join(_page_sentences(row["evidence"])))
    claims: list[dict[str, Any]] = []
    with open(data / "claims-dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            groups = row.get("supporting_sentences") or []
            claims.append(
                {
                    "id": row["meta"]["id"],
                    "article": row["meta"].get("claim_title") or row["meta"]["id"],
                    "label": row["label"],
                    "kind": "wice",
                    "claim": row["claim"],
                    "page": "\n".join(_page_sentences(row["evidence"])),
                    "sentences": _page_sentences(row["evidence"]),
                    "chunks": chunks.get(row["meta"]["id"], []),
                    "gold": _gold_text(row["evidence"], groups),
                }
            )
    return claims


# --- synthetic known-bad claims ---------------------------------------------------------------------

_AUX = [
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "may",
    "might",
    "must",
    "does",
    "do",
    "did",
]
_IRREGULAR_PAST = {
    "won": "win",
    "became": "become",
    "began": "begin",
    "made": "make",
    "wrote": "write",
    "took": "take",
    "gave": "give",
    "left": "leave",
    "led": "lead",
    "held": "hold",
    "built": "build",
    "sold": "sell",
    "bought": "buy",
    "ran": "run",
    "met": "meet",
    "joined": "join",
    "went": "go",
    "came": "come",
    "saw": "see",
    "found": "find",
    "grew": "grow",
    "rose": "rise",
    "fell": "fall",
    "spent": "spend",
    "taught": "teach",
    "sang": "sing",
    "told": "tell",
    "said": "say",
    "got": "get",
    "kept": "keep",
}
_UNIVERSAL_INSERTS = ("every", "all")
_CAUSAL_LINKS = (
    "{a}, because {b}",
    "{a}, which led to the fact that {b}",
    "{a} due to the fact that {b}",
    "{a}; as a result, {b}",
    "{a}, and this caused {b}",
    "{a}, thanks to the fact that {b}",
)


def _strip_end(text: str) -> str:
    return text.rstrip().rstrip(".!?;:").rstrip()


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _base_form(verb: str) -> str | None:
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if low.endswith("ied") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith("ed") and len(low) > 4:
        stem = low[:-2]
        if stem.endswith(("at", "iz", "is", "ut", "uc", "rv", "id", "ag", "ov", "in", "iv", "ur", "os")):
            return stem + "e"
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]
        return stem
    return None


def perturb_negation(claim: str, rng: random.Random) -> str | None:
    words = claim.split(" ")
    for i, w in enumerate(words):
        lw = w.lower().strip(",;:")
        if lw in ("not", "never") and i > 0:
            return " ".join(words[:i] + words[i + 1 :])
        if lw.endswith("n't"):
            return " ".join([*words[:i], w[:-3] if not lw.startswith("can") else "can", *words[i + 1 :]])
    for i, w in enumerate(words[1:], start=1):
        lw = w.lower()
        if lw in _AUX and i + 1 < len(words):
            return " ".join([*words[: i + 1], "not", *words[i + 1 :]])
    for i, w in enumerate(words[1:], start=1):
        if not w.isalpha() or w[0].isupper():
            continue
        base = _base_form(w)
        if base and words[i - 1].lower() not in ("the", "a", "an", "was", "were", "been", "is", "by"):
            if rng.random() < 0.5:
                return " ".join([*words[:i], "did", "not", base, *words[i + 1 :]])
            return " ".join([*words[:i], "never", w, *words[i + 1 :]])
    return None


_NUM_IN_CLAIM = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w.,]?\d)")


def perturb_number(claim: str, page_sentences: list[str], rng: random.Random, *, years: bool) -> str | None:
    """Change one number (or year) of the claim, preferably to another value of the same kind that the page
    itself gives (the confusion an agent makes when it copies the wrong figure from its source)."""
    found = [m for m in _NUM_IN_CLAIM.finditer(claim)]
    picks = []
    for m in found:
        value = float(m.group(0).replace(",", ""))
        is_year = m.group(2) is None and "," not in m.group(1) and 1000 <= value <= 2100
        if is_year == years and (years or value >= 2):
            picks.append((m, value))
    if not picks:
        return None
    m, value = rng.choice(picks)
    page_values = sorted(
        {
            mm.group(0)
            for s in page_sentences
            for mm in _NUM_IN_CLAIM.finditer(s)
            if float(mm.group(0).replace(",", "")) != value
            and (1000 <= float(mm.group(0).replace(",", "")) <= 2100 and "," not in mm.group(0)) == years
            and ("." in mm.group(0)) == (m.group(2) is not None)
        }
    )
    if years:
        near = [v for v in page_values if abs(float(v) - value) <= 15]
        new = rng.choice(near) if near and rng.random() < 0.7 else None
        new = new or str(int(value) + rng.choice([-7, -5, -3, -2, -1, 1, 2, 3, 4, 6]))
        return claim[: m.start()] + new + claim[m.end() :]
    if page_values and rng.random() < 0.6:
        return claim[: m.start()] + rng.choice(page_values) + claim[m.end() :]
    factor = rng.choice([0.4, 0.6, 0.7, 0.8, 1.2, 1.3, 1.5, 1.8, 2.5])
    nv = value * factor
    if m.group(2):
        new = f"{nv:.{len(m.group(2)) - 1}f}"
    else:
        iv = max(2, round(nv))
        if iv == int(value):
            iv += 1
        new = f"{iv:,}" if "," in m.group(1) else str(iv)
    return claim[: m.start()] + new + claim[m.end() :]


_CAP_SPAN = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-z]+){0,3})")


def perturb_entity(claim: str, page_sentences: list[str], rng: random.Random) -> str | None:
    info = sf.analyse_claim(claim)
    names = [n for n in info.reading.names if n.first > 0]
    if not names:
        return None
    target = rng.choice(names)
    claim_keys = {k for n in info.reading.names for k in n.keys}
    pool: list[tuple[str, str]] = []
    for s in rng.sample(page_sentences, min(len(page_sentences), 80)):
        for n in sf.read(sf.fold_typography(s)).names:
            if set(n.keys) & claim_keys or len(n.text) < 3:
                continue
            pool.append((n.text, n.type))
    same = [t for t, ty in pool if target.type and ty == target.type]
    choices = (
        same or [t for t, _ in pool if len(t.split()) == len(target.text.split())] or [t for t, _ in pool]
    )
    if not choices or target.text not in claim:
        return None
    return claim.replace(target.text, rng.choice(choices), 1)


def perturb_universal(claim: str, rng: random.Random) -> str | None:
    words = claim.split(" ")
    ops = []
    for i, w in enumerate(words[:-1]):
        lw = w.lower()
        if lw in ("some", "many", "several", "most") and i + 1 < len(words):
            ops.append(("replace", i, "all"))
        if lw in ("a", "an") and i > 0 and words[i - 1].lower() in ("is", "was", "became"):
            ops.append(("replace", i, "the only"))
        if lw in ("the",) and i + 1 < len(words) and words[i + 1].endswith("s") and words[i + 1].islower():
            ops.append(("replace", i, rng.choice(("all the", "every one of the"))))
    for i, w in enumerate(words[1:], start=1):
        if w.islower() and w.isalpha() and (_base_form(w) or w in ("is", "are", "was", "were")):
            adverb = rng.choice(("always", "entirely", "completely", "universally"))
            ops.append(("insert", i if w not in ("is", "are", "was", "were") else i + 1, adverb))
            break
    tail = rng.choice(("nationwide", "worldwide", "across the country", "in every region", "everywhere"))
    ops.append(("tail", -1, tail))
    op, i, word = rng.choice(ops)
    if op == "replace":
        return " ".join([*words[:i], word, *words[i + 1 :]])
    if op == "insert":
        return " ".join([*words[:i], word, *words[i:]])
    return _strip_end(claim) + " " + word + "."


def perturb_causal(claim: str, page_sentences: list[str], rng: random.Random) -> str | None:
    others = [s for s in page_sentences if 40 <= len(s) <= 220 and s.strip() != claim.strip()]
    if not others:
        return None
    info = sf.analyse_claim(claim)
    # prefer a sentence that shares a word with the claim (two facts about the same subject)
    scored = sorted(others, key=lambda s: -len(set(sf.analyse_claim(s).terms) & set(info.terms)))[:5]
    other = rng.choice(scored)
    link = rng.choice(_CAUSAL_LINKS)
    if rng.random() < 0.5:
        return link.format(a=_strip_end(claim), b=_lower_first(_strip_end(other))) + "."
    return link.format(a=_strip_end(other), b=_lower_first(_strip_end(claim))) + "."


_OPPOSITES = {
    "rose": "fell",
    "fell": "rose",
    "increased": "decreased",
    "decreased": "increased",
    "grew": "shrank",
    "more": "fewer",
    "less": "more",
    "fewer": "more",
    "higher": "lower",
    "lower": "higher",
    "largest": "smallest",
    "smallest": "largest",
    "biggest": "smallest",
    "larger": "smaller",
    "smaller": "larger",
    "before": "after",
    "after": "before",
    "first": "last",
    "last": "first",
    "won": "lost",
    "lost": "won",
    "best": "worst",
    "earlier": "later",
    "later": "earlier",
    "above": "below",
    "below": "above",
    "gained": "lost",
    "highest": "lowest",
    "lowest": "highest",
    "rise": "fall",
    "increase": "decrease",
    "decline": "rise",
    "major": "minor",
    "early": "late",
    "late": "early",
    "top": "bottom",
    "older": "younger",
    "younger": "older",
    "oldest": "youngest",
    "youngest": "oldest",
    "longest": "shortest",
    "success": "failure",
    "successful": "unsuccessful",
}


def perturb_direction(claim: str, rng: random.Random) -> str | None:
    words = claim.split(" ")
    spots = [i for i, w in enumerate(words) if w.lower().strip(",.;:") in _OPPOSITES]
    if not spots:
        return None
    i = rng.choice(spots)
    w = words[i]
    core = w.strip(",.;:")
    new = _OPPOSITES[core.lower()]
    if core[0].isupper():
        new = new.capitalize()
    words[i] = w.replace(core, new)
    return " ".join(words)


def synthesise(claims: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for c in claims:
        if c["label"] != "supported":
            continue
        made = {
            "negation": perturb_negation(c["claim"], rng),
            "number": perturb_number(c["claim"], c["sentences"], rng, years=False),
            "date": perturb_number(c["claim"], c["sentences"], rng, years=True),
            "entity": perturb_entity(c["claim"], c["sentences"], rng),
            "universal": perturb_universal(c["claim"], rng),
            "causal": perturb_causal(c["claim"], c["sentences"], rng),
            "direction": perturb_direction(c["claim"], rng),
        }
        for kind, text in made.items():
            if text and text != c["claim"]:
                out.append(
                    {
                        **c,
                        "id": f"{c['id']}-{kind}",
                        "label": "not_supported",
                        "kind": kind,
                        "claim": text,
                        "chunks": [],
                        "source": c["claim"],
                    }
                )
    return out


# --- features ---------------------------------------------------------------------------------------


def featurise(claims: list[dict[str, Any]]) -> None:
    """Adds ``f_page``, ``f_union``, ``f_each`` and ``f_gold`` feature dicts (the grader's code paths)."""
    pages: dict[str, Any] = {}
    for c in claims:
        info = sf.analyse_claim(c["claim"])
        page = pages.get(c["id"].split("-")[0])
        if page is None:
            page = sf.index_text(c["page"])
            pages[c["id"].split("-")[0]] = page
        c["f_page"] = sf.extract(info, [page]).values
        if c["chunks"]:
            chunk_idx = [sf.index_text(t) for t in c["chunks"]]
            c["f_union"] = sf.extract(info, chunk_idx).values
            c["f_each"] = [sf.extract(info, [ix]).values for ix in chunk_idx]
        else:
            c["f_union"] = None
            c["f_each"] = None
        c["f_gold"] = sf.extract(info, [sf.index_text(c["gold"])]).values if c["gold"] else None


# --- fitting ----------------------------------------------------------------------------------------


def _rows(
    claims: list[dict[str, Any]], features: list[str], wp: float, ws: float, balance_kinds: bool = False
) -> tuple[Any, Any, Any]:
    import numpy as np

    xs: list[list[float]] = []
    ys: list[bool] = []
    ws_: list[float] = []
    # with balance_kinds, every kind of perturbation weighs the same in total, however many claims it hit
    per_kind: dict[str, int] = defaultdict(int)
    for c in claims:
        per_kind[c["kind"]] += 1
    synth_kinds = [k for k in per_kind if k != "wice"]
    mean_kind = sum(per_kind[k] for k in synth_kinds) / len(synth_kinds) if synth_kinds else 1.0
    if not balance_kinds:
        per_kind = defaultdict(lambda: 1)
        mean_kind = 1.0
    for c in claims:
        for view in ("f_page", "f_union", "f_gold"):
            r = c.get(view)
            if r is None:
                continue
            xs.append([r[f] for f in features])
            ys.append(c["label"] == "supported")
            if c["kind"] != "wice":
                ws_.append(ws * mean_kind / per_kind[c["kind"]])
            elif c["label"] == "partially_supported":
                ws_.append(wp)
            else:
                ws_.append(1.0)
    x = np.array(xs, dtype=np.float64)
    y = np.array(ys)
    w = np.array(ws_, dtype=np.float64)
    w = w * np.where(y, 0.5 / w[y].sum(), 0.5 / w[~y].sum()) * len(y)
    return x, y, w


def fit(
    claims: list[dict[str, Any]],
    features: list[str],
    c_reg: float,
    wp: float,
    ws: float,
    balance_kinds: bool = False,
) -> ClaimSupportParams:
    import numpy as np
    from scipy.optimize import minimize

    x, y, w = _rows(claims, features, wp, ws, balance_kinds)
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-6] = 1.0
    for i, f in enumerate(features):
        if f in sf.RULE_FEATURES:
            mu[i], sd[i] = 0.0, 1.0  # rare 0/strength signals: penalise the raw logit effect, not a z-score
    z = (x - mu) / sd
    t = y.astype(np.float64)
    n = len(features)

    def loss(theta: Any) -> tuple[float, Any]:
        b, coef = theta[0], theta[1:]
        s = z @ coef + b
        p = 1.0 / (1.0 + np.exp(-s))
        eps = 1e-12
        ll = -(w * (t * np.log(p + eps) + (1 - t) * np.log(1 - p + eps))).sum()
        reg = 0.5 / c_reg * float(coef @ coef)
        g = w * (p - t)
        grad = np.concatenate([[g.sum()], z.T @ g + coef / c_reg])
        return float(ll + reg), grad

    bounds = [(None, None)] + [(None, 0.0) if f in sf.RULE_FEATURES else (None, None) for f in features]
    res = minimize(loss, np.zeros(n + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    coef = res.x[1:]
    keep = [i for i in range(n) if abs(coef[i]) > 1e-6]
    return ClaimSupportParams(
        threshold=0.5,
        intercept=round(float(res.x[0]), 6),
        weights={features[i]: round(float(coef[i]), 6) for i in keep},
        center={features[i]: round(float(mu[i]), 6) for i in keep},
        scale={features[i]: round(float(sd[i]), 6) for i in keep},
        penalties={},
    )


def scores(claims: list[dict[str, Any]], params: ClaimSupportParams) -> dict[str, list[float]]:
    def s(v: Any) -> float:
        return support_score(v, params) if v is not None else -1.0

    return {
        "page": [s(c["f_page"]) for c in claims],
        "chunks(max)": [max(s(v) for v in c["f_each"]) if c["f_each"] else -1.0 for c in claims],
        "chunks(union)": [s(c["f_union"]) for c in claims],
        "gold sentences": [s(c["f_gold"]) for c in claims],
    }


def bacc(labels: list[str], score: list[float], threshold: float, bad: tuple[str, ...]) -> float | None:
    good = [s for lab, s in zip(labels, score, strict=True) if lab == "supported" and s >= 0]
    neg = [s for lab, s in zip(labels, score, strict=True) if lab in bad and s >= 0]
    if not good or not neg:
        return None
    frr = sum(1 for s in good if s < threshold) / len(good)
    far = sum(1 for s in neg if s >= threshold) / len(neg)
    return 1 - (far + frr) / 2


READINGS = {
    "S vs N": ("not_supported",),
    "S vs P+N": ("not_supported", "partially_supported"),
    "S vs P": ("partially_supported",),
}


def cross_validate(
    real: list[dict[str, Any]],
    synthetic: list[dict[str, Any]],
    features: list[str],
    args: argparse.Namespace,
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, list[float]]]]:
    import numpy as np
    from sklearn.model_selection import StratifiedGroupKFold

    articles = sorted({c["article"] for c in real})
    groups = np.array([articles.index(c["article"]) for c in real])
    strata = np.array([int(LABEL[c["label"]] * 2) for c in real])
    labels = [c["label"] for c in real]
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    synth_out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rep in range(args.repeats):
        cv = StratifiedGroupKFold(n_splits=args.folds, shuffle=True, random_state=rep)
        pred: dict[str, list[float]] = {}
        spred: dict[str, list[float]] = {}
        for train, test in cv.split(np.zeros(len(real)), strata, groups):
            train_articles = {real[i]["article"] for i in train}
            train_rows = [real[i] for i in train]
            train_rows += (
                [s for s in synthetic if s["article"] in train_articles] if args.synthetic_weight else []
            )
            params = fit(
                train_rows,
                features,
                args.c_reg,
                args.partial_weight,
                args.synthetic_weight,
                args.balance_kinds,
            )
            got = scores([real[i] for i in test], params)
            for view, vals in got.items():
                arr = pred.setdefault(view, [0.0] * len(real))
                for i, v in zip(test, vals, strict=True):
                    arr[i] = v
            test_synth = [k for k, s in enumerate(synthetic) if s["article"] not in train_articles]
            sgot = scores([synthetic[k] for k in test_synth], params)
            for view in ("page", "gold sentences"):
                arr = spred.setdefault(view, [0.0] * len(synthetic))
                for k, v in zip(test_synth, sgot[view], strict=True):
                    arr[k] = v
        for view, vals in pred.items():
            for reading, bad in READINGS.items():
                b = bacc(labels, vals, 0.5, bad)
                if b is not None:
                    out[view][reading].append(b)
        for view, vals in spred.items():
            for kind in SYNTHETIC_KINDS:
                ks = [v for v, s in zip(vals, synthetic, strict=True) if s["kind"] == kind and v >= 0]
                if ks:
                    synth_out[view][kind].append(sum(1 for v in ks if v < 0.5) / len(ks))
            good = pred[view]
            goods = [v for v, c in zip(good, real, strict=True) if c["label"] == "supported" and v >= 0]
            synth_out[view]["FRR supported"].append(sum(1 for v in goods if v < 0.5) / len(goods))
    return out, synth_out


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
        ]
    )


# --- throughput -------------------------------------------------------------------------------------


def throughput(n_claims: int = 3000, n_docs: int = 300, sentences: int = 80) -> None:
    """Claims per second of the grader on one core: generated pages of ``sentences`` sentences, each page
    cited by ``n_claims / n_docs`` claims (a corpus document is indexed once and reused), then every claim
    citing its own new page."""
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


# --- main -------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "wice")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--C", dest="c_reg", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--partial-weight", type=float, default=0.25)
    ap.add_argument("--synthetic-weight", type=float, default=0.5, help="weight of a synthetic bad claim")
    ap.add_argument("--seed", type=int, default=13, help="seed of the synthetic perturbations")
    ap.add_argument(
        "--balance-kinds", action="store_true", help="give every kind of perturbation the same total weight"
    )
    ap.add_argument("--features", default=",".join(DEFAULT_FEATURES))
    ap.add_argument("--show-synthetic", type=int, default=0, help="print N synthetic claims of each kind")
    ap.add_argument("--no-cv", action="store_true", help="skip cross-validation: fit and print the params")
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
    real = load(args.data)
    synthetic = synthesise(real, args.seed)
    if args.show_synthetic:
        for kind in SYNTHETIC_KINDS:
            for s in [s for s in synthetic if s["kind"] == kind][: args.show_synthetic]:
                print(f"[{kind}] {s['source']}\n   -> {s['claim']}")
    featurise(real)
    featurise(synthetic)
    counts = {lab: sum(1 for c in real if c["label"] == lab) for lab in LABEL}
    scounts = {k: sum(1 for s in synthetic if s["kind"] == k) for k in SYNTHETIC_KINDS}
    print(
        f"{len(real)} WiCE claims {counts}; {len(synthetic)} synthetic bad {scounts}; "
        f"features in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
    )
    print(
        f"features ({len(features)}): {', '.join(features)}\n"
        f"C={args.c_reg}; partial weight={args.partial_weight}; synthetic weight={args.synthetic_weight}"
    )
    print(f"CV: {args.repeats} x {args.folds}-fold, stratified, grouped by Wikipedia article; threshold 0.5")
    res, sres = cross_validate(real, synthetic, features, args) if not args.no_cv else ({}, {})
    print("\nWiCE: balanced accuracy (mean ± sd over repeats)")
    for view, by in res.items():
        cells = [f"{r} {np.mean(v):.3f}±{np.std(v):.3f}" for r, v in by.items()]
        print(f"  {view:14s} " + "   ".join(cells))
    print("\nsynthetic bad claims (held-out articles): share rejected; FRR of WiCE supported claims")
    for view, by in sres.items():
        cells = [f"{k} {np.mean(v):.2f}" for k, v in by.items()]
        print(f"  {view:14s} " + "   ".join(cells))

    final = fit(
        real + synthetic, features, args.c_reg, args.partial_weight, args.synthetic_weight, args.balance_kinds
    )
    labels = [c["label"] for c in real]
    print("\nfitted on all dev claims (resubstitution, optimistic):")
    for view, vals in scores(real, final).items():
        cells = [f"{r} {bacc(labels, vals, final.threshold, bad):.3f}" for r, bad in READINGS.items()]
        print(f"  {view:14s} " + "   ".join(cells))
    print("\n# paste into graders/claim-support/vN.toml")
    print(_fmt_params(final))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
