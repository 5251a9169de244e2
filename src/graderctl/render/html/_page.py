"""The building blocks of every HTML page: escaping, numbers traced to the JSON document, tables, the page
shell (inline style, a tiny inline filter script, a Content-Security-Policy that forbids every request).

Every number a page shows is written as ``<data value="RAW" data-p="/json/pointer">shown</data>``: ``RAW`` is
the number of the JSON document at that pointer, ``shown`` its rounding for people. Nothing is recomputed, so
the page cannot disagree with the report, and a test (or a reader's tool) can check every figure.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

__all__ = ["Page", "esc", "pointer"]


def esc(text: object) -> str:
    """Escape text for HTML content and attribute values (quotes included): sample ids and reasons are
    untrusted."""
    return escape(str(text), quote=True)


def pointer(*parts: object) -> str:
    """A JSON pointer (RFC 6901) from its parts: ``pointer("a", "b/c", 0)`` -> ``/a/b~1c/0``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def join(base: str, *parts: object) -> str:
    return base + pointer(*parts)


def _trim(text: str) -> str:
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_pct(value: float, digits: int = 2) -> str:
    text = _trim(f"{100 * value:.{digits}f}")
    return ("0" if text == "-0" else text) + "%"


def fmt_float(value: float, digits: int = 3) -> str:
    if value != 0 and abs(value) < 10 ** (-digits):
        return f"{value:.2g}"
    text = _trim(f"{value:.{digits}f}")
    return "0" if text == "-0" else text


def fmt_int(value: int) -> str:
    return f"{value:,}"


def fmt_usd(value: float) -> str:
    return f"${value:,.4f}"


