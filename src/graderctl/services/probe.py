"""``graderctl probe``: does a grader's verdict move when it should not?

Each probe grades the set's samples as they are and transformed (see :mod:`graderctl.probes`), pairs the two
outcomes of every sample, and asks whether the relevant error rate rises beyond a margin:

- ``length``: known-bad samples padded with uninformative text. The false accept rate must not rise.
- ``order``: evidence passages / nuggets shuffled. The share of flipped outcomes must stay within the margin.
- ``format``: known-good samples rewritten legitimately (quotes, Markdown, line breaks, citation style).
  The false reject rate must not rise.
- ``self``: (model-based graders) the false accept rate on known-bad samples written by the judge's own model
  family against samples written by other families. It must not be higher for the judge's own family.

A paired probe reports the change in the rate with Tango's 90% interval and the exact McNemar p-value. Every
probe ends in one ``outcome``:

- ``biased``: the rate rises by more than ``margin`` and the interval's lower end is above zero (the rise is
  both material and not noise); ``order``: more than ``margin`` of the outcomes flip;
- ``no_bias``: the interval's upper end is at most ``margin`` (the evidence rules out a larger rise);
- ``inconclusive``: neither (too few usable samples, or an interval wider than the margin): the probe does not
  say "no bias";
- ``not_applicable``: nothing to probe (no samples of the kind, a transformation that changes nothing).

``self`` compares two independent groups with :func:`graderctl.stats.self_preference` (Newcombe's hybrid score
interval; at least 30 known-bad samples per group before anything but a bias is claimed), the same rule as the
``score --allow-self-grading`` override.

Samples on which the grader erred (before or after the transformation) are left out of the pairing and
counted. Each probe writes ``reports/probes/<set>/<name>@<version>-<probe>.json`` and ``.md`` atomically.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, NotRequired, TypedDict, cast

from graderctl.errors import GraderRunError, UsageError
from graderctl.identity import FamilyMap
from graderctl.models.calset import Sample, SampleInput
from graderctl.models.probe import (
    AcceptRates,
    AnyProbeReport,
    FamilyRate,
    Flips,
    JudgeIdentity,
    Outcome,
    PairedDifference,
    PairedProbeReport,
    ProbeErrors,
    ProbeGrader,
    ProbeSampleRow,
    ProbesDocument,
    ProbeSet,
    ProbeUsage,
    RateCount,
    SelfDifference,
    SelfPreferenceResult,
    SelfProbeNotApplicable,
    SelfProbeReport,
    SelfSampleRow,
)
from graderctl.plugin import Usage, Verdict
from graderctl.probes import Transformed, pad, reformat, reorder
from graderctl.render.probe import fmt_p as _fmt_p
from graderctl.render.probe import fmt_signed as _fmt_signed
from graderctl.runner import ProgressCallback
from graderctl.services.calibrate import check_pair
from graderctl.services.notes import plain_notes
from graderctl.services.running import DEFAULT_RUN, RunOptions, run_inputs, start_grader, verdict_cache
from graderctl.store.probes import probe_paths
from graderctl.store.project import LoadedGrader, LoadedSet

ProbeName = Literal["length", "order", "format", "self"]
ALL_PROBES: tuple[ProbeName, ...] = ("length", "order", "format", "self")
DEFAULT_MARGIN = 0.05
DEFAULT_SEED = 20240601
CONFIDENCE = 0.90

_QUESTIONS = {
    "length": "Does padding known-bad answers with uninformative text raise the false accept rate?",
    "order": "Does shuffling the order of evidence passages or nuggets flip outcomes?",
    "format": "Do legitimate rewrites of known-good answers (quotes, Markdown, line breaks, citation style) "
    "raise the false reject rate?",
    "self": "Does the judge accept bad answers written by its own model family more often than others'?",
}


@dataclass
class ProbeResult:
    probe: str
    set_name: str
    document: AnyProbeReport
    json_path: str | None = None
    md_path: str | None = None

    @property
    def biased(self) -> bool:
        return self.document.biased

    @property
    def outcome(self) -> str:
        """``biased``, ``no_bias``, ``inconclusive`` or ``not_applicable``."""
        return self.document.outcome


@dataclass
class ProbeRun:
    grader: str
    results: list[ProbeResult] = field(default_factory=list)

    @property
    def biased(self) -> bool:
        return any(r.biased for r in self.results)

    def document(self) -> AnyProbeReport | ProbesDocument:
        """One document: the probe's own when a single probe ran, else every probe's under ``probes``."""
        if len(self.results) == 1:
            return self.results[0].document
        return ProbesDocument(
            grader=self.grader, biased=self.biased, probes=[r.document for r in self.results]
        )


# --- grading ------------------------------------------------------------------------------------------


@dataclass
class _Spent:
    """What the grading of a probe run has cost so far (summed over every verdict's usage)."""

    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    requests: int = 0
    retries: int = 0
    cached: int = 0

    def add(self, usage: Usage) -> None:
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.usd += usage.usd
        self.requests += usage.requests
        self.retries += usage.retries
        self.cached += int(usage.cached)

    def since(self, before: _Spent) -> ProbeUsage:
        """What was spent after ``before`` (a copy taken then)."""
        return ProbeUsage(
            input_tokens=self.input_tokens - before.input_tokens,
            output_tokens=self.output_tokens - before.output_tokens,
            usd=round(self.usd - before.usd, 8),
            requests=self.requests - before.requests,
            retries=self.retries - before.retries,
            cached=self.cached - before.cached,
        )


@dataclass
class _Grading:
    grader: LoadedGrader
    cal_set: LoadedSet
    root: Path
    options: RunOptions
    progress: ProgressCallback | None
    spent: _Spent = field(default_factory=_Spent)

    def __post_init__(self) -> None:
        # Built without the cache folder (the kind gets no cache_dir in its context); the runner caches.
        self.instance = start_grader(self.grader, self.cal_set.corpus, None)
        self.cache = verdict_cache(self.grader, self.options.cache_dir(self.root))

    def grade(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        if not inputs:
            return []
        verdicts = run_inputs(
            self.instance, list(inputs), self.options, progress=self.progress, cache=self.cache
        )
        for v in verdicts:
            if v.usage is not None:
                self.spent.add(v.usage)
        return verdicts

    def close(self) -> None:
        self.instance.close()


# --- the probes ---------------------------------------------------------------------------------------


def run_probes(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    probes: Sequence[str] = ("length", "order", "format"),
    *,
    root: Path,
    margin: float = DEFAULT_MARGIN,
    seed: int = DEFAULT_SEED,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
    write: bool = True,
    family_map: FamilyMap | None = None,
    created_at: str | None = None,
) -> list[ProbeResult]:
    """Run the probes of one grader on one set; write each probe's report unless ``write`` is false.

    Raises :class:`InvalidInputError` for a grader/set mismatch or an edited released version,
    :class:`UsageError` for an unknown probe or a bad margin, :class:`GraderRunError` when the grader cannot
    run (it errs on every sample)."""
    unknown = [p for p in probes if p not in ALL_PROBES]
    if unknown:
        raise UsageError(f"unknown probe {unknown[0]!r}; expected one of: {', '.join(ALL_PROBES)}")
    if not 0 <= margin < 1:
        raise UsageError(f"--margin must be in [0, 1), got {margin}")
    check_pair(grader, cal_set)
    from graderctl.store.lock import require_released_intact

    require_released_intact([grader], root)
    samples = list(cal_set.samples)
    g = _Grading(grader, cal_set, root, options, progress)
    try:
        original = g.grade([s.input for s in samples])
        if all(v.is_error for v in original):
            cause = next((v.error for v in original if v.error), "unknown error")
            raise GraderRunError(
                f"{grader.ref} could not grade any of the {len(samples)} samples of set "
                f"{cal_set.name!r}: {cause}"
            )
        results: list[ProbeResult] = []
        for probe in cast("list[ProbeName]", list(dict.fromkeys(probes))):
            spent_before = replace(g.spent)
            report: AnyProbeReport
            if probe == "self":
                found = _self_preference(grader, samples, original, margin, family_map, root)
                usage = g.spent.since(spent_before)
                envelope = _envelope(probe, grader, cal_set, root, margin, seed, created_at)
                if isinstance(found, str):  # not model-based: nothing to probe
                    report = SelfProbeNotApplicable(**envelope, rate=_RATE[probe], verdict=found, usage=usage)
                else:
                    report = SelfProbeReport(**envelope, **found, usage=usage)
            else:
                paired = _paired_probe(probe, g, samples, original, margin, seed)
                usage = g.spent.since(spent_before)
                envelope = _envelope(probe, grader, cal_set, root, margin, seed, created_at)
                report = PairedProbeReport(**envelope, **paired, usage=usage)
            result = ProbeResult(probe=probe, set_name=cal_set.name, document=report)
            if write:
                _write(root, result)
            results.append(result)
        return results
    finally:
        g.close()


_TRANSFORMS: dict[str, Callable[[SampleInput, str], Transformed]] = {
    "length": pad,
    "order": reorder,
    "format": reformat,
}
#: Which samples each paired probe transforms, and which rate it watches.
_TARGET = {"length": "bad", "order": None, "format": "good"}
_RATE = {
    "length": "false_accept_rate",
    "order": "flip_rate",
    "format": "false_reject_rate",
    "self": "false_accept_rate",
}


class _Envelope(TypedDict):
    """The fields every probe report starts with (``schema_version`` and ``type`` are the models')."""

    probe: ProbeName
    graderctl_version: str
    created_at: str
    grader: ProbeGrader
    calibration_set: ProbeSet
    question: str
    margin: float
    seed: int


class _PairedFindings(TypedDict):
    """What a paired probe found: the fields of :class:`PairedProbeReport` after the envelope, but the usage.
    A section the probe did not produce is absent (and so left out of the written report)."""

    rate: str
    n_targeted: int
    n_transformed: int
    n_unchanged: int
    n: int
    errors: ProbeErrors
    undecided: NotRequired[int]
    applicable: bool
    before: NotRequired[RateCount]
    after: NotRequired[RateCount]
    difference: NotRequired[PairedDifference]
    flips: NotRequired[Flips]
    accept_rate: NotRequired[AcceptRates]
    mcnemar_p: NotRequired[float | None]
    biased: bool
    outcome: Outcome
    verdict: str
    warnings: NotRequired[list[str]]
    samples: list[ProbeSampleRow]


def _paired_probe(
    probe: str,
    g: _Grading,
    samples: Sequence[Sample],
    original: Sequence[Verdict],
    margin: float,
    seed: int,
) -> _PairedFindings:
    target = _TARGET[probe]
    transform = _TRANSFORMS[probe]
    chosen = [i for i, s in enumerate(samples) if target is None or s.label == target]
    transformed = {i: transform(samples[i].input, f"{seed}:{probe}:{samples[i].id}") for i in chosen}
    changed = [i for i in chosen if transformed[i].changed]
    after_verdicts = dict(zip(changed, g.grade([transformed[i].input for i in changed]), strict=True))
    if after_verdicts and all(v.is_error for v in after_verdicts.values()):
        cause = next((v.error for v in after_verdicts.values() if v.error), "unknown error")
        raise GraderRunError(
            f"{g.grader.ref} could not grade any of the {len(changed)} samples transformed by the {probe} "
            f"probe: {cause}"
        )

    rows: list[ProbeSampleRow] = []
    pairs: list[tuple[bool, bool]] = []
    errors_before = errors_after = undecided = 0
    for i in changed:
        s, before, after = samples[i], original[i], after_verdicts[i]
        errors_before += int(before.is_error)
        errors_after += int(after.is_error)
        row = ProbeSampleRow(
            id=s.id,
            label=s.label.value,
            category=s.category,
            before=before.accepted,
            after=after.accepted,
            flipped=None
            if (before.accepted is None or after.accepted is None)
            else before.accepted != after.accepted,
            transformation=transformed[i].note,
        )
        if before.is_error or after.is_error:
            row.error = before.error or after.error  # an optional field: set, so written
        elif before.is_undecided or after.is_undecided:  # an abstention on either side: no decided pair
            row.undecided = True
            undecided += 1
        else:
            assert before.accepted is not None and after.accepted is not None
            pairs.append((before.accepted, after.accepted))
        rows.append(row)
    found = _PairedFindings(
        rate=_RATE[probe],
        n_targeted=len(chosen),
        n_transformed=len(changed),
        n_unchanged=len(chosen) - len(changed),
        n=len(pairs),
        errors=ProbeErrors(before=errors_before, after=errors_after),
        applicable=bool(pairs),
        biased=False,
        outcome="not_applicable",
        verdict="",
        samples=rows,
    )
    if undecided:
        found["undecided"] = undecided
    if not pairs:
        verdict = _not_applicable(probe, len(chosen), len(changed))
        found["outcome"] = "inconclusive" if verdict.startswith("inconclusive") else "not_applicable"
        found["verdict"] = verdict
        found["warnings"] = [verdict]
        return found
    if probe == "order":
        _flip_summary(pairs, margin, found)
    else:
        _rate_change(probe, pairs, margin, found)
    # flipped samples first, then by id
    found["samples"] = sorted(rows, key=lambda r: (r.flipped is not True, r.id))
    return found


def _not_applicable(probe: str, targeted: int, changed: int) -> str:
    if targeted == 0:
        what = {"length": "known-bad", "format": "known-good", "order": ""}[probe]
        return f"not applicable: the set has no {what} samples".replace("no  samples", "no samples")
    if changed == 0:
        return f"not applicable: the {probe} transformation changes none of the {targeted} samples"
    return "inconclusive: the grader erred on every transformed pair, so nothing could be compared"


def _rate_change(
    probe: str, pairs: Sequence[tuple[bool, bool]], margin: float, found: _PairedFindings
) -> None:
    """Fills the rate before and after, the difference, McNemar's p and the decision into ``found``."""
    from graderctl.stats import UndefinedMetricWarning, margin_outcome, paired_difference

    if probe == "length":  # bad samples: an accept is a false accept
        before = [b for b, _ in pairs]
        after = [a for _, a in pairs]
        label = "false accept rate"
    else:  # good samples: a reject is a false reject
        before = [not b for b, _ in pairs]
        after = [not a for _, a in pairs]
        label = "false reject rate"
    n = len(pairs)
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:  # said in the report's warnings, for people
        warnings.simplefilter("always", UndefinedMetricWarning)
        d = paired_difference(before, after, confidence=CONFIDENCE)
    notes.extend(plain_notes(caught))
    rate_before = sum(before) / n
    rate_after = sum(after) / n
    decision = margin_outcome(d.diff, d.ci_low, d.ci_high, margin=margin)
    biased = decision == "above"
    ci = f"{int(CONFIDENCE * 100)}% CI {_fmt_signed(d.ci_low)} to {_fmt_signed(d.ci_high)}"
    effect = (
        f"{label} {rate_before:.2f} → {rate_after:.2f} ({_fmt_signed(d.diff)}, {ci}), "
        f"McNemar p={_fmt_p(d.p_value)}"
    )
    outcome: Outcome
    if biased:
        outcome = "biased"
        verdict = f"bias found: {effect}; the rise exceeds the margin {margin:g}"
    elif decision == "within":
        outcome = "no_bias"
        verdict = f"no bias: {effect}; the interval rules out a rise above the margin {margin:g}"
    else:
        outcome = "inconclusive"
        verdict = (
            f"inconclusive: {effect} over {n} pair(s); the interval reaches above the margin {margin:g}, so "
            "a rise larger than the margin cannot be ruled out (more samples narrow it)"
        )
    found["before"] = RateCount(count=sum(before), n=n, value=rate_before)
    found["after"] = RateCount(count=sum(after), n=n, value=rate_after)
    # non-finite numbers are written as null, each said in the warnings (never a Python warning)
    found["difference"] = PairedDifference(
        n=d.n,
        b=d.b,
        c=d.c,
        diff=_finite("diff", d.diff, notes),
        ci_low=_finite("ci_low", d.ci_low, notes),
        ci_high=_finite("ci_high", d.ci_high, notes),
        confidence=d.confidence,
        method=d.method,
        p_value=_finite("p_value", d.p_value, notes),
    )
    found["mcnemar_p"] = d.p_value
    if notes:
        found["warnings"] = notes
    found["biased"], found["outcome"], found["verdict"] = biased, outcome, verdict


def _flip_summary(pairs: Sequence[tuple[bool, bool]], margin: float, found: _PairedFindings) -> None:
    """Fills the flips, the accept rates, McNemar's p and the decision into ``found``."""
    from graderctl.stats import UndefinedMetricWarning, paired_outcomes, share_against_margin

    with warnings.catch_warnings():  # the kappa of a one-outcome table is not part of this summary
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        outcomes = paired_outcomes([b for b, _ in pairs], [a for _, a in pairs])
    n = outcomes.n
    to_reject = outcomes.a_only
    to_accept = outcomes.b_only
    flips = outcomes.flips
    # n > 0 (the caller has pairs). The share is "above" the margin when it exceeds it (its Wilson lower
    # bound is then above 0: at least one flip), "within" when the interval's upper end is at most it.
    shown = share_against_margin(flips, n, margin=margin, confidence=CONFIDENCE)
    assert shown is not None
    share = shown.value
    ci = (shown.ci_low, shown.ci_high)
    biased = shown.outcome == "above"
    effect = f"{flips} of {n} outcomes flipped ({share:.2f}"
    effect += f", {int(CONFIDENCE * 100)}% CI {ci[0]:.2f} to {ci[1]:.2f}"
    effect += f"; {to_accept} to accept, {to_reject} to reject)"
    outcome: Outcome
    if biased:
        outcome = "biased"
        verdict = f"bias found: {effect}; more than the margin {margin:g}"
    elif shown.outcome == "within":
        outcome = "no_bias"
        verdict = f"no bias: {effect}; the interval rules out more than the margin {margin:g}"
    else:
        outcome = "inconclusive"
        verdict = (
            f"inconclusive: {effect}; the interval reaches above the margin {margin:g}, so more flips than "
            "the margin cannot be ruled out (more samples narrow it)"
        )
    found["flips"] = Flips(
        count=flips,
        n=n,
        value=share,
        ci_low=ci[0],
        ci_high=ci[1],
        confidence=CONFIDENCE,
        to_accept=to_accept,
        to_reject=to_reject,
    )
    found["accept_rate"] = AcceptRates(
        before=sum(b for b, _ in pairs) / n, after=sum(a for _, a in pairs) / n
    )
    found["mcnemar_p"] = outcomes.mcnemar_p
    found["biased"], found["outcome"], found["verdict"] = biased, outcome, verdict


class _SelfFindings(TypedDict):
    """What the ``self`` probe of a model-based grader found: the fields of :class:`SelfProbeReport` after
    the envelope, but the usage."""

    rate: str
    judge: JudgeIdentity
    n_without_generator: int
    errors: ProbeErrors
    own_family: FamilyRate
    other_families: FamilyRate
    samples: list[SelfSampleRow]
    outcome: Outcome
    self_preference: SelfPreferenceResult
    applicable: bool
    difference: NotRequired[SelfDifference]
    biased: bool
    verdict: str


def _self_preference(
    grader: LoadedGrader,
    samples: Sequence[Sample],
    original: Sequence[Verdict],
    margin: float,
    family_map: FamilyMap | None,
    root: Path,
) -> _SelfFindings | str:
    """The findings of the ``self`` probe, or (for a grader that is not model-based) why there are none."""
    from graderctl.identity import self_grading

    judge = grader.spec.judge
    if not grader.kind.model_based or judge is None:
        return "not applicable: the grader is not model-based (it has no [judge])"
    if family_map is None:
        from graderctl.services.score import load_family_map  # the same map as score's self-grading guard

        family_map = load_family_map(root)
    fmap = family_map
    judge_ref = fmap.identify(judge.model, judge.provider)
    own: list[bool] = []
    other: list[bool] = []
    errors = unknown = 0
    rows: list[SelfSampleRow] = []
    for s, v in zip(samples, original, strict=True):
        if s.label != "bad":
            continue
        if s.generator is None:
            unknown += 1
            continue
        gen = fmap.identify(s.generator.model, s.generator.provider)
        mine = self_grading(judge_ref, gen) is not None
        if v.is_error:
            errors += 1
            continue
        if v.accepted is None:  # undecided: neither an accept nor a reject
            continue
        (own if mine else other).append(v.accepted)
        rows.append(
            SelfSampleRow(
                id=s.id, generator=gen.canonical, family=gen.family, own_family=mine, accepted=v.accepted
            )
        )
    from graderctl.stats import self_preference

    # The same rule as score's --allow-self-grading override (graderctl.stats.self_preference).
    result = self_preference(sum(own), len(own), sum(other), len(other), margin=margin, confidence=CONFIDENCE)
    found = _SelfFindings(
        rate=_RATE["self"],
        judge=JudgeIdentity(
            model=judge_ref.raw,
            provider=judge_ref.provider,
            canonical=judge_ref.canonical,
            family=judge_ref.family,
        ),
        n_without_generator=unknown,
        errors=ProbeErrors(before=errors, after=0),
        own_family=_group(own),
        other_families=_group(other),
        samples=rows,
        outcome="not_applicable",
        self_preference=SelfPreferenceResult(
            own_family=FamilyRate(count=result.own_count, n=result.own_n, value=result.own_rate),
            other_families=FamilyRate(count=result.other_count, n=result.other_n, value=result.other_rate),
            diff=result.diff,
            ci_low=result.ci_low,
            ci_high=result.ci_high,
            confidence=result.confidence,
            method="newcombe-hybrid-score",
            margin=result.margin,
            min_samples=result.min_samples,
            outcome=result.outcome,
            explanation=result.explanation,
        ),
        applicable=False,
        biased=False,
        verdict="",
    )
    if not own or not other:
        missing = "the judge's own family" if not own else "other families"
        found["verdict"] = (
            f"not applicable: no known-bad sample written by {missing} (set `generator` on samples)"
        )
        return found
    found["applicable"] = True
    found["difference"] = SelfDifference(
        diff=result.diff,
        ci_low=result.ci_low,
        ci_high=result.ci_high,
        confidence=result.confidence,
        method="newcombe-hybrid-score",
    )
    found["biased"] = result.biased
    if result.outcome == "biased":
        found["outcome"] = "biased"
        found["verdict"] = f"bias found: {result.explanation}"
    elif result.outcome == "no_bias":
        found["outcome"] = "no_bias"
        found["verdict"] = f"no bias: {result.explanation}"
    else:
        found["outcome"] = "inconclusive"
        found["verdict"] = f"inconclusive: {result.explanation}"
    return found


def _group(values: Sequence[bool]) -> FamilyRate:
    n = len(values)
    return FamilyRate(count=sum(values), n=n, value=(sum(values) / n) if n else None)


# --- documents ----------------------------------------------------------------------------------------


def _envelope(
    probe: ProbeName,
    grader: LoadedGrader,
    cal_set: LoadedSet,
    root: Path,
    margin: float,
    seed: int,
    created_at: str | None,
) -> _Envelope:
    from datetime import UTC, datetime

    from graderctl import __version__

    when = created_at or datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    judge = grader.spec.judge.model_dump(exclude_none=True) if grader.spec.judge else None
    try:
        path = cal_set.path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        path = cal_set.path.as_posix()
    return _Envelope(
        probe=probe,
        graderctl_version=__version__,
        created_at=when,
        grader=ProbeGrader(
            name=grader.spec.name,
            version=grader.spec.version,
            kind=grader.spec.kind,
            fingerprint=grader.fingerprint,
            check=grader.spec.check.value,
            judge=judge,
        ),
        calibration_set=ProbeSet(
            name=cal_set.name,
            version=cal_set.manifest.version,
            fingerprint=cal_set.fingerprint,
            path=path,
            n_good=cal_set.n_good,
            n_bad=cal_set.n_bad,
        ),
        question=_QUESTIONS[probe],
        margin=margin,
        seed=seed,
    )


def _write(root: Path, result: ProbeResult) -> None:
    from graderctl.render.probe import render_markdown
    from graderctl.store.probes import previous_probe_report, write_probe_report

    doc = result.document
    json_path, md_path = probe_paths(root, result.set_name, doc.grader.name, doc.grader.version, result.probe)
    old = previous_probe_report(json_path, doc)
    if old is not None:  # the same findings: keep the committed report (timestamps alone are not a change)
        for key in ("graderctl_version", "created_at", "environment"):
            if key in old:
                setattr(doc, key, old[key])
    write_probe_report(json_path, md_path, doc, render_markdown(doc), keep_json=old is not None)
    result.json_path = _relative(json_path, root)
    result.md_path = _relative(md_path, root)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _finite(name: str, value: float, notes: list[str]) -> float | None:
    """``value``, or ``None`` when it is not finite (said in ``notes``)."""
    if math.isfinite(value):
        return value
    notes.append(f"the {name} of the change is undefined (null)")
    return None
