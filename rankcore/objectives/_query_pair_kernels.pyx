"""The per-query push's pairwise sums for every small level of every query in one compiled call.

Design
------
A. With a loss other than ℓ(z) = e^{−rz} the per-query push needs, for each
   level (the rows of one grade in one query) below its query's top, the
   loss's sums between the level's rows and the contiguous rows above them
   (``_query_push.BoundQueryPush._pairwise``).  Asked of the loss level by
   level, each level costs three or four Python calls (tens of microseconds)
   whatever its size: on 10,000 queries of 2-10 rows that overhead was
   nearly the whole cost, 0.5-2 s an evaluation against 1-10 ms for the
   exponential push; in one call it is 5-20 ms.
B. Here the caller hands the levels whose pair count is small, grouped by
   query, and the kernel visits their pairs directly, evaluating the loss
   through its ``PairwiseLoss`` vtable (built-in or a Cython plugin's): one
   call for all of them.  It is O(|level| · |rows above|) per level, so the
   caller keeps large levels on the loss's own sums (sorted prefix sums for
   the hinge losses).
C. One thread owns every output row of a query (prange over the groups, a
   group being one query's levels), and each row's sums run in a fixed
   order: the results do not depend on the thread count.
D. With gain-weighted pairs each level's pair weights w_i (2^{y_i} − 2^{g})
   are formed once per level into a per-thread scratch row, as
   w_i · 2^g · expm1((y_i − g) ln 2), which stays finite for grades ≤ 1023.
"""

from cython.parallel cimport prange, threadid
from libc.math cimport exp2, expm1, M_LN2
from libc.stdint cimport int64_t

from rankcore._parallel cimport threads_for
from rankcore.losses.pairwise_loss cimport PairwiseLoss

import numpy as np

#: From this many pairs a call shares its queries between threads (when given more than one).  A pair costs
#: 3 ns (hinge) to 15 ns (logistic) per pass, so this is 0.1-0.5 ms of work, where a parallel region's fork and
#: join cost microseconds; measured on queries of 2-10 rows, two threads took 0.55-0.65 of one thread's time from
#: 30,000 pairs up (when the other core was free).  The blocked pairwise kernels start threads at the same count.
DEF PARALLEL_PAIRS = 32768.0


cdef const double* _pair_weights(const double* w, const double* grades, int64_t hi, int64_t stop, double g,
                                 bint gain, double* scratch) noexcept nogil:
    """w_i · a_ik of the rows hi:stop above a level of grade g (indexed from 0): w itself, or into scratch."""
    cdef int64_t i
    cdef double top
    if not gain:
        return w + hi
    top = exp2(g)
    for i in range(hi, stop):
        scratch[i - hi] = w[i] * top * expm1((grades[i] - g) * M_LN2)
    return scratch


cdef void _negative_level(PairwiseLoss loss, const double* f, const double* a, int64_t lo, int64_t hi,
                          int64_t stop, double* L, double* D) noexcept nogil:
    """L_k = Σ_i a_i ℓ(f_i − f_k), D_k = Σ_i a_i ℓ′(f_i − f_k) for the rows k of lo:hi, i over hi:stop."""
    cdef int64_t k, i
    cdef double fk, sl, sd, v = 0.0, d1 = 0.0, d2 = 0.0
    for k in range(lo, hi):
        fk = f[k]
        sl = 0.0
        sd = 0.0
        for i in range(hi, stop):
            loss.evaluate(f[i] - fk, 1, &v, &d1, &d2)
            sl = sl + a[i - hi] * v
            sd = sd + a[i - hi] * d1
        L[k] = sl
        D[k] = sd


