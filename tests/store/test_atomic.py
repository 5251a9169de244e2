"""Atomic writes name the file the user asked for when the environment fails (issue 11, item 13)."""

from __future__ import annotations

import errno
import tempfile
from pathlib import Path

import pytest

from graderctl.store.atomic import atomic_write_many, atomic_write_text


def _no_space(*args: object, **kwargs: object) -> tuple[int, str]:
    raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/.out.json.abc123.tmp")


@pytest.mark.parametrize("write", ["one", "many"])
def test_a_failure_names_the_target_not_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    target = tmp_path / "out.json"
    monkeypatch.setattr(tempfile, "mkstemp", _no_space)
    with pytest.raises(OSError) as info:
        if write == "one":
            atomic_write_text(target, "{}")
        else:
            atomic_write_many({target: "{}"})
    assert info.value.errno == errno.ENOSPC
    assert info.value.filename == str(target)
    assert not target.exists()


def test_a_failed_rename_names_the_target(tmp_path: Path) -> None:
    target = tmp_path / "folder"
    (target / "inside").mkdir(parents=True)  # a non-empty folder: the rename over it fails
    with pytest.raises(OSError) as info:
        atomic_write_text(target, "{}")
    assert info.value.filename == str(target) and info.value.filename2 is None
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
