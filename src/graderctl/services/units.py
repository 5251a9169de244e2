"""What each check grades in a trial: its units. The one unit builder, used by ``score``, by
``compare --replay`` and by ``graderctl units`` (which prints the units without grading them).

A trial's report is read once into a :class:`ReportView`: its structured ``claims``/``sources`` when it has
claims (they win), else what :func:`graderctl.parsing.parse_report` finds in ``report.text`` (sources the
report lists in ``sources`` are kept and take precedence for the same id). Then:

- ``source_existence``: one unit per citation (``citation:<claim>/<source>``): the cited source as a
  :class:`Citation` with the citation's quote. A citation of a source the report does not list (a fabricated
  reference, or a marker such as ``[7]`` that points to no listed source) is a failed unit and is not sent to
  the grader;
- ``claim_support``: one unit per claim (``claim:<id>``) with the cited sources as evidence (the corpus
  document they resolve to by URL or DOI, else the text the agent captured). A claim with no evidence that can
  be checked fails, and the reason says why;
- ``coverage``: one unit per trial, the whole report against the task's nuggets. A task without nuggets skips
  coverage.

A check that finds no unit at all in a trial is not passed (:data:`NO_CITATIONS`; see
:func:`graderctl.services.score.check_result`) unless the task says citations are not required.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeVar

import msgspec
from pydantic import BaseModel

from graderctl.models import units_data as data
from graderctl.models.base import Check
from graderctl.models.calset import (
    ClaimSupportInput,
    CorpusDocument,
    CoverageInput,
    SampleInput,
    SourceExistenceInput,
)
from graderctl.models.trials import Trial
from graderctl.normalize import normalize_doi, normalize_url
from graderctl.parsing import (
    PARSER,
    ParsedCitation,
    ParsedClaim,
    ParsedReport,
    ParsedSource,
    ParserIdentity,
    parse_report,
)

if TYPE_CHECKING:
    from graderctl.plugin import Corpus

M = TypeVar("M", bound=BaseModel)

#: The reason of a check that found nothing to grade in a trial.
NO_CITATIONS = "no citations found"
#: The checks whose units are citations (a trial without citations cannot pass them).
CITATION_CHECKS = frozenset({Check.source_existence, Check.claim_support})


# ViewSource, ViewCitation, ViewClaim and ReportView are never changed once made: msgspec Structs (frozen,
# and untracked by the cyclic garbage collector: none is ever part of a cycle), several times cheaper to make
# than a dataclass. A text report's view holds the parser's own claims, citations and sources (report_units
# reads them as they are): only the claims and sources of structured reports are made here


class ViewSource(msgspec.Struct, frozen=True, gc=False):
    id: str
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    #: The fetched text of the source, when the agent captured it (structured sources only).
    text: str | None = None
    #: As the report lists it (``[1]``, ``1.``, ``[^a]``); ``None`` for structured sources.
    marker: str | None = None
    #: ``structured``, or where the parser found it: ``list``, ``footnote``, ``definition``, ``inline``.
    origin: str = "structured"


class ViewCitation(msgspec.Struct, frozen=True, gc=False):
    source_id: str | None = None
    url: str | None = None
    doi: str | None = None
    title: str | None = None
    quote: str | None = None
    #: The marker as written in the text (``[3]``, ``(Lewis et al., 2020)``, a URL); ``None`` for structured.
    marker: str | None = None


class ViewClaim(msgspec.Struct, frozen=True, gc=False):
    id: str
    text: str
    citations: tuple[ViewCitation, ...]
    #: Where the claim is in ``report.text`` (parsed claims only).
    span: tuple[int, int] | None = None


#: A source the report lists: a structured one, or the parser's own (a :class:`ParsedSource`, whose ``text``
#: is its entry as the report lists it: nothing of it was captured, as a parsed :class:`ViewSource` would say)
AnySource = ViewSource | ParsedSource

#: A citation as the units are built from it: the view's, or the parser's own (a text report's; it stands for
#: the view citation of its source id, quote and marker, with no URL, DOI or title of its own)
AnyCitation = ViewCitation | ParsedCitation


class ReportView(msgspec.Struct, frozen=True, gc=False):
    """The claims and sources every check's units are built from."""

    origin: Literal["structured", "text", "empty"]
    sources: dict[str, AnySource]
    #: The parser that read ``report.text`` (``None`` for structured reports).
    parser: ParserIdentity | None
    #: What the parser found in ``report.text`` (text reports): its claims are the view's (ids ``c1``,
    #: ``c2``, ...) unless ``own_claims`` is set.
    parsed: ParsedReport | None = None
    #: The claims when they are not the parser's as it gives them: a structured report's, or a text report's
    #: whose citations may point to the sources the report lists in ``sources`` (see :func:`report_view`).
    own_claims: tuple[ViewClaim, ...] | None = None

    @property
    def claims(self) -> tuple[ViewClaim, ...]:
        """The claims as :class:`ViewClaim` (a text report's are made at each use: the units are built from
        the parser's claims themselves)."""
        if self.own_claims is not None:
            return self.own_claims
        return _view_claims(self.parsed, ()) if self.parsed is not None else ()

    @property
    def uncited(self) -> list[data.UncitedClaim]:
        """Sentences that state something and cite nothing, with their span; for structured reports, the
        claims without citations (span ``None``). As the units document shows them (made at each use)."""
        if self.parsed is not None:
            return [data.UncitedClaim(u.text, (u.start, u.end)) for u in self.parsed.uncited]
        return [data.UncitedClaim(c.text, None) for c in self._claims() if not c.citations]

    def _claims(self) -> Sequence[ViewClaim | ParsedClaim]:
        if self.own_claims is not None:
            return self.own_claims
        return self.parsed.claims if self.parsed is not None else ()

    @property
    def cited_claims(self) -> int:
        return sum(1 for c in self._claims() if c.citations)

    @property
    def uncited_claims(self) -> int:
        if self.parsed is not None:
            return len(self.parsed.uncited)
        return sum(1 for c in self._claims() if not c.citations)

    @property
    def missing(self) -> list[tuple[str, str]]:
        """``(claim id, marker)`` of each citation whose marker points to no listed source."""
        return [
            (claim.id, cit.marker or cit.source_id or "?")
            for claim in self.claims
            for cit in claim.citations
            if cit.marker is not None and (cit.source_id is None or cit.source_id not in self.sources)
        ]


