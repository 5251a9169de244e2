"""Behaviours of the report parser that the corpus does not pin one by one."""

from __future__ import annotations

from graderctl.models.trials import Trial
from graderctl.parsing import parse_report
from graderctl.services.units import report_view


def pairs(text: str) -> list[tuple[str, str | None]]:
    report = parse_report(text)
    return [(c.text, x.source_id) for c in report.claims for x in c.citations]


def test_empty_and_blank_reports_have_nothing() -> None:
    for text in ("", "   \n\n  "):
        report = parse_report(text)
        assert report.claims == () and report.sources == () and report.uncited == ()


def test_quote_goes_to_the_citation_after_it() -> None:
    report = parse_report(
        'The agency said "prices will fall further" [1] while analysts saw "a slower decline ahead" [2].\n\n'
        "Sources:\n1. https://a.example/x\n2. https://b.example/y\n"
    )
    (claim,) = report.claims
    assert [(c.source_id, c.quote) for c in claim.citations] == [
        ("1", "prices will fall further"),
        ("2", "a slower decline ahead"),
    ]


def test_a_single_quoted_word_is_not_a_quote() -> None:
    report = parse_report('So-called "green" steel grew 5% in 2024 [1].\n\nSources:\n1. https://a.example/\n')
    assert report.claims[0].citations[0].quote is None


def test_code_blocks_are_not_read() -> None:
    text = (
        "Values rose 3% in 2024 [1].\n\n```python\nx = data[2]\nprint('https://not.a.source')\n```\n\n"
        "Sources:\n1. https://a.example/\n"
    )
    assert pairs(text) == [("Values rose 3% in 2024.", "1")]


def test_markers_without_a_list_are_missing_sources() -> None:
    report = parse_report("Sales rose 12% in 2024 [1]. Prices fell 3% [2, 3].")
    assert report.missing == [(0, "[1]"), (1, "[2]"), (1, "[3]")]


def test_year_in_parentheses_is_not_a_citation_without_a_reference_list() -> None:
    report = parse_report(
        "The pandemic year (2020) and Brazil (2021) saw large outbreaks of dengue in cities."
    )
    assert report.claims == ()
    assert len(report.uncited) == 1


def test_a_ranges_expands_and_a_long_range_is_read_as_its_ends() -> None:
    text = "Growth was broad [1-3] and deep [2–900].\n\nSources:\n" + "".join(
        f"{i}. https://s.example/{i}\n" for i in range(1, 4)
    )
    report = parse_report(text)
    assert [c.source_id for c in report.claims[0].citations] == ["1", "2", "3", None]
    assert report.missing == [(0, "[900]")]


def test_markers_resolve_to_structured_sources_by_number() -> None:
    trial = Trial.model_validate(
        {
            "task_id": "t",
            "trial_id": "t-1",
            "task": {"question": "q"},
            "report": {
                "text": "Sales rose 12% in 2024 [1].",
                "sources": [{"id": "s1", "url": "https://a.example/"}],
            },
        }
    )
    view = report_view(trial)
    assert view.origin == "text"
    assert [(c.text, c.citations[0].source_id) for c in view.claims] == [("Sales rose 12% in 2024.", "s1")]
    assert view.missing == []


def test_spans_point_into_the_original_text() -> None:
    text = "Intro line.\r\n**Sales** rose 12% in 2024 [1].\n\nSources:\n1. https://a.example/\n"
    claim = parse_report(text).claims[0]
    assert "Sales" in text[claim.start : claim.end] and "[1]" in text[claim.start : claim.end]


def test_a_link_to_a_malformed_bracketed_host_is_parsed_not_a_crash() -> None:
    parsed = parse_report("Sales rose to 5 million units in 2020, the agency said [a](http://[^1]).\n")
    assert len(parsed.claims) == 1
    (citation,) = parsed.claims[0].citations
    assert citation.marker == "http://[^1]"
