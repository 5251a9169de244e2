"""Atomic writes: a reader sees the old file or the new one, never half of one.

A new file gets the permissions any other program would give it (``0o666`` less the user's umask), an
existing file keeps its own: the temporary file ``mkstemp`` creates is private (``0o600``) until it is
renamed, so its mode is set before the rename.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO


def current_umask() -> int:
    """The process's umask (read from ``/proc`` where it is, so it is never changed even briefly)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """The mode ``path`` should have once written: its current one if it exists, else ``0o666 & ~umask``."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def _name_the_target(exc: BaseException, tmp: str | None, path: Path) -> None:
    """An error about the temporary file names the file the user asked for (the temporary is ours)."""
    if isinstance(exc, OSError) and exc.filename is not None and (tmp is None or exc.filename == tmp):
        exc.filename = str(path)
        exc.filename2 = None


def _mkstemp(path: Path) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        _name_the_target(exc, None, path)
        raise


@contextlib.contextmanager
def atomic_writer(path: Path, *, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Write to a temporary file beside ``path``; on success, rename it over ``path``. On any error (or
    Ctrl-C) the temporary file is removed and ``path`` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = _mkstemp(path)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        _name_the_target(exc, tmp, path)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    with atomic_writer(path) as fh:
        fh.write(text)


def atomic_write_many(files: Mapping[Path, str | Iterable[str]]) -> None:
    """Write several files so that either all are replaced or none (best effort: all temporaries are
    written first, then renamed in one quick pass). A file's content is a string or an iterable of string
    chunks (streamed, so a large document need not be held in memory twice)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = _mode_for(path)
            fd, tmp = _mkstemp(path)
            staged.append((tmp, path))
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                if isinstance(text, str):
                    fh.write(text)
                else:
                    fh.writelines(text)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException as exc:
        for tmp, target in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            _name_the_target(exc, tmp, target)
        raise


def atomic_write_folder(target: Path, files: Mapping[str, str]) -> None:
    """Write a folder of files so that a reader sees the old folder or the new one, never half of one: the
    files are staged in a temporary folder beside ``target`` and moved into place in one rename (an existing
    ``target`` is moved aside first and removed after). On any error the staging folder is removed."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
    try:
        os.chmod(staging, 0o777 & ~current_umask())  # mkdtemp makes it private; the folder is ordinary
        for name, text in files.items():
            with open(staging / name, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        old: Path | None = None
        if target.exists():
            old = parent / f".{target.name}.old-{os.getpid()}"
            os.replace(target, old)
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
