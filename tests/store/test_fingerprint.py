"""Fingerprints: pinned by goldens; invariant to presentation, sensitive to content; versioned.

Update the goldens after an intended change of the algorithm (and a bump of FINGERPRINT_ALGORITHM) with
``pytest tests/store/test_fingerprint.py --update-goldens``."""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path

import pytest

from graderctl.store import fingerprint as fpmod
from graderctl.store.fingerprint import (
    FINGERPRINT_ALGORITHM,
    canonical_bytes,
    grader_fingerprint,
    item_bytes,
    set_fingerprint,
)
from graderctl.store.project import LoadedGrader, load_grader, load_set
from tests.store.fixture_kind import FIXTURES, PromptKind, copy_project, registered

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fingerprints.json"
GRADER = Path("graders/judge/v1.toml")
PROMPT = Path("graders/judge/prompt.txt")
SET = Path("calibration_sets/fp-set")


@pytest.fixture(autouse=True)
def _fixture_kind() -> object:
    with registered():
        yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def grader_fp(root: Path) -> str:
    return load_grader(root / GRADER, root=root).fingerprint


def set_fp(root: Path) -> str:
    return load_set(root / SET, root=root).fingerprint


def _current() -> dict[str, str]:
    return {
        "algorithm": FINGERPRINT_ALGORITHM,
        "grader graders/judge/v1.toml": grader_fp(FIXTURES),
        "set calibration_sets/fp-set": set_fp(FIXTURES),
        "canonical_bytes example": canonical_bytes(
            {"b": [1.0, 2.5, "Cafe\u0301"], "a": {"z": None, "y": True}}
        ).decode("utf-8"),
        "fingerprint_of example": fpmod.fingerprint_of("example", {"x": 1}),
    }


# --- goldens --------------------------------------------------------------------------------------------


def test_goldens(update_goldens: bool) -> None:
    current = _current()
    if update_goldens:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert GOLDEN.is_file(), (
        "run `pytest tests/store/test_fingerprint.py --update-goldens` to create the goldens"
    )
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert golden["algorithm"] == FINGERPRINT_ALGORITHM, (
        "the fingerprint algorithm version changed: regenerate the goldens with --update-goldens"
    )
    assert current == golden, (
        "fingerprints changed without a new FINGERPRINT_ALGORITHM: every released grader in graders.lock and "
        "every trust decision would silently lapse. Bump the algorithm version if the change is intended, "
        "then run pytest --update-goldens."
    )


def test_canonical_form_is_pinned() -> None:
    # Sorted keys, NFC, integral floats as integers, no whitespace.
    assert canonical_bytes({"b": [1.0, 2.5, "Cafe\u0301"], "a": {"z": None, "y": True}}) == (
        '{"a":{"y":true,"z":null},"b":[1,2.5,"Café"]}'.encode()
    )
    assert item_bytes({"b": "Cafe\u0301", "a": 1.0}) == '{"a":1.0,"b":"Café"}'.encode()


def test_fingerprint_shape() -> None:
    fp = grader_fp(FIXTURES)
    assert fp.startswith("sha256:") and len(fp) == len("sha256:") + 64
    assert all(c in "0123456789abcdef" for c in fp.removeprefix("sha256:"))


def test_algorithm_version_is_hashed_in(monkeypatch: pytest.MonkeyPatch) -> None:
    g, s = grader_fp(FIXTURES), set_fp(FIXTURES)
    monkeypatch.setattr(fpmod, "FINGERPRINT_ALGORITHM", "graderctl-fingerprint-v999")
    assert grader_fp(FIXTURES) != g
    assert set_fp(FIXTURES) != s


