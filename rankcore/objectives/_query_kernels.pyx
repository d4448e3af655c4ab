"""Sums over the grade levels of each query for the per-query push with ℓ(z) = e^{−rz}.

Design
------
A. The per-query push works on one number per (query, grade level); its sums
   "over every higher level" and "over every lower level" are running sums
   along the levels of one query, restarted at each query.
B. ``running_lse`` keeps them as logarithms: O(levels), one exp and one log1p
   per level, exact at any scale (levels e^{±1400} apart stay apart).  NumPy's
   ``logaddexp.accumulate`` cannot restart at each query.  Every price but
   those of degree 1 uses it, and they fall back on it.
C. ``exp_linear_push`` does the whole evaluation for a price of degree 1
   (g(L) = g(1)·L) in linear space: shifted by the query's own mid-range c_q,
   w_i e^{−r(f_i − c_q)} and e^{r(f_k − c_q)} multiply to the shift-free
   pair terms, so one exp per row replaces the log-space form's ten NumPy
   passes with exp and log.  Its sums are sums of positive terms (gain
   weights enter by the steps 2^{g_l} − 2^{g_{l−1}} > 0), so no digit is lost
   to cancellation; it refuses (``LinearStatus``) where a query's scores spread
   so far that a sum could leave the normal doubles, and the caller then takes
   the log-space path.
"""

from cython.parallel cimport prange
from libc.math cimport exp, isfinite, log1p, INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from rankcore._parallel cimport threads_for

#: From this many rows ``exp_linear_push`` shares its queries between threads (when given more than one): below it
#: a parallel region's fork, join and barriers cost more than the second thread saves.  The per-query objective's
#: whole evaluation (value, gradient, curvature) on two threads against one, medians on a 2-core VM: 0.66 at 4,266
#: rows, 0.61 at 7,587 and 0.60 at 10,327 -- the objective of a small set of short queries pays for its threads.
DEF PUSH_PARALLEL_ROWS = 4096


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

    Notes
    -----
    O(n_levels + n_queries) time (one exp and one log1p per level), O(1) extra memory.
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


cpdef enum LinearStatus:
    # what exp_linear_push reports: anything but LINEAR_DONE sends the caller to the log-space path
    LINEAR_DONE = 0
    LINEAR_NOT_FINITE = 1
    LINEAR_SPREAD = 2
    LINEAR_OVERFLOW = 3


cdef int _query_linear_sums(const double* scores, const int64_t* order, const double* pos_weight,
                            const double* neg_weight, const int64_t* level_starts,
                            Py_ssize_t first, Py_ssize_t last,
                            const double* step, double limit, double rate,
                            double* above, double* below, double* grad,
                            double* total, double* terms) noexcept nogil:
    """One query's levels first:last: T_l into ``above``, P_l into ``below``, b into ``grad``; adds R_q.

    Pointers, not memoryviews: it runs once per query, and passing a dozen
    slices by value cost more than a small query's rows (``step`` NULL:
    every pair weighs 1).  ``terms`` NULL: each level's T_l·B_l is added to
    ``total``; else it is written to ``terms[l]`` (0 for a query of one
    level), for the caller to add in level order on one thread.
    """
    cdef bint gain = step != NULL
    cdef Py_ssize_t l, j
    cdef int64_t o
    cdef double lo = INFINITY, hi = -INFINITY, mid, f, b
    cdef double level_x, level_b, acc_x = 0.0, acc_t = 0.0, acc_b = 0.0, acc_p = 0.0
    for j in range(level_starts[first], level_starts[last]):
        f = scores[order[j]]
        if not isfinite(f):
            return LINEAR_NOT_FINITE
        # (f is finite here: plain comparisons give fmin's and fmax's results)
        if f < lo:
            lo = f
        if f > hi:
            hi = f
    if last - first < 2:
        # one level: no pair, whatever the scores
        for l in range(first, last):
            above[l] = 0.0
            below[l] = 0.0
            if terms != NULL:
                terms[l] = 0.0
            for j in range(level_starts[l], level_starts[l + 1]):
                grad[order[j]] = 1.0
        return LINEAR_DONE
    if not rate * (hi - lo) <= limit:
        return LINEAR_SPREAD
    mid = 0.5 * (lo + hi)
    # Each level's Σ x (into above) and Σ w b (into below).
    for l in range(first, last):
        level_x = 0.0
        level_b = 0.0
        for j in range(level_starts[l], level_starts[l + 1]):
            o = order[j]
            b = exp(rate * (scores[o] - mid))
            grad[o] = b
            level_x += pos_weight[j] / b
            level_b += neg_weight[j] * b
        above[l] = level_x
        below[l] = level_b
    # Downwards: T_l = Σ_{m > l} Σ_{i ∈ m} x_i, or Σ_{m > l} δ_m Σ_{i at level m or above} x_i.
    for l in range(last - 1, first - 1, -1):
        level_x = above[l]
        above[l] = acc_t if gain else acc_x
        acc_x += level_x
        if gain:
            acc_t += step[l] * acc_x
    # Upwards: R_q = Σ_l T_l B_l, then P_l from the B below (a level with T_l = 0 has only rows of
    # zero weight above it: its B_l reaches no positive).
    for l in range(first, last):
        level_b = below[l]
        if terms == NULL:
            total[0] += above[l] * level_b
        else:
            terms[l] = above[l] * level_b
        if gain:
            acc_p += step[l] * acc_b
            below[l] = acc_p
        else:
            below[l] = acc_b
        acc_b += level_b
    return LINEAR_DONE


