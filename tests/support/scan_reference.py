"""The body scan of the report parser as it was first written (before its fast paths), kept as the reference
the fast paths are tested against: every candidate place tried with the citation pattern, the edits collected
and applied by ``_apply``, inline sources made by ``_source``, anchors made by the plain substitution."""

from __future__ import annotations

import html
import re

from graderctl.normalize import find_doi, normalize_url
from graderctl.parsing import report as R


def reference_candidates(work: str, numbered: bool) -> list[int]:
    """Every place a citation can start: each needle searched with ``str.find``, the URL and DOI needles in
    the text's lower case (a superset of :func:`R._candidates`)."""
    found: list[int] = []
    lowered = work.lower()
    if len(lowered) != len(work):
        lowered = work
    for text, needles in ((work, ("[", "(", "【", "![")), (lowered, ("http", "www.", "doi", "10."))):
        for needle in needles:
            i = text.find(needle)
            while i != -1:
                found.append(i)
                i = text.find(needle, i + 1)
    if numbered:
        found.extend(m.start() for m in R._Find.gem_stop.finditer(work))
        found.extend(i for i, ch in enumerate(work) if ch in R._SUPERSCRIPT_DIGITS)
    return sorted(set(found))


def reference_find(sources: R._Sources, url: str | None, doi: str | None) -> str | None:
    if doi and doi in sources.by_doi:
        return sources.by_doi[doi]
    if url:
        found = sources.by_raw.get(url)
        if found is not None:
            return found
        if sources.listed_urls:
            for listed, sid in sources.listed_urls:
                sources.by_url.setdefault(normalize_url(listed), sid)
            sources.listed_urls.clear()
        if sources.by_url:
            return sources.by_url.get(normalize_url(url))
    return None


def reference_inline(sources: R._Sources, url: str | None, doi: str | None, title: str | None) -> str:
    found = reference_find(sources, url, doi)
    if found is not None:
        return found
    sources.links += 1
    sid = f"link{sources.links}"
    by_id = sources.by_id
    while sid in by_id:
        sources.links += 1
        sid = f"link{sources.links}"
    by_id[sid] = R._source(sid, "", url, doi, title, url or doi or "", "inline")
    if doi and doi not in sources.by_doi:
        sources.by_doi[doi] = sid
    if url:
        sources.by_raw.setdefault(url, sid)
    return sid


