"""What ``graderctl schema --format json`` prints: the registered JSON Schemas (``schemas``), or with
``--write`` the files it changed (``changed``), or with ``--check`` the shipped files that differ from the
models (``stale``). Exactly one of the three is present."""

from __future__ import annotations

from typing import ClassVar, Literal

from graderctl.models._written import WrittenModel

#: Why a shipped schema file is stale.
Staleness = Literal["missing", "differs", "not generated"]


class SchemaEntry(WrittenModel):
    """One registered schema."""

    #: The name ``graderctl schema NAME`` prints it by.
    name: str
    #: The shipped file (``graderctl/schemas/<name>.schema.json``).
    file: str
    #: The pydantic model it is generated from (``module.Qualname``).
    model: str
    description: str
    #: The shipped file is what the model generates now.
    up_to_date: bool


class SchemasDocument(WrittenModel):
    """The schema listing, or what ``--write`` changed, or what ``--check`` found stale."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ("changed", "stale", "schemas")
    schema_version: Literal[1] = 1
    type: Literal["schemas"] = "schemas"
    #: ``--write``: the schema files written or removed, by name.
    changed: list[str] | None = None
    #: ``--check``: each stale shipped file, by name, and why.
    stale: dict[str, Staleness] | None = None
    #: Every registered schema (no option).
    schemas: list[SchemaEntry] | None = None


__all__ = ["SchemaEntry", "SchemasDocument", "Staleness"]