cdef void _positive_level(PairwiseLoss loss, const double* f, const double* a, const double* c1,
                          const double* c2, int order, int64_t lo, int64_t hi, int64_t stop, double* E,
                          double* P, double* N) noexcept nogil:
    """Adds one level's sums to the rows above it (E, P) and writes its rows' N (see ``positive_sums``)."""
    cdef int64_t k, i
    cdef double fi, ai, se, sp, v = 0.0, d1 = 0.0, d2 = 0.0
    if order >= 2:
        for k in range(lo, hi):
            N[k] = 0.0
    for i in range(hi, stop):
        fi = f[i]
        ai = a[i - hi]
        se = 0.0
        sp = 0.0
        for k in range(lo, hi):
            if c1[k] == 0.0 and c2[k] == 0.0:
                continue            # a row that prices nothing (zero weight, or L_k = 0) adds nothing
            loss.evaluate(fi - f[k], order, &v, &d1, &d2)
            se = se + c1[k] * d1
            if order >= 2:
                sp = sp + (ai * c2[k] * d1 * d1 + c1[k] * d2)
                N[k] = N[k] + ai * d2
        E[i] = E[i] + ai * se
        if order >= 2:
            P[i] = P[i] + ai * sp


cdef int64_t _widest(const int64_t[::1] ends, const int64_t[::1] stops) noexcept nogil:
    """The most rows above any level of the call (the length of a gain-weight scratch row)."""
    cdef Py_ssize_t j
    cdef int64_t widest = 1
    for j in range(ends.shape[0]):
        if stops[j] - ends[j] > widest:
            widest = stops[j] - ends[j]
    return widest


cdef double _pair_count(const int64_t[::1] starts, const int64_t[::1] ends, const int64_t[::1] stops) noexcept nogil:
    cdef Py_ssize_t j
    cdef double pairs = 0.0
    for j in range(starts.shape[0]):
        pairs += <double> (ends[j] - starts[j]) * <double> (stops[j] - ends[j])
    return pairs


cdef void _check(Py_ssize_t n, rows, levels, const int64_t[::1] groups) except *:
    for name, a in rows:
        if a.shape[0] != n:
            raise ValueError(f"{name}: expected one entry per row ({n}), got {a.shape[0]}")
    for name, a in levels:
        if a.shape[0] != groups[groups.shape[0] - 1]:
            raise ValueError(f"{name}: expected one entry per level ({groups[groups.shape[0] - 1]}), "
                             f"got {a.shape[0]}")


cdef double[::1] _scratch(bint gain, int threads, int64_t widest):
    """One row of pair weights per thread (gain-weighted pairs), or a dummy."""
    return np.empty(threads * widest if gain else 1)


def negative_sums(PairwiseLoss loss not None,
                  const double[::1] f,          # IN  (n,) scores, rows sorted by (query, grade)
                  const double[::1] w,          # IN  (n,) each row's weight as the row above a pair
                  const double[::1] grades,     # IN  (n,) grades (read with gain_weighted only)
                  bint gain_weighted,
                  const int64_t[::1] starts,    # IN  (m,) first row of each level
                  const int64_t[::1] ends,      # IN  (m,) one past its last row (its rows above start here)
                  const int64_t[::1] stops,     # IN  (m,) one past the last row of its query
                  const int64_t[::1] groups,    # IN  (n_groups + 1,) group g: levels groups[g]:groups[g+1]
                  double[::1] L,                # OUT (n,) L_k on the levels' rows, others untouched
                  double[::1] D,                # OUT (n,) D_k on the levels' rows, others untouched
                  int n_threads=1):
    """L_k = Σ_i w_i a_ik ℓ(f_i − f_k) and D_k = Σ_i w_i a_ik ℓ′(f_i − f_k) of every row k of the given levels.

    i runs over the rows above k's level in its query (ends[j]:stops[j]); a_ik = 1, or 2^{y_i} − 2^{y_k}
    with ``gain_weighted``.  The levels of one query must be one group (its rows have one owner);
    ``groups`` starts at 0 and ends at m.

    O(Σ_j |level j| · |rows above j|) time (every pair visited once); O(1) extra memory, or with
    ``gain_weighted`` one row of (the most rows above a level) doubles per thread.
    """
    cdef Py_ssize_t n_groups = groups.shape[0] - 1, g
    cdef int64_t j
    cdef int threads
    cdef int64_t widest
    cdef double[::1] scratch
    cdef const double* a
    if n_groups <= 0:
        return
    _check(f.shape[0], (("w", w), ("grades", grades), ("L", L), ("D", D)),
           (("starts", starts), ("ends", ends), ("stops", stops)), groups)
    widest = _widest(ends, stops)
    threads = threads_for(_pair_count(starts, ends, stops), n_threads, PARALLEL_PAIRS)
    scratch = _scratch(gain_weighted, threads, widest)
    for g in prange(n_groups, nogil=True, schedule="dynamic", chunksize=32, num_threads=threads):
        for j in range(groups[g], groups[g + 1]):
            a = _pair_weights(&w[0], &grades[0], ends[j], stops[j], grades[starts[j]], gain_weighted,
                              &scratch[threadid() * widest if gain_weighted else 0])
            _negative_level(loss, &f[0], a, starts[j], ends[j], stops[j], &L[0], &D[0])


