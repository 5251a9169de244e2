"""Warnings of the statistics as notes for people (issue 11 item 20: a warning names no internal function).

:mod:`graderctl.stats` words its :class:`~graderctl.stats.UndefinedMetricWarning` for programmers, in the
scikit-learn way (``wilson_interval is undefined for n = 0 trials; returning None``). The services that pass
them on say what is undefined and show it as ``null``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

#: ``bootstrap_tasks_interval: ...``: a function's name leading the message.
_LEADING_NAME = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+: ")
#: ``wilson_interval is undefined ...``: a function's name as the subject.
_NAME_IS = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+ is undefined")
#: Whole messages reworded.
_REWORDED = {
    "too many plausible (FAR, FRR) pairs sum to 1": (
        "the corrected success rate has no interval (null): too many plausible (FAR, FRR) pairs of the "
        "calibration reports sum to 1 or more for the correction to be bounded; use larger calibration sets"
    ),
}


_NULL_WORDS = (("; returning None", " (null)"), ("; it is None", " (null)"), (" None", " null"))


def plain_note(message: str) -> str:
    """``message`` without the internal function's name, an undefined value said as ``null``."""
    for marker, text in _REWORDED.items():
        if marker in message:
            return text
    text = _LEADING_NAME.sub("", message)
    text = _NAME_IS.sub("the value is undefined", text)
    for programmer, people in (
        ("; returning None", " (null)"),
        ("; it is None", " (null)"),
        (" None", " null"),
    ):
        text = text.replace(programmer, people)
    return text


def plain_notes(caught: Iterable[warnings.WarningMessage], *, leave_out: tuple[str, ...] = ()) -> list[str]:
    """The caught warnings as notes, in order, each once; messages containing a ``leave_out`` text (about a
    number the document does not report) are left out."""
    out: list[str] = []
    for w in caught:
        message = str(w.message)
        if any(part in message for part in leave_out):
            continue
        note = plain_note(message)
        if note not in out:
            out.append(note)
    return out
