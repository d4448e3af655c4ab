"""Training rows seen through reductions: what a learner's preparation may read when X is not in memory.

:meth:`rankcore.Learner.prepare` reads the training matrix at once.  A
distributed fit (``rankcore.dask``) holds the rows in chunks on other
machines; it hands the learner a :class:`RowSource` instead and calls
:meth:`rankcore.Learner.prepare_distributed`.  A row source answers a few
questions about the rows -- each one reduction over the chunks, with a small
result -- and the learner builds the same layout from the answers as
``prepare`` would from the matrix:

``ranges()``
    per-feature minimum and maximum (the ``features`` learner);
``sample(subsample, random_state)``
    the rows :func:`rankcore.learners.sample_rows` draws (``stumps``,
    ``trees``: bin edges from a stated sample, identical to the in-memory
    edges for the same ``random_state``);
``quantiles(q)``
    exact weighted quantiles of every feature (``thresholds``);
``count_above(thresholds)``
    per-feature counts of rows above candidate thresholds;
``reduce(func, *args)``
    any other additive statistic: ``func(X_block, w_block, *args)`` summed
    over the blocks;
``distinct(columns, most)``
    the distinct values of a few columns (``trees``: the categories of the
    categorical columns);
``gather()``
    every row, on the caller (what the default ``prepare_distributed`` does:
    correct for any learner, and O(n·d) memory once per fit).

Every question concerns the rows of **positive weight** (all rows without
weights) except ``gather``, ``reduce`` and ``distinct``, which see every
row.  :class:`InMemoryRows` answers them for a matrix in memory: a
learner's ``prepare_distributed(InMemoryRows(X, w))`` must build the layout
``prepare(X, sample_weight=w)`` builds (the contract tests check it).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._binning import quantile_thresholds, sample_rows

__all__ = ["RowSource", "InMemoryRows", "count_above_block", "distinct_values"]


def count_above_block(X: np.ndarray, w: np.ndarray | None, thresholds: list) -> list[np.ndarray]:
    """Per feature j, #{rows of positive weight with x_j > t} for every t in ``thresholds[j]``; O(n d log n)."""
    if w is not None:
        X = X[np.asarray(w) > 0]
    out = []
    for j, t in enumerate(thresholds):
        values = np.sort(np.asarray(X[:, j], dtype=np.float64))
        out.append(values.shape[0] - np.searchsorted(values, np.asarray(t, dtype=np.float64), side="right"))
    return out


def distinct_values(X: np.ndarray, columns: list, most: int) -> list[np.ndarray]:
    """Per listed column of X, its ``most + 1`` smallest distinct non-missing values (all when fewer), ascending
    float64: the answer of :meth:`RowSource.distinct` for a block of rows.  O(n log n) per column."""
    out = []
    for j in columns:
        values = np.asarray(X[:, int(j)], dtype=np.float64)
        out.append(np.unique(values[~np.isnan(values)])[: int(most) + 1])
    return out


class RowSource:
    """The training rows of one fit, reachable through reductions (see the module docs).

    Attributes
    ----------
    n_rows : int
        Rows, including those of zero weight.
    n_live : int
        Rows of positive weight (``n_rows`` without weights).
    n_features : int
    dtype : numpy dtype
        float32 when the rows are float32 (learners may keep it), else float64.
    weighted : bool
        Sample weights were given.
    """

    n_rows: int
    n_live: int
    n_features: int
    dtype: Any
    weighted: bool

    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """(lows, highs): per-feature minimum and maximum over the rows of positive weight, float64."""
        raise NotImplementedError

    def sample(self, subsample: int | None, random_state: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
        """(X_s, w_s): the rows ``sample_rows`` draws among the rows of positive weight, in row order.

        Exactly ``X[sample_rows(n_rows, subsample, random_state, flatnonzero(w > 0))]`` of the whole
        matrix (all rows of positive weight when ``subsample`` is None or not smaller); ``w_s`` is
        None without weights.
        """
        raise NotImplementedError

    def quantiles(self, q: int) -> list[np.ndarray]:
        """Per feature, the values at the weighted quantile levels j/(q+1), j = 1..q, duplicates dropped.

        The rule of :func:`rankcore.learners.quantile_thresholds` with ``subsample=None``:
        the smallest value whose cumulative weight (over the rows of positive weight)
        reaches the level.
        """
        raise NotImplementedError

    def reduce(self, func: Callable, *args: Any) -> Any:
        """Σ over the blocks of rows of ``func(X_block, w_block, *args)`` (``w_block`` None without weights).

        ``func`` returns an array, a number, or a list/tuple of them (added
        element by element).  A distributed source runs it where the rows
        are: make it a module-level function of an importable module, with
        small arguments and a small result.
        """
        raise NotImplementedError

    def gather(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(X, w): every row in row order, on the caller (O(n·d) memory; small data)."""
        raise NotImplementedError

    def count_above(self, thresholds: list) -> list[np.ndarray]:
        """Per feature j, the count of rows of positive weight with x_j > t for each t in ``thresholds[j]``."""
        return self.reduce(count_above_block, [np.asarray(t, dtype=np.float64) for t in thresholds])

    def distinct(self, columns: list, most: int) -> list[np.ndarray]:
        """Per listed column, its distinct non-missing values over every row (whatever its weight), ascending
        float64; a column with more than ``most`` of them gives its ``most + 1`` smallest (enough to tell).

        The default gathers every row (:meth:`gather`); a distributed source reads each block's values where
        the block is.
        """
        X, _ = self.gather()
        return distinct_values(X, columns, most)


class InMemoryRows(RowSource):
    """A :class:`RowSource` over a matrix in memory (one block).

    Parameters
    ----------
    X : ndarray (n, d), float32 or float64
    sample_weight : ndarray (n,) or None
    """

    def __init__(self, X: np.ndarray, sample_weight: np.ndarray | None = None):
        self.X = np.asarray(X)
        self.w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.n_rows, self.n_features = (int(v) for v in self.X.shape)
        self.dtype = np.dtype(np.float32) if self.X.dtype == np.float32 else np.dtype(np.float64)
        self.weighted = self.w is not None
        self._live = None if self.w is None else np.flatnonzero(self.w > 0)
        self.n_live = self.n_rows if self._live is None else int(self._live.shape[0])

    def _live_rows(self) -> np.ndarray:
        return self.X if self._live is None else self.X[self._live]

    def ranges(self):
        rows = self._live_rows()
        return rows.min(axis=0).astype(np.float64), rows.max(axis=0).astype(np.float64)

    def sample(self, subsample, random_state=None):
        rows = sample_rows(self.n_rows, subsample, random_state, self._live)
        return self.X[rows], (None if self.w is None else self.w[rows])

    def quantiles(self, q):
        return quantile_thresholds(self.X, q, sample_weight=self.w, subsample=None)

    def reduce(self, func, *args):
        return func(self.X, self.w, *args)

    def gather(self):
        return self.X, self.w
