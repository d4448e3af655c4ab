"""AutoRanker within queries: the rows in a canonical order, folds and scoring units of whole queries.

With ``fit(X, y, qid=...)`` every candidate is judged per query, so a fold
or a scoring unit is a set of whole queries: no query has rows on both sides
of a split, and a unit's score is the metric's mean over the queries it
counts.  The folds are drawn at the level of the queries, from their sorted
ids and the seed, so the rows' order changes no fold's content; and the
rows are put in one canonical order (by query, grade, then the bytes of the
row) before anything is fitted, so that a shuffle of the rows changes no fit
either -- not even a learner's per-row draws.

A unit's labels carry each row's query (:data:`QUERY_LABELS`, a structured
array of grade and query code), so the search and the selection take a
unit's labels and scores as on one list; :class:`PerQueryMean` reads the
queries from the labels.
"""

from __future__ import annotations

import math
import numbers
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import MetricRefusal, Queries, check_qid, query_values_of
from ..push import QUERY_METRIC, check_grades, within_largest_query
from ._folds import (CV_MAX_ROWS, HOLDOUT_FRACTION, HOLDOUT_UNITS, MAX_REPEATS, N_FOLDS, FoldPlan, RepeatedFolds,
                     Units, _FoldPart, _is_int)

__all__ = ["QUERY_METRIC", "QUERY_LABELS", "QueryData", "PerQueryMean", "QueryFolds", "check_grades", "canonical_order",
           "query_labels", "counted_queries", "plan_query_folds", "plan_query_units", "longest_query",
           "check_metric_on_query_units"]


#: Bindings a :class:`PerQueryMean` keeps: every unit of a search (K folds of its repeats) and the whole labels.
_KEPT_BINDINGS = 32

#: The labels of rows within queries as the search sees them: each row's grade and its query's code.
QUERY_LABELS = np.dtype([("grade", np.float64), ("query", np.int64)])


@dataclass(frozen=True)
class QueryData:
    """What ``fit`` learned of the queries (in the canonical row order).

    Attributes
    ----------
    queries : Queries
        Every row's query (``codes`` ascend: the rows are in query order).
    order : ndarray of int64
        The canonical order: ``X[order]`` are the rows the search works on.
    n_without_pairs : int
        Queries whose rows share one grade (a single row, or ties): nothing to
        order there; they are counted, not refused.
    """

    queries: Queries
    order: np.ndarray
    n_without_pairs: int

    @property
    def n_queries(self) -> int:
        return self.queries.n_queries

    def describe(self) -> str:
        """``"24 queries, 1 with a single grade"``."""
        return f"{self.n_queries} queries, {self.n_without_pairs} with a single grade"


