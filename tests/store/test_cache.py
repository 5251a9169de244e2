"""The on-disk verdict cache."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graderctl.plugin import Usage, Verdict
from graderctl.store.cache import VerdictCache, default_cache_dir

FP = "sha256:" + "ab" * 32
OTHER_FP = "sha256:" + "cd" * 32


def verdict(accepted: bool = True) -> Verdict:
    return Verdict(
        accepted=accepted,
        reason="because",
        score=0.75,
        usage=Usage(input_tokens=100, output_tokens=20, usd=0.001, requests=1),
        details={"k": 1},
    )


def test_round_trip_is_a_free_cached_verdict(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, FP)
    payload = {"claim": "x", "evidence": [{"text": "y"}]}
    assert cache.get(payload) is None
    cache.put(payload, verdict(False))
    got = cache.get(payload)
    assert got is not None
    assert (got.accepted, got.reason, got.score) == (False, "because", 0.75)
    assert got.usage == Usage(cached=True)
    assert got.details == {
        "k": 1,
        "cached_usage": {"input_tokens": 100, "output_tokens": 20, "usd": 0.001, "requests": 1},
    }
    assert (cache.hits, cache.misses, cache.writes) == (1, 1, 1)


def test_key_depends_on_fingerprint_payload_and_repeat(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, FP)
    cache.put({"a": 1}, verdict())
    assert VerdictCache(tmp_path, OTHER_FP).get({"a": 1}) is None
    assert cache.get({"a": 2}) is None
    assert cache.get({"a": 1}, repeat=1) is None
    assert cache.get({"a": 1}, repeat=0) is not None
    # key order does not matter (canonical form)
    cache.put({"x": 1, "y": 2}, verdict())
    assert cache.get({"y": 2, "x": 1}) is not None


def test_errors_are_not_stored(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, FP)
    cache.put({"a": 1}, Verdict.failed("timeout"))
    assert cache.get({"a": 1}) is None and cache.writes == 0


def test_corrupt_entries_are_ignored(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, FP)
    cache.put({"a": 1}, verdict())
    [path] = list(cache.directory.rglob("*.json"))
    for bad in ("{not json", "[]", f'{{"format": 1, "fingerprint": "{FP}", "accepted": "yes"}}', ""):
        path.write_text(bad)
        assert cache.get({"a": 1}) is None
    cache.put({"a": 1}, verdict())
    assert cache.get({"a": 1}) is not None


def test_concurrent_writers(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path, FP)

    def work(k: int) -> None:
        for i in range(40):
            cache.put({"i": i}, verdict(i % 2 == 0))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(cache.get({"i": i}).accepted == (i % 2 == 0) for i in range(40))  # type: ignore[union-attr]
    assert not list(cache.directory.rglob("*.tmp"))


def test_the_verdict_cache_is_in_the_users_cache_folder_one_per_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never inside the project (an entry there could be committed or forged): under
    $GRADERCTL_CACHE_DIR/verdicts/, one folder per project; off turns it off."""
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", str(tmp_path / "c"))
    a, b = default_cache_dir(tmp_path / "p"), default_cache_dir(tmp_path / "q")
    assert a is not None and b is not None and a != b
    assert a.parent == tmp_path / "c" / "verdicts"
    assert default_cache_dir(tmp_path / "p" / ".." / "p") == a  # the same project, however it is spelled
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", "off")
    assert default_cache_dir(tmp_path / "p") is None
    monkeypatch.delenv("GRADERCTL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir(tmp_path / "p") == tmp_path / "xdg" / "graderctl" / "verdicts" / a.name
