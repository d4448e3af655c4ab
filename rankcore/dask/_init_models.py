"""``fit(..., init_model=...)`` on Dask: continue a fitted push model with more weak rankers, as in memory.

The rules are the in-memory ones (:class:`rankcore.push.InitModel`; "Continuing a model" in
``docs/query_positions_and_init.md``): the init model -- an in-memory or Dask-fitted estimator of the family, or
the path of its saved model file -- is read on the client, and checked against the rows' features, queries,
learner and ``init_score`` before any row is read (the labels' classes, and the grades of a graded continuation
of a model of two labels, once the fit knows them: :func:`one_list_grades`).  Then:

* on one worker (``placement``) the checked model goes with the rows to the in-memory ``fit`` there, which
  scores the gathered rows itself: the in-memory continuation, bit for bit;
* distributed, the training rows' start is a lazy Dask vector with X's row chunks -- the init model's
  ``decision_function`` of each chunk, computed on the worker that computes the chunk
  (:func:`start_scores`), plus the rows' ``init_score`` -- which takes ``init_score``'s route
  (``rankcore.dask._init_scores``): into query order, into the hold-out of ``early_stopping="auto"`` and the rows
  beside it, and each shard starts its rows' scores at it.  X is never brought to the client for it.  With
  ``position`` the fit's places join the model's and the client's effects start at its
  (:meth:`~rankcore.push.InitModel.position_start`), as in memory.

Validation sets live on the client either way, where the in-memory checks start each from the init model's
scores of its rows.  The fitted Dask model holds the init model's weak rankers, then its own
(:func:`rankcore.push.prepend_init_model`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..push import PNormPush, PushBoost, RankBoost, read_init_model
from ._inputs import gather_in_chunk_order
from ._prepare import check_chunk

__all__ = ["one_list_grades", "read_dask_init_model", "start_scores"]

#: The estimators whose fitted models a push fit continues (the Dask ones are their subclasses).
FAMILY = (PushBoost, PNormPush, RankBoost)


def read_dask_init_model(init_model: Any):
    """``fit``'s ``init_model`` read as in memory: a checked :class:`~rankcore.push.InitModel`, or None.

    A Dask-fitted model is read as it is: it pickles without its client, so it travels to the workers like an
    in-memory one.
    """
    return read_init_model(init_model, FAMILY)


def _chunk_scores(X, init, block_info=None) -> np.ndarray:
    """The init model's scores of one chunk of X, checked as the distributed fit checks the chunk (one thread:
    the rows' scores do not depend on the thread count)."""
    i = 0 if not block_info else int(block_info[0]["chunk-location"][0])
    X, _, _ = check_chunk(i, X, None, None, task=None)
    return np.asarray(init.scores(X, 1), dtype=np.float64)


def start_scores(init, X, init_score=None):
    """Where the training scores of a distributed continuation start: a lazy float64 vector with X's row chunks.

    ``init``: the checked :class:`~rankcore.push.InitModel`; ``X``: the rows (a Dask array chunked by rows, in the
    rows' given order); ``init_score``: their initial scores as a Dask vector with the same chunks (None without).
    Each chunk's scores are the init model's on the worker computing the chunk, plus its rows' initial scores, as
    the in-memory :meth:`~rankcore.push.InitModel.start` adds them.
    """
    scores = X.map_blocks(_chunk_scores, init, drop_axis=1, dtype=np.float64, meta=np.empty(0, dtype=np.float64))
    return scores if init_score is None else init_score + scores


def _chunk_grades(y, most: int) -> np.ndarray:
    """Up to ``most`` of one chunk's distinct grades (all of them when it has no more)."""
    return np.unique(np.asarray(y, dtype=np.float64))[:most]


def one_list_grades(client, init, y, task: str, *, within_queries: bool):
    """The grades the in-memory task check reads (:meth:`~rankcore.push.InitModel.check`'s ``labels``), or None
    when it reads none.

    A graded objective on one list continues a model of two labels (``task_`` bipartite) only if every grade is
    one of its ``classes_``.  ``y`` (the checked rows' grades, a Dask vector) is not brought to the client for it:
    each chunk sends at most one more of its distinct grades than the model has classes -- all of them, or more
    than the classes can hold -- so the check answers as on every row, from O(chunks) numbers.
    """
    if within_queries or task != "graded" or getattr(init.model, "task_", None) != "bipartite":
        return None
    import dask

    most = len(init.model.classes_) + 1
    call = dask.delayed(_chunk_grades, pure=False)
    parts = gather_in_chunk_order(client, [call(part, most) for part in y.to_delayed().ravel()])
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0)