# --- grader: invariance ---------------------------------------------------------------------------------


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture changed: {old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_grader_invariant_to_toml_key_order_formatting_and_comments(project: Path) -> None:
    before = grader_fp(project)
    (project / GRADER).write_text(
        "# rewritten by hand: other order, inline tables, comments, spacing\n"
        '[judge]\nprovider="fixture"   # who\nmodel = "fixture-model-2024-01-01"\n\n'
        "[params]\n"
        'labels = [ "supported",\n  "unsupported", ]\n'
        "threshold=0.50\n"
        "prompt = 'prompt.txt'\n",
        encoding="utf-8",
    )
    text = (project / GRADER).read_text(encoding="utf-8")
    header = (
        'description = "Fixture: fingerprints of a definition and the prompt it references."\n'
        'check = "claim_support"\nkind = "fixture_prompt"\nversion = 1\n'
        'name = "judge"\nschema_version = 1\n\n'
    )
    (project / GRADER).write_text(header + text, encoding="utf-8")
    assert grader_fp(project) == before


def test_grader_invariant_to_integral_float_spelling(project: Path) -> None:
    _edit(project / GRADER, "threshold = 0.5", "threshold = 1.0")
    a = grader_fp(project)
    _edit(project / GRADER, "threshold = 1.0", "threshold = 1")
    assert grader_fp(project) == a


def test_grader_invariant_to_crlf_and_bom_in_files(project: Path) -> None:
    before = grader_fp(project)
    for rel in (GRADER, PROMPT):
        data = (project / rel).read_bytes()
        (project / rel).write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    assert grader_fp(project) == before


def test_grader_invariant_to_unicode_normalisation(project: Path) -> None:
    before = grader_fp(project)
    for rel in (GRADER, PROMPT):
        text = (project / rel).read_text(encoding="utf-8")
        (project / rel).write_text(unicodedata.normalize("NFD", text), encoding="utf-8")
    assert unicodedata.normalize("NFD", "Café") in (project / PROMPT).read_text(encoding="utf-8")
    assert grader_fp(project) == before


# --- grader: sensitivity --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "old", "new"),
    [
        (GRADER, "threshold = 0.5", "threshold = 0.51"),
        (GRADER, '"unsupported"]', '"not supported"]'),
        (GRADER, 'model = "fixture-model-2024-01-01"', 'model = "fixture-model-2024-06-01"'),
        (GRADER, "Fixture: fingerprints", "Fixture - fingerprints"),
        (PROMPT, "Is the claim supported", "Is the claim fully supported"),
        (PROMPT, "Answer", "answer"),
    ],
    ids=["param", "param list", "judge model", "description", "prompt wording", "prompt case"],
)
def test_grader_sensitive_to_content(project: Path, rel: Path, old: str, new: str) -> None:
    before = grader_fp(project)
    _edit(project / rel, old, new)
    assert grader_fp(project) != before


def test_grader_sensitive_to_implementation_version(project: Path) -> None:
    before = grader_fp(project)

    class Reimplemented(PromptKind):
        implementation_version = "2"

    with registered(Reimplemented):
        assert grader_fp(project) != before


def test_grader_fingerprint_function_directly() -> None:
    base = grader_fingerprint({"a": 1, "b": {"c": [1, 2]}}, {"p.txt": "x\ny\n"}, implementation="k/1")
    assert (
        grader_fingerprint({"b": {"c": [1, 2]}, "a": 1.0}, {"p.txt": "x\r\ny\r\n"}, implementation="k/1")
        == base
    )
    assert grader_fingerprint({"a": 1, "b": {"c": [2, 1]}}, {"p.txt": "x\ny\n"}, implementation="k/1") != base
    assert grader_fingerprint({"a": 1, "b": {"c": [1, 2]}}, {"q.txt": "x\ny\n"}, implementation="k/1") != base
    assert grader_fingerprint({"a": 1, "b": {"c": [1, 2]}}, {"p.txt": "x\ny\n"}, implementation="k/2") != base


# --- set: invariance ------------------------------------------------------------------------------------


def _rewrite_samples(project: Path, transform: object) -> None:
    path = project / SET / "samples.jsonl"
    text = path.read_text(encoding="utf-8-sig")
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert callable(transform)
    lines = transform(records)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _shuffled_keys(value: object, rng: random.Random) -> object:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled_keys(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled_keys(v, rng) for v in value]
    return value


def test_set_invariant_to_sample_order_key_order_and_spacing(project: Path) -> None:
    before = set_fp(project)
    rng = random.Random(3)

    def transform(records: list[dict[str, object]]) -> list[str]:
        records = list(reversed(records))
        return [json.dumps(_shuffled_keys(r, rng), indent=None, separators=(" , ", " : ")) for r in records]

    _rewrite_samples(project, transform)
    corpus = project / SET / "corpus.jsonl"
    docs = corpus.read_text(encoding="utf-8").splitlines()
    corpus.write_text("\n\n".join(reversed(docs)), encoding="utf-8")  # blank lines, no final newline
    assert set_fp(project) == before


def test_set_invariant_to_nfc_nfd_bom_crlf_and_escapes(project: Path) -> None:
    before = set_fp(project)
    for name in ("samples.jsonl", "corpus.jsonl", "manifest.toml"):
        path = project / SET / name
        text = unicodedata.normalize("NFD", path.read_text(encoding="utf-8"))
        path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    assert set_fp(project) == before
    _rewrite_samples(project, lambda records: [json.dumps(r, ensure_ascii=True) for r in records])
    assert set_fp(project) == before


