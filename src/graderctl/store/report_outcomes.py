"""What trust reads of a calibration report, fast: the report without its outcomes, validated by the model
(:class:`graderctl.models.reports.CalibrationReport`), and its per-sample outcomes as light ``msgspec``
records instead of 100,000 validated models.

The outcomes are held to the model's rules: :class:`Outcome` mirrors ``SampleOutcome`` field by field with
types that accept a subset of what the model accepts, with the same values (``true``/``false`` only where the
model also takes ``1`` or ``"yes"``, finite numbers, strings, the labels); unknown fields are left alone, as
the model allows them. The document is parsed by the same JSON parser as before, so ``NaN``, a number too
large for a float, duplicate keys and deep nesting are read alike. A document whose outcomes the records do
not accept, or whose head the model refuses, is read by the model whole, exactly as
:func:`graderctl.store.reports.read_report` reads it, and so refused or accepted with the same message.
``tests/store/test_report_outcomes.py`` holds the two paths to this.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
from pydantic import ValidationError

from graderctl.models.base import Label
from graderctl.models.reports import CalibrationReport
from graderctl.store.readers import display_path, paused_gc, read_bytes
from graderctl.store.reports import calibration_from_document, report_document_of

_Finite = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]


class _Usage(msgspec.Struct, kw_only=True):
    input_tokens: int = 0
    output_tokens: int = 0
    usd: int | _Finite = 0.0
    requests: int = 0
    retries: int | None = None
    cached: bool = False


class Outcome(msgspec.Struct, kw_only=True):
    """One outcome of a report's ``samples`` (the fields of ``SampleOutcome``; others are ignored, as the
    model keeps them unchecked)."""

    id: str
    label: Label
    accepted: bool | None
    error: str | None = None
    reason: str = ""
    score: _Finite | None = None
    category: str | None = None
    group: str | None = None
    generator: str | None = None
    correct: bool | None = None
    undecided: bool | None = None
    details: dict[str, Any] | None = None
    usage: _Usage | None = None


_OUTCOMES = list[Outcome]


def read_report_outcomes(
    path: Path, *, root: Path | None = None
) -> tuple[CalibrationReport, Sequence[Outcome] | None]:
    """A calibration report, checked as :func:`graderctl.store.reports.read_report` checks it (raising the
    same :class:`InvalidInputError`), and its outcomes: ``(report without samples, outcomes)`` when the fast
    path read them, else ``(report, None)`` with the outcomes in ``report.samples``."""
    shown = display_path(path, root)
    raw = read_bytes(path, shown)
    with paused_gc():
        return _read(raw, shown)


def _read(raw: bytes, shown: str) -> tuple[CalibrationReport, Sequence[Outcome] | None]:
    data = report_document_of(raw, shown, expect="calibration")
    samples = data.get("samples")
    if isinstance(samples, list):
        try:
            outcomes = msgspec.convert(samples, _OUTCOMES)
        except msgspec.ValidationError:
            pass
        else:
            head = {key: value for key, value in data.items() if key != "samples"}
            head["samples"] = []
            try:
                return CalibrationReport.model_validate(head), outcomes
            except ValidationError:
                pass
    return calibration_from_document(data, shown), None
