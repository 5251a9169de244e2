"""The common test: every exported statistic through the same invariants.

- bad parameters raise StatisticsError with the one uniform message, naming the parameter and the function;
- degenerate data gives None with an UndefinedMetricWarning (never NaN, never 0);
- well-defined data emits no warning, bounds lie in [0, 1] and low <= value <= high;
- results do not depend on the order of the samples (or units, tasks) where order carries no meaning;
- a meta-test fails when an exported function has no case here.
"""

from __future__ import annotations

import inspect
import math
import random
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import graderctl.stats as stats
from graderctl.errors import StatisticsError

UNIFORM = re.compile(r"^The '(?P<param>\w+)' parameter of (?P<func>\w+) must be .+\. Got .+ instead\.")
NAN = float("nan")


@dataclass
class Case:
    """How the common test exercises one function."""

    func: Callable[..., Any]
    valid: list[tuple[tuple[Any, ...], dict[str, Any]]]
    bad: list[tuple[tuple[Any, ...], dict[str, Any], str]]
    #: calls whose result (or the part picked by ``undefined_part``) must be None with a warning
    degenerate: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    undefined_part: Callable[[Any], Any] = lambda result: result
    #: (value, low, high) from a result, for the bounds check; None when not an interval in [0, 1]
    bounds: Callable[[Any], tuple[float | None, float, float]] | None = None
    #: builds a reordered version of a valid call's positional arguments, for the order-invariance check
    reorder: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None
    #: the same for keyword arguments that run parallel to the samples (weights)
    reorder_kwargs: Callable[[dict[str, Any]], dict[str, Any]] = lambda kwargs: kwargs
    exact_order: bool = True


def _shuffle(values: list[Any], seed: int = 4) -> list[Any]:
    order = list(range(len(values)))
    random.Random(seed).shuffle(order)
    return [values[i] for i in order]


def _shuffle_together(*columns: list[Any]) -> tuple[list[Any], ...]:
    order = list(range(len(columns[0])))
    random.Random(9).shuffle(order)
    return tuple([column[i] for i in order] for column in columns)


