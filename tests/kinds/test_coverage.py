"""The built-in ``coverage`` kind: nugget matching and report-level decisions."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tests.conftest import shared_data

from graderctl.kinds.coverage import (
    FEATURES,
    CoverageGrader,
    ReportIndex,
    clean_text,
    nugget_features,
    okay_needed,
    report_sentences,
)
from graderctl.models.calset import CoverageInput, SourceExistenceInput
from graderctl.plugin import Verdict

REPORT = (
    "Harriet Vance , 34 , won the coastal marathon on Sunday in two hours and 31 minutes . "
    "The race raised # 40,000 for the lifeboat charity -lrb- RNLI -rrb- . "
    "Organisers said about 7.5 million people watched the live stream . "
    "Cristiano Ronaldo did not take part this year ."
)

#: An original research-style report (ordinary text, numbers written in many ways) for paraphrase tests.
LAKE = (
    "In 2023 the Lake Verran monitoring programme sampled 48 sites around the lake. Roughly a third of the "
    "sites exceeded the phosphate limit, most of them near farmland. By the end of June, officials had "
    "closed 12 beaches to swimmers. Closed beaches lost only about 8% of their visitors, as most moved to "
    "open ones. Nine in ten residents said they supported the new buffer strips along the streams. The "
    "regional council expects the programme to cost about €4.2 million over five years. Algal blooms were "
    "rising in the northern basin."
)


def grade(nuggets: list[dict[str, str]], report: str = REPORT, **params: Any) -> Verdict:
    grader = CoverageGrader(CoverageGrader.Params(**params))
    [v] = grader.grade_batch([CoverageInput.model_validate({"nuggets": nuggets, "report": report})])
    return v


def matched(nugget: str, report: str = REPORT, **params: Any) -> bool:
    v = grade([{"text": nugget}], report, **params)
    assert v.details is not None
    return bool(v.details["nuggets"][0]["matched"])


@pytest.mark.parametrize(
    "nugget",
    [
        "Harriet Vance won the coastal marathon.",
        "Harriet Vance is 34 years old.",
        "The race raised 40,000 for charity.",
        "Almost 8 million people watched the stream.",  # both hedged: compared within 10%
        "Vance won the marathon.",  # a shorter form of the name
        "Harriet Vance wins coastal marathons.",  # inflections
        "Harriet Vance winning the coastal marathon.",  # "won" is a form of "win"
    ],
)
def test_present_nuggets_are_matched(nugget: str) -> None:
    assert matched(nugget)


@pytest.mark.parametrize(
    "nugget",
    [
        "Harriet Vance trains in Spain.",
        "The race raised 90,000 for charity.",  # a different number
        "Lindsay Sandiford fears the firing squad.",
        "The marathon was cancelled because of snow.",
    ],
)
def test_absent_nuggets_are_not_matched(nugget: str) -> None:
    assert not matched(nugget)


@pytest.mark.parametrize(
    "nugget",
    [
        "34% of the sampled sites exceeded the phosphate limit.",  # "roughly a third"
        "Officials closed 12 beaches by June 30, 2023.",  # "by the end of June"; the year is in the report
        "Closed beaches retained 92% of their visitors.",  # "lost only about 8%"
        "90% of residents supported the buffer strips.",  # "nine in ten"
        "The programme is expected to cost 4.2 million euros over five years.",
        "The monitoring programme sampled 48 sites in 2023.",
    ],
)
def test_paraphrased_quantities_are_matched(nugget: str) -> None:
    assert matched(nugget, LAKE)


@pytest.mark.parametrize(
    "nugget",
    [
        "Officials closed 21 beaches by the end of June.",  # digits swapped
        "The monitoring programme sampled 44 sites in 2023.",  # within 10%, but neither side is hedged
        "Officials closed 12 beaches by June 30, 2021.",  # a year is never approximate
        "Closed beaches lost 92% of their visitors.",  # 8% is the complement, but nothing says the opposite
        "The programme is expected to cost 6.5 million euros over five years.",
        "Half of the sites exceeded the phosphate limit.",  # "roughly a third" is not half
    ],
)
def test_wrong_numbers_are_rejected(nugget: str) -> None:
    assert not matched(nugget, LAKE)


def test_a_passage_saying_the_opposite_is_rejected_and_said_why() -> None:
    v = grade([{"text": "Algal blooms were falling in the northern basin."}], LAKE)
    assert v.accepted is False
    assert "the passage says the opposite: 'rise' for 'fall'" in v.reason
    assert matched("Algal blooms were rising in the northern basin.", LAKE)
    # off by parameter
    assert matched("Algal blooms were falling in the northern basin.", LAKE, reject_contradictions=False)


def test_report_level_decision_and_reason() -> None:
    v = grade(
        [
            {"text": "Harriet Vance won the coastal marathon.", "importance": "vital"},
            {"text": "The race raised 90,000 for charity.", "importance": "vital"},
        ]
    )
    assert v.accepted is False
    assert "1/2 vital nugget(s) matched" in v.reason
    assert "missing vital nugget “The race raised 90,000 for charity.”" in v.reason
    assert "closest: “The race raised #40,000 for the lifeboat charity (RNLI).”" in v.reason
    assert "number(s) 90,000 not stated (the passage gives #40,000)" in v.reason


def test_missing_terms_are_named() -> None:
    v = grade([{"text": "Harriet Vance trains in Spain."}])
    assert v.accepted is False
    assert "lacks 'trains', 'spain'" in v.reason


def test_okay_share_counts_down() -> None:
    assert [okay_needed(n, 0.5) for n in range(5)] == [0, 0, 1, 1, 2]
    assert okay_needed(10, 0.3) == 3 and okay_needed(3, 1.0) == 3 and okay_needed(3, 0.0) == 0
    vital = {"text": "Harriet Vance won the coastal marathon.", "importance": "vital"}
    present = {"text": "The race raised 40,000 for charity.", "importance": "okay"}
    absent = {"text": "Harriet Vance trains in Spain.", "importance": "okay"}
    absent2 = {"text": "The marathon was cancelled because of snow.", "importance": "okay"}
    # the default (0): okay nuggets are nice-to-have
    v = grade([vital, absent, absent2])
    assert v.accepted is True and "0/2 okay (0 needed)" in v.reason
    assert "missing okay: “Harriet Vance trains in Spain.”" in v.reason
    # share 0.5 with one okay nugget: none needed, so its absence passes ...
    assert grade([vital, absent], min_okay_share=0.5).accepted is True
    # ... with two: one needed
    assert grade([vital, present, absent], min_okay_share=0.5).accepted is True
    v = grade([vital, absent, absent2], min_okay_share=0.5)
    assert v.accepted is False and "0/2 okay (1 needed)" in v.reason
    assert "missing okay nugget “Harriet Vance trains in Spain.”" in v.reason
    # a missing vital nugget is never made up for by okay ones
    assert grade([absent | {"importance": "vital"}, present]).accepted is False


def test_empty_report_is_rejected_and_wrong_input_is_an_error() -> None:
    assert grade([{"text": "Anything."}], report="  ").accepted is False
    grader = CoverageGrader(CoverageGrader.Params())
    wrong = SourceExistenceInput.model_validate({"citation": {"source_id": "x"}})
    ok = CoverageInput.model_validate({"nuggets": [{"text": "Vance won."}], "report": REPORT})
    verdicts = grader.grade_batch([ok, wrong, ok])
    assert [v.accepted for v in verdicts] == [True, None, True]
    assert verdicts[0].reason == verdicts[2].reason


def test_clean_text_undoes_news_tokenisation() -> None:
    cleaned = clean_text("the rnli -lrb- lifeboats -rrb- said he 's fine , with ( £ 9.90 ) self - esteem")
    assert cleaned == "the rnli (lifeboats) said he's fine, with (£9.90) self-esteem"
    assert "23 million" in clean_text("a deal worth # 23million")
    assert clean_text("spent £ 7 , 500 on a transplant") == "spent £7,500 on a transplant"
    assert clean_text("more than 35 000 deaths") == "more than 35,000 deaths"
    assert clean_text("smuggling # 1.6 m of cocaine") == "smuggling #1.6m of cocaine"
    assert clean_text("on April 25 , 2014") == "on April 25, 2014"  # not a number with thousands


def test_lower_cased_tokenised_reports_are_split_into_sentences() -> None:
    text = "harriet vance won on sunday . she said ' no . ' the u.s. team came second ."
    assert report_sentences(text) == [
        "harriet vance won on sunday.",
        "she said ' no.",
        "' the u.s. team came second.",
    ]
    assert report_sentences("Sales rose 21% (about 2.3 million units) [1]. Germany fell.") == [
        "Sales rose 21% (about 2.3 million units) [1].",
        "Germany fell.",
    ]


def test_pronouns_and_descriptions_refer_back_to_a_name() -> None:
    report = (
        "Ben Flower does not believe he deserved the ovation on Thursday night. The Wales forward made his "
        "first appearance since the final. The 27-year-old came on as a substitute in the 23rd minute."
    )
    assert matched("Ben Flower is 27 years old.", report)  # the number is in "the 27-year-old" sentence
    assert matched("Ben Flower came on as a substitute.", report)
    assert not matched("Ben Flower is 29 years old.", report)


def test_slash_alternatives_stand_for_each_other() -> None:
    report = "The singer was stopped at the artists' entrance by security staff."
    assert matched("Security stopped singer/Bieber at the entrance.", report)
    assert matched("Security stopped Justin Bieber / the singer at the entrance.", report)
    m = nugget_features("Security stopped singer/Bieber at the entrance.", ReportIndex.build(report))
    assert m.missing_names == [] and m.features["content_recall_window"] == 1.0


def test_acronyms_match_their_spelled_out_form() -> None:
    report = "The average sea surface temperature reached a record in June. She said it was unusual."
    assert matched("Average SST reached a record in June.", report)
    m = nugget_features("The average SSTs reached a record in June.", ReportIndex.build(report))
    assert m.missing_terms == []
    # two letters are too ambiguous ("She said" is no "SD")
    m = nugget_features("The SD reached a record in June.", ReportIndex.build(report))
    assert m.missing_terms == ["sd"]


def test_key_terms_are_required_unless_switched_off() -> None:
    # names weigh in the model; the hard name gate is opt-in
    v = grade([{"text": "Harriet Mulls won the coastal marathon."}], require_names=True)
    assert v.accepted is False, v.reason
    assert "name(s) 'Harriet Mulls' not in the report" in v.reason
    assert grade([{"text": "The race raised about 41,000 for the lifeboat charity."}]).accepted is True
    nugget = [{"text": "The race raised 41,000 for the lifeboat charity."}]
    assert grade(nugget).accepted is False  # exact unless hedged: 41,000 is not 40,000
    v = grade(nugget, require_numbers=False)
    assert v.details is not None and v.details["nuggets"][0]["missing_numbers"] == ["41,000"]


def test_features_are_complete_and_bounded() -> None:
    m = nugget_features("The race raised 40,000 for charity.", ReportIndex.build(REPORT))
    assert set(m.features) == set(FEATURES)
    for name in (
        "content_recall_window",
        "content_recall_report",
        "name_recall",
        "number_recall",
        "nonname_recall_window",
    ):
        assert 0.0 <= m.features[name] <= 1.0


def test_params_are_validated() -> None:
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"weights": {"no_such_feature": 1.0}})
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"scales": {"name_recall": 0.0}})
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"treshold": 0.5})
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"min_okay_share": 1.5})


def test_shipped_definition_is_the_default_model(repo_root: Path) -> None:
    data = tomllib.loads((repo_root / "graders/coverage/v1.toml").read_text())
    assert CoverageGrader.Params.model_validate(data["params"]) == CoverageGrader.Params()


def test_on_realsumm_dev_sample() -> None:
    """The fitted model separates present from absent nuggets on (a tenth of) the real dev data: measured
    0.770 balanced accuracy on this sample (in-sample for the fit: the CV figures, 0.767 +- 0.023, come from
    benchmarks/fit_coverage.py)."""
    from graderctl.services.importers import build_set

    samples = build_set("realsumm", shared_data("realsumm")).samples[::10]
    grader = CoverageGrader(CoverageGrader.Params())
    verdicts = grader.grade_batch([s.input for s in samples])
    good = [v.accepted for s, v in zip(samples, verdicts, strict=True) if s.label == "good"]
    bad = [v.accepted for s, v in zip(samples, verdicts, strict=True) if s.label == "bad"]
    balanced = (sum(good) / len(good) + (len(bad) - sum(bad)) / len(bad)) / 2
    assert balanced > 0.75, balanced
