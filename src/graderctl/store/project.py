"""The project tree: finding and loading grader definitions, calibration sets, corpora and the lock."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, PluginError, Problem
from graderctl.models.base import Check
from graderctl.models.calset import (
    SAMPLE_MODELS,
    ClaimSupportSample,
    CorpusDocument,
    Sample,
    SetManifest,
    SourceExistenceSample,
)
from graderctl.models.grader import GraderSpec
from graderctl.plugin import Corpus, GraderKind, GradingContext, get_kind
from graderctl.store.fingerprint import grader_fingerprint, set_fingerprint
from graderctl.store.problems import ProblemSink, problems_from_validation
from graderctl.store.readers import display_path, read_jsonl_models, read_toml, toml_line_of

GRADERS_DIR = "graders"
SETS_DIR = "calibration_sets"
REPORTS_DIR = "reports"
LOCK_NAME = "graders.lock"
_VERSION_FILE = re.compile(r"^v(\d+)\.toml$")


def find_root(start: Path | None = None) -> Path:
    """The project root: ``$GRADERCTL_ROOT``, else the nearest folder upward holding ``graders/`` or
    ``calibration_sets/``, else the working directory."""
    env = os.environ.get("GRADERCTL_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / GRADERS_DIR).is_dir() or (folder / SETS_DIR).is_dir():
            return folder
    return here


# --- graders ------------------------------------------------------------------------------------------


@dataclass
class LoadedGrader:
    spec: GraderSpec
    path: Path
    shown: str
    definition: dict[str, Any]
    files: dict[str, str]
    fingerprint: str
    kind: type[GraderKind]
    params: BaseModel

    @property
    def ref(self) -> str:
        return self.spec.ref

    def build(self, *, corpus: Corpus | None = None, cache_dir: Path | None = None) -> GraderKind:
        context = GradingContext(
            corpus=corpus,
            judge=self.spec.judge,
            base_dir=self.path.parent,
            fingerprint=self.fingerprint,
            cache_dir=cache_dir,
        )
        return self.kind(self.params, context)


def load_grader(path: Path, *, root: Path | None = None, check_path: bool = True) -> LoadedGrader:
    """Load and validate one grader definition; raise :class:`InvalidInputError` with every problem."""
    shown = display_path(path, root)
    data, text = read_toml(path, shown)
    line_of = toml_line_of(text)
    sink = ProblemSink()
    try:
        spec = GraderSpec.model_validate(data)
    except ValidationError as exc:
        sink.extend(problems_from_validation(exc, file=shown, model=GraderSpec, line_of=line_of))
        sink.raise_if_any(shown)
        raise AssertionError("unreachable") from None
    if check_path:
        m = _VERSION_FILE.match(path.name)
        if path.parent.name != spec.name:
            sink.add(
                Problem(
                    file=shown,
                    line=line_of(("name",)),
                    pointer="/name",
                    message="the name does not match the folder",
                    expected=repr(path.parent.name),
                    got=repr(spec.name),
                    fix=f"set name = {path.parent.name!r} or move the file",
                )
            )
        if m is None:
            sink.add(
                Problem(
                    file=shown,
                    message="a grader definition is named v<N>.toml",
                    expected="v1.toml, v2.toml, ...",
                    got=repr(path.name),
                )
            )
        elif int(m.group(1)) != spec.version:
            sink.add(
                Problem(
                    file=shown,
                    line=line_of(("version",)),
                    pointer="/version",
                    message="the version does not match the file name",
                    expected=m.group(1),
                    got=str(spec.version),
                    fix=f"set version = {m.group(1)} or rename the file",
                )
            )
    try:
        kind = get_kind(spec.kind)
    except PluginError as exc:
        sink.add(Problem(file=shown, line=line_of(("kind",)), pointer="/kind", message=str(exc)))
        sink.raise_if_any(shown)
        raise
    if kind.checks and spec.check not in kind.checks:
        sink.add(
            Problem(
                file=shown,
                line=line_of(("check",)),
                pointer="/check",
                message=f"kind {spec.kind!r} cannot grade this check",
                expected=" or ".join(sorted(c.value for c in kind.checks)),
                got=repr(spec.check.value),
            )
        )
    if kind.model_based and spec.judge is None:
        sink.add(
            Problem(
                file=shown,
                pointer="/judge",
                message=f"kind {spec.kind!r} is model-based",
                expected="a [judge] block with model and provider",
                got="none",
                fix='add [judge] model = "..." provider = "..."',
            )
        )
    params: BaseModel | None = None
    try:
        params = kind.Params.model_validate(spec.params)
    except ValidationError as exc:
        sink.extend(
            problems_from_validation(
                exc,
                file=shown,
                model=kind.Params,
                pointer_prefix="/params",
                line_of=lambda loc: line_of(("params", *loc)),
            )
        )
    files: dict[str, str] = {}
    if params is not None:
        for msg in kind.validate_definition(params, path.parent):
            sink.add(Problem(file=shown, pointer="/params", message=msg))
        for rel in kind.referenced_files(params):
            ref_path = (path.parent / rel).resolve()
            try:
                files[rel] = ref_path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                sink.add(
                    Problem(
                        file=shown,
                        pointer="/params",
                        message=f"cannot read referenced file {rel!r}: {exc}",
                        fix="check the path, relative to the definition's folder",
                    )
                )
    sink.raise_if_any(shown)
    assert params is not None
    return LoadedGrader(
        spec=spec,
        path=path,
        shown=shown,
        definition=data,
        files=files,
        fingerprint=grader_fingerprint(
            data, files, implementation=f"{kind.name}/{kind.implementation_version}"
        ),
        kind=kind,
        params=params,
    )


def grader_files(root: Path) -> list[Path]:
    base = root / GRADERS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.glob("*/v*.toml") if _VERSION_FILE.match(p.name))


def parse_ref(ref: str) -> tuple[str, int | None]:
    name, _, version = ref.partition("@")
    if not version:
        return name, None
    try:
        return name, int(version.lstrip("v"))
    except ValueError:
        raise InvalidInputError(
            f"bad grader reference {ref!r}",
            [
                Problem(
                    file="<command line>",
                    message=f"bad grader reference {ref!r}",
                    expected="name@version, e.g. claim-support@1, or a name",
                    got=repr(ref),
                )
            ],
        ) from None


def find_grader(ref: str, root: Path) -> LoadedGrader:
    """Resolve ``name@version`` (or ``name`` for the newest version, or a path to a definition)."""
    as_path = Path(ref)
    if ref.endswith(".toml") and as_path.is_file():
        return load_grader(as_path, root=root)
    name, version = parse_ref(ref)
    folder = root / GRADERS_DIR / name
    versions = (
        sorted((int(m.group(1)), p) for p in folder.glob("v*.toml") if (m := _VERSION_FILE.match(p.name)))
        if folder.is_dir()
        else []
    )
    if not versions:
        known = sorted({p.parent.name for p in grader_files(root)})
        raise InvalidInputError(
            f"unknown grader {ref!r}",
            [
                Problem(
                    file=display_path(root / GRADERS_DIR, root),
                    message=f"unknown grader {name!r}",
                    expected="one of: " + (", ".join(known) or "no graders found"),
                    got=repr(name),
                    fix="run `graderctl list` to see the graders",
                )
            ],
        )
    if version is None:
        return load_grader(versions[-1][1], root=root)
    for v, p in versions:
        if v == version:
            return load_grader(p, root=root)
    raise InvalidInputError(
        f"unknown grader version {ref!r}",
        [
            Problem(
                file=display_path(folder, root),
                message=f"{name} has no version {version}",
                expected="one of: " + ", ".join(f"{name}@{v}" for v, _ in versions),
                got=ref,
            )
        ],
    )


# --- calibration sets ---------------------------------------------------------------------------------


@dataclass
class LoadedSet:
    manifest: SetManifest
    path: Path
    shown: str
    samples: list[Sample]
    corpus_documents: list[CorpusDocument]
    fingerprint: str
    sample_lines: dict[str, int] = field(default_factory=dict)
    _corpus: Corpus | None = None

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def check(self) -> Check:
        return self.manifest.check

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            self._corpus = Corpus(self.corpus_documents)
        return self._corpus

    @property
    def n_good(self) -> int:
        return sum(1 for s in self.samples if s.label == "good")

    @property
    def n_bad(self) -> int:
        return sum(1 for s in self.samples if s.label == "bad")


def load_corpus(path: Path, *, shown: str, sink: ProblemSink) -> list[CorpusDocument]:
    seen: dict[str, int] = {}
    docs: list[CorpusDocument] = []
    for line, doc in read_jsonl_models(path, CorpusDocument, shown=shown, sink=sink):
        if doc.id in seen:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer="/id",
                    message=f"duplicate document id {doc.id!r}",
                    expected="a unique id",
                    got=f"also on line {seen[doc.id]}",
                    fix="give each document its own id",
                )
            )
            continue
        seen[doc.id] = line
        docs.append(doc)
    return docs


def _named_sources(sample: Sample) -> Iterable[tuple[str, str]]:
    if isinstance(sample, SourceExistenceSample):
        if sample.input.citation.source_id:
            yield "/input/citation/source_id", sample.input.citation.source_id
    elif isinstance(sample, ClaimSupportSample):
        for i, ev in enumerate(sample.input.evidence):
            if ev.source_id is not None:
                yield f"/input/evidence/{i}/source_id", ev.source_id


def load_set(path: Path, *, root: Path | None = None, sink: ProblemSink | None = None) -> LoadedSet:
    """Load a calibration-set folder: ``manifest.toml``, ``samples.jsonl`` and optional ``corpus.jsonl``.
    Every problem in any of the three is reported together."""
    own_sink = sink is None
    sink = sink if sink is not None else ProblemSink()
    folder_shown = display_path(path, root)
    if not path.is_dir():
        raise InvalidInputError(
            f"{folder_shown}: not a calibration set",
            [
                Problem(
                    file=folder_shown,
                    message="no such folder",
                    expected="a calibration-set folder",
                    fix="run `graderctl list` to see the sets",
                )
            ],
        )
    manifest_path = path / "manifest.toml"
    m_shown = display_path(manifest_path, root)
    if not manifest_path.is_file():
        raise InvalidInputError(
            f"{folder_shown}: no manifest",
            [
                Problem(
                    file=m_shown,
                    message="the folder has no manifest.toml",
                    expected="manifest.toml with name, version, check and [policy]",
                    got="no file",
                    fix="add a manifest.toml (see CONTRACT.md §3)",
                )
            ],
        )
    data, text = read_toml(manifest_path, m_shown)
    line_of = toml_line_of(text)
    manifest: SetManifest | None = None
    try:
        manifest = SetManifest.model_validate(data)
    except ValidationError as exc:
        sink.extend(problems_from_validation(exc, file=m_shown, model=SetManifest, line_of=line_of))
    if manifest is not None and manifest.name != path.name:
        sink.add(
            Problem(
                file=m_shown,
                line=line_of(("name",)),
                pointer="/name",
                message="the set's name does not match its folder",
                expected=repr(path.name),
                got=repr(manifest.name),
                fix="rename the folder or the set",
            )
        )

    corpus_path = path / "corpus.jsonl"
    corpus_docs: list[CorpusDocument] = []
    if corpus_path.exists():
        corpus_docs = load_corpus(corpus_path, shown=display_path(corpus_path, root), sink=sink)
    corpus_ids = {d.id for d in corpus_docs}

    samples_path = path / "samples.jsonl"
    s_shown = display_path(samples_path, root)
    samples: list[Sample] = []
    lines: dict[str, int] = {}
    if not samples_path.is_file():
        sink.add(
            Problem(
                file=s_shown,
                message="the set has no samples.jsonl",
                expected="one sample per line",
                got="no file",
                fix="add samples.jsonl (see CONTRACT.md §3)",
            )
        )
    elif manifest is not None:
        model = SAMPLE_MODELS[manifest.check]
        for line, sample in read_jsonl_models(samples_path, model, shown=s_shown, sink=sink):
            if sample.id in lines:
                sink.add(
                    Problem(
                        file=s_shown,
                        line=line,
                        pointer="/id",
                        message=f"duplicate sample id {sample.id!r}",
                        expected="a unique id",
                        got=f"also on line {lines[sample.id]}",
                        fix="give each sample its own id",
                    )
                )
                continue
            for ptr, sid in _named_sources(sample):
                if sid not in corpus_ids:
                    sink.add(
                        Problem(
                            file=s_shown,
                            line=line,
                            pointer=ptr,
                            message=f"source_id {sid!r} is not in the set's corpus",
                            expected="an id from corpus.jsonl",
                            got=repr(sid),
                            fix="add the document to corpus.jsonl, or cite it by url/doi",
                        )
                    )
            lines[sample.id] = line
            samples.append(sample)
    if own_sink:
        sink.raise_if_any(folder_shown)
    if manifest is None:
        raise InvalidInputError(f"{folder_shown}: invalid manifest", sink.problems, omitted=sink.omitted)
    fp = set_fingerprint(
        manifest.model_dump(mode="json", exclude_none=True),
        (s.model_dump(mode="json", exclude_none=True) for s in samples),
        (d.model_dump(mode="json", exclude_none=True) for d in corpus_docs),
    )
    return LoadedSet(
        manifest=manifest,
        path=path,
        shown=folder_shown,
        samples=samples,
        corpus_documents=corpus_docs,
        fingerprint=fp,
        sample_lines=lines,
    )


def set_folders(root: Path) -> list[Path]:
    base = root / SETS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def find_set(name_or_path: str, root: Path) -> LoadedSet:
    as_path = Path(name_or_path)
    if as_path.is_dir():
        return load_set(as_path, root=root)
    folder = root / SETS_DIR / name_or_path
    if folder.is_dir():
        return load_set(folder, root=root)
    known = [p.name for p in set_folders(root)]
    raise InvalidInputError(
        f"unknown calibration set {name_or_path!r}",
        [
            Problem(
                file=display_path(root / SETS_DIR, root),
                message=f"unknown calibration set {name_or_path!r}",
                expected="one of: " + (", ".join(known) or "no sets found"),
                got=repr(name_or_path),
                fix="give a set name from `graderctl list` or a path to a set folder",
            )
        ],
    )
