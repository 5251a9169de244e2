"""``graderctl units TRIALS [--corpus PATH] [--format text|json]``: what each check would grade, per trial.

Prints, without grading anything, exactly the units ``score`` builds (the same code): the claims with their
citations and quotes, the sources with their normalised URL and DOI, the sentences that state something but
cite nothing, the markers that point to no listed source, and each check's units.

Exit codes: 0 done; 2 bad usage; 3 invalid trials or corpus. ``--format json`` prints exactly one document
``{"schema_version": 1, "type": "units", ...}`` (``graderctl schema units``). When stdout is a regular file
(``> units.json``, ``>> all.json``), the trials are written into it as they are made, so memory stays flat
however many there are; the summary, which comes first, is put in front at the end (the trials written are
moved up to make room). If the command fails or is interrupted before the document is complete, the file is
cut back to what it held before the command (then an error document is printed as usual). Into a pipe or a
terminal the document is printed whole at the end. The bytes are the same either way.
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
    claims, missing sources), without grading.

    With --format json and stdout a file (> units.json), the trials are written as they are made (memory
    stays flat); a failure or Ctrl-C leaves the file as it was before the command."""
    from graderctl.render.units import UnitsJsonWriter, render_units_text
    from graderctl.services.units import list_units

    if fmt is not Format.json:
        document, notes = list_units(trials, root=_state.root(), corpus_path=corpus)
        _notes(notes, quiet)
        typer.echo(render_units_text(document), nl=False)
        return
    # JSON: each trial encoded as soon as it is built (its dicts dropped at once); into a file on stdout the
    # bytes are written at once too, else they are kept and printed at the end
    with _state.stdout_document() as into_file:
        writer = UnitsJsonWriter(None if into_file is None else into_file.write)
        document, notes = list_units(trials, root=_state.root(), corpus_path=corpus, row_sink=writer)
        _notes(notes, quiet)
        if into_file is None:
            _state.write_bytes(writer.chunks(document))
        else:
            writer.flush()
            into_file.finish(writer.head(document), writer.TAIL)


def _notes(notes: list[str], quiet: bool) -> None:
    if not quiet:
        for note in notes:
            _state.err(f"note: {note}")
