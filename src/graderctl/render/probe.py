"""The text rendering of ``graderctl probe``: one line per probe and set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: How each probe outcome is shown ("ok" only when the evidence rules a bias out).
STATUS_SHOWN = {"biased": "BIAS", "no_bias": "ok", "not_applicable": "n/a", "inconclusive": "inconclusive"}


def render_probe_text(grader: str, results: Sequence[tuple[str, str, Mapping[str, Any]]]) -> str:
    """``results``: (set name, outcome, probe document) for each probe run."""
    lines = []
    for set_name, outcome, doc in results:
        status = STATUS_SHOWN.get(outcome, "inconclusive")
        lines.append(f"{status:12}  {doc['probe']:6} {grader} on {set_name}: {doc.get('verdict', '')}\n")
    return "".join(lines)
