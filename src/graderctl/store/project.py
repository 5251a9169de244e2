"""The project tree: finding and loading grader definitions, calibration sets, corpora and the lock."""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError, PluginError, Problem
from graderctl.models.base import Check, Label
from graderctl.models.calset import (
    INPUT_MODELS,
    SAMPLE_MODELS,
    ClaimSupportSample,
    CorpusDocument,
    Sample,
    SetManifest,
    SourceExistenceSample,
    _SampleBase,
)
from graderctl.models.grader import GraderSpec, JudgeSpec
from graderctl.plugin import Corpus, GraderKind, GradingContext, Member, broken_kinds, get_kind, kinds
from graderctl.store import sample_fast
from graderctl.store.corpus import load_corpus
from graderctl.store.fingerprint import SetFingerprinter, grader_fingerprint
from graderctl.store.layout import CORPUS_NAME, GRADERS_DIR, MANIFEST_NAME, SAMPLES_NAME, SETS_DIR, find_root
from graderctl.store.problems import ProblemSink, duplicate_id, problems_from_validation
from graderctl.store.readers import (
    _CHECK_DUPLICATE_KEYS,
    BOM,
    display_path,
    iter_jsonl_fast,
    paused_gc,
    read_bytes,
    read_toml,
    toml_line_of,
    toml_non_finite,
    validate_toml_data,
    without_pointers,
)

_VERSION_FILE = re.compile(r"^v(\d+)\.toml$")


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
    #: A composite grader's members (``cascade``), loaded and checked, in order; empty otherwise.
    members: list[LoadedGrader] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return self.spec.ref

    @property
    def judges(self) -> list[JudgeSpec]:
        """Every model that judges for this grader: its own ``[judge]`` and its members' (a cascade)."""
        own = [self.spec.judge] if self.spec.judge is not None else []
        return own + [j for m in self.members for j in m.judges]

    def build(self, *, corpus: Corpus | None = None, cache_dir: Path | None = None) -> GraderKind:
        context = GradingContext(
            corpus=corpus,
            judge=self.spec.judge,
            base_dir=self.path.parent,
            fingerprint=self.fingerprint,
            cache_dir=cache_dir,
            members=[
                Member(m.ref, m.fingerprint, m.build(corpus=corpus, cache_dir=cache_dir))
                for m in self.members
            ],
        )
        return self.kind(self.params, context)


def _kind_problem(shown: str, line: int | None, name: str) -> Problem:
    """An unknown kind, with the nearest known name; or why the kinds could not be loaded at all."""
    try:
        known = sorted(kinds())
    except PluginError as exc:
        return Problem(
            file=shown,
            line=line,
            pointer="/kind",
            message=f"cannot look up grader kinds: {exc}",
            fix="reinstall or remove the broken plugin package",
        )
    broken = broken_kinds().get(name)
    if broken is not None:
        return Problem(
            file=shown,
            line=line,
            pointer="/kind",
            message=f"grader kind {name!r} is installed but cannot be loaded: {broken}",
            fix="repair or reinstall the package that provides it (or uninstall it)",
        )
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return Problem(
        file=shown,
        line=line,
        pointer="/kind",
        message=f"unknown grader kind {name!r}",
        expected="one of: " + (", ".join(known) or "no kinds installed"),
        got=repr(name),
        fix=f"did you mean {close[0]!r}?"
        if close
        else "use a built-in kind, or install the package that provides this one",
    )


def _kind_hook_failed(shown: str, kind: type[GraderKind], hook: str, exc: Exception) -> Problem:
    return Problem(
        file=shown,
        pointer="/params",
        message=f"grader kind {kind.name!r} failed in {hook}(): {type(exc).__name__}: {exc}",
        fix="this is a bug in the kind; report it to its authors (run with --debug for details)",
    )


