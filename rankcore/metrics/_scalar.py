"""The scalar bipartite metrics: one Metric class per Cython ``SortedMetric`` kernel.

Each class declares its parameters, direction and flags and builds its kernel
(:mod:`rankcore.metrics.sorted_kernels`) from its parameters; validation, the split
by label and the one sort come from :class:`rankcore.Metric`.  The user-facing
documentation of each metric is the docstring of its function in
:mod:`rankcore.metrics._functions`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..spec import Parameter, SpecError, count_or_fraction
from ..validation import check_k, effective_n_threads
from ._base import Metric, OrderMetric
from ._query_bipartite import values_by_query
from ._refusal import MetricRefusal
from ._weighted import (
    GroupAUC,
    GroupKS,
    GroupMaxHeight,
    GroupPartialAUC,
    GroupPNormRisk,
    GroupPrecAtK,
    GroupRMax,
    GroupTwoWayPartialAUC,
)
from .sorted_kernels import (
    SortedAUC,
    SortedKS,
    SortedMaxHeight,
    SortedPartialAUC,
    SortedPNormRisk,
    SortedPrecAtK,
    SortedRMax,
    SortedTwoWayPartialAUC,
)

__all__ = [
    "AUC",
    "PartialAUC",
    "TwoWayPartialAUC",
    "KS",
    "PrecisionAtK",
    "RMax",
    "MaxHeight",
    "PNormRisk",
]

#: Below this many rows the queries run on one thread: the pass takes under half a millisecond there (queries of
#: 2-20 rows), about what a parallel region waiting for a descheduled thread on a loaded machine may cost.
_PARALLEL_QUERY_ROWS = 1 << 15


class _SortedKernelMetric(OrderMetric):
    """A scalar bipartite metric backed by a Cython ``SortedMetric``."""

    weighted_groups = True  # resampled from one sort by a GroupMetric kernel
    #: The Cython ``SortedMetric`` and ``GroupMetric`` classes; both take the
    #: metric's parameters in their declared order (override the ``_make_*`` otherwise).
    sorted_kernel_type: ClassVar[type]
    group_kernel_type: ClassVar[type]

    def _kernel_args(self) -> tuple:
        return tuple(getattr(self, p.name) for p in self.parameters)

    def _make_kernel(self) -> Any:
        return self.sorted_kernel_type(*self._kernel_args())

    def _make_weighted_kernel(self) -> Any:
        return self.group_kernel_type(*self._kernel_args())

    def sorted_kernel(self) -> Any:
        kernel = self.__dict__.get("_kernel")
        if kernel is None:
            kernel = self.__dict__["_kernel"] = self._make_kernel()
        return kernel

    def weighted_group_kernel(self) -> Any:
        if not self.weighted_groups:
            return None
        kernel = self.__dict__.get("_weighted_kernel")
        if kernel is None:
            kernel = self.__dict__["_weighted_kernel"] = self._make_weighted_kernel()
        return kernel

    def query_values(self, y: np.ndarray, scores: np.ndarray, queries: Any) -> np.ndarray:
        """The value of each query: one compiled pass over every query (NaN: a query with one class).

        Each query's value is the metric's own kernel on the query's sorted
        sides (:mod:`rankcore.metrics._query_bipartite`), so it equals the
        metric called on the query's rows, ties and all.  O(n + Σ n_q log n_q)
        time, O(n) memory, the queries spread over threads (the values do not
        depend on how many).  A subclass that changes how a list is
        evaluated, or labels other than 0/1, take :meth:`Metric.query_values`.
        """
        kernel = self._kernel_per_query()
        if kernel is None or y.dtype != np.int8 or (y.shape[0] and int(y.view(np.uint8).max()) > 1):
            return super().query_values(y, scores, queries)
        threads = effective_n_threads(None) if y.shape[0] >= _PARALLEL_QUERY_ROWS else 1
        return values_by_query(kernel, scores, y, queries.codes, queries.sizes, n_threads=threads)

    def _kernel_per_query(self) -> Any:
        """The built-in sorted kernel when the metric of a query is exactly that kernel's value, else None."""
        cls = type(self)
        if not (self.task == "bipartite" and self.requires_both_classes and self.scalar
                and cls.compute is Metric.compute and cls.check_data is Metric.check_data
                and cls.checked_value is Metric.checked_value
                and cls.from_sorted in (Metric.from_sorted, _CountMetric.from_sorted)):
            return None
        kernel = self.sorted_kernel()
        return kernel if type(kernel) in _BUILTIN_SORTED_KERNELS else None


#: The kernels whose value is finite on every query with both classes (so no query needs the Python path's check).
_BUILTIN_SORTED_KERNELS = (SortedAUC, SortedPartialAUC, SortedTwoWayPartialAUC, SortedKS, SortedRMax, SortedMaxHeight,
                           SortedPNormRisk)


