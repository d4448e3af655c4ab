"""The per-query push with position-aware pair weights and per-query normalization (opt-in options).

NDCG rewards the places at the top of each query.  With ``discount="sum"``
each pair (i above k in grade) of the gain-weighted per-query push weighs,
besides a_ik (1 or the gain difference), the discounts of the places its two
rows hold now:

    R(f) = Σ_q (1/Z_q) Σ_k v_k Σ_{i above k} w_i a_ik (d_i + d_k) e^{−r(f_i − f_k)},

d(p) = 1 / log2(1 + p) for the place p = 1, 2, … of the row in its query
sorted by the current scores (ties in row order), d = 0 beyond the
``truncation`` level T when one is set.  The places are read at the scores
of each evaluation and held fixed through it, as LambdaMART holds its
|ΔNDCG| weights (Burges, "From RankNet to LambdaRank to LambdaMART: An
Overview", 2010): the gradient and the curvature are those of R with the
weights fixed.  A sum of a factor of i and one of k keeps the factorization
of the exponential push: R = R₁ + R₂, where R₁ is the push whose rows weigh
w_i d_i as the row above and v_k as the row below, and R₂ the push with w_i
and v_k d_k; each is one pass of the linear-space kernel, O(rows + levels)
after the sort, and J = log R, ∂J = ρ₁ ∂J₁ + ρ₂ ∂J₂ with ρ_j = R_j / R
(likewise the curvature ∇²R / R).  ``discount="product"`` weighs the pair
by d_i · d_k instead: each row's weight times its discount, in both roles,
one pass.

With ``normalize`` each query's pair weights are divided by
Z_q = Σ_k v_k Σ_{i above k} w_i a_ik (d_i + d_k) (or without the discounts),
its total pair weight, so that every query's loss is 1 at f = 0 and every
query counts once, as NDCG averages queries; the discounted Z_q moves with
the places and is read with them.  Without it Z_q = 1.

Only for ℓ(z) = e^{−rz} and a price of degree 1 (RankBoost's identity): R is
then bilinear in the two roles' weights.  Each evaluation adds a sort of the
scores within each query (``_place_kernels``, O(Σ_q n_q log n_q)) to the kernel's passes (two with
``discount="sum"``); memory O(n).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._vector import dot as _dot
from ..metrics import Queries
from ._base import BoundObjective, LinePoint, clip_hessian
from ._place_kernels import grouped_place_discounts

#: A query's Z_q above which normalize=true takes it in logs (see BoundPositionPush._role_weights).
_LARGE_TOTAL = 1e300

__all__ = ["BoundPositionPush", "QueryRows", "place_discounts"]


def place_discounts(scores: np.ndarray, codes: np.ndarray, truncation: int = 0) -> np.ndarray:
    """d = 1 / log2(1 + p) of each row's place p in its query by descending score (ties: row order).

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    codes : ndarray of int, shape (n,)
        Each row's query code.
    truncation : int
        0: every place; T ≥ 1: places beyond T get d = 0.

    Returns
    -------
    ndarray of float64, shape (n,), in the rows' order.

    Notes
    -----
    O(n log n) time (a sort of the rows by query, then of each query by score), O(n) memory.
    """
    return QueryRows(codes).discounts(scores, truncation)


class QueryRows:
    """The rows of each query, grouped once, for the place discounts at any scores.

    Parameters
    ----------
    codes : ndarray of int, shape (n,)
        Each row's query code.
    """

    def __init__(self, codes: np.ndarray):
        codes = np.asarray(codes)
        self.rows = np.argsort(codes, kind="stable").astype(np.int64)
        grouped = codes[self.rows]
        self.starts = np.flatnonzero(np.append(True, grouped[1:] != grouped[:-1])).astype(np.int64)
        self.starts = np.append(self.starts, codes.shape[0]).astype(np.int64)

    def discounts(self, scores: np.ndarray, truncation: int = 0) -> np.ndarray:
        """d of every row at ``scores`` (finite), in the rows' order: O(Σ_q n_q log n_q), a C++ sort per query."""
        out = np.empty(self.rows.shape[0])
        grouped_place_discounts(np.ascontiguousarray(scores, dtype=np.float64), self.rows, self.starts,
                                int(truncation), out)
        return out