def canonical_order(X: np.ndarray, grades: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The rows sorted by query, then grade, then the bytes of the row: the same rows in any input order.

    Rows that tie on all three are identical, so their relative order
    changes nothing.  O(n log n) comparisons of rows of ``X``.
    """
    if hasattr(X, "toarray"):
        return _sparse_canonical_order(X, grades, codes)
    order = np.argsort(_row_bytes(X), kind="stable")
    order = order[np.argsort(grades[order], kind="stable")]
    return order[np.argsort(codes[order], kind="stable")].astype(np.int64)


def _row_bytes(X: np.ndarray) -> np.ndarray:
    """Each row of the dense ``X`` as one opaque value (its float64 bytes), which sorts as the bytes do."""
    rows = np.ascontiguousarray(X, dtype=np.float64)
    if not rows.shape[1]:
        return np.zeros(rows.shape[0], dtype=np.int8)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)


#: Bytes of one dense block of :func:`_sparse_canonical_order`: many small (query, grade) groups made dense at
#: once, so that the Python loop runs per block, not per group (a group at a time: about 80 µs each, 5 s for 60,000).
_ORDER_BLOCK_BYTES = 1 << 26


def _sparse_canonical_order(X: Any, grades: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """:func:`canonical_order` of a CSR ``X``, the same order as of its dense copy, without making that copy whole.

    Sorted by query and grade first, rows are then ordered by their bytes within each (query, grade) group --
    all the dense order compares there -- consecutive groups' dense rows a block at a time (at most
    :data:`_ORDER_BLOCK_BYTES` and :data:`~rankcore.validation.DENSE_BYTES_LIMIT`).  A group whose dense rows would
    exceed the limit is ordered by its stored entries (column indices, then values) instead: still independent of
    the input's order, though not the dense fit's order.
    """
    from ..validation import DENSE_BYTES_LIMIT

    order = np.lexsort((grades, codes)).astype(np.int64)        # stable: by query, grade, then input position
    keys = np.stack([codes[order], grades[order]], axis=1)
    cuts = np.flatnonzero((np.diff(keys, axis=0) != 0).any(axis=1)) + 1
    starts, stops = np.r_[0, cuts].astype(np.int64), np.r_[cuts, order.shape[0]].astype(np.int64)
    group = np.repeat(np.arange(starts.shape[0]), stops - starts)
    row_bytes = max(int(X.shape[1]) * 8, 1)
    block_rows = min(DENSE_BYTES_LIMIT, _ORDER_BLOCK_BYTES) // row_bytes
    i = 0
    while i < starts.shape[0]:
        size = int(stops[i] - starts[i])
        if size * row_bytes > DENSE_BYTES_LIMIT:
            order[starts[i]:stops[i]] = _by_entries(X, order[starts[i]:stops[i]])
            i += 1
            continue
        # the groups that follow, as many as one block holds (this one alone if it is larger)
        j = max(i + 1, int(np.searchsorted(stops, starts[i] + max(block_rows, size), side="right")))
        if j == i + 1 and size < 2:
            i = j
            continue
        a, b = int(starts[i]), int(stops[j - 1])
        rows = order[a:b]
        within = np.argsort(_row_bytes(X[rows].toarray()), kind="stable")
        within = within[np.argsort(group[a:b][within], kind="stable")]    # back to the groups, bytes within
        order[a:b] = rows[within]
        i = j
    return order


def _by_entries(X: Any, rows: np.ndarray) -> np.ndarray:
    """``rows`` of the CSR ``X`` ordered by their stored entries (column indices, then values), no dense copy."""
    part = X[rows]
    part.eliminate_zeros()
    part.sort_indices()             # a row's entries in column order: equal rows give equal keys
    entries = [part.indices[a:b].tobytes() + part.data[a:b].tobytes()
               for a, b in zip(part.indptr[:-1], part.indptr[1:])]
    return rows[np.array(sorted(range(len(entries)), key=entries.__getitem__), dtype=np.int64)]


def query_labels(grades: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The structured labels (:data:`QUERY_LABELS`) of rows with these grades and query codes."""
    labels = np.empty(grades.shape[0], dtype=QUERY_LABELS)
    labels["grade"], labels["query"] = grades, codes
    return labels


