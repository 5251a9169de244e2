"""Renderings of a ``graderctl tune`` result: the trade-off table, the chosen point, the version written."""

from __future__ import annotations

from graderctl.models.tuning import OperatingPointInfo, TuneResult
from graderctl.render._fmt import pct, table


def _rule(p: OperatingPointInfo, param: str) -> str:
    if p.reject_below == p.accept_at_or_above:
        return f"{param} = {p.accept_at_or_above:.4g}"
    return f"reject below {p.reject_below:.4g}, accept at or above {p.accept_at_or_above:.4g}"


def _row(p: OperatingPointInfo) -> list[str]:
    return [
        f"{p.accept_at_or_above:.4f}",
        f"{p.false_accepts}/{p.bad_decided}",
        pct(p.false_accept_rate),
        pct(p.false_accept_rate_upper_95),
        f"{p.false_rejects}/{p.good_decided}",
        pct(p.false_reject_rate),
        pct(p.false_reject_rate_upper_95),
        "yes" if p.meets else "no",
    ]


def _summary(p: OperatingPointInfo, param: str) -> str:
    text = (
        f"{_rule(p, param)}: false accept {p.false_accepts}/{p.bad_decided} = {pct(p.false_accept_rate)} "
        f"(upper 95% {pct(p.false_accept_rate_upper_95)}), false reject {p.false_rejects}/{p.good_decided} = "
        f"{pct(p.false_reject_rate)} (upper 95% {pct(p.false_reject_rate_upper_95)})"
    )
    if p.undecided or p.reject_below != p.accept_at_or_above:
        text += (
            f", coverage {pct(p.coverage)} (lower 95% {pct(p.coverage_lower_95)}; {p.undecided} undecided)"
        )
    if p.clustered:
        text += (
            f"; with groups: false accept {pct(p.clustered.get('false_accept_rate_upper_95'))}, false reject "
            f"{pct(p.clustered.get('false_reject_rate_upper_95'))} (larger of binomial and cluster bootstrap)"
        )
    return text


def _limits(result: TuneResult) -> str:
    lim = result.limits
    text = (
        f"false accept <= {pct(lim.max_false_accept_rate)}, false reject <= {pct(lim.max_false_reject_rate)}"
    )
    if lim.min_coverage is not None:
        text += f", coverage >= {pct(lim.min_coverage)}"
    return (
        text + f" (one-sided 95% bounds; from the {'set policy' if lim.source == 'policy' else '--target'})"
    )


def render_tune_text(result: TuneResult) -> str:
    g, s = result.grader, result.calibration_set
    out = [
        f"tune {g.name}@{g.version} on the tune split of {s.name}: {result.n_tune} samples "
        f"({s.n_good} good, {s.n_bad} bad graded; {result.errors} errors); {result.n_certify} certify "
        "samples not read",
        f"  limits: {_limits(result)}",
        f"  current: {_summary(result.current, result.param)}",
        "",
        f"  trade-off ({result.param}: accept when the score is at least it)",
    ]
    body = table(
        [result.param, "false acc.", "FAR", "FAR up95", "false rej.", "FRR", "FRR up95", "meets"],
        [_row(p) for p in result.table],
        right=(0, 1, 2, 3, 4, 5, 6),
    )
    out += ["  " + line for line in body.splitlines()]
    out.append("")
    if result.chosen is not None:
        out.append(f"  chosen: {_summary(result.chosen, result.param)}")
    elif result.best is not None:
        out.append("  NO operating point meets the limits on the tune split.")
        out.append(f"  closest: {_summary(result.best, result.param)}")
        out.append("  over the limit by: " + ", ".join(f"{k} {v:.4f}" for k, v in result.best.excess.items()))
    for note in result.notes:
        if not note.startswith("no operating point"):  # said above
            out.append(f"  note: {note}")
    if result.written is not None:
        w = result.written
        out.append(
            f"  wrote {w.path} ({w.ref}, {w.fingerprint[:19]}...)"
            + ("; recorded in graders/graders.lock" if w.locked else "")
        )
        out.append(f"  verdict: graderctl calibrate {w.ref} --set {s.name} --split certify")
    return "\n".join(out) + "\n"


def render_tune_markdown(result: TuneResult) -> str:
    g, s = result.grader, result.calibration_set
    lines = [
        f"# Tuning `{g.name}@{g.version}` on the tune split of `{s.name}`",
        "",
        f"{result.n_tune} tune samples ({s.n_good} good, {s.n_bad} bad graded, "
        f"{result.errors} errors); "
        f"{result.n_certify} certify samples not read. Limits: {_limits(result)}.",
        "",
        f"- Current: {_summary(result.current, result.param)}",
    ]
    if result.chosen is not None:
        lines.append(f"- **Chosen:** {_summary(result.chosen, result.param)}")
    elif result.best is not None:
        lines.append(
            f"- **No operating point meets the limits.** Closest: {_summary(result.best, result.param)}"
        )
    if result.written is not None:
        lines.append(f"- Written: `{result.written.path}` (`{result.written.ref}`)")
    lines += [
        "",
        "| "
        + " | ".join(
            [
                result.param,
                "false accepts",
                "FAR",
                "FAR upper 95%",
                "false rejects",
                "FRR",
                "FRR upper 95%",
                "meets",
            ]
        )
        + " |",
        "|" + "---|" * 8,
    ]
    lines += ["| " + " | ".join(_row(p)) + " |" for p in result.table]
    lines += ["", *[f"- {n}" for n in result.notes]]
    return "\n".join(lines).rstrip() + "\n"


def version_description(result: TuneResult, chosen: OperatingPointInfo, command: str | None) -> str:
    """The paragraph ``tune`` adds to the description of the version it writes: how the operating point was
    chosen, on which samples, against which limits, what it measured, and where the verdict comes from."""
    s = result.calibration_set
    if result.mode == "band":
        rule = (
            f"accept at or above {chosen.accept_at_or_above:g}, reject below {chosen.reject_below:g}, "
            "undecided in between"
        )
    else:
        rule = f"{result.param} = {chosen.accept_at_or_above:g}"
    lim = result.limits
    limits = (
        f"false accept <= {lim.max_false_accept_rate:g} and false reject <= {lim.max_false_reject_rate:g}"
        + (f" and coverage >= {lim.min_coverage:g}" if lim.min_coverage is not None else "")
        + f" (from the set's {'policy' if lim.source == 'policy' else 'tune target'}, one-sided 95% bounds)"
    )
    far = chosen.false_accept_rate_upper_95
    frr = chosen.false_reject_rate_upper_95
    measured = (
        f"false accepts {chosen.false_accepts}/{chosen.bad_decided} (upper 95% "
        f"{far if far is None else round(far, 4)}), "
        f"false rejects {chosen.false_rejects}/{chosen.good_decided} "
        f"(upper 95% {frr if frr is None else round(frr, 4)})"
    )
    if result.mode == "band":
        measured += f", coverage {chosen.good_decided + chosen.bad_decided}/{result.n_tune - result.errors}"
    how = f" ({command})" if command else ""
    return (
        f"Operating point chosen by graderctl tune{how} from {result.grader.name}@{result.grader.version} on "
        f"the tune split of {s.name} v{s.version} ({s.n_good} good, {s.n_bad} bad; "
        f"{result.n_certify} certify samples not read): {rule}, "
        + (
            "the band deciding the most samples within "
            if result.mode == "band"
            else "the lowest false reject rate meeting "
        )
        + f"{limits}. On the tune samples: {measured}. Verdict: graderctl calibrate on the certify split."
    )
