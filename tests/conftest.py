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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="Rewrite golden files in tests/golden/ from the current output instead of comparing with them.",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True under ``pytest --update-goldens``: tests then rewrite their golden files."""
    return bool(request.config.getoption("--update-goldens"))
