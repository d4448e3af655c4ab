"""The ``trees`` learner's bins, from dense arrays or ``scipy.sparse`` matrices alike.

:func:`tree_edges` places each feature's bin edges by the ``stumps`` rule
(:func:`rankcore.learners.bin_edges`) on the non-missing values of a sample
of rows; a sparse matrix gives the same edges as its dense form (its
implicit zeros are values like any other).  :func:`tree_bundles` finds the
exclusive bundles (``_bundles.py``) on every training row.
"""

from __future__ import annotations

import numpy as np

from ..._taken_rows import TakenRows
from ...spec import read_int
from .._binning import _feature_edges, _midpoints, sample_rows, unweighted_edges
from .._edge_kernels import edge_pairs
from ._columns import few_distinct, outside_counts, outside_rows
from ._bundles import (MAX_BUNDLE_CODES, MIN_DEFAULT_FRACTION, MIN_JOIN_FRACTION, default_bins, default_interval,
                            exclusive_bundles, nondefault_rows)

__all__ = ["tree_edges", "tree_bundles", "tree_columns", "splittable_columns", "unsplittable_columns",
           "column_counts", "take_columns", "is_sparse",
           "csr_float", "column_indices", "categorical_columns", "category_edges",
           "edges_of_categories", "CategoryCountError"]

#: Bundles are used only when they remove at least this fraction of the code columns: a bundled
#: member's default-bin sums come by subtraction (other rounding), which is worth it where it saves
#: work -- one-hot data -- and not for a pair or two among many dense columns.
MIN_COLUMN_SAVING = 0.2
#: A bundle (or a lone feature) whose members leave their default bin on at most this share of the rows is
#: *sparse*: its code-0 rows (every member at its default bin) are not counted in the node histograms, whose
#: inner loop then skips them behind a branch that almost never goes the other way (a lone feature that
#: sparse becomes a bundle of one for it).  Below ~95 % the branch mispredicts and costs more than it saves
#: (measured: 58 bundles of grant-application counts, 0.36 s → 0.43 s a fit, when every bundle skipped).
SPARSE_BUNDLE_SHARE = 0.05
#: ... and at most this share where that makes ``LISTED_SPARSE_COLUMNS`` sparse columns or more: the in-memory
#: grower's histograms then read each row's list of its sparse columns' non-default codes (``_layout``'s
#: ``LISTED_MIN_COLUMNS``), with no branch, and a row costs an update per non-default code only.  LightGBM's LTR
#: example (median column at its default bin on 62 % of the rows): 115 sparse columns of 206 instead of 7, the
#: default per-query fit 0.86x the CPU, the same 200 trees with scores within 2.4e-15 (the default-bin sums by
#: subtraction).
LISTED_SPARSE_SHARE = 0.5
LISTED_SPARSE_COLUMNS = 8


def is_sparse(X) -> bool:
    """A ``scipy.sparse`` matrix (validated input is CSR)."""
    return hasattr(X, "tocsc") and hasattr(X, "nnz")


def csr_float(X):
    """X as CSR with float32 or float64 values, sorted column indices and one index dtype (no copy if it is)."""
    X = X.tocsr()
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    if X.indices.dtype != X.indptr.dtype:
        X = X.copy()
        X.indices = X.indices.astype(X.indptr.dtype)
    return X


#: Values in one block of transposed columns that :func:`tree_edges` sorts (8 MB of float64, 4 of float32): the
#: block is the edges' largest allocation (at 2^22 values the fit's peak memory on 10^5 x 40 float32 rows was
#: 20 MiB above the rows, at 2^20 values 9 MiB; the sorts took no longer).
_TRANSPOSE_VALUES = 1 << 20


#: Values to sort below which :func:`tree_edges` sorts on the calling thread alone: the radix sort takes ~7.5 ns a
#: float32 value (8·10⁶ values: 60 ms), and each pool thread's allocations stay in its own malloc arena, which
#: a Dask worker keeping its pages during a fit does not hand back until the fit ends (the one-worker fit of
#: 10⁵ × 40 rows on two threads: 13 MiB more at its peak with the pool).
_PARALLEL_SORT_VALUES = 1 << 23


