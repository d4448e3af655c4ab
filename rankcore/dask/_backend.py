"""The Dask backend: the push driver's seam implemented over blocks held by worker actors.

The driver (:func:`rankcore.push._driver.run_boosting`) is reused unchanged;
it asks a backend for the objective's global scalars, the learner's summed
statistics, a line function along the chosen weak ranker, and to apply the
update (``rankcore/push/_backend.py``).  Here the rows are chunks of a Dask
collection, encoded once into :class:`~rankcore.dask._shard.Block` objects
that stay on the worker holding them, inside one
:class:`~rankcore.dask._shard.Shard` actor per worker.  The client holds the
objective bound to placeholder labels (a separable objective's merges read
only merged partials) and the learner layout; it calls every shard at once
and merges what they return.

Three ways to run an iteration, chosen by :func:`backend_kind` from what the
components declare (never from their classes):

*Fast path* -- a separable objective whose line summary follows from the
per-class gradient sums (``has_abs_sum_summary``: the exponential loss with a
homogeneous price, ``identity`` or ``pow:p``) and a learner layout of binned
threshold rankers (``threshold_histograms``: ``stumps``, ``thresholds``):
**one round trip per iteration**.  The call carries the pending update; each shard
applies it, computes every row's gradient from the merged scalars (two
log-sum-exps A, B), and returns the per-class histograms of the gradient
per feature and bin, (d, B, 2) float64 -- 16 bytes per (feature, bin) per
worker.  The client adds them; the two classes added are the learner's
statistics; the prefix and suffix sums of the chosen feature's two class
histograms are the four numbers the line search needs; and the objective's
``stages_after_step`` gives the next iteration's A and B from those four
numbers.  No other pass.

*Separable path* -- any other :class:`~rankcore.objectives.BoundSeparable`
(other prices such as ``exp:β``, ``mp-squared``) or learner (``features``,
``trees``, a plugin's):
the objective's own block protocol, one round trip per reduction stage, one
for the statistics, one for the line summary when the ranker takes few
values, and one per line-search evaluation otherwise.

*Pairwise fallback* -- an objective that declares ``sum_over_negatives`` (the
push objective with a loss that does not factorize: ``hinge``, ``sqhinge``,
``logistic``, third-party losses): exact, by
broadcasting the positives.  The positives' scores are gathered (O(I)) and
sent to every shard, which evaluates the loss's exact pairwise sums between
*all* positives and its *own* negatives with the in-memory code; since
R = Σ_k v_k g(L_k) is a sum over negatives, R = Σ_s R_s over shards, and the
gradient and line derivatives combine with weights R_s/R.  Costs O(I)
memory and traffic per worker per round and four round trips plus one per
line evaluation per iteration; it suits the top-of-list setting where
positives are few.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._vector import dot as _dot
from ..objectives import CheckedLine, LinePoint
from ..push import ObjectiveState, check_sign_sums
from ..validation import ArgumentRefusal

__all__ = ["DaskBackend", "PairwiseDaskBackend", "make_backend", "backend_kind", "pairwise_trees_refusal"]


def backend_kind(problem, layout) -> str:
    """``"fast"``, ``"separable"`` or ``"pairwise"`` for a bound objective and a layout; ValueError if none fits.

    Read from declarations only: the objective's ``separable`` and
    ``has_abs_sum_summary``, its component's ``sum_over_negatives``, the
    layout's ``threshold_histograms`` and ``multi_pass`` (``layout`` may be
    None before the learner is prepared).
    """
    if problem.separable:
        histograms = bool(getattr(layout, "threshold_histograms", False)) and not getattr(layout, "multi_pass", False)
        return "fast" if histograms and problem.has_abs_sum_summary else "separable"
    objective = problem.objective
    if objective.sum_over_negatives and objective.log_value and objective.task == "bipartite":
        return "pairwise"
    raise ValueError(
        f"objective {objective.spec!r} cannot be boosted on Dask: it is not separable into row blocks "
        "(a BoundSeparable), and it does not declare sum_over_negatives (a log-sum over the negatives, "
        "as the push objective's pairwise sums are) -- its value needs the order of the whole list at once "
        "(as the precision@k surrogates do); fit it in memory"
    )


class _RankerNumbers:
    """The client's numbering of weak rankers, and the one whose h the shards hold.

    Every shard keeps the h of the last weak ranker it was sent, under the
    ranker's number (``Shard._directions``).  A message about a ranker
    carries ``(number, ranker)`` the first time and ``(number, None)`` once
    the shards hold it: the update after a line summary or a line search
    refers to the tree instead of sending it again.  The ranker is
    recognised by identity (the driver updates with the object it searched
    the line along); any other object gets a new number and travels whole,
    so a reference is never wrong, only sometimes not used.  Numbers start
    at 1 and never repeat within a fit.  No update is pending when a line
    call goes out (the line is taken at the current scores), so the h a
    line call leaves on the shards is still there for the update; a shard
    asked for a number it does not hold refuses.
    """

    def __init__(self):
        self._count = 0
        self._held = None               # (ranker, number) whose h every shard holds

    def message(self, ranker) -> tuple[int, object]:
        """``(number, ranker or None)`` to send; the shards hold the ranker's h once the call returns."""
        if self._held is not None and self._held[0] is ranker:
            return self._held[1], None
        self._count += 1
        return self._count, ranker

    def next_number(self) -> int:
        """A number for a ranker not known yet (the lead's tree)."""
        self._count += 1
        return self._count

    def hold(self, ranker, number: int) -> None:
        """Every shard now holds ``ranker``'s h under ``number``."""
        self._held = (ranker, int(number))

    def update(self, ranker, alpha: float) -> tuple[int, object, float]:
        """The update message ``(number, ranker or None, α)``; applying it drops the shards' h."""
        number, sent = self.message(ranker)
        self._held = None
        return number, sent, float(alpha)


