"""Inline SVG charts drawn by graderctl: intervals against a limit, bars, and lines over a numeric axis.

Each chart is an ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in words what it shows
(the figures themselves are in the tables next to it). Series differ by dash pattern and marker shape as well
as by colour, and verdicts are written as words, so nothing depends on colour alone. No script, no fonts, no
external reference: a chart is a few kilobytes of text that prints as it shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from graderctl.render.html._page import esc, fmt_float, fmt_pct

__all__ = ["Bar", "IntervalRow", "Series", "bar_chart", "interval_chart", "line_chart"]

INK = "#1a1a1a"
MUTED = "#555555"
GRID = "#d9d9d9"
LIMIT = "#a50f15"
#: A white outline behind a label, so it stays readable where it crosses a line.
HALO = 'paint-order="stroke" stroke="#ffffff" stroke-width="3" stroke-linejoin="round"'

#: Series styles: colour, dash pattern, marker shape. Two series never share a dash pattern or a marker.
STYLES: dict[str, tuple[str, str, str]] = {
    "a": ("#a3480b", "", "circle"),
    "b": ("#1f5f99", "7 4", "square"),
    "c": ("#3d3d3d", "2 3", "triangle"),
    "d": ("#6a3d9a", "10 3 2 3", "diamond"),
}


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _open(width: int, height: int, uid: str, title: str, desc: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-labelledby="{uid}-t {uid}-d">'
        f'<title id="{uid}-t">{esc(title)}</title><desc id="{uid}-d">{esc(desc)}</desc>'
    )


def _marker(shape: str, x: float, y: float, color: str, size: float = 4.5, fill: str | None = None) -> str:
    fill = fill or color
    if shape == "square":
        return (
            f'<rect x="{_f(x - size)}" y="{_f(y - size)}" width="{_f(2 * size)}" height="{_f(2 * size)}" '
            f'fill="{fill}" stroke="{color}"/>'
        )
    if shape == "triangle":
        pts = (
            f"{_f(x)},{_f(y - size - 1)} {_f(x - size - 1)},{_f(y + size)} {_f(x + size + 1)},{_f(y + size)}"
        )
        return f'<polygon points="{pts}" fill="{fill}" stroke="{color}"/>'
    if shape == "diamond":
        s = size + 1
        pts = f"{_f(x)},{_f(y - s)} {_f(x + s)},{_f(y)} {_f(x)},{_f(y + s)} {_f(x - s)},{_f(y)}"
        return f'<polygon points="{pts}" fill="{fill}" stroke="{color}"/>'
    return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size)}" fill="{fill}" stroke="{color}"/>'


def nice_max(value: float) -> float:
    """The smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 1 (times a power of ten) at or above ``value``."""
    if value <= 0:
        return 1.0
    exp = math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        top = step * 10**exp
        if top >= value - 1e-12:
            return float(top)
    return float(10 ** (exp + 1))


def ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / count
    exp = math.floor(math.log10(raw))
    step = min((s * 10**exp for s in (1, 2, 2.5, 5, 10) if s * 10**exp >= raw), default=raw)
    first = math.ceil(lo / step - 1e-9) * step
    out: list[float] = []
    x = first
    while x <= hi + step * 1e-9:
        out.append(round(x, 12))
        x += step
    return out


@dataclass
class IntervalRow:
    """One row: a point estimate with its interval (and a second interval, the clustered one), an upper
    bound and the limit it is held against."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    upper: float | None = None
    alt_low: float | None = None
    alt_high: float | None = None
    limit: float | None = None
    verdict: str = ""


