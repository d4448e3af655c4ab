"""The :class:`Metric` base class: what every registered metric provides."""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import numpy as np

from ..spec import Component
from ..validation import check_binary_labels, check_graded_labels, check_same_length, check_scores
from ._refusal import MetricRefusal, one_class

__all__ = ["Metric", "MetricValueError", "check_metric_data"]


class Metric(Component):
    """Base class of ranking metrics (the ``metric`` plugin family).

    A metric judges scores given labels.  Subclasses set the class attributes
    and implement :meth:`compute` -- or, for bipartite metrics, provide a
    :meth:`sorted_kernel` (a Cython ``SortedMetric`` evaluated on the
    ascending-sorted positive and negative scores in O(I + K)), in which case
    ``compute`` and :meth:`from_sorted` come for free.

    Attributes
    ----------
    greater_is_better : bool or None
        Direction; ``None`` for non-scalar metrics (``roc``, ``height``).
    monotone : bool
        True when the value never gets worse as a positive's score rises or a
        negative's score falls (docs/theory/metrics.md#monotone-metrics).  ExactBoost accepts only monotone
        metrics, because its interval bound relies on exactly this.  Default True: a metric that is not
        monotone must say False (ExactBoost probes the claim on random scores and refuses a metric that
        breaks it).
    task : {"bipartite", "graded"}
        Labels in {0, 1}, or real-valued relevance.
    scalar : bool
        The value is one float (False for curves and per-negative vectors).
    bounded : bool
        The value lies in [0, 1], so its loss form is ``1 - value`` (AUC loss,
        KS loss, P@k loss) rather than ``-value``.
    shift_invariant : bool
        Adding the same constant to every score never changes the value (true
        of every rank metric).  ExactBoost then searches stumps over fewer
        parameters with tighter bounds; the default ``False`` is always safe.
    requires_both_classes : bool
        The value is undefined unless both classes are present (an error is
        raised rather than NaN returned).
    order_invariant : bool
        The value depends on the scores only through their order, ties
        included (any strictly increasing transform leaves it unchanged).
        Integer scores beyond ±2**53, which float64 would round into ties,
        are then replaced by their exact ranks; for other metrics such scores
        are refused with a ValueError.  The default ``False`` is always safe.
    labels_order_invariant : bool
        Graded labels are read only through their order (``misrank``): integer
        labels beyond ±2**53 are then ranked exactly, not rounded into ties.
    weighted_groups : bool
        The metric has a *resampling form*, :meth:`from_weighted_groups`: its
        value from the weighted tie groups of a presorted order.  Confidence
        intervals (:func:`rankcore.metrics.confidence_interval`) then evaluate
        each bootstrap replicate from one sort (natively when
        :meth:`weighted_group_kernel` gives a Cython kernel, as for every
        scalar bipartite built-in); without it they fall back to evaluating
        the metric on each replicate's resampled rows, which is correct but
        slower.  Default ``False``.
    interval_method : {"bootstrap", "delong"}
        What ``confidence_interval(..., method="auto")`` uses: the bootstrap
        (default), or DeLong's asymptotic variance (the AUC).
    ties_by_row_order : bool
        Tied scores are ordered by their rows' order (LightGBM's and
        trec_eval's conventions, ``ndcg@k:10,ties=first``), so reordering
        the rows may change the value when scores tie.  Default ``False``:
        ties are never broken by position.

    Distributed evaluation
    ----------------------
    ``rankcore.dask.evaluate`` computes a metric from chunks of (y, scores)
    it never holds together.  A metric says how by implementing one of three
    forms (``distributed_form()`` reports which; None: not distributable):

    ``"summary"`` -- a mergeable summary (the simple case)
        :meth:`chunk_summary` maps one chunk's validated ``(y, scores)`` to a
        small summary (a number, an array, or a tuple/list of them);
        :meth:`merge_summaries` merges the chunks' summaries (default: added
        element by element); :meth:`from_summary` gives the value.  Exact.
    ``"thresholds"`` -- counts at a few score thresholds (exact rank metrics)
        :meth:`score_thresholds` names the thresholds from the number of
        scores n: ``("rank", k)`` is the k-th largest score, ``("max_negative",
        0)`` the largest negative score (−inf without negatives); one pass
        counts, per threshold t, the positives and negatives above t and equal
        to t, and :meth:`from_threshold_counts` gives the value.
    ``"roc"`` -- guaranteed bounds from a partially refined ROC curve
        For metrics that depend on the scores only through the ROC curve:
        :meth:`roc_bounds` gives (value with uncertain cells as ties, low,
        high) from a :class:`rankcore.metrics.RocCells`, and
        :meth:`roc_priority` says which cells widen the bound; the evaluator
        refines those cells until the bound is within its tolerance.

    Examples
    --------
    >>> import rankcore
    >>> metric = rankcore.resolve("metric", "auc")
    >>> metric([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """

    family: ClassVar[str] = "metric"
    greater_is_better: ClassVar[bool | None] = True
    monotone: ClassVar[bool] = True
    task: ClassVar[str] = "bipartite"
    scalar: ClassVar[bool] = True
    bounded: ClassVar[bool] = False
    requires_both_classes: ClassVar[bool] = True
    shift_invariant: ClassVar[bool] = False
    order_invariant: ClassVar[bool] = False
    labels_order_invariant: ClassVar[bool] = False
    weighted_groups: ClassVar[bool] = False
    interval_method: ClassVar[str] = "bootstrap"
    ties_by_row_order: ClassVar[bool] = False

    @classmethod
    def declaration_problem(cls) -> str | None:
        """A declared flag that is not a bool, or a ``task`` that is no task (see :class:`Component`)."""
        if not cls._per_instance("greater_is_better") and cls.greater_is_better is not None \
                and not isinstance(cls.greater_is_better, (bool, np.bool_)):
            return f"{cls.__name__}.greater_is_better must be True, False or None, got {cls.greater_is_better!r}"
        if not cls._per_instance("task") and cls.task not in ("bipartite", "graded"):
            return f"{cls.__name__}.task must be 'bipartite' or 'graded', got {cls.task!r}"
        return cls._flags_problem(("monotone", "scalar", "bounded", "requires_both_classes", "shift_invariant",
                                   "order_invariant", "labels_order_invariant", "weighted_groups",
                                   "ties_by_row_order"))

    def __call__(self, y: Any, scores: Any, *, qid: Any = None, group: Any = None) -> Any:
        """Validate ``(y, scores)`` and evaluate the metric.

        ``qid`` (one query id per row) or ``group`` (LightGBM's sizes of
        consecutive queries): the mean over the queries of the metric within
        each, as ``rankcore.evaluate(y, scores, metric, qid=qid)``; without
        them the rows are one list.

        Raises
        ------
        TypeError, ValueError
            Non-numeric or malformed input, NaN/inf, labels outside {0, 1}
            (bipartite metrics), a single class where the metric needs both,
            or parameters that do not fit the data (k > n).
        """
        if qid is not None or group is not None:
            # an evaluator's first try, NDCG(k=10)(y, s, qid=qid): the queries' mean, not Python's unknown keyword
            from . import evaluate

            return next(iter(evaluate(y, scores, self, qid=qid, group=group).values()))
        graded = self.task == "graded"
        try:
            y_arr = (check_graded_labels(y, name="y", integers="rank" if self.labels_order_invariant else "round")
                     if graded else check_binary_labels(y, name="y"))
        except TypeError:               # text or dates: the labels' own refusal (ArgumentTypeRefusal), as fit's
            raise
        except ValueError as exc:       # labels it does not take (grades for prec@k, NaN): its refusal of them
            raise MetricRefusal.of_labels(exc, self.spec, "y") from None
        s_arr = check_scores(scores, name="scores", integers="rank" if self.order_invariant else "refuse",
                             what=f"metric {self.spec!r}")
        check_same_length(y=y_arr, scores=s_arr)
        check_metric_data(self, y_arr, s_arr)
        return self.checked_value(self.compute(y_arr, s_arr))

    def checked_value(self, value: Any) -> Any:
        """``value`` as computed, refused when a scalar metric returned no finite real number.

        A plugin's ``compute`` that returns NaN, inf or a string would
        otherwise flow into rankings, early stopping and reports; the error
        names the metric.
        """
        if not self.scalar:
            return value
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)) \
                or not math.isfinite(float(value)):
            raise MetricValueError(self.spec, value)
        return value

    def check_data(self, y: np.ndarray, scores: np.ndarray) -> None:
        """Data-dependent parameter checks (e.g. k <= n); raise ValueError (a plain one reaches the caller as a
        :class:`~rankcore.metrics.MetricRefusal` of reason ``"other"``)."""

    def query_values(self, y: np.ndarray, scores: np.ndarray, queries: Any) -> np.ndarray:
        """The value of each query (validated arrays, a :class:`~rankcore.metrics.Queries`).

        NaN marks a query the mean leaves out (the metric is undefined on
        it).  The default evaluates the metric on each query's rows;
        non-scalar metrics refuse ``qid``.  List metrics (``ndcg@k``, ...)
        compute every query at once from one sort, the single-list bipartite
        built-ins (``auc``, ``pauc``, ``ks``, ...) in one compiled pass.
        Here: O(n log n) plus one metric call per query (some 7 µs each); a
        query where the metric needs both classes and has one, or whose rows
        ``check_data`` refuses (a single grade for ``misrank``), does not
        count.
        """
        if not self.scalar or self.greater_is_better is None:
            raise ValueError(f"qid: metric {self.spec!r} is not a single number, so it cannot be averaged over "
                             f"queries; evaluate it per query, or use a scalar metric such as 'ndcg@k:10' or 'auc'")
        rows = queries.rows()
        ends = np.cumsum(queries.sizes)
        out = np.full(queries.n_queries, np.nan)
        for q, (start, end) in enumerate(zip(ends - queries.sizes, ends)):
            part = rows[start:end]
            y_q, s_q = y[part], scores[part]
            if self.task == "bipartite" and self.requires_both_classes and np.all(y_q == y_q[0]):
                continue
            try:
                self.check_data(y_q, s_q)
            except ValueError:
                continue
            out[q] = float(self.checked_value(self.compute(y_q, s_q)))
        return out

    def compute(self, y: np.ndarray, scores: np.ndarray) -> Any:
        """Evaluate on validated arrays (int8 labels or float64 relevance, float64 scores)."""
        from ._split import split_sorted

        pos, neg = split_sorted(y, scores)
        return self.from_sorted(pos, neg)

    def from_sorted(self, pos: np.ndarray, neg: np.ndarray) -> Any:
        """Evaluate from ascending-sorted positive and negative scores (bipartite only)."""
        kernel = self.sorted_kernel()
        if kernel is None:
            raise NotImplementedError(f"metric {self.spec!r} has no sorted-scores form")
        return kernel.evaluate(pos, neg)

    def sorted_kernel(self) -> Any:
        """A ``rankcore.metrics.sorted_kernels.SortedMetric`` for nogil use, or None."""
        return None

    # -- the resampling form (confidence intervals); separate from every other capability --

    def weighted_group_kernel(self) -> Any:
        """A ``rankcore.metrics._weighted.GroupMetric`` (nogil Cython) of the resampling form, or None."""
        return None

    def from_weighted_groups(self, pos_weight: Any, neg_weight: Any) -> float:
        """The metric from the weighted tie groups of a presorted order (the resampling form).

        Parameters
        ----------
        pos_weight, neg_weight : array-like of float, shape (n_groups,)
            For each distinct score, highest first, the total weight of the
            positives and of the negatives that carry it.  Integer weights
            are row multiplicities: the value is then the metric of the rows
            repeated that many times (a bootstrap replicate), since a
            repeated row is tied with its original.

        Returns
        -------
        float
            NaN where the metric is undefined for these weights (a class of
            zero weight, say); the bootstrap drops and counts such replicates.

        Notes
        -----
        A metric declares this form with ``weighted_groups = True`` and
        implements it here (Python, O(n_groups) per call) or through
        :meth:`weighted_group_kernel` (Cython, used without the GIL); the
        default uses the kernel.  Tie groups of one class with equal scores
        are one group, so the form is only for metrics that depend on the
        scores through their order (``order_invariant``).
        """
        kernel = self.weighted_group_kernel()
        if kernel is None:
            raise NotImplementedError(f"metric {self.spec!r} has no weighted tie-group form")
        return kernel.evaluate(pos_weight, neg_weight)

    # ------------------------------------------------------------------
    # Distributed evaluation (see "Distributed evaluation" above)
    # ------------------------------------------------------------------
    @classmethod
    def distributed_form(cls) -> str | None:
        """``"summary"``, ``"thresholds"``, ``"roc"`` or None: the form this metric (class) implements."""
        if cls.chunk_summary is not Metric.chunk_summary:
            return "summary"
        if cls.score_thresholds is not Metric.score_thresholds:
            return "thresholds"
        if cls.roc_bounds is not Metric.roc_bounds:
            return "roc"
        return None

    def chunk_summary(self, y: np.ndarray, scores: np.ndarray) -> Any:
        """The mergeable summary of one chunk of validated labels and scores (form ``"summary"``)."""
        raise NotImplementedError(f"metric {self.spec!r} has no mergeable summary")

    def merge_summaries(self, parts: list) -> Any:
        """Merge the chunks' summaries; the default adds them element by element."""
        total = parts[0]
        for part in parts[1:]:
            total = _add(total, part)
        return total

    def from_summary(self, summary: Any) -> Any:
        """The value from the merged summary of every chunk."""
        raise NotImplementedError(f"metric {self.spec!r} has no mergeable summary")

    def score_thresholds(self, n: int) -> list[tuple[str, int]]:
        """The score thresholds the value needs (form ``"thresholds"``): ``("rank", k)`` or ``("max_negative", 0)``.

        ``n`` is the number of scores; raise ValueError for parameters that
        do not fit it (as :meth:`check_data` would).
        """
        raise NotImplementedError(f"metric {self.spec!r} has no threshold-count form")

    def from_threshold_counts(self, counts: np.ndarray, n_pos: int, n_neg: int) -> Any:
        """The value from (m, 4) int64 counts, one row per requested threshold t.

        Columns: positives above t, negatives above t, positives equal to t,
        negatives equal to t.
        """
        raise NotImplementedError(f"metric {self.spec!r} has no threshold-count form")

    def roc_bounds(self, cells: Any) -> tuple[float, float, float]:
        """(value with the uncertain cells as ties, low, high) from a :class:`~rankcore.metrics.RocCells`
        (form ``"roc"``).

        ``low <= exact value <= high`` for every order of the scores inside
        the uncertain cells; all three equal when no cell is uncertain.
        """
        raise NotImplementedError(f"metric {self.spec!r} has no ROC-bound form")

    def roc_priority(self, cells: Any) -> np.ndarray:
        """Per cell, how much refining it narrows this metric's bound (any non-negative scale).

        The default spreads the effort by the cells' pairs (``cells.pair_share()``).
        """
        return cells.pair_share()

    def to_loss(self, value: float) -> float:
        """Lower-is-better form of a value: ``1 - v`` (bounded), ``-v``, or ``v``."""
        if not self.scalar:
            raise TypeError(f"metric {self.spec!r} is not scalar and has no loss form")
        if not self.greater_is_better:
            return float(value)
        return 1.0 - float(value) if self.bounded else -float(value)

    def loss(self, y: Any, scores: Any) -> float:
        """``to_loss(self(y, scores))``: the form ExactBoost and early stopping minimize."""
        return self.to_loss(self(y, scores))