class AUC(_SortedKernelMetric):
    """Area under the ROC curve; ties count one half (higher is better)."""

    name = "auc"
    bounded = True
    interval_method = "delong"  # DeLong's variance from placement values (Sun & Xu, 2014)
    examples = ("auc",)
    sorted_kernel_type = SortedAUC
    group_kernel_type = GroupAUC

    def roc_bounds(self, cells):
        return cells.auc_bounds()


class _PartialArea(_SortedKernelMetric):
    """The ROC area with FPR <= max_fpr and TPR >= a floor (pauc: 0, tpauc: min_tpr), then scaled."""

    bounded = True

    def _tpr_floor(self) -> float:
        return 0.0

    def _scaled(self, raw: float) -> float:
        return raw

    def roc_bounds(self, cells):
        IK = float(cells.I) * float(cells.K)
        return tuple(self._scaled(cells.area(mode, self.max_fpr, self._tpr_floor()) / IK)
                     for mode in ("tie", "low", "high"))

    def roc_priority(self, cells):
        return cells.fpr_reach_share(self.max_fpr)


#: The smallest largest-area a partial AUC is normalized by: a normal double 2^52 times the smallest one, so that
#: areas down to its 2^-52 keep their precision.
_SMALLEST_NORMALIZED = float(np.finfo(np.float64).tiny) * 2.0**52

_MAX_FPR = Parameter("max_fpr", float, minimum=0.0, exclusive_minimum=True, maximum=1.0,
                     doc="the FPR range [0, max_fpr] of the partial area")


class PartialAUC(_PartialArea):
    """Partial area under the ROC curve for FPR <= max_fpr, raw or McClish-standardized (higher is better)."""

    name = "pauc"
    parameters = (
        _MAX_FPR,
        Parameter("scale", str, default="raw", choices=("raw", "mcclish"),
                  doc="raw area in [0, max_fpr], or McClish-standardized as scikit-learn's max_fpr"),
    )
    examples = ("pauc:0.1", "pauc:0.3,mcclish", "pauc:1")
    sorted_kernel_type = SortedPartialAUC
    group_kernel_type = GroupPartialAUC

    def _scaled(self, raw: float) -> float:
        if self.scale != "mcclish":
            return raw
        alpha = self.max_fpr
        return 0.5 * (1.0 + (raw - 0.5 * alpha * alpha) / (alpha - 0.5 * alpha * alpha))


class TwoWayPartialAUC(_PartialArea):
    """Two-way partial AUC: ROC area with TPR >= min_tpr and FPR <= max_fpr (higher is better)."""

    name = "tpauc"
    parameters = (
        Parameter("min_tpr", float, minimum=0.0, maximum=1.0, exclusive_maximum=True,
                  doc="the lowest TPR counted (beta)"),
        _MAX_FPR,
        Parameter("scale", str, default="raw", choices=("raw", "normalized"),
                  doc="raw area in [0, (1-min_tpr)*max_fpr], or divided by that maximum"),
    )
    examples = ("tpauc:0.5,0.5", "tpauc:0.2,0.3,normalized", "tpauc:0,1")
    sorted_kernel_type = SortedTwoWayPartialAUC
    group_kernel_type = GroupTwoWayPartialAUC

    def _tpr_floor(self) -> float:
        return self.min_tpr

    def _validate(self) -> None:
        # the largest area, (1 - min_tpr) * max_fpr, is what a normalized value divides by: where it is not a normal
        # double with room below it, the areas it would divide lose their precision or underflow to 0 (0 / 0: NaN)
        if self.scale == "normalized" and (1.0 - self.min_tpr) * self.max_fpr < _SMALLEST_NORMALIZED:
            raise SpecError(f"metric {self.spec!r}: (1 - min_tpr) * max_fpr = {(1.0 - self.min_tpr) * self.max_fpr:g} "
                            f"is too small an area to normalize by (at least {_SMALLEST_NORMALIZED:g}); use "
                            "scale=raw")

    def _scaled(self, raw: float) -> float:
        return raw / ((1.0 - self.min_tpr) * self.max_fpr) if self.scale == "normalized" else raw


class KS(_SortedKernelMetric):
    """Kolmogorov-Smirnov statistic max_t (F-(t) - F+(t)) (higher is better)."""

    name = "ks"
    bounded = True
    examples = ("ks",)
    sorted_kernel_type = SortedKS
    group_kernel_type = GroupKS

    def roc_bounds(self, cells):
        return cells.ks_bounds()

    def roc_priority(self, cells):
        return cells.ks_excess()


