"""The fast path of set reading (graderctl.store.sample_fast) against the pydantic sample models it
mirrors: it accepts only lines the models accept, gives the same fingerprint bytes, and a set read through it
(``list``, ``validate``) has the same fingerprint, counts and problems as one read by the models
(``load_set``)."""

from __future__ import annotations

import json
import typing
import unicodedata
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel, ValidationError

from graderctl.errors import InvalidInputError
from graderctl.models.base import Check
from graderctl.models.calset import SAMPLE_MODELS
from graderctl.store import sample_fast
from graderctl.store.fingerprint import item_bytes
from graderctl.store.problems import ProblemSink
from graderctl.store.project import check_set, index_set, load_set

SHIPPED = Path(__file__).resolve().parents[2] / "calibration_sets"

_TEXTS = [
    "plain",
    "tab\there",
    "nl\nhere",
    'quote"q',
    "back\\slash",
    "slash/x",
    "ctl\u0001\u001f",
    "del\x7f",
    "ls\u2028ps\u2029",
    "e\u0301 decomposed",
    "é composed",
    "Å\u212b angstrom",
    "emoji 😀",
    "zw\u200bj",
    "漢字",
    "nbsp\u00a0x",
    "bom\ufeffx",
    "\u0000nul",
    "ω\u0342\u0345",
    "ﬁ ligature",
    "Ä\u0308",
    " ",
    "NaNi0.3 Infinity",
]

_PROVENANCE = {
    "file": "r.jsonl",
    "line": 3,
    "task_id": "t",
    "trial_id": "tr",
    "unit": "u",
    "status": "s",
    "grader": "g@1",
    "fingerprint": "sha256:x",
    "added_at": "now",
}

_BASE = {"id": "x", "label": "good", "category": "c"}
_CLAIM = {"claim": "x", "evidence": [{"text": "t"}]}


def _valid_claim_support() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, text in enumerate(_TEXTS * 2):
        sample: dict[str, Any] = {
            "id": f"v-{i}{text if i % 3 == 0 else ''}",
            "label": "good" if i % 2 else "bad",
            "category": text if i % 2 else "c",
            "input": {"claim": text + str(i), "evidence": [{"source_id": f"doc-{i % 3}"}]},
        }
        if i % 3 == 0:
            sample["input"]["evidence"].append({"text": text, "source_id": None})
        if i % 4 == 0:
            sample["group"] = text
        if i % 5 == 0:
            sample["rationale"] = None
        if i % 6 == 0:
            sample["generator"] = {"model": "gpt-4o", "provider": None if i % 12 else "openai"}
        if i % 7 == 0:
            sample["labels"] = [{"labeler": "a", "label": "good"}, {"labeler": text, "label": "bad"}]
        if i % 9 == 0:
            sample["split"] = ["tune", "certify"][i % 2]
        if i % 8 == 0:
            sample["labels"] = []
        if i % 11 == 0:
            sample["provenance"] = dict(_PROVENANCE, line=i)
            if i % 22 == 0:
                sample["provenance"]["labeler"] = None
            if i % 33 == 0:
                sample["provenance"]["source"] = "review"
                sample["provenance"]["labeler"] = text
        out.append(sample)
    return out


def _lines(check: Check) -> list[bytes]:
    """Valid and tricky lines of ``check``, each written with and without ``\\u`` escapes."""
    if check is Check.claim_support:
        samples = _valid_claim_support()
    elif check is Check.source_existence:
        citations: list[dict[str, Any]] = [
            {"url": "u"},
            {"doi": "10.1/x"},
            {"source_id": "doc-1", "title": None},
            {"source_id": "", "url": "u", "quote": "q"},
            {"title": "t é"},
            {"source_id": "", "url": "", "doi": ""},
            {"source_id": None, "url": None, "doi": "d"},
        ]
        samples = [dict(_BASE, id=f"se{i}", input={"citation": c}) for i, c in enumerate(citations)]
    else:
        inputs: list[dict[str, Any]] = [
            {"nuggets": [{"text": "n"}, {"text": "m", "importance": "okay"}], "report": "r"},
            {"question": "q é", "nuggets": [{"text": "e\u0301"}], "report": ""},
            {"question": None, "nuggets": [{"text": "n"}], "report": "r"},
            {"nuggets": [{"text": "n", "importance": None}], "report": "r"},
            {"nuggets": [], "report": "r"},
        ]
        samples = [dict(_BASE, id=f"cv{i}", input=inp) for i, inp in enumerate(inputs)]
    out = []
    for sample in samples:
        out.append(json.dumps(sample, ensure_ascii=False).encode())
        out.append(json.dumps(sample).encode())
    return out


