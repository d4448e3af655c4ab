"""The :class:`Objective` base class of the ``objective`` plugin family.

An objective is a function of the score vector that the boosting driver of
:mod:`rankcore.push` minimizes over linear combinations of weak rankers.  The
push objective R_{g,ℓ} (composed from a registered loss and price) is one; the
precision@k surrogates and the magnitude-preserving squared loss are others,
and a plugin can add more.  This module defines what the driver asks of them.

Writing an objective
====================
Subclass :class:`Objective`, set ``name`` (and ``parameters``), say which
labels it takes (``task``), and implement **one** method,
:meth:`Objective.value_and_gradient`.  Everything else has a default::

    import numpy as np
    import rankcore

    class PairwiseSquared(rankcore.Objective):
        '''Σ_{i pos, k neg} (1 − (f_i − f_k))²: a least-squares AUC surrogate.'''

        name = "pairsq"
        supports_sample_weight = False

        def value_and_gradient(self, y, scores, sample_weight=None):
            pos, neg = scores[y == 1], scores[y == 0]
            I, K = pos.size, neg.size
            # Σ_ik (1 − f_i + f_k)² without pairs: expand the square.
            s_p, s_n = pos.sum(), neg.sum()
            value = (K * ((1 - pos) ** 2).sum() + I * (neg ** 2).sum()
                     + 2 * (I - s_p) * s_n)
            grad = np.empty_like(scores)
            grad[y == 1] = -2 * (K * (1 - pos) + s_n)
            grad[y == 0] = 2 * (I * neg + (I - s_p))
            return float(value), grad

Register the class with a ``rankcore_register_objectives`` hook and
``rankcore.boost(objective="pairsq", learner="stumps")`` minimizes it.  Check it
with ``rankcore.testing.check_component("objective", "pairsq")``.

What the driver needs, precisely
================================
The working value J
    ``value_and_gradient`` returns J(f), a float, and ∇J(f), a float64 array
    of the scores' shape.  J may be the objective itself, or -- for objectives
    that are products or sums of exponentials and overflow -- its logarithm:
    set ``log_value = True`` and return J = log R.  The driver only compares
    values of J and uses derivatives of J, so any strictly increasing
    transform of the real objective works; log is the one the driver knows
    how to use for Newton steps (it converts J″ into R″/R = J″ + J′², which
    is positive when R is convex).
Shift invariance
    Ranking objectives depend on score differences only, so Σ_n ∂J/∂f_n = 0
    and a weak ranker h and 1 − h are equally good (the driver's coefficients
    take either sign).  An objective that is not shift invariant still works,
    but then the learners' "no complements needed" shortcut costs accuracy.
The line search
    Along a chosen weak ranker h the driver minimizes φ(α) = J(f + α h) by
    safeguarded Newton/secant/bisection steps on φ′.  It needs φ(α), φ′(α) and
    (optionally) φ″(α) at a handful of α: :meth:`BoundObjective.line` returns a
    callable α ↦ (φ, φ′, φ″).  The default evaluates ``value_and_gradient`` at
    f + α h and returns φ″ = NaN (secant steps); override
    :meth:`Objective.line_derivatives` (or bind to your own
    :class:`BoundObjective`) when you can give φ″ or evaluate φ faster.
    φ′ must change sign at most once (true when R is convex and J = R or log R).
Convexity
    Not required -- the driver only needs φ′ to change sign once along each
    line it searches (quasi-convexity along lines).  Non-smooth objectives
    (hinge, the precision@k surrogates) are fine: return any subgradient.
Ties: ``tie_break_scale`` (non-smooth objectives)
    A piecewise-linear function *of the ranking* -- one whose pieces change
    where two scores cross, like the precision@k surrogates -- has a kink at
    every tie.  Every score ties at the all-zero start, and a weak ranker
    moves all the rows of a leaf together, so ties persist.  At a kink the
    subgradient the objective returns need not descend along the weak ranker
    the driver selects with it: the line search finds no decrease and the fit
    stops at once.  Such an objective sets ``tie_break_scale = s > 0`` (a
    class attribute, or a property fed by a spec parameter).  The estimators
    then start the **training** scores at a random permutation
    (``random_state``) of n evenly spaced values spanning [−s/2, s/2] instead
    of 0 (``rankcore.push._tie_break``).  No two rows tie -- within a leaf
    their difference stays ε_i − ε_j -- so J is differentiable at almost every
    iterate and ⟨∇J, h⟩ < 0 means J decreases along h.  The offset is never
    part of the model (``decision_function`` = Σ α h), and it moves J by at
    most G·s/2 when ‖∇J‖₁ ≤ G and J is shift invariant.  s cannot be
    infinitesimal: along a weak ranker the kinks are where rows of one leaf
    overtake rows of another, and in a leaf the rows are only ε apart, so the
    steps α the line search takes are of the order of s until the scores
    spread.  Pick s as a fraction of the objective's own scale (its margin).
    The offset does not remove the kinks the line search itself stops at (the
    minimum of a piecewise-linear φ is a kink: rows of two leaves meeting);
    coordinate descent can still take tiny steps there and stop "converged".
    Smooth objectives keep the default 0: no offset, results unchanged.
Labels
    ``task = "bipartite"``: y arrives as int8 0/1 (1 = relevant, the greater of
    the two labels the user gave).  ``task = "graded"``: y arrives as float64
    relevance grades and the estimator accepts real-valued targets.
    :meth:`Objective.check_target` may add data-dependent checks (k ≤ n₊, ...).
Sample weights
    ``sample_weight`` (float64 ≥ 0, or None for all ones) should act as
    multiplicities where that makes sense.  An objective that cannot honour
    weights raises ``ValueError`` naming itself when given non-None weights;
    the estimator reports it.

Curvature: Newton leaves (optional)
===================================
Learners that fit a whole tree per iteration (``trees``) and the LightGBM /
XGBoost adapters (:mod:`rankcore.gbdt`) want, besides ∇J, a positive
per-row curvature: the Newton value of a leaf is −Σ g_n / Σ h_n over its
rows.  A bound objective that can give it sets ``has_hessian`` (True) and
implements :meth:`BoundObjective.value_gradient_hessian`, returning
(J, ∇J, h) with h a float64 array of the scores' shape, **finite and
strictly positive**: a diagonal curvature surrogate of J, clipped below by
:data:`HESSIAN_FLOOR`.  It is the exact diagonal of ∇²J where that is
non-negative and cheap, or a documented majorant (each objective's docstring
says which).  Objectives without it (``has_hessian`` False; the piecewise-
linear ones) are fitted with gradient leaves and the driver's line search.

A plugin objective gets Newton leaves by overriding
:meth:`Objective.value_gradient_hessian` (``(y, scores, sample_weight) ->
(value, gradient, hessian)``); the default binding forwards it and clips it
at the floor.  A :class:`BoundSeparable` implements
:meth:`BoundSeparable.block_gradient_hessian` (a row's gradient and
curvature from its own label, weight, score and the merged stage results G
only), so blocked and Dask backends get the curvature block by block.

Queries: ranking within queries (optional)
==========================================
Search ranks many lists, one per query, and judges each on its own.  An
objective that can rank the rows of each query against each other only
declares ``ranks_within_queries = True`` and accepts ``queries=`` in
:meth:`Objective.bind`: a :class:`~rankcore.metrics.Queries` (each row's
query, from ``fit(..., qid=...)`` or ``group=...``).  The estimators then
give it ``y`` as float64 relevance grades (any finite grades >= 0, ints or
floats) and the bound objective compares only rows of the same query; a
query whose rows share one grade contributes nothing (the estimators count
such queries, ``n_queries_without_pairs_``).
``queries=None`` is the single list of every other fit, unchanged: the
estimators never pass ``queries`` when there are none, so an objective (or
a plugin's) whose ``bind`` predates it keeps working.  The default ``bind``
hands ``queries`` to each of ``value_and_gradient``, ``value_gradient_hessian``
and ``line_derivatives`` that takes a ``queries=`` keyword, and refuses them
(TypeError) when ``value_and_gradient`` takes none: such an objective must
bind them itself.  The declarations:

``ranks_within_queries``
    ``bind(..., queries=q)`` is supported.  The default ``bind`` refuses a
    ``queries`` it cannot use with a ValueError naming the objective; the
    estimators refuse ``qid`` for such an objective before binding.
``requires_queries``
    The objective is defined only within queries (``lambdarank``): a fit
    without ``qid`` is refused, naming the objective and ``qid``.
``max_grade``
    The largest grade the objective takes within queries (``inf``; 1023 for
    one that forms the gain 2^grade, the largest whose gain is a float64).
    The estimators check the grades against it in the user's row order.
``has_value``
    False for an objective that gives only a gradient and a curvature, no
    value J (LambdaMART's λ-gradients have no objective whose gradient they
    are).  Its bound form implements ``value_gradient_hessian`` (the value is
    NaN and ignored), and the driver takes the Newton step of each weak
    ranker instead of a line search: α = 1, times the learner's shrinkage,
    so it needs a learner with Newton leaves (``Learner.newton_leaves``:
    trees, oblivious trees).  Validation cannot score it by
    ``scoring="objective"``.
``randomized``
    The objective draws random numbers (YetiRank's noisy orders).  Its
    ``bind`` then also takes ``random_state=`` (the fit's seed: an int, a
    numpy Generator or None) and ``first_row=`` (the position of the bound
    rows' first row in the training set, for blocks of it), and the bound
    form draws fresh numbers at each evaluation at new scores -- one per
    boosting iteration -- so a fit is repeatable for an integer
    ``random_state``.  The estimators pass them only to such an objective.
``fixed_value``
    J is one fixed function of the scores (True, the default: a value
    computed from the scores given), so a line search never raises the value
    the driver records from one iteration to the next, a model file whose
    recorded values rise is refused as damaged, and a step that leaves J
    above its start stops the fit as ``"diverged"``.  False for an objective
    whose weights are read at the scores of each evaluation and held through
    the line search (the per-query push with place discounts): its recorded
    value may rise, and no step is compared with the start.

Binding: precomputation and the Dask seam
=========================================
The driver calls ``objective.bind(y, sample_weight, n_threads=...)`` once per
fit and then talks to the returned :class:`BoundObjective` only.  The default
binds the three methods above to the data.  Objectives that want to
precompute (index arrays, sorted labels) or that have fast paths return their
own :class:`BoundObjective` subclass.

A :class:`BoundSeparable` additionally exposes its work as **reductions
over blocks of rows**: a few scalars merged across blocks (log-sum-exp sums,
moments), from which every row's gradient follows without looking at other
rows.  Backends that hold the data in blocks (the in-memory backend with
``block_rows``; the Dask backend of a later release) use that form; the
whole-vector methods are then implemented on top of it, so the two can never
disagree.  See :class:`BoundSeparable` for the protocol.
"""

