"""Run one grader over many sample inputs: batches, parallel workers, per-sample timeouts, progress.

The runner never turns a failure into a decision: a batch that raises, returns the wrong number of verdicts,
or runs out of time yields ``Verdict.failed(...)`` for its samples (after retrying them one by one, so one
bad sample does not sink its batch). ``KeyboardInterrupt`` propagates at once; the caller writes nothing.

With ``jobs > 1``, kinds that wait on a model or a program run in threads that call ``grade_batch`` on the
same grader instance at the same time (kinds must be thread-safe; ``Corpus.derived`` is locked); rule-based
kinds, which compute in Python, run in forked worker processes (see :func:`uses_processes`). A grader that
hangs past its timeout is abandoned in a daemon thread, so it cannot keep the process alive.

No rich or typer here: progress is reported through a plain callback, called from the calling thread.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from graderctl.models.calset import SampleInput
from graderctl.plugin import GraderKind, Verdict

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

#: ``progress(done, total)``: samples graded so far and in all.
ProgressCallback = Callable[[int, int], None]

T = TypeVar("T")

#: How often the waiting thread wakes up, so Ctrl-C is handled promptly on every platform.
_POLL_SECONDS = 0.2


class _Timeout(Exception):
    pass


@dataclass
class _Box:
    value: object = None
    error: BaseException | None = None


def _call_with_timeout(fn: Callable[[], T], timeout: float | None) -> T:
    """Run ``fn``; with a timeout, in a daemon thread that is abandoned when time runs out (a Python thread
    cannot be killed: it finishes in the background and its result is dropped)."""
    if timeout is None:
        return fn()
    box = _Box()

    def target() -> None:
        try:
            box.value = fn()
        except BaseException as exc:  # handed to the caller below
            box.error = exc

    thread = threading.Thread(target=target, name="graderctl-grade", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _Timeout
    if box.error is not None:
        raise box.error
    return box.value  # type: ignore[return-value]


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _checked(verdicts: object, n: int) -> list[Verdict]:
    """The kind's return value, checked: exactly ``n`` verdicts."""
    if not isinstance(verdicts, list | tuple):
        raise TypeError(f"grade_batch returned {type(verdicts).__name__}, expected a list of Verdict")
    if len(verdicts) != n:
        raise ValueError(f"grade_batch returned {len(verdicts)} verdict(s) for {n} input(s)")
    out: list[Verdict] = []
    for v in verdicts:
        if not isinstance(v, Verdict):
            raise TypeError(f"grade_batch returned a {type(v).__name__}, expected Verdict")
        if v.accepted is None and not v.error and not v.abstained:
            # Neither a decision nor a stated error: record it as an error, never as a reject.
            v = Verdict.failed("the grader gave no decision and no error", usage=v.usage, details=v.details)
        out.append(v)
    return out


def _grade(grader: GraderKind, inputs: Sequence[SampleInput], timeout: float | None) -> list[Verdict]:
    """Grade one batch; on failure, retry its samples one by one (once) so that one bad sample does not
    sink the others."""
    n = len(inputs)
    budget = None if timeout is None else timeout * n
    try:
        return _checked(_call_with_timeout(functools.partial(grader.grade_batch, list(inputs)), budget), n)
    except KeyboardInterrupt:
        raise
    except _Timeout:
        batch_error = f"timed out after {timeout:g} s per sample"
    except Exception as exc:
        batch_error = _describe(exc)
    if n == 1:
        return [Verdict.failed(batch_error)]
    out: list[Verdict] = []
    for item in inputs:
        try:
            out.extend(
                _checked(_call_with_timeout(functools.partial(grader.grade_batch, [item]), timeout), 1)
            )
        except KeyboardInterrupt:
            raise
        except _Timeout:
            out.append(Verdict.failed(f"timed out after {timeout:g} s"))
        except Exception as exc:
            out.append(Verdict.failed(_describe(exc)))
    return out


class VerdictStore(Protocol):
    """An on-disk verdict cache (``graderctl.store.cache.VerdictCache``) as the runner uses it."""

    def get(self, payload: Any, repeat: int = 0) -> Verdict | None: ...

    def put(self, payload: Any, verdict: Verdict, repeat: int = 0) -> None: ...


