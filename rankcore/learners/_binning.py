"""Candidate thresholds of threshold rankers: bin edges and quantile thresholds.

:func:`bin_edges` is the documented, reproducible rule by which ``stumps``
chooses its candidate thresholds.  A distributed fit computes the same edges
from the same sample (the sampled row positions depend only on the number of
rows, ``subsample`` and ``random_state``) or passes precomputed edges to the
estimator's ``thresholds`` parameter, so that in-memory and distributed fits
consider exactly the same weak rankers.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

__all__ = ["bin_edges", "quantile_thresholds", "check_thresholds", "sample_rows", "MAX_BINS",
           "check_binning_options"]

#: Largest number of bins per feature (codes are stored as uint16 beyond 256).
MAX_BINS = 65536


def sample_rows(n_rows: int, subsample: int | None, random_state: Any = None,
                candidates: np.ndarray | None = None) -> np.ndarray:
    """Row positions of the binning sample: all rows, or ``subsample`` of them.

    The sample is ``sorted(rng.choice(candidates, subsample, replace=False))``
    with ``rng = numpy.random.default_rng(random_state)``, where
    ``candidates`` are the rows of positive weight (all rows by default).  It
    depends on nothing but these arguments, so another process that knows the
    row count can draw the same rows.
    """
    rows = np.arange(n_rows) if candidates is None else np.asarray(candidates)
    if subsample is None or rows.shape[0] <= subsample:
        return rows
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
    return np.sort(rng.choice(rows, size=int(subsample), replace=False))


def check_binning_options(max_bins: Any, subsample: Any) -> tuple[int, int | None]:
    """``max_bins`` an integer in [2, MAX_BINS] and ``subsample`` None or an integer >= 1 (NumPy integers too).

    Raises
    ------
    ValueError
        Naming the argument: a float (2.9 bins would be truncated), a bool, text, or a value out of range.
    """
    if isinstance(max_bins, (bool, np.bool_)) or not isinstance(max_bins, numbers.Integral) \
            or not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins: expected an integer in [2, {MAX_BINS}], got {max_bins!r}")
    if subsample is not None and (isinstance(subsample, (bool, np.bool_)) or not isinstance(subsample, numbers.Integral)
                                  or subsample < 1):
        raise ValueError(f"subsample: expected a positive integer or None, got {subsample!r}")
    return int(max_bins), None if subsample is None else int(subsample)


def _midpoints(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Edges e with lo ≤ e < hi: the midpoint, or lo where the midpoint rounds up to hi.

    Where hi − lo overflows float64 (values near ±1.8e308) the midpoint is
    0.5·lo + 0.5·hi, which cannot overflow.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mid = lo + 0.5 * (hi - lo)
    mid = np.where(np.isfinite(mid), mid, 0.5 * lo + 0.5 * hi)
    return np.where(mid < hi, mid, lo)


def _feature_edges(values: np.ndarray, weights: np.ndarray | None, max_bins: int) -> np.ndarray:
    """The edges of one feature's values (NaN-free): see :func:`bin_edges`.

    ``values`` float32 or float64, sorted in their own type: float32 → float64
    is exact and keeps the order and the ties, so the edges (float64, from the
    distinct values) are the same as those of ``values.astype(float64)``, and
    a float32 sort reads half the memory.  Unweighted, a radix sort and one
    walk over the sorted values (``_edge_kernels.edge_pairs``: O(n), 3–5×
    faster than ``numpy.sort`` and the steps after it on 10⁵ values -- the
    trees' bin edges were a sixth of an in-memory fit of 10⁵ rows);
    weighted, ``numpy.sort``, O(n log n).  O(n) extra memory.
    """
    if weights is None or _constant(weights):
        return unweighted_edges(values, max_bins)
    ordered = np.sort(values)
    if ordered.shape[0] == 0:
        return np.empty(0)
    first = np.empty(ordered.shape[0], dtype=bool)        # the first of each run of equal values
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct = ordered[first].astype(np.float64, copy=False)

    def mass() -> np.ndarray:                             # the weights summed per distinct value
        return np.bincount(np.searchsorted(distinct, values), weights=weights,
                           minlength=distinct.shape[0]).astype(np.float64)

    return edges_of_distinct(distinct, mass, max_bins)


def unweighted_edges(values: np.ndarray, max_bins: int) -> np.ndarray:
    """:func:`_feature_edges` of ``values`` without weights; NaN values are left out (missing).

    The pairs of distinct values come from ``_edge_kernels.edge_pairs`` (the
    rule of :func:`edges_of_distinct` on the values' run lengths, the same
    pairs), the edges are their midpoints.
    """
    from ._edge_kernels import edge_pairs

    values = np.asarray(values)
    if values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    lo, hi = edge_pairs(np.ascontiguousarray(values), int(max_bins))
    return _midpoints(lo, hi)


def _constant(weights: np.ndarray) -> bool:
    """Whether every weight is the same (ones, 0.1 everywhere): their quantiles are the counts', by the counts' rule.

    So such weights give the unweighted edges exactly (``sample_weight=np.ones(n)`` as none), which the slack of
    :func:`first_reaching` would not where a count lands on a level that rounds above it (max_bins = 50).
    """
    return weights.shape[0] == 0 or bool(np.all(weights == weights[0]))


def first_reaching(cumulative: np.ndarray, fractions: np.ndarray, *, counts: bool = False) -> np.ndarray:
    """The index of the first running weight that reaches each fraction of the total (the weighted quantiles).

    A running sum within its own rounding, (m + 1)·eps·total for m terms, below a level counts as reaching it:
    weights all scaled by one constant (0.1 or 3 for 1) then give the same quantiles, where an exact comparison
    would let the rounding of a sum that lands on a level (a count of 25 at 25.0, a weight sum of 2.5000000000000004
    at 2.5) choose the value.  ``counts``: the running sums are exact counts, compared exactly as the unweighted
    edges' kernel (``edge_pairs``) compares them, so unweighted quantiles keep the rule they were fitted with.
    O(len(fractions) · log m).
    """
    total = cumulative[-1]
    slack = 0.0 if counts else (cumulative.shape[0] + 1) * np.finfo(np.float64).eps * total
    return np.searchsorted(cumulative, fractions * total - slack, side="left")


def edges_of_distinct(distinct: np.ndarray, mass, max_bins: int) -> np.ndarray:
    """The edges of a feature with these sorted distinct values; ``mass()`` their weights (called if needed).

    Every midpoint when there are at most ``max_bins`` values, else the
    midpoints after the weighted quantiles b/max_bins (see :func:`bin_edges`).
    """
    if distinct.shape[0] <= 1:
        return np.empty(0)
    if distinct.shape[0] <= max_bins:
        return _midpoints(distinct[:-1], distinct[1:])
    idx = first_reaching(np.cumsum(mass()), np.arange(1, max_bins) / max_bins)
    idx = np.unique(np.minimum(idx, distinct.shape[0] - 2))
    return _midpoints(distinct[idx], distinct[idx + 1])


def bin_edges(X: Any, max_bins: int = 256, *, sample_weight: Any = None, subsample: int | None = 200_000,
              random_state: Any = None) -> list[np.ndarray]:
    """Per-feature bin edges for threshold rankers (the ``stumps`` rule).

    Method, per feature, on the rows of positive weight (a sample of
    ``subsample`` of them when there are more, see :func:`sample_rows`):

    1. with u the sorted distinct values, if there are at most ``max_bins`` of
       them the edges are all the midpoints between consecutive values: every
       split of the training data is a candidate (exact);
    2. otherwise the edges are the midpoints after the values at the weighted
       quantile levels b/max_bins, b = 1..max_bins−1 (duplicates dropped).

    An edge e between consecutive values a < b satisfies a ≤ e < b, so
    1[x > e] separates them.

    Parameters
    ----------
    X : array-like of shape (n, d)
    max_bins : int in [2, 65536]
        At most max_bins bins, i.e. max_bins − 1 candidate thresholds per feature.
    sample_weight : array-like or None
        Quantile weights; rows of zero weight are ignored.
    subsample : int or None
        Sample size for large data (None: all rows).
    random_state : None, int or numpy Generator

    Returns
    -------
    list of ndarray of float64, one sorted array per feature
    """
    from ..validation import check_matrix, check_sample_weight

    max_bins, subsample = check_binning_options(max_bins, subsample)
    X = check_matrix(X, name="X", dtype=np.float64 if np.asarray(X).dtype != np.float32 else np.float32)
    w = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
    rows = sample_rows(X.shape[0], subsample, random_state, None if w is None else np.flatnonzero(w > 0))
    every_row = rows.shape[0] == X.shape[0]          # sample_rows gives them in order: no gather needed
    ws = None if w is None else w[rows]
    # One column at a time, in X's own float type (_feature_edges gives the float64 edges either way): a float64
    # copy of the whole sample would cost twice a float32 X's memory on top of it, for one column's work.
    return [_feature_edges(np.ascontiguousarray(X[:, j] if every_row else X[rows, j]), ws, max_bins)
            for j in range(X.shape[1])]


def quantile_thresholds(X: Any, q: int, *, sample_weight: Any = None, subsample: int | None = 200_000,
                        random_state: Any = None) -> list[np.ndarray]:
    """q thresholds per feature at the quantile levels j/(q+1), j = 1..q (the ``thresholds`` rule).

    Each threshold is a value of the feature (the lower weighted quantile),
    as in the paper's hand-picked thresholds; duplicates are dropped here and
    thresholds equivalent on the training data are dropped by the learner.
    """
    from ..validation import check_matrix, check_sample_weight

    X = check_matrix(X, name="X", dtype=np.float64 if np.asarray(X).dtype != np.float32 else np.float32)
    w = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
    rows = sample_rows(X.shape[0], subsample, random_state, None if w is None else np.flatnonzero(w > 0))
    ws = None if w is None or _constant(w[rows]) else w[rows]      # equal weights: the counts' thresholds
    out = []
    for j in range(X.shape[1]):
        values = X[rows, j].astype(np.float64)
        distinct, inverse = np.unique(values, return_inverse=True)
        mass = np.bincount(inverse, weights=ws, minlength=distinct.shape[0])
        idx = first_reaching(np.cumsum(mass.astype(np.float64)), np.arange(1, q + 1) / (q + 1), counts=ws is None)
        out.append(np.unique(distinct[np.minimum(idx, distinct.shape[0] - 1)]))
    return out


def check_thresholds(thresholds: Any, n_features: int, *, name: str = "thresholds",
                     max_count: int = MAX_BINS - 1) -> list[np.ndarray]:
    """Validate per-feature candidate thresholds: a list of d 1-D arrays of finite numbers.

    Returns sorted, de-duplicated float64 arrays.
    """
    if isinstance(thresholds, np.ndarray) and thresholds.ndim == 2:
        thresholds = list(thresholds)
    if not isinstance(thresholds, Sequence) or isinstance(thresholds, (str, bytes)):
        raise TypeError(f"{name}: expected a list with one array of thresholds per feature, "
                        f"got {type(thresholds).__name__}")
    if len(thresholds) != n_features:
        raise ValueError(f"{name}: expected one array of thresholds per feature ({n_features}), got {len(thresholds)}")
    out = []
    for j, t in enumerate(thresholds):
        arr = np.asarray(t if t is not None else [], dtype=np.float64)
        if arr.ndim != 1:
            raise ValueError(f"{name}[{j}]: expected a 1-D array of thresholds, got shape {arr.shape}")
        if not np.isfinite(arr).all():
            raise ValueError(f"{name}[{j}]: expected finite thresholds, got {arr[~np.isfinite(arr)][:3].tolist()}")
        arr = np.unique(arr)
        if arr.shape[0] > max_count:
            raise ValueError(f"{name}[{j}]: at most {max_count} thresholds per feature, got {arr.shape[0]}")
        out.append(arr)
    return out
