"""The grader-kind contract: every registered kind runs through the same checks (STYLE.md).

One verdict per input in order, well-formed verdicts, determinism, batch independence, empty batches,
config errors (the ``Params`` model and ``load_grader``), schema export and the class attributes the
registry relies on. Fixtures live in ``contract_fixtures.FIXTURES``; the meta-test fails when an
entry-point kind has none.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from tests.kinds.contract_fixtures import (
    FIXTURES,
    Case,
    ContractFixture,
    Environment,
    load_corpus,
    toml_value,
)
from tests.support.fake_openai import FakeOpenAI

from graderctl.errors import InvalidInputError
from graderctl.models.base import Check
from graderctl.plugin import (
    ENTRY_POINT_GROUP,
    GraderKind,
    GradingContext,
    Member,
    Verdict,
    get_kind,
    validate_kind,
)
from graderctl.store.project import load_grader

WHERE = "tests/kinds/contract_fixtures.py (FIXTURES)"

KIND_NAMES = sorted(FIXTURES)
CHECK_CASES = [
    pytest.param(name, check, id=f"{name}-{check.value}")
    for name in KIND_NAMES
    for check in sorted(FIXTURES[name].cases)
]


def entry_point_kinds() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


@pytest.fixture(scope="module")
def env() -> Iterator[Environment]:
    with FakeOpenAI(mode="correct") as server:
        yield Environment(llm_base_url=server.base_url)


def build(name: str, env: Environment, folder: Path) -> GraderKind:
    """A fresh grader of kind ``name`` with its fixture's params, files (in ``folder``) and a fresh corpus."""
    fx = FIXTURES[name]
    folder.mkdir(parents=True, exist_ok=True)
    for src in fx.files:
        shutil.copy(src, folder / src.name)
    kind = get_kind(name)
    params = kind.Params.model_validate(fx.params(env))
    members = [
        Member(f"contract-{k.replace('_', '-')}@1", "sha256:contract", build(k, env, folder / k))
        for k in fx.member_kinds
    ]
    context = GradingContext(
        corpus=load_corpus() if fx.uses_corpus else None,
        judge=fx.judge,
        base_dir=folder,
        members=members,
        extra=dict(fx.extra),
    )
    return kind(params, context)


def grade(name: str, env: Environment, folder: Path, cases: Sequence[Case]) -> list[Verdict]:
    grader = build(name, env, folder)
    try:
        return grader.grade_batch([c.input for c in cases])
    finally:
        grader.close()


def outcome(v: Verdict) -> tuple[Any, ...]:
    return (v.accepted, v.score, v.reason, v.error)


def shown(verdicts: Sequence[Verdict]) -> str:
    return "\n".join(f"  {i}: {outcome(v)}" for i, v in enumerate(verdicts))


# --- grading ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "check"), CHECK_CASES)
def test_one_well_formed_verdict_per_input_in_order(
    name: str, check: Check, env: Environment, tmp_path: Path
) -> None:
    cases = FIXTURES[name].cases[check]
    assert {c.accepted for c in cases} == {True, False}, (
        f"{WHERE}[{name!r}]: give accepted and rejected inputs"
    )
    verdicts = grade(name, env, tmp_path, cases)
    assert isinstance(verdicts, list) and len(verdicts) == len(cases)
    for i, v in enumerate(verdicts):
        assert isinstance(v, Verdict), f"verdict {i} is {type(v).__name__}"
        if v.accepted is None:
            assert isinstance(v.error, str) and v.error.strip(), (
                f"verdict {i}: an error verdict needs `error`"
            )
        else:
            assert isinstance(v.accepted, bool)
            assert v.error is None, f"verdict {i} is both a verdict and an error: {v.error!r}"
            assert isinstance(v.reason, str) and v.reason.strip(), f"verdict {i} has no reason"
        if v.score is not None:
            assert isinstance(v.score, int | float) and math.isfinite(v.score) and 0.0 <= v.score <= 1.0, (
                f"verdict {i}: score {v.score!r} outside [0, 1]"
            )
    # in order: each input gets its own expected verdict
    assert [v.accepted for v in verdicts] == [c.accepted for c in cases], shown(verdicts)


@pytest.mark.parametrize(("name", "check"), CHECK_CASES)
def test_deterministic_across_fresh_instances(
    name: str, check: Check, env: Environment, tmp_path: Path
) -> None:
    cases = FIXTURES[name].cases[check]
    first = grade(name, env, tmp_path / "a", cases)
    second = grade(name, env, tmp_path / "b", cases)
    assert [outcome(v) for v in first] == [outcome(v) for v in second]


@pytest.mark.parametrize(("name", "check"), CHECK_CASES)
def test_batch_independence(name: str, check: Check, env: Environment, tmp_path: Path) -> None:
    cases = list(FIXTURES[name].cases[check])
    grader = build(name, env, tmp_path)
    try:
        together = [outcome(v) for v in grader.grade_batch([c.input for c in cases])]
        alone = [outcome(v) for c in cases for v in grader.grade_batch([c.input])]
        backwards = [outcome(v) for v in grader.grade_batch([c.input for c in reversed(cases)])]
    finally:
        grader.close()
    assert alone == together, "grading one input at a time changed a verdict"
    assert backwards == together[::-1], "grading in reverse order changed a verdict"


