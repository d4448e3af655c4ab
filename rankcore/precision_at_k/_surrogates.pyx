# distutils: language = c++
"""Precision@k surrogates and the Perceptron@k rule on one batch (docs/theory/precision_at_k.md).

Design
------
A. One sort per batch.  ``rank`` sorts the batch once by descending score
   (O(n log n)) and splits it into the positives' and the negatives' sorted
   lists; every quantity afterwards is a linear scan of those lists.
B. The Δ-decomposition (docs/theory/precision_at_k.md#fast-evaluation): each surrogate is the maximum over the
   number Δ of negatives in a candidate labelling of a closed form in the
   prefix sums N_Δ of the top negative scores and the suffix sums of the
   positive scores (suffix rather than prefix sums, so that "the sum of the
   lowest m positives" is not the difference of two large numbers).
C. Ties are never broken by array position.  A subgradient is built on the
   sorted lists (+1 on the Δ* top negatives, a constant on a rank interval of
   positives), then averaged over every group of equal scores.  An average of
   subgradients is a subgradient, so this is still one, and the result does
   not depend on the order of the input.  The top k of the merged ranking
   (the prec@k loss, the perceptron's false positives and negatives) gives
   each member of a tie group straddling rank k the same fractional
   membership: the expected value under a random order of the ties.
D. Count units: values and gradients are not divided by k; the Python
   wrappers and the training loops normalize.  k is capped at the number of
   positives (the surrogates are defined for k <= n₊; with fewer positives
   than k the best ranking puts all of them on top, which is the k = n₊
   problem).
E. ``noexcept nogil`` methods on caller-owned buffers (allocated once, for
   the largest batch), so that the training loops of ``_sgd_fast`` run a
   whole epoch without the GIL.

Complexity per batch of n scores: time O(n log n) for ``rank``, O(n) for each
of ``surrogate``, ``mistakes`` and ``perceptron``; memory O(n), allocated
once per workspace.
"""

from libc.stdlib cimport malloc, free
from libc.math cimport fmin, fmax

import numpy as np

# --------------------------------------------------------------------------
# Per-element helpers
# --------------------------------------------------------------------------


