"""Worker side of the Dask backend: one actor per worker holding that worker's blocks of rows.

A :class:`Block` is one chunk of the training data in the form boosting
reads it: the learner's encoding (bin codes for threshold learners), the
labels, the weights and the current scores.  Blocks are built where their
chunk lives (:func:`encode_chunk`, a normal Dask task), then handed to the
:class:`Shard` actor of that worker, which keeps them for the whole fit:
scores and codes never move.  Every method of the shard does one thing to
all of its blocks and returns something of size O(features × bins) (or, in
the pairwise fallback, O(positives)), already merged over its blocks.

Updates are *carried* by the next call: the client sends the pending
update with whatever it asks next, and the shard applies f ← f + α·h
before doing it, so an iteration costs one round trip on the fast path.

Weak rankers are numbered.  A message about a ranker carries
``(number, ranker)`` the first time the shards see it and ``(number,
None)`` after that: the shard keeps the last ranker's h = its values on
every row under its number (:meth:`Shard._directions`), so the line
summary's or the line search's h is the update's, computed once per tree,
and the tree travels to each shard once.  An update is ``(number, ranker or
None, α)``.  A message naming a number the shard does not hold without the
ranker is refused with a ``RuntimeError`` (never another h applied).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..objectives import BoundQueryBlocks, RowBlock
from ..push import add_step, check_finite_gradient, sign_sums
from ..validation import shown_type
from ._malloc import keep_pages, release_pages
from ._prepare import check_chunk
from ._workers import worker_info

#: Seconds :meth:`ShardSet.close` waits for the lead to close its channels.
CLOSE_TIMEOUT = 10.0

__all__ = ["Block", "block_problem", "EffectsUpdate", "Shard", "encode_chunk", "with_places", "with_init",
           "placeholder_labels", "contiguous_shares", "place_shares",
           "start_shards"]


def block_problem(objective, task: str, within_queries: bool, *, n_threads: int = 1, random_state=None):
    """The objective's form on the chunks: its own form on blocks (``bind_blocks``: an objective that judges each
    row alone, cross-entropy, on one list or within queries alike), else within queries the blocks of whole queries
    (:class:`~rankcore.objectives.BoundQueryBlocks`), else its binding to placeholder labels."""
    if getattr(objective, "bind_blocks", None) is not None:
        return objective.bind_blocks(n_threads=n_threads)
    if within_queries:
        return BoundQueryBlocks(objective, n_threads=n_threads, random_state=random_state)
    return objective.bind(placeholder_labels(task), None, n_threads=n_threads)


def placeholder_labels(task: str) -> np.ndarray:
    """Labels to bind a *separable* objective to where no rows are at hand.

    A :class:`~rankcore.objectives.BoundSeparable`'s block methods take
    each block's rows explicitly and its merges and ``finish`` read only the
    merged partials, so the binding's own labels are never read by them; the
    client and the shards bind to this two-row placeholder.
    """
    return np.array([0.0, 1.0]) if task == "graded" else np.array([0, 1], dtype=np.int8)


@dataclass
class Block:
    """One chunk of training rows, encoded (worker memory: d + 17 bytes per row with uint8 codes).

    Bipartite blocks keep their rows sorted by label, negatives first
    (``n_neg`` of them): the per-class histogram kernel then knows a row's
    class from its position.  ``order`` maps the stored rows back to the
    chunk's (None when they are in chunk order).  ``queries``: the rows'
    queries when the fit ranks within queries (graded blocks, in chunk order);
    ``offset``: the position of its first row in the training set (graded blocks);
    ``places``: each row's display position as an index into the fit's
    distinct places, when the fit learns position effects (in chunk order).
    """

    index: int
    codes: Any
    y: np.ndarray
    weight: np.ndarray
    scores: np.ndarray
    n_neg: int | None = None
    order: np.ndarray | None = None
    queries: Any = None
    offset: int = 0
    places: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.scores.shape[0])

    def row_block(self) -> RowBlock:
        return RowBlock(self.y, self.weight, self.scores, self.queries, self.offset)

    def scores_in_chunk_order(self) -> np.ndarray:
        if self.order is None:
            return self.scores.copy()
        out = np.empty_like(self.scores)
        out[self.order] = self.scores
        return out


def _encode(layout, X, offset, order):
    """The layout's encoding of a chunk; a multi-pass layout (trees) also gets the rows' positions."""
    if not getattr(layout, "multi_pass", False):
        return layout.encode(X)
    if order is None:
        return layout.encode(X, offset=offset)
    return layout.encode(X, row_ids=offset + np.asarray(order, dtype=np.int64))


def encode_chunk(i, X, y, w, layout, classes, task, offsets=None) -> Block:
    """Chunk i as a :class:`Block`: labels as the objective takes them, codes by the layout, zero scores.

    ``offsets[i]`` is the position of the chunk's first row in the training set.
    """
    X, y, w = check_chunk(i, X, y, w, task=task)
    n = X.shape[0]
    offset = 0 if offsets is None else int(offsets[i])
    weight = np.ones(n) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    if task == "graded":
        return Block(int(i), _encode(layout, X, offset, None), np.ascontiguousarray(y, dtype=np.float64), weight,
                     np.zeros(n), offset=offset)
    labels = (y == classes[1]).astype(np.int8)
    n_neg = int(n - np.count_nonzero(labels))
    order = None
    if np.any(labels[:n_neg]):                       # not already negatives first: sort the rows by label
        order = np.argsort(labels, kind="stable")
        X, labels, weight = X[order], labels[order], weight[order]
    return Block(int(i), _encode(layout, X, offset, order), labels, weight, np.zeros(n), n_neg, order)


def with_queries(block: Block, codes) -> Block:
    """``block`` with its rows' queries (a fit within queries: its chunk holds whole queries)."""
    from ..metrics import check_qid

    codes = np.asarray(codes)
    block.queries = check_qid(codes, codes.shape[0])
    return block