class _ShardCaller:
    """Calls every shard at once and waits for all of them.

    A shard's worker lost during the fit (its process killed, its machine
    gone) takes the blocks it held with it: Dask actors are not resilient,
    and Dask reports the lost worker as an ``OSError`` when the call cannot
    reach it.  That becomes a ``RuntimeError`` saying so.
    """

    def __init__(self, shards):
        self.shards = list(shards)

    def call(self, method: str, *args):
        return self._wait(method, [getattr(shard, method)(*args) for shard in self.shards])

    def call_each(self, method: str, per_shard_args):
        return self._wait(method, [getattr(shard, method)(*args) for shard, args in zip(self.shards, per_shard_args)])

    @staticmethod
    def _wait(method: str, futures):
        try:
            return [f.result() for f in futures]
        except OSError as exc:
            raise RuntimeError(
                f"a Dask worker holding training rows was lost during the fit ({method}: {exc}); the encoded "
                "blocks and scores it held are gone (the shards are Dask actors, which are not resilient): "
                "fit again"
            ) from exc


class DaskBackend(_ShardCaller):
    """Backend seam for separable objectives over :class:`Shard` actors (fast or separable path).

    ``lead_searches`` (class attribute, default True): a ``remote_search``
    layout is searched by the first shard, one round trip per tree; False
    runs the search on the client, one round trip per pass (the same trees).
    ``direct_channels`` (class attribute, default False): True has the
    first shard call the others over direct channels on Dask's comm layer
    (``rankcore.dask._channel``: the workers' scheme and security settings)
    where their workers can open one, instead of Dask's actor messages (the
    same trees; measured only 5-9 % less worker CPU, so not the default).

    Parameters
    ----------
    shards : list of distributed Actor proxies of :class:`~rankcore.dask._shard.Shard`
    problem : BoundSeparable
        The objective bound to placeholder labels (client side).
    layout : LearnerLayout
    fast : bool
        Use the per-class histogram path (see the module docs).
    effects : PlaceEffects, optional
        The position effects of a fit given ``position`` (separable path):
        each :meth:`objective_state` evaluates at f + b[place] (b from their
        ``start`` on), the shards return their place sums, the client steps b
        and the tree is grown from the gradient moved to the new b
        (:meth:`_state_with_effects`).
    """

    lead_searches = True
    direct_channels = False

    def __init__(self, shards, problem, layout, *, fast: bool, addresses=None, effects=None):
        super().__init__(shards)
        if effects is not None and fast:
            raise ArgumentRefusal.said("position", "the fast path has no position effects")
        self.effects = effects
        self.addresses = list(addresses) if addresses is not None else None      # each shard's worker
        self.problem = problem
        self.layout = layout
        self.fast = bool(fast)
        self.round_trips = 0
        self._pending = None            # (number, ranker or None, alpha) not yet applied on the workers
        self._rankers = _RankerNumbers()
        self._next_stages = None        # G after the last step, from the line summary
        self._summary = None            # (ranker, summary, values, G) of the last line
        self._hist = None               # fast path: (state, (d, B, 2) per-class histograms)
        self._token = 0
        self.passes = 0                 # passes of the trees' searches run by the first shard (between workers)
        self._leading = False           # the first shard holds the others' actors (``Shard.lead``)
        self._stepped = False           # a weak ranker's step was applied (an effects' step is taken back before)
        if effects is not None and effects.start.any():
            from ._shard import EffectsUpdate

            # b starts at a continuation's effects (its init model's): the first call moves the shards' b there
            self._pending = EffectsUpdate(effects.start.copy(), np.zeros_like(effects.start))

    # ------------------------------------------------------------------
    def call(self, method, *args):
        self.round_trips += 1
        return super().call(method, *args)

    def _take_update(self):
        update, self._pending = self._pending, None
        return update

    # ------------------------------------------------------------------
    # The seam
    # ------------------------------------------------------------------
    def objective_state(self) -> ObjectiveState:
        problem = self.problem
        if self.effects is not None:
            return self._state_with_effects()
        if self._next_stages is not None:
            G = self._next_stages
            self._next_stages = None
        else:
            G = []
            for stage in range(problem.n_stages):
                parts = self.call("partials", self._take_update(), stage, G)
                G.append(problem.merge_partials(stage, parts))
        self._token += 1
        return ObjectiveState(problem.finish(G).value, stages=G)

    def _state_with_effects(self) -> ObjectiveState:
        """The objective at f + b[place] and the effects' step, as the in-memory backend takes it once an iteration.

        The stages' round trips as without positions, the last one returning
        each shard's place sums Σg, Σh when the objective's gradient does not
        read the merged stages (``gradient_reads_stages`` False: lambdarank,
        yetirank, xendcg), else one more round trip for them (the push: each
        query block's gradient is scaled by the merged value).  The client
        steps b from their sum (:class:`~rankcore.dask._positions.PlaceEffects`);
        the new b and the step travel with the next call
        (:class:`~rankcore.dask._shard.EffectsUpdate`), where the shards move
        the kept gradient to it.  With a line search on an objective with a
        value, J is evaluated again at the new b (its stages' round trips), as
        in memory; before the first tree, an effects' step after which that J is NaN or +inf (a huge learning
        rate) is taken back (:meth:`_step_back`), as in memory: the driver needs a finite J to start from, and
        the first tree's step then stops the fit with ``"overflow"``.
        """
        from ._shard import EffectsUpdate

        problem, token, n_places = self.problem, self._token + 1, self.effects.n_places
        self._next_stages = None
        together = not getattr(problem, "gradient_reads_stages", True)
        G, sums = [], None
        for stage in range(problem.n_stages):
            if together and stage == problem.n_stages - 1:
                replies = self.call("place_partials", self._take_update(), stage, G, token, n_places)
                parts, sums = [r[0] for r in replies], [r[1] for r in replies]
            else:
                parts = self.call("partials", self._take_update(), stage, G)
            G.append(problem.merge_partials(stage, parts))
        if sums is None:
            sums = self.call("place_sums", self._take_update(), G, token, n_places)
        self._token = token
        total = sums[0].copy()
        for part in sums[1:]:
            total += part                       # in shard order
        delta = self.effects.step(total)
        if delta is None:
            return ObjectiveState(problem.finish(G).value, stages=G)
        self._pending = EffectsUpdate(self.effects.effects.copy(), delta)
        if getattr(self.layout, "line_search", True) and problem.has_value:
            # the line search compares its values with J at the moved effects, as in memory
            moved = []
            for stage in range(problem.n_stages):
                moved.append(problem.merge_partials(stage, self.call("partials", self._take_update(), stage, moved)))
            value = problem.finish(moved).value
            if self._stepped or not (math.isnan(value) or value == math.inf):
                return ObjectiveState(value, stages=moved, model_value=problem.finish(G).value)
            self._step_back()
        return ObjectiveState(problem.finish(G).value, stages=G)

    def _step_back(self) -> None:
        """Take back the effects' step just taken (``PositionEffects.undo_advance`` in memory): b as before it on
        the client, and on the shards with the next call (an :class:`EffectsUpdate` without a step: each drops
        the gradient the step moved and computes it again at the old b when the search reads it)."""
        from ._shard import EffectsUpdate

        self.effects.undo_step()
        self._pending = EffectsUpdate(self.effects.effects.copy(), None)

    def value(self, state: ObjectiveState) -> float:
        return state.value

    @property
    def learns_position_effects(self) -> bool:
        """Whether the fit learns position effects beside the trees (each evaluation of the driver moves them)."""
        return self.effects is not None

    def take_back(self, ranker, alpha: float) -> None:
        """Undo the last :meth:`apply_update` and the position effects' step of the evaluation after it (the driver's
        ``"diverged"`` stop), on the client and the shards, as the in-memory backend does.

        A step still pending (J after it came from the line summary, with no round trip) is dropped: the shards
        never applied it.  Otherwise the effects' step is taken back (:meth:`_step_back`) and the shards apply
        −α·h (the ranker travels again: applying the step dropped its h), at once.
        """
        if self._pending is not None and not getattr(self._pending, "moves_effects", False):
            self._pending = None
        else:
            if self.effects is not None:
                self._step_back()
            self.apply_update(ranker, -alpha)
            self.flush()
        self._next_stages = None
        self._summary = None
        self._hist = None

    def learner_statistics(self, state: ObjectiveState) -> np.ndarray:
        if self.fast:
            parts = self.call("class_histograms", self._take_update(), state.stages, self.layout.n_bins)
            hist = parts[0]
            for part in parts[1:]:
                hist = hist + part
            self._hist = (state, hist)
            return hist[:, :, 0] + hist[:, :, 1]
        parts = self.call("statistics", self._take_update(), state.stages, self._token)
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return total

    def learner_search(self, state: ObjectiveState):
        """A multi-pass layout's search (trees): one round trip per tree, or per pass.

        A layout declaring ``remote_search`` is searched by the first shard
        (:meth:`_lead_search`): one round trip per tree.  Otherwise the
        client runs the search, one round trip per pass: the root, then one
        per level (``growth="depthwise"`` and ``"oblivious"``), or, leaf-wise,
        one per batch of leaves split ahead
        (:class:`~rankcore.learners.trees._search.BatchedTreeSearch`).

        The first pass applies the pending update and computes the gradient
        and curvature on the workers; every pass returns each shard's summed
        histograms, added in shard order.  A search that finds no split asks
        the shards for their gradient's sums of each sign (the lead gathers
        them with the search): at the gain limit the fit stops with
        ``"overflow"``, as in memory (``check_gain_sums``), not ``"no_split"``.
        """
        batched = bool(getattr(self.layout, "batched_search", False))
        if self.lead_searches and self.addresses is not None and getattr(self.layout, "remote_search", False):
            return self._lead_search(state, batched)
        search = self.layout.begin_search(batched=True) if batched else self.layout.begin_search()
        first = True
        while (request := search.next_request()) is not None:
            if first:
                parts = self.call("tree_pass", self._take_update(), state.stages, self._token, request)
                first = False
            else:
                parts = self.call("tree_pass", None, None, None, request)
            total = None
            for part in parts:
                if part is not None:
                    total = part if total is None else total + part
            search.receive(total)
        candidate = search.result()
        if candidate is None:                 # (one more round trip, only after an empty search)
            check_sign_sums([pair for part in self.call("gain_sums", self._token) for pair in part])
        return candidate

    def _lead_search(self, state: ObjectiveState, batched: bool):
        """The whole search on the first shard (``rankcore.dask._lead``), the line summary with it."""
        if not self._leading:
            peers = [(address, shard.key) for address, shard in zip(self.addresses[1:], self.shards[1:])]
            self.call_lead("lead", peers, self.direct_channels)
            self._leading = True
        # the driver searches the line (line_function asks the shards for the same summary); without a
        # line search the next objective state is recomputed from the scores, as in memory
        summarize = bool(getattr(self.problem, "has_line_summary", True)) and getattr(self.layout, "line_search", True)
        outcome = self.call_lead("grow_tree", self._take_update(), state.stages, self._token,
                                 self.layout.draw_search(), batched, summarize, self._rankers.next_number())
        self.passes += outcome.passes
        self.layout.adopt_no_candidate_reason(outcome.reason)
        candidate = outcome.candidate
        if outcome.sign_sums is not None:     # an empty search: the gradient sums past the gain limit overflow
            check_sign_sums(outcome.sign_sums)
        if outcome.held is not None:
            self._rankers.hold(candidate.ranker, outcome.held)
        if outcome.line_summaries is not None:
            values = np.asarray(candidate.ranker.values, dtype=np.float64)
            summary = self.problem.merge_line_summaries(outcome.line_summaries)
            self._summary = (candidate.ranker, summary, values, state.stages)
        return candidate

    def call_lead(self, method: str, *args):
        """``method(*args)`` on the first shard only (one round trip)."""
        self.round_trips += 1
        return self._wait(method, [getattr(self.shards[0], method)(*args)])[0]

    def line_function(self, state: ObjectiveState, ranker):
        problem = self.problem
        G = state.stages
        if self._summary is not None and self._summary[0] is ranker and self._summary[3] is G:
            _, summary, values, _ = self._summary
            return self._checked_line(summary, ranker, values, G)
        if self.effects is not None:
            self.flush()                        # the line calls carry no update: the new effects go first
        if ranker.values is not None:
            values = np.asarray(ranker.values, dtype=np.float64)
            summary = None
            if self.fast and self._hist is not None and self._hist[0] is state:
                summary = problem.summary_from_abs_sums(self._threshold_sums(ranker), G)
            elif not self.fast and getattr(problem, "has_line_summary", True):   # a round trip only if it can answer
                number, sent = self._rankers.message(ranker)
                parts = self.call("line_summary", number, sent, values, G, self._token)
                self._rankers.hold(ranker, number)
                if all(p is not None for p in parts):
                    summary = problem.merge_line_summaries(parts)
            if summary is not None:
                self._summary = (ranker, summary, values, G)
                return self._checked_line(summary, ranker, values, G)

        def evaluate(alpha: float) -> LinePoint:
            G_alpha = []
            for stage in range(problem.n_stages):
                number, sent = self._rankers.message(ranker)       # the tree travels with the first call only
                parts = self.call("line_partials", number, sent, stage, G_alpha, alpha)
                self._rankers.hold(ranker, number)
                G_alpha.append(problem.merge_partials(stage, parts))
            point = problem.finish(G_alpha, with_direction=True)
            return LinePoint(alpha, point.value, point.d1, point.d2)

        return evaluate

    def _checked_line(self, summary, ranker, values, G):
        """The line of a summary the shards built from their gradients, built again from the scores (one more
        round trip) only if its minimizer is a step beyond what such a summary gives exactly (``CheckedLine``)."""
        problem = self.problem

        def from_scores():
            self.flush()
            number, sent = self._rankers.message(ranker)
            parts = self.call("line_summary", number, sent, values, G, None)     # no token: not from the gradient
            self._rankers.hold(ranker, number)
            exact = problem.merge_line_summaries(parts)
            self._summary = (ranker, exact, values, G)
            return problem.line_from_summary(exact, values, G)

        return CheckedLine(problem.line_from_summary(summary, values, G),
                           problem.gradient_summary_step_limit(values), from_scores)

    def _threshold_sums(self, ranker) -> np.ndarray:
        """(2, 2) Σ|g| for h = 0 / h = 1 (rows) of positives / negatives (columns), from the histograms."""
        hist = self._hist[1][ranker.feature]              # (B, 2): [:, 1] positives, [:, 0] negatives
        b = self.layout.bin_of(ranker)                    # h = 1 ⇔ code > b
        low = hist[: b + 1].sum(axis=0)
        high = hist[b + 1:].sum(axis=0)
        return np.abs(np.array([[low[1], low[0]], [high[1], high[0]]]))

    def apply_update(self, ranker, alpha: float) -> None:
        if self._pending is not None:             # never two updates in flight: flush the older one
            self.call("apply", self._take_update())
        self._pending = self._rankers.update(ranker, alpha)
        self._stepped = True
        self._hist = None
        if self._summary is not None and self._summary[0] is ranker:
            _, summary, values, G = self._summary
            self._next_stages = self.problem.stages_after_step(summary, values, G, alpha)
        self._summary = None

    # ------------------------------------------------------------------
    def flush(self) -> None:
        """Apply a pending update on the workers."""
        if self._pending is not None:
            self.call("apply", self._take_update())

    def effects_after(self, n_trees: int) -> np.ndarray:
        """The position effects the ``n_trees``-th tree was grown with (a fit given ``position``)."""
        return self.effects.effects_after(n_trees)

    def training_scores(self) -> list[tuple[int, np.ndarray]]:
        """(chunk index, scores) of every chunk, in chunk order (gathers O(n): for tests and small data)."""
        parts = self.call("training_scores", self._take_update())
        return sorted((item for part in parts for item in part), key=lambda item: item[0])