RNG = random.Random(1)
OUTCOMES = [RNG.random() < 0.3 for _ in range(120)]
GROUPS: list[str | None] = [f"g{i // 3}" if i % 5 else None for i in range(120)]
OLD = [RNG.random() < 0.6 for _ in range(80)]
NEW = [v if RNG.random() < 0.8 else not v for v in OLD]
DECIDED: list[bool | None] = [None if i % 7 == 0 else v for i, v in enumerate(NEW)]
OLD_SCORES = [RNG.random() for _ in range(60)]
NEW_SCORES = [v + RNG.gauss(0.05, 0.1) for v in OLD_SCORES]
CLUSTERS = [f"t{i % 12}" for i in range(60)]
TASKS = [(10, 3), (8, 8), (12, 0), (9, 5)]
LABELS_A = ["y", "n", "y", "y", "n", "n", "y", "n", "y", "y"]
LABELS_B = ["y", "n", "n", "y", "n", "y", "y", "n", "y", "n"]
UNITS = [["a", "a", None], ["a", "b", "b"], ["b", "b", "b"], ["a", None, "a"], ["b", "a", None]]
GRID = [(x, n) for n in (1, 2, 7, 30, 101) for x in sorted({0, 1, n // 3, n // 2, n - 1, n}) if 0 <= x <= n]
PAIRS = [(b, c, n) for n in (3, 20, 150) for b in (0, 1, n // 4) for c in (0, 2, n // 3) if b + c <= n]


def _interval(result: Any) -> tuple[float | None, float, float]:
    return None, result[0], result[1]


def _rate(result: Any) -> tuple[float | None, float, float]:
    return result.value, result.ci_low, result.ci_high


CASES: dict[str, Case] = {
    "wilson_interval": Case(
        stats.wilson_interval,
        valid=[((x, n), {}) for x, n in GRID],
        bad=[
            ((-1, 10), {}, "x"),
            ((11, 10), {}, "x"),
            ((1, -1), {}, "n"),
            ((1.5, 10), {}, "x"),
            ((True, 10), {}, "x"),
            ((1, 10), {"confidence": 1.0}, "confidence"),
            ((1, 10), {"confidence": 0}, "confidence"),
            ((1, 10), {"confidence": NAN}, "confidence"),
        ],
        degenerate=[((0, 0), {})],
        bounds=_interval,
    ),
    "clopper_pearson_interval": Case(
        stats.clopper_pearson_interval,
        valid=[((x, n), {}) for x, n in GRID],
        bad=[
            ((-1, 10), {}, "x"),
            ((3, 2), {}, "x"),
            ((0, -3), {}, "n"),
            ((1, 4), {"confidence": 95}, "confidence"),
        ],
        degenerate=[((0, 0), {})],
        bounds=_interval,
    ),
    "clopper_pearson_upper": Case(
        stats.clopper_pearson_upper,
        valid=[((x, n), {}) for x, n in GRID],
        bad=[
            ((-1, 10), {}, "x"),
            ((3, 2), {}, "x"),
            ((2, "10"), {}, "n"),
            ((1, 4), {"confidence": -0.5}, "confidence"),
        ],
        degenerate=[((0, 0), {})],
        bounds=lambda upper: (None, upper, upper),
    ),
    "rate_stats": Case(
        stats.rate_stats,
        valid=[((x, n), {}) for x, n in GRID],
        bad=[((-1, 5), {}, "count"), ((6, 5), {}, "count"), ((1, -2), {}, "n"), ((1.0, 5), {}, "count")],
        degenerate=[((0, 0), {})],
        undefined_part=lambda r: (
            r.value if r.to_dict()["ci_low"] is None and r.upper_95 is None else "defined"
        ),
        bounds=_rate,
    ),
    "samples_needed": Case(
        stats.samples_needed,
        valid=[((0.05,), {}), ((0.1, 2), {}), ((0.01, 0), {"confidence": 0.9})],
        bad=[
            ((0.0,), {}, "target"),
            ((1.0,), {}, "target"),
            ((NAN,), {}, "target"),
            ((0.05, -1), {}, "x"),
            ((0.05, 0), {"confidence": 1.5}, "confidence"),
        ],
    ),
    "cluster_bootstrap_rate": Case(
        stats.cluster_bootstrap_rate,
        valid=[((OUTCOMES, GROUPS), {}), ((OUTCOMES[:40], [None] * 40), {"confidence": 0.9})],
        bad=[
            (([True], [None, None]), {}, "groups"),
            (([0.5], [None]), {}, "outcomes"),
            (("TF", [None, None]), {}, "outcomes"),
            (([True], [None]), {"confidence": 1}, "confidence"),
            (([True], [None]), {"n_boot": 10}, "n_boot"),
            (([True], [None]), {"seed": -1}, "seed"),
            (([True], [["unhashable"]]), {}, "groups"),
        ],
        degenerate=[(([], []), {})],
        undefined_part=lambda r: r.ci_low,
        bounds=_rate,
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    "cohen_kappa": Case(
        stats.cohen_kappa,
        valid=[((LABELS_A, LABELS_B), {}), ((LABELS_A, LABELS_A), {})],
        bad=[
            ((["y", "n"], ["y"]), {}, "b"),
            (([], []), {}, "a"),
            (([None], ["y"]), {}, "a"),
            ((["y"], [["n"]]), {}, "b"),
            (("yn", "ny"), {}, "a"),
        ],
        degenerate=[((["y"] * 4, ["y"] * 4), {})],
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    "cohen_kappa_from_table": Case(
        stats.cohen_kappa_from_table,
        valid=[((20, 5, 10, 15), {}), ((1, 0, 0, 1), {})],
        bad=[
            ((-1, 0, 0, 0), {}, "both_yes"),
            ((0, 0, 0, 0), {}, "both_yes"),
            ((1, 2.5, 0, 0), {}, "a_yes_b_no"),
        ],
        degenerate=[((5, 0, 0, 0), {}), ((0, 0, 0, 3), {})],
    ),
    "krippendorff_alpha_nominal": Case(
        stats.krippendorff_alpha_nominal,
        valid=[((UNITS,), {})],
        bad=[
            (([],), {}, "ratings"),
            (("ab",), {}, "ratings"),
            (([["a", {}]],), {}, "ratings"),
            (([1, 2],), {}, "ratings"),
        ],
        degenerate=[(([["a", None], [None, "b"]],), {}), (([["a", "a"], ["a", "a"]],), {})],
        reorder=lambda args: (_shuffle(args[0]),),
    ),
    "mcnemar_exact": Case(
        stats.mcnemar_exact,
        valid=[((b, c), {}) for b, c, _ in PAIRS],
        bad=[((-1, 0), {}, "b"), ((0, 1.5), {}, "c"), ((None, 1), {}, "b")],
        bounds=lambda p: (None, p, p),
    ),
    "tango_interval": Case(
        stats.tango_interval,
        valid=[((b, c, n), {}) for b, c, n in PAIRS],
        bad=[
            ((5, 6, 10), {}, "c"),
            ((1, 1, 0), {}, "n"),
            ((11, 0, 10), {}, "b"),
            ((1, 1, 5), {"confidence": 2}, "confidence"),
        ],
    ),
    "paired_difference": Case(
        stats.paired_difference,
        valid=[((OLD, NEW), {}), ((OLD[:10], OLD[:10]), {"confidence": 0.95})],
        bad=[
            (([True], [True, False]), {}, "new"),
            (([], []), {}, "old"),
            (([True], [True]), {"confidence": 0}, "confidence"),
            (([0.5], [True]), {}, "old"),
        ],
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    "equivalent_within": Case(
        stats.equivalent_within,
        valid=[((-0.02, 0.03, 0.05), {}), ((0.0, 0.2, 0.1), {})],
        bad=[
            ((0.1, -0.1, 0.05), {}, "ci_high"),
            ((-0.01, 0.01, -1), {}, "margin"),
            ((NAN, 0.0, 0.1), {}, "ci_low"),
        ],
    ),
    "cluster_bootstrap_mean_difference": Case(
        stats.cluster_bootstrap_mean_difference,
        valid=[((OLD_SCORES, NEW_SCORES, CLUSTERS), {})],
        bad=[
            (([1.0], [1.0], ["a", "b"]), {}, "clusters"),
            (([], [], []), {}, "old"),
            (([NAN], [1.0], ["a"]), {}, "old"),
            (([1.0], [1.0], [None]), {}, "clusters"),
            (([1.0], [1.0], ["a"]), {"confidence": 1.0}, "confidence"),
        ],
        reorder=lambda args: _shuffle_together(args[0], args[1], args[2]),
        exact_order=False,  # cluster means are summed in first-seen order: equal to within rounding
    ),
    "bootstrap_tasks_interval": Case(
        stats.bootstrap_tasks_interval,
        valid=[(([0.1, 0.5, 0.9, 1.0, 0.0],), {})],
        bad=[(([NAN, 1.0],), {}, "per_task"), (([0.5, 0.5],), {"confidence": 0}, "confidence")],
        degenerate=[(([0.5],), {}), (([],), {})],
        bounds=_interval,
        reorder=lambda args: (_shuffle(args[0]),),
    ),
    "pass_at_k": Case(
        stats.pass_at_k,
        valid=[((n, c, k), {}) for n, c in TASKS for k in (1, 2, n)],
        bad=[
            ((5, 3, 6), {}, "k"),
            ((2, 0, 5), {}, "k"),
            ((5, 6, 1), {}, "c"),
            ((5, 2, 0), {}, "k"),
            ((0, 0, 1), {}, "n"),
            ((5, -1, 1), {}, "c"),
        ],
        bounds=lambda v: (float(v), float(v), float(v)),
    ),
    "pass_hat_k": Case(
        stats.pass_hat_k,
        valid=[((n, c, k), {}) for n, c in TASKS for k in (1, 2, n)],
        bad=[((5, 3, 6), {}, "k"), ((5, 6, 1), {}, "c"), ((5, 2, 0), {}, "k"), ((0, 0, 1), {}, "n")],
        bounds=lambda v: (float(v), float(v), float(v)),
    ),
    "mean_pass_at_k": Case(
        stats.mean_pass_at_k,
        valid=[((TASKS, 1), {}), ((TASKS, 8), {}), ((TASKS, 2), {"weights": [1, 2, 3, 4]})],
        bad=[
            (([], 1), {}, "tasks"),
            ((TASKS, 9), {}, "k"),
            ((TASKS, 0), {}, "k"),
            ((TASKS, 1), {"weights": [1]}, "weights"),
        ],
        bounds=lambda v: (float(v), float(v), float(v)),
        reorder=lambda args: (list(reversed(args[0])), args[1]),
        reorder_kwargs=lambda kwargs: {k: list(reversed(v)) for k, v in kwargs.items()},
    ),
    "mean_pass_hat_k": Case(
        stats.mean_pass_hat_k,
        valid=[((TASKS, 1), {}), ((TASKS, 8), {})],
        bad=[(([], 1), {}, "tasks"), ((TASKS, 9), {}, "k"), (([(3, 4)], 1), {}, "tasks")],
        bounds=lambda v: (float(v), float(v), float(v)),
        reorder=lambda args: (list(reversed(args[0])), args[1]),
    ),
    "rogan_gladen": Case(
        stats.rogan_gladen,
        valid=[((0.6, 0.1, 0.2), {}), ((0.02, 0.1, 0.1), {}), ((1.0, 0.0, 0.3), {})],
        bad=[((1.5, 0.0, 0.0), {}, "p"), ((0.5, -0.1, 0.0), {}, "far"), ((0.5, 0.0, NAN), {}, "frr")],
        bounds=lambda r: (r[0], r[0], r[0]),
    ),
    "newcombe_interval": Case(
        stats.newcombe_interval,
        valid=[((x1, n1, x2, n2), {"confidence": 0.9}) for x1, n1 in GRID[::3] for x2, n2 in GRID[1::4]],
        bad=[
            ((-1, 10, 1, 10), {}, "x1"),
            ((1, 10, 11, 10), {}, "x2"),
            ((1, -1, 1, 10), {}, "n"),
            ((1, 10, 1, 10), {"confidence": 1.5}, "confidence"),
        ],
        degenerate=[((0, 0, 1, 10), {}), ((1, 10, 0, 0), {})],
    ),
    "self_preference": Case(
        stats.self_preference,
        valid=[((0, 0, 3, 10), {}), ((1, 2, 2, 8), {}), ((12, 30, 3, 30), {}), ((0, 60, 1, 60), {})],
        bad=[
            ((3, 2, 0, 10), {}, "own_accepts"),
            ((0, 10, -1, 10), {}, "other_accepts"),
            ((0, 10, 0, 10), {"margin": -0.1}, "margin"),
            ((0, 10, 0, 10), {"confidence": 0}, "confidence"),
            ((0, 10, 0, 10), {"min_samples": 0}, "min_samples"),
        ],
    ),
    "rogan_gladen_interval": Case(
        stats.rogan_gladen_interval,
        valid=[((60, 100, 5, 100, 20, 100), {}), ((3, 50, 0, 80, 2, 90), {"n_boot": 1000})],
        bad=[
            ((0, 0, 1, 10, 1, 10), {}, "trials"),
            ((11, 10, 1, 10, 1, 10), {}, "successes"),
            ((1, 10, 11, 10, 1, 10), {}, "far_count"),
            ((1, 10, 1, 10, 1, 0), {}, "frr_n"),
            ((1, 10, 1, 10, 1, 10), {"confidence": 0}, "confidence"),
            ((1, 10, 1, 10, 1, 10), {"n_boot": 5}, "n_boot"),
        ],
        degenerate=[((5, 10, 6, 10, 5, 10), {})],
        undefined_part=lambda r: r.value,
        bounds=_rate,
    ),
    "error_counts": Case(
        stats.error_counts,
        valid=[((OLD, DECIDED), {})],
        bad=[
            (([True], ["yes"]), {}, "y_pred"),
            (([None], [True]), {}, "y_true"),
            (([True, False], [True]), {}, "y_pred"),
            (("ab", [True, True]), {}, "y_true"),
        ],
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    "false_accept_rate": Case(
        stats.false_accept_rate,
        valid=[((OLD, DECIDED), {})],
        bad=[
            (([False], [True]), {"zero_division": 0}, "zero_division"),
            (([True, False], [True]), {}, "y_pred"),
        ],
        degenerate=[(([True, False], [True, None]), {})],
        bounds=lambda r: (r, 0.0, 1.0),
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    "false_reject_rate": Case(
        stats.false_reject_rate,
        valid=[((OLD, DECIDED), {})],
        bad=[
            (([True], [True]), {"zero_division": "ignore"}, "zero_division"),
            (([1.5], [True]), {}, "y_true"),
        ],
        degenerate=[(([False, True], [True, None]), {})],
        bounds=lambda r: (r, 0.0, 1.0),
        reorder=lambda args: _shuffle_together(args[0], args[1]),
    ),
    # No reorder case: ``flipped`` lists item indices, which a reordering moves by definition (the counts'
    # order invariance is tested in test_outcomes.py).
    "paired_outcomes": Case(
        stats.paired_outcomes,
        valid=[((OLD, NEW), {})],
        bad=[
            (([True], [True, False]), {}, "y_b"),
            (([0.5], [True]), {}, "y_a"),
            (("ab", [True, True]), {}, "y_a"),
        ],
        degenerate=[(([True] * 4, [True] * 4), {})],
        undefined_part=lambda r: r.kappa,
    ),
    "mean_pass_at_k_grouped": Case(
        stats.mean_pass_at_k_grouped,
        valid=[
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 1), {}),
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 8), {}),
        ],
        bad=[
            (({}, 1), {}, "groups"),
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 9), {}, "k"),
            (({(3, 4): 1}, 1), {}, "tasks"),
        ],
        bounds=lambda v: (float(v), float(v), float(v)),
    ),
    "mean_pass_hat_k_grouped": Case(
        stats.mean_pass_hat_k_grouped,
        valid=[
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 1), {}),
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 8), {}),
        ],
        bad=[
            (({(5, 2): 0}, 1), {}, "groups"),
            (({(10, 3): 1, (8, 8): 1, (12, 0): 1, (9, 5): 1}, 0), {}, "k"),
        ],
        bounds=lambda v: (float(v), float(v), float(v)),
    ),
    "composite_error_rates": Case(
        stats.composite_error_rates,
        valid=[(([stats.ErrorRateCounts(2, 20, 1, 10), stats.ErrorRateCounts(3, 20, 2, 20)],), {})],
        bad=[(([],), {}, "checks"), (([stats.ErrorRateCounts(1, 0, 0, 1)],), {}, "checks")],
        reorder=lambda args: (list(reversed(args[0])),),
    ),
    "margin_outcome": Case(
        stats.margin_outcome,
        valid=[((0.2, 0.1, 0.3), {"margin": 0.05}), ((0.0, -0.01, 0.01), {"margin": 0.05})],
        bad=[((NAN, 0.0, 0.1), {"margin": 0.05}, "estimate"), ((0.1, 0.0, 0.2), {"margin": -1}, "margin")],
    ),
    "share_against_margin": Case(
        stats.share_against_margin,
        valid=[((x, n), {"margin": 0.05}) for x, n in GRID if n],
        bad=[
            ((3, 2), {"margin": 0.05}, "count"),
            ((1, -1), {"margin": 0.05}, "n"),
            ((1, 2), {"margin": -0.1}, "margin"),
            ((1, 2), {"margin": 0.05, "confidence": 1.0}, "confidence"),
        ],
        degenerate=[((0, 0), {"margin": 0.05})],
        bounds=_rate,
    ),
    "repeat_flips": Case(
        stats.repeat_flips,
        valid=[(([[True, False], [True, True], [None, True]],), {})],
        bad=[(("ab",), {}, "outcomes"), (([[1, 0]],), {}, "outcomes")],
    ),
    "weighted_mean": Case(
        stats.weighted_mean,
        valid=[(([0.2, 0.4, 1.0],), {"weights": [1.0, 2.0, 0.5]})],
        bad=[(([],), {"weights": []}, "values"), (([0.1],), {"weights": [0.0]}, "weights")],
        bounds=lambda v: (v, v, v),
        reorder=lambda args: (list(reversed(args[0])),),
        reorder_kwargs=lambda kwargs: {k: list(reversed(v)) for k, v in kwargs.items()},
    ),
    "weight_scaled": Case(
        stats.weight_scaled,
        valid=[(([0.2, 0.4, 1.0],), {"weights": [1.0, 2.0, 0.5]})],
        bad=[
            (([0.1, NAN],), {"weights": [1.0, 1.0]}, "values"),
            (([0.1],), {"weights": [1.0, 2.0]}, "weights"),
        ],
    ),
}


