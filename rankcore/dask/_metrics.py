"""``rankcore.dask.evaluate``: ranking metrics of distributed scores, without collecting them.

Every metric is computed from per-chunk reductions of O(k) or O(bins)
numbers; the scores and labels stay on the workers (persisted for the
duration of the call, then released).  What is computed is what the metric
declares (:meth:`rankcore.Metric.distributed_form`, see "Distributed
evaluation" in the Metric docs); the evaluator knows no metric by name:

``"summary"`` (a mergeable summary: plugins' simple case)
    One pass: each chunk's ``metric.chunk_summary(y, scores)`` on the worker
    (the metric travels as its spec string and is resolved there), merged on
    the client by ``metric.merge_summaries``; exact.

``"thresholds"`` (exact: ``prec@k``, ``rmax``, ``max_height``)
    The thresholds the metrics name: the k-th largest score (for k <= 131072
    from each chunk's k largest scores merged on the client, beyond that by
    key refinement, :mod:`rankcore.dask._order`) and the highest negative
    score (per-chunk maxima merged); then one pass counts, per class, the
    scores above and equal to each threshold, from which each metric gives
    its exact value (prec@k with the in-memory tie rule: the tie group at
    rank k shares the remaining places).

``"roc"`` (provably bounded, exact when the refinement completes: ``auc``, ``pauc``, ``tpauc``, ``ks``)
    These depend on the scores only through the ROC curve, i.e. through the
    sequence of tie groups with their counts of positives and negatives.  The
    score axis is cut into *cells* (key intervals, :class:`rankcore.metrics.RocCells`)
    with their counts per class, found by passes that split the cells that
    matter into sub-bins.  A cell that holds one class only, or a single
    distinct score, contributes exactly what the full data would (a pure
    cell's ROC segment is straight; a single-score cell is a tie group).  A
    cell with both classes and several scores is uncertain: inside it the
    ROC curve is some monotone staircase between the cell's corners, so every
    metric lies between its value on the lowest staircase (negatives first)
    and on the highest (positives first).  Summed over the uncertain cells
    this is a guaranteed interval [low, high] containing the exact value
    (``metric.roc_bounds``):

    * auc: high − low = Σ_uncertain n₊·n₋ / (I·K);
    * pauc, tpauc: the areas under the lowest and highest curves, restricted
      to FPR <= α (and above TPR β);
    * ks: low = the maximum over cell boundaries; high also allows, inside an
      uncertain cell, all of its negatives before its positives.

    The reported value treats each uncertain cell as one tie group (the
    in-memory tie rule), so it lies in [low, high] and equals the in-memory
    value once no cell is uncertain.  Passes continue until every bounded
    metric has high − low <= ``tol`` (``tol=0``: exact) or ``max_passes`` is
    reached (then a warning gives the bound achieved).  Each pass splits the
    uncertain cells that contribute most to the widths (``metric.roc_priority``)
    into up to 1024 sub-bins of equal key width, at most ``bins`` sub-bins in
    all; a single cell becomes one distinct score after at most ⌈64/10⌉ = 7
    splits.  Traffic per pass: 2 × bins integers per chunk.

With ``qid`` (rankings within queries: ``ndcg@k``, ``map``, ``mrr``, ...)
    A per-query metric needs each query whole, and some need facts about
    every query at once (``err@k``'s largest grade, the largest query for a
    count k, the row order inside a query for ``ties=first``), so no
    per-chunk reduction gives them when the rows of a query are spread over
    chunks.  The (qid, y, score) columns -- three values a row, 24 bytes for
    numeric ids -- are gathered to the client in row order and evaluated by
    :func:`rankcore.evaluate` there: the same numbers as in memory by
    construction, for every scalar metric, at O(n) memory on the client.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

import numpy as np

from .._caller import outside_stacklevel
from ..metrics import Metric, RocCells, one_class, resolve_metrics
from ..registry import registry, resolve
from ..validation import check_binary_labels, check_scores
from ._inputs import get_client, is_dask_collection, joined_chunk_ids, series_array, tree_sum
from ._workers import worker_info
from ._order import RankSearch, float_keys, interval_counts
from ._shard import check_components_on_workers

__all__ = ["evaluate", "DistributedEvaluation", "distributed_metric_names", "as_dask_vector", "RocCells"]

#: Largest k for which prec@k merges each chunk's k top scores (beyond: key refinement).
TOPK_MERGE_MAX = 1 << 17
_SPLIT = 1024           # key sub-ranges per pass of the k-th-score search


class DistributedEvaluation(dict):
    """The metric values (a dict, as :func:`rankcore.evaluate` returns), with their guarantees.

    Attributes
    ----------
    bounds : dict
        spec -> (low, high), an interval guaranteed to contain the exact
        value (low == high for exact values).
    exact : dict
        spec -> bool.
    passes : int
        Passes over the scores.
    """

    def __init__(self, values, bounds, passes):
        super().__init__(values)
        self.bounds = dict(bounds)
        self.exact = {key: bool(lo == hi) for key, (lo, hi) in self.bounds.items()}
        self.passes = int(passes)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def as_dask_vector(v: Any, *, name: str):
    """A 1-D Dask array from a Dask array / Series or an in-memory array."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(v, dd.Series):
        return series_array(v)
    if isinstance(v, dd.DataFrame):
        if len(v.columns) != 1:
            raise ValueError(f"{name}: expected a 1-D collection, got a DataFrame with {len(v.columns)} columns")
        return series_array(v[v.columns[0]])
    if isinstance(v, da.Array):
        if v.ndim != 1:
            raise ValueError(f"{name}: expected a 1-D array, got shape {v.shape}")
        return v
    if is_dask_collection(v):
        raise TypeError(f"{name}: expected a dask.array or dask.dataframe collection, got {type(v).__name__}")
    local = np.asarray(v)
    if local.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {local.shape}")
    return da.from_array(local, chunks=max(1, -(-local.shape[0] // 4)))


def _aligned(client, y, scores):
    """(y, scores) persisted on the workers, with known chunk sizes, y chunked as the scores."""
    scores = as_dask_vector(scores, name="scores")
    y = as_dask_vector(y, name="y")
    y, scores = client.persist([y, scores])
    if any(np.isnan(c) for c in scores.chunks[0]):
        scores = scores.compute_chunk_sizes()
    if any(np.isnan(c) for c in y.chunks[0]):
        y = y.compute_chunk_sizes()
    if y.shape[0] != scores.shape[0]:
        raise ValueError(f"inconsistent lengths: y has {y.shape[0]}, scores has {scores.shape[0]}; "
                         "expected one value per example")
    if y.shape[0] == 0:
        raise ValueError("scores: expected at least one score, got an empty array")
    if y.chunks != scores.chunks:
        y = client.persist(y.rechunk(scores.chunks))
    return y, scores


def _chunk(i, y, s):
    return (check_binary_labels(y, name=f"y (chunk {i})") if len(y) else np.zeros(0, np.int8),
            check_scores(s, name=f"scores (chunk {i})", allow_empty=True, integers="refuse-large",
                         what="a chunked evaluation (chunks cannot be ranked together)"))


# --------------------------------------------------------------------------
# Per-chunk passes (worker side)
# --------------------------------------------------------------------------

def _basics(i, y, s, top_ks):
    y, s = _chunk(i, y, s)
    pos = y == 1
    keys = float_keys(s)
    out = {
        "n": int(s.shape[0]),
        "n_pos": int(pos.sum()),
        "key_min": int(keys.min()) if keys.size else None,
        "key_max": int(keys.max()) if keys.size else None,
        "max_neg": float(s[~pos].max()) if (~pos).any() else -math.inf,
        "top": {},
    }
    for k in top_ks:
        m = min(k, s.shape[0])
        out["top"][k] = np.partition(s, s.shape[0] - m)[s.shape[0] - m:] if m else np.empty(0)
    return out


def _counts_at(i, y, s, thresholds):
    """Per threshold t: #positives > t, #negatives > t, #positives == t, #negatives == t."""
    y, s = _chunk(i, y, s)
    pos = s[y == 1]
    neg = s[y == 0]
    return np.array([[np.count_nonzero(pos > t), np.count_nonzero(neg > t),
                      np.count_nonzero(pos == t), np.count_nonzero(neg == t)] for t in thresholds],
                    dtype=np.int64).reshape(-1, 4)


def _chunk_summary(i, y, s, spec):
    """A plugin metric's summary of one chunk (the metric resolved here, on the worker)."""
    y, s = _chunk(i, y, s)
    return resolve("metric", spec).chunk_summary(y, s)


def _select_counts(i, y, s, request):
    _, s = _chunk(i, y, s)
    return interval_counts(s[:, None], None, *request)


def _cell_counts(i, y, s, lo, hi, step, offset, total):
    """(total, 2) counts of negatives / positives in every sub-bin of the cells being split."""
    y, s = _chunk(i, y, s)
    keys = float_keys(s)
    idx = np.searchsorted(lo, keys, side="right") - 1
    ok = idx >= 0
    idx[~ok] = 0
    ok &= keys <= hi[idx]
    k, j = keys[ok], idx[ok]
    flat = offset[j] + ((k - lo[j]) // step[j]).astype(np.int64)
    return np.bincount(flat * 2 + y[ok], minlength=2 * total).reshape(total, 2)


# --------------------------------------------------------------------------
# ROC cells (client side)
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# evaluate
# --------------------------------------------------------------------------

def distributed_metric_names() -> list[str]:
    """The registered metrics with a distributed form (``Metric.distributed_form`` not None), sorted."""
    reg = registry()
    return sorted(name for name in reg.names("metric") if reg.get("metric", name).distributed_form() is not None)


def _resolve_metrics(metrics):
    resolved = resolve_metrics(metrics)
    for _, metric in resolved:
        if metric.distributed_form() is None:
            names = ", ".join(distributed_metric_names())
            raise ValueError(
                f"metric {metric.spec!r} is not available on distributed scores (rankcore.dask.evaluate "
                f"computes {names}: metrics that declare a distributed form, see rankcore.Metric); evaluate a "
                f"local copy with rankcore.evaluate(y.compute(), scores.compute(), ...)"
            )
    return resolved


def _tasks(y, s, func, *args):
    import dask

    call = dask.delayed(func, pure=False)
    return [call(i, yc, sc, *args) for i, (yc, sc) in
            enumerate(zip(y.to_delayed().ravel().tolist(), s.to_delayed().ravel().tolist()))]


def _map(client, y, s, func, *args):
    """Per-chunk results, gathered in chunk order."""
    return client.gather(client.compute(_tasks(y, s, func, *args)))


def _reduce(client, y, s, func, *args):
    """Σ of the per-chunk results, added on the workers."""
    return tree_sum(client, _tasks(y, s, func, *args))


def evaluate(y: Any, scores: Any, metrics: str | Metric | Iterable[str | Metric], *, client: Any = None,
             tol: float = 1e-6, bins: int = 1 << 18, max_passes: int = 64, qid: Any = None) -> DistributedEvaluation:
    """Evaluate ranking metrics on distributed scores (see the module docs for the methods).

    Parameters
    ----------
    y : dask array / Series or array-like (n,)
        0/1 labels (1 = relevant), aligned with ``scores`` (re-chunked to it).
    scores : dask array / Series or array-like (n,)
        Finite scores, e.g. ``DaskPushBoost.decision_function(X)``.
    metrics : str, Metric or iterable of them
        ``auc``, ``pauc:α[,scale]``, ``tpauc:β,α[,scale]``, ``ks``, ``prec@k:k``,
        ``rmax``, ``max_height``, or any metric that declares a distributed
        form (a plugin's mergeable summary; see :class:`rankcore.Metric`).
        Others raise ``ValueError``.
    client : distributed.Client, optional
        Default: the current client.
    tol : float, default 1e-6
        Largest accepted width high − low of the guaranteed interval of each
        bounded metric (auc, pauc, tpauc, ks), hence of its error; 0 asks for
        the exact values (cheap on small or coarse data, but on millions of
        continuous scores exactness needs a cell per alternation of the
        labels along the sorted scores).
    bins : int, default 262144
        Sub-bins per refinement pass, shared by the cells that matter (the
        per-chunk counts, 2 × bins integers, are added on the workers).
    max_passes : int, default 64
        Refinement passes at most; if a bound is still wider than ``tol``
        after them a ``RuntimeWarning`` says so.
    qid : dask array / Series or array-like (n,), optional
        Each row's query id (any hashable ids; the rows of a query may be
        spread over chunks, in any order).  Every metric is then computed
        within each query and averaged over the queries, as
        :func:`rankcore.evaluate` with ``qid``; ``y`` holds grades >= 0 for
        the list metrics (``ndcg@k``, ``err@k``, ``map``, ``map@k``, ``mrr``) and any
        scalar metric is accepted.  The (qid, y, score) columns are gathered
        to the client (module docs); the values are exact.

    Returns
    -------
    DistributedEvaluation
        A dict spec -> value (floats; ints for rmax and max_height), with
        ``.bounds`` (guaranteed intervals), ``.exact`` and ``.passes``.

    Raises
    ------
    ValueError
        A metric without a distributed form (without ``qid``), lengths that
        differ, and with ``qid`` every error of :func:`rankcore.evaluate`
        (None or NaN ids, negative grades, k larger than every query, ...).
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol < 0:
        raise ValueError(f"tol: expected a number >= 0, got {tol!r}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins: expected an integer >= 2, got {bins!r}")
    if isinstance(max_passes, bool) or not isinstance(max_passes, (int, np.integer)) or max_passes < 0:
        raise ValueError(f"max_passes: expected an integer >= 0, got {max_passes!r}")
    # checked with qid too (where they go unused): the same call is refused or taken either way
    if qid is not None:
        return _evaluate_queries(y, scores, metrics, qid, get_client(client))
    resolved = _resolve_metrics(metrics)
    client = get_client(client)
    # a cluster without workers would take the tasks and wait for one forever: said now, as the fits say it
    worker_info(client, "evaluating")
    summarized = {metric.spec: metric.spec for _, metric in resolved if metric.distributed_form() == "summary"}
    for spec in summarized:
        check_components_on_workers(client, {"metric": spec})     # plugin metrics' code runs on the workers
    y, scores = _aligned(client, y, scores)
    n = int(scores.shape[0])
    requests = {key: metric.score_thresholds(n) for key, metric in resolved
                if metric.distributed_form() == "thresholds"}
    try:
        return _evaluate(client, y, scores, n, resolved, requests, float(tol), int(bins), int(max_passes))
    finally:
        del y, scores


def _evaluate_queries(y, scores, metrics, qid, client) -> DistributedEvaluation:
    """Metrics within queries: the (qid, y, score) columns gathered in row order, evaluated in memory."""
    from ..metrics import evaluate as evaluate_in_memory

    resolve_metrics(metrics)                      # a bad spec fails before any work on the cluster
    worker_info(client, "evaluating")             # no workers: said now, not a wait for one
    y, scores = _aligned(client, y, scores)
    qid = as_dask_vector(qid, name="qid")
    if any(np.isnan(c) for c in qid.chunks[0]):
        qid = qid.compute_chunk_sizes()
    if qid.shape[0] != scores.shape[0]:
        raise ValueError(f"qid: expected one query id per row ({scores.shape[0]} rows), got {qid.shape[0]}")
    try:
        # the ids chunk by chunk: ids of different types in different chunks are refused (joined_ids), as fit does
        y_local, s_local, *q_chunks = client.gather(client.compute([y, scores, *qid.to_delayed().ravel()]))
    finally:
        del y, scores
    q_local = joined_chunk_ids(q_chunks)
    values = evaluate_in_memory(y_local, s_local, metrics, qid=q_local)
    return DistributedEvaluation(values, {key: (v, v) for key, v in values.items()}, 1)


def _evaluate(client, y, s, n, resolved, requests, tol, bins, max_passes):
    ranks = {int(k) for reqs in requests.values() for what, k in reqs if what == "rank"}
    small = sorted(k for k in ranks if k <= TOPK_MERGE_MAX)
    parts = _map(client, y, s, _basics, small)
    passes = 1
    I = sum(p["n_pos"] for p in parts)
    K = n - I
    for key, metric in resolved:
        if metric.requires_both_classes and (I == 0 or K == 0):
            raise one_class(metric.spec, I, n)         # the in-memory evaluate's refusal, in its words
    keys = (min(p["key_min"] for p in parts if p["key_min"] is not None),
            max(p["key_max"] for p in parts if p["key_max"] is not None))
    values, bounds = {}, {}
    if requests:
        passes += _threshold_values(client, y, s, parts, n, I, K, resolved, requests, keys, values)
    roc = [(key, m) for key, m in resolved if m.distributed_form() == "roc"]
    if roc:
        passes += _roc_values(client, y, s, I, K, roc, keys, tol, bins, max_passes, values, bounds)
    summary = [(key, m) for key, m in resolved if m.distributed_form() == "summary"]
    if summary:
        chunks = {m.spec: _map(client, y, s, _chunk_summary, m.spec) for _, m in summary}
        passes += len(chunks)
        for key, metric in summary:
            values[key] = metric.from_summary(metric.merge_summaries(chunks[metric.spec]))
    for key, value in values.items():
        bounds.setdefault(key, (value, value))
    ordered = {key: values[key] for key, _ in resolved}
    return DistributedEvaluation(ordered, {key: bounds[key] for key, _ in resolved}, passes)


def _threshold_values(client, y, s, parts, n, I, K, resolved, requests, keys, values) -> int:
    """The ``"thresholds"`` metrics: the named thresholds, one counting pass; returns the passes made."""
    passes = 0
    thresholds = {("max_negative", 0): max(p["max_neg"] for p in parts)}
    ranks = sorted({int(k) for reqs in requests.values() for what, k in reqs if what == "rank"})
    for k in (k for k in ranks if k <= TOPK_MERGE_MAX):          # the k-th largest from the chunks' top k
        top = np.concatenate([p["top"][k] for p in parts])
        thresholds[("rank", k)] = float(np.partition(top, top.shape[0] - k)[top.shape[0] - k])
    large = [k for k in ranks if k > TOPK_MERGE_MAX]
    if large:                                                    # beyond: key refinement
        search = RankSearch(np.zeros(len(large), dtype=np.intp), [n - k + 1 for k in large],
                            np.full(len(large), keys[0], dtype=np.uint64),
                            np.full(len(large), keys[1], dtype=np.uint64), bins=_SPLIT)
        while not search.done:
            request = search.request()
            search.update(_reduce(client, y, s, _select_counts, request))
            passes += 1
        thresholds.update(zip((("rank", k) for k in large), search.values().tolist()))
    for reqs in requests.values():
        for what, k in reqs:
            if (what, int(k)) not in thresholds:
                raise ValueError(f"score threshold {(what, k)!r}: expected ('rank', k) or ('max_negative', 0)")
    named = sorted(thresholds)
    table = _reduce(client, y, s, _counts_at, [thresholds[t] for t in named])
    row = {t: r for r, t in enumerate(named)}
    for key, metric in resolved:
        if key in requests:
            counts = table[[row[(what, int(k))] for what, k in requests[key]]]
            values[key] = metric.from_threshold_counts(counts, I, K)
    return passes + 1


def _roc_values(client, y, s, I, K, roc, keys, tol, bins, max_passes, values, bounds) -> int:
    """The ``"roc"`` metrics: refine the cells until every bound is within ``tol``; returns the passes made."""
    cells = RocCells(keys[0], keys[1], I, K)
    refinements = 0
    while True:
        current = {key: m.roc_bounds(cells) for key, m in roc}
        widths = [hi - lo for _, lo, hi in current.values()]
        if max(widths) <= tol or not cells.uncertain.any():
            break
        if refinements >= max_passes:
            worst = max(current, key=lambda k: current[k][2] - current[k][1])
            warnings.warn(
                f"rankcore.dask.evaluate: after {max_passes} refinement passes the bound of {worst!r} is "
                f"{current[worst][2] - current[worst][1]:.3g} wide (tol={tol:g}); raise max_passes or bins, "
                "or accept the interval in .bounds", RuntimeWarning, stacklevel=outside_stacklevel())
            break
        request = cells.request([m for _, m in roc], bins)
        if request is None:
            break
        lo, hi, step, offset, total = request
        cells.update(_reduce(client, y, s, _cell_counts, lo, hi, step, offset, total))
        refinements += 1
    for key, (value, lo, hi) in current.items():
        values[key] = value
        bounds[key] = (lo, hi)
    return refinements
