"""The rule signals on the best passage, each its own function of a :class:`RuleContext` returning what it
found: names, numbers, months, negation, direction words, scope and cause (see the package docstring).
:func:`apply_rules` records them in the :class:`Features`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from graderctl.kinds._support_features.claims import ClaimInfo
from graderctl.kinds._support_features.evidence import EvidenceIndex
from graderctl.kinds._support_features.model import Features
from graderctl.kinds._support_features.numbers import Number, number_matches
from graderctl.kinds._support_features.reading import CONTRASTIVE, Reading
from graderctl.kinds._support_features.vocab import (
    ANTONYM_OF,
    CLAIM_CAUSAL,
    DIRECTION_DOWN,
    DIRECTION_UP,
    PARTIAL_CHANGE,
    UNOBSERVED_VERBS,
)
from graderctl.language.names import Name

#: Negation and quantity words are compared only in passage sentences holding this share of the claim.
ALIGNED_RECALL = 0.4


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What every rule signal reads: the claim, the best window of the evidence and its neighbours."""

    claim: ClaimInfo
    evidence: EvidenceIndex
    #: Readings of the window's sentences, and of the sentence before and after it.
    window: list[Reading]
    around: list[Reading]
    #: Window sentences holding a good share of the claim (and always the best one).
    aligned: list[Reading]
    #: Weighted recall of the claim in each window sentence.
    recalls: list[float]
    #: The window's recall of the claim (``recall_window``), and the value a rule signal takes when it fires.
    closeness: float
    strength: float
    #: Presence (1, 0.5 or 0) of each claim term in the window, and the terms' weights.
    presence: Any
    weights: Any


def rule_context(
    claim: ClaimInfo,
    ev: EvidenceIndex,
    first: int,
    last: int,
    *,
    presence: Any,
    weights: Any,
    wsum: float,
    closeness: float,
) -> RuleContext:
    """The context of the rule signals on sentences ``first``..``last`` of ``ev``."""
    terms = claim.terms
    window = [ev.reading(j) for j in range(first, last + 1)]
    lo, hi = max(0, first - 1), min(len(ev) - 1, last + 1)
    around = [ev.reading(j) for j in range(lo, hi + 1) if j < first or j > last]
    recalls = [
        sum(float(weights[i]) for i, x in enumerate(terms) if x in r.keys) / wsum if terms else 0.0
        for r in window
    ]
    top = max(recalls) if recalls else 0.0
    aligned = [r for r, rc in zip(window, recalls, strict=True) if rc >= ALIGNED_RECALL or rc == top]
    return RuleContext(
        claim=claim,
        evidence=ev,
        window=window,
        around=around,
        aligned=aligned,
        recalls=recalls,
        closeness=closeness,
        strength=max(closeness, top),
        presence=presence,
        weights=weights,
    )


# --- names ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NameSignal:
    """Names of the claim missing from the passage and the sentences next to it, and (claim name, passage
    name) pairs where the passage has another name in the claim's place; each with its strength."""

    missing: list[str]
    conflicts: list[tuple[str, str]]
    missing_strength: float
    conflict_strength: float


def name_signal(ctx: RuleContext) -> NameSignal:
    """``entity_missing`` and ``entity_conflict``: a name of the claim is neither in the passage nor in a
    sentence next to it; and the passage has a name of the same type (or in the same slot) in its place."""
    claim, ev, window, around = ctx.claim, ctx.evidence, ctx.window, ctx.around
    terms, weights, cr, closeness = claim.terms, ctx.weights, claim.reading, ctx.closeness
    window_keys = set().union(*(r.keys for r in window))
    around_keys = set().union(*(r.keys for r in around)) if around else set()
    claim_names = list(cr.names)
    if claim.initial_key and claim.initial_key in ev.masks:
        # a sentence-initial word is a name when the evidence writes it capitalised mid-sentence
        for s in ev.postings(claim.initial_key)[:3]:
            if not ev.may_name(s, claim.initial_key):
                continue
            rd = ev.reading(s)
            if any(claim.initial_key in n.keys for n in rd.names):
                claim_names.append(Name((claim.initial_key,), cr.words[0], "", 0, 0))
                break
    # the predicate sentence: the window sentence holding most of the claim's words other than names
    others = [i for i, x in enumerate(terms) if x not in claim.names]
    other_w = sum(float(weights[i]) for i in others) or 1.0
    pred_recall = [sum(float(weights[i]) for i in others if terms[i] in r.keys) / other_w for r in window]
    pred = window[max(range(len(window)), key=lambda j: (pred_recall[j], ctx.recalls[j]))]
    rest = sum(float(ctx.presence[i]) for i in others) / len(others) if others else closeness
    name_strength = max(rest, closeness)
    claim_name_keys = {k for nm in claim_names for k in nm.keys}
    missing: list[Name] = []
    conflicts: list[tuple[str, str]] = []
    for nm in claim_names:
        in_window = all(k in window_keys for k in nm.keys) or (
            nm.keys[-1] in window_keys and all(k in ev.masks for k in nm.keys)
        )  # "Lopes" in the passage, "Maria Lopes" elsewhere
        if not in_window and not all(k in window_keys or k in around_keys for k in nm.keys):
            missing.append(nm)  # not even linked in the next or previous sentence
        if in_window and all(k in pred.keys for k in nm.keys[-1:]):
            continue
        # missing where the claim's predicate is: a name of the same type, or in the same slot, is a rival
        rival = _rival(nm, cr, pred, claim_name_keys)
        if rival is not None:
            conflicts.append((nm.text, rival.text))
    missing_strength = name_strength * len(missing) / len(claim_names) if missing and claim_names else 0.0
    conflict_strength = 0.0
    if conflicts:
        conflict_strength = name_strength * pred_recall[window.index(pred)] if others else name_strength
    return NameSignal([nm.text for nm in missing], conflicts, missing_strength, conflict_strength)


