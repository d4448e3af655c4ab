"""The exponential push objective's line along a direction with few values, and its minimum, natively.

Design
------
A. Along a direction h with V distinct values u (a tree's leaf values, a
   stump's 0 and 1), the line summary holds, per value and class, the
   log-sum-exp of the rows' exponential weights (``BoundExpPush``).  With
   a_u = lp_u − r·α·u and b_u = ln_u + d·r·α·u, π = softmax(a), ρ = softmax(b):
   φ(α) = log g(1) + d·LSE(a) + LSE(b),
   φ′(α) = d r Σ_{u,u′} ρ_u (u − u′) π_u′ (pair by pair, so that a tiny
   derivative near an asymptote is not lost to cancellation),
   φ″(α) = d r² Var_π(u) + d² r² Var_ρ(u), each variance ½ Σ w_u w_u′ (u − u′)².
   O(V²) per point, no allocation.
B. :meth:`ExpLine.minimize` is ``rankcore.push._line_search.line_search``
   (log form) on this φ, step for step -- the same control flow and the same
   floating-point operations on the same φ values (the tests run both), so a
   line search costs a few microseconds instead of a Python loop of NumPy
   calls per point.
"""

from libc.math cimport exp, log, fabs, isfinite, isnan, INFINITY, NAN
from libc.stdlib cimport free, malloc

import numpy as np

from ._base import LinePoint, LineSearchResult

cdef enum:
    MAX_EVALUATIONS_CAP = 1000

cdef const char* _REASONS[7]
_REASONS[0] = "converged"
_REASONS[1] = "max_step"
_REASONS[2] = "flat"
_REASONS[3] = "plateau"
_REASONS[4] = "stationary"
_REASONS[5] = "no_decrease"
_REASONS[6] = "max_evaluations"

cdef enum:
    R_CONVERGED = 0
    R_MAX_STEP = 1
    R_FLAT = 2
    R_PLATEAU = 3
    R_STATIONARY = 4
    R_NO_DECREASE = 5
    R_MAX_EVALUATIONS = 6


cdef inline double _pymax(double a, double b) noexcept nogil:
    """Python's max(a, b): the first unless the second is larger."""
    return b if b > a else a


cdef inline double _pymin(double a, double b) noexcept nogil:
    """Python's min(a, b): the first unless the second is smaller."""
    return b if b < a else a


