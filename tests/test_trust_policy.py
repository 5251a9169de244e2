"""The one trust rule (graderctl.trust_policy): pure, from evidence and a policy, used by calibrate, list and
score."""

from __future__ import annotations

import pytest

from graderctl.models.base import Label
from graderctl.models.calset import Policy
from graderctl.models.reports import SampleOutcome
from graderctl.stats import clopper_pearson_upper
from graderctl.trust_policy import Evidence, RateEvidence, combine, decide, evidence_from_outcomes

POLICY = Policy(max_false_accept_rate=0.05, max_false_reject_rate=0.2, max_error_rate=0.01)


def evidence(fa: int, n_bad: int, fr: int, n_good: int, errors: int = 0) -> Evidence:
    return Evidence(
        false_accepts=RateEvidence(fa, n_bad, n_bad),
        false_rejects=RateEvidence(fr, n_good, n_good),
        errors=errors,
        n_samples=n_bad + n_good + errors,
    )


def test_trusted_when_every_bound_is_within_its_limit() -> None:
    decision = decide(evidence(0, 60, 0, 20), POLICY)
    assert decision.trusted and decision.reasons == []
    far = decision.checks[0]
    assert far.name == "false_accept_rate" and far.bound == "upper_95"
    assert far.observed == pytest.approx(clopper_pearson_upper(0, 60))


def test_one_false_accept_too_many_is_not_trusted() -> None:
    # 0/60 has an upper bound of 4.9%, 1/60 of 7.7%: over 5%.
    decision = decide(evidence(1, 60, 0, 20), POLICY)
    assert not decision.trusted
    assert decision.reasons == [decision.checks[0].message]
    assert "over by" in decision.reasons[0]


def test_the_error_rate_counts() -> None:
    decision = decide(evidence(0, 60, 0, 20, errors=2), POLICY)
    assert not decision.trusted
    assert [c.passed for c in decision.checks] == [True, True, False]


def test_the_clustered_bound_decides_when_larger() -> None:
    clustered = Evidence(
        false_accepts=RateEvidence(0, 60, 60, clustered_upper_95=0.06),
        false_rejects=RateEvidence(0, 20, 20, clustered_upper_95=0.0),
        errors=0,
        n_samples=80,
    )
    decision = decide(clustered, POLICY)
    assert not decision.trusted
    assert decision.checks[0].bound == "clustered.upper_95" and decision.checks[0].observed == 0.06
    assert decision.checks[1].bound == "upper_95"  # the smaller clustered bound does not loosen it


def test_a_set_too_small_for_its_policy_cannot_grant_trust() -> None:
    # The rates themselves pass a lax false-reject limit, but 20 known-bad samples can never show 5%.
    decision = decide(evidence(0, 20, 0, 20), POLICY)
    assert not decision.trusted
    assert decision.supports["supported"] is False
    assert any("too small to support max_false_accept_rate" in r for r in decision.reasons)


@pytest.mark.parametrize("n", [2, 1000])
def test_a_policy_that_accepts_any_rate_cannot_grant_trust(n: int) -> None:
    lax = Policy(max_false_accept_rate=1.0, max_false_reject_rate=1.0, max_error_rate=1.0)
    decision = decide(evidence(n // 2, n, n // 2, n), lax)
    assert all(c.passed for c in decision.checks)  # every bound is within 1 ...
    assert not decision.trusted  # ... but a limit of 1 bounds nothing
    assert any("accepts any rate" in r for r in decision.reasons)


def test_no_graded_sample_is_undefined_and_not_trusted() -> None:
    decision = decide(evidence(0, 0, 0, 20, errors=0), POLICY)
    assert not decision.trusted
    assert decision.checks[0].observed is None and "undefined" in decision.checks[0].message


def outcome(i: int, label: Label, accepted: bool | None, group: str | None = None) -> SampleOutcome:
    return SampleOutcome(id=f"s{i}", label=label, accepted=accepted, group=group)


def test_evidence_from_outcomes_counts_errors_apart() -> None:
    outcomes = [outcome(i, Label.bad, i < 3) for i in range(10)]
    outcomes += [outcome(10 + i, Label.good, i != 0) for i in range(5)]
    outcomes += [outcome(20, Label.good, None), outcome(21, Label.bad, None)]
    ev = evidence_from_outcomes(outcomes).evidence
    assert ev.false_accepts == RateEvidence(3, 10, 11)
    assert ev.false_rejects == RateEvidence(1, 5, 6)
    assert (ev.errors, ev.n_samples) == (2, 17)


def test_evidence_from_grouped_outcomes_carries_the_cluster_bound() -> None:
    outcomes = [outcome(i, Label.bad, i < 6, group=f"g{i // 10}") for i in range(40)]
    found = evidence_from_outcomes(outcomes)
    assert found.far_clustered is not None
    assert found.evidence.false_accepts.clustered_upper_95 == found.far_clustered.upper_95
    assert found.evidence.false_accepts.upper_bound()[1] == "clustered.upper_95"


def test_trust_for_a_check_needs_every_set() -> None:
    assert combine([("core", True), ("extra", True)]) == (True, [])
    assert combine([("core", False), ("tiny-lax", True)]) == (False, ["core"])
    assert combine([]) == (False, [])  # no set vouches: nothing is trusted


def test_min_coverage_is_part_of_the_rule() -> None:
    policy = Policy(
        max_false_accept_rate=0.05, max_false_reject_rate=0.2, max_error_rate=0.01, min_coverage=0.9
    )
    decided = evidence(0, 60, 0, 20)
    abstaining = Evidence(decided.false_accepts, decided.false_rejects, 0, 100, undecided=20)
    assert decide(decided, policy).trusted
    decision = decide(abstaining, policy)
    assert not decision.trusted
    assert decision.checks[-1].name == "coverage" and not decision.checks[-1].passed


@pytest.mark.parametrize("limit", [0.5, 0.9, 0.99])
@pytest.mark.parametrize("n", [1, 2, 1000])
def test_a_policy_a_coin_flip_would_meet_cannot_grant_trust(limit: float, n: int) -> None:
    # A limit of 0.5 or more on the false-accept (or false-reject) rate is met by a grader that guesses:
    # however many samples, and even with no error at all, such a set grants no trust.
    lax = Policy(max_false_accept_rate=limit, max_false_reject_rate=0.2, max_error_rate=0.01)
    decision = decide(evidence(0, n, 0, 1000), lax)
    assert not decision.trusted
    assert decision.supports["false_accept_rate"]["supported"] is False
    assert any("coin flip" in r and "below 0.5" in r for r in decision.reasons), decision.reasons
    lax = Policy(max_false_accept_rate=0.05, max_false_reject_rate=limit, max_error_rate=0.01)
    decision = decide(evidence(0, 1000, 0, n), lax)
    assert not decision.trusted and decision.supports["false_reject_rate"]["supported"] is False


def test_just_below_the_coin_flip_limit_a_large_enough_set_grants_trust() -> None:
    policy = Policy(max_false_accept_rate=0.49, max_false_reject_rate=0.49, max_error_rate=0.01)
    assert decide(evidence(0, 5, 0, 5), policy).trusted  # 0/5: upper bound 0.451
    small = decide(evidence(0, 4, 0, 4), policy)  # 0/4: upper bound 0.527, the advice says 5 are needed
    assert not small.trusted and small.supports["false_accept_rate"]["samples_needed"] == 5
