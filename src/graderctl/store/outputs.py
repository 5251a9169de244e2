"""Outputs never overwrite inputs: a run's output paths are checked against its input paths before anything
is written (exit 2, usage error).

Paths are compared by their real location: symbolic links resolved, ``./`` and ``..`` folded, relative and
absolute forms alike, and an existing file reached under two names (a hard link) is the same file. An output
inside an input *folder* (a calibration set, a corpus folder) is refused too, so is an input inside an output
folder, and so are two outputs of one run that are the same file.

:func:`check_writable`: an output file that cannot be written (its folder refuses a new file, its name is
too long) is refused before anything runs, for commands that also write into the project (reports, grader
versions), so nothing is half done.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from graderctl.errors import UsageError

if TYPE_CHECKING:
    from graderctl.store.project import LoadedGrader, LoadedSet

__all__ = ["check_outputs", "check_writable", "grader_inputs", "real_path", "set_inputs"]


def real_path(path: Path) -> Path:
    """``path`` resolved to where it really is (symlinks followed even when the file does not exist yet)."""
    return Path(os.path.realpath(os.path.abspath(path)))


def _same(a: Path, b: Path) -> bool:
    if real_path(a) == real_path(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    real_folder = real_path(folder)
    return real_folder.is_dir() and real_path(path).is_relative_to(real_folder)


def check_outputs(
    outputs: Iterable[tuple[str, Path]],
    inputs: Iterable[tuple[str, Path | None]],
) -> None:
    """Raise :class:`UsageError` when an output (``(what, path)``, e.g. ``("--output", Path(...))``) is the
    same file as an input, lies inside an input folder, or is the same file as another output. Inputs that
    are ``None`` are skipped."""
    outs = list(outputs)
    ins = [(what, path) for what, path in inputs if path is not None]
    for i, (what, out) in enumerate(outs):
        for other_what, other in outs[:i]:
            if _same(out, other):
                raise UsageError(
                    f"{what} {out} and {other_what} {other} are the same file: give each output its own path"
                )
        for in_what, given in ins:
            if _same(out, given):
                raise UsageError(
                    f"{what} {out} is {in_what} ({given}), an input of this run: it would be overwritten; "
                    "write the output somewhere else (nothing was written)"
                )
            if _inside(out, given):
                raise UsageError(
                    f"{what} {out} lies inside {in_what} ({given}), an input folder of this run: writing "
                    "there would change the input; write the output somewhere else (nothing was written)"
                )
            if _inside(given, out):
                raise UsageError(
                    f"{in_what} ({given}), an input of this run, lies inside {what} {out}, which the run "
                    "writes: write the output somewhere else (nothing was written)"
                )


def grader_inputs(grader: LoadedGrader) -> list[tuple[str, Path]]:
    """A loaded grader's input files: its definition and every file it references (a prompt)."""
    out = [(f"the definition of {grader.ref}", grader.path)]
    out += [(f"{rel} (referenced by {grader.ref})", grader.path.parent / rel) for rel in grader.files]
    return out


def set_inputs(sets: Iterable[LoadedSet]) -> list[tuple[str, Path]]:
    """The folders of loaded calibration sets (an output inside one would change the set)."""
    return [(f"set {s.name}", s.path) for s in sets]


def check_writable(path: Path, option: str = "--output") -> None:
    """Raise :class:`UsageError` unless a file can be created at ``path``: a temporary file of the atomic
    write's name is made (and removed) in its folder, or in the nearest existing folder above it when the
    folder does not exist yet (it is created when the output is written)."""
    import errno
    import tempfile

    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: {folder} is a file, not a folder; give a path inside a folder")
    try:
        # The same name as the atomic write's temporary file: a name too long fails here too.
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        why = (
            {
                errno.ENAMETOOLONG: "the file name is too long",
                errno.EROFS: "the file system is read-only",
                errno.EACCES: "permission denied",
                errno.EPERM: "operation not permitted",
                errno.ENOSPC: "no space left on the device",
            }.get(exc.errno or 0)
            or exc.strerror
            or str(exc)
        )
        raise UsageError(
            f"{option} {path} cannot be written ({why} in {folder}); nothing was run or written: give a "
            "path in a folder you can write to"
        ) from None
