"""Calibration reports on disk: ``reports/<set>/<name>@<version>.json`` with its Markdown rendering beside it.

Both files are written together and atomically (a reader sees the old pair or the new pair, never half of
one). The JSON document is deterministic apart from ``created_at`` and ``environment``: fields in model order,
maps sorted by key, so ``calibrate --check`` and code review can compare reports.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.comparison import ComparisonReport
from graderctl.models.reports import CalibrationBatch, CalibrationReport, EnvironmentInfo
from graderctl.store.atomic import atomic_write_many
from graderctl.store.layout import REPORTS_DIR
from graderctl.store.problems import problems_from_validation
from graderctl.store.readers import display_path, read_bytes

_REPORT_FILE = re.compile(r"^(?P<name>[a-z0-9][a-z0-9._-]*)@(?P<version>\d+)\.json$")


def report_paths(
    root: Path, set_name: str, grader_name: str, version: int, split: str | None = None
) -> tuple[Path, Path]:
    """Where the report of ``grader_name@version`` on ``set_name`` lives: ``(json, markdown)``; a report on
    one split of the set (``calibrate --split certify``) is ``<name>@<version>.<split>.json``."""
    stem = f"{grader_name}@{version}" + (f".{split}" if split else "")
    base = root / REPORTS_DIR / set_name / stem
    return Path(f"{base}.json"), Path(f"{base}.md")


def report_files_present(json_path: Path, md_path: Path) -> tuple[bool, bool]:
    """Whether the JSON report and its Markdown rendering exist (``calibrate --check``)."""
    return json_path.is_file(), md_path.is_file()


def report_json_chunks(report: CalibrationReport) -> Iterator[str]:
    """The persisted JSON document in pieces (``schema_version`` first; numbers never NaN).

    Indented for reading, except ``samples``: one sample per line, each serialised by pydantic on its own, so
    a report of 100,000 samples streams to disk without being held in memory, and a change of one outcome is
    a one-line diff."""
    data = report.model_dump(mode="json", exclude={"samples"})
    head = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)[: -len("\n}")]
    if not report.samples:
        yield head + ',\n  "samples": []\n}\n'
        return
    yield head + ',\n  "samples": [\n'
    last = len(report.samples) - 1
    for i, sample in enumerate(report.samples):
        yield "    " + sample.model_dump_json() + (",\n" if i < last else "\n")
    yield "  ]\n}\n"


def batch_json_chunks(batch: CalibrationBatch) -> Iterator[str]:
    """The batch document ``calibrate --format json`` prints over several pairs, streamed report by report
    (each as :func:`report_json_chunks` writes it)."""
    yield '{\n"schema_version": 1,\n"type": "calibration_batch",\n"reports": [\n'
    for i, report in enumerate(batch.reports):
        if i:
            yield ",\n"
        yield from report_json_chunks(report)
    failures = [f.model_dump(mode="json") for f in batch.failures]
    yield '],\n"failures": ' + json.dumps(failures, indent=2, ensure_ascii=False) + "\n}\n"


def report_to_json(report: CalibrationReport) -> str:
    """The persisted JSON document as one string (see :func:`report_json_chunks`)."""
    return "".join(report_json_chunks(report))


#: Fields that say when and where a report was computed, not what it found.
_CIRCUMSTANCES = ("graderctl_version", "created_at", "environment")


def _same_value(a: Any, b: Any) -> bool:
    """JSON values equal, numbers within a relative 1e-9 (the last bits of a float computed by another
    machine's BLAS are not a finding)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _same_findings(path: Path, report: CalibrationReport) -> dict[str, Any] | None:
    """When the report at ``path`` (as :func:`report_json_chunks` writes it) found what ``report`` found,
    i.e. they differ at most in ``graderctl_version``, ``created_at`` and ``environment``: its head (every
    field but ``samples``). Streams the file, one sample per line. ``None`` otherwise."""
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError:
        return None
    with fh:
        try:
            head_lines: list[str] = []
            for line in fh:
                if line in ('  "samples": [\n', '  "samples": []\n'):
                    break
                head_lines.append(line)
            else:
                return None
            old = json.loads("".join(head_lines).rstrip().rstrip(",") + "\n}")
            new = report.model_dump(mode="json", exclude={"samples"})
            if not isinstance(old, dict) or not _same_value(
                {k: v for k, v in old.items() if k not in _CIRCUMSTANCES},
                {k: v for k, v in new.items() if k not in _CIRCUMSTANCES},
            ):
                return None
            if line.endswith("[]\n"):
                return old if not report.samples else None
            for sample in report.samples:
                text = fh.readline().strip().removesuffix(",")
                mine = sample.model_dump_json()
                if text != mine and not _same_value(json.loads(text), json.loads(mine)):
                    return None
            return old if fh.readline().strip() == "]" else None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None


def report_head(path: Path) -> dict[str, Any] | None:
    """Every field of a report before ``samples`` (which :func:`report_json_chunks` writes last), read
    without the samples; ``None`` when the file is not such a report."""
    try:
        with path.open("r", encoding="utf-8") as fh:
            head_lines: list[str] = []
            for line in fh:
                if line in ('  "samples": [\n', '  "samples": []\n'):
                    data = json.loads("".join(head_lines).rstrip().rstrip(",") + "\n}")
                    return data if isinstance(data, dict) else None
                head_lines.append(line)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def _same_content(path: Path, chunks: Iterable[str]) -> bool:
    """Whether ``path`` holds exactly the concatenation of ``chunks`` (compared as it streams)."""
    try:
        fh = path.open("r", encoding="utf-8", newline="")
    except OSError:
        return False
    with fh:
        try:
            for chunk in chunks:
                if fh.read(len(chunk)) != chunk:
                    return False
            return fh.read(1) == ""
        except (OSError, UnicodeDecodeError):
            return False


def unchanged_document(path: Path, new: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON document at ``path`` when it found what ``new`` found (equal but for ``graderctl_version``,
    ``created_at`` and ``environment``; numbers within 1e-9), else ``None``. For the smaller persisted
    documents (comparisons, probes) that are written in one piece."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(old, dict):
        return None

    def strip(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if k not in _CIRCUMSTANCES}

    return old if _same_value(strip(old), strip(new)) else None


def write_unless_unchanged(
    json_path: Path, md_path: Path, json_text: str, markdown: str, keep_json: bool
) -> list[Path]:
    """Write a JSON document and its Markdown atomically, leaving alone the JSON when ``keep_json`` (the same
    findings) and the Markdown when it is already the same; return the paths written."""
    files: dict[Path, str | Iterable[str]] = {}
    if not keep_json or not json_path.is_file():
        files[json_path] = json_text
    if not _same_content(md_path, [markdown]):
        files[md_path] = markdown
    if files:
        atomic_write_many(files)
    return list(files)


def keep_unchanged_report(root: Path, report: CalibrationReport) -> bool:
    """When the report on disk found what ``report`` found (see :func:`_same_findings`), give ``report`` its
    ``graderctl_version``, ``created_at`` and ``environment`` and return ``True``: the JSON document is then
    left as it is (timestamps alone are not a change)."""
    json_path, _ = report_paths(
        root, report.calibration_set.name, report.grader.name, report.grader.version, report.split
    )
    old = _same_findings(json_path, report)
    if old is None:
        return False
    report.graderctl_version = old.get("graderctl_version")
    report.created_at = old.get("created_at")
    report.environment = _environment(old.get("environment"))
    return True


def _environment(value: Any) -> EnvironmentInfo | None:
    """The ``environment`` of a report on disk, kept when its findings are unchanged."""
    if value is None:
        return None
    try:
        return EnvironmentInfo.model_validate(value)
    except ValidationError:
        return None


def write_report(
    root: Path, report: CalibrationReport, markdown: str, *, keep_json: bool = False
) -> list[Path]:
    """Write the JSON document and its Markdown rendering together, atomically; the JSON document is left
    alone when ``keep_json`` (:func:`keep_unchanged_report` said it holds the same findings), the Markdown
    when it is already the same. Return the paths written (none when both were current)."""
    json_path, md_path = report_paths(
        root, report.calibration_set.name, report.grader.name, report.grader.version, report.split
    )
    files: dict[Path, str | Iterable[str]] = {}
    if not keep_json or not json_path.is_file():
        files[json_path] = report_json_chunks(report)
    if not _same_content(md_path, [markdown]):
        files[md_path] = markdown
    if files:
        atomic_write_many(files)
    return list(files)


def read_report_document(
    path: Path, *, root: Path | None = None, expect: str | None = None
) -> dict[str, Any]:
    """Read a saved report document (any ``type``: calibration, comparison, metrics, probe, ...) as JSON,
    refusing one written by a newer graderctl; raise :class:`InvalidInputError` saying what is wrong."""
    shown = display_path(path, root)
    return report_document_of(read_bytes(path, shown), shown, expect=expect)


def report_document_of(raw: bytes, shown: str, *, expect: str | None = None) -> dict[str, Any]:
    """:func:`read_report_document` of the bytes ``raw`` read from the file ``shown``."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deeply, huge integers
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InvalidInputError(
            f"{shown}: not a JSON document",
            [
                Problem(
                    file=shown,
                    message=f"cannot parse the report: {why}",
                    fix="re-run the command that wrote it",
                )
            ],
        ) from None
    kind = data.get("type") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(kind, str) or (expect is not None and kind != expect):
        raise InvalidInputError(
            f"{shown}: not a {expect or 'graderctl'} report",
            [
                Problem(
                    file=shown,
                    pointer="/type",
                    message=f"not a {expect or 'graderctl'} report",
                    expected=f'"{expect}"'
                    if expect
                    else "a report type (calibration, comparison, metrics, ...)",
                    got=repr(data.get("type")) if isinstance(data, dict) else type(data).__name__,
                )
            ],
        )
    version = data.get("schema_version")
    if isinstance(version, int) and version > 1:
        raise InvalidInputError(
            f"{shown}: written by a newer graderctl",
            [
                Problem(
                    file=shown,
                    pointer="/schema_version",
                    message="the report's schema is newer than this graderctl understands",
                    expected="1",
                    got=str(version),
                    fix="upgrade graderctl",
                )
            ],
        )
    return data


def read_report(path: Path, *, root: Path | None = None) -> CalibrationReport:
    """Read and validate a report document; raise :class:`InvalidInputError` saying what is wrong."""
    data = read_report_document(path, root=root, expect="calibration")
    return calibration_from_document(data, display_path(path, root))


def calibration_from_document(data: dict[str, Any], shown: str) -> CalibrationReport:
    try:
        return CalibrationReport.model_validate(data)
    except ValidationError as exc:
        raise InvalidInputError(
            f"{shown}: invalid calibration report",
            problems_from_validation(exc, file=shown, model=CalibrationReport),
        ) from None


COMPARISONS_DIR = "comparisons"


def comparison_paths(root: Path, old_ref: str, new_ref: str) -> tuple[Path, Path]:
    """``reports/comparisons/<old_ref>--<new_ref>.json`` and ``.md``."""
    base = root / REPORTS_DIR / COMPARISONS_DIR / f"{old_ref}--{new_ref}"
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".md")


def comparison_to_json(report: ComparisonReport) -> str:
    """The persisted JSON document of a comparison (also what ``compare --format json`` prints)."""
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def keep_unchanged_comparison(root: Path, report: ComparisonReport) -> bool:
    """When the comparison on disk found what ``report`` found, give ``report`` its ``graderctl_version``,
    ``created_at`` and ``environment`` and return ``True`` (the JSON document is then left as it is)."""
    json_path, _ = comparison_paths(root, report.old.ref, report.new.ref)
    old = unchanged_document(json_path, report.model_dump(mode="json"))
    if old is None:
        return False
    report.graderctl_version = old.get("graderctl_version")
    report.created_at = old.get("created_at")
    report.environment = _environment(old.get("environment"))
    return True


def write_comparison_files(
    root: Path, report: ComparisonReport, markdown: str, *, keep_json: bool = False
) -> tuple[Path, Path]:
    """Write a comparison's JSON document and its Markdown rendering together, atomically (the JSON document
    left alone when ``keep_json``, the Markdown when it is already the same)."""
    json_path, md_path = comparison_paths(root, report.old.ref, report.new.ref)
    write_unless_unchanged(json_path, md_path, comparison_to_json(report), markdown, keep_json=keep_json)
    return json_path, md_path


def comparison_from_document(data: dict[str, Any], shown: str) -> ComparisonReport:
    try:
        return ComparisonReport.model_validate(data)
    except ValidationError as exc:
        raise InvalidInputError(
            f"{shown}: invalid comparison report",
            problems_from_validation(exc, file=shown, model=ComparisonReport),
        ) from None


def find_report(root: Path, set_name: str, grader_name: str, version: int) -> Path | None:
    """The report of ``grader_name@version`` on ``set_name``; failing that, the report of the newest other
    version of the same grader (its trust does not carry over, but it tells the grader was calibrated
    before); ``None`` when the grader was never calibrated on the set."""
    exact, _ = report_paths(root, set_name, grader_name, version)
    if exact.is_file():
        return exact
    folder = root / REPORTS_DIR / set_name
    if not folder.is_dir():
        return None
    found: list[tuple[int, Path]] = []
    for path in folder.glob(f"{grader_name}@*.json"):
        m = _REPORT_FILE.match(path.name)
        if m and m.group("name") == grader_name:
            found.append((int(m.group("version")), path))
    return max(found)[1] if found else None


def report_files(root: Path) -> list[Path]:
    """Every report document under ``reports/``."""
    base = root / REPORTS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.glob("*/*.json") if _REPORT_FILE.match(p.name))


def saved_report_sources(sources: Iterable[Path], *, skip_under: Path) -> list[tuple[Path, bool]]:
    """The report documents ``graderctl report`` is given: a folder's ``*.json`` files (sorted, except those
    inside ``skip_under``, the site being written) and each file named as is; with whether it was named
    (``True``) or found in a folder (``False``)."""
    found: list[tuple[Path, bool]] = []
    for source in sources:
        if source.is_dir():
            found += [(p, False) for p in sorted(source.rglob("*.json")) if skip_under not in p.parents]
        else:
            found.append((source, True))
    return found
