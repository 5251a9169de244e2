"""``calibrate --repeats R``: grade every sample R times and measure the grader's self-consistency.

Repeat 0 is the ordinary run (its verdicts make the report's rates); repeats 1 .. R-1 grade the same samples
again. Each repeat has its own verdict-cache entries (the repeat index is part of the key), so a repeat really
asks the model again the first time, and re-running the same calibration costs nothing.

The ``repeats`` section of the report::

    {"r": 5,
     "self_consistency": 0.04,          # share of samples whose outcome changes across the repeats
     "consistent_share": 0.96,          # 1 - self_consistency
     "n": 100,                          # samples with a decision in at least two repeats
     "flipped_samples": [{"id": "cs-0007", "label": "bad", "outcomes": [true, false, true, true, true]}],
     "per_repeat": [{"repeat": 0, "false_accept_rate": {...}, "false_reject_rate": {...}, "errors": 0}, ...]}

``self_consistency`` follows the issue's definition: the share of samples whose outcome changes across the
repeats (0 for a perfectly consistent grader). An error in one repeat is not an outcome: a sample counts when
at least two repeats decided it, and is flipped when those decisions differ.

The section also gives the 90% Wilson interval of that share (``flipped_ci``) and an ``outcome`` against
``margin`` (:data:`REPEATS_MARGIN`, 0.05): ``consistent`` only when the interval's upper end is at most the
margin, ``inconsistent`` when more than the margin flipped and the lower end is above 0, else
``inconclusive`` (too few samples decided twice to say either; never reported as consistent).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graderctl.errors import UsageError
from graderctl.models.calset import Sample
from graderctl.models.repeats import (
    FlippedInterval,
    FlippedSample,
    RepeatRate,
    RepeatRates,
    RepeatsSection,
)
from graderctl.plugin import Verdict
from graderctl.runner import ProgressCallback, VerdictStore
from graderctl.services.running import DEFAULT_RUN, RunOptions, run_inputs, start_grader, verdict_cache
from graderctl.store.project import LoadedGrader, LoadedSet

MAX_REPEATS = 100
#: Largest share of samples whose outcome may change across repeats for the grader to be called consistent.
REPEATS_MARGIN = 0.05
#: Two-sided confidence of the interval around that share.
REPEATS_CONFIDENCE = 0.90


@dataclass(frozen=True)
class _RepeatCache:
    """The verdict cache seen through one repeat index (the runner asks for repeat 0)."""

    cache: VerdictStore
    repeat: int

    def get(self, payload: Any, repeat: int = 0) -> Verdict | None:
        return self.cache.get(payload, self.repeat + repeat)

    def put(self, payload: Any, verdict: Verdict, repeat: int = 0) -> None:
        self.cache.put(payload, verdict, self.repeat + repeat)


def check_repeats(repeats: int) -> None:
    if not 1 <= repeats <= MAX_REPEATS:
        raise UsageError(f"--repeats must be between 1 and {MAX_REPEATS}, got {repeats}")


def grade_repeats(
    grader: LoadedGrader,
    cal_set: LoadedSet,
    repeats: int,
    *,
    root: Path,
    options: RunOptions = DEFAULT_RUN,
    progress: ProgressCallback | None = None,
) -> list[list[Verdict]]:
    """Verdicts of repeats 1 .. ``repeats`` - 1, one list per repeat (repeat 0 is the caller's own run)."""
    check_repeats(repeats)
    if repeats == 1:
        return []
    cache_dir = options.cache_dir(root)
    instance = start_grader(grader, cal_set.corpus, cache_dir)
    cache = verdict_cache(grader, cache_dir)
    inputs = [s.input for s in cal_set.samples]
    runs: list[list[Verdict]] = []
    try:
        for k in range(1, repeats):
            runs.append(
                run_inputs(
                    instance,
                    inputs,
                    options,
                    progress=progress,
                    cache=None if cache is None else _RepeatCache(cache, k),
                )
            )
    finally:
        instance.close()
    return runs


def summarize_repeats(samples: Sequence[Sample], runs: Sequence[Sequence[Verdict]]) -> RepeatsSection:
    """The report's ``repeats`` section from every repeat's verdicts (repeat 0 first)."""
    from graderctl.stats import UndefinedMetricWarning, rate_stats

    if not runs:
        raise ValueError("summarize_repeats needs at least one run")
    for run in runs:
        if len(run) != len(samples):
            raise ValueError(f"a repeat has {len(run)} verdicts for {len(samples)} samples")
    per_repeat: list[RepeatRates] = []
    for k, run in enumerate(runs):
        bad = [v for s, v in zip(samples, run, strict=True) if s.label == "bad" and not v.is_error]
        good = [v for s, v in zip(samples, run, strict=True) if s.label == "good" and not v.is_error]
        with warnings.catch_warnings():  # an undefined rate (n = 0) is None in the section, as in reports
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            far = rate_stats(sum(1 for v in bad if v.accepted), len(bad))
            frr = rate_stats(sum(1 for v in good if not v.accepted), len(good))
        per_repeat.append(
            RepeatRates(
                repeat=k,
                false_accept_rate=RepeatRate.model_validate(far.to_dict()),
                false_reject_rate=RepeatRate.model_validate(frr.to_dict()),
                errors=sum(1 for v in run if v.is_error),
            )
        )
    from graderctl.stats import repeat_flips, share_against_margin

    outcomes = [[run[i].accepted for run in runs] for i in range(len(samples))]
    changes = repeat_flips(outcomes)
    flipped = [
        FlippedSample(
            id=samples[i].id, label=samples[i].label.value, category=samples[i].category, outcomes=outcomes[i]
        )
        for i in changes.flipped
    ]
    considered = changes.n
    share = flipped_share = None
    ci: tuple[float, float] | None = None
    outcome: Literal["consistent", "inconsistent", "inconclusive"] = "inconclusive"
    if considered:  # else no sample was decided twice: undefined, inconclusive
        against = share_against_margin(
            len(flipped), considered, margin=REPEATS_MARGIN, confidence=REPEATS_CONFIDENCE
        )
        assert against is not None
        flipped_share = against.value
        share = 1 - flipped_share
        ci = (against.ci_low, against.ci_high)
        if against.outcome == "above":
            outcome = "inconsistent"
        elif against.outcome == "within":
            outcome = "consistent"
    return RepeatsSection(
        r=len(runs),
        self_consistency=flipped_share,
        consistent_share=share,
        n=considered,
        flipped=len(flipped),
        flipped_ci=None
        if ci is None
        else FlippedInterval(low=ci[0], high=ci[1], confidence=REPEATS_CONFIDENCE),
        margin=REPEATS_MARGIN,
        outcome=outcome,
        flipped_samples=flipped,
        per_repeat=per_repeat,
    )
