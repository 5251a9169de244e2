"""Bias probes: pure, deterministic transformations of sample inputs (no I/O, no grading).

Each transformation takes a sample input (any of the three shapes) and a seed string (normally
``"<seed>:<probe>:<sample id>"``), and returns a :class:`Transformed` with the new input, whether anything
changed, and a note saying what was done. The same seed always gives the same output.

- :func:`pad` (``length`` probe, for known-bad samples): adds on-topic but uninformative text to the answer
  being judged: restatements of what it already says, hedges and filler sentences that add no support and no
  new facts (no numbers, names, negations or claims). The padding is at least twice as long as the answer
  (and at least 800 characters), so a judge that prefers long answers shows it. A bad sample stays bad.
- :func:`reorder` (``order`` probe): shuffles the order of evidence passages (claim support) or nuggets
  (coverage); the set of texts is unchanged, so no verdict should change. A source-existence citation has
  nothing to reorder (``changed`` is false).
- :func:`reformat` (``format`` probe, for known-good samples): legitimate rewrites that keep the meaning:
  typographic quotes and apostrophes, Markdown (emphasis, headings, bullet lists), line breaks between
  sentences, another citation style (``[1]`` -> ``[^1]``, a DOI as a ``https://doi.org/`` link, a URL in angle
  brackets). A good sample stays good.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from graderctl.language.sentences import split_sentences
from graderctl.models.calset import (
    Citation,
    ClaimSupportInput,
    CoverageInput,
    Evidence,
    Nugget,
    SampleInput,
    SourceExistenceInput,
)

__all__ = ["PROBES", "Transformed", "pad", "reformat", "reorder", "typographic_quotes"]

PROBES = ("length", "order", "format")


@dataclass(frozen=True)
class Transformed:
    input: SampleInput
    changed: bool
    note: str


# --- padding ------------------------------------------------------------------------------------------

_RESTATE = (
    "In other words, {s}",
    "To restate the main point: {s}",
    "Put simply, {s}",
    "To summarise what was said above: {s}",
)
_HEDGES = (
    "That said, the details may vary depending on the context.",
    "It is worth keeping in mind that the picture can be more nuanced than a single sentence suggests.",
    "As with any question of this kind, some caution is warranted when interpreting it.",
    "Reasonable readers may weigh these considerations somewhat differently.",
    "This should be read with the usual caveats in mind.",
    "Of course, much depends on how the question is framed.",
)
_FILLER = (
    "This point is relevant to the question at hand.",
    "It is an important consideration for anyone looking into the matter.",
    "The matter has been discussed from several angles over time.",
    "Further context can help in understanding this point.",
    "This is one of the aspects that readers tend to ask about.",
    "Taken together, this gives a useful overall picture of the topic.",
    "It is helpful to keep the broader context in view here.",
    "The discussion above is meant to give a clear and complete account.",
)
_MIN_EXTRA = 800


def _rng(seed: str) -> random.Random:
    return random.Random(seed)


def _lower_first(sentence: str) -> str:
    # "The rate rose." -> "the rate rose." unless the first word looks like a name or an acronym.
    first = sentence.split(" ", 1)[0]
    if len(first) > 1 and first[0].isupper() and first[1:].islower() and first not in {"I"}:
        return sentence[0].lower() + sentence[1:]
    return sentence


def padding_for(answer: str, seed: str) -> str:
    """Uninformative text for ``answer``: restatements of its own sentences, hedges and filler, in a
    seed-determined order, at least twice as long as the answer and at least 800 characters."""
    rng = _rng(seed)
    sentences = split_sentences(answer, cautious=True) or [answer.strip()]
    target = max(2 * len(answer), _MIN_EXTRA)
    restate = list(_RESTATE)
    hedges = list(_HEDGES)
    filler = list(_FILLER)
    rng.shuffle(restate)
    rng.shuffle(hedges)
    rng.shuffle(filler)
    parts: list[str] = []
    size = 0
    i = 0
    while size < target:
        pick = i % 3
        if pick == 0 and sentences:
            s = sentences[(i // 3) % len(sentences)].strip()
            if s and s[-1] not in ".!?":
                s += "."
            text = restate[(i // 3) % len(restate)].format(s=_lower_first(s))
        elif pick == 1:
            text = hedges[(i // 3) % len(hedges)]
        else:
            text = filler[(i // 3) % len(filler)]
        parts.append(text)
        size += len(text) + 1
        i += 1
    return " ".join(parts)


def pad(inp: SampleInput, seed: str) -> Transformed:
    """Make the answer being judged longer without making it more correct (see the module docstring)."""
    if isinstance(inp, ClaimSupportInput):
        extra = padding_for(inp.claim, seed)
        claim = _joined(inp.claim, extra)
        return Transformed(
            inp.model_copy(update={"claim": claim}),
            True,
            f"claim padded by {len(claim) - len(inp.claim)} chars",
        )
    if isinstance(inp, CoverageInput):
        extra = padding_for(inp.report, seed)
        report = _joined(inp.report, extra, sep="\n\n")
        return Transformed(
            inp.model_copy(update={"report": report}),
            True,
            f"report padded by {len(report) - len(inp.report)} chars",
        )
    if isinstance(inp, SourceExistenceInput):
        c = inp.citation
        base = c.title or ""
        subtitle = padding_for(base or "this source", seed).rstrip(".")
        title = f"{base}: {subtitle}" if base else subtitle
        citation = c.model_copy(update={"title": title})
        return Transformed(
            inp.model_copy(update={"citation": citation}),
            True,
            f"title padded by {len(title) - len(base)} chars",
        )
    raise TypeError(f"unknown input type {type(inp).__name__}")


def _joined(text: str, extra: str, sep: str = " ") -> str:
    text = text.rstrip()
    if text and text[-1] not in ".!?\"'”’)":
        text += "."
    return f"{text}{sep}{extra}"


# --- reordering ---------------------------------------------------------------------------------------


def _shuffled(n: int, seed: str) -> list[int]:
    """A seed-determined permutation of ``range(n)`` that differs from the identity (for n >= 2)."""
    order = list(range(n))
    if n < 2:
        return order
    rng = _rng(seed)
    for _ in range(20):
        rng.shuffle(order)
        if order != list(range(n)):
            return order
    return list(reversed(range(n)))


def reorder(inp: SampleInput, seed: str) -> Transformed:
    """Shuffle evidence passages (claim support) or nuggets (coverage)."""
    if isinstance(inp, ClaimSupportInput):
        if len(inp.evidence) >= 2:
            order = _shuffled(len(inp.evidence), seed)
            evidence: list[Evidence] = [inp.evidence[i] for i in order]
            return Transformed(inp.model_copy(update={"evidence": evidence}), True, f"evidence order {order}")
        return Transformed(inp, False, "a single evidence passage: nothing to reorder")
    if isinstance(inp, CoverageInput):
        if len(inp.nuggets) >= 2:
            order = _shuffled(len(inp.nuggets), seed)
            nuggets: list[Nugget] = [inp.nuggets[i] for i in order]
            return Transformed(inp.model_copy(update={"nuggets": nuggets}), True, f"nugget order {order}")
        return Transformed(inp, False, "a single nugget: nothing to reorder")
    if isinstance(inp, SourceExistenceInput):
        return Transformed(inp, False, "a single citation: nothing to reorder")
    raise TypeError(f"unknown input type {type(inp).__name__}")


# --- legitimate rewrites ------------------------------------------------------------------------------

_DOUBLE_QUOTED = re.compile(r'"([^"\n]+)"')
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")
_SINGLE_QUOTED = re.compile(r"(?<![A-Za-z])'([^'\n]+)'(?![A-Za-z])")
_NUMERIC_MARKER = re.compile(r"\[(\d{1,3})\]")


def typographic_quotes(text: str) -> str:
    """Straight quotes to curly ones: ``"x"`` -> ``“x”``, ``it's`` -> ``it’s``, ``'x'`` -> ``‘x’``."""
    text = _DOUBLE_QUOTED.sub(lambda m: f"“{m.group(1)}”", text)
    text = _APOSTROPHE.sub("’", text)
    return _SINGLE_QUOTED.sub(lambda m: f"‘{m.group(1)}’", text)


