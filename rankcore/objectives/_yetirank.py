"""YetiRank's gradients (``yetirank``): pairs of neighbours in randomly perturbed orders, a per-query objective.

After A. Gulin, I. Kuralenok and D. Pavlov, "Winning The Transfer Learning
Track of Yahoo!'s Learning To Rank Challenge with YetiRank" (JMLR W&CP 14,
2011).  At each evaluation t (one per boosting iteration) and for each query,
with scores f, grades y and P = ``permutations`` draws p = 1..P::

    z_i = f_i + ε_i,   ε_i ~ Logistic(0, 1), fresh for every (t, p, row)
    π = the rows sorted by z, descending (equal z: the earlier row first)
    for each place k = 0 .. n_q − 2 with decay^k >= 1e-6, a = π(k), b = π(k + 1), y_a ≠ y_b:
        high, low = the better- and the worse-graded of a and b,  Δs = f_high − f_low
        c = decay^k · |y_a − y_b| / P
        ρ = 1 / (1 + e^{Δs})
        λ_high −= c ρ,   λ_low += c ρ,   h_high, h_low += c ρ (1 − ρ)

so each pair of rows is weighted by how often, and how high up, the noisy
orders put it side by side: the pairs that decide the top of the list, and
that the current scores leave in doubt, carry the weight.  λ is the gradient
of Σ_pairs c · log(1 + e^{−Δs}) (the RankNet loss) at fixed weights c, and h
its diagonal curvature (``newton=False``: h = 1 for every row, gradient
leaves).  Sample weights multiply each row's λ and h.  The weights c are
random, so there is no value: the driver takes each tree's Newton step.

The noise ε is the logistic quantile log(u / (1 − u)) at u = (j + ½) / 2^14,
j the top 14 bits of a counter-based hash (SplitMix64's finalizer) of (seed,
t, p, row): deterministic for a ``random_state``, the same whatever blocks
the rows are bound in (rows are numbered from ``first_row``), independent
across iterations, and a table look-up instead of a logarithm per row.
Places whose weight decay^k is below 1e-6 are left out (they would move no
leaf), which lets a long query sort only its head.

Cost per evaluation: O(P · Σ_q (n_q + m_q log m_q)) time, m_q = min(n_q,
places + 1) -- a selection of each query's head of the noisy order and a
sort of it, per permutation (``_yetirank_kernels.pyx``) -- and O(n) memory:
only neighbours are ever paired, never two rows that are not.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..metrics import Queries
from ..spec import Parameter
from ..validation import ArgumentRefusal, check_flag
from ._valueless import BoundValuelessObjective, RandomizedQueryObjective, checked_rows
from ._yetirank_kernels import yetirank_gradient

__all__ = ["YetiRank", "YetiRankObjective", "logistic_noise", "noise_table", "place_weights"]

#: 10 noisy orders per query and iteration (4 lost NDCG on every set studied, 30 cost 2-5x the fit for a
#: mixed gain: docs/studies/per_query_rankers.md), weight 0.85^k at place k.
DEFAULT_PERMUTATIONS = 10
DEFAULT_DECAY = 0.85

#: The noise takes the top 14 bits of a row's hash: one of 16,384 logistic quantiles (steps of 2.4e-4 near 0,
#: |noise| <= 10.4), looked up instead of computed.
TABLE_BITS = 14

#: Places whose weight decay^k falls below this are left out (a query of 1,000 rows at decay 0.85: 86 places).
WEIGHT_FLOOR = 1e-6

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer on uint64 values (wrapping arithmetic): a bijection that scatters every bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _stream_key(seed: int, evaluation: int, permutation: int) -> np.uint64:
    """One 64-bit key per (seed, evaluation, permutation): the noise of its rows is the hash of key + row."""
    key = np.array([seed & _MASK64], dtype=np.uint64)
    for part in (evaluation, permutation):
        key = _mix(key + np.uint64((part * _GOLDEN + 1) & _MASK64))
    return key[0]


def noise_table(bits: int = TABLE_BITS) -> np.ndarray:
    """The 2^bits logistic quantiles log(u / (1 − u)) at u = (j + ½) / 2^bits, j = 0 .. 2^bits − 1."""
    u = (np.arange(1 << bits) + 0.5) / float(1 << bits)
    return np.log(u / (1.0 - u))


_TABLE = noise_table()


def logistic_noise(seed: int, evaluation: int, permutation: int, rows: np.ndarray) -> np.ndarray:
    """The noise of ``rows`` (their numbers) at (seed, evaluation, permutation): table[top bits of the hash].

    Time O(len(rows)); the draw of a row does not depend on the other rows, so
    any grouping of the rows into blocks draws the same numbers.
    """
    with np.errstate(over="ignore"):
        bits = _mix(np.asarray(rows, dtype=np.uint64) * np.uint64(_GOLDEN) + _stream_key(seed, evaluation, permutation))
    return _TABLE[(bits >> np.uint64(64 - TABLE_BITS)).astype(np.intp)]


def place_weights(decay: float, longest: int) -> np.ndarray:
    """decay^k for the places k that carry weight: k < ``longest`` − 1 and decay^k >= 1e-6 (O(places))."""
    places = longest - 1
    if decay < 1.0:
        kept = math.floor(math.log(WEIGHT_FLOOR) / math.log(decay)) + 1      # the k with decay^k >= floor: 0..kept−1
        while kept > 1 and decay ** (kept - 1) < WEIGHT_FLOOR:
            kept -= 1
        while decay ** kept >= WEIGHT_FLOOR:
            kept += 1
        places = min(places, kept)
    return decay ** np.arange(max(places, 0), dtype=np.float64)


def _check_permutations(value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= 1000:
        raise ValueError(f"permutations: must be an integer in [1, 1000], got {value!r}")
    return int(value)


def _check_decay(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= 1:
        raise ValueError(f"decay: must be a number in (0, 1], got {value!r}")
    return float(value)


class YetiRank:
    """YetiRank's gradient and curvature per row at one evaluation (see the module docstring).

    Parameters
    ----------
    permutations : int
        P, the noisy orders drawn per query and evaluation (1 to 1000).
    decay : float
        Weight decay^k of the neighbours at places k and k + 1, in (0, 1].
    newton : bool
        True: h is the pairs' curvature Σ c ρ (1 − ρ); False: h = 1 (the
        sample weight), so that a tree's leaves are mean gradients.
    """

    def __init__(self, permutations: int = DEFAULT_PERMUTATIONS, decay: float = DEFAULT_DECAY, *,
                 newton: bool = True):
        self.permutations = _check_permutations(permutations)
        self.decay = _check_decay(decay)
        self.newton = check_flag(newton, name="newton")

    def gradient_hessian(self, y, scores, queries: Queries, sample_weight=None, *, seed: int = 0,
                         evaluation: int = 0, first_row: int = 0, grouped=None) -> tuple[np.ndarray, np.ndarray]:
        """(λ, h) per row, in the rows' order, for the noise of (``seed``, ``evaluation``).

        Parameters
        ----------
        y : array-like of shape (n,)
            Grades, finite and >= 0.
        scores : array-like of shape (n,)
            Finite scores.
        queries : Queries
            The rows' queries.
        sample_weight : array-like of shape (n,) or None
            Multiplies each row's λ and h.
        seed, evaluation : int
            Select the noise: the same pair gives the same λ and h.
        first_row : int
            The number of row 0 in the noise's numbering (rows bound in blocks).
        grouped : tuple or None
            :func:`grouping` of ``queries``, when the caller keeps it.
        """
        y, f = checked_rows(y, scores, queries)
        n = y.shape[0]
        if np.any(y < 0):
            bad = int(np.flatnonzero(y < 0)[0])
            raise ArgumentRefusal.said("y", f"grades must be >= 0, got {float(y[bad])!r} at row {bad}", row=bad)
        rows, bounds = grouping(queries) if grouped is None else grouped
        keys = np.array([_stream_key(seed, evaluation, p) for p in range(self.permutations)], dtype=np.uint64)
        weights = place_weights(self.decay, int(np.max(np.diff(bounds), initial=0)))
        grad = np.empty(n)
        hess = np.empty(n)
        yetirank_gradient(np.ascontiguousarray(y), np.ascontiguousarray(f), rows, bounds, keys,
                          np.uint64(int(first_row) & _MASK64), _TABLE, weights, self.newton, grad, hess)
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=np.float64)
            if w.shape != (n,) or not np.all(np.isfinite(w) & (w >= 0)):
                raise ArgumentRefusal.said("sample_weight", f"expected {n} finite weights >= 0")
            grad *= w
            hess *= w
        return grad, hess


def grouping(queries: Queries) -> tuple[np.ndarray, np.ndarray]:
    """(rows grouped by query, bounds): query q owns ``rows[bounds[q]:bounds[q + 1]]`` (int64 arrays)."""
    rows = np.ascontiguousarray(queries.rows(), dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum(queries.sizes)]).astype(np.int64)
    return rows, bounds


class YetiRankObjective(RandomizedQueryObjective):
    """YetiRank's gradients within each query (no value; Newton steps on trees).

    Spec: ``yetirank``, ``yetirank:20`` (permutations),
    ``yetirank:permutations=10,decay=0.85,newton=true``.  Labels are
    relevance grades >= 0; a fit needs ``qid`` (or ``group``) and a learner
    with Newton leaves (``trees``, any growth).  The noise follows the
    estimator's ``random_state`` (``randomized``): a fit is repeatable for an
    integer seed.  Sample weights multiply each row's λ and curvature.
    """

    name = "yetirank"
    parameters = (
        Parameter("permutations", int, default=DEFAULT_PERMUTATIONS, minimum=1, maximum=1000,
                  doc="noisy orders drawn per query and iteration (their pairs' weights are averaged)"),
        Parameter("decay", float, default=DEFAULT_DECAY, minimum=0.0, exclusive_minimum=True, maximum=1.0,
                  doc="weight decay^k of the neighbours at places k and k + 1 of a noisy order"),
        Parameter("newton", bool, default=True,
                  doc="Newton leaves from the pairs' curvature; false: h = 1 (leaves are mean gradients)"),
    )
    examples = ("yetirank", "yetirank:20", "yetirank:permutations=4,decay=0.5,newton=false")


class BoundYetiRank(BoundValuelessObjective):
    """:class:`YetiRankObjective` on one training set: gradient and curvature, no value (J is NaN).

    Every evaluation at new scores draws the next noise (``evaluations``
    counts them: one per boosting iteration); asked again at the same scores
    (the driver asks for the gradient, then for the curvature) it returns
    the same numbers.
    """

    def __init__(self, objective: YetiRankObjective, y, sample_weight, queries: Queries, seed: int,
                 first_row: int = 0, *, n_threads: int = 1):
        # n_threads is the shared binding's; the kernel runs on one thread (its module docstring, D)
        super().__init__(objective, y, sample_weight)
        self.ranks = YetiRank(objective.permutations, objective.decay, newton=objective.newton)
        self.queries = queries
        self.grouped = grouping(queries)
        self.seed = seed
        self.first_row = first_row
        self.evaluations = 0

    def _evaluate(self, scores):
        grad_hess = self.ranks.gradient_hessian(self.y, scores, self.queries, self.sample_weight, seed=self.seed,
                                                evaluation=self.evaluations, first_row=self.first_row,
                                                grouped=self.grouped)
        self.evaluations += 1
        return grad_hess


YetiRankObjective.bound_type = BoundYetiRank
