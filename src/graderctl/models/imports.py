"""What ``graderctl sets import`` prints about the calibration set it wrote (``--format json``)."""

from __future__ import annotations

from typing import Literal

from graderctl.models.base import Check, OpenModel


class ImportSummary(OpenModel):
    """The set imported from a public dataset: where it was written, its size and what was left out."""

    schema_version: Literal[1] = 1
    type: Literal["import"] = "import"
    #: The set folder written, relative to the project root when inside it.
    path: str
    name: str
    check: Check
    samples: int
    n_good: int
    n_bad: int
    #: Corpus documents written (``corpus.jsonl``).
    documents: int
    #: Distinct sample groups (samples in a group are not independent).
    groups: int
    #: Samples per category, by category.
    by_category: dict[str, int]
    #: Upstream records left out, by reason (``tie``, ``partially_supported``, ...).
    dropped: dict[str, int]
    notes: list[str]