class PerQueryMean:
    """A metric taken per query and averaged over the queries it counts, on labels of :data:`QUERY_LABELS`.

    Parameters
    ----------
    metric : Metric
        Any registered scalar metric (a list metric on grades, or a
        single-list metric on 0/1 labels, computed on each query's rows).
    default : bool
        The metric was not named by the user (``ndcg@k:10``): on units whose
        queries are all shorter than its k it reads them whole, as
        ``ndcg@k:<largest>`` does (the same values), instead of refusing.
    longest : int
        0 (the default): the labels scored are the data the user gave (a
        count k larger than every query there is refused).  Else the rows of
        the longest query of the data the scored units are cut from (the
        training data; an ``eval_set`` on its own): a unit whose queries are
        all shorter than a named metric's count k reads them as any query
        shorter than k is read (``ndcg@k:10`` whole, the values of
        ``ndcg@k:<largest>``), since the cut is AutoRanker's, not the user's;
        only a k beyond that longest query is refused (``docs/auto.md``).

    Notes
    -----
    Every candidate is scored on the same units (folds, hold-out parts): a
    list metric (one with ``bind_queries``) is bound to a unit's labels once
    and the binding kept for those labels (compared value for value), so a
    call sorts the scores inside the queries only; the values are the same,
    bit for bit.
    """

    def __init__(self, metric: Any, *, default: bool = False, longest: int = 0):
        self.metric = metric
        self.spec = metric.spec
        self.greater_is_better = metric.greater_is_better
        self.default = default
        self.longest = int(longest)
        # (len, sum of grades, sum of codes) -> [(labels, bound metric)]: the sums pick the candidates cheaply,
        # equal labels decide
        self._bindings: dict[tuple, list[tuple[np.ndarray, Any]]] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key not in ("_bindings", "_lock")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bindings, self._lock = {}, threading.Lock()

    def _bound(self, labels: np.ndarray) -> Any:
        """``scores -> values`` of ``labels`` bound once, or None for a metric without ``bind_queries``."""
        if not hasattr(self.metric, "bind_queries"):
            return None
        key = (int(labels.shape[0]), float(np.sum(labels["grade"])), int(np.sum(labels["query"])))
        with self._lock:
            for seen, bound in self._bindings.get(key, ()):
                if np.array_equal(seen, labels):
                    return bound
        queries, y, metric = self._arguments(labels)
        bound = metric.bind_queries(y, queries)
        with self._lock:
            if sum(len(entries) for entries in self._bindings.values()) >= _KEPT_BINDINGS:
                self._bindings.clear()           # beyond the units of one search: the oldest need not come back
            self._bindings.setdefault(key, []).append((labels.copy(), bound))
        return bound

    def _arguments(self, labels: np.ndarray) -> tuple[Queries, np.ndarray, Any]:
        """(queries, grades as the metric takes them, the metric) of ``labels``."""
        queries = check_qid(labels["query"], int(labels.shape[0]))
        if self.longest:
            queries = queries.part_of(self.longest)      # a unit: refused only by a k beyond the whole data
        metric = within_largest_query(self.metric, queries) if self.default else self.metric
        grades = np.ascontiguousarray(labels["grade"])
        return queries, grades if metric.task == "graded" else grades.astype(np.int8), metric

    def values(self, labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Each query's value (NaN: not counted), queries in the order of their codes."""
        s = np.ascontiguousarray(scores, dtype=np.float64)
        bound = self._bound(labels)
        if bound is not None:
            return np.asarray(bound(s), dtype=np.float64)
        queries, y, metric = self._arguments(labels)
        return query_values_of(metric, y, s, queries)      # a plugin's: one value per query (NaN: not counted)

    def __call__(self, labels: np.ndarray, scores: np.ndarray) -> float:
        values = self.values(labels, scores)
        counted = values[~np.isnan(values)]
        if counted.size == 0:
            detail = f"counts none of the {values.shape[0]} queries of this part"
            raise MetricRefusal(f"metric {self.spec!r} {detail}", spec=self.spec, reason="no_query", detail=detail,
                                n_queries=int(values.shape[0]))
        return float(np.mean(counted))


def counted_queries(metric: PerQueryMean, labels: np.ndarray) -> np.ndarray:
    """Which queries ``metric`` counts (a relevant row for ``ndcg@k``, both classes for ``auc``...): bool per query.

    Read with constant scores: what a metric leaves out depends on the labels only.
    """
    return ~np.isnan(metric.values(labels, np.zeros(labels.shape[0])))


def _deal(order: np.ndarray, sizes: np.ndarray, counted: np.ndarray, n_parts: int) -> np.ndarray:
    """The part of each query: the counted queries first, then the others, each to the part with the fewest rows.

    The first ``n_parts`` counted queries go to distinct parts, so every part
    holds a counted query when there are at least ``n_parts`` of them.
    """
    part_of = np.empty(sizes.shape[0], dtype=np.int64)
    rows_in = np.zeros(n_parts, dtype=np.int64)
    for q in np.concatenate([order[counted[order]], order[~counted[order]]]).tolist():
        part = int(np.argmin(rows_in))
        part_of[q] = part
        rows_in[part] += sizes[q]
    return part_of


class QueryFolds(RepeatedFolds):
    """The folds of ``n_repeats`` repeats of K-fold over whole queries, each repeat drawn on first access.

    Repeat r deals the queries, in the r-th random order of one generator
    seeded with ``seed`` over their sorted ids, to the fold with the fewest
    rows so far (counted queries first: every fold holds some).
    """

    def __init__(self, queries: Queries, counted: np.ndarray, n_splits: int, n_repeats: int, seed: int):
        super().__init__(queries.codes, n_splits, n_repeats, seed)
        self._queries, self._counted = queries, counted
        self._fold_of_query: list[np.ndarray] = []

    def fold_of_query(self, repeat: int) -> np.ndarray:
        """The fold of each query in repeat ``repeat`` (drawing the repeats up to it)."""
        while len(self._fold_of_query) <= repeat:
            order = self._rng.permutation(self._queries.n_queries)
            self._fold_of_query.append(_deal(order, self._queries.sizes, self._counted, self._n_splits))
        return self._fold_of_query[repeat]

    def _draw_next_repeat(self) -> None:
        fold_of_row = self.fold_of_query(len(self._drawn) // self._n_splits)[self._queries.codes]
        self._drawn += [(np.flatnonzero(fold_of_row != k), np.flatnonzero(fold_of_row == k))
                        for k in range(self._n_splits)]


def plan_query_folds(queries: Queries, counted: np.ndarray, cv, seed: int, metric_spec: str) -> FoldPlan:
    """The fold plan of ``cv`` over whole queries (rows in query order), drawn with ``seed``.

    ``cv="auto"``: up to :data:`CV_MAX_ROWS` rows, :data:`MAX_REPEATS`
    repeats of :data:`N_FOLDS`-fold (fewer folds with fewer counted queries);
    beyond, one hold-out of whole queries holding :data:`HOLDOUT_FRACTION` of
    the rows.

    Raises
    ------
    ValueError
        Fewer queries, or fewer queries the metric counts, than the folds need.
    """
    n = int(queries.codes.shape[0])
    n_counted = int(np.count_nonzero(counted))
    need = f"queries the metric {metric_spec!r} counts (with a relevant row, or both classes)"
    if isinstance(cv, str):                       # "auto"
        if n > CV_MAX_ROWS:
            return _query_holdout(queries, counted, HOLDOUT_FRACTION, seed, need)
        n_splits = min(N_FOLDS, n_counted)
        if n_splits < 2:
            raise ValueError(f"qid: cross-validation over whole queries needs at least 2 {need}, got {n_counted} "
                             f"of {queries.n_queries} queries")
        return FoldPlan("kfold", QueryFolds(queries, counted, n_splits, MAX_REPEATS, seed), n_splits, MAX_REPEATS,
                        1, by_query=True)
    if _is_int(cv) or isinstance(cv, (tuple, list)):
        n_splits, n_repeats = (int(cv), 1) if _is_int(cv) else (int(cv[0]), int(cv[1]))
        if queries.n_queries < n_splits or n_counted < n_splits:
            raise ValueError(f"cv: {n_splits}-fold cross-validation over whole queries needs at least {n_splits} "
                             f"{need}, got {n_counted} of {queries.n_queries} queries; use fewer folds")
        return FoldPlan("kfold", QueryFolds(queries, counted, n_splits, n_repeats, seed), n_splits, n_repeats,
                        n_repeats, by_query=True)
    return _query_holdout(queries, counted, float(cv), seed, need)


def _query_holdout(queries: Queries, counted: np.ndarray, fraction: float, seed: int, need: str) -> FoldPlan:
    """A hold-out of whole queries: about ``fraction`` of the counted queries' rows and of the others'."""
    n_counted = int(np.count_nonzero(counted))
    if n_counted < 2:
        raise ValueError(f"cv: a hold-out of whole queries needs at least 2 {need} (one on each side), got "
                         f"{n_counted} of {queries.n_queries} queries")
    rng = np.random.default_rng(seed)
    order = rng.permutation(queries.n_queries)
    held = np.zeros(queries.n_queries, dtype=bool)
    for is_counted in (True, False):
        members = order[counted[order] == is_counted]
        if members.size == 0:
            continue
        reach = np.cumsum(queries.sizes[members])
        n_held = min(int(np.searchsorted(reach, math.ceil(fraction * reach[-1]))) + 1, members.size)
        if is_counted:
            n_held = min(n_held, members.size - 1)          # a counted query on each side
        held[members[:n_held]] = True
    is_val = held[queries.codes]
    return FoldPlan("holdout", ((np.flatnonzero(~is_val), np.flatnonzero(is_val)),), 1, 1, by_query=True)


def plan_query_units(plan: FoldPlan, queries: Queries, counted: np.ndarray, seed: int) -> Units:
    """The scoring units of a plan over whole queries: each K-fold validation part, or parts of a hold-out.

    A hold-out's validation queries are dealt into :data:`HOLDOUT_UNITS`
    parts (fewer with fewer counted queries), each holding counted queries.
    """
    if plan.kind == "holdout":
        (_, va), = plan.folds
        sub = check_qid(queries.codes[va], int(va.shape[0]))
        sub_counted = counted[sub.labels.astype(np.int64)]
        parts = min(HOLDOUT_UNITS, int(np.count_nonzero(sub_counted)))
        order = np.random.default_rng(seed).permutation(sub.n_queries)
        part_of_row = _deal(order, sub.sizes, sub_counted, max(parts, 1))[sub.codes]
        within = [np.flatnonzero(part_of_row == p) for p in range(max(parts, 1))]
        return Units([va[w] for w in within], [0] * len(within), within, [0] * len(within), 0.0)
    first = plan.folds[:plan.n_splits]
    n_val = np.mean([va.shape[0] for _, va in first])
    n_tr = np.mean([tr.shape[0] for tr, _ in first])
    folds = list(range(plan.n_folds))
    return Units(_FoldPart(plan.folds, "rows"), folds, _FoldPart(plan.folds, "within"),
                 [f // plan.n_splits for f in folds], float(n_val / n_tr))


def longest_query(labels: np.ndarray) -> int:
    """Rows of the longest query of ``labels`` (:data:`QUERY_LABELS`)."""
    return int(np.bincount(np.unique(labels["query"], return_inverse=True)[1]).max()) if labels.shape[0] else 0


def check_metric_on_query_units(metric: PerQueryMean, labels: np.ndarray, plan: FoldPlan, units: Units, *,
                                budget: bool = True, eval_set: str | None = None) -> None:
    """Raise a ValueError, before any fit, if the named ``metric`` refuses some scoring unit of the plan.

    A metric with a count k reads a unit -- a part AutoRanker cut -- as a part of the data it was cut from
    (:meth:`~rankcore.metrics.Queries.part_of`): the built-in ones refuse no unit whose queries are all shorter
    than k.  A plugin metric that compares k with the unit's own queries (``queries.sizes.max()`` rather than
    ``queries.longest``) would refuse one in the middle of the search, after fits, naming a longest query the
    data does not have.  Each unit is read here with constant scores instead -- for every repeat the search may
    use (all of them with a time ``budget``; the binding is the one the search reuses) -- and the refusal names
    the unit.  O(rows of the units) plus the metric's binding of each.  ``eval_set``: the label of the user's
    validation set the units are parts of, which the refusal (a :class:`~rankcore.metrics.MetricRefusal` of
    reason ``"other"``) carries with ``parameter="metric"``; None for parts of X.
    """
    k = getattr(metric.metric, "k", None)
    if metric.default or not isinstance(k, numbers.Integral) or isinstance(k, bool):
        return
    if plan.kind == "holdout":
        the = "" if plan.given is not None else "the "          # the user's eval_set: "the eval_set 'name'"
        places = [(rows, f"part {p + 1} of {the}{plan.describe()}") for p, rows in enumerate(units.rows)]
    else:
        places = []
        for r in range(plan.n_repeats if budget else min(plan.fixed_repeats, plan.n_repeats)):
            fold_of_row = plan.folds.fold_of_query(r)[labels["query"]]
            places += [(np.flatnonzero(fold_of_row == f), f"fold {f + 1} of repeat {r + 1} of {plan.describe()}")
                       for f in range(plan.n_splits)]
    for rows, place in places:
        try:
            metric.values(labels[rows], np.zeros(rows.shape[0]))
        except ValueError as exc:
            detail = (f"{exc}. A metric plugin should refuse a count k only beyond every query of the data it was cut "
                      "from (queries.longest; docs/metrics_queries.md)")
            facts = {} if eval_set is None else {"parameter": "metric", "eval_set": eval_set}
            raise MetricRefusal(f"metric {metric.spec!r} cannot be computed on {place}, a part AutoRanker cut from "
                                f"the data: {detail}", spec=metric.spec, reason="other", detail=detail,
                                **facts) from None