from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from .._argument_refusal import ArgumentRefusal
from .._vector import dot as _dot
from ..spec import Component

__all__ = [
    "HESSIAN_FLOOR",
    "Objective",
    "BoundObjective",
    "LinePoint",
    "LineSearchResult",
    "RowBlock",
]


#: The floor below which a curvature (``value_gradient_hessian``'s h) is clipped.
#: Absolute, in the units of J per squared score: small enough that it only
#: replaces curvatures that underflowed or vanish (a class with one row, a row
#: whose weight underflowed), never a curvature a Newton step relies on; a
#: floor only ever shortens a Newton step −g/h.
HESSIAN_FLOOR = 1e-14


def clip_hessian(hess: np.ndarray, floor: float = HESSIAN_FLOOR) -> np.ndarray:
    """``hess`` clipped below at ``floor``, in place; returns it (NaN stays NaN: callers check finiteness)."""
    return np.maximum(hess, floor, out=hess)


@dataclass(frozen=True)
class LinePoint:
    """φ and its derivatives at one step size α of a line search.

    ``d2`` is NaN when the objective does not provide a second derivative.
    ``value`` may be ``-inf`` when the objective reaches zero in log form
    (then ``d1`` is 0: nothing left to gain).
    """

    alpha: float
    value: float
    d1: float
    d2: float = math.nan