def _structured_aliases(n: str) -> tuple[str, ...]:
    return (n, f"s{n}", f"[{n}]", f"ref{n}", f"source{n}", f"src{n}", f"S{n}")


#: The ids of a parsed report's claims (``c1``, ``c2``, ...): made once, shared by every report
_TEXT_CLAIM_IDS = tuple(f"c{i}" for i in range(1, 513))


def _text_claim_id(index: int) -> str:
    """The id of a parsed report's claim ``index`` (from 0)."""
    return _TEXT_CLAIM_IDS[index] if index < 512 else f"c{index + 1}"


def _view_claims(parsed: ParsedReport, structured: Collection[str]) -> tuple[ViewClaim, ...]:
    """A parsed report's claims as :class:`ViewClaim`; a citation whose marker points to no source the text
    lists, but whose number names one of the ``structured`` source ids (``[2]``: ``2``, ``s2``, ``ref2``,
    ...), points to that one."""
    view_claims: list[ViewClaim] = []
    #: the parser gives the claims one citation object per marker, source and quote: so does the view
    made: dict[int, ViewCitation] = {}
    for i, claim in enumerate(parsed.claims):
        cits: list[ViewCitation] = []
        for c in claim.citations:
            view_cit = made.get(id(c))
            if view_cit is None:
                sid = c.source_id
                if sid is None and structured:
                    digits = c.marker.strip("[]^")
                    if digits.isdigit():
                        sid = next((a for a in _structured_aliases(digits) if a in structured), None)
                view_cit = made[id(c)] = ViewCitation(sid, None, None, None, c.quote, c.marker)
            cits.append(view_cit)
        view_claims.append(ViewClaim(_text_claim_id(i), claim.text, tuple(cits), (claim.start, claim.end)))
    return tuple(view_claims)


