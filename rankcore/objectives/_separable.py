"""Bound objectives whose work is a reduction over blocks of rows, and the line read from their summaries.

:class:`BoundSeparable` is the seam that lets one boosting driver run on rows
held in blocks -- in memory or on a Dask cluster -- without moving the rows;
:class:`CheckedLine` guards the line search read from a gradient-built summary
against the rows such a summary can lose.  The protocol every bound objective
follows is in :mod:`rankcore.objectives._base`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from ._base import BoundObjective, LineFunction, LinePoint, RowBlock

__all__ = ["BoundSeparable", "CheckedLine"]


class BoundSeparable(BoundObjective):
    """A bound objective whose work is a reduction over blocks of rows.

    This is the seam that lets the same driver run on data held in blocks --
    in memory (``block_rows``) or on a Dask cluster -- without moving rows
    around.  The objective is described by ``n_stages`` reductions: stage s
    maps every block to a small float64 vector of *partials* (given the
    merged results of the earlier stages), and merges the vectors of all
    blocks associatively.  Stage results ``G`` (a list, one merged vector per
    stage) then determine

    * the value, :meth:`finish`;
    * every row's gradient, :meth:`block_gradient` -- a function of the row's
      own label, weight and score and of ``G`` only;
    * the line search: with a direction h, the same reductions evaluated at
      the scores f + α·h also return φ′(α) and φ″(α) (:meth:`block_partials`
      with ``direction`` and ``alpha``; :meth:`finish` with
      ``with_direction=True``).  When h takes a few known values (binary weak
      rankers), :meth:`block_line_summary` compresses a block into a summary
      from which φ at *every* α follows without another pass.

    Example (the exponential push objective with a homogeneous price, one
    stage): a block's partials are the log-sum-exp of log w_i − f_i over its
    positives and of log v_k + p·f_k over its negatives; merging is
    ``logaddexp``; J = p·A + B; each row's gradient is its own exponential
    weight divided by the merged sum.  Blocks without positives (or without
    negatives) contribute ``-inf``.

    The whole-vector methods of :class:`BoundObjective` are implemented here
    with the data as a single block, so the in-memory path and any blocked
    path compute the same thing.

    Methods to implement
    --------------------
    ``block_partials(stage, block, G, direction=None, alpha=0.0) -> ndarray``
    ``merge_partials(stage, parts) -> ndarray`` (associative)
    ``finish(G, with_direction=False) -> LinePoint`` (alpha field unused)
    ``block_gradient(block, G) -> ndarray``
    Optional: ``block_gradient_hessian(block, G) -> (gradient, hessian)`` (the
    curvature of :meth:`BoundObjective.value_gradient_hessian`, per row from G;
    ``has_hessian`` is then True), ``block_line_summary(block, h_block, values, G, gradient=None)``,
    ``merge_line_summaries(parts)``, ``line_from_summary(summary, values, G)``,
    ``stages_after_step(summary, values, G, alpha)`` and
    ``summary_from_abs_sums(sums, G)`` (``has_abs_sum_summary`` is then True).

    The distributed summary
    -----------------------
    Everything a backend exchanges for such an objective is these merged
    vectors: the stage partials G, and for a ranker with few values the line
    summary.  The Dask backend calls exactly the methods above on the chunks
    its workers hold and merges with the objective's own merges; nothing
    else is needed to run a separable objective on a cluster.  An objective
    that can also build its line summary from the per-class sums of
    |∂J/∂f| by value of h (:meth:`summary_from_abs_sums`) lets a backend read
    those sums off per-class histograms of the gradient: with a
    ``threshold_histograms`` learner one round trip per iteration.
    """

    separable: ClassVar[bool] = True
    #: Number of reduction stages before the gradient is known.
    n_stages: int = 1

    def block_partials(self, stage: int, block: RowBlock, G: Sequence[np.ndarray],
                       direction: np.ndarray | None = None, alpha: float = 0.0) -> np.ndarray:
        """Stage ``stage``'s partial sums over the rows of ``block`` (given the earlier stages' merged ``G``); with
        ``direction`` h and ``alpha``, at the scores f + α·h with the line's derivatives too."""
        raise NotImplementedError

    def block_line(self, stage: int, block: RowBlock, direction: np.ndarray):
        """``(G, alpha) ↦ block_partials(stage, block, G, direction, alpha)`` along one direction.

        A backend that evaluates several α along the same direction on the
        same scores (a line search on a worker's blocks) asks for this once
        per line: an objective whose line has a set-up of its own (formed
        from the scores and h, then cheap at each α) overrides it to form
        that set-up once.  This default forms nothing.
        """
        return lambda G, alpha: self.block_partials(stage, block, G, direction, alpha)

    def merge_partials(self, stage: int, parts: Sequence[np.ndarray]) -> np.ndarray:
        """The blocks' partials of ``stage`` merged into one (associative: any grouping of the blocks gives it)."""
        raise NotImplementedError

    def finish(self, G: Sequence[np.ndarray], with_direction: bool = False) -> LinePoint:
        """J from every stage's merged partials ``G`` (and φ′, φ″ along the direction when ``with_direction``)."""
        raise NotImplementedError

    def block_gradient(self, block: RowBlock, G: Sequence[np.ndarray]) -> np.ndarray:
        """∂J/∂f on the rows of ``block``, from the merged stage results ``G`` only."""
        raise NotImplementedError

    def block_gradient_hessian(self, block: RowBlock, G: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(gradient, hessian) of the rows of ``block`` from the merged stage results ``G`` only.

        The gradient equals :meth:`block_gradient`'s; the hessian is the
        objective's positive diagonal curvature (see
        :meth:`BoundObjective.value_gradient_hessian`), already clipped at
        :data:`HESSIAN_FLOOR`.  Implement it to make ``has_hessian`` True.
        """
        raise NotImplementedError(
            f"objective {self.objective.spec!r} provides no curvature (has_hessian is False)"
        )

    @property
    def has_hessian(self) -> bool:
        return type(self).block_gradient_hessian is not BoundSeparable.block_gradient_hessian

    def block_line_summary(self, block: RowBlock, h: np.ndarray, values: np.ndarray,
                           G: Sequence[np.ndarray], gradient: np.ndarray | None = None) -> np.ndarray | None:
        """A mergeable summary of a block for directions taking only ``values``; None if unsupported.

        ``gradient``, when given, is this block's :meth:`block_gradient` for the
        same ``G`` (the backend keeps it from the weak-ranker search); an
        objective may build the summary from it instead of from the scores.
        """
        return None

    def stages_after_step(self, summary: np.ndarray, values: np.ndarray, G: Sequence[np.ndarray],
                          alpha: float) -> list[np.ndarray] | None:
        """G at the scores f + α·h, computed from the line summary alone; None if not possible.

        When available the backend skips the reduction over the rows that
        would otherwise follow every update.
        """
        return None

    @property
    def has_line_summary(self) -> bool:
        """Whether :meth:`block_line_summary` can give a summary (it is overridden)."""
        return type(self).block_line_summary is not BoundSeparable.block_line_summary

    @property
    def has_abs_sum_summary(self) -> bool:
        """Whether :meth:`summary_from_abs_sums` is available (it is overridden, by default)."""
        return type(self).summary_from_abs_sums is not BoundSeparable.summary_from_abs_sums

    def summary_from_abs_sums(self, sums: np.ndarray, G: Sequence[np.ndarray]) -> np.ndarray:
        """The line summary of a direction from Σ|∂J/∂f_n| per value of h and class.

        ``sums`` is (V, 2): rows the values of h (as in :meth:`block_line_summary`),
        columns positives, negatives.  An objective implementing it guarantees
        that within each class the gradient has one sign, so that a backend may
        compute these sums as |Σ ∂J/∂f_n| over the rows of one class and value
        (e.g. from per-class histograms of the gradient).
        """
        raise NotImplementedError(f"objective {self.objective.spec!r} has no line summary from gradient sums")

    def gradient_summary_step_limit(self, values: np.ndarray) -> float:
        """The largest |α| at which a line summary built from the gradient (``gradient=``,
        :meth:`summary_from_abs_sums`) gives φ exactly; beyond it the backend builds the line from the scores.

        ``math.inf`` unless an objective's gradient-built summary can lose rows (see :class:`CheckedLine`).
        """
        return math.inf

    def merge_line_summaries(self, parts: Sequence[np.ndarray]) -> np.ndarray:
        """The blocks' line summaries (:meth:`block_line_summary`) merged into one."""
        raise NotImplementedError

    def line_from_summary(self, summary: np.ndarray, values: np.ndarray, G: Sequence[np.ndarray]) -> LineFunction:
        """φ(α) = J(f + α·h) for every α, from the merged ``summary`` of h's ``values`` and the stages' ``G``."""
        raise NotImplementedError

    # ------------------------------------------------------------------
    # Whole-vector interface, as one block
    # ------------------------------------------------------------------
    def _block(self, scores: np.ndarray) -> RowBlock:
        w = self.sample_weight if self.sample_weight is not None else np.ones(self.n_rows)
        return RowBlock(self.y, w, scores)

    def reduce(self, blocks: Sequence[RowBlock], direction: Sequence[np.ndarray] | None = None,
               alpha: float = 0.0) -> list[np.ndarray]:
        """Run every stage over ``blocks`` (with per-block directions) and return G."""
        G: list[np.ndarray] = []
        for stage in range(self.n_stages):
            parts = [
                self.block_partials(stage, b, G, None if direction is None else direction[j], alpha)
                for j, b in enumerate(blocks)
            ]
            G.append(self.merge_partials(stage, parts))
        return G

    def value_and_gradient(self, scores):
        block = self._block(scores)
        G = self.reduce([block])
        point = self.finish(G)
        return point.value, self.block_gradient(block, G)

    def value(self, scores):
        return self.finish(self.reduce([self._block(scores)])).value

    def value_gradient_hessian(self, scores):
        if not self.has_hessian:
            return super().value_gradient_hessian(scores)
        block = self._block(scores)
        G = self.reduce([block])
        grad, hess = self.block_gradient_hessian(block, G)
        return self.finish(G).value, grad, hess

    def line(self, scores, direction):
        block = self._block(scores)
        lines: dict[int, Any] = {}          # each stage's line along the direction, formed on first use

        def evaluate(alpha: float) -> LinePoint:
            G: list[np.ndarray] = []
            for stage in range(self.n_stages):
                if stage not in lines:
                    lines[stage] = self.block_line(stage, block, direction)
                G.append(self.merge_partials(stage, [lines[stage](G, alpha)]))
            point = self.finish(G, with_direction=True)
            return LinePoint(alpha, point.value, point.d1, point.d2)

        return evaluate