def _grade_cached(
    grader: GraderKind, inputs: Sequence[SampleInput], timeout: float | None, cache: VerdictStore
) -> list[Verdict]:
    """Take what the cache has; grade the rest and store their (non-error) verdicts."""
    payloads: list[Any] = []
    out: list[Verdict | None] = []
    for item in inputs:
        try:
            payload = grader.cache_payload(item)
            hit = cache.get(payload)
        except Exception:  # no usable key: grade it, do not cache it
            payload, hit = None, None
        payloads.append(payload)
        out.append(hit)
    misses = [i for i, v in enumerate(out) if v is None]
    if misses:
        graded = _grade(grader, [inputs[i] for i in misses], timeout)
        for i, verdict in zip(misses, graded, strict=True):
            out[i] = verdict
            if payloads[i] is not None and not verdict.is_error:
                with contextlib.suppress(OSError):  # a cache that cannot be written costs a re-run, no more
                    cache.put(payloads[i], verdict)
    return [v for v in out if v is not None]


def run_grader(
    grader: GraderKind,
    inputs: Sequence[SampleInput],
    *,
    jobs: int = 1,
    batch_size: int = 64,
    timeout: float | None = None,
    progress: ProgressCallback | None = None,
    cache: VerdictStore | None = None,
    processes: bool | None = None,
) -> list[Verdict]:
    """Grade every input; return one :class:`Verdict` per input, in order.

    ``jobs`` workers each grade one batch of ``batch_size`` inputs at a time. ``timeout`` is per sample: a
    batch gets ``timeout`` × its size, and a sample that runs out of time is an error verdict.
    ``progress(done, total)`` is called from the calling thread after every batch (and once at the start).
    ``cache`` (used only when the kind is ``cacheable``) supplies verdicts graded before and keeps new ones.
    ``processes`` chooses worker processes over threads (see :func:`uses_processes`; ``None`` = automatic).
    """
    if jobs < 1:
        raise ValueError(f"The 'jobs' parameter of run_grader must be >= 1. Got {jobs!r} instead.")
    if batch_size < 1:
        raise ValueError(
            f"The 'batch_size' parameter of run_grader must be >= 1. Got {batch_size!r} instead."
        )
    if timeout is not None and not timeout > 0:
        raise ValueError(f"The 'timeout' parameter of run_grader must be > 0. Got {timeout!r} instead.")
    total = len(inputs)
    use = cache if cache is not None and grader.cacheable else None

    def grade(chunk: Sequence[SampleInput]) -> list[Verdict]:
        return _grade(grader, chunk, timeout) if use is None else _grade_cached(grader, chunk, timeout, use)

    results: list[Verdict | None] = [None] * total
    starts = list(range(0, total, batch_size))
    if progress is not None:
        progress(0, total)
    if not starts:
        return []

    if jobs == 1:
        done = 0
        for start in starts:
            chunk = inputs[start : start + batch_size]
            results[start : start + len(chunk)] = grade(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
        return _complete(results)

    if uses_processes(grader, processes):
        return _run_in_processes(grader, inputs, starts, jobs, batch_size, timeout, use, progress)

    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for start in starts:
        todo.put(start)
    finished: queue.SimpleQueue[tuple[int, list[Verdict] | BaseException]] = queue.SimpleQueue()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            try:
                start = todo.get_nowait()
            except queue.Empty:
                return
            chunk = inputs[start : start + batch_size]
            try:
                finished.put((start, grade(chunk)))
            except BaseException as exc:  # a bug in the runner itself: hand it to the caller
                finished.put((start, exc))
                return

    threads = [
        threading.Thread(target=worker, name=f"graderctl-worker-{i}", daemon=True)
        for i in range(min(jobs, len(starts)))
    ]
    for t in threads:
        t.start()
    done = 0
    remaining = len(starts)
    try:
        while remaining:
            try:
                start, got = finished.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not any(t.is_alive() for t in threads) and finished.empty():
                    raise RuntimeError("every grading worker stopped before the run was complete") from None
                continue
            if isinstance(got, BaseException):
                raise got
            results[start : start + len(got)] = got
            remaining -= 1
            done += len(got)
            if progress is not None:
                progress(done, total)
    finally:
        stop.set()
    return _complete(results)


def _complete(results: list[Verdict | None]) -> list[Verdict]:
    missing = [i for i, v in enumerate(results) if v is None]
    if missing:
        raise RuntimeError(
            f"the runner lost the verdicts of {len(missing)} input(s), first at index {missing[0]}"
        )
    return [v for v in results if v is not None]


# --- worker processes ---------------------------------------------------------------------------------


def uses_processes(grader: GraderKind, processes: bool | None = None) -> bool:
    """Whether ``jobs > 1`` runs in forked worker processes rather than threads.

    Rule-based kinds compute in Python, where threads share one interpreter lock and ``--jobs`` would not
    help; they run in processes. Kinds that wait on a model or a program (``model_based`` or ``cacheable``)
    run in threads. A kind may say ``parallelism = "threads"`` or ``"processes"``; ``processes`` overrides
    both. Processes need ``fork`` and are used on Linux only; elsewhere threads are used. The grader and
    the inputs reach the workers through ``fork``, so they need not be picklable; verdicts come back
    pickled."""
    if processes is False or not _can_fork():
        return False
    if processes:
        return True
    declared = getattr(grader, "parallelism", None)  # a class attribute, or set by an instance
    if declared in ("threads", "processes"):
        return bool(declared == "processes")
    return not (grader.model_based or grader.cacheable)


def _can_fork() -> bool:
    # Linux only: on macOS fork() is unsafe with system frameworks (Python defaults to spawn there).
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


_CHILD: dict[str, Any] = {}


def _child_start(
    grader: GraderKind,
    inputs: Sequence[SampleInput],
    batch_size: int,
    timeout: float | None,
    cache: VerdictStore | None,
) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    # The parent turns SIGTERM into an interruption (cli.main); a worker must simply end on it, as when the
    # parent stops the pool (Process.terminate sends SIGTERM).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _CHILD.update(grader=grader, inputs=inputs, batch_size=batch_size, timeout=timeout, cache=cache)


def _child_grade(start: int) -> list[Verdict]:
    grader: GraderKind = _CHILD["grader"]
    chunk = _CHILD["inputs"][start : start + _CHILD["batch_size"]]
    cache: VerdictStore | None = _CHILD["cache"]
    timeout: float | None = _CHILD["timeout"]
    return _grade(grader, chunk, timeout) if cache is None else _grade_cached(grader, chunk, timeout, cache)


def _run_in_processes(
    grader: GraderKind,
    inputs: Sequence[SampleInput],
    starts: list[int],
    jobs: int,
    batch_size: int,
    timeout: float | None,
    cache: VerdictStore | None,
    progress: ProgressCallback | None,
) -> list[Verdict]:
    import warnings
    from concurrent.futures import ProcessPoolExecutor

    total = len(inputs)
    results: list[Verdict | None] = [None] * total
    executor = ProcessPoolExecutor(
        max_workers=min(jobs, len(starts)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_child_start,
        initargs=(grader, inputs, batch_size, timeout, cache),
    )
    # Finished batches arrive on a queue (filled by the pool's own thread), so the waiting thread never
    # holds a lock of the pool: Ctrl-C can land at any moment without wedging it.
    finished: queue.SimpleQueue[tuple[int, Future[list[Verdict]]]] = queue.SimpleQueue()
    done = 0
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns about fork() in a process with threads (a progress bar, a client): the
            # workers only compute and return verdicts, they take no lock those threads could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            for start in starts:
                future = executor.submit(_child_grade, start)
                future.add_done_callback(functools.partial(_put_done, finished, start))
        remaining = len(starts)
        while remaining:
            try:
                start, future = finished.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue
            remaining -= 1
            n = min(batch_size, total - start)
            exc = future.exception()
            if exc is None:
                got = future.result()
            elif isinstance(exc, Exception):
                # A worker died (BrokenProcessPool) or its verdicts could not be sent back: an error for
                # each sample of the batch, never a decision.
                got = [Verdict.failed(f"the grading process failed: {_describe(exc)}")] * n
            else:
                raise exc
            results[start : start + n] = got
            done += n
            if progress is not None:
                progress(done, total)
    except BaseException:
        _stop_pool(executor)
        raise
    executor.shutdown(wait=True)
    return _complete(results)


def _put_done(
    finished: queue.SimpleQueue[tuple[int, Future[list[Verdict]]]], start: int, future: Future[list[Verdict]]
) -> None:
    finished.put((start, future))


def _stop_pool(executor: ProcessPoolExecutor) -> None:
    """Stop at once: cancel what has not started and end the workers (they ignore Ctrl-C themselves)."""
    terminate = getattr(executor, "terminate_workers", None)  # public from Python 3.14
    if callable(terminate):
        with contextlib.suppress(Exception):
            terminate()
            return
    # Before 3.14 the pool keeps its processes in a private mapping (emptied by shutdown, so read it
    # first); without it the workers would finish what they hold and then exit.
    processes: dict[int, Any] = getattr(executor, "_processes", None) or {}
    workers = list(processes.values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        with contextlib.suppress(Exception):
            process.terminate()


# --- a pool kept for a whole run ------------------------------------------------------------------------

_POOL_STATE: dict[str, Any] = {}

S = TypeVar("S")
R = TypeVar("R")


def _pool_start(state: Any) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    # The parent turns SIGTERM into an interruption (cli.main); a worker must simply end on it, as when the
    # parent stops the pool (Process.terminate sends SIGTERM).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    _POOL_STATE["state"] = state


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the process that started it dies (even by SIGKILL), so a killed
    run leaves no worker behind."""
    import ctypes
    import signal

    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG


def _pool_call(fn: Callable[[Any, Any], Any], arg: Any) -> Any:
    return fn(_POOL_STATE["state"], arg)


class WorkerPool:
    """Forked worker processes kept for a whole run (``score``): ``state`` (graders with their warm indexes,
    the corpus, ...) reaches every worker once, through ``fork``, and need not be picklable; each task then
    sends only its argument and gets back its result (both pickled). Workers ignore Ctrl-C and die with the
    parent.

    ``submit(fn, arg)`` runs ``fn(state, arg)`` in a worker (``fn`` a module-level function) and returns a
    future; ``done`` (a queue) receives ``(tag, future)`` as tasks finish, so the waiting thread never holds a
    lock of the pool and Ctrl-C can land at any moment. Use :func:`can_use_processes` first: Linux only."""

    def __init__(self, jobs: int, state: Any) -> None:
        from concurrent.futures import ProcessPoolExecutor

        if jobs < 1:
            raise ValueError(f"The 'jobs' parameter of WorkerPool must be >= 1. Got {jobs!r} instead.")
        self.jobs = jobs
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_pool_start,
            initargs=(state,),
        )
        self.done: queue.SimpleQueue[tuple[Any, Future[Any]]] = queue.SimpleQueue()

    def submit(self, fn: Callable[[S, T], R], arg: T, tag: Any) -> Future[R]:
        import warnings

        if self._executor is None:
            raise RuntimeError("the worker pool is closed")
        with warnings.catch_warnings():
            # Python >= 3.12 warns about fork() in a process with threads (a progress bar, a client): the
            # workers only compute and return results, they take no lock those threads could hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            future = self._executor.submit(_pool_call, fn, arg)
        future.add_done_callback(functools.partial(_put_tagged, self.done, tag))
        return future

    def next_done(self) -> tuple[Any, Future[Any]]:
        """The next finished task, waiting for it (waking up regularly so Ctrl-C is handled promptly)."""
        while True:
            try:
                return self.done.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue

    def close(self) -> None:
        """Wait for the workers to finish what they hold and exit."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            executor.shutdown(wait=True)

    def stop(self) -> None:
        """Stop at once (on Ctrl-C or an error): cancel what has not started and end the workers."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            _stop_pool(executor)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.stop()


def can_use_processes() -> bool:
    """Whether worker processes (``fork``) can be used here: Linux only."""
    return _can_fork()


def _put_tagged(done: queue.SimpleQueue[tuple[Any, Future[Any]]], tag: Any, future: Future[Any]) -> None:
    done.put((tag, future))
