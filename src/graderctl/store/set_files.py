"""Adding samples to a calibration set's files (``graderctl sets add``): the manifest's version bumped in
place (its text otherwise kept), new lines appended to ``samples.jsonl`` and ``corpus.jsonl``, all written
together and atomically (:func:`graderctl.store.atomic.atomic_write_many`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.atomic import atomic_write_many
from graderctl.store.layout import CORPUS_NAME, MANIFEST_NAME, SAMPLES_NAME
from graderctl.store.readers import display_path

_VERSION_LINE = re.compile(r"^(version\s*=\s*)(\d+)(\s*(?:#.*)?)$", re.M)


def bumped_manifest(folder: Path, version: int, *, root: Path | None = None) -> str:
    """The text of the set's ``manifest.toml`` with its top-level ``version = N`` line set to ``version``
    (nothing else changed). Raises :class:`InvalidInputError` when there is no such line."""
    manifest_path = folder / MANIFEST_NAME
    manifest_text = manifest_path.read_text(encoding="utf-8")
    bumped, count = _VERSION_LINE.subn(lambda m: f"{m.group(1)}{version}{m.group(3)}", manifest_text, count=1)
    if count != 1:
        raise InvalidInputError(
            f"cannot find the version line of {display_path(manifest_path, root)}",
            [
                Problem(
                    file=display_path(manifest_path, root),
                    pointer="/version",
                    message="no top-level `version = N` line to bump",
                    fix="write the version as `version = N` on a line of its own",
                )
            ],
        )
    return bumped


def _appended(path: Path, lines: Sequence[str]) -> str:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(line + "\n" for line in lines)


def append_to_set(folder: Path, manifest_text: str, samples: Sequence[str], documents: Sequence[str]) -> None:
    """Write the new manifest and append the sample lines (and corpus lines, when any) to the set's files,
    all or none."""
    files: dict[Path, str] = {
        folder / MANIFEST_NAME: manifest_text,
        folder / SAMPLES_NAME: _appended(folder / SAMPLES_NAME, samples),
    }
    if documents:
        files[folder / CORPUS_NAME] = _appended(folder / CORPUS_NAME, documents)
    atomic_write_many(files)
