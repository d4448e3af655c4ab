"""The ``trees`` learner prepared on a training set: bins, code columns, blocks, the two search routes.

:class:`TreeLayout` encodes blocks of rows (:class:`TreeBlock`: row-major bin codes and the
per-fit buffers) and searches a tree per iteration by either route:

* the **multi-pass protocol** (``begin_search`` / ``block_pass``, the
  client's :class:`~rankcore.learners.trees._search.TreeSearch`): one
  reduction over the blocks per split, so blocks may live anywhere (Dask);
* the **in-memory grower** (:meth:`TreeLayout.search_in_memory`, one block):
  ``_grow.TreeGrower`` (leaf-wise, depth-wise) or
  ``_grow_oblivious.ObliviousGrower`` (oblivious) grows the whole tree in
  one call without the GIL.  Same tree, bit for bit (the same kernels,
  decisions and floating-point operations; see ``_grow.pyx`` and
  ``_grow_oblivious.pyx``).

Histograms are compact (S, 3) arrays over *slots* (``_histogram.pyx``,
design B): feature j owns slots ``base[j] .. base[j] + n_edges[j] + 1``.
"""

from __future__ import annotations

import contextlib
import copy
import math
from typing import Any, Iterator

import numpy as np

from ..._taken_rows import TakenRows
from . import _grow, _grow_oblivious, _histogram, _predict, _split
from .._base import Candidate, LearnerLayout, multi_pass_search
from ._no_split import capped_stall_reason, uncapped_derivative, underflow_reason
from ._binning import csr_float as _csr_float
from ._block import TreeBlock
from ._binning import is_sparse, take_columns
from ._bundles import bundled_slot_layout, default_bins
from ._column_work import column_work
from ._feature_draw import checked_splittable, feature_draw
from ._interactions import checked_groups, native_groups
from ._monotone import checked_signs
from ._oblivious import ObliviousSearch, oblivious_depth
from ._oblivious_ranker import ObliviousTreeRanker
from ._oblivious_kernels import oblivious_columns
from ._oblivious_monotone import monotone_grown, oblivious_uncapped
from ._search import BatchedTreeSearch, TreeSearch, _Split
from ._ranker import ALL_LEFT, TIE_TOLERANCE, TreeRanker, node_value_index
from ._row_draws import GOLDEN, MASK64, bagging_weights, row_hash

__all__ = ["TreeLayout"]

#: Sparse columns from which the in-memory grower's histograms read each row's list of their nonzero
#: codes' slots (``_histogram.listed_rows``) instead of the row's codes: read as codes, a row's
#: sparse columns cost one read per eight of them; listed, one per nonzero code.  Measured (whole
#: default fit, one thread): 1,500 count columns 2 % nonzero, all sparse, 0.97 s → 0.51 s; the grant
#: applications' 14 sparse columns of 85, 0.225 s → 0.219 s; 8 of 44, no change.  Below a word of
#: columns the codes are read as one word anyway.
LISTED_MIN_COLUMNS = 8


