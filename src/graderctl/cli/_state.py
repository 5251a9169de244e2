"""Process-wide CLI state and the one place where errors become exit codes."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from graderctl.errors import ExitCode, GraderctlError, InvalidInputError, Problem, UsageError

if TYPE_CHECKING:
    from graderctl.models.validation import ErrorDocument

DEBUG = False
ROOT: str | None = None
MAX_PROBLEMS_SHOWN = 50
#: Set when a command printed its JSON document on stdout (then an error adds no second document).
JSON_PRINTED = False


def root() -> Path:
    """The project root: ``--root``, else ``$GRADERCTL_ROOT``, else found upward from the working directory.
    A root given explicitly that is not a folder is an error (exit 3), never silently an empty project."""
    from graderctl.store.layout import find_root

    given = ROOT or os.environ.get("GRADERCTL_ROOT") or None
    path = Path(given).resolve() if given else find_root()
    if given and not path.is_dir():
        what = "a file" if path.exists() else "nothing"
        raise InvalidInputError(
            f"no project found at {path}: there is {what} at this path",
            [
                Problem(
                    file=str(path),
                    message="no project found at this path",
                    expected="a project folder (with graders/ or calibration_sets/)",
                    got=what,
                    fix="give the project's folder with --root (or $GRADERCTL_ROOT)",
                )
            ],
        )
    return path


def project_root() -> Path:
    """:func:`root`, which must be a project (a folder with ``graders/`` or ``calibration_sets/``): for the
    CI gates (``validate``, ``calibrate --all [--check]``), which would otherwise pass on nothing."""
    from graderctl.store.layout import GRADERS_DIR, SETS_DIR

    path = root()
    if not ((path / GRADERS_DIR).is_dir() or (path / SETS_DIR).is_dir()):
        raise InvalidInputError(
            f"no project found at {path}: it has neither {GRADERS_DIR}/ nor {SETS_DIR}/",
            [
                Problem(
                    file=str(path),
                    message="no project found at this path",
                    expected=f"a folder with {GRADERS_DIR}/ or {SETS_DIR}/ (or one of its subfolders)",
                    got=f"neither {GRADERS_DIR}/ nor {SETS_DIR}/",
                    fix="run from inside a graderctl project, or give its folder with --root PROJECT",
                )
            ],
        )
    return path


def write_bytes(chunks: Iterable[bytes | bytearray]) -> None:
    """Write already-encoded output (UTF-8) to stdout as it comes, without a text layer."""
    global JSON_PRINTED
    JSON_PRINTED = True
    out = sys.stdout
    out.flush()
    buffer: BinaryIO | None = getattr(out, "buffer", None)
    if buffer is None:  # a text-only stream (tests capturing output)
        for chunk in chunks:
            out.write(chunk.decode("utf-8"))
        out.flush()
        return
    for chunk in chunks:
        buffer.write(chunk)
    buffer.flush()


#: Bytes moved at a time when a document written into a file makes room for its head (:class:`FileDocument`).
MOVE_STEP = 1 << 18


class FileDocument:
    """One document written into stdout when stdout is a regular file (``> units.json``, ``>> log``): its body
    as it is made (:meth:`write`, nothing held in memory), then, at :meth:`finish`, the head that must come
    before it (known only at the end: it sums the body up) and the tail.

    Everything goes through a second descriptor of the file, opened for reading and writing (which the shell's
    write-only ``>`` or write-at-the-end ``>>`` one is not): the body is written from where the document
    begins, then moved up by the head's length (read back and written again, :data:`MOVE_STEP` bytes at a
    time, the last piece first, so that no piece is overwritten before it was read) and the head written in
    front. The result is byte for byte what writing head, body and tail in a row gives. :meth:`discard` cuts
    the file back to where the document began."""

    __slots__ = ("_end", "_fd", "_rw", "_start", "finished", "write_failed")

    def __init__(self, fd: int, rw: int, start: int) -> None:
        self._fd = fd  # stdout's own descriptor: left where the document ends
        self._rw = rw
        self._start = start
        self._end = start  # where the next piece of the body goes
        self.finished = False
        #: a write to the file failed (then, as when the whole document was written at the end, stdout gets no
        #: error document either)
        self.write_failed = False

    def write(self, piece: bytes | bytearray | memoryview) -> None:
        try:
            self._end += _write_at(self._rw, piece, self._end)
        except OSError:
            self.write_failed = True
            raise

    def finish(self, head: bytes, tail: bytes) -> None:
        """Put ``head`` before the body written and ``tail`` after it; stdout then goes on after them."""
        start, size = self._start, self._end - self._start
        try:
            _move_up(self._rw, start, size, len(head))
            _write_at(self._rw, head, start)
            end = start + len(head) + size
            end += _write_at(self._rw, tail, end)
        except OSError:
            self.write_failed = True
            raise
        os.lseek(self._fd, end, os.SEEK_SET)
        self.finished = True

    def discard(self) -> None:
        """Cut the file back to where the document began (and stdout's position with it)."""
        os.ftruncate(self._rw, self._start)
        os.lseek(self._fd, self._start, os.SEEK_SET)

    def close(self) -> None:
        os.close(self._rw)


def _write_at(fd: int, data: bytes | bytearray | memoryview, offset: int) -> int:
    """Write all of ``data`` at ``offset`` of the file ``fd``; its length."""
    done = os.pwrite(fd, data, offset)
    if done < len(data):  # a short write (a signal, the disk filling): the rest, or the error that stopped it
        with memoryview(data) as view:
            while done < len(view):
                done += os.pwrite(fd, view[done:], offset + done)
    return done


def _move_up(fd: int, start: int, size: int, by: int) -> None:
    """Move the ``size`` bytes at ``start`` of the file ``fd`` ``by`` bytes toward its end, the last piece
    first: a piece is written only over bytes already read (its own, or those of the pieces after it)."""
    if not size or not by:
        return
    buffer = bytearray(min(MOVE_STEP, size))
    offset = size
    while offset:
        n = min(len(buffer), offset)
        offset -= n
        piece = memoryview(buffer)[:n]
        if os.preadv(fd, [piece], start + offset) != n:
            raise OSError(errno.EIO, "the output file changed while graderctl was writing it")
        _write_at(fd, piece, start + offset + by)
        piece.release()


def _file_stdout() -> FileDocument | None:
    """stdout as a :class:`FileDocument` when it is a regular file the document can be written into in pieces
    (the document goes at its end, and a second descriptor of it can be opened: ``/proc/self/fd``, Linux);
    ``None`` otherwise (a pipe, a terminal, a test's text stream)."""

    try:
        import fcntl

        fd = sys.stdout.fileno()
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        if flags & os.O_ACCMODE == os.O_RDONLY:  # not ours to write (``1< file``): fails as it always did
            return None
        sys.stdout.flush()
        info = os.fstat(fd)
        appends = flags & os.O_APPEND
        start = info.st_size if appends else os.lseek(fd, 0, os.SEEK_CUR)
        if start != info.st_size:  # bytes after where the document begins (``1<> file``): as before
            return None
        rw = os.open(f"/proc/self/fd/{fd}", os.O_RDWR | os.O_CLOEXEC)
    except (ImportError, AttributeError, ValueError, OSError):  # no file number, not Linux, not readable
        return None
    same = os.fstat(rw)
    if (same.st_dev, same.st_ino) != (info.st_dev, info.st_ino):
        os.close(rw)
        return None
    return FileDocument(fd, rw, start)


@contextlib.contextmanager
def stdout_document() -> Iterator[FileDocument | None]:
    """A command's one document written into stdout as it is made, when stdout is a regular file: a
    :class:`FileDocument` (else ``None``: hold the document, then :func:`write_bytes`). Whatever ends the
    command before the document is finished (an error, an interruption, a failed write) cuts the file back to
    where the document began, so nothing half-written is left; the command then ends as it would have."""
    global JSON_PRINTED
    document = _file_stdout()
    if document is None:
        yield None
        return
    try:
        yield document
    except BaseException:
        with contextlib.suppress(OSError):
            document.discard()
        if document.write_failed:  # as when the whole document failed to be written at the end
            JSON_PRINTED = True
        raise
    else:
        if document.finished:
            JSON_PRINTED = True
        else:  # the command ended without its document (nothing to show): no half of one is left either
            document.discard()
    finally:
        document.close()


def err(message: str) -> None:
    typer.echo(message, err=True)


def echo_json(document: Any) -> None:
    """Print a command's one JSON document on stdout."""
    global JSON_PRINTED
    text = document if isinstance(document, str) else json.dumps(document, indent=2, ensure_ascii=False)
    typer.echo(text.rstrip("\n"))
    JSON_PRINTED = True


def check_output(path: Path | None, option: str = "--output") -> None:
    """Refuse, before any work, an output path that cannot be a file: a folder, or a file's child."""
    if path is None:
        return
    if path.name in ("", ".", "..") or path.is_dir():
        raise UsageError(
            f"{option} {path} is a folder; give the path of a file to write, e.g. {path / 'out.json'}"
        )
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is a file, not a folder; give a path inside a folder")


_ENV_ERRORS = {
    errno.ENOSPC: "no space left on the device: free some space and run the command again",
    errno.EDQUOT: "the disk quota is exhausted: free some space and run the command again",
    errno.EFBIG: "the file is larger than the file-size limit (ulimit -f) allows: raise the limit",
    errno.EROFS: "the file system is read-only: write somewhere else (e.g. --output PATH)",
    errno.EACCES: "permission denied: check the permissions of the file and its folder",
    errno.EPERM: "operation not permitted: check the permissions of the file and its folder",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop): fix or remove the link",
    errno.ENAMETOOLONG: "the file name is too long: use a shorter name",
    errno.EISDIR: "a folder where a file was expected: give the path of a file",
    errno.ENOTDIR: "a file where a folder was expected: check the path",
    errno.ENOENT: "no such file or folder: check the path",
    errno.EIO: "input/output error while reading or writing: check the device",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n)",
}


