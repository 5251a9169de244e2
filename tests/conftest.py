"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = Path(__file__).resolve().parent / "data"

#: A test skipped without a reason fails (tests/support/skip_reasons.py).
pytest_plugins = ["tests.support.skip_reasons"]


def oracle_path(name: str) -> Path:
    """A published statistics table: ../shared/oracles/NAME when present, else the copy in tests/data/oracles
    (so a plain clone runs every oracle test; test_vendored_oracles_match_shared keeps the copy current)."""
    shared = SHARED / "oracles" / name
    return shared if shared.is_file() else DATA / "oracles" / name


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


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Real Inspect AI logs (.eval and .json) of one task, 4 samples x 4 epochs, made once per test session
    with inspect_ai's mockllm provider (see tests/support/inspect_eval.py)."""
    pytest.importorskip(
        "inspect_ai", reason="inspect-ai (graderctl[inspect], in the test extra) is not installed"
    )
    from tests.support.inspect_eval import make_logs

    return make_logs(tmp_path_factory.mktemp("inspect-logs"))


@pytest.fixture(autouse=True, scope="session")
def _set_cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The set cache (graderctl.store.set_cache) of a test session lives in a temporary folder, never in the
    user's ~/.cache (subprocesses inherit the variable)."""
    before = os.environ.get("GRADERCTL_CACHE_DIR")
    os.environ["GRADERCTL_CACHE_DIR"] = str(tmp_path_factory.mktemp("graderctl-cache"))
    yield
    if before is None:
        os.environ.pop("GRADERCTL_CACHE_DIR", None)
    else:
        os.environ["GRADERCTL_CACHE_DIR"] = before