def load_grader(
    path: Path,
    *,
    root: Path | None = None,
    check_path: bool | None = None,
    _loading: tuple[str, ...] = (),
) -> LoadedGrader:
    """Load and validate one grader definition; raise :class:`InvalidInputError` with every problem.

    Checks the schema (strictly), that the name and version match ``graders/<name>/v<N>.toml``, that the kind
    exists and can grade the check, the kind's own params and definition checks, and that every referenced
    file can be read. Lock checks (released versions) are :mod:`graderctl.store.lock`'s. ``check_path``
    defaults to whether the file lies in a ``graders/`` folder."""
    shown = display_path(path, root)
    if check_path is None:
        check_path = path.resolve().parent.parent.name == GRADERS_DIR
    data, text = read_toml(path, shown)
    line_of = toml_line_of(text)
    sink = ProblemSink()
    non_finite = toml_non_finite(data, shown, line_of)
    sink.extend(non_finite)
    try:
        spec = validate_toml_data(GraderSpec, data)
    except ValidationError as exc:
        found = problems_from_validation(exc, file=shown, model=GraderSpec, line_of=line_of)
        sink.extend(without_pointers(found, non_finite))
        _path_problems(path, shown, data, line_of, sink, check_path)
        sink.raise_if_any(shown)
        raise AssertionError("unreachable") from None
    _path_problems(path, shown, data, line_of, sink, check_path)
    try:
        kind = get_kind(spec.kind)
    except PluginError:
        sink.add(_kind_problem(shown, line_of(("kind",)), spec.kind))
        sink.raise_if_any(shown)
        raise AssertionError("unreachable") from None
    if kind.checks and spec.check not in kind.checks:
        sink.add(
            Problem(
                file=shown,
                line=line_of(("check",)),
                pointer="/check",
                message=f"grader kind {spec.kind!r} cannot grade this check",
                expected=" or ".join(repr(c.value) for c in sorted(kind.checks)),
                got=repr(spec.check.value),
                fix="change check, or use a kind that grades it",
            )
        )
    if kind.model_based and spec.judge is None:
        sink.add(
            Problem(
                file=shown,
                line=line_of(("judge",)),
                pointer="/judge",
                message=f"grader kind {spec.kind!r} calls a model, so the definition must name it",
                expected="a [judge] table with model and provider",
                got="no [judge] table",
                fix='add [judge] with model = "..." and provider = "..."',
            )
        )
    params: BaseModel | None = None
    try:
        # Strict, like the definition itself: "yes" is not a boolean, "0.5" is not a number.
        params = validate_toml_data(kind.Params, spec.params)
    except ValidationError as exc:
        found = problems_from_validation(
            exc,
            file=shown,
            model=kind.Params,
            pointer_prefix="/params",
            line_of=lambda loc: line_of(("params", *loc)),
        )
        sink.extend(without_pointers(found, non_finite))
    except Exception as exc:  # a plugin's validator crashed: report it, do not crash
        sink.add(_kind_hook_failed(shown, kind, "Params validation", exc))
    files: dict[str, str] = {}
    if params is not None:
        try:
            for msg in kind.validate_definition(params, path.parent):
                sink.add(Problem(file=shown, line=line_of(("params",)), pointer="/params", message=msg))
            referenced = list(kind.referenced_files(params))
        except Exception as exc:
            sink.add(_kind_hook_failed(shown, kind, "validate_definition/referenced_files", exc))
            referenced = []
        for rel in referenced:
            files_problem = _read_referenced(path, shown, rel, files)
            if files_problem is not None:
                files_problem = dataclasses.replace(files_problem, line=line_of(("params",)))
                sink.add(files_problem)
    members: list[LoadedGrader] = []
    if params is not None:
        members = _load_members(path, shown, spec, kind, params, root, line_of, sink, (*_loading, spec.ref))
    sink.raise_if_any(shown)
    assert params is not None
    return LoadedGrader(
        spec=spec,
        path=path,
        shown=shown,
        definition=data,
        files=files,
        fingerprint=grader_fingerprint(
            data,
            files,
            implementation=f"{kind.name}/{kind.implementation_version}",
            members=[m.fingerprint for m in members],
        ),
        kind=kind,
        params=params,
        members=members,
    )


def _load_members(
    path: Path,
    shown: str,
    spec: GraderSpec,
    kind: type[GraderKind],
    params: BaseModel,
    root: Path | None,
    line_of: Callable[[tuple[Any, ...]], int | None],
    sink: ProblemSink,
    loading: tuple[str, ...],
) -> list[LoadedGrader]:
    """Load a composite grader's members (``name@version`` in the project's ``graders/``, or a definition file
    relative to the composite's own): each must exist, be valid, grade the same check, and not contain the
    grader itself."""
    try:
        refs = list(kind.member_refs(params))
    except Exception as exc:
        sink.add(_kind_hook_failed(shown, kind, "member_refs", exc))
        return []
    if not refs:
        return []
    project = root if root is not None else find_root(path.parent)
    members: list[LoadedGrader] = []
    for i, ref in enumerate(refs):
        pointer, line = f"/params/members/{i}", line_of(("params", "members"))
        as_file = ref.endswith(".toml")
        name = Path(ref).parent.name if as_file else parse_ref(ref)[0]
        if ref in loading or name == spec.name:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer=pointer,
                    message=f"member {ref!r} is the grader itself or contains it (a cycle: "
                    + " -> ".join((*loading, ref))
                    + ")",
                    got=repr(ref),
                    fix="name other graders as members",
                )
            )
            continue
        try:
            if as_file:
                member = load_grader((path.parent / ref).resolve(), root=project, _loading=loading)
            else:
                member = find_grader(ref, project, _loading=loading)
        except InvalidInputError as exc:
            detail = "; ".join(p.message for p in exc.problems[:3]) or str(exc)
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer=pointer,
                    message=f"member {ref!r} cannot be loaded: {detail}",
                    fix="name an existing, valid grader version as name@version (see `graderctl list`)",
                )
            )
            continue
        if member.ref in loading:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer=pointer,
                    message=f"member {ref!r} is {member.ref}, which contains this grader (a cycle)",
                    fix="name other graders as members",
                )
            )
            continue
        if member.spec.check != spec.check:
            sink.add(
                Problem(
                    file=shown,
                    line=line,
                    pointer=pointer,
                    message=f"member {ref!r} grades another check",
                    expected=repr(spec.check.value),
                    got=repr(member.spec.check.value),
                    fix="every member of a cascade must grade the cascade's check",
                )
            )
            continue
        members.append(member)
    return members


