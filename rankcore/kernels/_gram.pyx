# Design
# ------
# A. Gram matrices are built in one m x m (or n x r) buffer, in place:
#    inner products first (BLAS ``dsyrk``/``dgemm`` from SciPy's OpenBLAS, the
#    pool the spectral path uses too), then one parallel elementwise pass that
#    turns them into kernel values.  No temporaries of the output's size, so
#    exact kernel ranking on tens of thousands of points needs one m^2 buffer.
# B. A symmetric Gram matrix (K(X, X)) is computed on one triangle and
#    mirrored tile by tile, so it is exactly symmetric (the LAPACK
#    tridiagonalization only reads one triangle, but the reference paths and
#    users may read both) and the kernel function runs m(m+1)/2 times.
# C. Squared distances come from |x|^2 + |y|^2 - 2<x, y>, clipped at 0; the
#    Python wrapper centers the rows first (distances are translation
#    invariant) so the cancellation error stays at eps * spread, not
#    eps * |offset|^2.  The diagonal of K(X, X) is set to exp(0) = 1 exactly.
# D. L1 distances (Laplacian) have no BLAS form: a direct O(n_x n_y d) loop,
#    parallel over rows.
# E. Every function takes ``n_threads``; the loops are ``prange`` with a
#    static schedule over rows (dynamic for triangles, whose rows differ).
#    Below GRAM_PARALLEL_ENTRIES entries (a few hundred microseconds of
#    exponentials) a call runs on one thread: waking a sleeping thread costs
#    tens of microseconds on a busy machine, and ``Kernel.diagonal`` calls
#    ``compute`` once per row.  Every entry is computed alone, so the result
#    does not depend on the threads.

from cython.parallel cimport prange
from libc.math cimport exp, fabs, pow
from scipy.linalg.cython_blas cimport dgemm, dsyrk

from rankcore._parallel cimport threads_for

import numpy as np

cdef Py_ssize_t _TILE = 64
# Entries (n * r, times d for the L1 distances) from which a pass runs on n_threads.
cdef double GRAM_PARALLEL_ENTRIES = 65536.0


def inner_products(const double[:, ::1] X, const double[:, ::1] Y, bint symmetric):
    """Row-major ``X @ Y.T`` (``dgemm``), or its lower triangle when ``symmetric`` (``dsyrk``, Y ignored).

    X : (n, d)  # IN;  Y : (r, d)  # IN.  Returns (n, r), or (n, n) with only the
    lower triangle (j <= i) defined.  2 n r d flops (n^2 d when symmetric); O(n r) memory: the output.
    """
    cdef int n = <int>X.shape[0], d = <int>X.shape[1]
    cdef int r = n if symmetric else <int>Y.shape[0]
    out_arr = np.empty((n, r))
    cdef double[:, ::1] out = out_arr
    cdef double one = 1.0, zero = 0.0
    cdef char tr = b'T', nn = b'N', up = b'U'
    if n == 0 or r == 0:
        return out_arr
    if d == 0:
        out_arr.fill(0.0)
        return out_arr
    with nogil:
        if symmetric:
            # Column-major: C (n x n) = A^T A with A = X^T (d x n); its upper
            # triangle is the row-major lower triangle.
            dsyrk(&up, &tr, &n, &d, &one, <double*>&X[0, 0], &d, &zero, &out[0, 0], &n)
        else:
            # Column-major out^T (r x n) = Y X^T.
            dgemm(&tr, &nn, &r, &n, &d, &one, <double*>&Y[0, 0], &d, <double*>&X[0, 0], &d,
                  &zero, &out[0, 0], &r)
    return out_arr


cdef inline double _rbf_value(double sq_x, double sq_y, double inner, double inv_gamma) noexcept nogil:
    cdef double d2 = sq_x + sq_y - 2.0 * inner
    if d2 < 0.0:
        d2 = 0.0
    return exp(-d2 * inv_gamma)


cdef inline double _poly_value(double inner, double inv_gamma, double coef0, double degree) noexcept nogil:
    return pow(inner * inv_gamma + coef0, degree)


cdef void _mirror_lower(double[:, ::1] out, int n_threads) noexcept nogil:
    """Copy the lower triangle onto the upper one, tile by tile (cache friendly)."""
    cdef Py_ssize_t n = out.shape[0]
    cdef Py_ssize_t n_tiles = (n + _TILE - 1) // _TILE
    cdef Py_ssize_t ti, tj, i, j, i_end, j_end
    for ti in prange(n_tiles, schedule="dynamic", num_threads=n_threads):
        i_end = min((ti + 1) * _TILE, n)
        for tj in range(ti + 1):
            j_end = min((tj + 1) * _TILE, n)
            for j in range(tj * _TILE, j_end):
                for i in range(max(ti * _TILE, j + 1), i_end):
                    out[j, i] = out[i, j]