def _bad_claim_support() -> list[bytes]:
    """Lines the models refuse, or that sit at the edge of what the fast path promises to read alike."""
    cs = dict(_BASE, input=_CLAIM)

    def with_(**changes: Any) -> bytes:
        return json.dumps({**cs, **changes}).encode()

    def inp(**changes: Any) -> bytes:
        return json.dumps({**cs, "input": {**_CLAIM, **changes}}).encode()

    raw = [
        with_(id=""),
        with_(id=5),
        with_(id=None),
        with_(label="Good"),
        with_(label=None),
        with_(category=""),
        with_(extra=1),
        with_(group=3),
        with_(rationale=False),
        with_(split="train"),
        with_(generator={"model": ""}),
        with_(generator="gpt"),
        with_(generator={"model": "m", "x": 1}),
        with_(labels=[{"labeler": "a", "label": "meh"}]),
        with_(labels=[{"labeler": "", "label": "good"}]),
        with_(provenance=dict(_PROVENANCE, line=1.0)),
        with_(provenance=dict(_PROVENANCE, line=True)),
        with_(provenance=dict(_PROVENANCE, line="3")),
        with_(provenance=dict(_PROVENANCE, line=10**30)),
        with_(provenance=dict(_PROVENANCE, line=-(2**63) - 1)),
        with_(provenance=dict(_PROVENANCE, source="other")),
        with_(provenance=dict(_PROVENANCE, labeler=3)),
        with_(provenance={"file": "f"}),
        with_(input=None),
        with_(input={"citation": {"url": "u"}}),
        with_(input={"report": "r", "nuggets": [{"text": "n"}]}),
        inp(claim=""),
        inp(claim=None),
        inp(evidence=[]),
        inp(evidence="t"),
        inp(evidence=[{}]),
        inp(evidence=[{"text": None, "source_id": None}]),
        inp(evidence=[{"text": "t", "source_id": "doc-1"}]),
        inp(evidence=[{"text": "t", "w": 1}]),
        inp(evidence=[{"text": ""}]),
        inp(evidence=[{"source_id": ""}]),
        inp(extra=[]),
    ]
    dropped = []
    for key in ("id", "label", "category", "input"):
        dropped.append(json.dumps({k: v for k, v in cs.items() if k != key}).encode())
    literal = [
        b'{"id":"x","label":"good",}',
        b"[1,2]",
        b'"hello"',
        b"null",
        b"{}",
        b'{"id":"x\\ud800","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}}',
        b'{"id":"x\\ud83d\\ude00","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}}',
        b'{"id":"x\\udc00","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}}',
        b'{"id":"\xff","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}}',
        b'{"id":"a","id":"b","label":"good","category":"c","input":{"claim":"x","claim":"y","evidence":[{"text":"t"}]}}',
        b'{"id":"c","label":"bad","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]},'
        b'"group":"g","group":null}',
        b'{"id":"d","label":"bad","category":"c","input":{"claim":"x","evidence":[{"text":"t","text":null,'
        b'"source_id":"doc-1"}]}}',
        b'{"id":"x","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}} x',
        b' {"id":"x","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]}}\t',
        b'{"id":"x","label":"good","category":"c","group":' + b"[" * 300 + b"]" * 300 + b',"input":{}}',
        b'{"id":"x","label":"good","category":"c","input":{"claim":"x","evidence":[{"text":"t"}]},"group":NaN}',
    ]
    return raw + dropped + literal


