"""``graders/graders.lock``: released grader versions and their fingerprints.

A released version is immutable: when its definition or a file it references changes, its fingerprint no
longer matches the lock and ``validate`` fails, saying to bump the version. New versions are added by
``graderctl validate --update-lock``; an entry whose content changed is never rewritten.

The lock also records the kind implementation (``<kind>/<implementation_version>``) each entry was locked
with. When only that changed (a new release of the kind's code), the definition is still the released one:
``validate`` says so in a note (trust bound to the old fingerprint lapses) and ``--update-lock`` records the
new fingerprint.

Format::

    schema_version = 1

    [graders]
    "claim-support@1" = "sha256:..."

    [implementations]
    "claim-support@1" = "claim_support/1"
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.atomic import atomic_write_text
from graderctl.store.fingerprint import grader_fingerprint
from graderctl.store.layout import GRADERS_DIR, LOCK_NAME
from graderctl.store.project import _VERSION_FILE
from graderctl.store.readers import display_path, read_toml, toml_line_of

if TYPE_CHECKING:
    from graderctl.store.project import LoadedGrader

_HEADER = (
    "# Released grader versions and their fingerprints. A released version is never edited:\n"
    "# change anything that can change a verdict and bump the version (new v<N+1>.toml).\n"
    "# New versions are added by `graderctl validate --update-lock`; existing entries are never rewritten.\n"
)
_REF = re.compile(r"^[a-z0-9][a-z0-9._-]*@[1-9][0-9]*$")
_FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")


@dataclass
class Lock:
    path: Path
    entries: dict[str, str]
    #: ``name@version`` -> ``<kind>/<implementation_version>`` it was locked with (may be absent).
    implementations: dict[str, str] = field(default_factory=dict)


def lock_path(root: Path) -> Path:
    return root / GRADERS_DIR / LOCK_NAME


def read_lock(root: Path) -> Lock:
    """The lock of the project at ``root`` (empty when there is none)."""
    return read_lock_at(lock_path(root), root=root)


def read_lock_at(path: Path, *, root: Path | None = None) -> Lock:
    """Read a lock file; every malformed entry is reported (``InvalidInputError``, exit 3)."""
    if not path.exists():
        return Lock(path=path, entries={})
    shown = display_path(path, root)
    data, text = read_toml(path, shown)
    line_of = toml_line_of(text)
    problems: list[Problem] = []
    fix = (
        "restore graders.lock from version control; "
        "new entries are written by `graderctl validate --update-lock`"
    )
    if data.get("schema_version") != 1:
        problems.append(
            Problem(
                file=shown,
                line=line_of(("schema_version",)),
                pointer="/schema_version",
                message="unsupported or missing lock schema_version",
                expected="1",
                got=repr(data.get("schema_version", "nothing")),
                fix=fix,
            )
        )
    for key in data:
        if key not in ("schema_version", "graders", "implementations"):
            problems.append(
                Problem(
                    file=shown,
                    line=line_of((key,)),
                    pointer=f"/{key}",
                    message=f"unknown key {key!r} in the lock",
                    expected="schema_version, [graders], [implementations]",
                    got=repr(key),
                    fix=fix,
                )
            )
    entries: dict[str, str] = {}
    implementations: dict[str, str] = {}
    for table, pattern, what, target in (
        ("graders", _FINGERPRINT, '"sha256:" and 64 hex digits', entries),
        ("implementations", None, "a string such as claim_support/1", implementations),
    ):
        value = data.get(table, {})
        if not isinstance(value, dict):
            problems.append(
                Problem(
                    file=shown,
                    line=line_of((table,)),
                    pointer=f"/{table}",
                    message=f"[{table}] is not a table",
                    expected=f'a [{table}] table of "name@version" = ...',
                    got=type(value).__name__,
                    fix=fix,
                )
            )
            continue
        for ref, fp in value.items():
            bad_ref = not _REF.match(ref)
            bad_value = not isinstance(fp, str) or (pattern is not None and not pattern.match(fp))
            if bad_ref or bad_value:
                problems.append(
                    Problem(
                        file=shown,
                        line=line_of((table, ref)),
                        pointer=f"/{table}/{ref.replace('~', '~0').replace('/', '~1')}",
                        message="malformed lock entry",
                        expected=f'"name@version" = {what}',
                        got=f"{ref!r} = {fp!r}",
                        fix=fix,
                    )
                )
                continue
            target[ref] = str(fp)
    if problems:
        raise InvalidInputError(f"{shown}: malformed lock", problems)
    return Lock(path=path, entries=entries, implementations=implementations)


def write_lock(lock: Lock) -> None:
    """Write the lock (sorted, atomically)."""
    lines = [_HEADER, "schema_version = 1", "", "[graders]"]
    lines += [f'"{ref}" = "{lock.entries[ref]}"' for ref in sorted(lock.entries)]
    impl = {ref: v for ref, v in lock.implementations.items() if ref in lock.entries}
    if impl:
        lines += ["", "[implementations]"]
        lines += [f'"{ref}" = "{impl[ref]}"' for ref in sorted(impl)]
    atomic_write_text(lock.path, "\n".join(lines) + "\n")


def parse_lock_text(text: str) -> dict[str, str]:
    import tomllib

    return dict(tomllib.loads(text).get("graders", {}))


# --- checking graders against the lock ----------------------------------------------------------------


@dataclass
class LockCheck:
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Refs not in the lock yet (unreleased).
    new: list[str] = field(default_factory=list)
    #: Refs whose kind implementation changed while the definition did not.
    reimplemented: list[str] = field(default_factory=list)
    #: Refs added or refreshed by ``update``.
    added: list[str] = field(default_factory=list)


def implementation_of(grader: LoadedGrader) -> str:
    return f"{grader.kind.name}/{grader.kind.implementation_version}"


def _next_version(grader: LoadedGrader) -> int:
    versions = [
        int(m.group(1)) for p in grader.path.parent.glob("v*.toml") if (m := _VERSION_FILE.match(p.name))
    ]
    return max([grader.spec.version, *versions]) + 1


def check_graders(
    graders: Iterable[LoadedGrader],
    lock: Lock,
    *,
    root: Path | None = None,
    update: bool = False,
    complete: bool = False,
) -> LockCheck:
    """Compare loaded graders with the lock. ``update`` adds new versions (and refreshes entries whose
    kind implementation alone changed) and writes the lock; ``complete`` says ``graders`` is every
    definition under the lock's folder, so a locked version without its file is reported."""
    graders = list(graders)
    out = LockCheck()
    lock_shown = display_path(lock.path, root)
    seen: set[str] = set()
    for g in graders:
        ref = g.ref
        seen.add(ref)
        locked = lock.entries.get(ref)
        impl = implementation_of(g)
        if locked is None:
            out.new.append(ref)
            continue
        if locked == g.fingerprint:
            continue
        old_impl = lock.implementations.get(ref)
        if (
            old_impl is not None
            and old_impl != impl
            and grader_fingerprint(
                g.definition, g.files, implementation=old_impl, members=[m.fingerprint for m in g.members]
            )
            == locked
        ):
            out.reimplemented.append(ref)
            out.notes.append(
                f"{g.shown}: the {g.kind.name!r} kind's implementation changed ({old_impl} -> {impl}) "
                f"since {ref} was released; its definition is unchanged, but its fingerprint is now "
                f"{g.fingerprint}, so calibrations of the old fingerprint no longer apply: "
                f"re-run `graderctl calibrate {ref}` and record it with `graderctl validate --update-lock`"
            )
            continue
        files = ", ".join(sorted(g.files))
        changed = "its definition" + (f" or a file it references ({files})" if files else "")
        nxt = _next_version(g)
        next_file = display_path(g.path.parent / f"v{nxt}.toml", root)
        out.problems.append(
            Problem(
                file=g.shown,
                line=1,
                message=f"released version {ref} was edited: {changed} no longer matches {lock_shown}",
                expected=f"the released content ({locked})",
                got=f"changed content ({g.fingerprint})",
                fix=f"bump the version: restore {g.shown} as released (e.g. `git checkout -- {g.shown}`), "
                f"put the change in {next_file} with version = {nxt}, then run "
                "`graderctl validate --update-lock`",
            )
        )
    if complete:
        for ref in sorted(set(lock.entries) - seen):
            name, _, version = ref.partition("@")
            expected_file = lock.path.parent / name / f"v{version}.toml"
            if expected_file.exists():
                continue  # present but invalid: its own problems are reported
            out.problems.append(
                Problem(
                    file=lock_shown,
                    message=f"released version {ref} is in the lock but its definition is missing",
                    expected=f"the file {display_path(expected_file, root)}",
                    got="no file",
                    fix="restore the file (reports and trust refer to it); if the version was never used, "
                    f"delete its lines from {lock_shown}",
                )
            )
    if update:
        by_ref = {g.ref: g for g in graders}
        for ref in [*out.new, *out.reimplemented]:
            g = by_ref[ref]
            lock.entries[ref] = g.fingerprint
            lock.implementations[ref] = implementation_of(g)
            out.added.append(ref)
        for ref, g in by_ref.items():  # record implementations of entries locked before they were recorded
            if lock.entries.get(ref) == g.fingerprint and ref not in lock.implementations:
                lock.implementations[ref] = implementation_of(g)
                if ref not in out.added:
                    out.added.append(ref)
        out.new = []
        out.reimplemented = []
        out.notes = []
        if out.added:
            write_lock(lock)
    return out


