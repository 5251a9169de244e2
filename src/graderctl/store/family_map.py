"""The model family map's files: the shipped ``graderctl/data/model_families.toml`` and the project's own
``<root>/model_families.toml`` (read here; :class:`graderctl.identity.FamilyMap` is built from them by the
services)."""

from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple

from graderctl.store.readers import display_path, read_toml

FAMILY_MAP_FILE = "model_families.toml"


class FamilyTables(NamedTuple):
    """One family-map file, parsed: its tables, how it is named in messages, and its priority (the user's
    file, 1, is checked before the shipped one, 0)."""

    tables: dict[str, Any]
    source: str
    priority: int


def family_map_files(root: Path) -> list[FamilyTables]:
    """The shipped family map, then ``<root>/model_families.toml`` when present."""
    text = files("graderctl.data").joinpath(FAMILY_MAP_FILE).read_text(encoding="utf-8")
    out = [FamilyTables(tomllib.loads(text), f"graderctl/data/{FAMILY_MAP_FILE}", 0)]
    user = root / FAMILY_MAP_FILE
    if user.is_file():
        shown = display_path(user, root)
        data, _ = read_toml(user, shown)
        out.append(FamilyTables(data, shown, 1))
    return out
