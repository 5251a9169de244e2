"""Fixtures for the statistics tests: the shared oracle tables, read at test time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import oracle_path


def load_oracle(name: str) -> Any:
    """A JSON table of ../shared/oracles (or its copy in tests/data/oracles in a plain clone)."""
    return json.loads(oracle_path(name).read_text(encoding="utf-8"))


@pytest.fixture
def intervals_oracle() -> Any:
    return load_oracle("intervals.json")


@pytest.fixture
def paired_oracle() -> Any:
    return load_oracle("paired.json")


@pytest.fixture
def pass_k_oracle() -> Any:
    return load_oracle("pass_k.json")