def _read_referenced(path: Path, shown: str, rel: str, files: dict[str, str]) -> Problem | None:
    """Read one file a definition references (relative to the definition's folder) into ``files``."""
    if Path(rel).is_absolute():
        return Problem(
            file=shown,
            pointer="/params",
            message=f"referenced file {rel!r} is an absolute path",
            expected="a path relative to the definition's folder",
            got=repr(rel),
            fix="put the file beside the definition and name it relatively, so the project can move",
        )
    ref_path = path.parent / rel
    try:
        data = ref_path.read_bytes()
    except OSError as exc:
        return Problem(
            file=shown,
            pointer="/params",
            message=f"cannot read referenced file {rel!r}: {exc.strerror or exc}",
            expected="a readable file relative to the definition's folder",
            got="no file" if isinstance(exc, FileNotFoundError) else "an unreadable path",
            fix="check the path, relative to the definition's folder",
        )
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        files[rel] = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(
            file=shown,
            pointer="/params",
            message=f"referenced file {rel!r} is not UTF-8 text",
            expected="UTF-8 text",
            got=f"byte 0x{data[exc.start]:02x} at offset {exc.start}",
            fix=f"re-save {rel} as UTF-8",
        )
    return None


def _path_problems(
    path: Path,
    shown: str,
    data: dict[str, Any],
    line_of: Callable[[tuple[Any, ...]], int | None],
    sink: ProblemSink,
    check_path: bool,
) -> None:
    """The definition's name and version must match ``graders/<name>/v<N>.toml``."""
    if not check_path:
        return
    name, version = data.get("name"), data.get("version")
    if isinstance(name, str) and name and path.parent.name != name:
        sink.add(
            Problem(
                file=shown,
                line=line_of(("name",)),
                pointer="/name",
                message="the name does not match the folder",
                expected=repr(path.parent.name),
                got=repr(name),
                fix=f"set name = {path.parent.name!r}, or move the file to graders/{name}/",
            )
        )
    m = _VERSION_FILE.match(path.name)
    if m is None:
        sink.add(
            Problem(
                file=shown,
                line=1,
                message="a grader definition is named v<N>.toml",
                expected="v1.toml, v2.toml, ...",
                got=repr(path.name),
                fix="rename the file after its version",
            )
        )
    elif isinstance(version, int) and not isinstance(version, bool) and int(m.group(1)) != version:
        sink.add(
            Problem(
                file=shown,
                line=line_of(("version",)),
                pointer="/version",
                message="the version does not match the file name",
                expected=m.group(1),
                got=str(version),
                fix=f"set version = {m.group(1)}, or rename the file to v{version}.toml",
            )
        )


def grader_files(root: Path) -> list[Path]:
    """Every grader definition ``graders/<name>/v<N>.toml`` of a project."""
    base = root / GRADERS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.glob("*/v*.toml") if _VERSION_FILE.match(p.name))


def stray_grader_files(root: Path, referenced: set[Path]) -> list[Path]:
    """TOML files in ``graders/<name>/`` that are not named ``v<N>.toml`` and that no definition references:
    most likely a definition under the wrong name, which would otherwise be ignored."""
    base = root / GRADERS_DIR
    if not base.is_dir():
        return []
    return sorted(
        p
        for p in base.glob("*/*.toml")
        if not _VERSION_FILE.match(p.name) and p.resolve() not in referenced and not p.name.startswith(".")
    )


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