#: A line function: α ↦ LinePoint (φ, φ′, φ″ at α).
LineFunction = Callable[[float], LinePoint]


@dataclass(frozen=True)
class LineSearchResult:
    """Outcome of a line search (``rankcore.push._line_search.line_search``, or a line's own ``minimize``).

    Attributes
    ----------
    alpha : float
        The step (0.0 when no step decreases φ).
    value : float
        φ(alpha).
    n_evaluations : int
    reason : str
        ``"converged"``, ``"max_step"`` (still decreasing at ``MAX_STEP``), ``"flat"``
        (still descending, but φ stopped decreasing measurably: an asymptote),
        ``"plateau"`` (φ′(0) < 0 but φ does not change along the line: the first
        trial step is taken anyway, which never increases φ),
        ``"stationary"`` (φ′(0) = 0), ``"no_decrease"`` or ``"max_evaluations"``.
    """

    alpha: float
    value: float
    n_evaluations: int
    reason: str


@dataclass(frozen=True)
class RowBlock:
    """One block of rows as a separable objective sees it.

    Attributes
    ----------
    y : ndarray
        Labels of the rows (int8 0/1 for bipartite objectives, float64 grades
        for graded ones).
    weight : ndarray of float64
        Sample weights of the rows (ones when the user gave none).
    scores : ndarray of float64
        The rows' current scores.
    queries : Queries or None
        The rows' queries (codes local to the block) when the fit ranks
        within queries; every query lies whole in one block.
    offset : int
        The position of the block's first row in the training set (a
        ``randomized`` objective numbers its rows' random draws from it).
    """

    y: np.ndarray
    weight: np.ndarray
    scores: np.ndarray
    queries: Any = None
    offset: int = 0

    def __len__(self) -> int:
        return int(self.scores.shape[0])


