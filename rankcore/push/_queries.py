"""The rows of a fit within queries: checked once, put in query order, held out by whole queries.

A push fit with ``qid`` (or LightGBM's ``group`` sizes) works on its rows
sorted by query -- the queries in the order of their sorted ids, each
query's rows in their given order -- so that the model depends on which rows
share a query, never on where the queries sit in the input: interleaved,
shuffled or contiguous queries give the same model (and, for learners that
draw nothing per row, so does any shuffle of the rows inside a query).
Hold-outs (early stopping) take whole queries, drawn from the sorted query
ids with the seed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._caller import outside_stacklevel
from .._numbers import missing_labels
from ..metrics import Queries, check_qid, check_queries, looks_like_sizes
from ..objectives import check_positions
from ..validation import ArgumentRefusal, ArgumentTypeRefusal, check_sample_weight, said_again

__all__ = ["QueryRows", "QueryPositions", "query_positions", "refuse_positions_without_queries", "warn_sparse_places",
           "query_rows", "check_grades", "check_query_labels", "check_rows", "row_weights",
           "check_some_query_ranks", "check_training_part", "single_grade_queries", "subset", "query_folds"]


@dataclass(frozen=True)
class QueryRows:
    """Each training row's query, the rows in query order.

    Attributes
    ----------
    queries : Queries
        The queries of the rows *after* :attr:`order` is applied (their
        codes ascend).
    order : ndarray of int64 or None
        The permutation putting the given rows in query order (None: they
        already are).
    """

    queries: Queries
    order: np.ndarray | None

    def take(self, values):
        """``values`` (an array, a sparse matrix or None) in query order."""
        if values is None or self.order is None:
            return values
        return values[self.order]


def query_rows(qid, group, n: int) -> QueryRows | None:
    """The queries of ``n`` rows from ``qid`` or ``group`` (None when neither), with the query order.

    Raises the errors of :func:`rankcore.metrics._queries.check_queries`
    (both given, wrong length, None/NaN ids, sizes not summing to ``n``).
    """
    queries = check_queries(qid, group, n)
    if queries is None:
        return None
    order = np.argsort(queries.codes, kind="stable")
    if np.array_equal(order, np.arange(n)):
        return QueryRows(queries, None)
    return QueryRows(Queries(queries.labels, queries.codes[order], queries.sizes), order)


#: Fewer rows than this per display place on average draws a warning (see :func:`query_positions`).
MIN_ROWS_PER_PLACE = 5


@dataclass(frozen=True)
class QueryPositions:
    """The display position of each training row, in query order.

    Attributes
    ----------
    ids : ndarray of int64, shape (n_positions,)
        The distinct positions given, sorted.
    codes : ndarray of intp, shape (n,)
        Each row's position as an index into ``ids``, the rows in query order.
    start : ndarray of float64, shape (n_positions,), or None
        The effects the fit starts from (None: 0 for every place); a continuation's are its init model's.
    """

    ids: np.ndarray
    codes: np.ndarray
    start: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> "QueryPositions":
        """The positions of ``rows`` (indices into the query-ordered rows); ``ids`` stays whole."""
        return QueryPositions(self.ids, self.codes[rows], self.start)


def query_positions(position, rows: QueryRows | None, n: int) -> QueryPositions | None:
    """The checked ``position`` of ``n`` rows put in query order (None when not given).

    Raises ValueError when positions come without queries: a position is a
    place in one query's displayed list.  Warns when the places hold fewer
    than :data:`MIN_ROWS_PER_PLACE` rows each on average: each place's effect
    is learned from its rows alone, so ids that hardly repeat (row or
    document ids given by mistake) would explain the labels in place of the
    features.
    """
    if position is None:
        return None
    if rows is None:
        refuse_positions_without_queries()
    ids, codes = check_positions(position, n)
    warn_sparse_places(ids.shape[0], n)
    return QueryPositions(ids, rows.take(codes))


def refuse_positions_without_queries() -> None:
    """The ValueError of ``position`` given without ``qid`` (or ``group``)."""
    raise ArgumentRefusal.said("position", "display positions are places within each query's list; pass qid (or "
                                           "group) with them")


def warn_sparse_places(n_places: int, n: int) -> None:
    """Warn when ``n_places`` distinct places hold fewer than :data:`MIN_ROWS_PER_PLACE` of the ``n`` rows each on
    average (see :func:`query_positions`)."""
    if n_places * MIN_ROWS_PER_PLACE > n:
        warnings.warn(f"position: {n_places:,} distinct places for {n:,} rows ({n / n_places:.1f} rows a "
                      "place): each place's effect is learned from its own rows, so it can explain their labels in "
                      "place of the features; positions are the places of a displayed list (0, 1, 2, ...), shared "
                      "by every query", UserWarning, stacklevel=outside_stacklevel())


def check_grades(y, n: int, *, name: str = "y", objective=None) -> np.ndarray:
    """Relevance grades for a fit within queries: one finite number >= 0 per row, as float64.

    Refusals are :class:`~rankcore.ArgumentRefusal` (``ValueError``) with ``parameter`` ``name``; grades that are
    not numbers (text, dates) an :class:`~rankcore.validation.ArgumentTypeRefusal` (a ``TypeError`` too), as
    ``score`` and the metrics refuse them.

    Any grades, ints or floats, up to the ``objective``'s ``max_grade`` (no
    cap unless it forms 2^grade); errors name the row as the caller gave it.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array of relevance grades, got shape {arr.shape}")
    # durations would cast to counts of their unit (1 s and 1000 ms differ); text is refused as the metrics that
    # judge the grades refuse it (score, evaluate), although NumPy would read "2" as 2.0
    if arr.dtype.kind in "mMUSV":
        raise ArgumentTypeRefusal.said(name, f"relevance grades must be numbers >= 0, got dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            missing = missing_labels(arr) if arr.dtype == object else ()
            if len(missing):     # a nullable column's pd.NA: name the row, as for NaN
                detail = ("relevance grades must be finite numbers >= 0 (fitting within queries), got a missing "
                          f"one (None or pd.NA) at row {int(missing[0])}")
                raise ArgumentRefusal.said(name, detail) from None
            raise ArgumentTypeRefusal.said(name, f"relevance grades must be numbers >= 0, got dtype {arr.dtype}") \
                from None
    if arr.shape[0] != n:
        raise ArgumentRefusal.said(name, f"expected one grade per row of X ({n}), got {arr.shape[0]}")
    grades = arr.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(grades) | (grades < 0))
    if bad.size:
        raise ArgumentRefusal.said(name, "relevance grades must be finite numbers >= 0 (fitting within queries), "
                                   f"got {arr[bad[0]].item()!r} at row {int(bad[0])}", row=int(bad[0]))
    top = math.inf if objective is None else objective.max_grade
    # an objective with a table of gains per grade (lambdarank's gain=, LightGBM's label_gain) takes whole grades
    whole = bool(getattr(objective, "whole_grades", False))
    bad = np.flatnonzero((grades > top) | (whole & (grades != np.floor(grades))))
    if bad.size:
        reason = getattr(objective, "max_grade_reason", "weighs rows by the gain 2^grade")
        raise ArgumentRefusal.said(name, f"the objective {objective.named_spec!r} {reason}, so grades must be "
                                   f"{'whole numbers ' if whole else ''}<= {top:g}, got {arr[bad[0]].item()!r} at "
                                   f"row {int(bad[0])}", row=int(bad[0]))
    return grades


