"""The base of the documents graderctl writes (metrics, probe reports, the repeats section): every field
known,
numbers finite, whole numbers kept whole, and optional sections left out unless they were produced."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, WithJsonSchema, model_serializer

#: A JSON number kept as written: an ``int`` stays an ``int``, a ``float`` a ``float`` (``3`` is not ``3.0``).
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


class WrittenModel(BaseModel):
    """A document (or section) graderctl writes. The fields named in ``OPTIONAL`` appear only when they were
    given: an absent section stays absent, and a ``null`` that was produced stays ``null``."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self.OPTIONAL and isinstance(data, dict):
            for name in self.OPTIONAL:
                if name not in self.model_fields_set:
                    data.pop(name, None)
        return data
