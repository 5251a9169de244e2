"""The units document is built of msgspec Structs (``graderctl.models.units_data``) and published through
the pydantic models it mirrors (``graderctl.models.units``, ``graderctl.models.calset``; the shipped JSON
Schema is generated from them): the two must stay the same document, class for class and field for field,
in order (the order of the fields is the order of the printed keys)."""

from __future__ import annotations

import msgspec
import pytest
from pydantic import BaseModel

from graderctl.models import calset, units, units_data

STRUCTS = [
    obj
    for obj in vars(units_data).values()
    if isinstance(obj, type) and issubclass(obj, msgspec.Struct) and obj.__module__ == units_data.__name__
]


def _model(name: str) -> type[BaseModel]:
    model = getattr(units, name, None) or getattr(calset, name)
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model


def test_every_model_of_the_document_has_its_struct() -> None:
    names = {s.__name__ for s in STRUCTS}
    mine = {
        name
        for name, obj in vars(units).items()
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == units.__name__
    }
    assert mine <= names, f"models of the units document without a Struct: {sorted(mine - names)}"


@pytest.mark.parametrize("struct", STRUCTS, ids=lambda s: s.__name__)
def test_struct_has_the_fields_of_its_model_in_order(struct: type[msgspec.Struct]) -> None:
    model = _model(struct.__name__)
    assert struct.__struct_fields__ == tuple(model.model_fields), (
        f"{struct.__module__}.{struct.__name__} and {model.__module__}.{model.__name__} differ: "
        "change both (and run `graderctl schema --write`)"
    )
