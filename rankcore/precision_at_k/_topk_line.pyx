# distutils: language = c++
"""Kernels of the exact line of the boosted precision@k surrogates.

φ(α) = J(f + α·h) of a precision@k surrogate (docs/theory/precision_at_k.md) reads the scores only
through the k highest positive scores (avg, struct, ramp) or the k lowest
(max), the k highest negative scores, and the sum of all positive scores.
When the weak ranker h takes G distinct values, the rows sharing a value of
h keep their order along the whole line.  So:

* :func:`line_candidates` splits the rows by class and value of h, keeps
  the ``count`` highest (or lowest) scores of each of those groups and every
  score tied with the count-th, and sorts each group once.  The top (bottom)
  ``count`` of a class at any α are among them.
  Time O(n·G) to find the groups (O(n) for a stump: the first two values
  are compared without a branch), O(n) for a counting sort of the scores by
  (class, group) and for the selections (NumPy's partition, vectorized where
  the CPU allows), O(C log C) to sort the C <= G·count + ties kept (NumPy's
  sort); memory O(n).
* :class:`LineKernel` evaluates φ and φ′ at α by merging the G sorted
  groups -- a branch-free two-way merge for a stump, a binary heap otherwise
  -- stopping after the first ``k`` (or ``d_max``) ranks and the ties of the
  last: O(k log G) per evaluation, no sort, memory O(C) allocated once per
  line.
* :func:`top_k_value_and_gradient` is the surrogate and its tie-averaged
  subgradient at f itself (h = 0, one group): O(n) selections plus
  O(k log k) to sort the kept scores, and one branch-free O(n) pass for the
  gradient.

Values and derivatives are in count units (not divided by k), as the
sorting kernel ``_surrogates.surrogate_batch``; ties are never broken by
position (a tie group straddling a rank counts pro rata, the expected value
over the orders of the ties).  The plain NumPy references are in
``tests/test_precision_at_k_line.py``.
"""

from libc.math cimport isfinite, NAN, INFINITY
from libc.stdlib cimport malloc, free

import numpy as np

from rankcore.precision_at_k._surrogates cimport (
    SURROGATE_AVG, SURROGATE_MAX, SURROGATE_RAMP, SURROGATE_STRUCT,
)

cdef extern from *:
    """
    #include <algorithm>
    /* The value at position nth (0-based, ascending) of first[0:n], partially reordering it. */
    static inline double rc_nth_value(double* first, Py_ssize_t n, Py_ssize_t nth) {
        std::nth_element(first, first + nth, first + n);
        return first[nth];
    }
    /* Descending sort of plain doubles. */
    static inline void rc_sort_descending(double* first, Py_ssize_t n) {
        std::sort(first, first + n, [](double a, double b) { return a > b; });
    }
    """
    double rc_nth_value(double* first, Py_ssize_t n, Py_ssize_t nth) noexcept nogil
    void rc_sort_descending(double* first, Py_ssize_t n) noexcept nogil


# --------------------------------------------------------------------------
# Candidate selection, once per line
# --------------------------------------------------------------------------


cdef Py_ssize_t gather_ties(double* s, Py_ssize_t lo, Py_ssize_t hi, double cut, double* out) noexcept nogil:
    """Copy the values of s[lo:hi] equal to ``cut`` to ``out``; returns how many.  O(hi - lo)."""
    cdef Py_ssize_t j, c = 0
    for j in range(lo, hi):
        if s[j] == cut:
            out[c] = s[j]
            c += 1
    return c


