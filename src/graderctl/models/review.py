"""The review file: units ``score`` could not decide, for people to label (``RESULTS.review.jsonl``).

``score`` writes one :class:`ReviewItem` per unit a grader left undecided (it abstained), that a cascade's
members contested, or that a grader erred on. A person fills ``label`` (``good``: the grader should accept
it; ``bad``: it should reject it) and, optionally, ``category`` and ``rationale``; ``graderctl sets add SET
--from REVIEWED`` then turns the labelled lines into new samples of a calibration set (a new set version, so
trust bound to the old set lapses).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graderctl.models.base import Check, Label, OpenModel, StrictModel


class ReviewItem(StrictModel):
    """One unit for a person to review (one line of a review file)."""

    schema_version: Literal[1] = 1
    type: Literal["review"] = "review"
    task_id: str
    trial_id: str
    check: Check
    #: The unit within the trial (``claim:c3``, ``citation:c2/s1``, ``report``).
    unit: str
    #: Why it needs a person: the grader abstained, a cascade's members disagreed, or the grader erred.
    status: Literal["undecided", "contested", "error"]
    grader: str
    fingerprint: str
    reason: str = ""
    #: What the grader was given: a calibration sample's ``input`` for the check (CONTRACT.md §3).
    input: dict[str, Any]
    #: The corpus documents (``corpus.jsonl`` lines) the input names by ``source_id``.
    documents: list[dict[str, Any]] = Field(default_factory=list)
    #: Filled by the reviewer: ``good`` (should be accepted) or ``bad`` (should be rejected).
    label: Label | None = None
    #: Filled by the reviewer (optional): the kind of case, e.g. ``negation_flip``; default ``reviewed``.
    category: str | None = Field(default=None, min_length=1)
    rationale: str | None = None
    labeler: str | None = None
    generator: dict[str, Any] | None = None


class SetsAddSummary(OpenModel):
    """What ``graderctl sets add SET --from REVIEWED --format json`` prints: the samples added (or, with
    ``--dry-run``, that would be) and the set's version before and after."""

    schema_version: Literal[1] = 1
    type: Literal["sets_add"] = "sets_add"
    set: str
    #: The set's folder, relative to the project root when inside it.
    path: str
    check: str
    version_before: int
    #: ``None`` when nothing was added (the set is unchanged).
    version_after: int | None
    fingerprint_before: str
    added: int = 0
    #: Samples added per label (``good``, ``bad``).
    by_label: dict[str, int] = Field(default_factory=dict)
    documents_added: int = 0
    #: Lines without a label yet (left out).
    unlabelled: int = 0
    #: Reviewed units already samples of the set (left out).
    already_in_set: int = 0
    notes: list[str] = Field(default_factory=list)
