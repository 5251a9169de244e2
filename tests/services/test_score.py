from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.data.score.fake_kind import (
    HERE,
    ensure_registered,
    make_project,
    write_grader,
    write_set,
)

from graderctl.errors import GraderRunError, InvalidInputError, RefusedError, UsageError
from graderctl.models.results import GradedResult
from graderctl.models.trials import Trial
from graderctl.plugin import Corpus
from graderctl.services import score as score_service
from graderctl.services.score import (
    ScoreOptions,
    citation_units,
    claim_units,
    coverage_unit,
    partial_path,
    score_trials,
)
from graderctl.stats import self_preference
from graderctl.store import schemas


@pytest.fixture(autouse=True)
def _kind() -> None:
    ensure_registered()


def load_trials() -> list[Trial]:
    return [Trial.model_validate_json(line) for line in (HERE / "trials.jsonl").read_text().splitlines()]


def trial(trial_id: str) -> Trial:
    return next(t for t in load_trials() if t.trial_id == trial_id)


def corpus() -> Corpus:
    from graderctl.models.calset import CorpusDocument

    return Corpus(
        [CorpusDocument.model_validate_json(x) for x in (HERE / "corpus.jsonl").read_text().splitlines()]
    )


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def by_trial(path: Path) -> dict[str, dict[str, Any]]:
    return {line["trial_id"]: line for line in read_lines(path)}


# --- units ----------------------------------------------------------------------------------------


def test_citation_units_resolve_sources_and_catch_fabricated_ones() -> None:
    units = citation_units(trial("heat-1"))
    assert [u.id for u in units] == ["citation:c1/s1", "citation:c2/s2"]
    first = units[0].input
    assert first is not None and first.citation.url == "https://iea.org/reports/heat-pumps-2024/"
    assert first.citation.quote == "fell 21% in 2024"
    units = citation_units(trial("heat-2"))
    fabricated = units[1]
    assert fabricated.id == "citation:c2/s9" and fabricated.input is None
    assert "not in the report's sources" in (fabricated.failure or "")


def test_citation_of_a_source_without_url_or_doi_uses_its_id() -> None:
    t = trial("heat-1").model_copy(deep=True)
    t.report.sources[0].url = None
    unit = citation_units(t)[0]
    assert unit.input is not None and unit.input.citation.source_id == "s1"


def test_claim_units_resolve_evidence_to_corpus_documents_or_captured_text() -> None:
    units = claim_units(trial("heat-1"), corpus())
    assert [u.id for u in units] == ["claim:c1", "claim:c2"]
    assert [e.source_id for e in units[0].input.evidence] == ["doc-heat"]  # type: ignore[union-attr]
    assert [e.source_id for e in units[1].input.evidence] == ["doc-batt"]  # type: ignore[union-attr]
    captured = claim_units(trial("batt-2"), corpus())[0].input
    assert captured is not None and captured.evidence[0].text == "Packs fell to 115 dollars per kWh."


def test_claims_without_evidence_fail_with_the_reason() -> None:
    units = claim_units(trial("misc-1"), corpus())
    assert units[0].failure == "the claim cites no source, so nothing supports it"
    assert "s1 (not in the corpus, and the agent captured no text of it)" in (units[1].failure or "")
    no_corpus = claim_units(trial("misc-1"), None)[1]
    assert "no corpus given" in (no_corpus.failure or "")
    fabricated = claim_units(trial("heat-2"), corpus())[1]
    assert "s9 (not in the report's sources)" in (fabricated.failure or "")


def test_coverage_unit_is_skipped_without_nuggets() -> None:
    assert coverage_unit(trial("misc-1")) is None
    unit = coverage_unit(trial("heat-1"))
    assert unit is not None and unit.input is not None and len(unit.input.nuggets) == 2


# --- a full run -----------------------------------------------------------------------------------


def run_score(root: Path, trials: Path, **kw: Any) -> tuple[score_service.ScoreOutcome, Path]:
    output = kw.pop("output", root / "out" / "results.jsonl")
    outcome = score_trials(ScoreOptions(output=output, trials=trials, **kw), root=root)
    return outcome, output