cdef object select_bucket(object seg, Py_ssize_t count, bint lowest, double* tie_buf):
    """The ``count`` highest (``lowest``: lowest) values of the 1-D float64 array ``seg`` and every
    value tied with the count-th, by descending value (a new array); ``seg`` is reordered.

    NumPy's partition and sort (vectorized where the CPU allows): O(m + c log c) for c kept.
    """
    cdef Py_ssize_t m = seg.shape[0], nth, ties
    cdef double cut
    cdef double[::1] view = seg
    if count <= 0 or m == 0:
        return seg[:0]
    if m > count:
        nth = count - 1 if lowest else m - count
        seg.partition(nth)
        cut = view[nth]
        # seg[:nth] <= cut <= seg[nth + 1:]: the ties of cut on the other side are kept too
        if lowest:
            ties = gather_ties(&view[0], nth + 1, m, cut, tie_buf)
            kept = seg[:nth + 1]
        else:
            ties = gather_ties(&view[0], 0, nth, cut, tie_buf)
            kept = seg[nth:]
        if ties:
            kept = np.concatenate([kept, np.asarray(<double[:ties]> tie_buf)])
    else:
        kept = seg
    return np.sort(kept)[::-1]


cdef tuple select_candidates(const signed char[::1] y, const double[::1] scores, const double* direction,
                             Py_ssize_t count_pos, Py_ssize_t count_neg, bint lowest_pos, Py_ssize_t max_groups):
    """:func:`line_candidates`; ``direction`` NULL: h = 0 (one group)."""
    cdef Py_ssize_t n = scores.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"y and scores differ in length ({y.shape[0]}, {n})")
    if not (1 <= max_groups <= 255):
        raise ValueError(f"max_groups: expected 1 to 255, got {max_groups}")
    cdef Py_ssize_t i, g, c, G = 0, last = 0, n_pos = 0, count, b
    cdef double d = 0.0, pos_total = 0.0, pos_h_total = 0.0, w
    cdef double values[256]
    cdef bint hit0, hit1
    cdef unsigned char[::1] group = np.empty(max(n, 1), dtype=np.uint8)
    cdef Py_ssize_t offsets[513]
    cdef Py_ssize_t fill[512]
    cdef bint ok = True
    for i in range(2 * max_groups + 1):
        offsets[i] = 0
    values[0] = values[1] = NAN               # equal to nothing until set
    with nogil:
        for i in range(n):
            if direction != NULL:
                d = direction[i]
                if not isfinite(d):
                    ok = False
                    break
            # the first two values without a branch on the row (a stump: h has two values,
            # in no particular order); then a scan of the others
            hit0, hit1 = d == values[0], d == values[1]
            if hit0 | hit1:
                last = hit1
            else:
                last = 2
                while last < G and values[last] != d:
                    last += 1
                if last >= G:
                    if G == max_groups:
                        ok = False
                        break
                    last = G
                    values[G] = d
                    G += 1
            group[i] = <unsigned char> last
            c = y[i] != 0
            offsets[c * max_groups + last + 1] += 1
            w = <double> c                  # w·x is x or ±0: the sums are those of the positives
            pos_total += w * scores[i]
            pos_h_total += w * d
    if not ok:
        return None
    for g in range(G):
        n_pos += offsets[max_groups + g + 1]
    # the scores bucketed by (class, group), in row order within a bucket (a counting sort)
    buf_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] buf = np.empty(1) if n == 0 else buf_arr
    for i in range(2 * max_groups):
        offsets[i + 1] += offsets[i]
        fill[i] = offsets[i]
    with nogil:
        for i in range(n):
            b = (max_groups if y[i] != 0 else 0) + group[i]
            buf[fill[b]] = scores[i]
            fill[b] += 1
    out = []
    cdef double[::1] ties = np.empty(max(n, 1), dtype=np.float64)
    for c in (1, 0):
        count = count_pos if c == 1 else count_neg
        starts_arr = np.zeros(G + 1, dtype=np.intp)
        parts = []
        for g in range(G):
            seg = buf_arr[offsets[c * max_groups + g]:offsets[c * max_groups + g + 1]]
            parts.append(select_bucket(seg, count, lowest_pos and c == 1, &ties[0]))
            starts_arr[g + 1] = starts_arr[g] + parts[g].shape[0]
        f_arr = np.concatenate(parts) if G > 1 else np.ascontiguousarray(parts[0]) if G else np.empty(0)
        h_arr = np.repeat(np.asarray(<double[:G]> &values[0]) if G else np.empty(0), np.diff(starts_arr))
        out += [f_arr, h_arr, starts_arr]
    return (*out, pos_total, pos_h_total, n_pos, n - n_pos)


