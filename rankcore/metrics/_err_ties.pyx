"""ERR@k's expected stops inside tied groups, one compiled pass per group (``_query_kernels._tied_stops``).

The NumPy form stepped through a group's rows in Python, one step a row of
the largest group: 11 s for one tie of 1.6 million rows at k = 10.
"""

from libc.math cimport ceil, log
from libc.stdlib cimport free, malloc
from libc.stdint cimport int64_t

#: The slots read past t are worth at most E_t <= mean(x)^t (Maclaurin's inequality): below 2^-60 they are dropped.
cdef double _NEGLIGIBLE_LOG = -60.0 * 0.6931471805599453


def tied_stops(const double[::1] stop, const int64_t[::1] first, const int64_t[::1] size,
               const int64_t[::1] slots, const double[::1] place, double[::1] out):
    """Per tie group g, Σ_{t < slots_g} (E_t − E_{t+1}) / (place_g + t + 1) into ``out[g]`` (OUT).

    ``stop[first_g : first_g + size_g]`` are the group's stop probabilities
    (rows in ranking order); E_t is the mean over t-subsets of the product of
    their continue probabilities x = 1 − stop (E_0 = 1), built row by row:
    adding the j-th row, E_t ← ((j − t)/j)·E_t + (t/j)·x_j·E_{t−1}, every term
    in [0, 1].  Slots past the first t with mean(x)^t < 2^-60 are left out:
    E_t <= mean(x)^t (Maclaurin's inequality), so together they are worth
    less than that.  O(Σ_g size_g · min(slots_g, T_g)) time with T_g = 42 /
    −ln mean(x) (a fractional k on a long tie need not be quadratic), O(max
    slots) extra memory.
    """
    cdef Py_ssize_t n_groups = first.shape[0], g
    cdef int64_t width = 1, j, t, top, m, w
    cdef double x, total
    cdef double* E
    for g in range(n_groups):
        if slots[g] + 1 > width:
            width = slots[g] + 1
    E = <double*> malloc(width * sizeof(double))
    if E == NULL:
        raise MemoryError(f"tied_stops: {width} doubles")
    try:
        with nogil:
            for g in range(n_groups):
                m = size[g]
                w = slots[g]
                total = 0.0
                for j in range(m):
                    total += 1.0 - stop[first[g] + j]
                x = total / m if m > 0 else 1.0
                if x < 1.0:
                    if x <= 0.0:
                        w = 1 if w > 1 else w
                    elif ceil(_NEGLIGIBLE_LOG / log(x)) + 1.0 < <double> w:
                        w = <int64_t> ceil(_NEGLIGIBLE_LOG / log(x)) + 1
                E[0] = 1.0
                for t in range(1, w + 1):
                    E[t] = 0.0
                for j in range(1, m + 1):
                    x = 1.0 - stop[first[g] + j - 1]
                    top = j if j < w else w
                    t = top
                    while t >= 1:                 # downwards: E_{t-1} is still the previous row's
                        E[t] = (<double> (j - t) / j) * E[t] + (<double> t / j) * x * E[t - 1]
                        t -= 1
                total = 0.0
                for t in range(w):
                    total += (E[t] - E[t + 1]) / (place[g] + 1.0 + t)
                out[g] = total
    finally:
        free(E)
