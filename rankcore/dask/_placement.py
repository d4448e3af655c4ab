"""Where a Dask fit runs: spread over every worker, or whole on one worker (``placement``).

A distributed fit pays Dask's fixed cost per message at every pass of every
iteration (a tree's passes between the workers, the client's round trip);
what it buys is the histogram work split over the workers.  When the rows
are few, the messages cost more than the other workers save: the fit then
runs whole on one worker -- its rows gathered into that worker's memory
(worker to worker, never through the client), the in-memory estimator's
own ``fit`` run there, the fitted model returned -- so its model *is* the
in-memory model.

The rule (``placement="auto"``) compares, per iteration, the wall time the
other workers save with the messages a distributed iteration costs::

    one worker  iff  n · d · H / t · (1 - 1/W)  <=  m · C
                and  the rows fit in a quarter of the smallest worker memory limit

n rows, d features, t threads per worker, W workers, m the messages
(passes) of one distributed iteration (:func:`messages_per_iteration`), H the
in-memory fit's time per row, feature and iteration on one thread, C the
wall time of one pass between workers.  H and C were measured on a
``LocalCluster`` of two 1-thread workers (``docs/studies``; the Dask guide
gives the crossover they imply).
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._caller import outside_stacklevel
from .._thread_output import capture_stdout
from ._borrow import Borrowed, borrow_threads
from ._categories import category_frame
from ._malloc import pages_kept
from ._inputs import joined_chunk_ids
from ._prepare import check_chunk

__all__ = ["PLACEMENTS", "Placement", "choose_placement", "messages_per_iteration", "fit_on_one_worker"]

PLACEMENTS = ("auto", "distributed", "one_worker")

#: The in-memory fit's time per row, feature and iteration on one thread, in seconds (leaf-wise trees of 31
#: leaves, 40 float32 features, the exp loss: the whole fit's time over n·d·iterations, 10^5 .. 10^6 rows).
HISTOGRAM_SECONDS = 6.0e-9

#: Wall time of one pass between the workers, in seconds: the lead's message to a peer and the reply (Dask's
#: fixed cost at both ends and the histograms' transfer) and the lead's work on the sums while the peer waits.
MESSAGE_SECONDS = 4.0e-3

#: Leaf-wise passes per tree for each leaf the tree may grow (11.6-11.7 passes per tree of 31 leaves).
LEAFWISE_PASSES_PER_LEAF = 11.7 / 31

#: Largest share of the smallest worker memory limit a one-worker fit may need (rows and their copies).
ONE_WORKER_MEMORY_SHARE = 0.25

#: Whether a fit on one worker borrows the threads of the idle workers on its host (``_borrow``).
BORROW_THREADS = True


@dataclass(frozen=True)
class Placement:
    """The placement chosen for a fit, and why (``fit_info_["placement"]``, ``["placement_reason"]``)."""

    kind: str
    reason: str
    estimate: dict = field(default_factory=dict)


def searches_in_passes(learner) -> bool:
    """Whether ``learner`` searches its weak ranker in several passes over the rows (trees: they declare a growth)."""
    return dict(getattr(learner, "params", None) or {}).get("growth") is not None


def messages_per_iteration(learner) -> float:
    """The passes between workers a distributed iteration of ``learner`` makes, plus the client's round trip.

    Trees: leaf-wise growth (batched) about :data:`LEAFWISE_PASSES_PER_LEAF`
    per leaf; depth-wise and oblivious growth one per level and the root.
    Single-pass learners (stumps, thresholds): the client's round trip only.
    """
    if not searches_in_passes(learner):
        return 1.0
    params = dict(learner.params)
    growth = params["growth"]
    max_leaves = int(params.get("max_leaves") or 31)
    depth = params.get("max_depth")
    levels = math.ceil(math.log2(max(2, max_leaves)))
    if depth is not None and int(depth) > 0:
        levels = min(levels, int(depth)) if growth != "leafwise" else levels
    if growth == "leafwise":
        return 1.0 + max(levels + 1, LEAFWISE_PASSES_PER_LEAF * max_leaves)
    return 1.0 + levels + 1


def one_worker_bytes(n_rows: int, n_features: int, data_bytes: int) -> int:
    """Memory a one-worker fit needs: the chunks, their concatenation and a hold-out copy, codes and buffers."""
    return int(3 * data_bytes + n_rows * (n_features + 64))


def choose_placement(requested: str, *, n_rows: int, n_features: int, data_bytes: int, learner, workers: dict,
                     callbacks: bool, not_distributed: str | None = None) -> Placement:
    """The placement of a fit: ``requested`` unless ``"auto"``, then the rule of the module docs.

    Parameters
    ----------
    requested : {"auto", "distributed", "one_worker"}
    n_rows, n_features, data_bytes : int
        The training rows, features, and bytes of X, y, weights, query ids,
        display positions and initial scores.
    learner : Learner
        The resolved learner (its growth and leaves give the messages per iteration).
    workers : dict
        The scheduler's ``workers`` info (``nthreads``, ``memory_limit``).
    callbacks : bool
        The fit has user callbacks (they run on the client, between iterations: distributed only).
    not_distributed : str, optional
        Why a distributed fit cannot take the request (an objective without a
        distributed form, say): ``"auto"`` then fits on one worker if the rows
        fit there, and the caller raises for a distributed placement.
    """
    if requested not in PLACEMENTS:
        raise ValueError(f"placement: expected one of {list(PLACEMENTS)}, got {requested!r}")
    limits = [int(info.get("memory_limit") or 0) for info in workers.values()]
    need = one_worker_bytes(n_rows, n_features, data_bytes)
    fits = not limits or not all(limits) or need <= ONE_WORKER_MEMORY_SHARE * min(limits)
    if requested == "one_worker":
        if callbacks:
            raise ValueError("placement='one_worker': callbacks run on the client after every iteration, which a "
                             "fit on one worker cannot do; use placement='distributed' (or 'auto') with callbacks")
        return Placement("one_worker", "requested")
    if requested == "distributed":
        return Placement("distributed", "requested")
    W = max(1, len(workers))
    threads = max(1, min(int(info.get("nthreads", 1) or 1) for info in workers.values())) if workers else 1
    saved = n_rows * n_features * HISTOGRAM_SECONDS / threads * (1.0 - 1.0 / W)
    messages = messages_per_iteration(learner) * MESSAGE_SECONDS
    estimate = {"saved_per_iteration": saved, "messages_per_iteration": messages, "one_worker_bytes": need}
    if callbacks:         # before the one-worker rule: a fit on one worker never calls them (a cluster of one too)
        return Placement("distributed", "callbacks run on the client between iterations", estimate)
    if W == 1:
        return Placement("one_worker", "one worker in the cluster", estimate)
    if not_distributed is not None and fits:
        return Placement("one_worker", f"a distributed fit cannot take it ({not_distributed})", estimate)
    if not fits:
        return Placement("distributed", f"the rows need ~{need / 2**20:.0f} MiB on one worker, more than "
                                        f"{ONE_WORKER_MEMORY_SHARE:.0%} of its memory limit", estimate)
    if saved <= messages:
        return Placement("one_worker", f"the other workers would save ~{saved * 1e3:.1f} ms per iteration, "
                                       f"the messages cost ~{messages * 1e3:.1f} ms", estimate)
    return Placement("distributed", f"the other workers save ~{saved * 1e3:.1f} ms per iteration, more than the "
                                    f"~{messages * 1e3:.1f} ms the messages cost", estimate)


# --------------------------------------------------------------------------
# The fit on one worker
# --------------------------------------------------------------------------

def _worker_threads() -> int:
    from distributed import get_worker

    return max(1, int(get_worker().state.nthreads))


def _concatenated(parts, task, X_parts):
    """Chunk i checked as the distributed fit checks it, then every chunk concatenated (rows in order)."""
    X_out, y_out, w_out = [], [], []
    for i, (X, y, w) in enumerate(zip(X_parts, parts[0], parts[1])):
        X, y, w = check_chunk(i, X, y, w, task=task)
        X_out.append(X)
        y_out.append(y)
        w_out.append(w)
    dtype = np.float32 if all(X.dtype == np.float32 for X in X_out) else np.float64
    X = np.concatenate([np.asarray(X, dtype=dtype) for X in X_out])
    y = np.concatenate(y_out)
    w = None if w_out[0] is None else np.concatenate(w_out)
    return X, y, w


#: The rows are gathered into the fitting worker's array in at most this many steps (tasks, one after the other):
#: each copies its chunks in, and Dask releases them when it ends, so the worker holds the rows and about
#: 1/GATHER_STEPS of the chunks at once rather than both whole.  Two steps bring the gather's peak (the rows and
#: half the chunks: 24 MB at 10^5 x 40 float32 rows, not 32) down to the encoding's (the rows, their codes and
#: the bin edges' buffers); more would not lower the fit's peak, and each step after the first costs one task's
#: latency (a few ms on a quiet machine, tens under load).
GATHER_STEPS = 2


def _rows_into(rows, task, n_rows, first, X_parts, y_parts, w_parts, q_parts, last, p_parts=None, i_parts=None):
    """On the worker: chunks ``first, first + 1, ...`` checked and copied into ``rows`` (None: a new gather).

    ``rows`` is the list [X, filled, y parts, w parts, qid parts, position parts, init parts] of the
    steps before; X has ``n_rows`` rows, allocated at the first step in the
    first chunk's dtype (float32 kept only while every chunk is float32,
    as :func:`_concatenated`) and filled in row order.  The last step
    (``last``) returns [X, y, w, qid, position, init] as :func:`_rows_here` does.  The same
    rows as :func:`_rows_here`, bit for bit, holding fewer chunks at once.
    """
    for k, (X, y, w) in enumerate(zip(X_parts, y_parts, w_parts)):
        X, y, w = check_chunk(first + k, X, y, w, task=task)
        if rows is None:
            dtype = np.float32 if X.dtype == np.float32 else np.float64
            rows = [np.empty((n_rows, X.shape[1]), dtype=dtype), 0, [], [], [], [], []]
        out, at = rows[0], rows[1]
        if X.dtype != out.dtype and out.dtype == np.float32:
            out = rows[0] = out.astype(np.float64)        # a float64 chunk: every row as float64 (exact)
        if at + X.shape[0] > out.shape[0] or X.shape[1] != out.shape[1]:
            raise ValueError(f"X (chunk {first + k}): expected {out.shape[1]} columns and at most "
                             f"{out.shape[0] - at} more rows (the collection's chunk sizes), got shape {X.shape}")
        out[at:at + X.shape[0]] = X
        rows[1] = at + X.shape[0]
        rows[2].append(y)
        rows[3].append(w)
    if q_parts is not None:
        rows[4].extend(np.asarray(q) for q in q_parts)
    if p_parts is not None:
        rows[5].extend(p_parts)
    if i_parts is not None:
        rows[6].extend(i_parts)
    if not last:
        return rows
    X, filled, y_parts, w_parts, q_parts, p_parts, i_parts = rows
    rows.clear()
    if filled != X.shape[0]:
        raise ValueError(f"X: expected {X.shape[0]} rows (the collection's chunk sizes), the chunks hold {filled}")
    y = np.concatenate(y_parts)
    w = None if w_parts[0] is None else np.concatenate(w_parts)
    qid = joined_chunk_ids(q_parts) if q_parts else None
    return [X, y, w, qid, _joined(p_parts) if p_parts else None, _joined(i_parts) if i_parts else None]


def _joined(parts):
    """The chunks of a column concatenated."""
    return np.concatenate([np.asarray(p) for p in parts])


def _rows_here(task, X_parts, y_parts, w_parts, q_parts, p_parts=None, i_parts=None):
    """On the worker: the chunks checked and concatenated into a list [X, y, w, qid, position, init], rows in
    order.

    A task of its own, so that the chunks are released as soon as it ends
    (the client keeps no reference to them): the fit that follows holds the
    concatenated rows only, not the chunks beside them.  A list, not a
    tuple: Dask keeps a task's result in the worker's memory while a task
    that depends on it runs, and :func:`_fit_here` empties the list so that
    this copy of the rows is not held for the whole fit.
    """
    X, y, w = _concatenated((y_parts, w_parts), task, X_parts)
    qid = None if q_parts is None else joined_chunk_ids(q_parts)
    return [X, y, w, qid, None if p_parts is None else _joined(p_parts), None if i_parts is None else _joined(i_parts)]


def _fit_here(estimator, rows, fit_kwargs, borrowed: int = 0, frame=None):
    """On the worker: the in-memory fit on ``rows`` ([X, y, w, qid, position, init] from :func:`_rows_here`), on the
    worker's threads and ``borrowed`` more (held on other workers of its host, ``_borrow``), at most the CPUs this
    process may use.  ``frame``: (column names, per column its categories or None) of rows read from a DataFrame
    with ``category`` columns, whose codes X holds: the fit is then the in-memory fit of that frame
    (:func:`rankcore.dask._categories.category_frame`), its categories kept and its columns named.

    The rows are taken out of the list (which Dask holds as the result of
    :func:`_rows_here` until this task ends) and handed to the estimator's
    ``_fit_rows`` in a list of their own: nothing else references X, so the
    fit frees it once the rows are encoded (a 10^5 x 40 float32 fit: 16 MB
    less for the trees' part of the fit; see the Dask trees study).

    Returns (fitted estimator, worker address, printed output, warnings as (category, message), threads).
    """
    from distributed import get_worker

    from .._blas import openmp_limit
    from ..validation import effective_n_threads

    X, y, w, qid, position, init = rows
    rows.clear()
    del rows
    if frame is not None:
        X = category_frame(X, *frame)
    held = _worker_threads() + int(borrowed)
    # the threads the fit will run on: the held ones, fewer where the host's CPUs are busy now (OpenMP's waiting
    # threads spin, and a region on more threads than the host has free waits for descheduled ones); asked under
    # the raised OpenMP limit, since Dask's OMP_NUM_THREADS=1 would cap the count at one
    with openmp_limit(held):
        threads = effective_n_threads(held)
    if "n_jobs" in estimator.get_params(deep=False):
        estimator.set_params(n_jobs=threads)          # the worker's threads, as the distributed fit uses
    out = io.StringIO()
    fit_rows = getattr(estimator, "_fit_rows", None)   # the push estimators; anything else keeps X to the end
    setup = getattr(estimator, "_setup_record", None)
    if fit_rows is not None and setup is not None and setup().params.position_bias.em:
        fit_rows = None         # the click model is fit's loop of fits (one per EM round), not one fit of the rows
    # Dask starts its workers with OMP_NUM_THREADS=1, which would cap n_jobs (validation.effective_n_threads)
    # at one thread on a worker of several: the limit is the threads the fit holds
    # (an estimator without positions or initial scores: no keyword)
    extra = {key: value for key, value in (("position", position), ("init_score", init)) if value is not None}
    with warnings.catch_warnings(record=True) as caught, capture_stdout(out), pages_kept(), openmp_limit(threads):
        warnings.simplefilter("always")
        if fit_rows is None:
            estimator.fit(X, y, w, qid=qid, **extra, **fit_kwargs)
        else:
            data = [X, y, w]
            del X
            fit_rows(data, qid=qid, **extra, **fit_kwargs)
    shown = [(w.category, str(w.message)) for w in caught]
    return estimator, get_worker().address, out.getvalue(), shown, threads


def named_warnings(learner, data) -> dict[str, str]:
    """The warnings of a one-worker fit of ``data`` that name columns by index, each with its text naming them by
    the client's column names (``data.feature_names``); empty when X has none or ``learner`` names no column.

    The worker fits rows without ``category`` columns as an array, so the
    in-memory fit's "in no group" warning of ``interactions`` there shows
    indices only.
    """
    message = getattr(learner, "unused_columns_message", None)
    if message is None or data.feature_names is None:
        return {}
    by_index = message(data.n_features, None)
    return {} if by_index is None else {by_index: message(data.n_features, list(data.feature_names))}


def fit_on_one_worker(client, estimator, data, task: str, *, qid=None, position=None, init=None,
                      fit_kwargs: dict, renamed: dict[str, str] | None = None,
                      frame=None) -> tuple[Any, str, int]:
    """Fit the in-memory ``estimator`` on one worker holding every row of ``data``; (fitted estimator, worker,
    threads of the fit).

    The chunks are computed where the scheduler puts them and gathered, worker
    to worker, into the memory of the worker that holds most of them (the
    scheduler's choice for the fitting task): never through the client.
    ``qid``: a Dask vector with the chunks of ``data`` (query codes), or None; ``position`` likewise (the display
    positions as given, checked by the in-memory fit); ``init`` likewise (the initial scores, ``init_score``).
    ``frame``: (column names, categories) to fit the rows as the DataFrame of ``category`` columns they were read
    from (:func:`_fit_here`), or None.  The fit's printed output and warnings are shown on the client, a warning
    whose text is a key of ``renamed`` with that key's value (:func:`named_warnings`).
    """
    import sys

    chunks = data.delayed_chunks()
    q = None if qid is None else qid.to_delayed().ravel().tolist()
    p = None if position is None else position.to_delayed().ravel().tolist()
    s = None if init is None else init.to_delayed().ravel().tolist()
    columns = [[c[0] for c in chunks], [c[1] for c in chunks],
               None if data.weight is None else [c[2] for c in chunks], q, p, s]
    futures = [None if col is None else client.compute(col) for col in columns]
    X_f, y_f, w_f, q_f, p_f, i_f = futures
    if w_f is None:
        w_f = [None] * len(X_f)
    n_rows = sum(data.chunk_rows)
    steps = min(GATHER_STEPS, len(X_f))
    if steps <= 1 or n_rows == 0:
        rows = client.submit(_rows_here, task, X_f, y_f, w_f, q_f, p_f, i_f, pure=False)
    else:
        # consecutive groups of chunks, each step on the worker holding the rows so far (its largest input)
        bounds = [round(len(X_f) * s / steps) for s in range(steps + 1)]
        rows = None
        for s, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            rows = client.submit(_rows_into, rows, task, n_rows, a, X_f[a:b], y_f[a:b], w_f[a:b],
                                 None if q_f is None else q_f[a:b], s == steps - 1,
                                 None if p_f is None else p_f[a:b], None if i_f is None else i_f[a:b], pure=False)
    # the chunks' only holders are now the concatenating task (freed when it ends) and the fit task the rows'
    del futures, X_f, y_f, w_f, q_f, p_f, i_f, columns
    borrowed = Borrowed(client)
    where = {}
    if BORROW_THREADS:
        # the fit runs where the rows are; the idle workers of that host lend it their threads.  Waiting through
        # the future (not distributed.wait, which asks for a default client) fetches nothing: a failed gather's
        # error is raised below, by the fit task that depends on it
        rows.exception()
        fit_worker = sorted(client.who_has([rows]).get(rows.key) or [None])[0]
        if fit_worker is not None:
            borrowed = borrow_threads(client, fit_worker)
            where = {"workers": [fit_worker], "allow_other_workers": True}
    try:
        future = client.submit(_fit_here, estimator, rows, dict(fit_kwargs), borrowed.threads, frame, pure=False,
                               **where)
        del rows
        try:
            fitted, address, printed, caught, threads = future.result()
        finally:
            del future
    finally:
        borrowed.give_back()
    if printed:
        sys.stdout.write(printed)
        sys.stdout.flush()
    for category, message in caught:
        warnings.warn((renamed or {}).get(message, message), category, stacklevel=outside_stacklevel())
    return fitted, address, threads
