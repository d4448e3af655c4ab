"""The per-query push's small levels for a loss without a compiled evaluator: vectorized NumPy over their pairs.

The same sums as ``_query_pair_kernels`` (which needs the loss's ``pairwise_kernel()``), over the same
levels, for a loss written in plain Python (a plugin with vectorized ``value``, ``derivative`` and
``second_derivative`` only).  Asking such a loss for one level's sums costs a few Python calls per level,
tens of thousands per evaluation on many short queries; here the pairs of many levels are gathered in
chunks of at most about ``CHUNK_PAIRS`` pairs, the loss is called once per chunk on every pair's
z = f_i − f_k, and the per-row sums are formed with ``np.bincount``.  A pair is (i, k) with k a row of a
level and i a row above it in the same query; its weight is w_i · a_ik (a_ik = 1, or the gain difference
2^{y_i} − 2^{y_k}).  O(Σ |level| · |rows above|) time, O(rows + chunk) memory: never an I × K array, only
the pairs inside one query and one level-against-rows-above block.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["CHUNK_PAIRS", "negative_sums", "positive_sums"]

#: The most pairs gathered at once (plus at most one level's): a dozen float64/int64 temporaries of this length.
CHUNK_PAIRS = 1 << 18

_LN2 = math.log(2.0)


def _chunks(starts, ends, stops):
    """(first level, end level) of consecutive levels holding about CHUNK_PAIRS pairs each."""
    pairs = (ends - starts) * (stops - ends)
    before = np.cumsum(pairs) - pairs
    total = int(before[-1] + pairs[-1]) if pairs.size else 0
    firsts = np.unique(np.searchsorted(before, np.arange(0, max(total, 1), CHUNK_PAIRS), side="left"))
    firsts = firsts[firsts < pairs.size]
    return list(zip(firsts.tolist(), np.append(firsts[1:], pairs.size).tolist()))


def _pairs(f, w, grades, gain_weighted, starts, ends, stops):
    """(i, k, z, a) of every pair of the levels starts:ends below the rows ends:stops (row k first, i fastest)."""
    below = ends - starts
    above = stops - ends
    count = below * above
    total = int(count.sum())
    level = np.repeat(np.arange(count.shape[0]), count)
    local = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    n_above = above[level]
    k = starts[level] + local // n_above
    i = ends[level] + local % n_above
    z = f[i] - f[k]
    a = w[i]
    if gain_weighted:
        g = grades[k]
        # 2^{y_i} − 2^{y_k} as 2^{y_k} (2^{y_i − y_k} − 1): no cancellation between two large gains.
        a = a * np.exp2(g) * np.expm1((grades[i] - g) * _LN2)
    return i, k, z, a


def _negative_rows(starts, ends):
    """Every row of the levels starts:ends, in order."""
    size = ends - starts
    return np.repeat(starts - (np.cumsum(size) - size), size) + np.arange(int(size.sum()), dtype=np.int64)


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def negative_sums(loss, f, w, grades, gain_weighted, starts, ends, stops, groups, L, D, n_threads=1) -> None:
    """L_k = Σ_i w_i a_ik ℓ(f_i − f_k), D_k = Σ_i w_i a_ik ℓ′(f_i − f_k) on the levels' rows, set in place.

    The arguments are those of ``_query_pair_kernels.negative_sums`` with the loss in place of its
    compiled evaluator (``groups`` and ``n_threads`` are accepted for the same call and unused: the
    loss's NumPy calls are the work).  Rows outside the levels are left alone.
    O(Σ |level| · |rows above|) time, O(rows + CHUNK_PAIRS) memory.
    """
    for lo, hi in _chunks(starts, ends, stops):
        s, e, t = starts[lo:hi], ends[lo:hi], stops[lo:hi]
        i, k, z, a = _pairs(f, w, grades, gain_weighted, s, e, t)
        base, span = int(s[0]), int(t[-1] - s[0])
        rows = _negative_rows(s, e)
        L[rows] = np.bincount(k - base, a * _f64(loss.value(z)), minlength=span)[rows - base]
        D[rows] = np.bincount(k - base, a * _f64(loss.derivative(z)), minlength=span)[rows - base]


def positive_sums(loss, f, w, grades, gain_weighted, starts, ends, stops, groups, c, c2, order, E, P, N,
                  n_threads=1) -> None:
    """The positives' sums of ``_query_pair_kernels.positive_sums``, by the loss's NumPy methods.

    With b_ik = w_i a_ik: E_i += Σ_k b_ik c_k ℓ′ (the rows above the levels); with ``order`` 2 also
    P_i += Σ_k b_ik (b_ik c2_k ℓ′² + c_k ℓ″) and, on the levels' rows, N_k = Σ_i b_ik ℓ″ where c_k or
    c2_k is nonzero (0 elsewhere).  ``groups`` and ``n_threads`` are unused (see :func:`negative_sums`).
    O(Σ |level| · |rows above|) time, O(rows + CHUNK_PAIRS) memory.
    """
    second = order == 2
    for lo, hi in _chunks(starts, ends, stops):
        s, e, t = starts[lo:hi], ends[lo:hi], stops[lo:hi]
        i, k, z, a = _pairs(f, w, grades, gain_weighted, s, e, t)
        base, span = int(s[0]), int(t[-1] - s[0])
        d1 = _f64(loss.derivative(z))
        ck = c[k]
        E[base:base + span] += np.bincount(i - base, a * ck * d1, minlength=span)
        if not second:
            continue
        d2 = _f64(loss.second_derivative(z))
        P[base:base + span] += np.bincount(i - base, a * (a * c2[k] * d1 * d1 + ck * d2), minlength=span)
        rows = _negative_rows(s, e)
        sums = np.bincount(k - base, a * d2, minlength=span)[rows - base]
        N[rows] = np.where((c[rows] != 0) | (c2[rows] != 0), sums, 0.0)
