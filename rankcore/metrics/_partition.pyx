# Splitting scores by a 0/1 label in one pass.
#
# Design
# ------
# A. Boolean-mask indexing (scores[y == 1], scores[y == 0]) reads the data
#    four times and builds two masks; this writes both sides in one nogil pass
#    into arrays allocated by the caller, which then sorts them in place.

cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
def partition_by_label(const signed char[::1] y,       # IN  0/1 labels
                       const double[::1] scores,       # IN
                       double[::1] pos,                # OUT scores with y == 1, input order
                       double[::1] neg):               # OUT scores with y == 0, input order
    """Copy the scores of the positives into ``pos`` and the rest into ``neg``.

    ``pos`` and ``neg`` must have exactly count_nonzero(y) and the remaining
    number of entries.  O(n) time, no allocation.
    """
    cdef Py_ssize_t n = y.shape[0], idx, a = 0, b = 0
    if scores.shape[0] != n or pos.shape[0] + neg.shape[0] != n:
        raise ValueError("partition_by_label: inconsistent lengths")
    with nogil:
        for idx in range(n):
            if y[idx] != 0:
                if a < pos.shape[0]:
                    pos[a] = scores[idx]
                a += 1
            else:
                if b < neg.shape[0]:
                    neg[b] = scores[idx]
                b += 1
    if a != pos.shape[0] or b != neg.shape[0]:
        raise ValueError(
            f"partition_by_label: expected {pos.shape[0]} positives and {neg.shape[0]} negatives, "
            f"got {a} and {b}"
        )
