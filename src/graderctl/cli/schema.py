"""``graderctl schema [NAME] [--write | --check]``: the JSON Schemas of graderctl's file formats."""

from __future__ import annotations

from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, Quiet
from graderctl.errors import ExitCode, UsageError


def schema(
    name: Annotated[str | None, typer.Argument(help="Schema to print (omit to list them).")] = None,
    write: Annotated[
        bool,
        typer.Option("--write", help="Regenerate the schema files shipped in the package from the models."),
    ] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 3 when a shipped schema file differs from the models.")
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", help="Output format of the list.")] = Format.text,
    quiet: Quiet = False,
) -> None:
    """Print or regenerate the JSON Schemas of grader definitions, calibration sets, trials, results and
    reports (generated from the models; shipped in graderctl/schemas/)."""
    from graderctl.models.schemas import SchemasDocument
    from graderctl.store import schemas

    if write and check:
        raise UsageError("--write and --check cannot be used together")
    if name is not None and (write or check):
        raise UsageError("--write and --check act on every schema: give no NAME")
    if name is not None:
        if name not in schemas.SCHEMAS:
            raise UsageError(f"unknown schema {name!r}; known schemas: {', '.join(schemas.names())}")
        typer.echo(schemas.render(schemas.generate_one(name)), nl=False)
        return
    if write:
        changed = schemas.write()
        if not quiet:
            for n in changed:
                _state.err(f"wrote {schemas.schema_path(n)}")
            _state.err(f"{len(changed)} schema file(s) changed" if changed else "schema files are up to date")
        if fmt is Format.json:
            _state.echo_json(SchemasDocument(changed=changed).model_dump(mode="json"))
        return
    if check:
        stale = schemas.stale()
        for n, what in stale.items():
            _state.err(f"{schemas.schema_path(n)}: {what}; run `{schemas.REGENERATE}`")
        if fmt is Format.json:
            _state.echo_json(SchemasDocument(stale=stale).model_dump(mode="json"))
        if stale:
            _state.exit_with(ExitCode.INVALID_INPUT)
        if not quiet:
            _state.err("schema files are up to date")
        return
    if fmt is Format.json:
        _state.echo_json(schemas.listing().model_dump(mode="json"))
        return
    width = max(len(n) for n in schemas.SCHEMAS)
    for n, (_, description) in schemas.SCHEMAS.items():
        typer.echo(f"{n:{width}}  {description}")