def tree_edges(X, max_bins: int, sample_weight, subsample: int | None, random_state,
               n_threads: int = 1) -> list[np.ndarray]:
    """The ``stumps`` bin-edge rule (:func:`rankcore.learners.bin_edges`) on each feature's non-missing values.

    Dense X: one pass over the s sampled rows collects the distinct values
    of the columns with at most ``max_bins`` of them (O(s·d·log B), see
    ``_columns.few_distinct``), whose edges are all their midpoints;
    the other columns are sorted: O(s) each by radix sort without weights
    (``unweighted_edges``), O(s log s) with them.  A sparse X gives the
    edges of its dense form from its stored values: O(nnz log nnz) without
    weights (the zeros enter by their count), O(s·d) with them.
    """
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rows = sample_rows(X.shape[0], subsample, random_state, None if w is None else np.flatnonzero(w > 0))
    if is_sparse(X):
        return _sparse_edges(csr_float(X).tocsc(), rows, w, max_bins)
    ws = None if w is None else w[rows]
    taken = isinstance(X, TakenRows)
    if taken:                         # the sample read in place by its rows of X: the same values, in the same order
        X, rows = X.base, X.rows[rows]
    X = _dense_float(X)
    # sample_rows keeps the rows in order, each once: as many as X's are all of them, in order; taken rows as many
    # as X's may repeat some or be in another order (a bootstrap, a permutation), so they are read by index then
    every_row = rows.shape[0] == X.shape[0] and (not taken or np.array_equal(rows, np.arange(X.shape[0])))
    # columns with at most max_bins distinct values (one-hot, counts, flags): every midpoint is an
    # edge, whatever the weights, so their values are only collected (one pass, no sort)
    values, counts = few_distinct(X, max_bins, None if every_row else rows, n_threads)
    width = max(1, int(counts.max(initial=0)))
    # every midpoint of those columns at once (elementwise: the same numbers as column by column)
    middle = _midpoints(values[:, : width - 1], values[:, 1:width])
    # the sorted columns are copied a block of columns at a time, transposed (one read of each row's
    # stretch, where a column copied alone costs a cache miss a value on a wide matrix)
    width = max(1, _TRANSPOSE_VALUES // max(1, rows.shape[0]))
    starts = [j for j in range(0, X.shape[1], width) if (counts[j:j + width] < 0).any()]
    edges: list = [middle[j, : max(0, counts[j] - 1)].copy() if counts[j] >= 0 else None for j in range(X.shape[1])]

    def sort_block(start: int) -> list[tuple[int, np.ndarray]]:
        part = X[:, start:start + width] if every_row else X[rows, start:start + width]
        block = np.ascontiguousarray(part.T)          # X's own float type: sorted as such (_feature_edges)
        out = []
        for q in np.flatnonzero(counts[start:start + width] < 0).tolist():
            col = block[q]
            if ws is None:                    # the radix-sort kernel leaves the NaN out itself
                out.append((start + q, unweighted_edges(col, max_bins)))
                continue
            present = ~np.isnan(col)
            out.append((start + q, _feature_edges(col[present], ws[present], max_bins)))
        return out

    sorted_values = rows.shape[0] * int((counts < 0).sum())
    threads = n_threads if sorted_values >= _PARALLEL_SORT_VALUES else 1
    for found in _map_blocks(sort_block, starts, threads):
        for j, e in found:
            edges[j] = e
    return edges


def _map_blocks(work, blocks: list, n_threads: int):
    """``work(block)`` for each block, in order; on up to ``n_threads`` threads when there are several blocks.

    The edges' sorts release the GIL, so a wide matrix's columns sort on every
    thread (otherwise the longest serial phase of a wide fit on several
    threads: the trees' kernels run on all of them).  Each block's edges are
    computed alone, so the edges do not depend on the threads.  At most ``n_threads``
    blocks are held at once (one transposed block each, ``_TRANSPOSE_VALUES``
    values).
    """
    if n_threads <= 1 or len(blocks) <= 1:
        return map(work, blocks)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(n_threads, len(blocks))) as pool:
        return list(pool.map(work, blocks))


def _dense_float(X) -> np.ndarray:
    """Dense X as a C-contiguous float32 or float64 array (no copy if it is one)."""
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


