"""The run options the grader-running services share, and starting a grader with its verdict cache."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from tests.calibrate_support import Scripted, register_test_kinds, write_grader

from graderctl.errors import GraderRunError
from graderctl.plugin import register
from graderctl.services.running import DEFAULT_RUN, RunOptions, start_grader, verdict_cache
from graderctl.store.cache import VerdictCache, default_cache_dir
from graderctl.store.project import find_grader


class BrokenStart(Scripted):
    """A kind whose constructor fails, as one with a missing backend would."""

    name = "test_broken_start"

    def __init__(self, params: Any, context: Any = None) -> None:
        raise RuntimeError("no backend configured")


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()
    register(BrokenStart, origin="tests/services/test_running.py")


def test_defaults_match_the_cli_defaults() -> None:
    assert RunOptions(jobs=1, timeout=None, batch_size=64, use_cache=True) == DEFAULT_RUN
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_RUN.jobs = 2  # type: ignore[misc]


def test_cache_dir_is_the_projects_unless_the_cache_is_off(tmp_path: Path) -> None:
    assert RunOptions().cache_dir(tmp_path) == default_cache_dir(tmp_path) is not None
    assert RunOptions(use_cache=False).cache_dir(tmp_path) is None


def test_verdict_cache_only_for_cacheable_kinds_with_a_folder(tmp_path: Path) -> None:
    write_grader(tmp_path, "costly", "test_costly")
    write_grader(tmp_path, "scripted", "test_scripted")
    costly, scripted = find_grader("costly@1", tmp_path), find_grader("scripted@1", tmp_path)
    assert isinstance(verdict_cache(costly, default_cache_dir(tmp_path)), VerdictCache)
    assert verdict_cache(costly, None) is None
    assert verdict_cache(scripted, default_cache_dir(tmp_path)) is None


def test_a_grader_that_cannot_be_built_is_a_run_error(tmp_path: Path) -> None:
    write_grader(tmp_path, "broken", "test_broken_start")
    with pytest.raises(
        GraderRunError, match=r"broken@1 could not start: RuntimeError: no backend configured"
    ):
        start_grader(find_grader("broken@1", tmp_path), None, None)
