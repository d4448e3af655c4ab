"""What an interval or a paired test returns, and the pieces every interval shares.

The result classes (:class:`ConfidenceInterval`, :class:`PairedComparison`),
the checks of the bootstrap's options and of the data, and the percentile
interval and p-value made from replicates.  The intervals of one list
(``_intervals``) and over queries (``_query_evaluate``) both build on them.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .._caller import outside_stacklevel
from ..validation import check_labels_and_scores, check_random_state_param, check_same_length, check_scores
from ._base import Metric
from ._resampling import seed_of

__all__ = ["ConfidenceInterval", "PairedComparison", "DroppedReplicatesWarning", "MIN_BOOT", "MAX_BOOT",
           "bootstrap_options", "percentile_interval", "paired_percentile_comparison", "check_two_of_each_class"]

#: Fewer replicates than this cannot place the tails of a 95 % interval.
MIN_BOOT = 100
#: More replicates than this move no printed digit of an interval and only cost time and memory (8 bytes each).
MAX_BOOT = 1_000_000


class DroppedReplicatesWarning(RuntimeWarning):
    """The metric was undefined on some bootstrap replicates; they were left out (and counted)."""


def _fmt(value: float) -> str:
    return f"{value:.4g}"


@dataclass(frozen=True, repr=False, eq=False)
class _Interval:
    """What every interval result has (the fields after ``upper`` are documented on the subclasses)."""

    metric: str
    lower: float
    upper: float
    level: float
    method: str
    standard_error: float
    n_boot: int | None = None
    n_dropped: int = 0
    stratified: bool | None = None
    replicates: np.ndarray | None = None

    @property
    def interval(self) -> tuple[float, float]:
        """``(lower, upper)``."""
        return self.lower, self.upper

    def as_dict(self) -> dict[str, Any]:
        """The fields without the replicates (for tables and JSON)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "replicates"}

    def _how(self, between: str = "") -> str:
        """``[level]% CI [lower, upper], {between}method[, replicates][, dropped]`` for the repr."""
        how = self.method if self.n_boot is None else f"{self.method}, {self.n_boot} replicates"
        if self.n_dropped:
            how += f", {self.n_dropped} dropped"
        return f"{100 * self.level:g}% CI [{_fmt(self.lower)}, {_fmt(self.upper)}], {between}{how}"


@dataclass(frozen=True, repr=False, eq=False)
class ConfidenceInterval(_Interval):
    """A metric's estimate and its confidence interval.

    Attributes
    ----------
    metric : str
        The metric's spec.
    estimate : float
        The metric on the data (in the metric's own direction).
    lower, upper : float
        The interval at ``level``.
    level : float
    method : {"delong", "bootstrap", "bootstrap over queries"}
        ``"bootstrap over queries"``: the interval of a metric taken per
        query (``qid``), whole queries resampled.
    standard_error : float
        DeLong's standard error, or the standard deviation of the replicates.
    n_boot : int or None
        Replicates drawn (None for DeLong).
    n_dropped : int
        Replicates on which the metric was undefined and that were left out.
    stratified : bool or None
        Whether each class was resampled on its own (None for DeLong; False
        over queries).
    replicates : ndarray or None
        The replicates' values (NaN for dropped ones), when asked for.
    """

    estimate: float = field(kw_only=True)

    def __repr__(self) -> str:
        return f"ConfidenceInterval({self.metric} {_fmt(self.estimate)}, {self._how()})"


@dataclass(frozen=True, repr=False, eq=False)
class PairedComparison(_Interval):
    """Two scorings of the same rows compared by one metric: difference, interval, p-value.

    Attributes
    ----------
    estimates : tuple of float
        The metric (spec ``metric``) of the first and of the second scoring.
    difference : float
        ``estimates[0] - estimates[1]`` (in the metric's own direction), and
        ``lower``, ``upper`` its interval at ``level``.
    p_value : float
        Two-sided, for "no difference": the normal approximation
        z = difference / standard_error; over n queries at least 2 / 2**n
        (the exact sign-flip test's smallest).
    replicates : ndarray of shape (n_boot, 2) or None
        Both scorings' values on each shared replicate, when asked for.

    The other fields (``method``, ``standard_error``, ``n_boot``,
    ``n_dropped``, ``stratified``) are those of :class:`ConfidenceInterval`,
    for the difference.
    """

    estimates: tuple[float, float] = field(kw_only=True)
    difference: float = field(kw_only=True)
    p_value: float = field(kw_only=True)

    def __repr__(self) -> str:
        a, b = self.estimates
        return (f"PairedComparison({self.metric} {_fmt(a)} - {_fmt(b)} = {_fmt(self.difference)}, "
                f"{self._how(f'p = {self.p_value:.3g}, ')})")


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level: expected a confidence level in (0, 1) such as 0.95, got {level!r}")
    return float(level)


def _check_n_boot(n_boot: Any) -> int:
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral):
        raise TypeError(f"n_boot: expected an integer number of replicates >= {MIN_BOOT}, got {n_boot!r}")
    if n_boot < MIN_BOOT:
        raise ValueError(f"n_boot: expected at least {MIN_BOOT} bootstrap replicates (2000 is usual), got {n_boot}")
    if n_boot > MAX_BOOT:
        raise ValueError(f"n_boot: expected at most {MAX_BOOT:,} bootstrap replicates (2000 is usual), got {n_boot}")
    return int(n_boot)


