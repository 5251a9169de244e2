"""Agreement between raters: Cohen's kappa (two raters), Krippendorff's alpha (nominal, missing allowed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction

from graderctl.stats._common import check_int, check_same_length, invalid, warn_undefined

__all__ = [
    "cohen_kappa",
    "cohen_kappa_from_table",
    "krippendorff_alpha_nominal",
]


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items: ``(p_o - p_e) / (1 - p_e)``.

    Labels may be any hashable values except ``None`` (for missing labels use
    :func:`krippendorff_alpha_nominal`). Returns ``None`` with :class:`UndefinedMetricWarning` when chance
    agreement ``p_e`` is 1 (both raters give one and the same label to every item).
    """
    func = "cohen_kappa"
    a_labels = _labels(a, "a", func)
    b_labels = _labels(b, "b", func)
    n = check_same_length(func, a=a_labels, b=b_labels)
    if n == 0:
        invalid("a", func, "a non-empty sequence of labels", None, got_text="an empty sequence")
    observed = Fraction(sum(1 for x, y in zip(a_labels, b_labels, strict=True) if x == y), n)
    a_counts = Counter(a_labels)
    b_counts = Counter(b_labels)
    expected = Fraction(sum(a_counts[label] * b_counts.get(label, 0) for label in a_counts), n * n)
    return _kappa(observed, expected)


def cohen_kappa_from_table(both_yes: int, a_yes_b_no: int, a_no_b_yes: int, both_no: int) -> float | None:
    """Cohen's kappa from a 2x2 table of counts; ``None`` with a warning when chance agreement is 1."""
    func = "cohen_kappa_from_table"
    yy = check_int(both_yes, "both_yes", func, low=0)
    yn = check_int(a_yes_b_no, "a_yes_b_no", func, low=0)
    ny = check_int(a_no_b_yes, "a_no_b_yes", func, low=0)
    nn = check_int(both_no, "both_no", func, low=0)
    n = yy + yn + ny + nn
    if n == 0:
        invalid("both_yes", func, "counts with a positive total", None, got_text="a table of zeros")
    observed = Fraction(yy + nn, n)
    expected = Fraction((yy + yn) * (yy + ny) + (ny + nn) * (yn + nn), n * n)
    return _kappa(observed, expected)


def _kappa(observed: Fraction, expected: Fraction) -> float | None:
    if expected == 1:
        warn_undefined(
            "Cohen's kappa is undefined when chance agreement is 1 (both raters used a single label); "
            "returning None"
        )
        return None
    return float((observed - expected) / (1 - expected))


def _labels(values: object, name: str, func: str) -> list[Hashable]:
    expected = "a sequence of hashable labels (not None)"
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        import sys

        numpy = sys.modules.get("numpy")
        if numpy is None or not isinstance(values, numpy.ndarray):
            invalid(name, func, expected, None, got_text=f"a {type(values).__name__}")
    labels: list[Hashable] = []
    for index, item in enumerate(values):
        if item is None or not isinstance(item, Hashable):
            invalid(name, func, expected, None, got_text=f"{item!r} at index {index}")
        labels.append(item)
    return labels


def krippendorff_alpha_nominal(ratings: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha at the nominal level for ``ratings[unit][rater]``; ``None`` marks a missing
    rating.

    Units may have different numbers of raters. Uses the ``krippendorff`` package with
    ``level_of_measurement="nominal"`` (its default, interval, is wrong for labels). Returns ``None`` with
    :class:`UndefinedMetricWarning` when no unit has two ratings or every pairable rating is the same value.
    """
    func = "krippendorff_alpha_nominal"
    expected = "a non-empty sequence of units, each a sequence of ratings (None = missing)"
    if isinstance(ratings, str | bytes) or not isinstance(ratings, Sequence) or len(ratings) == 0:
        invalid("ratings", func, expected, None, got_text=_describe(ratings))
    codes: dict[Hashable, int] = {}
    rows: list[list[int]] = []
    for index, unit in enumerate(ratings):
        if isinstance(unit, str | bytes) or not isinstance(unit, Sequence):
            invalid("ratings", func, expected, None, got_text=f"{unit!r} at index {index}")
        row: list[int] = []
        for value in unit:
            if value is None:
                continue
            if not isinstance(value, Hashable):
                invalid("ratings", func, expected, None, got_text=f"{value!r} in unit {index}")
            row.append(codes.setdefault(value, len(codes)))
        rows.append(row)
    pairable = [row for row in rows if len(row) >= 2]
    pairable_values = {code for row in pairable for code in row}
    if len(pairable_values) < 2:
        reason = "no unit has two ratings" if not pairable else "every pairable rating has the same value"
        warn_undefined(f"Krippendorff's alpha is undefined: {reason}; returning None")
        return None

    import krippendorff
    import numpy as np

    counts = np.zeros((len(rows), len(codes)), dtype=np.int64)
    for unit_index, row in enumerate(rows):
        for code in row:
            counts[unit_index, code] += 1
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


def _describe(value: object) -> str:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return f"a {type(value).__name__} of length {len(value)}"
    return repr(value)
