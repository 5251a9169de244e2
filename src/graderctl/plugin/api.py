"""The grader plugin API: what a grader kind (built-in or third party) is made of and works with.

``GraderKind`` (the base class), ``Verdict`` and ``Usage`` (what it returns), ``GradingContext``, ``Member``
and ``Corpus`` (what it may consult), ``BandParams`` and :func:`decide` (an optional abstention band). This
module knows nothing of how kinds are found: that is :mod:`graderctl.plugin.registry`. Import both through
:mod:`graderctl.plugin`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from graderctl.models.base import Check
from graderctl.models.calset import CorpusDocument, SampleInput
from graderctl.models.grader import JudgeSpec

__all__ = ["BandParams", "Corpus", "GraderKind", "GradingContext", "Member", "Usage", "Verdict", "decide"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and money a model-based grader spent on one sample."""

    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    #: HTTP requests the model's server received for this sample (retries included; a refused connection
    #: is not a request).
    requests: int = 0
    #: Of ``requests``, how many repeated an earlier one (after a 429, a 5xx, a timeout, a dropped line).
    retries: int = 0
    cached: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of grading one input: accepted, rejected, undecided (the grader abstains), or an error.

    An undecided verdict (:meth:`undecided`) is a deliberate abstention: the grader's evidence lies in its
    band between rejecting and accepting (or a model judge replied "unsure"). It is neither an accept, nor a
    reject, nor an error: calibration counts it apart (coverage) and computes the false accept and false
    reject rates on the decided samples only.
    """

    accepted: bool | None
    reason: str
    score: float | None = None
    error: str | None = None
    usage: Usage | None = None
    #: Kind-specific details a person may want in the report (closest passage, failed units, ...).
    details: dict[str, Any] | None = None
    #: True for an undecided verdict (``accepted`` is then ``None`` and ``error`` too).
    abstained: bool = False
    #: For ``graderctl tune``: the number a kind compares with its decision threshold, such that at any
    #: threshold ``t`` the verdict would be an accept exactly when ``decision_score >= t`` (``-inf``: rejected
    #: at every threshold, e.g. a veto). ``None``: ``score`` is that number. Never persisted.
    decision_score: float | None = None

    @classmethod
    def accept(cls, reason: str, score: float | None = None, **kw: Any) -> Verdict:
        return cls(accepted=True, reason=reason, score=score, **kw)

    @classmethod
    def reject(cls, reason: str, score: float | None = None, **kw: Any) -> Verdict:
        return cls(accepted=False, reason=reason, score=score, **kw)

    @classmethod
    def undecided(cls, reason: str, score: float | None = None, **kw: Any) -> Verdict:
        """The grader abstains: ``reason`` says why (e.g. the score lies in the band)."""
        return cls(accepted=None, reason=reason, score=score, abstained=True, **kw)

    @classmethod
    def failed(cls, error: str, **kw: Any) -> Verdict:
        return cls(accepted=None, reason="", error=error, **kw)

    @classmethod
    def by_band(cls, decision: bool | None, reason: str, score: float | None = None, **kw: Any) -> Verdict:
        """An accept (``True``), a reject (``False``) or an undecided verdict (``None``)."""
        if decision is None:
            return cls.undecided(reason, score, **kw)
        return cls(accepted=decision, reason=reason, score=score, **kw)

    @property
    def is_error(self) -> bool:
        return self.accepted is None and not self.abstained

    @property
    def is_undecided(self) -> bool:
        return self.accepted is None and self.abstained

    @property
    def tuning_score(self) -> float | None:
        """``decision_score`` when the kind gave one, else ``score``."""
        return self.decision_score if self.decision_score is not None else self.score


class BandParams(BaseModel):
    """Optional abstention band of a score-based kind (mix into its ``Params``).

    With neither set, the kind decides by ``threshold`` alone (accept when the score is at least it). With
    ``accept_at_or_above`` and/or ``reject_below`` the kind accepts at or above the first, rejects below the
    second and abstains (undecided) in between; a bound left out is the ``threshold``. Unset, they are not
    written into a definition, so they change no existing grader's fingerprint.
    """

    accept_at_or_above: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description=(
            "Accept when the score is at least this (default: threshold); above reject_below: a band."
        ),
    )
    reject_below: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Reject when the score is below this (default: threshold); undecided in between.",
    )

    def band(self, threshold: float) -> tuple[float, float]:
        """``(reject_below, accept_at_or_above)`` with ``threshold`` for a bound left out."""
        accept = self.accept_at_or_above if self.accept_at_or_above is not None else threshold
        reject = self.reject_below if self.reject_below is not None else threshold
        return reject, accept

    def check_band(self, threshold: float) -> None:
        """Raise ``ValueError`` when the band is upside down (for a kind's model validator)."""
        reject, accept = self.band(threshold)
        if reject > accept:
            raise ValueError(
                f"reject_below ({reject:g}) must not be above accept_at_or_above ({accept:g}); "
                "a bound left out is the threshold"
            )


def decide(score: float, reject_below: float, accept_at_or_above: float) -> bool | None:
    """Accept (``True``) at or above ``accept_at_or_above``, reject (``False``) below ``reject_below``,
    undecided (``None``) in between. With equal bounds it is a plain threshold and never undecided."""
    if score >= accept_at_or_above:
        return True
    if score < reject_below:
        return False
    return None


@dataclass
class GradingContext:
    """What a grader may consult beyond its inputs. Built by the services; kinds never read files themselves
    except through ``base_dir`` (e.g. a prompt template next to the definition)."""

    corpus: Corpus | None = None
    judge: JudgeSpec | None = None
    #: Folder of the grader definition, to resolve relative paths in params.
    base_dir: Path | None = None
    #: Fingerprint of the grader (for caches).
    fingerprint: str | None = None
    #: Folder for an on-disk cache; ``None`` disables caching.
    cache_dir: Path | None = None
    #: A composite kind's member graders (``cascade``), built by the services in the order the definition
    #: names them.
    members: list[Member] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Member:
    """One member grader of a composite kind: its reference (``name@version``), its fingerprint and the
    built instance."""

    ref: str
    fingerprint: str
    grader: GraderKind


class GraderKind:
    """Base class of every grader kind (built-in or third party).

    Subclasses set ``name`` (unique), ``checks`` (the checks it can grade; empty = any), ``Params`` (a
    pydantic model of ``[params]``), and implement :meth:`grade_batch`.
    """

    name: ClassVar[str]
    checks: ClassVar[frozenset[Check]] = frozenset()
    #: Whether the kind calls a model (a ``[judge]`` block is then required).
    model_based: ClassVar[bool] = False
    #: Version of the kind's implementation. Part of every grader fingerprint: bump it when a code change can
    #: change a verdict, so trust bound to the old behaviour lapses by itself.
    implementation_version: ClassVar[str] = "1"
    #: Whether verdicts may be kept in the on-disk verdict cache (kinds that call a model or a program and
    #: grade deterministically from their input; the cache key is :meth:`cache_payload` + the fingerprint).
    cacheable: ClassVar[bool] = False

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

    def __init__(self, params: BaseModel, context: GradingContext | None = None) -> None:
        self.params = params
        self.context = context or GradingContext()

    @classmethod
    def referenced_files(cls, params: BaseModel) -> list[str]:
        """Paths (relative to the definition) whose content is part of the grader's identity."""
        return []

    @classmethod
    def member_refs(cls, params: BaseModel) -> list[str]:
        """Grader references (``name@version``) a composite kind is made of; the services load them, check
        them, build them into :attr:`GradingContext.members` and make their fingerprints part of this
        grader's fingerprint. Empty for an ordinary kind."""
        return []

    @classmethod
    def validate_definition(cls, params: BaseModel, base_dir: Path) -> list[str]:
        """Extra checks of a definition beyond its params model; returns problems as messages."""
        return []

    def cache_payload(self, inp: SampleInput) -> Any:
        """What the verdict on ``inp`` depends on besides the grader's fingerprint (the cache key).

        The default is the input itself; a kind that resolves ``source_id`` through the corpus should include
        the resolved text (the LLM judge returns its rendered prompt)."""
        return inp.model_dump(mode="json", exclude_none=True)

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        """Grade every input; return exactly one verdict per input, in order.

        A failure on one input is ``Verdict.failed(...)``; raising fails the whole batch (the runner records
        an error for each of its samples)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (HTTP clients, processes)."""


# --- corpus -------------------------------------------------------------------------------------------


class Corpus:
    """Documents a citation or an evidence item can point at, indexed by id, normalised URL and DOI."""

    def __init__(self, documents: Sequence[CorpusDocument]) -> None:
        from graderctl.normalize import normalize_doi, normalize_url

        self.documents: list[CorpusDocument] = list(documents)
        self.by_id: dict[str, CorpusDocument] = {}
        self.by_url: dict[str, CorpusDocument] = {}
        self.by_doi: dict[str, CorpusDocument] = {}
        for doc in self.documents:
            self.by_id.setdefault(doc.id, doc)
            if doc.url:
                self.by_url.setdefault(normalize_url(doc.url), doc)
            if doc.doi:
                key = normalize_doi(doc.doi)
                if key:
                    self.by_doi.setdefault(key, doc)
        self._lock = threading.Lock()
        self._derived: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.documents)

    def get(self, source_id: str) -> CorpusDocument | None:
        return self.by_id.get(source_id)

    def find_url(self, url: str) -> CorpusDocument | None:
        from graderctl.normalize import normalize_url

        return self.by_url.get(normalize_url(url))

    def find_doi(self, doi: str) -> CorpusDocument | None:
        from graderctl.normalize import normalize_doi

        key = normalize_doi(doi)
        return self.by_doi.get(key) if key else None

    def derived(self, key: str, build: Any) -> Any:
        """Memoise a per-corpus derived structure (e.g. a normalised text index) built by ``build()``."""
        with self._lock:
            if key not in self._derived:
                self._derived[key] = build()
            return self._derived[key]