def check_two_of_each_class(y01: np.ndarray) -> None:
    """At least two rows of each class: what a stratified bootstrap of two-class data (and DeLong) needs."""
    n_pos = int(np.count_nonzero(y01))
    n_neg = int(y01.shape[0]) - n_pos
    if n_pos < 2 or n_neg < 2:
        raise ValueError(f"y: a confidence interval needs at least two rows of each class (each class is a "
                         f"stratum of the bootstrap and a sample of DeLong's variance), got {n_pos} positive "
                         f"and {n_neg} negative rows")


def _check_data(y: Any, scorings: dict[str, Any], metric: Metric, *,
                whole: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Labels and scorings checked for ``metric``; ``whole``: also the metric's checks of the rows as one list
    (False when they are queries, whose own checks follow: a k larger than the input is not the error there)."""
    integers = "rank" if metric.order_invariant else "refuse"
    first, *others = scorings.items()
    y_arr, s_arr = check_labels_and_scores(y, first[1], graded=metric.task == "graded", both_classes=False,
                                           what=f"metric {metric.spec!r}", integers=integers,
                                           label_integers="rank" if metric.labels_order_invariant else "round")
    arrays = [s_arr]
    for name, scores in others:
        arrays.append(check_scores(scores, name=name, integers=integers, what=f"metric {metric.spec!r}"))
    check_same_length(y=y_arr, **{name: a for name, a in zip(scorings, arrays)})
    for s in arrays if whole else ():
        metric.check_data(y_arr, s)
    return y_arr, arrays


def _seed(random_state: Any) -> int:
    return seed_of(check_random_state_param(random_state))


def bootstrap_options(level: Any, n_boot: Any, random_state: Any) -> tuple[float, int, int]:
    """The checked ``(level, n_boot, seed)`` of a bootstrap, each error naming its argument."""
    return _check_level(level), _check_n_boot(n_boot), _seed(random_state)


def _kept(values: np.ndarray, metric: Metric, n_boot: int, what: str) -> tuple[np.ndarray, int]:
    """The defined replicates; a warning says how many were dropped, an error if too few are left."""
    defined = ~np.isnan(values) if values.ndim == 1 else ~np.isnan(values).any(axis=1)
    n_dropped = int(n_boot - np.count_nonzero(defined))
    if n_dropped:
        kept = n_boot - n_dropped
        if kept < MIN_BOOT:
            raise ValueError(f"n_boot: metric {metric.spec!r} is undefined on {n_dropped} of {n_boot} bootstrap "
                             f"{what}, leaving {kept}: fewer than {MIN_BOOT} cannot place the interval's tails "
                             f"(the metric needs more data than a resample keeps)")
        warnings.warn(f"metric {metric.spec!r} is undefined on {n_dropped} of {n_boot} bootstrap {what} "
                      f"(e.g. no positive drawn); the interval uses the other {kept}",
                      DroppedReplicatesWarning, stacklevel=outside_stacklevel())
    return values[defined], n_dropped


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    """Percentile interval with linear interpolation (R's quantile type 7, as pROC)."""
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(values, [tail, 1.0 - tail])
    return float(lower), float(upper)


def percentile_interval(metric: Metric, replicates: np.ndarray, *, estimate: float, level: float, method: str,
                        n_boot: int, stratified: bool, what: str, return_replicates: bool) -> ConfidenceInterval:
    """The percentile interval of a metric's defined replicates (``what`` names them in the warning)."""
    kept, n_dropped = _kept(replicates, metric, n_boot, what)
    lower, upper = _percentiles(kept, level)
    return ConfidenceInterval(metric.spec, lower, upper, level, method, float(np.std(kept, ddof=1)), n_boot,
                              n_dropped, stratified, replicates if return_replicates else None, estimate=estimate)


def _p_value(difference: float, se: float) -> float:
    from scipy.stats import norm

    if se <= 0.0 or not math.isfinite(se):
        return 1.0 if difference == 0.0 else 0.0
    return float(2.0 * norm.sf(abs(difference) / se))


def paired_percentile_comparison(metric: Metric, replicates: np.ndarray, *, estimates: tuple[float, float],
                                 level: float, method: str, n_boot: int, stratified: bool, what: str,
                                 return_replicates: bool) -> PairedComparison:
    """The percentile interval and p-value of the difference of two scorings' defined replicates, shape (n_boot, 2)."""
    kept, n_dropped = _kept(replicates, metric, n_boot, what)
    differences = kept[:, 0] - kept[:, 1]
    lower, upper = _percentiles(differences, level)
    se = float(np.std(differences, ddof=1))
    difference = estimates[0] - estimates[1]
    return PairedComparison(metric.spec, lower, upper, level, method, se, n_boot, n_dropped, stratified,
                            replicates if return_replicates else None, estimates=estimates, difference=difference,
                            p_value=_p_value(difference, se))
