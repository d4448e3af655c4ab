"""DaskExactBoost: ExactBoost with its independent runs spread over the workers.

ExactBoost averages ``n_runs`` independent runs, and a run's stumps depend
only on the prepared training data, its own seed and the settings
(:func:`rankcore.exactboost.fit_run`).  The estimator here overrides the
in-memory estimator's one seam, ``_fit_runs``: the prepared data is
broadcast to every worker once, the seeds (``run_seeds(random_state,
n_runs)``, exactly as in memory) are cut into consecutive batches, each batch
runs as one task (``fit_runs`` on the worker's threads), and the results are
concatenated in seed order.  The fitted model is therefore identical to
``ExactBoost(...).fit(X, y)`` with the same ``random_state``.

Every run reads the whole training set (each round draws its own subsample
of it), so the training data must fit in a worker's memory: a Dask
collection given to ``fit`` is computed to the client and broadcast.  What
scales out is the number of runs (the paper uses 250).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._background import check_groups
from .._peer_names import explains_rows_alone, names_peer_fit_arguments, names_peer_predict_arguments
from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from ..base import refuse_queries
from ..exactboost import ExactBoost, RunResult, contribution_rows, fit_runs, interaction_rows
from ..spec import Parameter
from ..validation import INTERACTION_MAX_BYTES, check_interaction_size, check_matrix, single_eval_set
from ._client import ClientParameter
from ._estimators import CLIENT
from ._inputs import fitted_dask_matrix, get_client, is_dask_collection
from ._shard import _worker_threads, check_components_on_workers
from ._workers import worker_info

__all__ = ["DaskExactBoost"]


def _run_batch(data, seeds, settings) -> RunResult:
    """Runs of one batch of seeds on a worker (its threads; the result does not depend on them)."""
    return fit_runs(data, np.asarray(seeds, dtype=np.uint64), settings, n_threads=_worker_threads())


def _decide_chunk(X, table):
    X = check_matrix(np.asarray(X), name="X", min_rows=0)
    return table.decision(X) if X.shape[0] else np.zeros(0)


def _explain_chunk(X, explain, table, means, expected, labels):
    """``explain`` (:func:`contribution_rows` or :func:`interaction_rows`) of one chunk's rows, checked."""
    return explain(check_matrix(np.asarray(X), name="X", min_rows=0), table, means, expected, labels)


def _local(value):
    if is_dask_collection(value):
        return value.compute()
    return value


