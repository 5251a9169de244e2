"""The units document's JSON is byte for byte ``json.dumps(..., ensure_ascii=False)`` of the document as plain
JSON (msgspec encodes the trials)."""

from __future__ import annotations

import json

import msgspec
import pytest

from graderctl.models import units_data as data
from graderctl.render.units import UnitsJsonWriter, units_json_chunks

ODD = 'Prix « 3 € » — naïve\u2028\ttab\x01 "q" \\ 😀'


def _expected(doc: data.UnitsDocument) -> bytes:
    return (json.dumps(msgspec.to_builtins(doc), ensure_ascii=False, separators=(",", ":")) + "\n").encode(
        "utf-8"
    )


def _trial(i: int, text: str) -> data.TrialUnits:
    cit = data.UnitsCitation("[1]", "1", "https://example.org/a", None, text, None, False)
    unit = data.CheckUnit(
        "claim:c1",
        data.ClaimSupportInput(text, [data.Evidence(text=text), data.Evidence(source_id="d")]),
        None,
    )
    coverage = data.CoverageInput(text, [data.Nugget(text, "okay")], text)
    return data.TrialUnits(
        f"t{i}",
        text,
        "text",
        data.ParserInfo("p", 1, "sha256:0"),
        i % 2 == 0,
        [data.UnitsClaim("c1", text, (i, i + 10), [cit])],
        [data.UnitsSource("1", "[1]", "list", "https://example.org/a", "//example.org/a", None, text)],
        [data.UncitedClaim(text, None)],
        [data.MissingSource("c1", "[2]")],
        data.UnitsChecks(
            data.CheckUnits(
                True,
                [
                    data.CheckUnit("citation:c1/1", data.SourceExistenceInput(data.Citation(url=text)), None),
                    data.CheckUnit("citation:c1/[2]", None, text),
                ],
                None,
            ),
            data.CheckUnits(True, [unit], None),
            data.CheckUnits(True, [data.CheckUnit("report", coverage, None)], None),
        ),
    )


def _document(trials: list[data.TrialUnits], coverage: float | None) -> data.UnitsDocument:
    summary = data.UnitsSummary(len(trials), 0, 0, 0, 10**16, 0, 0, 0, 0, coverage)
    return data.UnitsDocument(1, "units", ODD, None, data.ParserInfo("p", 1, "sha256:0"), summary, trials)


def test_same_bytes_as_json_dumps() -> None:
    rows = [_trial(i, ODD) for i in range(1200)]
    doc = _document(rows, 1e-05)
    out = b"".join(units_json_chunks(doc))
    assert len(out) > 1 << 20 and out == _expected(doc)
    empty = _document([], None)
    assert b"".join(units_json_chunks(empty)) == _expected(empty)


def test_same_bytes_trial_by_trial() -> None:
    """Trials written one at a time (one that msgspec cannot encode, a lone surrogate, first or not): the same
    document as encoded whole."""
    rows = [_trial(i, ODD * (1 + i % 7)) for i in range(50)]
    for bad in (0, 5):
        odd = list(rows)
        odd[bad] = _trial(bad, "a\ud800b")
        doc = _document(odd, 0.25)
        writer = UnitsJsonWriter()
        for row in odd:
            writer(row)
        chunks = list(writer.chunks(msgspec.structs.replace(doc, trials=[])))
        assert len(chunks) == 2 + len(odd)
        out = b"".join(chunks)
        assert out == b"".join(units_json_chunks(doc))
        assert json.loads(out) == json.loads(json.dumps(msgspec.to_builtins(doc)))


@pytest.mark.parametrize("batch", [1, 3000, 20_000, 1 << 18])
def test_same_bytes_written_in_batches(monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    """With ``write`` (a file on stdout): the trials gathered and handed on in batches of ``batch`` bytes (one
    trial each, several, all at the end), one that msgspec cannot encode among them (first, in a batch, last
    of a batch), give the bytes of the document kept whole; nothing is kept."""
    monkeypatch.setattr(UnitsJsonWriter, "BATCH", batch)
    rows = [_trial(i, ODD * (1 + i % 7)) for i in range(60)]
    for bad in (0, 1, 5, 59):
        odd = list(rows)
        odd[bad] = _trial(bad, "a\ud800b" * (1 + bad % 3))
        doc = _document(odd, 0.25)
        pieces: list[bytes] = []
        writer = UnitsJsonWriter(lambda piece, into=pieces: into.append(bytes(piece)))
        for row in odd:
            writer(row)
        writer.flush()
        writer.flush()  # nothing more
        assert not writer._done
        if batch == 1:
            assert len(pieces) == len(odd)
        head = writer.head(msgspec.structs.replace(doc, trials=[]))
        assert head + b"".join(pieces) + writer.TAIL == b"".join(units_json_chunks(doc)), bad
    pieces = []
    writer = UnitsJsonWriter(pieces.append)
    writer.flush()  # no trial at all
    assert pieces == []


def test_unit_inputs_print_as_the_pydantic_inputs_dump() -> None:
    """``omit_defaults`` leaves out exactly the ``None`` fields, as ``model_dump(exclude_none=True)`` does."""
    from graderctl.models.calset import ClaimSupportInput, CoverageInput, SourceExistenceInput

    trial = _trial(0, "x")
    for check, model in (
        ("source_existence", SourceExistenceInput),
        ("claim_support", ClaimSupportInput),
        ("coverage", CoverageInput),
    ):
        unit = getattr(trial.checks, check).units[0]
        assert unit.input is not None
        printed = msgspec.json.encode(unit.input)
        dumped = model.model_validate_json(printed).model_dump(mode="json", exclude_none=True)
        assert printed == json.dumps(dumped, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_lone_surrogate_still_gives_valid_json() -> None:
    doc = _document([_trial(0, "a\ud800b"), _trial(1, "ok")], 0.5)
    parsed = json.loads(b"".join(units_json_chunks(doc)))
    assert parsed == json.loads(json.dumps(msgspec.to_builtins(doc)))
