from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from graderctl.models.calset import SampleInput, SourceExistenceInput
from graderctl.plugin import GraderKind, Verdict
from graderctl.runner import run_grader
from tests.calibrate_support import RaiseAlways, Scripted, directive


def inputs(*titles: str) -> list[SourceExistenceInput]:
    return [
        SourceExistenceInput.model_validate({"citation": {"url": f"https://example.org/{i}", "title": t}})
        for i, t in enumerate(titles)
    ]


def scripted(**params: Any) -> Scripted:
    return Scripted(Scripted.Params(**params))


class Echo(GraderKind):
    """Accepts each input with its own title as the reason, so order is visible."""

    name = "test_echo"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.accept(directive(i)) for i in inputs]


#: (jobs, processes): one worker; threads; forked processes.
MODES = [(1, None), (2, False), (2, True)]


@pytest.mark.parametrize(("jobs", "processes"), [(1, None), (3, False), (3, True)])
@pytest.mark.parametrize("batch_size", [1, 4, 64])
def test_one_verdict_per_input_in_order(jobs: int, processes: bool | None, batch_size: int) -> None:
    titles = [f"t{i}" for i in range(23)]
    verdicts = run_grader(
        Echo(Echo.Params()), inputs(*titles), jobs=jobs, batch_size=batch_size, processes=processes
    )
    assert [v.reason for v in verdicts] == titles


def test_empty_input() -> None:
    seen: list[tuple[int, int]] = []
    assert run_grader(Echo(Echo.Params()), [], progress=lambda d, t: seen.append((d, t))) == []
    assert seen == [(0, 0)]


@pytest.mark.parametrize(("jobs", "processes"), MODES)
def test_a_batch_that_raises_is_retried_one_by_one(jobs: int, processes: bool | None) -> None:
    titles = ["accept", "reject", "poison", "accept", "reject", "accept"]
    verdicts = run_grader(scripted(), inputs(*titles), jobs=jobs, batch_size=3, processes=processes)
    assert [v.accepted for v in verdicts] == [True, False, None, True, False, True]
    assert verdicts[2].error == "RuntimeError: backend exploded"
    assert verdicts[2].reason == ""


def test_a_kind_that_always_raises_gives_errors_never_decisions() -> None:
    verdicts = run_grader(
        RaiseAlways(RaiseAlways.Params()), inputs("accept", "reject", "accept"), batch_size=2
    )
    assert all(v.is_error for v in verdicts)
    assert all("ConnectionError" in (v.error or "") for v in verdicts)


def test_error_verdicts_pass_through() -> None:
    verdicts = run_grader(scripted(), inputs("accept", "error"))
    assert verdicts[0].accepted is True
    assert verdicts[1].is_error and verdicts[1].error == "could not reach the source"


class WrongCount(GraderKind):
    name = "test_wrong_count"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.accept("one for all")]


class NoVerdicts(GraderKind):
    name = "test_no_verdicts"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return []


def test_wrong_number_of_verdicts_fails_the_batch_then_samples_are_retried() -> None:
    verdicts = run_grader(WrongCount(WrongCount.Params()), inputs("a", "b", "c"), batch_size=3)
    # The batch returned 1 verdict for 3 inputs; retried one by one, each call returns exactly one.
    assert [v.accepted for v in verdicts] == [True, True, True]
    verdicts = run_grader(NoVerdicts(NoVerdicts.Params()), inputs("a", "b"), batch_size=2)
    assert [v.error for v in verdicts] == ["ValueError: grade_batch returned 0 verdict(s) for 1 input(s)"] * 2


class NoDecision(GraderKind):
    name = "test_no_decision"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict(accepted=None, reason="hmm") for _ in inputs]


def test_a_verdict_without_decision_or_error_is_an_error() -> None:
    (verdict,) = run_grader(NoDecision(NoDecision.Params()), inputs("x"))
    assert verdict.is_error
    assert verdict.error == "the grader gave no decision and no error"


class NotVerdicts(GraderKind):
    name = "test_not_verdicts"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [True for _ in inputs]  # type: ignore[misc]


def test_return_values_that_are_not_verdicts_are_errors() -> None:
    verdicts = run_grader(NotVerdicts(NotVerdicts.Params()), inputs("x", "y"))
    assert all(v.is_error and "expected Verdict" in (v.error or "") for v in verdicts)


@pytest.mark.parametrize(("jobs", "processes"), MODES)
def test_per_sample_timeout_gives_an_error_verdict(jobs: int, processes: bool | None) -> None:
    verdicts = run_grader(
        scripted(sleep=1.0),
        inputs("accept", "sleep", "reject"),
        jobs=jobs,
        batch_size=3,
        timeout=0.1,
        processes=processes,
    )
    assert [v.accepted for v in verdicts] == [True, None, False]
    assert verdicts[1].error == "timed out after 0.1 s"


