"""``graderctl tune``, tune/certify splits and the certify ledger."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
from tests.calibrate_support import Scored, register_test_kinds, sample, write_grader, write_set

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.services.calibrate import calibrate
from graderctl.services.splits import Split, count_splits, split_of
from graderctl.services.tune import tune
from graderctl.store.ledger import read_ledger
from graderctl.store.project import find_grader, find_set


@pytest.fixture(autouse=True)
def _kinds() -> None:
    register_test_kinds()
    Scored.seen.clear()


def scored_samples(n: int = 600, seed: int = 5) -> list[dict[str, Any]]:
    """Good samples score in [0.5, 1], bad ones in [0, 0.6]; pairs share a group."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        good = i % 2 == 0
        score = rng.uniform(0.5, 1.0) if good else rng.uniform(0.0, 0.6)
        out.append(
            sample(f"s{i:04d}", "good" if good else "bad", f"score={score:.5f} s{i:04d}", group=f"g{i // 2}")
        )
    return out


def project(
    root: Path,
    samples: list[dict[str, Any]] | None = None,
    *,
    split: str | None = "tune_fraction = 0.5\nseed = 3",
) -> Path:
    folder = write_set(root, "s", samples if samples is not None else scored_samples(), far=0.1, frr=0.3)
    if split is not None:
        with (folder / "manifest.toml").open("a", encoding="utf-8") as fh:
            fh.write(f"\n[split]\n{split}\n")
    write_grader(root, "scored", "test_scored", params={"threshold": 0.3})
    return root


def run(root: Path, *args: str) -> int:
    return _state.run(app, ["--root", str(root), *args])


