"""The HTML page of a calibration run: the verdict, the two error rates with their intervals against the
policy limits, the false-accept / false-reject trade-off over the score threshold, the categories and
generator models that fail, and every misclassified sample with the grader's reason (searchable)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from graderctl.models.reports import CalibrationReport, SampleOutcome
from graderctl.render.html import svg
from graderctl.render.html._page import (
    Page,
    banner,
    document,
    esc,
    facts,
    filter_bar,
    fmt_float,
    fmt_pct,
    join,
    status,
    table,
    warnings_list,
)

__all__ = ["MAX_REASON", "MAX_ROWS", "calibration_page", "calibration_section"]

#: At most this many misclassified (and, apart, erred) samples are listed; the JSON report has them all.
MAX_ROWS = 5000
#: Reasons longer than this are cut (the JSON report has them whole).
MAX_REASON = 600
#: The threshold curve is drawn through at most this many points.
MAX_CURVE_POINTS = 400

_RATES = (
    ("false_accept_rate", "false accept rate", "known-bad accepted"),
    ("false_reject_rate", "false reject rate", "known-good rejected"),
)


def calibration_page(
    reports: Sequence[CalibrationReport], failures: Sequence[dict[str, str]] = ()
) -> Iterator[str]:
    """One page for a calibration run: one report, or several (pointers then follow the batch document
    ``{"type": "calibration_batch", "reports": [...]}`` that ``--format json`` prints)."""
    page = Page()
    if len(reports) == 1 and not failures:
        r = reports[0]
        title = f"Calibration of {r.grader.name}@{r.grader.version} on {r.calibration_set.name}"
        yield from document(title, [calibration_section(page, r, "", level=1)])
        return
    title = f"Calibration of {len(reports)} grader × set pair(s)"

    def body() -> Iterator[str]:
        yield f"<h1>{esc(title)}</h1>"
        rows = [
            [
                f'<a href="#r{i}">{esc(r.grader.name)}@{r.grader.version}</a>',
                esc(r.calibration_set.name),
                status(r.trusted, "trusted", "not trusted"),
            ]
            for i, r in enumerate(reports)
        ]
        rows += [
            [esc(f["grader"]), esc(f["set"]), status(False, "", "could not run: " + f["error"])]
            for f in failures
        ]
        yield table("Reports in this run", ["grader", "set", "verdict"], rows)
        for i, r in enumerate(reports):
            yield f'<section class=report id="r{i}">'
            yield calibration_section(page, r, f"/reports/{i}", level=2)
            yield "</section>"

    yield from document(title, body())


def calibration_section(page: Page, report: CalibrationReport, base: str, *, level: int = 1) -> str:
    """The body of one report; ``base`` is its JSON pointer in the printed document."""
    g, s = report.grader, report.calibration_set
    h1, h2 = f"h{level}", f"h{level + 1}"
    doc = report.model_dump(mode="json", exclude={"samples"})
    p = page.num
    out: list[str] = [
        f"<{h1}>Calibration of <code>{esc(g.name)}@{g.version}</code> on <code>{esc(s.name)}</code> "
        f"(version {p(s.version, join(base, 'calibration_set', 'version'))})</{h1}>"
    ]
    out.append(banner(report.trusted, _verdict(report)))
    failed = [c for c in report.policy_checks if not c.passed]
    if failed:
        out.append("<ul>" + "".join(f"<li>{esc(c.message)}</li>" for c in failed) + "</ul>")
    out.append(
        facts(
            [
                ("grader", f"<code>{esc(g.name)}@{g.version}</code> (kind <code>{esc(g.kind)}</code>)"),
                ("grader fingerprint", f"<code>{esc(g.fingerprint)}</code>"),
                ("calibration set", f"<code>{esc(s.name)}</code>"),
                ("set fingerprint", f"<code>{esc(s.fingerprint)}</code>"),
                (
                    "samples",
                    f"{p(s.n_good, join(base, 'calibration_set', 'n_good'))} known-good, "
                    f"{p(s.n_bad, join(base, 'calibration_set', 'n_bad'))} known-bad; "
                    f"{p(report.n_graded, join(base, 'n_graded'))} graded, "
                    f"{p(report.errors, join(base, 'errors'))} could not be graded",
                ),
                (
                    "created",
                    esc(report.created_at or "unknown")
                    + f" by graderctl {esc(report.graderctl_version or '?')}",
                ),
            ]
        )
    )
    out.append(
        '<nav class=toc aria-label="Sections"><ul>'
        + "".join(
            f'<li><a href="#{a}{base.replace("/", "-")}">{t}</a></li>'
            for a, t in (
                ("rates", "Error rates"),
                ("curve", "Threshold curve"),
                ("cats", "Categories"),
                ("gens", "Generators"),
                ("wrong", "Misclassified samples"),
            )
        )
        + "</ul></nav>"
    )
    anchor = base.replace("/", "-")

    # error rates against the policy
    out.append(f'<{h2} id="rates{anchor}">Error rates against the policy</{h2}>')
    out.append(_rates_chart(page, report))
    out.append(_rates_table(page, report, base))
    if report.policy_checks:
        rows = []
        for i, c in enumerate(report.policy_checks):
            cp = join(base, "policy_checks", i)
            rows.append(
                [
                    esc(c.name.replace("_", " ")),
                    f"<code>{esc(c.bound)}</code>",
                    p(c.observed, cp + "/observed", "pct"),
                    "≤ " + p(c.limit, cp + "/limit", "pct"),
                    status(c.passed, "within", "over"),
                    p(c.excess, cp + "/excess", "pct") if c.excess is not None else "",
                ]
            )
        out.append(
            table(
                "The trust decision: each bound against its limit",
                ["rate", "bound compared", "observed", "limit", "result", "over by"],
                rows,
                numeric=(2, 3, 5),
            )
        )
    out.append(
        "<p class=note>Intervals are two-sided 95% Wilson intervals; the upper bound is the one-sided 95% "
        "Clopper-Pearson bound the policy compares (with grouped samples: the larger of it and the "
        "cluster-bootstrap bound). Samples the grader could not grade count in neither rate.</p>"
    )

    # threshold curve
    out.append(f'<{h2} id="curve{anchor}">False accepts and false rejects over the score threshold</{h2}>')
    out.append(_curve(page, report))

    # categories and generators
    out.append(f'<{h2} id="cats{anchor}">By category</{h2}>')
    out.append(_breakdown(page, report, "by_category", "category", base, doc))
    out.append(f'<{h2} id="gens{anchor}">By generator model</{h2}>')
    out.append(_breakdown(page, report, "by_generator", "generator", base, doc))

    # samples
    out.append(f'<{h2} id="wrong{anchor}">Misclassified samples</{h2}>')
    out.append(_samples(page, report, base))

    if report.cascade is not None:
        out.append(_cascade(page, doc.get("cascade") or {}, join(base, "cascade"), h2))
    out.append(_advice(page, report, base, h2))
    if report.repeats:
        out.append(_repeats(page, report.repeats.model_dump(), join(base, "repeats"), h2))
    if report.agreement:
        a = report.agreement
        ap = join(base, "agreement")
        out.append(
            f"<{h2}>Agreement between labellers</{h2}><p>{esc(a.method)}: "
            f"{p(a.value, ap + '/value')} over {p(a.n_units, ap + '/n_units')} samples "
            f"(labellers: {esc(', '.join(map(str, a.labellers)))}); "
            f"{p(a.n_contested, ap + '/n_contested')} contested.</p>"
        )
    out.append(warnings_list(page, report.warnings))
    out.append(
        f"<{h2}>Policy of the set</{h2}>"
        + facts(
            [
                (
                    "false accept rate",
                    "≤ "
                    + p(
                        report.policy.max_false_accept_rate,
                        join(base, "policy", "max_false_accept_rate"),
                        "pct",
                    ),
                ),
                (
                    "false reject rate",
                    "≤ "
                    + p(
                        report.policy.max_false_reject_rate,
                        join(base, "policy", "max_false_reject_rate"),
                        "pct",
                    ),
                ),
                (
                    "error rate",
                    "≤ " + p(report.policy.max_error_rate, join(base, "policy", "max_error_rate"), "pct"),
                ),
                *(
                    [
                        (
                            "coverage (share decided)",
                            "≥ " + p(report.policy.min_coverage, join(base, "policy", "min_coverage"), "pct"),
                        )
                    ]
                    if report.policy.min_coverage is not None
                    else []
                ),
            ]
        )
    )
    out.append(page.leftovers(doc, base, skip=[join(base, "environment")]))
    return "".join(out)


def _verdict(report: CalibrationReport) -> str:
    if report.trusted:
        return "TRUSTED: the grader meets the set's policy"
    failed = [c.name.replace("_", " ") for c in report.policy_checks if not c.passed]
    return f"NOT TRUSTED: {', '.join(failed) or 'the policy'} not within the policy"


def _check(report: CalibrationReport, name: str) -> Any:
    return next((c for c in report.policy_checks if c.name == name), None)


def _rates_chart(page: Page, report: CalibrationReport) -> str:
    rows: list[svg.IntervalRow] = []
    words: list[str] = []
    for key, label, _ in _RATES:
        rate = getattr(report, key)
        check = _check(report, key)
        limit = getattr(report.policy, "max_" + key)
        c = rate.clustered
        verdict = "" if check is None else ("✓ within limit" if check.passed else "✗ over limit")
        rows.append(
            svg.IntervalRow(
                label=f"{label} ({rate.count}/{rate.n})",
                value=rate.value,
                low=rate.ci_low,
                high=rate.ci_high,
                upper=rate.upper_95,
                alt_low=c.ci_low if c else None,
                alt_high=c.ci_high if c else None,
                limit=limit,
                verdict=verdict,
            )
        )
        words.append(
            f"{label}: {_p(rate.value)} ({rate.count} of {rate.n}), 95% interval {_p(rate.ci_low)} to "
            f"{_p(rate.ci_high)}, upper bound {_p(rate.upper_95)}, limit {_p(limit)}"
            + (f": {verdict[2:]}" if verdict else "")
        )
    if report.error_rate is not None:
        check = _check(report, "error_rate")
        verdict = "" if check is None else ("✓ within limit" if check.passed else "✗ over limit")
        rows.append(
            svg.IntervalRow(
                label="error rate (could not grade)",
                value=report.error_rate,
                low=None,
                high=None,
                limit=report.policy.max_error_rate,
                verdict=verdict,
            )
        )
        words.append(f"error rate {_p(report.error_rate)}, limit {_p(report.policy.max_error_rate)}")
    cov = report.coverage
    if cov is not None:
        check = _check(report, "coverage")
        verdict = "" if check is None else ("✓ within limit" if check.passed else "✗ under minimum")
        rows.append(
            svg.IntervalRow(
                label=f"coverage (decided {cov.decided}/{cov.n})",
                value=cov.value,
                low=cov.ci_low,
                high=cov.ci_high,
                upper=cov.lower_95,
                limit=report.policy.min_coverage,
                verdict=verdict,
            )
        )
        words.append(
            f"coverage (share decided) {_p(cov.value)}, lower bound {_p(cov.lower_95)}"
            + (
                f", minimum {_p(report.policy.min_coverage)}"
                if report.policy.min_coverage is not None
                else ""
            )
        )
    chart = svg.interval_chart(
        rows,
        uid=page.uid("rates"),
        title="Error rates with their intervals against the policy limits",
        desc="; ".join(words) + ".",
        alt_label="cluster-bootstrap interval",
        upper_label="one-sided 95% bound" if cov is not None else "one-sided upper 95% bound",
    )
    return (
        f"<figure>{chart}<figcaption>Each rate with its 95% interval, its upper bound and the policy "
        "limit.</figcaption></figure>"
    )


def _p(value: float | None) -> str:
    return "undefined" if value is None else fmt_pct(value)


def _rates_table(page: Page, report: CalibrationReport, base: str) -> str:
    p = page.num
    rows = []
    for key, label, what in _RATES:
        rate = getattr(report, key)
        rp = join(base, key)
        c = rate.clustered
        check = _check(report, key)
        rows.append(
            [
                f"{esc(label)}<br><span class=note>{esc(what)}</span>",
                page.ratio(rate.count, rate.n, rp + "/count", rp + "/n"),
                p(rate.value, rp + "/value", "pct"),
                page.interval(rate.ci_low, rate.ci_high, rp + "/ci_low", rp + "/ci_high"),
                p(rate.upper_95, rp + "/upper_95", "pct"),
                (
                    page.interval(c.ci_low, c.ci_high, rp + "/clustered/ci_low", rp + "/clustered/ci_high")
                    + f"; upper {p(c.upper_95, rp + '/clustered/upper_95', 'pct')}; "
                    f"design effect {p(c.design_effect, rp + '/clustered/design_effect')} over "
                    f"{p(c.n_groups, rp + '/clustered/n_groups')} groups"
                )
                if c
                else "—",
                "≤ " + p(getattr(report.policy, "max_" + key), join(base, "policy", "max_" + key), "pct"),
                status(None if check is None else check.passed, "within", "over", "not checked"),
            ]
        )
    total = report.errors + (report.n_graded or 0)
    check = _check(report, "error_rate")
    rows.append(
        [
            "error rate<br><span class=note>could not grade</span>",
            f"{p(report.errors, join(base, 'errors'))}&#8239;/&#8239;{total:,}",
            p(report.error_rate, join(base, "error_rate"), "pct"),
            "—",
            "—",
            "—",
            "≤ " + p(report.policy.max_error_rate, join(base, "policy", "max_error_rate"), "pct"),
            status(None if check is None else check.passed, "within", "over", "not checked"),
        ]
    )
    cov = report.coverage
    if cov is not None:
        cp = join(base, "coverage")
        check = _check(report, "coverage")
        rows.append(
            [
                "coverage<br><span class=note>share decided (not left undecided)</span>",
                page.ratio(cov.decided, cov.n, cp + "/decided", cp + "/n"),
                p(cov.value, cp + "/value", "pct"),
                page.interval(cov.ci_low, cov.ci_high, cp + "/ci_low", cp + "/ci_high"),
                "lower: " + p(cov.lower_95, cp + "/lower_95", "pct"),
                "—",
                (
                    "≥ " + p(report.policy.min_coverage, join(base, "policy", "min_coverage"), "pct")
                    if report.policy.min_coverage is not None
                    else "—"
                ),
                status(None if check is None else check.passed, "within", "under", "not checked"),
            ]
        )
    return table(
        "Error rates",
        [
            "rate",
            "count / n",
            "value",
            "95% interval (Wilson)",
            "upper 95% bound",
            "clustered (groups)",
            "policy",
            "result",
        ],
        rows,
        numeric=(1, 2, 3, 4),
    )


def threshold_curve(
    samples: Iterable[SampleOutcome],
) -> tuple[list[float], list[float], list[float], int, int] | None:
    """The false accept and false reject rates a pure ``score >= threshold`` rule would have, at every
    distinct score of the report's graded samples (undecided ones included, erred ones not):
    ``(thresholds, far, frr, n_bad, n_good)``; ``None`` when the samples carry no scores or lack one label.

    A view of the sample scores the report holds, drawn beside the measured operating point; it is not a
    statistic of the report (a grader may decide by more than its score). Plain sorting and bisection: the
    curve of 10,000 samples takes milliseconds, where importing scikit-learn alone takes a second."""
    good: list[float] = []
    bad: list[float] = []
    for o in samples:
        if o.score is None or (o.accepted is None and not o.undecided):
            continue
        (good if o.label.value == "good" else bad).append(float(o.score))
    if not good or not bad:
        return None
    good.sort()
    bad.sort()
    candidates = sorted(set(good) | set(bad))
    if len(candidates) > MAX_CURVE_POINTS:
        step = len(candidates) / MAX_CURVE_POINTS
        picked = {candidates[int(i * step)] for i in range(MAX_CURVE_POINTS)} | {candidates[-1]}
        candidates = sorted(picked)
    far = [(len(bad) - bisect_left(bad, t)) / len(bad) for t in candidates]
    frr = [bisect_left(good, t) / len(good) for t in candidates]
    return candidates, far, frr, len(bad), len(good)


def _curve(page: Page, report: CalibrationReport) -> str:
    curve = threshold_curve(report.samples)
    if curve is None:
        return "<p>The report's samples carry no scores (or only one label has any): no curve to draw.</p>"
    thresholds, far, frr, n_bad, n_good = curve
    params = report.grader.params or {}
    # a band (abstention) accepts at or above its upper end; a plain threshold at or above itself
    t0 = params.get("accept_at_or_above", params.get("threshold"))
    threshold = float(t0) if isinstance(t0, int | float) and not isinstance(t0, bool) else None
    t1 = params.get("reject_below")
    reject_below = float(t1) if isinstance(t1, int | float) and not isinstance(t1, bool) else None
    lo, hi = thresholds[0], thresholds[-1]
    if threshold is not None:
        lo, hi = min(lo, threshold), max(hi, threshold)
    if lo >= 0 and hi <= 1:
        lo, hi = 0.0, 1.0
    pad = (hi - lo) * 0.02 or 0.5
    series = [
        svg.Series(
            "false accept rate", list(zip(thresholds, far, strict=True)), "a", step=True, markers=False
        ),
        svg.Series(
            "false reject rate", list(zip(thresholds, frr, strict=True)), "b", step=True, markers=False
        ),
    ]
    highlights: list[tuple[float, float, str]] = []
    vlines: list[tuple[float, str]] = []
    words = (
        f"Over {n_bad} known-bad and {n_good} known-good scored samples, the false accept rate falls and the "
        "false reject rate rises as the threshold rises."
    )
    mismatched = 0
    if threshold is not None:
        vlines.append((threshold, f"threshold {fmt_float(threshold)}"))
        if reject_below is not None and reject_below != threshold:
            vlines.append((reject_below, f"reject below {fmt_float(reject_below)}"))
        far_v, frr_v = report.false_accept_rate.value, report.false_reject_rate.value
        if far_v is not None:
            highlights.append((threshold, far_v, f"FAR {fmt_pct(far_v)}"))
        if frr_v is not None:
            highlights.append((threshold, frr_v, f"FRR {fmt_pct(frr_v)}"))
        words += (
            f" The grader's threshold is {fmt_float(threshold)}, where the report measured a false accept "
            "rate of "
            f"{_p(far_v)} and a false reject rate of {_p(frr_v)}."
        )
        mismatched = sum(
            1
            for o in report.samples
            if o.score is not None and o.accepted is not None and (o.score >= threshold) != o.accepted
        )
    hlines = [
        (report.policy.max_false_accept_rate, f"FAR limit {fmt_pct(report.policy.max_false_accept_rate)}"),
        (report.policy.max_false_reject_rate, f"FRR limit {fmt_pct(report.policy.max_false_reject_rate)}"),
    ]
    chart = svg.line_chart(
        series,
        uid=page.uid("curve"),
        title="False accept and false reject rate over the score threshold",
        desc=words,
        x_label="threshold (accept when score ≥ threshold)",
        y_label="rate",
        x_domain=(lo - pad, hi + pad),
        vlines=vlines,
        hlines=hlines,
        highlights=highlights,
    )
    note = (
        "Drawn from the scores of the report's samples (a rule that accepts when score ≥ threshold); the "
        "circles are the rates the report measured at the grader's threshold."
    )
    if mismatched:
        note += (
            f" {mismatched:,} sample(s) were decided otherwise than by their score alone (the grader applies "
            "rules beyond the score), so the measured point can lie off the curve."
        )
    return f"<figure>{chart}<figcaption>{esc(note)}</figcaption></figure>"


def _breakdown(
    page: Page, report: CalibrationReport, field: str, noun: str, base: str, doc: dict[str, Any]
) -> str:
    rows_of: dict[str, Any] = doc.get(field) or {}
    if not rows_of:
        return f"<p>The samples name no {noun}.</p>" if noun == "generator" else f"<p>No {noun}s.</p>"
    p = page.num
    bars: list[svg.Bar] = []
    rows: list[list[str]] = []
    ordered = sorted(rows_of.items(), key=lambda kv: (-(kv[1].get("rate") or 0.0), kv[0]))
    for key, row in ordered:
        rp = join(base, field, key)
        n = row.get("n") or 0
        fa, fr, err = row.get("false_accepts"), row.get("false_rejects"), row.get("errors", 0)
        if n and fa is not None and fr is not None:
            segments = [(fa / n, "fa"), (fr / n, "fr"), ((err or 0) / n, "err")]
            note = f"{fa + fr} of {n} misclassified ({_p(row.get('rate'))})" + (
                f", {err} errors" if err else ""
            )
        else:
            segments = [((row.get("accepted") or 0) / n if n else 0.0, "plain")]
            note = f"{row.get('accepted')} of {n} accepted"
        bars.append(svg.Bar(key, segments, note))
        rows.append(
            [
                esc(key),
                p(n, rp + "/n"),
                p(row.get("n_good"), rp + "/n_good") if "n_good" in row else "",
                p(row.get("n_bad"), rp + "/n_bad") if "n_bad" in row else "",
                p(row.get("accepted"), rp + "/accepted"),
                p(row.get("rejected"), rp + "/rejected"),
                p(row.get("false_accepts"), rp + "/false_accepts") if "false_accepts" in row else "",
                p(row.get("false_rejects"), rp + "/false_rejects") if "false_rejects" in row else "",
                p(row.get("errors"), rp + "/errors"),
                p(row.get("rate"), rp + "/rate", "pct") if "rate" in row else "",
            ]
        )
    chart = svg.bar_chart(
        bars,
        uid=page.uid(field),
        title=f"Misclassified samples by {noun}",
        desc="; ".join(f"{b.label}: {b.note}" for b in bars) + ".",
        legend=[
            ("fa", "false accepts (known-bad accepted)"),
            ("fr", "false rejects (known-good rejected)"),
            ("err", "errors"),
        ],
    )
    return (
        f"<figure>{chart}<figcaption>Share of each {noun}'s samples the grader got wrong, worst first; "
        "hatched: "
        "false accepts, solid: false rejects.</figcaption></figure>"
        + table(
            f"By {noun}",
            [
                noun,
                "n",
                "known-good",
                "known-bad",
                "accepted",
                "rejected",
                "false accepts",
                "false rejects",
                "errors",
                "misclassified",
            ],
            rows,
            numeric=tuple(range(1, 10)),
        )
    )


def _kind(o: SampleOutcome) -> str:
    if o.accepted is None:
        return "und" if o.undecided else "err"
    return "fa" if o.label.value == "bad" else "fr"


def _wrong(o: SampleOutcome) -> bool:
    if o.accepted is None:
        return False
    if o.correct is not None:
        return not o.correct
    return o.accepted != (o.label.value == "good")


def _samples(page: Page, report: CalibrationReport, base: str) -> str:
    wrong = [(i, o) for i, o in enumerate(report.samples) if _wrong(o)]
    erred = [(i, o) for i, o in enumerate(report.samples) if o.accepted is None and not o.undecided]
    undecided = [(i, o) for i, o in enumerate(report.samples) if o.accepted is None and o.undecided]
    if not wrong and not erred and not undecided:
        return "<p>None: the grader decided every sample as its label says.</p>"
    listed = (wrong + erred + undecided)[:MAX_ROWS]
    tid = page.uid("samples")
    n_fa = sum(1 for _, o in wrong if o.label.value == "bad")
    out = [
        f"<p>{len(wrong):,} misclassified ({n_fa:,} false accepts, {len(wrong) - n_fa:,} false rejects) and "
        f"{len(erred):,} the grader could not grade"
        + (f"; {len(undecided):,} it left undecided" if undecided else "")
        + ".</p>",
        filter_bar(
            tid,
            "Search",
            [("fa", "false accepts"), ("fr", "false rejects"), ("err", "errors"), ("und", "undecided")],
        ),
    ]
    rows: list[str] = []
    kind_words = {"fa": "false accept", "fr": "false reject", "err": "error", "und": "undecided"}
    for i, o in listed:
        sp = join(base, "samples", i)
        kind = _kind(o)
        text = (o.error or "") if kind == "err" else o.reason
        if len(text) > MAX_REASON:
            text = text[: MAX_REASON - 1] + "…"
        score = page.num(o.score, sp + "/score") if o.score is not None else ""
        rows.append(
            f'<tr data-kind="{kind}"><th scope=row><code>{esc(o.id)}</code></th><td>{o.label.value}</td>'
            f"<td>{kind_words[kind]}</td><td>{esc(o.category or '')}</td><td>{esc(o.generator or '')}</td>"
            f"<td class=n>{score}</td><td class=reason>{esc(text)}</td></tr>"
        )
    out.append(
        f'<table id="{tid}"><caption>Samples the grader got wrong or could not grade, with its '
        "reason</caption>"
        "<thead><tr><th scope=col>id</th><th scope=col>label</th><th scope=col>outcome</th>"
        "<th scope=col>category</th><th scope=col>generator</th><th scope=col class=n>score</th>"
        "<th scope=col>reason (or error)</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )
    if len(wrong) + len(erred) > len(listed):
        out.append(
            f"<p class=note>The first {len(listed):,} of {len(wrong) + len(erred):,} are listed; the JSON "
            "report "
            "has them all.</p>"
        )
    return "".join(out)


def _advice(page: Page, report: CalibrationReport, base: str, h2: str) -> str:
    advice = report.sample_size_advice or {}
    if not advice:
        return ""
    p = page.num
    rows = []
    for key, label, _ in _RATES:
        entry = advice.get(key)
        if not entry:
            continue
        ap = join(base, "sample_size_advice", key)
        rows.append(
            [
                esc(label),
                page.ratio(entry.count, entry.n, ap + "/count", ap + "/n"),
                p(entry.best_upper_95, ap + "/best_upper_95", "pct"),
                p(entry.target, ap + "/target", "pct"),
                p(entry.samples_needed_at_this_count, ap + "/samples_needed_at_this_count"),
                p(entry.additional_samples_needed, ap + "/additional_samples_needed"),
                esc(entry.note or ""),
            ]
        )
    return f"<{h2}>Sample size</{h2}>" + table(
        "How many samples the policy's bounds need",
        [
            "rate",
            "count / n",
            "best upper bound",
            "target",
            "samples needed at this count",
            "more needed",
            "note",
        ],
        rows,
        numeric=(1, 2, 3, 4, 5),
    )


def _repeats(page: Page, r: dict[str, Any], rp: str, h2: str) -> str:
    p = page.num
    rows = []
    for i, entry in enumerate(r.get("per_repeat") or []):
        ep = f"{rp}/per_repeat/{i}"
        rows.append(
            [
                p(entry.get("repeat"), ep + "/repeat"),
                p(
                    (entry.get("false_accept_rate") or {}).get("value"),
                    ep + "/false_accept_rate/value",
                    "pct",
                ),
                p(
                    (entry.get("false_reject_rate") or {}).get("value"),
                    ep + "/false_reject_rate/value",
                    "pct",
                ),
                p(entry.get("errors", 0), ep + "/errors"),
            ]
        )
    head = (
        f"<p>Self-consistency over {p(r.get('r'), rp + '/r')} repeats: "
        f"{p(r.get('flipped'), rp + '/flipped')} of "
        f"{p(r.get('n'), rp + '/n')} samples changed outcome "
        f"({p(r.get('self_consistency'), rp + '/self_consistency', 'pct')}).</p>"
    )
    return (
        f"<{h2}>Repeats</{h2}>"
        + head
        + table(
            "Rates per repeat",
            ["repeat", "false accept rate", "false reject rate", "errors"],
            rows,
            numeric=(0, 1, 2, 3),
        )
    )


def _cascade(page: Page, c: dict[str, Any], cp: str, h2: str) -> str:
    """A cascade grader: each member's share of the decisions, its errors, the calls saved and the cost."""
    p = page.num
    members: list[dict[str, Any]] = c.get("members") or []
    bars = []
    rows = []
    for i, m in enumerate(members):
        mp = f"{cp}/members/{i}"
        share = m.get("share_of_samples")
        bars.append(
            svg.Bar(
                str(m.get("ref")),
                [(float(share) if isinstance(share, int | float) else 0.0, "plain")],
                f"decided {m.get('decided')} ({_p(share)}), skipped {m.get('skipped')}",
            )
        )
        rows.append(
            [
                f"<code>{esc(m.get('ref'))}</code>",
                p(m.get("graded"), mp + "/graded"),
                p(m.get("decided"), mp + "/decided"),
                p(m.get("accepted"), mp + "/accepted"),
                p(m.get("rejected"), mp + "/rejected"),
                p(m.get("undecided"), mp + "/undecided"),
                p(m.get("errors"), mp + "/errors"),
                p(share, mp + "/share_of_samples", "pct"),
                p(m.get("skipped"), mp + "/skipped"),
                p(m.get("requests"), mp + "/requests"),
                p(m.get("usd"), mp + "/usd", "usd"),
            ]
        )
    chart = svg.bar_chart(
        bars,
        uid=page.uid("cascade"),
        title="Share of the samples each cascade member decided",
        desc="; ".join(f"{b.label}: {b.note}" for b in bars) + ".",
        legend=[("plain", "share of all samples whose verdict the member gave")],
        domain_max=1.0,
    )
    return (
        f"<{h2}>Cascade members ({esc(c.get('mode', ''))})</{h2}><figure>{chart}</figure>"
        + table(
            "What each member decided, in order",
            [
                "member",
                "graded",
                "decided",
                "accepted",
                "rejected",
                "undecided",
                "errors",
                "share",
                "skipped",
                "requests",
                "cost",
            ],
            rows,
            numeric=tuple(range(1, 11)),
        )
        + f"<p>{p(c.get('calls_saved'), cp + '/calls_saved')} call(s) of later members saved; "
        f"{p(c.get('undecided'), cp + '/undecided')} sample(s) no member decided (left for review)"
        + (
            f"; {p(c.get('usd_per_sample'), cp + '/usd_per_sample', 'usd')} per sample."
            if c.get("usd_per_sample") is not None
            else "."
        )
        + "</p>"
    )
