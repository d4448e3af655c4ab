"""XE-NDCG (``xendcg``): a cross entropy between each query's softmax and a noisy gain distribution.

After S. Bruch, "An Alternative Cross Entropy Loss for Learning-to-Rank"
(The Web Conference, 2021), the objective LightGBM names ``rank_xendcg``.
At each evaluation t (one per boosting iteration) and for each query q, with
scores f and grades y::

    φ_i = 2^{y_i} − γ_i,   γ_i ~ U(0, 1), fresh for every (t, row)
    p_i = φ_i / Σ_{j ∈ q} φ_j                   (the target distribution)
    ρ_i = e^{f_i} / Σ_{j ∈ q} e^{f_j}          (the query's softmax)
    loss_q = −Σ_{i ∈ q} p_i log ρ_i
    g_i = ∂loss_q/∂f_i = ρ_i − p_i,   h_i = ∂²loss_q/∂f_i² = ρ_i (1 − ρ_i)

(Σ_i p_i = 1, so ∂loss_q/∂f_i = −p_i + ρ_i Σ_j p_j.)  Every query weighs
the same, whatever its length; sample weights multiply each row's g and h.
The noise γ breaks the ties between rows of one grade and makes the loss a
bound on NDCG in the paper's analysis; because it is drawn afresh, there is
no fixed value: like ``yetirank`` the objective gives a gradient and a
curvature only, and the driver takes each tree's Newton step.

``newton=False`` replaces h by 1 on every row (times its sample weight), as
``yetirank:newton=false`` does, so that a tree's leaves are mean gradients
(times the learning rate) instead of −Σg/Σh.  Where the scores saturate a
query's softmax (ρ near 0 or 1, from initial scores far apart) h vanishes
while g stays of order 1, and the Newton leaves explode; gradient leaves
stay within the learning rate.

A query whose rows share one grade gets g = h = 0, as does a query of one
row (there g = 1 − 1 = 0 anyway): its target p is only the noise, so its
gradient would pull its scores towards a random order at every iteration.
This is rankcore's choice; LightGBM's documentation does not say what its
``rank_xendcg`` does with such queries.  It is also what every other
objective within queries does with them (``n_queries_without_pairs_``).

The noise is u = (j + ½) / 2^52, j the top 52 bits of a counter-based hash
(SplitMix64's finalizer, yetirank's) of (seed, t, row): deterministic for a
``random_state``, the same whatever blocks the rows are bound in (rows are
numbered from ``first_row``) and whatever the number of threads, independent
across iterations.

Grades go up to 1023 (the largest whose gain 2^y is a float64).  A query
whose largest gain exceeds 2^900 has its φ scaled by a power of two, exactly,
so that Σφ stays finite (p is a ratio: the scale cancels); the γ then round
away next to such gains, as they would in exact arithmetic.  The softmax
subtracts each query's largest score, so scores 1e300 apart give ρ = 0 and
1 rather than an overflow.

Cost per evaluation: O(n) time (three passes over each query, one
exponential and one hash per row, ``_xendcg_kernels.pyx``, threads over
queries) and O(1) memory besides the outputs; the gains, the per-query
scales and which queries carry a gradient are computed once per fit
(:class:`PreparedXENDCG`).
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics import Queries
from ..spec import Parameter
from ..validation import ArgumentRefusal
from ._valueless import BoundValuelessObjective, RandomizedQueryObjective, checked_vector
from ._xendcg_kernels import xendcg_gradient
from ._yetirank import _MASK64, _mix, _stream_key, grouping

__all__ = ["XENDCGObjective", "PreparedXENDCG", "target_noise", "xendcg_key", "MAX_GRADE"]

#: The largest grade: 2^1023 is the largest power of two a float64 holds.
MAX_GRADE = 1023.0

#: A query's largest gain above which its φ are scaled by a power of two (n · 2^900 stays far from overflow).
_LARGE_GAIN = 2.0**900

#: Keeps XE-NDCG's stream of draws apart from yetirank's permutations under the same seed ("xendcg" in ASCII).
_STREAM = 0x78656E646367


def xendcg_key(seed: int, evaluation: int) -> np.uint64:
    """The 64-bit noise key of evaluation ``evaluation`` under ``seed`` (one per boosting iteration)."""
    return _stream_key(seed, evaluation, _STREAM)


def target_noise(seed: int, evaluation: int, rows) -> np.ndarray:
    """γ of row numbers ``rows`` at (seed, evaluation): the kernel's uniforms in (0, 1), bit for bit.

    Time O(len(rows)); a row's draw does not depend on the other rows.
    """
    with np.errstate(over="ignore"):
        bits = _mix(np.asarray(rows, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + xendcg_key(seed, evaluation))
    return ((bits >> np.uint64(12)).astype(np.float64) + 0.5) * 2.0**-52


def checked_grades(y, queries: Queries) -> np.ndarray:
    """Grades as float64, finite, in [0, 1023] (the gain 2^y must be finite), or a ValueError naming the row."""
    y = checked_vector("y", y, queries)
    bad = np.flatnonzero((y < 0) | (y > MAX_GRADE))
    if bad.size:
        raise ArgumentRefusal.said("y", f"grades must be in [0, 1023] (the gain 2^y must be finite), got "
                                        f"{float(y[bad[0]])!r} at row {int(bad[0])}", row=int(bad[0]))
    return y


class PreparedXENDCG:
    """XE-NDCG on fixed grades and queries: the gains 2^y, each query's scale and layout, computed once.

    Parameters
    ----------
    y : array-like of shape (n,)
        Grades, finite, in [0, 1023].
    queries : Queries
        The rows' queries.

    Attributes
    ----------
    gain : ndarray of shape (n,)
        2^y by row.
    scale : ndarray of shape (n_queries,)
        s_q: 1, a power of two below 1 for a query whose largest gain exceeds
        2^900, or 0 for a query of one grade (it carries no gradient).
    """

    def __init__(self, y, queries: Queries):
        y = checked_grades(y, queries)
        self.queries = queries
        self.n = y.shape[0]
        self.rows, self.bounds = grouping(queries)
        self.gain = np.exp2(y)
        self.scale = np.ones(queries.n_queries)
        if self.n:
            starts = queries.starts
            # equal gains, not equal grades: grades 0 and 1e-20 share the gain 1, and p would be the noise alone
            in_order = self.gain[self.rows]
            one_grade = np.maximum.reduceat(in_order, starts) == np.minimum.reduceat(in_order, starts)
            top = np.maximum.reduceat(in_order, starts)
            for q in np.flatnonzero(top > _LARGE_GAIN):
                self.scale[q] = math.ldexp(1.0, -math.frexp(float(top[q]))[1])
            self.scale[one_grade] = 0.0

    def gradient_hessian(self, scores, sample_weight=None, *, seed: int = 0, evaluation: int = 0, first_row: int = 0,
                         n_threads: int = 1, newton: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(g, h) per row at ``scores`` for the noise of (``seed``, ``evaluation``), in the rows' order.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Finite scores.
        sample_weight : array-like of shape (n,) or None
            Multiplies each row's g and h.
        seed, evaluation : int
            Select the noise: the same pair gives the same g and h.
        first_row : int
            The number of row 0 in the noise's numbering (rows bound in blocks).
        n_threads : int
            Threads over queries (the result does not depend on it).
        newton : bool
            True: h = ρ (1 − ρ); False: h = 1 on every row (times its sample
            weight), so that a tree's leaves are mean gradients.
        """
        f = np.ascontiguousarray(checked_vector("scores", scores, self.queries))
        grad = np.empty(self.n)
        hess = np.empty(self.n)
        xendcg_gradient(self.rows, self.bounds, self.gain, self.scale, f, xendcg_key(seed, evaluation),
                        np.uint64(int(first_row) & _MASK64), grad, hess, int(n_threads))
        if not newton:
            hess.fill(1.0)              # every row, as yetirank's kernel does (rows without a gradient too)
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64)
            if w.shape != (self.n,) or not np.all(np.isfinite(w) & (w >= 0)):
                raise ArgumentRefusal.said("sample_weight", f"expected {self.n} finite weights >= 0")
            grad *= w
            hess *= w
        return grad, hess


