"""HTML to plain text, for pages an agent fetched or a grader resolved online (no I/O).

Uses the standard library's tolerant :class:`html.parser.HTMLParser`: the text of the page as a person reads
it, with ``<script>``, ``<style>``, ``<noscript>``, ``<template>`` and ``<svg>`` dropped, a line break after
every block element and runs of blank space collapsed. Character references are decoded. The ``<title>`` is
returned apart (and not repeated in the text).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_BLOCK = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    }
)
_VOID = frozenset(
    {"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "wbr"}
)
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_HTML_START = re.compile(r"^\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<!--)", re.IGNORECASE)
_HTML_TAGS = re.compile(r"</(?:p|div|body|html|span|a|li|td|h[1-6])\s*>", re.IGNORECASE)


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
            return
        if tag in _SKIP and tag not in _VOID:
            self._skip += 1
            return
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if tag in _SKIP and tag not in _VOID:
            self._skip = max(0, self._skip - 1)
            return
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif not self._skip:
            self.parts.append(data)


def looks_like_html(text: str) -> bool:
    """Whether a text is an HTML document or fragment (rather than plain text that mentions a tag)."""
    head = text[:2048]
    if _HTML_START.match(head):
        return True
    return len(_HTML_TAGS.findall(head)) >= 2


def html_to_text(html: str) -> tuple[str | None, str]:
    """``(title, text)`` of an HTML page: the title (``None`` when there is none) and the readable text."""
    parser = _Extractor()
    parser.feed(html)
    parser.close()
    title = " ".join("".join(parser.title_parts).split()) or None
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parser.parts).split("\n"))
    return title, "\n".join(line for line in lines if line)
