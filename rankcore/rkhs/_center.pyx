# Design
# ------
# A. The ranking operator (docs/theory/kernel_ranking.md#computation) is A = P K P / m with the centering
#    projector P = I - 11^T/m.  Forming it in place (two passes over the
#    m x m buffer, parallel over rows) avoids the three temporaries that
#    ``K - K.mean(0) - K.mean(1)[:, None] + K.mean()`` allocates: at
#    m = 20,000 each is 3.2 GB.
# B. K is symmetric, so its column means are its row means.  The entry
#    ((K_ij - r_i) - r_j + mu) / m is not symmetric in floating point (the
#    subtraction order differs), so the lower triangle is computed and
#    copied upward: the result is exactly symmetric.

from cython.parallel cimport prange

import numpy as np

from ..kernels._gram import mirror_lower


def center_inplace(double[:, ::1] K, int n_threads):
    """Overwrite a symmetric K (m x m) with P K P / m; return the row means of K.

    K : (m, m)  # IN/OUT.  O(m^2) time, O(m) extra memory.
    """
    cdef Py_ssize_t m = K.shape[0], i, j
    if K.shape[1] != m:
        raise ValueError(f"center_inplace: expected a square matrix, got shape {tuple(K.shape)[:2]}")
    means_arr = np.zeros(m)
    cdef double[::1] means = means_arr
    cdef double s, mu = 0.0, inv_m
    if m == 0:
        return means_arr
    inv_m = 1.0 / m
    with nogil:
        for i in prange(m, schedule="static", num_threads=n_threads):
            s = 0.0
            for j in range(m):
                s = s + K[i, j]
            means[i] = s * inv_m
        for i in range(m):
            mu += means[i]
        mu *= inv_m
        for i in prange(m, schedule="dynamic", num_threads=n_threads):
            for j in range(i + 1):
                K[i, j] = (((K[i, j] - means[i]) - means[j]) + mu) * inv_m
    mirror_lower(K, n_threads)  # tiled copy of the lower triangle upward
    return means_arr
