"""Agent-trial files: reading a trials file for ``score`` (validated in one pass, then read again chunk by
chunk), the corpus beside it, and writing what ``trials import`` produced (atomically, all or none)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from graderctl.models.trials import Trial
from graderctl.store.atomic import atomic_write_many
from graderctl.store.problems import ProblemSink, note_duplicate_trial
from graderctl.store.readers import (
    display_path,
    duplicate_keys_checked,
    iter_jsonl_file_models,
    open_binary,
    paused_gc,
    read_jsonl_models,
)

if TYPE_CHECKING:
    from graderctl.models.base import ModelIdentity
    from graderctl.models.calset import CorpusDocument
    from graderctl.models.results import GradedResult
    from graderctl.plugin import Corpus


def read_trials(path: Path, root: Path) -> list[Trial]:
    """Every trial of a trials file (exit 3 naming every bad line, and a trial given twice)."""
    shown = display_path(path, root)
    sink = ProblemSink()
    with duplicate_keys_checked():
        # from_value: each line is read into a value once for the key checks; Trial validates that value
        rows = read_jsonl_models(path, Trial, shown=shown, sink=sink, from_value=True)
    seen: dict[tuple[str, str], int] = {}
    for line, trial in rows:
        note_duplicate_trial(seen, trial.task_id, trial.trial_id, line, shown, sink)
    sink.raise_if_any(shown)
    return [t for _, t in rows]


class TrialRef(NamedTuple):
    """One trial of a trials file, without its report: its ids and generator (for the checks before
    grading) and where its line is in the file (``offset``, ``length`` in bytes), to read it again."""

    task_id: str
    trial_id: str
    generator: ModelIdentity | None
    offset: int
    length: int


def index_trials(path: Path, root: Path) -> tuple[list[TrialRef], BinaryIO]:
    """Validate every trial of ``path`` (the same problems as :func:`read_trials`; exit 3 before anything is
    graded) while reading the file as it goes, keeping only a :class:`TrialRef` per trial: memory does not
    grow with the size of the reports. Returns the refs and the file, open, to read the trials again from
    (a pipe or a device is first copied to an anonymous temporary file)."""
    shown = display_path(path, root)
    fh = open_binary(path, shown)
    if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        with fh:
            copy: BinaryIO = tempfile.TemporaryFile(prefix="graderctl-trials-")  # noqa: SIM115 (kept open)
            shutil.copyfileobj(fh, copy)
        fh = copy
    sink = ProblemSink()
    seen: dict[tuple[str, str], int] = {}
    refs: list[TrialRef] = []
    generators: dict[str, ModelIdentity] = {}  # one object per distinct generator, shared by its trials
    try:
        with paused_gc(), duplicate_keys_checked():
            for line, offset, length, trial in iter_jsonl_file_models(
                path, Trial, shown=shown, sink=sink, fh=fh
            ):
                note_duplicate_trial(seen, trial.task_id, trial.trial_id, line, shown, sink)
                generator = trial.generator
                if generator is not None:
                    generator = generators.setdefault(generator.model_dump_json(), generator)
                refs.append(TrialRef(trial.task_id, trial.trial_id, generator, offset, length))
        sink.raise_if_any(shown)
    except BaseException:
        fh.close()
        raise
    return refs, fh


def index_trial_models(trials: Sequence[Trial], root: Path) -> tuple[list[TrialRef], BinaryIO]:
    """:func:`index_trials` over trials read from elsewhere (an Inspect AI log): written to a temporary
    JSON Lines file, indexed, and the file's name removed (the open file stays readable)."""
    fd, name = tempfile.mkstemp(prefix="graderctl-inspect-", suffix=".jsonl")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(_jsonl(t.model_dump(mode="json", exclude_none=True) for t in trials))
        return index_trials(path, root)
    finally:
        path.unlink()


def read_chunk(fd: int, refs: Sequence[TrialRef]) -> list[bytes]:
    """The lines of ``refs`` from the trials file open as ``fd``."""
    return [os.pread(fd, ref.length, ref.offset) for ref in refs]


def read_corpus(path: Path, root: Path) -> Corpus:
    # imported here: only a run with a corpus needs the plugin API
    from graderctl.plugin import Corpus
    from graderctl.store.corpus import load_corpus

    shown = display_path(path, root)
    sink = ProblemSink()
    docs = load_corpus(path, shown=shown, sink=sink)
    sink.raise_if_any(shown)
    return Corpus(docs)


def _jsonl(documents: Iterable[dict[str, object]]) -> list[str]:
    return [json.dumps(d, ensure_ascii=False) + "\n" for d in documents]


def write_imported(
    trials: Sequence[Trial],
    output: Path,
    *,
    documents: Sequence[CorpusDocument] = (),
    corpus_output: Path | None = None,
    results: Sequence[GradedResult] = (),
    results_output: Path | None = None,
) -> None:
    """Write what ``trials import`` read: the trials, and the corpus of pages read and the result lines when
    their files are given; all replaced or none (:func:`graderctl.store.atomic.atomic_write_many`)."""
    files: dict[Path, str | Iterable[str]] = {
        output: _jsonl(t.model_dump(mode="json", exclude_none=True) for t in trials)
    }
    if corpus_output is not None:
        files[corpus_output] = _jsonl(d.model_dump(mode="json", exclude_none=True) for d in documents)
    if results_output is not None:
        files[results_output] = _jsonl(r.to_line() for r in results)
    atomic_write_many(files)
