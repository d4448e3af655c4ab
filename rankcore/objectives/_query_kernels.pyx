"""Running log-sum-exps over the grade levels of each query (the per-query push's suffix and prefix sums).

The per-query push works on one number per (query, grade level): a
log-sum-exp of its rows' exponentials.  Its sums "over every higher level" and
"over every lower level" are running log-sum-exps along the levels of one
query, restarted at each query.  NumPy's ``logaddexp.accumulate`` cannot
restart, and shifting each query by its maximum before summing in linear
space loses levels more than e^708 below the top (scores of magnitude 700),
so the running sums are kept as logarithms here: O(levels), one exp and one
log1p per level.
"""

from libc.math cimport exp, log1p, INFINITY
from libc.stdint cimport int64_t


cdef inline double _logaddexp(double a, double b) noexcept nogil:
    if a == -INFINITY:
        return b
    if b == -INFINITY:
        return a
    if a >= b:
        return a + log1p(exp(b - a))
    return b + log1p(exp(a - b))


def running_lse(const double[::1] a,          # IN
                const int64_t[::1] bounds,    # IN
                bint reverse, bint inclusive,
                double[::1] out):             # OUT
    """Running log-sum-exp of ``a`` within each query's levels, into ``out``.

    Parameters
    ----------
    a : ndarray of float64, shape (n_levels,)
        One log-value per (query, level), the levels of a query contiguous and
        in ascending grade order; ``-inf`` for an empty sum.
    bounds : ndarray of int64, shape (n_queries + 1,)
        Query q owns the levels ``bounds[q]:bounds[q + 1]``.
    reverse : bool
        False: sums over the levels below (prefix); True: over the levels
        above (suffix).
    inclusive : bool
        Whether a level's own value is part of its sum.
    out : ndarray of float64, shape (n_levels,)
        Written; ``-inf`` where the sum is empty.
    """
    cdef Py_ssize_t q, j, k, lo, hi
    cdef double acc
    with nogil:
        for q in range(bounds.shape[0] - 1):
            lo = bounds[q]
            hi = bounds[q + 1]
            acc = -INFINITY
            for k in range(hi - lo):
                j = hi - 1 - k if reverse else lo + k
                if inclusive:
                    acc = _logaddexp(acc, a[j])
                    out[j] = acc
                else:
                    out[j] = acc
                    acc = _logaddexp(acc, a[j])
