"""``calibrate --repeats``: the summary of several runs and the repeat-keyed cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graderctl.errors import UsageError
from graderctl.models.calset import ClaimSupportSample
from graderctl.models.repeats import RepeatsSection
from graderctl.plugin import Usage, Verdict
from graderctl.render._fmt import repeats_line
from graderctl.services.repeats import _RepeatCache, check_repeats, summarize_repeats
from graderctl.store.cache import VerdictCache

A, R, E = Verdict.accept("a"), Verdict.reject("r"), Verdict.failed("boom")


def summary(s: list[ClaimSupportSample], runs: list[list[Verdict]]) -> dict[str, Any]:
    """The section as written in the report (and valid against its model)."""
    section = summarize_repeats(s, runs)
    assert RepeatsSection.model_validate(section.model_dump()) == section
    return section.model_dump()


def describe_repeats(section: dict[str, Any]) -> str:
    return repeats_line(RepeatsSection.model_validate(section))


def samples(labels: str) -> list[ClaimSupportSample]:
    return [
        ClaimSupportSample.model_validate(
            {
                "id": f"s{i}",
                "label": "good" if c == "g" else "bad",
                "category": "c",
                "input": {"claim": "x", "evidence": [{"text": "y"}]},
            }
        )
        for i, c in enumerate(labels)
    ]


def test_summary_counts_flips_rates_and_ignores_errors() -> None:
    s = samples("ggbb")
    runs = [
        [A, A, R, R],
        [A, R, R, E],  # s1 flips; s3 erred once
        [A, A, A, R],  # s2 flips
    ]
    out = summary(s, runs)
    assert out["r"] == 3 and out["n"] == 4 and out["flipped"] == 2
    assert out["self_consistency"] == 0.5 and out["consistent_share"] == 0.5
    assert [f["id"] for f in out["flipped_samples"]] == ["s1", "s2"]
    assert out["flipped_samples"][0]["outcomes"] == [True, False, True]
    assert [p["false_reject_rate"]["count"] for p in out["per_repeat"]] == [0, 1, 0]
    assert [p["false_accept_rate"]["count"] for p in out["per_repeat"]] == [0, 0, 1]
    assert [p["false_accept_rate"]["n"] for p in out["per_repeat"]] == [2, 1, 2]
    assert [p["errors"] for p in out["per_repeat"]] == [0, 1, 0]
    assert "2 of 4 samples" in describe_repeats(out)


def test_a_sample_decided_once_is_not_counted() -> None:
    s = samples("gb")
    out = summary(s, [[A, E], [E, E]])
    assert out["n"] == 0 and out["self_consistency"] is None and out["flipped_samples"] == []
    assert "undefined" in describe_repeats(out)


def test_consistent_grader_on_two_samples_is_inconclusive() -> None:
    # issue 11 item 18: 0 flips out of 2 cannot support "consistent" (the 90% bound is far above 5%)
    s = samples("gb")
    out = summary(s, [[A, R]] * 4)
    assert out["self_consistency"] == 0.0 and out["r"] == 4
    assert out["outcome"] == "inconclusive"
    assert out["flipped_ci"]["high"] > out["margin"] == 0.05
    line = describe_repeats(out)
    assert "inconclusive" in line and "consistent:" not in line


def test_one_usable_sample_is_inconclusive() -> None:
    out = summary(samples("gb"), [[A, E], [A, E]])
    assert out["n"] == 1 and out["outcome"] == "inconclusive"
    assert "inconclusive" in describe_repeats(out)


def test_consistent_on_enough_samples() -> None:
    # hand-computed: Wilson 90% upper bound of 0/n is z^2/(n + z^2) = 2.7055/(n + 2.7055): 0.0494 at n = 52
    s = samples("gb" * 26)
    out = summary(s, [[A, R] * 26] * 3)
    assert out["n"] == 52 and out["outcome"] == "consistent"
    assert out["flipped_ci"]["high"] == pytest.approx(2.705543 / (52 + 2.705543), abs=1e-6)
    assert "; consistent:" in describe_repeats(out)
    fewer = summary(samples("gb" * 25 + "g"), [[A, R] * 25 + [A]] * 3)
    assert fewer["n"] == 51 and fewer["outcome"] == "inconclusive"


def test_inconsistent_grader() -> None:
    s = samples("gb" * 10)
    flip = [A, R] * 10
    other = [R, A] * 5 + [A, R] * 5
    out = summary(s, [flip, other])
    assert out["flipped"] == 10 and out["outcome"] == "inconsistent"
    assert "INCONSISTENT" in describe_repeats(out)


def test_bad_shapes_and_counts() -> None:
    with pytest.raises(ValueError):
        summarize_repeats(samples("g"), [])
    with pytest.raises(ValueError):
        summarize_repeats(samples("gb"), [[A]])
    for bad in (0, 101):
        with pytest.raises(UsageError):
            check_repeats(bad)
    check_repeats(1)


def test_each_repeat_has_its_own_cache_entries(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, "sha256:" + "0" * 64)
    first, second = _RepeatCache(cache, 1), _RepeatCache(cache, 2)
    v = Verdict.accept("ok", usage=Usage(input_tokens=3))
    first.put({"p": 1}, v)
    assert first.get({"p": 1}) is not None
    assert second.get({"p": 1}) is None
    assert cache.get({"p": 1}) is None  # repeat 0, the ordinary run
    assert cache.get({"p": 1}, repeat=1) is not None
