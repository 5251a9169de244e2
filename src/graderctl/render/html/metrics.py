"""The HTML page of ``graderctl metrics``: pass@k and pass^k over k with their intervals, the success rates,
success by category, failures by check and stop reason, cost and cost per success. Drawn from the metrics
JSON document the service produced (the one ``--format json`` prints)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeGuard

from graderctl.render.html import svg
from graderctl.render.html._page import Page, document, esc, facts, fmt_pct, table, warnings_list

__all__ = ["metrics_page"]


def metrics_page(doc: dict[str, Any]) -> Iterator[str]:
    page = Page()
    title = f"Metrics of {(doc.get('results') or {}).get('path', 'graded results')}"
    yield from document(title, [_body(page, doc, title)])


def _num(v: Any) -> TypeGuard[float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _body(page: Page, doc: dict[str, Any], title: str) -> str:
    p = page.num
    out = [f"<h1>{esc(title)}</h1>"]
    null = doc.get("null_trials") or {}
    tpt = doc.get("trials_per_task") or {}
    out.append(
        facts(
            [
                ("results", f"<code>{esc((doc.get('results') or {}).get('path', ''))}</code>"),
                (
                    "tasks, trials",
                    f"{p(doc.get('tasks'), '/tasks')} tasks, {p(doc.get('trials'), '/trials')} trials: "
                    f"{p(doc.get('graded_trials'), '/graded_trials')} graded "
                    f"({p(doc.get('successes'), '/successes')} "
                    f"succeeded, {p(doc.get('failures'), '/failures')} failed), "
                    f"{p(null.get('count', 0), '/null_trials/count')} could not be graded",
                ),
                (
                    "graded trials per task",
                    f"min {p(tpt.get('min'), '/trials_per_task/min')}, median "
                    f"{p(tpt.get('median'), '/trials_per_task/median')}, max "
                    f"{p(tpt.get('max'), '/trials_per_task/max')}",
                ),
                (
                    "weighting",
                    esc((doc.get("weighting") or {}).get("description", "each task weighted equally")),
                ),
            ]
        )
    )
    interval = doc.get("interval") or {}
    level = fmt_pct(interval.get("confidence", 0.95))
    out.append("<h2>pass@k and pass^k over k</h2>")
    out.append(_passk(page, doc, level))
    out.append(
        f"<p class=note>Mean over tasks; {esc(level)} intervals: {esc(interval.get('method', ''))} "
        f"({p(interval.get('n_boot'), '/interval/n_boot')} resamples, seed "
        f"{p(interval.get('seed'), '/interval/seed')}). "
        "pass@k: at least one of k trials succeeds; pass^k: all k do.</p>"
    )
    out.append("<h2>Success rate</h2>")
    out.append(_success(page, doc, level))
    corr = doc.get("grader_error_correction")
    if corr:
        out.append(_correction(page, corr))
    out.append(_categories(page, doc, level))
    out.append(_checks(page, doc))
    out.append(_stops(page, doc))
    out.append(_cost(page, doc))
    combined = doc.get("combined_graders") or {}
    if combined:
        items = []
        for check, v in combined.items():
            graders = ", ".join(
                f"{esc(g.get('grader'))} ({esc(g.get('trials'))} trials)" for g in v.get("graders") or []
            )
            items.append(
                f"<li>{esc(check)}: {graders}; comparable by "
                + ", ".join(f"<code>{esc(r)}</code>" for r in v.get("comparison_reports") or [])
                + "</li>"
            )
        out.append("<h2>Graders combined after a comparison</h2><ul>" + "".join(items) + "</ul>")
    out.append(warnings_list(page, [str(w) for w in doc.get("warnings") or []]))
    out.append(page.leftovers(doc, ""))
    return "".join(out)


def _ci(ci: Any) -> tuple[float | None, float | None]:
    if isinstance(ci, dict):
        return ci.get("low"), ci.get("high")
    return None, None


def _passk(page: Page, doc: dict[str, Any], level: str) -> str:
    p = page.num
    ks: list[int] = [int(k) for k in doc.get("k") or []]
    if not ks:
        return "<p>No k.</p>"
    series = []
    rows = []
    for name, key, style in (("pass@k", "pass_at_k", "a"), ("pass^k", "pass_hat_k", "b")):
        values = doc.get(key) or {}
        cis = doc.get(key + "_ci") or {}
        pts = [(float(k), float(values[str(k)])) for k in ks if _num(values.get(str(k)))]
        errs = []
        for k in ks:
            lo, hi = _ci(cis.get(str(k)))
            if lo is not None and hi is not None:
                errs.append((float(k), float(lo), float(hi)))
        series.append(svg.Series(name, pts, style, errors=errs))
    for k in ks:
        row = [f"{k}"]
        for key in ("pass_at_k", "pass_hat_k"):
            lo, hi = _ci((doc.get(key + "_ci") or {}).get(str(k)))
            exact = (doc.get(key + "_exact") or {}).get(str(k))
            row += [
                p((doc.get(key) or {}).get(str(k)), f"/{key}/{k}", "pct")
                + (f" <span class=note>({esc(exact)})</span>" if exact is not None else ""),
                page.interval(lo, hi, f"/{key}_ci/{k}/low", f"/{key}_ci/{k}/high"),
            ]
        rows.append(row)
    words = "; ".join(
        f"{s.name}: " + ", ".join(f"k={int(x)} {fmt_pct(y)}" for x, y in s.points) for s in series
    )
    chart = svg.line_chart(
        series,
        uid=page.uid("passk"),
        title="pass@k and pass^k over k, with intervals",
        desc=words + f". Bars: {level} intervals.",
        x_label="k (trials per task)",
        y_label="share of tasks",
        x_domain=(min(ks) - 0.4, max(ks) + 0.4),
        x_ticks=[float(k) for k in ks],
    )
    return (
        f"<figure>{chart}<figcaption>pass@k rises with k, pass^k falls; the bars are {esc(level)} "
        "intervals over tasks.</figcaption></figure>"
        + table(
            "pass@k and pass^k",
            ["k", "pass@k (exact)", f"pass@k {level} interval", "pass^k (exact)", f"pass^k {level} interval"],
            rows,
            numeric=(0, 1, 2, 3, 4),
        )
    )


def _success(page: Page, doc: dict[str, Any], level: str) -> str:
    p = page.num
    sr = doc.get("success_rate") or {}
    tw, trw = sr.get("task_weighted") or {}, sr.get("trial_weighted") or {}
    rows = [
        [
            esc(tw.get("label", "task-weighted")),
            p(tw.get("value"), "/success_rate/task_weighted/value", "pct"),
            page.interval(
                tw.get("ci_low"),
                tw.get("ci_high"),
                "/success_rate/task_weighted/ci_low",
                "/success_rate/task_weighted/ci_high",
            ),
        ],
        [
            esc(trw.get("label", "trial-weighted")),
            p(trw.get("value"), "/success_rate/trial_weighted/value", "pct")
            + " ("
            + page.ratio(
                trw.get("successes"),
                trw.get("trials"),
                "/success_rate/trial_weighted/successes",
                "/success_rate/trial_weighted/trials",
            )
            + ")",
            page.interval(
                trw.get("ci_low"),
                trw.get("ci_high"),
                "/success_rate/trial_weighted/ci_low",
                "/success_rate/trial_weighted/ci_high",
            ),
        ],
    ]
    corr = doc.get("grader_error_correction") or {}
    if corr.get("applied"):
        rows.append(
            [
                "corrected for grader error (Rogan–Gladen, trial-weighted)"
                + (" — clipped" if corr.get("clipped") else ""),
                p(corr.get("value"), "/grader_error_correction/value", "pct"),
                page.interval(
                    corr.get("ci_low"),
                    corr.get("ci_high"),
                    "/grader_error_correction/ci_low",
                    "/grader_error_correction/ci_high",
                ),
            ]
        )
    return table("Success rate", ["weighting", "value", f"{level} interval"], rows, numeric=(1, 2))


def _correction(page: Page, corr: dict[str, Any]) -> str:
    p = page.num
    cp = "/grader_error_correction"
    out = ["<h2>Correction for grader error</h2>"]
    if not corr.get("applied"):
        out.append(f"<p>Not applied: {esc(corr.get('why', ''))}</p>")
    else:
        out.append(
            f"<p>Observed (trial-weighted) {p(corr.get('observed'), cp + '/observed', 'pct')} → corrected "
            f"{p(corr.get('value'), cp + '/value', 'pct')}.</p>"
        )
    rows = []
    for key in ("far", "frr"):
        r = corr.get(key) or {}
        if r:
            rows.append(
                [
                    "false accept rate" if key == "far" else "false reject rate",
                    page.ratio(r.get("count"), r.get("n"), f"{cp}/{key}/count", f"{cp}/{key}/n"),
                    p(r.get("value"), f"{cp}/{key}/value", "pct"),
                ]
            )
    for check, rates in (corr.get("by_check") or {}).items():
        for key in ("far", "frr"):
            r = rates.get(key) or {}
            bp = f"{cp}/by_check/{check}/{key}"
            rows.append(
                [
                    f"{esc(check)}: {'false accept' if key == 'far' else 'false reject'} rate",
                    page.ratio(r.get("count"), r.get("n"), bp + "/count", bp + "/n"),
                    p(r.get("value"), bp + "/value", "pct"),
                ]
            )
    if rows:
        out.append(
            table("The graders' error rates used", ["rate", "count / n", "value"], rows, numeric=(1, 2))
        )
    for key in ("approach", "caveat", "flag"):
        if corr.get(key):
            out.append(f"<p class=note>{esc(key)}: {esc(corr[key])}</p>")
    return "".join(out)


def _categories(page: Page, doc: dict[str, Any], level: str) -> str:
    cats: dict[str, Any] = doc.get("categories") or {}
    if not cats:
        return ""
    p = page.num
    bars = []
    rows = []
    for name, v in cats.items():
        cp = f"/categories/{name.replace('~', '~0').replace('/', '~1')}"
        value = v.get("success_rate_task_weighted")
        lo, hi = _ci(v.get("ci"))
        bars.append(
            svg.Bar(
                name,
                [(float(value) if _num(value) else 0.0, "ok")],
                f"{v.get('successes')} of {v.get('trials')} trials succeeded; task-weighted "
                + (fmt_pct(value) if _num(value) else "undefined"),
                lo,
                hi,
            )
        )
        rows.append(
            [
                esc(name),
                p(v.get("tasks"), cp + "/tasks"),
                p(v.get("trials"), cp + "/trials"),
                p(v.get("successes"), cp + "/successes"),
                p(v.get("failures"), cp + "/failures"),
                p(v.get("null"), cp + "/null"),
                p(value, cp + "/success_rate_task_weighted", "pct"),
                p(v.get("success_rate_trial_weighted"), cp + "/success_rate_trial_weighted", "pct"),
                page.interval(lo, hi, cp + "/ci/low", cp + "/ci/high"),
            ]
        )
    chart = svg.bar_chart(
        bars,
        uid=page.uid("cats"),
        title="Success rate by category (task-weighted)",
        desc="; ".join(f"{b.label}: {b.note}" for b in bars),
        legend=[("ok", f"success rate (line: {level} interval)")],
        domain_max=1.0,
    )
    return f"<h2>By category</h2><figure>{chart}</figure>" + table(
        "Success by category",
        [
            "category",
            "tasks",
            "trials",
            "succeeded",
            "failed",
            "null",
            "task-weighted",
            "trial-weighted",
            f"{level} interval",
        ],
        rows,
        numeric=tuple(range(1, 9)),
    )


def _checks(page: Page, doc: dict[str, Any]) -> str:
    checks: dict[str, Any] = doc.get("failures_by_check") or {}
    if not checks:
        return ""
    p = page.num
    bars = []
    rows = []
    for check, v in checks.items():
        cp = f"/failures_by_check/{check}"
        failed, passed, null = (int(v.get(k) or 0) for k in ("failed", "passed", "null"))
        total = failed + passed + null
        bars.append(
            svg.Bar(
                check,
                [(failed / total if total else 0.0, "fa"), (null / total if total else 0.0, "err")],
                f"{failed} failed, {passed} passed, {null} not graded",
            )
        )
        graders = ", ".join(
            f"{esc(g.get('grader'))} ({p(g.get('trials'), f'{cp}/graders/{i}/trials')} trials)"
            for i, g in enumerate(v.get("graders") or [])
        )
        rows.append(
            [
                esc(check),
                p(v.get("failed"), cp + "/failed"),
                p(v.get("passed"), cp + "/passed"),
                p(v.get("null"), cp + "/null"),
                graders,
            ]
        )
    chart = svg.bar_chart(
        bars,
        uid=page.uid("checks"),
        title="Failures by check",
        desc="; ".join(f"{b.label}: {b.note}" for b in bars),
        legend=[("fa", "failed"), ("err", "not graded")],
        domain_max=1.0,
    )
    return f"<h2>Failures by check</h2><figure>{chart}</figure>" + table(
        "Trials by check outcome", ["check", "failed", "passed", "null", "grader(s)"], rows, numeric=(1, 2, 3)
    )


def _stops(page: Page, doc: dict[str, Any]) -> str:
    stops: dict[str, Any] = doc.get("by_stop_reason") or {}
    if not stops:
        return ""
    p = page.num
    rows = []
    for reason, v in stops.items():
        sp = f"/by_stop_reason/{reason.replace('~', '~0').replace('/', '~1')}"
        rows.append(
            [
                esc(reason),
                p(v.get("trials"), sp + "/trials"),
                p(v.get("successes"), sp + "/successes"),
                p(v.get("failures"), sp + "/failures"),
                p(v.get("null"), sp + "/null"),
            ]
        )
    return "<h2>Trials by stop reason</h2>" + table(
        "Trials by stop reason",
        ["stop reason", "trials", "succeeded", "failed", "null"],
        rows,
        numeric=(1, 2, 3, 4),
    )


def _cost(page: Page, doc: dict[str, Any]) -> str:
    cost = doc.get("cost") or {}
    if not cost:
        return ""
    p = page.num
    per = cost.get("cost_per_success") or {}
    rows = [
        [
            "dollars",
            p(cost.get("usd"), "/cost/usd", "usd"),
            p(per.get("usd"), "/cost/cost_per_success/usd", "usd"),
        ],
        [
            "tokens",
            p(cost.get("tokens"), "/cost/tokens"),
            p(per.get("tokens"), "/cost/cost_per_success/tokens"),
        ],
        ["input tokens", p(cost.get("input_tokens"), "/cost/input_tokens"), "—"],
        ["output tokens", p(cost.get("output_tokens"), "/cost/output_tokens"), "—"],
        ["tool calls", p(cost.get("tool_calls"), "/cost/tool_calls"), "—"],
        [
            "wall time (s)",
            p(cost.get("wall_seconds"), "/cost/wall_seconds"),
            p(per.get("wall_seconds"), "/cost/cost_per_success/wall_seconds"),
        ],
    ]
    return (
        f"<h2>Cost ({esc(cost.get('over', 'all trials'))})</h2>"
        + table("Cost and cost per success", ["measure", "total", "per success"], rows, numeric=(1, 2))
        + f"<p>Per success over {p(cost.get('successes'), '/cost/successes')} successful trials. Share of "
        "dollars "
        f"spent on failed trials: {p(cost.get('failed_share_usd'), '/cost/failed_share_usd', 'pct')}; on "
        "ungraded "
        f"trials: {p(cost.get('ungraded_share_usd'), '/cost/ungraded_share_usd', 'pct')}.</p>"
    )
