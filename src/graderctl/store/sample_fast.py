"""A fast path for reading calibration-set samples: typed ``msgspec`` decoding of the lines that are valid.

The pydantic sample models (:mod:`graderctl.models.calset`) stay the definition of a valid sample and the
source of every message about an invalid one. The structs here mirror them field for field (strict types,
unknown fields refused, non-empty strings, the value rules of ``Citation`` and ``Evidence`` in
``__post_init__``), so that a line they accept is a line the pydantic model accepts, with the same values
(both parsers refuse lone surrogate escapes and join pairs, and keep the last of two equal keys). A line they
refuse (or cannot read the same way: an integer beyond 64 bits) is not judged here: the reader validates it
with the pydantic model as before, which reports its problems. ``tests/store/test_sample_fast.py`` holds both
sides to this: the same acceptance and the same fingerprint bytes over valid, tricky and hostile lines, the
same problems for whole sets, and the same fields and defaults as the models.

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

    def __post_init__(self) -> None:
        if self.labeler is None:  # left out of the dump, as exclude_none does
            self.labeler = msgspec.UNSET


class _Citation(_Optional, kw_only=True):
    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None

    def __post_init__(self) -> None:  # Citation's model validator
        if not (self.source_id or self.url or self.doi):
            raise ValueError("a citation needs at least one of source_id, url, doi")


class _SourceExistenceInput(_Strict, kw_only=True):
    citation: _Citation


class _Evidence(_Optional, kw_only=True):
    source_id: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:  # Evidence's model validator
        if (self.source_id is None) == (self.text is None):
            raise ValueError("an evidence item has exactly one of source_id or text")


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


def decoder(check: Check) -> Callable[[bytes], FastSample | None]:
    """A decoder of one raw line of a ``check`` set: the sample when the line is valid, ``None`` when it must
    be read by the pydantic model (invalid, or outside what this path promises to read identically)."""
    decode = msgspec.json.Decoder(STRUCTS[check]).decode

    def fast(raw: bytes) -> FastSample | None:
        try:
            return decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None

    return fast


def decode_all(check: Check, lines: list[bytes]) -> list[FastSample] | None:
    """Every line of ``lines`` decoded as a sample of ``check`` (one call into msgspec per line, no Python in
    between), or ``None`` if any line is not one the fast path reads."""
    try:
        return list(map(_DECODERS[check], lines))
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


_DECODERS = {check: msgspec.json.Decoder(struct).decode for check, struct in STRUCTS.items()}


def sources(check: Check, samples: list[FastSample]) -> set[str]:
    """Every ``source_id`` the samples name (checked against the set's corpus)."""
    if check is Check.claim_support:
        return {
            ev.source_id
            for s in samples
            for ev in s.input.evidence  # type: ignore[attr-defined]
            if ev.source_id is not None
        }
    if check is Check.source_existence:
        return {s.input.citation.source_id for s in samples if s.input.citation.source_id}  # type: ignore[attr-defined]
    return set()


def items_json(samples: list[FastSample]) -> list[bytes]:
    """:func:`item_json` of each sample."""
    return list(map(_ENCODER.encode, samples))


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
