"""JSON Schemas: shipped files equal what the models generate, are valid draft 2020-12, and agree with the
models on every fixture record (valid and broken) and every shipped example."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.store import schemas
from graderctl.store.readers import toml_to_json

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"


def test_committed_schemas_match_the_models() -> None:
    stale = schemas.stale()
    assert stale == {}, (
        f"shipped JSON Schemas differ from the models: {stale}. Run `{schemas.REGENERATE}` and commit "
        "src/graderctl/schemas/"
    )


def test_every_registered_schema_is_shipped_and_valid_draft_2020_12() -> None:
    from jsonschema import Draft202012Validator

    shipped = schemas.shipped()
    assert set(shipped) == set(schemas.SCHEMAS)
    for name, text in shipped.items():
        schema = json.loads(text)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == schemas.JSON_SCHEMA_DIALECT
        assert schema["description"], name
        assert text == schemas.render(schemas.generate_one(name))


def test_the_registry_covers_every_format_of_the_contract() -> None:
    required = {
        "grader",
        "set-manifest",
        "sample-source_existence",
        "sample-claim_support",
        "sample-coverage",
        "corpus-document",
        "trial",
        "graded-result",
        "calibration-report",
    }
    assert required <= set(schemas.SCHEMAS)


def test_stale_and_write_detect_and_repair(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    assert set(schemas.stale(folder).values()) == {"missing"}
    assert schemas.write(folder) == sorted(schemas.SCHEMAS)
    assert schemas.stale(folder) == {}
    assert schemas.write(folder) == []
    edited = schemas.schema_path("trial", folder)
    edited.write_text(edited.read_text(encoding="utf-8").replace("Trial", "Trail", 1), encoding="utf-8")
    (folder / f"retired{schemas.SUFFIX}").write_text("{}", encoding="utf-8")
    assert schemas.stale(folder) == {"trial": "differs", "retired": "not generated"}
    assert schemas.write(folder) == ["retired", "trial"]
    assert schemas.stale(folder) == {} and not (folder / f"retired{schemas.SUFFIX}").exists()


# --- the schema command -----------------------------------------------------------------------------------


def test_schema_command_prints_one_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert _state.run(app, ["schema", "sample-claim_support"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == schemas.generate_one("sample-claim_support")


def test_schema_command_lists_and_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert _state.run(app, ["schema"]) == 0
    out = capsys.readouterr().out
    for name in schemas.SCHEMAS:
        assert name in out
    assert _state.run(app, ["schema", "--format", "json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["type"] == "schemas"
    assert [s["name"] for s in listing["schemas"]] == list(schemas.SCHEMAS)
    assert all(s["up_to_date"] for s in listing["schemas"])
    assert _state.run(app, ["schema", "--check"]) == 0


def test_schema_command_check_fails_on_stale_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(schemas, "SCHEMA_DIR", tmp_path)
    assert _state.run(app, ["schema", "--check"]) == ExitCode.INVALID_INPUT
    assert "graderctl schema --write" in capsys.readouterr().err
    assert _state.run(app, ["schema", "--write"]) == 0
    assert _state.run(app, ["schema", "--check"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{n}{schemas.SUFFIX}" for n in schemas.SCHEMAS
    )


@pytest.mark.parametrize(
    "args",
    [["schema", "nope"], ["schema", "--write", "--check"], ["schema", "trial", "--write"]],
    ids=["unknown name", "write and check", "name with write"],
)
def test_schema_command_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert _state.run(app, args) == ExitCode.USAGE_ERROR
    assert "Traceback" not in capsys.readouterr().err


# --- schemas and models agree on every record we have -------------------------------------------------


def _model(name: str) -> type[BaseModel]:
    return schemas.SCHEMAS[name][0]


def _manifest_check(folder: Path) -> str | None:
    try:
        data = tomllib.loads((folder / "manifest.toml").read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    check = data.get("check")
    return check if check in ("source_existence", "claim_support", "coverage") else None


def _schema_name(path: Path) -> str | None:
    name = path.name
    if name.endswith(".toml"):
        if name == "manifest.toml":
            return "set-manifest"
        if path.parent.parent.name == "graders" and name.startswith("v"):
            return "grader"
        return None
    if name == "samples.jsonl":
        check = _manifest_check(path.parent)
        return f"sample-{check}" if check else None
    if name == "corpus.jsonl" or name.endswith(".corpus.jsonl"):
        return "corpus-document"
    if name.endswith(".jsonl") and "trials" in name:
        return "trial"
    if name.endswith(".jsonl") and "results" in name:
        return "graded-result"
    if name.endswith(".json"):
        try:
            kind = json.loads(path.read_text(encoding="utf-8")).get("type")
        except (ValueError, UnicodeDecodeError, AttributeError):
            return None
        return {"calibration": "calibration-report", "comparison": "comparison-report"}.get(kind)
    return None


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    """(location, JSON value) for every record of a file that parses; unparseable ones have no schema
    verdict."""
    raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    if path.suffix == ".toml":
        try:
            yield f"{path}", toml_to_json(tomllib.loads(text))
        except tomllib.TOMLDecodeError:
            return
    elif path.suffix == ".json":
        yield f"{path}", json.loads(text)
    else:
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                continue
            yield f"{path}:{number}", value


def _fixture_files() -> list[Path]:
    roots = [TESTS, REPO / "graders", REPO / "calibration_sets", REPO / "examples"]
    found = []
    for base in roots:
        if base.is_dir():
            found += [p for p in base.rglob("*") if p.is_file() and _schema_name(p) is not None]
    return sorted(found)


FILES = _fixture_files()


def test_fixture_discovery_finds_broken_and_valid_files() -> None:
    names = {_schema_name(p) for p in FILES}
    assert {"grader", "set-manifest", "sample-claim_support", "sample-source_existence", "trial"} <= names
    assert any("broken" in p.parts for p in FILES) and any("tolerated" in p.parts for p in FILES)


def _model_accepts(model: type[BaseModel], value: Any) -> bool:
    """What validate decides: the model, strictly, and no NaN or Infinity (not JSON)."""
    try:
        model.model_validate_json(json.dumps(value, allow_nan=False), strict=True)
    except (ValidationError, ValueError):
        return False
    return True


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_schema_and_model_agree(path: Path) -> None:
    name = _schema_name(path)
    assert name is not None
    validator = schemas.validator(name)
    model = _model(name)
    for where, value in _records(path):
        model_ok = _model_accepts(model, value)
        try:
            json.dumps(value, allow_nan=False)
        except ValueError:  # NaN or Infinity: not JSON, so no schema verdict; validate rejects it
            assert not model_ok
            continue
        schema_errors = [e.message for e in validator.iter_errors(value)]
        assert model_ok == (not schema_errors), (
            f"{where}: the model {'accepts' if model_ok else 'rejects'} this {name} record but the schema "
            f"{'rejects' if schema_errors else 'accepts'} it: {schema_errors[:3]}"
        )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("sample-source_existence", {"id": "a", "label": "good", "category": "c", "input": {"citation": {}}}),
        (
            "sample-source_existence",
            {"id": "a", "label": "good", "category": "c", "input": {"citation": {"url": ""}}},
        ),
        (
            "sample-claim_support",
            {"id": "a", "label": "bad", "category": "c", "input": {"claim": "x", "evidence": [{}]}},
        ),
        (
            "sample-claim_support",
            {
                "id": "a",
                "label": "bad",
                "category": "c",
                "input": {"claim": "x", "evidence": [{"source_id": "d", "text": None}]},
            },
        ),
        ("graded-result", {"task_id": "t", "trial_id": "t-1", "success": 1}),
        ("graded-result", {"task_id": "t", "trial_id": "t-1", "success": None, "tool": "other"}),
        ("grader", {"name": "x", "version": True, "kind": "k", "check": "coverage"}),
        ("set-manifest", {"name": "Bad Name", "version": 1, "check": "coverage", "policy": {}}),
    ],
    ids=[
        "citation without id",
        "empty url",
        "empty evidence",
        "evidence with null text",
        "success 1",
        "extra result field",
        "boolean version",
        "bad set name",
    ],
)
def test_schema_and_model_agree_on_edge_cases(name: str, value: dict[str, Any]) -> None:
    model_ok = _model_accepts(_model(name), value)
    assert model_ok == schemas.validator(name).is_valid(value)


def test_schema_command_documents_validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shape of ``schema --format json`` (the listing, --check stale and current, --write) validates
    against the shipped ``schemas`` schema, and has its one section only."""
    validator = schemas.validator("schemas")  # read from the shipped folder, before it is patched

    def printed(*args: str) -> dict[str, object]:
        _state.run(app, ["schema", *args, "--format", "json", "-q"])
        doc = json.loads(capsys.readouterr().out)
        assert not [e.message for e in validator.iter_errors(doc)], doc
        return doc

    assert list(printed()) == ["schema_version", "type", "schemas"]
    assert printed("--check") == {"schema_version": 1, "type": "schemas", "stale": {}}
    monkeypatch.setattr(schemas, "SCHEMA_DIR", tmp_path)
    (tmp_path / f"retired{schemas.SUFFIX}").write_text("{}", encoding="utf-8")
    stale = printed("--check")["stale"]
    assert stale == {**{n: "missing" for n in schemas.SCHEMAS}, "retired": "not generated"}
    listing = printed()["schemas"]
    assert isinstance(listing, list) and not any(s["up_to_date"] for s in listing)
    assert printed("--write") == {
        "schema_version": 1,
        "type": "schemas",
        "changed": sorted([*schemas.SCHEMAS, "retired"]),
    }