def _sparse_edges(Xc, rows: np.ndarray, w, max_bins: int) -> list[np.ndarray]:
    """:func:`tree_edges` of a CSC matrix: each column's sampled values are its stored ones and zeros."""
    n, d = Xc.shape
    if w is None and rows.shape[0] == n:               # every row (sample_rows keeps them in order)
        data = Xc.data.astype(np.float64, copy=False)
        ends = Xc.indptr.tolist()
        return [_edges_with_zeros(data[ends[j]:ends[j + 1]], n - (ends[j + 1] - ends[j]), max_bins)
                for j in range(d)]
    position = np.full(n, -1, dtype=np.intp)           # row -> its place in the sample (−1: not sampled)
    position[rows] = np.arange(rows.shape[0])
    edges = []
    for j in range(d):
        start, end = Xc.indptr[j], Xc.indptr[j + 1]
        where = position[Xc.indices[start:end]]
        kept = where >= 0
        where, values = where[kept], Xc.data[start:end][kept].astype(np.float64)
        if w is not None:                               # the dense sample's column, for its weighted order
            col = np.zeros(rows.shape[0])
            col[where] = values
            present = ~np.isnan(col)
            edges.append(_feature_edges(col[present], w[rows][present], max_bins))
            continue
        n_zero = rows.shape[0] - where.shape[0]       # sampled rows where no value is stored: 0
        edges.append(_edges_with_zeros(values, n_zero, max_bins))
    return edges


def _edges_with_zeros(values: np.ndarray, n_zero: int, max_bins: int) -> np.ndarray:
    """``_feature_edges`` of ``values`` and ``n_zero`` more zeros (unweighted), without making the zeros.

    NaN values are left out.  O(m) by the radix-sort kernel (``edge_pairs``), which counts the zeros.
    """
    values = np.asarray(values)
    if values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    lo, hi = edge_pairs(np.ascontiguousarray(values), int(max_bins), int(n_zero))
    return _midpoints(lo, hi)


def _nondefault_rows(X, edges: list[np.ndarray], z: np.ndarray, n_threads: int):
    """Each feature's non-default rows: (candidates' rows, joiners' counts, joiners' rows on demand).

    Candidates are at their default bin on at least ``MIN_DEFAULT_FRACTION``
    of the rows, joiners on at least ``MIN_JOIN_FRACTION`` of them (but less
    than the candidates); see ``exclusive_bundles``.  Exact, on every row:
    from the stored values of sparse X (``nondefault_rows``); dense X is read
    whole to count each column's rows outside its default bin, then again to
    list them for the candidates, and for the joiners asked for
    (``_columns``).  Rows ascending.
    """
    n = X.shape[0]
    limit, join_limit = (1.0 - MIN_DEFAULT_FRACTION) * n, (1.0 - MIN_JOIN_FRACTION) * n
    if is_sparse(X):
        rows = nondefault_rows(X, edges, z, np.arange(len(edges)))
        joiners = {j: r.shape[0] for j, r in rows.items() if limit < r.shape[0] <= join_limit}
        return ({j: r for j, r in rows.items() if r.shape[0] <= limit}, joiners,
                lambda js: {j: rows[j] for j in js})
    bounds = np.array([default_interval(e, int(z[j])) for j, e in enumerate(edges)], dtype=np.float64).reshape(-1, 2)
    lo, hi = np.ascontiguousarray(bounds[:, 0]), np.ascontiguousarray(bounds[:, 1])
    if isinstance(X, TakenRows):
        counts, listed = _taken_outside(X, lo, hi, n_threads)
    else:
        X = _dense_float(X)
        counts = outside_counts(X, lo, hi, n_threads)

        def listed(columns) -> dict[int, np.ndarray]:
            columns = np.asarray(columns, dtype=np.intp)
            indptr = np.r_[0, np.cumsum(counts[columns])].astype(np.int64)
            out = outside_rows(X, columns, lo[columns], hi[columns], indptr)
            return {int(j): out[indptr[q]:indptr[q + 1]] for q, j in enumerate(columns.tolist())}

    joiners = {int(j): int(counts[j]) for j in np.flatnonzero((counts > limit) & (counts <= join_limit))}
    return listed(np.flatnonzero(counts <= limit)), joiners, listed


