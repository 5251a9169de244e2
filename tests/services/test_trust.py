from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.calibrate_support import counted_samples, register_test_kinds, write_grader, write_set

from graderctl.services.calibrate import calibrate
from graderctl.services.listing import list_project
from graderctl.services.trust import TrustState, is_trusted, trust_for_grader
from graderctl.store.project import find_grader, find_set
from graderctl.store.reports import report_paths

GOOD_SET = counted_samples(bad=60, false_accepts=0, good=20, false_rejects=0)


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_set(tmp_path, "s", GOOD_SET)
    write_grader(tmp_path, "scripted", "test_scripted")
    return tmp_path


def states(root: Path, ref: str = "scripted@1") -> list[TrustState]:
    return [e.state for e in trust_for_grader(find_grader(ref, root), root)]


def calibrate_ref(root: Path, ref: str = "scripted@1", set_name: str = "s") -> None:
    calibrate(find_grader(ref, root), find_set(set_name, root), root=root)


def test_never_calibrated(root: Path) -> None:
    (entry,) = trust_for_grader(find_grader("scripted@1", root), root)
    assert entry.state is TrustState.never_calibrated
    assert entry.report is None and entry.report_path is None
    assert "graderctl calibrate scripted@1 --set s" in entry.detail
    assert is_trusted(find_grader("scripted@1", root), root)[0] is False


def test_trusted_after_a_passing_calibration(root: Path) -> None:
    calibrate_ref(root)
    (entry,) = trust_for_grader(find_grader("scripted@1", root), root)
    assert entry.state is TrustState.trusted
    assert entry.report is not None and entry.report.trusted
    assert entry.report_path == "reports/s/scripted@1.json"
    trusted, entries = is_trusted(find_grader("scripted@1", root), root)
    assert trusted and entries == [entry]


def test_not_trusted_says_why(root: Path) -> None:
    write_grader(root, "everything", "test_accept_all")
    calibrate_ref(root, "everything@1")
    (entry,) = trust_for_grader(find_grader("everything@1", root), root)
    assert entry.state is TrustState.not_trusted
    assert "false accept rate" in entry.detail and "over by" in entry.detail


def test_a_new_version_with_other_params_shows_the_old_trust_as_stale(root: Path) -> None:
    calibrate_ref(root)
    write_grader(root, "scripted", "test_scripted", version=2, params={"invert": True})
    assert states(root, "scripted@2") == [TrustState.stale]
    (entry,) = trust_for_grader(find_grader("scripted", root), root)  # the newest version
    assert entry.grader_ref == "scripted@2"
    assert "only scripted@1 was calibrated" in entry.detail
    assert is_trusted(find_grader("scripted@2", root), root)[0] is False
    # The released v1 itself is unchanged, so its own trust still holds.
    assert states(root, "scripted@1") == [TrustState.trusted]


def test_editing_a_grader_in_place_makes_its_trust_stale(root: Path) -> None:
    calibrate_ref(root)
    write_grader(root, "scripted", "test_scripted", params={"sleep": 0.5})
    (entry,) = trust_for_grader(find_grader("scripted@1", root), root)
    assert entry.state is TrustState.stale
    assert "the grader changed" in entry.detail


def test_changing_a_sample_makes_the_trust_stale(root: Path) -> None:
    calibrate_ref(root)
    changed = [dict(s) for s in GOOD_SET]
    changed[0] = {**changed[0], "category": "renamed"}
    write_set(root, "s", changed)
    (entry,) = trust_for_grader(find_grader("scripted@1", root), root)
    assert entry.state is TrustState.stale
    assert "the set changed" in entry.detail


def test_recalibrating_restores_trust(root: Path) -> None:
    calibrate_ref(root)
    write_set(root, "s", GOOD_SET[:-1])
    assert states(root) == [TrustState.stale]
    calibrate_ref(root)
    assert states(root) == [TrustState.trusted]


def test_an_unreadable_report_is_stale(root: Path) -> None:
    calibrate_ref(root)
    report_paths(root, "s", "scripted", 1)[0].write_text("{not json", encoding="utf-8")
    (entry,) = trust_for_grader(find_grader("scripted@1", root), root)
    assert entry.state is TrustState.stale and "cannot be read" in entry.detail