# --- numbers and dates ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NumberSignal:
    """(claim figure, passage figure) pairs counting the same kind of thing differently, claim bounds the
    passage bounds otherwise, and whether a conflict is about a number or a year."""

    conflicts: list[tuple[str, str]]
    bound_conflicts: list[str]
    number_conflict: bool
    date_conflict: bool


def number_signal(ctx: RuleContext) -> NumberSignal:
    """``number_conflict`` / ``date_conflict``: a claim number with no equal near the passage while an
    aligned sentence gives another number of the same kind."""
    claim = ctx.claim
    conflicts: list[tuple[str, str]] = []
    bound_conflicts: list[str] = []
    number_conflict = date_conflict = False
    near_numbers: list[Number] = []
    aligned_numbers: list[Number] = []
    if claim.numbers:
        near_numbers = [n for r in (*ctx.window, *ctx.around) for n in r.numbers]
        # the tail of a compound quantity ("2 hours and 40 minutes") is no figure of its own
        aligned_numbers = [n for r in ctx.aligned for n in r.numbers if not _compound_tail(n, r.numbers)]
    for cn in claim.numbers:
        if number_matches(cn, near_numbers):
            # a bound ("over five summers") is borne out by a larger figure, unless the passage bounds the
            # same kind of thing with the same word and another value ("over two summers")
            if not cn.bound or number_matches(replace(cn, bound=""), near_numbers):
                continue
            rival_n = next(
                (
                    pn
                    for pn in aligned_numbers
                    if cn.comparable(pn) and pn.bound == cn.bound and pn.value != cn.value
                ),
                None,
            )
            if rival_n is not None:
                bound_conflicts.append(cn.text)
        else:
            # a passage figure the claim itself gives elsewhere stands in another slot, not this one
            rival_n = next(
                (
                    pn
                    for pn in aligned_numbers
                    if cn.comparable(pn) and pn.value != cn.value and not number_matches(pn, claim.numbers)
                ),
                None,
            )
        if rival_n is not None:
            conflicts.append((cn.text, rival_n.text))
            if cn.is_year:
                date_conflict = True
            else:
                number_conflict = True
    return NumberSignal(conflicts, bound_conflicts, number_conflict, date_conflict)


def month_signal(ctx: RuleContext) -> list[tuple[str, str]]:
    """``date_conflict`` by month: (claim month, passage month) when a month of the claim is not near the
    passage and an aligned sentence names another."""
    cr = ctx.claim.reading
    conflicts: list[tuple[str, str]] = []
    near_months = set().union(*(r.months for r in (*ctx.window, *ctx.around)))
    for mo in sorted(cr.months):
        if mo in near_months:
            continue
        rival_m = sorted(set().union(*(r.months for r in ctx.aligned)) - cr.months)
        if rival_m:
            conflicts.append((ctx.claim.surface.get(mo, mo), rival_m[0].capitalize()))
    return conflicts


# --- negation -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NegationSignal:
    """What differs about negation (a reason phrase, "" when nothing does), and whether it is a passage
    saying the claim's matter was not measured or reported."""

    text: str
    negated_predicate: bool


