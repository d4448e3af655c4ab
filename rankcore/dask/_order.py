"""Exact order statistics of distributed values by refining key intervals.

A float64 x maps to an unsigned 64-bit *key* that sorts like x
(:func:`float_keys`: flip the sign bit of non-negative numbers, all bits of
negative ones; −0.0 is first turned into +0.0 so that equal numbers have equal
keys).  Searching the keys instead of the values makes every refinement step
divide an interval's width *in representable numbers* by the number of
sub-bins m: an interval shrinks to a single number -- an exact answer -- after
at most ⌈64 / log₂ m⌉ passes over the data, whatever the distribution of the
values (clusters, huge and tiny magnitudes alike).

Each pass is one reduction: every chunk counts (or weighs) its values in the
sub-bins of the intervals still open and returns an array of O(intervals ×
m) numbers; the client adds them and narrows the intervals.  Nothing of size
O(rows) leaves a worker.

:class:`RankSearch` finds, for given masses L, the smallest value v with
``mass(x <= v) >= L`` (a weighted lower quantile; the k-th largest score is
the case L = n − k + 1 with unit weights).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["float_keys", "keys_to_float", "RankSearch", "interval_counts", "passes_to_single_key"]

_SIGN = np.uint64(1 << 63)


def float_keys(x: np.ndarray) -> np.ndarray:
    """Order-preserving uint64 keys of finite float64 values (−0.0 and +0.0 share a key)."""
    x = np.asarray(x, dtype=np.float64) + 0.0          # −0.0 + 0.0 = +0.0
    bits = x.view(np.uint64)
    return np.where(bits & _SIGN, ~bits, bits | _SIGN)


def keys_to_float(keys) -> np.ndarray:
    """Inverse of :func:`float_keys`."""
    keys = np.asarray(keys, dtype=np.uint64)
    bits = np.where(keys & _SIGN, keys & ~_SIGN, ~keys)
    return bits.view(np.float64)


def passes_to_single_key(m: int) -> int:
    """Passes after which an interval split into m sub-bins per pass is a single key."""
    return math.ceil(64 / math.log2(m))


def interval_counts(values: np.ndarray, weights: np.ndarray | None, columns: np.ndarray, lo: np.ndarray,
                    step: np.ndarray, n_bins: np.ndarray) -> np.ndarray:
    """Mass of ``values[:, columns[t]]`` in each sub-bin of interval t (worker side).

    Interval t covers keys lo[t] + [0, n_bins[t]·step[t]) split into n_bins[t]
    sub-bins of step[t] keys.  Returns (T, max n_bins) float64.  O(T·n) time.
    """
    T = columns.shape[0]
    width = int(n_bins.max(initial=1))
    out = np.zeros((T, width))
    for t in range(T):
        keys = float_keys(values[:, int(columns[t])])
        base = np.uint64(lo[t])
        rel = keys - base                                 # wraps for keys < lo: excluded below
        inside = (keys >= base) & (rel // np.uint64(step[t]) < np.uint64(n_bins[t]))
        sub = (rel[inside] // np.uint64(step[t])).astype(np.intp)
        out[t, : int(n_bins[t])] = np.bincount(sub, weights=None if weights is None else weights[inside],
                                                minlength=int(n_bins[t]))[: int(n_bins[t])]
    return out


class RankSearch:
    """Find, per target t, the smallest value v of column c_t with mass(x <= v) >= L_t.

    Client side of the refinement; the workers run :func:`interval_counts`.

    Parameters
    ----------
    columns : array of int
        Column of each target.
    levels : array of float
        Target masses L_t (in (0, total mass of the column]).
    key_low, key_high : array of uint64
        The smallest and largest key of each target's column (over the rows
        that carry mass).
    bins : int
        Sub-bins per open interval and pass (>= 2).
    """

    def __init__(self, columns, levels, key_low, key_high, *, bins: int = 1024):
        self.columns = np.asarray(columns, dtype=np.intp)
        self.levels = np.asarray(levels, dtype=np.float64)
        self.lo = [int(v) for v in np.asarray(key_low, dtype=np.uint64)]
        self.hi = [int(v) for v in np.asarray(key_high, dtype=np.uint64)]
        self.below = np.zeros(self.columns.shape[0])          # mass with key < lo
        self.bins = int(bins)
        if self.bins < 2:
            raise ValueError(f"bins: expected at least 2 sub-bins per pass, got {bins}")
        self.passes = 0

    @property
    def done(self) -> bool:
        return all(a == b for a, b in zip(self.lo, self.hi))

    def request(self):
        """(columns, lo, step, n_bins) of the open intervals, for :func:`interval_counts`."""
        open_ = [t for t in range(len(self.lo)) if self.lo[t] != self.hi[t]]
        steps = [(self.hi[t] - self.lo[t]) // self.bins + 1 for t in open_]
        n_bins = [(self.hi[t] - self.lo[t]) // s + 1 for t, s in zip(open_, steps)]
        self._open = open_
        self._steps = steps
        return (self.columns[open_], np.array([self.lo[t] for t in open_], dtype=np.uint64),
                np.array(steps, dtype=np.uint64), np.array(n_bins, dtype=np.intp))

    def update(self, counts: np.ndarray) -> None:
        """Narrow every open interval to the sub-bin where its cumulative mass reaches the level."""
        self.passes += 1
        for row, t in enumerate(self._open):
            step = self._steps[row]
            n_bins = (self.hi[t] - self.lo[t]) // step + 1
            mass = counts[row, :n_bins]
            cumulative = self.below[t] + np.cumsum(mass)
            s = int(np.searchsorted(cumulative, self.levels[t], side="left"))
            if s >= n_bins:
                # the level exceeds the mass by rounding: the largest value answers
                s = int(np.flatnonzero(mass > 0)[-1])
            if s > 0:
                self.below[t] = cumulative[s - 1]
            new_lo = self.lo[t] + s * step
            self.hi[t] = min(self.hi[t], new_lo + step - 1)
            self.lo[t] = new_lo

    def values(self) -> np.ndarray:
        """The answers (call when :attr:`done`)."""
        return keys_to_float(np.array(self.lo, dtype=np.uint64))
