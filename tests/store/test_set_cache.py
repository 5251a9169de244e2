"""index_set (a set as trust reads it: labels by id, not the samples) and its content-addressed cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graderctl.errors import InvalidInputError, Problem
from graderctl.services import trust
from graderctl.services.calibrate import calibrate
from graderctl.services.listing import list_project
from graderctl.services.trust import TrustState, is_trusted, trust_for_grader
from graderctl.store import project, report_outcomes, set_cache
from graderctl.store.problems import ProblemSink
from graderctl.store.project import check_set, find_grader, find_set, index_set, load_set, set_folders
from graderctl.store.readers import duplicate_keys_checked
from graderctl.store.reports import report_paths
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set

REPO = Path(__file__).resolve().parents[2]
SAMPLES = counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache on for every set, whatever its size, in a folder of this test."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", str(folder))
    monkeypatch.setattr(set_cache, "MIN_BYTES", 0)
    return folder / "sets"


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json")) if cache.is_dir() else []


def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the set was read again")

    monkeypatch.setattr(project, "_read_set", fail)


def flip_first_label_in_place(folder: Path) -> None:
    """Change the first sample's label without changing the file's size or modification time."""
    path = folder / "samples.jsonl"
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    if '"label": "bad"' in text.splitlines()[0]:
        first, rest = text.split("\n", 1)
        first = first.replace('"label": "bad"', '"label":"good"', 1)
    else:
        first, rest = text.split("\n", 1)
        first = first.replace('"label": "good"', '"label":  "bad"', 1)
    path.write_text(first + "\n" + rest, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def assert_same(folder: Path, root: Path) -> None:
    full = load_set(folder, root=root)
    index = index_set(folder, root=root)
    assert index.fingerprint == full.fingerprint
    assert index.labels == full.labels
    assert (index.n_good, index.n_bad) == (full.n_good, full.n_bad)
    assert index.manifest == full.manifest
    assert (index.name, index.check, index.shown, index.path) == (
        full.name,
        full.check,
        full.shown,
        full.path,
    )


# --- index_set is load_set without the samples ----------------------------------------------------------


@pytest.mark.parametrize("folder", set_folders(REPO), ids=lambda p: p.name)
def test_index_set_is_load_set_without_the_samples(folder: Path) -> None:
    assert_same(folder, REPO)


def _broken(root: Path, how: str) -> Path:
    folder = write_set(root, "t", SAMPLES)
    samples = folder / "samples.jsonl"
    if how == "line":
        samples.write_text(samples.read_text() + '{"id": "x", "label": "maybe"}\n')
    elif how == "json":
        samples.write_text("{not json\n" + samples.read_text())
    elif how == "duplicate":
        samples.write_text(samples.read_text() + samples.read_text().splitlines()[0] + "\n")
    elif how == "manifest":
        (folder / "manifest.toml").write_text('name = "t"\ncheck = "source_existence"\n')
    elif how == "no-samples":
        samples.unlink()
    elif how == "no-manifest":
        (folder / "manifest.toml").unlink()
    return folder


@pytest.mark.parametrize("how", ["line", "json", "duplicate", "manifest", "no-samples", "no-manifest"])
@pytest.mark.parametrize("cached", [False, True])
def test_an_invalid_set_raises_what_load_set_raises(
    tmp_path: Path, how: str, cached: bool, request: pytest.FixtureRequest
) -> None:
    cache = request.getfixturevalue("cache") if cached else None
    folder = _broken(tmp_path, how)
    with pytest.raises(InvalidInputError) as full:
        load_set(folder, root=tmp_path)
    for _ in range(2):  # and again: an invalid set is never cached
        with pytest.raises(InvalidInputError) as index:
            index_set(folder, root=tmp_path)
        assert str(index.value) == str(full.value)
        assert [p.to_dict() for p in index.value.problems] == [p.to_dict() for p in full.value.problems]
    if cache is not None:
        assert entries(cache) == []


# --- the cache ------------------------------------------------------------------------------------------


def test_a_second_read_comes_from_the_cache(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    first = index_set(folder, root=tmp_path)
    assert len(entries(cache)) == 1
    no_reading(monkeypatch)
    again = index_set(folder, root=tmp_path)
    assert again == first


def test_a_set_edited_in_place_with_size_and_time_restored_is_read_again(tmp_path: Path, cache: Path) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    before = index_set(folder, root=tmp_path)
    flip_first_label_in_place(folder)
    after = index_set(folder, root=tmp_path)
    assert after.fingerprint != before.fingerprint
    assert after.labels != before.labels
    assert_same(folder, tmp_path)
    assert len(entries(cache)) == 2


def test_a_changed_set_withholds_trust_though_it_was_cached(tmp_path: Path, cache: Path) -> None:
    register_test_kinds()
    write_set(tmp_path, "s", SAMPLES)
    write_grader(tmp_path, "scripted", "test_scripted")
    calibrate(find_grader("scripted@1", tmp_path), find_set("s", tmp_path), root=tmp_path)
    listed = list_project(tmp_path).model_dump(mode="json")["graders"][0]
    assert listed["trusted"] is True and entries(cache)

    flip_first_label_in_place(tmp_path / "calibration_sets" / "s")
    (entry,) = trust_for_grader(find_grader("scripted@1", tmp_path), tmp_path)
    assert entry.state is TrustState.stale and "the set changed" in entry.detail
    listed = list_project(tmp_path).model_dump(mode="json")["graders"][0]
    assert listed["trusted"] is False and listed["trust"][0]["state"] == "stale"


def test_a_hand_edited_report_is_not_believed_with_the_set_cached(tmp_path: Path, cache: Path) -> None:
    register_test_kinds()
    write_set(tmp_path, "s", counted_samples(bad=60, false_accepts=30, good=20, false_rejects=0))
    write_grader(tmp_path, "scripted", "test_scripted")
    calibrate(find_grader("scripted@1", tmp_path), find_set("s", tmp_path), root=tmp_path)
    path = report_paths(tmp_path, "s", "scripted", 1)[0]
    doc = json.loads(path.read_text())
    doc["trusted"] = True
    path.write_text(json.dumps(doc))
    cold = list_project(tmp_path).model_dump(mode="json")
    warm = list_project(tmp_path).model_dump(mode="json")
    assert cold == warm
    assert warm["graders"][0]["trust"][0]["state"] == "not_trusted"
    for sample in doc["samples"]:  # every false accept relabelled good
        sample["label"] = "good"
    path.write_text(json.dumps(doc))
    (entry,) = trust_for_grader(find_grader("scripted@1", tmp_path), tmp_path)
    assert entry.state is TrustState.stale and "the set says bad" in entry.detail


def test_list_is_the_same_cold_and_warm(tmp_path: Path, cache: Path) -> None:
    register_test_kinds()
    write_set(tmp_path, "s", SAMPLES)
    write_set(tmp_path, "u", counted_samples(bad=40, false_accepts=3, good=30, false_rejects=2))
    _broken(tmp_path, "duplicate").rename(tmp_path / "calibration_sets" / "v")
    write_grader(tmp_path, "scripted", "test_scripted")
    calibrate(find_grader("scripted@1", tmp_path), find_set("s", tmp_path), root=tmp_path)
    uncached = list_project(tmp_path).model_dump(mode="json")
    assert len(entries(cache)) == 2
    assert list_project(tmp_path).model_dump(mode="json") == uncached


def test_a_malformed_or_foreign_entry_is_a_miss(tmp_path: Path, cache: Path) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    good = index_set(folder, root=tmp_path)
    (entry,) = entries(cache)
    doc = json.loads(entry.read_text())
    bad_entries = [
        "{not json",
        json.dumps({**doc, "key": "0" * 64}),
        json.dumps({**doc, "labels": "g" * len(doc["labels"])}),
        json.dumps({**doc, "ids": doc["ids"][:-1]}),
        json.dumps({**doc, "format": 99}),
        "[" * 100_000,
    ]
    for text in bad_entries:
        entry.write_text(text)
        assert index_set(folder, root=tmp_path) == good
        assert json.loads(entry.read_text()) == doc  # rewritten


def test_small_sets_are_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", str(tmp_path / "c"))
    folder = write_set(tmp_path, "t", SAMPLES)
    assert (folder / "samples.jsonl").stat().st_size < set_cache.MIN_BYTES
    index_set(folder, root=tmp_path)
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("value", ["off", ""])
def test_the_cache_can_be_turned_off(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", value)
    assert set_cache.cache_dir() is None
    index_set(write_set(tmp_path, "t", SAMPLES), root=tmp_path)
    assert entries(cache) == []


def test_the_default_place_is_the_users_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADERCTL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert set_cache.cache_dir() == tmp_path / "xdg" / "graderctl" / "sets"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert set_cache.cache_dir() == tmp_path / "home" / ".cache" / "graderctl" / "sets"


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(set_cache, "MIN_BYTES", 0)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", str(blocker))
    folder = write_set(tmp_path, "t", SAMPLES)
    assert index_set(folder, root=tmp_path).fingerprint == load_set(folder, root=tmp_path).fingerprint


def test_a_set_that_changes_while_it_is_read_is_not_stored(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    keys = iter(["a" * 64, "b" * 64])
    monkeypatch.setattr(set_cache, "set_key", lambda *a, **k: next(keys))
    index_set(folder, root=tmp_path)
    assert entries(cache) == []


def test_a_large_set_is_read_and_hashed_once(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold read: the samples file is read once, the key is over those bytes (the same key as over the
    file), and the bytes checked are those bytes."""
    folder = write_set(tmp_path, "t", SAMPLES)
    key = set_cache.set_key(folder)
    reads: list[Path] = []
    hashed: list[bool] = []
    real_read, real_key = Path.read_bytes, set_cache.set_key

    def read_bytes(self: Path) -> bytes:
        if self.name == "samples.jsonl":
            reads.append(self)
        return real_read(self)

    def set_key(folder: Path, *, samples_digest: bytes | None = None) -> str | None:
        hashed.append(samples_digest is None)
        return real_key(folder, samples_digest=samples_digest)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(set_cache, "set_key", set_key)
    index_set(folder, root=tmp_path)
    assert len(reads) == 1
    assert hashed == [False, False]  # before and after the read: the samples' digest from the bytes read
    assert [p.stem for p in entries(cache)] == [key]