def test_score_end_to_end_with_trusted_graders(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    outcome, output = run_score(tmp_path, trials)
    assert not partial_path(output).exists()
    lines = by_trial(output)
    for line in lines.values():
        GradedResult.model_validate(line)
        assert line["rule"] == {
            "require": ["source_existence", "claim_support", "coverage"],
            "combine": "all",
        }
        assert line["trials_file"] == "runs/trials.jsonl"
        assert line["corpus_file"] == "runs/corpus.jsonl"  # found beside the trials
        assert "untrusted" not in line
        for check in line["checks"].values():
            assert check["fingerprint"].startswith("sha256:") and check["trusted"] is True
            assert check["calibration"] and check["calibration"][0].startswith("reports/")
    assert lines["heat-1"]["success"] is True
    assert lines["heat-1"]["checks"]["source_existence"]["units"] == 2
    assert lines["heat-1"]["checks"]["coverage"]["units"] == 2
    assert lines["heat-1"]["stop_reason"] == "completed" and lines["heat-1"]["cost"]["usd"] == 0.02

    heat2 = lines["heat-2"]
    assert heat2["success"] is False
    assert heat2["checks"]["source_existence"]["failed_units"] == ["citation:c2/s9"]
    assert heat2["checks"]["source_existence"]["reasons"][0].startswith("citation:c2/s9: cites source 's9'")
    assert heat2["checks"]["claim_support"]["failed_units"] == ["claim:c2"]
    assert heat2["checks"]["coverage"]["passed"] is True

    batt1 = lines["batt-1"]
    assert batt1["checks"]["claim_support"]["failed_units"] == ["claim:c2"]
    assert batt1["checks"]["claim_support"]["reasons"][0].startswith("claim:c2: holds 'BAD'")
    assert batt1["checks"]["coverage"]["failed_units"] == ["nugget:2"]
    assert batt1["checks"]["coverage"]["reasons"][0].startswith('nugget:2: missing vital nugget "lithium"')

    batt2 = lines["batt-2"]
    assert batt2["success"] is None
    assert batt2["checks"]["claim_support"]["passed"] is None
    assert batt2["checks"]["claim_support"]["errors"] == 1
    assert "claim_support could not be graded" in batt2["reason"]

    misc = lines["misc-1"]
    assert misc["success"] is False
    assert "coverage" not in misc["checks"]
    assert misc["skipped_checks"]["coverage"]["why"] == "the task has no nuggets"
    assert misc["skipped_checks"]["coverage"]["fingerprint"].startswith("sha256:")
    assert misc["checks"]["claim_support"]["failed_units"] == ["claim:c1", "claim:c2"]

    assert (outcome.successes, outcome.failures, outcome.null) == (1, 3, 1)
    assert outcome.errors_by_check == {"claim_support": 1}


def test_results_feed_metrics(tmp_path: Path) -> None:
    from graderctl.services.metrics import compute_metrics

    trials, _ = make_project(tmp_path)
    _, output = run_score(tmp_path, trials)
    doc = compute_metrics(output, root=tmp_path).document.model_dump()
    assert doc["null_trials"]["count"] == 1
    assert doc["failures_by_check"]["claim_support"]["failed"] == 3
    assert doc["grader_error_correction"]["applied"] is True  # reports found by fingerprint


def test_require_subset_is_recorded_and_decides(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    _, output = run_score(tmp_path, trials, require=["coverage"])
    lines = by_trial(output)
    assert lines["heat-2"]["success"] is True  # only coverage decides
    assert lines["heat-2"]["rule"]["require"] == ["coverage"]
    assert lines["misc-1"]["success"] is None  # no required check applies
    assert "coverage skipped" in lines["misc-1"]["reason"]


def test_require_of_an_unconfigured_check_is_usage_error(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    with pytest.raises(UsageError, match="--require"):
        run_score(tmp_path, trials, graders=["cs-fake@1"], checks=["claim_support"], require=["coverage"])


# --- trust gate -----------------------------------------------------------------------------------


def test_uncalibrated_grader_is_refused(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    with pytest.raises(RefusedError) as info:
        run_score(tmp_path, trials, graders=["cs-fake@1"])
    text = str(info.value)
    assert "cs-fake@1" in text and "never_calibrated" in text and "claim-support-test" in text
    assert not (tmp_path / "out").exists()


def test_stale_calibration_is_refused(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    # edit the released definition: its fingerprint changes and the calibration no longer holds
    write_grader(tmp_path, "cs-fake", "claim_support", reject_word="WORSE")
    with pytest.raises(RefusedError, match="stale"):
        run_score(tmp_path, trials, graders=["cs-fake@1"])


def test_allow_untrusted_marks_every_result(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    outcome, output = run_score(
        tmp_path, trials, graders=["cs-fake@1"], checks=["claim_support"], allow_untrusted=True
    )
    assert outcome.untrusted == ["cs-fake@1"]
    for line in read_lines(output):
        assert line["untrusted"] == ["cs-fake@1"]
        assert line["checks"]["claim_support"]["trusted"] is False
        assert "never_calibrated" in line["checks"]["claim_support"]["trust"]


def test_several_graders_of_one_check_need_grader_option(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "cs-other", "claim_support")
    with pytest.raises(UsageError, match="--grader"):
        run_score(tmp_path, trials)


def test_grader_replaces_the_grader_of_its_check_only(tmp_path: Path) -> None:
    """Issue 11, item 16: ``--grader REF`` replaces the grader of REF's check; the other checks keep their
    default graders (it used to drop them: only REF's check was graded)."""
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "cs-other", "claim_support")  # two graders of claim_support: --grader chooses
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-other@1", root=tmp_path)
    outcome, output = run_score(tmp_path, trials, graders=["cs-other@1"])
    used = {g["check"]: g["grader"] for g in outcome.model_dump(mode="json")["graders"]}
    assert used == {"source_existence": "se-fake@1", "claim_support": "cs-other@1", "coverage": "cov-fake@1"}
    for line in read_lines(output):
        assert set(line["checks"]) <= set(used) and line["checks"]["claim_support"]["grader"] == "cs-other@1"
    assert outcome.model_dump(mode="json")["rule"]["require"] == [
        "source_existence",
        "claim_support",
        "coverage",
    ]


def test_check_scores_only_the_checks_named(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    outcome, output = run_score(tmp_path, trials, checks=["coverage", "source_existence"])
    assert [g["grader"] for g in outcome.model_dump(mode="json")["graders"]] == ["se-fake@1", "cov-fake@1"]
    assert outcome.model_dump(mode="json")["rule"]["require"] == ["source_existence", "coverage"]
    for line in read_lines(output):
        assert "claim_support" not in line["checks"]
    # a --check narrows the defaults only: another check's ambiguity does not matter then
    write_grader(tmp_path, "cs-other", "claim_support")
    outcome, _ = run_score(tmp_path, trials, checks=["coverage"], output=tmp_path / "cov.jsonl")
    assert [g["grader"] for g in outcome.model_dump(mode="json")["graders"]] == ["cov-fake@1"]


def test_grader_outside_the_checks_named_is_a_usage_error(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    with pytest.raises(UsageError, match="--check leaves out"):
        run_score(tmp_path, trials, graders=["cs-fake@1"], checks=["coverage"])


def test_check_without_a_grader_is_a_usage_error(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    (tmp_path / "graders" / "cov-fake" / "v1.toml").unlink()
    with pytest.raises(UsageError, match="--check coverage: no grader of this check"):
        run_score(tmp_path, trials, checks=["coverage"])


# --- self-grading guard ---------------------------------------------------------------------------


def _judge_project(
    root: Path, *, own_family_far: int = 0, own_n: int = 4, other_far: int = 2, other_n: int = 8
) -> Path:
    """A claim-support grader judged by openai/gpt-4o, calibrated on a set whose bad samples name their
    generators; trials generated by gpt-4o-2024-08-06."""
    trials, _ = make_project(root)
    write_grader(root, "cs-judge", "claim_support", judge=("gpt-4o", "openai"))
    own = [("bad", i < own_family_far) for i in range(own_n)]
    other = [("bad", i < other_far) for i in range(other_n)]
    write_set(root, "claim_support", generators={"gpt-4o-mini": own, "claude-3-5-sonnet-20241022": other})
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-judge@1", root=root)
    generated = root / "runs" / "gpt4o-trials.jsonl"
    rows = [json.loads(x) for x in trials.read_text().splitlines()]
    for row in rows:
        row["generator"] = {"model": "gpt-4o-2024-08-06", "provider": "openai"}
    generated.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return generated


def test_self_grading_is_refused(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path)
    with pytest.raises(RefusedError) as info:
        run_score(tmp_path, trials, graders=["cs-judge@1"])
    text = str(info.value)
    assert "self-grading" in text and "cs-judge@1" in text
    assert "gpt-4o-2024-08-06" in text and "both are gpt-4o" in text


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("openai:gpt-4o", None),
        ("gpt\u20104o", "openai"),
        ("\uff47\uff50\uff54\uff0d\uff14\uff4f", None),
        ("gpt_4o", None),
        ("gpt\u200b-4o-2024-08-06", "azure"),
    ],
    ids=ascii,
)
def test_self_grading_is_refused_whatever_the_spelling(
    tmp_path: Path, model: str, provider: str | None
) -> None:
    trials = _judge_project(tmp_path)
    rows = [json.loads(x) for x in trials.read_text().splitlines()]
    for row in rows:
        row["generator"] = {"model": model, **({"provider": provider} if provider else {})}
    trials.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(RefusedError, match="self-grading"):
        run_score(tmp_path, trials, graders=["cs-judge@1"])


def test_an_uncalibrated_self_grading_judge_is_refused_for_both_reasons(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path)
    write_grader(tmp_path, "cs-judge", "claim_support", version=2, judge=("openai/gpt-4o", "openai"))
    with pytest.raises(RefusedError) as info:
        run_score(tmp_path, trials, graders=["cs-judge@2"])
    text = str(info.value)
    assert "never calibrated" in text or "stale" in text
    assert "self-grading" in text and "cs-judge@2" in text


def test_self_grading_override_needs_a_reason(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path)
    with pytest.raises(UsageError, match="--reason"):
        run_score(tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True)


def test_self_grading_override_with_evidence_is_recorded_in_every_line(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path, own_family_far=0, own_n=60, other_far=2, other_n=60)
    _, output = run_score(
        tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True, reason="no other judge available"
    )
    lines = read_lines(output)
    assert lines
    for line in lines:
        record = line["self_grading"]
        assert record["override"] is True and record["reason"] == "no other judge available"
        evidence = record["graders"]["cs-judge@1"]["evidence"]
        assert evidence["allowed"] is True
        assert evidence["own_family"]["n"] == 60 and evidence["own_family"]["false_accepts"] == 0
        assert evidence["other_families"]["n"] == 60 and evidence["other_families"]["false_accepts"] == 2
        assert evidence["comparison"]["outcome"] == "no_bias"
        assert evidence["comparison"]["ci_high"] <= evidence["comparison"]["margin"] == 0.05
        assert evidence["bad_samples_without_generator"] == 6  # the set's own bad samples (write_set n=6)
        assert evidence["reports"] == ["reports/claim-support-test/cs-judge@1.json"]
        assert record["graders"]["cs-judge@1"]["matches"][0]["relation"] == "same_model"
        # the statistic and the identities, written field for field (built as models, not via dicts)
        assert evidence["comparison"] == self_preference(0, 60, 2, 60).to_dict()
        match = record["graders"]["cs-judge@1"]["matches"][0]
        assert list(match) == ["relation", "judge", "generator", "trials"] and match["trials"] >= 1
        assert list(match["judge"]) == list(evidence["judge"]) == ["model", "provider", "canonical", "family"]
        assert not [e.message for e in schemas.validator("graded-result").iter_errors(line)]


def test_self_grading_override_refused_on_one_of_two_own_family_samples(tmp_path: Path) -> None:
    # issue 11 item 7: accepted before, on 1 false accept out of 2 own-family bad answers
    trials = _judge_project(tmp_path, own_family_far=1, own_n=2)
    with pytest.raises(RefusedError, match=r"too few known-bad samples.*at least 30 of each"):
        run_score(tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True, reason="x")


def test_self_grading_override_refused_when_a_rise_cannot_be_ruled_out(tmp_path: Path) -> None:
    # enough samples, but 2/30 vs 0/30: the interval reaches well above the 0.05 margin
    trials = _judge_project(tmp_path, own_family_far=2, own_n=30, other_far=0, other_n=30)
    with pytest.raises(RefusedError, match="cannot rule out"):
        run_score(tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True, reason="x")


def test_self_grading_override_refused_without_own_family_evidence(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path, own_n=0)
    with pytest.raises(RefusedError, match="no known-bad sample generated by the judge's family"):
        run_score(tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True, reason="x")


def test_self_grading_override_refused_when_judge_favours_its_family(tmp_path: Path) -> None:
    trials = _judge_project(tmp_path, own_family_far=4)
    with pytest.raises(RefusedError, match=r"more lenient on its own family: false accept rate 1\.000"):
        run_score(tmp_path, trials, graders=["cs-judge@1"], allow_self_grading=True, reason="x")


def test_user_family_map_extends_the_guard(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    write_grader(tmp_path, "cs-judge", "claim_support", judge=("house-judge-v3", "acme"))
    (tmp_path / "model_families.toml").write_text(
        'schema_version = 1\n[families]\nacme = ["house-*", "claude-3-5-*"]\n'
    )
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-judge@1", root=tmp_path)
    with pytest.raises(RefusedError, match="same family acme"):
        run_score(tmp_path, trials, graders=["cs-judge@1"])


# --- resume and interruption ----------------------------------------------------------------------


def test_interrupted_run_resumes_without_regrading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trials, _ = make_project(tmp_path)
    _, reference = run_score(tmp_path, trials, output=tmp_path / "ref.jsonl")

    calls: list[int] = []
    real = score_service._grade_chunk

    def flaky(chunk: Any, *args: Any) -> Any:
        calls.append(len(chunk))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(chunk, *args)

    monkeypatch.setattr(score_service, "_grade_chunk", flaky)
    output = tmp_path / "out.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_score(tmp_path, trials, output=output, chunk_trials=1)
    assert not output.exists()
    assert len(read_lines(partial_path(output))) == 2

    with pytest.raises(UsageError, match="--resume"):
        run_score(tmp_path, trials, output=output, chunk_trials=1)

    calls.clear()
    monkeypatch.setattr(score_service, "_grade_chunk", real)
    outcome, _ = run_score(tmp_path, trials, output=output, chunk_trials=1, resume=True)
    assert outcome.resumed == 2 and outcome.graded_now == 3
    assert not partial_path(output).exists()
    assert read_lines(output) == read_lines(reference)


def test_resume_drops_a_truncated_last_line(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    _, reference = run_score(tmp_path, trials, output=tmp_path / "ref.jsonl")
    output = tmp_path / "out.jsonl"
    lines = reference.read_text().splitlines(keepends=True)
    partial_path(output).write_text("".join(lines[:2]) + lines[2][:40])
    outcome, _ = run_score(tmp_path, trials, output=output, resume=True)
    assert outcome.resumed == 2 and outcome.graded_now == 3
    assert any("truncated" in n for n in outcome.notes)
    assert read_lines(output) == read_lines(reference)


def test_resume_of_a_complete_file_does_nothing(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    _, output = run_score(tmp_path, trials)
    before = output.read_bytes()
    outcome, _ = run_score(tmp_path, trials, resume=True)
    assert outcome.graded_now == 0 and outcome.resumed == 5
    assert output.read_bytes() == before


def test_resume_with_other_graders_is_refused(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    output = tmp_path / "out.jsonl"
    _, reference = run_score(tmp_path, trials, output=tmp_path / "ref.jsonl")
    partial_path(output).write_text(reference.read_text())
    write_grader(tmp_path, "cs-fake", "claim_support", version=2, error_word="NEVER")
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-fake@2", root=tmp_path)
    with pytest.raises(UsageError, match="cannot resume"):
        run_score(tmp_path, trials, output=output, resume=True, graders=["se-fake", "cs-fake@2", "cov-fake"])


# --- re-scoring (issue 5) -------------------------------------------------------------------------


def test_rescore_with_a_new_version(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    _, old = run_score(tmp_path, trials, output=tmp_path / "old-results.jsonl")
    old_bytes = old.read_bytes()
    old_lines = by_trial(old)
    write_grader(tmp_path, "cs-fake", "claim_support", version=2, error_word="NEVER")
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-fake@2", root=tmp_path)
    new = tmp_path / "new-results.jsonl"
    outcome = score_trials(ScoreOptions(output=new, rescore=old, graders=["cs-fake@2"]), root=tmp_path)
    assert old.read_bytes() == old_bytes
    assert outcome.trials == 5
    new_lines = by_trial(new)
    assert list(new_lines) == list(old_lines)
    for tid, line in new_lines.items():
        cs = line["checks"]["claim_support"]
        assert cs["grader"] == "cs-fake@2"
        assert cs["fingerprint"] != old_lines[tid]["checks"]["claim_support"]["fingerprint"]
        assert cs["rescored_from"] == {
            "grader": "cs-fake@1",
            "fingerprint": old_lines[tid]["checks"]["claim_support"]["fingerprint"],
        }
        # the other checks keep their results; the rule is the old one
        assert line["checks"]["source_existence"] == old_lines[tid]["checks"]["source_existence"]
        assert line["rule"] == old_lines[tid]["rule"]
        assert line["rescored"] == {"from": "old-results.jsonl"}
    # v2 still rejects batt-1's c2 but no longer errs on ERR: batt-2 is graded now
    assert new_lines["batt-1"]["checks"]["claim_support"]["failed_units"] == ["claim:c2"]
    assert new_lines["batt-2"]["checks"]["claim_support"]["passed"] is True
    assert new_lines["batt-2"]["success"] is True


def test_rescore_then_metrics_refuses_to_mix_versions(tmp_path: Path) -> None:
    from graderctl.services.metrics import compute_metrics

    trials, _ = make_project(tmp_path)
    _, old = run_score(tmp_path, trials, output=tmp_path / "old.jsonl")
    write_grader(tmp_path, "cs-fake", "claim_support", version=2, error_word="NEVER")
    from graderctl.services.calibrate import api_calibrate

    api_calibrate("cs-fake@2", root=tmp_path)
    new = tmp_path / "new.jsonl"
    score_trials(ScoreOptions(output=new, rescore=old, graders=["cs-fake@2"]), root=tmp_path)
    mixed = tmp_path / "mixed.jsonl"
    old_lines = old.read_text().splitlines(keepends=True)
    new_lines = new.read_text().splitlines(keepends=True)
    mixed.write_text("".join(old_lines[:2] + new_lines[2:]))
    with pytest.raises(InvalidInputError) as info:
        compute_metrics(mixed, root=tmp_path)
    assert "cs-fake@1" in str(info.value) and "cs-fake@2" in str(info.value)


def test_rescore_needs_the_trials(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path)
    _, old = run_score(tmp_path, trials, output=tmp_path / "old.jsonl")
    with pytest.raises(UsageError, match="differ"):
        score_trials(ScoreOptions(output=old, rescore=old, graders=["cs-fake@1"]), root=tmp_path)
    trials.unlink()
    with pytest.raises(InvalidInputError):
        score_trials(
            ScoreOptions(output=tmp_path / "n.jsonl", rescore=old, graders=["cs-fake@1"]), root=tmp_path
        )


# --- grader failures ------------------------------------------------------------------------------


def test_a_grader_that_errs_on_every_unit_exits_4_after_writing(tmp_path: Path) -> None:
    trials, _ = make_project(tmp_path, calibrate=False)
    write_grader(tmp_path, "cs-fake", "claim_support", error_word=" ")
    output = tmp_path / "out.jsonl"
    with pytest.raises(GraderRunError, match="could not grade any unit"):
        score_trials(
            ScoreOptions(output=output, trials=trials, graders=["cs-fake@1"], allow_untrusted=True),
            root=tmp_path,
        )
    lines = by_trial(output)
    assert lines["heat-1"]["success"] is None
    assert lines["misc-1"]["success"] is False  # its claims fail without grading


def test_invalid_trials_exit_3(tmp_path: Path) -> None:
    make_project(tmp_path)
    bad = tmp_path / "bad-trials.jsonl"
    bad.write_text('{"task_id": "x", "trial_id": "1", "task": {}, "report": {"claims": [{"id": "c1"}]}}\n')
    with pytest.raises(InvalidInputError) as info:
        run_score(tmp_path, bad)
    assert info.value.problems[0].line == 1
    assert "/report/claims/0/text" in info.value.problems[0].pointer


# --- the shipped example (examples/research-agent) -------------------------------------------------------


def test_shipped_example_reasons_point_at_the_intended_units(tmp_path: Path, repo_root: Path) -> None:
    """Scores the shipped example with the project's own graders and checks that the results name the
    failing citation, claim or nugget that the example's README intends (expected.json)."""
    example = repo_root / "examples" / "research-agent"
    expected = json.loads((example / "expected.json").read_text())
    output = tmp_path / "results.jsonl"
    outcome = score_trials(
        ScoreOptions(
            output=output,
            trials=example / "trials.jsonl",
            corpus=example / "corpus.jsonl",
            # the versions without an abstention band decide every unit: the naming of failures is checked
            graders=["source-existence@1", "claim-support@1", "coverage@1"],
            allow_untrusted=True,  # trusted or not, the units and reasons are what is checked here
        ),
        root=repo_root,
    )
    assert outcome.trials == len(expected) == 25
    lines = by_trial(output)
    trials_by_id = {t.trial_id: t for t in map(Trial.model_validate_json, (example / "trials.jsonl").open())}
    intended = found = 0
    for trial_id, want in expected.items():
        line = lines[trial_id]
        t = trials_by_id[trial_id]
        valid_ids = (
            {u.id for u in citation_units(t)}
            | {f"claim:{c.id}" for c in t.report.claims}
            | {f"nugget:{i}" for i in range(1, len(t.task.nuggets) + 1)}
        )
        for check, result in line["checks"].items():
            # every failed unit is a real unit of the trial, and every reason starts with its unit
            assert set(result["failed_units"]) <= valid_ids, (trial_id, check, result["failed_units"])
            for reason in result["reasons"]:
                assert reason.split(": ", 1)[0] in valid_ids, (trial_id, reason)
            assert len(result["reasons"]) == (
                len(result["failed_units"]) + result["errors"] + result.get("undecided", 0)
            )
        for check, units in want["failed_units"].items():
            got = line["checks"][check]["failed_units"]
            for unit in units:
                intended += 1
                found += unit in got
            if check == "source_existence":
                # fabricated and mangled sources, misquotes and splices: named exactly
                assert got == units, (trial_id, got, units)
        if want["success"] is False:
            assert line["success"] is False, trial_id
    assert intended >= 25
    # The grader kinds' accuracy is measured by calibration; here the bar only guards the unit naming (a
    # naming regression finds almost none): 25 of 27 are found today.
    assert found / intended >= 0.8, f"only {found} of {intended} intended failing units were found"


def test_an_undecided_unit_never_passes_the_check() -> None:
    from types import SimpleNamespace

    from graderctl.models.base import Check
    from graderctl.plugin import Verdict
    from graderctl.services.score import TrustInfo, check_result

    units = claim_units(trial("heat-1"), corpus())
    grader: Any = SimpleNamespace(ref="g@2", fingerprint="sha256:" + "0" * 64, params=None)
    trust = TrustInfo(trusted=False, detail="test", reports=[], entries=[])
    undecided = Verdict.undecided("score 0.7 in the band")
    one = check_result(
        Check.claim_support, grader, trial("heat-1"), units, [Verdict.accept("ok"), undecided], trust
    )
    assert one.passed is None and one.undecided == 1 and one.errors == 0
    assert "claim:c2: undecided: score 0.7 in the band" in one.reasons
    failed = check_result(
        Check.claim_support, grader, trial("heat-1"), units, [Verdict.reject("no"), undecided], trust
    )
    assert failed.passed is False and failed.failed_units == ["claim:c1"]
    both = check_result(
        Check.claim_support, grader, trial("heat-1"), units, [Verdict.accept("a"), Verdict.accept("b")], trust
    )
    assert both.passed is True and "undecided" not in both.model_dump(exclude_unset=True)


def test_the_default_grader_is_the_newest_version_that_decides(repo_root: Path) -> None:
    from graderctl.services.score import default_graders

    refs = {g.spec.check.value: g.ref for g in default_graders(repo_root)}
    # claim-support@2 and coverage@2 abstain (a band): on their own they leave units undecided
    assert refs["claim_support"] == "claim-support@1" and refs["coverage"] == "coverage@1"
    assert (repo_root / "graders/claim-support/v2.toml").is_file()