def find_grader(ref: str, root: Path, *, _loading: tuple[str, ...] = ()) -> LoadedGrader:
    """Resolve ``name@version`` (or ``name`` for the newest version, or a path to a definition)."""
    as_path = Path(ref)
    if ref.endswith(".toml") and as_path.is_file():
        return load_grader(as_path, root=root, _loading=_loading)
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
                    message=f"unknown grader {name!r} in the project at {root}",
                    expected="one of: "
                    + (", ".join(known) or f"no graders found under {root / GRADERS_DIR}"),
                    got=repr(name),
                    fix="run `graderctl list` to see the graders, or point at another project with "
                    "`graderctl --root PROJECT ...` (or $GRADERCTL_ROOT)",
                )
            ],
        )
    if version is None:
        return load_grader(versions[-1][1], root=root, _loading=_loading)
    for v, p in versions:
        if v == version:
            return load_grader(p, root=root, _loading=_loading)
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

    @property
    def labels(self) -> dict[str, Label]:
        """Each sample's label by id (what a report's outcomes are checked against)."""
        return {s.id: s.label for s in self.samples}


@dataclass
class SetIndex:
    """A calibration set as trust needs it: its manifest, fingerprint and each sample's label by id, without
    the samples (:func:`index_set`). ``list`` and the trust check of ``score`` read sets this way: a
    100,000-sample set costs a dictionary of ids, not 100,000 validated models."""

    manifest: SetManifest
    path: Path
    shown: str
    fingerprint: str
    labels: dict[str, Label]
    n_good: int
    n_bad: int

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def check(self) -> Check:
        return self.manifest.check


def _named_sources(sample: Sample) -> Iterable[tuple[str, str]]:
    if isinstance(sample, SourceExistenceSample):
        if sample.input.citation.source_id:
            yield "/input/citation/source_id", sample.input.citation.source_id
    elif isinstance(sample, ClaimSupportSample):
        for i, ev in enumerate(sample.input.evidence):
            if ev.source_id is not None:
                yield f"/input/evidence/{i}/source_id", ev.source_id


class _AnyCheckSample(_SampleBase):
    """A sample whose set's check is unknown (the manifest is broken): everything but the input is checked."""

    input: dict[str, Any]


def _shape_of(inp: Any, check: Check) -> Check | None:
    """The check whose input shape ``inp`` has, when it is not ``check``'s."""
    if not isinstance(inp, dict) or not inp:
        return None
    keys = set(inp)
    own = set(INPUT_MODELS[check].model_fields)
    if keys & own:
        return None
    for other, model in INPUT_MODELS.items():
        if other is not check and keys <= set(model.model_fields):
            return other
    return None


def _shape_explainer(
    check: Check, shown: str
) -> Callable[[ValidationError, bytes, int], list[Problem] | None]:
    """A sample whose input has the shape of another check gets one clear problem instead of a field list."""
    fields = ", ".join(INPUT_MODELS[check].model_fields)

    def explain(exc: ValidationError, raw: bytes, line: int) -> list[Problem] | None:
        if not any(tuple(e.get("loc", ()))[:1] == ("input",) for e in exc.errors()):
            return None
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        inp = value.get("input") if isinstance(value, dict) else None
        other = _shape_of(inp, check)
        if other is None:
            return None
        assert isinstance(inp, dict)
        rest = [
            p
            for p in problems_from_validation(exc, file=shown, model=SAMPLE_MODELS[check], line=line)
            if not (p.pointer == "/input" or p.pointer.startswith("/input/"))
        ]
        shape = Problem(
            file=shown,
            line=line,
            pointer="/input",
            message=f"the input has the shape of a {other.value} sample, "
            f"but this set's check is {check.value}",
            expected=f"a {check.value} input with {fields}",
            got=f"a {other.value} input with " + ", ".join(inp),
            fix=f"move the sample to a {other.value} set, or correct the manifest's check",
        )
        return [shape, *rest]

    return explain


@dataclass
class _SamplesRead:
    samples: list[Sample] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    #: Each sample's label by id (only when asked for: ``labels=True``).
    labels: dict[str, Label] = field(default_factory=dict)
    n_good: int = 0
    n_bad: int = 0


