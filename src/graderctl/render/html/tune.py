"""The HTML page of ``graderctl tune``: the false-accept / false-reject trade-off over the swept threshold on
the tune split (the one-sided 95% upper bounds the policy compares, and the rates at the printed thresholds),
the limits, the grader's current rule and the chosen operating point, and the version written.

Drawn from the tune document (``TuneResult``, the one ``--format json`` prints); nothing is recomputed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeGuard

from graderctl.render.html import svg
from graderctl.render.html._page import Page, banner, document, esc, facts, fmt_float, fmt_pct, status, table

__all__ = ["tune_page"]


def _num(v: Any) -> TypeGuard[float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def tune_page(doc: dict[str, Any]) -> Iterator[str]:
    page = Page()
    g = doc.get("grader") or {}
    s = doc.get("calibration_set") or {}
    title = f"Tuning of {g.get('name')}@{g.get('version')} on {s.get('name')} (tune split)"
    yield from document(title, [_body(page, doc, title)])


def _rule(point: dict[str, Any]) -> str:
    lo, hi = point.get("reject_below"), point.get("accept_at_or_above")
    if lo == hi:
        return f"accept at or above {fmt_float(float(hi))}" if _num(hi) else "—"
    return (
        f"reject below {fmt_float(float(lo)) if _num(lo) else '?'}, accept at or above "
        f"{fmt_float(float(hi)) if _num(hi) else '?'}, undecided between"
    )


def _body(page: Page, doc: dict[str, Any], title: str) -> str:
    p = page.num
    out = [f"<h1>{esc(title)}</h1>"]
    chosen, best = doc.get("chosen"), doc.get("best")
    written = doc.get("written") or {}
    if doc.get("meets_limits") and isinstance(chosen, dict):
        text = f"An operating point meets the limits: {_rule(chosen)}"
        if written:
            text += f"; wrote {written.get('ref')}"
    else:
        text = "No operating point meets the limits" + (
            f"; the closest: {_rule(best)}" if isinstance(best, dict) else ""
        )
    out.append(banner(bool(doc.get("meets_limits")), text))
    limits = doc.get("limits") or {}
    g = doc.get("grader") or {}
    s = doc.get("calibration_set") or {}
    items = [
        (
            "grader",
            f"<code>{esc(g.get('name'))}@{esc(g.get('version'))}</code> (kind "
            f"<code>{esc(g.get('kind'))}</code>)",
        ),
        ("set", f"<code>{esc(s.get('name'))}</code>"),
        ("parameter swept", f"<code>{esc(doc.get('param'))}</code> ({esc(doc.get('mode'))})"),
        (
            "limits (" + esc(limits.get("source", "")) + ")",
            f"false accept ≤ "
            f"{p(limits.get('max_false_accept_rate'), '/limits/max_false_accept_rate', 'pct')}, "
            f"false reject ≤ {p(limits.get('max_false_reject_rate'), '/limits/max_false_reject_rate', 'pct')}"
            + (
                f", coverage ≥ {p(limits.get('min_coverage'), '/limits/min_coverage', 'pct')}"
                if limits.get("min_coverage") is not None
                else ""
            ),
        ),
        (
            "samples",
            f"{p(doc.get('n_tune'), '/n_tune')} in the tune split (graded; "
            f"{p(doc.get('errors'), '/errors')} erred), "
            f"{p(doc.get('n_certify'), '/n_certify')} in the certify split (never read)",
        ),
    ]
    if written:
        items.append(
            (
                "new version",
                f"<code>{esc(written.get('ref'))}</code> at <code>{esc(written.get('path'))}</code>, "
                f"<code>{esc(written.get('fingerprint'))}</code>"
                + (" (recorded in graders.lock)" if written.get("locked") else ""),
            )
        )
    out.append(facts(items))
    out.append("<h2>The trade-off over the threshold</h2>")
    out.append(_chart(page, doc))
    points = [("current rule", "/current", doc.get("current"))]
    if isinstance(chosen, dict):
        points.append(("chosen", "/chosen", chosen))
    if isinstance(best, dict):
        points.append(("closest (does not meet the limits)", "/best", best))
    out.append(_points_table(page, "The grader's current rule and the operating point", points))
    rows = [(f"row {i + 1}", f"/table/{i}", t) for i, t in enumerate(doc.get("table") or [])]
    if rows:
        out.append(_points_table(page, "The trade-off at selected thresholds", rows))
    curve = doc.get("curve") or []
    if curve:
        body = []
        for i, c in enumerate(curve):
            cp = f"/curve/{i}"
            body.append(
                [
                    p(c.get("threshold"), cp + "/threshold"),
                    p(c.get("false_accepts"), cp + "/false_accepts"),
                    p(c.get("false_accept_rate_upper_95"), cp + "/false_accept_rate_upper_95", "pct"),
                    p(c.get("false_rejects"), cp + "/false_rejects"),
                    p(c.get("false_reject_rate_upper_95"), cp + "/false_reject_rate_upper_95", "pct"),
                ]
            )
        out.append(
            "<details><summary>The data of the curve</summary>"
            + table(
                "The curve: counts and upper bounds at each threshold",
                ["threshold", "false accepts", "FAR upper 95%", "false rejects", "FRR upper 95%"],
                body,
                numeric=(0, 1, 2, 3, 4),
            )
            + "</details>"
        )
    notes = [str(n) for n in doc.get("notes") or []]
    if notes:
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    out.append(page.leftovers(doc, "", skip=["/environment"]))
    return "".join(out)


def _chart(page: Page, doc: dict[str, Any]) -> str:
    curve = [c for c in doc.get("curve") or [] if _num(c.get("threshold"))]
    if not curve:
        return "<p>No curve: the tune split has no scored samples.</p>"
    curve.sort(key=lambda c: float(c["threshold"]))
    far_up = [
        (float(c["threshold"]), float(c["false_accept_rate_upper_95"]))
        for c in curve
        if _num(c.get("false_accept_rate_upper_95"))
    ]
    frr_up = [
        (float(c["threshold"]), float(c["false_reject_rate_upper_95"]))
        for c in curve
        if _num(c.get("false_reject_rate_upper_95"))
    ]
    series = [
        svg.Series("FAR upper 95%", far_up, "a", step=True, markers=False),
        svg.Series("FRR upper 95%", frr_up, "b", step=True, markers=False),
    ]
    rows = [t for t in doc.get("table") or [] if _num(t.get("accept_at_or_above"))]
    far_pts = [
        (float(t["accept_at_or_above"]), float(t["false_accept_rate"]))
        for t in rows
        if _num(t.get("false_accept_rate"))
    ]
    frr_pts = [
        (float(t["accept_at_or_above"]), float(t["false_reject_rate"]))
        for t in rows
        if _num(t.get("false_reject_rate"))
    ]
    if far_pts:
        series.append(svg.Series("FAR at row", sorted(far_pts), "c", markers=True))
    if frr_pts:
        series.append(svg.Series("FRR at row", sorted(frr_pts), "d", markers=True))
    limits = doc.get("limits") or {}
    hlines = []
    for key, name in (("max_false_accept_rate", "FAR limit"), ("max_false_reject_rate", "FRR limit")):
        if _num(limits.get(key)):
            hlines.append((float(limits[key]), f"{name} {fmt_pct(float(limits[key]))}"))
    vlines = []
    highlights = []
    words = ["One-sided 95% upper bounds of the false accept and false reject rates over the threshold."]
    current = doc.get("current") or {}
    if _num(current.get("accept_at_or_above")):
        vlines.append(
            (
                float(current["accept_at_or_above"]),
                f"current {fmt_float(float(current['accept_at_or_above']))}",
            )
        )
    chosen = doc.get("chosen") if isinstance(doc.get("chosen"), dict) else doc.get("best")
    if isinstance(chosen, dict) and _num(chosen.get("accept_at_or_above")):
        x = float(chosen["accept_at_or_above"])
        label = "chosen" if doc.get("chosen") else "closest"
        vlines.append((x, f"{label} {fmt_float(x)}"))
        if _num(chosen.get("reject_below")) and chosen["reject_below"] != chosen["accept_at_or_above"]:
            vlines.append(
                (float(chosen["reject_below"]), f"reject below {fmt_float(float(chosen['reject_below']))}")
            )
        for key, name in (("false_accept_rate_upper_95", "FAR ≤"), ("false_reject_rate_upper_95", "FRR ≤")):
            if _num(chosen.get(key)):
                highlights.append((x, float(chosen[key]), f"{name} {fmt_pct(float(chosen[key]))}"))
        far_b, frr_b = chosen.get("false_accept_rate_upper_95"), chosen.get("false_reject_rate_upper_95")
        words.append(
            f"The {label} point, {_rule(chosen)}: false accept rate upper bound "
            f"{fmt_pct(float(far_b)) if _num(far_b) else 'undefined'}, false reject rate upper bound "
            f"{fmt_pct(float(frr_b)) if _num(frr_b) else 'undefined'}."
        )
    xs = [c[0] for c in far_up + frr_up] + [v for v, _ in vlines]
    lo, hi = min(xs), max(xs)
    if lo >= 0 and hi <= 1:
        lo, hi = 0.0, 1.0
    pad = (hi - lo) * 0.02 or 0.5
    chart = svg.line_chart(
        series,
        uid=page.uid("tune"),
        title="False accept and false reject rate bounds over the threshold (tune split)",
        desc=" ".join(words),
        x_label=f"{doc.get('param', 'threshold')} (accept when score ≥ it)",
        y_label="rate (upper 95% bound)",
        x_domain=(lo - pad, hi + pad),
        vlines=vlines,
        hlines=hlines,
        highlights=highlights,
    )
    return (
        f"<figure>{chart}<figcaption>Lines: the one-sided 95% upper bounds the policy compares; markers: the "
        "rates at the thresholds of the table below; circles: the operating point's "
        "bounds.</figcaption></figure>"
    )


def _points_table(page: Page, caption: str, points: list[tuple[str, str, Any]]) -> str:
    p = page.num
    rows = []
    for name, pp, t in points:
        if not isinstance(t, dict):
            continue
        rows.append(
            [
                esc(name),
                p(t.get("reject_below"), pp + "/reject_below"),
                p(t.get("accept_at_or_above"), pp + "/accept_at_or_above"),
                page.ratio(
                    t.get("false_accepts"), t.get("bad_decided"), pp + "/false_accepts", pp + "/bad_decided"
                ),
                p(t.get("false_accept_rate"), pp + "/false_accept_rate", "pct"),
                p(t.get("false_accept_rate_upper_95"), pp + "/false_accept_rate_upper_95", "pct"),
                page.ratio(
                    t.get("false_rejects"), t.get("good_decided"), pp + "/false_rejects", pp + "/good_decided"
                ),
                p(t.get("false_reject_rate"), pp + "/false_reject_rate", "pct"),
                p(t.get("false_reject_rate_upper_95"), pp + "/false_reject_rate_upper_95", "pct"),
                p(t.get("undecided", 0), pp + "/undecided"),
                p(t.get("coverage"), pp + "/coverage", "pct")
                + " (≥ "
                + p(t.get("coverage_lower_95"), pp + "/coverage_lower_95", "pct")
                + ")",
                status(t.get("meets"), "meets", "does not meet", "—"),
            ]
        )
    return table(
        caption,
        [
            "rule",
            "reject below",
            "accept at or above",
            "false accepts",
            "FAR",
            "FAR upper 95%",
            "false rejects",
            "FRR",
            "FRR upper 95%",
            "undecided",
            "coverage (lower 95%)",
            "limits",
        ],
        rows,
        numeric=tuple(range(1, 11)),
    )
