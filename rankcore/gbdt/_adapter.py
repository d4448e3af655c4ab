"""What the LightGBM and XGBoost adapters share: objectives and metrics as (labels, scores) functions.

The library-specific classes (``_lightgbm.py``, ``_xgboost.py``) only unpack
their library's call conventions and call :class:`ObjectiveAdapter` or
:class:`MetricAdapter`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..base import N_JOBS, check_parameters, random_state_kind, resolve_parameter
from ..objectives import Objective
from ..spec import Component, Parameter
from ..validation import fit_seed

__all__ = ["ObjectiveAdapter", "MetricAdapter", "relevance_labels", "query_sizes"]


def label_count(labels: Any, *, what: str) -> int:
    """The number of rows of the library's labels: one label a row (a column of them is one too)."""
    shape = np.shape(labels)
    if len(shape) > 1 and int(np.prod(shape)) != shape[0]:
        # XGBoost's multi-target labels (n, t): read as one list of n·t rows, they would not count the rows
        raise ValueError(f"{what}: expected one label per row, got labels of shape {shape} "
                         "(multi-target and multi-output models are not supported)")
    return int(np.prod(shape))


def relevance_labels(labels: Any, task: str, *, what: str) -> np.ndarray:
    """The library's float labels as rankcore takes them.

    Bipartite: exactly two distinct finite values, the greater is relevant ->
    int8 0/1.  Graded: finite float64 grades.
    """
    y = np.asarray(labels, dtype=np.float64)
    label_count(y, what=what)
    y = y.ravel()
    if y.size == 0:
        raise ValueError(f"{what}: expected at least one label, got none")
    if not np.isfinite(y).all():
        raise ValueError(f"{what}: labels must be finite, got NaN or inf")
    if task == "graded":
        return np.ascontiguousarray(y)
    values = np.unique(y)
    if values.size != 2:
        raise ValueError(
            f"{what}: needs labels with exactly two values (the greater is the relevant class), "
            f"got {values.size} distinct value(s) {values[:5].tolist()}"
        )
    return np.ascontiguousarray(y == values[1], dtype=np.int8)


#: The data sets of the libraries with an adapter, by the top-level module of their class.
_LIBRARY_DATA = {"lightgbm": ("LightGBM", "lightgbm.Dataset"), "xgboost": ("XGBoost", "xgboost.DMatrix")}


def refuse_other_library(adapter: Any, data: Any, own: str) -> None:
    """Refuse the other library's data set (``data``): ``adapter`` is the ``own`` library's.

    Called by the other library, an adapter would read its data set as a scikit-learn call's scores and
    fail on the labels or the types with a message that names neither; the refusal names the adapter to use.
    """
    # the first class of the data set's lineage from a library with an adapter: a user's subclass of
    # xgboost.DMatrix (defined in their own module) is XGBoost's data set all the same
    libraries = (str(getattr(c, "__module__", "")).partition(".")[0] for c in type(data).__mro__)
    library = next((name for name in libraries if name in _LIBRARY_DATA), own)
    if library == own:
        return
    from ..validation import ArgumentTypeRefusal

    kind = "objective" if isinstance(adapter, ObjectiveAdapter) else "metric"
    name, data_set = _LIBRARY_DATA[library]
    raise ArgumentTypeRefusal.said(
        kind, f"{adapter!r} is for {_LIBRARY_DATA[own][0]}, and {name} called it with its {data_set}; give "
        f"{name} its own: rankcore.gbdt.{library}_{kind}({adapter.spec!r})")


def _weights(weight: Any, n: int, *, what: str) -> np.ndarray | None:
    if weight is None:
        return None
    w = np.asarray(weight, dtype=np.float64).ravel()
    if w.size == 0:
        return None
    if w.shape[0] != n:
        raise ValueError(f"{what}: {w.shape[0]} sample weights for {n} rows")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"{what}: sample weights must be finite and >= 0")
    return np.ascontiguousarray(w)