def check_query_labels(y, qid, n: int, objective, *, label: str = "eval_set") -> tuple[np.ndarray, Queries]:
    """The grades and queries of ``n`` validation rows (``eval_set``'s ``y_val`` and ``qid_val``), in their order.

    ``label``: how errors name the set (``"eval_set[1]"`` of several).
    """
    grades = check_grades(y, n, name=f"{label} y", objective=objective)
    try:
        return grades, check_qid(qid, n, name=f"{label} qid")
    except ValueError as exc:
        if looks_like_sizes(qid, n):       # LightGBM's eval_group form, which a set's triple does not take
            raise ValueError(f"{exc}; these look like LightGBM's query sizes (eval_group): give each row's query id, "
                             f"np.repeat(np.arange(len(sizes)), sizes)") from None
        raise


def check_rows(objective, y: np.ndarray, w, queries) -> None:
    """The objective's own checks of the rows a fit binds it to: ``check_target`` on one list; within queries
    the bound objective checks its grades and queries itself."""
    if queries is None:
        objective.check_target(y, w)


def single_grade_queries(y: np.ndarray, queries: Queries, weights: np.ndarray | None = None) -> int:
    """How many queries have a single grade among their rows (no pair to order).

    With ``weights`` (one a row, in the rows' order) only the rows of
    positive weight count: a query whose rows all weigh 0 -- a dropped query
    -- has no pair either, and is counted.  O(n) when the rows are in query
    order (as a fit holds them), else a stable sort by query first: each
    query's lowest and highest grade.
    """
    codes, grades = queries.codes, np.asarray(y, dtype=np.float64)
    if weights is not None:
        kept = np.asarray(weights) > 0
        dropped = queries.n_queries - np.unique(codes[kept]).shape[0]
        return dropped + single_grade_queries(grades[kept], _Codes(codes[kept]))
    if codes.shape[0] == 0:
        return 0
    if np.any(codes[1:] < codes[:-1]):
        order = np.argsort(codes, kind="stable")
        codes, grades = codes[order], grades[order]
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    return int(np.count_nonzero(np.minimum.reduceat(grades, starts) == np.maximum.reduceat(grades, starts)))