def _model_bytes(check: Check, raw: bytes) -> bytes | None:
    """The fingerprint bytes the pydantic model gives of a line, ``None`` when it refuses the line."""
    try:
        sample = SAMPLE_MODELS[check].model_validate_json(raw, strict=True)
    except ValidationError:
        return None
    return item_bytes(sample.model_dump(mode="json", exclude_none=True))


def _fast_bytes(check: Check, raw: bytes) -> bytes | None:
    found = sample_fast.decoder(check)(raw)
    if found is None:
        return None
    text = sample_fast.item_json(found).decode()
    return unicodedata.normalize("NFC", text).encode()


@pytest.mark.parametrize("check", list(Check))
def test_valid_lines_read_alike(check: Check) -> None:
    lines = _lines(check)
    read = 0
    for raw in lines:
        expected = _model_bytes(check, raw)
        got = _fast_bytes(check, raw)
        if got is not None:
            read += 1
            assert got == expected, raw
    # The fast path reads the valid lines (it is not a path that refuses everything).
    assert read >= len([r for r in lines if _model_bytes(check, r) is not None]) - 2


@pytest.mark.parametrize("check", list(Check))
def test_fast_path_accepts_only_what_the_models_accept(check: Check) -> None:
    lines = _bad_claim_support() + [raw for c in Check for raw in _lines(c)]
    for raw in lines:
        got = _fast_bytes(check, raw)
        if got is not None:
            assert _model_bytes(check, raw) == got, raw


def test_bad_lines_are_left_to_the_models() -> None:
    """Every line the models refuse is refused by the fast path (so the models report it)."""
    for raw in _bad_claim_support():
        if _model_bytes(Check.claim_support, raw) is None:
            assert sample_fast.decoder(Check.claim_support)(raw) is None, raw


def _struct_fields(struct: Any) -> dict[str, Any]:
    return {name: default for name, default in zip(struct.__struct_fields__, _defaults(struct), strict=True)}


def _defaults(struct: Any) -> list[Any]:
    info = msgspec.inspect.type_info(struct)
    return [None if f.required else f.default for f in info.fields]


def _nested(annotation: Any) -> list[type[BaseModel]]:
    found = []
    for arg in typing.get_args(annotation) or (annotation,):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            found.append(arg)
        elif typing.get_args(arg):
            found.extend(_nested(arg))
    return found


def _struct_of(struct: Any, name: str) -> Any:
    hints = typing.get_type_hints(struct, include_extras=True)

    def walk(t: Any) -> list[Any]:
        out = []
        for arg in typing.get_args(t) or (t,):
            if isinstance(arg, type) and issubclass(arg, msgspec.Struct):
                out.append(arg)
            elif typing.get_args(arg):
                out.extend(walk(arg))
        return out

    structs = walk(hints[name])
    assert len(structs) == 1, (struct, name)
    return structs[0]


def _same_shape(model: type[BaseModel], struct: Any) -> None:
    fields = _struct_fields(struct)
    assert set(fields) == set(model.model_fields), (model, struct)
    for name, info in model.model_fields.items():
        if info.is_required():
            assert fields[name] is None or name == "labeler", (model, name)
        else:
            assert fields[name] == info.default or (name == "labeler" and info.default is None), (model, name)
        for sub in _nested(info.annotation):
            _same_shape(sub, _struct_of(struct, name))


@pytest.mark.parametrize("check", list(Check))
def test_structs_mirror_the_models(check: Check) -> None:
    """A field added to a sample model must be added to the fast path too (else every line would fall back
    to the models: correct, but slow)."""
    _same_shape(SAMPLE_MODELS[check], sample_fast.STRUCTS[check])


