"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = Path(__file__).resolve().parent / "data"


def shared_data(name: str) -> Path:
    """A folder of ../shared/data, or skip the test with the reason."""
    path = SHARED / "data" / name
    if not path.is_dir():
        pytest.skip(f"development data {path} is absent (it lives beside the project, in ../shared/data)")
    return path


@pytest.fixture
def repo_root() -> Path:
    return REPO