def _raw(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Page:
    """Collects the pointers of the numbers shown, so a generic section can show the ones no section did."""

    def __init__(self) -> None:
        self.shown: set[str] = set()
        self._ids = 0

    def uid(self, stem: str) -> str:
        """An element id unique within the page (several reports can share one page)."""
        self._ids += 1
        return f"{stem}-{self._ids}"

    def num(self, value: Any, ptr: str, kind: str = "auto", *, signed: bool = False) -> str:
        """A number of the document at ``ptr``, shown rounded. ``kind``: ``pct``, ``int``, ``float``, ``p``
        (a p-value), ``usd``, ``plain`` (as it is), ``auto`` (int or float by type; a seed as it is).
        ``None`` is shown as ``undefined``."""
        self.shown.add(ptr)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return f'<data value="null" data-p="{esc(ptr)}">undefined</data>'
        if isinstance(value, bool):
            return f'<data value="{_raw(value)}" data-p="{esc(ptr)}">{"yes" if value else "no"}</data>'
        if kind == "auto":
            kind = "plain" if ptr.endswith("/seed") else "int" if isinstance(value, int) else "float"
        if kind == "pct":
            shown = fmt_pct(float(value))
        elif kind == "int" and isinstance(value, int):
            shown = fmt_int(value)
        elif kind == "p":
            shown = f"{float(value):.3g}"
        elif kind == "plain":
            shown = str(value)
        elif kind == "usd":
            shown = fmt_usd(float(value))
        else:
            shown = fmt_float(float(value))
        if signed and float(value) > 0:
            shown = "+" + shown
        return f'<data value="{_raw(value)}" data-p="{esc(ptr)}">{shown}</data>'

    def ratio(self, count: Any, n: Any, ptr_count: str, ptr_n: str) -> str:
        return f"{self.num(count, ptr_count, 'int')}&#8239;/&#8239;{self.num(n, ptr_n, 'int')}"

    def interval(self, low: Any, high: Any, ptr_low: str, ptr_high: str, kind: str = "pct") -> str:
        if low is None and high is None:
            self.shown.update((ptr_low, ptr_high))
            return "undefined"
        signed = kind == "pct±"
        kind = "pct" if signed else kind
        return (
            f"{self.num(low, ptr_low, kind, signed=signed)} – {self.num(high, ptr_high, kind, signed=signed)}"
        )

    def leftovers(self, doc: Any, base: str, *, skip: Iterable[str] = ()) -> str:
        """A table of every number in ``doc`` (under ``base``) that no section showed, so none is left out.
        Subtrees whose pointer is in ``skip`` are left out (per-sample lists shown in their own tables)."""
        skipped = set(skip)
        rows: list[tuple[str, str]] = []

        def walk(value: Any, ptr: str) -> None:
            if ptr in skipped:
                return
            if isinstance(value, dict):
                for key, item in value.items():
                    walk(item, ptr + pointer(key))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    walk(item, ptr + pointer(i))
            elif is_number(value) and ptr not in self.shown:
                rows.append((ptr[len(base) :] or "/", self.num(value, ptr)))

        walk(doc, base)
        if not rows:
            return ""
        body = "".join(f"<tr><th scope=row><code>{esc(k)}</code></th><td>{v}</td></tr>" for k, v in rows)
        return (
            "<details class=other><summary>Every other figure of the report "
            f"({len(rows)})</summary><table><caption>Figures not shown above, by JSON pointer</caption>"
            f"<thead><tr><th scope=col>JSON pointer</th><th scope=col>value</th></tr></thead>"
            f"<tbody>{body}</tbody></table></details>"
        )


def table(
    caption: str,
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    numeric: Sequence[int] = (),
    row_headers: bool = True,
    attrs: str = "",
) -> str:
    """A table of already-escaped cells; the first cell of each row is its header (``<th scope=row>``)."""
    head = "".join(
        f"<th scope=col{' class=n' if i in numeric else ''}>{h}</th>" for i, h in enumerate(headers)
    )
    out = [f"<div class=tw><table{attrs}><caption>{caption}</caption><thead><tr>{head}</tr></thead><tbody>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = " class=n" if i in numeric else ""
            if i == 0 and row_headers:
                cells.append(f"<th scope=row{cls}>{cell}</th>")
            else:
                cells.append(f"<td{cls}>{cell}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def status(ok: bool | None, yes: str, no: str, undefined: str = "undefined") -> str:
    """A verdict in words and a symbol, never by colour alone."""
    if ok is None:
        return f'<span class="st na">&#8212; {esc(undefined)}</span>'
    if ok:
        return f'<span class="st ok">&#10003; {esc(yes)}</span>'
    return f'<span class="st bad">&#10007; {esc(no)}</span>'


def banner(ok: bool, text: str) -> str:
    cls = "ok" if ok else "bad"
    mark = "&#10003;" if ok else "&#10007;"
    return f'<p class="verdict {cls}" role="status"><span aria-hidden="true">{mark}</span> {esc(text)}</p>'


_STYLE = """
:root{--fg:#1a1a1a;--muted:#555;--line:#c8c8c8;--ok:#1b6e20;--bad:#a50f15;--far:#a3480b;--frr:#1f5f99;
--bg2:#f4f4f4}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff;
margin:0 auto;max-width:1180px;padding:1rem 1.5rem 3rem}
h1{font-size:1.5rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
.verdict{font-size:1.2rem;font-weight:700;padding:.6rem .9rem;border:2px solid;border-radius:4px}
.verdict.ok{color:var(--ok);border-color:var(--ok);background:#eef7ee}
.verdict.bad{color:var(--bad);border-color:var(--bad);background:#fcefef}
.st{font-weight:600;white-space:nowrap}.st.ok{color:var(--ok)}.st.bad{color:var(--bad)}.st.na{color:var(--muted)}
table{border-collapse:collapse;margin:.5rem 0 1rem;width:100%}
caption{text-align:left;font-weight:600;padding:.25rem 0;color:var(--muted)}
th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--bg2);border-bottom:2px solid #999}
th[scope=row]{font-weight:500}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th code{white-space:nowrap}
td.reason{max-width:60ch;overflow-wrap:anywhere;font-size:13px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
figure{margin:.5rem 0 1rem}figcaption{color:var(--muted);font-size:13px}
svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.5rem 0;
padding:.4rem .6rem;background:var(--bg2);border-radius:4px}
.filters input,.filters select{font:inherit;padding:.2rem .4rem}
.note{color:var(--muted);font-size:13px}
nav.toc ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}
a{color:#0b57a6}
details.other{margin:1rem 0}
.tw{overflow-x:auto}
table.paired{width:auto}table.paired td{min-width:8rem}
section.report{border-top:3px solid #999;margin-top:2rem}
@media print{body{max-width:none;padding:0;font-size:11pt}.tw{overflow:visible}
.filters,nav.toc{display:none!important}
tr[hidden]{display:table-row!important}details>*{display:block}a{color:inherit;text-decoration:none}
h2{break-after:avoid}tr,figure{break-inside:avoid}thead{display:table-header-group}
.verdict{border-width:3px}}
"""

# Progressive enhancement: without JavaScript every row is shown and the filter bar stays hidden.
_SCRIPT = """
document.querySelectorAll("[data-filter]").forEach(function(bar){
  var t=document.getElementById(bar.getAttribute("data-filter"));if(!t)return;
  var q=bar.querySelector("input"),s=bar.querySelector("select"),c=bar.querySelector("output");
  var rows=Array.prototype.slice.call(t.tBodies[0].rows);
  rows.forEach(function(r){r._t=r.textContent.toLowerCase();});
  function run(){var w=q.value.toLowerCase().trim(),k=s?s.value:"",n=0;
    rows.forEach(function(r){var ok=(!w||r._t.indexOf(w)>=0)&&(!k||r.getAttribute("data-kind")===k);
      r.hidden=!ok;if(ok)n++;});if(c)c.textContent=n+" of "+rows.length+" shown";}
  q.addEventListener("input",run);if(s)s.addEventListener("change",run);bar.hidden=false;run();
});
"""


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


#: Nothing may be fetched: no scripts, styles, images, fonts or frames other than the inline ones, whose
#: hashes are pinned (an injected script would not run even if escaping failed).
_CSP = (
    f"default-src 'none'; style-src '{_sha256(_STYLE)}'; script-src '{_sha256(_SCRIPT)}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def filter_bar(table_id: str, label: str, kinds: Sequence[tuple[str, str]] = ()) -> str:
    """The search box (and a kind selector) over a table; hidden until the inline script shows it."""
    fid = table_id + "-q"
    select = ""
    if kinds:
        options = '<option value="">all</option>' + "".join(
            f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in kinds
        )
        select = f'<label for="{fid}-k">Show</label><select id="{fid}-k">{options}</select>'
    return (
        f'<div class=filters data-filter="{esc(table_id)}" hidden><label for="{fid}">{esc(label)}</label>'
        f'<input id="{fid}" type=search placeholder="id, category, reason…">{select}'
        f'<output for="{fid}" aria-live=polite></output></div>'
    )


def document(title: str, body: Iterable[str]) -> Iterable[str]:
    """The whole page, in chunks."""
    yield (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        '<meta name=generator content="graderctl">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body><main>"
    )
    yield from body
    yield f"</main><script>{_SCRIPT}</script></body></html>\n"


def facts(items: Iterable[tuple[str, str]]) -> str:
    return "<dl class=facts>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def warnings_list(page: Page, notes: Sequence[str]) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{esc(n)}</li>" for n in notes)
    return f"<h2>Warnings</h2><ul>{items}</ul>"