cdef void _levels_gradient(Py_ssize_t lo_level, Py_ssize_t hi_level, const int64_t* order,
                           const int64_t* level_starts, const double* pos_weight, const double* neg_weight,
                           const double* above, const double* below, double inv, double rate, double* grad,
                           double* hess) noexcept nogil:
    """The gradient r (v_k L_k − x_n P_l) / R (and, ``hess`` not NULL, the curvature r (v_k L_k + x_n P_l) / R)
    of the rows of levels lo_level:hi_level, in the caller's order; ``grad`` holds each row's b on entry."""
    cdef Py_ssize_t l, j
    cdef int64_t o
    cdef double b, neg, pos
    for l in range(lo_level, hi_level):
        for j in range(level_starts[l], level_starts[l + 1]):
            o = order[j]
            b = grad[o]
            neg = rate * (neg_weight[j] * b * above[l] * inv)
            pos = rate * (pos_weight[j] / b * below[l] * inv)
            grad[o] = neg - pos
            if hess != NULL:
                hess[o] = rate * (neg + pos)


def exp_linear_push(const double[::1] scores,        # IN  (n,) caller's row order
                    const int64_t[::1] order,        # IN  (n,) sorted position -> caller's row
                    const double[::1] pos_weight,    # IN  (n,) sorted: each row's weight w_i as the row above
                    const double[::1] neg_weight,    # IN  (n,) sorted: each row's weight v_k as the row below
                    const int64_t[::1] level_starts, # IN  (n_levels + 1,) the last entry is n
                    const int64_t[::1] bounds,       # IN  (n_queries + 1,) query q: levels bounds[q]:bounds[q+1]
                    const double[::1] step,          # IN  (n_levels,) δ_l, or empty: every pair weighs 1
                    const double[::1] spread_limit,  # IN  (n_queries,) largest safe r·(max − min) of scores
                    double rate, int want,
                    double[::1] above,               # OUT (n_levels,) scratch: T_l, sums over the levels above
                    double[::1] below,               # OUT (n_levels,) scratch: P_l, sums over the levels below
                    double[::1] grad,                # OUT (n,) caller's order (also scratch for e^{r(f − c_q)})
                    double[::1] hess,                # OUT (n,) caller's order, written when want == 2
                    int n_threads=1):
    """The per-query push with ℓ(z) = e^{−rz} and g(L) = L, in linear space per query.

    Within query q, shifted by its mid-range c_q, x_i = w_i e^{−r(f_i − c_q)}
    and b_k = e^{r(f_k − c_q)} multiply to the shift-free w_i e^{r(f_k − f_i)},
    so L_k = b_k T_l (T_l = Σ_{i above level l} a_ik x_i) and
    R = Σ_q Σ_l T_l Σ_{k ∈ l} v_k b_k: running sums of positive terms over the
    levels, one exp and one division per row, no log.  Gain-weighted pairs
    use the steps δ_l (a_ik is the sum of the δ between the two levels).
    A row weighs w as the row above a pair (``pos_weight``) and v as the row
    below (``neg_weight``): the sample weight in both roles, or factors of a
    pair's weight that split between its rows (``_query_positions``).
    Writes, in the caller's row order, ∂ log R/∂f = r (v_k L_k − x_n P_l) / R,
    with P_l the (gain-weighted) sum of v_k b_k over the rows below, and
    the curvature (∇²R)_nn / R = r (v_k L_k + x_n P_l) / R (g″ = 0).

    Parameters
    ----------
    want : int
        0: R only; 1: and the gradient; 2: and the curvature.
    n_threads : int
        From ``PUSH_PARALLEL_ROWS`` rows on, more than one thread shares the
        queries: T runs of whole queries of about n/T rows each, their sums
        in one parallel loop and their rows' gradient in another.  Each
        level's term of R is kept and added on the calling thread in level
        order, the additions of the one-thread loop: every output is the
        same to the last bit for any thread count, and the status is the
        first refusal in query order.

    Returns
    -------
    status : LinearStatus
        ``LINEAR_DONE``; ``LINEAR_NOT_FINITE`` a score is not finite;
        ``LINEAR_SPREAD`` a query's r·(max − min) exceeds its
        ``spread_limit`` (its sums could leave the range of normal doubles);
        ``LINEAR_OVERFLOW`` the sum over the queries overflows.  Anything but
        ``LINEAR_DONE`` means nothing usable was written.
    R : float
        The objective Σ_k w_k L_k (0 when no pair is live).

    Notes
    -----
    O(rows + levels) time, O(levels) extra memory (``above``, ``below``; on
    more than one thread a buffer of one term per level too).  Levels of
    one query are contiguous and ascend by grade; a query of one level
    contributes nothing and is skipped whatever its scores.
    """
    cdef Py_ssize_t q, n = scores.shape[0], n_levels = level_starts.shape[0] - 1
    cdef int status = LINEAR_DONE
    cdef double total = 0.0, inv
    if order.shape[0] != n or pos_weight.shape[0] != n or neg_weight.shape[0] != n or grad.shape[0] != n \
            or n_levels < 0 or level_starts[n_levels] != n or above.shape[0] < n_levels \
            or below.shape[0] < n_levels or (step.shape[0] != 0 and step.shape[0] < n_levels) \
            or spread_limit.shape[0] < bounds.shape[0] - 1 or (want == 2 and hess.shape[0] != n):
        raise ValueError("exp_linear_push: expected order, pos_weight, neg_weight and grad (and hess) of one entry "
                         "per row, level_starts ending at the rows' count, above and below of one entry per level, "
                         "step empty or one per level, spread_limit one per query")
    for q in range(bounds.shape[0] - 1):        # each query's levels, read through raw pointers below
        if not 0 <= bounds[q] <= bounds[q + 1] <= n_levels:
            raise ValueError(f"exp_linear_push: query {q}'s levels {bounds[q]}:{bounds[q + 1]} are not an ascending "
                             f"range within the {n_levels} levels")
    if n_threads < 1:
        raise ValueError(f"exp_linear_push: n_threads must be at least 1, got {n_threads}")
    if n == 0 or n_levels == 0:
        return LinearStatus(status), total
    cdef const double* step_ptr = &step[0] if step.shape[0] > 0 else NULL
    cdef int T = threads_for(<double> n, n_threads, PUSH_PARALLEL_ROWS)
    if T > 1 and bounds.shape[0] > 2:
        return _exp_linear_push_threads(scores, order, pos_weight, neg_weight, level_starts, bounds, step_ptr,
                                        spread_limit, rate, want, above, below, grad, hess,
                                        min(T, <int> (bounds.shape[0] - 1)))
    with nogil:
        for q in range(bounds.shape[0] - 1):
            status = _query_linear_sums(&scores[0], &order[0], &pos_weight[0], &neg_weight[0], &level_starts[0],
                                        bounds[q], bounds[q + 1], step_ptr, spread_limit[q], rate, &above[0],
                                        &below[0], &grad[0], &total, NULL)
            if status != LINEAR_DONE:
                break
        if status == LINEAR_DONE and not isfinite(total):
            status = LINEAR_OVERFLOW
        if status == LINEAR_DONE and want > 0 and total > 0.0:
            inv = 1.0 / total           # ≤ e^700: R is at least its smallest live term
            _levels_gradient(0, n_levels, &order[0], &level_starts[0], &pos_weight[0], &neg_weight[0], &above[0],
                             &below[0], inv, rate, &grad[0], &hess[0] if want == 2 else NULL)
    return LinearStatus(status), total