def report_view(trial: Trial) -> ReportView:
    """Read a trial's report once: structured claims win; else the parsed text."""
    report = trial.report
    structured: dict[str, AnySource] = {
        s.id: ViewSource(s.id, s.url, s.doi, s.title, s.text, None, "structured") for s in report.sources
    }
    text = report.text
    if report.claims or not text or text.isspace():  # not text.strip(), without copying the text
        claims = tuple(
            ViewClaim(
                c.id,
                c.text,
                tuple(ViewCitation(x.source_id, x.url, x.doi, x.title, x.quote, None) for x in c.citations),
            )
            for c in report.claims
        )
        return ReportView("structured" if report.claims else "empty", structured, None, None, claims)
    parsed = parse_report(text)
    # the structured sources first, and they win for the same id
    sources: dict[str, AnySource] = {
        **structured,
        **{s.id: s for s in parsed.sources if s.id not in structured},
    }
    # with listed sources, a marker may point to one of them: the claims are then made as the view's
    return ReportView(
        "text", sources, PARSER, parsed, _view_claims(parsed, structured) if structured else None
    )


# --- units ------------------------------------------------------------------------------------------------


@dataclass
class Unit:
    """One thing a grader judges. ``input`` is ``None`` for a unit that fails without grading (``failure``
    says why)."""

    id: str
    input: SampleInput | None = None
    failure: str | None = None


def _missing_reason(cit: ViewCitation) -> str:
    if cit.marker is not None:
        return (
            f"marker {cit.marker} points to no source listed in the report (a citation to a missing source)"
        )
    return f"cites source {cit.source_id!r}, which is not in the report's sources (a fabricated reference)"


def _citation_input(
    cit: ViewCitation, source: AnySource | None
) -> tuple[data.SourceExistenceInput | None, str | None]:
    """A citation's ``source_existence`` input, or why it has none (the unit fails without grading).
    ``source``: the listed source it points to (``None``: none)."""
    if cit.source_id is not None or cit.marker is not None:
        if source is None:
            return None, _missing_reason(cit)
        if source.url or source.doi:
            citation = data.Citation(None, source.url, source.doi, source.title, cit.quote)
        elif source.origin == "structured":
            citation = data.Citation(source.id, None, None, source.title, cit.quote)
        else:
            shown = f" ({source.title!r})" if source.title else ""
            return None, (
                f"source {source.marker or source.id}{shown} gives no URL or DOI, so whether it exists "
                "cannot be checked"
            )
    elif cit.url or cit.doi:
        citation = data.Citation(None, cit.url, cit.doi, cit.title, cit.quote)
    else:
        return None, "the citation names no source (no source_id, url or doi)"
    return data.SourceExistenceInput(citation), None


def _corpus_document(source: AnySource | ViewCitation, corpus: Corpus | None) -> CorpusDocument | None:
    if corpus is None:
        return None
    doc = None
    if source.doi:
        doc = corpus.find_doi(source.doi)
    if doc is None and source.url:
        doc = corpus.find_url(source.url)
    if (
        doc is None
        and not (source.url or source.doi)
        and isinstance(source, ViewSource)
        and source.origin == "structured"
    ):
        doc = corpus.get(source.id)
    return doc


def _evidence(
    cit: ViewCitation, index: int, source: AnySource | None, corpus: Corpus | None, no_text: str
) -> tuple[str, data.Evidence] | str:
    """What a citation gives its claim's ``claim_support`` unit: evidence (with the key that tells it apart
    from the claim's other evidence), or, as a string, why it gives none. ``source``: the listed source it
    points to (``None``: none)."""
    target: AnySource | ViewCitation | None
    if cit.source_id is not None or cit.marker is not None:
        target = source
        name = cit.marker or cit.source_id or f"citation #{index}"
        if target is None:
            what = "no source listed for it" if cit.marker is not None else "not in the report's sources"
            return f"{name} ({what})"
    else:
        target, name = cit, f"citation #{index}"
    doc = _corpus_document(target, corpus) if corpus is not None else None
    if doc is not None:
        return doc.id, data.Evidence(doc.id, None)
    text = target.text if isinstance(target, ViewSource) else None  # captured (structured sources only)
    if text and text.strip():
        return "text:" + text, data.Evidence(None, text)
    return name + no_text