class XENDCGObjective(RandomizedQueryObjective):
    """XE-NDCG within each query (no value; Newton steps on trees): LightGBM's rank_xendcg.

    Spec: ``xendcg``, ``xendcg:newton=false`` (``rank_xendcg`` is an alias).
    Labels are relevance grades in [0, 1023]; a fit needs ``qid`` (or
    ``group``) and a learner with Newton leaves (``trees``, any growth).
    ``newton=false`` gives every row the curvature 1 (its sample weight):
    the trees' leaves are then mean gradients.  The noise
    follows the estimator's ``random_state`` (``randomized``): a fit is
    repeatable for an integer seed.  Sample weights multiply each row's
    gradient and curvature.
    """

    name = "xendcg"
    aliases = ("rank_xendcg",)
    parameters = (
        Parameter("newton", bool, default=True,
                  doc="Newton leaves from the softmax's curvature; false: h = 1 (leaves are mean gradients)"),
    )
    examples = ("xendcg", "xendcg:newton=false")
    max_grade = MAX_GRADE


class BoundXENDCG(BoundValuelessObjective):
    """:class:`XENDCGObjective` on one training set: gradient and curvature, no value (J is NaN).

    Every evaluation at new scores draws the next noise (``evaluations``
    counts them: one per boosting iteration); asked again at the same scores
    (the driver asks for the gradient, then for the curvature) it returns
    the same numbers.
    """

    def __init__(self, objective: XENDCGObjective, y, sample_weight, queries: Queries, seed: int,
                 first_row: int = 0, *, n_threads: int = 1):
        super().__init__(objective, y, sample_weight)
        self.prepared = PreparedXENDCG(y, queries)
        self.queries = queries
        self.seed = seed
        self.first_row = first_row
        self.n_threads = int(n_threads)
        self.newton = objective.newton
        self.evaluations = 0

    def _evaluate(self, scores):
        grad_hess = self.prepared.gradient_hessian(scores, self.sample_weight, seed=self.seed,
                                                   evaluation=self.evaluations, first_row=self.first_row,
                                                   n_threads=self.n_threads, newton=self.newton)
        self.evaluations += 1
        return grad_hess


XENDCGObjective.bound_type = BoundXENDCG