cdef tuple _exp_linear_push_threads(const double[::1] scores, const int64_t[::1] order,
                                    const double[::1] pos_weight, const double[::1] neg_weight,
                                    const int64_t[::1] level_starts, const int64_t[::1] bounds,
                                    const double* step_ptr, const double[::1] spread_limit, double rate, int want,
                                    double[::1] above, double[::1] below, double[::1] grad, double[::1] hess,
                                    int T):
    """``exp_linear_push`` on T ≥ 2 threads (its docstring): the same outputs, bit for bit, as one thread.

    T runs of whole queries, each a ``prange`` iteration (every run is done
    however many threads the runtime gives): their sums, then on the calling
    thread the status and R, then their rows' gradient.
    """
    cdef Py_ssize_t n = scores.shape[0], n_levels = level_starts.shape[0] - 1, n_queries = bounds.shape[0] - 1
    cdef Py_ssize_t q, l, c, lo_level, hi_level
    cdef int st, status = LINEAR_DONE
    cdef double total = 0.0, inv = 0.0, unused = 0.0
    cdef double* terms = <double*> malloc(n_levels * sizeof(double))
    cdef Py_ssize_t* first_query = <Py_ssize_t*> malloc((T + 1) * sizeof(Py_ssize_t))
    cdef int* run_status = <int*> malloc(T * sizeof(int))
    if terms == NULL or first_query == NULL or run_status == NULL:
        free(terms); free(first_query); free(run_status)
        raise MemoryError()
    cdef const double* scores_ptr = &scores[0]
    cdef const int64_t* order_ptr = &order[0]
    cdef const double* pos_ptr = &pos_weight[0]
    cdef const double* neg_ptr = &neg_weight[0]
    cdef const int64_t* starts_ptr = &level_starts[0]
    cdef const int64_t* bounds_ptr = &bounds[0]
    cdef const double* limit_ptr = &spread_limit[0]
    cdef double* above_ptr = &above[0]
    cdef double* below_ptr = &below[0]
    cdef double* grad_ptr = &grad[0]
    cdef double* hess_ptr = &hess[0] if want == 2 else NULL
    try:
        with nogil:
            # run c's queries: from the first whose rows start at or after c·n/T (whole queries, in order)
            first_query[0] = 0
            q = 0
            for c in range(1, T):
                while q < n_queries and starts_ptr[bounds_ptr[q]] < (n * c) // T:
                    q += 1
                first_query[c] = q
            first_query[T] = n_queries
            for c in prange(T, schedule="static", num_threads=T):
                run_status[c] = LINEAR_DONE
                for q in range(first_query[c], first_query[c + 1]):
                    st = _query_linear_sums(scores_ptr, order_ptr, pos_ptr, neg_ptr, starts_ptr, bounds_ptr[q],
                                            bounds_ptr[q + 1], step_ptr, limit_ptr[q], rate, above_ptr, below_ptr,
                                            grad_ptr, &unused, terms)
                    if st != LINEAR_DONE:
                        run_status[c] = st
                        break
            # the first refusal in query order (the runs hold the queries in order); else R, added level
            # by level in query order as the one-thread loop adds it
            for c in range(T):
                if run_status[c] != LINEAR_DONE:
                    status = run_status[c]
                    break
            if status == LINEAR_DONE:
                for q in range(n_queries):
                    if bounds_ptr[q + 1] - bounds_ptr[q] >= 2:
                        for l in range(bounds_ptr[q], bounds_ptr[q + 1]):
                            total = total + terms[l]
                if not isfinite(total):
                    status = LINEAR_OVERFLOW
            if status == LINEAR_DONE and want > 0 and total > 0.0:
                inv = 1.0 / total           # ≤ e^700: R is at least its smallest live term
                for c in prange(T, schedule="static", num_threads=T):
                    # the rows of the run's own queries' levels (the first and last runs reach the ends)
                    lo_level = 0 if c == 0 else bounds_ptr[first_query[c]]
                    hi_level = n_levels if c == T - 1 else bounds_ptr[first_query[c + 1]]
                    _levels_gradient(lo_level, hi_level, order_ptr, starts_ptr, pos_ptr, neg_ptr, above_ptr,
                                     below_ptr, inv, rate, grad_ptr, hess_ptr)
        if status == LINEAR_NOT_FINITE or status == LINEAR_SPREAD:
            total = 0.0
        return LinearStatus(status), total
    finally:
        free(terms); free(first_query); free(run_status)


