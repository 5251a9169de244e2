"""Fixtures for the statistics tests: the shared oracle tables, read at test time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import SHARED

ORACLES = SHARED / "oracles"


def load_oracle(name: str) -> Any:
    """A JSON table from ../shared/oracles, or skip the test with the reason."""
    path = ORACLES / name
    if not path.is_file():
        pytest.skip(f"oracle table {path} is absent (it lives beside the project, in ../shared/oracles)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def intervals_oracle() -> Any:
    return load_oracle("intervals.json")


@pytest.fixture
def paired_oracle() -> Any:
    return load_oracle("paired.json")


@pytest.fixture
def pass_k_oracle() -> Any:
    return load_oracle("pass_k.json")