class Poisoned:
    """A certify sample as tune may see it: its id, group and split can be read, anything else raises."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def id(self) -> str:
        return str(self._inner.id)

    @property
    def group(self) -> str | None:
        return self._inner.group  # type: ignore[no-any-return]

    @property
    def split(self) -> str | None:
        return self._inner.split  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"tune read {name!r} of certify sample {self._inner.id}")


# --- acceptance 1 --------------------------------------------------------------------------------------


def test_tune_writes_a_version_the_certify_split_trusts_without_reading_certify_samples(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    cal_set = find_set("s", root)
    certify_ids = {s.id for s in cal_set.samples if split_of(s, cal_set.manifest) is Split.certify}
    certify_titles = {s.input.citation.title for s in cal_set.samples if s.id in certify_ids}  # type: ignore[union-attr]
    assert 200 < len(certify_ids) < 400
    cal_set.samples = [Poisoned(s) if s.id in certify_ids else s for s in cal_set.samples]  # type: ignore[misc]

    old = find_grader("scored@1", root)
    released = (root / "graders/scored/v1.toml").read_bytes()
    result = tune(old, cal_set, root=root)
    assert result.meets_limits and result.written is not None
    assert result.n_certify == len(certify_ids) and result.n_tune == 600 - len(certify_ids)
    assert Scored.seen and not certify_titles & set(Scored.seen)  # the grader saw tune samples only
    assert result.written.ref == "scored@2" and result.written.path == "graders/scored/v2.toml"
    chosen = result.chosen
    assert chosen is not None and 0.5 < chosen.accept_at_or_above <= 0.6
    written = tomllib.loads((root / "graders/scored/v2.toml").read_text(encoding="utf-8"))
    assert written["version"] == 2 and written["params"] == {"threshold": chosen.accept_at_or_above}
    assert "graderctl tune" in written["description"] and "certify samples not read" in written["description"]
    assert (root / "graders/scored/v1.toml").read_bytes() == released

    fresh = find_set("s", root)  # the verdict: calibration on the certify split, old and new
    before = calibrate(old, fresh, root=root, split="certify")
    after = calibrate(find_grader("scored@2", root), fresh, root=root, split="certify")
    assert not before.trusted and after.trusted
    assert after.split == "certify" and after.calibration_set.split == "certify"
    assert after.false_accept_rate.n + after.false_reject_rate.n == len(certify_ids)
    assert (root / "reports/s/scored@2.certify.json").is_file()
    assert not (root / "reports/s/scored@2.json").exists()
    ledger = read_ledger(root, "s")
    assert [e.grader for e in ledger] == ["scored@1", "scored@2"]
    assert [e.trusted for e in ledger] == [False, True]
    assert after.ledger is not None and after.ledger.looks == 2


def test_what_certify_samples_hold_does_not_change_tune(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for variant in ("plain", "scrambled"):
        root = tmp_path / variant
        samples = scored_samples()
        if variant == "scrambled":  # flip every certify label and give certify samples other scores
            probe = project(tmp_path / "probe")
            cal = find_set("s", probe)
            certify = {s.id for s in cal.samples if split_of(s, cal.manifest) is Split.certify}
            for s in samples:
                if s["id"] in certify:
                    s["label"] = "good" if s["label"] == "bad" else "bad"
                    s["input"]["citation"]["title"] = f"score=0.99999 {s['id']}"
        project(root, samples)
        code = run(root, "tune", "scored@1", "--set", "s", "--format", "json", "--no-write")
        out = capsys.readouterr().out
        assert code == ExitCode.OK
        doc = json.loads(out)
        outputs.append({k: doc[k] for k in ("current", "table", "curve", "chosen", "n_tune", "n_certify")})
    assert outputs[0] == outputs[1]


def test_the_ledger_counts_looks_and_warns_after_several_versions(tmp_path: Path) -> None:
    root = project(tmp_path)
    for version, threshold in ((2, 0.55), (3, 0.6)):
        write_grader(root, "scored", "test_scored", version=version, params={"threshold": threshold})
    cal_set = find_set("s", root)
    reports = [
        calibrate(find_grader(f"scored@{v}", root), cal_set, root=root, split="certify") for v in (1, 2, 3)
    ]
    assert [len(read_ledger(root, "s"))] == [3]
    assert not any("new certify samples" in w for r in reports[:2] for w in r.warnings)
    last = reports[2]
    assert last.ledger is not None and last.ledger.looks == 3 and last.ledger.distinct_fingerprints == 3
    assert last.ledger.versions == ["scored@1", "scored@2", "scored@3"]
    adjusted = last.ledger.adjusted_upper_95
    assert adjusted is not None and adjusted.false_accept_rate is not None
    assert adjusted.false_accept_rate > (last.false_accept_rate.upper_95 or 0)
    assert any("judged 3 versions" in w and "new certify samples" in w for w in last.warnings)
    # the tune split is not a look
    calibrate(find_grader("scored@3", root), cal_set, root=root, split="tune", write=False)
    assert len(read_ledger(root, "s")) == 3


# --- choices, bands, failures --------------------------------------------------------------------------


def test_none_meets_exits_1_writes_nothing_and_says_how_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    code = run(root, "tune", "scored@1", "--set", "s", "--target", "far=0.001,frr=0.01")
    out = capsys.readouterr().out
    assert code == ExitCode.NEGATIVE_VERDICT, out
    assert "NO operating point meets the limits" in out and "over the limit by: " in out
    assert not (root / "graders/scored/v2.toml").exists()
    code = run(root, "tune", "scored@1", "--set", "s", "--target", "far=0.001,frr=0.01", "--format", "json")
    doc = json.loads(capsys.readouterr().out)
    assert doc["type"] == "tune" and doc["meets_limits"] is False and doc["written"] is None
    assert doc["best"]["excess"] and doc["best"]["meets"] is False


def test_band_for_a_target_far_is_written_and_calibrates_as_predicted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    code = run(
        root, "tune", "scored@1", "--set", "s", "--band", "--target", "far=0.04,frr=0.06", "--format", "json"
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK, doc
    chosen = doc["chosen"]
    assert chosen["reject_below"] < chosen["accept_at_or_above"] and chosen["undecided"] > 0
    assert chosen["false_accept_rate_upper_95"] <= 0.04 and chosen["false_reject_rate_upper_95"] <= 0.06
    params = tomllib.loads((root / "graders/scored/v2.toml").read_text(encoding="utf-8"))["params"]
    assert params == {
        "threshold": 0.3,
        "accept_at_or_above": chosen["accept_at_or_above"],
        "reject_below": chosen["reject_below"],
    }
    report = calibrate(
        find_grader("scored@2", root), find_set("s", root), root=root, split="tune", write=False
    )
    assert report.false_accept_rate.count == chosen["false_accepts"]
    assert report.false_accept_rate.n == chosen["bad_decided"]
    assert report.false_reject_rate.count == chosen["false_rejects"]
    assert report.undecided == chosen["undecided"]
    assert report.coverage is not None and report.coverage.value == pytest.approx(chosen["coverage"])


def test_a_new_version_goes_after_the_highest_and_into_the_lock(tmp_path: Path) -> None:
    root = project(tmp_path)
    write_grader(root, "scored", "test_scored", version=2, params={"threshold": 0.9})
    assert run(root, "validate", "--update-lock") == 0
    lock_before = (root / "graders/graders.lock").read_text(encoding="utf-8")
    assert run(root, "tune", "scored@1", "--set", "s") == 0
    assert (root / "graders/scored/v3.toml").is_file()
    lock = (root / "graders/graders.lock").read_text(encoding="utf-8")
    assert '"scored@3"' in lock and lock_before.splitlines()[0] == lock.splitlines()[0]
    assert run(root, "validate") == 0  # released versions untouched, the new one recorded


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--target", "far=2"], ExitCode.USAGE_ERROR, "must be in [0, 1]"),
        (["--target", "fars=0.1"], ExitCode.USAGE_ERROR, "far=RATE,frr=RATE"),
        (["--param", "nope"], ExitCode.INVALID_INPUT, "has no parameter 'nope'"),
    ],
)
def test_bad_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    root = project(tmp_path)
    assert run(root, "tune", "scored@1", "--set", "s", *args) == code
    assert message in capsys.readouterr().err


def test_a_set_without_a_tune_split_is_invalid_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, split=None)
    assert run(root, "tune", "scored@1", "--set", "s") == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert "has no tune samples" in err and "tune_fraction" in err
    assert run(root, "calibrate", "scored@1", "--set", "s", "--split", "certify") == ExitCode.INVALID_INPUT


def test_a_kind_without_scores_cannot_be_tuned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    write_grader(root, "everything", "test_accept_all")
    assert run(root, "tune", "everything@1", "--set", "s", "--param", "threshold") == ExitCode.INVALID_INPUT


# --- splits --------------------------------------------------------------------------------------------


def test_the_manifest_split_is_deterministic_grouped_and_samples_may_say_their_own(tmp_path: Path) -> None:
    samples = scored_samples(400)
    samples[0]["split"] = "certify"
    samples[2]["split"] = "tune"
    root = project(tmp_path, samples)
    cal = find_set("s", root)
    sides: dict[str | None, set[Split | None]] = {}
    for s in cal.samples[4:]:
        sides.setdefault(s.group, set()).add(split_of(s, cal.manifest))
    assert all(len(v) == 1 for v in sides.values())  # a group never straddles the split
    assert split_of(cal.samples[0], cal.manifest) is Split.certify
    assert split_of(cal.samples[2], cal.manifest) is Split.tune
    counts = count_splits(cal)
    assert counts["none"] == 0 and 150 < counts["tune"] < 250
    again = find_set("s", project(tmp_path / "again", samples))
    assert [split_of(s, again.manifest) for s in again.samples] == [
        split_of(s, cal.manifest) for s in cal.samples
    ]