# --- every command that uses a grader checks it against the lock ------------------------------------------


def lock_of(grader: LoadedGrader, root: Path) -> Path:
    """The lock that governs ``grader``: that of the ``graders/`` folder it lives in, else the project's."""
    folder = grader.path.resolve().parent.parent
    return folder / LOCK_NAME if folder.name == GRADERS_DIR else lock_path(root)


def release_in_own_lock(grader: LoadedGrader, root: Path) -> bool:
    """Record a new version in the lock of the ``graders/`` folder its definition lives in, when that folder
    has one (``tune`` releases the version it writes); whether it was added."""
    folder = grader.path.parent.parent
    if folder.name != GRADERS_DIR or not (folder / LOCK_NAME).is_file():
        return False
    lock = read_lock_at(folder / LOCK_NAME, root=root)
    return grader.ref in check_graders([grader], lock, root=root, update=True).added


def is_released(grader: LoadedGrader, root: Path) -> bool:
    """Whether ``grader`` is a released version as it stands: in its lock with this very fingerprint."""
    at = lock_of(grader, root)
    if not at.exists():
        return False
    try:
        return read_lock_at(at, root=root).entries.get(grader.ref) == grader.fingerprint
    except InvalidInputError:
        return False


def missing_lock_problem(root: Path, *, any_report: bool) -> Problem | None:
    """A problem when ``graders/graders.lock`` is missing while ``reports/`` holds calibration reports of
    released versions (``any_report``: any report at all, as ``validate`` checks): without the lock an edited
    released version cannot be told from the released one."""
    from graderctl.store.reports import report_files, report_head

    path = lock_path(root)
    if path.exists() or not (root / GRADERS_DIR).is_dir():
        return None
    reports = report_files(root)
    if not any_report:
        reports = [p for p in reports if ((report_head(p) or {}).get("grader") or {}).get("released") is True]
    if not reports:
        return None
    shown = display_path(path, root)
    what = "calibration report(s)" if any_report else "calibration report(s) of released grader versions"
    return Problem(
        file=shown,
        message=f"{shown} is missing, but reports/ holds {len(reports)} {what} (e.g. "
        f"{display_path(reports[0], root)}): without the lock an edited released grader version cannot be "
        "told from the released one",
        expected="the lock of the released grader versions beside the reports",
        got="no file",
        fix=f"restore it from version control (`git checkout -- {shown}`); if this project never released a "
        "grader version, release the current ones with `graderctl validate --update-lock`",
    )


