"""``graderctl list [--format text|json]``: graders with their trust on each set of their check, sets, and
the installed grader kinds (entry points of ``graderctl.graders``, with the package that provides each).

Trust states: ``trusted`` and ``not_trusted`` (recomputed from a current report's outcomes under the set's
policy), ``stale`` (the grader or the set changed since its report, only another version was calibrated, or
the report is not the evidence of a calibration on the set), ``never_calibrated``, ``invalid_set`` (the set
cannot be loaded). A grader is trusted for its check only when it is trusted on every set of the check.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.errors import Problem


class Format(StrEnum):
    text = "text"
    json = "json"


_STATE_SHOWN = {
    "trusted": "trusted",
    "not_trusted": "not trusted",
    "stale": "stale",
    "never_calibrated": "never calibrated",
    "invalid_set": "set invalid",
}


def list_(
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.text,
) -> None:
    """List graders (with their trust on each calibration set of their check), calibration sets, and the
    installed grader kinds (built-in and from other packages).

    Trust: trusted / not trusted (recomputed from a current report's outcomes under the set's policy), stale
    (the grader or the set changed since its report, or only another version was calibrated), never
    calibrated, set invalid. A grader is trusted for its check only when trusted on every set of the check.
    """
    from graderctl.render.text import table
    from graderctl.services.listing import list_project

    root = _state.root()
    listing = list_project(root)
    for problem in listing.problems:
        _state.err(f"warning: skipped {problem}")
    for release in listing.release_problems:  # the same problem, message and fix as `graderctl validate`
        _state.err(f"error: {release.format()}")
    if fmt is Format.json:
        _state.echo_json(listing.to_dict())
        _exit_on_release_problems(listing.release_problems)
        return
    grader_rows: list[list[str]] = []
    for g in listing.graders:
        short = g.fingerprint.removeprefix("sha256:")[:12]
        if not g.trust:
            grader_rows.append([g.ref, g.kind, g.check, short, "-", "no set of this check"])
        for i, entry in enumerate(g.trust):
            first = i == 0
            grader_rows.append(
                [
                    g.ref if first else "",
                    g.kind if first else "",
                    g.check if first else "",
                    short if first else "",
                    entry.set_name,
                    _STATE_SHOWN[entry.state.value],
                ]
            )
    out = ["Graders"]
    if grader_rows:
        out.append(table(["grader", "kind", "check", "fingerprint", "set", "trust"], grader_rows))
    else:
        out.append("(none in graders/)")
    out += ["", "Calibration sets"]
    set_rows = [
        [
            s.name,
            str(s.version),
            s.check,
            str(s.n_good),
            str(s.n_bad),
            s.fingerprint.removeprefix("sha256:")[:12],
        ]
        for s in listing.sets
    ]
    if set_rows:
        out.append(
            table(["set", "version", "check", "n_good", "n_bad", "fingerprint"], set_rows, right=(1, 3, 4))
        )
    else:
        out.append("(none in calibration_sets/)")
    kind_rows = [
        [k.name, k.origin, ", ".join(k.checks), "yes" if k.model_based else "no", k.implementation_version]
        for k in listing.kinds
        if k.error is None
    ]
    out += ["", "Grader kinds (installed; entry-point group graderctl.graders)"]
    out.append(table(["kind", "package", "checks", "model-based", "implementation"], kind_rows))
    for k in listing.kinds:
        if k.error is not None:
            _state.err(f"warning: grader kind {k.name!r} cannot be loaded: {k.error}")
    typer.echo("\n".join(out))
    _exit_on_release_problems(listing.release_problems)


def _exit_on_release_problems(problems: list[Problem]) -> None:
    if problems:
        from graderctl.errors import ExitCode

        _state.exit_with(ExitCode.INVALID_INPUT)
