"""Exit codes are a public, append-only contract (CONTRACT.md §1)."""

from __future__ import annotations

from graderctl.errors import (
    ExitCode,
    GraderctlError,
    GraderRunError,
    InvalidInputError,
    PluginError,
    Problem,
    RefusedError,
    StatisticsError,
    UsageError,
)

#: Pinned: a code never changes meaning. New codes may be added; none of these may change or disappear.
PINNED = {
    "OK": 0,
    "NEGATIVE_VERDICT": 1,
    "USAGE_ERROR": 2,
    "INVALID_INPUT": 3,
    "GRADER_FAILED": 4,
    "REFUSED": 5,
    "INTERNAL_ERROR": 6,
    "INTERRUPTED": 130,
}


def test_exit_codes_are_pinned() -> None:
    for name, value in PINNED.items():
        assert ExitCode[name] == value, f"ExitCode.{name} changed meaning: exit codes are append-only"


def test_exit_codes_are_unique_and_documented() -> None:
    values = [int(c) for c in ExitCode]
    assert len(values) == len(set(values)), "two names for one exit code"
    assert set(PINNED.values()) <= set(values)


def test_each_error_maps_to_its_code() -> None:
    assert GraderctlError.exit_code == ExitCode.INTERNAL_ERROR
    assert UsageError.exit_code == ExitCode.USAGE_ERROR
    assert InvalidInputError.exit_code == ExitCode.INVALID_INPUT
    assert GraderRunError.exit_code == ExitCode.GRADER_FAILED
    assert RefusedError.exit_code == ExitCode.REFUSED
    assert PluginError.exit_code == ExitCode.INVALID_INPUT
    assert StatisticsError.exit_code == ExitCode.INVALID_INPUT
    assert issubclass(StatisticsError, ValueError)


def test_invalid_input_error_carries_every_problem() -> None:
    problems = [Problem(file="a", message="x"), Problem(file="b", message="y")]
    err = InvalidInputError("two", problems, omitted=3)
    assert err.problems == problems and err.omitted == 3
    assert InvalidInputError("none").problems == []


def test_problem_format_says_where_what_expected_got_and_fix() -> None:
    p = Problem(
        file="calibration_sets/x/samples.jsonl",
        line=12,
        pointer="/label",
        message="value not allowed",
        expected="'good' or 'bad'",
        got='a string "maybe"',
        fix="did you mean 'bad'?",
    )
    assert p.format() == (
        "calibration_sets/x/samples.jsonl:12: /label: value not allowed; expected 'good' or 'bad', "
        "got a string \"maybe\". Fix: did you mean 'bad'?"
    )
    assert Problem(file="f", message="m").format() == "f: m"
    assert p.to_dict()["line"] == 12 and p.to_dict()["pointer"] == "/label"
