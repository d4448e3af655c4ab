# Shared declarations of the precision@k batch kernels (docs/theory/precision_at_k.md).
#
# ``RankWorkspace`` ranks one batch of scores (one sort) and then evaluates,
# without the GIL, any of the four surrogates with a subgradient, the prec@k
# loss with fractional credit at ties, and the Perceptron@k update direction.
# The training loops of ``_sgd_fast`` cimport it and call it once per
# mini-batch:
#
#     from rankcore.precision_at_k._surrogates cimport RankWorkspace, BatchInfo
#     cdef RankWorkspace ws = RankWorkspace(batch_size)
#     with nogil:
#         ws.rank(&scores[0], &y[0], n)
#         value = ws.surrogate(k, SURROGATE_AVG, &grad[0], &info)
#
# Every value and gradient is in *count* units (not divided by k); callers
# normalize.

cdef extern from *:
    """
    #include <algorithm>
    struct rc_ranked { double key; Py_ssize_t index; };
    /* Descending score; equal scores by index only so that the sort is
       deterministic -- tie groups are averaged afterwards, so the index
       order never reaches a result. */
    static inline bool rc_ranked_before(const rc_ranked& a, const rc_ranked& b) {
        return a.key > b.key || (a.key == b.key && a.index < b.index);
    }
    static inline void rc_sort_ranked(rc_ranked* first, Py_ssize_t n) {
        std::sort(first, first + n, rc_ranked_before);
    }
    """
    ctypedef struct rc_ranked:
        double key
        Py_ssize_t index
    void rc_sort_ranked(rc_ranked* first, Py_ssize_t n) noexcept nogil


cdef enum:
    SURROGATE_STRUCT = 0
    SURROGATE_RAMP = 1
    SURROGATE_MAX = 2
    SURROGATE_AVG = 3


cdef struct BatchInfo:
    Py_ssize_t n_pos        # positives in the batch
    Py_ssize_t n_neg        # negatives in the batch
    Py_ssize_t k            # the k used: min(k asked, n_pos)
    Py_ssize_t delta_star   # maximizing Δ of the surrogate (-1: not computed)
    double value            # surrogate value, count units
    double mistakes         # negatives among the k top scores (fractional at ties)


cdef class RankWorkspace:
    cdef Py_ssize_t capacity
    cdef Py_ssize_t n, n_pos, n_neg
    cdef rc_ranked* order        # whole batch, descending scores
    cdef signed char* label      # label of order[r]
    cdef double* pos_s           # positives' scores, descending
    cdef Py_ssize_t* pos_i       # their batch positions
    cdef double* neg_s
    cdef Py_ssize_t* neg_i
    cdef double* pos_suffix      # pos_suffix[j] = sum of pos_s[j:]; size n_pos + 1
    cdef double* neg_prefix      # neg_prefix[m] = sum of neg_s[:m]; size n_neg + 1
    cdef double* member          # top-k membership of order[r] (fractional at ties)

    cdef void rank(self, const double* s, const signed char* y, Py_ssize_t n) noexcept nogil
    cdef double surrogate(self, Py_ssize_t k, int kind, double* grad, BatchInfo* info) noexcept nogil
    cdef double mistakes(self, Py_ssize_t k) noexcept nogil
    cdef double perceptron(self, Py_ssize_t k, int kind, double* grad, BatchInfo* info) noexcept nogil