class DaskExactBoost(ClientParameter, ExactBoost):
    __doc__ = ("ExactBoost with its independent runs distributed over a Dask cluster.\n\n"
               "    Identical to :class:`rankcore.ExactBoost` fitted with the same parameters (same\n"
               "    ``random_state``: same runs, same stumps); the runs execute as tasks on the workers.\n"
               "\n    Notes (Dask)\n    ------------\n"
               "    The training set must fit on every worker (each run reads all of it); a Dask\n"
               "    collection passed to ``fit`` is computed to the client and broadcast.\n"
               "    ``n_jobs`` is not used: each task uses its worker's threads.  ``decision_function``\n"
               "    of a Dask collection is a lazy Dask array; ``to_local()`` gives the ExactBoost.\n")
    name = "DaskExactBoost"
    aliases = ()
    parameters = (
        CLIENT,
        Parameter("batches_per_worker_thread", int, default=2, minimum=1, rule="a positive integer", doc="""
            The seeds are cut into about this many consecutive batches per worker thread
            (one task each): more batches balance uneven runs, fewer save overhead."""),
    ) + ExactBoost.parameters

    # qid and group are refused (one list): no hint may send a peer's group_id there
    @names_peer_fit_arguments(constructor=None, refuses=("qid", "group"))
    @fits_on_a_copy
    def fit(self, X, y, *, qid=None, group=None, eval_set=None, callbacks=None):
        """Fit on (X, y); Dask collections are computed to the client (see the class notes)."""
        refuse_queries(type(self).__name__, qid, group)
        self._check_params()
        self._fit_client = get_client(self.client)
        try:
            if eval_set is not None:
                eval_set = tuple(_local(v) for v in single_eval_set(eval_set, owner=type(self).__name__))
            return super().fit(_local(X), _local(y), eval_set=eval_set, callbacks=callbacks)
        finally:
            del self._fit_client

    def _fit_runs(self, data, seeds, settings, n_threads) -> RunResult:
        client = self._fit_client
        # the metric travels as its spec string: resolved on each worker (checked first, clearly)
        check_components_on_workers(client, {"metric": settings.metric.spec})
        if settings.tie_break is not None:
            check_components_on_workers(client, {"metric": settings.tie_break.spec})  # the tie-break metric
        settings = replace(settings, metric=settings.metric.spec,
                           tie_break=None if settings.tie_break is None else settings.tie_break.spec)
        threads = sum(int(w.get("nthreads", 1)) for w in worker_info(client).values()) or 1
        n_batches = max(1, min(len(seeds), threads * int(self.batches_per_worker_thread)))
        data_future = client.scatter(data, broadcast=True, hash=False)
        futures = [client.submit(_run_batch, data_future, batch, settings, pure=False)
                   for batch in np.array_split(np.asarray(seeds, dtype=np.uint64), n_batches) if batch.size]
        results = client.gather(futures)
        return RunResult.concatenate(results)

    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X):
        """Run-averaged scores; a lazy Dask array for a Dask collection (computed chunk by chunk)."""
        check_is_fitted(self)
        if not is_dask_collection(X):
            return super().decision_function(X)
        X = fitted_dask_matrix(self, X)
        return X.map_blocks(_decide_chunk, self._table, drop_axis=1, dtype=np.float64,
                            meta=np.empty(0, dtype=np.float64))

    @explains_rows_alone
    @reads_a_snapshot
    def feature_contributions(self, X, background=None, *, groups=None):
        """:meth:`ExactBoost.feature_contributions`; a lazy ``dask.array`` of shape (n_samples, n_features + 1)
        for a Dask collection, each chunk computed on its worker (a Dask ``background`` is computed here, and
        checked with the model here, before any chunk)."""
        return self._lazy_values(X, background, groups, "feature_contributions", None)

    @explains_rows_alone
    @reads_a_snapshot
    def feature_interactions(self, X, background=None, *, groups=None, max_bytes: int | None = INTERACTION_MAX_BYTES):
        """:meth:`ExactBoost.feature_interactions`; a lazy ``dask.array`` for a Dask collection, ``max_bytes``
        bounding each chunk's output (rechunk the rows to fit)."""
        return self._lazy_values(X, background, groups, "feature_interactions", max_bytes)

    def _lazy_values(self, X, background, groups, method: str, max_bytes):
        check_is_fitted(self)
        background = _local(background)
        local = getattr(super(), method)
        if not is_dask_collection(X):
            return local(X, background, groups=groups, **({} if method == "feature_contributions"
                                                            else {"max_bytes": max_bytes}))
        table = self._additive_table(method)
        labels = check_groups(groups, self.n_features_in_, background)
        width = self.n_features_in_ + 1 if labels is None else int(labels.max()) + 2
        X = fitted_dask_matrix(self, X)
        means, expected = self._expectations(table, background, method)
        if method == "feature_contributions":
            return X.map_blocks(_explain_chunk, contribution_rows, table, means, expected, labels,
                                chunks=(X.chunks[0], (width,)), dtype=np.float64)
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()            # the chunks' sizes, which max_bytes bounds
        check_interaction_size(max(X.chunks[0], default=0), width - 1, max_bytes,
                               "feature_interactions (the largest chunk of X's rows: rechunk them)")
        return X.map_blocks(_explain_chunk, interaction_rows, table, means, expected, labels,
                            chunks=(X.chunks[0], (width,), (width,)), new_axis=2, dtype=np.float64)

    def to_local(self) -> ExactBoost:
        """The in-memory :class:`rankcore.ExactBoost` with these parameters and fit (savable)."""
        check_is_fitted(self)
        params = {k: v for k, v in self.get_params(deep=False).items()
                  if k not in ("client", "batches_per_worker_thread")}
        local = ExactBoost(**params)
        local._set_fitted_state(self._get_fitted_state())
        return local

    def __getstate__(self):
        state = super().__getstate__()          # without the client (ClientParameter)
        state.pop("_fit_client", None)
        return state
