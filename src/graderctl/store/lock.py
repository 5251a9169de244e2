"""``graders/graders.lock``: released grader versions and their fingerprints. A released version is
immutable: when its content changes, its fingerprint no longer matches the lock and ``validate`` fails."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from graderctl.errors import InvalidInputError, Problem
from graderctl.store.atomic import atomic_write_text
from graderctl.store.project import GRADERS_DIR, LOCK_NAME
from graderctl.store.readers import display_path, read_toml

_HEADER = (
    "# Released grader versions and their fingerprints. A released version is never edited:\n"
    "# change anything that can change a verdict and bump the version (new v<N+1>.toml).\n"
    "# New versions are added by `graderctl validate --update-lock`; existing entries are never rewritten.\n"
)


@dataclass
class Lock:
    path: Path
    entries: dict[str, str]


def lock_path(root: Path) -> Path:
    return root / GRADERS_DIR / LOCK_NAME


def read_lock(root: Path) -> Lock:
    path = lock_path(root)
    if not path.exists():
        return Lock(path=path, entries={})
    shown = display_path(path, root)
    data, _ = read_toml(path, shown)
    graders = data.get("graders", {})
    if (
        data.get("schema_version") != 1
        or not isinstance(graders, dict)
        or not all(isinstance(v, str) and v.startswith("sha256:") for v in graders.values())
    ):
        raise InvalidInputError(
            f"{shown}: malformed lock",
            [
                Problem(
                    file=shown,
                    message="malformed lock file",
                    expected='schema_version = 1 and a [graders] table of "name@version" = "sha256:..."',
                    got="something else",
                    fix="restore it from version control",
                )
            ],
        )
    return Lock(path=path, entries=dict(graders))


def write_lock(lock: Lock) -> None:
    lines = [_HEADER, "schema_version = 1", "", "[graders]"]
    for ref in sorted(lock.entries):
        lines.append(f'"{ref}" = "{lock.entries[ref]}"')
    atomic_write_text(lock.path, "\n".join(lines) + "\n")


def parse_lock_text(text: str) -> dict[str, str]:
    return dict(tomllib.loads(text).get("graders", {}))