cdef class ExpLine:
    """φ(α) along a direction with V values, from the line summary (see the module doc).

    Parameters
    ----------
    summary : (V, 2) float64
        Log-sum-exps of the positives' and the negatives' weights by value.
    values : (V,) float64
        The direction's values, ascending.
    degree, rate, log_g1 : float
        The price's homogeneous degree d, the loss's rate r and log g(1).
    """

    cdef Py_ssize_t V
    cdef double d, r, log_g1
    cdef double* buf          # lp, ln, u, a, b, pi, rho, w: 8·V doubles
    cdef readonly object summary, values

    def __cinit__(self, summary, values, double degree, double rate, double log_g1):
        s = np.ascontiguousarray(summary, dtype=np.float64)
        u = np.ascontiguousarray(values, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] != 2 or u.ndim != 1 or u.shape[0] != s.shape[0]:
            raise ValueError(f"ExpLine: expected a (V, 2) summary and V values, got {s.shape} and {u.shape}")
        self.V = u.shape[0]
        self.d = degree
        self.r = rate
        self.log_g1 = log_g1
        self.summary = s
        self.values = u
        self.buf = <double*> malloc((8 * self.V + 1) * sizeof(double))
        if self.buf == NULL:
            raise MemoryError()
        cdef double[:, ::1] sv = s
        cdef double[::1] uv = u
        cdef Py_ssize_t k
        for k in range(self.V):
            self.buf[k] = sv[k, 0]
            self.buf[self.V + k] = sv[k, 1]
            self.buf[2 * self.V + k] = uv[k]

    def __dealloc__(self):
        free(self.buf)

    cdef void point(self, double alpha, double* value, double* d1, double* d2) noexcept nogil:
        """φ, φ′, φ″ at α (module doc, A)."""
        cdef Py_ssize_t V = self.V, k, q
        cdef double* lp = self.buf
        cdef double* ln = lp + V
        cdef double* u = ln + V
        cdef double* a = u + V
        cdef double* b = a + V
        cdef double* pi = b + V
        cdef double* rho = pi + V
        cdef double* w = rho + V
        cdef double ra = self.r * alpha, dra = self.d * self.r * alpha
        cdef double A, B, s1, var_p, var_n, acc
        for k in range(V):
            a[k] = lp[k] - ra * u[k]
            b[k] = ln[k] + dra * u[k]
        A = _softmax(a, pi, V)
        B = _softmax(b, rho, V)
        # (ρ·D)·π with D[k, q] = u_k − u_q, in the order of a vector–matrix then a dot product
        for q in range(V):
            acc = 0.0
            for k in range(V):
                acc = acc + rho[k] * (u[k] - u[q])
            w[q] = acc
        s1 = 0.0
        for q in range(V):
            s1 = s1 + w[q] * pi[q]
        var_p = 0.5 * _pair_variance(pi, u, w, V)
        var_n = 0.5 * _pair_variance(rho, u, w, V)
        value[0] = self.log_g1 + self.d * A + B
        d1[0] = self.d * self.r * s1
        d2[0] = self.d * self.r * self.r * var_p + self.d * self.d * self.r * self.r * var_n

    def __call__(self, double alpha):
        """φ, φ′, φ″ at α as a :class:`~rankcore.objectives.LinePoint`.  O(V²) time, no allocation (the 8·V buffer)."""
        cdef double v, d1, d2
        self.point(alpha, &v, &d1, &d2)
        return LinePoint(alpha, v, d1, d2)

    def minimize(self, double max_step, double xtol=1e-13, int max_evaluations=200):
        """The step of ``line_search(self, log_value=True, max_step=..., xtol=..., max_evaluations=...)``.

        Returns a :class:`~rankcore.objectives.LineSearchResult`; raises
        FloatingPointError when φ is not finite at α = 0, as ``line_search``.

        O(E·V²) time for the E ≤ ``max_evaluations`` points it evaluates (each O(V²)), O(1) extra
        memory: the search's steps in a fixed stack array of 1,001 doubles, no allocation.
        """
        cdef double alpha, value
        cdef int n_eval, reason
        if max_evaluations > MAX_EVALUATIONS_CAP:
            max_evaluations = MAX_EVALUATIONS_CAP
        with nogil:
            reason = self._search(max_step, xtol, max_evaluations, &alpha, &value, &n_eval)
        if reason < 0:
            p0 = self(0.0)
            raise FloatingPointError(f"line search: the objective is not finite at the current scores ({p0})")
        return LineSearchResult(alpha, value, n_eval, _REASONS[reason].decode())

    cdef int _search(self, double max_step, double xtol, int max_evaluations, double* alpha_out,
                     double* value_out, int* n_out) noexcept nogil:
        """``line_search`` with log_value=True; returns the reason code (−1: φ(0) not finite)."""
        cdef double v0, g0, h0, s, t, v, d1, d2, c, t_next, newton, scale
        cdef double best_t = 0.0, best_v, lo = 0.0, hi = NAN, t_prev = 0.0, d_prev
        cdef double dx_old = INFINITY, dx = INFINITY, flat_from, flat_tol = 4.0 * 2.220446049250313e-16
        cdef double evaluated[MAX_EVALUATIONS_CAP + 1]
        cdef int n_eval = 1, n_seen = 1, reason = R_MAX_EVALUATIONS
        cdef bint bad
        self.point(0.0, &v0, &g0, &h0)
        if isnan(v0) or isnan(g0) or v0 == INFINITY:
            return -1
        if g0 == 0.0 or v0 == -INFINITY:
            alpha_out[0] = 0.0
            value_out[0] = v0
            n_out[0] = n_eval
            return R_STATIONARY
        s = -1.0 if g0 > 0 else 1.0
        best_v = v0
        evaluated[0] = 0.0
        d_prev = s * g0
        t = _first_step(d_prev, h0, max_step)
        flat_from = v0
        v = v0
        d1 = g0
        while n_eval < max_evaluations:
            n_eval += 1
            self.point(s * t, &v, &d1, &d2)
            d1 = s * d1
            evaluated[n_seen] = t
            n_seen += 1
            bad = isnan(v) or isnan(d1) or v == INFINITY
            if not bad and v <= best_v:
                best_t = t
                best_v = v
            if v == -INFINITY or (not bad and d1 == 0.0):
                reason = R_CONVERGED          # an exact stationary point, or R reached 0
                break
            if bad or d1 > 0.0:
                hi = t
            else:
                lo = t
            if isnan(hi):                     # still descending: expand
                if t >= max_step:
                    reason = R_MAX_STEP
                    break
                if not bad and v >= flat_from - flat_tol * _pymax(1.0, fabs(v)):
                    if t_prev == 0.0 and v <= v0 and not (isfinite(h0) and h0 > 0):
                        best_t = t
                        best_v = v
                        reason = R_PLATEAU
                        break
                    best_t = t_prev
                    best_v = flat_from
                    reason = R_FLAT
                    break
                flat_from = v
                c = _curvature(t, d1, d2, t_prev, d_prev)
                t_next = t - d1 / c if isfinite(c) else NAN
                t_prev = t
                d_prev = d1
                t = _pymin(_pymax(2.0 * t, t_next) if isfinite(t_next) else 2.0 * t, max_step)
                continue
            # bracketed: safeguarded Newton (rtsafe)
            c = NAN if bad else _curvature(t, d1, d2, t_prev, d_prev)
            newton = t - d1 / c if isfinite(c) else NAN
            if isfinite(newton) and fabs(newton - t) <= xtol * _pymax(1.0, fabs(t)):
                reason = R_CONVERGED
                break
            if bad or not (lo < newton and newton < hi) or fabs(newton - t) > 0.5 * fabs(dx_old):
                dx_old = dx
                dx = 0.5 * (hi - lo)
                t_next = lo + dx
            else:
                dx_old = dx
                dx = newton - t
                t_next = newton
            if not bad:
                t_prev = t
                d_prev = d1
            scale = _pymax(1.0, fabs(t_next))
            if fabs(dx) <= xtol * scale or hi - lo <= xtol * scale:
                if not _contains(evaluated, n_seen, t_next) and n_eval < max_evaluations:
                    n_eval += 1
                    self.point(s * t_next, &v, &d1, &d2)
                    d1 = s * d1
                    t = t_next
                reason = R_CONVERGED
                break
            t = t_next
        if reason == R_CONVERGED and t > 0 and not (isnan(v) or isnan(d1)) and v <= v0:
            best_t = t
            best_v = v
        return _outcome(best_t, best_v, v0, s, reason, n_eval, alpha_out, value_out, n_out)