def line_candidates(const signed char[::1] y, const double[::1] scores, const double[::1] direction,
                    Py_ssize_t count_pos, Py_ssize_t count_neg, bint lowest_pos, Py_ssize_t max_groups):
    """Each class's candidates for the exact line along ``direction``, or None.

    y, scores, direction # IN (n each).  None when ``direction`` has a
    non-finite value or more than ``max_groups`` (<= 255) distinct values.

    Returns
    -------
    tuple
        ``(pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts, pos_total, pos_h_total, n_pos, n_neg)``:
        per class the kept scores f and their values of h, grouped by value of
        h (group g is ``[starts[g], starts[g + 1])``, groups in order of first
        appearance in ``direction``), by descending f within a group; the
        positives keep their ``count_pos`` highest (``lowest_pos``: lowest)
        scores per group and the ties of the count-th, the negatives their
        ``count_neg`` highest.  ``pos_total`` and ``pos_h_total`` are the sums
        of f and h over all positives.

    Time O(n·G + C log C): one pass to find the groups (the first two values
    are compared without a branch: O(n) for a stump), a counting sort of the
    scores by (class, group), NumPy's partition per bucket (O(n) in all) and
    NumPy's sort of the C kept.  The passes over the rows run without the GIL
    (NumPy's partition and sort release it too).  Memory: 2n doubles and n
    bytes of work space, O(C) out.
    """
    if direction.shape[0] != scores.shape[0]:
        raise ValueError(f"direction: expected {scores.shape[0]} values (one per score), got {direction.shape[0]}")
    return select_candidates(y, scores, &direction[0] if direction.shape[0] else NULL,
                             count_pos, count_neg, lowest_pos, max_groups)


# --------------------------------------------------------------------------
# φ(α) and φ′(α): a heap merge of the sorted groups
# --------------------------------------------------------------------------