def with_places(block: Block, codes) -> Block:
    """``block`` with its rows' display position codes (a fit given ``position``)."""
    block.places = np.ascontiguousarray(codes, dtype=np.intp)
    return block


def with_init(block: Block, init) -> Block:
    """``block`` with its scores starting at its rows' initial scores (``init_score``, in chunk order) instead of 0."""
    init = np.asarray(init, dtype=np.float64)
    block.scores = np.array(init if block.order is None else init[block.order], dtype=np.float64)
    return block


@dataclass(frozen=True)
class EffectsUpdate:
    """A carried message that moves the position effects: b ← ``effects``, the step just taken being ``delta``.

    The gradient and curvature a shard kept from the evaluation the step was
    taken from move to first order, g ← g + h·Δb[place] (what the in-memory
    :meth:`~rankcore.objectives.PositionEffects.advance` returns), and every
    later evaluation is at f + b[place].  ``delta`` None takes a step back
    (the client's J at the moved effects overflowed before the first tree):
    the gradient the step moved is dropped, and computed again at b by the
    next call that reads it (the same as before the step, bit for bit).
    """

    effects: np.ndarray
    delta: np.ndarray | None
    moves_effects: ClassVar[bool] = True


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


class Shard:
    """The blocks of one worker, and what the backend asks of them (a Dask actor).

    Parameters
    ----------
    blocks : list of Block
    layout : LearnerLayout
    objective : str
        The objective's spec, resolved here through the worker's registry
        (components travel as spec strings: a class unknown to the worker
        would fail to unpickle there).  Bound to :func:`placeholder_labels`
        (separable objectives) or, for the pairwise fallback, to the
        positives and this shard's negatives at each evaluation.
    task : {"bipartite", "graded"}
    random_state : int, numpy Generator or None
        The fit's seed: a randomized objective within queries (``yetirank``)
        draws from it, numbering each block's rows from its ``offset``.
    """

    def __init__(self, blocks, layout, objective, task, random_state=None):
        from ..registry import resolve

        self.blocks = sorted(blocks, key=lambda b: b.index)
        self.layout = layout
        objective = resolve("objective", objective)
        self.objective = objective
        self.task = task
        self.n_threads = _worker_threads()
        self.problem = block_problem(objective, task, any(b.queries is not None for b in self.blocks),
                                     n_threads=self.n_threads, random_state=random_state)
        self._h: tuple[int, list[np.ndarray]] | None = None      # (ranker number, h on every block)
        self._grads: tuple[int, list[np.ndarray]] | None = None
        self._tree_curvature: list[np.ndarray] | None = None     # trees: each block's curvature (tree_pass)
        # position effects: b (None: the fit has none); the token whose kept gradient the effects' step moved
        self._effects: np.ndarray | None = None
        self._rows_token = None
        # a multi-pass layout that merges blocks searches this worker's blocks as one (their codes move
        # into it: the per-chunk codes are dropped)
        self._merged = None
        # every row's gradient and curvature, blocks in order (the merged block's rows): one pair per fit
        self._merged_rows: tuple[np.ndarray, np.ndarray] | None = None
        merge = getattr(layout, "merge_blocks", None) if getattr(layout, "multi_pass", False) else None
        if merge is not None and len(self.blocks) > 1:
            self._merged = merge([b.codes for b in self.blocks])
            self._cuts = np.cumsum([b.n_rows for b in self.blocks])[:-1]
            for b in self.blocks:
                b.codes = None
        # pairwise fallback: the positives of every shard, and this shard's part of the gradient
        self._pos = None
        self._neg_grad: list[np.ndarray] | None = None
        self._line = None
        # each block's line along the held ranker's h (``line_partials``): (ranker number, {stage: lines})
        self._block_lines: tuple[int, dict] | None = None
        self._peers: list = []           # the other shards, when this one leads the trees' searches
        # freed arrays reused while the fit runs, not fresh pages at every tree (rankcore.dask._malloc)
        self._pages_kept = keep_pages()

    # ------------------------------------------------------------------
    def info(self) -> dict:
        """Rows, blocks and bytes held (for reports and tests)."""
        nbytes = sum(b.scores.nbytes + b.y.nbytes + b.weight.nbytes + getattr(b.codes, "nbytes", 0)
                     for b in self.blocks) + getattr(self._merged, "nbytes", 0)
        return {"blocks": [b.index for b in self.blocks], "rows": sum(b.n_rows for b in self.blocks),
                "bytes": int(nbytes), "threads": self.n_threads}

    def _directions(self, number: int, ranker) -> list[np.ndarray]:
        """h = the values of weak ranker ``number`` on every block, kept until the update applies them.

        The client numbers each ranker it sends (``rankcore.dask._backend``)
        and sends the ranker itself only with the first message about it
        (``ranker`` None after that): the line summary (or the first line
        evaluation) computes h, the other evaluations and the update read it
        here.  O(rows) for a new ranker (a walk over every row), O(1) for the
        one held.

        Raises
        ------
        RuntimeError
            ``ranker`` is None and this shard does not hold ranker
            ``number`` (a retried call, a shard restarted, a protocol error):
            it refuses rather than apply another ranker's h.
        """
        if self._h is not None and self._h[0] == number:
            return self._h[1]
        if ranker is None:
            held = "no weak ranker" if self._h is None else f"weak ranker {self._h[0]}"
            raise RuntimeError(
                f"weak ranker number {number!r} was sent without the ranker, but this shard holds {held}: "
                "refused (another ranker's values would corrupt the scores silently); fit again"
            )
        if self._merged is not None:
            h = np.split(self.layout.evaluate(ranker, self._merged), self._cuts)
        else:
            h = [self.layout.evaluate(ranker, b.codes) for b in self.blocks]
        self._h = (int(number), h)
        return h

    def _apply(self, update) -> None:
        """f ← f + α·h on every block (the same arithmetic as the in-memory backend).

        ``update``: None, or (ranker number, the ranker or None when this
        shard holds it, α).
        """
        if update is None:
            return
        if getattr(update, "moves_effects", False):     # an EffectsUpdate (a tree's update is a plain tuple)
            self._move_effects(update)
            return
        number, ranker, alpha = update
        directions = self._directions(number, ranker)     # (refused for a ranker not held: the held h is kept)
        try:
            # a score that would overflow raises FloatingPointError, the scores unchanged: the client's driver
            # stops with "overflow" (the update never reached a record)
            add_step([b.scores for b in self.blocks], directions, alpha)
        finally:
            self._h = None                # h was scaled in place
        self._grads = None
        self._rows_token = None
        self._line = None
        self._block_lines = None

    def _row(self, b: Block):
        """The block's rows as the objective reads them: at f + b[place] when the fit learns position effects."""
        block = b.row_block()
        if self._effects is not None and b.places is not None:
            block = RowBlock(block.y, block.weight, block.scores + self._effects[b.places], block.queries,
                             block.offset)
        return block

    def _move_effects(self, update: EffectsUpdate) -> None:
        """b ← the new effects; the gradient kept for this iteration moved by h·Δb (see :class:`EffectsUpdate`)."""
        self._effects = np.asarray(update.effects, dtype=np.float64)
        self._line = None
        self._block_lines = None
        if self._rows_token is None:
            return
        if update.delta is None:          # the step taken back: the kept gradient is computed again at b
            self._rows_token = None
            self._grads = None
            return
        delta = np.asarray(update.delta, dtype=np.float64)
        grads = [g + h * delta[b.places] for b, g, h in zip(self.blocks, self._grads[1], self._tree_curvature)]
        self._grads = (self._grads[0], grads)
        if self._merged is not None:
            np.concatenate(grads, out=self._merged_rows[0])

    def place_sums(self, update, G, token, n_places: int) -> np.ndarray:
        """(2, n_places): Σ g and Σ h per display place over this shard's rows, at the current f + b.

        The gradient and curvature are kept for ``token`` (the tree's passes
        or the statistics read them, moved by the effects' step).
        """
        from ..objectives import place_sums

        self._apply(update)
        self._tree_rows(G, token)
        self._rows_token = token
        total = np.zeros((2, int(n_places)))
        for b, g, h in zip(self.blocks, self._grads[1], self._tree_curvature):
            total += place_sums(b.places, g, h, int(n_places))
        return total

    def place_partials(self, update, stage, G, token, n_places: int):
        """(``partials``, ``place_sums``) in one call, for an objective whose gradient does not read the merged
        stages (``gradient_reads_stages`` False): this shard's own partials stand in for them."""
        partials = self.partials(update, stage, G)
        return partials, self.place_sums(None, list(G) + [partials], token, n_places)

    # ------------------------------------------------------------------
    # Separable objectives
    # ------------------------------------------------------------------
    def apply(self, update) -> None:
        self._apply(update)

    def partials(self, update, stage, G):
        """Stage ``stage`` partials of the objective at the current scores, merged over the blocks."""
        self._apply(update)
        parts = [self.problem.block_partials(stage, self._row(b), G) for b in self.blocks]
        return self.problem.merge_partials(stage, parts)

    def line_partials(self, number, ranker, stage, G, alpha):
        """Stage partials at f + α·h (h = weak ranker ``number``'s values on the blocks), merged.

        Each block's line along h is formed on its first α (``block_line``) and kept until the update
        applies: a line search's later evaluations reuse it.
        """
        h = self._directions(number, ranker)
        if self._block_lines is None or self._block_lines[0] != number:
            self._block_lines = (number, {})
        lines = self._block_lines[1].get(stage)
        if lines is None:
            lines = [self.problem.block_line(stage, self._row(b), hb) for b, hb in zip(self.blocks, h)]
            self._block_lines[1][stage] = lines
        return self.problem.merge_partials(stage, [line(G, alpha) for line in lines])

    def statistics(self, update, G, token):
        """Σ over blocks of the layout's statistics of each block's gradient (gradients kept for the line)."""
        self._apply(update)
        if self._rows_token is None or self._rows_token != token:
            grads = [self.problem.block_gradient(self._row(b), G) for b in self.blocks]
            check_finite_gradient(grads)          # (a FloatingPointError: the driver stops with "overflow")
            self._grads = (token, grads)
        else:                             # kept by place_sums, moved by the effects' step
            grads = self._grads[1]
        total = None
        for b, g in zip(self.blocks, grads):
            part = self.layout.statistics(b.codes, g, n_threads=self.n_threads)
            total = part if total is None else total + part
        return total

    def line_summary(self, number, ranker, values, G, token):
        """The objective's merged line summary along weak ranker ``number``, or None if it has none.

        h is computed (or read, when held) either way: the update refers to it by ``number``.
        """
        h = self._directions(number, ranker)
        kept = self._grads is not None and self._grads[0] == token and self._effects is None   # (not a moved one)
        grads = self._grads[1] if kept else [None] * len(h)
        parts = [self.problem.block_line_summary(self._row(b), hb, values, G, g)
                 for b, hb, g in zip(self.blocks, h, grads)]
        if any(p is None for p in parts):
            return None
        return self.problem.merge_line_summaries(parts)

    def class_histograms(self, update, G, n_bins):
        """Fast path: apply the update, then the (d, B, 2) per-class histograms of the gradient."""
        from ._kernels import class_histograms

        self._apply(update)
        hist = np.zeros((self.layout.n_features, int(n_bins), 2))
        for b in self.blocks:
            g = self.problem.block_gradient(self._row(b), G)
            check_finite_gradient([g])
            class_histograms(b.codes, g, b.n_neg, hist, self.n_threads)
        return hist

    def tree_pass(self, update, G, token, request):
        """One pass of a multi-pass search (trees), summed over the blocks (None when no histogram).

        The first pass of a search (``update`` and ``G`` given) applies the
        pending update and computes every block's gradient and curvature
        (kept for the following passes and the line summary).
        """
        if G is not None:
            self._apply(update)
            if self._rows_token is None or self._rows_token != token:     # (else kept by place_sums)
                self._tree_rows(G, token)
        if self._merged is not None:
            g, h = self._merged_rows
            return self.layout.block_pass(self._merged, g, h, request, n_threads=self.n_threads)
        grads, hess = self._grads[1], self._tree_curvature
        total, parts = None, []
        for b, g, h in zip(self.blocks, grads, hess):
            part = self.layout.block_pass(b.codes, g, h, request, n_threads=self.n_threads)
            if part is None:
                continue
            if total is None:
                total = part.copy()
            else:
                total += part                 # in place: the same sums, in block order, without a new array
            parts.append(part)
        release = getattr(self.layout, "release_histograms", None)
        if release is not None:
            release(parts)                    # the blocks' buffers serve the next pass
        return total

    def gain_sums(self, token) -> list[tuple[float, float]]:
        """Each block's (Σ g > 0, −Σ g < 0) of the gradient the search of ``token`` read (:func:`sign_sums`).

        Asked only after a tree search that found no split: the client (or the lead) adds the blocks' pairs in
        shard and block order and checks the gain limit on the sums over every row (``check_sign_sums``).
        """
        if self._grads is None or self._grads[0] != token:
            raise RuntimeError(f"gain_sums: this shard keeps no gradient of state {token!r}; fit again")
        return [sign_sums(g) for g in self._grads[1]]

    def _tree_rows(self, G, token) -> None:
        """Every block's gradient and curvature at the current scores, kept for a tree's passes.

        They are written into one pair of buffers per fit, the blocks' rows in
        order (the merged block's rows): pages allocated once, not per tree
        (Dask's workers return freed memory to the system eagerly).
        """
        curved = bool(getattr(self.problem, "has_hessian", False))
        into = curved and bool(getattr(self.problem, "gradient_into", False))
        if self._merged_rows is None and (into or self._merged is not None):
            n = sum(b.n_rows for b in self.blocks)
            self._merged_rows = (np.empty(n), np.empty(n))
        grads, hess, start = [], [], 0
        for b in self.blocks:
            if into:
                rows = slice(start, start + b.n_rows)
                g, h = self.problem.block_gradient_hessian(
                    self._row(b), G, out=(self._merged_rows[0][rows], self._merged_rows[1][rows]))
            elif curved:
                g, h = self.problem.block_gradient_hessian(self._row(b), G)
            else:
                g, h = self.problem.block_gradient(self._row(b), G), b.weight
            grads.append(np.asarray(g, dtype=np.float64))
            hess.append(np.asarray(h, dtype=np.float64))
            start += b.n_rows
        check_finite_gradient(grads, hess)        # (a FloatingPointError: the driver stops with "overflow")
        self._grads = (token, grads)
        self._tree_curvature = hess
        if self._merged is not None and not into:
            np.concatenate(grads, out=self._merged_rows[0])
            np.concatenate(hess, out=self._merged_rows[1])

    def lead(self, peers, channels: bool = True) -> None:
        """Keep the other shards' (worker address, actor key) pairs, in client order, to grow whole trees.

        This shard then runs :meth:`grow_tree`, calling the others for each
        pass: through direct channels on Dask's comm layer
        (``rankcore.dask._channel``) where ``channels`` and the peers' workers
        offer them, else Dask's actor messages.
        """
        from ._lead import Peer

        self.close_peers()
        self._peers = [Peer(address, key) for address, key in peers]
        if channels:
            for peer in self._peers:
                peer.connect()

    def close_peers(self) -> None:
        """Close the channels to the other shards (their serving threads end)."""
        for peer in self._peers:
            peer.close()
        self._peers = []

    def end(self) -> None:
        """The fit is over: close the channels, give the worker's allocator settings back (idempotent)."""
        self.close_peers()
        if self._pages_kept:
            self._pages_kept = False
            release_pages()

    def open_channel(self):
        """Serve a lead's calls on a direct channel: its address, or None when no listener can be opened.

        The listener runs on this worker's event loop with the worker's
        scheme, host and security settings (``rankcore.dask._channel``).
        """
        import asyncio

        from distributed import get_worker

        from ._channel import ChannelServer, listen_address

        worker = get_worker()
        try:
            server = ChannelServer(self, listen_address(worker.address), worker.security.get_listen_args("worker"))
            return asyncio.run_coroutine_threadsafe(server.start(), worker.loop.asyncio_loop).result()
        except (OSError, ValueError):          # no port, or a comm backend without listeners: Dask's messages
            return None

    async def on_loop(self, method: str, *args):
        """``method(*args)`` run on this worker's event loop, where the lead's message was read.

        A coroutine: Dask's ``actor_execute`` awaits it on the loop instead of
        handing the call to the actor's thread and the result back, which
        costs two thread switches per call -- each a wait for a core on a
        loaded machine, twelve calls per tree.  The loop is busy for the
        call's duration (one pass's histograms: milliseconds to a few tenths
        of a second); the lead never has two calls outstanding on one peer.
        """
        return getattr(self, method)(*args)

    def after_reply(self, method: str, result) -> None:
        """A channel sent ``result``: a pass's histogram buffer serves this shard's next passes."""
        release = getattr(self.layout, "release_histograms", None)
        if method == "tree_pass" and release is not None and isinstance(result, np.ndarray):
            release([result])

    def grow_tree(self, update, G, token, plan, batched, summarize, number):
        """One tree's whole search, run here with the other shards (``rankcore.dask._lead``); the tree is ``number``."""
        from ._lead import grow_tree

        return grow_tree(self, self._peers, update, G, token, plan, batched=batched, summarize=summarize,
                         number=number)

    def training_scores(self, update):
        """(chunk index, scores) of every block, after the update."""
        self._apply(update)
        return [(b.index, b.scores_in_chunk_order()) for b in self.blocks]

    # ------------------------------------------------------------------
    # Pairwise fallback (losses without a factorization): positives broadcast
    # ------------------------------------------------------------------
    def positive_scores(self, update):
        """This shard's positives' (scores, weights), in block order."""
        self._apply(update)
        f = [b.scores[b.y == 1] for b in self.blocks]
        w = [b.weight[b.y == 1] for b in self.blocks]
        return np.concatenate(f), np.concatenate(w)

    def _combined(self):
        """This shard's pairwise problem: every positive (broadcast) against its own negatives."""
        f_pos, w_pos = self._pos
        neg = [b.y == 0 for b in self.blocks]
        f_neg = np.concatenate([b.scores[m] for b, m in zip(self.blocks, neg)])
        v_neg = np.concatenate([b.weight[m] for b, m in zip(self.blocks, neg)])
        y = np.r_[np.ones(f_pos.shape[0], dtype=np.int8), np.zeros(f_neg.shape[0], dtype=np.int8)]
        problem = self.objective.bind(y, np.r_[w_pos, v_neg], n_threads=self.n_threads)
        return problem, np.r_[f_pos, f_neg], neg

    def pairwise_gradient(self, f_pos, w_pos):
        """(log R_s, ∂ log R_s/∂f on every positive) over all positives and this shard's negatives.

        The gradient on this shard's negatives is kept here (scaled later by R_s/R).
        """
        self._pos = (np.asarray(f_pos, dtype=np.float64), np.asarray(w_pos, dtype=np.float64))
        self._line = None
        problem, scores, neg = self._combined()
        value, grad = problem.value_and_gradient(scores)
        I = f_pos.shape[0]
        g_neg = grad[I:]
        parts, start = [], 0
        for m in neg:
            k = int(m.sum())
            parts.append(g_neg[start:start + k])
            start += k
        self._neg_grad = parts
        return float(value), grad[:I]

    def pairwise_statistics(self, scale, g_pos):
        """Statistics of the global gradient on this shard's rows.

        ``g_pos``: the global gradient on this shard's positives (block
        order); ``scale``: R_s / R, applied to the kept negatives' gradient.
        """
        total, start = None, 0
        for b, g_neg in zip(self.blocks, self._neg_grad):
            g = np.zeros(b.n_rows)
            pos = b.y == 1
            k = int(pos.sum())
            g[pos] = g_pos[start:start + k]
            g[~pos] = scale * g_neg
            start += k
            part = self.layout.statistics(b.codes, g, n_threads=self.n_threads)
            total = part if total is None else total + part
        return total

    def positive_directions(self, number, ranker):
        """h on this shard's positives (block order); h on every row is kept for the line search."""
        h = self._directions(number, ranker)
        return np.concatenate([hb[b.y == 1] for b, hb in zip(self.blocks, h)])

    def pairwise_line(self, number, ranker, h_pos, alpha):
        """(log R_s, d/dα, d²/dα²) at f + α·h over all positives and this shard's negatives.

        ``h_pos`` (h on every positive) is sent with the first evaluation
        along weak ranker ``number`` and kept for the next ones (``None`` then).
        """
        if self._line is None or self._line[0] != number:
            h = self._directions(number, ranker)
            problem, scores, neg = self._combined()
            h_all = np.r_[np.asarray(h_pos, dtype=np.float64), np.concatenate([hb[m] for hb, m in zip(h, neg)])]
            self._line = (number, problem.line(scores, h_all))
        point = self._line[1](float(alpha))
        return float(point.value), float(point.d1), float(point.d2)


