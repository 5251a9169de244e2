"""Tune and certify splits of a calibration set.

A sample says ``split = "tune"`` or ``"certify"`` itself, or the manifest's ``[split]`` assigns the rest by
group: a group (a sample without ``group`` is a group of its own id) goes to ``tune`` when the first eight
bytes of ``sha256("<seed>\\n<group>")``, read as a fraction of 2**64, are below ``tune_fraction``. The
assignment reads only a sample's ``id``, ``group`` and ``split``: choosing an operating point on the tune
split never touches a certify sample's input or label (``graderctl tune`` relies on it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from enum import StrEnum

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.calset import Sample, SetManifest
from graderctl.store.project import LoadedSet


class Split(StrEnum):
    tune = "tune"
    certify = "certify"


def _tune_share(seed: int, group: str) -> float:
    digest = hashlib.sha256(f"{seed}\n{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(sample: Sample, manifest: SetManifest) -> Split | None:
    """The split a sample belongs to (``None``: the set has no split for it)."""
    if sample.split is not None:
        return Split(sample.split)
    spec = manifest.split
    if spec is None:
        return None
    group = sample.group if sample.group is not None else f"id:{sample.id}"
    return Split.tune if _tune_share(spec.seed, group) < spec.tune_fraction else Split.certify


def has_splits(cal_set: LoadedSet) -> bool:
    return cal_set.manifest.split is not None or any(s.split is not None for s in cal_set.samples)


def samples_of(cal_set: LoadedSet, split: Split) -> list[Sample]:
    """The samples of one split, in set order."""
    return [s for s in cal_set.samples if split_of(s, cal_set.manifest) is split]


def count_splits(cal_set: LoadedSet) -> dict[str, int]:
    counts = {"tune": 0, "certify": 0, "none": 0}
    for s in cal_set.samples:
        which = split_of(s, cal_set.manifest)
        counts[which.value if which is not None else "none"] += 1
    return counts


def subset(cal_set: LoadedSet, split: Split) -> LoadedSet:
    """The set restricted to one split (same manifest, corpus and fingerprint of the whole set). Raises
    :class:`InvalidInputError` when the set has no sample in that split, saying how to give it one."""
    chosen: Sequence[Sample] = samples_of(cal_set, split)
    if not chosen:
        raise InvalidInputError(
            f"set {cal_set.name!r} has no {split.value} samples",
            [
                Problem(
                    file=cal_set.shown,
                    message=f"no sample of the set is in the {split.value} split",
                    expected=f'samples with split = "{split.value}", or a [split] table in manifest.toml',
                    got="no split" if not has_splits(cal_set) else f"no {split.value} sample",
                    fix="add `[split]` with `tune_fraction = 0.5` and `seed = 1` to the manifest (a grouped, "
                    'deterministic split), or mark samples with "split": "tune" / "certify"',
                )
            ],
        )
    ids = {s.id for s in chosen}
    lines = {k: v for k, v in cal_set.sample_lines.items() if k in ids}
    return replace(cal_set, samples=list(chosen), sample_lines=lines)


def split_fingerprint(cal_set: LoadedSet, split: Split) -> str:
    """Identity of one split's samples (with the manifest and corpus): looks at a certify split are counted
    per this fingerprint, so new certify samples start a fresh count while tune-only edits do not."""
    from graderctl.store.fingerprint import SetFingerprinter

    fp = SetFingerprinter()
    for s in samples_of(cal_set, split):
        fp.add_sample(s.model_dump(mode="json", exclude_none=True))
    for d in cal_set.corpus_documents:
        fp.add_document(d.model_dump(mode="json", exclude_none=True))
    manifest = cal_set.manifest.model_dump(mode="json", exclude_none=True)
    return fp.fingerprint({**manifest, "__split__": split.value})
