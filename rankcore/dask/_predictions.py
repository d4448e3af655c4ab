"""What a fitted Dask push estimator computes for a Dask collection: lazy scores, leaves and its score.

The mixin :class:`DaskPredictions` of ``_DaskBoost``: ``decision_function``,
``apply`` and ``staged_decision_function`` of a Dask collection are lazy Dask
arrays computed chunk by chunk on the workers, with the arithmetic of the
in-memory estimator; :meth:`DaskPredictions.score` evaluates the scores
distributed (:func:`rankcore.dask.evaluate`) or, within queries, gathers the
(qid, y, score) columns.  NumPy input goes to the in-memory estimator's methods.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone, names_peer_predict_arguments, names_peer_score_arguments
from .._threadsafe import reads_a_snapshot
from ..base import ignore_score_weights, require_score_queries
from ..metrics import check_queries
from ..push import check_init_score
from ..validation import check_finite_scores
from ._explain import chunk_rows
from ._init_scores import init_vector
from ._inputs import fitted_dask_matrix, get_client, is_dask_collection, joined_chunk_ids

__all__ = ["DaskPredictions", "local_copy"]


def _score_chunk(X, rankers, alphas, allow_nan=False):
    """Σ_t α_t h_t(x) on one chunk, with the arithmetic of the in-memory ``decision_function``."""
    X = chunk_rows(X, allow_nan)
    scores = np.zeros(X.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):     # refused just below
        for ranker, alpha in zip(rankers, alphas):
            scores += alpha * ranker.predict(X)
    return check_finite_scores(scores, owner="decision_function (Dask chunk)", X=X)


def _leaves_chunk(X, leaves, rankers, allow_nan=False):
    """``apply`` of one chunk, with the walk of the in-memory estimator (one thread: the same leaves)."""
    return leaves(rankers, chunk_rows(X, allow_nan), 1)


def _labels_chunk(y, classes):
    y = np.asarray(y)
    if not np.isin(y, classes).all():
        raise ValueError(f"y: expected labels among the training classes {np.asarray(classes).tolist()!r}")
    return (y == classes[1]).astype(np.int8)


def local_copy(value):
    """An in-memory version of a (small) validation set given as a Dask collection."""
    return value.compute() if is_dask_collection(value) else value


def local_ids(qid, name: str = "qid"):
    """In-memory query ids; a Dask collection's computed chunk by chunk and joined by
    ``joined_chunk_ids`` (ids of different types in different chunks refused, as the fit refuses
    them: computed whole, NumPy's join would make them one type)."""
    if not is_dask_collection(qid):
        return qid
    import dask

    parts = qid.to_delayed()
    parts = parts.ravel().tolist() if hasattr(parts, "ravel") else list(parts)
    return joined_chunk_ids(dask.compute(*parts), name)

class DaskPredictions:
    """Mixin of ``_DaskBoost``: the fitted model's scores, leaves and score of a Dask collection (the learner,
    the fitted rankers, ``client`` and the scoring metric are the estimator's)."""

    def _dask_matrix(self, X, lengths: bool = False):
        return fitted_dask_matrix(self, X, lengths=lengths)

    def _lazy_scores(self, X, stop: int | None = None):
        rankers = self.rankers_[:stop]
        alphas = self.alphas_[:stop]
        return X.map_blocks(_score_chunk, rankers, alphas, self._routes_nan(), drop_axis=1, dtype=np.float64,
                            meta=np.empty(0, dtype=np.float64))

    def _routes_nan(self) -> bool:
        """Whether the learner routes NaN (the trees): then chunks with missing values are scored, as in memory."""
        return bool(getattr(self._learner, "allow_nan", False))

    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X):
        """Scores Σ_t α_t h_t(x): a lazy ``dask.array`` for a Dask collection, else a NumPy array.

        For Dask input nothing is computed or collected: each chunk's scores
        are computed on the worker when the result is computed, with the
        same arithmetic as :meth:`PushBoost.decision_function`.
        """
        check_is_fitted(self)
        if not is_dask_collection(X):
            return super().decision_function(X)
        return self._lazy_scores(self._dask_matrix(X))

    @explains_rows_alone
    @reads_a_snapshot
    def apply(self, X):
        """:meth:`PushBoost.apply`; a lazy int32 ``dask.array`` of shape (n_samples, n_trees) for a Dask
        collection, each chunk's leaves found on its worker (the checks -- a tree learner, X's columns -- run
        here)."""
        check_is_fitted(self)
        leaves = getattr(self._learner, "leaves", None)
        if not is_dask_collection(X) or leaves is None:      # (no trees: the in-memory TypeError)
            return super().apply(X)
        X = self._dask_matrix(X)
        leaves(self.rankers_, np.empty((0, X.shape[1])))    # the trees against X's columns, before any chunk
        return X.map_blocks(_leaves_chunk, leaves, self.rankers_, self._routes_nan(),
                            chunks=(X.chunks[0], (len(self.rankers_),)), dtype=np.int32,
                            meta=np.empty((0, 0), dtype=np.int32))

    @names_peer_predict_arguments
    @reads_a_snapshot
    def staged_decision_function(self, X):
        """Scores after each iteration; lazy Dask arrays for a Dask collection."""
        check_is_fitted(self)
        if not is_dask_collection(X):
            yield from super().staged_decision_function(X)
            return
        X = self._dask_matrix(X)
        for t in range(1, len(self.rankers_) + 1):
            yield self._lazy_scores(X, t)

    # sample_weight third and qid by keyword, as in fit and scikit-learn's score(X, y, sample_weight): callers that
    # pass weights by position must not have them read as query ids
    @names_peer_score_arguments
    @reads_a_snapshot
    def score(self, X, y, sample_weight=None, *, qid=None, group=None, init_score=None) -> float:
        """The ``scoring`` metric of the scores of ``X`` against ``y``; distributed for Dask input.

        Dask input is evaluated by :func:`rankcore.dask.evaluate` (exact
        for ``prec@k``/``rmax``, within its default ``tol=1e-6`` for
        ``auc``-like metrics; other metrics raise there).  With ``qid`` (or
        ``group``, LightGBM's sizes of consecutive queries, as in
        :meth:`fit`) the scores are computed on the workers and the (qid, y,
        score) columns gathered, as :func:`rankcore.dask.evaluate` does
        within queries, and scored per query as the in-memory :meth:`score`
        scores them.

        ``init_score``: the rows' initial scores (like ``y``), for a model
        fitted from ``init_score``: the metric is that of
        ``decision_function(X) + init_score``, as in memory.
        """
        check_is_fitted(self)
        ignore_score_weights(sample_weight, self)
        if self.ranks_within_queries_:
            require_score_queries(qid, self, group)
        group = local_copy(group)
        if qid is not None and group is not None:
            check_queries(qid, group, 0)          # fit's error for both, before anything is computed
        if not is_dask_collection(X):
            return super().score(local_copy(X), local_copy(y), qid=local_ids(qid), group=group,
                                 init_score=local_copy(init_score))
        from ._metrics import evaluate, as_dask_vector

        if qid is not None or group is not None:
            columns = [self.decision_function(X), as_dask_vector(y, name="y")]
            columns += [] if init_score is None else [as_dask_vector(init_score, name="init_score")]
            # the ids chunk by chunk: ids of different types in different chunks are refused (joined_ids), as fit does
            columns += [] if qid is None else list(as_dask_vector(qid, name="qid").to_delayed().ravel())
            client = get_client(self.client)
            scores, y_local, *rest = (np.asarray(c) for c in client.gather(client.compute(columns)))
            if init_score is not None:
                scores = scores + check_init_score(rest.pop(0), scores.shape[0])
            ids = [] if qid is None else [joined_chunk_ids(rest)]
            return self._score_of(scores, y_local, *ids, group=group)

        metric = self._scoring_metric(getattr(self, "task_", "bipartite"))
        if getattr(self, "task_", "bipartite") == "graded":
            raise ValueError(f"score: the graded metric {metric.spec!r} has no distributed form; "
                             "score a local copy (X.compute()) instead")
        check_is_fitted(self)
        # init_score is cut by the rows' chunks: a dask.dataframe's partition lengths are then computed
        scores = self._lazy_scores(self._dask_matrix(X, lengths=init_score is not None))
        if init_score is not None:
            chunk_rows = tuple(int(c) for c in scores.chunks[0])
            scores = scores + init_vector(init_score, chunk_rows, get_client(self.client))
        y01 = as_dask_vector(y, name="y").map_blocks(_labels_chunk, self.classes_, dtype=np.int8)
        value = evaluate(y01, scores, [metric.spec], client=self.client)[metric.spec]
        return float(value) if metric.greater_is_better else -float(value)