#: Why a claim has no evidence to be checked against, before what it cites.
_NO_EVIDENCE = "no evidence to check the claim against: cites "

#: What one citation gives (a plain tuple: a NamedTuple's ``__new__`` is a Python function, made for every
#: citation): how the units document shows it, and the list of it alone (a claim citing only it shows that
#: list: such claims share it); what its ``source_existence`` unit's id ends with (after
#: ``citation:<claim>/``); its ``source_existence`` input, or why there is none; what it gives its claim's
#: ``claim_support`` unit (see :func:`_evidence`), and, when that is no evidence, the failure of a claim that
#: cites only it; its marker if it points to no listed source, else None.
_Given = tuple[
    data.UnitsCitation,
    list[data.UnitsCitation],
    str,
    data.SourceExistenceInput | None,
    str | None,
    tuple[str, data.Evidence] | str,
    str | None,
    str | None,
]


def _given(
    cit: AnyCitation,
    index: int,
    sources: dict[str, AnySource],
    shown_sources: dict[str, data.UnitsSource],
    corpus: Corpus | None,
    no_text: str,
) -> _Given:
    sid = cit.source_id
    marker = cit.marker
    source = sources.get(sid) if sid is not None else None
    gives: tuple[str, data.Evidence] | str
    se_input: data.SourceExistenceInput | None
    se_failure: str | None
    if (
        source is not None
        and corpus is None
        and (source.url or source.doi)
        and (type(source) is ParsedSource or not source.text)
    ):
        # the common case (a parsed report's listed source, no corpus): what the general path below gives
        # for it, without the calls (a source with a URL or DOI exists if it can be found; with no corpus
        # and no captured text, which a parser's source never has, there is no evidence)
        listed = shown_sources[sid]  # type: ignore[index]  # sid is not None: it found a source
        shown = data.UnitsCitation(marker, sid, listed.url, listed.doi, listed.title, cit.quote, False)
        citation = data.Citation(None, source.url, source.doi, source.title, cit.quote)
        se_input, se_failure = data.SourceExistenceInput(citation), None
        gives = (marker or sid or f"citation #{index}") + no_text
    else:
        if not isinstance(cit, ViewCitation):  # the parser's: as the view citation it stands for
            cit = ViewCitation(sid, None, None, None, cit.quote, marker)
        if source is not None:
            listed = shown_sources[sid]  # type: ignore[index]  # sid is not None: it found a source
            shown = data.UnitsCitation(marker, sid, listed.url, listed.doi, listed.title, cit.quote, False)
        else:  # a citation of no listed source (missing), or a structured citation that names its URL or DOI
            shown = data.UnitsCitation(
                marker,
                sid if marker is None else None,
                cit.url,
                normalize_doi(cit.doi) if cit.doi else None,
                cit.title,
                cit.quote,
                sid is not None or marker is not None,
            )
        se_input, se_failure = _citation_input(cit, source)
        gives = _evidence(cit, index, source, corpus, no_text)
    return (
        shown,
        [shown],
        sid or marker or f"#{index}",
        se_input,
        se_failure,
        gives,
        _NO_EVIDENCE + gives if isinstance(gives, str) else None,
        marker if source is None else None,
    )


