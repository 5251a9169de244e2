"""The unit builder shared by `score` and `units`: raw report text, the zero-unit rule, and what result lines
record about it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from tests.data.score.fake_kind import ensure_registered, make_project

from graderctl.models.results import GradedResult
from graderctl.models.trials import Trial
from graderctl.models.units import UnitsDocument
from graderctl.parsing import PARSER
from graderctl.services.score import ScoreOptions, score_trials
from graderctl.services.units import NO_CITATIONS, citation_units, claim_units, list_units, report_view
from graderctl.store import schemas

RAW_TEXT = (
    "European heat pump sales fell 21% in 2024 to about 2.3 million units [1]. Pack prices fell to "
    '"115 dollars per kWh" in 2024 [2]. Heat pumps were also sold in Asia during the same year [7].\n'
    "Heat pump sales in Europe grew strongly during the 2010s across many markets.\n\n"
    "Sources:\n"
    "1. Heat pump tracker, https://www.iea.org/reports/heat-pumps-2024?utm_source=chatgpt.com\n"
    "2. Battery prices. doi:10.1000/batt.2024.7\n"
)

#: RAW_TEXT with repeated markers, claims citing twice, missing sources and a second uncited sentence
CITING_TWICE_TEXT = RAW_TEXT.replace(
    "Heat pump sales in Europe grew strongly during the 2010s across many markets.",
    "Heat pump sales grew 5% in 2019 [1][1]. Prices fell 3% in 2020 [1]. Sales rose 7% in 2021 [2][7]. "
    "Sales rose 9% in 2022 [9]. Heat pump sales in Europe grew strongly in the 2010s.",
)


@pytest.fixture(autouse=True)
def _kind() -> None:
    ensure_registered()


def raw_trial(trial_id: str, text: str, **task: Any) -> dict[str, Any]:
    return {
        "task_id": "raw",
        "trial_id": trial_id,
        "task": {"question": "How did heat pump sales change?", **task},
        "report": {"text": text},
    }


def write_trials(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_report_view_reads_raw_text_and_builds_units() -> None:
    trial = Trial.model_validate(raw_trial("r1", RAW_TEXT))
    view = report_view(trial)
    assert view.origin == "text" and view.parser is PARSER
    assert view.claims[0].text == ("European heat pump sales fell 21% in 2024 to about 2.3 million units.")
    assert view.missing == [("c3", "[7]")]
    assert view.uncited_claims == 1 and view.cited_claims == 3
    units = citation_units(trial, view)
    assert [u.id for u in units] == ["citation:c1/1", "citation:c2/2", "citation:c3/[7]"]
    first = units[0].input
    assert first is not None and first.citation.url is not None  # type: ignore[union-attr]
    assert units[1].input.citation.doi == "10.1000/batt.2024.7"  # type: ignore[union-attr]
    assert units[1].input.citation.quote == "115 dollars per kWh"  # type: ignore[union-attr]
    assert units[2].input is None and "[7]" in (units[2].failure or "")
    assert "missing source" in (units[2].failure or "")


def test_structured_claims_win_over_the_text() -> None:
    row = raw_trial("r1", RAW_TEXT)
    row["report"]["claims"] = [{"id": "k1", "text": "Sales fell.", "citations": [{"source_id": "s1"}]}]
    row["report"]["sources"] = [{"id": "s1", "url": "https://www.iea.org/reports/heat-pumps-2024"}]
    view = report_view(Trial.model_validate(row))
    assert view.origin == "structured" and view.parser is None
    assert [c.id for c in view.claims] == ["k1"]


def test_claim_units_of_raw_text_use_the_corpus() -> None:
    from graderctl.models.calset import CorpusDocument
    from graderctl.plugin import Corpus

    here = Path(__file__).resolve().parents[1] / "data" / "score" / "corpus.jsonl"
    corpus = Corpus([CorpusDocument.model_validate_json(x) for x in here.read_text().splitlines()])
    units = claim_units(Trial.model_validate(raw_trial("r1", RAW_TEXT)), corpus)
    assert units[0].input is not None and units[0].input.evidence[0].source_id == "doc-heat"  # type: ignore[union-attr]
    assert units[1].input is not None and units[1].input.evidence[0].source_id == "doc-batt"  # type: ignore[union-attr]
    assert units[2].input is None and "[7] (no source listed for it)" in (units[2].failure or "")


def score_rows(tmp_path: Path, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    make_project(tmp_path)
    trials = write_trials(tmp_path / "runs" / "raw-trials.jsonl", rows)
    output = tmp_path / "out" / "raw-results.jsonl"
    score_trials(ScoreOptions(output=output, trials=trials), root=tmp_path)
    lines = [json.loads(x) for x in output.read_text().splitlines()]
    for line in lines:
        GradedResult.model_validate(line)
    return {line["trial_id"]: line for line in lines}


def test_a_report_without_citations_never_passes_the_citation_checks(tmp_path: Path) -> None:
    uncited = "European heat pump sales fell 21% in 2024 to about 2.3 million units."
    lines = score_rows(
        tmp_path,
        [
            raw_trial("none", uncited),
            raw_trial("empty", ""),
            raw_trial("waived", uncited, requires_citations=False),
        ],
    )
    for trial_id in ("none", "empty"):
        line = lines[trial_id]
        assert line["success"] is False
        for check in ("source_existence", "claim_support"):
            result = line["checks"][check]
            assert result["passed"] is False and result["units"] == 0
            assert result["reasons"] == [NO_CITATIONS]
    assert lines["none"]["uncited_claims"] == 1 and lines["none"]["cited_claims"] == 0
    waived = lines["waived"]
    for check in ("source_existence", "claim_support"):
        result = waived["checks"][check]
        assert result["passed"] is True and result["units"] == 0
        assert result["citations_required"] is False
        assert "not required by the task" in result["reasons"][0]


def test_raw_text_trial_is_graded_and_records_the_parser(tmp_path: Path) -> None:
    lines = score_rows(tmp_path, [raw_trial("r1", RAW_TEXT)])
    line = lines["r1"]
    assert line["parser"] == PARSER.to_dict() and line["parser"]["fingerprint"].startswith("sha256:")
    assert line["units_from"] == "text"
    assert line["uncited_claims"] == 1 and line["cited_claims"] == 3
    se = line["checks"]["source_existence"]
    assert se["units"] == 3 and se["failed_units"] == ["citation:c3/[7]"]
    assert line["success"] is False


def test_units_document_matches_what_score_grades(tmp_path: Path) -> None:
    trials = write_trials(tmp_path / "trials.jsonl", [raw_trial("r1", RAW_TEXT), raw_trial("e", "")])
    doc, notes = list_units(trials, root=tmp_path)
    printed = json.loads(json.dumps(msgspec.to_builtins(doc)))
    UnitsDocument.model_validate(printed)  # the pydantic model the schema is generated from
    jsonschema.validate(printed, schemas.generate_one("units"))
    r1 = doc.trials[0]
    assert [c.citations[0].missing for c in r1.claims] == [False, False, True]
    assert r1.missing_sources[0].marker == "[7]"
    assert r1.sources[0].url_key == "//iea.org/reports/heat-pumps-2024"
    assert [u.id for u in r1.checks.source_existence.units] == [
        u.id for u in citation_units(Trial.model_validate(raw_trial("r1", RAW_TEXT)))
    ]
    assert doc.trials[1].checks.source_existence.note == NO_CITATIONS
    assert doc.summary.no_citations == 1 and doc.summary.missing_sources == 1
    assert any("no corpus" in n for n in notes)


def test_units_streamed_a_trial_at_a_time_are_the_same_document(tmp_path: Path) -> None:
    from graderctl.render.units import UnitsJsonWriter, units_json_chunks

    structured = {
        "task_id": "s",
        "trial_id": "1",
        "task": {"question": "q"},
        "report": {
            "text": "x",
            "claims": [
                {"id": "a", "text": "Claim a.", "citations": [{"source_id": "s1"}]},
                {"id": "b", "text": "Claim b."},
            ],
            "sources": [{"id": "s1", "url": "https://example.org/a", "doi": "10.1000/X"}],
        },
    }
    rows = [raw_trial("r1", RAW_TEXT), raw_trial("e", ""), structured, raw_trial("r2", RAW_TEXT)]
    trials = write_trials(tmp_path / "trials.jsonl", rows)
    whole, notes = list_units(trials, root=tmp_path)
    streamed: list[dict[str, Any]] = []
    head, streamed_notes = list_units(trials, root=tmp_path, row_sink=streamed.append)
    assert head.trials == [] and len(whole.trials) == 4 and streamed_notes == notes
    assert msgspec.structs.replace(head, trials=streamed) == whole
    writer = UnitsJsonWriter()
    for row in streamed:
        writer(row)
    plain = msgspec.to_builtins(whole)
    expected = (json.dumps(plain, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    assert b"".join(writer.chunks(head)) == b"".join(units_json_chunks(whole)) == expected
    UnitsDocument.model_validate(json.loads(expected))
    summary = whole.summary
    assert (summary.trials, summary.from_text, summary.structured, summary.empty) == (4, 2, 1, 1)
    assert (summary.claims, summary.citations, summary.uncited_claims) == (8, 7, 3)
    assert summary.citation_coverage == pytest.approx(7 / 10)


def test_metrics_report_citation_coverage(tmp_path: Path) -> None:
    from graderctl.render.metrics import render_text
    from graderctl.services.metrics import compute_metrics

    uncited = "European heat pump sales fell 21% in 2024 to about 2.3 million units."
    score_rows(tmp_path, [raw_trial("r1", RAW_TEXT), raw_trial("none", uncited)])
    report = compute_metrics(tmp_path / "out" / "raw-results.jsonl", root=tmp_path)
    cit = report.document.model_dump()["citations"]
    assert cit["trials"] == 2 and cit["cited_claims"] == 3 and cit["uncited_claims"] == 2
    assert cit["citation_coverage"] == pytest.approx(3 / 5)
    assert cit["trials_without_citations"] == 1
    assert any("cite no source at all" in w for w in report.warnings)
    assert "Citation coverage 60.0%" in render_text(report.document)


def test_metrics_without_claim_counts_have_no_citation_section(tmp_path: Path) -> None:
    from graderctl.services.metrics import compute_metrics

    path = tmp_path / "results.jsonl"
    path.write_text('{"task_id": "a", "trial_id": "1", "success": true}\n')
    assert compute_metrics(path, root=tmp_path).document.citations is None


def test_structured_trials_record_the_parser_of_the_plan_too(tmp_path: Path) -> None:
    row = raw_trial("s1", "")
    row["report"]["claims"] = [{"id": "k1", "text": "Sales fell 21%.", "citations": [{"source_id": "s1"}]}]
    row["report"]["sources"] = [{"id": "s1", "url": "https://www.iea.org/reports/heat-pumps-2024"}]
    line = score_rows(tmp_path, [row])["s1"]
    assert line["units_from"] == "structured" and line["parser"] == PARSER.to_dict()
    assert line["cited_claims"] == 1 and line["uncited_claims"] == 0


def test_single_citation_claims_of_parsed_reports_give_what_the_general_loop_gives() -> None:
    """report_units takes a shortcut for a parsed report's claims with one citation (claim ids c1, c2, ...
    are all different, so no unit id can repeat): the same units as the general loop, which a structured
    view of the same claims takes, including repeated markers, missing sources and claims citing twice."""
    from graderctl.models.calset import CorpusDocument
    from graderctl.plugin import Corpus
    from graderctl.services.units import report_units

    corpus = Corpus([CorpusDocument(id="doc-batt", doi="10.1000/batt.2024.7", text="x")])
    view = report_view(Trial.model_validate(raw_trial("r1", CITING_TWICE_TEXT)))
    assert view.origin == "text" and any(len(c.citations) == 1 for c in view.claims)
    assert any(len(c.citations) > 1 for c in view.claims)
    general = msgspec.structs.replace(view, origin="structured")
    for c in (None, corpus):
        assert msgspec.to_builtins(report_units(view, c)) == msgspec.to_builtins(report_units(general, c))


def test_what_a_citation_gives_without_a_corpus_is_what_the_general_path_gives() -> None:
    """_given works out a listed source's citation without a corpus in place (no evidence can come from a
    corpus): the same as the general path, which an empty corpus takes (it finds nothing either)."""
    from graderctl.plugin import Corpus
    from graderctl.services.units import _given, report_units

    row = raw_trial("r1", RAW_TEXT + "3. A report with no link, 2020.\n")
    structured = raw_trial("s1", "")
    structured["report"]["claims"] = [
        {
            "id": "k1",
            "text": "Sales fell.",
            "citations": [{"source_id": s} for s in ("a", "b", "c", "d", "zz")],
        }
    ]
    structured["report"]["sources"] = [
        {"id": "a", "url": "https://www.iea.org/x", "title": "A"},
        {"id": "b", "doi": "10.1000/b", "text": "captured"},
        {"id": "c", "url": "https://c.org", "text": "   "},
        {"id": "d", "title": "no link"},
    ]
    seen = 0
    for trial in (row, structured):
        view = report_view(Trial.model_validate(trial))
        shown = report_units(view, None).sources
        # the view's citations, and a text report's own (the parser's, which the units are built from)
        claims = [*view.claims, *(view.parsed.claims if view.parsed is not None else ())]
        for claim in claims:
            for index, cit in enumerate(claim.citations, start=1):
                args = (cit, index, view.sources, shown)
                assert _given(*args, None, " (none)") == _given(*args, Corpus([]), " (none)")
                seen += 1
    assert seen >= 11


def test_units_read_from_the_parsers_own_objects_are_those_of_view_claims_and_sources() -> None:
    """A text report's view holds the parser's claims, citations and sources, and report_units reads them as
    they are (ids c1, c2, ... and spans made as it goes): the same units, claims and counts as from the view's
    ViewClaims, ViewCitations and ViewSources made of them (no captured text), with and without a corpus,
    with quotes, repeated markers, missing sources and claims citing twice."""
    from graderctl.models.calset import CorpusDocument
    from graderctl.parsing import ParsedSource
    from graderctl.plugin import Corpus
    from graderctl.services.units import ViewSource, report_units

    corpus = Corpus([CorpusDocument(id="doc-batt", doi="10.1000/batt.2024.7", text="x")])
    view = report_view(Trial.model_validate(raw_trial("r1", CITING_TWICE_TEXT)))
    assert view.own_claims is None and view.parsed is not None
    assert all(type(s) is ParsedSource for s in view.sources.values())
    made = msgspec.structs.replace(
        view,
        own_claims=view.claims,
        sources={
            k: ViewSource(s.id, s.url, s.doi, s.title, None, s.marker, s.origin)
            for k, s in view.sources.items()
        },
    )
    assert [(c.id, c.span) for c in made.claims][:2] == [
        ("c1", (view.parsed.claims[0].start, view.parsed.claims[0].end)),
        ("c2", (view.parsed.claims[1].start, view.parsed.claims[1].end)),
    ]
    assert (view.cited_claims, view.uncited_claims, view.uncited) == (
        made.cited_claims,
        made.uncited_claims,
        made.uncited,
    )
    assert view.uncited_claims == 1 and len(view.missing) == 3
    for c in (None, corpus):
        units = report_units(view, c)
        assert msgspec.to_builtins(units) == msgspec.to_builtins(report_units(made, c))
        assert units.cited == view.cited_claims == len(units.claims)


def test_a_parsed_report_of_more_than_512_claims_keeps_numbering_its_claims_and_units() -> None:
    """report_units keys a parsed report's claims from a table of c1 ... c512 and makes the keys past it:
    the same units as from the view's claims (whose ids are made one by one)."""
    from graderctl.services.units import report_units

    text = "".join(f"Sales rose {i}% in {2000 + i % 20} [{i % 3 + 1}].\n" for i in range(600))
    text += "\nSources:\n1. https://a.org/x\n2. https://b.org/y\n3. doi:10.1000/z\n"
    view = report_view(Trial.model_validate(raw_trial("r1", text)))
    assert view.parsed is not None and len(view.parsed.claims) == 600
    units = report_units(view, None)
    made = report_units(msgspec.structs.replace(view, own_claims=view.claims), None)
    assert msgspec.to_builtins(units) == msgspec.to_builtins(made)
    assert [u.id for u in units.claim_units[511:514]] == ["claim:c512", "claim:c513", "claim:c514"]
    assert units.citation_units[-1].id == "citation:c600/3"
