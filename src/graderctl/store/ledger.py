"""The certify-split ledger: ``reports/<set>/ledger.jsonl``, one line per calibration of a grader version on
the set's certify split. Appended (one ``write`` of one line, ``O_APPEND``), never rewritten; read to count
how many versions a certify split has already judged."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.tuning import LedgerEntry
from graderctl.store.layout import REPORTS_DIR
from graderctl.store.readers import display_path

LEDGER_NAME = "ledger.jsonl"


def ledger_path(root: Path, set_name: str) -> Path:
    return root / REPORTS_DIR / set_name / LEDGER_NAME


def read_ledger(root: Path, set_name: str) -> list[LedgerEntry]:
    """Every entry of a set's ledger (none when there is no ledger). A malformed line is an error naming
    file and line."""
    path = ledger_path(root, set_name)
    if not path.is_file():
        return []
    shown = display_path(path, root)
    out: list[LedgerEntry] = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            f"{shown}: cannot be read", [Problem(file=shown, message=str(exc), fix="restore the file")]
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(LedgerEntry.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise InvalidInputError(
                f"{shown}:{number}: not a ledger entry",
                [
                    Problem(
                        file=shown,
                        line=number,
                        message=f"not a ledger entry: {str(exc).splitlines()[0]}",
                        expected="one JSON object per line as `graderctl calibrate --split certify` writes",
                        fix="restore the line from version control (the ledger is append-only)",
                    )
                ],
            ) from None
    return out


def append_ledger(root: Path, entry: LedgerEntry) -> Path:
    """Append one entry (creating the folder and file as needed)."""
    path = ledger_path(root, entry.set)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (entry.model_dump_json() + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return path