def query_sizes(group: Any, n: int, *, what: str) -> np.ndarray | None:
    """The library's query groups as sizes of consecutive blocks of rows, or None for a single list.

    ``group`` is LightGBM's group sizes (``Dataset.get_group()``) or the sizes
    XGBoost's group pointers give (``np.diff(group_ptr)``); None or empty:
    the data carry no queries.
    """
    if group is None:
        return None
    sizes = np.asarray(group).ravel()
    if sizes.size == 0:
        return None
    whole = sizes.dtype.kind in "iu" or (sizes.dtype.kind == "f" and bool(np.all(sizes == np.round(sizes))))
    if whole and sizes.min() < 1:
        # the libraries take an empty group; rankcore's objectives and metrics rank queries with rows
        k = int(np.argmin(sizes))
        raise ValueError(f"{what}: the library's query groups hold an empty one (size {sizes[k]:g} at position {k}); "
                         "every query needs at least one row: leave empty groups out")
    # sizes above n first: a sum of int64 sizes can wrap around to n
    if not whole or sizes.max() > n or int(sizes.sum()) != n:
        raise ValueError(f"{what}: the library's query groups do not fit the {n} rows (expected sizes of "
                         f"consecutive queries, whole numbers >= 1 summing to {n}; got {sizes.size} sizes summing "
                         f"to {sizes.sum():g})")
    return sizes.astype(np.int64)


def consecutive_queries(sizes: np.ndarray):
    """The :class:`rankcore.metrics.Queries` of consecutive blocks of ``sizes`` rows (query q: the q-th block)."""
    from ..metrics import Queries

    labels = np.arange(sizes.shape[0])
    return Queries(labels, np.repeat(labels, sizes).astype(np.int64), sizes)


def _per_row(weight: Any, sizes: np.ndarray | None, n: int) -> Any:
    """XGBoost's ranking weights are one per query: each row then takes its query's."""
    if sizes is not None and weight is not None and np.asarray(weight).size == sizes.shape[0] != n:
        return np.repeat(np.asarray(weight, dtype=np.float64).ravel(), sizes)
    return weight


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Both None, or arrays of one shape and the same values."""
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _same_scores(scores: np.ndarray, initial: Any) -> bool:
    """Whether ``scores`` are the library's starting scores ``initial`` (compared as the float32 it keeps)."""
    start = np.asarray(initial, dtype=np.float64).reshape(-1)
    return start.shape == scores.shape and bool(np.array_equal(scores.astype(np.float32), start.astype(np.float32)))


def _scores(preds: Any, n: int, *, what: str) -> np.ndarray:
    s = np.asarray(preds, dtype=np.float64)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1 or s.shape[0] != n:
        raise ValueError(f"{what}: expected one raw score per row ({n}), got an array of shape {s.shape} "
                         "(multi-class and multi-output models are not supported)")
    if not np.isfinite(s).all():
        row = int(np.flatnonzero(~np.isfinite(s))[0])
        # the first round's scores are the base_margin / init_score: the one input of the user's they can come from
        raise ValueError(f"{what}: the library passed non-finite raw scores ({s[row]} at row {row}); they start at "
                         "the data's base_margin (XGBoost) or init_score (LightGBM): give finite ones")
    return np.ascontiguousarray(s)


#: The adapters' parameters, checked like every estimator's (rankcore.base.check_parameters).
_ADAPTER_PARAMETERS = (
    Parameter("random_state", random_state_kind(legacy=False), default=0,
              doc="Seeds the tie-break offset of non-smooth objectives."),
    Parameter("n_jobs", N_JOBS, default=None, doc="Threads of rankcore's kernels (None: every core)."),
)


#: How many bindings (data sets) an adapter keeps: the folds of a library's cross-validation, and a few more.
_KEPT_BINDINGS = 16