cdef inline double interval_share(Py_ssize_t a, Py_ssize_t b, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Fraction of the rank group [a, b) that lies in the rank interval [lo, hi)."""
    cdef Py_ssize_t left = a if a > lo else lo
    cdef Py_ssize_t right = b if b < hi else hi
    if right <= left:
        return 0.0
    return <double>(right - left) / <double>(b - a)


cdef inline Py_ssize_t group_end(const double* values, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    """End of the run of values equal to values[start] in a sorted array."""
    cdef Py_ssize_t end = start + 1
    while end < n and values[end] == values[start]:
        end += 1
    return end


cdef inline void spread_interval(const double* values, const Py_ssize_t* index, Py_ssize_t n,
                                 Py_ssize_t lo, Py_ssize_t hi, double coef, double* grad) noexcept nogil:
    """grad[index[r]] += coef on ranks r in [lo, hi), averaged over tie groups of ``values``.

    Only the groups that overlap [lo, hi) are visited: O(hi - lo + tie-group sizes).
    """
    cdef Py_ssize_t a, b
    cdef double share
    if hi <= lo or coef == 0.0:
        return
    # start at the beginning of the tie group holding rank lo
    a = lo
    while a > 0 and values[a - 1] == values[lo]:
        a -= 1
    while a < hi:
        b = group_end(values, a, n)
        share = coef * interval_share(a, b, lo, hi)
        if share != 0.0:
            for r in range(a, b):
                grad[index[r]] += share
        a = b


# --------------------------------------------------------------------------
# The workspace
# --------------------------------------------------------------------------


cdef class RankWorkspace:
    """Buffers and kernels for batches of at most ``capacity`` scores.

    Parameters
    ----------
    capacity : int
        The largest batch this workspace will rank.
    """

    def __cinit__(self, Py_ssize_t capacity):
        if capacity < 1:
            raise ValueError(f"capacity: expected a positive batch size, got {capacity}")
        self.capacity = capacity
        self.n = self.n_pos = self.n_neg = 0
        self.order = <rc_ranked*> malloc(capacity * sizeof(rc_ranked))
        self.label = <signed char*> malloc(capacity * sizeof(signed char))
        self.pos_s = <double*> malloc(capacity * sizeof(double))
        self.pos_i = <Py_ssize_t*> malloc(capacity * sizeof(Py_ssize_t))
        self.neg_s = <double*> malloc(capacity * sizeof(double))
        self.neg_i = <Py_ssize_t*> malloc(capacity * sizeof(Py_ssize_t))
        self.pos_suffix = <double*> malloc((capacity + 1) * sizeof(double))
        self.neg_prefix = <double*> malloc((capacity + 1) * sizeof(double))
        self.member = <double*> malloc(capacity * sizeof(double))
        if (self.order == NULL or self.label == NULL or self.pos_s == NULL or self.pos_i == NULL
                or self.neg_s == NULL or self.neg_i == NULL or self.pos_suffix == NULL
                or self.neg_prefix == NULL or self.member == NULL):
            raise MemoryError(f"RankWorkspace: cannot allocate buffers for {capacity} scores")

    def __dealloc__(self):
        free(self.order)
        free(self.label)
        free(self.pos_s)
        free(self.pos_i)
        free(self.neg_s)
        free(self.neg_i)
        free(self.pos_suffix)
        free(self.neg_prefix)
        free(self.member)

    cdef void rank(self, const double* s, const signed char* y, Py_ssize_t n) noexcept nogil:
        """Sort the batch (scores ``s`` # IN, 0/1 labels ``y`` # IN, n <= capacity); O(n log n)."""
        cdef Py_ssize_t r, i, p = 0, q = 0
        self.n = n
        for i in range(n):
            self.order[i].key = s[i]
            self.order[i].index = i
        rc_sort_ranked(self.order, n)
        for r in range(n):
            i = self.order[r].index
            self.label[r] = y[i]
            if y[i]:
                self.pos_s[p] = self.order[r].key
                self.pos_i[p] = i
                p += 1
            else:
                self.neg_s[q] = self.order[r].key
                self.neg_i[q] = i
                q += 1
        self.n_pos = p
        self.n_neg = q
        self.pos_suffix[p] = 0.0
        for r in range(p - 1, -1, -1):
            self.pos_suffix[r] = self.pos_suffix[r + 1] + self.pos_s[r]
        self.neg_prefix[0] = 0.0
        for r in range(q):
            self.neg_prefix[r + 1] = self.neg_prefix[r] + self.neg_s[r]

    cdef double surrogate(self, Py_ssize_t k, int kind, double* grad, BatchInfo* info) noexcept nogil:
        """Surrogate value at the ranked batch, and a subgradient into ``grad`` (if not NULL).

        ``grad`` has one entry per batch position and is overwritten.  O(n).
        """
        cdef Py_ssize_t n_pos = self.n_pos, n_neg = self.n_neg
        cdef Py_ssize_t d, d_max, best_d = 0, i
        cdef double value, best = 0.0, fn_mass
        cdef double* S = self.pos_suffix
        cdef double* N = self.neg_prefix
        if k > n_pos:
            k = n_pos
        d_max = k if k < n_neg else n_neg
        for d in range(d_max + 1):
            if kind == SURROGATE_STRUCT:
                value = d + N[d] - S[k - d]
            elif kind == SURROGATE_RAMP:
                value = d + N[d] - (S[k - d] - S[k])
            elif kind == SURROGATE_MAX:
                value = d + N[d] - S[n_pos - d]
            else:  # SURROGATE_AVG
                fn_mass = <double>(n_pos - k + d)
                value = d + N[d] - (d * S[k - d] / fn_mass if d > 0 else 0.0)
            if d == 0 or value > best:
                best = value
                best_d = d
        if info != NULL:
            info.n_pos = n_pos
            info.n_neg = n_neg
            info.k = k
            info.delta_star = best_d
            info.value = best
        if grad != NULL:
            for i in range(self.n):
                grad[i] = 0.0
            spread_interval(self.neg_s, self.neg_i, n_neg, 0, best_d, 1.0, grad)
            if kind == SURROGATE_STRUCT:
                spread_interval(self.pos_s, self.pos_i, n_pos, k - best_d, n_pos, -1.0, grad)
            elif kind == SURROGATE_RAMP:
                spread_interval(self.pos_s, self.pos_i, n_pos, k - best_d, k, -1.0, grad)
            elif kind == SURROGATE_MAX:
                spread_interval(self.pos_s, self.pos_i, n_pos, n_pos - best_d, n_pos, -1.0, grad)
            elif best_d > 0:
                spread_interval(self.pos_s, self.pos_i, n_pos, k - best_d, n_pos,
                                -(<double>best_d) / (n_pos - k + best_d), grad)
        return best

    cdef double mistakes(self, Py_ssize_t k) noexcept nogil:
        """Negatives among the k top scores of the ranked batch (fractional at ties).

        Also fills ``member``: each rank's share of the top k.  O(n).
        """
        cdef Py_ssize_t a = 0, b, r, n_neg_group
        cdef double share, fp = 0.0
        while a < self.n:
            b = a + 1
            while b < self.n and self.order[b].key == self.order[a].key:
                b += 1
            share = interval_share(a, b, 0, k)
            n_neg_group = 0
            for r in range(a, b):
                self.member[r] = share
                if not self.label[r]:
                    n_neg_group += 1
            fp += share * n_neg_group
            a = b
        return fp

    cdef double perceptron(self, Py_ssize_t k, int kind, double* grad, BatchInfo* info) noexcept nogil:
        """Perceptron@k direction into ``grad``; returns the mistakes Δ_t (docs/theory/precision_at_k.md).

        The update is ``w <- w - Σ_n grad[n] x_n``: ``grad`` is +1 on the
        false positives and, for ``kind`` SURROGATE_AVG, -Δ_t/|FN| on every
        false negative; for SURROGATE_MAX, -1 on the Δ_t highest-scored
        false negatives.  Fractional at ties (Design C).  O(n).
        """
        cdef Py_ssize_t a, b, r, n_pos_group
        cdef double delta, fn_total, ratio, remaining, group_fn, take
        if k > self.n_pos:
            k = self.n_pos
        delta = self.mistakes(k)
        if info != NULL:
            info.n_pos = self.n_pos
            info.n_neg = self.n_neg
            info.k = k
            info.mistakes = delta
        for r in range(self.n):
            grad[r] = 0.0
        if delta <= 0.0:
            return 0.0
        # |FN| = Σ_pos (1 - member) = n_pos - (k - Δ_t) > 0 whenever Δ_t > 0
        fn_total = self.n_pos - (k - delta)
        ratio = delta / fn_total
        remaining = delta
        a = 0
        while a < self.n:
            b = a + 1
            while b < self.n and self.order[b].key == self.order[a].key:
                b += 1
            n_pos_group = 0
            take = 0.0
            for r in range(a, b):
                if self.label[r]:
                    n_pos_group += 1
            if kind == SURROGATE_MAX and n_pos_group > 0:
                # the group's false-negative mass, taken from the top while Δ_t lasts
                group_fn = n_pos_group * (1.0 - self.member[a])
                take = fmax(0.0, fmin(group_fn, remaining))
                remaining -= take
            for r in range(a, b):
                if not self.label[r]:
                    grad[self.order[r].index] = self.member[r]
                elif kind == SURROGATE_MAX:
                    grad[self.order[r].index] = -take / n_pos_group
                else:
                    grad[self.order[r].index] = -ratio * (1.0 - self.member[r])
            a = b
        return delta


# --------------------------------------------------------------------------
# Thin Python entry points (validated by the callers in surrogates.py)
# --------------------------------------------------------------------------

KINDS = {"struct": SURROGATE_STRUCT, "ramp": SURROGATE_RAMP, "max": SURROGATE_MAX, "avg": SURROGATE_AVG}


def surrogate_batch(const double[::1] scores, const signed char[::1] y, Py_ssize_t k, int kind, bint with_grad):
    """Surrogate of one batch in count units.  scores, y # IN; O(n log n) time, O(n) memory.

    Returns
    -------
    value : float
    grad : ndarray of float64 or None
    k_used : int
        min(k, n_pos).
    delta_star : int
    mistakes : float
        prec@k_used loss in counts, fractional at ties.
    """
    cdef Py_ssize_t n = scores.shape[0]
    if n < 1 or y.shape[0] != n:
        raise ValueError(f"surrogate_batch: expected matching non-empty scores and labels, got {n} and {y.shape[0]}")
    cdef RankWorkspace ws = RankWorkspace(n)
    cdef BatchInfo info
    cdef double value, fp
    cdef double[::1] grad_view
    grad = np.zeros(n, dtype=np.float64) if with_grad else None
    grad_view = grad if with_grad else None
    with nogil:
        ws.rank(&scores[0], &y[0], n)
        value = ws.surrogate(k, kind, &grad_view[0] if with_grad else NULL, &info)
        fp = ws.mistakes(info.k)
    return value, grad, info.k, info.delta_star, fp


def perceptron_batch(const double[::1] scores, const signed char[::1] y, Py_ssize_t k, int kind):
    """Perceptron@k direction of one batch: (grad # OUT, mistakes, k_used); the update is w -= Xᵀ grad.

    scores, y # IN; O(n log n) time, O(n) memory (a workspace and the output).
    """
    cdef Py_ssize_t n = scores.shape[0]
    if n < 1 or y.shape[0] != n:
        raise ValueError(f"perceptron_batch: expected matching non-empty scores and labels, got {n} and {y.shape[0]}")
    cdef RankWorkspace ws = RankWorkspace(n)
    cdef BatchInfo info
    cdef double fp
    grad = np.zeros(n, dtype=np.float64)
    cdef double[::1] grad_view = grad
    with nogil:
        ws.rank(&scores[0], &y[0], n)
        fp = ws.perceptron(k, kind, &grad_view[0], &info)
    return grad, fp, info.k
