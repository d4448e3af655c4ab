"""Distributed inputs: the client, and X / y / sample_weight as row-chunked Dask arrays.

Every estimator and :func:`rankcore.dask.evaluate` accept ``dask.array``
and ``dask.dataframe`` collections (and, for convenience, in-memory arrays,
which are split into chunks and sent to the cluster).  They are normalized
here to Dask arrays chunked by rows only, with known chunk sizes, and with
the label and weight vectors chunked exactly as X, so that chunk i of each
describes the same rows.  Work is then expressed per chunk as
``dask.delayed`` calls on the chunks (:meth:`RowChunks.map`): a lazy X
(generated or read on the workers) is never gathered on the client.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._caller import outside_stacklevel
from .._categories import refuse_inexact_ids, wide_integer_columns
from .._frames import as_pandas_frame, refuse_peer_container
from .._numbers import refuse_text_columns
from ..validation import ArgumentRefusal, check_categorical_features
from ._categories import (check_frame_columns, coded_dask_frame, coded_local_frame, fitted_categories_of,
                          refuse_category_columns)
from ._workers import worker_info

#: The largest share of the workers' summed memory limit that a fit's rows may take to be persisted for the
#: passes before boosting (:meth:`RowChunks.persisted_for_setup`); larger data are streamed by each pass.
SETUP_MEMORY_SHARE = 0.4

#: A distributed fit warns of chunks many (more than MANY_CHUNKS) and small (under SMALL_CHUNK_ROWS rows on the
#: mean): every pass before boosting runs one task per chunk, and Dask's cost per task (scheduling, a message each
#: way, about 10-20 ms over a pass) then outweighs the work (600 chunks of 500 rows: 55 s for what 20 chunks fit in
#: seconds).  Merging them inside the fit would renumber the chunks its refusals name; rechunking is the user's.
MANY_CHUNKS = 64
SMALL_CHUNK_ROWS = 8192

__all__ = ["get_client", "RowChunks", "as_row_chunks", "as_dask_matrix", "fitted_dask_matrix", "is_dask_collection",
           "tree_sum", "joined_chunk_ids", "scattered_chunks", "series_array", "small_chunks_advice",
           "warn_small_chunks"]


def get_client(client: Any = None):
    """The given ``distributed.Client``, or the current one (``distributed.default_client()``)."""
    from distributed import Client, default_client

    if client is None:
        try:
            return default_client()
        except ValueError:
            raise ValueError(
                "client: no Dask client is running; start one (distributed.Client(), "
                "distributed.LocalCluster()) or pass client=..."
            ) from None
    if not isinstance(client, Client):
        raise TypeError(f"client: expected a distributed.Client or None (the current client), "
                        f"got {type(client).__name__}")
    if client.status in ("closing", "closed"):
        # else the first call to the scheduler fails deep inside distributed ('NoneType' has no 'broadcast')
        raise ValueError("client: the Dask client is closed; start a new one (distributed.Client(...)) and pass it, "
                         "or pass client=None for the current one")
    return client


def is_dask_collection(value: Any) -> bool:
    from dask import is_dask_collection as _is

    return _is(value)


def _known_chunks(arr, name: str):
    """``arr`` with every chunk size known (dataframe-derived arrays may not know theirs)."""
    if any(np.isnan(c) for dim in arr.chunks for c in dim):
        arr = arr.compute_chunk_sizes()
    return arr


#: Why a Dask input's ``category`` column is refused where no learner splits it by category groups.
_CATEGORIES_REFUSED = ("which only the trees learner splits (by category groups) on Dask; encode it as numbers "
                       "(X[column].cat.codes, or its values: X[column].astype(float)), or fit learner='trees'")


def as_dask_matrix(X: Any, *, name: str = "X", chunk_rows: int | None = None):
    """A 2-D Dask array chunked by rows only, and the column names (or None).

    ``X``: a ``dask.array`` (columns are merged into one chunk), a
    ``dask.dataframe.DataFrame`` (its partitions become the row chunks), or
    an in-memory array / DataFrame (split into chunks of ``chunk_rows``
    rows, default: about 4 chunks).  A DataFrame's ``category`` columns are
    refused by name (:func:`as_row_chunks` encodes them for the trees).
    """
    arr, names, _ = _dask_matrix(X, name, chunk_rows, categories=False)
    return arr, names


def _dask_matrix(X: Any, name: str, chunk_rows: int | None, *, categories: bool, categorical_features: Any = None):
    """:func:`as_dask_matrix`, and the categories: with ``categories``, a DataFrame's ``category`` columns become
    float64 codes by value (``rankcore.dask._categories``) and the third item lists per column its categories or
    None (None for an array); without, such columns are refused by name and the third item is None.
    ``categorical_features`` (the estimator's): its 64-bit integer columns are checked for ids float64 would merge
    (``rankcore._categories.refuse_inexact_ids``), in the pass that finds the partitions' lengths."""
    import dask.array as da
    import dask.dataframe as dd

    names = found = None
    refuse_peer_container(X, name)     # NumPy would read a DMatrix as one object ("expected a 2-D array, got shape ()")
    X = as_pandas_frame(X, name)      # an in-memory Polars or Arrow table: its names, categories and kinds kept
    if not categories:
        refuse_category_columns(X, name, _CATEGORIES_REFUSED)
    if isinstance(X, dd.DataFrame):
        check_frame_columns(X, name)
        names = [str(c) for c in X.columns] if all(isinstance(c, str) for c in X.columns) else None
        exact = wide_integer_columns(list(X._meta.dtypes), _given_columns(categorical_features, len(X.columns), names))
        if exact:
            X = X.map_partitions(_checked_ids, exact, name, meta=X._meta)
        if categories:
            X, found = coded_dask_frame(X, None, name=name)
        arr = X.to_dask_array(lengths=True)
    elif isinstance(X, dd.Series):
        raise ValueError(f"{name}: expected a 2-D collection (rows × features), got a dask Series")
    elif isinstance(X, da.Array):
        arr = X
        exact = [] if X.ndim != 2 else wide_integer_columns([X.dtype] * X.shape[1],
                                                            _given_columns(categorical_features, X.shape[1], None))
        if exact:
            arr = X.rechunk({1: -1}).map_blocks(_checked_ids, exact, name, dtype=X.dtype)
    elif is_dask_collection(X):
        raise TypeError(f"{name}: expected a dask.array or dask.dataframe collection, got {type(X).__name__}")
    else:
        if hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
            names = [str(c) for c in X.columns]
        if hasattr(X, "toarray"):
            raise TypeError(f"{name}: sparse matrices are not supported; pass a dense array")
        if categories:
            X, found = coded_local_frame(X, name=name)
        refuse_text_columns(X, name)      # by name here: NumPy would read dates as Timestamp objects, refused per chunk
        local = np.asarray(X)
        if local.ndim != 2:
            raise ValueError(f"{name}: expected a 2-D array, got shape {local.shape}")
        refuse_inexact_ids(X, _given_columns(categorical_features, local.shape[1], names), name=name)
        rows = chunk_rows or max(1, -(-local.shape[0] // 4))
        arr = da.from_array(local, chunks=(rows, -1))
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (rows × features), got {arr.ndim} dimension(s)")
    if len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})
    arr = _known_chunks(arr, name)
    if arr.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one row, got an empty array")
    if arr.shape[1] == 0:
        raise ValueError(f"{name}: expected at least one feature, got 0 columns")
    return arr, names, found


def _given_columns(categorical_features: Any, n_features: int, names: Any) -> tuple[int, ...]:
    """The columns ``categorical_features`` names (checked as the fit checks them), none for None."""
    return () if categorical_features is None else check_categorical_features(categorical_features, n_features, names)


def _checked_ids(chunk: Any, columns: list[int], name: str) -> Any:
    """A partition or block, its ``columns`` checked for ids float64 would merge (:func:`refuse_inexact_ids`)."""
    refuse_inexact_ids(chunk, columns, name=name)
    return chunk


def fitted_dask_matrix(estimator, X, *, lengths: bool = False):
    """X to predict on with a fitted estimator: a 2-D Dask array with its features, one column chunk.

    A dask.dataframe's columns must be the features seen in fit (when fit
    saw names); the number of columns must be ``n_features_in_``.  Its
    ``category`` columns are encoded by the fit's categories (``categories_``),
    by value, partition by partition (``rankcore.dask._categories``); a
    column whose categories match none of the fit's is warned about here (for
    a column of unknown categories, after one small reduction of the
    categories its partitions list).
    ``lengths``: a dask.dataframe's partition lengths are computed (one pass
    over its partitions), for callers that align other vectors with the rows
    or bound the chunks; else they may be unknown (NaN).
    """
    import dask.array as da
    import dask.dataframe as dd

    if not isinstance(X, (dd.DataFrame, da.Array)):
        raise TypeError(f"X: expected a dask.array or dask.dataframe collection, got {type(X).__name__}")
    fitted = getattr(estimator, "categories_", None)
    names = getattr(estimator, "feature_names_in_", None)
    fitted_categories_of(X, fitted, feature_names=names)
    if isinstance(X, dd.DataFrame):
        check_frame_columns(X)
        if names is not None and [str(c) for c in X.columns] != [str(c) for c in names]:
            raise ValueError(f"X: the columns {list(X.columns)!r} differ from the features seen in fit "
                             f"{list(names)!r}")
        if fitted is not None and len(fitted) == len(X.columns):
            # by value: the fit's categories give the codes (a warning, if any, is raised here, in the caller)
            X, _ = coded_dask_frame(X, fitted, client=getattr(estimator, "client", None))
        X = X.to_dask_array(lengths=True if lengths else None)
    if X.ndim != 2:
        raise ValueError(f"X: expected a 2-D array, got {X.ndim} dimension(s)")
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X: expected {estimator.n_features_in_} features (as in fit), got {X.shape[1]}")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return X


def series_array(v: Any):
    """A Dask Series as a 1-D Dask array of known chunks: a pandas extension dtype (text read from a CSV or
    Parquet file, nullable integers, categories) as objects, by value.

    Dask makes the same objects of such a column, but warns the caller that it does (a ``UserWarning`` at
    every fit, score and evaluation with query ids read as text): asked for explicitly here, it does not.
    """
    from pandas.api.types import is_extension_array_dtype

    if is_extension_array_dtype(v.dtype):
        v = v.astype(object)
    return v.to_dask_array(lengths=True)


def _as_dask_vector(v: Any, chunks: tuple[int, ...], *, name: str):
    """A 1-D Dask array with the given row chunks."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(v, dd.DataFrame):
        if len(v.columns) != 1:
            raise ValueError(f"{name}: expected a 1-D collection, got a DataFrame with {len(v.columns)} columns")
        v = v[v.columns[0]]
    if isinstance(v, dd.Series):
        arr = series_array(v)
    elif isinstance(v, da.Array):
        arr = v
    elif is_dask_collection(v):
        raise TypeError(f"{name}: expected a dask.array or dask.dataframe collection, got {type(v).__name__}")
    else:
        local = np.asarray(v)
        arr = da.from_array(local, chunks=(chunks,) if local.ndim == 1 and local.shape[0] == sum(chunks) else -1)
    if arr.ndim == 2 and arr.shape[1] == 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array, got a column of shape {arr.shape}; use .ravel()")
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array, got shape {arr.shape}")
    arr = _known_chunks(arr, name)
    n = sum(chunks)
    if arr.shape[0] != n:
        raise ArgumentRefusal.said(name, f"expected {n} entries (one per row of X), got {arr.shape[0]}"
                                         f"{_qid_sizes_hint(arr, n) if name == 'qid' else ''}")
    if arr.chunks[0] != tuple(chunks):
        arr = arr.rechunk((tuple(chunks),))
    return arr


def _qid_sizes_hint(qid, n: int) -> str:
    """The in-memory fit's hint for a Dask ``qid`` of fewer entries than the ``n`` rows that reads as LightGBM's
    sizes of consecutive queries, else "".

    Only a ``qid`` of at most half the rows is computed for it (sizes of queries of two rows or more on the mean):
    a qid one row short, as long as the data, is not read back to the client for a hint.
    """
    from ..metrics import sizes_hint

    if 2 * qid.shape[0] > n:
        return ""
    return sizes_hint(np.asarray(qid.compute()), n)


def gather_in_chunk_order(client, tasks: list) -> list:
    """The results of one delayed task per chunk; if some fail, the error of the first failing chunk in order.

    ``client.gather`` raises whichever failed task it meets first, which varies from run to run; a survey that
    names the chunk and row of a bad value should name the same one every time (the first, as in memory).
    """
    from distributed import wait

    futures = client.compute(tasks)
    wait(futures)
    for future in futures:
        if future.status == "error":
            raise future.exception()
    return client.gather(futures)


def _add(a, b):
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b))
    if isinstance(a, list):
        return [_add(x, y) for x, y in zip(a, b)]
    return a + b


def tree_sum(client, parts: list):
    """Σ of per-chunk delayed results (arrays, numbers, or tuples/lists of them), added on the workers.

    Pairs are added level by level where the data is, so the client receives
    one result instead of one per chunk.
    """
    import dask

    add = dask.delayed(_add, pure=False)
    while len(parts) > 1:
        parts = [add(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k] for k in range(0, len(parts), 2)]
    return client.compute(parts[0]).result()


@dataclass
class RowChunks:
    """X (and y, sample_weight) as aligned row chunks.

    Attributes
    ----------
    X : dask.array.Array (n, d), one chunk along the columns
    y, weight : dask.array.Array (n,) with X's row chunks, or None
    feature_names : list of str or None
    qid : dask.array.Array of int64 (n,) with X's row chunks, or None
        Each row's query code, when the rows are placed for a fit within
        queries (every query whole in one chunk: ``rankcore.dask._queries``).
    position : dask.array.Array of int64 (n,) with X's row chunks, or None
        Each row's display position as an index into the fit's distinct
        positions (``rankcore.dask._positions``), moved with its row.
    init : dask.array.Array of float64 (n,) with X's row chunks, or None
        Each row's initial score (``fit(..., init_score=...)``), moved with its
        row (``rankcore.dask._init_scores``).
    categories : list or None
        Per column of a DataFrame X, the categories of a ``category`` column
        (X holds their positions, float64) or None; None for an array (read
        once, by the fit, before the rows move).
    """

    X: Any
    y: Any = None
    weight: Any = None
    feature_names: list | None = None
    from_memory: tuple = (False, False, False)
    qid: Any = None
    position: Any = None
    init: Any = None
    categories: list | None = None

    def persist_if_local(self, client) -> "RowChunks":
        """Send the inputs given in memory to the workers once, chunk by chunk (:func:`scattered_chunks`).

        Their graphs embed the data, so every pass would send it again;
        persisting those graphs would keep a copy of every chunk in the
        scheduler (each task's definition) for as long as the chunks live.
        Dask collections given by the user are left lazy (never persisted here).
        """
        arrays = [self.X, self.y, self.weight]
        chosen = [k for k, (a, local) in enumerate(zip(arrays, self.from_memory)) if a is not None and local]
        if not chosen:
            return self
        for k in chosen:
            arrays[k] = scattered_chunks(client, arrays[k])
        return RowChunks(*arrays, self.feature_names, from_memory=(False, False, False), init=self.init,
                         categories=self.categories)

    def persisted_for_setup(self, client, *, share: float | None = None) -> "RowChunks":
        """The rows computed once into the workers' memory, for the passes before boosting.

        A fit reads the chunks several times before its first iteration (the
        validating summary, the bin-edge sample, the encoding); a lazy
        collection (generated or read on the workers) would be computed again
        by each pass.  Persisted, each chunk is computed once and the later
        passes read worker memory.  The caller drops the returned collection
        once the shards hold their blocks, which releases that memory: the
        boosting iterations never read X again.

        The rows stay lazy (``self`` is returned) when X, y and the weights
        take more than ``share`` (default :data:`SETUP_MEMORY_SHARE`) of the
        workers' summed memory limit (workers without a limit count as
        unlimited): such data are streamed by each pass, as before.
        """
        share = SETUP_MEMORY_SHARE if share is None else float(share)
        given = (self.X, self.y, self.weight, self.qid, self.position, self.init)
        arrays = [a for a in given if a is not None]
        nbytes = sum(int(a.nbytes) for a in arrays)
        limits = [int(info.get("memory_limit") or 0) for info in worker_info(client).values()]
        if limits and all(limits) and nbytes > share * sum(limits):
            return self
        persisted = client.persist(arrays)        # one graph: chunks shared by X and y are computed once
        it = iter(persisted)
        X, y, weight, qid, position, init = (next(it) if a is not None else None for a in given)
        return RowChunks(X, y, weight, self.feature_names, from_memory=(False, False, False), qid=qid,
                         position=position, init=init)

    @property
    def chunk_rows(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self.X.chunks[0])

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_chunks(self) -> int:
        return len(self.X.chunks[0])

    def take(self, rows: np.ndarray) -> "RowChunks":
        """These rows (ascending positions) of X, y, the weights and the initial scores, each chunk keeping its own
        rows (lazily)."""
        def pick(arr):
            return None if arr is None else arr[rows]

        return RowChunks(pick(self.X), pick(self.y), pick(self.weight), self.feature_names, init=pick(self.init))

    def delayed_chunks(self):
        """Per chunk i: (X_i, y_i, w_i) as delayed objects (y_i, w_i None when absent)."""
        xs = self.X.to_delayed().ravel().tolist()
        ys = self.y.to_delayed().ravel().tolist() if self.y is not None else [None] * len(xs)
        ws = self.weight.to_delayed().ravel().tolist() if self.weight is not None else [None] * len(xs)
        return list(zip(xs, ys, ws))

    def map(self, client, func: Callable, *args: Any, gather: bool = True, **kwargs: Any):
        """``func(i, X_i, y_i, w_i, *args, **kwargs)`` for every chunk i, on the workers.

        Returns the list of results in chunk order (``gather=True``) or of
        futures.  Arguments should be small: they are embedded in every task.
        """
        futures = client.compute(self._tasks(func, args, kwargs))
        return client.gather(futures) if gather else futures

    def reduce(self, client, func: Callable, *args: Any, **kwargs: Any):
        """Σ over chunks of ``func(i, X_i, y_i, w_i, *args, **kwargs)``, added on the workers (:func:`tree_sum`)."""
        return tree_sum(client, self._tasks(func, args, kwargs))

    def _tasks(self, func, args, kwargs):
        import dask

        call = dask.delayed(func, pure=False)
        return [call(i, x, y, w, *args, **kwargs) for i, (x, y, w) in enumerate(self.delayed_chunks())]


def scattered_chunks(client, arr):
    """``arr`` (a Dask array over an in-memory array), its chunks sent to the workers' memory as data.

    The same chunks (empty ones too, which ``da.concatenate`` would drop), each
    a scattered future: the data travels to the workers once and never sits in
    a task's definition on the scheduler (there, a persisted ``da.from_array``
    chunk would stay for as long as the chunk lives, and Dask warns of a large
    graph).  The chunks are slices of the in-memory array, cut in this process.
    """
    import dask
    import dask.array as da
    from dask.array.core import Array
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    delayed = arr.to_delayed().ravel().tolist()
    blocks = dask.compute(*delayed, scheduler="sync")
    futures = client.scatter(list(blocks))
    parts = [da.from_delayed(f, shape=b.shape, dtype=b.dtype) for f, b in zip(futures, blocks)]
    name = "rankcore-scattered-" + tokenize(*(f.key for f in futures))
    origin = (0,) * (arr.ndim - 1)
    graph = {(name, i) + origin: (part.name, 0) + origin for i, part in enumerate(parts)}
    return Array(HighLevelGraph.from_collections(name, graph, dependencies=parts), name, arr.chunks, dtype=arr.dtype)


def as_row_chunks(X: Any, y: Any = None, sample_weight: Any = None, *, chunk_rows: int | None = None,
                  categories: bool = False, categorical_features: Any = None) -> RowChunks:
    """Normalize (X, y, sample_weight) to aligned row-chunked Dask arrays (see the module docs).

    ``categories``: a DataFrame's ``category`` columns become float64 codes by value, their categories kept in
    ``RowChunks.categories`` (for a learner that splits them by category groups); else they are refused by name.
    ``categorical_features``: the estimator's, whose 64-bit integer columns must hold ids float64 keeps apart.
    """
    arr, names, found = _dask_matrix(X, "X", chunk_rows, categories=categories,
                                     categorical_features=categorical_features)
    chunks = tuple(int(c) for c in arr.chunks[0])
    y_arr = None if y is None else _as_dask_vector(y, chunks, name="y")
    w_arr = None if sample_weight is None else _as_dask_vector(sample_weight, chunks, name="sample_weight")
    local = tuple(v is not None and not is_dask_collection(v) for v in (X, y, sample_weight))
    return RowChunks(arr, y_arr, w_arr, names, from_memory=local, categories=found)


def joined_chunk_ids(parts, name: str = "qid") -> np.ndarray:
    """The query ids of a Dask column's chunks (``parts``, computed, in order) concatenated by
    :func:`rankcore.metrics.joined_ids`: ids of different types in different chunks (5 and "5") refused, as the
    in-memory fit refuses them in one array (NumPy's join would make them one type, one query); a refused id is
    said by its row in its chunk."""
    from ..metrics import joined_ids

    return joined_ids(list(parts), name, where=lambda k, i: f"at row {i} of chunk {k}")


def small_chunks_advice(data: RowChunks) -> str | None:
    """Why and how to rechunk rows in many small chunks (see :data:`MANY_CHUNKS`), or None when they are not."""
    n_chunks = data.n_chunks
    if n_chunks <= MANY_CHUNKS or data.n_rows >= SMALL_CHUNK_ROWS * n_chunks:
        return None
    return (f"X: {n_chunks} chunks of {data.n_rows // n_chunks} rows on average; every pass of the distributed fit "
            "runs one task per chunk, and for chunks this small the tasks' overhead outweighs their work (the fit "
            f"can be many times slower). Rechunk X to fewer, larger chunks first (at least {SMALL_CHUNK_ROWS} rows "
            "each): X.rechunk({0: 65536}) for a dask array, X.repartition(partition_size='100MB') for a dask "
            "DataFrame; y, sample_weight and qid follow X's chunks")



def warn_small_chunks(data: RowChunks) -> None:
    """Warn with :func:`small_chunks_advice` when the rows come in many small chunks."""
    advice = small_chunks_advice(data)
    if advice is not None:
        warnings.warn(advice, UserWarning, stacklevel=outside_stacklevel())
