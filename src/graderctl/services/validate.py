"""``graderctl validate``: check files against the contract and their cross-references.

What a path is comes from its place and name (CONTRACT.md §1): ``graders/<name>/v<N>.toml`` is a grader
definition; a folder with ``manifest.toml`` (or any folder inside ``calibration_sets/``, or one holding
``samples.jsonl``) is a calibration set; ``corpus.jsonl``, ``*trials*.jsonl`` and ``*results*.jsonl`` are what
they say; a folder holding ``graders/`` or ``calibration_sets/`` is a project tree. Any other folder is
searched for those. ``as_type`` overrides the guess.

Bad data never raises: every problem goes to the outcome, up to a cap, with a count of the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.results import GradedResult
from graderctl.models.review import ReviewItem
from graderctl.models.trials import Trial
from graderctl.models.validation import CheckedFile, ProblemRecord, ValidationReport
from graderctl.store.corpus import load_corpus
from graderctl.store.discovery import (
    FILE_TYPES as FILE_TYPES,
)
from graderctl.store.discovery import (
    FileType,
    Kind,
    check_syntax,
    has_lock,
    path_state,
    samples_check,
    set_folder_of,
    walk,
)
from graderctl.store.discovery import (
    classify as classify,
)
from graderctl.store.discovery import (
    sniff as sniff,
)
from graderctl.store.layout import GRADERS_DIR, LOCK_NAME
from graderctl.store.lock import check_graders, read_lock_at
from graderctl.store.problems import ProblemSink, note_duplicate_trial
from graderctl.store.project import (
    LoadedGrader,
    check_manifest_file,
    check_samples_file,
    check_set,
    grader_files,
    load_grader,
    set_folders,
    stray_grader_files,
)
from graderctl.store.readers import display_path, duplicate_keys_checked, iter_jsonl_models, paused_gc

__all__ = [
    "FILE_TYPES",
    "CheckedFile",
    "FileType",
    "ValidationOutcome",
    "classify",
    "sniff",
    "validate_paths",
]


@dataclass
class ValidationOutcome:
    files: list[CheckedFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    omitted: int = 0
    notes: list[str] = field(default_factory=list)
    lock_added: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.omitted

    @property
    def problem_count(self) -> int:
        return len(self.problems) + self.omitted

    def document(self) -> ValidationReport:
        """What ``validate --format json`` prints."""
        return ValidationReport(
            ok=self.ok,
            files=self.files,
            problems=[ProblemRecord.model_validate(p.to_dict()) for p in self.problems],
            problem_count=self.problem_count,
            omitted_problems=self.omitted,
            notes=self.notes,
            lock_added=self.lock_added,
        )


@dataclass
class _Run:
    root: Path
    sink: ProblemSink
    out: ValidationOutcome
    graders: list[LoadedGrader] = field(default_factory=list)
    #: graders/ folders walked completely (a locked version missing there is a problem).
    complete: set[Path] = field(default_factory=set)
    done: set[tuple[Path, str]] = field(default_factory=set)

    def check(self, path: Path, kind: FileType) -> None:
        if kind == "set":
            path = set_folder_of(path)  # a set is checked as a whole, whichever of its files was named
        key = (path.resolve(), kind)
        if key in self.done:
            return
        self.done.add(key)
        shown = display_path(path, self.root)
        before = self.sink.count
        checked = CheckedFile(path=shown, type=kind, ok=False)
        try:
            if kind == "grader":
                grader = load_grader(path, root=self.root)
                self.graders.append(grader)
                checked.fingerprint = grader.fingerprint
                checked.detail = f"{grader.ref} ({grader.spec.kind}, {grader.spec.check.value})"
            elif kind == "set":
                summary = check_set(path, root=self.root, sink=self.sink)
                checked.fingerprint = summary.fingerprint
                checked.records = summary.n_samples
                checked.detail = (
                    f"{summary.n_samples} samples ({summary.n_good} good, {summary.n_bad} bad), "
                    f"{summary.n_documents} corpus documents"
                )
            elif kind == "corpus":
                checked.records = len(load_corpus(path, shown=shown, sink=self.sink))
            elif kind == "trials":
                checked.records = _check_trials(path, shown, self.sink)
            elif kind == "results":
                checked.records = _check_results(path, shown, self.sink)
            elif kind == "review":
                checked.records = _check_review(path, shown, self.sink)
            elif kind == "samples":
                check = samples_check(path)
                if check is None:
                    self.sink.add(_cannot_tell_check(shown))
                else:
                    checked.records = check_samples_file(path, check, root=self.root, sink=self.sink)
                    checked.detail = f"{check.value} samples"
            elif kind == "manifest":
                manifest = check_manifest_file(path, root=self.root, sink=self.sink)
                checked.detail = f"{manifest.name} ({manifest.check.value})" if manifest else ""
        except InvalidInputError as exc:
            self.sink.absorb(exc)
        n = self.sink.count - before
        checked.ok = n == 0
        checked.problems = n
        if n:
            checked.fingerprint = None
        self.out.files.append(checked)

    def expand(self, path: Path, kind: Kind) -> None:
        if kind == "project":
            self.expand(path, "graders-of")
            self.expand(path, "sets-of")
            return
        if kind == "tree":
            self.expand(path, "project")
            for child, child_kind in walk(path, recurse=False):
                self.dispatch(child, child_kind)
            return
        if kind in ("graders-of", "graders"):
            base = path if kind == "graders-of" else path.parent
            graders_dir = base / GRADERS_DIR
            self.complete.add(graders_dir.resolve())
            for g in grader_files(base):
                self.check(g, "grader")
            referenced = {(g.path.parent / rel).resolve() for g in self.graders for rel in g.files}
            for stray in stray_grader_files(base, referenced):
                self.check(stray, "grader")  # reported: a definition must be named v<N>.toml
        if kind in ("sets-of", "sets"):
            base = path if kind == "sets-of" else path.parent
            for s in set_folders(base):
                self.check(s, "set")
        if kind == "folder":
            found = walk(path)
            if not found:
                self.sink.add(
                    Problem(
                        file=display_path(path, self.root),
                        message="nothing to validate in this folder",
                        expected="a calibration-set folder with manifest.toml, graders/<name>/v<N>.toml, "
                        "corpus.jsonl, *trials*.jsonl or *results*.jsonl",
                        got="a folder with none of these",
                        fix="point at a set folder or a file; a set folder needs a manifest.toml",
                    )
                )
            for child, child_kind in found:
                self.dispatch(child, child_kind)

    def dispatch(self, path: Path, kind: Kind) -> None:
        if kind in ("project", "tree", "graders", "sets", "folder"):
            self.expand(path, kind)
        elif kind == "unknown":
            self.guess(path, named=False)
        else:
            self.check(path, kind)  # type: ignore[arg-type]

    def guess(self, path: Path, *, named: bool) -> None:
        """A file whose name says nothing: check it as what its content looks like; failing that, check its
        syntax. A file named on the command line that cannot be told is a problem; one met in a folder
        walk is only a note (unless its syntax is broken)."""
        shown = display_path(path, self.root)
        guessed, _ = sniff(path)
        if guessed is not None:
            self.out.notes.append(
                f"{shown}: treated as {guessed} (guessed from its content; say it with --as {guessed})"
            )
            self.check(path, guessed)
            return
        before = self.sink.count
        check_syntax(path, shown, self.sink)
        n = self.sink.count - before
        if n:
            self.out.notes.append(
                f"{shown}: cannot tell what this file is; only its syntax was checked (use --as)"
            )
        elif named:
            self.sink.add(_cannot_tell(shown, path.name))
            n = 1
        else:
            self.out.notes.append(f"{shown}: skipped: cannot tell what this file is (use --as to check it)")
            return
        self.out.files.append(CheckedFile(path=shown, type="unknown", ok=False, problems=n))


def validate_paths(
    paths: list[Path],
    *,
    root: Path,
    as_type: FileType | None = None,
    update_lock: bool = False,
    cap: int = 100,
) -> ValidationOutcome:
    """Validate every path (none: the project at ``root``, i.e. its graders/ and calibration_sets/); never
    raises for bad data: problems are collected in the outcome."""
    with duplicate_keys_checked():
        return _validate_paths(paths, root=root, as_type=as_type, update_lock=update_lock, cap=cap)


def _validate_paths(
    paths: list[Path], *, root: Path, as_type: FileType | None, update_lock: bool, cap: int
) -> ValidationOutcome:
    out = ValidationOutcome()
    run = _Run(root=root, sink=ProblemSink(cap), out=out)
    if not paths:
        run.expand(root, "project")
    for path in paths:
        shown = display_path(path, root)
        state = path_state(path)
        if state in ("missing", "broken_link"):
            loop = state == "broken_link"
            run.sink.add(
                Problem(
                    file=shown,
                    message="a symbolic link that leads nowhere (a symlink loop, or a missing target)"
                    if loop
                    else "no such file or folder",
                    expected="an existing path",
                    got="nothing at this path",
                    fix="check the path",
                )
            )
            continue
        kind: Kind | None = as_type or classify(path)
        if kind is None and state == "special":
            # A pipe (``<(...)``, ``/dev/stdin``) can be read once: guessing its type would consume it.
            run.sink.add(
                Problem(
                    file=shown,
                    message="cannot guess what a pipe or device holds without consuming it",
                    expected="a regular file, or --as saying what it holds",
                    got="a pipe or device",
                    fix="add --as trials|results|corpus|samples|grader|manifest",
                )
            )
            continue
        if kind is None:
            run.guess(path, named=True)
            continue
        run.dispatch(path, kind)
    if not out.files and not run.sink:
        out.notes.append("nothing to validate: no grader definitions or calibration sets found")
    _check_locks(run, update_lock)
    if not paths and not update_lock:
        from graderctl.store.lock import missing_lock_problem

        missing = missing_lock_problem(root, any_report=True)
        if missing is not None:
            run.sink.add(missing)
    out.problems = run.sink.problems
    out.omitted = run.sink.omitted
    return out


def _cannot_tell(shown: str, name: str) -> Problem:
    return Problem(
        file=shown,
        message="cannot tell what this file is",
        expected="graders/<name>/v<N>.toml, a set's manifest.toml or samples.jsonl, corpus.jsonl, "
        "*trials*.jsonl, *results*.jsonl or *.review.jsonl",
        got=repr(name),
        fix="rename it, or say what it is with --as grader|set|corpus|trials|results|samples|manifest|review",
    )


def _cannot_tell_check(shown: str) -> Problem:
    return Problem(
        file=shown,
        message="cannot tell which check these samples are for",
        expected="a manifest.toml beside it, or inputs shaped like one check's "
        "(citation; claim and evidence; nuggets and report)",
        got="neither",
        fix="put the file in a calibration-set folder with a manifest.toml",
    )


def _check_locks(run: _Run, update: bool) -> None:
    """Check loaded graders against the lock of the ``graders/`` folder they live in."""
    by_dir: dict[Path, list[LoadedGrader]] = {}
    for g in run.graders:
        folder = g.path.resolve().parent.parent
        if folder.name == GRADERS_DIR:
            by_dir.setdefault(folder, []).append(g)
    for folder in sorted(run.complete - set(by_dir)):
        if has_lock(folder):
            by_dir[folder] = []
    for folder, graders in sorted(by_dir.items()):
        try:
            lock = read_lock_at(folder / LOCK_NAME, root=run.root)
        except InvalidInputError as exc:
            run.sink.absorb(exc)
            continue
        result = check_graders(graders, lock, root=run.root, update=update, complete=folder in run.complete)
        run.sink.extend(result.problems)
        run.out.notes.extend(result.notes)
        lock_shown = display_path(lock.path, run.root)
        for ref in result.new:
            run.out.notes.append(
                f"{ref} is not in {lock_shown} yet (unreleased); run `graderctl validate --update-lock` "
                "to release it"
            )
        run.out.lock_added.extend(result.added)
        for problem in result.problems:
            _mark_failed(run.out, problem.file)


def _mark_failed(out: ValidationOutcome, shown: str) -> None:
    for f in out.files:
        if f.path == shown:
            f.ok = False
            f.problems += 1
            f.fingerprint = None


def _check_trials(path: Path, shown: str, sink: ProblemSink) -> int:
    seen: dict[tuple[str, str], int] = {}
    n = 0
    with paused_gc():
        for line, trial in iter_jsonl_models(path, Trial, shown=shown, sink=sink):
            n += 1
            note_duplicate_trial(seen, trial.task_id, trial.trial_id, line, shown, sink)
            _unique_ids([c.id for c in trial.report.claims], "/report/claims", "claim", line, shown, sink)
            _unique_ids([s.id for s in trial.report.sources], "/report/sources", "source", line, shown, sink)
    return n


def _check_results(path: Path, shown: str, sink: ProblemSink) -> int:
    seen: dict[tuple[str, str], int] = {}
    n = 0
    with paused_gc():
        for line, result in iter_jsonl_models(path, GradedResult, shown=shown, sink=sink):
            n += 1
            note_duplicate_trial(seen, result.task_id, result.trial_id, line, shown, sink)
    return n


def _check_review(path: Path, shown: str, sink: ProblemSink) -> int:
    """A review file written by ``score`` (each line a :class:`ReviewItem`; labels may still be empty)."""
    return sum(1 for _ in iter_jsonl_models(path, ReviewItem, shown=shown, sink=sink, strict=False))


def _unique_ids(ids: list[str], base: str, what: str, line: int, shown: str, sink: ProblemSink) -> None:
    first: dict[str, int] = {}
    for i, ident in enumerate(ids):
        if ident in first:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer=f"{base}/{i}/id",
                    message=f"duplicate {what} id {ident!r} in this trial",
                    expected=f"a unique {what} id",
                    got=f"{ident!r} again (first at {base}/{first[ident]})",
                    fix=f"give each {what} its own id",
                )
            )
        else:
            first[ident] = i