@pytest.mark.parametrize("name", KIND_NAMES)
def test_empty_batch(name: str, env: Environment, tmp_path: Path) -> None:
    assert grade(name, env, tmp_path, []) == []


# --- configuration ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", KIND_NAMES)
def test_params_reject_invalid_values_and_unknown_fields(name: str, env: Environment) -> None:
    fx, kind = FIXTURES[name], get_kind(name)
    kind.Params.model_validate(fx.params(env))  # the valid params are valid
    with pytest.raises(ValidationError):
        kind.Params.model_validate(fx.invalid_params)
    with pytest.raises(ValidationError) as info:
        kind.Params.model_validate({**fx.params(env), "no_such_field_xyz": 1})
    assert any(err["loc"] == ("no_such_field_xyz",) for err in info.value.errors())


def write_definition(
    root: Path, name: str, fx: ContractFixture, params: dict[str, Any], env: Environment
) -> Path:
    for member in fx.member_kinds:
        if not (root / "graders" / f"contract-{member.replace('_', '-')}").exists():
            write_definition(root, member, FIXTURES[member], FIXTURES[member].params(env), env)
    grader = f"contract-{name.replace('_', '-')}"
    folder = root / "graders" / grader
    folder.mkdir(parents=True)
    for src in fx.files:
        shutil.copy(src, folder / src.name)
    lines = [
        "schema_version = 1",
        f'name = "{grader}"',
        "version = 1",
        f'kind = "{name}"',
        f'check = "{sorted(fx.cases)[0].value}"',
    ]
    if fx.judge is not None:
        lines += ["[judge]", f'model = "{fx.judge.model}"', f'provider = "{fx.judge.provider}"']
    lines.append("[params]")
    lines += [f"{key} = {toml_value(value)}" for key, value in params.items()]
    path = folder / "v1.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", KIND_NAMES)
def test_load_grader_points_at_bad_params(name: str, env: Environment, tmp_path: Path) -> None:
    fx = FIXTURES[name]
    good = load_grader(
        write_definition(tmp_path / "good", name, fx, fx.params(env), env), root=tmp_path / "good"
    )
    assert good.kind is get_kind(name)
    for n, bad_params in enumerate((fx.invalid_params, {**fx.params(env), "no_such_field_xyz": 1})):
        root = tmp_path / f"bad{n}"
        path = write_definition(root, name, fx, bad_params, env)
        with pytest.raises(InvalidInputError) as info:
            load_grader(path, root=root)
        problems = info.value.problems
        assert problems, "an invalid definition must name its problems"
        assert all(p.pointer.startswith("/params") for p in problems), [p.format() for p in problems]


@pytest.mark.parametrize("name", KIND_NAMES)
def test_params_schema_exports(name: str) -> None:
    schema = get_kind(name).Params.model_json_schema()
    assert isinstance(schema, dict) and isinstance(schema.get("properties"), dict)
    assert json.loads(json.dumps(schema)) == schema


# --- the class ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", KIND_NAMES)
def test_kind_class_contract(name: str) -> None:
    kind = get_kind(name)
    assert validate_kind(kind, f"contract test {name}") is kind
    origin = entry_point_kinds().get(name)
    assert origin is not None, f"{name} is not an entry point of {ENTRY_POINT_GROUP}"
    [ep] = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    assert ep.load() is kind and kind.name == ep.name
    assert isinstance(kind.checks, frozenset) and all(isinstance(c, Check) for c in kind.checks)
    assert isinstance(kind.model_based, bool) and isinstance(kind.cacheable, bool)
    assert isinstance(kind.implementation_version, str) and kind.implementation_version


# --- meta ---------------------------------------------------------------------------------------------


def test_every_entry_point_kind_has_a_contract_fixture() -> None:
    # Restricted to entry points: other test modules register test-only kinds with plugin.register().
    registered = entry_point_kinds()
    assert registered, f"no kinds in the entry-point group {ENTRY_POINT_GROUP}"
    missing = sorted(set(registered) - set(FIXTURES))
    assert not missing, (
        f"grader kind(s) {', '.join(missing)} have no contract fixture; add a ContractFixture for each to "
        f"{WHERE} (valid params, inputs per check with expected verdicts, invalid params)"
    )
    stale = sorted(set(FIXTURES) - set(registered))
    assert not stale, f"{WHERE} has fixtures for kinds that are not registered: {', '.join(stale)}"


@pytest.mark.parametrize("name", KIND_NAMES)
def test_fixture_covers_every_check_of_its_kind(name: str) -> None:
    kind, fx = get_kind(name), FIXTURES[name]
    if kind.checks:
        assert set(fx.cases) == set(kind.checks), (
            f"{WHERE}[{name!r}] gives inputs for {sorted(c.value for c in fx.cases)}; "
            f"the kind grades {sorted(c.value for c in kind.checks)}"
        )
    else:
        assert fx.cases, f"{WHERE}[{name!r}] gives no inputs"