def _read_samples(
    path: Path,
    shown: str,
    check: Check | None,
    corpus_ids: set[str] | None,
    sink: ProblemSink,
    fp: SetFingerprinter | None,
    *,
    keep: bool,
    labels: bool = False,
    data: bytes | None = None,
) -> _SamplesRead:
    """Read a samples file: schema of ``check`` (or of any check), unique ids, and every ``source_id`` in
    ``corpus_ids`` (not checked when ``None``). ``keep`` keeps the samples, ``labels`` their labels by id;
    ``data``: the file's bytes, when already read."""
    out = _SamplesRead()
    model: type[BaseModel] = SAMPLE_MODELS[check] if check is not None else _AnyCheckSample
    explain = _shape_explainer(check, shown) if check is not None else None
    # Lines that are valid are read by the fast path (no model built; see store.sample_fast) unless the
    # samples are kept; every other line by the pydantic model, which reports its problems.
    fast = sample_fast.decoder(check) if check is not None and not keep else None
    if check is not None and fast is not None:
        data = data if data is not None else read_bytes(path, shown)
        with paused_gc():
            quick = _read_valid_samples(data, check, corpus_ids, fp, labels)
        if quick is not None:
            return quick
    label_of = {"good": Label.good, "bad": Label.bad}
    with paused_gc():
        lines = iter_jsonl_fast(path, model, shown=shown, sink=sink, explain=explain, fast=fast, data=data)
        for line, item in lines:
            if isinstance(item, sample_fast.FastSample):
                sid, label = item.id, label_of[item.label]
                sources: Iterable[tuple[str, str]] = sample_fast.named_sources(item)
            else:
                sample = typing.cast(Sample, item)
                sid, label = sample.id, sample.label
                sources = _named_sources(sample)
            first = out.lines.get(sid)
            if first is not None:
                sink.add(duplicate_id(shown, line, "sample", sid, first))
                continue
            out.lines[sid] = line
            if corpus_ids is not None:
                for ptr, source_id in sources:
                    if source_id not in corpus_ids:
                        sink.add(
                            Problem(
                                file=shown,
                                line=line,
                                pointer=ptr,
                                message=f"source_id {source_id!r} is not in the set's corpus",
                                expected="an id from corpus.jsonl"
                                if corpus_ids
                                else "an id from corpus.jsonl (the set has no corpus)",
                                got=repr(source_id),
                                fix="add the document to corpus.jsonl, or cite it by url/doi",
                            )
                        )
            if label is Label.good:
                out.n_good += 1
            else:
                out.n_bad += 1
            if fp is not None:
                if isinstance(item, sample_fast.FastSample):
                    fp.add_samples_json([sid], [sample_fast.item_json(item)])
                else:
                    fp.add_sample(sample.model_dump(mode="json", exclude_none=True))
            if keep:
                out.samples.append(sample)
            if labels:
                out.labels[sid] = label
    return out


#: Samples decoded at a time by :func:`_read_valid_samples` (bounds the memory of the decoded records).
_CHUNK = 8192


def _read_valid_samples(
    data: bytes,
    check: Check,
    corpus_ids: set[str] | None,
    fp: SetFingerprinter | None,
    labels: bool,
) -> _SamplesRead | None:
    """:func:`_read_samples` of a samples file (its bytes ``data``) in which every line is a valid sample,
    read by the fast path a chunk of lines at a time; ``None`` as soon as a line is anything else (blank,
    CRLF, not one the fast path reads (``NaN`` and ``Infinity`` are not JSON to it), a repeated id, a source
    missing from the corpus, duplicate keys being checked): then the file is read line by line as usual,
    which reports every problem."""
    if _CHECK_DUPLICATE_KEYS.get() or b"\r" in data:
        return None
    if data.startswith(BOM):
        data = data[len(BOM) :]
    rows = data.split(b"\n")
    if rows and not rows[-1]:
        rows.pop()
    if not rows:
        return None
    out = _SamplesRead()
    seen = out.lines
    label_of = {"good": Label.good, "bad": Label.bad}.__getitem__
    n_good = 0
    for start in range(0, len(rows), _CHUNK):
        samples = sample_fast.decode_all(check, rows[start : start + _CHUNK])
        if samples is None:
            return None
        ids = [s.id for s in samples]
        before = len(seen)
        seen.update(zip(ids, range(start + 1, start + 1 + len(ids)), strict=True))
        if len(seen) != before + len(ids):
            return None  # an id repeated
        if corpus_ids is not None and not sample_fast.sources(check, samples) <= corpus_ids:
            return None
        found = [s.label for s in samples]
        n_good += found.count("good")
        if labels:
            out.labels.update(zip(ids, map(label_of, found), strict=True))
        if fp is not None:
            fp.add_samples_json(ids, sample_fast.items_json(samples))
    out.n_good = n_good
    out.n_bad = len(rows) - n_good
    return out


def check_samples_file(path: Path, check: Check, *, root: Path | None = None, sink: ProblemSink) -> int:
    """Check a samples file on its own (no manifest): schema of ``check``, unique ids, and source ids when a
    ``corpus.jsonl`` lies beside it. Returns the number of valid samples."""
    corpus_path = path.parent / CORPUS_NAME
    corpus_ids: set[str] | None = None
    if corpus_path.is_file() and corpus_path != path:
        corpus_ids = {
            d.id for d in load_corpus(corpus_path, shown=display_path(corpus_path, root), sink=sink)
        }
    read = _read_samples(path, display_path(path, root), check, corpus_ids, sink, None, keep=False)
    return read.n_good + read.n_bad


