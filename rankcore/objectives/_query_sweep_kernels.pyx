"""The per-query push's pairwise sums for the hinge and squared hinge, by a sweep over the levels.

With ℓ(z) = (1 − z)^m for z < 1, else 0 (m = 1 hinge, m = 2 squared hinge; ℓ′(1) = ℓ″(1) = 0, the
right-hand derivatives), the per-query push prices row k by L_k = Σ_{i ∈ q, y_i > y_k} w_i a_ik ℓ(f_i − f_k),
a_ik = 1 or 2^{y_i} − 2^{y_k} (gain-weighted).  Calling the loss's pairwise sums once per (query, level)
costs O(n_q) per level: O(n_q²) for a query whose grades are all different (float grades).  These
kernels compute every sum of every row in O(n_q log n_q) per query, whatever its number of levels.

Sums (z_ik = f_i − f_k; sums over rows of the same query, pairs with z_ik ≥ 1 contribute nothing)
------------------------------------------------------------------------------------------------
``negative_sweep``, for every row k (the row below its pairs), with the weights w of the rows above:

    L_k = Σ_{i: y_i > y_k} w_i a_ik ℓ(z_ik)      D_k = Σ_{i: y_i > y_k} w_i a_ik ℓ′(z_ik)
    N_k = Σ_{i: y_i > y_k} w_i a_ik ℓ″(z_ik)

``positive_sweep``, for every row i (the row above), with the negatives' weights c1, c2 (the price's
c = v g′(L)/R and c2 = v g″(L)/R, known only once every L is):

    E_i = Σ_{k: y_k < y_i} a_ik c1_k ℓ′(z_ik)                                (the caller multiplies by w_i)
    P_i = Σ_{k: y_k < y_i} (w_i a_ik² c2_k ℓ′(z_ik)² + a_ik c1_k ℓ″(z_ik))    (the caller multiplies by w_i)

Per level these are the loss's ``negative_sums`` (L, D), ``positive_sums`` (E) and ``curvature_sums``
(P, N) called with the pair weights w_pos = w_i a_ik of that level: ``curvature_sums`` returns
P_i = Σ_k (w_pos_i c2_k ℓ′² + c1_k ℓ″) and the caller adds w_pos_i P_i, which summed over the levels
is w_i times the P above.  For the hinge ℓ″ = 0 (N = 0) and ℓ′² = 1[z < 1]; for the squared hinge
ℓ′² = 4ℓ and ℓ″ = 2·1[z < 1].

Design
------
A. One thread owns a query (``prange`` over the queries): its rows are sorted by score once, and a
   Fenwick (binary indexed) tree keyed by that rank holds moments of the rows inserted so far.  The
   negative side sweeps the levels from the top down: a level's rows query the tree (every row of
   a higher level is in it), then are inserted.  The positive side sweeps from the bottom up with
   the ranks reversed.
B. The rows i that reach a negative k (f_i − f_k < 1) are a prefix of the query's scores in
   ascending order, found by binary search with that exact floating-point test on the scores as
   given (IEEE subtraction is monotone); the rows k that reach a positive i are a suffix.  Tied
   scores have consecutive ranks and the same test, so a prefix never splits them.
C. On such a prefix ℓ is a polynomial in the centred score g = f − s_q (s_q the median of the query's scores,
   so that the expansion (1 + g_k)^j Σ w g^{m−j} cancels least): the tree holds Σ w g^j
   (j ≤ m) and the sums are those moments times powers of 1 + g_k, as in
   ``rankcore.losses._sorted_sums``.
D. Gain weights separate: with A_i = 2^{y_i} − 2^{y_min} ≥ 0 (y_min the query's lowest grade,
   formed as 2^{y_min}·expm1((y_i − y_min) ln 2), finite for grades ≤ 1023), a_ik = A_i − A_k, so
   Σ_i w_i a_ik φ_i = Σ_i w_i A_i φ_i − A_k Σ_i w_i φ_i: the tree holds the moments with and
   without the factor A (and A² for a_ik² on the positive side), each a sum of terms of one sign
   where φ ≥ 0.  A_k = 0 at a query's lowest grade, where nothing cancels.
E. Accuracy: each output is a difference of moments, so its absolute error is about
   ε·log₂ n_q·Σ w a (|1 + g_k| + |g_i|)^m over its pairs (ε = 2^−53), not relative to the output;
   with gain weights, also ε·Σ w (A_i + A_k)(...)^m, large against the output only where every
   contributing row's grade is within a small fraction of a grade of the row's own.  Measured
   against the pair-by-pair sums (one query of 3,000 rows, scores spread 1 to 100, offset 1e6,
   float and integer grades, with and without gains): every error below 5e-15 of the output's
   largest value over the rows; row by row, median relative error 1e-15, worst 1e-11 (a squared
   hinge L_k made of pairs just below the kink).
F. One thread owns each query (``prange``, guided schedule), so no output depends on the thread
   count; each query allocates one block of (moments + 2)·n_q doubles while it is worked on.

Time O(Σ_q n_q log n_q); memory O(n) for the outputs, plus O(n_q · moments) (at most 15 n_q
doubles) per query being worked on, one per thread.
"""