def test_set_invariant_to_explicit_defaults_and_nulls(project: Path) -> None:
    before = set_fp(project)

    def transform(records: list[dict[str, object]]) -> list[str]:
        for r in records:
            r.setdefault("group", None)
            r.setdefault("labels", None)
        return [json.dumps(r) for r in records]

    _rewrite_samples(project, transform)
    _edit(
        project / SET / "manifest.toml",
        "max_false_reject_rate = 0.2",
        "max_false_reject_rate = 0.2\nmax_error_rate = 0.01",
    )
    assert set_fp(project) == before


# --- set: sensitivity -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("samples.jsonl", '"id": "fp-002", "label": "bad"', '"id": "fp-002", "label": "good"'),
        ("samples.jsonl", "did not rise", "did not go up"),
        ("samples.jsonl", '"category": "paraphrase"', '"category": "restatement"'),
        ("samples.jsonl", '"group": "seed-1", "input"', '"group": "seed-2", "input"'),
        ("corpus.jsonl", "rose 5% in 2023.", "rose 6% in 2023."),
        ("corpus.jsonl", '"title": "Unused"', '"title": "Unused!"'),
        ("manifest.toml", "max_false_accept_rate = 0.05", "max_false_accept_rate = 0.04"),
        ("manifest.toml", "version = 1\ncheck", "version = 2\ncheck"),
    ],
    ids=["label", "claim text", "category", "group", "corpus text", "corpus title", "policy", "set version"],
)
def test_set_sensitive_to_content(project: Path, name: str, old: str, new: str) -> None:
    before = set_fp(project)
    _edit(project / SET / name, old, new)
    assert set_fp(project) != before


def test_set_sensitive_to_added_and_removed_samples(project: Path) -> None:
    before = set_fp(project)
    _rewrite_samples(project, lambda records: [json.dumps(r) for r in records[:-1]])
    removed = set_fp(project)
    assert removed != before
    _rewrite_samples(
        project,
        lambda records: [json.dumps(r) for r in records] + [json.dumps({**records[0], "id": "fp-009"})],
    )
    assert set_fp(project) not in (before, removed)


def test_set_fingerprint_function_matches_loader() -> None:
    loaded = load_set(FIXTURES / SET, root=FIXTURES)
    direct = set_fingerprint(
        loaded.manifest.model_dump(mode="json", exclude_none=True),
        [s.model_dump(mode="json", exclude_none=True) for s in reversed(loaded.samples)],
        [d.model_dump(mode="json", exclude_none=True) for d in loaded.corpus_documents],
    )
    assert direct == loaded.fingerprint


def test_loaded_grader_carries_referenced_files() -> None:
    g: LoadedGrader = load_grader(FIXTURES / GRADER, root=FIXTURES)
    assert set(g.files) == {"prompt.txt"}
    assert g.ref == "judge@1"


def test_text_below_u0300_is_in_nfc() -> None:
    """add_samples_json skips NFC for a batch of UTF-8 text with no byte from 0xCC up (characters below
    U+0300 only): each such character is a starter NFC leaves alone, whatever its neighbours."""
    import unicodedata

    from graderctl.store.fingerprint import _BELOW_U0300

    chars = [chr(i) for i in range(0x300)]
    assert all(unicodedata.combining(c) == 0 for c in chars)
    assert all(unicodedata.is_normalized("NFC", a + b) for a in chars for b in chars)
    assert not "".join(chars).encode().translate(None, _BELOW_U0300)
    assert all(chr(i).encode().translate(None, _BELOW_U0300) for i in (0x300, 0x301, 0x212B, 0xAC00, 0x1F600))


def test_samples_given_as_json_fingerprint_as_their_dumps() -> None:
    from graderctl.store.fingerprint import _ENCODER, SetFingerprinter

    dumps = [
        {"id": "a", "text": "plain"},
        {"id": "e\u0301", "text": "e\u0301 then é"},
        {"id": "b", "text": "Å\u212b 漢字 😀"},
        {"id": "c", "text": "naïve café"},
    ]
    for batch in (dumps, dumps[:1], dumps[3:], dumps[1:2]):
        one, other = SetFingerprinter(), SetFingerprinter()
        for d in batch:
            one.add_sample(d)
        other.add_samples_json([d["id"] for d in batch], [_ENCODER.encode(d).encode() for d in batch])
        assert one.fingerprint({}) == other.fingerprint({})