def test_the_key_covers_the_bytes_the_folder_and_the_code(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    key = set_cache.set_key(folder)
    assert key is not None and set_cache.set_key(folder) == key
    (folder / "corpus.jsonl").write_text("")
    assert set_cache.set_key(folder) not in (None, key)
    (folder / "corpus.jsonl").unlink()
    renamed = folder.rename(folder.with_name("u"))
    assert set_cache.set_key(renamed) != key
    renamed.rename(folder)
    monkeypatch.setattr(set_cache, "_code_identity", "another graderctl")
    assert set_cache.set_key(folder) != key


def test_an_entry_made_without_duplicate_key_checks_does_not_serve_a_reader_that_checks_them(
    tmp_path: Path, cache: Path
) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    samples = folder / "samples.jsonl"
    lines = samples.read_text().splitlines()
    lines[0] = lines[0].replace('"label": "bad"', '"label": "good", "label": "bad"')
    samples.write_text("\n".join(lines) + "\n")
    index_set(folder, root=tmp_path)  # list reads it as JSON readers do: the last key counts
    (entry,) = entries(cache)
    assert json.loads(entry.read_text())["duplicate_keys_checked"] is False
    with duplicate_keys_checked(), pytest.raises(InvalidInputError, match="problem"):
        index_set(folder, root=tmp_path)
    assert json.loads(entry.read_text())["duplicate_keys_checked"] is False


def test_an_entry_made_with_duplicate_key_checks_serves_every_reader(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_set(tmp_path, "t", SAMPLES)
    index_set(folder, root=tmp_path)
    with duplicate_keys_checked():  # the lax entry does not serve: read again, and the entry made strict
        strict = index_set(folder, root=tmp_path)
    (entry,) = entries(cache)
    assert json.loads(entry.read_text())["duplicate_keys_checked"] is True
    no_reading(monkeypatch)
    with duplicate_keys_checked():
        assert index_set(folder, root=tmp_path) == strict
    assert index_set(folder, root=tmp_path) == strict
    assert json.loads(entry.read_text())["duplicate_keys_checked"] is True  # not replaced by a lax one


def test_loading_or_validating_a_set_leaves_its_entry(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """calibrate (load_set) and validate (check_set) read the whole set anyway: list after them is warm."""
    folder = write_set(tmp_path, "t", SAMPLES)
    full = load_set(folder, root=tmp_path)
    assert len(entries(cache)) == 1
    with monkeypatch.context() as m:
        no_reading(m)
        index = index_set(folder, root=tmp_path)
    assert (index.fingerprint, index.labels, index.manifest) == (full.fingerprint, full.labels, full.manifest)

    other = write_set(tmp_path, "u", SAMPLES[:50])
    with duplicate_keys_checked():
        summary = check_set(other, root=tmp_path, sink=ProblemSink())
    assert len(entries(cache)) == 2
    no_reading(monkeypatch)
    index = index_set(other, root=tmp_path)
    assert index.fingerprint == summary.fingerprint
    assert (index.n_good, index.n_bad) == (summary.n_good, summary.n_bad)


def test_a_set_read_with_problems_leaves_no_entry(tmp_path: Path, cache: Path) -> None:
    folder = _broken(tmp_path, "duplicate")
    sink = ProblemSink()
    check_set(folder, root=tmp_path, sink=sink)
    assert sink.count == 1
    load_set(folder, root=tmp_path, sink=ProblemSink())
    assert entries(cache) == []
    fine = write_set(tmp_path, "u", SAMPLES)
    sink = ProblemSink()
    sink.add(Problem(file="elsewhere", message="a problem of another file"))
    check_set(fine, root=tmp_path, sink=sink)  # problems found before are not this set's
    assert len(entries(cache)) == 1


def test_old_entries_are_pruned(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(set_cache, "MAX_ENTRIES", 2)
    folder = write_set(tmp_path, "t", SAMPLES)
    for i in range(4):
        write_set(tmp_path, "t", counted_samples(bad=10 + i, false_accepts=0, good=5, false_rejects=0))
        index_set(folder, root=tmp_path)
    assert len(entries(cache)) == 2


# --- list's decisions on large reports ------------------------------------------------------------------


def _calibrated(root: Path, *, false_accepts: int = 0) -> Path:
    register_test_kinds()
    write_set(root, "s", counted_samples(bad=60, false_accepts=false_accepts, good=20, false_rejects=0))
    write_grader(root, "scripted", "test_scripted")
    calibrate(find_grader("scripted@1", root), find_set("s", root), root=root)
    return report_paths(root, "s", "scripted", 1)[0]


def decisions(cache: Path) -> list[Path]:
    folder = cache.parent / "trust"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def no_report_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the report was read again")

    monkeypatch.setattr(trust, "read_report", fail)
    monkeypatch.setattr(report_outcomes, "read_report_outcomes", fail)


def test_list_decides_a_large_report_once(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _calibrated(tmp_path)
    first = list_project(tmp_path).model_dump(mode="json")
    assert first["graders"][0]["trust"][0]["state"] == "trusted" and len(decisions(cache)) == 1
    with monkeypatch.context() as m:
        no_report_reading(m)
        assert list_project(tmp_path).model_dump(mode="json") == first
    # score's trust check keeps the report (and never takes a decision from the cache)
    trusted, (entry,) = is_trusted(find_grader("scripted@1", tmp_path), tmp_path)
    assert trusted and entry.report is not None
    no_report_reading(monkeypatch)
    with pytest.raises(AssertionError, match="read again"):
        is_trusted(find_grader("scripted@1", tmp_path), tmp_path)


def test_calibrate_leaves_lists_decision(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """calibrate decides the report it wrote as list does and keeps the decision: the first list after it
    does not read the report (and says what a cold list says)."""
    _calibrated(tmp_path)
    assert len(decisions(cache)) == 1
    with monkeypatch.context() as m:
        no_report_reading(m)
        warm = list_project(tmp_path).model_dump(mode="json")
    for entry in decisions(cache):
        entry.unlink()
    assert list_project(tmp_path).model_dump(mode="json") == warm
    assert warm["graders"][0]["trust"][0]["state"] == "trusted"


def test_a_hand_edited_report_is_decided_afresh(tmp_path: Path, cache: Path) -> None:
    path = _calibrated(tmp_path, false_accepts=30)
    assert list_project(tmp_path).model_dump(mode="json")["graders"][0]["trust"][0]["state"] == "not_trusted"
    doc = json.loads(path.read_text())
    doc["trusted"] = True
    path.write_text(json.dumps(doc))
    (entry,) = list_project(tmp_path).model_dump(mode="json")["graders"][0]["trust"]
    assert entry["state"] == "not_trusted" and "the report says trusted" in entry["detail"]
    for sample in doc["samples"]:  # every false accept relabelled good: a perfect-looking grader
        sample["label"] = "good"
    st = path.stat()
    path.write_text(json.dumps(doc))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    (entry,) = list_project(tmp_path).model_dump(mode="json")["graders"][0]["trust"]
    assert entry["state"] == "stale" and "the set says bad" in entry["detail"]
    assert len(decisions(cache)) == 3


def test_a_changed_set_or_grader_is_decided_afresh(tmp_path: Path, cache: Path) -> None:
    _calibrated(tmp_path)
    assert list_project(tmp_path).model_dump(mode="json")["graders"][0]["trusted"] is True
    flip_first_label_in_place(tmp_path / "calibration_sets" / "s")
    (entry,) = list_project(tmp_path).model_dump(mode="json")["graders"][0]["trust"]
    assert entry["state"] == "stale" and "the set changed" in entry["detail"]
    write_set(tmp_path, "s", SAMPLES)  # back as calibrated
    assert list_project(tmp_path).model_dump(mode="json")["graders"][0]["trusted"] is True
    write_grader(tmp_path, "scripted", "test_scripted", params={"invert": True})
    (entry,) = list_project(tmp_path).model_dump(mode="json")["graders"][0]["trust"]
    assert entry["state"] == "stale" and "the grader changed" in entry["detail"]


def test_a_malformed_decision_is_a_miss(tmp_path: Path, cache: Path) -> None:
    _calibrated(tmp_path)
    first = list_project(tmp_path).model_dump(mode="json")
    (entry,) = decisions(cache)
    doc = json.loads(entry.read_text())
    for text in [
        "{",
        json.dumps({**doc, "state": "trusted?"}),
        json.dumps({**doc, "key": "x"}),
        "[" * 100_000,
    ]:
        entry.write_text(text)
        assert list_project(tmp_path).model_dump(mode="json") == first
        assert json.loads(entry.read_text()) == doc  # rewritten


def test_small_reports_are_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADERCTL_CACHE_DIR", str(tmp_path / "c"))
    _calibrated(tmp_path)
    list_project(tmp_path)
    assert not (tmp_path / "c" / "trust").exists()