class ShardSet:
    """The shard actors of one fit (client side); :meth:`close` releases them and their memory.

    Built by :func:`start_shards`: every chunk is encoded by a task on the
    worker that computes it, and the blocks of each worker are handed to one
    :class:`Shard` actor pinned to that worker.
    """

    def __init__(self, client, futures, actors, workers):
        self.client = client
        self._futures = futures          # the actors live as long as these are referenced
        self.actors = actors
        self.workers = workers

    def close(self) -> None:
        """End every shard (the lead's channels, the allocator settings; errors ignored), then release the actors."""
        ends = []
        for actor in self.actors:
            try:
                ends.append(actor.end())
            except Exception:             # a lost worker: nothing to end there
                pass
        for end in ends:
            try:
                end.result(timeout=CLOSE_TIMEOUT)
            except Exception:             # a lost or busy worker: its channels end with its connections
                pass
        # Dropping our references is not enough: every call made through a distributed Actor leaves a
        # self-referencing closure that keeps the Actor, and so its future, alive until the client's cyclic
        # garbage collector runs (maybe never, in a quiet session), and with it the shard's blocks and scores
        # on the worker.  Cancelling the futures forgets the actors on the scheduler now.
        futures, self._futures, self.actors = self._futures, [], []
        try:
            self.client.cancel(futures)
        except Exception:                 # a closed client: its cluster has let go of everything already
            pass

    def info(self) -> list[dict]:
        return [f.result() for f in [actor.info() for actor in self.actors]]


