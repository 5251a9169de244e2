"""Reading Inspect AI eval logs (``.eval`` and ``.json``) with Inspect AI's own reader.

``inspect_ai`` is an optional dependency (``pip install 'graderctl[inspect]'``): it is imported only here and
only when a log is read; without it, reading a log is an :class:`InvalidInputError` (exit 3) naming the extra.
The objects returned are Inspect's own (``EvalLog``, ``EvalSample``), read with attachments resolved (a long
tool result is stored once in the log and referenced from the messages) and without the event transcript,
which graderctl does not use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graderctl.errors import InvalidInputError, Problem

#: How an Inspect AI ``.json`` log begins: ``{"version": 2, "status": ...`` (a trials file's lines do not).
_JSON_LOG_START = re.compile(r'^\ufeff?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
#: Suffixes of Inspect AI log files.
LOG_SUFFIXES = (".eval", ".json")
INSTALL_HINT = "pip install 'graderctl[inspect]' (or pip install inspect-ai)"


def inspect_available() -> bool:
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        return False
    return True


def _require(shown: str) -> Any:
    try:
        import inspect_ai.log as log_module
    except ImportError as exc:
        raise InvalidInputError(
            f"{shown}: reading Inspect AI logs needs the optional extra graderctl[inspect]",
            [
                Problem(
                    file=shown,
                    message=f"inspect_ai cannot be imported ({exc})",
                    expected="the inspect-ai package installed",
                    fix=INSTALL_HINT,
                )
            ],
        ) from None
    return log_module


def looks_like_inspect_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect AI log: a ``.eval`` file (a zip archive), or a ``.json`` file whose
    top-level object starts like Inspect's (``version``, ``status``, ``eval``). Reads at most 4 KiB."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return _JSON_LOG_START.match(head.decode("utf-8", errors="replace")) is not None


def log_files(paths: list[Path], shown: dict[Path, str]) -> list[Path]:
    """The log files named, a folder standing for every ``.eval``/``.json`` log directly in it (sorted)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.suffix in LOG_SUFFIXES and looks_like_inspect_log(p)
            )
            if not found:
                name = shown.get(path, str(path))
                raise InvalidInputError(
                    f"{name}: no Inspect AI log in this folder",
                    [
                        Problem(
                            file=name,
                            message="the folder holds no .eval or .json Inspect AI log",
                            expected="*.eval or *.json logs written by `inspect eval`",
                            fix="give the log files, or the --log-dir folder Inspect wrote them to",
                        )
                    ],
                )
            out.extend(found)
        else:
            out.append(path)
    return out


def _unreadable(shown: str, exc: BaseException) -> InvalidInputError:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InvalidInputError(
        f"{shown}: not a readable Inspect AI log",
        [
            Problem(
                file=shown,
                message=f"Inspect AI's reader failed: {type(exc).__name__}: {text}"[:500],
                expected="an .eval or .json log written by Inspect AI",
                fix="give a log written by `inspect eval` (inspect_ai.log.read_eval_log must read it)",
            )
        ],
    )


def read_header(path: Path, shown: str) -> Any:
    """The log's header (``EvalLog`` without samples), read with ``inspect_ai.log.read_eval_log``."""
    log_module = _require(shown)
    if not path.exists():
        raise InvalidInputError(
            f"{shown}: no such file", [Problem(file=shown, message="no such file", fix="check the path")]
        )
    try:
        return log_module.read_eval_log(str(path), header_only=True)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise _unreadable(shown, exc) from None
    except Exception as exc:  # Inspect's reader raises its own and pydantic's errors on a foreign file
        raise _unreadable(shown, exc) from None


def iter_samples(path: Path, shown: str) -> Iterator[Any]:
    """The log's samples (``EvalSample``) one at a time, attachments resolved, events left out."""
    log_module = _require(shown)
    try:
        yield from log_module.read_eval_log_samples(
            str(path),
            all_samples_required=False,
            resolve_attachments=True,
            exclude_fields={"events", "events_data", "timelines"},
        )
    except Exception as exc:  # as above
        raise _unreadable(shown, exc) from None