class TreeLayout(LearnerLayout):
    """Trees over fixed per-feature bin edges; a multi-pass search (see :class:`TreeSearch`) or one native call.

    Time per tree: O(n·c) for the root histogram over c code columns, then
    per split O(m·c) for the smaller child's m rows, O(m) for the partition
    and O(S) for the subtraction and split scan over the S histogram slots;
    memory O(n) per block (allocated once per fit, in :meth:`encode`) plus
    at most max_leaves + 1 histograms of S slots (client or grower).
    """

    multi_pass = True
    batched_search = True
    remote_search = True
    evaluates_into = True

    def __init__(self, edges: list[np.ndarray], params: dict, *, bundles: list[list[int]] = (),
                 categories: dict[int, np.ndarray] | None = None, random_state: Any = None, n_threads: int = 1,
                 n_sparse_bundles: int = 0, columns: np.ndarray | None = None, monotone: np.ndarray | None = None,
                 interactions: list | None = None, splittable: np.ndarray | None = None):
        self.edges = [np.ascontiguousarray(e, dtype=np.float64) for e in edges]
        self.n_features = len(self.edges)
        # the columns of X that the features are (None: every column, in order); rankers name columns of X
        self.columns = None if columns is None else np.ascontiguousarray(columns, dtype=np.intp)
        if self.columns is not None and (self.columns.shape != (self.n_features,)
                                         or np.any(np.diff(self.columns) <= 0) or np.any(self.columns < 0)):
            raise ValueError(f"TreeLayout: columns must be {self.n_features} ascending column indices of X")
        self._feature_of_column = self._column_of_feature = None
        if self.columns is not None:
            self._feature_of_column = np.full(int(self.columns[-1]) + 1 if self.n_features else 0, -1, dtype=np.intp)
            self._feature_of_column[self.columns] = np.arange(self.n_features)
            # column_of's table: feature j -> columns[j], and index −1 (a leaf) -> −1, in one lookup per tree
            self._column_of_feature = np.r_[self.columns, -1].astype(np.int32)
        self.n_edges = np.array([e.shape[0] for e in self.edges], dtype=np.intp)
        self.offsets = np.ascontiguousarray(np.r_[0, np.cumsum(self.n_edges)], dtype=np.intp)
        self.flat_edges = np.ascontiguousarray(np.concatenate(self.edges) if self.edges else np.empty(0))
        # each feature's default bin (of the value 0): a bundle member's rows there are coded 0
        self.default_bins = default_bins(self.edges)
        self.bundles = [list(map(int, b)) for b in bundles]
        # categorical features: their bins are the categories, the values below in ascending order
        self.categories = {int(j): np.ascontiguousarray(v, dtype=np.float64) for j, v in (categories or {}).items()}
        is_cat = np.zeros(self.n_features, dtype=np.uint8)
        is_cat[list(self.categories)] = 1
        self.slots = bundled_slot_layout(self.n_edges, self.default_bins, self.bundles, is_cat,
                                         n_sparse=int(n_sparse_bundles))
        # each column's code on a row of zeros (a sparse row's starting point): a lone feature's
        # default bin, a bundle's 0
        self.column_default = np.zeros(self.slots.n_cols, dtype=np.uint8)
        alone = np.asarray(self.slots.default_bin) < 0
        self.column_default[np.asarray(self.slots.col)[alone]] = self.default_bins[alone]
        self.n_threads = int(n_threads)
        for key, v in params.items():
            setattr(self, key, v)
        # each feature's monotone sign (int8), or None: no constraints
        self.monotone = checked_signs(monotone, self.n_features, self.categories, self.bundles)
        self.positive_steps = self.monotone is not None     # the driver adds these trees only with α > 0
        # the interaction groups of features (``_interactions.InteractionGroups``), or None: no constraints
        self.interactions = checked_groups(interactions, self.n_features)
        # whether each feature can split on the training rows (None: every one), for colsample's draw
        self.splittable = checked_splittable(splittable, self.n_features)
        self.shrinkage = float(self.learning_rate)        # the driver applies f ← f + η·α·h
        self.line_search = bool(self.line_search)         # False: α = 1, the tree's own Newton step
        # Newton steps on each tree's leaf values (the backend takes the ones after the first: leaf_rows,
        # with_leaf_values)
        self.leaf_newton_steps = int(params.get("leaf_newton_steps", 1))
        # each leaf value's cap, |v| <= max_delta_step (0: none); a layout saved before the option reads 0
        self.max_delta_step = float(params.get("max_delta_step", 0.0))
        # the Bayesian bootstrap's temperature (0: off); a layout saved before the option reads 0
        self.bagging_temperature = float(params.get("bagging_temperature", 0.0))
        # with weights the candidate's derivative is Σ w·g·h, an estimate of Σ g·h as a row sample's is
        self.sampled_derivative = float(self.subsample) < 1.0 or self.bagging_temperature > 0
        # "query": one weight per query, keyed by the query's index (set_row_groups: each row's query)
        self.bagging_unit = str(params.get("bagging_unit", "row"))
        self.row_groups = None
        self._rng = np.random.default_rng(random_state)
        self._split_out = np.empty(10)
        self._split_bits = np.zeros(4, dtype=np.uint64)
        self._hist_pool: list[np.ndarray] = []
        self._stack_pool: dict[int, list[np.ndarray]] = {}
        self._stacked_held = 0                     # histograms held in _stack_pool
        self._grower = None
        # the oblivious tree the native grower built last, with its levels' layout features and code columns
        # (int32): the fit evaluates it next, and mapping its columns of X back to features cost that evaluation
        # about as much as reading its codes (10,000 rows, depth 6)
        self._grown: tuple | None = None
        self.last_no_split: str | None = None      # set by the last search (TreeSearch.result, _candidate)

    @property
    def n_slots(self) -> int:
        return int(self.slots.n_slots)

    # -- features and the columns of X ---------------------------------
    def column_of(self, feature: np.ndarray) -> np.ndarray:
        """The columns of X that layout features are (−1, a leaf's, stays −1)."""
        feature = np.asarray(feature)
        if self.columns is None:
            return feature
        return self._column_of_feature[feature].astype(feature.dtype, copy=False)

    def feature_of(self, column: np.ndarray, what="a tree") -> np.ndarray:
        """The layout features of columns of X (−1 stays −1); a column the layout does not store is a ValueError.

        The layout leaves out columns no split can use on the rows it was
        prepared on (``_binning.splittable_columns``; for oblivious trees
        ``_binning.unsplittable_columns``), so a tree read
        from elsewhere that splits one cannot be evaluated on its codes.
        ``what`` names the tree in that error: a string, or the ranker itself
        (its ``repr``, made only when raising: every tree of a fit is
        evaluated, and almost none raises).
        """
        column = np.asarray(column)
        if self.columns is None:
            return column
        feature = np.full(column.shape, -1, dtype=np.intp)
        split = column >= 0
        known = split & (column < self._feature_of_column.shape[0])
        feature[known] = self._feature_of_column[column[known]]
        missing = split & (feature < 0)
        if np.any(missing):
            what = what if isinstance(what, str) else repr(what)
            reason = ("one value on every row it was prepared on" if self.growth == "oblivious" else
                      f"nonzero on fewer than min_samples_leaf={self.min_samples_leaf} of the rows it was prepared on")
            raise ValueError(f"{what} splits column {int(column[missing].flat[0])}, which this layout does not store "
                             f"({reason})")
        return feature.astype(column.dtype)

    def feature_slots(self, j: int) -> slice:
        """Feature j's slots in a node histogram: its bins 0..n_edges[j], then its NaN bin."""
        base = int(self.slots.base[j])
        return slice(base, base + int(self.n_edges[j]) + 2)

    # -- histogram buffers ---------------------------------------------
    # A node's (S, 3) histogram is 24·S bytes: allocating a fresh one per split
    # cost more than filling it (page faults, measured 3x on 3,500 x 300).
    # The search hands back the histograms of nodes it no longer needs, and the
    # next passes fill those (node_histogram zeroes its output first).

    # A pass of several nodes returns their (k, S, 3) stack, filled in place (not stacked from k arrays);
    # stacks are kept by k, and only arrays owning their memory are kept (a view of a stack in the node
    # pool would alias the stack when that is reused).

    def _new_histogram(self) -> np.ndarray:
        try:
            return self._hist_pool.pop()
        except IndexError:
            return np.empty((self.n_slots, 3))

    def _new_stack(self, k: int) -> np.ndarray:
        """A (k, S, 3) buffer for the k histograms of one pass (from the pool when one was released)."""
        stacks = self._stack_pool.get(k)
        if stacks:
            self._stacked_held -= k
            return stacks.pop()
        return np.empty((k, self.n_slots, 3))

    def release_histograms(self, arrays) -> None:
        """Keep histograms the search is done with, for the next passes.

        (S, 3) node histograms (at most 2·(max_leaves + 1)) and (k, S, 3)
        stacks of one pass (as many histograms again in all, at most 2 stacks
        per k); arrays that are views of others are not kept, nor one already
        kept (handing one back twice is harmless).
        """
        cap = 2 * (int(self.max_leaves) + 1)
        for a in arrays:
            if (a is None or a.dtype != np.float64 or a.base is not None or not a.flags.c_contiguous
                    or not a.flags.writeable):
                continue
            if a.shape == (self.n_slots, 3):
                if len(self._hist_pool) < cap and not any(b is a for b in self._hist_pool):
                    self._hist_pool.append(a)
            elif a.ndim == 3 and a.shape[1:] == (self.n_slots, 3):
                stacks = self._stack_pool.setdefault(a.shape[0], [])
                if (len(stacks) < 2 and self._stacked_held + a.shape[0] <= cap
                        and not any(b is a for b in stacks)):
                    stacks.append(a)
                    self._stacked_held += a.shape[0]

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_hist_pool"] = []      # scratch buffers do not travel (to Dask workers, copies)
        state["_stack_pool"], state["_stacked_held"] = {}, 0
        state["_grower"] = None
        state["_grown"] = None
        return state

    # -- encoding ------------------------------------------------------
    def encode(self, X, offset: int = 0, row_ids: np.ndarray | None = None):
        """Bin codes of a block (a :class:`TreeBlock` with its per-fit buffers).

        ``offset`` is the training-set position of the block's first row, or
        ``row_ids`` the position of every row (rows stored out of order).
        """
        if isinstance(X, TakenRows):
            return self._block(self._taken_codes(X), offset, row_ids)
        if self.columns is not None and is_sparse(X):
            X = self._stored_columns(X)
        if is_sparse(X):                      # from the stored values only (``encode_csr``)
            X = _csr_float(X)
            codes = np.empty((X.shape[0], self.slots.n_cols), dtype=np.uint8)
            _histogram.encode_csr(X.indptr, X.indices, X.data, self.flat_edges, self.offsets, self.slots,
                                     self.column_default, codes, self.n_threads)
            return self._block(codes, offset, row_ids)
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        if self.columns is not None:
            self._check_width(X)
        codes = np.zeros((X.shape[0], self.slots.n_cols), dtype=np.uint8)
        _histogram.encode(X, self.flat_edges, self.offsets, self.slots, codes, self.n_threads, self.columns)
        return self._block(codes, offset, row_ids)

    def _taken_codes(self, X: TakenRows) -> np.ndarray:
        """The codes of taken rows, encoded a block of rows at a time (each row's codes are its own)."""
        codes = np.zeros((X.shape[0], self.slots.n_cols), dtype=np.uint8)
        for start, block in X.blocks():
            if self.columns is not None:
                self._check_width(block)
            _histogram.encode(block, self.flat_edges, self.offsets, self.slots, codes[start:start + block.shape[0]],
                              self.n_threads, self.columns)
        return codes

    def merge_blocks(self, blocks: list[TreeBlock]) -> TreeBlock:
        """One block of the rows of ``blocks``, in their order (their training-set positions kept).

        A backend holding several blocks in one place searches them as one:
        a pass then costs one histogram per node, not one per node and block.
        """
        codes = np.concatenate([b.codes for b in blocks])
        row_ids = np.concatenate([b.row_ids if b.row_ids is not None
                                  else np.arange(b.offset, b.offset + b.n_rows, dtype=np.int64) for b in blocks])
        return self._block(codes, 0, row_ids)

    def _block(self, codes: np.ndarray, offset: int, row_ids) -> TreeBlock:
        """The block of these codes, with its rows' listed sparse slots when the sparse columns are many."""
        block = TreeBlock(codes, offset, row_ids, self.n_threads)
        if self.slots.sparse_columns >= LISTED_MIN_COLUMNS and self.slots.column_slots:
            block.listed = _histogram.listed_rows(codes, self.slots, self.n_threads)
        work = column_work(block.codes_t, self.slots) if self.n_threads > 1 else None   # (one thread: one group)
        if work is not None and work.sum() > 0:
            self.slots.set_column_work(work)
        return block

    def _check_width(self, X) -> None:
        """A ValueError if X (2-D) lacks a column the layout reads."""
        if X.ndim != 2 or X.shape[1] <= int(self.columns[-1]):
            raise ValueError(f"encode: X has {X.shape[1] if X.ndim == 2 else 'no'} columns; the layout reads "
                             f"column {int(self.columns[-1])}")

    def _stored_columns(self, X):
        """The columns of sparse X that the layout stores, as CSR."""
        self._check_width(X)
        return take_columns(X, self.columns)

    def no_candidate_reason(self) -> str | None:
        return self.last_no_split

    def adopt_no_candidate_reason(self, reason: str | None) -> None:
        self.last_no_split = reason

    def stalled_reason(self, ranker, derivative: float | None = None, tol: float | None = None) -> str | None:
        # ``uncapped_derivative``: set on a capped tree by its search (not saved); a leaf-wise or depth-wise tree's
        # ignores the monotone bounds (an oblivious tree's projects onto them)
        exact = self.growth == "oblivious" or getattr(self, "monotone", None) is None
        return capped_stall_reason(ranker.value[ranker.left < 0] if hasattr(ranker, "left") else ranker.value,
                                   self.max_delta_step, derivative, tol, getattr(ranker, "uncapped_derivative", None),
                                   uncapped_exact=exact)

    @contextlib.contextmanager
    def without_stalling_setting(self) -> Iterator[None]:
        """Within it, the layout searches as the fit without the cap ``max_delta_step`` would, on the tree's draw.

        The stop rule asks before it names the cap: the tree the search grows here from the same scores, with the
        same row seed and feature subset (the last draw, replayed: the generator is not read), is the one the
        uncapped fit would take at this iteration -- its splits chosen by the uncapped gains, not only this tree's
        leaves without the clamp.  Only that tree's derivative beyond ``tol`` shows the cap ended the fit.  The cap,
        the grower (built with it) and the account of the last search are restored on leaving.
        """
        saved = (self.max_delta_step, self._grower, getattr(self, "_grower_key", None), self.last_no_split,
                 getattr(self, "_grown", None))
        self.max_delta_step, self._grower, self._redraw = 0.0, None, getattr(self, "_last_draw", None)
        try:
            yield
        finally:
            self.max_delta_step, self._grower, self._grower_key, self.last_no_split, self._grown = saved
            self._redraw = None

    def threshold_of(self, feature: int, b: int) -> float:
        return float(self.edges[feature][b]) if b < self.n_edges[feature] else ALL_LEFT

    def category_values(self, feature: int, left_bins) -> np.ndarray:
        """The categories (values) of a categorical feature whose bins are in the 256-bit set (NaN bin excluded)."""
        values = self.categories[feature]
        bits = np.asarray(left_bins, dtype=np.uint64)
        b = np.arange(values.shape[0])
        inside = (bits[b >> 6] >> (b & 63).astype(np.uint64)) & np.uint64(1)
        return values[inside.astype(bool)]

    # -- the multi-pass search ----------------------------------------
    def _draw_tree(self) -> tuple[int, np.ndarray]:
        """This tree's seed (row subsample) and feature subset (colsample, ``_feature_draw``), from the layout's
        generator; within :meth:`without_stalling_setting`, the last tree's again."""
        if getattr(self, "_redraw", None) is not None:
            return self._redraw
        seed = int(self._rng.integers(0, 2**62))
        self._last_draw = (seed, feature_draw(self._rng, float(self.colsample), self.n_features,
                                              getattr(self, "interactions", None), getattr(self, "splittable", None)))
        return self._last_draw

    def draw_search(self) -> dict:
        """This tree's random choices as plain data, for :meth:`begin_search` on a copy of the layout elsewhere; with
        the cap this search takes (none within :meth:`without_stalling_setting`, where the copy keeps its own)."""
        seed, mask = self._draw_tree()
        return {"seed": seed, "feature_mask": mask, "max_delta_step": self.max_delta_step}

    def begin_search(self, *, batched: bool = False, plan: dict | None = None) -> TreeSearch | ObliviousSearch:
        """A new tree: draws this tree's seed (row subsample) and feature subset, unless ``plan`` gives them.

        ``batched``: leaf-wise growth asks for several leaves' partitions per
        pass (:class:`BatchedTreeSearch`: the same tree in fewer passes, for
        blocks a round trip away); depth-wise and oblivious growth already
        take one pass per level.  ``plan``: the choices :meth:`draw_search`
        drew on the client (this layout's generator is not read), and the cap the client's search takes.
        """
        if plan is None:
            seed, mask = self._draw_tree()
        else:
            seed, mask = int(plan["seed"]), np.asarray(plan["feature_mask"], dtype=np.uint8)
            self.max_delta_step = float(plan.get("max_delta_step", self.max_delta_step))
        if self.growth == "oblivious":
            return ObliviousSearch(self, seed, mask)
        if batched and self.growth == "leafwise":
            return BatchedTreeSearch(self, seed, mask)
        return TreeSearch(self, seed, mask)

    def _keep_below(self) -> int:
        """Row r is in the subsample iff its hash is below this (subsample < 1)."""
        return int(self.subsample * 2.0**64 - 1)

    def block_pass(self, block: TreeBlock, gradient: np.ndarray, hessian: np.ndarray, request: dict,
                   *, n_threads: int | None = None, out: np.ndarray | None = None,
                   weighted: bool = False) -> np.ndarray | None:
        """One block's share of one pass: partition, then the histogram asked for (additive over blocks).

        Returns an (S, 3) array (Σg, Σh, count per slot) or None when the
        request asks for no histogram; a depth-wise pass (``op == "splits"``)
        returns the (k, S, 3) stack of the k histograms its splits ask for,
        in their order (a buffer of the layout's: hand it back with
        :meth:`release_histograms` once read).  ``out``: the (S, 3) array a
        single node's histogram is written to.  With ``bagging_temperature``
        > 0 the histograms sum w·g and w·h, w the tree's weights of the
        block's rows (:func:`bagging_weights`, drawn from the request's
        ``id``, the tree's seed); ``weighted``: g and h are already weighted.
        """
        T = self.n_threads if n_threads is None else int(n_threads)
        if self.bagging_temperature > 0 and not weighted:
            # the tree's weights are drawn once per block and tree, and kept for its later passes
            if getattr(block, "bag_id", None) != request["id"]:
                block.bag, block.bag_id = self._bag_weights(block, int(request["id"])), request["id"]
            gradient = np.asarray(gradient, dtype=np.float64) * block.bag
            hessian = np.asarray(hessian, dtype=np.float64) * block.bag
            weighted = True
        if request["op"] == "splits":
            items = request["items"]
            k = sum(1 for item in items if item["histogram"])
            stacked = self._new_stack(k) if k else None
            filled = 0
            for item in items:               # a split with a histogram returns it, in the stack's next row
                if self.block_pass(block, gradient, hessian, dict(item, op="split"), n_threads=T,
                                   out=stacked[filled] if item["histogram"] else None, weighted=weighted) is not None:
                    filled += 1
            return stacked
        g = np.ascontiguousarray(gradient, dtype=np.float64)
        h, unit_h = block.curvature(hessian) if not weighted else (np.ascontiguousarray(hessian, dtype=np.float64),
                                                                    False)
        hist = self._new_histogram() if out is None else out
        if request["op"] == "root":
            n = block.n_rows
            if self.subsample < 1.0:
                rows = (block.row_ids if block.row_ids is not None
                        else np.arange(block.offset, block.offset + n, dtype=np.int64))
                keep = row_hash(request["seed"], rows) < np.uint64(self._keep_below())
                kept = np.flatnonzero(keep).astype(np.int32)
                block.idx[: kept.shape[0]] = kept
                block.idx[kept.shape[0]:] = np.flatnonzero(~keep)
                m = int(kept.shape[0])
                block.full = m == n
            else:
                block.idx[:] = np.arange(n, dtype=np.int32)
                m = n
                block.full = True
            block.ranges = {0: (0, m)}
            block.tree_id = request["id"]
            block.grown = None
            _histogram.node_histogram(block.codes, self.slots, g, h, block.idx, 0, m, block.og, block.oh, hist, T,
                                         m == n and self.subsample >= 1.0, unit_h)
            return hist
        # the node keeps its range: a partition asked ahead (BatchedTreeSearch) may leave it a leaf
        start, end = block.ranges[request["node"]]
        bits = request.get("left_bins")
        table = _histogram.split_tables(self.slots, np.array([request["feature"]], dtype=np.int32),
                                           np.array([request["bin"]], dtype=np.int32),
                                           np.array([request["nan_left"]], dtype=np.uint8),
                                           np.zeros(1, dtype=np.int32),
                                           None if bits is None else np.array([bits], dtype=np.uint64))[0]
        column = block.codes_t[int(self.slots.col[request["feature"]])][:, None]     # one column, (n, 1)
        nl = _histogram.partition(column, block.idx, block.scratch, start, end, 0, table, T)
        block.ranges[request["left_id"]] = (start, start + nl)
        block.ranges[request["right_id"]] = (start + nl, end)
        if not request["histogram"]:
            return None
        s, e = block.ranges[request["left_id"] if request["smaller"] == "left" else request["right_id"]]
        _histogram.node_histogram(block.codes, self.slots, g, h, block.idx, s, e, block.og, block.oh, hist, T,
                                     False, unit_h)
        return hist

    def best_split(self, hist: np.ndarray, feature_mask: np.ndarray, min_weight: float | None = None,
                   cat_smooth: float = 0.0, *, node: int = 0, seed: int = 0,
                   bounds: tuple[float, float] = (-math.inf, math.inf)) -> _Split | None:
        """The best split of a node from its summed (S, 3) histogram; None when no split gains.

        Candidates: bins b < n_edges[j] with NaN left or right, and
        b = n_edges[j] (every value left, NaN right).  Ties -- gains within
        ``TIE_TOLERANCE`` times the largest term of the gain -- go to the first
        in the order (feature, bin, NaN left before NaN right).  See
        ``_split.best_split`` (O(S), over the features in parallel
        with the layout's ``n_threads``).  With ``random_strength`` > 0 the
        feature is chosen with noise keyed by the tree's ``seed`` and the
        ``node``'s id, as the in-memory grower draws it.  With monotone
        constraints the children's values are clamped to the node's ``bounds``;
        with ``max_delta_step`` > 0 to [−cap, cap] too, and the gains are the
        capped values' (``_split.best_split``'s ``cap``).
        """
        out, bits = self._split_out, self._split_bits
        if not _split.best_split(hist, self.slots, feature_mask, float(self.min_samples_leaf),
                                        float(self.min_child_weight if min_weight is None else min_weight),
                                        float(self.l2), TIE_TOLERANCE, out, int(self.n_threads),
                                        float(cat_smooth), int(self.max_cat_threshold), bits,
                                        float(self.random_strength), int(seed), int(node),
                                        getattr(self, "monotone", None), float(bounds[0]), float(bounds[1]),
                                        self.max_delta_step):
            return None
        feature = int(out[1])
        return _Split(float(out[0]), feature, int(out[2]), bool(out[3]),
                      (float(out[4]), float(out[5]), float(out[6])), (float(out[7]), float(out[8]), float(out[9])),
                      tuple(int(v) for v in bits) if feature in self.categories else None)

    # -- the in-memory route -------------------------------------------
    def search_in_memory(self, encoded: list, gradients: list, curvatures: list, *, n_threads: int = 1):
        """The tree of this iteration, grown in one native call when the rows are one block.

        The same tree, bit for bit, as :func:`~rankcore.learners._base.multi_pass_search`
        (which several blocks use): the grower takes the search's decisions
        with the search's kernels (``_grow.pyx``; oblivious trees:
        ``_grow_oblivious.pyx``).
        """
        if len(encoded) != 1:
            return multi_pass_search(self, encoded, gradients, curvatures, n_threads=n_threads)
        block = encoded[0]
        g = np.ascontiguousarray(gradients[0], dtype=np.float64)
        h, unit_h = block.curvature(curvatures[0])
        seed, mask = self._draw_tree()
        if self.growth == "oblivious":
            return self._grow_oblivious(block, g, h, unit_h, seed, mask, n_threads)
        grower = self._tree_grower(n_threads, block.n_rows)
        self._grow_on(block, grower, g, h, unit_h, seed, mask)
        block.grown = grower
        candidate = self._candidate(grower, seed)
        if candidate is None:
            # no tree (the end of a fit): the multi-pass search replays it -- the same decisions --
            # and says why (``last_no_split``), which the native grower does not work out
            self._replay(block, g, h, seed, mask)
        return candidate

    @property
    def wants_row_groups(self) -> bool:
        """Whether the fit must hand the layout each row's query (:meth:`set_row_groups`): weights by query."""
        return self.bagging_temperature > 0 and self.bagging_unit == "query"

    @property
    def missing_row_groups(self) -> str | None:
        """Why this layout cannot grow a tree yet (it weighs queries and was given none), or None."""
        if self.wants_row_groups and self.row_groups is None:
            return ("bagging_unit='query' weighs each query, but this fit gave the trees no queries: fit with qid in "
                    "memory (a distributed Dask fit does not support it), or use bagging_unit='row'")
        return None

    def set_row_groups(self, codes: np.ndarray) -> None:
        """Each training row's query, as its index among the fit's queries (int, one per row, in row order).

        With ``bagging_unit="query"`` a row's Bayesian-bootstrap weight is
        its query's: :func:`bagging_weights` of the tree's seed and the
        query's index, the same for every row of the query.
        """
        codes = np.asarray(codes)
        if codes.ndim != 1 or (codes.size and (not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0)):
            raise ValueError(f"row groups: expected one non-negative integer query index per row, got an array of "
                             f"shape {codes.shape} and dtype {codes.dtype}")
        self.row_groups = np.ascontiguousarray(codes, dtype=np.int64)
        self._n_groups = int(self.row_groups.max()) + 1 if self.row_groups.size else 0

    def _bag_weights(self, block: TreeBlock, seed: int) -> np.ndarray:
        """The block's rows' Bayesian-bootstrap weights for the tree of ``seed`` (:func:`bagging_weights`):
        keyed by each row's position, or (``bagging_unit="query"``) by its query's index."""
        rows = (block.row_ids if block.row_ids is not None
                else np.arange(block.offset, block.offset + block.n_rows, dtype=np.int64))
        if self.bagging_unit == "query":
            if self.missing_row_groups is not None:
                raise ValueError(self.missing_row_groups)
            # one hash and one log per query, not per row: the same weights, far fewer draws
            return bagging_weights(seed, np.arange(self._n_groups, dtype=np.int64),
                                   self.bagging_temperature)[self.row_groups[rows]]
        return bagging_weights(seed, rows, self.bagging_temperature)

    def _grow_on(self, block: TreeBlock, grower, g: np.ndarray, h: np.ndarray, unit_h: bool, seed: int,
                 mask: np.ndarray) -> None:
        """One native grower's tree on the block (the row sample drawn from ``seed``), and the block's record of it.

        With ``bagging_temperature`` > 0 the grower reads w·g and w·h (the tree's weights, :func:`bagging_weights`):
        the same histograms, sums and leaf values as :meth:`block_pass` builds from the plain g and h.
        """
        if self.bagging_temperature > 0:
            w = self._bag_weights(block, seed)
            g, h, unit_h = g * w, h * w, False
        sample = self.subsample < 1.0
        grower.grow(block.codes, block.codes_t, g, h, block.idx, block.scratch, block.og, block.oh, mask,
                    (seed * GOLDEN) & MASK64, self._keep_below() if sample else 0, sample, block.row_ids,
                    block.offset, unit_h, seed, block.listed, None if sample else block.root_counts(self.slots),
                    curvature_unit=float(self.curvature_unit))
        block.ranges = {}
        block.tree_id = seed
        block.full = grower.n_sampled == block.n_rows

    def _grow_oblivious(self, block: TreeBlock, g: np.ndarray, h: np.ndarray, unit_h: bool, seed: int,
                        mask: np.ndarray, n_threads: int) -> Candidate | None:
        """The oblivious tree of this seed and feature subset, grown in one native call (``_grow_oblivious.pyx``);
        built as ``ObliviousSearch.result`` builds it."""
        key = ("oblivious", int(n_threads))
        if self._grower is None or self._grower_key != key:
            self._grower_key = key
            self._grower = _grow_oblivious.ObliviousGrower(
                self.slots, oblivious_depth(int(self.max_depth), int(self.max_leaves)), float(self.min_samples_leaf),
                float(self.min_child_weight), float(self.l2), TIE_TOLERANCE, float(self.random_strength),
                int(n_threads))
            self._grower.set_noise_key(self.columns)    # noise keyed by the columns of X: the same trees
            self._grower.set_interactions(native_groups(getattr(self, "interactions", None)))
            self._grower.set_monotone(getattr(self, "monotone", None), self.max_delta_step)
        grower = self._grower
        self._grow_on(block, grower, g, h, unit_h, seed, mask)
        block.grown = None
        tree = grower.tree(float(self.l2), self.max_delta_step)
        if tree is None:
            # no tree (the end of a fit): the multi-pass search replays it and says why (``last_no_split``)
            self._replay(block, g, h, seed, mask)
            return None
        feature, bins, nan_left, gain, value, derivative, some_normal = tree
        if getattr(self, "monotone", None) is not None and self.monotone[feature].any():   # projected leaves
            value, derivative, some_normal = monotone_grown(grower, float(self.l2), self.monotone[feature],
                                                            self.max_delta_step)
        # (the grower already checked the leaf values: the reason is worked out only for a refused tree)
        self.last_no_split = None if some_normal else underflow_reason(value, float(self.l2), self.max_delta_step)
        if self.last_no_split is not None:         # the tree is no direction at all
            return None
        threshold = np.array([self.threshold_of(j, b) for j, b in zip(feature.tolist(), bins.tolist())])
        ranker = ObliviousTreeRanker(self.column_of(feature), threshold, nan_left, value, gain, bins=bins,
                                     cover=grower.cell_covers())
        ranker.search_id = seed
        if self.max_delta_step > 0:            # what the stop rule asks of a capped tree (``stalled_reason``)
            signs = None if getattr(self, "monotone", None) is None else self.monotone[feature]
            ranker.uncapped_derivative = oblivious_uncapped(*grower.cell_sums(), float(self.l2), signs)
        self._grown = (ranker, *self._levels(feature))
        return Candidate(ranker, float(derivative))

    def _replay(self, block: TreeBlock, g: np.ndarray, h: np.ndarray, seed: int, mask: np.ndarray) -> None:
        """Run the multi-pass search of a tree (this seed and feature subset) on one block, for its account."""
        search = (ObliviousSearch if self.growth == "oblivious" else TreeSearch)(self, seed, mask)
        while (request := search.next_request()) is not None:
            search.receive(self.block_pass(block, g, h, request))
        if search.result() is not None:          # pragma: no cover - the two routes agree (tests)
            raise AssertionError("the multi-pass search grew a tree where the in-memory grower grew none")

    def _tree_grower(self, n_threads: int, n_rows: int):
        # the grower holds 2·max_leaves − 1 nodes: a tree never has more leaves than rows, so
        # max_leaves beyond the row count (trees:max_leaves=2**31) grows the same trees, without
        # allocating for them
        leaves = max(2, min(int(self.max_leaves), int(n_rows)))
        if self._grower is None or self._grower_key != (int(n_threads), leaves):
            self._grower_key = (int(n_threads), leaves)
            self._grower = _grow.TreeGrower(self.slots, leaves, int(self.max_depth),
                                                 float(self.min_samples_leaf), float(self.min_child_weight),
                                                 float(self.l2), TIE_TOLERANCE, self.growth == "depthwise",
                                                 int(n_threads), float(self.cat_smooth), int(self.max_cat_threshold),
                                                 float(self.random_strength))
            self._grower.set_monotone(getattr(self, "monotone", None), self.max_delta_step)
            self._grower.set_interactions(native_groups(getattr(self, "interactions", None)))
        return self._grower

    def _candidate(self, grower, seed: int) -> Candidate | None:
        """The grown tree as ``TreeSearch.result`` builds it (leaf values −G/(H+λ), derivative Σ G·v)."""
        arrays = grower.ranker_arrays(self.flat_edges, self.offsets, float(self.l2), ALL_LEFT)
        if arrays is None:
            return None
        feature, threshold, nan_left, left, right, value, gain, bins, derivative, distinct, is_cat, bin_sets = arrays
        self.last_no_split = underflow_reason(value, float(self.l2), self.max_delta_step)
        if self.last_no_split is not None:         # the tree is no direction at all
            return None
        categories = None
        if self.categories and is_cat.any():
            categories = [self.category_values(int(feature[i]), bin_sets[i]) if is_cat[i] else None
                          for i in range(feature.shape[0])]
        ranker = TreeRanker.from_arrays(self.column_of(feature), threshold, nan_left, left, right, value, gain, bins,
                                        distinct, categories, bin_sets, grower.count[:feature.shape[0]].copy())
        ranker.search_id = seed               # lets evaluate() read h from the block's row partition
        if self.max_delta_step > 0:            # what the stop rule asks of a capped tree (``stalled_reason``)
            leaves = np.flatnonzero(left < 0)
            G, H = np.asarray(grower.G)[leaves], np.asarray(grower.H)[leaves]
            ranker.uncapped_derivative = uncapped_derivative(G, H, float(self.l2))
        return Candidate(ranker, float(derivative))

    # -- single-pass entry points of the protocol: not used by trees ---
    def statistics(self, encoded, gradient, *, n_threads=1):
        raise NotImplementedError("the trees learner searches in several passes (begin_search / block_pass)")

    def select(self, statistics):
        raise NotImplementedError("the trees learner searches in several passes (begin_search / block_pass)")

    def evaluate(self, ranker: TreeRanker, encoded: TreeBlock, out: np.ndarray | None = None) -> np.ndarray:
        """h on the block's rows: from the row partition of the tree just grown, else by walking the codes."""
        out = np.empty(encoded.n_rows) if out is None else out
        encoded.value_index_of = None          # set again below only where the positions are recorded
        if ranker.kind == "oblivious_tree":
            return self._evaluate_oblivious(ranker, encoded, out)
        current = ranker.bins is not None and getattr(ranker, "search_id", None) == encoded.tree_id
        if current and encoded.grown is not None:
            node_index = node_value_index(ranker)
            if node_index is None:
                encoded.grown.leaf_values(encoded.codes, encoded.idx, ranker.value, out)
                return out
            if encoded.value_index is None:
                encoded.value_index = np.empty(encoded.n_rows, dtype=np.uint8)
            encoded.grown.leaf_values(encoded.codes, encoded.idx, ranker.value, out, node_index,
                                      encoded.value_index)
            encoded.value_index_of = ranker
            return out
        if current and self._leaf_values_from_ranges(ranker, encoded, out):
            if encoded.full:
                return out
            # row subsampling: the ranges hold the sampled rows only; the others (after them in idx) are walked
            rest = encoded.idx[encoded.ranges[0][1]:]
            walked = np.empty(rest.shape[0])
            self._walk(ranker, np.take(encoded.codes, rest, axis=0), walked)
            out[rest] = walked
            return out
        return self._walk(ranker, encoded.codes, out)

    def _walk(self, ranker: TreeRanker, codes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """h on every row of ``codes`` (n, c) by walking the tree's splits down the codes: O(n·depth)."""
        bins = ranker.bins if ranker.bins is not None else self._bins_of(ranker)
        internal = ranker.left >= 0
        feature = np.where(internal, self.feature_of(np.where(internal, ranker.feature, -1), repr(ranker)),
                           0).astype(np.int32)
        bin_sets = ranker.bin_sets if ranker.bin_sets is not None else self._bin_sets_of(ranker)
        tables = _histogram.split_tables(self.slots, feature, bins, ranker.nan_left, ranker.left, bin_sets)
        _predict.predict_codes(codes, self.slots.col[feature].astype(np.int32), tables, ranker.left,
                               ranker.right, ranker.value, out, self.n_threads)
        return out

    @staticmethod
    def _leaf_values_from_ranges(ranker: TreeRanker, encoded: TreeBlock, out: np.ndarray) -> bool:
        """Write h from the block's row ranges of the tree's leaves; False (nothing written) if one is missing.

        The ranges are keyed by the search's node keys (``ranker.block_nodes``,
        when the search named them so) or node ids.
        """
        leaves = np.flatnonzero(ranker.left < 0)
        keys = getattr(ranker, "block_nodes", None)
        keys = leaves.tolist() if keys is None else keys[leaves].tolist()
        ranges = encoded.ranges
        if not all(k in ranges for k in keys):
            return False
        for node, key in zip(leaves.tolist(), keys):
            s, e = ranges[key]
            out[encoded.idx[s:e]] = ranker.value[node]
        return True

    # -- Newton steps on the leaf values -------------------------------
    def leaf_rows(self, ranker, encoded: TreeBlock) -> tuple[np.ndarray, np.ndarray | None]:
        """Each row's leaf, as the position of its value in ``ranker.values``, and the rows of the tree's sample.

        Leaves are told apart by their values: the cells of an oblivious
        tree below a node that was not split share its value and are one
        leaf.  Returns (intp (n,), bool (n,) or None): the rows whose
        gradient the tree's leaf values sum are those its row subsample
        kept (the draw of :meth:`block_pass` from the tree's seed); None:
        every row.  An oblivious tree reads each row's cell by bit index
        (O(n·depth)); another tree reads the positions :meth:`evaluate`
        records for the tree just grown, else searches its values.
        """
        values = np.asarray(ranker.values, dtype=np.float64)
        if ranker.kind == ObliviousTreeRanker.kind:
            cell = self._evaluate_oblivious(ranker, encoded, np.empty(encoded.n_rows),
                                            value=np.arange(ranker.value.shape[0], dtype=np.float64))
            leaf = np.searchsorted(values, ranker.value)[cell.astype(np.intp)]
        else:
            h = self.evaluate(ranker, encoded)
            index = self.value_index(ranker, encoded)
            leaf = index.astype(np.intp) if index is not None else np.searchsorted(values, h)
        if self.subsample >= 1.0:
            return leaf, None
        seed = getattr(ranker, "search_id", None)
        if seed is None:
            raise ValueError(f"leaf_newton_steps: {ranker!r} is not a tree of this fit's search (no seed to draw its "
                             f"row sample from)")
        rows = (encoded.row_ids if encoded.row_ids is not None
                else np.arange(encoded.offset, encoded.offset + encoded.n_rows, dtype=np.int64))
        return leaf, row_hash(int(seed), rows) < np.uint64(self._keep_below())

    def with_leaf_values(self, ranker, values: np.ndarray):
        """``ranker`` with the leaf of ``ranker.values[i]`` valued ``values[i]``: a new ranker, the same splits.

        The new ranker keeps the training bins and the search's seed, so
        that :meth:`evaluate` reads it as the tree just grown.
        """
        old = np.asarray(ranker.values, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        leaves = ranker.left < 0 if ranker.kind == TreeRanker.kind else np.ones(ranker.value.shape[0], dtype=bool)
        value = np.zeros(ranker.value.shape[0])
        value[leaves] = values[np.searchsorted(old, ranker.value[leaves])]
        new = copy.copy(ranker)
        value.setflags(write=False)
        new.value = value
        new.values = tuple(float(v) for v in np.unique(value[leaves]))
        return new

    def value_index(self, ranker, encoded: TreeBlock) -> np.ndarray | None:
        """Each row's position in ``ranker.values`` (uint8), when the last :meth:`evaluate` of ``ranker``
        on this block recorded it (the tree just grown in memory); else None."""
        return encoded.value_index if encoded.value_index_of is ranker else None

    def _evaluate_oblivious(self, ranker, encoded: TreeBlock, out: np.ndarray, value=None) -> np.ndarray:
        """An oblivious tree on the block's codes, by bit index (O(n·depth)); ``value``: other values by cell."""
        depth = ranker.depth
        bins = ranker.bins if ranker.bins is not None else self._level_bins(ranker)
        grown = self._grown
        feature, column = (grown[1:] if grown is not None and grown[0] is ranker
                           else self._levels(self.feature_of(ranker.feature, ranker)))
        tables = _histogram.split_tables(self.slots, feature, np.ascontiguousarray(bins, dtype=np.int32),
                                            np.ascontiguousarray(ranker.nan_left, dtype=np.uint8),
                                            np.zeros(depth, dtype=np.int32))
        oblivious_columns(encoded.codes_t, column, tables, ranker.value if value is None else value, out,
                          self.n_threads)
        return out

    def _levels(self, feature: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """An oblivious tree's levels as layout features and the code columns they read (both int32)."""
        feature = np.ascontiguousarray(feature, dtype=np.int32)
        return feature, np.ascontiguousarray(np.asarray(self.slots.col)[feature], dtype=np.int32)

    def _level_bins(self, ranker) -> np.ndarray:
        """A saved oblivious tree's thresholds as bins of this layout."""
        bins = np.empty(ranker.depth, dtype=np.int32)
        for level, (j, t) in enumerate(zip(self.feature_of(ranker.feature, repr(ranker)).tolist(),
                                           ranker.threshold.tolist())):
            if not 0 <= j < self.n_features:
                raise ValueError(f"{ranker!r}: level {level} reads feature {j}, the layout has {self.n_features}")
            bins[level] = self._threshold_bin(ranker, j, t)
        return bins

    def _threshold_bin(self, ranker, j: int, t: float) -> int:
        """The bin of feature j whose split sends x > t right (t must be one of its edges, or ALL_LEFT)."""
        if t == ALL_LEFT:
            return int(self.n_edges[j])
        b = int(np.searchsorted(self.edges[j], t))
        if b >= self.n_edges[j] or self.edges[j][b] != t:
            raise ValueError(f"{ranker!r}: threshold {t} of feature {j} is not a bin edge of this layout")
        return b

    def _bin_sets_of(self, ranker: TreeRanker) -> np.ndarray | None:
        """A saved tree's categorical nodes' left categories as bins of this layout (256-bit sets)."""
        if not ranker.categorical:
            return None
        sets = np.zeros((ranker.n_nodes, 4), dtype=np.uint64)
        for i, values in enumerate(ranker.categories):
            if values is None:
                continue
            j = int(self.feature_of(ranker.feature[i], repr(ranker)))
            known = self.categories.get(j)
            if known is None or not np.isin(values, known).all():
                raise ValueError(f"{ranker!r}: node {i}'s categories of feature {j} are not categories of this layout")
            b = np.searchsorted(known, values)
            b = np.r_[b, self.n_edges[j] + 1] if ranker.nan_left[i] else b
            for v in b.tolist():
                sets[i, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        return sets

    def _bins_of(self, ranker: TreeRanker) -> np.ndarray:
        bins = np.full(ranker.n_nodes, -1, dtype=np.int32)
        for i in np.flatnonzero(ranker.left >= 0):
            j, t = int(self.feature_of(ranker.feature[i], repr(ranker))), float(ranker.threshold[i])
            if ranker.categories[i] is None:
                bins[i] = self._threshold_bin(ranker, j, t)
        return bins