def _taken_outside(X: TakenRows, lo: np.ndarray, hi: np.ndarray, n_threads: int):
    """``_nondefault_rows``' (counts, listed) of taken rows, read a block at a time (the same counts and rows).

    The counts add up over the blocks; a column's rows are each block's, shifted by the block's start, in block
    order: ascending, as from the rows copied whole.  ``listed`` reads the blocks again (the joiners asked for).
    """
    per_block = [outside_counts(block, lo, hi, n_threads) for _, block in X.blocks()]
    counts = np.sum(per_block, axis=0, dtype=np.int64) if per_block else np.zeros(lo.shape[0], dtype=np.int64)

    def listed(columns) -> dict[int, np.ndarray]:
        columns = np.asarray(columns, dtype=np.intp)
        parts = [[] for _ in range(columns.shape[0])]
        for (start, block), block_counts in zip(X.blocks(), per_block):
            indptr = np.r_[0, np.cumsum(block_counts[columns])].astype(np.int64)
            out = outside_rows(block, columns, lo[columns], hi[columns], indptr)
            out += start
            for q in range(columns.shape[0]):
                parts[q].append(out[indptr[q]:indptr[q + 1]])
        return {int(j): (np.concatenate(parts[q]) if parts[q] else np.empty(0, dtype=np.intp))
                for q, j in enumerate(columns.tolist())}

    return counts, listed


def _bundles_and_counts(X, edges: list[np.ndarray], n_threads: int) -> tuple[list[list[int]], dict[int, int]]:
    """(:func:`tree_bundles`' groups, each bundling candidate's and joiner's count of non-default rows)."""
    n, d = X.shape
    if d == 0 or n == 0:
        return [], {}
    z = default_bins(edges)
    rows, joiners, joiner_rows = _nondefault_rows(X, edges, z, n_threads)
    held = {j: r.shape[0] for j, r in rows.items()} | dict(joiners)
    if d < 2 or len(rows) + len(joiners) < 2:
        return [], held
    n_edges = np.array([e.shape[0] for e in edges], dtype=np.intp)
    bundles = exclusive_bundles(rows, n_edges, n, joiners, joiner_rows)
    saved = sum(len(b) - 1 for b in bundles)
    return (bundles if saved >= MIN_COLUMN_SAVING * d else []), held


def tree_bundles(X, edges: list[np.ndarray], n_threads: int = 1) -> list[list[int]]:
    """Groups of mutually exclusive features (on every row of X) to store as one code column each.

    Candidates are the features at their default bin (the bin of 0) on at
    least half of the rows, counted exactly on every row; denser features
    (at it on 10 % of the rows or more) may join their bundles
    (:func:`~rankcore.learners.trees._bundles.exclusive_bundles`).
    No bundles (``[]``) unless they remove at least ``MIN_COLUMN_SAVING`` of
    the columns.
    O(n·d) for dense X (a pass over it, then one over the listed features'
    columns), O(nnz) for sparse X, then the greedy rule.
    """
    return _bundles_and_counts(X, edges, n_threads)[0]


def tree_columns(X, edges: list[np.ndarray], n_threads: int = 1) -> tuple[list[list[int]], int]:
    """(bundles, n_sparse): :func:`tree_bundles`, plus lone sparse features as bundles of one, sparse ones first.

    The first ``n_sparse`` bundles are sparse (their members leave their
    default bin on at most ``SPARSE_BUNDLE_SHARE`` of the rows, together;
    ``LISTED_SPARSE_SHARE`` where that gives ``LISTED_SPARSE_COLUMNS`` or
    more): the histograms skip their code 0.  A lone candidate feature that sparse
    whose codes fit a bundle's byte becomes a bundle of one.  The trees grown
    are those of :func:`tree_bundles`' layout up to the rounding of the
    default-bin sums (by subtraction, as for any bundle member).  The same
    passes as :func:`tree_bundles`.
    """
    bundles, held = _bundles_and_counts(X, edges, n_threads)
    listed = _sparse_split(bundles, held, edges, LISTED_SPARSE_SHARE * X.shape[0])
    if len(listed[0]) >= LISTED_SPARSE_COLUMNS:
        sparse, dense = listed
    else:
        sparse, dense = _sparse_split(bundles, held, edges, SPARSE_BUNDLE_SHARE * X.shape[0])
    return sparse + dense, len(sparse)


def _sparse_split(bundles, held, edges, limit: float) -> tuple[list[list[int]], list[list[int]]]:
    """(sparse, dense) columns: the bundles, and the lone candidates that fit a bundle's byte, whose features leave
    their default bin on at most ``limit`` rows together (lone ones as bundles of one, after the bundles)."""
    grouped = {j for b in bundles for j in b}
    singles = [[j] for j in sorted(held) if j not in grouped and held[j] <= limit
               and edges[j].shape[0] + 3 <= MAX_BUNDLE_CODES]
    is_sparse_bundle = [sum(held[j] for j in b) <= limit for b in bundles]
    sparse = [b for b, thin in zip(bundles, is_sparse_bundle) if thin] + singles
    dense = [b for b, thin in zip(bundles, is_sparse_bundle) if not thin]
    return sparse, dense


