"""``graderctl sets add SET --from REVIEWED``: reviewed units become new samples of a calibration set.

``score`` writes the units it could not decide (undecided, contested, errored) to a review file; a person
labels them (``label = good|bad``, optionally ``category`` and ``rationale``). This service turns every
labelled line into a sample of the set's check — its input as the grader saw it, the corpus documents it
names added to the set's ``corpus.jsonl``, ``group`` = the trial's task, ``provenance`` = where it came
from — appends them to ``samples.jsonl`` and bumps the manifest's ``version``. The set's fingerprint
changes, so trust bound to the old set lapses (``graderctl list`` shows it stale) until the grader is
calibrated again, as it should: the new samples are exactly the cases the grader could not decide.

Nothing is written when any labelled line is invalid (exit 3 naming file, line and pointer).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graderctl.errors import Problem
from graderctl.models.calset import SAMPLE_MODELS, CorpusDocument
from graderctl.models.review import ReviewItem, SetsAddSummary
from graderctl.store.problems import ProblemSink, problems_from_validation
from graderctl.store.project import find_set
from graderctl.store.readers import display_path, iter_jsonl_file_models
from graderctl.store.set_files import append_to_set, bumped_manifest


def sample_id(item: ReviewItem) -> str:
    """A stable id for a reviewed unit: the same unit reviewed twice is the same sample."""
    key = "\n".join((item.task_id, item.trial_id, item.check.value, item.unit))
    return "review-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _rename_sources(inp: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(inp))
    citation = out.get("citation")
    if isinstance(citation, dict) and citation.get("source_id") in renamed:
        citation["source_id"] = renamed[citation["source_id"]]
    for ev in out.get("evidence") or []:
        if isinstance(ev, dict) and ev.get("source_id") in renamed:
            ev["source_id"] = renamed[ev["source_id"]]
    return out


def add_reviewed(
    set_ref: str, reviewed: Path, *, root: Path, added_at: str, write: bool = True
) -> SetsAddSummary:
    """Append the labelled lines of ``reviewed`` to the set ``set_ref`` (see the module docstring)."""
    cal_set = find_set(set_ref, root)
    folder = cal_set.path
    check = cal_set.check
    outcome = SetsAddSummary(
        set=cal_set.name,
        path=display_path(folder, root),
        check=check.value,
        version_before=cal_set.manifest.version,
        version_after=None,
        fingerprint_before=cal_set.fingerprint,
    )
    shown = display_path(reviewed, root)
    sink = ProblemSink()
    known_ids = {s.id for s in cal_set.samples}
    corpus = {d.id: d for d in cal_set.corpus_documents}
    model = SAMPLE_MODELS[check]
    new_samples: list[str] = []
    new_docs: list[str] = []
    for line, _, _, item in iter_jsonl_file_models(
        reviewed, ReviewItem, shown=shown, sink=sink, strict=False
    ):
        if item.label is None:
            outcome.unlabelled += 1
            continue
        if item.check != check:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer="/check",
                    message=f"this unit is of another check than set {cal_set.name!r}",
                    expected=check.value,
                    got=item.check.value,
                    fix="add it to a set of its check, or remove the line",
                )
            )
            continue
        sid = sample_id(item)
        if sid in known_ids:
            outcome.already_in_set += 1
            continue
        renamed: dict[str, str] = {}
        docs: list[CorpusDocument] = []
        for i, raw in enumerate(item.documents):
            try:
                doc = CorpusDocument.model_validate(raw)
            except ValidationError as exc:
                sink.extend(
                    problems_from_validation(
                        exc, file=shown, model=CorpusDocument, pointer_prefix=f"/documents/{i}", line=line
                    )
                )
                continue
            have = corpus.get(doc.id)
            if have is not None and have != doc:  # another document under that id: keep both
                digest = hashlib.sha256(doc.model_dump_json().encode()).hexdigest()[:8]
                renamed[doc.id] = f"{doc.id}~{digest}"
                doc = doc.model_copy(update={"id": renamed[doc.id]})
                have = corpus.get(doc.id)
            if have is None:
                docs.append(doc)
        raw_sample: dict[str, Any] = {
            "id": sid,
            "label": item.label.value,
            "category": item.category or "reviewed",
            "group": item.task_id,
            "input": _rename_sources(item.input, renamed),
            "provenance": {
                "source": "review",
                "file": shown,
                "line": line,
                "task_id": item.task_id,
                "trial_id": item.trial_id,
                "unit": item.unit,
                "status": item.status,
                "grader": item.grader,
                "fingerprint": item.fingerprint,
                "added_at": added_at,
                **({"labeler": item.labeler} if item.labeler else {}),
            },
        }
        if item.rationale:
            raw_sample["rationale"] = item.rationale
        if item.generator:
            raw_sample["generator"] = item.generator
        if item.labeler:
            raw_sample["labels"] = [{"labeler": item.labeler, "label": item.label.value}]
        try:
            sample = model.model_validate(raw_sample)
        except ValidationError as exc:
            sink.extend(problems_from_validation(exc, file=shown, model=model, line=line))
            continue
        for doc in docs:
            corpus[doc.id] = doc
            new_docs.append(doc.model_dump_json(exclude_none=True))
        known_ids.add(sid)
        new_samples.append(sample.model_dump_json(exclude_none=True))
        outcome.by_label[item.label.value] = outcome.by_label.get(item.label.value, 0) + 1
    sink.raise_if_any(shown)
    outcome.added = len(new_samples)
    outcome.documents_added = len(new_docs)
    if outcome.unlabelled:
        outcome.notes.append(f"{outcome.unlabelled} line(s) have no label yet and were left out")
    if outcome.already_in_set:
        outcome.notes.append(f"{outcome.already_in_set} reviewed unit(s) are already samples of the set")
    if not new_samples:
        outcome.notes.append("nothing to add: the set is unchanged")
        return outcome
    version = cal_set.manifest.version + 1
    manifest_text = bumped_manifest(folder, version, root=root)
    outcome.version_after = version
    outcome.notes.append(
        f"set {cal_set.name!r} is now version {version}: its fingerprint changed, so trust bound to the old "
        "set lapses; run `graderctl calibrate` again for the graders of its check"
    )
    if not write:
        return outcome
    append_to_set(folder, manifest_text, new_samples, new_docs)
    return outcome