def _footnote_markers(text: str) -> str:
    """``[1]`` -> ``[^1]`` (Markdown footnote style); other text unchanged."""
    return _NUMERIC_MARKER.sub(lambda m: f"[^{m.group(1)}]", text)


def _emphasise(text: str) -> str:
    """Markdown emphasis around the whole text (before any trailing full stop)."""
    body = text.strip()
    end = ""
    if body.endswith((".", "!", "?")):
        body, end = body[:-1], body[-1]
    if not body or "*" in body or "_" in body:
        return text
    return f"**{body}**{end}"


def _sentence_lines(text: str) -> str:
    sentences = split_sentences(text, cautious=True)
    return "\n".join(sentences) if len(sentences) > 1 else text


def _markdown_report(text: str, variant: int) -> str:
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    out: list[str] = []
    for para in paragraphs:
        sentences = split_sentences(para, cautious=True)
        if variant == 0 and len(sentences) > 1:
            out.append("\n".join(f"- {s}" for s in sentences))
        else:
            out.append(_sentence_lines(para))
    body = "\n\n".join(out)
    if variant == 1:
        body = "## Findings\n\n" + body
    return body


def reformat(inp: SampleInput, seed: str) -> Transformed:
    """A meaning-preserving rewrite of the text a grader judges (see the module docstring)."""
    rng = _rng(seed)
    notes: list[str] = []
    if isinstance(inp, ClaimSupportInput):
        claim = inp.claim
        new = typographic_quotes(claim)
        if new != claim:
            notes.append("typographic quotes")
        marked = _footnote_markers(new)
        if marked != new:
            notes.append("footnote-style citation markers")
        new = marked
        lined = _sentence_lines(new)
        if lined != new:
            notes.append("one sentence per line")
            new = lined
        else:
            emphasised = _emphasise(new)
            if emphasised != new:
                notes.append("Markdown emphasis")
                new = emphasised
        return Transformed(
            inp.model_copy(update={"claim": new}), new != claim, ", ".join(notes) or "unchanged"
        )
    if isinstance(inp, CoverageInput):
        report = inp.report
        new = _markdown_report(_footnote_markers(typographic_quotes(report)), rng.randrange(2))
        if typographic_quotes(report) != report:
            notes.append("typographic quotes")
        if _footnote_markers(report) != report:
            notes.append("footnote-style citation markers")
        notes.append("Markdown layout, one sentence per line")
        return Transformed(inp.model_copy(update={"report": new}), new != report, ", ".join(notes))
    if isinstance(inp, SourceExistenceInput):
        c = inp.citation
        update: dict[str, str] = {}
        if c.doi and not c.doi.lower().startswith(("http", "doi:")):
            update["doi"] = f"https://doi.org/{c.doi.strip()}"
            notes.append("DOI as a doi.org link")
        elif c.doi and c.doi.lower().startswith(
            ("http://doi.org/", "https://doi.org/", "https://dx.doi.org/")
        ):
            update["doi"] = "doi:" + c.doi.split("doi.org/", 1)[1]
            notes.append("DOI link as doi:")
        if c.url and not c.url.startswith("<"):
            update["url"] = f"<{c.url.strip()}>"
            notes.append("URL in angle brackets")
        if c.title:
            title = typographic_quotes(c.title)
            if title != c.title:
                update["title"] = title
                notes.append("typographic quotes in the title")
        if c.quote:
            quote = typographic_quotes(c.quote)
            if quote != c.quote:
                notes.append("typographic quotes in the quote")
            words = quote.split(" ")
            if len(words) >= 8:  # as when a quote is copied from a PDF: a line break between two words
                cut = len(words) // 2
                quote = " ".join(words[:cut]) + "\n" + " ".join(words[cut:])
                notes.append("a line break in the quote")
            update["quote"] = quote
        citation: Citation = c.model_copy(update=update)
        changed = citation != c
        return Transformed(
            inp.model_copy(update={"citation": citation}), changed, ", ".join(notes) or "unchanged"
        )
    raise TypeError(f"unknown input type {type(inp).__name__}")