def negation_signal(ctx: RuleContext) -> NegationSignal:
    """``negation_mismatch``: a claim word said only under a negation on one side and plainly on the other
    (cues and prefixes), or a passage saying the claim's matter was not measured ("did not measure yield")."""
    claim, window, cr = ctx.claim, ctx.window, ctx.claim.reading
    terms, term_set = claim.terms, claim.term_set
    negation = ""
    p_neg = {k: cue for r in window for k, cue in r.negated_heads.items() if k in term_set}
    p_aff = set().union(*(r.affirmed for r in window)) & term_set
    p_negated_sentences = set().union(*(r.keys for r in window if r.negations or r.prefix_negated))
    p_prefix = set().union(*(r.prefix_negated for r in window))
    c_neg = cr.negated_heads
    for k in terms:
        if k in p_neg and k not in p_aff and k in cr.affirmed and not cr.negations and not cr.prefix_negated:
            negation = f"the passage says {p_neg[k]!r} about {claim.surface[k]!r} but the claim does not"
        elif k in c_neg and k not in cr.affirmed and k in p_aff and k not in p_negated_sentences:
            negation = f"the claim says {c_neg[k]!r} about {claim.surface[k]!r} but the passage does not"
        elif k in cr.prefix_negated and k in p_aff and k not in p_prefix:
            negation = f"the claim negates {claim.surface.get(k, k)!r} by a prefix but the passage does not"
        elif k in p_prefix and k in cr.affirmed and k not in cr.prefix_negated and not cr.negations:
            negation = f"the passage negates {claim.surface[k]!r} by a prefix but the claim does not"
        if negation:
            break
    for k in sorted(cr.prefix_negated - term_set):
        if not negation and k in p_aff - p_prefix:
            negation = f"the claim negates {k!r} by a prefix but the passage does not"
    if negation or cr.negations or cr.prefix_negated:
        return NegationSignal(negation, False)
    # the passage says the claim's matter was not measured / reported ("did not measure fruit yield")
    for r in ctx.aligned:
        for cue, scope_keys in r.negations:
            if cue in CONTRASTIVE:
                continue
            said = sorted(k for k in scope_keys & term_set if k in cr.affirmed)
            verb = next((k for k in scope_keys if k in UNOBSERVED_VERBS), None)
            if verb is not None and said:
                shown = next((r.words[i] for i, k in enumerate(r.wkeys) if k == verb), verb)
                text = (
                    f"the passage says {cue!r} {shown!r} about "
                    + ", ".join(repr(claim.surface.get(k, k)) for k in said[:3])
                    + " but the claim states a finding"
                )
                return NegationSignal(text, True)
    return NegationSignal("", False)


# --- direction ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DirectionSignal:
    """(claim word, passage word) opposite pairs, and whether no sentence of the window also says the
    claim's word or direction."""

    pairs: list[tuple[str, str]]
    explicit: bool


def direction_signal(ctx: RuleContext) -> DirectionSignal:
    """``quantity_mismatch``: an aligned sentence says the opposite quantity or direction word (more/less,
    rose/fell ...) near a claim word, and not the claim's own."""
    claim_stems = ctx.claim.reading.stem_set
    term_set = ctx.claim.term_set
    pairs: list[tuple[str, str]] = []
    for r in ctx.aligned:
        for word in sorted(claim_stems & ANTONYM_OF.keys()):
            if word in r.stem_set or (ANTONYM_OF[word] & claim_stems):
                continue
            if word in DIRECTION_UP or word in DIRECTION_DOWN:
                same_side = DIRECTION_UP if word in DIRECTION_UP else DIRECTION_DOWN
                if same_side & r.stem_set:
                    continue  # the passage also says the claim's direction
            for opposite in sorted(ANTONYM_OF[word] & r.stem_set):
                if _near_claim_term(r.stems, r.wkeys, opposite, term_set):
                    if (word, opposite) not in pairs:
                        pairs.append((word, opposite))
                    break
    if not pairs:
        return DirectionSignal(pairs, False)
    window_stems = set().union(*(r.stem_set for r in ctx.window))
    explicit = not any(
        a in window_stems
        or (a in DIRECTION_UP and DIRECTION_UP & window_stems)
        or (a in DIRECTION_DOWN and DIRECTION_DOWN & window_stems)
        for a, _b in pairs
    )
    return DirectionSignal(pairs, explicit)


# --- scope ----------------------------------------------------------------------------------------------


def scope_signal(ctx: RuleContext) -> tuple[str, str] | None:
    """``scope_unsupported`` / ``scope_limited``: (claim universal word, passage limiting word or "") for
    the first universal or absolute word of the claim with no word of the same reach in the passage."""
    cr = ctx.claim.reading
    passage_universal: dict[str, str] = {}
    for r in ctx.window:
        for cls, w in r.universal.items():
            passage_universal.setdefault(cls, w)
    for cls, word in cr.universal.items():
        if cls in passage_universal or (cls == "geo" and "all" in passage_universal):
            continue
        if cls == "none" and any(r.negations for r in ctx.aligned):
            continue  # "none of them" is matched by a negation ("no deaths")
        if cls == "only" and "all" in passage_universal:
            continue
        return (word, _limiter(ctx, cls))
    return None


