"""The ``trees`` learner's bins, from dense arrays or ``scipy.sparse`` matrices alike.

:func:`tree_edges` places each feature's bin edges by the ``stumps`` rule
(:func:`rankcore.learners.bin_edges`) on the non-missing values of a sample
of rows; a sparse matrix gives the same edges as its dense form (its
implicit zeros are values like any other).  :func:`tree_bundles` finds the
exclusive bundles (``_tree_bundles.py``) on every training row.
"""

from __future__ import annotations

import numpy as np

from ._binning import _feature_edges, sample_rows
from ._tree_bundles import MIN_DEFAULT_FRACTION, default_bins, exclusive_bundles, nondefault_rows

__all__ = ["tree_edges", "tree_bundles", "is_sparse"]

#: Rows of the quick look that picks the bundling candidates before the exact count on every row.
_PEEK_ROWS = 10_000
#: Bundles are used only when they remove at least this fraction of the code columns: a bundled
#: member's default-bin sums come by subtraction (other rounding), which is worth it where it saves
#: work -- one-hot data -- and not for a pair or two among many dense columns.
MIN_COLUMN_SAVING = 0.2


def is_sparse(X) -> bool:
    """A ``scipy.sparse`` matrix (validated input is CSR)."""
    return hasattr(X, "tocsc") and hasattr(X, "nnz")


def _sample_columns(X, rows: np.ndarray):
    """The sampled rows of X as a dense float64 array (a sparse X's sample only is made dense)."""
    if is_sparse(X):
        return np.asarray(X[rows].toarray(), dtype=np.float64)
    return np.asarray(X)[rows].astype(np.float64)


def tree_edges(X, max_bins: int, sample_weight, subsample: int | None, random_state) -> list[np.ndarray]:
    """The ``stumps`` bin-edge rule (:func:`rankcore.learners.bin_edges`) on each feature's non-missing values.

    O(s·d log s) for the s sampled rows; a sparse X is made dense on the
    sample only (s × d float64).
    """
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rows = sample_rows(X.shape[0], subsample, random_state, None if w is None else np.flatnonzero(w > 0))
    Xs = _sample_columns(X, rows)
    ws = None if w is None else w[rows]
    edges = []
    for j in range(X.shape[1]):
        col = Xs[:, j]
        present = ~np.isnan(col)
        edges.append(_feature_edges(col[present], None if ws is None else ws[present], max_bins))
    return edges


def _default_fractions(X, edges: list[np.ndarray], z: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Fraction of the given rows at each feature's default bin."""
    Xs = _sample_columns(X, rows)
    out = np.empty(len(edges))
    for j, e in enumerate(edges):
        lo = -np.inf if z[j] == 0 else e[z[j] - 1]
        hi = np.inf if z[j] >= e.shape[0] else e[z[j]]
        col = Xs[:, j]
        out[j] = np.count_nonzero((col > lo) & (col <= hi)) / max(1, col.shape[0])
    return out


def tree_bundles(X, edges: list[np.ndarray]) -> list[list[int]]:
    """Groups of mutually exclusive features (on every row of X) to store as one code column each.

    Candidates are the features at their default bin (the bin of 0) on at
    least half of the rows: a quick look at up to 10,000 rows keeps those
    near or above 40 %, then their non-default rows are listed exactly.
    No bundles (``[]``) unless they remove at least ``MIN_COLUMN_SAVING`` of
    the columns.
    O(d·min(n, 10⁴)) for the look, O(n) per candidate (O(nnz) for sparse
    X), then :func:`~rankcore.learners._tree_bundles.exclusive_bundles`.
    """
    n, d = X.shape
    if d < 2 or n == 0:
        return []
    z = default_bins(edges)
    peek = sample_rows(n, _PEEK_ROWS, 0)
    candidates = np.flatnonzero(_default_fractions(X, edges, z, peek) >= MIN_DEFAULT_FRACTION - 0.1)
    if candidates.shape[0] < 2:
        return []
    rows = nondefault_rows(X, edges, z, candidates)
    rows = {j: r for j, r in rows.items() if r.shape[0] <= (1.0 - MIN_DEFAULT_FRACTION) * n}
    if len(rows) < 2:
        return []
    n_edges = np.array([e.shape[0] for e in edges], dtype=np.intp)
    bundles = exclusive_bundles(rows, n_edges, n)
    saved = sum(len(b) - 1 for b in bundles)
    return bundles if saved >= MIN_COLUMN_SAVING * d else []
