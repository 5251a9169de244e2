"""Probe reports on disk: ``reports/probes/<set>/<name>@<version>-<probe>.json`` and ``.md``, written
atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graderctl.models.probe import AnyProbeReport
from graderctl.store.layout import REPORTS_DIR
from graderctl.store.reports import unchanged_document, write_unless_unchanged


def probe_paths(root: Path, set_name: str, grader_name: str, version: int, probe: str) -> tuple[Path, Path]:
    base = root / REPORTS_DIR / "probes" / set_name / f"{grader_name}@{version}-{probe}"
    return base.with_suffix(".json"), base.with_suffix(".md")


def previous_probe_report(json_path: Path, report: AnyProbeReport) -> dict[str, Any] | None:
    """The probe report at ``json_path`` when it found what ``report`` finds (timestamps alone are not a
    change), else ``None``."""
    return unchanged_document(json_path, json.loads(json.dumps(report.model_dump(), allow_nan=False)))


def write_probe_report(
    json_path: Path, md_path: Path, report: AnyProbeReport, markdown: str, *, keep_json: bool
) -> list[Path]:
    """Write the report and its Markdown atomically; the JSON is left alone when ``keep_json`` (the same
    findings), the Markdown when it is already the same."""
    text = json.dumps(report.model_dump(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return write_unless_unchanged(json_path, md_path, text, markdown, keep_json=keep_json)
