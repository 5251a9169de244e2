"""Scoring what the report parser finds against hand-labelled (claim, cited source) pairs.

The corpus is ``tests/data/reports/``: one raw report per ``NN-style.md`` file (written as agents write:
Perplexity, OpenAI deep research, Gemini, Claude, academic styles, HTML, footnotes, ...) and
``expected.json``: per file, ``pairs`` (a piece of the claim's text, and the cited source: a URL, ``doi:...``
or ``title:...``), the ``missing`` markers (pointing to no listed source) and optionally the number of
``uncited`` factual sentences. Scoring reads the ``graderctl units --format json`` document, as an outside
checker would. Used by ``tests/parsing/test_report_corpus.py`` and ``benchmarks/units.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graderctl.normalize import normalize_doi, normalize_url

CORPUS = Path(__file__).resolve().parents[1] / "data" / "reports"


def load_reports(folder: Path = CORPUS) -> list[tuple[str, str, dict[str, Any]]]:
    """``(file name, raw text, expected)`` of every report of the corpus."""
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    return [(name, (folder / name).read_bytes().decode("utf-8"), expected[name]) for name in sorted(expected)]


def trial_rows(reports: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {
            "task_id": "corpus",
            "trial_id": name,
            "task": {"question": "raw report corpus"},
            "report": {"text": text},
        }
        for name, text, _ in reports
    ]


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").split()).lower()


def _source_matches(key: str, citation: dict[str, Any]) -> bool:
    if key.startswith("doi:"):
        doi = citation.get("doi")
        return doi is not None and doi == normalize_doi(key)
    if key.startswith("title:"):
        return _norm(key[6:]) in _norm(citation.get("title") or "")
    url = citation.get("url")
    return url is not None and normalize_url(url) == normalize_url(key)


@dataclass
class PairScore:
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    missing_found: int = 0
    missing_expected: int = 0
    missing_spurious: int = 0
    uncited_errors: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        found = self.true_positives + self.false_negatives
        return self.true_positives / found if found else 1.0

    @property
    def precision(self) -> float:
        made = self.true_positives + self.false_positives
        return self.true_positives / made if made else 1.0


def score_document(doc: dict[str, Any], reports: list[tuple[str, str, dict[str, Any]]]) -> PairScore:
    """Pairs recall and precision of a units document over the corpus, and the missing-marker report."""
    score = PairScore()
    by_trial = {t["trial_id"]: t for t in doc["trials"]}
    for name, _, expected in reports:
        trial = by_trial[name]
        predicted = [
            (_norm(claim["text"]), cit)
            for claim in trial["claims"]
            for cit in claim["citations"]
            if not cit["missing"]
        ]
        wanted = [(_norm(c), s) for c, s in expected["pairs"]]
        for claim_key, source_key in wanted:
            if any(claim_key in text and _source_matches(source_key, cit) for text, cit in predicted):
                score.true_positives += 1
            else:
                score.false_negatives += 1
                score.errors.append(f"{name}: missed ({claim_key!r}, {source_key})")
        for text, cit in predicted:
            if not any(
                claim_key in text and _source_matches(source_key, cit) for claim_key, source_key in wanted
            ):
                score.false_positives += 1
                shown = cit.get("url") or cit.get("doi") or cit.get("title")
                score.errors.append(f"{name}: spurious ({text[:60]!r}, {shown})")
        markers = [m["marker"] for m in trial["missing_sources"]]
        wanted_missing = expected.get("missing", [])
        score.missing_expected += len(wanted_missing)
        score.missing_found += sum(1 for m in wanted_missing if m in markers)
        score.missing_spurious += sum(1 for m in markers if m not in wanted_missing)
        if "uncited" in expected and len(trial["uncited_claims"]) != expected["uncited"]:
            score.uncited_errors.append(
                f"{name}: {len(trial['uncited_claims'])} uncited, expected {expected['uncited']}: "
                + "; ".join(u["text"][:50] for u in trial["uncited_claims"])
            )
    return score