def _write_set(folder: Path, check: Check, lines: list[bytes], *, corpus: bool = True) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.toml").write_text(
        f'schema_version = 1\nname = "{folder.name}"\nversion = 1\ncheck = "{check.value}"\n'
        "[policy]\nmax_false_accept_rate = 0.5\nmax_false_reject_rate = 0.5\n",
        encoding="utf-8",
    )
    (folder / "samples.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    if corpus:
        docs = [json.dumps({"id": f"doc-{i}", "text": "t"}) for i in range(3)]
        (folder / "corpus.jsonl").write_text("\n".join(docs) + "\n", encoding="utf-8")
    return folder


def _unique(lines: list[bytes]) -> list[bytes]:
    """The lines with distinct ids (so a set of them is valid when each line is)."""
    out = []
    for i, raw in enumerate(lines):
        value = json.loads(raw)
        value["id"] = f"{value['id']}-{i}"
        out.append(json.dumps(value, ensure_ascii=bool(i % 2)).encode())
    return out


@pytest.mark.parametrize("check", list(Check))
def test_a_valid_set_reads_alike(tmp_path: Path, check: Check) -> None:
    lines = [raw for raw in _unique(_lines(check)) if _model_bytes(check, raw) is not None]
    folder = _write_set(tmp_path / "s", check, lines)
    whole = load_set(folder, root=tmp_path)  # the models, samples kept
    index = index_set(folder, root=tmp_path)  # the fast path
    assert index.fingerprint == whole.fingerprint
    assert index.labels == whole.labels
    assert (index.n_good, index.n_bad) == (whole.n_good, whole.n_bad)
    summary = check_set(folder, root=tmp_path, sink=ProblemSink())
    assert summary.fingerprint == whole.fingerprint


@pytest.mark.parametrize(
    "extra",
    [
        *(pytest.param([raw], id=f"line-{i}") for i, raw in enumerate(_bad_claim_support())),
        pytest.param(
            [
                b'{"id":"s","label":"good","category":"c","input":{"claim":"x","evidence":[{"source_id":"no"}]}}'
            ],
            id="unknown-source",
        ),
        pytest.param([b"", b"  "], id="blank-lines"),
        pytest.param([b"ok"], id="duplicate-id"),
    ],
)
def test_a_set_with_odd_lines_reads_alike(tmp_path: Path, extra: list[bytes]) -> None:
    """A set with a bad (or odd but valid) line among valid ones: the same problems (file, line, pointer,
    message, expected, got, fix) and the same error, or the same fingerprint, whether it is read by
    ``check_set``/``index_set`` (the fast path) or ``load_set`` (the models)."""
    good = json.dumps(dict(_BASE, id="ok", input=_CLAIM)).encode()
    lines = [good, *(good if e == b"ok" else e for e in extra), good.replace(b'"ok"', b'"ok2"')]
    folder = _write_set(tmp_path / "s", Check.claim_support, lines)
    sink = ProblemSink()
    summary = check_set(folder, root=tmp_path, sink=sink)
    try:
        whole = load_set(folder, root=tmp_path)
    except InvalidInputError as exc:
        expected = [p.to_dict() for p in exc.problems]
        assert [p.to_dict() for p in sink.problems] == expected
        with pytest.raises(InvalidInputError) as raised:
            index_set(folder, root=tmp_path)
        assert str(raised.value) == str(exc)
        assert [p.to_dict() for p in raised.value.problems] == expected
    else:
        assert not sink.problems
        assert summary.fingerprint == whole.fingerprint
        assert index_set(folder, root=tmp_path).fingerprint == whole.fingerprint


def test_crlf_bom_and_no_final_newline(tmp_path: Path) -> None:
    lines = _unique([raw for raw in _lines(Check.coverage) if _model_bytes(Check.coverage, raw)])
    folder = tmp_path / "s"
    _write_set(folder, Check.coverage, lines)
    (folder / "samples.jsonl").write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(lines))
    assert index_set(folder, root=tmp_path).fingerprint == load_set(folder, root=tmp_path).fingerprint


@pytest.mark.skipif(not SHIPPED.is_dir(), reason="the shipped calibration sets are not in this checkout")
@pytest.mark.parametrize(
    "name", sorted(p.name for p in SHIPPED.glob("[!_.]*") if (p / "samples.jsonl").is_file())
)
def test_shipped_sets_read_alike(name: str) -> None:
    folder = SHIPPED / name
    assert index_set(folder).fingerprint == load_set(folder).fingerprint
