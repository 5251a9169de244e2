"""Text rendering of the units document (``graderctl units``)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import msgspec

from graderctl.models.units_data import CheckUnits, TrialUnits, UnitsDocument

_WIDTH = 110


def _short(text: str, limit: int = _WIDTH) -> str:
    indent = text[: len(text) - len(text.lstrip())]
    text = indent + " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_units_text(doc: UnitsDocument) -> str:
    out: list[str] = []
    for t in doc.trials:
        origin = (
            f"parsed from report.text by {t.parser.name}@{t.parser.version}"
            if t.parser is not None
            else "structured report.claims"
            if t.units_from == "structured"
            else "empty report"
        )
        out.append(
            f"{t.task_id}/{t.trial_id}: {len(t.claims)} claim(s), "
            f"{sum(len(c.citations) for c in t.claims)} citation(s), {len(t.sources)} source(s), "
            f"{len(t.uncited_claims)} uncited claim(s), {len(t.missing_sources)} missing source(s) ({origin})"
        )
        for claim in t.claims:
            out.append(f"  {claim.id}: {_short(json.dumps(claim.text, ensure_ascii=False), 100)}")
            for cit in claim.citations:
                target = (
                    "MISSING (no source listed)"
                    if cit.missing
                    else f"-> {cit.source_id}: "
                    + (cit.url or (f"doi:{cit.doi}" if cit.doi else cit.title or "?"))
                )
                line = f"      {cit.marker or cit.source_id} {target}"
                if cit.quote:
                    line += f"  quote {json.dumps(cit.quote, ensure_ascii=False)}"
                out.append(_short(line, 140))
        for uncited in t.uncited_claims:
            out.append(f"  uncited: {_short(json.dumps(uncited.text, ensure_ascii=False), 100)}")
        for check in t.checks.__struct_fields__:
            cu: CheckUnits = getattr(t.checks, check)
            if not cu.applies:
                out.append(f"  {check}: does not apply ({cu.note})")
                continue
            failing = sum(1 for u in cu.units if u.input is None)
            text = f"  {check}: {len(cu.units)} unit(s)"
            if failing:
                text += f", {failing} failing without grading"
            if cu.note:
                text += f" — {cu.note}" + (" (the check fails)" if t.requires_citations else "")
            out.append(text)
            for u in cu.units:
                if u.failure is not None:
                    out.append(_short(f"      {u.id}: {u.failure}", 140))
        out.append("")
    s = doc.summary
    coverage = "n/a" if s.citation_coverage is None else f"{s.citation_coverage:.1%}"
    out.append(
        f"{s.trials} trial(s) ({s.from_text} parsed from text, {s.structured} structured, {s.empty} empty): "
        f"{s.claims} cited claim(s), {s.citations} citation(s), {s.uncited_claims} uncited claim(s) "
        f"(citation coverage {coverage}), {s.missing_sources} marker(s) pointing to no listed source"
    )
    if s.no_citations:
        out.append(
            f"{s.no_citations} trial(s) have no citations: `score` fails their source_existence and "
            "claim_support checks (no citations found) unless the task sets requires_citations = false"
        )
    out.append(f"parser: {doc.parser.name}@{doc.parser.version} ({doc.parser.fingerprint[:19]}…)")
    return "\n".join(out) + "\n"


class UnitsJsonWriter:
    """The units document as compact UTF-8 JSON, byte for byte what ``json.dumps(msgspec.to_builtins(doc),
    ensure_ascii=False, separators=(",", ":"))`` gives (then a line break), built a trial at a time: call it
    with each trial's row as it is made (the row can be dropped at once: only its bytes are kept, a few times
    smaller than the objects), then :meth:`chunks` with the rest of the document. Each trial is encoded by
    msgspec (several times faster; trials hold only strings, integers, booleans and nulls, which both encode
    alike), the rest (which holds the one float, ``citation_coverage``) by :mod:`json`.

    Each trial is encoded into one reused buffer, after the comma that separates it from the one before, and
    kept as its own bytes: copied once (appended to a growing buffer instead, the bytes were copied again as
    it grew: ~15% of the encoding of the 10,000 benchmark reports)."""

    __slots__ = ("_done", "_encode_into", "_scratch")

    def __init__(self) -> None:
        self._encode_into = msgspec.json.Encoder().encode_into
        #: the comma before a trial, then the trial's bytes (encoded from offset 1)
        self._scratch = bytearray(b",")
        self._done: list[bytes] = []

    def __call__(self, row: TrialUnits) -> None:
        scratch = self._scratch
        try:
            self._encode_into(row, scratch, 1)
        except (msgspec.EncodeError, UnicodeError, TypeError, OverflowError):
            # a string msgspec cannot encode (a lone surrogate): \u escapes, still one valid JSON document
            del scratch[1:]
            scratch += json.dumps(msgspec.to_builtins(row), separators=(",", ":")).encode("ascii")
        # the first trial has no comma before it
        self._done.append(bytes(scratch) if self._done else bytes(memoryview(scratch)[1:]))

    def chunks(self, document: UnitsDocument) -> Iterator[bytes]:
        """The whole document: ``document`` but its ``trials`` (every other field, in order), then the trials
        written, one chunk each (``document.trials`` is not read: it is empty when the trials were
        streamed)."""
        head = msgspec.to_builtins(msgspec.structs.replace(document, trials=[]))
        del head["trials"]
        text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
        yield (text[:-1] + ',"trials":[').encode("utf-8")
        done, self._done = self._done, []
        done.reverse()
        while done:
            yield done.pop()  # let each go once written
        yield b"]}\n"


def units_json_chunks(document: UnitsDocument) -> Iterator[bytes]:
    """The units document as compact UTF-8 JSON, byte for byte what ``json.dumps(msgspec.to_builtins(doc),
    ensure_ascii=False, separators=(",", ":"))`` gives (then a line break), in pieces (see
    :class:`UnitsJsonWriter`)."""
    writer = UnitsJsonWriter()
    for row in document.trials:
        writer(row)
    yield from writer.chunks(document)
