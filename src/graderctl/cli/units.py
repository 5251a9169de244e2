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
from graderctl.cli._options import Corpus, Format, Quiet


def units(
    trials: Annotated[Path, typer.Argument(help="Agent trials (JSON Lines; see README, 'Agent trials').")],
    corpus: Corpus = None,
    fmt: Annotated[Format, typer.Option("--format", help="Output format on stdout.")] = Format.text,
    quiet: Quiet = False,
) -> None:
    """Show the units each check would grade in each trial (claims, citations, quotes, sources, uncited
    claims, missing sources), without grading."""
    from graderctl.render.units import UnitsJsonWriter, render_units_text
    from graderctl.services.units import list_units

    # JSON: each trial encoded as soon as it is built (the bytes are kept, not the dicts), printed at the end
    writer = UnitsJsonWriter() if fmt is Format.json else None
    document, notes = list_units(trials, root=_state.root(), corpus_path=corpus, row_sink=writer)
    if not quiet:
        for note in notes:
            _state.err(f"note: {note}")
    if writer is not None:
        _state.write_bytes(writer.chunks(document))
        return
    typer.echo(render_units_text(document), nl=False)