from cython.parallel cimport prange
from libc.math cimport exp2, expm1, isfinite, M_LN2
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from rankcore._keyed_sort cimport Keyed, keyed_sort
from rankcore._kink cimport count_reaching, first_reached
from rankcore._parallel cimport threads_for

import numpy as np

#: Rows from which a call shares its queries between threads (below it a parallel region's fork and join cost
#: more than the queries' sort and sweep).
DEF SWEEP_PARALLEL_ROWS = 8192

#: The largest number of Fenwick moments per row: the positive side, squared hinge, gain-weighted, curvature.
DEF MAX_MOMENTS = 13


cdef inline void _tree_add(double* tree, Py_ssize_t n, int M, Py_ssize_t key, const double* v) noexcept nogil:
    """Add the M moments v at key (0-based) of a Fenwick tree of n keys (node p's moments at (p − 1)·M)."""
    cdef Py_ssize_t p = key + 1
    cdef int j
    while p <= n:
        for j in range(M):
            tree[(p - 1) * M + j] += v[j]
        p += p & (-p)


cdef inline void _tree_prefix(const double* tree, int M, Py_ssize_t count, double* out) noexcept nogil:
    """out[j] = Σ of moment j over the keys 0..count−1."""
    cdef Py_ssize_t p = count
    cdef int j
    for j in range(M):
        out[j] = 0.0
    while p > 0:
        for j in range(M):
            out[j] += tree[(p - 1) * M + j]
        p -= p & (-p)


cdef struct _Query:
    # one query's rows s:s+n in one block: fs the scores ascending, rank each row's place in them, tree a
    # zeroed Fenwick tree of n keys and M moments, mid the scores' centre, y_min the lowest grade
    double* fs
    Py_ssize_t* rank
    double* tree
    double mid
    double y_min