def interval_chart(
    rows: Sequence[IntervalRow],
    *,
    uid: str,
    title: str,
    desc: str,
    domain: tuple[float, float] | None = None,
    band: tuple[float, float] | None = None,
    band_label: str = "",
    signed: bool = False,
    upper_label: str = "one-sided upper 95% bound",
    interval_label: str = "95% interval",
    alt_label: str = "clustered interval",
    limit_label: str = "policy limit",
    limit_word: str = "limit",
) -> str:
    """Horizontal interval bars, one row each, with the policy limit (or an equivalence band) drawn in."""
    left, right, width = 230, 150, 900
    plot = width - left - right
    row_h, top = 46, 30
    height = top + row_h * len(rows) + 58
    if domain is None:
        biggest = max(
            [v for r in rows for v in (r.value, r.high, r.upper, r.alt_high, r.limit) if v is not None]
            or [0.0]
        )
        domain = (0.0, min(1.0, nice_max(biggest * 1.1)) if biggest > 0 else 0.1)
    lo, hi = domain

    def x(v: float) -> float:
        return left + (min(max(v, lo), hi) - lo) / (hi - lo) * plot

    def label(v: float) -> str:
        text = fmt_pct(v)
        return ("+" + text) if signed and v > 0 else text

    out = [_open(width, height, uid, title, desc)]
    bottom = top + row_h * len(rows)
    if band is not None:
        out.append(
            f'<rect x="{_f(x(band[0]))}" y="{top - 6}" width="{_f(x(band[1]) - x(band[0]))}" '
            f'height="{bottom - top + 6}" fill="#e3eef9" stroke="#1f5f99" stroke-dasharray="3 3"/>'
        )
    for t in ticks(lo, hi):
        out.append(
            f'<line x1="{_f(x(t))}" x2="{_f(x(t))}" y1="{top - 6}" y2="{bottom}" stroke="{GRID}"/>'
            f'<text x="{_f(x(t))}" y="{bottom + 16}" text-anchor="middle" fill="{MUTED}">{label(t)}</text>'
        )
    if signed and lo < 0 < hi:
        out.append(f'<line x1="{_f(x(0))}" x2="{_f(x(0))}" y1="{top - 6}" y2="{bottom}" stroke="{INK}"/>')
    for i, r in enumerate(rows):
        cy = top + row_h * i + row_h / 2
        out.append(
            f'<text x="{left - 10}" y="{_f(cy + 4)}" text-anchor="end" fill="{INK}">{esc(r.label)}</text>'
        )
        if r.limit is not None:
            lx = x(r.limit)
            out.append(
                f'<line x1="{_f(lx)}" x2="{_f(lx)}" y1="{_f(cy - 14)}" y2="{_f(cy + 14)}" stroke="{LIMIT}" '
                f'stroke-width="2.5" stroke-dasharray="5 3"/>'
                f'<text x="{_f(lx + 4)}" y="{_f(cy - 14)}" fill="{LIMIT}" {HALO}>limit '
                f"{fmt_pct(r.limit)}</text>"
            )
        if r.alt_low is not None and r.alt_high is not None:
            out.append(
                f'<line x1="{_f(x(r.alt_low))}" x2="{_f(x(r.alt_high))}" y1="{_f(cy + 9)}" y2="{_f(cy + 9)}" '
                f'stroke="{MUTED}" stroke-width="2" stroke-dasharray="4 2"/>'
            )
        if r.low is not None and r.high is not None:
            a, b = x(r.low), x(r.high)
            out.append(
                f'<line x1="{_f(a)}" x2="{_f(b)}" y1="{_f(cy)}" y2="{_f(cy)}" stroke="#1f5f99" '
                f'stroke-width="6" stroke-opacity=".45"/>'
                f'<line x1="{_f(a)}" x2="{_f(a)}" y1="{_f(cy - 7)}" y2="{_f(cy + 7)}" stroke="#1f5f99" '
                f'stroke-width="2"/><line x1="{_f(b)}" x2="{_f(b)}" y1="{_f(cy - 7)}" y2="{_f(cy + 7)}" '
                f'stroke="#1f5f99" stroke-width="2"/>'
            )
        if r.upper is not None:
            ux = x(r.upper)
            out.append(
                f'<polygon points="{_f(ux)},{_f(cy - 3)} {_f(ux - 6)},{_f(cy - 13)} '
                f'{_f(ux + 6)},{_f(cy - 13)}" '
                f'fill="{INK}"/>'
            )
        if r.value is not None:
            out.append(_marker("circle", x(r.value), cy, INK, 5, "#ffffff"))
        out.append(
            f'<text x="{width - right + 12}" y="{_f(cy + 4)}" fill="{INK}" font-weight="600">'
            f"{esc(r.verdict)}</text>"
        )
    # legend, in shapes and words
    ly = bottom + 40
    cx = 20.0
    parts = [
        _marker("circle", cx + 6, ly - 4, INK, 5, "#ffffff"),
        f'<text x="{_f(cx + 16)}" y="{ly}" fill="{INK}">observed</text>',
    ]
    cx += 16 + _w("observed") + 16
    parts.append(
        f'<line x1="{_f(cx)}" x2="{_f(cx + 30)}" y1="{ly - 4}" y2="{ly - 4}" stroke="#1f5f99" '
        f'stroke-width="6" stroke-opacity=".45"/><text x="{_f(cx + 36)}" y="{ly}" fill="{INK}">'
        f"{esc(interval_label)}</text>"
    )
    cx += 36 + _w(interval_label) + 16
    if any(r.upper is not None for r in rows):
        parts.append(
            f'<polygon points="{_f(cx)},{ly} {_f(cx - 6)},{ly - 10} {_f(cx + 6)},{ly - 10}" fill="{INK}"/>'
            f'<text x="{_f(cx + 10)}" y="{ly}" fill="{INK}">{esc(upper_label)}</text>'
        )
        cx += 10 + _w(upper_label) + 16
    if any(r.alt_low is not None for r in rows):
        parts.append(
            f'<line x1="{_f(cx)}" x2="{_f(cx + 26)}" y1="{ly - 4}" y2="{ly - 4}" stroke="{MUTED}" '
            f'stroke-width="2" stroke-dasharray="4 2"/><text x="{_f(cx + 30)}" y="{ly}" fill="{INK}">'
            f"{esc(alt_label)}</text>"
        )
        cx += 30 + _w(alt_label) + 16
    if any(r.limit is not None for r in rows):
        parts.append(
            f'<line x1="{_f(cx)}" x2="{_f(cx)}" y1="{ly - 12}" y2="{ly + 2}" stroke="{LIMIT}" '
            f'stroke-width="2.5" stroke-dasharray="5 3"/><text x="{_f(cx + 6)}" y="{ly}" fill="{LIMIT}">'
            f"{esc(limit_label)}</text>"
        )
        cx += 6 + _w(limit_label) + 16
    if band is not None:
        parts.append(
            f'<rect x="{_f(cx)}" y="{ly - 11}" width="22" height="12" fill="#e3eef9" stroke="#1f5f99" '
            f'stroke-dasharray="3 3"/><text x="{_f(cx + 28)}" y="{ly}" fill="{INK}">{esc(band_label)}</text>'
        )
    out.extend(parts)
    out.append("</svg>")
    return "".join(out)


