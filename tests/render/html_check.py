"""Checks of a generated HTML page against its JSON document, with the standard library's HTML parser.

- every ``<data value=... data-p=...>`` names a number of the document by JSON pointer, and holds it exactly
  (and the text shown is that number rounded);
- every number of the document (outside the subtrees a test leaves out) is shown somewhere on the page;
- nothing is fetched: no ``src``/``href``/``action`` other than in-page fragments, no external element, one
  inline script without ``src``, no ``url(`` in styles, no event-handler attribute.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

FETCHING_TAGS = {
    "img",
    "link",
    "iframe",
    "object",
    "embed",
    "audio",
    "video",
    "source",
    "image",
    "use",
    "frame",
}
URL_ATTRS = {"src", "href", "action", "srcset", "poster", "data", "formaction", "xlink:href", "background"}


@dataclass
class Figure:
    value: str
    pointer: str
    text: str


@dataclass
class Parsed:
    figures: list[Figure] = field(default_factory=list)
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    svg_titles: int = 0
    svg_descs: int = 0
    svgs: int = 0


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = Parsed()
        self._data: list[Any] | None = None
        self._script: list[str] | None = None
        self._style: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.out.tags.append((tag, a))
        if tag == "data":
            self._data = [a.get("value"), a.get("data-p"), []]
        elif tag == "script":
            self._script = []
        elif tag == "style":
            self._style = []
        elif tag == "svg":
            self.out.svgs += 1
        elif tag == "title" and self.out.svgs:
            self.out.svg_titles += 1
        elif tag == "desc":
            self.out.svg_descs += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "data" and self._data is not None:
            value, ptr, text = self._data
            assert value is not None and ptr is not None, "a <data> element without value or data-p"
            self.out.figures.append(Figure(value, ptr, "".join(text)))
            self._data = None
        elif tag == "script" and self._script is not None:
            self.out.scripts.append("".join(self._script))
            self._script = None
        elif tag == "style" and self._style is not None:
            self.out.styles.append("".join(self._style))
            self._style = None

    def handle_data(self, data: str) -> None:
        if self._data is not None:
            self._data[2].append(data)
        if self._script is not None:
            self._script.append(data)
        elif self._style is not None:
            self._style.append(data)
        else:
            self.out.text.append(data)


def parse(html: str) -> Parsed:
    p = _Parser()
    p.feed(html)
    p.close()
    return p.out


def resolve(doc: Any, ptr: str) -> Any:
    value = doc
    for part in ptr.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def number_leaves(doc: Any, ptr: str = "", skip: tuple[str, ...] = ()) -> dict[str, float]:
    """Every number of the document (booleans are not numbers) by pointer, except under ``skip``."""
    out: dict[str, float] = {}
    if any(ptr == s or (s.endswith("/*") and ptr.startswith(s[:-1])) for s in skip):
        return out
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.update(number_leaves(value, ptr + "/" + str(key).replace("~", "~0").replace("/", "~1"), skip))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out.update(number_leaves(value, f"{ptr}/{i}", skip))
    elif isinstance(doc, int | float) and not isinstance(doc, bool):
        out[ptr] = float(doc)
    return out


def _shown_matches(text: str, value: float) -> bool:
    """The text shown is ``value`` rounded: ``42.22%``, ``+4.4%``, ``1,234``, ``0.864``, ``$0.6008``,
    ``1.4e-17``."""
    t = text.strip().replace(",", "").replace("\u2212", "-")
    scale = 1.0
    if t.endswith("%"):
        t, scale = t[:-1], 100.0
    t = t.removeprefix("$").removeprefix("+")
    if t in ("yes", "no"):
        return True
    shown = float(t)
    target = value * scale
    if "e" in t.lower():
        mantissa = t.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return math.isclose(shown, target, rel_tol=0.51 * 10.0**-decimals * 10)
    decimals = len(t.split(".")[1]) if "." in t else 0
    # 3 significant digits (p-values) can round coarser than the decimals shown
    return abs(shown - target) <= 0.5 * 10.0**-decimals + 1e-9 * max(1.0, abs(target)) or math.isclose(
        shown, target, rel_tol=5e-3
    )


def check_page(html: str, doc: Any, *, skip: tuple[str, ...] = ()) -> Parsed:
    """Assert the page shows every number of ``doc`` (outside ``skip``) exactly, fetches nothing and runs
    no script but its own. Returns the parsed page for further checks."""
    parsed = parse(html)
    seen: set[str] = set()
    for fig in parsed.figures:
        try:
            expected = resolve(doc, fig.pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            raise AssertionError(
                f"the page shows {fig.text!r} at {fig.pointer}, which is not in the JSON"
            ) from None
        if fig.value == "null":
            assert expected is None, f"{fig.pointer}: page says undefined, JSON has {expected!r}"
            assert fig.text == "undefined"
        elif fig.value in ("true", "false"):
            assert expected is (fig.value == "true"), fig.pointer
        else:
            assert isinstance(expected, int | float) and not isinstance(expected, bool), fig.pointer
            assert float(fig.value) == float(expected), f"{fig.pointer}: page {fig.value}, JSON {expected!r}"
            assert _shown_matches(fig.text, float(expected)), (
                f"{fig.pointer}: shows {fig.text!r} for {expected!r}"
            )
        seen.add(fig.pointer)
    missing = sorted(set(number_leaves(doc, skip=skip)) - seen)
    assert not missing, f"{len(missing)} number(s) of the JSON are not on the page, e.g. {missing[:10]}"
    assert_self_contained(parsed)
    return parsed


def assert_self_contained(parsed: Parsed) -> None:
    for tag, attrs in parsed.tags:
        assert tag not in FETCHING_TAGS, f"<{tag}> could fetch something"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"event handler {name} on <{tag}>"
            if name in URL_ATTRS:
                # in-page fragments, or (the index of `graderctl report`) a sibling page of the same folder
                assert value is not None and re.fullmatch(
                    r"#[^\s]*|[A-Za-z0-9@._-]+\.html(#[^\s]*)?", value
                ), f"<{tag} {name}={value!r}> is neither in-page nor a sibling page"
            if name == "style":
                raise AssertionError(f"inline style attribute on <{tag}> (blocked by the page's CSP)")
        if tag == "script":
            assert "src" not in attrs, "an external script"
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            assert "default-src 'none'" in (attrs.get("content") or "")
    assert len(parsed.scripts) <= 1, "more than the one inline script"
    for css in parsed.styles:
        assert "url(" not in css and "@import" not in css, "the style fetches something"
    # every chart is labelled
    assert parsed.svg_titles >= parsed.svgs and parsed.svg_descs >= parsed.svgs, "an <svg> without title/desc"
    assert not re.search(
        r"https?://(?!www\.w3\.org/2000/svg)",
        " ".join(str(v) for _, a in parsed.tags for v in a.values() if v),
    ), "an absolute URL in an attribute"
    assert not any(f.text in ("NaN", "Infinity", "-Infinity", "nan", "inf") for f in parsed.figures)