class ReportUnits(NamedTuple):
    """Everything a report view gives, in one pass over its claims and citations."""

    #: The claims as the units document shows them (each citation with its source's URL, DOI and title).
    claims: list[data.UnitsClaim]
    #: The sources as the units document shows them (normalised URL and DOI), by id.
    sources: dict[str, data.UnitsSource]
    #: The citations whose marker points to no listed source.
    missing: list[data.MissingSource]
    #: ``source_existence``: one unit per citation (``citation:<claim>/<source>``).
    citation_units: list[data.CheckUnit]
    #: ``claim_support``: one unit per claim (``claim:<id>``).
    claim_units: list[data.CheckUnit]
    #: How many of the claims cite at least one source.
    cited: int


def _claim_keys(cid: str) -> tuple[str, str, str]:
    """A claim's id, the prefix of its ``source_existence`` unit ids, its ``claim_support`` unit id."""
    return cid, f"citation:{cid}/", f"claim:{cid}"


#: The keys of the claims ``c1``, ``c2``, ... (every parsed report's claim ids): made once
_TEXT_CLAIM_KEYS = tuple(_claim_keys(cid) for cid in _TEXT_CLAIM_IDS)


def report_units(view: ReportView, corpus: Corpus | None) -> ReportUnits:
    """The ``source_existence`` and ``claim_support`` units of a report (inputs as the Structs of
    :mod:`graderctl.models.units_data`: printed by ``units``, and the pydantic inputs ``score`` grades are
    validated from them), with its claims, sources and missing sources as the units document shows them.
    What a citation gives is worked out once per citation object (the parser, and so the view, shares one
    object among the claims for each marker, source and quote), and then shared."""
    sources = view.sources
    shown_sources = {
        sid: data.UnitsSource(
            sid,
            s.marker,
            s.origin,
            s.url,
            normalize_url(s.url) if s.url else None,
            normalize_doi(s.doi) if s.doi else None,
            s.title,
        )
        for sid, s in sources.items()
    }
    no_text = (
        " (" + ("no corpus given" if corpus is None else "not in the corpus") + ", and the agent captured no "
        "text of it)"
    )
    rows: Iterable[tuple[tuple[str, str, str], ViewClaim | ParsedClaim, tuple[int, int] | None]]
    own = view.own_claims
    if own is not None:
        rows = zip([_claim_keys(c.id) for c in own], own, [c.span for c in own], strict=True)
    else:  # a text report's claims as the parser gives them, with their ids (see ReportView.claims)
        found = view.parsed.claims if view.parsed is not None else ()
        keys = _TEXT_CLAIM_KEYS
        if len(found) > len(keys):
            keys = (*keys, *(_claim_keys(_text_claim_id(i)) for i in range(len(keys), len(found))))
        rows = zip(keys, found, [(c.start, c.end) for c in found], strict=False)  # keys: as many or more
    #: what each citation object gives, by its id
    known: dict[int, _Given] = {}
    used: dict[str, int] = {}
    claims: list[data.UnitsClaim] = []
    missing: list[data.MissingSource] = []
    citation_units: list[data.CheckUnit] = []
    claim_units: list[data.CheckUnit] = []
    uncited = 0
    CheckUnit, MissingSource, ClaimSupportInput = data.CheckUnit, data.MissingSource, data.ClaimSupportInput
    UnitsClaim = data.UnitsClaim
    #: a parsed report's claim ids (c1, c2, ...) are all different (and have no "/"): a unit id can then only
    #: repeat within a claim
    unique_ids = view.origin == "text"
    for (cid, prefix, claim_uid), claim, span in rows:
        cits: Sequence[AnyCitation] = claim.citations
        if unique_ids and len(cits) == 1:
            # the common case: what the loop below does for a claim's one citation, without the lists of
            # what its citations give and without looking for its unit id among those given before (none can
            # be: no other claim's ids start with this claim's prefix)
            cit = cits[0]
            given = known.get(id(cit))
            if given is None:
                given = _given(cit, 1, sources, shown_sources, corpus, no_text)
                if cit.marker or cit.source_id:
                    known[id(cit)] = given
            _, alone, unit, se_input, se_failure, gives, no_evidence, marker_missing = given
            if marker_missing is not None:
                missing.append(MissingSource(cid, marker_missing))
            citation_units.append(CheckUnit(prefix + unit, se_input, se_failure))
            claims.append(UnitsClaim(cid, claim.text, span, alone))
            if isinstance(gives, str):
                claim_units.append(CheckUnit(claim_uid, None, no_evidence))
            else:
                claim_units.append(CheckUnit(claim_uid, ClaimSupportInput(claim.text, [gives[1]]), None))
            continue
        shown: list[data.UnitsCitation] = []
        gave: list[_Given] = []
        index = 0  # the citation's place in the claim (counted: an enumerate per claim costs twice as much)
        for cit in cits:
            index += 1  # noqa: SIM113
            given = known.get(id(cit))
            if given is None:
                given = _given(cit, index, sources, shown_sources, corpus, no_text)
                if cit.marker or cit.source_id:  # what it gives does not depend on where it is in the claim
                    known[id(cit)] = given
            shown_cit, _, unit, se_input, se_failure, _, _, marker_missing = given
            shown.append(shown_cit)
            gave.append(given)
            if marker_missing is not None:
                missing.append(MissingSource(cid, marker_missing))
            uid = prefix + unit
            if uid in used:
                times = used[uid] = used[uid] + 1
                uid += f"#{times}"
            else:
                used[uid] = 1
            citation_units.append(CheckUnit(uid, se_input, se_failure))
        claims.append(UnitsClaim(cid, claim.text, span, shown))
        if not gave:
            uncited += 1
            claim_units.append(
                CheckUnit(claim_uid, None, "the claim cites no source, so nothing supports it")
            )
            continue
        evidence: list[data.Evidence] = []
        seen: set[str] = set()
        unresolved: list[str] = []
        for given in gave:
            gives = given[5]
            if isinstance(gives, str):
                unresolved.append(gives)
            elif gives[0] not in seen:
                seen.add(gives[0])
                evidence.append(gives[1])
        if evidence:
            claim_units.append(CheckUnit(claim_uid, ClaimSupportInput(claim.text, evidence), None))
        else:
            claim_units.append(CheckUnit(claim_uid, None, _NO_EVIDENCE + "; ".join(unresolved)))
    return ReportUnits(claims, shown_sources, missing, citation_units, claim_units, len(claims) - uncited)