def row_weights(sample_weight, n: int, queries: Queries | None) -> np.ndarray | None:
    """``sample_weight`` checked (:func:`~rankcore.validation.check_sample_weight`): one weight per row.

    With ``queries``, one weight per query (XGBoost's ranking weights) is
    refused with how to give one per row instead.
    """
    if sample_weight is None:
        return None
    try:
        return check_sample_weight(sample_weight, n)
    except ValueError:
        if queries is not None and np.asarray(sample_weight).shape == (queries.n_queries,):
            raise ArgumentRefusal.said(
                "sample_weight", f"expected {n} weights, one per row, got {queries.n_queries}, one per query (as "
                "XGBoost's ranking weights); repeat each query's weight over its rows, e.g. "
                "w[np.unique(qid, return_inverse=True)[1]] for w in the order of np.unique(qid) "
                "(np.repeat(w, group) for group sizes); the push weighs a pair by the product of its rows' weights "
                "(docs: ranking within queries, Weights)") from None
        raise


class _Codes:
    """The query codes of some rows, as :func:`single_grade_queries` reads a :class:`Queries`."""

    def __init__(self, codes: np.ndarray) -> None:
        self.codes = codes


def check_some_query_ranks(n_queries: int, n_single: int, *, what: str = "y, qid", parameter: str = "y") -> None:
    """Refuse queries that all have a single grade: no objective within queries has a pair to order there.

    The one refusal of every fit within queries -- rankcore's own, Dask's, and ``rankcore.gbdt``'s objectives
    inside LightGBM and XGBoost (which would otherwise grow a constant model from zero gradients) --: an
    :class:`~rankcore.ArgumentRefusal` of ``parameter``, said of ``what``, with the same detail everywhere.
    ``n_single``: the count of :func:`single_grade_queries`.
    """
    if n_single == n_queries:
        detail = (f"ranking within queries needs a query with two grades, got {n_queries} "
                  f"{'query' if n_queries == 1 else 'queries'}, each with a single grade: no pair to order")
        raise ArgumentRefusal(f"{what}: {detail}", parameter=parameter, detail=detail)


def subset(queries: Queries, rows: np.ndarray) -> Queries:
    """The queries of ``rows`` (ascending indices into query-ordered rows), still in query order."""
    return check_qid(queries.codes[rows], int(rows.shape[0]))


def query_folds(queries: Queries, fraction: float, seed, *, n_folds: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """(rows of a hold-out of whole queries, rows of each of ``n_folds`` folds of whole queries).

    The queries are taken in a random order (``seed``) of their sorted ids:
    the hold-out is the first of them until they hold ``fraction`` of the
    rows; the folds deal them in that order to the fold with the fewest rows
    so far.  Row indices ascend.  The rows of a query never change sides.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(queries.n_queries)
    wanted = math.ceil(fraction * queries.codes.shape[0])
    reach = np.cumsum(queries.sizes[order])
    n_held = int(np.searchsorted(reach, wanted)) + 1
    held = np.isin(queries.codes, order[:n_held])
    fold_of = np.empty(queries.n_queries, dtype=np.int64)
    rows_in = np.zeros(max(n_folds, 1), dtype=np.int64)
    for q in order.tolist():
        f = int(np.argmin(rows_in))
        fold_of[q] = f
        rows_in[f] += queries.sizes[q]
    folds = [np.flatnonzero(fold_of[queries.codes] == f) for f in range(n_folds)]
    return np.flatnonzero(held), folds


def check_training_part(objective, y, w, queries, what: str) -> None:
    """``check_rows`` on the training part of an early-stopping split, its failure said to be the split's.

    The split draws rows by label (or whole queries), not by ``sample_weight``: rows of weight 0 count as rows,
    so a part can lack the weight of a class that the whole data has.
    """
    try:
        check_rows(objective, y, w, queries)
    except ValueError as exc:
        # an ArgumentRefusal (weights that leave a class nothing) stays one: the command line's --weight reads it;
        # another error (a plugin objective's own class, which may need more than a message) is a ValueError
        raise said_again(exc, f"early_stopping: {what}: {exc}; the split draws rows without regard to "
                         "sample_weight: pass eval_set=, or early_stopping=False", plain=ValueError) from None
