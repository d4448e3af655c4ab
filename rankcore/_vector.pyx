# Design
# ------
# A. The dot products of the fits' row vectors (a line search's slope, an
#    objective's value) without BLAS.  ``np.dot`` of two float64 vectors calls
#    NumPy's OpenBLAS, which splits a vector of more than about 10,000 entries
#    over its own pool of threads; that pool then busy-waits for a while after
#    the call.  A single such call per fit is enough to keep a spinning
#    thread on the other core of a two-core machine while the trees' own
#    second thread needs it: on 19,111 rows × 47 columns it took away all
#    that the grower's second thread gave.
# B. A fixed order of additions: four running sums over the entries i ≡ 0, 1,
#    2, 3 (mod 4), then (s0 + s1) + (s2 + s3) -- the same bits on every
#    machine and thread count (a threaded BLAS dot's bits follow its threads).

import numpy as np



cdef double _dot(const double* a, const double* b, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    while i + 4 <= n:
        s0 = s0 + a[i] * b[i]
        s1 = s1 + a[i + 1] * b[i + 1]
        s2 = s2 + a[i + 2] * b[i + 2]
        s3 = s3 + a[i + 3] * b[i + 3]
        i = i + 4
    if i < n:
        s0 = s0 + a[i] * b[i]
    if i + 1 < n:
        s1 = s1 + a[i + 1] * b[i + 1]
    if i + 2 < n:
        s2 = s2 + a[i + 2] * b[i + 2]
    return (s0 + s1) + (s2 + s3)


def _dot_kernel(const double[::1] a, const double[::1] b):
    """Σ_i a_i·b_i over the n = len(a) entries in :func:`dot`'s fixed order (``b`` must hold at least n).

    O(n) time, O(1) extra memory; releases the GIL.
    """
    cdef Py_ssize_t n = a.shape[0]
    cdef double out = 0.0
    if n > 0:
        with nogil:
            out = _dot(&a[0], &b[0], n)
    return out


def dot(a, b):
    """Σ_i a_i·b_i of two 1-D vectors of the same length, as a float, on the calling thread without BLAS.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Converted to contiguous float64 (a copy only where they are not).

    Returns
    -------
    float
        The sum, added in a fixed order: four running sums over the entries
        i mod 4 = 0, 1, 2, 3, then (s0 + s1) + (s2 + s3); 0.0 for n = 0.  NaN
        and inf propagate as in any sum of products.

    Raises
    ------
    ValueError
        When ``a`` or ``b`` is not one-dimensional or their lengths differ.

    Notes
    -----
    ``np.dot`` hands long vectors to a threaded BLAS whose threads then spin
    on the machine's other cores; this one stays on the caller's thread and
    releases the GIL.  O(n) time, O(1) extra memory.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"dot: expected two 1-D vectors of the same length, got shapes {x.shape} and {y.shape}")
    return _dot_kernel(np.ascontiguousarray(x), np.ascontiguousarray(y))
