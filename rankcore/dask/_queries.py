"""Rows of a Dask fit within queries: every query whole inside one chunk, the queries in the in-memory order.

A per-query objective over blocks (:mod:`rankcore.objectives._query_blocks`)
needs each query's rows in one block; users' chunks hold queries in any
order, split across chunks.  Two passes put them in place, with Dask itself
(the rows never go to the client):

1. **Survey** (:func:`survey_queries`): one task per chunk checks its query
   ids and grades and returns its distinct ids with their row counts and
   lowest and highest grades -- O(queries in the chunk).  The client merges
   them into the global query order of :func:`rankcore.metrics.check_qid`
   (the sorted ids: the order the in-memory fit puts the rows in), the
   sizes, and the number of queries with a single grade.
2. **Placement** (:func:`place_queries`): the queries, in that order, are cut
   into runs of whole queries of about n / R rows each (R the number of
   chunks given, at most ``MIN_RUNS`` -- or the workers, rounded up to a
   multiple of them -- when they would hold under ``MIN_RUN_ROWS`` rows each:
   :func:`run_count`; each run is within one query of the mean).  One task per
   input chunk checks X and the weights (so that a refusal names the chunk
   and row the user gave, not where the row was moved) and splits its rows
   by run; one task per run concatenates its
   pieces in chunk order and sorts them by query (stable: each query keeps
   its rows in their given order).  The runs are persisted as the training
   chunks.

The result is the in-memory fit's row order: rows sorted by query, each
query's rows in their given order.  So the bin edges (whose sample is drawn
by row position), the trees' row sampling and every sum of the objective
see the rows as the in-memory fit does, and the model is the same.

Cost: a survey pass (reads the ids and grades), then every row crosses the
network at most once.  Time O(n log m) over the workers (m rows a chunk:
one ``check_qid`` and one stable sort per chunk); memory per worker about
three times its share of the data while the runs form (input chunk, its
pieces, the assembled run), then one copy (the persisted runs); the
client holds O(queries) (O(n) integers when early stopping plans its
hold-out of whole queries from the query sizes, as the in-memory rule does).
A reduction across chunks instead (each chunk's partial sums per query,
merged every evaluation) would send O(queries) numbers per round trip for
the whole fit; the placement pays once.  When the rows already come in
query order with no query split between chunks, nothing moves: only the
codes are computed where the chunks are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import Queries, check_qid, check_queries, joined_ids
from ..validation import ArgumentRefusal, said_again
from ._inputs import RowChunks, _as_dask_vector, gather_in_chunk_order, is_dask_collection
from ._prepare import check_chunk
from ._workers import worker_info

__all__ = ["QuerySurvey", "query_vector", "survey_queries", "place_queries", "run_count", "MIN_RUN_ROWS", "MIN_RUNS"]

#: Rows a placed run is cut to at the least, once the runs number more than MIN_RUNS.  Every input chunk sends one
#: piece to every run, so K chunks into R runs make K x R tasks and transfers: with R = K, many small chunks (600 of
#: 500 rows) made the placement quadratic and slower than the fit itself.  Runs of at least this many rows (a few MB
#: of X at 20 features) keep R <= max(MIN_RUNS, n / MIN_RUN_ROWS) rounded up to a multiple of the workers, a
#: function of the row, chunk and worker counts only.
MIN_RUN_ROWS = 1 << 16
#: Runs allowed whatever their size (never more than the chunks given).
MIN_RUNS = 8


def query_vector(qid: Any, group: Any, data: RowChunks):
    """Each row's query id as a Dask vector with the chunks of ``data`` (``group`` sizes become ids 0, 1, ...).

    Raises
    ------
    ValueError
        Both ``qid`` and ``group``; a ``qid`` whose length is not the rows'
        (``qid`` chunked differently is re-chunked); bad group sizes.
    """
    if group is not None:
        sizes = np.asarray(group.compute() if is_dask_collection(group) else group)
        qid = check_queries(qid, sizes, data.n_rows).codes      # also refuses qid and group together
    elif not is_dask_collection(qid):
        # ids on the client are checked here; their codes sort as the ids do
        qid = check_qid(qid, data.n_rows).codes
    return _as_dask_vector(qid, data.chunk_rows, name="qid")


def _chunk_survey(i: int, offset: int, y, qid, max_grade: float, spec: str, whole: bool = False,
                  reason: str = "weighs rows by the gain 2^grade", w=None):
    """(ids, rows per id, lowest and highest grade per id, whether the ids come sorted, lowest and highest grade
    per id among the rows of positive weight ``w``: ±inf where none) of chunk i, checked.

    Grades above ``max_grade`` (or not ``whole`` numbers, for an objective with a gain table) are refused with the
    objective's ``reason``, as the in-memory fit refuses them.
    """
    from ..push import check_grades

    where = f" (chunk {i}, whose first row is row {offset} of X)"
    qid = np.asarray(qid)
    try:
        queries = check_qid(qid, qid.shape[0], name="qid")
        grades = check_grades(np.asarray(y), qid.shape[0], name="y")
    except ValueError as exc:
        raise said_again(exc, f"{exc}{where}", plain=ValueError) from None     # a refusal keeps class and fields
    top = np.flatnonzero((grades > max_grade) | (whole & (grades != np.floor(grades))))
    if top.size:
        raise ArgumentRefusal.said("y", f"the objective {spec!r} {reason}, so grades must be "
                                   f"{'whole numbers ' if whole else ''}<= {max_grade:g}, got "
                                   f"{float(grades[top[0]])!r} at row {int(top[0])}{where}")
    low = np.full(queries.n_queries, np.inf)
    high = np.full(queries.n_queries, -np.inf)
    np.minimum.at(low, queries.codes, grades)
    np.maximum.at(high, queries.codes, grades)
    in_order = bool(np.all(np.diff(queries.codes) >= 0))
    kept_low, kept_high = low, high
    if w is not None:           # the weights are checked with X when the rows move: NaN or < 0 count as no weight
        kept = np.asarray(w, dtype=np.float64) > 0
        kept_low, kept_high = np.full(queries.n_queries, np.inf), np.full(queries.n_queries, -np.inf)
        np.minimum.at(kept_low, queries.codes[kept], grades[kept])
        np.maximum.at(kept_high, queries.codes[kept], grades[kept])
    return queries.labels, queries.sizes, low, high, in_order, kept_low, kept_high


@dataclass(frozen=True)
class QuerySurvey:
    """The queries of distributed rows, in the global (sorted id) order.

    Attributes
    ----------
    labels : ndarray
        The distinct query ids, sorted as :func:`rankcore.metrics.check_qid` sorts them.
    sizes : ndarray of int64
        Rows per query.
    chunk_codes : list of ndarray of int64
        Per chunk: the global code of each of its distinct ids (in its sorted order).
    n_single_grade : int
        Queries whose rows share one grade.
    in_order : bool
        The rows come sorted by query with no query split between chunks.
    qid : dask.array.Array
        The rows' ids, chunked as the data.
    n_without_pairs : int, optional
        Queries with no pair among their rows of positive weight (a query whose rows all weigh 0 -- a dropped
        query -- included), as the in-memory fit counts ``n_queries_without_pairs_``; without weights (None)
        ``n_single_grade``.
    """

    labels: np.ndarray
    sizes: np.ndarray
    chunk_codes: list
    n_single_grade: int
    in_order: bool
    qid: Any
    n_without_pairs: int | None = None

    @property
    def n_queries(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def n_queries_without_pairs(self) -> int:
        return self.n_single_grade if self.n_without_pairs is None else int(self.n_without_pairs)

    def queries(self) -> Queries:
        """The queries of the rows in query order (O(n) integers on the client)."""
        codes = np.repeat(np.arange(self.n_queries, dtype=np.int64), self.sizes)
        return Queries(self.labels, codes, self.sizes)


def survey_queries(client, data: RowChunks, qid, objective) -> QuerySurvey:
    """One pass over the ids and grades (see the module docs); errors name the argument, chunk and row."""
    import dask

    offsets = np.r_[0, np.cumsum(data.chunk_rows)].astype(np.int64)
    call = dask.delayed(_chunk_survey, pure=False)
    limits = (bool(getattr(objective, "whole_grades", False)),
              getattr(objective, "max_grade_reason", "weighs rows by the gain 2^grade"))
    ws = data.weight.to_delayed().ravel() if data.weight is not None else [None] * data.n_chunks
    tasks = [call(i, int(offsets[i]), y, q, float(objective.max_grade), objective.named_spec, *limits, w)
             for i, (y, q, w) in enumerate(zip(data.y.to_delayed().ravel(), qid.to_delayed().ravel(), ws))]
    parts = gather_in_chunk_order(client, tasks)
    # ids of different types in different chunks (5 in one, "5" in another) are refused, as in one array in memory:
    # NumPy's concatenation would make them one type, and so one query
    merged = check_qid(joined_ids([p[0] for p in parts], "qid", where=lambda k, _: f"in chunk {k}"),
                       sum(p[0].shape[0] for p in parts), name="qid")
    cuts = np.cumsum([p[0].shape[0] for p in parts])[:-1]
    chunk_codes = np.split(merged.codes, cuts)
    n_queries = merged.n_queries
    sizes = np.zeros(n_queries, dtype=np.int64)
    low = np.full(n_queries, np.inf)
    high = np.full(n_queries, -np.inf)
    kept_low, kept_high = np.full(n_queries, np.inf), np.full(n_queries, -np.inf)
    for codes, (_, counts, lo, hi, _, kept_lo, kept_hi) in zip(chunk_codes, parts):
        np.add.at(sizes, codes, counts)
        np.minimum.at(low, codes, lo)
        np.maximum.at(high, codes, hi)
        np.minimum.at(kept_low, codes, kept_lo)
        np.maximum.at(kept_high, codes, kept_hi)
    firsts = [c[0] for c in chunk_codes if c.shape[0]]
    lasts = [c[-1] for c in chunk_codes if c.shape[0]]
    in_order = all(p[4] for p in parts) and all(a < b for a, b in zip(lasts[:-1], firsts[1:]))
    # a query none of whose rows weighs more than 0 keeps low = inf (a dropped query): no pair, as one grade
    without_pairs = None if data.weight is None else int(np.count_nonzero((kept_low == kept_high)
                                                                          | (kept_low == np.inf)))
    return QuerySurvey(merged.labels, sizes, chunk_codes, int(np.count_nonzero(low == high)), in_order, qid,
                       without_pairs)


def _runs(sizes: np.ndarray, n_runs: int) -> np.ndarray:
    """The run of each query: consecutive queries, about sum(sizes) / n_runs rows a run, none empty."""
    n_runs = max(1, min(int(n_runs), sizes.shape[0]))
    ends = np.cumsum(sizes)
    targets = ends[-1] * np.arange(1, n_runs) / n_runs
    cuts = np.unique(np.searchsorted(ends, targets, side="left") + 1)
    cuts = cuts[(cuts > 0) & (cuts < sizes.shape[0])]
    run = np.zeros(sizes.shape[0], dtype=np.int64)
    run[cuts] = 1
    return np.cumsum(run)


def run_count(n_rows: int, n_chunks: int, n_workers: int = 1) -> int:
    """How many runs the placement cuts the queries into: as many as the chunks given, but beyond
    :data:`MIN_RUNS` none below :data:`MIN_RUN_ROWS` rows (the placement's tasks grow with chunks times runs).

    Each placed run is a block of the boosting passes, and the blocks are shared out among the workers in
    contiguous shares (:func:`rankcore.dask._shard.contiguous_shares`): fewer runs than ``n_workers`` would leave
    workers without rows for the whole fit, and a count that is not a multiple of the workers would give some
    one run more than others.  So the count is rounded up to a multiple of ``n_workers`` (never past the chunks).
    """
    wanted = max(MIN_RUNS, -(-int(n_rows) // MIN_RUN_ROWS))
    workers = max(1, int(n_workers))
    return max(1, min(int(n_chunks), -(-wanted // workers) * workers))


def _global_codes(qid, chunk_codes):
    """The global query code of each row of a chunk (its ids checked again where the chunk is)."""
    qid = np.asarray(qid)
    return chunk_codes[check_qid(qid, qid.shape[0], name="qid").codes]


def _split(i, X, y, w, qid, chunk_codes, destination, n_runs: int, position=None, init=None):
    """Chunk i's rows cut by destination run: a list of (X, y, w, codes, positions, initial scores), one per run.

    ``position``: the rows' display position codes, ``init``: their initial scores (None without), which move
    with their rows.

    ``chunk_codes`` and ``destination``: the global code and the run of each
    of the chunk's distinct ids, in its sorted order.

    X and the weights are checked here, as the fit checks every chunk, so that a refusal (NaN, a negative
    weight) names the user's chunk and row: once moved, the rows sit at other places in other chunks.
    """
    check_chunk(i, X, None, w, task=None)          # refuses only; the rows move as given
    qid = np.asarray(qid)
    local = check_qid(qid, qid.shape[0], name="qid").codes
    codes, run = chunk_codes[local], destination[local]
    order = np.argsort(run, kind="stable")
    bounds = np.searchsorted(run[order], np.arange(n_runs + 1))
    X, y = np.asarray(X), np.asarray(y)
    pieces = []
    for r in range(n_runs):
        rows = order[bounds[r]:bounds[r + 1]]
        pieces.append((X[rows], y[rows], None if w is None else np.asarray(w)[rows], codes[rows],
                       None if position is None else np.asarray(position)[rows],
                       None if init is None else np.asarray(init)[rows]))
    return pieces


def _assemble(*pieces):
    """A run from its pieces in chunk order, its rows sorted by query (stable)."""
    codes = np.concatenate([p[3] for p in pieces])
    order = np.argsort(codes, kind="stable")
    columns = [None if pieces[0][k] is None else np.concatenate([p[k] for p in pieces])[order] for k in range(6)]
    return tuple(columns)


def _codes_only(client, data: RowChunks, survey: QuerySurvey) -> RowChunks:
    """The rows as given (already in query order, whole queries per chunk), with their global codes."""
    import dask
    import dask.array as da

    call = dask.delayed(_global_codes, pure=True)
    parts = [da.from_delayed(call(q, codes), shape=(rows,), dtype=np.int64)
             for q, codes, rows in zip(survey.qid.to_delayed().ravel(), survey.chunk_codes, data.chunk_rows)
             if rows > 0]
    codes = client.persist(da.concatenate(parts))
    X, y, weight, position, init = data.X, data.y, data.weight, data.position, data.init
    if min(data.chunk_rows) == 0:
        # concatenate leaves the empty chunks out of the codes: the rows leave them too, so that every block of rows
        # meets its own queries' codes (zipped chunk by chunk)
        rows = tuple(int(r) for r in data.chunk_rows if r > 0)
        X = X.rechunk({0: rows})
        y = y.rechunk((rows,))
        weight = None if weight is None else weight.rechunk((rows,))
        position = None if position is None else position.rechunk((rows,))
        init = None if init is None else init.rechunk((rows,))
    return RowChunks(X, y, weight, data.feature_names, qid=codes, position=position, init=init)


def place_queries(client, data: RowChunks, survey: QuerySurvey) -> RowChunks:
    """The training rows with every query whole in one chunk, and their query codes."""
    import dask
    import dask.array as da

    if survey.in_order:
        return _codes_only(client, data, survey)
    # the workers that will host the shards (start_shards counts those with threads)
    n_workers = sum(1 for info in worker_info(client).values() if info.get("nthreads", 1) > 0)
    destination = _runs(survey.sizes, run_count(data.n_rows, data.n_chunks, n_workers))
    n_runs = int(destination.max()) + 1
    split = dask.delayed(_split, pure=False, nout=n_runs)
    assemble = dask.delayed(_assemble, pure=False, nout=6)
    ws = data.weight.to_delayed().ravel() if data.weight is not None else [None] * data.n_chunks
    ps = data.position.to_delayed().ravel() if data.position is not None else [None] * data.n_chunks
    inits = data.init.to_delayed().ravel() if data.init is not None else [None] * data.n_chunks
    chunks = zip(data.X.to_delayed().ravel(), data.y.to_delayed().ravel(), ws, survey.qid.to_delayed().ravel(),
                 survey.chunk_codes, ps, inits)
    pieces = [split(i, x, y, w, q, codes, destination[codes], n_runs, p, s)
              for i, (x, y, w, q, codes, p, s) in enumerate(chunks)]
    rows = np.bincount(destination, weights=survey.sizes, minlength=n_runs).astype(np.int64)
    # a chunk contributes to a run only when it holds one of the run's queries
    holds = [np.unique(destination[codes]) for codes in survey.chunk_codes]
    runs = [assemble(*[p[r] for p, have in zip(pieces, holds) if r in have]) for r in range(n_runs)]
    columns = [(0, (data.n_features,), data.X.dtype), (1, (), data.y.dtype), (3, (), np.int64)]
    if data.weight is not None:
        columns.insert(2, (2, (), data.weight.dtype))
    if data.position is not None:
        columns.append((4, (), np.int64))
    if data.init is not None:
        columns.append((5, (), np.float64))
    arrays = [da.concatenate([da.from_delayed(run[field], shape=(rows[r],) + tail, dtype=dtype)
                              for r, run in enumerate(runs)])
              for field, tail, dtype in columns]
    arrays = list(client.persist(arrays))
    init = arrays.pop() if data.init is not None else None
    position = arrays.pop() if data.position is not None else None
    X, y, codes = arrays[0], arrays[1], arrays[-1]
    w = arrays[2] if data.weight is not None else None
    return RowChunks(X, y, w, data.feature_names, qid=codes, position=position, init=init)