@dataclass
class _PairwiseState:
    """The pairwise fallback's objective state: J, the shards' weights R_s/R, the positives' gradient."""

    value: float
    scales: np.ndarray
    g_pos: np.ndarray


class PairwiseDaskBackend(_ShardCaller):
    """Backend seam for the push objective with a non-factorizing loss (positives broadcast; exact)."""

    def __init__(self, shards, problem, layout):
        super().__init__(shards)
        self.problem = problem
        self.layout = layout
        self.round_trips = 0
        self._pending = None
        self._rankers = _RankerNumbers()
        self._pos_counts: list[int] = []

    def call(self, method, *args):
        self.round_trips += 1
        return super().call(method, *args)

    def call_each(self, method, per_shard_args):
        self.round_trips += 1
        return super().call_each(method, per_shard_args)

    def _take_update(self):
        update, self._pending = self._pending, None
        return update

    def _offsets(self):
        return np.r_[0, np.cumsum(self._pos_counts)].astype(np.int64)

    def objective_state(self) -> _PairwiseState:
        parts = self.call("positive_scores", self._take_update())
        self._pos_counts = [int(f.shape[0]) for f, _ in parts]
        f_pos = np.concatenate([f for f, _ in parts])
        w_pos = np.concatenate([w for _, w in parts])
        results = self.call("pairwise_gradient", f_pos, w_pos)
        values = np.array([v for v, _ in results])
        value = float(np.logaddexp.reduce(values))
        if not math.isfinite(value):
            return _PairwiseState(value, np.zeros(len(results)), np.zeros(f_pos.shape[0]))
        scales = np.exp(values - value)                   # R_s / R
        g_pos = np.zeros(f_pos.shape[0])
        for scale, (_, g) in zip(scales, results):
            if scale > 0:
                g_pos += scale * g
        return _PairwiseState(value, scales, g_pos)

    def value(self, state: _PairwiseState) -> float:
        return state.value

    def learner_statistics(self, state: _PairwiseState) -> np.ndarray:
        off = self._offsets()
        args = [(float(state.scales[s]), state.g_pos[off[s]:off[s + 1]]) for s in range(len(self.shards))]
        parts = self.call_each("pairwise_statistics", args)
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return total

    def line_function(self, state: _PairwiseState, ranker):
        number, sent = self._rankers.message(ranker)
        h_pos = np.concatenate(self.call("positive_directions", number, sent))
        self._rankers.hold(ranker, number)
        first = [True]

        def evaluate(alpha: float) -> LinePoint:
            sent = h_pos if first[0] else None
            first[0] = False
            results = self.call("pairwise_line", number, None, sent, alpha)
            values = np.array([r[0] for r in results])
            value = float(np.logaddexp.reduce(values))
            if not math.isfinite(value):
                return LinePoint(alpha, value, 0.0, 0.0)
            w = np.exp(values - value)
            live = w > 0
            d1s = np.array([r[1] for r in results])[live]
            d2s = np.array([r[2] for r in results])[live]
            w = w[live]
            d1 = float(_dot(w, d1s))
            d2 = float(_dot(w, d2s + d1s * d1s)) - d1 * d1 if np.isfinite(d2s).all() else math.nan
            return LinePoint(alpha, value, d1, d2)

        return evaluate

    def apply_update(self, ranker, alpha: float) -> None:
        if self._pending is not None:
            self.call("apply", self._take_update())
        self._pending = self._rankers.update(ranker, alpha)

    def take_back(self, ranker, alpha: float) -> None:
        """Undo the last :meth:`apply_update` on the shards (the driver's ``"diverged"`` stop)."""
        self.apply_update(ranker, -alpha)
        self.flush()

    def flush(self) -> None:
        if self._pending is not None:
            self.call("apply", self._take_update())

    def training_scores(self):
        parts = self.call("training_scores", self._take_update())
        return sorted((item for part in parts for item in part), key=lambda item: item[0])


def pairwise_trees_refusal(objective) -> ValueError:
    """The error for a multi-pass learner (trees) on the pairwise path, which searches single-pass learners only."""
    return ValueError(f"learner with a multi-pass search (trees) and objective {objective.spec!r}: the pairwise Dask "
                      "path searches single-pass learners only; use a separable objective (exp loss) or fit in memory")


def make_backend(shards, problem, layout, *, kind: str | None = None, addresses=None, effects=None):
    """The backend for a bound objective and a layout (``kind`` forces one; see :func:`backend_kind`).

    ``addresses``: each shard's worker, which lets the trees' searches run on the first shard; ``effects``: the
    position effects of a fit given ``position`` (:class:`DaskBackend`).
    """
    kind = kind or backend_kind(problem, layout)
    if kind == "pairwise" and getattr(layout, "multi_pass", False):
        raise pairwise_trees_refusal(problem.objective)
    if kind == "pairwise":
        return PairwiseDaskBackend(shards, problem, layout)
    return DaskBackend(shards, problem, layout, fast=kind == "fast" and effects is None, addresses=addresses,
                       effects=effects)