cdef inline double _anchored(const double[::1] scores, const double[::1] y, int64_t a) noexcept nogil:
    """r_a = scores[a] − y[a], or 0 for no anchor (a = −1): x − 0.0 is x, the plain form bit for bit."""
    return scores[a] - y[a] if a >= 0 else 0.0


def query_rmse_term(const double[::1] scores,          # IN  (n,) caller's row order
                    const double[::1] y,               # IN  (n,) grades
                    const double[::1] weight,          # IN  (n,) row weights
                    const int64_t[::1] codes,          # IN  (n,) each row's query, 0 ≤ code < n_queries
                    const double[::1] inverse_total,   # IN  (n_queries,) 1/W_q, 0 for a query of weight 0
                    const int64_t[::1] anchor,         # IN  (n_queries,) the heaviest row, or −1 (none)
                    double scale,
                    const double[::1] grad_in,         # IN  (n,) the push's gradient
                    double[::1] query_mean,            # scratch (n_queries,)
                    double[::1] grad):                 # OUT (n,) grad_in + scale · w_i (r_i − m_q)
    """Q = ½ Σ_i w_i (r_i − m_{q(i)})², r = scores − y, and the gradient of J_push + scale·Q.

    m_q = Σ_{i ∈ q} w_i r_i / W_q.  In a query whose heaviest row a =
    ``anchor[q]`` holds more than half of W_q, about its residual:
    r_i − m_q = d_i − Σ_k w_k d_k / W_q with d_i = r_i − r_a.  (Formed as
    r_i − m_q, r_a − m_q carries an error of an ulp of r_a, relative
    ε·W_q/(W_q − w_a): unbounded as w_a takes all of W_q -- 1e152 among
    weights of 1 made a gradient weight of ~1e136 from nothing.  At most
    half, the error is at most 2ε and ``anchor[q]`` = −1 keeps the plain
    form, bit for bit.)  Two passes over the rows (the weighted
    residual per query, then each row's centred residual) and one over the
    queries: O(n + n_queries) time, no allocation; ``grad`` may be
    ``grad_in``.  Returns Q.  The NumPy reference is
    ``rankcore.objectives._query_rmse.QueryRMSETerm``.
    """
    cdef Py_ssize_t i, q
    cdef Py_ssize_t n = scores.shape[0]
    cdef int64_t code, current = -1
    cdef double centred, g, value = 0.0, acc = 0.0
    cdef bint bad = anchor.shape[0] != query_mean.shape[0]
    for q in range(anchor.shape[0] if n > 0 and not bad else 0):
        if anchor[q] < -1 or anchor[q] >= n:      # (a row read out of the arrays otherwise)
            bad = True
            break
    if bad:
        raise ValueError(f"query_rmse_term: anchor must hold one row index in [0, {n}) or -1 per query")
    with nogil:
        for q in range(query_mean.shape[0]):
            query_mean[q] = 0.0
        # a run of rows of one query sums in a register: adding into query_mean[q] row by row would wait on
        # the store of the row before (rows come in query order); the additions are the same, in the same order
        for i in range(n):
            code = codes[i]
            if code != current:
                if current >= 0:
                    query_mean[current] = acc
                current = code
                acc = query_mean[code]
            acc = acc + weight[i] * ((scores[i] - y[i]) - _anchored(scores, y, anchor[code]))
        if current >= 0:
            query_mean[current] = acc
        for q in range(query_mean.shape[0]):
            query_mean[q] *= inverse_total[q]
        for i in range(n):
            code = codes[i]
            centred = ((scores[i] - y[i]) - _anchored(scores, y, anchor[code])) - query_mean[code]
            g = weight[i] * centred
            value += g * centred
            grad[i] = grad_in[i] + scale * g
    return 0.5 * value
