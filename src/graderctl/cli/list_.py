"""``graderctl list [--format text|json]``: graders with their trust on each set of their check, sets, and
the installed grader kinds (entry points of ``graderctl.graders``, with the package that provides each).

Trust states: ``trusted`` and ``not_trusted`` (recomputed from a current report's outcomes under the set's
policy), ``stale`` (the grader or the set changed since its report, only another version was calibrated, or
the report is not the evidence of a calibration on the set), ``never_calibrated``, ``invalid_set`` (the set
cannot be loaded). A grader is trusted for its check only when it is trusted on every set of the check.
"""

from __future__ import annotations

import typer

from graderctl.cli import _state
from graderctl.cli._options import Format, FormatOption, Quiet
from graderctl.errors import Problem


def list_(
    fmt: FormatOption = Format.text,
    quiet: Quiet = False,
) -> None:
    """List graders (with their trust on each calibration set of their check), calibration sets, and the
    installed grader kinds (built-in and from other packages).

    Trust: trusted / not trusted (recomputed from a current report's outcomes under the set's policy), stale
    (the grader or the set changed since its report, or only another version was calibrated), never
    calibrated, set invalid. A grader is trusted for its check only when trusted on every set of the check.
    """
    from graderctl.store.readers import paused_gc

    # The cyclic garbage collector is paused for the command (it exits next): a listing imports the grader
    # kinds and the trust statistics and reads a large set's labels and a report's outcomes, many long-lived
    # acyclic objects and next to no cyclic garbage; the collector's passes over them were about 0.25 s CPU
    # of a cold `list` of a 100,000-sample set with its report (issue 11 item 21). Peak memory is unchanged.
    with paused_gc():
        _list(fmt, quiet)


def _list(fmt: Format, quiet: bool) -> None:
    from graderctl.render.listing import render_listing
    from graderctl.services.listing import list_project

    root = _state.root()
    listing = list_project(root)
    for problem in [] if quiet else listing.problems:
        _state.err(f"warning: skipped {problem}")
    releases = [Problem(**r.model_dump()) for r in listing.release_problems]
    for release in releases:  # the same problem, message and fix as `graderctl validate`
        _state.err(f"error: {release.format()}")
    if fmt is Format.json:
        _state.echo_json(listing.model_dump(mode="json"))
        _exit_on_release_problems(releases)
        return
    for k in [] if quiet else listing.kinds:
        if k.error is not None:
            _state.err(f"warning: grader kind {k.name!r} cannot be loaded: {k.error}")
    typer.echo(render_listing(listing), nl=False)
    _exit_on_release_problems(releases)


def _exit_on_release_problems(problems: list[Problem]) -> None:
    if problems:
        from graderctl.errors import ExitCode

        _state.exit_with(ExitCode.INVALID_INPUT)