class ObjectiveAdapter:
    """A registered objective as a per-row (gradient, curvature) function of raw scores.

    Parameters
    ----------
    objective : str or rankcore.Objective
        A spec (``"push:exp,pow:4"``, ``"prec@k-avg:0.05"``) or a configured
        objective.
    random_state : int, Generator or None, default 0
        Seeds the tie-break offset of non-smooth objectives and a randomized objective's noise (see below); None
        draws a seed from NumPy's global ``RandomState`` at every fit, as scikit-learn's estimators do.
    n_jobs : int or None, default None
        Threads of rankcore's kernels (None: every core).

    What the library receives
    -------------------------
    * **Gradient and curvature of n·J**, n the number of training rows: the
      objective's working value J (``log R`` for the push objectives) is a
      single number for the whole data set, its per-row derivatives are of
      order 1/n.  Multiplying by n does not move the minimizer; it makes the
      per-row curvatures of order 1, as for the libraries' own per-row losses,
      so their defaults (``min_sum_hessian_in_leaf=1e-3``, ``min_child_weight=1``,
      ``lambda_l2``/``reg_lambda``) mean what they usually mean.  An objective
      whose gradient is already per row (``per_row_gradient``: ``lambdarank``,
      ``yetirank``, LambdaMART's λ) is passed unscaled, as LightGBM passes its own.
    * **Curvature** from the objective's ``value_gradient_hessian`` when it
      has one (``has_hessian``; see ``docs/push.md``): Newton leaves.
      **Warning:** an objective without curvature (the piecewise-linear
      ``prec@k-*`` surrogates, ``push:hinge,*``, plugins that give none) gets
      a constant: every row's curvature is the largest |gradient| of the
      call.  A leaf's value is then its mean gradient over that constant,
      never more than 1 in magnitude: a normalized gradient step, whose size
      ``learning_rate`` sets alone.  Newton leaves are not available for them.
    * **Ties.**  An objective with ``tie_break_scale = s > 0`` (the precision@k
      surrogates) is evaluated at the library's raw scores plus a fixed
      offset: a permutation (seeded by ``random_state``) of n evenly spaced
      values spanning [−s/2, s/2], as rankcore's own estimators start from
      (``rankcore.push._tie_break``).  Both libraries start every row at the
      same raw score, where such an objective has a kink at every pair and
      its subgradient need not descend; with the offset no two rows tie.  The
      offset is never part of the library's model.
    * **Labels**: two distinct values, the greater is relevant (graded
      objectives take the labels as grades).  **Sample weights** are passed to
      the objective (which refuses them if it cannot honour them).
    * **Queries.**  An objective that ranks within queries (the push,
      ``lambdarank``) is bound to the library's query groups when the
      training data carry them (LightGBM's ``group``, XGBoost's ``qid`` or
      ``group``: consecutive rows, in the library's order) and the labels
      are relevance grades >= 0; it compares only rows of the same query.
      An objective defined only within queries refuses data without groups,
      naming both; an objective of one list ranks every row together.  A
      randomized objective (``yetirank``) draws its noise from
      ``random_state``.

    The adapter keeps its bindings (labels, weights, groups) of the last few
    data sets and reuses them while the library passes the same labels, so a
    call costs one evaluation of the objective, and the folds of a library's
    cross-validation each keep their own.  A randomized objective's noise
    starts afresh with every fit (its first call, at equal raw scores), so a
    fit repeats for an integer seed whatever the adapter fitted before.  It
    holds no other state: LightGBM deep-copies it with its parameters, and
    scikit-learn's ``clone`` does too.
    """

    def __init__(self, objective: str | Objective, *, random_state: int | None = 0, n_jobs: int | None = None):
        from ..push import check_tie_break_scale
        from ..validation import effective_n_threads

        params = check_parameters(_ADAPTER_PARAMETERS, {"random_state": random_state, "n_jobs": n_jobs})
        self.objective = resolve_parameter("objective", "objective", objective)
        self.spec = self.objective.spec
        self.random_state = params.random_state
        self.n_threads = effective_n_threads(params.n_jobs)
        self.tie_break_scale = check_tie_break_scale(self.objective)
        self._bound = None
        self._offset: np.ndarray | None = None
        # (labels, weights, groups) -> the objective bound to them and its tie-break offset: a library's
        # cross-validation calls the adapter for its folds in turn, each keeping its own binding
        self._bindings: list[tuple[tuple, Any, np.ndarray | None]] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"

    def __getstate__(self) -> dict:
        # the bindings hold copies of the labels and weights: a pickled model (XGBClassifier keeps its objective)
        # carried up to 16 of them; a randomized objective keeps the current one, its noise state, so that
        # training resumed from the pickle goes on as it would have
        state = dict(self.__dict__)
        current = [entry for entry in self._bindings if entry[1] is self._bound][-1:]
        if not self.objective.randomized:       # nothing to resume but the data itself: rebuilt on the next call
            current, state["_bound"], state["_offset"] = [], None, None
        state["_bindings"] = current
        return state

    def _bind(self, y: np.ndarray, w: np.ndarray | None, sizes: np.ndarray | None, *, fresh: bool = False):
        """The objective bound to (y, w, sizes): the binding kept for them, or a new one (``fresh``: always new)."""
        key = (y, w, sizes)
        for k, (seen, bound, offset) in enumerate(self._bindings):
            if all(_same(a, b) for a, b in zip(seen, key)):
                if fresh:
                    del self._bindings[k]
                    break
                self._bound, self._offset = bound, offset
                return bound
        # a randomized objective (yetirank) draws from the adapter's seed: the library's fit repeats; None is one
        # draw from NumPy's global RandomState per binding, as the estimators' None (drawn only when used)
        seed = fit_seed(self.random_state) if self.objective.randomized or self.tie_break_scale > 0 else None
        extra = {"random_state": seed} if self.objective.randomized else {}
        if sizes is None:
            self.objective.check_target(y, w)
            self._bound = self.objective.bind(y, w, n_threads=self.n_threads, **extra)
        else:
            from ..push import check_some_query_ranks, single_grade_queries

            queries = consecutive_queries(sizes)
            # refused as rankcore's own fits refuse them: else zero gradients, and the library grows a constant model
            check_some_query_ranks(queries.n_queries, single_grade_queries(y, queries),
                                   what=f"objective {self.spec!r}", parameter="label")
            self._bound = self.objective.bind(y, w, n_threads=self.n_threads, queries=queries, **extra)
        self._offset = None
        if self.tie_break_scale > 0:
            from ..push import tie_break_offsets

            self._offset = tie_break_offsets(y.shape[0], self.tie_break_scale, seed)
        self._bindings.append((tuple(None if a is None else a.copy() for a in key), self._bound, self._offset))
        del self._bindings[:-_KEPT_BINDINGS]
        return self._bound

    @property
    def has_hessian(self) -> bool | None:
        """Whether the objective bound to the last data gives curvature (None before the first call)."""
        return None if self._bound is None else self._bound.has_hessian

    def gradient_hessian(self, labels: Any, preds: Any, weight: Any = None,
                         group: Any = None, *, initial: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """(n·∇J, n·h) at the raw scores ``preds`` (see the class docstring); ``group``: query sizes;
        ``initial``: the scores the library starts a fit from when they are not all equal (XGBoost's
        ``base_margin``), so that a call at them starts a randomized objective's noise afresh."""
        what = f"objective {self.spec!r}"
        n = label_count(labels, what=what)
        # already of a per-row loss's order (LambdaMART's λ): LightGBM's own lambdarank passes them as they are
        scale = 1.0 if self.objective.per_row_gradient else float(n)
        sizes = query_sizes(group, n, what=what)
        if sizes is None and getattr(self.objective, "requires_queries", False):
            raise ValueError(f"{what} ranks within queries, but the library's training data carry no query groups: "
                             "give them (LightGBM: group= of the Dataset or of LGBMRanker.fit; XGBoost: qid= or "
                             "group= of the DMatrix)")
        # XGBoost's ranking weights are one per query, whatever the objective: spread over the rows first
        w = _weights(_per_row(weight, sizes, n), n, what=what)
        if not getattr(self.objective, "ranks_within_queries", False):
            sizes = None                             # an objective of one list ranks every row together
        y = relevance_labels(labels, "graded" if sizes is not None else self.objective.task, what=what)
        scores = _scores(preds, n, what=what)
        # a fit's first call comes at equal raw scores (the libraries start every row at one value): a randomized
        # objective then starts its noise afresh, so that a fit repeats whatever the adapter did before
        fresh = self.objective.randomized and bool(scores.size) and (
            bool(np.all(scores == scores[0])) if initial is None else _same_scores(scores, initial))
        bound = self._bind(y, w, sizes, fresh=fresh)
        if self._offset is not None:
            scores = scores + self._offset
        if bound.has_hessian:
            _, grad, hess = bound.value_gradient_hessian(scores)
            grad = grad * scale
            hess = hess * scale
        else:
            _, grad = bound.value_and_gradient(scores)
            grad = np.asarray(grad, dtype=np.float64) * scale
            top = float(np.abs(grad).max()) if grad.size else 0.0
            hess = np.full(n, top if top > 0 and math.isfinite(top) else 1.0)
        if not (np.isfinite(grad).all() and np.isfinite(hess).all()):
            raise FloatingPointError(f"{what}: non-finite gradient or curvature at the library's scores")
        return grad, hess


class MetricAdapter:
    """A registered scalar metric as a function of (labels, raw scores).

    Parameters
    ----------
    metric : str or rankcore.Metric
        A spec (``"prec@k:100"``, ``"pauc:0.1"``) or a configured metric;
        it must be scalar with a direction (``greater_is_better`` not None).

    Notes
    -----
    rankcore's metrics depend on the ranking only and read what the library
    passes: probabilities rank like the raw scores except where the sigmoid
    saturates (float32 probabilities of 1.0 tie).  They are unweighted: evaluation
    weights other than all-equal are ignored, with a ``UserWarning``.
    Labels: two distinct values, the greater is relevant (graded metrics
    take them as grades).

    **Queries.**  When the library's data carry query groups (LightGBM's
    ``group``, XGBoost's ``qid``/``group``), the value is the metric's mean
    over the queries, each query's rows ranked on their own: exactly
    ``rankcore.evaluate(y, scores, metric, group=sizes)`` (queries the metric
    leaves out -- no relevant row for ``ndcg@k`` by default -- are not in the
    mean).  Without groups the rows are one list.

    The libraries evaluate the same validation rows after every round: a list
    metric (``ndcg@k``, ``map@k``, ... : one with ``bind_queries``) is bound
    to the labels and groups once and the binding kept while the library
    passes the same ones (compared value for value, so changed labels or
    another validation set bind anew; the last few are kept, one per
    validation set).  A call then sorts the scores inside the queries only;
    the value is the same, bit for bit.
    """

    def __init__(self, metric: str | Component):
        self.metric = resolve_parameter("metric", "metric", metric)
        self.spec = self.metric.spec
        if not self.metric.scalar or self.metric.greater_is_better is None:
            raise ValueError(f"metric {self.spec!r}: only scalar metrics with a direction can be evaluation "
                             "metrics of LightGBM or XGBoost")
        self.greater_is_better = bool(self.metric.greater_is_better)
        # (labels, query sizes) -> the metric bound to them: every validation set of a fit keeps its own
        self._bindings: list[tuple[tuple[np.ndarray, np.ndarray], Any]] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"

    def __getstate__(self) -> dict:
        # copies of validation labels are no part of the metric: a pickled model rebinds on its next call
        return {**self.__dict__, "_bindings": []}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update({"_bindings": [], **state})

    def _bound_mean(self, y: np.ndarray, sizes: np.ndarray, scores: np.ndarray) -> float | None:
        """The mean over queries through the binding kept for (y, sizes); None for a metric without one."""
        if not hasattr(self.metric, "bind_queries"):
            return None
        key = (y, sizes)
        bound = next((b for seen, b in self._bindings if all(_same(a, k) for a, k in zip(seen, key))), None)
        if bound is None:
            from ..validation import check_binary_labels, check_graded_labels

            # the labels as evaluate(..., group=) checks them, so the binding sees the very same array; the sizes
            # are the library's (query_sizes checked them): never read as one id per row, n ones included
            y_arr = check_graded_labels(y) if self.metric.task == "graded" else check_binary_labels(y)
            bound = self.metric.bind_queries(y_arr, consecutive_queries(sizes))
            self._bindings.append(((y.copy(), sizes.copy()), bound))
            del self._bindings[:-_KEPT_BINDINGS]
        values = np.asarray(bound(scores), dtype=np.float64)
        counted = ~np.isnan(values)
        if not counted.any():
            return None                  # evaluate's own path raises its error, naming the metric
        return float(np.mean(values[counted]))

    def evaluate(self, labels: Any, preds: Any, weight: Any = None, group: Any = None) -> float:
        """The metric's value (in its own direction) of the scores ``preds``; per query with ``group`` sizes."""
        from ..metrics import per_query

        what = f"metric {self.spec!r}"
        y = relevance_labels(labels, self.metric.task, what=what)
        n = y.shape[0]
        sizes = query_sizes(group, n, what=what)
        w = _weights(_per_row(weight, sizes, n), n, what=what)
        if w is not None and not np.all(w == w[0]):
            warnings.warn(f"{what}: rankcore metrics are unweighted; the evaluation sample weights are ignored",
                          UserWarning, stacklevel=3)
        scores = _scores(preds, n, what=what)
        if sizes is None:
            return float(self.metric(y, scores))
        value = self._bound_mean(y, sizes, scores)
        if value is not None:
            return value
        # the error of per_query's path, naming the metric; the library's sizes as each row's query (see _bound_mean)
        return float(per_query(y, scores, self.metric, qid=consecutive_queries(sizes).codes).mean)
