"""LambdaMART's gradients (``lambdarank``), as LightGBM defines them: a reference objective per query.

For each query, rows sorted by score (descending, ties in row order), and each
pair of different grades with at least one of the two among the first
``truncation`` positions, with "high" the better-graded row and Δs = f_high −
f_low::

    Δ = |G_high − G_low| · |D(rank_high) − D(rank_low)| / maxDCG@truncation
    Δ ← Δ / (0.01 + |Δs|)                      (``norm``, unless all scores tie)
    ρ = 1 / (1 + e^{σ Δs})
    λ_high −= σ Δ ρ,   λ_low += σ Δ ρ,   h_high, h_low += σ² Δ ρ (1 − ρ)

with gains G = 2^y − 1 and discounts D(r) = 1 / log2(r + 2); with ``norm``
each query's λ and h are then scaled by log2(1 + S) / S, S = Σ_pairs 2σΔρ.
Sample weights multiply each row's λ and h.  The result is the gradient and
curvature LightGBM's ``lambdarank`` hands its trees (it reads ρ from a table;
here it is exact).  LambdaMART has no objective whose gradient this is, so no
value is returned.

Cost: one sort per query and O(min(truncation, n_q) · n_q) pairs -- with no
truncation O(Σ n_q²), which is inherent to the method: every pair's weight
depends on both rows' positions.  Memory O(block · n_q).

:class:`LambdaRankObjective` registers it as ``objective="lambdarank"`` for
the estimators: it requires queries, has no value (``has_value`` False: the
driver takes each tree's Newton step, α = 1 times the learning rate, as
LightGBM does), and so needs a learner with Newton leaves (trees).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import expit

from ..metrics import Queries
from ..spec import Parameter
from ..validation import check_flag
from ._valueless import BoundValuelessObjective, ValuelessQueryObjective, checked_rows

__all__ = ["LambdaRank", "LambdaRankObjective"]

#: LightGBM's ``lambdarank_truncation_level`` default.
DEFAULT_TRUNCATION = 30

#: LightGBM adds 0.01 as a single-precision constant to |Δs|; the same double keeps the numbers equal.
_DISTANCE_OFFSET = float(np.float32(0.01))

#: High-ranked positions per block of pairs (memory: block × n_q doubles, a few arrays of it).
_BLOCK = 256
#: A query's largest gain above which its gains are rescaled by a power of two (below it, any ideal DCG is finite).
_LARGE_GAIN = 2.0**900


def _check_truncation(value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"truncation: must be an integer >= 1 (or None for every position), got {value!r}")
    return int(value)


def _check_sigmoid(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < np.inf:
        raise ValueError(f"sigmoid: must be a finite number > 0, got {value!r}")
    return float(value)


class LambdaRank:
    """LambdaMART's pair gradients weighted by |ΔNDCG| (see the module docstring).

    Parameters
    ----------
    truncation : int or None
        Pairs need one row among this many top positions; also the depth of
        the ideal DCG that normalizes Δ.  LightGBM's default is 30; None uses
        every position (and the full ideal DCG).
    sigmoid : float
        σ > 0 of the RankNet probability.
    norm : bool
        LightGBM's ``lambdarank_norm``: divide Δ by the score distance and
        rescale each query's λ by log2(1 + S) / S.
    """

    def __init__(self, truncation: int | None = DEFAULT_TRUNCATION, sigmoid: float = 1.0, *, norm: bool = True):
        self.truncation = None if truncation is None else _check_truncation(truncation)
        self.sigmoid = _check_sigmoid(sigmoid)
        self.norm = check_flag(norm, name="norm")

    def gradient_hessian(self, y, scores, queries: Queries, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
        """(λ, h): LightGBM's lambdarank gradient and curvature per row, in the rows' order.

        Parameters
        ----------
        y : array-like of shape (n,)
            Grades, finite and >= 0 (floats allowed; gains 2^y − 1).
        scores : array-like of shape (n,)
            Finite scores.
        queries : Queries
            The rows' queries (``rankcore.metrics._queries.check_qid``).
        sample_weight : array-like of shape (n,) or None
            Multiplies each row's λ and h.
        """
        y, f = checked_rows(y, scores, queries)
        n = y.shape[0]
        bad = np.flatnonzero((y < 0) | (y > 1023))
        if bad.size:
            raise ValueError(f"y: grades must be in [0, 1023] (the gain 2^y − 1 must be finite), "
                             f"got {float(y[bad[0]])!r} at row {int(bad[0])}")
        grad = np.zeros(n)
        hess = np.zeros(n)
        rows = queries.rows()
        for start, size in zip(queries.starts.tolist(), queries.sizes.tolist()):
            idx = rows[start:start + size]
            g, h = self._one_query(np.exp2(y[idx]) - 1.0, y[idx], f[idx])
            grad[idx] = g
            hess[idx] = h
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64)
            if w.shape != (n,) or not np.all(np.isfinite(w) & (w >= 0)):
                raise ValueError(f"sample_weight: expected {n} finite weights >= 0")
            grad *= w
            hess *= w
        return grad, hess

    def _one_query(self, gain, grade, f):
        n = f.shape[0]
        grad = np.zeros(n)
        hess = np.zeros(n)
        k = n if self.truncation is None else min(self.truncation, n)
        top = float(gain.max(initial=0.0))
        if top > _LARGE_GAIN:
            # grades near 1023: the ideal DCG of a few such rows overflows. |ΔNDCG| is a ratio of gains, so the
            # gains are scaled by a power of two (exactly) to bring the largest near 1
            gain = np.ldexp(gain, -math.frexp(top)[1])
        ideal = np.sort(gain)[::-1][:k]
        max_dcg = float(np.sum(ideal / np.log2(np.arange(k) + 2.0)))
        if n < 2 or max_dcg <= 0:
            return grad, hess
        order = np.argsort(-f, kind="stable")               # ties keep row order, as LightGBM's stable sort
        fs, gs, ys = f[order], gain[order], grade[order]
        discount = 1.0 / np.log2(np.arange(n) + 2.0)
        spread = fs[0] != fs[-1]
        lam = np.zeros(n)
        curv = np.zeros(n)
        total = 0.0
        for lo in range(0, k, _BLOCK):
            hi = min(lo + _BLOCK, k)
            i = np.arange(lo, hi)[:, None]
            j = np.arange(n)[None, :]
            pair = (j > i) & (ys[i] != ys[j])
            ii, jj = np.nonzero(pair)
            ii += lo
            first_high = ys[ii] > ys[jj]
            high = np.where(first_high, ii, jj)
            low = np.where(first_high, jj, ii)
            ds = fs[high] - fs[low]
            delta = (gs[high] - gs[low]) * np.abs(discount[high] - discount[low]) / max_dcg
            if self.norm and spread:
                delta = delta / (_DISTANCE_OFFSET + np.abs(ds))
            rho = expit(-self.sigmoid * ds)
            p_lambda = -self.sigmoid * delta * rho
            p_hess = self.sigmoid * self.sigmoid * delta * rho * (1.0 - rho)
            lam += np.bincount(high, p_lambda, n) - np.bincount(low, p_lambda, n)
            curv += np.bincount(high, p_hess, n) + np.bincount(low, p_hess, n)
            total -= 2.0 * float(p_lambda.sum())
        if self.norm and total > 0:
            factor = np.log2(1.0 + total) / total
            lam *= factor
            curv *= factor
        grad[order] = lam
        hess[order] = curv
        return grad, hess


class LambdaRankObjective(ValuelessQueryObjective):
    """LambdaMART's gradients within each query, as LightGBM defines them (no value; Newton steps on trees).

    Spec: ``lambdarank``, ``lambdarank:20`` (truncation level),
    ``lambdarank:truncation=10,sigmoid=2,norm=false``.  Labels are relevance
    grades (gains 2^y − 1, so grades up to 1023); a fit needs ``qid`` (or
    ``group``) and a learner with Newton leaves (``trees``, any growth).
    Sample weights multiply each row's λ and curvature, as in LightGBM.
    """

    name = "lambdarank"
    aliases = ("lambdamart",)
    parameters = (
        Parameter("truncation", int, default=DEFAULT_TRUNCATION, minimum=1,
                  doc="pairs need one row among this many top places of the query (LightGBM's "
                      "lambdarank_truncation_level); also the depth of the ideal DCG"),
        Parameter("sigmoid", float, default=1.0, minimum=0.0, exclusive_minimum=True, maximum=1e6,
                  doc="σ > 0 of the RankNet probability 1 / (1 + e^(σ Δs))"),
        Parameter("norm", bool, default=True,
                  doc="LightGBM's lambdarank_norm: divide by the score distance, rescale each query's λ"),
    )
    examples = ("lambdarank", "lambdarank:10", "lambdarank:truncation=5,sigmoid=2,norm=false")
    max_grade = 1023.0                # the gain 2^grade − 1 is a float64

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
        """λ and curvature on fixed grades, queries and weights (``queries`` is required)."""
        self.check_queries(queries)
        return BoundLambdaRank(self, y, sample_weight, queries)


class BoundLambdaRank(BoundValuelessObjective):
    """:class:`LambdaRankObjective` on one training set: gradient and curvature, no value (J is NaN).

    The driver asks for the gradient (to search) and for gradient and
    curvature (Newton leaves) at the same scores: the last evaluation is kept,
    so each iteration computes λ once.
    """

    def __init__(self, objective: LambdaRankObjective, y, sample_weight, queries: Queries):
        super().__init__(objective, y, sample_weight)
        self.lambdas = LambdaRank(objective.truncation, objective.sigmoid, norm=objective.norm)
        self.queries = queries

    def _evaluate(self, scores):
        return self.lambdas.gradient_hessian(self.y, scores, self.queries, self.sample_weight)
