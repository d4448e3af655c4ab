"""Bound objectives that give a gradient and a curvature but no value (LambdaMART, YetiRank, XE-NDCG).

Such methods define each row's pull directly, with no function whose
gradient it is: the value is NaN, no line can be searched, and the driver
takes each tree's Newton step.  The driver asks for the gradient (to search
the weak ranker) and then for gradient and curvature (its leaves) at the same
scores, so the last evaluation is kept and each iteration computes it once.
"""

from __future__ import annotations

import math
import numbers
from typing import ClassVar

import numpy as np

from .._argument_refusal import ArgumentRefusal
from ..metrics import Queries
from ._base import BoundObjective, Objective, clip_hessian

__all__ = ["ValuelessQueryObjective", "RandomizedQueryObjective", "BoundValuelessObjective", "checked_rows",
           "checked_vector", "seed_of", "curvature_unit"]


class ValuelessQueryObjective(Objective):
    """An objective on grades within queries defined by its gradient alone (no value): what such methods share.

    A fit needs ``qid`` (or ``group``) and a learner with Newton leaves; the
    driver takes each tree's Newton step, as it has no line to search.
    """

    task = "graded"
    ranks_within_queries = True
    requires_queries = True
    has_value = False
    per_row_gradient = True


class RandomizedQueryObjective(ValuelessQueryObjective):
    """One whose gradients draw noise from the fit's seed (YetiRank, XE-NDCG): the binding they share.

    ``bound_type`` is the bound class, built as ``bound_type(objective, y, sample_weight, queries, seed, first_row,
    n_threads=...)``.
    """

    randomized = True
    bound_type: ClassVar[type]

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None, random_state=None, first_row=0):
        """Gradient and curvature on fixed grades, queries and weights (``queries`` is required).

        ``random_state`` (an int, a Generator or None for fresh entropy)
        seeds the noise; ``first_row`` numbers the rows in it (blocks of a
        larger set pass the position of their first row).
        """
        self.check_queries(queries)
        return self.bound_type(self, y, sample_weight, queries, seed_of(random_state), int(first_row),
                               n_threads=n_threads)


def curvature_unit(objective, n_rows: int, total_weight: float | None = None) -> float:
    """The curvature of one row of unit curvature in ``objective``'s scale, at the mean sample weight; 0: none.

    An objective whose gradient is per row (``per_row_gradient``: lambdarank,
    yetirank, xendcg, as LightGBM defines them) gives each row its own
    curvature times its weight: one row of unit curvature at the mean weight
    is Σw / n, 1 without weights (``total_weight`` None).  The trees'
    ``min_child_weight`` floor never falls below that many such rows, however
    small the curvatures become (docs/trees.md).  Any other objective -- the
    derivatives of one number for the whole set -- declares none: 0.
    """
    n_rows = int(n_rows)
    if not getattr(objective, "per_row_gradient", False) or n_rows <= 0:
        return 0.0
    unit = 1.0 if total_weight is None else float(total_weight) / n_rows
    return unit if math.isfinite(unit) and unit > 0 else 0.0


def seed_of(random_state) -> int:
    """The 64-bit seed of a randomized objective's noise: an int as given (modulo 2^64), a draw from a Generator,
    or fresh entropy for None."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63))
    if random_state is None:
        return int(np.random.default_rng().integers(0, 2**63))
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"random_state: expected an int, a numpy Generator or None, got {random_state!r}")
    return int(random_state) & ((1 << 64) - 1)


def checked_rows(y, scores, queries) -> tuple[np.ndarray, np.ndarray]:
    """``(y, scores)`` as float64 vectors, one finite value per row of ``queries``, or a clear error naming the row."""
    return checked_vector("y", y, queries), checked_vector("scores", scores, queries)


def checked_vector(name: str, values, queries) -> np.ndarray:
    """``values`` as a float64 vector, one finite value per row of ``queries``, or a clear error naming the row."""
    if not isinstance(queries, Queries):
        raise TypeError(f"queries: expected a Queries, got {type(queries).__name__}")
    n = int(queries.codes.shape[0])
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (n,):
        raise ValueError(f"{name}: expected one value per row ({n}), got shape {values.shape}")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ArgumentRefusal.said(name, f"must be finite, got {float(values[bad[0]])!r} at row {int(bad[0])}",
                                   row=int(bad[0]))
    return values


class BoundValuelessObjective(BoundObjective):
    """A bound objective of gradient and curvature only; subclasses implement :meth:`_evaluate`."""

    def __init__(self, objective, y, sample_weight):
        super().__init__(objective, y, sample_weight)
        self._last: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _evaluate(self, scores) -> tuple[np.ndarray, np.ndarray]:
        """(gradient, curvature) at ``scores``: called once per new set of scores."""
        raise NotImplementedError

    @property
    def has_hessian(self) -> bool:
        return True

    def _gradient_hessian(self, scores):
        if self._last is not None and np.array_equal(self._last[0], scores):
            return self._last[1], self._last[2]
        grad, hess = self._evaluate(scores)
        self._last = (np.array(scores, dtype=np.float64), grad, hess)
        return grad, hess

    def value(self, scores) -> float:
        return math.nan

    def value_and_gradient(self, scores):
        return math.nan, self._gradient_hessian(scores)[0].copy()

    def value_gradient_hessian(self, scores):
        grad, hess = self._gradient_hessian(scores)
        return math.nan, grad.copy(), clip_hessian(hess.copy())

    def line(self, scores, direction):
        raise NotImplementedError(f"objective {self.objective.spec!r} has no value to search a line on; the "
                                  "driver takes its Newton step")
