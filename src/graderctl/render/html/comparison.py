"""The HTML page of ``graderctl compare OLD NEW``: the verdict, per set and stratum the difference in accept
rate with its interval against the equivalence margin, the paired 2×2 tables, the change in each error rate,
the flipped samples with both versions' reasons (searchable), and the replayed trials with pass@k under
both."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graderctl.models.comparison import ComparisonReport
from graderctl.render.compare import verdict_line
from graderctl.render.html import svg
from graderctl.render.html._page import (
    Page,
    banner,
    document,
    esc,
    facts,
    filter_bar,
    fmt_pct,
    status,
    table,
    warnings_list,
)

__all__ = ["comparison_page"]

MAX_REASON = 600
_STRATUM = {"good": "known-good", "bad": "known-bad", "replay": "replayed trials", "decided": "decided"}


def comparison_page(report: ComparisonReport) -> Iterator[str]:
    page = Page()
    doc = report.model_dump(mode="json")
    title = f"Comparison of {report.old.ref} and {report.new.ref}"
    yield from document(title, [_body(page, report, doc, title)])


def _p(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "undefined"
    text = fmt_pct(value)
    return "+" + text if signed and value > 0 else text


def _body(page: Page, report: ComparisonReport, doc: dict[str, Any], title: str) -> str:
    p = page.num
    out = [f"<h1>{esc(title)}</h1>", banner(report.comparable, verdict_line(report))]
    for f in report.failed_strata:
        ids = ", ".join(f"<code>{esc(s)}</code>" for s in f.samples[:20])
        more = f" and {len(f.samples) - 20} more" if len(f.samples) > 20 else ""
        out.append(
            f"<p>✗ {esc(f.set + ' ' if f.set else '')}{esc(_STRATUM.get(f.stratum, f.stratum))}: "
            f"{esc(f.reason)}" + (f"<br>samples: {ids}{more}" if ids else "") + "</p>"
        )
    conf = report.confidence
    out.append(
        facts(
            [
                (
                    "old",
                    f"<code>{esc(report.old.ref)}</code> (kind <code>{esc(report.old.kind)}</code>), "
                    f"<code>{esc(report.old.fingerprint)}</code>",
                ),
                (
                    "new",
                    f"<code>{esc(report.new.ref)}</code> (kind <code>{esc(report.new.kind)}</code>), "
                    f"<code>{esc(report.new.fingerprint)}</code>",
                ),
                ("check", esc(report.check)),
                ("margin", "±" + p(report.margin, "/margin", "pct") + f" ({esc(report.margin_source)})"),
                ("confidence", p(conf, "/confidence", "pct")),
                ("identical definition", "yes" if report.identical_definition else "no"),
                ("created", esc(report.created_at or "unknown")),
            ]
        )
    )
    for i in range(len(report.sets)):
        out.append(_set(page, doc["sets"][i], f"/sets/{i}", report.margin))
    if report.replay is not None:
        out.append(_replay(page, doc["replay"], "/replay", report.margin))
    out.append(warnings_list(page, report.warnings))
    skip = ["/environment", "/replay/flipped"] + [
        f"/sets/{i}/strata/{k}/flipped" for i, s in enumerate(report.sets) for k in s.strata
    ]
    out.append(page.leftovers(doc, "", skip=skip))
    return "".join(out)


def _set(page: Page, s: dict[str, Any], sp: str, margin: float) -> str:
    p = page.num
    out = [f"<h2>Set <code>{esc(s['name'])}</code> (version {p(s['version'], sp + '/version')})</h2>"]
    overall = s.get("overall") or {}
    err = s.get("error_rate") or {}
    out.append(
        facts(
            [
                ("samples", p(s.get("n_samples"), sp + "/n_samples")),
                (
                    "error rate",
                    f"old {p(err.get('old'), sp + '/error_rate/old', 'pct')}, new "
                    f"{p(err.get('new'), sp + '/error_rate/new', 'pct')} (allowed "
                    f"{p(s.get('max_error_rate'), sp + '/max_error_rate', 'pct')})"
                    + (" — exceeded" if s.get("error_rate_exceeded") else ""),
                ),
                (
                    "agreement (both strata)",
                    f"{p(overall.get('agreement'), sp + '/overall/agreement', 'pct')} of "
                    f"{p(overall.get('n'), sp + '/overall/n')} pairs; Cohen's kappa "
                    f"{p(overall.get('kappa'), sp + '/overall/kappa')}",
                ),
            ]
        )
    )
    strata: dict[str, Any] = s.get("strata") or {}
    rows: list[svg.IntervalRow] = []
    words: list[str] = []
    for key, st in strata.items():
        verdict = "✓ within margin" if st.get("within_margin") else "✗ not within margin"
        rows.append(
            svg.IntervalRow(
                label=f"{_STRATUM.get(key, key)} samples",
                value=st.get("diff"),
                low=st.get("decision_ci_low", st.get("ci_low")),
                high=st.get("decision_ci_high", st.get("ci_high")),
                alt_low=st.get("ci_low"),
                alt_high=st.get("ci_high"),
                verdict=verdict,
            )
        )
        words.append(
            f"{_STRATUM.get(key, key)}: difference {_p(st.get('diff'), True)}, decisive interval "
            f"{_p(st.get('decision_ci_low'), True)} to {_p(st.get('decision_ci_high'), True)}: {verdict[2:]}"
        )
    if rows:
        width = max(
            [margin * 2]
            + [abs(v) for r in rows for v in (r.value, r.low, r.high, r.alt_low, r.alt_high) if v is not None]
        )
        top = svg.nice_max(width * 1.1)
        chart = svg.interval_chart(
            rows,
            uid=page.uid("diff"),
            title="Difference in accept rate, NEW − OLD, against the equivalence margin",
            desc=f"Margin ±{fmt_pct(margin)}. " + "; ".join(words) + ".",
            domain=(-top, top),
            band=(-margin, margin),
            band_label=f"equivalence margin ±{fmt_pct(margin)}",
            signed=True,
            interval_label="decisive interval",
            alt_label="Tango interval",
        )
        out.append(
            f"<figure>{chart}<figcaption>Comparable when the decisive interval of every stratum lies "
            "inside the "
            "shaded margin.</figcaption></figure>"
        )
    for key, st in strata.items():
        out.append(_stratum(page, st, f"{sp}/strata/{key}", key))
    flipped = [f for st in strata.values() for f in st.get("flipped") or []]
    out.append(f"<h3>Flipped samples ({len(flipped)})</h3>")
    if flipped:
        tid = page.uid("flips")
        out.append(filter_bar(tid, "Search", [("to-accept", "now accepted"), ("to-reject", "now rejected")]))
        body = []
        for f in flipped:
            old, new = f.get("old") or {}, f.get("new") or {}
            kind = "to-accept" if new.get("accepted") else "to-reject"
            body.append(
                f'<tr data-kind="{kind}"><th scope=row><code>{esc(f.get("id"))}</code></th>'
                f"<td>{esc(f.get('label'))}</td><td>{esc(f.get('category') or '')}</td>"
                f"<td>{_side(old)}</td><td class=reason>{_reason(old)}</td>"
                f"<td>{_side(new)}</td><td class=reason>{_reason(new)}</td></tr>"
            )
        out.append(
            f'<table id="{tid}"><caption>Samples the two versions decided differently, with both '
            "reasons</caption>"
            "<thead><tr><th scope=col>id</th><th scope=col>label</th><th scope=col>category</th>"
            "<th scope=col>OLD</th><th scope=col>OLD's reason</th><th scope=col>NEW</th>"
            "<th scope=col>NEW's reason</th></tr></thead><tbody>" + "".join(body) + "</tbody></table>"
        )
    else:
        out.append("<p>No sample changed outcome.</p>")
    return "".join(out)


def _side(o: dict[str, Any]) -> str:
    if o.get("accepted") is None:
        return "error"
    return "accepted" if o["accepted"] else "rejected"


def _reason(o: dict[str, Any]) -> str:
    text = str(o.get("error") or o.get("reason") or "")
    return esc(text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…")


def _paired(page: Page, t: dict[str, Any], tp: str, caption: str, yes: str, no: str) -> str:
    p = page.num
    return (
        f"<table class=paired><caption>{esc(caption)}</caption><thead><tr><td></td>"
        f"<th scope=col>NEW {yes}</th><th scope=col>NEW {no}</th></tr></thead><tbody>"
        f"<tr><th scope=row>OLD {yes}</th><td class=n>{p(t.get('both_accept'), tp + '/both_accept')}</td>"
        f"<td class=n>{p(t.get('old_accept_new_reject'), tp + '/old_accept_new_reject')} (b)</td></tr>"
        f"<tr><th scope=row>OLD {no}</th><td "
        f"class=n>{p(t.get('old_reject_new_accept'), tp + '/old_reject_new_accept')}"
        f" (c)</td><td class=n>{p(t.get('both_reject'), tp + '/both_reject')}</td></tr></tbody></table>"
    )


def _stratum(page: Page, st: dict[str, Any], sp: str, key: str) -> str:
    p = page.num
    name = _STRATUM.get(key, key)
    out = [f"<h3>{esc(name)} samples</h3>"]
    if st.get("message"):
        out.append(
            f"<p>{status(st.get('comparable'), 'comparable', 'not comparable')}: {esc(st['message'])}</p>"
        )
    out.append(
        _paired(
            page,
            st.get("table") or {},
            sp + "/table",
            f"Paired outcomes, {name} samples",
            "accepts",
            "rejects",
        )
    )
    c = st.get("clustered") or {}
    e = st.get("errors") or {}
    rows = [
        [
            "samples / pairs compared",
            f"{p(st.get('n_samples'), sp + '/n_samples')} / {p(st.get('n'), sp + '/n')}",
        ],
        [
            "errors (old, new, pairs excluded)",
            f"{p(e.get('old'), sp + '/errors/old')}, {p(e.get('new'), sp + '/errors/new')}, "
            f"{p(e.get('excluded'), sp + '/errors/excluded')}",
        ],
        [
            "accept rate OLD → NEW",
            f"{p(st.get('old_accept_rate'), sp + '/old_accept_rate', 'pct')} → "
            f"{p(st.get('new_accept_rate'), sp + '/new_accept_rate', 'pct')}",
        ],
        [
            "difference NEW − OLD",
            p(st.get("diff"), sp + "/diff", "pct", signed=True)
            + f" (flips: b {p(st.get('b'), sp + '/b')}, c {p(st.get('c'), sp + '/c')})",
        ],
        [
            f"{fmt_pct(st.get('confidence') or 0)} interval ({esc(st.get('method', ''))})",
            page.interval(st.get("ci_low"), st.get("ci_high"), sp + "/ci_low", sp + "/ci_high", "pct±"),
        ],
    ]
    if c:
        rows.append(
            [
                f"cluster-bootstrap interval over {p(c.get('n_groups'), sp + '/clustered/n_groups')} groups",
                page.interval(
                    c.get("ci_low"),
                    c.get("ci_high"),
                    sp + "/clustered/ci_low",
                    sp + "/clustered/ci_high",
                    "pct±",
                )
                + f" (difference {p(c.get('diff'), sp + '/clustered/diff', 'pct', signed=True)})",
            ]
        )
    rows += [
        [
            "decisive interval",
            page.interval(
                st.get("decision_ci_low"),
                st.get("decision_ci_high"),
                sp + "/decision_ci_low",
                sp + "/decision_ci_high",
                "pct±",
            )
            + " "
            + status(st.get("within_margin"), "within the margin", "not within the margin"),
        ],
        ["exact McNemar p", p(st.get("mcnemar_p"), sp + "/mcnemar_p", "p")],
        [
            "agreement, Cohen's kappa",
            f"{p(st.get('agreement'), sp + '/agreement', 'pct')}, {p(st.get('kappa'), sp + '/kappa')}",
        ],
        [
            "smallest n that can show the margin",
            p(st.get("min_n_for_margin"), sp + "/min_n_for_margin")
            + " "
            + status(st.get("supports_margin"), "this stratum has it", "this stratum is too small"),
        ],
        ["decided by", esc(str(st.get("decided_by", "")).replace("_", " "))],
    ]
    out.append(table(f"{name}: the equivalence test", ["measure", "value"], rows))
    changes = []
    for rk in ("false_accept_rate", "false_reject_rate"):
        ch = st.get(rk)
        if not ch:
            continue
        rp = f"{sp}/{rk}"
        changes.append(
            [
                esc(rk.replace("_", " ")),
                p(ch.get("old"), rp + "/old", "pct"),
                p(ch.get("new"), rp + "/new", "pct"),
                p(ch.get("change"), rp + "/change", "pct", signed=True),
                page.interval(ch.get("ci_low"), ch.get("ci_high"), rp + "/ci_low", rp + "/ci_high", "pct±"),
                p(ch.get("confidence"), rp + "/confidence", "pct"),
            ]
        )
    if changes:
        out.append(
            table(
                f"{name}: change of the error rate",
                ["rate", "OLD", "NEW", "change", "interval", "confidence"],
                changes,
                numeric=(1, 2, 3, 4, 5),
            )
        )
    return "".join(out)


def _replay(page: Page, r: dict[str, Any], rp: str, margin: float) -> str:
    p = page.num
    out = [f"<h2>Replayed trials: <code>{esc(r.get('results'))}</code></h2>"]
    if r.get("message"):
        out.append(
            f"<p>{status(r.get('comparable'), 'comparable', 'not comparable')}: {esc(r['message'])}</p>"
        )
    e = r.get("errors") or {}
    out.append(
        facts(
            [
                ("trials", esc(r.get("trials") or "as recorded in the results")),
                ("check compared", f"{esc(r.get('check'))} ({esc(r.get('outcome'))})"),
                (
                    "trials, tasks, pairs",
                    f"{p(r.get('n_trials'), rp + '/n_trials')}, {p(r.get('n_tasks'), rp + '/n_tasks')}, "
                    f"{p(r.get('n'), rp + '/n')}",
                ),
                (
                    "errors (old, new, excluded)",
                    f"{p(e.get('old'), rp + '/errors/old')}, {p(e.get('new'), rp + '/errors/new')}, "
                    f"{p(e.get('excluded'), rp + '/errors/excluded')}",
                ),
                (
                    "pass rate OLD → NEW",
                    f"{p(r.get('old_pass_rate'), rp + '/old_pass_rate', 'pct')} → "
                    f"{p(r.get('new_pass_rate'), rp + '/new_pass_rate', 'pct')}",
                ),
                (
                    "difference NEW − OLD",
                    p(r.get("diff"), rp + "/diff", "pct", signed=True)
                    + f", {fmt_pct(r.get('confidence') or 0)} interval "
                    + page.interval(
                        r.get("ci_low"), r.get("ci_high"), rp + "/ci_low", rp + "/ci_high", "pct±"
                    )
                    + f" ({esc(r.get('method', ''))}) "
                    + status(r.get("within_margin"), "within the margin", "not within the margin"),
                ),
                (
                    "McNemar p; agreement; kappa",
                    f"{p(r.get('mcnemar_p'), rp + '/mcnemar_p', 'p')}; "
                    f"{p(r.get('agreement'), rp + '/agreement', 'pct')}; "
                    f"{p(r.get('kappa'), rp + '/kappa')}",
                ),
            ]
        )
    )
    top = svg.nice_max(max(2 * margin, abs(r.get("ci_low") or 0), abs(r.get("ci_high") or 0)) * 1.1)
    chart = svg.interval_chart(
        [
            svg.IntervalRow(
                label="replayed trials",
                value=r.get("diff"),
                low=r.get("ci_low"),
                high=r.get("ci_high"),
                verdict="✓ within margin" if r.get("within_margin") else "✗ not within margin",
            )
        ],
        uid=page.uid("replay"),
        title="Replayed trials: difference in pass rate against the margin",
        desc=f"difference {_p(r.get('diff'), True)}, interval {_p(r.get('ci_low'), True)} to "
        f"{_p(r.get('ci_high'), True)}, margin ±{fmt_pct(margin)}.",
        domain=(-top, top),
        band=(-margin, margin),
        band_label=f"equivalence margin ±{fmt_pct(margin)}",
        signed=True,
        interval_label="interval over tasks",
    )
    out.append(f"<figure>{chart}</figure>")
    out.append(
        _paired(
            page,
            r.get("table") or {},
            rp + "/table",
            "Paired outcomes of the replayed trials",
            "passes",
            "fails",
        )
    )
    ks = r.get("ks") or []
    if ks and r.get("pass_at_k"):
        series = []
        rows = []
        for name, measure in (("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")):
            for side in ("old", "new"):
                values = (r.get(measure) or {}).get(side) or {}
                pts = [(float(k), values[str(k)]) for k in ks if values.get(str(k)) is not None]
                series.append(svg.Series(f"{name} {side.upper()}", pts, _style(measure, side)))
            for k in ks:
                mp = f"{rp}/{measure}"
                rows.append(
                    [
                        f"{name.replace('k', str(k))}",
                        p(((r.get(measure) or {}).get("old") or {}).get(str(k)), f"{mp}/old/{k}", "pct"),
                        p(((r.get(measure) or {}).get("new") or {}).get(str(k)), f"{mp}/new/{k}", "pct"),
                    ]
                )
        chart = svg.line_chart(
            series,
            uid=page.uid("replay-k"),
            title="pass@k and pass^k of the replayed trials under OLD and NEW",
            desc="; ".join(
                f"{s.name}: " + ", ".join(f"k={int(x)} {fmt_pct(y)}" for x, y in s.points) for s in series
            ),
            x_label="k",
            y_label="share of tasks",
            x_domain=(min(ks) - 0.3, max(ks) + 0.3),
            x_ticks=[float(k) for k in ks],
        )
        out.append(f"<figure>{chart}</figure>")
        out.append(
            table("pass@k and pass^k under both versions", ["measure", "OLD", "NEW"], rows, numeric=(1, 2))
        )
    flipped = r.get("flipped") or []
    out.append(f"<h3>Flipped trials ({len(flipped)})</h3>")
    if flipped:
        tid = page.uid("trial-flips")
        out.append(filter_bar(tid, "Search"))
        body = []
        for f in flipped:
            old, new = f.get("old") or {}, f.get("new") or {}
            body.append(
                f"<tr><th scope=row><code>{esc(f.get('trial_id'))}</code></th>"
                f"<td>{esc(f.get('task_id'))}</td>"
                f"<td>{_passed(old)}</td><td class=reason>{_reasons(old)}</td>"
                f"<td>{_passed(new)}</td><td class=reason>{_reasons(new)}</td></tr>"
            )
        out.append(
            f'<table id="{tid}"><caption>Trials the two versions graded differently</caption><thead><tr>'
            "<th scope=col>trial</th><th scope=col>task</th><th scope=col>OLD</th><th scope=col>OLD's "
            "reasons</th>"
            "<th scope=col>NEW</th><th scope=col>NEW's reasons</th></tr></thead><tbody>"
            + "".join(body)
            + "</tbody></table>"
        )
    return "".join(out)


def _style(measure: str, side: str) -> str:
    return {("pass_at_k", "old"): "a", ("pass_at_k", "new"): "b", ("pass_hat_k", "old"): "c"}.get(
        (measure, side), "d"
    )


def _passed(o: dict[str, Any]) -> str:
    value = o.get("passed", o.get("success"))
    return "error" if value is None else ("passed" if value else "failed")


def _reasons(o: dict[str, Any]) -> str:
    reasons = o.get("reasons") or ([o["error"]] if o.get("error") else [])
    text = "; ".join(str(x) for x in reasons)
    return esc(text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…")