def _limiter(ctx: RuleContext, cls: str) -> str:
    """The first word of the aligned or neighbouring sentences that limits a universal of class ``cls``."""
    for r in (*ctx.aligned, *ctx.around):
        if r.limiters:
            return r.limiters[0]
        if cls == "eliminate":
            part = next((r.words[i] for i, w in enumerate(r.lower) if w in PARTIAL_CHANGE), None)
            if part:
                return part
        if cls in ("all", "geo"):
            cnt = next((n for n in r.numbers if n.kind.startswith("count:")), None)
            if cnt is not None:
                return cnt.text
    return ""


# --- cause ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CausalSignal:
    """(claim causal wording, passage correlational wording or ""), whether the window states no cause,
    and whether the passage hedges."""

    pair: tuple[str, str] | None
    unsupported: bool
    hedged: bool


def causal_signal(ctx: RuleContext) -> CausalSignal:
    """``causal_unsupported`` / ``causal_hedged``: the claim states a cause and the window has no causal
    wording, or only says things went together or are uncertain."""
    claim_causal = [w for w in ctx.claim.reading.causal if w.lower() in CLAIM_CAUSAL or " " in w]
    if not claim_causal:
        return CausalSignal(None, False, False)
    if not any(r.causal for r in ctx.window):
        hedge = next((r.correlational[0] for r in (*ctx.window, *ctx.around) if r.correlational), "")
        return CausalSignal((claim_causal[0], hedge), True, bool(hedge))
    hedge = next((r.correlational[0] for r in ctx.aligned if r.correlational), "")
    return CausalSignal((claim_causal[0], hedge) if hedge else None, False, bool(hedge))


# --- all of them ----------------------------------------------------------------------------------------


def apply_rules(ctx: RuleContext, feats: Features) -> None:
    """Record every rule signal of ``ctx`` in ``feats`` (its values and the reasons' details)."""
    values, strength = feats.values, ctx.strength
    names = name_signal(ctx)
    feats.entity_conflicts = names.conflicts
    if names.missing:
        values["entity_missing"] = names.missing_strength
        feats.missing_entities = names.missing
    if names.conflicts:
        values["entity_conflict"] = names.conflict_strength

    numbers = number_signal(ctx)
    months = month_signal(ctx)
    feats.bound_conflicts = numbers.bound_conflicts
    feats.conflicting_numbers = [*numbers.conflicts, *months]
    if numbers.number_conflict:
        values["number_conflict"] = strength
    if numbers.date_conflict or months:
        values["date_conflict"] = strength

    negation = negation_signal(ctx)
    feats.negation = negation.text
    feats.negated_predicate = negation.negated_predicate
    if negation.text:
        values["negation_mismatch"] = strength

    direction = direction_signal(ctx)
    feats.quantity = direction.pairs
    if direction.pairs:
        values["quantity_mismatch"] = strength
        feats.quantity_explicit = direction.explicit

    scope = scope_signal(ctx)
    if scope is not None:
        feats.scope = scope
        values["scope_unsupported"] = strength
        if scope[1]:
            values["scope_limited"] = strength

    causal = causal_signal(ctx)
    feats.causal = causal.pair
    if causal.unsupported:
        values["causal_unsupported"] = strength
    if causal.hedged:
        values["causal_hedged"] = strength


def _compound_tail(num: Number, numbers: Sequence[Number]) -> bool:
    """Whether ``num`` follows closely on a number counting another unit ("2 hours and 40 minutes",
    "5 feet 2 inches")."""
    return any(
        o.start < num.start <= o.start + 20 and o.kind != num.kind and o.kind.startswith("count:")
        for o in numbers
    ) and num.kind.startswith("count:")


_SLOT_WORDS = frozenset(["in", "at", "by", "from", "of", "for", "with", "to", "near", "on", "as"])


def _rival(nm: Name, cr: Reading, sentence: Reading, claim_name_keys: set[str]) -> Name | None:
    """A name of ``sentence`` that stands where the claim's name ``nm`` would: of the same known type, or
    after the same preposition ("in Lisbon" / "in Porto")."""
    slot = cr.lower[nm.first - 1] if nm.first > 0 else ""
    for p in sentence.names:
        if set(p.keys) & claim_name_keys:
            continue
        if nm.type and p.type == nm.type:
            return p
        if (
            slot in _SLOT_WORDS
            and p.first > 0
            and sentence.lower[p.first - 1] == slot
            and (not nm.type or not p.type)
        ):
            return p
    return None


def _near_claim_term(
    stems_p: Sequence[str], wkeys_p: Sequence[str | None], word: str, terms: frozenset[str]
) -> bool:
    for i, s in enumerate(stems_p):
        if s == word and any(k in terms for k in wkeys_p[max(0, i - 4) : i + 5] if k):
            return True
    return False