def lse_at(summary, values, double degree, double rate, double alpha):
    """(LSE(a), LSE(b)) at α: the positives' and negatives' log-sum-exps after the step (module doc, A).

    The stage results G at the scores f + α·h, computed as :meth:`ExpLine.point` computes them.
    O(V) time, O(V) memory (an :class:`ExpLine`'s buffer).
    """
    cdef ExpLine line = ExpLine(summary, values, degree, rate, 0.0)
    cdef Py_ssize_t V = line.V, k
    cdef double* a = line.buf + 3 * V
    cdef double* b = a + V
    cdef double ra = rate * alpha, dra = degree * rate * alpha
    for k in range(V):
        a[k] = line.buf[k] - ra * line.buf[2 * V + k]
        b[k] = line.buf[V + k] + dra * line.buf[2 * V + k]
    return _softmax(a, b + V, V), _softmax(b, b + 2 * V, V)


def log_abs_sums(const double[:, ::1] sums, double scale, double A, double B):
    """(V, 2) log(Σ|∂J/∂f| / scale) + (A, B): the line summary from per-value, per-class sums (log 0 = −inf).

    O(V) time, O(V) memory: the output.
    """
    cdef Py_ssize_t V = sums.shape[0], k
    if sums.shape[1] != 2:
        raise ValueError(f"log_abs_sums: expected (V, 2) sums, got ({V}, {sums.shape[1]})")
    out = np.empty((V, 2))
    cdef double[:, ::1] o = out
    for k in range(V):
        o[k, 0] = (log(sums[k, 0] / scale) if sums[k, 0] > 0 else -INFINITY) + A
        o[k, 1] = (log(sums[k, 1] / scale) if sums[k, 1] > 0 else -INFINITY) + B
    return out