class CheckedLine:
    """A line function read from a gradient-built summary, checked against the step it chooses.

    A summary built from the gradient holds each row's weight normalized
    within its class, so a group of rows whose share underflowed (below
    e^-708) is missing from it.  Along short steps that changes nothing a
    double can hold; a long step (separable data, where the search runs to the
    driver's cap) can make such a group dominate, and φ read from the summary
    is then below the true φ -- the search would take a step that raises the
    objective.  Since the summary's φ is never above the true one and equals
    it up to ``limit``, a minimizer within ``limit`` is the true minimizer; one
    beyond it is found again on ``exact()``, the line built from the scores.

    Parameters
    ----------
    line : LineFunction
        From the gradient-built summary (with its ``minimize``).
    limit : float
        The objective's :meth:`BoundSeparable.gradient_summary_step_limit`.
    exact : callable
        () -> the line function built from the scores (called at most once).
    """

    def __init__(self, line, limit: float, exact: Callable[[], Any]):
        self._line, self._limit, self._exact, self._exact_line = line, float(limit), exact, None

    def _from_scores(self):
        if self._exact_line is None:
            self._exact_line = self._exact()
        return self._exact_line

    def __call__(self, alpha: float) -> LinePoint:
        return (self._line if abs(alpha) <= self._limit else self._from_scores())(alpha)

    def minimize(self, max_step: float):
        """The line's minimum within ``max_step``: from the summary where it is exact, else from the scores."""
        result = self._line.minimize(max_step)
        if abs(result.alpha) <= self._limit:
            return result
        return self._from_scores().minimize(max_step)
