"""``rankcore.permutation_importance``: which features the metric at the top of the list needs, by permutation.

A feature's importance is the drop of a ranking metric (NDCG@10 within
queries, prec@k, the partial AUC, ...) when its column is shuffled, which
breaks its link to the labels and keeps its distribution (Breiman, "Random
forests", 2001; Fisher, Rudin & Dominici, "All models are wrong, but many are
useful", 2019).  Unlike scikit-learn's ``permutation_importance``, whose
scorer cannot receive ``qid``, the metric here is computed within queries and
averaged as the estimators' ``score`` and :func:`rankcore.evaluate` do.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from ._frames import as_pandas_frame
from .base import Ranker
from .metrics import Queries, check_queries, evaluate
from .registry import resolve
from .validation import check_random_state_param, check_scores, effective_n_threads, fit_seed, said_again

__all__ = ["permutation_importance", "WITHIN", "DASK_MAX_ROWS"]

#: The most rows of a Dask collection X that :func:`permutation_importance` computes into memory unless its
#: ``max_rows`` says otherwise (1,000,000 rows of 100 float64 features: 800 MB).
DASK_MAX_ROWS = 1_000_000

#: What a column is shuffled over: every row, or the rows of each query apart.
WITHIN = ("rows", "queries")


def permutation_importance(model: Any, X: Any, y: Any, *, qid: Any = None, group: Any = None, scoring: Any = None,
                           n_repeats: int = 5, random_state: Any = None, within: str = "rows",
                           features: Any = None, init_score: Any = None, n_jobs: int | None = None,
                           max_rows: int | None = None) -> Bunch:
    """The drop of a ranking metric when each feature's column is shuffled.

    Parameters
    ----------
    model : fitted estimator
        Scored by ``decision_function(X)``; a binary classifier without it by
        ``predict_proba(X)[:, 1]``; else ``predict(X)`` (a ranker, a regressor).
    X : array-like, pandas DataFrame or scipy.sparse matrix of shape (n, d)
        The rows, as the model takes them: a shuffled DataFrame column keeps
        its dtype (a ``category`` column stays one), NaN moves with its row.
    y : array-like of shape (n,)
        Grades with ``qid``; a one-list model's two classes (or 0/1), 0/1 to every metric as to ``score``.
    qid : array-like of shape (n,), optional
        One query id per row: the metric is computed within each query and
        averaged over the queries it counts, as ``score(X, y, qid=qid)``.
    group : array-like of int, optional
        LightGBM's form of ``qid``: the sizes of consecutive queries.
    scoring : str or Metric, optional
        A registered scalar metric (``"ndcg@k:10"``, ``"prec@k:0.05"``, ``"pauc:0.1"``, ``"auc"``), computed by
        :func:`rankcore.evaluate`.  None: the model's own ``score`` (within queries ``ndcg@k:10`` unless its
        ``scoring`` names another); other models than rankcore's need one.
    n_repeats : int >= 1, default 5
        Shuffles of each feature.
    random_state : None, int, RandomState or Generator
        Every feature gets the same ``n_repeats`` permutations, from ``numpy.random.default_rng(seed)``, ``seed``
        the integer given (drawn once from a RandomState or Generator; None: from NumPy's global RandomState, as
        scikit-learn's): a feature's importances do not depend on which others are listed.
    within : {"rows", "queries"}, default "rows"
        Shuffle each column over all rows, or within each query only (needs ``qid`` or ``group``): a feature
        constant within each query (the query's length, its language) then has importance exactly 0, whatever it
        does over all rows.
    features : list or dict, optional
        The columns to shuffle, by position or name (a DataFrame's column, the model's ``feature_names_in_``): each
        item a column or a list of columns shuffled together (one permutation for all, which keeps their joint
        distribution); a dict names such groups.  None: every column.
    init_score : array-like of shape (n,), optional
        The rows' initial scores, for a model fitted from them: the metric
        of ``decision_function(X) + init_score``, as ``score`` gives it.
    n_jobs : int, optional
        Threads of the metric's sorts.  The model scores with its own threads
        (its ``n_jobs``); no pool is started around it.
    max_rows : int >= 1, optional
        The most rows of a Dask array or DataFrame X computed into memory (default :data:`DASK_MAX_ROWS`); more
        are a ValueError saying how to sample them, none drawn silently.  ``y``, ``qid``, ``group``, ``init_score``
        may be Dask too, all computed in one ``dask.compute`` (a shared source read once).  In-memory X: no limit.

    Returns
    -------
    sklearn.utils.Bunch
        ``importances`` (n_features, n_repeats): the quality on X minus the quality after each shuffle,
        greater-is-better (a lower-is-better metric negated), so a positive value is a feature the ranking needs;
        ``importances_mean``, ``importances_std`` (ddof 0) over the repeats; ``baseline``: the metric on X as
        :func:`rankcore.evaluate` gives it (``scoring=None``: ``model.score``); ``feature_names``: one per row of
        ``importances`` (a group's joined by ``+``).

    Raises
    ------
    NotFittedError
        An unfitted ``model`` (a ValueError).
    ValueError, TypeError
        Naming the argument: a model with neither ``decision_function`` nor ``predict``, a Dask collection X of
        more than ``max_rows`` rows, ``y``/``qid`` of another length than X, a spec that is not a registered
        scalar metric, ``n_repeats`` < 1, a feature out of range or unknown, ``within="queries"`` without queries,
        no ``qid`` for a model fitted within queries (as its ``score``), ``qid`` with ``scoring=None`` for a model
        whose ``score`` ranks one list.

    Notes
    -----
    One ``decision_function`` per feature and repeat, plus one; one shuffled column at a time
    (docs/tree_explanations.md).

    Examples
    --------
    >>> import numpy as np, rankcore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = (X[:, 0] + 0.2 * rng.normal(size=300) > 0.5).astype(int)
    >>> model = rankcore.boost(n_iter=20).fit(X, y)
    >>> result = rankcore.permutation_importance(model, X, y, scoring="pauc:0.1", random_state=0)
    >>> result.importances.shape, result.feature_names[int(np.argmax(result.importances_mean))]
    ((3, 5), 'x0')
    """
    _check_model(model)
    repeats = _check_repeats(n_repeats)
    check_random_state_param(random_state)
    effective_n_threads(n_jobs, name="n_jobs")
    X, y, qid, group, init_score = _computed(X, y, qid, group, init_score, max_rows)
    table = _Columns(as_pandas_frame(X), model)        # a Polars or Arrow table by name, its categories kept
    rows = _checked_rows(model, y, qid, group, init_score, within, table.n_rows)
    columns, names = _feature_columns(features, table.names)
    quality, baseline = _quality(model, np.asarray(y), rows, scoring, n_jobs)
    base_quality = _first_quality(quality, table.X, scoring)
    importances = _drops(table, columns, lambda X: base_quality - quality(X), _seed(random_state), repeats,
                         rows.queries if within == "queries" else None)
    return Bunch(importances_mean=importances.mean(axis=1), importances_std=importances.std(axis=1),
                 importances=importances, baseline=baseline(base_quality), feature_names=names)


def _is_dask(value: Any) -> bool:
    return callable(getattr(value, "__dask_graph__", None))


def _computed(X: Any, y: Any, qid: Any, group: Any, init_score: Any, max_rows: Any) -> tuple:
    """(X, y, qid, group, init_score) with the Dask collections among them computed; X of at most ``max_rows``
    rows (default :data:`DASK_MAX_ROWS`), else a ValueError saying how to sample it.  One pass over X to count
    its rows when Dask does not know them (before any row is held in memory), then one ``dask.compute`` of every
    Dask input together."""
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral)
                                 or max_rows < 1):
        raise ValueError(f"max_rows: expected an integer >= 1 or None, got {max_rows!r}")
    if _is_dask(X):
        limit = DASK_MAX_ROWS if max_rows is None else int(max_rows)
        n = _dask_rows(X)
        if n > limit:
            raise ValueError(
                f"X: a Dask {type(X).__name__} of {n:,} rows, more than max_rows={limit:,}: permutation_importance "
                f"shuffles the columns in memory (one decision_function per feature and repeat). Pass "
                f"max_rows={n} to compute it whole, or a sample of the rows with their labels (and query ids), "
                f"drawn together: a Dask array's rows idx = np.sort(np.random.default_rng(0).choice({n}, "
                f"{limit}, replace=False)), X[idx].compute(), y[idx].compute(); a DataFrame's, "
                f"X.assign(_label=y).sample(frac={limit / n:.3g}, random_state=0).compute() split into X and y; "
                f"within queries whole queries (X[qid.isin(chosen)])")
    values = [X, y, qid, group, init_score]
    lazy = [j for j, value in enumerate(values) if _is_dask(value)]
    if lazy:
        import dask

        # one graph: inputs that share an upstream (X and y columns of one frame read from files) read it once
        for j, value in zip(lazy, dask.compute(*[values[j] for j in lazy])):
            values[j] = value
    return tuple(values)


def _dask_rows(X: Any) -> int:
    """The rows of a Dask array or DataFrame (one pass over it when the chunks' lengths are unknown)."""
    n = X.shape[0]
    if isinstance(n, numbers.Integral):
        return int(n)
    if hasattr(X, "compute_chunk_sizes"):           # an array of unknown chunk lengths (from a DataFrame, a filter)
        return int(X.compute_chunk_sizes().shape[0])
    return int(len(X))


def _first_quality(quality: Callable[[Any], float], X: Any, scoring: Any) -> float:
    """The quality on X as given; an error the metric raises at evaluation names ``scoring``."""
    if scoring is None:
        return quality(X)
    try:
        return quality(X)
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith(("scoring:", "y:", "qid:", "model:")) else
                         f"scoring: {text}") from None


def _checked_rows(model: Any, y: Any, qid: Any, group: Any, init_score: Any, within: Any, n: int) -> "_Rows":
    """The queries and initial scores of the ``n`` rows, checked with ``y`` and ``within``."""
    if within not in WITHIN:
        raise ValueError(f"within: expected one of {list(WITHIN)}, got {within!r}")
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != n:
        raise ValueError(f"y: expected {n} labels (one per row of X), got shape {y_arr.shape}")
    queries = check_queries(qid, group, n)
    if within == "queries" and queries is None:
        raise ValueError("within: 'queries' shuffles each column within each query; give qid (one query id per "
                         "row) or group")
    if queries is None and _ranks_within_queries(model):
        raise ValueError(f"qid: this {type(model).__name__} was fitted within queries, so its metric needs the "
                         f"query of each row: permutation_importance(model, X, y, qid=qid) (or group=sizes)")
    start = None if init_score is None else check_scores(init_score, name="init_score")
    if start is not None and start.shape[0] != n:
        raise ValueError(f"init_score: expected {n} initial scores (one per row of X), got {start.shape[0]}")
    return _Rows(qid, group, queries, start)


def _drops(table: "_Columns", columns: list[list[int]], drop: Callable[[Any], float], seed: int, repeats: int,
           queries: Queries | None) -> np.ndarray:
    """``drop(X)`` after each of ``repeats`` shuffles of each feature's columns, X restored after each feature."""
    importances = np.empty((len(columns), repeats))
    for f, cols in enumerate(columns):
        rng = np.random.default_rng(seed)
        saved = [table.take(j) for j in cols]
        try:
            for r in range(repeats):
                rows = _shuffle(rng, table.n_rows, queries)
                for j, column in zip(cols, saved):
                    table.put(j, column, rows)
                importances[f, r] = drop(table.X)
        finally:
            for j, column in zip(cols, saved):
                table.put(j, column, None)
    return importances


def _check_model(model: Any) -> None:
    if not (callable(getattr(model, "decision_function", None)) or callable(getattr(model, "predict", None))):
        raise TypeError(f"model: expected a fitted estimator with decision_function or predict, got "
                        f"{type(model).__name__}")
    try:
        check_is_fitted(model)
    except NotFittedError:
        raise NotFittedError(f"model: this {type(model).__name__} is not fitted yet; call its fit first") from None


def _check_repeats(n_repeats: Any) -> int:
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral):
        raise TypeError(f"n_repeats: expected an integer >= 1, got {n_repeats!r}")
    if n_repeats < 1:
        raise ValueError(f"n_repeats: expected an integer >= 1, got {n_repeats}")
    return int(n_repeats)


def _ranks_within_queries(model: Any) -> bool:
    try:
        return bool(getattr(model, "ranks_within_queries_", False))
    except (AttributeError, NotFittedError):
        return False


def _seed(random_state: Any) -> int:
    """The one integer seed of every feature's shuffles."""
    seed = fit_seed(random_state)        # None: a draw from NumPy's global RandomState, as scikit-learn's
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    return int(seed)


def _shuffle(rng: np.random.Generator, n: int, queries: Queries | None) -> np.ndarray:
    """Row i takes the value of row ``rows[i]``: a permutation of all rows, or of each query's rows apart."""
    rows = rng.permutation(n)
    if queries is None:
        return rows
    # each query's rows in their order, and in the order of the random keys: row by row, one to the other
    out = np.empty(n, dtype=np.int64)
    out[queries.rows()] = np.lexsort((rows, queries.codes))
    return out


@dataclass(frozen=True)
class _Rows:
    """What the rows bring besides X and y: their queries (as given and checked) and initial scores."""

    qid: Any
    group: Any
    queries: Queries | None
    init_score: np.ndarray | None


def _scores(model: Any, X: Any, init_score: np.ndarray | None) -> np.ndarray:
    method = getattr(model, "decision_function", None)
    if callable(method):
        scores = np.asarray(method(X), dtype=np.float64)
    elif is_classifier(model) and callable(getattr(model, "predict_proba", None)):
        method = model.predict_proba
        scores = _positive_probability(model, method(X))
    else:
        method = model.predict
        scores = np.asarray(method(X), dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"model: expected one score per row from {type(model).__name__}."
                         f"{method.__name__}, got shape {scores.shape}")
    return scores if init_score is None else scores + init_score


def _positive_probability(model: Any, proba: Any) -> np.ndarray:
    """The probability of a binary classifier's second class: its ``predict`` labels would tie every row."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2 or proba.shape[1] != 2:
        raise TypeError(f"model: {type(model).__name__} has no decision_function and its predict_proba gives "
                        f"shape {proba.shape}; a classifier ranks here by the probability of its second class, "
                        f"so it needs two classes")
    return proba[:, 1]


def _quality(model: Any, y: np.ndarray, rows: _Rows, scoring: Any,
             n_jobs: int | None) -> tuple[Callable[[Any], float], Callable[[float], float]]:
    """The quality of the model on X, higher is better, and the baseline's value as reported from its quality."""
    if scoring is None:
        return _own_score(model, y, rows), lambda value: value
    try:
        metric = resolve("metric", scoring)
    except (ValueError, TypeError) as exc:
        raise said_again(exc, f"scoring: {exc}") from None
    if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
        raise ValueError(f"scoring: {metric.spec!r} is not a single number; give a scalar metric such as "
                         f"'ndcg@k:10', 'prec@k:0.05' or 'pauc:0.1'")
    sign = 1.0 if metric.greater_is_better else -1.0
    labels = _labels(model, y, metric)
    queries, start = rows.queries, rows.init_score
    if queries is None:
        def quality(X: Any) -> float:
            return sign * float(evaluate(labels, _scores(model, X, start), [metric], n_jobs=n_jobs)[metric.spec])
    else:
        # the rows sorted by query once: each evaluation then reads the queries as consecutive blocks
        order = queries.rows()
        labels = labels[order]

        def quality(X: Any) -> float:
            scores = _scores(model, X, start)[order]
            return sign * float(evaluate(labels, scores, [metric], group=queries.sizes, n_jobs=n_jobs)[metric.spec])
    return quality, lambda value: sign * value


def _labels(model: Any, y: np.ndarray, metric: Any) -> np.ndarray:
    """``y`` as the metric reads it: for a model of one list, its two classes as 0/1, whatever the metric (as
    ``score`` maps them), so that a graded metric does not read class 2 of {1, 2} as a grade."""
    classes = getattr(model, "classes_", None)
    if metric.task != "bipartite" and _ranks_within_queries(model):
        return y
    if classes is not None and len(classes) == 2 and np.isin(y, classes).all():
        return (y == classes[1]).astype(np.int8)
    return y


def _own_score(model: Any, y: np.ndarray, rows: _Rows) -> Callable[[Any], float]:
    if isinstance(model, Ranker) and not callable(getattr(model, "score", None)):
        raise TypeError(f"scoring: {type(model).__name__} has no score method, so no metric of its own; name one, "
                        f"e.g. scoring='ndcg@k:10' (within queries) or 'pauc:0.1'")
    if not isinstance(model, Ranker) or not callable(getattr(model, "score", None)):
        raise TypeError(f"scoring: {type(model).__name__} is not a rankcore estimator, so its own score is no "
                        f"ranking metric; name one, e.g. scoring='ndcg@k:10' (within queries) or 'pauc:0.1'")
    takes = inspect.signature(model.score).parameters
    kwargs: dict[str, Any] = {}
    if rows.queries is not None:
        if "qid" not in takes:
            raise ValueError(f"qid: {type(model).__name__}.score ranks one list and takes no qid; name a metric "
                             f"to average over the queries, e.g. scoring='auc'")
        kwargs = {"qid": rows.qid} if rows.qid is not None else {"group": rows.group}
    if rows.init_score is not None:
        if "init_score" not in takes:
            raise ValueError(f"init_score: {type(model).__name__}.score takes no initial scores; name a metric "
                             f"(scoring=...) to rank by decision_function(X) + init_score")
        kwargs["init_score"] = rows.init_score
    return lambda X: float(model.score(X, y, **kwargs))


def _feature_columns(features: Any, names: list[str]) -> tuple[list[list[int]], list[str]]:
    """The column positions of each feature (or group) to shuffle, and its name."""
    if features is None:
        return [[j] for j in range(len(names))], list(names)
    if isinstance(features, dict):
        items = list(features.items())
    else:
        if isinstance(features, (str, bytes, numbers.Integral)):
            features = [features]
        try:
            items = [(None, item) for item in features]
        except TypeError:
            raise TypeError(f"features: expected a list of columns (positions or names) or a dict of groups, got "
                            f"{type(features).__name__}") from None
    if not items:
        raise ValueError("features: expected at least one column, got none")
    columns, out_names = [], []
    for key, item in items:
        group = list(item) if isinstance(item, (list, tuple, np.ndarray)) else [item]
        if not group:
            which = f"the group {key!r}" if key is not None else f"item {len(columns)} is an empty group: it"
            raise ValueError(f"features: {which} holds no column")
        cols = [_column(c, names) for c in group]
        columns.append(cols)
        out_names.append(str(key) if key is not None else "+".join(names[j] for j in cols))
    return columns, out_names


def _column(item: Any, names: list[str]) -> int:
    d = len(names)
    if isinstance(item, (bool, np.bool_)):
        raise TypeError(f"features: expected a column position or name, got {item!r}")
    if isinstance(item, numbers.Integral):
        if not 0 <= item < d:
            raise ValueError(f"features: column {int(item)} is out of range for X of {d} columns (0 to {d - 1})")
        return int(item)
    if isinstance(item, str):
        if item not in names:
            shown = ", ".join(repr(n) for n in names[:8]) + (", ..." if d > 8 else "")
            raise ValueError(f"features: {item!r} is not a column of X (its columns: {shown})")
        return names.index(item)
    raise TypeError(f"features: expected a column position or name, got {type(item).__name__} {item!r}")


class _Columns:
    """X with one column at a time replaced by a shuffle of it, without a copy of X per shuffle."""

    def __init__(self, X: Any, model: Any) -> None:
        self.kind = "frame" if hasattr(X, "iloc") and hasattr(X, "columns") else \
            "sparse" if hasattr(X, "tocsc") else "array"
        if self.kind == "frame":
            self.X = X.copy(deep=False)          # isetitem replaces a column of the copy, never writes into X
            self.names = [str(c) for c in X.columns]
        elif self.kind == "sparse":
            self.X = X.tocsc(copy=True)
            self.X.sort_indices()
        else:
            self.X = np.array(X, copy=True)
        if len(self.X.shape) != 2:
            raise ValueError(f"X: expected a 2-D array (rows, features), got shape {self.X.shape}")
        if self.kind != "frame":
            fitted = getattr(model, "feature_names_in_", None)
            d = self.X.shape[1]
            self.names = [str(c) for c in fitted] if fitted is not None and len(fitted) == d else \
                [f"x{j}" for j in range(d)]

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    def take(self, j: int) -> Any:
        """Column j as it is now (a sparse matrix: its stored rows and values)."""
        if self.kind == "frame":
            return self.X.iloc[:, j].array
        if self.kind == "sparse":
            part = slice(self.X.indptr[j], self.X.indptr[j + 1])
            return self.X.indices[part].copy(), self.X.data[part].copy()
        return self.X[:, j].copy()

    def put(self, j: int, column: Any, rows: np.ndarray | None) -> None:
        """Column j becomes ``column`` (from :meth:`take`), row i holding its value at ``rows[i]`` (None: as is)."""
        if self.kind == "frame":
            self.X.isetitem(j, column if rows is None else column.take(rows))
        elif self.kind == "sparse":
            indices, data = column
            part = slice(self.X.indptr[j], self.X.indptr[j + 1])
            if rows is not None:
                # a stored value at row r moves to the row that reads r; as many stored values as before
                where = np.empty_like(rows)
                where[rows] = np.arange(rows.shape[0])
                moved = where[indices]
                order = np.argsort(moved, kind="stable")
                indices, data = moved[order], data[order]
            self.X.indices[part] = indices
            self.X.data[part] = data
        else:
            self.X[:, j] = column if rows is None else column[rows]
