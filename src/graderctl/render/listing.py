"""The text rendering of ``graderctl list``, from its listing document (``--format json``)."""

from __future__ import annotations

from graderctl.models.listing import ProjectListing
from graderctl.render._fmt import table

#: How each trust state is shown.
STATE_SHOWN = {
    "trusted": "trusted",
    "not_trusted": "not trusted",
    "stale": "stale",
    "never_calibrated": "never calibrated",
    "invalid_set": "set invalid",
}


def _short(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:12]


def render_listing(doc: ProjectListing) -> str:
    """Graders with their trust on each set of their check, calibration sets, installed grader kinds."""
    grader_rows: list[list[str]] = []
    for g in doc.graders:
        short = _short(g.fingerprint)
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
                    entry.set,
                    STATE_SHOWN[entry.state],
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
            _short(s.fingerprint),
        ]
        for s in doc.sets
    ]
    if set_rows:
        out.append(
            table(["set", "version", "check", "n_good", "n_bad", "fingerprint"], set_rows, right=(1, 3, 4))
        )
    else:
        out.append("(none in calibration_sets/)")
    kind_rows = [
        [
            k.name,
            k.origin,
            ", ".join(k.checks),
            "yes" if k.model_based else "no",
            k.implementation_version,
        ]
        for k in doc.kinds
        if k.error is None
    ]
    out += ["", "Grader kinds (installed; entry-point group graderctl.graders)"]
    out.append(table(["kind", "package", "checks", "model-based", "implementation"], kind_rows))
    return "\n".join(out) + "\n"
