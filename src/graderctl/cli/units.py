"""``graderctl units TRIALS [--corpus PATH] [--format text|json]``: what each check would grade, per trial.

Prints, without grading anything, exactly the units ``score`` builds (the same code): the claims with their
citations and quotes, the sources with their normalised URL and DOI, the sentences that state something but
cite nothing, the markers that point to no listed source, and each check's units.

Exit codes: 0 done; 2 bad usage; 3 invalid trials or corpus. ``--format json`` prints exactly one document
``{"schema_version": 1, "type": "units", ...}`` (``graderctl schema units``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Corpus, Format, QuietNotes


def units(
    trials: Annotated[Path, typer.Argument(help="Agent trials (JSON Lines; see README, 'Agent trials').")],
    corpus: Corpus = None,
    fmt: Annotated[Format, typer.Option("--format", help="Output format on stdout.")] = Format.text,
    quiet: QuietNotes = False,
) -> None:
    """Show the units each check would grade in each trial (claims, citations, quotes, sources, uncited
    claims, missing sources), without grading."""
    from graderctl.render.units import render_units_text
    from graderctl.services.units import list_units

    document, notes = list_units(trials, root=_state.root(), corpus_path=corpus)
    if not quiet:
        for note in notes:
            _state.err(f"note: {note}")
    if fmt is Format.json:
        from graderctl.render.units import units_json_chunks

        _state.write_bytes(units_json_chunks(document))
        return
    from graderctl.models.units import UnitsDocument

    typer.echo(render_units_text(UnitsDocument.model_validate(document)), nl=False)
