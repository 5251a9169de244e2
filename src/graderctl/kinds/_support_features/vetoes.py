"""Explicit, high-precision contradictions in the best passage, and a floor on content-word recall: each
decides the verdict alone."""

from __future__ import annotations

from graderctl.kinds._support_features.claims import ClaimInfo
from graderctl.kinds._support_features.model import Features

#: A rule signal at least this strong (the passage's recall of the claim) is an explicit contradiction.
VETO_STRENGTH = 0.5
#: Reject when the evidence holds less than this share of the claim's content words (paraphrases of short
#: passages often reword half of them, so the floor is lower than one half).
RECALL_FLOOR = 1 / 3


def apply_vetoes(claim: ClaimInfo, feats: Features) -> None:
    """Explicit, high-precision contradictions in the best passage, and a floor on content-word recall:
    each decides the verdict alone (``values["veto"]`` = 1) and is named in ``feats.vetoes``."""
    values = feats.values
    out = feats.vetoes
    if claim.terms:
        present = 1 - len(feats.missing_terms) / len(claim.terms)
        if present < RECALL_FLOOR - 1e-9:
            out.append(
                f"{len(feats.missing_terms)} of the claim's {len(claim.terms)} content words are nowhere "
                "in the evidence"
            )
    # a contradiction is explicit only when the passage is about the claim's named things
    same_subject = not feats.entity_conflicts and not feats.missing_entities
    if not same_subject:
        values["veto"] = 1.0 if out else 0.0
        return
    nowhere = set(feats.missing_numbers) | set(feats.bound_conflicts)
    numbers = [(a, b) for a, b in feats.conflicting_numbers if a in nowhere]  # the claim's figure is nowhere
    strong = max(values.get("number_conflict", 0.0), values.get("date_conflict", 0.0))
    if numbers and strong >= VETO_STRENGTH:
        out.append(
            "contradicting number/date: "
            + ", ".join(f"claim says {a!r}, passage says {b!r}" for a, b in numbers[:3])
        )
    if feats.quantity_explicit and values.get("quantity_mismatch", 0.0) >= VETO_STRENGTH:
        out.append(
            "opposite wording: " + ", ".join(f"claim {a!r} vs passage {b!r}" for a, b in feats.quantity[:3])
        )
    if feats.negation and (values.get("negation_mismatch", 0.0) >= VETO_STRENGTH or feats.negated_predicate):
        out.append(f"negated predicate: {feats.negation}")
    values["veto"] = 1.0 if out else 0.0