class OrderMetric(Metric):
    """A metric of the order of the scores alone, ties included (every rank metric).

    Declares both invariances once for the built-in rank metrics: only the
    order of the scores matters, hence also only their differences.
    """

    shift_invariant = True
    order_invariant = True


class MetricValueError(ValueError):
    """A scalar metric returned something that is not a finite number (NaN, inf, a string).

    Attributes
    ----------
    value : object
        What the metric returned (the contract checks report it themselves).
    """

    def __init__(self, spec: str, value: Any) -> None:
        self.value = value
        super().__init__(f"metric {spec!r} returned {value!r}: a scalar metric must return a finite number "
                         f"(its compute() is at fault, not the data)")


def _add(a: Any, b: Any) -> Any:
    """a + b element by element through tuples and lists."""
    if isinstance(a, (tuple, list)):
        return type(a)(_add(x, y) for x, y in zip(a, b))
    return a + b


def labels_key(metric: Metric) -> str:
    """Which checked form of ``y`` the metric reads: its task's, or graded labels by their order only."""
    return "graded by order" if metric.task == "graded" and metric.labels_order_invariant else metric.task


def check_metric_data(metric: Metric, y: np.ndarray, scores: np.ndarray, labels: str = "y") -> None:
    """The checks of validated labels ``y`` a metric makes before it computes: both classes where it needs them
    (0/1 labels), then its own :meth:`Metric.check_data`; each refusal a :class:`MetricRefusal` said of
    ``labels`` (a plugin's plain ``ValueError`` too, of reason ``"other"``).

    Parameters
    ----------
    metric : Metric
        The metric that computes.
    y : ndarray
        The validated labels.
    scores : ndarray
        The scores, one per label.
    labels : str, default "y"
        The argument the refusals name.
    """
    if metric.requires_both_classes and metric.task != "graded" and (y.all() or not y.any()):
        raise one_class(metric.spec, int(np.count_nonzero(y)), y.shape[0], labels)
    try:
        metric.check_data(y, scores)
    except ValueError as exc:
        refusal = MetricRefusal.of_metric(exc, metric.spec, labels)     # the metric names its labels "y"
        if refusal is exc:
            raise
        raise refusal from None