def test_a_report_that_says_trusted_with_other_fingerprints_is_not_trusted(root: Path) -> None:
    calibrate_ref(root)
    path = report_paths(root, "s", "scripted", 1)[0]
    doc = json.loads(path.read_text())
    doc["grader"]["fingerprint"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert states(root) == [TrustState.stale]


def test_one_entry_per_set_of_the_grader_check(root: Path) -> None:
    write_set(root, "t", GOOD_SET[:5])
    write_set(root, "other-check", [], check="claim_support")  # not of this check: not even loaded
    calibrate_ref(root, set_name="s")
    entries = trust_for_grader(find_grader("scripted@1", root), root)
    assert [(e.set_name, e.state) for e in entries] == [
        ("s", TrustState.trusted),
        ("t", TrustState.never_calibrated),
    ]
    # Trusted on one set of its check is not trusted for the check: t was never run.
    assert is_trusted(find_grader("scripted@1", root), root)[0] is False
    calibrate_ref(root, set_name="t")  # 5 samples cannot support t's policy: t withholds trust still
    assert is_trusted(find_grader("scripted@1", root), root)[0] is False


def test_listing(root: Path) -> None:
    calibrate_ref(root)
    write_grader(root, "broken", "no_such_kind")
    listing = list_project(root)
    assert [g.ref for g in listing.graders] == ["scripted@1"]
    assert [s.name for s in listing.sets] == ["s"]
    assert listing.sets[0].n_bad == 60 and listing.sets[0].n_good == 20
    assert any("graders/broken/v1.toml" in p for p in listing.problems)
    doc = listing.model_dump(mode="json")
    assert doc["schema_version"] == 1 and doc["type"] == "listing"
    assert doc["graders"][0]["trust"][0]["state"] == "trusted"


# --- trust on one set is not trust ---------------------------------------------------------------------


def test_a_tiny_lax_set_does_not_unlock_a_grader_that_fails_the_core_set(root: Path) -> None:
    write_grader(root, "everything", "test_accept_all")
    write_set(root, "tiny-lax", GOOD_SET[:1] + GOOD_SET[-1:], far=1.0, frr=1.0, err=1.0)
    calibrate_ref(root, "everything@1", "s")
    calibrate_ref(root, "everything@1", "tiny-lax")
    trusted, entries = is_trusted(find_grader("everything@1", root), root)
    assert trusted is False
    states_by_set = {e.set_name: e.state for e in entries}
    assert states_by_set == {"s": TrustState.not_trusted, "tiny-lax": TrustState.not_trusted}
    lax = next(e for e in entries if e.set_name == "tiny-lax")
    assert "accepts any rate" in lax.detail


def test_a_set_whose_policy_accepts_anything_cannot_grant_trust_alone(tmp_path: Path) -> None:
    write_set(tmp_path, "tiny-lax", GOOD_SET[:1] + GOOD_SET[-1:], far=1.0, frr=1.0, err=1.0)
    write_grader(tmp_path, "everything", "test_accept_all")
    calibrate_ref(tmp_path, "everything@1", "tiny-lax")
    trusted, (entry,) = is_trusted(find_grader("everything@1", tmp_path), tmp_path)
    assert trusted is False and entry.state is TrustState.not_trusted


def test_passing_one_set_and_failing_another_is_not_trusted(root: Path) -> None:
    failing = [
        {**s, "input": {"citation": {**s["input"]["citation"], "title": "accept"}}} for s in GOOD_SET
    ]  # every bad sample is accepted by the scripted grader: 60 false accepts
    write_set(root, "t", failing)
    calibrate_ref(root, set_name="s")
    calibrate_ref(root, set_name="t")
    trusted, entries = is_trusted(find_grader("scripted@1", root), root)
    assert [(e.set_name, e.state) for e in entries] == [
        ("s", TrustState.trusted),
        ("t", TrustState.not_trusted),
    ]
    assert trusted is False
    # Named explicitly, the sets the grader answers to are those named (score --trust-set).
    assert is_trusted(find_grader("scripted@1", root), root, sets=[find_set("s", root)])[0] is True
    doc = list_project(root).model_dump(mode="json")
    assert doc["graders"][0]["trusted"] is False


def test_a_set_of_the_check_that_cannot_be_loaded_withholds_trust(root: Path) -> None:
    calibrate_ref(root)
    folder = write_set(root, "t", GOOD_SET)
    (folder / "samples.jsonl").write_text("{not json\n", encoding="utf-8")
    trusted, entries = is_trusted(find_grader("scripted@1", root), root)
    assert trusted is False
    broken = next(e for e in entries if e.set_name == "t")
    assert broken.state is TrustState.invalid_set and "graderctl validate" in broken.detail
    listed = list_project(root).model_dump(mode="json")["graders"][0]
    assert {t["set"]: t["state"] for t in listed["trust"]} == {"s": "trusted", "t": "invalid_set"}
    assert listed["trusted"] is False


# --- reports are evidence, not claims ------------------------------------------------------------------


def _edit(root: Path, ref: str, change: Callable[[dict[str, Any]], None], set_name: str = "s") -> None:
    name, _, version = ref.partition("@")
    path = report_paths(root, set_name, name, int(version))[0]
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _claim_trusted(doc: dict[str, Any]) -> None:
    doc["trusted"] = True
    for check in doc["policy_checks"]:
        check["passed"] = True


def test_a_hand_edited_trusted_true_is_not_believed(root: Path) -> None:
    write_grader(root, "everything", "test_accept_all")
    calibrate_ref(root, "everything@1")
    _edit(root, "everything@1", _claim_trusted)
    trusted, (entry,) = is_trusted(find_grader("everything@1", root), root)
    assert trusted is False and entry.state is TrustState.not_trusted
    assert "the report says trusted, but its outcomes do not meet" in entry.detail
    assert "false accept rate" in entry.detail
    assert list_project(root).model_dump(mode="json")["graders"][0]["trust"][0]["state"] == "not_trusted"


def test_edited_counts_or_labels_are_not_evidence(root: Path) -> None:
    write_grader(root, "everything", "test_accept_all")
    calibrate_ref(root, "everything@1")

    def counts(doc: dict[str, Any]) -> None:
        _claim_trusted(doc)
        doc["false_accept_rate"]["count"] = 0

    _edit(root, "everything@1", counts)
    (entry,) = trust_for_grader(find_grader("everything@1", root), root)
    assert entry.state is TrustState.stale and "do not match its outcomes" in entry.detail

    calibrate_ref(root, "everything@1")

    def relabel(doc: dict[str, Any]) -> None:  # every false accept relabelled good: a perfect-looking grader
        _claim_trusted(doc)
        for sample in doc["samples"]:
            sample["label"] = "good"

    _edit(root, "everything@1", relabel)
    (entry,) = trust_for_grader(find_grader("everything@1", root), root)
    assert entry.state is TrustState.stale and "the set says bad" in entry.detail

    calibrate_ref(root, "everything@1")
    _edit(root, "everything@1", lambda doc: doc["samples"].pop())
    (entry,) = trust_for_grader(find_grader("everything@1", root), root)
    assert entry.state is TrustState.stale and "79 outcomes for the set's 80 samples" in entry.detail
