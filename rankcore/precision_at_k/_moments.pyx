"""The column means and standard deviations of SGD@k's standardization, in two reads of X.

Design
------
A. Bit for bit NumPy's ``(X / unit).mean(axis=0)`` and ``.std(axis=0)`` on
   a C-ordered matrix: NumPy reduces over the rows one row after the other
   from 0.0 (``total = total + row``), which is the loop here, so the
   fitted models are exactly those of NumPy's expressions.  (A single column
   is contiguous and NumPy sums it pairwise: the caller keeps NumPy for d = 1.)
B. Two reads of X and O(d) memory: the sums of X / unit, then the sums of
   the squared deviations from their mean -- the two-pass variance NumPy
   computes, without its three temporaries the size of X, whose allocation
   and first touch cost more than the arithmetic.
C. Division, not multiplication by 1 / unit: the same rounding as NumPy's
   division also where 1 / unit is not a float64 (unit = 2**1023).
"""

import numpy as np

cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
def scaled_column_moments(const double[:, ::1] X,      # IN (n, d), C-ordered
                          const double[::1] unit):     # IN (d,), powers of two
    """``((X / unit).mean(axis=0), (X / unit).std(axis=0))``, equal bit for bit to NumPy's (Design A).

    Time O(n·d) in two reads of X, memory O(d).
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j
    total_arr = np.zeros(d)
    deviation_arr = np.zeros(d)
    mean_arr = np.empty(d)
    cdef double[::1] total = total_arr, deviation = deviation_arr, mean = mean_arr
    cdef double z
    with nogil:
        for i in range(n):
            for j in range(d):
                total[j] = total[j] + X[i, j] / unit[j]
        for j in range(d):
            mean[j] = total[j] / n
        for i in range(n):
            for j in range(d):
                z = X[i, j] / unit[j] - mean[j]
                deviation[j] = deviation[j] + z * z
    return mean_arr, np.sqrt(deviation_arr / n)