def _resolve_on_worker(specs):
    """{family: spec} -> {family: error message} for the specs this process cannot resolve."""
    from ..registry import resolve

    problems = {}
    for family, spec in specs.items():
        try:
            resolve(family, spec)
        except Exception as exc:             # any failure to resolve is reported, not raised, on a worker
            problems[family] = f"{shown_type(exc)}: {exc}"
    return problems


def check_components_on_workers(client, specs: dict) -> None:
    """Raise ValueError unless every worker resolves every ``{family: spec}`` as the client does.

    Components travel to the workers as spec strings; a plugin registered at
    runtime exists only in the process that registered it.
    """
    results = client.run(_resolve_on_worker, dict(specs))
    for address, problems in sorted(results.items()):
        for family, message in problems.items():
            raise ValueError(
                f"{family} {specs[family]!r} is not available on the Dask worker {address} ({message}); "
                "a plugin registered at runtime (rankcore.registry.register_plugin) exists only in the process "
                "that registered it: install it on the workers as a package with a 'rankcore' entry point, "
                "or register it there too (client.run(...) or a distributed WorkerPlugin)"
            )


def contiguous_shares(rows: list[int], n_shares: int) -> list[int]:
    """The share (0 .. n_shares-1) of each block: contiguous runs of blocks, balanced by rows.

    Block i goes to the share its middle row falls in when the n rows are
    cut into ``n_shares`` equal ranges, so each share ends within one block of
    n / n_shares rows, and the map depends on the blocks' sizes and the
    number of shares only -- never on where the blocks happened to be
    computed.  A tree pass adds the shares' histograms in share order and
    each share sums its rows in block order, so the sums' rounding, and
    therefore the model, is the same in every fit on the same number of
    workers.  O(blocks).
    """
    n = sum(rows)
    shares, start = [], 0
    for r in rows:
        middle = start + r / 2.0
        shares.append(min(n_shares - 1, int(middle * n_shares / n)) if n else 0)
        start += r
    return shares