def rbf_inplace(double[:, ::1] G, const double[::1] sq_x, const double[::1] sq_y,
                double inv_gamma, bint symmetric, int n_threads):
    """Turn inner products into exp(-|x - y|^2 * inv_gamma), in place.

    G : (n, r) inner products <x_i, y_j>  # IN/OUT (lower triangle only when symmetric)
    sq_x : (n,) squared row norms of X    # IN
    sq_y : (r,) squared row norms of Y    # IN
    O(n r) exponentials (n(n+1)/2 when symmetric), parallel over rows.
    """
    cdef Py_ssize_t n = G.shape[0], r = G.shape[1], i, j
    n_threads = threads_for(<double> n * r, n_threads, GRAM_PARALLEL_ENTRIES)
    with nogil:
        if symmetric:
            for i in prange(n, schedule="dynamic", num_threads=n_threads):
                for j in range(i):
                    G[i, j] = _rbf_value(sq_x[i], sq_x[j], G[i, j], inv_gamma)
                G[i, i] = 1.0
            _mirror_lower(G, n_threads)
        else:
            for i in prange(n, schedule="static", num_threads=n_threads):
                for j in range(r):
                    G[i, j] = _rbf_value(sq_x[i], sq_y[j], G[i, j], inv_gamma)


def poly_inplace(double[:, ::1] G, double inv_gamma, double coef0, double degree,
                 bint symmetric, int n_threads):
    """Turn inner products into (<x, y> * inv_gamma + coef0) ** degree, in place.

    G : (n, r)  # IN/OUT (lower triangle only when symmetric).  O(n r).
    """
    cdef Py_ssize_t n = G.shape[0], r = G.shape[1], i, j
    n_threads = threads_for(<double> n * r, n_threads, GRAM_PARALLEL_ENTRIES)
    with nogil:
        if symmetric:
            for i in prange(n, schedule="dynamic", num_threads=n_threads):
                for j in range(i + 1):
                    G[i, j] = _poly_value(G[i, j], inv_gamma, coef0, degree)
            _mirror_lower(G, n_threads)
        else:
            for i in prange(n, schedule="static", num_threads=n_threads):
                for j in range(r):
                    G[i, j] = _poly_value(G[i, j], inv_gamma, coef0, degree)


def mirror_lower(double[:, ::1] G, int n_threads):
    """Make a square matrix symmetric by copying its lower triangle upward.  G  # IN/OUT.

    O(n²) time for an (n, n) matrix, in 64 × 64 tiles, parallel over tile rows; O(1) extra memory.
    """
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"mirror_lower: expected a square matrix, got shape {tuple(G.shape)[:2]}")
    n_threads = threads_for(<double> G.shape[0] * G.shape[0], n_threads, GRAM_PARALLEL_ENTRIES)
    with nogil:
        _mirror_lower(G, n_threads)


cdef inline double _l1(const double[:, ::1] X, Py_ssize_t i, const double[:, ::1] Y, Py_ssize_t j,
                       Py_ssize_t d) noexcept nogil:
    cdef double s = 0.0
    cdef Py_ssize_t k
    for k in range(d):
        s += fabs(X[i, k] - Y[j, k])
    return s


def laplacian(const double[:, ::1] X, const double[:, ::1] Y, double inv_gamma, bint symmetric,
              int n_threads):
    """exp(-|x - y|_1 * inv_gamma) for every pair of rows (Y ignored when ``symmetric``).

    X : (n, d)  # IN;  Y : (r, d)  # IN.  Returns (n, r)  # OUT.  O(n r d), parallel over rows;
    O(n r) memory: the output.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t r = n if symmetric else Y.shape[0]
    cdef Py_ssize_t i, j
    out_arr = np.empty((n, r))
    cdef double[:, ::1] out = out_arr
    n_threads = threads_for(<double> n * r * d, n_threads, GRAM_PARALLEL_ENTRIES)
    with nogil:
        if symmetric:
            for i in prange(n, schedule="dynamic", num_threads=n_threads):
                for j in range(i):
                    out[i, j] = exp(-_l1(X, i, X, j, d) * inv_gamma)
                out[i, i] = 1.0
            _mirror_lower(out, n_threads)
        else:
            for i in prange(n, schedule="static", num_threads=n_threads):
                for j in range(r):
                    out[i, j] = exp(-_l1(X, i, Y, j, d) * inv_gamma)
    return out_arr
