"""The push objective with the exponential loss, as row-block reductions in log space.

With ℓ(z) = e^{−r z} the inner sums factorize (docs/theory/push.md#log-space):
L_k = e^{r f_k} · S with S = Σ_i w_i e^{−r f_i}, so

* for a price of homogeneous degree d (``identity``: 1, ``pow:p``: p),
  R = g(1) · S^d · Σ_k v_k e^{d r f_k} and
  J = log R = log g(1) + d·A + B with A = LSE_i(log w_i − r f_i),
  B = LSE_k(log v_k + d r f_k): **one** pass, two log-sum-exps.  The
  gradient of row n is its own exponential weight over the merged sum:
  ∂J/∂f_i = −d r w_i e^{−r f_i − A},  ∂J/∂f_k = d r v_k e^{d r f_k − B}.
  Along a direction h the same sums carry the moments of h, which give
  φ′ and φ″ exactly; for binary h, four numbers per block give φ at every α.
* for any other price (``exp:β``, plugins), two passes: A over the
  positives, then with u_k = log L_k = r f_k + A the negatives' sums
  J = LSE_k(log v_k + log g(u_k)) and the ratios g′L/g, g″L²/g under the
  softmax of those terms.

This is exactly the chunk-wise computation of the Dask issue: each block
contributes log-sum-exps with its own offset, merged by ``logaddexp``.

Curvature (``value_gradient_hessian``, ``block_gradient_hessian``): the
diagonal of ∇²R / R = ∂²J/∂f_n² + (∂J/∂f_n)², the push family's curvature
(see ``PushObjective``).  With σ_i = w_i e^{−r f_i − A} (the positives'
softmax) and, for the negatives, π_k = v_k g(L_k)/R,
q1_k = g′(L_k) L_k / g(L_k), q2_k = g″(L_k) L_k² / g(L_k):

* homogeneous price of degree d: h_i = d r² σ_i (1 + (d − 1) σ_i) and
  h_k = d² r² ρ_k, ρ_k = v_k e^{d r f_k − B} -- the gradient's own
  weights, computed in the gradient's own pass (``gradient_hessian``: one
  exponential per row, no cancellation);
* any other price: h_i = r² σ_i (m₁ + σ_i M₂) with m₁ = Σ_k π_k q1_k and
  M₂ = Σ_k π_k q2_k (the second stage's sums), and
  h_k = r² π_k (q1_k + q2_k).

Both are clipped below at ``HESSIAN_FLOOR`` (they vanish only for rows whose
weight underflowed).  O(n) per call, row-separable from the merged stage
results like the gradient.
"""

from __future__ import annotations

import math

import numpy as np

from .._vector import dot as _dot
from . import _exp_kernels, _exp_line
from ._base import HESSIAN_FLOOR, LinePoint, clip_hessian
from ._separable import BoundSeparable

__all__ = ["BoundExpPush"]

_EMPTY = np.empty(0)