class Objective(Component):
    """Base class of the ``objective`` plugin family: what the boosting driver minimizes.

    See the module documentation (``rankcore.objectives._base``) for the full
    contract, with an example.  In short, a subclass sets ``name``,
    ``parameters``, ``task`` and ``log_value`` and implements
    :meth:`value_and_gradient`; optionally :meth:`line_derivatives`,
    :meth:`check_target`, or :meth:`bind` returning its own
    :class:`BoundObjective`.

    Attributes
    ----------
    task : {"bipartite", "graded"}
        The labels the objective takes.  The estimators validate ``y``
        accordingly: any two labels (the greater is relevant) for bipartite
        objectives, real-valued grades for graded ones.
    log_value : bool
        ``value_and_gradient`` returns the logarithm of a positive objective
        (the push objective does, to stay finite at p = 64).
    supports_sample_weight : bool
        Whether ``sample_weight`` is honoured (as multiplicities).  When
        False the estimators refuse weights with a clear error.
    tie_break_scale : float
        0 (the default) for objectives that are smooth, or whose kinks are
        not at ties of the scores.  A non-smooth ranking objective sets the
        width s > 0 of the random tie-break offset its training scores start
        from (see "Ties" in the module documentation).  Only the estimators
        read it; calling the objective is unaffected.
    ranks_within_queries : bool
        ``bind`` takes ``queries=`` and then ranks the rows of each query
        against each other, over relevance grades (see "Queries" in the
        module documentation).
    requires_queries : bool
        Defined only within queries: a fit without ``qid`` is refused.
    randomized : bool
        ``bind`` takes ``random_state=`` and ``first_row=`` and draws its
        random numbers from them.
    has_value : bool
        False when the objective gives a gradient and curvature but no value
        J (the driver then takes Newton steps, no line search).
    per_row_gradient : bool
        True when each row's gradient is already of order 1 (LambdaMART's
        λ, a sum over the row's own pairs) rather than a derivative of one
        number for the whole data set (of order 1/n): the LightGBM and
        XGBoost adapters then pass it unscaled.
    max_grade : float
        The largest relevance grade it takes within queries (``inf``: any).
    sum_over_negatives : bool
        Declares J = log Σ_k t_k for a bipartite, ``log_value`` objective
        whose term t_k reads only negative k's score and weight and the
        positives' scores and weights (the push family: t_k = v_k g(L_k)).
        Bound to all the positives and any subset of the negatives it then
        gives log of that subset's part of the sum, so a backend holding the
        negatives in shards evaluates J, ∇J and the line search exactly by
        broadcasting the positives (``rankcore.dask``'s pairwise path, for
        objectives that are not a :class:`BoundSeparable`).
    """

    family: ClassVar[str] = "objective"
    task: ClassVar[str] = "bipartite"
    log_value: ClassVar[bool] = False
    supports_sample_weight: ClassVar[bool] = True
    tie_break_scale: float = 0.0
    sum_over_negatives: ClassVar[bool] = False
    ranks_within_queries: ClassVar[bool] = False
    requires_queries: ClassVar[bool] = False
    randomized: ClassVar[bool] = False
    has_value: ClassVar[bool] = True
    per_row_gradient: ClassVar[bool] = False
    fixed_value: ClassVar[bool] = True
    max_grade: float = math.inf

    # ------------------------------------------------------------------
    # What a simple plugin implements
    # ------------------------------------------------------------------
    def value_and_gradient(
        self, y: np.ndarray, scores: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> tuple[float, np.ndarray]:
        """The working value J and its gradient with respect to the scores.

        Parameters
        ----------
        y : ndarray
            Validated labels (int8 0/1, or float64 grades when ``task`` is
            ``"graded"``), shape (n,).
        scores : ndarray of float64, shape (n,)
            Current scores; never modify them.
        sample_weight : ndarray of float64 or None
            Non-negative weights, or None for unit weights.

        Returns
        -------
        value : float
            J(f) (log of the objective when ``log_value``); may be ``-inf``
            for a log-form objective that reached zero.
        gradient : ndarray of float64, shape (n,)
            ∂J/∂f_n (a subgradient where J is not differentiable).
        """
        raise NotImplementedError(f"objective {self.spec!r} must implement "
                                  "value_and_gradient(y, scores, sample_weight)")

    def value_gradient_hessian(
        self, y: np.ndarray, scores: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """Optional: (J, ∇J, h) with h a positive diagonal curvature of J (Newton leaves).

        Override it to give trees and the LightGBM/XGBoost adapters Newton
        leaves; the default binding then forwards it (``has_hessian`` True),
        refuses a non-finite h with ValueError and clips h below at
        :data:`HESSIAN_FLOOR` (negative entries included).  h should be the diagonal
        of ∇²J, or a positive surrogate of it (say which in the docstring).
        Not overriding it is fine: the driver then uses gradient leaves and
        its line search.
        """
        raise NotImplementedError(f"objective {self.spec!r} provides no curvature (value_gradient_hessian)")

    def line_derivatives(
        self,
        y: np.ndarray,
        scores: np.ndarray,
        direction: np.ndarray,
        sample_weight: np.ndarray | None = None,
    ) -> tuple[float, float, float]:
        """(φ(0), φ′(0), φ″(0)) for φ(α) = J(scores + α·direction).

        The default uses :meth:`value_and_gradient` and returns φ″ = NaN, so
        the driver takes secant steps; override to give φ″ (Newton steps).
        """
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        d1 = float(_dot(grad, direction)) if math.isfinite(value) else 0.0
        return float(value), d1, math.nan

    def check_target(self, y: np.ndarray, sample_weight: np.ndarray | None = None) -> None:
        """Data-dependent checks of validated labels (e.g. k ≤ n₊); raise ValueError."""

    def check_queries(self, queries: Any) -> None:
        """Refuse ``queries`` the objective cannot use, or their absence when it needs them (ValueError)."""
        if queries is not None and not self.ranks_within_queries:
            raise ValueError(f"qid: the objective {self.spec!r} ranks one list; it cannot rank within queries "
                             "(use the push objective, e.g. loss='exp' with a price, or objective='lambdarank')")
        if queries is None and self.requires_queries:
            raise ValueError(f"qid: the objective {self.spec!r} ranks within queries; pass fit(X, y, qid=...) "
                             "(one query id per row) or group=... (query sizes)")

    # ------------------------------------------------------------------
    # Binding to the data (override for precomputation or fast paths)
    # ------------------------------------------------------------------
    def bind(self, y: np.ndarray, sample_weight: np.ndarray | None = None, *, n_threads: int = 1,
             queries: Any = None) -> "BoundObjective":
        """The objective with its data fixed: what the driver uses during a fit.

        Parameters
        ----------
        y : ndarray
            Validated labels (see :meth:`value_and_gradient`); relevance
            grades (float64) when ``queries`` is given.
        sample_weight : ndarray of float64 or None
        n_threads : int
            Threads the objective may use (kernels take it explicitly).
        queries : Queries or None
            Each row's query, for an objective that ``ranks_within_queries``
            (None: one list).  This default binding ranks one list and
            refuses queries.
        """
        self.check_queries(queries)
        if sample_weight is not None and not self.supports_sample_weight:
            # the weights are the argument refused (the command line's --weight reads it), said with the objective
            raise ArgumentRefusal(f"objective {self.spec!r} does not support sample_weight; fit without it",
                                  parameter="sample_weight")
        if queries is not None and not _takes_queries(type(self).value_and_gradient):
            # Binding it without them would fit one list over all the rows while the model says "within queries".
            raise TypeError(f"objective {self.spec!r} declares ranks_within_queries but neither overrides bind(..., "
                            "queries=) nor takes queries= in value_and_gradient(y, scores, sample_weight, queries=); "
                            "give it one of them (docs/plugin_objectives.md)")
        return _BoundDefault(self, y, sample_weight, queries)

    # ------------------------------------------------------------------
    # Convenience for users and tests
    # ------------------------------------------------------------------
    def __call__(self, y: Any, scores: Any, sample_weight: Any = None) -> float:
        """The working value J of ``scores`` for labels ``y`` (validated)."""
        y_arr, s_arr, w_arr = self._validate_call(y, scores, sample_weight)
        return float(self.bind(y_arr, w_arr).value(s_arr))

    def gradient(self, y: Any, scores: Any, sample_weight: Any = None) -> np.ndarray:
        """∇J at ``scores`` for labels ``y`` (validated).

        Raises
        ------
        FloatingPointError
            The gradient is not finite at ``scores`` (an overflow of the loss or price there), as the
            boosting driver refuses such scores.
        """
        y_arr, s_arr, w_arr = self._validate_call(y, scores, sample_weight)
        with np.errstate(over="ignore", invalid="ignore"):   # a non-finite result is refused below
            value, grad = self.bind(y_arr, w_arr).value_and_gradient(s_arr)
        grad = np.asarray(grad)
        if not np.isfinite(grad).all():
            # an overflow makes inf - inf inside the log-space weights, a NaN the caller would not see
            # (push:exp,exp:2 with a negative 710 above the positives)
            bad = int(np.flatnonzero(~np.isfinite(grad))[0])
            raise FloatingPointError(
                f"objective {self.spec!r}: the gradient is not finite at these scores (J = {value}, "
                f"{grad[bad]} at position {bad}): an overflow, the scores are too far apart for its loss and "
                "price; rescale them")
        return grad

    def _validate_call(self, y, scores, sample_weight):
        from ..validation import check_labels_and_scores, check_sample_weight

        y_arr, s_arr = check_labels_and_scores(
            y, scores, graded=self.task == "graded", both_classes=self.task != "graded",
            what=f"objective {self.spec!r}",
        )
        w_arr = None if sample_weight is None else check_sample_weight(sample_weight, y_arr.shape[0])
        self.check_target(y_arr, w_arr)
        return y_arr, s_arr, w_arr


class BoundObjective:
    """An objective bound to one training set's labels and weights.

    The driver's view of an objective.  Subclasses implement
    :meth:`value_and_gradient`; :meth:`value` and :meth:`line` have defaults.

    Attributes
    ----------
    objective : Objective
        The configured component this was bound from.
    log_value : bool
        Copied from the objective: J is the log of a positive objective.
    separable : bool
        True for :class:`BoundSeparable` (row-block reductions available).
    gradient_into : bool
        ``block_gradient_hessian(block, G, out=(gradient, hessian))`` writes
        into the given float64 buffers of the block's length (and returns
        them): a backend then allocates nothing per iteration.
    """

    separable: ClassVar[bool] = False
    gradient_into: ClassVar[bool] = False

    def __init__(self, objective: Objective, y: np.ndarray, sample_weight: np.ndarray | None):
        self.objective = objective
        self.y = y
        self.sample_weight = sample_weight
        self.log_value = bool(objective.log_value)

    @property
    def n_rows(self) -> int:
        return int(self.y.shape[0])

    def use_threads(self, n_threads: int) -> None:
        """Run the next evaluations on ``n_threads`` (the driver lowers it when other processes take CPUs).

        The result does not depend on it.  A bound form that reads ``n_threads`` at each call takes the new
        count here; one that wraps another bound objective forwards it.
        """
        if isinstance(getattr(self, "n_threads", None), int):
            self.n_threads = int(n_threads)

    def value_and_gradient(self, scores: np.ndarray) -> tuple[float, np.ndarray]:
        """(J, ∇J) at the scores of every row."""
        raise NotImplementedError

    def value(self, scores: np.ndarray) -> float:
        """J at the scores of every row."""
        return float(self.value_and_gradient(scores)[0])

    @property
    def has_hessian(self) -> bool:
        """Whether :meth:`value_gradient_hessian` is available (False by default)."""
        return False

    def value_gradient_hessian(self, scores: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(J, ∇J, h) at the scores of every row, h a positive diagonal curvature surrogate of J.

        Returns
        -------
        value : float
            J, as :meth:`value_and_gradient` gives it.
        gradient : ndarray of float64, shape (n,)
            ∇J, as :meth:`value_and_gradient` gives it.
        hessian : ndarray of float64, shape (n,)
            Finite and ≥ :data:`HESSIAN_FLOOR`: the diagonal of ∇²J or the
            documented surrogate of the objective.

        Raises
        ------
        NotImplementedError
            When :attr:`has_hessian` is False.
        """
        raise NotImplementedError(
            f"objective {self.objective.spec!r} provides no curvature (has_hessian is False); "
            "use value_and_gradient and a line search"
        )

    def line(self, scores: np.ndarray, direction: np.ndarray) -> LineFunction:
        """α ↦ :class:`LinePoint` of φ(α) = J(scores + α·direction).

        The default evaluates :meth:`value_and_gradient` at each α (φ″ = NaN).
        """

        def evaluate(alpha: float) -> LinePoint:
            value, grad = self.value_and_gradient(scores + alpha * direction)
            d1 = float(_dot(grad, direction)) if math.isfinite(value) else 0.0
            return LinePoint(alpha, float(value), d1, math.nan)

        return evaluate


def _takes_queries(method: Callable) -> bool:
    """Whether ``method`` (an objective's data-taking method) takes a ``queries=`` keyword."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):         # a builtin or C function without a signature
        return False
    return "queries" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


class _BoundDefault(BoundObjective):
    """Binds an objective's three data-taking methods to fixed labels, weights and queries.

    ``queries`` (a :class:`~rankcore.metrics.Queries`, or None) reaches each method that takes ``queries=``.
    """

    def __init__(self, objective: Objective, y: np.ndarray, sample_weight: np.ndarray | None, queries: Any = None):
        super().__init__(objective, y, sample_weight)
        self.queries = queries
        self._takers: dict[str, bool] = {}          # method name -> takes queries=, read once per binding

    def _extra(self, name: str) -> dict:
        """``{"queries": ...}`` when the objective's method ``name`` takes them, else ``{}``.

        Keyed by the attribute's name, not the callable's ``__name__``: a ``functools.partialmethod`` has none,
        and two of them would otherwise share one answer.
        """
        if self.queries is None:
            return {}
        if name not in self._takers:
            self._takers[name] = _takes_queries(getattr(self.objective, name))
        return {"queries": self.queries} if self._takers[name] else {}

    def value_and_gradient(self, scores):
        value, grad = self.objective.value_and_gradient(self.y, scores, self.sample_weight,
                                                        **self._extra("value_and_gradient"))
        grad = np.asarray(grad, dtype=np.float64)
        if grad.shape != scores.shape:
            raise ValueError(
                f"objective {self.objective.spec!r}: gradient has shape {grad.shape}, expected {scores.shape}"
            )
        value = _scalar_value(self.objective, value)
        _refuse_nan_gradient(self.objective, value, grad, "value_and_gradient")
        return value, grad

    @property
    def has_hessian(self) -> bool:
        return type(self.objective).value_gradient_hessian is not Objective.value_gradient_hessian

    def value_gradient_hessian(self, scores):
        if not self.has_hessian:
            return super().value_gradient_hessian(scores)
        value, grad, hess = self.objective.value_gradient_hessian(self.y, scores, self.sample_weight,
                                                                  **self._extra("value_gradient_hessian"))
        grad = np.asarray(grad, dtype=np.float64)
        hess = np.array(hess, dtype=np.float64)       # a copy: clipped in place below
        for what, arr in (("gradient", grad), ("hessian", hess)):
            if arr.shape != scores.shape:
                raise ValueError(
                    f"objective {self.objective.spec!r}: {what} has shape {arr.shape}, expected {scores.shape}"
                )
        if not np.isfinite(hess).all():
            raise ValueError(f"objective {self.objective.spec!r}: value_gradient_hessian returned a non-finite "
                             "hessian; it must be a finite positive curvature")
        value = _scalar_value(self.objective, value)
        _refuse_nan_gradient(self.objective, value, grad, "value_gradient_hessian")
        return value, grad, clip_hessian(hess)

    def line(self, scores, direction):
        objective = self.objective
        overridden = type(objective).line_derivatives is not Objective.line_derivatives
        if not overridden:
            return super().line(scores, direction)

        extra = self._extra("line_derivatives")

        def evaluate(alpha: float) -> LinePoint:
            value, d1, d2 = objective.line_derivatives(self.y, scores + alpha * direction, direction,
                                                       self.sample_weight, **extra)
            return LinePoint(alpha, float(value), float(d1), float(d2))

        return evaluate


def _refuse_nan_gradient(objective, value: float, grad: np.ndarray, method: str) -> None:
    """A ValueError naming the objective, its ``method`` and the first row when a plugin's gradient holds a NaN.

    Beside a finite value J (or an objective without one), a NaN is the objective's own fault: left to the driver,
    it would stop the fit as ``"overflow"`` and blame the learning rate.  Beside a J of NaN or ±inf it may be an
    overflow of the scores (exp(f) / (1 + exp(f)) is inf / inf past f = 709), which the driver handles: it stops
    with ``"overflow"`` and keeps the last finite model (or, at the initial scores, says J is not finite there).
    (An infinite entry may be an overflow too.)  O(n), beside the objective's own cost.
    """
    if objective.has_value and not math.isfinite(value):
        return
    if np.isnan(_dot(grad, grad)):            # one pass: squares are >= 0, so NaN exactly when an entry is NaN
        bad = np.flatnonzero(np.isnan(grad))
        if bad.size:
            raise ValueError(f"objective {objective.spec!r}: {method} returned a gradient that is NaN at "
                             f"{bad.size} of {grad.size} rows (the first: row {int(bad[0])}); it must be finite")


def _scalar_value(objective, value) -> float:
    """A plugin objective's value as a float, or a TypeError naming it (a 1-element array is not a number)."""
    if isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    shown = f"an array of shape {np.shape(value)}" if hasattr(value, "shape") else type(value).__name__
    raise TypeError(f"objective {objective.spec!r}: value_and_gradient must return its value as a number, "
                    f"got {shown}")