def check_manifest_file(path: Path, *, root: Path | None = None, sink: ProblemSink) -> SetManifest | None:
    """Check a set manifest on its own (a TOML file outside a set folder)."""
    shown = display_path(path, root)
    try:
        data, text = read_toml(path, shown)
    except InvalidInputError as exc:
        sink.absorb(exc)
        return None
    line_of = toml_line_of(text)
    non_finite = toml_non_finite(data, shown, line_of)
    sink.extend(non_finite)
    try:
        return validate_toml_data(SetManifest, data)
    except ValidationError as exc:
        found = problems_from_validation(exc, file=shown, model=SetManifest, line_of=line_of)
        sink.extend(without_pointers(found, non_finite))
        return None


def guess_check(inp: Any) -> Check | None:
    """The check whose input shape a sample's ``input`` has (by its keys), if any."""
    if not isinstance(inp, dict) or not inp:
        return None
    keys = set(inp)
    for check, model in INPUT_MODELS.items():
        if keys <= set(model.model_fields) and keys & {
            name for name, f in model.model_fields.items() if f.is_required()
        }:
            return check
    return None


@dataclass
class _SetRead:
    manifest: SetManifest | None
    samples: list[Sample]
    documents: list[CorpusDocument]
    lines: dict[str, int]
    fingerprint: str | None
    n_samples: int
    n_good: int
    n_bad: int
    labels: dict[str, Label] = field(default_factory=dict)


def _read_set(
    path: Path,
    root: Path | None,
    sink: ProblemSink,
    *,
    keep: bool,
    labels: bool = False,
    samples_data: bytes | None = None,
) -> _SetRead:
    """Read and check a calibration-set folder, every problem to ``sink``. Raises only when there is no
    set here at all (no folder, no manifest). ``samples_data``: the samples file's bytes, already read."""
    folder_shown = display_path(path, root)
    if not path.is_dir():
        raise InvalidInputError(
            f"{folder_shown}: not a calibration set",
            [
                Problem(
                    file=folder_shown,
                    message="no such folder",
                    expected="a calibration-set folder",
                    got="nothing at this path" if not path.exists() else "a file",
                    fix="run `graderctl list` to see the sets",
                )
            ],
        )
    manifest_path = path / MANIFEST_NAME
    m_shown = display_path(manifest_path, root)
    if not manifest_path.is_file():
        present = sorted(p.name for p in path.iterdir())[:5]
        raise InvalidInputError(
            f"{folder_shown}: no manifest",
            [
                Problem(
                    file=m_shown,
                    message="the set folder has no manifest.toml",
                    expected="manifest.toml with schema_version, name, version, check and [policy]",
                    got="a folder with " + (", ".join(present) if present else "nothing in it"),
                    fix="add a manifest.toml (its fields: `graderctl schema set-manifest`)",
                )
            ],
        )
    manifest: SetManifest | None = None
    check: Check | None = None
    try:
        data, text = read_toml(manifest_path, m_shown)
    except InvalidInputError as exc:
        sink.absorb(exc)
    else:
        line_of = toml_line_of(text)
        non_finite = toml_non_finite(data, m_shown, line_of)
        sink.extend(non_finite)
        try:
            manifest = validate_toml_data(SetManifest, data)
        except ValidationError as exc:
            found = problems_from_validation(exc, file=m_shown, model=SetManifest, line_of=line_of)
            sink.extend(without_pointers(found, non_finite))
            if data.get("check") in Check.__members__:
                check = Check(data["check"])
        name = data.get("name")
        if isinstance(name, str) and name != path.name:
            sink.add(
                Problem(
                    file=m_shown,
                    line=line_of(("name",)),
                    pointer="/name",
                    message="the set's name does not match its folder",
                    expected=repr(path.name),
                    got=repr(name),
                    fix=f"set name = {path.name!r}, or rename the folder to {name}",
                )
            )
    if manifest is not None:
        check = manifest.check

    fp = SetFingerprinter()
    corpus_path = path / CORPUS_NAME
    documents: list[CorpusDocument] = []
    if corpus_path.exists():
        documents = load_corpus(corpus_path, shown=display_path(corpus_path, root), sink=sink, fingerprint=fp)
    corpus_ids = {d.id for d in documents}

    samples_path = path / SAMPLES_NAME
    s_shown = display_path(samples_path, root)
    read = _SamplesRead()
    if not samples_path.is_file():
        others = sorted(p.name for p in path.iterdir() if p.name not in (MANIFEST_NAME, CORPUS_NAME))[:5]
        sink.add(
            Problem(
                file=s_shown,
                message="the set has no samples.jsonl",
                expected="samples.jsonl, one labelled sample per line",
                got="no file" + (f" (the folder has {', '.join(others)})" if others else ""),
                fix="add samples.jsonl, or rename the samples file to samples.jsonl (one sample per line; "
                "`graderctl schema` lists the sample formats)",
            )
        )
    else:
        read = _read_samples(
            samples_path,
            s_shown,
            check,
            corpus_ids,
            sink,
            fp if check else None,
            keep=keep,
            labels=labels,
            data=samples_data,
        )
    fingerprint = fp.fingerprint(manifest.model_dump(mode="json", exclude_none=True)) if manifest else None
    return _SetRead(
        manifest=manifest,
        samples=read.samples,
        documents=documents,
        lines=read.lines,
        fingerprint=fingerprint,
        n_samples=read.n_good + read.n_bad,
        n_good=read.n_good,
        n_bad=read.n_bad,
        labels=read.labels,
    )