class BoundPositionPush(BoundObjective):
    """The per-query push with place discounts and/or per-query normalization (see the module docstring).

    Parameters
    ----------
    objective : Objective
        The component answered for (named in errors).
    push : BoundQueryPush
        The per-query push on the same rows (exponential loss, price of degree 1): its role weights
        are set at each evaluation.
    queries : Queries
    discount : {"none", "sum", "product"}
        Weigh each pair also by d_i + d_k, or by d_i · d_k.
    truncation : int
        0, or the last place whose discount is not 0.
    normalize : bool
        Divide each query's pair weights by their total.
    """

    def __init__(self, objective: Any, push, queries: Queries, *, discount: str, truncation: int,
                 normalize: bool):
        super().__init__(objective, push.y, push.sample_weight)
        self.push = push
        self.query_rows = QueryRows(queries.codes)
        self.discount = str(discount)
        self.truncation = int(truncation)
        self.normalize = bool(normalize)
        self._fixed = None if self.discount != "none" else self._role_weights(None)

    def use_threads(self, n_threads: int) -> None:
        """The wrapped push's kernels run on ``n_threads`` from the next evaluation."""
        super().use_threads(n_threads)
        self.push.use_threads(n_threads)

    @property
    def has_hessian(self) -> bool:
        return self.push.has_hessian

    # ------------------------------------------------------------------
    def _role_weights(self, scores) -> list[tuple[np.ndarray, np.ndarray]]:
        """The (row-above, row-below) weights of each part of R at ``scores``, in the push's sorted order."""
        w = self.push.weight
        if self.discount != "none":
            d = self.query_rows.discounts(scores, self.truncation)[self.push.order]
            # d_i + d_k splits into two pushes (one pass each), d_i · d_k into a weight of each row (one pass)
            parts = [(w * d, w), (w, w * d)] if self.discount == "sum" else [(w * d, w * d)]
        else:
            parts = [(w, w)]
        if self.normalize:
            total = sum(self._query_totals(pos, neg) for pos, neg in parts)
            codes = self.push.sorted_codes
            huge = ~(total <= _LARGE_TOTAL)
            if not huge.any():
                scale = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), 1.0)[codes]
                return [(pos, neg * scale) for pos, neg in parts]
            # gains near 2^1023: Z_q overflows, and 1/Z_q on the rows below would be 0. Z_q is bilinear in the two
            # roles' weights, so such a query takes 1/√Z_q on each (from log Z_q), both within floats.
            log_total = np.logaddexp.reduce([self._query_log_totals(pos, neg) for pos, neg in parts], axis=0)
            half = np.exp(-0.5 * np.where(huge, log_total, 0.0))
            safe = np.where(huge | (total <= 0), 1.0, total)
            scale = np.where(huge, half, np.where(total > 0, 1.0 / safe, 1.0))[codes]
            parts = [(pos * half[codes], neg * scale) for pos, neg in parts]
        return parts

    def _query_totals(self, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        """Z_q = Σ_k neg_k Σ_{i above k} a_ik pos_i per query: the push's running sums at f = 0."""
        push = self.push
        above = self._log_above(pos)
        with np.errstate(over="ignore"):
            per_row = np.where(push.below_top & (neg > 0), neg * np.exp(above), 0.0)
        return np.bincount(push.sorted_codes, per_row, minlength=push.n_queries)

    def _log_above(self, pos: np.ndarray) -> np.ndarray:
        """Each row's log Σ_{i above it} a_ik pos_i (the push's running sums at f = 0)."""
        with np.errstate(divide="ignore"):
            return self.push._above(np.log(pos))[self.push.level]

    def _query_log_totals(self, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        """log Z_q of :meth:`_query_totals`, summed in logs (-inf for a query without a pair)."""
        push = self.push
        above = self._log_above(pos)
        with np.errstate(divide="ignore"):
            terms = np.where(push.below_top & (neg > 0), np.log(neg) + above, -np.inf)
        top = np.full(push.n_queries, -np.inf)
        np.maximum.at(top, push.sorted_codes, terms)
        finite_top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            sums = np.bincount(push.sorted_codes, np.exp(terms - finite_top[push.sorted_codes]),
                               minlength=push.n_queries)
            return np.where(np.isfinite(top), finite_top + np.log(sums), -np.inf)

    def _parts(self, scores):
        return self._fixed if self._fixed is not None else self._role_weights(scores)

    def _evaluate(self, scores, order: int):
        """(J, ∂J/∂f, ∇²R / R) with the weights of ``scores``; the curvature clipped at the floor."""
        f = np.asarray(scores, dtype=np.float64)
        if f.shape != (self.n_rows,) or not np.all(np.isfinite(f)):
            return self.push.evaluate_unclipped(f, order)          # names the problem
        results = []
        for pos, neg in self._parts(f):
            self.push.set_role_weights(pos, neg)
            results.append(self.push.evaluate_unclipped(f, order))
        value = float(np.logaddexp.reduce([r[0] for r in results]))
        if order == 0:
            return value, None, None
        grad = np.zeros(self.n_rows)
        hess = np.zeros(self.n_rows)
        for part_value, part_grad, part_hess in results:
            if not math.isfinite(value) or part_value == -math.inf:
                continue
            rho = math.exp(part_value - value)
            grad += rho * part_grad
            if order == 2:
                hess += rho * part_hess
        return value, grad, clip_hessian(hess) if order == 2 else None

    def value(self, scores) -> float:
        """J = log R with the weights read at ``scores``."""
        return self._evaluate(scores, 0)[0]

    def value_and_gradient(self, scores):
        """(J, ∂J/∂f) with the weights read at ``scores`` and held fixed."""
        return self._evaluate(scores, 1)[:2]

    def value_gradient_hessian(self, scores):
        """(J, ∂J/∂f, diagonal of ∇²R / R clipped at the floor) with the weights of ``scores`` held fixed."""
        if not self.has_hessian:
            return self.push.value_gradient_hessian(scores)         # raises, naming the loss and price
        return self._evaluate(scores, 2)

    def line(self, scores, direction):
        """α ↦ :class:`LinePoint` of φ(α) = J(scores + α·direction) with the weights of ``scores`` held fixed.

        Each part's line, merged as the moments of the mixture ρ_j = R_j / R.
        """
        f = np.asarray(scores, dtype=np.float64)
        if f.shape != (self.n_rows,) or not np.all(np.isfinite(f)):
            self.push._sorted_scores(f)                                   # names the problem
        parts = self._parts(f)

        def evaluate(alpha: float) -> LinePoint:
            points = []
            for pos, neg in parts:
                self.push.set_role_weights(pos, neg)
                points.append(self.push.line(scores, direction)(alpha))
            value = float(np.logaddexp.reduce([p.value for p in points]))
            if not math.isfinite(value):
                return LinePoint(alpha, value, 0.0, 0.0)
            live = [p for p in points if p.value > -math.inf]
            rho = np.exp(np.array([p.value for p in live]) - value)
            d1s = np.array([p.d1 for p in live])
            d2s = np.array([p.d2 for p in live])
            d1 = float(_dot(rho, d1s))
            return LinePoint(alpha, value, d1, float(_dot(rho, d2s + d1s * d1s)) - d1 * d1)

        return evaluate
