"""The files of a ``score`` run: the results file (``RESULTS``), the partial file written as trials are
graded (``RESULTS.partial``, renamed over ``RESULTS`` when complete), and the review file (written beside
as ``REVIEW.partial`` and renamed the same way); reading results back (``--rescore``) and the lines of an
interrupted run (``--resume``)."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.results import GradedResult, ReviewSummary
from graderctl.models.review import ReviewItem
from graderctl.store.readers import display_path, open_binary, read_bytes

PARTIAL_SUFFIX = ".partial"
REVIEW_SUFFIX = ".review.jsonl"


def partial_path(output: Path) -> Path:
    return output.with_name(output.name + PARTIAL_SUFFIX)


def review_path(output: Path) -> Path:
    """The default review file of a results file: ``results.jsonl`` -> ``results.review.jsonl``."""
    stem = output.name[: -len(".jsonl")] if output.name.endswith(".jsonl") else output.name
    return output.with_name(stem + REVIEW_SUFFIX)


def _line(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, allow_nan=False) + "\n"


def read_results_lines(
    path: Path, root: Path, *, tolerate_truncated_end: bool
) -> tuple[list[dict[str, Any]], int]:
    """The JSON lines of a results file and the number of trailing bytes that belong to a truncated last line
    (a run killed mid-write). Any other bad line is an error."""
    shown = display_path(path, root)
    data = read_bytes(path, shown)
    lines: list[dict[str, Any]] = []
    problems: list[Problem] = []
    keep = len(data)
    offset = 0
    raw_lines = data.split(b"\n")
    for number, raw in enumerate(raw_lines, start=1):
        start = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # also: nested too deeply, a number of 5,000 digits
            if tolerate_truncated_end and number == len(raw_lines) and isinstance(exc, json.JSONDecodeError):
                keep = start
                break
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            problems.append(Problem(file=shown, line=number, message=f"invalid JSON: {why}"))
            continue
        if not isinstance(value, dict) or not isinstance(value.get("task_id"), str):
            problems.append(
                Problem(file=shown, line=number, message="not a result line", expected="a graded trial")
            )
            continue
        lines.append(value)
    if problems:
        raise InvalidInputError(f"{shown}: cannot continue from this file", problems)
    return lines, len(data) - keep


def read_results(path: Path, root: Path) -> list[GradedResult]:
    """Every line of a complete results file (``--rescore``), validated: a bad line is an error (exit 3)."""
    shown = display_path(path, root)
    lines, _ = read_results_lines(path, root, tolerate_truncated_end=False)
    out: list[GradedResult] = []
    for line in lines:
        try:
            out.append(GradedResult.model_validate(line))
        except ValueError as exc:  # pydantic's ValidationError: report it plainly
            raise InvalidInputError(
                f"{shown}: invalid result line", [Problem(file=shown, message=str(exc).splitlines()[0])]
            ) from None
    return out


def as_result(line: object) -> GradedResult | None:
    """A line of a results file as a :class:`GradedResult`; ``None`` when it is not one."""
    if not isinstance(line, dict) or not isinstance(line.get("task_id"), str):
        return None
    try:
        return GradedResult.model_validate(line)
    except ValueError:  # pydantic's ValidationError
        return None


# --- resuming ---------------------------------------------------------------------------------------


def drop_empty_partial(output: Path) -> bool:
    """Remove ``RESULTS.partial`` when it is empty (left by a run that failed before grading a trial: nothing
    to resume, so nothing to protect); whether it was removed."""
    partial = partial_path(output)
    if partial.is_file() and partial.stat().st_size == 0:
        partial.unlink()
        return True
    return False


def partial_exists(output: Path) -> bool:
    return partial_path(output).exists()


def resume_source(output: Path) -> Path | None:
    """What ``--resume`` continues from: the partial file, else the complete results, else nothing."""
    partial = partial_path(output)
    return partial if partial.exists() else output if output.exists() else None


def copy_result_lines(
    source: Path, shown: str, output: Path, keep: Callable[[GradedResult], bool]
) -> tuple[Path, bool]:
    """Read the results file ``source`` line by line (never whole) and copy the lines ``keep`` accepts, as
    they are, to a new temporary file beside ``RESULTS.partial``; returns it and whether the last line was
    cut short by a crash (it is dropped: that trial is graded again). A line that is not JSON or not a
    result line is an error (exit 3, every such line named); ``keep`` is not asked once one was found."""
    problems: list[Problem] = []
    truncated = False
    partial = partial_path(output)
    partial.parent.mkdir(parents=True, exist_ok=True)
    kept = partial.with_name(f".{partial.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(kept, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the user's umask applies
    try:
        with os.fdopen(fd, "wb") as out, open_binary(source, shown) as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    if not raw.endswith(b"\n"):  # the last line, cut short by a crash: graded again
                        truncated = True
                        break
                    problems.append(Problem(file=shown, line=number, message=f"invalid JSON: {exc}"))
                    continue
                result = as_result(line)
                if result is None:
                    problems.append(
                        Problem(
                            file=shown, line=number, message="not a result line", expected="a graded trial"
                        )
                    )
                    continue
                if problems:
                    continue  # only looking for problems now
                if keep(result):
                    out.write(raw.rstrip(b"\r\n") + b"\n")
        if problems:
            raise InvalidInputError(f"{shown}: cannot continue from this file", problems)
    except BaseException:
        kept.unlink(missing_ok=True)
        raise
    return kept, truncated


def discard(path: Path | None) -> None:
    """Remove a temporary file of the run (when there is one)."""
    if path is not None:
        path.unlink(missing_ok=True)


# --- writing ----------------------------------------------------------------------------------------


class ResultsWriter:
    """Writes result lines to ``RESULTS.partial`` (flushed after every line, so an interrupted run can be
    resumed); :meth:`commit` renames it over ``RESULTS``. With ``kept`` (the lines kept from the run being
    resumed, :func:`copy_result_lines`) the partial file starts with them."""

    def __init__(self, output: Path, *, kept: Path | None = None) -> None:
        self.output = output
        self.partial = partial_path(output)
        if kept is not None:
            os.replace(kept, self.partial)
            self.fh: IO[str] = self.partial.open("a", encoding="utf-8", newline="\n")
        else:
            self.fh = self.partial.open("w", encoding="utf-8", newline="\n")

    def write(self, line: GradedResult) -> None:
        self.fh.write(_line(line.to_line()))
        self.fh.flush()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        with self.fh:
            if exc[0] is None:
                self.fh.flush()
                os.fsync(self.fh.fileno())

    def commit(self) -> None:
        os.replace(self.partial, self.output)


def make_parent(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)


class ReviewWriter:
    """Writes review items to ``PATH.partial`` as the result lines are written, and moves it to ``PATH`` at
    the end when it holds any (no review file when no unit needs review). Resuming keeps the items of the
    trials already graded."""

    def __init__(self, path: Path, done: Iterable[tuple[str, str]], *, resuming: bool) -> None:
        self.path = path
        self.partial = partial_path(path)
        self.count = 0
        self.by_status: dict[str, int] = {}
        kept: list[str] = []
        if resuming and self.partial.is_file():
            keep = set(done)
            with self.partial.open(encoding="utf-8") as old:
                for text in old:
                    try:
                        item = json.loads(text)
                    except ValueError:
                        continue  # a line cut short by the interruption: that trial is graded again
                    if isinstance(item, dict) and (item.get("task_id"), item.get("trial_id")) in keep:
                        kept.append(text if text.endswith("\n") else text + "\n")
                        self._count(item.get("status"))
        self.fh: IO[str] = self.partial.open("w", encoding="utf-8", newline="\n")
        self.fh.writelines(kept)

    def _count(self, status: object) -> None:
        self.count += 1
        self.by_status[str(status)] = self.by_status.get(str(status), 0) + 1

    def add(self, items: Iterable[ReviewItem]) -> None:
        for item in items:
            self.fh.write(_line(item.model_dump(mode="json", exclude_unset=True)))
            self._count(item.status)

    def __enter__(self) -> ReviewWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()

    def finish(self, root: Path) -> ReviewSummary | None:
        if not self.count:
            self.partial.unlink(missing_ok=True)
            return None
        os.replace(self.partial, self.path)
        return ReviewSummary(path=display_path(self.path, root), items=self.count, by_status=self.by_status)