def _as_int8(y: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(y, dtype=np.int8)


class BoundExpPush(BoundSeparable):
    """Bound push objective for an exponential loss (see the module docstring)."""

    def __init__(self, objective, y, sample_weight, loss, price, *, n_threads=1):
        super().__init__(objective, _as_int8(y), sample_weight)
        self.rate = float(loss.exponential_rate)
        self.price = price
        self.n_threads = int(n_threads)
        degree = price.homogeneous_degree
        self.degree = None if degree is None else float(degree)
        if self.degree is not None:
            self.n_stages = 1
            self.log_g1 = float(np.asarray(price.log_value(np.array([0.0])))[0])   # log g(1)
        else:
            self.n_stages = 2
        self.has_second = price.has_second_derivative

    # ------------------------------------------------------------------
    # Stage partials
    # ------------------------------------------------------------------
    def _neg_coef(self) -> float:
        return self.rate * (self.degree if self.degree is not None else 1.0)

    def block_partials(self, stage, block, G, direction=None, alpha=0.0):
        y = _as_int8(block.y)
        w = np.ascontiguousarray(block.weight, dtype=np.float64)
        f = np.ascontiguousarray(block.scores, dtype=np.float64)
        h = _EMPTY if direction is None else np.ascontiguousarray(direction, dtype=np.float64)
        if stage == 0:
            out = np.empty(6)
            _exp_kernels.class_moments(y, w, f, h, float(alpha), -self.rate, self._neg_coef(), out, self.n_threads)
            return out
        return self._stage1_partials(y, w, f, h, float(alpha), G[0])

    def _stage1_partials(self, y, w, f, h, alpha, g0):
        """Negatives' (lse of log v + log g(u), E[q1 u′], E[q2 u′² + q1 (u′² + u″)]) for a general price."""
        neg = (y == 0) & (w > 0)
        A, mean_h, second_h = g0[0], g0[1], g0[2]
        r = self.rate
        f_neg = f[neg]
        h_neg = h[neg] if h.size else np.zeros_like(f_neg)
        u = r * (f_neg + alpha * h_neg) + A                   # log L_k
        if h.size:
            du = r * h_neg - r * mean_h                        # d log L_k / dα
            ddu = r * r * max(second_h - mean_h * mean_h, 0.0)
        else:
            du = np.ones_like(u)                               # gives Σ q1: the gradient's T
            ddu = 0.0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            log_g = self.price.log_value(u)
            a = np.log(w[neg]) + log_g
            lse = float(np.logaddexp.reduce(a)) if a.size else -math.inf
            if not math.isfinite(lse):             # no live negative (-inf), or R overflowed (+inf)
                return np.array([lse, 0.0, 0.0])
            pi = np.exp(a - lse)
            q1 = np.exp(self.price.log_elasticity(u))          # g′(L)·L / g(L)
            m1 = float(_dot(pi, q1 * du))
            if self.has_second:
                q2 = np.exp(self.price.log_second_elasticity(u))   # g″(L)·L² / g(L)
                m2 = float(_dot(pi, q2 * du * du + q1 * (du * du + ddu)))
            else:
                m2 = math.nan
        return np.array([lse, m1, m2])

    def merge_partials(self, stage, parts):
        parts = np.ascontiguousarray(np.atleast_2d(np.asarray(parts, dtype=np.float64)))
        out = np.empty(parts.shape[1])
        if stage == 1 and not self.has_second:
            # NaN second moments would poison the weighted merge of the others.
            clean = parts.copy()
            clean[:, 2] = 0.0
            _exp_kernels.merge_moments(clean, out)
            out[2] = math.nan
            return out
        _exp_kernels.merge_moments(parts, out)
        return out

    # ------------------------------------------------------------------
    # Value, gradient, line derivatives
    # ------------------------------------------------------------------
    def finish(self, G, with_direction=False):
        r = self.rate
        if self.degree is not None:
            d = self.degree
            A, mp, sp, B, mn, sn = np.asarray(G[0], dtype=np.float64).tolist()
            value = self.log_g1 + d * A + B
            if not with_direction:
                return LinePoint(0.0, value, math.nan, math.nan)
            var_p = max(sp - mp * mp, 0.0)
            var_n = max(sn - mn * mn, 0.0)
            d1 = -d * r * mp + d * r * mn
            d2 = d * r * r * var_p + d * d * r * r * var_n
            return LinePoint(0.0, value, d1, d2)
        lse, m1, m2 = (float(v) for v in G[1])
        if not with_direction:
            return LinePoint(0.0, lse, math.nan, math.nan)
        return LinePoint(0.0, lse, m1, m2 - m1 * m1 if math.isfinite(m2) else math.nan)

    def block_gradient(self, block, G):
        y = _as_int8(block.y)
        w = np.ascontiguousarray(block.weight, dtype=np.float64)
        f = np.ascontiguousarray(block.scores, dtype=np.float64)
        out = np.empty(f.shape[0])
        r = self.rate
        if self.degree is not None:
            d = self.degree
            A, B = float(G[0][0]), float(G[0][3])
            _exp_kernels.gradient(y, w, f, -r, A, d * r, d * r, B, d * r, out, self.n_threads)
            return out
        A = float(G[0][0])
        J, T_ratio = float(G[1][0]), float(G[1][1])     # T_ratio = Σ v g′(L) L / R
        # positives: −r·(T/R)·w e^{−r f − A}; negatives: r v e^{log g′(u) + u − J}
        _exp_kernels.gradient(y, w, f, -r, A, r * T_ratio, 0.0, 0.0, 0.0, out, self.n_threads)
        neg = (y == 0) & (w > 0)
        u = r * f[neg] + A
        with np.errstate(over="ignore", divide="ignore"):
            # v g′(L) L / R = e^(log v + log g + log elasticity − J): log v + log g is J's own term, so a lone
            # negative's share is exactly 1 however large log g is
            out[neg] = r * np.exp((np.log(w[neg]) + self.price.log_value(u) - J) + self.price.log_elasticity(u))
        return out

    @property
    def has_hessian(self) -> bool:
        """True for homogeneous prices, and for others when the price has g″."""
        return self.degree is not None or self.has_second

    #: ``block_gradient_hessian`` writes into ``out`` buffers (see BoundObjective).
    gradient_into = True

    def block_gradient_hessian(self, block, G, out=None):
        """(∇J, diagonal of ∇²R/R clipped at the floor) of the block's rows; O(rows), from G only.

        ``out``: (gradient, hessian) float64 buffers of the block's length to
        write into (homogeneous prices: no allocation).
        """
        if not self.has_hessian:
            return super().block_gradient_hessian(block, G)
        y = _as_int8(block.y)
        r = self.rate
        if self.degree is not None:
            # One pass: the gradient's exponential gives σ_i (positives) and ρ_k (negatives) too.
            d = self.degree
            A, B = float(G[0][0]), float(G[0][3])
            w = np.ascontiguousarray(block.weight, dtype=np.float64)
            f = np.ascontiguousarray(block.scores, dtype=np.float64)
            grad, hess = (np.empty(f.shape[0]), np.empty(f.shape[0])) if out is None else out
            _exp_kernels.gradient_hessian(y, w, f, -r, A, d * r, d * r * r, d * (d - 1.0) * r * r,
                                          d * r, B, d * r, d * d * r * r, HESSIAN_FLOOR, grad, hess, self.n_threads)
            return grad, hess
        grad = self.block_gradient(block, G)
        pos = y != 0
        neg = ~pos
        hess = np.empty_like(grad)
        m1, m2 = float(G[1][1]), float(G[1][2])
        big_m2 = m2 - m1                                   # Σ π q2 (the stage sums carry q2 + q1)
        # positives: ∂J/∂f_i = −r σ_i m1, so σ_i from the gradient (m1 > 0 whenever R > 0)
        sigma = -grad[pos] / (r * m1) if m1 > 0 else np.zeros(int(pos.sum()))
        hess[pos] = r * r * sigma * (m1 + sigma * big_m2)
        # negatives: π q1 = ∂J/∂f_k / r; π q2 from the price's log forms
        w = np.ascontiguousarray(block.weight, dtype=np.float64)
        f = np.ascontiguousarray(block.scores, dtype=np.float64)
        live = w[neg] > 0
        u = r * f[neg] + float(G[0][0])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            t2 = np.exp((np.log(w[neg]) + self.price.log_value(u) - float(G[1][0]))
                        + self.price.log_second_elasticity(u))
        t2 = np.where(live, t2, 0.0)
        hess[neg] = r * (grad[neg] + r * t2)
        hess = clip_hessian(hess)
        if out is not None:
            out[0][:] = grad
            out[1][:] = hess
            return out
        return grad, hess

    # ------------------------------------------------------------------
    # Compressed line search for directions with few values
    # ------------------------------------------------------------------
    #: ``block_line_summary`` accepts ``value_index=`` (each row's position in ``values``).
    takes_value_index = True

    def block_line_summary(self, block, h, values, G, gradient=None, value_index=None):
        """(V, 2) log-sum-exps of each class's exponential weights, by value of h.

        From the block's gradient for the same G when given (it holds the
        normalized weights already: no exponential is evaluated), else from the
        scores.  ``value_index`` (uint8, with ``gradient``): h[r] is
        values[value_index[r]], so no row's value is searched for; the
        summary is the same, bit for bit.
        """
        if self.degree is None:
            return None
        values = np.ascontiguousarray(values, dtype=np.float64)
        out = np.empty((values.shape[0], 2))
        y = _as_int8(block.y)
        h = np.ascontiguousarray(h, dtype=np.float64)
        if gradient is not None:
            bad = _exp_kernels.group_abs_sums(y, np.ascontiguousarray(gradient, dtype=np.float64), h, values, out,
                                              self.n_threads, value_index)
            out = self.summary_from_abs_sums(out, G)
        else:
            bad = _exp_kernels.lse_by_value(y, np.ascontiguousarray(block.weight, dtype=np.float64),
                                            np.ascontiguousarray(block.scores, dtype=np.float64), h, values,
                                            -self.rate, self._neg_coef(), out, self.n_threads)
        if bad:
            raise ValueError(f"direction: {bad} value(s) are not among the declared values {values.tolist()}")
        return out

    @property
    def has_abs_sum_summary(self) -> bool:
        """Homogeneous prices only: then the line summary is the four class sums (see the module docs)."""
        return self.degree is not None

    def summary_from_abs_sums(self, sums, G):
        """The line summary from Σ|∂J/∂f_n| per value of h (rows) and class (columns: positives, negatives).

        What :meth:`block_line_summary` computes from a block's gradient.  A
        backend that already holds these sums -- per-class histograms of the
        gradient give them for every threshold ranker (``rankcore.dask``) --
        gets the same summary without another pass over the rows.
        """
        if self.degree is None:
            return super().summary_from_abs_sums(sums, G)
        scale = self.degree * self.rate              # |∂J/∂f| = d r × normalized weight
        return _exp_line.log_abs_sums(np.ascontiguousarray(sums, dtype=np.float64), scale, float(G[0][0]),
                                      float(G[0][3]))

    def gradient_summary_step_limit(self, values):
        """The steps |α| that move the rows' exponents apart by at most ``EXACT_SHIFT`` (``values`` ascend).

        A group a gradient-built summary lost (below e^-708 of its class)
        stays below e^-108 of it after such a step: nothing in double precision.
        """
        spread = float(values[-1]) - float(values[0]) if len(values) else 0.0
        scale = max(1.0, self.degree if self.degree is not None else 1.0) * self.rate * spread
        return EXACT_SHIFT / scale if scale > 0 else math.inf

    def merge_line_summaries(self, parts):
        if len(parts) == 1:                     # logaddexp over one block is that block, bit for bit
            return np.asarray(parts[0], dtype=np.float64)
        parts = np.asarray(parts, dtype=np.float64)
        return np.logaddexp.reduce(parts, axis=0)

    def stages_after_step(self, summary, values, G, alpha):
        """G at the scores f + α·h, from the line summary of h: no pass over the rows.

        None (the backend then sums G over the rows) for a step beyond
        :meth:`gradient_summary_step_limit`: a summary built from the gradient
        has lost the groups whose share of their class's weight underflowed
        in its linear sums (below e^-708), and such a step could make one of
        them dominate.
        """
        if self.degree is None or abs(float(alpha)) > self.gradient_summary_step_limit(values):
            return None
        A, B = _exp_line.lse_at(summary, values, self.degree, self.rate, float(alpha))
        return [np.array([A, 0.0, 0.0, B, 0.0, 0.0])]

    def line_from_summary(self, summary, values, G):
        """φ along the direction from its line summary: an :class:`~rankcore.objectives._exp_line.ExpLine`.

        A callable α ↦ LinePoint whose ``minimize(max_step)`` is the driver's
        line search run natively (see ``_exp_line.pyx``).
        """
        return _exp_line.ExpLine(summary, values, self.degree, self.rate, self.log_g1)


#: The largest spread of the rows' exponents a step may add for the next stage sums to be read from the
#: line summary (``stages_after_step``): a group the summary lost to underflow (below e^-708 of its
#: class) stays below e^-108 after it -- nothing in double precision.  Found on separable tiny sets,
#: where the line search's step reaches the driver's cap and the sums read from the summary were off by
#: hundreds in log space (the next gradient overflowed); the line itself is checked at the same limit
#: (``CheckedLine``).
EXACT_SHIFT = 600.0