cdef int _open_query(const double* f, const double* grades, Py_ssize_t s, Py_ssize_t n, int M,
                     _Query* q) noexcept nogil:
    """Sort the query's scores and set up its tree (one allocation, freed by ``free(q.fs)``); 1 if out of memory.

    The sort's (score, row) pairs live in the tree's space (at least 2n doubles) until it is zeroed.
    """
    cdef Py_ssize_t j, cells = n * (M if M >= 2 else 2)
    q.fs = <double*> malloc((cells + 2 * n) * sizeof(double))
    if q.fs == NULL:
        return 1
    q.rank = <Py_ssize_t*> (q.fs + n)           # (a Py_ssize_t takes at most a double's 8 bytes)
    q.tree = q.fs + 2 * n
    cdef Keyed* keyed = <Keyed*> q.tree
    for j in range(n):
        keyed[j].key = f[s + j]
        keyed[j].row = j
    keyed_sort(keyed, n)
    for j in range(n):
        q.fs[j] = keyed[j].key
        q.rank[keyed[j].row] = j
    memset(q.tree, 0, n * M * sizeof(double))
    q.mid = q.fs[n // 2]                        # a median: a far score does not move it off the others
    q.y_min = grades[s]
    return 0


cdef inline double _gain_above_lowest(double y, double y_min) noexcept nogil:
    """A = 2^y − 2^{y_min} ≥ 0, without the cancellation of the difference."""
    return exp2(y_min) * expm1((y - y_min) * M_LN2)


cdef inline double _truncated_power(int m, double u, const double* S) noexcept nogil:
    """Σ x (u − g)^m from the moments S = (Σx, Σxg, Σxg²)."""
    if m == 1:
        return u * S[0] - S[1]
    return u * u * S[0] - 2.0 * u * S[1] + S[2]


cdef int _negative_query(int m, int order, bint gain, const double* f, const double* w, const double* grades,
                         const int64_t* level_edges, Py_ssize_t first, Py_ssize_t last,
                         double* L, double* D, double* N) noexcept nogil:
    """L, D (order ≥ 1), N (order 2) of the rows of one query's levels first:last; 1 if memory ran out."""
    cdef Py_ssize_t s = level_edges[first], n = level_edges[last] - s, lv, j
    cdef int M = (m + 1) * (2 if gain else 1), t, status
    cdef double v[MAX_MOMENTS]
    cdef double S[MAX_MOMENTS]
    cdef double g, u, a, value, slope, curve
    cdef _Query q
    for j in range(s, s + n):
        L[j] = 0.0
        if order >= 1:
            D[j] = 0.0
        if order == 2:
            N[j] = 0.0
    if last - first < 2:
        return 0
    q.fs = NULL
    status = _open_query(f, grades, s, n, M, &q)
    if status == 0:
        for lv in range(last - 1, first - 1, -1):
            a = _gain_above_lowest(grades[level_edges[lv]], q.y_min) if gain else 0.0
            if lv < last - 1:
                for j in range(level_edges[lv], level_edges[lv + 1]):
                    _tree_prefix(q.tree, M, count_reaching(q.fs, n, f[j]), S)
                    u = 1.0 + (f[j] - q.mid)
                    value = _truncated_power(m, u, S)
                    slope = -S[0] if m == 1 else -2.0 * (u * S[0] - S[1])
                    curve = 0.0 if m == 1 else 2.0 * S[0]
                    if gain:    # Σ w (A_i − A_k) φ = Σ w A_i φ − A_k Σ w φ
                        value = _truncated_power(m, u, &S[m + 1]) - a * value
                        slope = (-S[m + 1] if m == 1 else -2.0 * (u * S[m + 1] - S[m + 2])) - a * slope
                        curve = (0.0 if m == 1 else 2.0 * S[m + 1]) - a * curve
                    L[j] = value
                    if order >= 1:
                        D[j] = slope
                    if order == 2:
                        N[j] = curve
            if lv == first:
                break
            for j in range(level_edges[lv], level_edges[lv + 1]):
                if w[j] == 0.0:
                    continue
                g = f[j] - q.mid
                v[0] = w[j]
                v[1] = w[j] * g
                v[2] = w[j] * g * g
                if gain:
                    for t in range(m + 1):
                        v[m + 1 + t] = a * v[t]
                _tree_add(q.tree, n, M, q.rank[j - s], v)
    free(q.fs)
    return status


cdef inline double _over_gains(bint gain, double a, const double* S, int stride) noexcept nogil:
    """Σ_k a_ik x_k from Σ x (S[0]) and Σ A x (S[stride]), a = A_i: A_i Σ x − Σ A_k x."""
    return a * S[0] - S[stride] if gain else S[0]


cdef inline double _over_gains_squared(bint gain, double a, const double* S, int stride) noexcept nogil:
    """Σ_k a_ik² x_k from Σ x, Σ A x, Σ A² x (stride apart): A_i (A_i Σx − ΣA x) − (A_i ΣA x − ΣA² x)."""
    if not gain:
        return S[0]
    return a * (a * S[0] - S[stride]) - (a * S[stride] - S[2 * stride])


cdef int _positive_query(int m, int order, bint gain, const double* f, const double* w, const double* grades,
                         const int64_t* level_edges, Py_ssize_t first, Py_ssize_t last,
                         const double* c1, const double* c2, double* E, double* P) noexcept nogil:
    """E and P (order 2) of the rows of one query's levels first:last; 1 if memory ran out.

    Moments: c1·g^j (j < m), times 1 and A; with P, c2·g^j (j ≤ 2m − 2), times 1, A and A².
    """
    cdef Py_ssize_t s = level_edges[first], n = level_edges[last] - s, lv, j
    cdef int T1 = 2 if gain else 1, T2 = 3 if gain else 1, n2 = 2 * m - 1, o2 = m * T1, t, r, status
    cdef int M = o2 + (n2 * T2 if order == 2 else 0)
    cdef double v[MAX_MOMENTS]
    cdef double S[MAX_MOMENTS]
    cdef double g, u, a, powered, q0, q1, q2
    cdef _Query q
    for j in range(s, s + n):
        E[j] = 0.0
        if order == 2:
            P[j] = 0.0
    if last - first < 2:
        return 0
    q.fs = NULL
    status = _open_query(f, grades, s, n, M, &q)
    if status == 0:
        for lv in range(first, last):
            a = _gain_above_lowest(grades[level_edges[lv]], q.y_min) if gain else 0.0
            if lv > first:
                for j in range(level_edges[lv], level_edges[lv + 1]):
                    _tree_prefix(q.tree, M, n - first_reached(q.fs, n, f[j]), S)
                    u = 1.0 - (f[j] - q.mid)          # ℓ′(z_ik) = −m (u + g_k)^{m−1}
                    if m == 1:
                        E[j] = -_over_gains(gain, a, S, 1)
                    else:
                        E[j] = -2.0 * (u * _over_gains(gain, a, S, 2) + _over_gains(gain, a, &S[1], 2))
                    if order < 2:
                        continue
                    if m == 1:                        # ℓ′² = 1[z < 1], ℓ″ = 0
                        P[j] = w[j] * _over_gains_squared(gain, a, &S[o2], 1)
                    else:                             # ℓ′² = 4 (u + g_k)², ℓ″ = 2·1[z < 1]
                        q0 = _over_gains_squared(gain, a, &S[o2], 3)
                        q1 = _over_gains_squared(gain, a, &S[o2 + 1], 3)
                        q2 = _over_gains_squared(gain, a, &S[o2 + 2], 3)
                        P[j] = 4.0 * w[j] * (u * (u * q0 + 2.0 * q1) + q2) + 2.0 * _over_gains(gain, a, S, 2)
            if lv == last - 1:
                break
            for j in range(level_edges[lv], level_edges[lv + 1]):
                if c1[j] == 0.0 and (order < 2 or c2[j] == 0.0):
                    continue
                g = f[j] - q.mid
                for t in range(T1):
                    powered = c1[j] * (1.0 if t == 0 else (a if t == 1 else a * a))
                    v[t * m] = powered
                    if m == 2:
                        v[t * m + 1] = powered * g
                if order == 2:
                    for t in range(T2):
                        powered = c2[j] * (1.0 if t == 0 else (a if t == 1 else a * a))
                        for r in range(n2):
                            v[o2 + t * n2 + r] = powered if r == 0 else (powered * g if r == 1 else powered * g * g)
                _tree_add(q.tree, n, M, n - 1 - q.rank[j - s], v)
    free(q.fs)
    return status


def _check_layout(str name, int degree, int order, int lowest, const double[::1] f, const double[::1] w,
                  const double[::1] grades, const int64_t[::1] level_edges, const int64_t[::1] bounds, int n_threads):
    """ValueError naming the argument unless the rows, levels and queries fit together (O(n + levels))."""
    cdef Py_ssize_t n = f.shape[0], n_levels = level_edges.shape[0] - 1, q, lv, j
    if degree != 1 and degree != 2:
        raise ValueError(f"{name}: degree: expected 1 (hinge) or 2 (squared hinge), got {degree}")
    if not lowest <= order <= 2:
        raise ValueError(f"{name}: order: expected an integer in [{lowest}, 2], got {order}")
    if n_threads < 1:
        raise ValueError(f"{name}: n_threads: expected an integer >= 1, got {n_threads}")
    if w.shape[0] != n or grades.shape[0] != n:
        raise ValueError(f"{name}: w, grades: expected one entry per row ({n}), got {w.shape[0]} and "
                         f"{grades.shape[0]}")
    if n_levels < 0 or level_edges[0] != 0 or level_edges[n_levels] != n:
        raise ValueError(f"{name}: level_edges: expected the levels' first rows from 0 and the rows' count ({n}) "
                         f"last")
    for lv in range(n_levels):
        if not level_edges[lv] < level_edges[lv + 1]:
            raise ValueError(f"{name}: level_edges: expected strictly ascending edges (no empty level), got "
                             f"{level_edges[lv]} then {level_edges[lv + 1]}")
    if bounds.shape[0] < 1 or bounds[0] != 0 or bounds[bounds.shape[0] - 1] != n_levels:
        raise ValueError(f"{name}: bounds: expected the queries' first levels from 0 and the levels' count "
                         f"({n_levels}) last")
    for q in range(bounds.shape[0] - 1):
        if not bounds[q] <= bounds[q + 1]:
            raise ValueError(f"{name}: bounds: query {q}'s levels {bounds[q]}:{bounds[q + 1]} are not ascending")
    for j in range(n):
        if not isfinite(f[j]):
            raise ValueError(f"{name}: f: scores must be finite, got {f[j]!r} at row {j}")


def _chosen_queries(str name, queries, Py_ssize_t n_queries):
    """The queries to sweep as int64 indices (None: all), each once (two threads must not share a query's rows)."""
    if queries is None:
        return np.arange(n_queries, dtype=np.int64)
    chosen = np.asarray(queries)
    if chosen.ndim != 1 or (chosen.size and chosen.dtype.kind not in "iu"):
        raise ValueError(f"{name}: queries: expected a 1-D array of query indices, got shape {chosen.shape}, "
                         f"dtype {chosen.dtype}")
    chosen = np.ascontiguousarray(chosen, dtype=np.int64)
    if chosen.size and (chosen.min() < 0 or chosen.max() >= n_queries):
        raise ValueError(f"{name}: queries: expected indices in [0, {n_queries}), got {chosen.min()} to "
                         f"{chosen.max()}")
    if np.unique(chosen).size != chosen.size:
        raise ValueError(f"{name}: queries: expected each query at most once")
    return chosen


def _check_length(str name, Py_ssize_t got, Py_ssize_t n, bint wanted):
    if wanted and got != n:
        raise ValueError(f"{name}: expected one entry per row ({n}), got {got}")


def negative_sweep(int degree, int order, bint gain_weighted,
                   const double[::1] f,              # IN  (n,) scores, rows sorted by (query, grade)
                   const double[::1] w,              # IN  (n,) each row's weight as the row above a pair
                   const double[::1] grades,         # IN  (n,) grades, ascending within a query (≤ 1023 with gains)
                   const int64_t[::1] level_edges,   # IN  (n_levels + 1,) level l is rows level_edges[l]:[l + 1]
                   const int64_t[::1] bounds,        # IN  (n_queries + 1,) query q: levels bounds[q]:bounds[q + 1]
                   double[::1] L,                    # OUT (n,) Σ_{i above k} w_i a_ik ℓ(f_i − f_k)
                   double[::1] D,                    # OUT (n,) order ≥ 1: Σ w_i a_ik ℓ′(f_i − f_k), else unused
                   double[::1] N,                    # OUT (n,) order 2: Σ w_i a_ik ℓ″(f_i − f_k), else unused
                   int n_threads=1, queries=None):
    """L, D, N of every row against the rows of higher grade in its query (module docstring).

    ``degree`` 1 (hinge) or 2 (squared hinge); ``order`` 0: L; 1: L and D; 2: L, D and N (unused
    outputs may be empty arrays).  Rows of a query's top level (and of a query of one level) get 0.
    ``queries``: indices of the queries to sweep, each at most once (None: all); the rows of the
    others are left as they are, for another path to fill.
    Each query is one thread's (``prange`` from 8,192 rows on), so the outputs are the same to the
    last bit for any ``n_threads``.  O(Σ_q n_q log n_q) time; O(n_q) memory per query in progress.
    """
    cdef Py_ssize_t n = f.shape[0], n_queries = bounds.shape[0] - 1, q, t
    cdef int failed = 0
    cdef const int64_t[::1] chosen = _chosen_queries("negative_sweep", queries, n_queries)
    _check_layout("negative_sweep", degree, order, 0, f, w, grades, level_edges, bounds, n_threads)
    _check_length("negative_sweep: L", L.shape[0], n, True)
    _check_length("negative_sweep: D", D.shape[0], n, order >= 1)
    _check_length("negative_sweep: N", N.shape[0], n, order == 2)
    if n == 0:
        return
    cdef double* d_ptr = &D[0] if order >= 1 else NULL
    cdef double* n_ptr = &N[0] if order == 2 else NULL
    cdef int T = threads_for(<double> n, n_threads, SWEEP_PARALLEL_ROWS)
    with nogil:
        for t in prange(chosen.shape[0], schedule="guided", num_threads=T):
            q = chosen[t]
            failed += _negative_query(degree, order, gain_weighted, &f[0], &w[0], &grades[0], &level_edges[0],
                                      bounds[q], bounds[q + 1], &L[0], d_ptr, n_ptr)
    if failed:
        raise MemoryError()


def positive_sweep(int degree, int order, bint gain_weighted,
                   const double[::1] f,              # IN  (n,) scores, rows sorted by (query, grade)
                   const double[::1] w,              # IN  (n,) each row's weight as the row above a pair
                   const double[::1] grades,         # IN  (n,) grades, ascending within a query (≤ 1023 with gains)
                   const int64_t[::1] level_edges,   # IN  (n_levels + 1,) level l is rows level_edges[l]:[l + 1]
                   const int64_t[::1] bounds,        # IN  (n_queries + 1,) query q: levels bounds[q]:bounds[q + 1]
                   const double[::1] c1,             # IN  (n,) each row's weight c as the row below a pair
                   const double[::1] c2,             # IN  (n,) order 2: its weight c2, else unused
                   double[::1] E,                    # OUT (n,) Σ_{k below i} a_ik c1_k ℓ′(f_i − f_k)
                   double[::1] P,                    # OUT (n,) order 2: the curvature sum P_i, else unused
                   int n_threads=1, queries=None):
    """E and P of every row against the rows of lower grade in its query (module docstring).

    ``order`` 1: E; 2: E and P.  The caller multiplies both by w_i.  Rows of a query's bottom level
    (and of a query of one level) get 0.  ``queries``, threads, time and memory as ``negative_sweep``.
    """
    cdef Py_ssize_t n = f.shape[0], n_queries = bounds.shape[0] - 1, q, t
    cdef int failed = 0
    cdef const int64_t[::1] chosen = _chosen_queries("positive_sweep", queries, n_queries)
    _check_layout("positive_sweep", degree, order, 1, f, w, grades, level_edges, bounds, n_threads)
    _check_length("positive_sweep: c1", c1.shape[0], n, True)
    _check_length("positive_sweep: c2", c2.shape[0], n, order == 2)
    _check_length("positive_sweep: E", E.shape[0], n, True)
    _check_length("positive_sweep: P", P.shape[0], n, order == 2)
    if n == 0:
        return
    cdef const double* c2_ptr = &c2[0] if order == 2 else NULL
    cdef double* p_ptr = &P[0] if order == 2 else NULL
    cdef int T = threads_for(<double> n, n_threads, SWEEP_PARALLEL_ROWS)
    with nogil:
        for t in prange(chosen.shape[0], schedule="guided", num_threads=T):
            q = chosen[t]
            failed += _positive_query(degree, order, gain_weighted, &f[0], &w[0], &grades[0], &level_edges[0],
                                      bounds[q], bounds[q + 1], &c1[0], c2_ptr, &E[0], p_ptr)
    if failed:
        raise MemoryError()