class PrecisionAtK(_SortedKernelMetric):
    """Precision among the k top scores, ties at the k-th score shared (higher is better)."""

    name = "prec@k"
    aliases = ("prec_at_k",)
    parameters = (
        Parameter("k", count_or_fraction, doc="a count >= 1 or a fraction of n in (0, 1)"),
    )
    bounded = True
    requires_both_classes = False
    examples = ("prec@k:1", "prec@k:10", "prec@k:0.1")
    # XGBoost's pre@K orders a tie by row: the compiled and weighted kernels and the distributed path (counts at
    # a threshold score) have no row order, so one convention would hold on one path only
    unknown_parameter_notes = {
        "convention": "prec@k has no convention (XGBoost's pre@K orders a tie by row and divides a query's hits "
                      "by min(K, its rows), which its compiled, weighted and Dask paths, sharing a tie at place K, "
                      "cannot follow); with k = min(K, the longest query's rows), per_query(y, s, 'prec@k:k', "
                      "qid=qid) values times k / min(k, sizes) give pre@K on scores without ties",
    }
    sorted_kernel_type = SortedPrecAtK
    group_kernel_type = GroupPrecAtK

    def check_data(self, y: np.ndarray, scores: np.ndarray) -> None:
        n = int(y.shape[0])
        if not (isinstance(self.k, float) and self.k < 1) and self.k > n:      # a count beyond the rows: a refusal
            detail = f"k: expected a count in [1, {n}] (the number of examples), got {int(self.k)}"
            raise MetricRefusal(f"metric {self.spec!r}: {detail}", spec=self.spec, reason="k_rows", detail=detail,
                                k=self.k, longest=n)
        check_k(self.k, n, name=f"metric {self.spec!r}: k")

    def _make_weighted_kernel(self):
        return self.group_kernel_type(self.sorted_kernel())  # the k resolved per call by the sorted kernel

    def query_values(self, y, scores, queries):
        from ._query_precision import precision_by_query

        return precision_by_query(self.k, self.spec, y, scores, queries)

    def score_thresholds(self, n):
        return [("rank", check_k(self.k, int(n), name=f"metric {self.spec!r}: k"))]

    def from_threshold_counts(self, counts, n_pos, n_neg):
        """The tie group at rank k shares the places left above it (the in-memory tie rule)."""
        k = check_k(self.k, int(n_pos) + int(n_neg), name=f"metric {self.spec!r}: k")
        pos_above, neg_above, pos_eq, neg_eq = (int(v) for v in counts[0])
        return (pos_above + (k - (pos_above + neg_above)) * (pos_eq / (pos_eq + neg_eq))) / k


class _CountMetric(_SortedKernelMetric):
    """A count of positives against the highest negative score: reported as an int."""

    def from_sorted(self, pos: np.ndarray, neg: np.ndarray) -> int:
        return int(super().from_sorted(pos, neg))

    def score_thresholds(self, n):
        return [("max_negative", 0)]


class RMax(_CountMetric):
    """Number of positives scored strictly above every negative (higher is better)."""

    name = "rmax"
    examples = ("rmax",)
    sorted_kernel_type = SortedRMax
    group_kernel_type = GroupRMax

    def from_threshold_counts(self, counts, n_pos, n_neg):
        return int(counts[0][0])                    # positives above the top negative (all without negatives)


class MaxHeight(_CountMetric):
    """Largest height over the negatives, #positives not above the top negative (lower is better)."""

    name = "max_height"
    greater_is_better = False
    examples = ("max_height",)
    sorted_kernel_type = SortedMaxHeight
    group_kernel_type = GroupMaxHeight

    def from_threshold_counts(self, counts, n_pos, n_neg):
        return 0 if n_neg == 0 else int(n_pos) - int(counts[0][0])


class PNormRisk(_SortedKernelMetric):
    """P-norm push risk R^p_theta, the l_p mean of the negatives' heights (lower is better)."""

    name = "pnorm"
    aliases = ("pnorm_risk",)
    parameters = (
        Parameter("p", float, minimum=1.0, doc="the norm; larger p weighs the highest negatives more"),
        Parameter("theta", float, default=0.0, doc="margin: f_i - f_k <= theta counts as a miss"),
    )
    greater_is_better = False
    bounded = True
    examples = ("pnorm:1", "pnorm:4", "pnorm:64", "pnorm:2,0.1")
    sorted_kernel_type = SortedPNormRisk
    group_kernel_type = GroupPNormRisk

    def _make_weighted_kernel(self):
        return self.group_kernel_type(self.p)  # the margin is 0 whenever tie groups are used

    @property
    def weighted_groups(self) -> bool:  # type: ignore[override]
        """A margin θ ≠ 0 compares score differences, which tie groups do not carry."""
        return self.theta == 0.0

    @property
    def order_invariant(self) -> bool:  # type: ignore[override]
        """With a margin θ ≠ 0 the differences of the scores matter, not only their order."""
        return self.theta == 0.0
