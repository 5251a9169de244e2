"""The built-in ``coverage`` kind: nugget matching and report-level decisions."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tests.conftest import shared_data

from graderctl.kinds.coverage import FEATURES, CoverageGrader, ReportIndex, clean_text, nugget_features
from graderctl.models.calset import CoverageInput, SourceExistenceInput
from graderctl.plugin import Verdict

REPORT = (
    "Harriet Vance , 34 , won the coastal marathon on Sunday in two hours and 31 minutes . "
    "The race raised # 40,000 for the lifeboat charity -lrb- RNLI -rrb- . "
    "Organisers said about 7.5 million people watched the live stream . "
    "Cristiano Ronaldo did not take part this year ."
)


def grade(nuggets: list[dict[str, str]], report: str = REPORT, **params: Any) -> Verdict:
    grader = CoverageGrader(CoverageGrader.Params(**params))
    [v] = grader.grade_batch([CoverageInput.model_validate({"nuggets": nuggets, "report": report})])
    return v


def matched(nugget: str, report: str = REPORT) -> bool:
    v = grade([{"text": nugget}], report)
    assert v.details is not None
    return bool(v.details["nuggets"][0]["matched"])


@pytest.mark.parametrize(
    "nugget",
    [
        "Harriet Vance won the coastal marathon.",
        "Harriet Vance is 34 years old.",
        "The race raised 40,000 for charity.",
        "Almost 8 million people watched the stream.",  # numbers compared approximately
        "Vance won the marathon.",  # a shorter form of the name
        "Harriet Vance wins coastal marathons.",  # inflections
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
    assert "closest: “The race raised # 40,000 for the lifeboat charity ( RNLI ) .”" in v.reason
    assert "number(s) 90,000 not in the report" in v.reason


def test_missing_terms_are_named() -> None:
    v = grade([{"text": "Harriet Vance trains in Spain."}])
    assert v.accepted is False
    assert "lacks 'trains', 'spain'" in v.reason


def test_okay_nuggets_need_a_share() -> None:
    nuggets = [
        {"text": "Harriet Vance won the coastal marathon.", "importance": "vital"},
        {"text": "The race raised 40,000 for charity.", "importance": "okay"},
        {"text": "Harriet Vance trains in Spain.", "importance": "okay"},
        {"text": "The marathon was cancelled because of snow.", "importance": "okay"},
    ]
    v = grade(nuggets)
    assert v.accepted is False and "1/3 okay" in v.reason
    assert grade(nuggets, min_okay_share=0.3).accepted is True
    assert grade(nuggets[:2]).accepted is True


def test_empty_report_is_rejected_and_wrong_input_is_an_error() -> None:
    assert grade([{"text": "Anything."}], report="  ").accepted is False
    grader = CoverageGrader(CoverageGrader.Params())
    wrong = SourceExistenceInput.model_validate({"citation": {"source_id": "x"}})
    ok = CoverageInput.model_validate({"nuggets": [{"text": "Vance won."}], "report": REPORT})
    verdicts = grader.grade_batch([ok, wrong, ok])
    assert [v.accepted for v in verdicts] == [True, None, True]
    assert verdicts[0].reason == verdicts[2].reason


def test_clean_text_undoes_news_tokenisation() -> None:
    cleaned = clean_text("the rnli -lrb- lifeboats -rrb- said he 's fine")
    assert "-lrb-" not in cleaned and "(" in cleaned and "he's" in cleaned
    assert "23 million" in clean_text("a deal worth # 23million")


def test_key_terms_are_required_unless_switched_off() -> None:
    # names weigh in the model; the hard name gate is opt-in
    v = grade([{"text": "Harriet Mulls won the coastal marathon."}], require_names=True)
    assert v.accepted is False, v.reason
    assert "name(s) 'harriet mull' not in the report" in v.reason
    nugget = [{"text": "The race raised 41,000 for the lifeboat charity."}]
    assert grade(nugget).accepted is True  # approximately the same number
    nugget = [{"text": "The race raised 90,000 for the lifeboat charity."}]
    assert grade(nugget).accepted is False
    v = grade(nugget, require_numbers=False)
    assert v.details is not None and v.details["nuggets"][0]["missing_numbers"] == ["90,000"]


def test_features_are_complete_and_bounded() -> None:
    m = nugget_features("The race raised 40,000 for charity.", ReportIndex.build(REPORT))
    assert set(m.features) == set(FEATURES)
    for name in ("content_recall_window", "content_recall_report", "name_recall", "number_recall"):
        assert 0.0 <= m.features[name] <= 1.0


def test_params_are_validated() -> None:
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"weights": {"no_such_feature": 1.0}})
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"scales": {"name_recall": 0.0}})
    with pytest.raises(ValidationError):
        CoverageGrader.Params.model_validate({"treshold": 0.5})


def test_shipped_definition_is_the_default_model(repo_root: Path) -> None:
    data = tomllib.loads((repo_root / "graders/coverage/v1.toml").read_text())
    assert CoverageGrader.Params.model_validate(data["params"]) == CoverageGrader.Params()


def test_on_realsumm_dev_sample() -> None:
    """The fitted model separates present from absent nuggets on (a sample of) the real dev data; the CV
    figures come from benchmarks/fit_coverage.py."""
    from graderctl.services.importers import build_set

    samples = build_set("realsumm", shared_data("realsumm")).samples[::10]
    grader = CoverageGrader(CoverageGrader.Params())
    verdicts = grader.grade_batch([s.input for s in samples])
    good = [v.accepted for s, v in zip(samples, verdicts, strict=True) if s.label == "good"]
    bad = [v.accepted for s, v in zip(samples, verdicts, strict=True) if s.label == "bad"]
    balanced = (sum(good) / len(good) + (len(bad) - sum(bad)) / len(bad)) / 2
    assert balanced > 0.72, balanced