def _as_model(model: type[M], payload: data.UnitInput) -> M:
    """The pydantic input ``score`` grades, validated from the unit's Struct."""
    return model.model_validate(msgspec.to_builtins(payload))


def citation_units(trial: Trial, view: ReportView | None = None) -> list[Unit]:
    view = view if view is not None else report_view(trial)
    return [
        Unit(u.id, failure=u.failure)
        if u.input is None
        else Unit(u.id, _as_model(SourceExistenceInput, u.input))
        for u in report_units(view, None).citation_units
    ]


def claim_units(trial: Trial, corpus: Corpus | None, view: ReportView | None = None) -> list[Unit]:
    view = view if view is not None else report_view(trial)
    return [
        Unit(u.id, failure=u.failure)
        if u.input is None
        else Unit(u.id, _as_model(ClaimSupportInput, u.input))
        for u in report_units(view, corpus).claim_units
    ]


def coverage_unit(trial: Trial) -> Unit | None:
    if not trial.task.nuggets:
        return None
    return Unit(
        "report",
        input=CoverageInput(
            question=trial.task.question, nuggets=trial.task.nuggets, report=trial.report.text
        ),
    )


def build_units(
    check: Check, trial: Trial, corpus: Corpus | None, view: ReportView | None = None
) -> list[Unit] | None:
    """The units of one check for one trial; ``None`` when the check does not apply (coverage without
    nuggets). Pass the trial's :func:`report_view` when building several checks' units, to read it once."""
    if check is Check.source_existence:
        return citation_units(trial, view)
    if check is Check.claim_support:
        return claim_units(trial, corpus, view)
    unit = coverage_unit(trial)
    return None if unit is None else [unit]


