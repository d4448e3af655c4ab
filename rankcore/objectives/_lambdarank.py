"""LambdaMART's gradients (``lambdarank``), as LightGBM defines them: a reference objective per query.

For each query, rows sorted by score (descending, ties in row order), and each
pair of different grades with at least one of the two among the first
``truncation`` positions, with "high" the better-graded row and Δs = f_high −
f_low::

    Δ = |G_high − G_low| · |D(rank_high) − D(rank_low)| / maxDCG@truncation
    Δ ← Δ / (0.01 + |Δs|)                      (``norm``, unless all scores tie)
    ρ = 1 / (1 + e^{σ Δs})
    λ_high −= σ Δ ρ,   λ_low += σ Δ ρ,   h_high, h_low += σ² Δ ρ (1 − ρ)

with gains G = 2^y − 1 (``gain``: or the grade, or a table of gains per
integer grade, LightGBM's ``label_gain``) and discounts D(r) = 1 / log2(r + 2); with ``norm``
each query's λ and h are then scaled by log2(1 + S) / S, S = Σ_pairs 2σΔρ.
Sample weights multiply each row's λ and h.  The result is the gradient and
curvature LightGBM's ``lambdarank`` hands its trees (it reads ρ from a table;
here it is exact), to its rounding: LightGBM adds each pair to single-precision
sums, here the sums are doubles.  LambdaMART has no objective whose gradient this
is, so no value is returned.  Inside LightGBM these λ and h grow the same first
tree as its own ``lambdarank`` but where two splits' gains differ in those last
bits only (from tied scores at truncation 1 or 2, on trees of 15 leaves or more);
rankcore's trees may part the rows otherwise, as
LightGBM counts a leaf's rows from its curvature (``min_data_in_leaf``) and
keeps the highest of thresholds of equal gain, most at truncation 1 or 2
from tied scores, where rows graded like all of the top rows get λ = h = 0
(docs/query_objectives.md).

Cost: the gains in query order and each query's ideal DCG depend on the
grades alone and are computed once (:class:`PreparedLambdaRank`; a fit's
bound objective holds them).  Each evaluation is one compiled pass
(``_lambdarank_kernels``), threads over queries: it sorts each query's rows
by score, O(n_q log n_q), and walks its O(min(truncation, n_q) · n_q) pairs
on the query's values gathered in score order (contiguous, so the time per
pair stays flat past the cache: 10 ns a pair at 1.28 million rows in one
query) -- with no truncation O(Σ n_q²), which is inherent to the method:
every pair's weight depends on both rows' positions.  Memory O(n) held, and
56 bytes a row of the longest query per thread.

:class:`LambdaRankObjective` registers it as ``objective="lambdarank"`` for
the estimators: it requires queries, has no value (``has_value`` False: the
driver takes each tree's Newton step, α = 1 times the learning rate, as
LightGBM does), and so needs a learner with Newton leaves (trees).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..metrics import GAIN, Queries, gain_table, outside_table
from ..spec import Parameter, SpecError
from ..validation import ArgumentRefusal, check_flag
from . import _lambdarank_kernels
from ._valueless import BoundValuelessObjective, ValuelessQueryObjective, checked_vector

__all__ = ["LambdaRank", "LambdaRankObjective", "PreparedLambdaRank"]

#: LightGBM's ``lambdarank_truncation_level`` default.
DEFAULT_TRUNCATION = 30

#: LightGBM adds 0.01 as a single-precision constant to |Δs|; the same double keeps the numbers equal.
_DISTANCE_OFFSET = float(np.float32(0.01))

#: A query's largest gain above which its gains are rescaled by a power of two (below it, any ideal DCG is finite).
_LARGE_GAIN = 2.0**900


def _check_gains_grow(table) -> None:
    """A gain table must not decrease with the grade: each pair is ordered by grade (as in LightGBM), so a
    higher grade of a lower gain would weigh its pair by a negative |ΔNDCG| and the curvature would turn
    negative (the scores run away; LightGBM's own fits on such tables are no better)."""
    if table is not None and np.any(np.diff(table) < 0):
        drop = int(np.flatnonzero(np.diff(table) < 0)[0])
        raise ValueError(f"gain: lambdarank orders each pair by grade, so its gains must not decrease with the grade; "
                         f"the table gives grade {drop + 1} the gain {table[drop + 1]:g}, below grade {drop}'s "
                         f"{table[drop]:g}")


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
    gain : str or sequence of float
        The gain of a grade, as ``ndcg@k``'s ``gain``: ``"exp"`` 2^y − 1,
        ``"linear"`` y, or a table of gains per integer grade (``"0/1/3/7"``
        or a sequence; LightGBM's ``label_gain``), whose grades must be whole
        numbers within it.
    """

    def __init__(self, truncation: int | None = DEFAULT_TRUNCATION, sigmoid: float = 1.0, *, norm: bool = True,
                 gain="exp"):
        self.truncation = None if truncation is None else _check_truncation(truncation)
        self.sigmoid = _check_sigmoid(sigmoid)
        self.norm = check_flag(norm, name="norm")
        try:
            self.gain = GAIN(gain)
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"gain: {exc}, got {gain!r}") from None
        self.gain_table = gain_table(self.gain)
        _check_gains_grow(self.gain_table)

    def gains(self, y: np.ndarray) -> np.ndarray:
        """The gain of each grade (checked: >= 0, within 1023 for ``exp``, within the table for a table)."""
        if self.gain == "exp":
            bad = np.flatnonzero((y < 0) | (y > 1023))
            if bad.size:
                raise ArgumentRefusal.said("y", f"grades must be in [0, 1023] (the gain 2^y − 1 must be finite), "
                                                f"got {float(y[bad[0]])!r} at row {int(bad[0])}", row=int(bad[0]))
            return np.exp2(y) - 1.0
        bad = np.flatnonzero(y < 0)
        if bad.size:
            raise ArgumentRefusal.said("y", f"grades must be >= 0, got {float(y[bad[0]])!r} at row {int(bad[0])}",
                                       row=int(bad[0]))
        if self.gain == "linear":
            return y.copy()
        bad = outside_table(self.gain_table, y)
        if bad.size:
            raise ArgumentRefusal.said(
                "y", f"the grade {float(y[bad[0]])!r} at row {int(bad[0])} has no gain in the table {self.gain!r} "
                     f"(LightGBM's label_gain: whole grades 0..{self.gain_table.shape[0] - 1})", row=int(bad[0]))
        return self.gain_table[y.astype(np.int64)]

    def prepare(self, y, queries: Queries) -> PreparedLambdaRank:
        """What the λ depend on besides the scores, computed once: :class:`PreparedLambdaRank` on grades ``y``.

        Parameters
        ----------
        y : array-like of shape (n,)
            Grades, finite and >= 0 (floats allowed with ``exp`` and ``linear`` gains).
        queries : Queries
            The rows' queries (``rankcore.metrics._queries.check_qid``).
        """
        return PreparedLambdaRank(self, y, queries)

    def gradient_hessian(self, y, scores, queries: Queries, sample_weight=None,
                         n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """(λ, h): LightGBM's lambdarank gradient and curvature per row, in the rows' order.

        Parameters
        ----------
        y : array-like of shape (n,)
            Grades, finite and >= 0 (floats allowed with ``exp`` and ``linear`` gains).
        scores : array-like of shape (n,)
            Finite scores.
        queries : Queries
            The rows' queries (``rankcore.metrics._queries.check_qid``).
        sample_weight : array-like of shape (n,) or None
            Multiplies each row's λ and h.
        n_threads : int
            Threads over queries (the result does not depend on it).
        """
        return self.prepare(y, queries).gradient_hessian(scores, sample_weight, n_threads=n_threads)


class PreparedLambdaRank:
    """:class:`LambdaRank` on fixed grades and queries: the gains in query order, each query's ideal DCG.

    They depend on the grades only, so a fit computes them once; each
    :meth:`gradient_hessian` then orders every query by score and walks its
    pairs in one compiled pass.

    Parameters
    ----------
    lambdas : LambdaRank
        Truncation, σ, norm and gains.
    y : array-like of shape (n,)
        Grades, finite and >= 0.
    queries : Queries
        The rows' queries.
    """

    def __init__(self, lambdas: LambdaRank, y, queries: Queries):
        y = checked_vector("y", y, queries)
        self.lambdas = lambdas
        self.queries = queries
        self.n = n = y.shape[0]
        gain = lambdas.gains(y)
        self.rows = rows = queries.rows().astype(np.int64)
        of_row = np.repeat(np.arange(queries.n_queries), queries.sizes)          # the query of each entry of rows
        top = np.maximum.reduceat(gain[rows], queries.starts) if n else np.zeros(0)
        large = np.flatnonzero(top > _LARGE_GAIN)
        if large.size:
            # grades near 1023: the ideal DCG of a few such rows overflows. |ΔNDCG| is a ratio of gains, so a
            # query's gains are scaled by a power of two (exactly) to bring its largest near 1
            shift = np.zeros(queries.n_queries, dtype=np.int64)
            shift[large] = [math.frexp(float(t))[1] for t in top[large]]
            gain[rows] = np.ldexp(gain[rows], -shift[of_row])
        by_gain = np.lexsort((-gain[rows], of_row))
        place = np.arange(n) - np.repeat(queries.starts, queries.sizes)
        depth = queries.sizes if lambdas.truncation is None else np.minimum(queries.sizes, lambdas.truncation)
        kept = place < np.repeat(depth, queries.sizes)
        self.ideal = np.bincount(of_row[kept], gain[rows][by_gain][kept] / np.log2(place[kept] + 2.0),
                                 minlength=queries.n_queries)
        self.gain = np.ascontiguousarray(gain[rows])                              # in query order, as rows
        self.grade = np.ascontiguousarray(y[rows])
        self.starts = queries.starts.astype(np.int64)
        self.sizes = queries.sizes.astype(np.int64)
        self.discount = _lambdarank_kernels.place_discounts(int(self.sizes.max()) if n else 0)

    def gradient_hessian(self, scores, sample_weight=None, n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """(λ, h) at ``scores`` (finite, one per row), each row's multiplied by ``sample_weight`` if given."""
        n = self.n
        f = np.ascontiguousarray(checked_vector("scores", scores, self.queries))
        grad = np.empty(n)
        hess = np.empty(n)
        truncation = n if self.lambdas.truncation is None else self.lambdas.truncation
        _lambdarank_kernels.lambdarank_pairs(self.rows, self.starts, self.sizes, self.ideal, self.gain, self.grade,
                                             self.discount, f, int(truncation), self.lambdas.sigmoid,
                                             self.lambdas.norm, _DISTANCE_OFFSET, grad, hess, int(n_threads))
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64)
            if w.shape != (n,) or not np.all(np.isfinite(w) & (w >= 0)):
                raise ArgumentRefusal.said("sample_weight", f"expected {n} finite weights >= 0")
            grad *= w
            hess *= w
        return grad, hess


class LambdaRankObjective(ValuelessQueryObjective):
    """LambdaMART's gradients within each query, as LightGBM defines them (no value; Newton steps on trees).

    Spec: ``lambdarank``, ``lambdarank:20`` (truncation level),
    ``lambdarank:truncation=10,sigmoid=2,norm=false``,
    ``lambdarank:gain=0/1/3/7`` (LightGBM's ``label_gain``).  Labels are
    relevance grades (gains 2^y − 1 by default, so grades up to 1023; with a
    gain table whole grades within it); a fit needs ``qid`` (or
    ``group``) and a learner with Newton leaves (``trees``, any growth).
    Sample weights multiply each row's λ and curvature, as in LightGBM.
    """

    name = "lambdarank"
    aliases = ("lambdamart",)
    parameters = (
        Parameter("truncation", int, default=DEFAULT_TRUNCATION, minimum=1, maximum=2**31 - 1,
                  saved_beyond_maximum=True,
                  doc="pairs need one row among this many top places of the query (LightGBM's "
                      "lambdarank_truncation_level); also the depth of the ideal DCG (a level beyond the "
                      "largest query truncates nothing)"),
        Parameter("sigmoid", float, default=1.0, minimum=0.0, exclusive_minimum=True, maximum=1e6,
                  doc="σ > 0 of the RankNet probability 1 / (1 + e^(σ Δs))"),
        Parameter("norm", bool, default=True,
                  doc="LightGBM's lambdarank_norm: divide by the score distance, rescale each query's λ"),
        Parameter("gain", GAIN, default="exp",
                  doc="the gain of a grade, as ndcg@k's: 'exp' 2^grade - 1, 'linear', or gains per grade "
                      "'0/1/3/7' (LightGBM's label_gain)"),
    )
    examples = ("lambdarank", "lambdarank:10", "lambdarank:truncation=5,sigmoid=2,norm=false",
                "lambdarank:gain=0/1/3/7/15")

    @property
    def max_grade(self) -> float:
        """The largest grade with a gain: 1023 for ``exp`` (2^grade − 1 is a float64), the table's last, or any."""
        table = gain_table(self.gain)
        if table is not None:
            return float(table.shape[0] - 1)
        return 1023.0 if self.gain == "exp" else math.inf

    @property
    def whole_grades(self) -> bool:
        """A gain table gives gains to whole grades only."""
        return gain_table(self.gain) is not None

    @property
    def max_grade_reason(self) -> str:
        """Why grades stop at :attr:`max_grade` (for the estimators' message naming the row)."""
        if gain_table(self.gain) is not None:
            return f"has gains for the grades 0..{self.max_grade:g} only (its gain table, LightGBM's label_gain)"
        return "weighs rows by the gain 2^grade"

    def _validate(self) -> None:
        try:
            _check_gains_grow(gain_table(self.gain))
        except ValueError as exc:
            raise SpecError(f"objective {self.name!r}: {exc}") from None

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
        """λ and curvature on fixed grades, queries and weights (``queries`` is required)."""
        self.check_queries(queries)
        return BoundLambdaRank(self, y, sample_weight, queries, n_threads=n_threads)


class BoundLambdaRank(BoundValuelessObjective):
    """:class:`LambdaRankObjective` on one training set: gradient and curvature, no value (J is NaN).

    The driver asks for the gradient (to search) and for gradient and
    curvature (Newton leaves) at the same scores: the last evaluation is kept,
    so each iteration computes λ once.
    """

    def __init__(self, objective: LambdaRankObjective, y, sample_weight, queries: Queries, *, n_threads: int = 1):
        super().__init__(objective, y, sample_weight)
        lambdas = LambdaRank(objective.truncation, objective.sigmoid, norm=objective.norm, gain=objective.gain)
        self.prepared = lambdas.prepare(y, queries)
        self.queries = queries
        self.n_threads = int(n_threads)

    def _evaluate(self, scores):
        return self.prepared.gradient_hessian(scores, self.sample_weight, n_threads=self.n_threads)
