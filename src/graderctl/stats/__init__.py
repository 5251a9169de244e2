"""Pure statistics for graderctl: rates and intervals, agreement, paired comparisons, pass@k, corrections.

No I/O and nothing about graders: plain ints, floats, Fractions and frozen dataclasses in, the same out.
Conventions (scikit-learn ``sklearn.metrics`` style):

- bad parameters raise :class:`graderctl.errors.StatisticsError` with one uniform message,
  ``The 'k' parameter of pass_at_k must be an int in the range [1, n]. Got 6 instead.``;
- a statistic undefined for valid data returns ``None`` and emits :class:`UndefinedMetricWarning`
  (never NaN, never 0);
- bootstraps are deterministic for a fixed ``seed``.

Importing this package is cheap: numpy, scipy and krippendorff are imported inside the functions that need
them.
"""

from __future__ import annotations

from graderctl.stats._common import UndefinedMetricWarning
from graderctl.stats.agreement import cohen_kappa, cohen_kappa_from_table, krippendorff_alpha_nominal
from graderctl.stats.clustered import (
    ClusteredRate,
    bootstrap_tasks_interval,
    cluster_bootstrap_mean_difference,
    cluster_bootstrap_rate,
)
from graderctl.stats.correction import (
    CorrectedRate,
    ErrorRateCounts,
    composite_error_rates,
    rogan_gladen,
    rogan_gladen_interval,
)
from graderctl.stats.independent import (
    DEFAULT_SELF_PREFERENCE_MARGIN,
    MIN_SELF_PREFERENCE_SAMPLES,
    SELF_PREFERENCE_CONFIDENCE,
    SelfPreference,
    newcombe_interval,
    self_preference,
)
from graderctl.stats.margin import (
    MarginOutcome,
    RepeatFlips,
    ShareAgainstMargin,
    margin_outcome,
    repeat_flips,
    share_against_margin,
)
from graderctl.stats.outcomes import (
    ErrorCounts,
    PairedOutcomes,
    error_counts,
    false_accept_rate,
    false_reject_rate,
    paired_outcomes,
)
from graderctl.stats.paired import (
    PairedDifference,
    equivalent_within,
    mcnemar_exact,
    paired_difference,
    tango_interval,
)
from graderctl.stats.passk import (
    KTooLargeError,
    mean_pass_at_k,
    mean_pass_at_k_grouped,
    mean_pass_hat_k,
    mean_pass_hat_k_grouped,
    pass_at_k,
    pass_hat_k,
)
from graderctl.stats.rates import (
    RateStats,
    clopper_pearson_interval,
    clopper_pearson_upper,
    rate_stats,
    samples_needed,
    wilson_interval,
)
from graderctl.stats.weights import weight_scaled, weighted_mean

__all__ = [
    "DEFAULT_SELF_PREFERENCE_MARGIN",
    "MIN_SELF_PREFERENCE_SAMPLES",
    "SELF_PREFERENCE_CONFIDENCE",
    "ClusteredRate",
    "CorrectedRate",
    "ErrorCounts",
    "ErrorRateCounts",
    "KTooLargeError",
    "MarginOutcome",
    "PairedDifference",
    "PairedOutcomes",
    "RateStats",
    "RepeatFlips",
    "SelfPreference",
    "ShareAgainstMargin",
    "UndefinedMetricWarning",
    "bootstrap_tasks_interval",
    "clopper_pearson_interval",
    "clopper_pearson_upper",
    "cluster_bootstrap_mean_difference",
    "cluster_bootstrap_rate",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "composite_error_rates",
    "equivalent_within",
    "error_counts",
    "false_accept_rate",
    "false_reject_rate",
    "krippendorff_alpha_nominal",
    "margin_outcome",
    "mcnemar_exact",
    "mean_pass_at_k",
    "mean_pass_at_k_grouped",
    "mean_pass_hat_k",
    "mean_pass_hat_k_grouped",
    "newcombe_interval",
    "paired_difference",
    "paired_outcomes",
    "pass_at_k",
    "pass_hat_k",
    "rate_stats",
    "repeat_flips",
    "rogan_gladen",
    "rogan_gladen_interval",
    "samples_needed",
    "self_preference",
    "share_against_margin",
    "tango_interval",
    "weight_scaled",
    "weighted_mean",
    "wilson_interval",
]
