"""The HTML page of ``graderctl probe``: per probe, the question, the verdict, the rate before and after the
transformation with the change's interval against the margin, and the samples whose outcome flipped.

Renders a single probe document (``"type": "probe"``, as written under ``reports/probes/``) or the run's
document (``"type": "probes"``, as ``--format json`` prints with several probes)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeGuard

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
)

__all__ = ["probe_page"]

MAX_ROWS = 5000
_WORDS = {
    "biased": "bias found",
    "no_bias": "no bias",
    "inconclusive": "inconclusive",
    "not_applicable": "not applicable",
}


def probe_page(doc: dict[str, Any]) -> Iterator[str]:
    page = Page()
    if doc.get("type") == "probes":
        probes = [(p, f"/probes/{i}") for i, p in enumerate(doc.get("probes") or [])]
        grader = str(doc.get("grader"))
    else:
        probes = [(doc, "")]
        g = doc.get("grader") or {}
        grader = f"{g.get('name')}@{g.get('version')}"
    title = f"Bias probes of {grader}"
    biased = any(p.get("biased") for p, _ in probes)

    def body() -> Iterator[str]:
        yield f"<h1>{esc(title)}</h1>"
        yield banner(not biased, "BIAS FOUND" if biased else "No bias found beyond the margin")
        rows = [
            [
                f'<a href="#probe{i}">{esc(p.get("probe"))}</a>',
                esc((p.get("calibration_set") or {}).get("name", "")),
                _status(p),
                esc(p.get("verdict", "")),
            ]
            for i, (p, _) in enumerate(probes)
        ]
        yield table("Probes", ["probe", "set", "result", "verdict"], rows)
        for i, (p, base) in enumerate(probes):
            yield f'<section class=report id="probe{i}">'
            yield _probe(page, p, base)
            yield "</section>"
        skip = ["/environment"] + [f"{base}/samples" for _, base in probes]
        yield page.leftovers(doc, "", skip=skip)

    yield from document(title, body())


def _status(p: dict[str, Any]) -> str:
    outcome = p.get("outcome") or ("biased" if p.get("biased") else "no_bias")
    if not p.get("applicable", True):
        outcome = "not_applicable"
    words = _WORDS.get(str(outcome), str(outcome))
    if outcome == "biased":
        return status(False, "", words)
    if outcome == "no_bias":
        return status(True, words, "")
    return status(None, "", "", words)


def _rate(page: Page, r: Any, rp: str) -> str:
    if not isinstance(r, dict):
        return "—"
    return (
        page.num(r.get("value"), rp + "/value", "pct")
        + " ("
        + page.ratio(r.get("count"), r.get("n"), rp + "/count", rp + "/n")
        + ")"
    )


def _probe(page: Page, d: dict[str, Any], base: str) -> str:
    p = page.num
    s = d.get("calibration_set") or {}
    out = [
        f"<h2>{esc(d.get('probe'))} on <code>{esc(s.get('name', ''))}</code></h2>",
        f"<p><em>{esc(d.get('question', ''))}</em></p>",
        f"<p>{_status(d)}: {esc(d.get('verdict', ''))}</p>",
    ]
    err = d.get("errors") or {}
    items = [
        ("margin", p(d.get("margin"), base + "/margin")),
        ("rate watched", esc(str(d.get("rate", "")).replace("_", " "))),
        (
            "samples targeted, transformed, unchanged, paired",
            ", ".join(
                p(d.get(k), f"{base}/{k}")
                for k in ("n_targeted", "n_transformed", "n_unchanged", "n")
                if k in d
            ),
        ),
    ]
    if err:
        items.append(
            (
                "errors (before, after)",
                f"{p(err.get('before'), base + '/errors/before')}, "
                f"{p(err.get('after'), base + '/errors/after')}",
            )
        )
    if "before" in d or "after" in d:
        items.append(
            (
                "rate before → after",
                f"{_rate(page, d.get('before'), base + '/before')} → "
                f"{_rate(page, d.get('after'), base + '/after')}",
            )
        )
    if "mcnemar_p" in d:
        items.append(("exact McNemar p", p(d.get("mcnemar_p"), base + "/mcnemar_p", "p")))
    out.append(facts(items))
    margin = d.get("margin") if isinstance(d.get("margin"), int | float) else None
    diff = d.get("difference")
    if isinstance(diff, dict) and diff.get("diff") is not None:
        dp = base + "/difference"
        conf = diff.get("confidence")
        out.append(
            table(
                "The change, after − before",
                ["change", "interval", "confidence", "method"],
                [
                    [
                        p(diff.get("diff"), dp + "/diff", "pct", signed=True),
                        page.interval(
                            diff.get("ci_low"), diff.get("ci_high"), dp + "/ci_low", dp + "/ci_high", "pct±"
                        ),
                        p(conf, dp + "/confidence", "pct"),
                        esc(diff.get("method", "")),
                    ]
                ],
                numeric=(0, 1, 2),
                row_headers=False,
            )
        )
        values = [
            abs(float(v))
            for v in (diff.get("diff"), diff.get("ci_low"), diff.get("ci_high"), margin)
            if _num(v)
        ]
        top = svg.nice_max(max([*values, 0.01]) * 1.15)
        chart = svg.interval_chart(
            [
                svg.IntervalRow(
                    label=f"{str(d.get('rate', 'rate')).replace('_', ' ')} change",
                    value=diff.get("diff"),
                    low=diff.get("ci_low"),
                    high=diff.get("ci_high"),
                    limit=margin,
                    verdict=_verdict_words(d),
                )
            ],
            uid=page.uid("probe"),
            title=f"{d.get('probe')} probe: change of the rate against the margin",
            desc=f"change {_pct(diff.get('diff'))}, interval {_pct(diff.get('ci_low'))} to "
            f"{_pct(diff.get('ci_high'))}; bias is a rise beyond the margin {_pct(margin)} with the "
            "interval above 0.",
            domain=(-top, top),
            signed=True,
            interval_label=(fmt_pct(float(conf)) + " interval") if _num(conf) else "interval",
            limit_label="margin (largest rise tolerated)",
            limit_word="margin",
        )
        out.append(f"<figure>{chart}</figure>")
    flips = d.get("flips")
    if isinstance(flips, dict):
        fp = base + "/flips"
        out.append(
            table(
                "Outcomes flipped by the transformation",
                ["flipped", "share", "interval", "to accept", "to reject"],
                [
                    [
                        page.ratio(flips.get("count"), flips.get("n"), fp + "/count", fp + "/n"),
                        p(flips.get("value"), fp + "/value", "pct"),
                        page.interval(
                            flips.get("ci_low"), flips.get("ci_high"), fp + "/ci_low", fp + "/ci_high"
                        ),
                        p(flips.get("to_accept"), fp + "/to_accept"),
                        p(flips.get("to_reject"), fp + "/to_reject"),
                    ]
                ],
                numeric=(0, 1, 2, 3, 4),
                row_headers=False,
            )
        )
        if flips.get("value") is not None:
            top = svg.nice_max(max(float(flips.get("ci_high") or 0), float(margin or 0), 0.01) * 1.15)
            chart = svg.interval_chart(
                [
                    svg.IntervalRow(
                        label="share of flipped outcomes",
                        value=flips.get("value"),
                        low=flips.get("ci_low"),
                        high=flips.get("ci_high"),
                        limit=margin,
                        verdict=_verdict_words(d),
                    )
                ],
                uid=page.uid("flips"),
                title=f"{d.get('probe')} probe: share of flipped outcomes against the margin",
                desc=f"{_pct(flips.get('value'))} flipped, interval {_pct(flips.get('ci_low'))} to "
                f"{_pct(flips.get('ci_high'))}, margin {_pct(margin)}.",
                domain=(0.0, min(1.0, top)),
                limit_label="margin (largest share of flips tolerated)",
                limit_word="margin",
            )
            out.append(f"<figure>{chart}</figure>")
    for group in ("own_family", "other_families"):
        g = d.get(group)
        if isinstance(g, dict):
            out.append(
                f"<p>{esc(group.replace('_', ' '))}: "
                + ", ".join(
                    f"{esc(k)} {p(v, f'{base}/{group}/{k}')}" for k, v in g.items() if _num(v) or v is None
                )
                + "</p>"
            )
    out.append(_samples(page, d.get("samples") or [], base))
    return "".join(out)


def _num(v: Any) -> TypeGuard[float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _pct(v: Any) -> str:
    return fmt_pct(float(v)) if _num(v) else "undefined"


def _verdict_words(d: dict[str, Any]) -> str:
    outcome = d.get("outcome") or ("biased" if d.get("biased") else "no_bias")
    return {"biased": "✗ bias", "no_bias": "✓ no bias"}.get(
        str(outcome), "— " + _WORDS.get(str(outcome), str(outcome))
    )


def _samples(page: Page, samples: list[dict[str, Any]], base: str) -> str:
    flipped = [s for s in samples if s.get("flipped")]
    if not samples:
        return ""
    if not flipped:
        return "<p>No sample changed outcome.</p>"
    tid = page.uid("probe-samples")
    rows = []
    for s in flipped[:MAX_ROWS]:
        kind = "to-accept" if s.get("after") else "to-reject"
        rows.append(
            f'<tr data-kind="{kind}"><th '
            f"scope=row><code>{esc(s.get('id'))}</code></th><td>{esc(s.get('label', ''))}</td>"
            f"<td>{esc(s.get('category') or '')}</td><td>{_word(s.get('before'))}</td>"
            f"<td>{_word(s.get('after'))}</td>"
            f"<td class=reason>{esc(s.get('transformation', ''))}</td></tr>"
        )
    more = (
        f"<p class=note>The first {MAX_ROWS:,} of {len(flipped):,} are listed; the JSON report has them "
        "all.</p>"
        if len(flipped) > MAX_ROWS
        else ""
    )
    return (
        f"<h3>Samples whose outcome flipped ({len(flipped):,} of {len(samples):,})</h3>"
        + filter_bar(tid, "Search", [("to-accept", "now accepted"), ("to-reject", "now rejected")])
        + f'<table id="{tid}"><caption>Flipped samples</caption><thead><tr><th scope=col>id</th>'
        "<th scope=col>label</th><th scope=col>category</th><th scope=col>before</th><th scope=col>after</th>"
        "<th scope=col>transformation</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + more
    )


def _word(accepted: Any) -> str:
    return "error" if accepted is None else ("accepted" if accepted else "rejected")
