"""Reading a ``corpus.jsonl``, the documents citations and evidence point at: a calibration set's, or the
corpus of a run (``score``, ``units``). Apart from :mod:`graderctl.store.project` (graders and sets), which a
run that only reads trials and their corpus does not load."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from graderctl.models.calset import CorpusDocument
from graderctl.store.problems import ProblemSink, duplicate_id
from graderctl.store.readers import iter_jsonl_models, paused_gc

if TYPE_CHECKING:
    from graderctl.store.fingerprint import SetFingerprinter


def load_corpus(
    path: Path, *, shown: str, sink: ProblemSink, fingerprint: SetFingerprinter | None = None
) -> list[CorpusDocument]:
    """Read a ``corpus.jsonl``: every problem (including duplicate ids) goes to ``sink``; each document read
    is added to a calibration set's ``fingerprint`` when one is given."""
    seen: dict[str, int] = {}
    docs: list[CorpusDocument] = []
    with paused_gc():
        for line, doc in iter_jsonl_models(path, CorpusDocument, shown=shown, sink=sink):
            if doc.id in seen:
                sink.add(duplicate_id(shown, line, "document", doc.id, seen[doc.id]))
                continue
            seen[doc.id] = line
            docs.append(doc)
            if fingerprint is not None:
                fingerprint.add_document(doc.model_dump(mode="json", exclude_none=True))
    return docs