def reference_scan_body(
    work: str, sources: R._Sources, link_defs: dict[str, str]
) -> tuple[str, list[tuple[int, int, str, str | None]]]:
    """The working text with the markers blanked, and ``(start, end, marker, source id)`` of each citation."""
    edits: list[tuple[int, int, str | None]] = []
    cites: list[tuple[int, int, str, str | None]] = []
    by_id = sources.by_id
    numbered = any(s.origin in ("list", "definition", "footnote") and s.id.isdigit() for s in by_id.values())
    pos = 0
    for candidate in reference_candidates(work, numbered):
        if candidate < pos:
            continue
        if work[candidate] == "(" and R._paren_inner(work, candidate) is None:
            continue
        m = R._BODY.match(work, candidate)
        if m is None:
            continue
        kind = m.lastgroup
        start, end = m.start(), m.end()
        pos = end
        if kind == "num":
            pairs = []
            for n in R._numbers(m.group("nums")):
                key = str(n)
                sid = key if key in by_id else ("^" + key if "^" + key in by_id else None)
                pairs.append((f"[{key}]", sid))
            if not pairs:
                pos = start + 1
                continue
            edits.append((start, end, None))
            for marker, sid in pairs:
                cites.append((start, end, marker, sid))
        elif kind == "fn":
            fid = m.group("fid")
            sid = "^" + fid if "^" + fid in by_id else (fid if fid in by_id else None)
            edits.append((start, end, None))
            cites.append((start, end, m.group(), sid))
        elif kind == "link":
            text = m.group("ltext").strip()
            raw_url = m.group("lurl").strip()
            if work[start] == "!" or not raw_url or raw_url.startswith("#"):
                digits = text.strip("[]^ ")
                if raw_url.startswith("#") and digits.isdigit() and len(digits) <= 3:
                    edits.append((start, end, None))
                    cites.append((start, end, f"[{digits}]", digits if digits in by_id else None))
                else:
                    edits.append((start, end, None if work[start] == "!" else text))
                continue
            url = R._trim_url(raw_url)
            doi = find_doi(url) if "10." in url else None
            if R._LINK_CITATION_TEXT.match(text) or R._is_url_like(text):
                title, only_cites = None, True
            else:
                title, only_cites = text.strip("*_` "), R._in_parentheses(text, work, start)
            sid = reference_inline(sources, url, doi, title)
            cites.append((start, end, url, sid))
            edits.append((start, end, None if only_cites else text))
        elif kind == "reflink":
            label = (m.group("rlabel") or m.group("rtext")).strip().lower()
            target = link_defs.get(label)
            if target is None:
                pos = start + 1
                continue
            cites.append((start, end, m.group(), target))
            text = m.group("rtext")
            edits.append((start, end, None if R._link_text_is_citation(text, work, start) else text))
        elif kind == "url":
            url = R._trim_url(m.group())
            end = start + len(url)
            pos = end
            if len(url) < 8:
                continue
            doi = find_doi(url) if "10." in url else None
            sid = reference_inline(sources, url, doi, None)
            cites.append((start, end, url, sid))
            edits.append((start, end, None))
        elif kind == "doi":
            raw = R._trim_url(m.group())
            end = start + len(raw)
            pos = end
            doi = find_doi(raw)
            if doi is None:
                continue
            sid = reference_inline(sources, None, doi, None)
            cites.append((start, end, raw, sid))
            edits.append((start, end, None))
        elif kind == "paren":
            inner = m.group("pin")
            if R._YEAR_ONLY.fullmatch(inner):
                before = R._NARRATIVE_NAME.search(work, max(0, start - 80), start)
                if before is None:
                    pos = start + 1
                    continue
                name = before.group(1)
                ok, sid = R._author_year(f"{name}, {inner}", sources, strict=True)
                if not ok:
                    pos = start + 1
                    continue
                edits.append((start, end, None))
                cites.append((before.start(1), end, f"{name} ({inner})", sid))
                continue
            parts = [p for p in re.split(r"[ \t]*;[ \t]*", inner) if p.strip()]
            found = [R._author_year(p, sources, strict=True) for p in parts]
            if not found or not all(ok for ok, _ in found):
                pos = start + 1
                continue
            edits.append((start, end, None))
            for part, (_, sid) in zip(parts, found, strict=True):
                cites.append((start, end, f"({part.strip()})", sid))
        elif kind == "oa":
            key = m.group("oanum")
            edits.append((start, end, None))
            cites.append((start, end, m.group(), key if key in by_id else None))
        elif kind == "needed":
            edits.append((start, end, None))
        elif kind in ("gem", "sup"):
            if not numbered:
                continue
            group = "gemnums" if kind == "gem" else "sup"
            s, e = m.start(group), m.end(group)
            nums = R._numbers(m.group(group).translate(R._SUPERSCRIPT))
            if kind == "sup":
                k = s - 1
                if k >= 0 and work[k].isalnum() and not work[k].isdigit() and not R._sup_after_word(work, k):
                    continue
            if not nums or any(str(x) not in by_id for x in nums):
                continue
            edits.append((s, e, None))
            for x in nums:
                cites.append((s, e, f"[{x}]", str(x)))
    return R._apply(work, edits), cites


def reference_html(text: str) -> str:
    """``_html`` as first written (the anchor's fields read one by one, every substitution run)."""

    def sup(m: re.Match[str]) -> str:
        return R._pad("[" + m.group(1) + "]", len(m.group()))

    def anchor(m: re.Match[str]) -> str:
        url = (m.group("u1") or m.group("u2") or m.group("u3") or "").strip()
        inner = R._HTML_TAG.sub("", m.group("text")).strip()
        inner = html.unescape(" ".join(inner.split()))
        if url.startswith("#"):
            digits = re.sub(r"\D", "", inner)
            return R._pad(f"[{digits}]" if digits and len(digits) <= 3 else inner, len(m.group()))
        return R._pad(f"[{inner}]({url})", len(m.group()))

    text = R._HTML_SUP.sub(sup, text)
    text = R._HTML_ANCHOR.sub(anchor, text)
    text = R._HTML_BLOCK.sub(lambda m: " " * (len(m.group()) - 1) + "\n", text)
    text = R._HTML_TAG.sub(lambda m: " " * len(m.group()), text)
    return R._HTML_ENTITY.sub(lambda m: R._pad(html.unescape(m.group()), len(m.group())), text)