# --- the units document (`graderctl units`) ------------------------------------------------------------
# Built of the msgspec Structs of graderctl.models.units_data (this runs over every trial and must be fast):
# field for field graderctl.models.units.UnitsDocument, whose JSON Schema is shipped (``graderctl schema
# units``) and which the tests validate real documents against.

#: A check that does not apply (one object, shared by every trial it concerns).
_NOT_APPLICABLE = data.CheckUnits(False, [], "the task has no nuggets")


@functools.cache
def parser_info(parser: ParserIdentity) -> data.ParserInfo:
    return data.ParserInfo(parser.name, parser.version, parser.fingerprint)


def _check_units(plan: list[data.CheckUnit] | None, check: Check, trial: Trial) -> data.CheckUnits:
    if plan is None:
        return _NOT_APPLICABLE
    note = None
    if not plan and check in CITATION_CHECKS:
        note = NO_CITATIONS + ("" if trial.task.requires_citations else "; not required by the task")
    return data.CheckUnits(True, plan, note)


def _coverage_plan(trial: Trial) -> list[data.CheckUnit] | None:
    task = trial.task
    if not task.nuggets:
        return None
    nuggets = [data.Nugget(n.text, n.importance) for n in task.nuggets]
    return [data.CheckUnit("report", data.CoverageInput(task.question, nuggets, trial.report.text), None)]


def trial_units(trial: Trial, corpus: Corpus | None) -> data.TrialUnits:
    """Exactly what each check would grade in ``trial`` (the units ``score`` builds), without grading."""
    return _trial_row(trial, corpus)[0]


def _trial_row(trial: Trial, corpus: Corpus | None) -> tuple[data.TrialUnits, int]:
    """:func:`trial_units`, and how many of the trial's claims cite a source."""
    view = report_view(trial)
    units = report_units(view, corpus)
    row = data.TrialUnits(
        trial.task_id,
        trial.trial_id,
        view.origin,
        parser_info(view.parser) if view.parser is not None else None,
        trial.task.requires_citations,
        units.claims,
        list(units.sources.values()),
        view.uncited,
        units.missing,
        data.UnitsChecks(
            _check_units(units.citation_units, Check.source_existence, trial),
            _check_units(units.claim_units, Check.claim_support, trial),
            _check_units(_coverage_plan(trial), Check.coverage, trial),
        ),
    )
    return row, units.cited


class _Totals:
    """The document's ``summary``, counted a trial at a time."""

    __slots__ = (
        "citations",
        "cited",
        "claims",
        "empty",
        "from_text",
        "missing",
        "no_citations",
        "structured",
        "trials",
        "uncited",
    )

    def __init__(self) -> None:
        self.trials = self.from_text = self.structured = self.empty = 0
        self.claims = self.cited = self.citations = self.uncited = self.missing = self.no_citations = 0

    def add(self, row: data.TrialUnits, cited: int) -> None:
        """Count ``row``, whose claims cite a source ``cited`` times (its units are built counting them)."""
        self.trials += 1
        origin = row.units_from
        if origin == "text":
            self.from_text += 1
        elif origin == "structured":
            self.structured += 1
        elif origin == "empty":
            self.empty += 1
        self.claims += len(row.claims)
        self.cited += cited
        citations = row.checks.source_existence.units  # one unit per citation
        self.citations += len(citations)
        self.uncited += len(row.uncited_claims)
        self.missing += len(row.missing_sources)
        if row.requires_citations and not citations:
            self.no_citations += 1

    def summary(self) -> data.UnitsSummary:
        cited, uncited = self.cited, self.uncited
        return data.UnitsSummary(
            self.trials,
            self.from_text,
            self.structured,
            self.empty,
            self.claims,
            self.citations,
            uncited,
            self.missing,
            self.no_citations,
            cited / (cited + uncited) if cited + uncited else None,
        )