def require_released_intact(graders: Iterable[LoadedGrader], root: Path) -> None:
    """Refuse (:class:`InvalidInputError`, exit 3) a released grader version whose definition no longer
    matches ``graders.lock`` — the same problem, message and fix as ``graderctl validate`` — and a missing
    lock beside reports of released versions (a project that never had a lock is not refused; ``validate``
    reports any report without a lock). Called by every command that runs or trusts a grader (calibrate,
    score, compare, probe, list) before anything runs or is written, so a released report is never
    overwritten by an edited version. A cascade's members are checked with it."""
    problems: list[Problem] = []
    missing = missing_lock_problem(root, any_report=False)
    if missing is not None:
        problems.append(missing)
    by_lock: dict[Path, list[LoadedGrader]] = {}
    seen: set[Path] = set()
    todo = list(graders)
    while todo:  # a cascade's members are checked too
        g = todo.pop(0)
        if g.path.resolve() in seen:
            continue
        seen.add(g.path.resolve())
        by_lock.setdefault(lock_of(g, root), []).append(g)
        todo.extend(g.members)
    for at, group in sorted(by_lock.items()):
        if not at.exists():
            continue
        problems += check_graders(group, read_lock_at(at, root=root), root=root).problems
    if problems:
        first = problems[0].message
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise InvalidInputError(f"{first}{more}", problems)