def splittable_columns(X, min_samples_leaf: int) -> np.ndarray:
    """The features that some split may use on the rows of X: nonzero or missing on ``min_samples_leaf`` or more.

    A split sends the bin of the value 0 to one side, so where a feature is
    0 on all but a few rows the other side holds only rows where it is not
    (or is missing).  A feature nonzero on fewer than ``min_samples_leaf``
    rows cannot split any node of a tree fitted on these rows or on a subset
    of them (a row sample, a node): storing it would cost codes, histogram
    slots and a scan per node for nothing (as LightGBM's
    ``feature_pre_filter`` drops features that cannot split).  Ascending
    feature indices.  O(n·d) for dense X, O(nnz) for sparse X.
    """
    if is_sparse(X):                # a value not stored is 0
        X = csr_float(X)
        counts = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
    elif isinstance(X, TakenRows):    # block by block: integer counts, the same sums
        counts = np.zeros(X.shape[1], dtype=np.intp)
        for _, block in X.blocks():
            counts += np.count_nonzero(block, axis=0)
    else:
        counts = np.count_nonzero(np.asarray(X), axis=0)      # NaN != 0: missing counts as nonzero
    return np.flatnonzero(counts >= min_samples_leaf).astype(np.intp)


def unsplittable_columns(X, edges: list[np.ndarray]) -> np.ndarray:
    """The features of X whose every row codes to one bin: no bin edge, and no NaN to send to a side.

    Such a feature can split no node -- of an oblivious tree either, whose
    level's split is chosen on the sum over its nodes -- so a layout need not
    store it: each would cost a code column that every node's histogram
    walks, and slots that every gain pass scans (public LTR sets hold many:
    features of a field their documents lack, or query-level features once
    normalized within each query).  Ascending feature indices.  O(n) per
    feature without edges (the NaN check), nothing for the others.
    """
    single = np.array([j for j, e in enumerate(edges) if e.shape[0] == 0], dtype=np.intp)
    if single.shape[0] == 0:
        return single
    if is_sparse(X):                # a value not stored is 0, never NaN
        Xc = csr_float(X)[:, single].tocsc()
        has_nan = np.array([np.isnan(Xc.data[Xc.indptr[q]:Xc.indptr[q + 1]]).any() for q in range(single.shape[0])],
                           dtype=bool)
    elif isinstance(X, TakenRows):
        has_nan = np.isnan(X.columns(single)).any(axis=0)
    else:
        has_nan = np.isnan(np.asarray(X)[:, single]).any(axis=0)
    return single[~has_nan]


def column_counts(X, w, columns: np.ndarray) -> list[np.ndarray]:
    """[nonzero, missing] (int64): per column of X the rows where it is nonzero or NaN, and per listed column
    (``columns``) the rows where it is NaN; ``w`` is ignored (every row counts, as in
    :func:`splittable_columns`).  A ``RowSource.reduce`` function: additive over blocks of rows.  O(n·d) for
    dense X, O(nnz) for sparse X."""
    columns = np.asarray(columns, dtype=np.intp)
    if is_sparse(X):                # a value not stored is 0, never NaN
        X = csr_float(X)
        nonzero = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
        missing = np.bincount(X.indices[np.isnan(X.data)], minlength=X.shape[1])[columns]
    else:
        X = np.asarray(X)
        nonzero = np.count_nonzero(X, axis=0)                 # NaN != 0: missing counts as nonzero
        missing = np.isnan(X[:, columns]).sum(axis=0)
    return [nonzero.astype(np.int64), missing.astype(np.int64)]


def take_columns(X, columns: np.ndarray):
    """The listed columns of X (dense: a C-contiguous copy; sparse: CSR), in that order."""
    if is_sparse(X):
        return csr_float(X)[:, columns]
    if isinstance(X, TakenRows):
        return np.ascontiguousarray(X.columns(columns))
    # np.take copies row by row into a C-ordered array; X[:, columns] builds a Fortran-ordered one (3x slower
    # with the copy to C order after it)
    return np.take(np.asarray(X), columns, axis=1)