@dataclass
class Bar:
    """A horizontal bar of stacked segments ``(fraction of the axis, style)`` and a note at its end."""

    label: str
    segments: list[tuple[float, str]]
    note: str = ""
    low: float | None = None
    high: float | None = None


#: Bar segment styles: fill, hatched or not, legend text is given by the caller.
BAR_STYLES: dict[str, tuple[str, bool]] = {
    "fa": ("#a3480b", True),
    "fr": ("#1f5f99", False),
    "err": ("#7a7a7a", True),
    "ok": ("#1b6e20", False),
    "plain": ("#3d6e99", False),
}


def bar_chart(
    bars: Sequence[Bar],
    *,
    uid: str,
    title: str,
    desc: str,
    legend: Sequence[tuple[str, str]] = (),
    domain_max: float | None = None,
    reference: tuple[float, str] | None = None,
) -> str:
    """Horizontal bars (0 to ``domain_max``, a share), each labelled with its figures in words."""
    left, right, width = 230, 300, 980
    plot = width - left - right
    bar_h, gap, top = 18, 10, 12
    height = top + (bar_h + gap) * len(bars) + (62 if legend else 34)
    if domain_max is None:
        totals = [0.0, *(sum(f for f, _ in b.segments) for b in bars), *(b.high or 0.0 for b in bars)]
        domain_max = min(1.0, nice_max(max(totals) * 1.05)) if max(totals) > 0 else 1.0

    def x(v: float) -> float:
        return left + min(max(v, 0.0), domain_max) / domain_max * plot

    out = [_open(width, height, uid, title, desc), "<defs>"]
    for key, (color, hatched) in BAR_STYLES.items():
        if hatched:
            out.append(
                f'<pattern id="{uid}-{key}" patternUnits="userSpaceOnUse" width="6" height="6" '
                f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{color}"/>'
                f'<line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2"/></pattern>'
            )
    out.append("</defs>")
    bottom = top + (bar_h + gap) * len(bars)
    for t in ticks(0.0, domain_max):
        out.append(
            f'<line x1="{_f(x(t))}" x2="{_f(x(t))}" y1="{top - 4}" y2="{bottom}" stroke="{GRID}"/>'
            f'<text x="{_f(x(t))}" y="{bottom + 14}" text-anchor="middle" fill="{MUTED}">{fmt_pct(t)}</text>'
        )
    if reference is not None:
        rx = x(reference[0])
        out.append(
            f'<line x1="{_f(rx)}" x2="{_f(rx)}" y1="{top - 6}" y2="{bottom}" stroke="{LIMIT}" '
            f'stroke-width="2" stroke-dasharray="5 3"/>'
        )
    for i, b in enumerate(bars):
        y = top + (bar_h + gap) * i
        out.append(
            f'<text x="{left - 8}" y="{y + 13}" text-anchor="end" '
            f'fill="{INK}">{esc(_clip(b.label, 32))}</text>'
        )
        start = 0.0
        for frac, key in b.segments:
            if frac <= 0:
                continue
            color, hatched = BAR_STYLES[key]
            fill = f"url(#{uid}-{key})" if hatched else color
            out.append(
                f'<rect x="{_f(x(start))}" y="{y}" width="{_f(max(x(start + frac) - x(start), 1.0))}" '
                f'height="{bar_h}" fill="{fill}" stroke="{color}"/>'
            )
            start += frac
        if b.low is not None and b.high is not None:
            out.append(
                f'<line x1="{_f(x(b.low))}" x2="{_f(x(b.high))}" y1="{y + bar_h / 2}" y2="{y + bar_h / 2}" '
                f'stroke="{INK}" stroke-width="1.5"/>'
                f'<line x1="{_f(x(b.low))}" x2="{_f(x(b.low))}" y1="{y + 3}" y2="{y + bar_h - 3}" '
                f'stroke="{INK}" stroke-width="1.5"/>'
                f'<line x1="{_f(x(b.high))}" x2="{_f(x(b.high))}" y1="{y + 3}" y2="{y + bar_h - 3}" '
                f'stroke="{INK}" stroke-width="1.5"/>'
            )
        out.append(f'<text x="{width - right + 8}" y="{y + 13}" fill="{INK}">{esc(b.note)}</text>')
    ly = bottom + 36
    cx = float(left)
    for key, text in legend:
        color, hatched = BAR_STYLES.get(key, ("#000000", False))
        fill = f"url(#{uid}-{key})" if hatched else color
        out.append(
            f'<rect x="{_f(cx)}" y="{ly - 11}" width="22" height="12" fill="{fill}" stroke="{color}"/>'
            f'<text x="{_f(cx + 28)}" y="{ly}" fill="{INK}">{esc(text)}</text>'
        )
        cx += 40 + 7 * len(text)
    if reference is not None:
        out.append(
            f'<line x1="{_f(cx)}" x2="{_f(cx)}" y1="{ly - 12}" y2="{ly + 2}" stroke="{LIMIT}" '
            'stroke-width="2" '
            f'stroke-dasharray="5 3"/><text x="{_f(cx + 6)}" y="{ly}" '
            f'fill="{LIMIT}">{esc(reference[1])}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _w(text: str) -> float:
    """Rough width of a 12px label."""
    return 6.6 * len(text)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class Series:
    """A line over the x axis; ``errors`` are ``(x, low, high)`` interval bars drawn at its points."""

    name: str
    points: list[tuple[float, float]]
    style: str = "a"
    step: bool = False
    markers: bool = True
    errors: list[tuple[float, float, float]] = field(default_factory=list)


def line_chart(
    series: Sequence[Series],
    *,
    uid: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    x_domain: tuple[float, float],
    x_ticks: Sequence[float] | None = None,
    x_percent: bool = False,
    y_max: float = 1.0,
    vlines: Sequence[tuple[float, str]] = (),
    hlines: Sequence[tuple[float, str]] = (),
    highlights: Sequence[tuple[float, float, str]] = (),
) -> str:
    """Lines over a numeric x axis with y a share in [0, ``y_max``]; ``vlines`` mark x values (the chosen
    threshold), ``hlines`` y values (policy limits), ``highlights`` points (the operating point)."""
    left, right, width = 70, 200, 900
    top, plot_h = 16, 330
    height = top + plot_h + 70
    plot = width - left - right
    x0, x1 = x_domain
    if x1 <= x0:
        x1 = x0 + 1.0

    def x(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * plot

    def y(v: float) -> float:
        return top + plot_h - min(max(v, 0.0), y_max) / y_max * plot_h

    out = [_open(width, height, uid, title, desc)]
    bottom = top + plot_h
    for t in ticks(0.0, y_max):
        out.append(
            f'<line x1="{left}" x2="{left + plot}" y1="{_f(y(t))}" y2="{_f(y(t))}" stroke="{GRID}"/>'
            f'<text x="{left - 6}" y="{_f(y(t) + 4)}" text-anchor="end" fill="{MUTED}">{fmt_pct(t)}</text>'
        )
    for t in x_ticks if x_ticks is not None else ticks(x0, x1):
        out.append(
            f'<line x1="{_f(x(t))}" x2="{_f(x(t))}" y1="{top}" y2="{bottom}" stroke="{GRID}"/>'
            f'<text x="{_f(x(t))}" y="{bottom + 16}" text-anchor="middle" fill="{MUTED}">'
            f"{fmt_pct(t) if x_percent else fmt_float(t)}</text>"
        )
    out.append(
        f'<line x1="{left}" x2="{left + plot}" y1="{bottom}" y2="{bottom}" stroke="{INK}"/>'
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" stroke="{INK}"/>'
        f'<text x="{left + plot / 2}" y="{bottom + 36}" text-anchor="middle" '
        f'fill="{INK}">{esc(x_label)}</text>'
        f'<text transform="translate(16 {top + plot_h / 2}) rotate(-90)" text-anchor="middle" fill="{INK}">'
        f"{esc(y_label)}</text>"
    )
    for value, text in hlines:
        out.append(
            f'<line x1="{left}" x2="{left + plot}" y1="{_f(y(value))}" y2="{_f(y(value))}" stroke="{LIMIT}" '
            f'stroke-width="1.5" stroke-dasharray="5 3"/><text x="{left + plot + 6}" y="{_f(y(value) + 4)}" '
            f'fill="{LIMIT}">{esc(text)}</text>'
        )
    for value, text in vlines:
        out.append(
            f'<line x1="{_f(x(value))}" x2="{_f(x(value))}" y1="{top}" y2="{bottom}" stroke="{INK}" '
            f'stroke-width="1.5" stroke-dasharray="2 2"/><text x="{_f(x(value) + 4)}" y="{top + 12}" '
            f'fill="{INK}">{esc(text)}</text>'
        )
    for s in series:
        color, dash, shape = STYLES[s.style]
        for ex, lo, hi in s.errors:
            out.append(
                f'<line x1="{_f(x(ex))}" x2="{_f(x(ex))}" y1="{_f(y(lo))}" y2="{_f(y(hi))}" stroke="{color}" '
                f'stroke-width="1.5"/><line x1="{_f(x(ex) - 5)}" x2="{_f(x(ex) + 5)}" y1="{_f(y(lo))}" '
                f'y2="{_f(y(lo))}" stroke="{color}"/><line x1="{_f(x(ex) - 5)}" x2="{_f(x(ex) + 5)}" '
                f'y1="{_f(y(hi))}" y2="{_f(y(hi))}" stroke="{color}"/>'
            )
        pts: list[str] = []
        prev: tuple[float, float] | None = None
        for px, py in s.points:
            if s.step and prev is not None:
                pts.append(f"{_f(x(px))},{_f(y(prev[1]))}")
            pts.append(f"{_f(x(px))},{_f(y(py))}")
            prev = (px, py)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color}" stroke-width="2.2"{dash_attr}/>'
        )
        if s.markers:
            out.extend(_marker(shape, x(px), y(py), color) for px, py in s.points)
    for hx, hy, text in highlights:
        out.append(
            _marker("circle", x(hx), y(hy), INK, 7, "#ffffff")
            + f'<text x="{_f(x(hx) + 10)}" y="{_f(y(hy) - 8)}" fill="{INK}" font-weight="600" {HALO}>'
            f"{esc(text)}</text>"
        )
    ly = top + 30
    lx = left + plot + 14
    for s in series:
        color, dash, shape = STYLES[s.style]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<line x1="{lx}" x2="{lx + 30}" y1="{ly}" y2="{ly}" stroke="{color}" '
            f'stroke-width="2.2"{dash_attr}/>'
            + _marker(shape, lx + 15, ly, color)
            + f'<text x="{lx + 38}" y="{ly + 4}" fill="{INK}">{esc(_clip(s.name, 20))}</text>'
        )
        ly += 22
    out.append("</svg>")
    return "".join(out)