def units_document(
    trials: Iterable[Trial],
    corpus: Corpus | None,
    *,
    trials_file: str,
    corpus_file: str | None,
    row_sink: Callable[[data.TrialUnits], None] | None = None,
) -> data.UnitsDocument:
    """The ``units`` document. With ``row_sink``, each trial's row is handed to it as soon as it is made and
    not kept: the document's ``trials`` is empty (for a writer that streams the trials, see
    :class:`graderctl.render.units.UnitsJsonWriter`)."""
    totals = _Totals()
    rows: list[data.TrialUnits] = []
    keep = rows.append if row_sink is None else row_sink
    for trial in trials:
        row, cited = _trial_row(trial, corpus)
        totals.add(row, cited)
        keep(row)
    return data.UnitsDocument(
        1, "units", trials_file, corpus_file, parser_info(PARSER), totals.summary(), rows
    )


def list_units(
    trials_path: Path,
    *,
    root: Path,
    corpus_path: Path | None = None,
    row_sink: Callable[[data.TrialUnits], None] | None = None,
) -> tuple[data.UnitsDocument, list[str]]:
    """Read a trials file (and the corpus: ``corpus_path``, else ``corpus.jsonl`` beside the trials) and
    return the units document with notes (with ``row_sink``: its ``trials`` empty, each handed to the sink
    instead, see :func:`units_document`). Raises :class:`~graderctl.errors.InvalidInputError`."""
    from graderctl.store.inspect_logs import looks_like_inspect_log
    from graderctl.store.readers import display_path, paused_gc, recorded_path
    from graderctl.store.trials import read_trials

    notes: list[str] = []
    pages: list[CorpusDocument] = []
    if looks_like_inspect_log(trials_path):  # an Inspect AI log: its samples, and the pages its agents read
        from graderctl.services.trials_import import log_trials_and_pages

        trials, pages = log_trials_and_pages(trials_path, root)
        notes.append(f"{display_path(trials_path, root)} is an Inspect AI log: {len(trials)} trial(s)")
    else:
        with paused_gc():  # thousands of trials, none part of a cycle: nothing for the collector to find
            trials = read_trials(trials_path, root)
    corpus, corpus_path = corpus_with_pages(trials_path, corpus_path, pages, root, notes)
    if corpus is None:
        notes.append(
            "no corpus (--corpus PATH): claim_support evidence can only come from text the agent captured in "
            "report.sources"
        )
    # the document is hundreds of thousands of small, acyclic objects and lists: the cyclic garbage collector
    # would walk all of them again and again as they pile up (a quarter of the time on 2,000 reports, more
    # with more); reference counting frees everything anyway
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        document = units_document(
            trials,
            corpus,
            trials_file=recorded_path(trials_path, root),
            corpus_file=recorded_path(corpus_path, root) if corpus_path is not None else None,
            row_sink=row_sink,
        )
    finally:
        if gc_was_on:
            gc.enable()
    return document, notes


def corpus_with_pages(
    trials_path: Path,
    corpus_path: Path | None,
    pages: Sequence[CorpusDocument],
    root: Path,
    notes: list[str],
) -> tuple[Corpus | None, Path | None]:
    """The corpus of a run over ``trials_path`` (``score`` and ``units``) and the file it was read from:
    ``corpus_path``, else a ``corpus.jsonl`` beside the trials, plus the ``pages`` the agents read through
    tools (an Inspect log) that it does not already hold. Says in ``notes`` where the documents come from."""
    from graderctl.store.layout import corpus_beside
    from graderctl.store.readers import display_path
    from graderctl.store.trials import read_corpus

    if corpus_path is None:
        beside = corpus_beside(trials_path)
        if beside is not None:
            corpus_path = beside
            notes.append(f"using the corpus beside the trials: {display_path(beside, root)}")
    corpus = read_corpus(corpus_path, root) if corpus_path is not None else None
    if pages:
        from graderctl.plugin import Corpus

        ids = {d.id for d in corpus.documents} if corpus is not None else set()
        corpus = Corpus(
            [*(corpus.documents if corpus is not None else []), *(d for d in pages if d.id not in ids)]
        )
        notes.append(f"the {len(pages)} page(s) the agents read through tools are part of the corpus")
    return corpus, corpus_path