@pytest.mark.parametrize(("jobs", "processes"), MODES)
def test_progress_is_reported_from_start_to_end(jobs: int, processes: bool | None) -> None:
    seen: list[tuple[int, int]] = []
    run_grader(
        Echo(Echo.Params()),
        inputs(*"abcdefg"),
        jobs=jobs,
        batch_size=2,
        progress=lambda d, t: seen.append((d, t)),
        processes=processes,
    )
    assert seen[0] == (0, 7)
    assert seen[-1] == (7, 7)
    done = [d for d, _ in seen]
    assert done == sorted(done)
    assert len(seen) == 1 + 4  # the start, then one call per batch


@pytest.mark.parametrize(("jobs", "processes"), MODES)
def test_keyboard_interrupt_propagates(jobs: int, processes: bool | None) -> None:
    with pytest.raises(KeyboardInterrupt):
        run_grader(
            scripted(),
            inputs("accept", "accept", "interrupt", "accept"),
            jobs=jobs,
            batch_size=1,
            processes=processes,
        )


class Dies(GraderKind):
    """Kills its worker process (a crash in a C extension, an out-of-memory kill)."""

    name = "test_dies"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        if any(directive(i) == "die" for i in inputs):
            os._exit(3)
        return [Verdict.accept("fine") for _ in inputs]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are used on Linux only")
def test_a_worker_process_that_dies_gives_errors_not_a_hang() -> None:
    verdicts = run_grader(
        Dies(Dies.Params()), inputs("a", "die", "b", "c"), jobs=2, batch_size=1, processes=True
    )
    assert len(verdicts) == 4
    assert verdicts[1].is_error and "the grading process failed" in (verdicts[1].error or "")
    assert all(v.accepted is True or v.is_error for v in verdicts)


def test_which_kinds_use_processes() -> None:
    from graderctl.runner import uses_processes

    linux = sys.platform.startswith("linux")
    assert uses_processes(Echo(Echo.Params())) is linux  # rule-based: computes in Python
    assert uses_processes(CacheableScripted(CacheableScripted.Params())) is False  # waits on a program
    assert uses_processes(Echo(Echo.Params()), processes=False) is False

    class Declared(Echo):
        parallelism = "threads"

    assert uses_processes(Declared(Declared.Params())) is False


@pytest.mark.parametrize(
    ("option", "value"), [("jobs", 0), ("batch_size", 0), ("timeout", 0.0), ("timeout", -1.0)]
)
def test_bad_options(option: str, value: float) -> None:
    with pytest.raises(ValueError, match=option):
        run_grader(Echo(Echo.Params()), inputs("a"), **{option: value})  # type: ignore[arg-type]


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, Verdict] = {}

    def get(self, payload: Any, repeat: int = 0) -> Verdict | None:
        return self.data.get(repr(payload))

    def put(self, payload: Any, verdict: Verdict, repeat: int = 0) -> None:
        self.data[repr(payload)] = verdict


class CacheableScripted(Scripted):
    name = "test_cacheable_scripted"
    cacheable = True


def test_cache_serves_known_verdicts_and_never_stores_errors() -> None:
    cache = DictCache()
    grader = CacheableScripted(CacheableScripted.Params())
    items = inputs("accept", "reject", "error")
    first = run_grader(grader, items, cache=cache)
    assert len(cache.data) == 2  # the error is not stored
    before = Scripted.calls
    second = run_grader(grader, items[:2], cache=cache)
    assert Scripted.calls == before  # served from the cache
    assert [v.accepted for v in second] == [v.accepted for v in first[:2]]
    run_grader(grader, items, cache=cache)
    assert Scripted.calls == before + 1  # only the erring sample is graded again


def test_cache_is_ignored_for_kinds_that_are_not_cacheable() -> None:
    cache = DictCache()
    run_grader(scripted(), inputs("accept"), cache=cache)
    assert cache.data == {}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are used on Linux only")
def test_stopping_the_pool_ends_a_busy_worker() -> None:
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    from graderctl.runner import _stop_pool

    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    executor.submit(time.sleep, 600)
    while not multiprocessing.active_children():
        time.sleep(0.01)
    pids = [process.pid for process in multiprocessing.active_children()]
    _stop_pool(executor)
    # The pool's own thread may reap a worker before this test does (then is_alive() cannot tell), so ask
    # the kernel: the worker is gone, or a zombie. Without the termination it would sleep for ten minutes.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)
    assert pids and not any(_running(pid) for pid in pids)


def _running(pid: int | None) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            state = next(line for line in f if line.startswith("State:"))
    except (FileNotFoundError, StopIteration):
        return False
    return "zombie" not in state and "dead" not in state


def test_stopping_the_pool_prefers_the_public_terminate_workers() -> None:
    from graderctl.runner import _stop_pool

    calls: list[str] = []

    class Pool:
        def terminate_workers(self) -> None:
            calls.append("terminate_workers")

        def shutdown(self, *args: object, **kwargs: object) -> None:
            calls.append("shutdown")

    _stop_pool(Pool())  # type: ignore[arg-type]
    assert calls == ["terminate_workers"]