cdef inline bint heap_above(const double* key, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return key[a] > key[b] or (key[a] == key[b] and a < b)


cdef void sift_down(Py_ssize_t* heap, Py_ssize_t size, Py_ssize_t pos, const double* key) noexcept nogil:
    cdef Py_ssize_t child, top = heap[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        if child + 1 < size and heap_above(key, heap[child + 1], heap[child]):
            child += 1
        if not heap_above(key, heap[child], top):
            break
        heap[pos] = heap[child]
        pos = child
    heap[pos] = top


cdef Py_ssize_t merge_two(const double* f, const double* h, Py_ssize_t a, Py_ssize_t ea, Py_ssize_t b,
                          Py_ssize_t eb, double alpha, Py_ssize_t need, bint ascending,
                          double* v_out, double* h_out) noexcept nogil:
    """:func:`merge_groups` for two non-empty groups [a, ea) and [b, eb) (a stump), without a
    branch per rank (selects instead of jumps): O(need + ties)."""
    cdef Py_ssize_t m = 0, i, j, p, step = -1 if ascending else 1
    cdef double vi, vj, v
    cdef bint take_i
    if ascending:   # walk each group from its lowest (its end) up
        i, j = ea - 1, eb - 1
        ea, eb = a - 1, b - 1
    else:
        i, j = a, b
    cdef double hi_ = h[i] if i != ea else 0.0, hj = h[j] if j != eb else 0.0
    cdef double alpha_hi = alpha * hi_, alpha_hj = alpha * hj   # h is constant within a group
    while m < need and i != ea and j != eb:
        vi = f[i] + alpha_hi
        vj = f[j] + alpha_hj
        take_i = (vi <= vj) if ascending else (vi >= vj)
        v_out[m] = vi if take_i else vj
        h_out[m] = hi_ if take_i else hj
        i += step if take_i else 0
        j += 0 if take_i else step
        m += 1
    # the rest of the ranks up to need, then the ties of the last one, from either group
    while i != ea or j != eb:
        if j == eb or (i != ea and ((f[i] + alpha * h[i] <= f[j] + alpha * h[j]) if ascending
                                    else (f[i] + alpha * h[i] >= f[j] + alpha * h[j]))):
            p = i           # the next rank, from group i
            i += step
        else:
            p = j
            j += step
        v = f[p] + alpha * h[p]
        if m >= need and (m == 0 or v != v_out[m - 1]):
            break           # past need and a new value: the ranks end (i, j are not used again)
        v_out[m] = v
        h_out[m] = h[p]
        m += 1
    return m


cdef Py_ssize_t merge_groups(const double* f, const double* h, const Py_ssize_t* starts, Py_ssize_t G,
                             double alpha, Py_ssize_t need, bint ascending, double* v_out, double* h_out,
                             Py_ssize_t* head, Py_ssize_t* heap, double* key) noexcept nogil:
    """Merge the G groups (each by descending f) at α into v_out/h_out: descending f + α·h, or
    ``ascending`` from the lowest.  Stops after ``need`` ranks and the ties of the last.

    Returns the number of ranks written.  O((need + ties) log G).
    """
    cdef Py_ssize_t g, size = 0, m = 0, p
    cdef double v, sign = -1.0 if ascending else 1.0
    if G == 2 and starts[1] > starts[0] and starts[2] > starts[1]:
        return merge_two(f, h, starts[0], starts[1], starts[1], starts[2], alpha, need, ascending, v_out, h_out)
    for g in range(G):
        if starts[g + 1] > starts[g]:
            head[g] = starts[g + 1] - 1 if ascending else starts[g]
            key[g] = sign * (f[head[g]] + alpha * h[head[g]])
            heap[size] = g
            size += 1
    for p in range(size // 2 - 1, -1, -1):
        sift_down(heap, size, p, key)
    while size > 0:
        g = heap[0]
        p = head[g]
        v = f[p] + alpha * h[p]
        if m >= need and (m == 0 or v != v_out[m - 1]):
            break
        v_out[m] = v
        h_out[m] = h[p]
        m += 1
        if ascending:
            head[g] -= 1
            if head[g] < starts[g]:
                size -= 1
                heap[0] = heap[size]
            else:
                key[g] = -(f[head[g]] + alpha * h[head[g]])
        else:
            head[g] += 1
            if head[g] >= starts[g + 1]:
                size -= 1
                heap[0] = heap[size]
            else:
                key[g] = f[head[g]] + alpha * h[head[g]]
        if size > 0:
            sift_down(heap, size, 0, key)
    return m


cdef double h_prefix(const double* v, const double* cum_h, Py_ssize_t m, Py_ssize_t r) noexcept nogil:
    """Σ h over the first r ranks of a merged list (m ranks, ties complete), the tie group straddling r pro rata."""
    cdef Py_ssize_t a, b
    if r <= 0:
        return 0.0
    if r >= m or v[r - 1] != v[r]:
        return cum_h[r]
    a = r
    while a > 0 and v[a - 1] == v[r]:
        a -= 1
    b = r + 1
    while b < m and v[b] == v[r]:
        b += 1
    return cum_h[a] + <double>(r - a) / <double>(b - a) * (cum_h[b] - cum_h[a])


cdef class LineKernel:
    """φ(α), φ′(α) of one surrogate along one line, from the output of :func:`line_candidates`.

    Parameters
    ----------
    kind : int
        ``_surrogates.KINDS[name]``.
    k, n_pos, d_max : int
        k (<= n_pos) and min(k, n_neg).
    pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts : arrays
        The candidates (positives: the lowest for ``max``, else the highest).
    pos_total, pos_h_total : float

    Each :meth:`point` costs O((k + ties) log G); memory O(C), allocated here once.
    """

    cdef int kind
    cdef Py_ssize_t k, n_pos, d_max, G
    cdef double pos_total, pos_h_total
    cdef const double[::1] pos_f, pos_h, neg_f, neg_h
    cdef const Py_ssize_t[::1] pos_starts, neg_starts
    cdef double[::1] vp, hp, cp, chp, vn, hn, cn, chn, key
    cdef Py_ssize_t[::1] head, heap

    def __init__(self, int kind, Py_ssize_t k, Py_ssize_t n_pos, Py_ssize_t d_max,
                 const double[::1] pos_f, const double[::1] pos_h, const Py_ssize_t[::1] pos_starts,
                 const double[::1] neg_f, const double[::1] neg_h, const Py_ssize_t[::1] neg_starts,
                 double pos_total, double pos_h_total):
        if pos_starts.shape[0] != neg_starts.shape[0] or pos_starts.shape[0] < 1:
            raise ValueError("pos_starts, neg_starts: expected G + 1 group boundaries each")
        if pos_f.shape[0] != pos_h.shape[0] or pos_starts[pos_starts.shape[0] - 1] != pos_f.shape[0]:
            raise ValueError("pos_f, pos_h, pos_starts: inconsistent lengths")
        if neg_f.shape[0] != neg_h.shape[0] or neg_starts[neg_starts.shape[0] - 1] != neg_f.shape[0]:
            raise ValueError("neg_f, neg_h, neg_starts: inconsistent lengths")
        if not (1 <= k <= n_pos) or d_max < 0:
            raise ValueError(f"k: expected 1 <= k <= n_pos = {n_pos}, got {k} (d_max = {d_max})")
        if pos_f.shape[0] < (d_max if kind == SURROGATE_MAX else k) or neg_f.shape[0] < d_max:
            raise ValueError("line candidates: fewer than k positives or d_max negatives")
        self.kind, self.k, self.n_pos, self.d_max = kind, k, n_pos, d_max
        self.G = pos_starts.shape[0] - 1
        self.pos_f, self.pos_h, self.pos_starts = pos_f, pos_h, pos_starts
        self.neg_f, self.neg_h, self.neg_starts = neg_f, neg_h, neg_starts
        self.pos_total, self.pos_h_total = pos_total, pos_h_total
        cdef Py_ssize_t mp = pos_f.shape[0], mn = neg_f.shape[0]
        self.vp, self.hp = np.empty(mp + 1), np.empty(mp + 1)
        self.cp, self.chp = np.empty(mp + 2), np.empty(mp + 2)
        self.vn, self.hn = np.empty(mn + 1), np.empty(mn + 1)
        self.cn, self.chn = np.empty(mn + 2), np.empty(mn + 2)
        self.key = np.empty(self.G + 1)
        self.head = np.empty(self.G + 1, dtype=np.intp)
        self.heap = np.empty(self.G + 1, dtype=np.intp)

    cdef Py_ssize_t merge(self, bint positives, double alpha, Py_ssize_t need) noexcept nogil:
        cdef Py_ssize_t m, r
        cdef double* v = &(self.vp if positives else self.vn)[0]
        cdef double* hh = &(self.hp if positives else self.hn)[0]
        cdef double* cum = &(self.cp if positives else self.cn)[0]
        cdef double* cum_h = &(self.chp if positives else self.chn)[0]
        if positives:
            m = merge_groups(&self.pos_f[0] if self.pos_f.shape[0] else NULL,
                             &self.pos_h[0] if self.pos_h.shape[0] else NULL, &self.pos_starts[0], self.G,
                             alpha, need, self.kind == SURROGATE_MAX, v, hh,
                             &self.head[0], &self.heap[0], &self.key[0])
        else:
            m = merge_groups(&self.neg_f[0] if self.neg_f.shape[0] else NULL,
                             &self.neg_h[0] if self.neg_h.shape[0] else NULL, &self.neg_starts[0], self.G,
                             alpha, need, False, v, hh, &self.head[0], &self.heap[0], &self.key[0])
        cdef double acc = 0.0, acc_h = 0.0   # in registers: the arrays may alias, as far as C knows
        cum[0] = 0.0
        cum_h[0] = 0.0
        for r in range(m):
            acc = acc + v[r]
            acc_h = acc_h + hh[r]
            cum[r + 1] = acc
            cum_h[r + 1] = acc_h
        return m

    def point(self, double alpha):
        """(value, Δ*, φ′) at α in count units: the surrogate, its first maximizing Δ, and the
        tie-averaged subgradient's dot product with h.

        O(G + (k + ties)·log G) time (a heap over the G groups, popped once per merged rank), O(1)
        extra memory: the buffers allocated in ``__init__``.
        """
        cdef Py_ssize_t k = self.k, d_max = self.d_max, n_pos = self.n_pos, d, best = 0, mp, mn
        cdef int kind = self.kind
        cdef double total, low, value, best_value = 0.0, dn, d1, fn_mass
        cdef double *tp
        cdef double *tn
        with nogil:
            mp = self.merge(True, alpha, d_max if kind == SURROGATE_MAX else k)
            mn = self.merge(False, alpha, d_max)
            tp, tn = &self.cp[0], &self.cn[0]
            total = self.pos_total + alpha * self.pos_h_total
            for d in range(d_max + 1):
                if kind == SURROGATE_AVG:
                    fn_mass = <double>(n_pos - k + d if n_pos - k + d > 1 else 1)
                    low = (<double>d) * (total - tp[k - d]) / fn_mass if d > 0 else 0.0
                elif kind == SURROGATE_STRUCT:
                    low = total - tp[k - d]
                elif kind == SURROGATE_RAMP:
                    low = tp[k] - tp[k - d]
                else:  # max: the d lowest positives (tp ascending from the lowest)
                    low = tp[d]
                value = (<double>d + tn[d]) - low
                if d == 0 or value > best_value:
                    best_value, best = value, d
            dn = h_prefix(&self.vn[0], &self.chn[0], mn, best)
            if kind == SURROGATE_AVG:
                d1 = 0.0 if best == 0 else dn - (<double>best) / (<double>(n_pos - k + best)) * (
                    self.pos_h_total - h_prefix(&self.vp[0], &self.chp[0], mp, k - best))
            elif kind == SURROGATE_STRUCT:
                d1 = dn - (self.pos_h_total - h_prefix(&self.vp[0], &self.chp[0], mp, k - best))
            elif kind == SURROGATE_RAMP:
                d1 = dn - (h_prefix(&self.vp[0], &self.chp[0], mp, k)
                           - h_prefix(&self.vp[0], &self.chp[0], mp, k - best))
            else:
                d1 = dn - h_prefix(&self.vp[0], &self.chp[0], mp, best)
        return best_value, best, d1


# --------------------------------------------------------------------------
# Value and gradient at the scores themselves
# --------------------------------------------------------------------------


cdef Py_ssize_t count_above(const double* ranked, Py_ssize_t m, double t, bint ascending) noexcept nogil:
    """Ranks strictly before the value t in a sorted list (descending, or ``ascending``): a binary search."""
    cdef Py_ssize_t lo = 0, hi = m, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if (ranked[mid] < t) if ascending else (ranked[mid] > t):
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void rank_threshold(const double* ranked, Py_ssize_t m, Py_ssize_t r, Py_ssize_t n_class,
                         bint ascending, double* t, double* tie_share) noexcept nogil:
    """The share of the first r ranks of a class as a threshold: rows strictly before ``t`` count 1,
    rows equal to ``t`` count ``tie_share`` (ties pro rata), the others 0.  ``ranked`` holds the
    class's first m ranks, all ties of rank r among them.  O(log m + ties)."""
    cdef Py_ssize_t i, above, tied = 0
    if r <= 0:
        t[0] = -INFINITY if ascending else INFINITY   # nothing before it, nothing equal
        tie_share[0] = 0.0
        return
    if r >= n_class:
        t[0] = INFINITY if ascending else -INFINITY   # everything before it
        tie_share[0] = 1.0
        return
    t[0] = ranked[r - 1]
    above = count_above(ranked, m, t[0], ascending)
    for i in range(above, m):
        if ranked[i] != t[0]:
            break
        tied += 1
    tie_share[0] = <double>(r - above) / <double>tied


cdef inline double share_of(double s, double t, double tie_share, bint ascending) noexcept nogil:
    """1, ``tie_share`` or 0 (see rank_threshold), without a branch."""
    return <double>((s < t) if ascending else (s > t)) + <double>(s == t) * tie_share


def top_k_value_and_gradient(int kind, Py_ssize_t k, const signed char[::1] y, const double[::1] scores):
    """(value, gradient, k_used) of the surrogate at ``scores`` in count units, as ``surrogate_batch``.

    y, scores # IN.  The avg, struct and ramp surrogates read the k highest
    positive and negative scores and the sum of all positives (max: the k
    lowest positives); the subgradient is a constant on rank intervals of each
    class, averaged over tie groups.  Time O(n + k log k), memory O(n).
    """
    cdef Py_ssize_t n = scores.shape[0], d_max, best, n_pos, n_neg
    if y.shape[0] != n:
        raise ValueError(f"top_k_value_and_gradient: scores and y differ in length ({n}, {y.shape[0]})")
    cand = select_candidates(y, scores, NULL, k, k, kind == SURROGATE_MAX, 1)
    pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts, pos_total, _, n_pos_obj, n_neg_obj = cand
    n_pos, n_neg = n_pos_obj, n_neg_obj
    if n_pos == 0 or n_neg == 0:
        raise ValueError("y: the surrogates need both classes")
    k = min(k, n_pos)
    d_max = min(k, n_neg)
    line = LineKernel(kind, k, n_pos, d_max, pos_f, pos_h, pos_starts, neg_f, neg_h, neg_starts, pos_total, 0.0)
    value, best, _ = line.point(0.0)
    grad = np.empty(n, dtype=np.float64)
    cdef double[::1] g = grad
    cdef const double[::1] pf = pos_f
    cdef const double[::1] nf = neg_f
    cdef double coef = (<double>best) / (<double>(n_pos - k + best)) if best > 0 else 0.0
    cdef Py_ssize_t mp = pf.shape[0], mn = nf.shape[0], i
    cdef double tn, sn, tp, sp, tq, sq, si, gp, gn, c
    cdef bint max_kind = kind == SURROGATE_MAX
    if mp == 0 or mn == 0:  # k >= 1 and both classes present: never
        raise ValueError("top_k_value_and_gradient: no candidates")
    if max_kind:
        pf = np.ascontiguousarray(pos_f[::-1])  # the lowest positives, ascending
    with nogil:
        # negatives: their share of the top Δ* ranks; positives: a share of the top k - Δ* (avg,
        # struct), the top k minus the top k - Δ* (ramp), or the lowest Δ* (max)
        rank_threshold(&nf[0], mn, best, n_neg, False, &tn, &sn)
        if max_kind:
            rank_threshold(&pf[0], mp, best, n_pos, True, &tp, &sp)
        else:
            rank_threshold(&pf[0], mp, k - best, n_pos, False, &tp, &sp)
        rank_threshold(&pf[0], mp, k, n_pos, False, &tq, &sq)  # ramp only
        if kind == SURROGATE_STRUCT:
            coef = 1.0
        for i in range(n):
            si = scores[i]
            c = <double>(y[i] != 0)
            gn = share_of(si, tn, sn, False)
            if max_kind:
                gp = -share_of(si, tp, sp, True)
            elif kind == SURROGATE_RAMP:
                gp = -(share_of(si, tq, sq, False) - share_of(si, tp, sp, False))
            else:
                gp = -coef * (1.0 - share_of(si, tp, sp, False))
            g[i] = c * gp + (1.0 - c) * gn   # exact: one term is ±0
    return value, grad, k