def positive_sums(PairwiseLoss loss not None,
                  const double[::1] f,          # IN  (n,) scores, rows sorted by (query, grade)
                  const double[::1] w,          # IN  (n,) each row's weight as the row above a pair
                  const double[::1] grades,     # IN  (n,) grades (read with gain_weighted only)
                  bint gain_weighted,
                  const int64_t[::1] starts,    # IN  (m,) as in negative_sums
                  const int64_t[::1] ends,      # IN  (m,)
                  const int64_t[::1] stops,     # IN  (m,)
                  const int64_t[::1] groups,    # IN  (n_groups + 1,)
                  const double[::1] c1,         # IN  (n,) per-row weight c_k of ℓ′ (and of ℓ″)
                  const double[::1] c2,         # IN  (n,) per-row weight of ℓ′² (read with order 2)
                  int order,                    # 1: E only; 2: E, P and N
                  double[::1] E,                # IN/OUT (n,) += Σ_levels w_i a_ik Σ_k c1_k ℓ′(f_i − f_k)
                  double[::1] P,                # IN/OUT (n,) += Σ_levels w_i a_ik Σ_k (w_i a_ik c2_k ℓ′² + c1_k ℓ″)
                  double[::1] N,                # OUT (n,) N_k = Σ_i w_i a_ik ℓ″(f_i − f_k) on the levels' rows
                  int n_threads=1):
    """The sums over each given level's rows k, for every row i above it, and the levels' curvature sums N_k.

    E and P are the loss's ``positive_sums`` and ``curvature_sums``' P of each level times the level's pair
    weights w_i a_ik, added over the given levels below row i; rows k with c1_k = c2_k = 0 are skipped
    (they price nothing: their N_k is 0).  With ``order`` 1 only E is formed: ℓ″ is never asked for, and
    c2, P and N are not read (they may be empty).

    O(Σ_j |level j| · |rows above j|) time (every pair visited once); O(1) extra memory, or with
    ``gain_weighted`` one row of (the most rows above a level) doubles per thread.
    """
    cdef Py_ssize_t n_groups = groups.shape[0] - 1, g
    cdef int64_t j
    cdef int threads
    cdef int64_t widest
    cdef double[::1] scratch
    cdef const double* a
    cdef const double* c2_at
    cdef double* P_at
    cdef double* N_at
    if n_groups <= 0:
        return
    order = 2 if order >= 2 else 1
    _check(f.shape[0], (("w", w), ("grades", grades), ("c1", c1), ("E", E))
           + ((("c2", c2), ("P", P), ("N", N)) if order == 2 else ()),
           (("starts", starts), ("ends", ends), ("stops", stops)), groups)
    # with order 1 these are never read or written: any valid address will do
    c2_at = &c2[0] if order == 2 else &c1[0]
    P_at = &P[0] if order == 2 else &E[0]
    N_at = &N[0] if order == 2 else &E[0]
    widest = _widest(ends, stops)
    threads = threads_for(_pair_count(starts, ends, stops), n_threads, PARALLEL_PAIRS)
    scratch = _scratch(gain_weighted, threads, widest)
    for g in prange(n_groups, nogil=True, schedule="dynamic", chunksize=32, num_threads=threads):
        for j in range(groups[g], groups[g + 1]):
            a = _pair_weights(&w[0], &grades[0], ends[j], stops[j], grades[starts[j]], gain_weighted,
                              &scratch[threadid() * widest if gain_weighted else 0])
            _positive_level(loss, &f[0], a, &c1[0], c2_at, order, starts[j], ends[j], stops[j],
                            &E[0], P_at, N_at)
