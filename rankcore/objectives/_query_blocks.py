"""Objectives within queries as reductions over blocks that each hold whole queries.

A per-query objective compares rows of the same query only.  When every
query lies whole in one block of rows (a chunk of a Dask collection), each
block is an objective of its own, bound to its rows with their queries, and
the blocks combine through a few numbers:

* the push within queries (``log_value``): R = Σ_q Σ_{k ∈ q} v_k g(L_k) is a
  sum over queries, so R = Σ_c R_c over blocks and J = log R is the
  log-sum-exp of the blocks' J_c = log R_c.  A row's gradient is its block's
  own ∂J_c/∂f scaled by ρ_c = R_c / R = e^{J_c − J}; so is its curvature
  (the diagonal of ∇²R / R: a row's second derivative reads only its own
  query).  Along a direction h the blocks give (J_c, φ_c′, φ_c″) and
  φ′ = Σ_c ρ_c φ_c′, φ″ = Σ_c ρ_c (φ_c″ + φ_c′²) − φ′²: the moments of a
  mixture, merged pairwise, so any grouping of the blocks gives the same
  numbers (to rounding).
* an objective without a value (``lambdarank``, ``yetirank``): its gradient
  and curvature are computed query by query, so each block's own are the
  rows' values; the merged value is NaN, as the in-memory binding reports
  it.  A ``randomized`` one (``yetirank``) numbers its rows' draws from the
  block's ``offset``: the blocks draw what the whole binding draws.

A block whose queries hold no pair of rows with different grades and
positive weights contributes nothing (R_c = 0, zero gradient, the curvature
floor): the in-memory objective gives those rows the same.

:class:`BoundQueryBlocks` is this form, a
:class:`~rankcore.objectives.BoundSeparable`: the blocks are
:class:`~rankcore.objectives.RowBlock` objects carrying their ``queries``,
and each block's binding is made once (on its first use) and kept: for
the push, its sort by (query, grade) and level indices, about 60 bytes a
row besides the block's own data.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..metrics import Queries
from ._base import BoundSeparable, LinePoint, RowBlock, clip_hessian

__all__ = ["BoundQueryBlocks"]

_TWO_ROWS = np.array([0.0, 1.0])


def has_pairs(grades: np.ndarray, weight: np.ndarray, codes: np.ndarray) -> bool:
    """Whether some query holds two rows of positive weight and different grades."""
    live = weight > 0
    if not live.any():
        return False
    codes, grades = codes[live], grades[live]
    n_queries = int(codes.max()) + 1
    low = np.full(n_queries, np.inf)
    high = np.full(n_queries, -np.inf)
    np.minimum.at(low, codes, grades)
    np.maximum.at(high, codes, grades)
    return bool(np.any(low < high))


class BoundQueryBlocks(BoundSeparable):
    """An objective within queries over blocks of whole queries (see the module docstring).

    Parameters
    ----------
    objective : Objective
        A component with ``ranks_within_queries``: a push objective (log
        value) or one without a value (``lambdarank``).
    n_threads : int
        Threads of each block's binding.
    random_state : int, numpy Generator or None
        The fit's seed, for a ``randomized`` objective (YetiRank): each
        block's binding gets it with the block's ``offset`` as its first
        row, so that the blocks draw what one binding of all the rows would.

    Raises
    ------
    ValueError
        When the objective cannot rank within queries, has a value that
        is not a logarithm (its blocks would not merge by log-sum-exp), or
        its binding declares ``splits_into_query_blocks`` False.
    """

    n_stages = 1

    def __init__(self, objective: Any, *, n_threads: int = 1, random_state: Any = None):
        objective.check_queries(Queries.single(2))
        if objective.has_value and not objective.log_value:
            raise ValueError(f"objective {objective.spec!r}: within queries on blocks, an objective with a value "
                             "must give it as a logarithm (log_value), so that the blocks merge by log-sum-exp")
        super().__init__(objective, _TWO_ROWS, None)
        self.n_threads = int(n_threads)
        self.random_state = random_state
        self.has_value = bool(objective.has_value)
        self._template = objective.bind(_TWO_ROWS, None, n_threads=1, queries=Queries.single(2))
        if not getattr(self._template, "splits_into_query_blocks", True):
            raise ValueError(f"objective {objective.spec!r}: its value is not a sum over blocks of queries (a term "
                             "scaled by every row at bind time, such as query_rmse); fit it in memory")
        self._bound: dict[int, tuple[Queries, Any]] = {}

    @property
    def has_hessian(self) -> bool:
        """Whether the objective gives a curvature within queries (its binding's ``has_hessian``)."""
        return bool(self._template.has_hessian)

    def _bind(self, block: RowBlock):
        """The objective bound to the block's rows (None when they hold no pair), made once per block."""
        if block.queries is None:
            raise ValueError("queries: the rows of a block ranked within queries need their queries (RowBlock.queries)")
        key = id(block.queries)
        cached = self._bound.get(key)
        if cached is not None and cached[0] is block.queries:
            return cached[1]
        weight = np.asarray(block.weight, dtype=np.float64)
        bound = None
        if has_pairs(np.asarray(block.y, dtype=np.float64), weight, block.queries.codes):
            extra = {}
            if getattr(self.objective, "randomized", False):
                extra = {"random_state": self.random_state, "first_row": int(block.offset)}
            bound = self.objective.bind(block.y, weight, n_threads=self.n_threads, queries=block.queries, **extra)
        self._bound[key] = (block.queries, bound)
        return bound

    # ------------------------------------------------------------------
    # Reductions
    # ------------------------------------------------------------------
    def block_partials(self, stage, block, G, direction=None, alpha=0.0):
        """[J_c] at the block's scores, or [J_c, φ_c′, φ_c″] at f + α·h along ``direction``."""
        if not self.has_value:
            return np.array([math.nan])
        bound = self._bind(block)
        if bound is None:
            return np.array([-math.inf] if direction is None else [-math.inf, 0.0, 0.0])
        if direction is None:
            return np.array([bound.value(block.scores)])
        point = bound.line(block.scores, direction)(float(alpha))
        return np.array([point.value, point.d1, point.d2])

    def merge_partials(self, stage, parts):
        """Log-sum-exp of the J_c; the line derivatives as the moments of the mixture ρ_c = R_c / R."""
        parts = np.asarray(parts, dtype=np.float64)
        if not self.has_value:
            return np.array([math.nan])
        value = float(np.logaddexp.reduce(parts[:, 0]))
        if parts.shape[1] == 1:
            return np.array([value])
        if not math.isfinite(value):
            return np.array([value, 0.0, 0.0])
        live = parts[:, 0] > -math.inf
        rho = np.exp(parts[live, 0] - value)
        d1s, d2s = parts[live, 1], parts[live, 2]
        d1 = float(np.dot(rho, d1s))
        d2 = float(np.dot(rho, d2s + d1s * d1s)) - d1 * d1
        return np.array([value, d1, d2])

    def finish(self, G, with_direction=False):
        merged = np.asarray(G[0], dtype=np.float64)
        if not with_direction:
            return LinePoint(0.0, float(merged[0]), math.nan, math.nan)
        return LinePoint(0.0, float(merged[0]), float(merged[1]), float(merged[2]))

    @staticmethod
    def _rho(value_c: float, G) -> float:
        """ρ_c = R_c / R = e^{J_c − J} of a block whose value is ``value_c``."""
        if value_c == -math.inf:
            return 0.0
        return math.exp(value_c - float(np.asarray(G[0])[0]))

    def block_gradient(self, block, G):
        bound = self._bind(block)
        if bound is None:
            return np.zeros(len(block))
        value_c, grad = bound.value_and_gradient(block.scores)
        return grad * self._rho(value_c, G) if self.has_value else grad

    def block_gradient_hessian(self, block, G):
        if not self.has_hessian:
            return super().block_gradient_hessian(block, G)
        bound = self._bind(block)
        if bound is None:
            return np.zeros(len(block)), clip_hessian(np.zeros(len(block)))
        value_c, grad, hess = bound.value_gradient_hessian(block.scores)
        if not self.has_value:
            return grad, hess
        rho = self._rho(value_c, G)
        # ρ ≤ 1, so scaling a curvature the block clipped at the floor and clipping again gives the floor,
        # as the whole objective clips it
        return grad * rho, clip_hessian(hess * rho)