def load_set(path: Path, *, root: Path | None = None, sink: ProblemSink | None = None) -> LoadedSet:
    """Load a calibration-set folder: ``manifest.toml``, ``samples.jsonl`` and optional ``corpus.jsonl``.
    Every problem in any of the three is reported together (to ``sink`` if given, else raised)."""
    own_sink = sink is None
    sink = sink if sink is not None else ProblemSink()
    folder_shown = display_path(path, root)
    before = sink.count
    key = _cache_key(path)
    read = _read_set(path, root, sink, keep=True, samples_data=None if key is None else key.samples)
    if own_sink:
        sink.raise_if_any(folder_shown)
    if read.manifest is None or read.fingerprint is None:
        raise InvalidInputError(
            f"{folder_shown}: invalid manifest", sink.problems[before:], omitted=sink.omitted
        )
    if key is not None and sink.count == before:
        read.labels = {s.id: s.label for s in read.samples}
        _remember(path, key, read)
    return LoadedSet(
        manifest=read.manifest,
        path=path,
        shown=folder_shown,
        samples=read.samples,
        corpus_documents=read.documents,
        fingerprint=read.fingerprint,
        sample_lines=read.lines,
    )


def index_set(path: Path, *, root: Path | None = None) -> SetIndex:
    """A calibration set as trust needs it (:class:`SetIndex`): checked exactly as :func:`load_set` checks it,
    raising the same error when it is invalid, and with the same fingerprint, but streaming its samples and
    keeping only their labels by id. A large valid set's result is kept in the user's cache, keyed by the
    content of its files (:mod:`graderctl.store.set_cache`), so the next run only hashes its bytes."""
    from graderctl.store import set_cache

    folder_shown = display_path(path, root)
    key = _cache_key(path)
    if key is not None:
        hit = set_cache.get(key.key)
        usable = hit is not None and hit.serves(_CHECK_DUPLICATE_KEYS.get())
        manifest = _cached_manifest(hit.manifest) if hit is not None and usable else None
        if hit is not None and manifest is not None:
            return SetIndex(
                manifest=manifest,
                path=path,
                shown=folder_shown,
                fingerprint=hit.fingerprint,
                labels=hit.labels,
                n_good=hit.n_good,
                n_bad=hit.n_bad,
            )
    sink = ProblemSink()
    read = _read_set(
        path, root, sink, keep=False, labels=True, samples_data=None if key is None else key.samples
    )
    sink.raise_if_any(folder_shown)
    if read.manifest is None or read.fingerprint is None:  # not reached: a missing manifest is a problem
        raise InvalidInputError(f"{folder_shown}: invalid manifest", sink.problems, omitted=sink.omitted)
    _remember(path, key, read)
    return SetIndex(
        manifest=read.manifest,
        path=path,
        shown=folder_shown,
        fingerprint=read.fingerprint,
        labels=read.labels,
        n_good=read.n_good,
        n_bad=read.n_bad,
    )


@dataclass(frozen=True)
class _CacheKey:
    """A large set's key in the set cache, computed over the very bytes of its samples file that are then
    checked (the file is read and hashed once)."""

    key: str
    samples: bytes
    digest: bytes


def _cache_key(path: Path) -> _CacheKey | None:
    """The set cache's key for the set in ``path`` (``None``: not cached; see :mod:`.set_cache`), with the
    samples file's bytes it covers: the reader parses these, so the entry holds what they give."""
    import hashlib

    from graderctl.store import set_cache

    samples = path / SAMPLES_NAME
    if set_cache.cache_dir() is None:
        return None
    try:
        if not path.is_dir() or samples.stat().st_size < set_cache.MIN_BYTES:
            return None
        data = samples.read_bytes()
    except (OSError, ValueError):
        return None  # read again by the reader, which says what is wrong
    digest = hashlib.sha256(data).digest()
    key = set_cache.set_key(path, samples_digest=digest)
    return None if key is None else _CacheKey(key, data, digest)


