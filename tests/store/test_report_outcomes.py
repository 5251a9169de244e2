"""``read_report_outcomes`` (what ``list`` reads of a report) against ``read_report`` (the model, whole): the
same reports refused with the same error, and for the others the same head and the same outcomes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graderctl.errors import InvalidInputError
from graderctl.store.report_outcomes import read_report_outcomes
from graderctl.store.reports import read_report

SHIPPED = Path(__file__).resolve().parents[2] / "reports" / "claim-support-core" / "claim-support@1.json"


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


_DELETE = object()

CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "none": lambda doc: None,
    "forged-trusted": _set(("trusted",), True),
    "trusted-string": _set(("trusted",), "true"),
    "accepted-yes": _set(("samples", 1, "accepted"), "yes"),
    "accepted-int": _set(("samples", 1, "accepted"), 1),
    "accepted-float": _set(("samples", 1, "accepted"), 1.0),
    "accepted-missing": _set(("samples", 1, "accepted"), _DELETE),
    "accepted-null": _set(("samples", 1, "accepted"), None),
    "label-case": _set(("samples", 0, "label"), "GOOD"),
    "label-swapped": _set(("samples", 0, "label"), "bad"),
    "id-int": _set(("samples", 0, "id"), 7),
    "id-missing": _set(("samples", 0, "id"), _DELETE),
    "score-int": _set(("samples", 2, "score"), 1),
    "score-string": _set(("samples", 2, "score"), "0.5"),
    "score-bool": _set(("samples", 2, "score"), True),
    "score-huge": _set(("samples", 2, "score"), 10**400),
    "group-int": _set(("samples", 0, "group"), 3),
    "undecided-string": _set(("samples", 0, "undecided"), "false"),
    "undecided-true": _set(("samples", 0, "undecided"), True),
    "details": _set(("samples", 0, "details"), {"a": [[{"b": None}]]}),
    "details-list": _set(("samples", 0, "details"), [1]),
    "extra-field": _set(("samples", 5, "whatever"), {"x": [1, None]}),
    "usage": _set(("samples", 0, "usage"), {"input_tokens": 3, "usd": 0.5, "cached": True}),
    "usage-float-tokens": _set(("samples", 0, "usage"), {"input_tokens": 3.0}),
    "usage-string": _set(("samples", 0, "usage"), {"usd": "1"}),
    "reason-null": _set(("samples", 0, "reason"), None),
    "sample-not-object": _set(("samples", 0), "x"),
    "samples-null": _set(("samples",), None),
    "samples-missing": _set(("samples",), _DELETE),
    "head-invalid": _set(("policy", "max_false_accept_rate"), "high"),
    "head-missing": _set(("false_reject_rate",), _DELETE),
    "errors-string": _set(("errors",), "0"),
    "newer-schema": _set(("schema_version",), 2),
    "other-type": _set(("type",), "comparison"),
    "extra-head": _set(("anything",), [1, 2]),
}


def _write(tmp_path: Path, doc: Any, text: str | None = None) -> Path:
    path = tmp_path / "r.json"
    path.write_text(text if text is not None else json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _same(path: Path, root: Path) -> None:
    try:
        whole = read_report(path, root=root)
    except InvalidInputError as exc:
        with pytest.raises(InvalidInputError) as raised:
            read_report_outcomes(path, root=root)
        assert str(raised.value) == str(exc)
        assert [p.to_dict() for p in raised.value.problems] == [p.to_dict() for p in exc.problems]
        return
    head, outcomes = read_report_outcomes(path, root=root)
    assert head.model_dump(exclude={"samples"}) == whole.model_dump(exclude={"samples"})
    got = head.samples if outcomes is None else outcomes
    fields = ("id", "label", "accepted", "group", "undecided")
    assert [tuple(getattr(o, f) for f in fields) for o in got] == [
        tuple(getattr(o, f) for f in fields) for o in whole.samples
    ]


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped report is not in this checkout")
@pytest.mark.parametrize("name", list(CHANGES))
def test_read_alike(tmp_path: Path, name: str) -> None:
    doc = json.loads(SHIPPED.read_text(encoding="utf-8"))
    changed = copy.deepcopy(doc)
    CHANGES[name](changed)
    _same(_write(tmp_path, changed), tmp_path)


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped report is not in this checkout")
@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.replace('"score": ', '"score": NaN, "x": ', 1), id="nan"),
        pytest.param(lambda t: t.replace('"reason": ', '"reason": 1e400, "r": ', 1), id="infinite-extra"),
        pytest.param(lambda t: t.replace('"errors": ', '"errors": Infinity, "e": ', 1), id="infinity"),
        pytest.param(lambda t: t[:-40], id="truncated"),
        pytest.param(lambda t: t.replace('"id": ', '"id": "dup", "id": ', 1), id="duplicate-key"),
        pytest.param(
            lambda t: t.replace('"group": ', '"deep": ' + "[" * 5000 + "]" * 5000 + ', "group": ', 1),
            id="deep",
        ),
        pytest.param(lambda t: "\ufeff" + t, id="bom"),
    ],
)
def test_read_alike_raw(tmp_path: Path, edit: Callable[[str], str]) -> None:
    text = edit(SHIPPED.read_text(encoding="utf-8"))
    _same(_write(tmp_path, None, text), tmp_path)


def test_fast_path_is_taken(tmp_path: Path) -> None:
    if not SHIPPED.is_file():
        pytest.skip("the shipped report is not in this checkout")
    head, outcomes = read_report_outcomes(SHIPPED)
    assert outcomes is not None and not head.samples
    assert len(outcomes) == len(read_report(SHIPPED).samples)