def place_shares(rows: list[int], shares: list[int], holders: list[str], workers: list[str]) -> list[str]:
    """The worker of each share (index = share): the one already holding most of its rows, each worker once.

    Which worker hosts a share does not change the sums (they follow the
    share order); choosing the holder saves moving blocks.  Greedy over
    (rows held, share, worker) in decreasing order of rows held: O(S·W·log(S·W)).
    """
    n_shares = max(shares) + 1 if shares else 0
    held: dict[tuple[int, str], int] = {}
    for r, share, holder in zip(rows, shares, holders):
        held[share, holder] = held.get((share, holder), 0) + r
    pairs = sorted(((held.get((s, w), 0), s, w) for s in range(n_shares) for w in workers),
                   key=lambda item: (-item[0], item[1], item[2]))
    chosen: list[str | None] = [None] * n_shares
    taken: set[str] = set()
    for _, share, worker in pairs:
        if chosen[share] is None and worker not in taken:
            chosen[share] = worker
            taken.add(worker)
    return chosen


def start_shards(client, data, layout, objective, classes, task, random_state=None) -> ShardSet:
    """Encode every chunk where it is computed and start one :class:`Shard` per worker.

    The blocks are cut into one contiguous share per worker, balanced by rows
    (:func:`contiguous_shares`: the same shares in every fit, so the same
    sums and model), each share hosted by the worker already holding most of
    it (:func:`place_shares`: the others' blocks move there once).
    ``objective`` is the objective's spec string (resolved on each worker);
    ``random_state`` the fit's seed, for a randomized objective within queries.
    """
    from collections import defaultdict

    from distributed import wait

    offsets = np.r_[0, np.cumsum(data.chunk_rows)].astype(np.int64)
    futures = data.map(client, encode_chunk, layout, classes, task, offsets, gather=False)
    if data.qid is not None:             # within queries: each block keeps its rows' queries
        codes = client.compute(data.qid.to_delayed().ravel().tolist())
        futures = client.map(with_queries, futures, codes, pure=False)
    if getattr(data, "position", None) is not None:     # position effects: each block keeps its rows' places
        places = client.compute(data.position.to_delayed().ravel().tolist())
        futures = client.map(with_places, futures, places, pure=False)
    if getattr(data, "init", None) is not None:         # init_score: each block's scores start at its rows'
        inits = client.compute(data.init.to_delayed().ravel().tolist())
        futures = client.map(with_init, futures, inits, pure=False)
    wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()                    # raises the chunk's error (validation) here
    where = client.who_has(futures)
    workers = sorted(address for address, info in worker_info(client).items()
                     if info.get("nthreads", 1) > 0)
    holders = [sorted(where[f.key])[0] if where.get(f.key) else "" for f in futures]
    rows = list(data.chunk_rows)
    shares = contiguous_shares(rows, min(len(workers), len(rows)))
    hosts = place_shares(rows, shares, holders, workers)
    by_share = defaultdict(list)
    for f, share in zip(futures, shares):
        by_share[share].append(f)              # a block on another worker is sent there once, with the actor
    order = sorted(by_share)                   # the shards in share order: the lead holds the first rows
    actor_futures = [
        client.submit(Shard, by_share[share], layout, objective, task, random_state, actor=True,
                      workers=[hosts[share]],
                      allow_other_workers=False, pure=False)
        for share in order
    ]
    actors = [f.result() for f in actor_futures]
    workers = [hosts[share] for share in order]
    del futures, by_share                 # the actors now hold the blocks; the task results are released
    return ShardSet(client, actor_futures, actors, workers)