def _remember(path: Path, key: _CacheKey | None, read: _SetRead) -> None:
    """Keep what trust needs of a large set just read whole without a problem (``read.labels`` filled), when
    its manifest and corpus still hash to ``key`` (the key from before the read; the samples read were the
    bytes the key covers: the entry then holds what those bytes give). An entry made with duplicate keys
    checked is not replaced by one made without."""
    if key is None or read.manifest is None or read.fingerprint is None:
        return
    from graderctl.store import set_cache

    strict = _CHECK_DUPLICATE_KEYS.get()
    old = set_cache.get(key.key)
    if old is not None and old.serves(strict):
        return
    if set_cache.set_key(path, samples_digest=key.digest) != key.key:
        return
    manifest = read.manifest.model_dump(mode="json")
    set_cache.put(
        key.key,
        set_cache.CachedIndex(manifest, read.fingerprint, read.labels, read.n_good, read.n_bad, strict),
    )


def _cached_manifest(dump: dict[str, Any]) -> SetManifest | None:
    """The manifest a cache entry holds (``None`` if it is not one)."""
    try:
        return SetManifest.model_validate(dump)
    except ValidationError:
        return None


@dataclass(frozen=True)
class SetSummary:
    """What ``validate`` reports about a set, without holding its samples in memory."""

    name: str | None
    check: str | None
    fingerprint: str | None
    n_samples: int
    n_good: int
    n_bad: int
    n_documents: int


def check_set(path: Path, *, root: Path | None = None, sink: ProblemSink) -> SetSummary:
    """Check a calibration-set folder like :func:`load_set` does, streaming its samples (for large sets);
    every problem goes to ``sink``."""
    before = sink.count
    key = _cache_key(path)
    read = _read_set(
        path,
        root,
        sink,
        keep=False,
        labels=key is not None,
        samples_data=None if key is None else key.samples,
    )
    if sink.count == before:
        _remember(path, key, read)
    return SetSummary(
        name=read.manifest.name if read.manifest else None,
        check=read.manifest.check.value if read.manifest else None,
        fingerprint=read.fingerprint,
        n_samples=read.n_samples,
        n_good=read.n_good,
        n_bad=read.n_bad,
        n_documents=len(read.documents),
    )


def manifest_check(folder: Path, root: Path) -> str | None:
    """The ``check`` a set's manifest declares, read without loading its samples (``None`` if unreadable)."""
    manifest = folder / "manifest.toml"
    if not manifest.is_file():
        return None
    try:
        data, _ = read_toml(manifest, display_path(manifest, root))
    except InvalidInputError:
        return None
    check = data.get("check")
    return check if isinstance(check, str) else None


def set_folders(root: Path) -> list[Path]:
    base = root / SETS_DIR
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def looks_like_a_path(name_or_path: str) -> bool:
    """Whether a ``SET`` argument is a path rather than a set name: it holds a path separator (``./my-set``,
    ``sets/x``, an absolute path) or names a ``.jsonl`` file. Anything else is a name of the project's set."""
    seps = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    return any(sep in name_or_path for sep in seps) or name_or_path.endswith(".jsonl")


def find_set(name_or_path: str, root: Path) -> LoadedSet:
    """The set ``name_or_path`` names. A name (no separator, not a ``.jsonl`` file) is the project's set under
    ``<root>/calibration_sets/`` whenever the project has one, never a folder of the current folder that
    happens to share it (write ``./NAME`` for that); only a name the project lacks is read as a folder of the
    current folder (the contract's "a path to its folder"). A path is a set folder, or a set's
    ``samples.jsonl`` (its folder)."""
    if looks_like_a_path(name_or_path):
        as_path = Path(name_or_path)
        if as_path.is_file() and as_path.name.endswith(".jsonl"):
            as_path = as_path.parent
        if as_path.is_dir():
            return load_set(as_path, root=root)
    else:
        folder = root / SETS_DIR / name_or_path
        if folder.is_dir():
            return load_set(folder, root=root)
        if Path(name_or_path).is_dir():
            return load_set(Path(name_or_path), root=root)
    known = [p.name for p in set_folders(root)]
    fix = (
        "give a set name from `graderctl list` or a path to a set folder, or point at another project with "
        "`graderctl --root PROJECT ...` (or $GRADERCTL_ROOT)"
    )
    raise InvalidInputError(
        f"unknown calibration set {name_or_path!r}",
        [
            Problem(
                file=display_path(root / SETS_DIR, root),
                message=f"unknown calibration set {name_or_path!r}",
                expected="one of: " + (", ".join(known) or "no sets found"),
                got=repr(name_or_path),
                fix=fix,
            )
        ],
    )


def declares_abstention(path: Path) -> bool:
    """Whether a grader definition declares an abstention band (``[params]`` ``accept_at_or_above`` /
    ``reject_below``); read cheaply: an unreadable one is loaded later and reported then."""
    import tomllib

    try:
        params = tomllib.loads(path.read_text(encoding="utf-8")).get("params", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(params, dict) and bool({"accept_at_or_above", "reject_below"} & set(params))
