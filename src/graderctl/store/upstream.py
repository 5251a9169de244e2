"""The files of public datasets imported as calibration sets (``graderctl sets import``), and the writing of
the imported set folder.

Finding an upstream dataset's files (WiCE claim files, REALSumm rating CSVs, AttributionBench JSONL files),
the manifests of the project's shipped sets (whose policies an import copies), the text of a set's
``manifest.toml`` and JSON Lines files, and the atomic write of the folder (all files or none:
:func:`graderctl.store.atomic.atomic_write_folder`). Parsing and building the set stay in
``graderctl.services.importers``.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graderctl.errors import InvalidInputError, Problem, UsageError
from graderctl.models.calset import SetManifest
from graderctl.store.atomic import atomic_write_folder
from graderctl.store.project import set_folders

# --- finding the upstream files ---------------------------------------------------------------------------


def _no_files(source: Path, what: str, *, expected: str, fix: str) -> InvalidInputError:
    """The error for a SOURCE that holds none of the dataset's files."""
    return InvalidInputError(
        f"{source}: no {what} files",
        [Problem(file=str(source), message=f"no {what} files found", expected=expected, got="none", fix=fix)],
    )


def _no_source(source: Path, fix: str) -> InvalidInputError:
    """The error for a SOURCE that does not exist."""
    return InvalidInputError(
        f"{source}: no such file or folder",
        [Problem(file=str(source), message="no such file or folder", fix=fix)],
    )


def wice_files(source: Path) -> list[Path]:
    """The WiCE claim files under ``source``: the file itself, ``claims-*.jsonl`` in the folder, or the
    upstream layout ``data/entailment_retrieval/claim/*.jsonl``."""
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise _no_source(source, "give the WiCE folder or file")
    found = sorted(source.glob("claims-*.jsonl"))
    if not found:
        found = sorted((source / "data" / "entailment_retrieval" / "claim").glob("*.jsonl"))
    if not found:
        raise _no_files(
            source,
            "WiCE claim",
            expected="claims-*.jsonl, or the upstream data/entailment_retrieval/claim/*.jsonl",
            fix="point SOURCE at the folder holding the claim files, or at one file",
        )
    return found


def realsumm_rating_files(source: Path) -> list[Path]:
    """The REALSumm rating CSVs: ``SOURCE/ratings/*.csv`` (this project's layout), or under the upstream
    ``human_annotations/SCUs_and_annotations/``; SOURCE may also be the ratings folder itself."""
    candidates = [
        source / "ratings",
        source,
        source / "human_annotations" / "SCUs_and_annotations" / "ratings",
        source / "SCUs_and_annotations" / "ratings",
    ]
    for folder in candidates:
        if folder.is_dir():
            files = sorted(folder.glob("*.csv"))
            files = [f for f in files if f.name != "scus.csv"]
            if files:
                return files
    raise _no_files(
        source,
        "REALSumm rating",
        expected="ratings/<abs|ext>_<system>.csv under SOURCE",
        fix="point SOURCE at the folder that holds ratings/ (and scus.csv)",
    )


def attributionbench_files(source: Path) -> list[Path]:
    """The AttributionBench JSONL files: SOURCE itself, or every ``*.jsonl`` in the folder SOURCE (sorted)."""
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise _no_source(source, "give an AttributionBench .jsonl file, or the folder holding them")
    found = sorted(p for p in source.glob("*.jsonl") if p.is_file())
    if not found:
        raise _no_files(
            source,
            "AttributionBench",
            expected="*.jsonl files such as attribution_eval_binary_test_v1_5.jsonl",
            fix="point SOURCE at the folder holding the .jsonl files, or at one file",
        )
    return found


# --- the project's shipped sets ----------------------------------------------------------------------------


def shipped_manifests(root: Path) -> list[tuple[Path, SetManifest]]:
    """The manifest of every set under ``calibration_sets/`` (by folder name) that reads and validates; the
    others are left out (``validate`` reports them)."""
    found: list[tuple[Path, SetManifest]] = []
    for folder in set_folders(root):
        try:
            data = tomllib.loads((folder / "manifest.toml").read_text(encoding="utf-8"))
            found.append((folder, SetManifest.model_validate(data)))
        except (OSError, ValueError, ValidationError):
            continue
    return found


# --- writing the imported set ------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def manifest_toml(manifest: SetManifest) -> str:
    """The manifest as TOML: top-level keys first, then one table per mapping."""
    data = manifest.model_dump(mode="json", exclude_none=True)
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, table in tables:
        lines.append("")
        lines.append(f"[{key}]")
        for k, v in table.items():
            bare = re.fullmatch(r"[A-Za-z0-9_-]+", k) is not None
            lines.append(f"{k if bare else json.dumps(k, ensure_ascii=False)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def jsonl_text(items: Iterable[Any]) -> str:
    """Models as JSON Lines (``None`` fields left out), as a set's ``samples.jsonl`` and ``corpus.jsonl``."""
    return "".join(
        json.dumps(i.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n" for i in items
    )


def write_set_folder(parent: Path, name: str, files: Mapping[str, str], *, force: bool = False) -> Path:
    """Write a set's files to ``parent/<name>/`` atomically (staged beside it, moved into place in one
    rename). An existing folder is replaced only with ``force`` (else a :class:`UsageError`, exit 2)."""
    target = parent / name
    if target.exists() and not force:
        raise UsageError(
            f"{target} already exists; pass --force to replace it, or choose another --name or --output"
        )
    atomic_write_folder(target, files)
    return target