# ----------------------------------------------------------------------
# Categorical columns
# ----------------------------------------------------------------------
def column_indices(value) -> str:
    """Parameter kind: column indices (``"0;3;7"``, a sequence of integers, or ``""`` for none) → ``"0;3;7"``."""
    if isinstance(value, str):
        text = value.strip()
        parts = [] if text.lower() in ("", "none") else [p.strip() for p in text.split(";")]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        parts = [value]
    else:
        parts = list(value)
    out = set()
    for p in parts:
        if isinstance(p, bool) or (isinstance(p, float) and not float(p).is_integer()):
            raise ValueError(f"{p!r} is not a column index")
        try:
            j = read_int(p) if isinstance(p, str) else int(p)   # a spec's number: ASCII digits
        except ValueError as exc:
            raise ValueError(f"{p!r} is not a column index ({exc})") from None
        if j < 0:
            raise ValueError(f"{p!r} is not a column index (>= 0)")
        out.add(j)
    return ";".join(str(j) for j in sorted(out))


column_indices.__name__ = "column indices such as 0;3;7"


def categorical_columns(spec_value: str, extra, n_features: int) -> list[int]:
    """The learner's ``categorical`` columns and the ones given to ``prepare``, checked against the width."""
    columns = {int(j) for j in column_indices(spec_value).split(";") if j}
    columns |= {int(j) for j in (extra or ())}
    bad = [j for j in columns if not 0 <= j < n_features]
    if bad:
        raise ValueError(f"categorical: column {bad[0]} is not one of the {n_features} columns of X")
    return sorted(columns)


def category_edges(X, j: int, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(edges, categories) of categorical column j: its distinct non-missing values on every row.

    The edges are the midpoints between consecutive categories, so a
    category's bin is its rank.  At most ``max_bins`` categories (a
    ValueError says how many there are).  O(n log n) (O(nnz log nnz) sparse).
    """
    if is_sparse(X):
        Xc = csr_float(X).tocsc()
        values = Xc.data[Xc.indptr[j]:Xc.indptr[j + 1]].astype(np.float64)
        if Xc.indptr[j + 1] - Xc.indptr[j] < X.shape[0]:
            values = np.r_[values, 0.0]                 # a value not stored is a category too: 0
    else:
        values = np.asarray(X.column(j) if isinstance(X, TakenRows) else X[:, j], dtype=np.float64)
    return edges_of_categories(np.unique(values[~np.isnan(values)]), j, max_bins)


def edges_of_categories(categories: np.ndarray, j: int, max_bins: int, *,
                        counted: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(edges, categories) of categorical column j from its distinct values (ascending float64): the midpoints.

    ``counted``: ``categories`` are all of them (the error says how many); else they may be the first
    ``max_bins + 1`` only (a distributed source's answer, :meth:`rankcore.learners.RowSource.distinct`).
    """
    if categories.shape[0] > max_bins:
        raise CategoryCountError(j, categories.shape[0] if counted else None, max_bins)
    return _midpoints(categories[:-1], categories[1:]), categories


class CategoryCountError(ValueError):
    """A categorical column with more categories than ``max_bins``.

    ``column`` is its index in X; a caller that knows the columns' names
    raises ``with_column_name(name)`` instead (the learners do not see them).
    ``count``: how many categories, or None when the rows were read only up
    to ``max_bins + 1`` of them (a distributed source).
    """

    def __init__(self, column: int, count: int | None, max_bins: int, label: str | None = None):
        self.column, self.count, self.max_bins = int(column), count, int(max_bins)
        label = f"column {self.column}" if label is None else label
        many = (f"{count} categories, more than max_bins={max_bins}" if count is not None
                else f"more than max_bins={max_bins} categories")
        # (255 bins is the most a column has: advise raising max_bins only below it)
        advice = ("raise max_bins (up to 255), or encode rare categories together" if max_bins < 255
                  else "a column may hold at most 255; encode rare categories together")
        if count is not None:
            # in memory, a frame's category column is folded by the estimators' fit (its rarest levels read as
            # missing); a distributed fit (count None) reads only max_bins + 1 levels and does not fold
            advice += ", or pass it as a pandas 'category' column, whose fit keeps the most frequent levels"
        super().__init__(f"categorical: {label} has {many} ({advice})")

    def with_column_name(self, name: str) -> "CategoryCountError":
        """The same error naming the column ``name`` (and its index)."""
        return CategoryCountError(self.column, self.count, self.max_bins, f"column {name!r} (column {self.column})")
