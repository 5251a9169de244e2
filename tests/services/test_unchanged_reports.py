"""A re-run whose findings are unchanged rewrites no committed report (comparison and probe reports as
calibration reports): timestamps alone are not a change."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set

import graderctl.services.calibrate as calibrate_service
from graderctl.services.compare import compare, comparison_paths
from graderctl.services.probe import probe_paths, run_probes
from graderctl.store.project import find_grader, find_set


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    write_grader(tmp_path, "scripted", "test_scripted", version=2, params={"sleep": 0.1})
    return tmp_path


def state(paths: tuple[Path, Path]) -> list[tuple[bytes, int, int]]:
    return [(p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino) for p in paths]


def test_an_unchanged_comparison_is_not_rewritten(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> None:
        compare(
            find_grader("scripted@1", root), find_grader("scripted@2", root), [find_set("s", root)], root=root
        )

    monkeypatch.setattr(calibrate_service, "now_rfc3339", lambda: "2026-01-01T00:00:00Z")
    run()
    paths = comparison_paths(root, "scripted@1", "scripted@2")
    before = state(paths)
    monkeypatch.setattr(calibrate_service, "now_rfc3339", lambda: "2026-06-30T00:00:00Z")
    run()
    assert state(paths) == before


def test_an_unchanged_probe_is_not_rewritten(root: Path) -> None:
    grader, cal_set = find_grader("scripted@1", root), find_set("s", root)
    run_probes(grader, cal_set, ["length"], root=root, created_at="2026-01-01T00:00:00Z")
    paths = probe_paths(root, "s", "scripted", 1, "length")
    before = state(paths)
    run_probes(grader, cal_set, ["length"], root=root, created_at="2026-06-30T00:00:00Z")
    assert state(paths) == before