cdef inline double _softmax(const double* x, double* w, Py_ssize_t V) noexcept nogil:
    """w = e^{x − LSE(x)}; returns LSE(x) (−inf and zeros when no weight is positive)."""
    cdef Py_ssize_t k
    cdef double top = -INFINITY, total = 0.0
    for k in range(V):
        if x[k] > top:
            top = x[k]
    if not isfinite(top):
        for k in range(V):
            w[k] = 0.0
        return -INFINITY
    for k in range(V):
        w[k] = exp(x[k] - top)
        total = total + w[k]
    for k in range(V):
        w[k] = w[k] / total
    return top + log(total)


cdef inline double _pair_variance(const double* p, const double* u, double* w, Py_ssize_t V) noexcept nogil:
    """Σ_{k,q} p_k p_q (u_k − u_q)² (twice the variance of u under p), without cancellation."""
    cdef Py_ssize_t k, q
    cdef double acc, total = 0.0, diff
    for q in range(V):
        acc = 0.0
        for k in range(V):
            diff = u[k] - u[q]
            acc = acc + p[k] * (diff * diff)
        w[q] = acc
    for q in range(V):
        total = total + w[q] * p[q]
    return total


cdef inline double _first_step(double d0, double h0, double max_step) noexcept nogil:
    """The first trial step: Newton's from α = 0 where the curvature is usable, else 1, kept in [1e-12, max_step]."""
    cdef double c0 = _curvature(0.0, d0, h0, 0.0, NAN)
    cdef double t = -d0 / c0 if isfinite(c0) else 1.0
    return _pymin(_pymax(t, 1e-12), max_step)


cdef inline bint _contains(const double* xs, int n, double x) noexcept nogil:
    """Whether ``x`` is one of the first ``n`` values of ``xs`` (a step already evaluated)."""
    cdef int k
    for k in range(n):
        if xs[k] == x:
            return True
    return False


cdef inline int _outcome(double best_t, double best_v, double v0, double s, int reason, int n_eval,
                         double* alpha_out, double* value_out, int* n_out) noexcept nogil:
    """Write the search's result and return its reason: no decrease when no step lowered φ below φ(0)."""
    n_out[0] = n_eval
    if best_t == 0.0:
        alpha_out[0] = 0.0
        value_out[0] = v0
        return R_NO_DECREASE
    alpha_out[0] = s * best_t
    value_out[0] = best_v
    return reason


cdef inline double _curvature(double t, double d1, double d2, double t_prev, double d_prev) noexcept nogil:
    """``line_search``'s curvature (log form): φ″ if > 0, else φ″ + φ′² if > 0, else the secant slope, or NaN."""
    cdef double slope
    if isfinite(d2):
        if d2 > 0:
            return d2
        if d2 + d1 * d1 > 0:
            return d2 + d1 * d1
    if isfinite(d_prev) and t != t_prev:
        slope = (d1 - d_prev) / (t - t_prev)
        if isfinite(slope) and slope > 0:
            return slope
    return NAN
