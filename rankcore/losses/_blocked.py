"""Exact pairwise sums for any loss: the Cython kernel or a blocked NumPy loop.

The default pairwise sums of :class:`rankcore.Loss` land here.  A loss that
provides a nogil ``PairwiseLoss`` evaluator (``pairwise_kernel()``) runs in the
parallel Cython kernel of ``_pairwise.pyx``.  A loss written in plain Python
(vectorized ``value``/``derivative``/``second_derivative``) runs in the blocked
NumPy loop below: tiles of at most ``BLOCK_PAIRS`` pairs, so memory stays
O(I + K) plus one tile per thread, and the tiles of different output blocks run
on ``n_threads`` threads (NumPy's ufuncs release the GIL).  Both visit every
pair: O(I·K) time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: Pairs evaluated per tile by the NumPy fallback (2 MiB per float64 temporary).
BLOCK_PAIRS = 1 << 18

__all__ = ["negative_sums", "positive_sums", "directional_sums", "curvature_sums", "BLOCK_PAIRS"]


def _f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _ranges(n: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(s + size, n)) for s in range(0, n, size)]


def _run(jobs, n_threads: int) -> None:
    if n_threads <= 1 or len(jobs) <= 1:
        for job in jobs:
            job()
        return
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        for future in [pool.submit(job) for job in jobs]:
            future.result()


def _tiles(n_out: int, n_in: int) -> tuple[int, int]:
    """Output-block and input-block sizes with at most BLOCK_PAIRS pairs per tile."""
    in_size = max(1, min(n_in, BLOCK_PAIRS))
    out_size = max(1, BLOCK_PAIRS // in_size)
    return out_size, in_size


def negative_sums(loss, f_pos, w_pos, f_neg, *, n_threads=1):
    f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
    L = np.zeros(f_neg.shape[0])
    D = np.zeros(f_neg.shape[0])
    kernel = loss.pairwise_kernel()
    if kernel is not None:
        from . import _pairwise

        _pairwise.negative_sums(kernel, f_pos, w_pos, f_neg, L, D, int(n_threads))
        return L, D
    out_size, in_size = _tiles(f_neg.shape[0], f_pos.shape[0])

    def job(k0, k1):
        for i0, i1 in _ranges(f_pos.shape[0], in_size):
            z = f_pos[None, i0:i1] - f_neg[k0:k1, None]
            w = w_pos[None, i0:i1]
            L[k0:k1] += (w * np.asarray(loss.value(z), dtype=np.float64)).sum(axis=1)
            D[k0:k1] += (w * np.asarray(loss.derivative(z), dtype=np.float64)).sum(axis=1)

    _run([lambda a=a, b=b: job(a, b) for a, b in _ranges(f_neg.shape[0], out_size)], n_threads)
    return L, D


def positive_sums(loss, f_pos, f_neg, c_neg, *, n_threads=1):
    f_pos, f_neg, c_neg = _f64(f_pos), _f64(f_neg), _f64(c_neg)
    E = np.zeros(f_pos.shape[0])
    kernel = loss.pairwise_kernel()
    if kernel is not None:
        from . import _pairwise

        _pairwise.positive_sums(kernel, f_pos, f_neg, c_neg, E, int(n_threads))
        return E
    out_size, in_size = _tiles(f_pos.shape[0], f_neg.shape[0])

    def job(i0, i1):
        for k0, k1 in _ranges(f_neg.shape[0], in_size):
            z = f_pos[i0:i1, None] - f_neg[None, k0:k1]
            E[i0:i1] += (c_neg[None, k0:k1] * np.asarray(loss.derivative(z), dtype=np.float64)).sum(axis=1)

    _run([lambda a=a, b=b: job(a, b) for a, b in _ranges(f_pos.shape[0], out_size)], n_threads)
    return E


def directional_sums(loss, f_pos, w_pos, h_pos, f_neg, h_neg, *, n_threads=1):
    f_pos, w_pos, h_pos = _f64(f_pos), _f64(w_pos), _f64(h_pos)
    f_neg, h_neg = _f64(f_neg), _f64(h_neg)
    K = f_neg.shape[0]
    L, L1, L2 = np.zeros(K), np.zeros(K), np.zeros(K)
    second = loss.has_second_derivative
    kernel = loss.pairwise_kernel()
    if kernel is not None:
        from . import _pairwise

        _pairwise.directional_sums(kernel, f_pos, w_pos, h_pos, f_neg, h_neg, L, L1, L2,
                                   2 if second else 1, int(n_threads))
        if not second:
            L2[:] = np.nan
        return L, L1, L2
    out_size, in_size = _tiles(K, f_pos.shape[0])

    def job(k0, k1):
        for i0, i1 in _ranges(f_pos.shape[0], in_size):
            z = f_pos[None, i0:i1] - f_neg[k0:k1, None]
            delta = h_pos[None, i0:i1] - h_neg[k0:k1, None]
            w = w_pos[None, i0:i1]
            L[k0:k1] += (w * np.asarray(loss.value(z), dtype=np.float64)).sum(axis=1)
            L1[k0:k1] += (w * np.asarray(loss.derivative(z), dtype=np.float64) * delta).sum(axis=1)
            if second:
                L2[k0:k1] += (w * np.asarray(loss.second_derivative(z), dtype=np.float64) * delta * delta).sum(axis=1)

    _run([lambda a=a, b=b: job(a, b) for a, b in _ranges(K, out_size)], n_threads)
    if not second:
        L2[:] = np.nan
    return L, L1, L2


def curvature_sums(loss, f_pos, w_pos, f_neg, c1_neg, c2_neg, *, n_threads=1):
    """P_i = Σ_k (w_i c2_k ℓ′² + c1_k ℓ″) and N_k = Σ_i w_i ℓ″, pair by pair in tiles.  O(I·K), O(I + K) memory."""
    f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
    c1_neg, c2_neg = _f64(c1_neg), _f64(c2_neg)
    I, K = f_pos.shape[0], f_neg.shape[0]
    P, N = np.zeros(I), np.zeros(K)
    out_size, in_size = _tiles(I, K)

    def job_pos(i0, i1):
        for k0, k1 in _ranges(K, in_size):
            z = f_pos[i0:i1, None] - f_neg[None, k0:k1]
            d1 = np.asarray(loss.derivative(z), dtype=np.float64)
            d2 = np.asarray(loss.second_derivative(z), dtype=np.float64)
            P[i0:i1] += (w_pos[i0:i1, None] * c2_neg[None, k0:k1] * d1 * d1 + c1_neg[None, k0:k1] * d2).sum(axis=1)

    out_k, in_i = _tiles(K, I)

    def job_neg(k0, k1):
        for i0, i1 in _ranges(I, in_i):
            z = f_pos[None, i0:i1] - f_neg[k0:k1, None]
            d2 = np.asarray(loss.second_derivative(z), dtype=np.float64)
            N[k0:k1] += (w_pos[None, i0:i1] * d2).sum(axis=1)

    _run([lambda a=a, b=b: job_pos(a, b) for a, b in _ranges(I, out_size)]
         + [lambda a=a, b=b: job_neg(a, b) for a, b in _ranges(K, out_k)], n_threads)
    return P, N