def describe_os_error(exc: OSError) -> str:
    """An environment failure (disk full, file-size limit, read-only folder, symlink loop, ...) in words."""
    where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
    what = _ENV_ERRORS.get(exc.errno or 0) or (exc.strerror or str(exc))
    return f"{where}: {what}" if where else what


def wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for ``--format json`` (then errors are a JSON document on stdout too)."""
    args = list(argv)
    for i, a in enumerate(args):
        if a == "--":
            break
        if a == "--format=json" or (a == "--format" and i + 1 < len(args) and args[i + 1] == "json"):
            return True
    return False


def report_error(exc: GraderctlError) -> None:
    err(f"error: {exc}")
    if isinstance(exc, InvalidInputError):
        for p in exc.problems[:MAX_PROBLEMS_SHOWN]:
            err("  " + p.format())
        rest = len(exc.problems) - MAX_PROBLEMS_SHOWN + exc.omitted
        if rest > 0:
            err(f"  ... and {rest} more problem(s)")


def error_document(code: int, message: str, problems: Sequence[Problem] = ()) -> ErrorDocument:
    """What ``--format json`` prints on stdout when a command refuses or fails (schema ``error``)."""
    from graderctl.models.validation import ErrorDocument, ProblemRecord

    return ErrorDocument(
        exit_code=int(code),
        error=message,
        problems=[
            ProblemRecord(
                file=p.file,
                line=p.line,
                pointer=p.pointer,
                message=p.message,
                expected=p.expected,
                got=p.got,
                fix=p.fix,
            )
            for p in problems
        ],
    )


_PYTHON_SHOWWARNING = warnings.showwarning


def _plain_warnings() -> None:
    """Print Python warnings (graderctl's own or a library's) as ``warning: MESSAGE``: the source file, line,
    category and code line Python adds name the code, not the user's input (``--debug`` keeps them)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        if DEBUG:
            _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)
        else:
            err(f"warning: {message}")

    warnings.showwarning = show


