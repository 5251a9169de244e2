"""Text rendering of the units document (``graderctl units``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

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
    it grew: ~15% of the encoding of the 10,000 benchmark reports).

    With ``write`` (a file on stdout), nothing is kept: the trials are encoded one after the other into the
    buffer, handed to ``write`` (valid only during the call) each time it holds :data:`BATCH` bytes or more,
    then reused from its start, and once more at :meth:`flush`; the document is then :meth:`head`, the
    bytes written, :data:`TAIL`. (Written a trial at a time, ~26 KB each in the benchmark, the file took
    twice the system time of 256 KiB pieces: 71 vs 32 ms a 128 MiB.)"""

    __slots__ = ("_at", "_done", "_encode_into", "_scratch", "_write")

    #: What ends the document, after the last trial.
    TAIL = b"]}\n"
    #: With ``write``: the bytes gathered before they are written.
    BATCH = 1 << 18

    def __init__(self, write: Callable[[bytearray | memoryview], object] | None = None) -> None:
        self._encode_into = msgspec.json.Encoder().encode_into
        #: trials not yet handed on (with ``write``), then the comma before the next trial, which is encoded
        #: from offset ``_at`` (0 for the first trial: no comma before it). Bytes past the trial just encoded
        #: are cut off by the encoder, without giving back the memory (the buffer keeps its largest size).
        self._scratch = bytearray()
        self._at = 0
        self._done: list[bytes] = []
        self._write = write

    def __call__(self, row: TrialUnits) -> None:
        scratch, at = self._scratch, self._at
        try:
            self._encode_into(row, scratch, at)
        except (msgspec.EncodeError, UnicodeError, TypeError, OverflowError):
            # a string msgspec cannot encode (a lone surrogate): \u escapes, still one valid JSON document
            scratch[at:] = json.dumps(msgspec.to_builtins(row), separators=(",", ":")).encode("ascii")
        if self._write is None:
            self._done.append(bytes(scratch))
        elif len(scratch) >= self.BATCH:
            self._write(scratch)
        else:  # more trials to gather first
            scratch.append(44)  # ","
            self._at = len(scratch)
            return
        scratch[0] = 44  # ","
        self._at = 1

    def flush(self) -> None:
        """With ``write``: hand on the trials not yet written."""
        if self._write is not None and self._at > 1:
            with memoryview(self._scratch) as view:
                self._write(view[: self._at - 1])  # without the comma waiting for a next trial
            self._scratch[0] = 44
            self._at = 1

    def head(self, document: UnitsDocument) -> bytes:
        """What comes before the first trial: ``document`` but its ``trials`` (the other fields, in order)."""
        head = msgspec.to_builtins(msgspec.structs.replace(document, trials=[]))
        del head["trials"]
        text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
        return (text[:-1] + ',"trials":[').encode("utf-8")

    def chunks(self, document: UnitsDocument) -> Iterator[bytes]:
        """The whole document: :meth:`head`, then the trials kept, one chunk each (``document.trials`` is not
        read: it is empty when the trials were streamed)."""
        yield self.head(document)
        done, self._done = self._done, []
        done.reverse()
        while done:
            yield done.pop()  # let each go once written
        yield self.TAIL


def units_json_chunks(document: UnitsDocument) -> Iterator[bytes]:
    """The units document as compact UTF-8 JSON, byte for byte what ``json.dumps(msgspec.to_builtins(doc),
    ensure_ascii=False, separators=(",", ":"))`` gives (then a line break), in pieces (see
    :class:`UnitsJsonWriter`)."""
    writer = UnitsJsonWriter()
    for row in document.trials:
        writer(row)
    yield from writer.chunks(document)
