"""Each rule signal of claim_support on its own, on one-sentence claims and passages worked by hand.

Strengths: the claim's content terms, names weighing 1.5 (``Maria Lopes opened the plant in Lisbon``:
director 1 + maria 1.5 + lopes 1.5 + open 1 + plant 1 + lisbon 1.5 = 7.5), the passage holding some of them.
"""

from __future__ import annotations

import numpy as np
import pytest

from graderctl.kinds import _support_features as sf
from graderctl.kinds._support_features import rules


def context(claim_text: str, passage: str) -> rules.RuleContext:
    claim = sf.analyse_claim(claim_text)
    ev = sf.index_text(passage)
    keys = {k for ks in ev.keys for k in ks}
    weights = np.array([1.5 if t in claim.names else 1.0 for t in claim.terms])
    presence = np.array([1.0 if t in keys else 0.0 for t in claim.terms])
    wsum = float(weights.sum())
    return rules.rule_context(
        claim,
        ev,
        0,
        len(ev) - 1,
        presence=presence,
        weights=weights,
        wsum=wsum,
        closeness=float(weights @ presence) / wsum,
    )


def test_names_missing_and_in_conflict() -> None:
    ctx = context(
        "Director Maria Lopes opened the plant in Lisbon.", "Director Ana Costa opened the plant in Porto."
    )
    # director, open, plant present: 3 of 7.5
    assert ctx.strength == pytest.approx(0.4)
    got = rules.name_signal(ctx)
    assert got.missing == ["Maria Lopes", "Lisbon"]
    # a person (after "Director") against a person; a name after "in" against a name after "in"
    assert got.conflicts == [("Maria Lopes", "Ana Costa"), ("Lisbon", "Porto")]
    # the claim's other words are all there (rest = 1): every name missing -> 1.0
    assert got.missing_strength == pytest.approx(1.0)
    assert got.conflict_strength == pytest.approx(1.0)


def test_same_names_no_signal() -> None:
    got = rules.name_signal(context("Maria Lopes opened the plant.", "Maria Lopes opened the plant."))
    assert (got.missing, got.conflicts, got.missing_strength) == ([], [], 0.0)


def test_number_and_year_conflicts() -> None:
    got = rules.number_signal(
        context("Sales of heat pumps fell 21% in 2024.", "Sales of heat pumps fell 35% in 2024.")
    )
    assert (got.conflicts, got.number_conflict, got.date_conflict) == ([("21%", "35%")], True, False)
    got = rules.number_signal(context("The bridge opened in 1998.", "The bridge opened in 2003."))
    assert (got.conflicts, got.number_conflict, got.date_conflict) == ([("1998", "2003")], False, True)
    # a rounding of the claim's figure is no conflict
    got = rules.number_signal(context("Sales fell 21% in 2024.", "Sales fell 21.4% in 2024."))
    assert got.conflicts == []


def test_bound_conflict() -> None:
    # "over five" is borne out by "six" (a larger figure), but the passage bounds the same thing with the
    # same word and another value: "over two summers"
    got = rules.number_signal(
        context(
            "He played over five summers in Leeds.",
            "He played over two summers in Leeds and six summers in York.",
        )
    )
    assert (got.conflicts, got.bound_conflicts, got.number_conflict) == ([("five", "two")], ["five"], True)
    got = rules.number_signal(context("More than 2,000 people came.", "In all 2,314 people came."))
    assert got.conflicts == []  # "more than 2,000" is borne out by 2,314


def test_month_conflict() -> None:
    ctx = context("The law on rents passed in March.", "The law on rents passed in June.")
    assert ctx.strength == pytest.approx(0.75)  # law, rent, pass of law, rent, pass, march
    assert rules.month_signal(ctx) == [("March", "June")]
    assert rules.month_signal(context("The law passed in March.", "The law passed in March.")) == []


def test_negation() -> None:
    got = rules.negation_signal(
        context("The drug reduced deaths among patients.", "The drug did not reduce deaths among patients.")
    )
    assert got == rules.NegationSignal("the passage says 'not' about 'reduced' but the claim does not", False)
    got = rules.negation_signal(
        context("The study found higher fruit yield.", "The study did not measure fruit yield.")
    )
    assert got.negated_predicate
    assert (
        got.text == "the passage says 'not' 'measure' about 'fruit', 'yield' but the claim states a finding"
    )
    assert rules.negation_signal(context("Deaths fell.", "Deaths fell.")).text == ""


def test_direction() -> None:
    ctx = context("Gas prices rose last year.", "Gas prices fell last year.")
    assert ctx.strength == pytest.approx(0.8)  # "rose" and "fell" are keyed as increase / decrease
    assert rules.direction_signal(ctx) == rules.DirectionSignal([("rose", "fell")], True)
    assert rules.direction_signal(context("Gas prices rose.", "Gas prices rose.")).pairs == []


def test_scope() -> None:
    assert rules.scope_signal(
        context("All schools in the region closed.", "Some schools in the region closed.")
    ) == (
        "All",
        "Some",
    )
    assert rules.scope_signal(context("All schools closed.", "Every school closed.")) is None
    # "every year" is a frequency, not a universal
    assert rules.scope_signal(context("The fair is held every year.", "The fair is held in May.")) is None


def test_causal() -> None:
    got = rules.causal_signal(
        context("The storm caused the power outage.", "The power outage coincided with the storm.")
    )
    assert got == rules.CausalSignal(("caused", "coincided"), True, True)
    got = rules.causal_signal(
        context("The storm caused the power outage.", "The storm and the power outage came.")
    )
    assert got == rules.CausalSignal(("caused", ""), True, False)
    got = rules.causal_signal(context("The storm caused the outage.", "The storm caused the outage."))
    assert got == rules.CausalSignal(None, False, False)


def test_apply_rules_records_each_signal_at_the_strength() -> None:
    ctx = context("Gas prices rose last year.", "Gas prices fell last year.")
    feats = sf.Features(dict.fromkeys(sf.FEATURE_NAMES, 0.0), None, [], [], [], [], "", [])
    rules.apply_rules(ctx, feats)
    assert feats.values["quantity_mismatch"] == pytest.approx(0.8)
    assert feats.quantity == [("rose", "fell")] and feats.quantity_explicit
    assert [k for k in sf.RULE_FEATURES if feats.values[k]] == ["quantity_mismatch"]