def _safe_streams() -> None:
    """Make stdout and stderr unable to fail on a character their encoding lacks (``PYTHONIOENCODING=ascii``,
    a C locale): such a character is written as a JSON-style ``\\uXXXX`` escape (valid in JSON strings)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if reconfigure is None or encoding in ("utf-8", "utf8"):
            continue
        try:
            reconfigure(errors="graderctl-json-escape")
        except (ValueError, OSError):  # a closed or detached stream: nothing to protect
            continue


def _json_escape(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start : exc.end]:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), exc.end


def _register_codec_error() -> None:
    import codecs

    codecs.register_error("graderctl-json-escape", _json_escape)


_register_codec_error()


def run(app: Any, argv: list[str] | None) -> int:
    """Run the app and map every ending to an exit code: our typed errors to theirs, environment failures
    (disk full, file-size limit, read-only folder, symlink loop, input nested too deeply) to 3, anything else
    to 6 (a bug)."""
    global JSON_PRINTED
    JSON_PRINTED = False
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = wants_json(args)
    _safe_streams()
    _plain_warnings()
    from typer._click.exceptions import ClickException

    code: int
    message: str | None = None
    problems: Sequence[Problem] = ()
    try:
        result = app(args=args, prog_name="graderctl", standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except ClickException as exc:  # bad usage: typer's own message and usage line
        exc.show()
        code, message = exc.exit_code, exc.format_message()
    except typer.Abort:
        err("interrupted: nothing was written")
        code, message = int(ExitCode.INTERRUPTED), "interrupted"
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        err("interrupted: nothing was written")
        code, message = int(ExitCode.INTERRUPTED), "interrupted"
    except GraderctlError as exc:
        _traceback()
        report_error(exc)
        code, message = int(exc.exit_code), str(exc)
        problems = exc.problems if isinstance(exc, InvalidInputError) else ()
    except OSError as exc:  # the environment, not graderctl: disk full, ulimit -f, read-only, symlink loop
        _traceback()
        message = describe_os_error(exc)
        err(f"error: {message}")
        code = int(ExitCode.INVALID_INPUT)
    except RecursionError:
        _traceback()
        message = "the input is nested too deeply to be read (JSON or TOML nesting of thousands of levels)"
        err(f"error: {message}; flatten it")
        code = int(ExitCode.INVALID_INPUT)
    except Exception as exc:
        _traceback()
        if isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop from "):
            # Path.resolve() on a symlink loop (Python < 3.13 raises RuntimeError, not OSError ELOOP)
            where = str(exc).removeprefix("Symlink loop from ").strip("'")
            message = f"{where}: {_ENV_ERRORS[errno.ELOOP]}"
            err(f"error: {message}")
            code = int(ExitCode.INVALID_INPUT)
            if as_json and not JSON_PRINTED:
                echo_json(error_document(code, message).model_dump(mode="json"))
            return code
        # a bug: say so, keep the traceback for --debug
        err(f"internal error: {type(exc).__name__}: {exc}")
        err("This is a bug in graderctl. Re-run with --debug for the traceback and report it.")
        code, message = int(ExitCode.INTERNAL_ERROR), f"internal error: {type(exc).__name__}: {exc}"
    if as_json and code not in (0, 1) and not JSON_PRINTED:
        # every refusal or failure prints one document, also when a command ended itself with an exit code
        # after saying why on stderr (an interruption, a grader that could not run)
        if message is None:
            message = "interrupted" if code == ExitCode.INTERRUPTED else f"failed with exit code {code}"
        echo_json(error_document(code, message, problems).model_dump(mode="json"))
    return code


def _traceback() -> None:
    if DEBUG:
        import traceback

        traceback.print_exc()


def exit_with(code: ExitCode | int) -> None:
    raise typer.Exit(int(code))
