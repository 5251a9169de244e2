"""The report parser on the hand-labelled corpus of raw agent reports (tests/data/reports), scored through
the `graderctl units --format json` document as an outside checker would: pairs recall and precision, markers
pointing to no listed source, uncited factual sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graderctl.cli import _state, app
from tests.parsing.pairs import load_reports, score_document, trial_rows

REPORTS = load_reports()


def test_the_corpus_covers_every_style() -> None:
    assert len(REPORTS) >= 40
    assert sum(len(e["pairs"]) for _, _, e in REPORTS) >= 150
    names = " ".join(name for name, _, _ in REPORTS)
    for style in (
        "perplexity",
        "openai",
        "gemini",
        "claude",
        "footnotes",
        "html",
        "bare-urls",
        "dois",
        "apa",
        "author-year",
        "ranges",
        "link-definitions",
        "missing-markers",
        "curly-quotes",
        "crlf",
    ):
        assert style in names, style


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("corpus")
    trials = folder / "trials.jsonl"
    trials.write_text("".join(json.dumps(r) + "\n" for r in trial_rows(REPORTS)), encoding="utf-8")
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        code = _state.run(app, ["--root", str(folder), "units", str(trials), "--format", "json", "-q"])
    assert code == 0
    doc: dict[str, object] = json.loads(out.getvalue())
    return doc


def test_pairs_recall_and_precision(document: dict[str, object]) -> None:
    score = score_document(document, REPORTS)
    shown = "\n".join(score.errors)
    assert score.recall >= 0.95, shown
    assert score.precision >= 0.95, shown


def test_markers_without_a_listed_source_are_reported(document: dict[str, object]) -> None:
    score = score_document(document, REPORTS)
    assert score.missing_expected >= 2
    assert score.missing_found == score.missing_expected
    assert score.missing_spurious == 0


def test_uncited_factual_sentences_are_counted(document: dict[str, object]) -> None:
    score = score_document(document, REPORTS)
    assert not score.uncited_errors, "\n".join(score.uncited_errors)


def test_corpus_files_are_read_as_bytes_so_crlf_survives() -> None:
    crlf = next(text for name, text, _ in REPORTS if "crlf" in name)
    assert "\r\n" in crlf, "tests/data/reports must keep CRLF line ends (.gitattributes: -text)"


def test_pairs_helper_catches_a_wrong_source(tmp_path: Path) -> None:
    """The scoring itself can fail: a citation pointing elsewhere is a false positive and a miss."""
    name, _, expected = REPORTS[0]
    claim = expected["pairs"][0][0]
    doc = {
        "trials": [
            {
                "trial_id": name,
                "claims": [
                    {"text": claim, "citations": [{"url": "https://elsewhere.example/", "missing": False}]}
                ],
                "missing_sources": [],
                "uncited_claims": [],
            }
        ]
    }
    score = score_document(doc, [REPORTS[0]])
    assert score.true_positives == 0 and score.false_positives == 1
    assert score.false_negatives == len(expected["pairs"])
