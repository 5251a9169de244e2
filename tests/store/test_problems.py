"""Turning pydantic errors into problems a person can act on."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.calset import CoverageSample, SetManifest, SourceExistenceSample
from graderctl.models.results import GradedResult
from graderctl.store.problems import ProblemSink, pointer, problems_from_validation


def problems(model: type[BaseModel], value: dict[str, Any]) -> list[Problem]:
    import json

    with pytest.raises(ValidationError) as info:
        model.model_validate_json(json.dumps(value), strict=True)
    return problems_from_validation(info.value, file="f.jsonl", model=model, line=7)


SE = {"id": "a", "label": "good", "category": "c", "input": {"citation": {"source_id": "d"}}}


def test_pointer_escapes_per_rfc_6901() -> None:
    assert pointer(("a", 0, "b/c", "d~e")) == "/a/0/b~1c/d~0e"
    assert pointer(()) == ""


def test_nested_unknown_field_suggests_the_nearest_name() -> None:
    [p] = problems(SourceExistenceSample, {**SE, "input": {"citation": {"source_id": "d", "titel": "x"}}})
    assert p.pointer == "/input/citation/titel"
    assert p.fix == "did you mean 'title'?"
    assert p.line == 7 and p.file == "f.jsonl"
    assert "source_id, url, doi, title, quote" in (p.expected or "")


def test_unknown_field_far_from_any_name_lists_the_known_ones() -> None:
    [p] = problems(SourceExistenceSample, {**SE, "zzzzzz": 1})
    assert p.fix == "remove it, or correct its name"
    assert (p.expected or "").startswith("one of: id, label, category")


def test_enum_value_with_suggestion_and_allowed_values() -> None:
    [p] = problems(SourceExistenceSample, {**SE, "label": "goood"})
    assert (p.pointer, p.expected, p.got, p.fix) == (
        "/label",
        "'good' or 'bad'",
        'a string "goood"',
        "did you mean 'good'?",
    )


def test_literal_in_a_list_item() -> None:
    value = {
        "id": "a",
        "label": "bad",
        "category": "c",
        "input": {"nuggets": [{"text": "n", "importance": "high"}], "report": "r"},
    }
    [p] = problems(CoverageSample, value)
    assert p.pointer == "/input/nuggets/0/importance" and p.expected == "'vital' or 'okay'"


def test_model_validator_message_becomes_expected() -> None:
    [p] = problems(SourceExistenceSample, {**SE, "input": {"citation": {"title": "t"}}})
    assert p.pointer == "/input/citation"
    assert p.expected == "a citation needs at least one of source_id, url, doi"
    assert p.got == 'an object {"title": "t"}'
    assert "function-after" not in p.pointer


def test_bounds_and_types() -> None:
    value = {
        "name": "s",
        "version": 0,
        "check": "coverage",
        "policy": {"max_false_accept_rate": 2, "max_false_reject_rate": "0.1"},
    }
    by_ptr = {p.pointer: p for p in problems(SetManifest, value)}
    assert by_ptr["/version"].expected == "a number >= 1"
    assert by_ptr["/policy/max_false_accept_rate"].expected == "a number <= 1.0"
    assert by_ptr["/policy/max_false_reject_rate"].expected == "a number"
    assert by_ptr["/policy/max_false_reject_rate"].fix == "write 0.1 without quotes"


def test_pattern_is_explained() -> None:
    [p] = problems(
        SetManifest,
        {
            "name": "Bad Name",
            "version": 1,
            "check": "coverage",
            "policy": {"max_false_accept_rate": 0.1, "max_false_reject_rate": 0.1},
        },
    )
    assert p.pointer == "/name" and (p.expected or "").startswith("text matching ")


def test_dict_of_models_is_followed_for_suggestions() -> None:
    value = {
        "task_id": "t",
        "trial_id": "x",
        "success": True,
        "checks": {"claim_support": {"passed": True, "grader": "g", "fingerprint": "f", "units": "5"}},
    }
    [p] = problems(GradedResult, value)
    assert p.pointer == "/checks/claim_support/units"
    assert p.expected == "an integer" and p.fix == "write 5 without quotes"


def test_sink_caps_and_counts() -> None:
    sink = ProblemSink(cap=2)
    for i in range(5):
        sink.add(Problem(file="f", message=str(i)))
    assert [p.message for p in sink.problems] == ["0", "1"]
    assert sink.omitted == 3 and sink.count == 5 and bool(sink)
    with pytest.raises(InvalidInputError) as info:
        sink.raise_if_any("f")
    assert info.value.omitted == 3 and len(info.value.problems) == 2


def test_sink_absorbs_errors() -> None:
    sink = ProblemSink()
    sink.absorb(InvalidInputError("x", [Problem(file="a", message="m")], omitted=4))
    assert sink.count == 5
    sink.absorb(InvalidInputError("bare message"))
    assert sink.problems[-1].message == "bare message"
