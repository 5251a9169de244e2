"""A fast path for reading calibration-set samples: typed ``msgspec`` decoding of the lines that are valid.

The pydantic sample models (:mod:`graderctl.models.calset`) stay the definition of a valid sample and the
source of every message about an invalid one. The structs here mirror them field for field (strict types,
unknown fields refused, non-empty strings, the two value rules of ``Citation`` and ``Evidence`` checked after
decoding), so that a line they accept is a line the pydantic model accepts with the same values. A line they
refuse, or cannot promise to read the same way (a ``\\u`` surrogate escape, an integer beyond 64 bits), is
not judged here: :func:`decode` returns ``None`` and the reader validates the line with the pydantic model as
before, which reports its problems. ``tests/store/test_sample_fast.py`` holds both sides to this: the same
acceptance and the same fingerprint bytes over valid, tricky and hostile lines, and the same fields and
defaults as the models.

What a valid line gives is what a set reader needs of a sample without building it: its id, label, the
source ids it names (checked against the corpus) and its fingerprint item bytes (:func:`item_json`: the
canonical JSON of ``model_dump(mode="json", exclude_none=True)`` before NFC, see
:mod:`graderctl.store.fingerprint`), encoded by msgspec with sorted keys and the escapes Python's JSON encoder
writes. Decoding and encoding in C is what makes ``list``, ``validate`` and the trust check of ``score``
read a 100,000-sample set in a fraction of the time the models take.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Literal

import msgspec

from graderctl.models.base import Check

_NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
_LabelValue = Literal["good", "bad"]


class _Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Unknown fields refused; every field written on encoding (defaults included, as ``model_dump``)."""


class _Optional(_Strict, omit_defaults=True):
    """For models whose optional fields all default to ``None``: a field left at (or set to) ``None`` is not
    written, as ``model_dump(exclude_none=True)`` leaves it out."""


class _ModelIdentity(_Optional, kw_only=True):
    model: _NonEmpty
    provider: str | None = None


class _LabelerLabel(_Strict, kw_only=True):
    labeler: _NonEmpty
    label: _LabelValue


class _SampleProvenance(_Strict, kw_only=True):
    # ``source`` has a default that the dump writes; ``labeler`` is left out when ``None`` (see _fix).
    source: Literal["review"] = "review"
    file: str
    line: int
    task_id: str
    trial_id: str
    unit: str
    status: str
    grader: str
    fingerprint: str
    labeler: str | msgspec.UnsetType | None = msgspec.UNSET
    added_at: str


class _Citation(_Optional, kw_only=True):
    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None


class _SourceExistenceInput(_Strict, kw_only=True):
    citation: _Citation


class _Evidence(_Optional, kw_only=True):
    source_id: str | None = None
    text: str | None = None


class _ClaimSupportInput(_Strict, kw_only=True):
    claim: _NonEmpty
    evidence: Annotated[list[_Evidence], msgspec.Meta(min_length=1)]


class _Nugget(_Strict, kw_only=True):
    text: _NonEmpty
    importance: Literal["vital", "okay"] = "vital"


class _CoverageInput(_Strict, kw_only=True):
    question: str = ""
    nuggets: Annotated[list[_Nugget], msgspec.Meta(min_length=1)]
    report: str


class FastSample(_Optional, kw_only=True):
    id: _NonEmpty
    label: _LabelValue
    category: _NonEmpty
    group: str | None = None
    rationale: str | None = None
    generator: _ModelIdentity | None = None
    labels: list[_LabelerLabel] | None = None
    split: Literal["tune", "certify"] | None = None
    provenance: _SampleProvenance | None = None


class _SourceExistenceSample(FastSample, kw_only=True):
    input: _SourceExistenceInput


class _ClaimSupportSample(FastSample, kw_only=True):
    input: _ClaimSupportInput


class _CoverageSample(FastSample, kw_only=True):
    input: _CoverageInput


#: The struct of each check's samples, and the pydantic model it mirrors (by name, in the tests).
STRUCTS: dict[Check, type[FastSample]] = {
    Check.source_existence: _SourceExistenceSample,
    Check.claim_support: _ClaimSupportSample,
    Check.coverage: _CoverageSample,
}

_ENCODER = msgspec.json.Encoder(order="sorted")


def _valid(sample: FastSample) -> bool:
    """The value rules the types cannot say (``Citation`` and ``Evidence`` model validators), and ``None``
    for an unset provenance labeler (left out of the dump, as ``exclude_none`` does)."""
    inp = sample.input  # type: ignore[attr-defined]
    if isinstance(inp, _ClaimSupportInput):
        for ev in inp.evidence:
            if (ev.source_id is None) == (ev.text is None):
                return False
    elif isinstance(inp, _SourceExistenceInput):
        c = inp.citation
        if not (c.source_id or c.url or c.doi):
            return False
    prov = sample.provenance
    if prov is not None and prov.labeler is None:
        prov.labeler = msgspec.UNSET
    return True


def decoder(check: Check) -> Callable[[bytes], FastSample | None]:
    """A decoder of one raw line of a ``check`` set: the sample when the line is valid, ``None`` when it must
    be read by the pydantic model (invalid, or outside what this path promises to read identically)."""
    decode = msgspec.json.Decoder(STRUCTS[check]).decode

    def fast(raw: bytes) -> FastSample | None:
        if b"\\u" in raw and (b"\\ud" in raw or b"\\uD" in raw):  # a surrogate escape: the models decide
            return None
        try:
            sample = decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        return sample if _valid(sample) else None

    return fast


def item_json(sample: FastSample) -> bytes:
    """The sample's fingerprint item as JSON (UTF-8, keys sorted, no whitespace), before NFC: the bytes
    :func:`graderctl.store.fingerprint.item_bytes` makes of the pydantic model's dump."""
    return _ENCODER.encode(sample)


def named_sources(sample: FastSample) -> Iterator[tuple[str, str]]:
    """The ``source_id`` values a sample names, with their JSON pointers (as the reader checks them)."""
    inp = sample.input  # type: ignore[attr-defined]
    if isinstance(inp, _ClaimSupportInput):
        for i, ev in enumerate(inp.evidence):
            if ev.source_id is not None:
                yield f"/input/evidence/{i}/source_id", ev.source_id
    elif isinstance(inp, _SourceExistenceInput) and inp.citation.source_id:
        yield "/input/citation/source_id", inp.citation.source_id