def test_every_exported_function_has_a_common_case() -> None:
    functions = {
        name
        for name in stats.__all__
        if inspect.isfunction(getattr(stats, name)) and not name.startswith("_")
    }
    assert functions == set(CASES), "add the function to CASES in tests/stats/test_common.py"


def _bad_cases() -> list[Any]:
    return [
        pytest.param(name, args, kwargs, param, id=f"{name}-{i}")
        for name, case in CASES.items()
        for i, (args, kwargs, param) in enumerate(case.bad)
    ]


@pytest.mark.parametrize(("name", "args", "kwargs", "param"), _bad_cases())
def test_bad_parameters_raise_the_uniform_message(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], param: str
) -> None:
    with pytest.raises(StatisticsError) as caught:
        CASES[name].func(*args, **kwargs)
    match = UNIFORM.match(str(caught.value))
    assert match, f"not the uniform message: {caught.value}"
    assert (match["param"], match["func"]) == (param, name), str(caught.value)


def _degenerate_cases() -> list[Any]:
    return [
        pytest.param(name, args, kwargs, id=f"{name}-{i}")
        for name, case in CASES.items()
        for i, (args, kwargs) in enumerate(case.degenerate)
    ]


@pytest.mark.parametrize(("name", "args", "kwargs"), _degenerate_cases())
def test_degenerate_inputs_give_none_and_a_warning(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    case = CASES[name]
    with pytest.warns(stats.UndefinedMetricWarning):
        result = case.func(*args, **kwargs)
    assert case.undefined_part(result) is None


def _valid_cases() -> list[Any]:
    return [
        pytest.param(name, args, kwargs, id=f"{name}-{i}")
        for name, case in CASES.items()
        for i, (args, kwargs) in enumerate(case.valid)
    ]


@pytest.mark.parametrize(("name", "args", "kwargs"), _valid_cases())
def test_valid_inputs_are_defined_and_bounded(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a defined statistic emits no warning
        result = case.func(*args, **kwargs)
    assert result is not None
    _assert_no_nan(result)
    if case.bounds is not None:
        value, low, high = case.bounds(result)
        assert 0.0 <= low <= high <= 1.0, (low, high)
        if value is not None:
            assert low <= value <= high, (low, value, high)
    if name == "tango_interval":
        b, c, n = args
        assert -1.0 <= result[0] <= (c - b) / n <= result[1] <= 1.0


def _assert_no_nan(result: Any) -> None:
    if hasattr(result, "to_dict"):
        values = list(result.to_dict().values())
    elif isinstance(result, tuple):
        values = list(result)
    else:
        values = [result]
    for value in values:
        if isinstance(value, float):
            assert not math.isnan(value)


def _reorder_cases() -> list[Any]:
    return [
        pytest.param(name, args, kwargs, id=f"{name}-{i}")
        for name, case in CASES.items()
        if case.reorder is not None
        for i, (args, kwargs) in enumerate(case.valid)
    ]


@pytest.mark.parametrize(("name", "args", "kwargs"), _reorder_cases())
def test_order_of_samples_does_not_matter(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    case = CASES[name]
    assert case.reorder is not None
    reordered = case.reorder(args)
    assert reordered != args, "the reordering must change the input for this test to mean anything"
    original = case.func(*args, **kwargs)
    shuffled = case.func(*reordered, **case.reorder_kwargs(kwargs))
    if case.exact_order:
        assert shuffled == original
    else:
        assert shuffled == pytest.approx(original, abs=1e-12)
