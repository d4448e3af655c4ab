"""Where the training rows live: the seam between the boosting driver and the data.

The driver (``_driver.py``) never touches rows.  Each iteration it asks a
backend for four things, and only these:

``objective_state()``
    the **global scalars** of the objective at the current scores: for a
    :class:`~rankcore.objectives.BoundSeparable`, the merged per-block
    partials G (log-sum-exps and moments); for any other objective, the value
    and the whole gradient vector.  ``value(state)`` reads J from it.
``learner_statistics(state)``
    the **per-feature statistics of the gradient weights** (histograms per
    feature and bin for threshold learners), each block's array computed
    from its own rows and the global scalars, added over blocks.
``line_function(state, ranker)``
    the **line-search aggregates**: a callable α ↦ (φ, φ′, φ″).  For a
    separable objective and a ranker with few values (binary stumps) it is
    one reduction to a handful of numbers per block, after which φ at every
    α is computed without touching the rows; otherwise each α is one
    reduction over the blocks.
``apply_update(ranker, alpha)``
    **apply the update** f ← f + α·h(x) block by block (scores stay where the
    rows are).  When the objective can compute the next global scalars from
    the line summary (``stages_after_step``: the exponential loss with a
    homogeneous price), the next ``objective_state()`` needs no pass at all,
    and the line summary itself is built from the gradient kept from the
    search: one exponential per row per iteration.

:class:`InMemoryBackend` implements them over NumPy arrays split into blocks
of ``block_rows`` rows (one block by default).  The training scores start at
0, or at the tie-break offset of a non-smooth objective (``initial_scores``,
see ``_tie_break.py``); a backend that cannot start elsewhere than 0 must
refuse objectives with ``tie_break_scale > 0``.  A distributed backend (Dask:
blocks are chunks on workers, reductions are tree reductions, the line
function is evaluated on the client from the merged aggregates) implements the
same five methods and reuses the driver unchanged.  The tests fit the same
data with one block and with several blocks of unequal sizes, including a
block without positives, and require the same weak rankers and coefficients.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..learners import LearnerLayout, WeakRanker, curvature_floor
from ..objectives import BoundObjective, CheckedLine, LinePoint, RowBlock
from ..validation import hold_idle_threads

__all__ = ["ObjectiveState", "InMemoryBackend", "split_blocks", "add_step", "check_finite_gradient",
           "check_gain_sums", "sign_sums", "check_sign_sums"]


@dataclass
class ObjectiveState:
    """The objective at the current scores, as a backend holds it.

    Attributes
    ----------
    value : float
        J at the current scores.
    stages : list of ndarray or None
        Merged stage partials G (separable objectives).
    gradient : ndarray or None
        The whole gradient (non-separable objectives, in-memory only).
    hessian : ndarray or None
        The whole curvature, computed with the gradient when the layout grows
        Newton leaves from it (non-separable objectives with a curvature).
    model_value : float or None
        J of the model itself where ``value`` is taken elsewhere: a fit learning position effects with a line
        search records J at the effects after their step (the line starts there); the model -- its trees and
        the effects its last tree was grown with -- is at the effects before it.  None: ``value``.
    """

    value: float
    stages: list[np.ndarray] | None = None
    gradient: np.ndarray | None = None
    hessian: np.ndarray | None = None
    model_value: float | None = None


def split_blocks(n_rows: int, block_rows: int | Sequence[int] | None) -> list[slice]:
    """Row slices: one block (None), blocks of ``block_rows`` rows, or the given sizes."""
    if block_rows is None:
        return [slice(0, n_rows)]
    if isinstance(block_rows, (int, np.integer)):
        size = int(block_rows)
        if size < 1:
            raise ValueError(f"block_rows: expected a positive integer, got {block_rows!r}")
        return [slice(s, min(s + size, n_rows)) for s in range(0, n_rows, size)]
    sizes = [int(s) for s in block_rows]
    if any(s < 1 for s in sizes) or sum(sizes) != n_rows:
        raise ValueError(f"block_rows: expected positive sizes adding up to {n_rows}, got {sizes}")
    bounds = np.r_[0, np.cumsum(sizes)]
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


class InMemoryBackend:
    """Training rows held in NumPy arrays, in one or more blocks of rows.

    Parameters
    ----------
    problem : BoundObjective
        The objective bound to the training labels and weights.
    layout : LearnerLayout
        The learner prepared on the training matrix.
    X : ndarray (n, d)
    y : ndarray (n,)
        Labels as the objective takes them.
    sample_weight : ndarray (n,) or None
    block_rows : None, int or sequence of int
        Block structure (None: one block).  Blocks need a separable
        objective; other objectives see the whole vector.
    n_threads : int
    initial_scores : ndarray (n,), optional
        Where the training scores start (default 0): the tie-break offset of
        a non-smooth objective (``_tie_break.py``).  It is not part of the
        model -- the driver's records hold only the weak rankers and their
        steps -- so ``scores`` is the offset plus Σ α h.
    """

    def __init__(self, problem: BoundObjective, layout: LearnerLayout, X: np.ndarray, y: np.ndarray,
                 sample_weight: np.ndarray | None = None, *, block_rows=None, n_threads: int = 1,
                 initial_scores: np.ndarray | None = None):
        self.problem = problem
        self.layout = layout
        self.n_threads = self.fit_threads = int(n_threads)
        n = X.shape[0]
        self.slices = split_blocks(n, block_rows)
        if len(self.slices) > 1 and not problem.separable:
            raise ValueError(
                f"objective {problem.objective.spec!r} is not separable into row blocks; use a single block"
            )
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self._y = y
        self._w = w
        if initial_scores is None:
            self._scores = np.zeros(n)
        else:
            start = np.array(initial_scores, dtype=np.float64)          # a copy: the fit updates it in place
            if start.shape != (n,) or not np.isfinite(start).all():
                raise ValueError(f"initial_scores: expected {n} finite numbers (one per training row), "
                                 f"got shape {start.shape}" + ("" if start.shape != (n,) else " with NaN or inf"))
            self._scores = start
        if getattr(layout, "multi_pass", False):     # blocks know where they start (row subsampling)
            self.encoded = [layout.encode(X[s], offset=s.start) for s in self.slices]
        else:
            self.encoded = [layout.encode(X[s]) for s in self.slices]
        # per-block buffers the objective and the layout write into when they can (declared by
        # ``problem.gradient_into`` / ``layout.evaluates_into``): no allocation of n per iteration
        self._gradient_buffers: list | None = None
        self._direction_buffers: list | None = None
        self._h_cache: tuple[WeakRanker, list[np.ndarray]] | None = None
        self._grad_cache: tuple[ObjectiveState, list[np.ndarray]] | None = None
        self._summary: tuple | None = None            # (ranker, summary, values, G) of the last line
        self._next_stages: list[np.ndarray] | None = None
        self._stepped = False                         # a weak ranker's step was applied

    # ------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return int(self._scores.shape[0])

    @property
    def scores(self) -> np.ndarray:
        """The current training scores (a view; do not modify)."""
        return self._scores

    def _blocks(self) -> list[RowBlock]:
        return [RowBlock(self._y[s], self._w[s], self._scores[s]) for s in self.slices]

    def _directions(self, ranker: WeakRanker) -> list[np.ndarray]:
        if self._h_cache is not None and self._h_cache[0] is ranker:
            return self._h_cache[1]
        if getattr(self.layout, "evaluates_into", False):
            if self._direction_buffers is None:
                self._direction_buffers = [np.empty(s.stop - s.start) for s in self.slices]
            h = [self.layout.evaluate(ranker, enc, out=buf) for enc, buf in zip(self.encoded, self._direction_buffers)]
        else:
            h = [self.layout.evaluate(ranker, enc) for enc in self.encoded]
        self._h_cache = (ranker, h)
        return h

    def _value_indices(self, ranker: WeakRanker) -> list[np.ndarray] | None:
        """Per block, each row's position in ``ranker.values`` when the layout recorded it while evaluating
        ``ranker`` (trees grown in memory), else None: the line summary then need not search for h."""
        reader = getattr(self.layout, "value_index", None)
        if reader is None:
            return None
        indices = [reader(ranker, enc) for enc in self.encoded]
        return None if any(i is None for i in indices) else indices

    # ------------------------------------------------------------------
    # The seam
    # ------------------------------------------------------------------
    def refresh_threads(self) -> None:
        """Run the next iteration's kernels on the fit's threads, fewer if other processes took CPUs since it began.

        The objective and the learner read their own ``n_threads`` at each call; the results do not depend on it.
        """
        threads = hold_idle_threads(self.fit_threads)
        if threads != self.n_threads:
            self.n_threads = threads
            if isinstance(getattr(self.layout, "n_threads", None), int):
                self.layout.n_threads = threads
            use = getattr(self.problem, "use_threads", None)      # a plugin's bound form need not have it
            if use is not None:
                use(threads)

    def objective_state(self, *, iteration: bool = True) -> ObjectiveState:
        """Global scalars of the objective at the current scores.

        ``iteration=False``: an evaluation inside an iteration (a tree's leaf steps), which leaves the position
        effects where they are; the driver's once-per-iteration evaluation moves them.
        """
        problem = self.problem
        if problem.separable:
            G = self._next_stages if self._next_stages is not None else problem.reduce(self._blocks())
            self._next_stages = None
            return ObjectiveState(problem.finish(G).value, stages=G)
        if getattr(problem, "learns_position_effects", False):
            # the one evaluation per iteration: the position effects take their step from it (once per tree)
            value, grad, hess = problem.value_gradient_hessian(self._scores)
            if iteration:
                moved = problem.advance(grad, hess)
                if getattr(self.layout, "line_search", True) and problem.objective.has_value:
                    # the line search compares its values with J at the moved effects, not the evaluation's
                    moved_value = problem.value(self._scores)
                    if not self._stepped and (math.isnan(moved_value) or moved_value == math.inf):
                        # before the first tree, a step of a huge learning rate that overflows J is not taken
                        # (the driver would have no finite model to keep): the first tree's step stops the fit
                        problem.undo_advance()
                        return ObjectiveState(float(value), gradient=grad, hessian=hess)
                    return ObjectiveState(float(moved_value), gradient=moved, hessian=hess, model_value=float(value))
                grad = moved
            return ObjectiveState(float(value), gradient=grad, hessian=hess)
        if getattr(self.layout, "multi_pass", False) and getattr(problem, "has_hessian", False):
            # a tree wants the curvature too: one evaluation gives all three (the per-query objectives)
            value, grad, hess = problem.value_gradient_hessian(self._scores)
            return ObjectiveState(float(value), gradient=grad, hessian=hess)
        value, grad = problem.value_and_gradient(self._scores)
        return ObjectiveState(float(value), gradient=grad)

    def value(self, state: ObjectiveState) -> float:
        return state.value

    def learner_statistics(self, state: ObjectiveState) -> np.ndarray:
        """Σ over blocks of the layout's statistics of the block's gradient."""
        total = None
        grads = []
        for s, enc, block in zip(self.slices, self.encoded, self._blocks()):
            if state.stages is not None:
                grad = self.problem.block_gradient(block, state.stages)
            else:
                grad = state.gradient[s]
            check_finite_gradient([grad])
            grads.append(grad)
            part = self.layout.statistics(enc, grad, n_threads=self.n_threads)
            total = part if total is None else total + part
        self._grad_cache = (state, grads)
        return total

    def gradient_and_curvature(self, state: ObjectiveState) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per block: the gradient weights and a positive per-row curvature.

        The curvature is the objective's diagonal Hessian surrogate when it
        has one (``has_hessian``), else the sample weights (gradient leaves).
        """
        problem = self.problem
        curved = bool(getattr(problem, "has_hessian", False))
        grads, hess = [], []
        if state.stages is None and curved:
            whole_h = state.hessian if state.hessian is not None else problem.value_gradient_hessian(self._scores)[2]
        into = curved and state.stages is not None and bool(getattr(problem, "gradient_into", False))
        if into and self._gradient_buffers is None:
            self._gradient_buffers = [(np.empty(s.stop - s.start), np.empty(s.stop - s.start)) for s in self.slices]
        for j, (s, block) in enumerate(zip(self.slices, self._blocks())):
            if state.stages is not None:
                if into:
                    g, h = problem.block_gradient_hessian(block, state.stages, out=self._gradient_buffers[j])
                elif curved:
                    g, h = problem.block_gradient_hessian(block, state.stages)
                else:
                    g, h = problem.block_gradient(block, state.stages), block.weight
            else:
                g = state.gradient[s]
                h = whole_h[s] if curved else block.weight
            grads.append(np.asarray(g, dtype=np.float64))
            hess.append(np.asarray(h, dtype=np.float64))
        return grads, hess

    def learner_search(self, state: ObjectiveState):
        """A multi-pass layout's search (trees): reductions over the blocks until it is done.

        Each pass sends the search's request to every block
        (``layout.block_pass``), adds the blocks' arrays in block order, and
        hands the sum back to the search (``layout.search_in_memory``: a
        layout may take a native route to the same result).
        """
        grads, hess = self.gradient_and_curvature(state)
        check_finite_gradient(grads, hess)
        candidate = self.layout.search_in_memory(self.encoded, grads, hess, n_threads=self.n_threads)
        if candidate is None:
            check_gain_sums(grads)
        self._grad_cache = (state, grads)
        return candidate

    def leaf_newton_steps(self, state: ObjectiveState, ranker: WeakRanker, steps: int) -> WeakRanker:
        """``steps`` more Newton steps on the leaf values of ``ranker`` (a tree just searched), its splits fixed.

        With v the leaf values (``ranker.values``), f the current scores
        and λ the layout's ``l2``, each step evaluates the objective's
        gradient g and curvature h at f + v(x) (the whole step, before the
        learning rate), sums them per leaf over the tree's rows
        (``layout.leaf_rows``: its row sample) into G and H, and sets
        v ← v − (G + λv)/(H + λ): Newton's step on J(f + v) + λ/2·Σv², whose
        first step from v = 0 is the tree's own −G/(H + λ).  A leaf whose H
        falls below the curvature floor its tree was grown with
        (``curvature_floor`` of the layout's ``min_child_weight`` and
        ``curvature_unit`` at the root's H and row count before the steps)
        takes no more steps and keeps its value: the split search admitted
        no leaf that light, and saturated curvatures (init scores far apart)
        would otherwise give it an unbounded −G/H.  A step whose values are
        not finite is not taken (the steps end there).  Returns the tree with
        the new values (``layout.with_leaf_values``), its values on the rows
        kept for :meth:`apply_update`.
        """
        layout = self.layout
        lam = float(layout.l2)
        values = np.asarray(ranker.values, dtype=np.float64)
        k = values.shape[0]
        leaves, sums = [], []
        for enc in self.encoded:
            leaf, kept = layout.leaf_rows(ranker, enc)
            leaves.append(leaf)
            # rows outside the tree's sample add to an extra bin, dropped
            sums.append(leaf if kept is None else np.where(kept, leaf, k))
        # the gradient buffers are overwritten below: the line summary must not read the search's gradient
        self._grad_cache = None
        floor = self._tree_curvature_floor(state, sums, k)
        stepping = np.ones(k, dtype=bool)
        base = self._scores
        trial = np.empty_like(base)
        for _ in range(int(steps)):
            for s, leaf in zip(self.slices, leaves):
                np.add(base[s], values[leaf], out=trial[s])
            self._scores = trial
            try:
                grads, hess = self.gradient_and_curvature(self.objective_state(iteration=False))
            finally:
                self._scores = base
            G, H, _ = _leaf_sums(sums, grads, hess, k)
            stepping &= H >= floor
            denom = H + lam
            with np.errstate(invalid="ignore", divide="ignore"):
                live = stepping & (denom > 0)
                step = np.where(live, -(G + lam * values) / np.where(live, denom, 1.0), 0.0)
            new = values + step
            if not np.all(np.isfinite(new)):
                break
            values = new
        refined = layout.with_leaf_values(ranker, values)
        # h of the refined tree on every row, for apply_update: its leaves' values (no walk of the tree)
        if self._direction_buffers is None:
            self._direction_buffers = [np.empty(s.stop - s.start) for s in self.slices]
        h = [np.take(values, leaf, out=buf) for leaf, buf in zip(leaves, self._direction_buffers)]
        self._h_cache = (refined, h)
        return refined

    def _tree_curvature_floor(self, state: ObjectiveState, sums: list[np.ndarray], k: int) -> float:
        """The curvature floor the search grew the tree with: at the current scores, over its sample's rows."""
        _, hess = self.gradient_and_curvature(state)
        _, H, count = _leaf_sums(sums, None, hess, k)
        rows = float(count.sum())
        if rows <= 0:
            return 0.0
        layout = self.layout
        return curvature_floor(float(getattr(layout, "min_child_weight", 0.0)), float(H.sum()), rows,
                               float(layout.curvature_unit))

    def line_function(self, state: ObjectiveState, ranker: WeakRanker):
        """α ↦ LinePoint along ``ranker`` from the current scores."""
        problem = self.problem
        h = self._directions(ranker)
        if state.stages is None:
            return problem.line(self._scores, np.concatenate(h) if len(h) > 1 else h[0])
        blocks = self._blocks()
        values = ranker.values
        if values is not None:
            vals = np.asarray(values, dtype=np.float64)
            grads = self._grad_cache[1] if self._grad_cache is not None and self._grad_cache[0] is state else None
            indices = self._value_indices(ranker) if getattr(problem, "takes_value_index", False) else None
            parts = [problem.block_line_summary(b, hb, vals, state.stages, None if grads is None else grads[j],
                                                **({} if indices is None else {"value_index": indices[j]}))
                     for j, (b, hb) in enumerate(zip(blocks, h))]
            if all(p is not None for p in parts):
                summary = problem.merge_line_summaries(parts)
                self._summary = (ranker, summary, vals, state.stages)
                line = problem.line_from_summary(summary, vals, state.stages)
                if grads is None:
                    return line

                def from_scores():
                    exact = problem.merge_line_summaries([problem.block_line_summary(b, hb, vals, state.stages)
                                                          for b, hb in zip(blocks, h)])
                    self._summary = (ranker, exact, vals, state.stages)
                    return problem.line_from_summary(exact, vals, state.stages)

                return CheckedLine(line, problem.gradient_summary_step_limit(vals), from_scores)

        def evaluate(alpha: float) -> LinePoint:
            G = problem.reduce(blocks, h, alpha)
            point = problem.finish(G, with_direction=True)
            return LinePoint(alpha, point.value, point.d1, point.d2)

        return evaluate

    def apply_update(self, ranker: WeakRanker, alpha: float) -> None:
        """f ← f + α·h(x), block by block.

        Raises ``FloatingPointError``, the scores unchanged, when a score would overflow (a step of a huge
        learning rate): the driver then stops with ``"overflow"`` and keeps the model before the step.
        """
        directions = self._directions(ranker)
        try:
            add_step([self._scores[s] for s in self.slices], directions, alpha)
        finally:
            self._h_cache = None              # h was scaled in place
        self._stepped = True
        self._grad_cache = None
        if self._summary is not None and self._summary[0] is ranker:
            _, summary, vals, G = self._summary
            self._next_stages = self.problem.stages_after_step(summary, vals, G, alpha)
        self._summary = None

    @property
    def learns_position_effects(self) -> bool:
        """Whether the fit learns position effects beside the trees (each evaluation of the driver moves them)."""
        return bool(getattr(self.problem, "learns_position_effects", False))

    def take_back(self, ranker: WeakRanker, alpha: float) -> None:
        """Undo the last :meth:`apply_update` (f ← f − α·h) and the position effects' step of the evaluation after it.

        The driver's ``"diverged"`` stop: the step raised J above its start, and the fit ends at the model before
        it.  The scores come back to rounding (f + α·h − α·h); the fit stops here, so nothing is computed from them.
        """
        if self.learns_position_effects:
            self.problem.undo_advance()
        self._h_cache = None
        directions = self._directions(ranker)
        try:
            add_step([self._scores[s] for s in self.slices], directions, -alpha)
        finally:
            self._h_cache = None
        self._grad_cache = None
        self._next_stages = None
        self._summary = None


def _max_abs(x: np.ndarray) -> float:
    """max |x| (0 when empty; inf or NaN when ``x`` holds them), without a copy."""
    return max(float(x.max()), -float(x.min())) if x.size else 0.0


def add_step(scores: Sequence[np.ndarray], directions: Sequence[np.ndarray], alpha: float) -> None:
    """f ← f + α·h for each block's scores and direction (h is scaled in place: it is not needed after).

    Raises ``FloatingPointError``, every block's scores unchanged, when a score would overflow float64 (a
    step of a huge learning rate): the boosting driver then stops with ``"overflow"``, its model the one
    before the step.  The check is two reductions per block, |f| + |α h| below the largest double;
    only beyond it are the sums formed (one temporary per block).  O(rows).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        for h in directions:
            h *= alpha
        if not all(math.isfinite(_max_abs(f) + _max_abs(h)) for f, h in zip(scores, directions)) and not all(
                np.isfinite(f + h).all() for f, h in zip(scores, directions)):
            raise FloatingPointError(f"the step alpha = {alpha:.6g} along the weak ranker makes a training score "
                                     "overflow float64")
    for f, h in zip(scores, directions):
        f += h


def check_finite_gradient(grads: Sequence[np.ndarray], hess: Sequence[np.ndarray] = ()) -> None:
    """Raise ``FloatingPointError`` when a gradient weight or a curvature the learner would sum is not finite.

    A learner's search counts non-finite gains as none, so it would find no weak ranker and the fit would
    end as converged; the driver stops with ``"overflow"`` instead (scores pushed so far apart that the
    objective's sums overflow: a huge learning rate).  O(rows), no copy.
    """
    for name, parts in (("gradient", grads), ("curvature", hess)):
        for part in parts:
            if not math.isfinite(_max_abs(part)):
                raise FloatingPointError(f"the objective's {name} at the current scores is not finite (scores so far "
                                         "apart that its sums overflow or keep no digit)")


#: sqrt of the largest double: a node's gradient sum G at or beyond it overflows the split gain G²/(H + λ).
_GAIN_SUM_LIMIT = math.sqrt(np.finfo(np.float64).max)


def check_gain_sums(grads: Sequence[np.ndarray]) -> None:
    """After a tree search that found no split: raise ``FloatingPointError`` when a node's gradient sum can square
    past the largest double (its positive or its negative part at sqrt(DBL_MAX) or more).

    The search counts an overflowed gain as none, so finite but huge gradient weights (a position effect moved
    by a huge learning rate, sample weights near 1e300) would end the fit as ``"no_split"``; the driver stops
    with ``"overflow"`` instead, naming the sums.  Asked only of an empty search: O(rows), no copy.
    """
    check_sign_sums([sign_sums(g) for g in grads])


def sign_sums(g: np.ndarray) -> tuple[float, float]:
    """(Σ of the positive weights, −Σ of the negative ones) of one block's gradient: O(rows), no copy."""
    with np.errstate(over="ignore"):
        return float(np.sum(g, where=g > 0)), -float(np.sum(g, where=g < 0))


def check_sign_sums(parts: Sequence[tuple[float, float]]) -> None:
    """:func:`check_gain_sums` from each block's :func:`sign_sums`, added in block order.

    The gains overflow on the sums over every row (the root's, and a node's holding the rows of one sign), not on
    a block's: a backend whose blocks are elsewhere (Dask's shards) gathers the blocks' pairs and checks them here.
    """
    up = down = 0.0
    for block_up, block_down in parts:
        up += block_up
        down += block_down
    if max(up, down) >= _GAIN_SUM_LIMIT:
        raise FloatingPointError(f"the gradient weights sum to {max(up, down):.3g} over the rows of one sign, "
                                 "so the trees' split gains G²/(H + λ) overflow float64 and no split counts (sample "
                                 "weights or scores too large)")


def _leaf_sums(sums: list[np.ndarray], grads: list[np.ndarray] | None, hess: list[np.ndarray], k: int):
    """(G, H, rows) per leaf of a tree of ``k`` leaves: ``sums`` holds each block's rows' leaves, k for a row
    outside the tree's sample (dropped); ``grads`` None: G is not summed (zeros)."""
    G, H, count = np.zeros(k + 1), np.zeros(k + 1), np.zeros(k + 1)
    for j, (index, h) in enumerate(zip(sums, hess)):
        if grads is not None:
            G += np.bincount(index, weights=grads[j], minlength=k + 1)
        H += np.bincount(index, weights=h, minlength=k + 1)
        count += np.bincount(index, minlength=k + 1)
    return G[:k], H[:k], count[:k]
