"""``feature_contributions`` and ``feature_interactions`` of the Dask push estimators: lazy per chunk of rows.

Each chunk's values are computed on its worker with the arithmetic of the
in-memory estimator (one thread: the same values); the checks -- a tree
learner, covers, X's columns, a background's rows -- run on the client
before any chunk.  A background (interventional values) is a few hundred
rows: computed to the client if a Dask collection, checked as the in-memory
estimator checks it, and sent with every chunk's task, as are ``groups``
(one label per column) when given.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._peer_names import explains_rows_alone
from .._background import check_background, check_groups, check_takes_groups
from .._threadsafe import reads_a_snapshot
from ..validation import INTERACTION_MAX_BYTES, check_interaction_size, check_matrix
from ._inputs import is_dask_collection

__all__ = ["DaskExplanations"]


def chunk_rows(X, allow_nan: bool):
    """One chunk's rows checked as the in-memory estimator checks them (NaN where its learner routes it)."""
    X = np.asarray(X)
    return check_matrix(X, name="X", dtype=np.float32 if X.dtype == np.float32 else np.float64, min_rows=0,
                        allow_nan=allow_nan)


def _contributions_chunk(X, contributions, rankers, alphas, allow_nan=False, background=None, groups=None):
    """``feature_contributions`` of one chunk, with the arithmetic of the in-memory estimator (one thread)."""
    if background is None:
        return contributions(rankers, alphas, chunk_rows(X, allow_nan), 1)
    options = {} if groups is None else {"groups": groups}
    return contributions(rankers, alphas, chunk_rows(X, allow_nan), 1, background=background, **options)


def _interactions_chunk(X, interactions, rankers, alphas, allow_nan=False, max_bytes=None, background=None,
                        groups=None):
    """``feature_interactions`` of one chunk, with the arithmetic of the in-memory estimator (one thread)."""
    if background is None:
        return interactions(rankers, alphas, chunk_rows(X, allow_nan), 1, max_bytes)
    options = {} if groups is None else {"groups": groups}
    return interactions(rankers, alphas, chunk_rows(X, allow_nan), 1, max_bytes, background=background, **options)


class DaskExplanations:
    """Mixin of ``_DaskBoost``: lazy :meth:`feature_contributions` and :meth:`feature_interactions` of a Dask
    collection (``_dask_matrix``, ``_routes_nan`` and the fitted trees are the estimator's)."""

    @explains_rows_alone
    @reads_a_snapshot
    def feature_contributions(self, X, background=None, *, groups=None):
        """:meth:`PushBoost.feature_contributions`; a lazy ``dask.array`` of shape (n_samples, n_features + 1) for a
        Dask collection, each chunk's rows computed on its worker (the checks -- a tree learner, covers -- run
        here).  ``background`` (interventional values; a Dask collection is computed here) is checked here and
        sent with each chunk, as are ``groups`` (then (n_samples, G + 1))."""
        check_is_fitted(self)
        contributions = getattr(self._learner, "contributions", None)
        if is_dask_collection(background):
            background = background.compute()
        if not is_dask_collection(X) or contributions is None:      # (no learner's values: the TypeError)
            return super().feature_contributions(X, background=background, groups=groups)
        labels = check_groups(groups, self.n_features_in_, background)
        X = self._dask_matrix(X)
        options = {}
        if background is not None:
            options["background"] = check_background(lambda rows: self._check_X(rows, reset=False), background)
        if labels is not None:
            check_takes_groups(contributions, self._learner, self.learner_spec_, "feature_contributions")
            options["groups"] = labels
        width = X.shape[1] + 1 if labels is None else int(labels.max(initial=-1)) + 2
        contributions(self.rankers_, self.alphas_, np.empty((0, X.shape[1])), 1, **options)  # covers, columns
        return X.map_blocks(_contributions_chunk, contributions, self.rankers_, self.alphas_, self._routes_nan(),
                            chunks=(X.chunks[0], (width,)), dtype=np.float64, **options)

    @explains_rows_alone
    @reads_a_snapshot
    def feature_interactions(self, X, background=None, *, groups=None,
                             max_bytes: int | None = INTERACTION_MAX_BYTES):
        """:meth:`PushBoost.feature_interactions`; a lazy ``dask.array`` of shape (n_samples, n_features + 1,
        n_features + 1) for a Dask collection, each chunk's rows computed on its worker.  ``max_bytes`` bounds each
        chunk's output (rechunk the rows to fit); the checks -- a tree learner, covers, the chunk sizes -- run
        here.  ``background`` (interventional values; a Dask collection is computed here) is checked here and
        sent with each chunk, as are ``groups`` (then (n_samples, G + 1, G + 1))."""
        check_is_fitted(self)
        interactions = getattr(self._learner, "interaction_values", None)
        if is_dask_collection(background):
            background = background.compute()
        if not is_dask_collection(X) or interactions is None:      # (no learner's values: the TypeError)
            return super().feature_interactions(X, background, groups=groups, max_bytes=max_bytes)
        labels = check_groups(groups, self.n_features_in_, background)
        X = self._dask_matrix(X, lengths=True)        # the chunks' sizes, which max_bytes bounds
        options = {}
        if background is not None:
            options["background"] = check_background(lambda rows: self._check_X(rows, reset=False), background)
        if labels is not None:
            check_takes_groups(interactions, self._learner, self.learner_spec_, "feature_interactions")
            options["groups"] = labels
        interactions(self.rankers_, self.alphas_, np.empty((0, X.shape[1])), 1, max_bytes, **options)  # covers
        width = X.shape[1] + 1 if labels is None else int(labels.max(initial=-1)) + 2
        check_interaction_size(max(X.chunks[0], default=0), width - 1, max_bytes,
                               "feature_interactions (the largest chunk of X's rows: rechunk them)")
        return X.map_blocks(_interactions_chunk, interactions, self.rankers_, self.alphas_, self._routes_nan(),
                            max_bytes, chunks=(X.chunks[0], (width,), (width,)), new_axis=2, dtype=np.float64,
                            **options)
