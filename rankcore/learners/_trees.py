"""Histogram regression trees: the ``trees`` learner (gradient boosting with leaf-wise trees).

Each boosting iteration fits one regression tree to the objective's
gradient g (and per-row curvature h when the objective provides it, else
h = the sample weight): leaf-wise (best-first) growth on binned features,
split gain G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), leaf value −G/(H+λ)
(a Newton step; a gradient step scaled by the weights when h is the
weight).  The tree is a weak ranker h(x) = leaf value; the driver's line
search then finds α along it and the update is f ← f + η·α·h with the
shrinkage η = ``learning_rate``.

The search is a **multi-pass** reduction over row blocks
(:meth:`TreeLayout.begin_search`): one pass builds the root's histograms,
then one pass per split partitions the split node's rows in every block and
builds the histograms of the smaller child (the larger one is the parent's
minus the smaller: the sibling subtraction trick).  Histograms are added
across blocks; every decision is taken on the client from the summed
histograms, so the tree does not depend on how the rows are split into
blocks (up to the rounding of the sums).

Missing values: NaN has its own bin; each split sends NaN to the side with
the larger gain (remembered per split; without NaN at the node, to the
side with more rows).  A NaN never seen in training goes that same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..spec import Parameter, SpecError
from . import _tree_kernels
from ._base import Candidate, Learner, LearnerLayout, WeakRanker
from ._binning import _feature_edges, sample_rows
from ._no_split import free_split_gain, underflow_reason, unsplit_reason

__all__ = ["TreeRanker", "TreeLayout", "TreeBlock", "TreeSearch", "Trees", "tree_arrays_from_state"]

NAN_CODE = _tree_kernels.NAN_CODE
#: Number of histogram slots per feature: codes 0..254 and the NaN code 255.
N_SLOTS = 256
#: Largest ``max_bins`` (one code is reserved for NaN).
MAX_TREE_BINS = 255
#: Gains within this fraction of the largest term are ties, broken by the fixed candidate order.
TIE_TOLERANCE = 1e-10
#: Largest feature or node index a tree holds (its arrays are int32).
MAX_NODE_INDEX = 2**31 - 1
#: Threshold of a split that sends every non-missing value left (NaN right).
ALL_LEFT = float(np.finfo(np.float64).max)

_NODE_FIELDS = ("feature", "threshold", "nan_left", "left", "right", "value", "gain")


# ----------------------------------------------------------------------
# The weak ranker
# ----------------------------------------------------------------------
class TreeRanker(WeakRanker):
    """A regression tree h(x) = value of the leaf x falls in.

    Nodes are numbered from the root (0); node i is a leaf iff
    ``left[i] == -1``.  At an internal node a row goes right iff
    ``x[feature] > threshold``, and NaN goes left iff ``nan_left``.

    Attributes
    ----------
    feature, left, right : int32 arrays
    threshold, value, gain : float64 arrays
        ``value`` holds the leaf values (0 at internal nodes), ``gain`` the
        split gains (0 at leaves; used by ``feature_importances_``).
    nan_left : uint8 array
    values : tuple of float
        The distinct leaf values, ascending (the exp push objective's
        compressed line search uses them).
    """

    kind = "tree"

    def __init__(self, feature, threshold, nan_left, left, right, value, gain, *, bins=None):
        self.feature = _frozen(feature, np.int32)
        self.threshold = _frozen(threshold, np.float64)
        self.nan_left = _frozen(nan_left, np.uint8)
        self.left = _frozen(left, np.int32)
        self.right = _frozen(right, np.int32)
        self.value = _frozen(value, np.float64)
        self.gain = _frozen(gain, np.float64)
        self.bins = None if bins is None else _frozen(bins, np.int32)    # training bins (not saved)
        leaves = self.left < 0
        self.values = tuple(float(v) for v in np.unique(self.value[leaves]))

    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    @property
    def n_leaves(self) -> int:
        return int((self.left < 0).sum())

    @property
    def features(self):
        return tuple(sorted({int(j) for j in self.feature[self.left >= 0]}))

    def predict(self, X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        out = np.empty(X.shape[0])
        _tree_kernels.predict_trees(np.ascontiguousarray(X), self.feature, self.threshold, self.nan_left,
                                    self.left, self.right, self.value, np.zeros(1, dtype=np.intp),
                                    np.ones(1), out, 1)
        return out

    def importances(self, n_features: int) -> np.ndarray:
        """Total split gain per feature (length ``n_features``)."""
        internal = self.left >= 0
        return np.bincount(self.feature[internal], weights=self.gain[internal], minlength=n_features)

    def to_state(self):
        return {"kind": self.kind, "feature": self.feature.tolist(), "threshold": self.threshold.tolist(),
                "nan_left": [bool(v) for v in self.nan_left], "left": self.left.tolist(),
                "right": self.right.tolist(), "value": self.value.tolist(), "gain": self.gain.tolist()}

    def describe(self, feature_names=None):
        internal = self.left >= 0
        names = [feature_names[j] if feature_names is not None else f"x{j}" for j in self.feature[internal]]
        root = f", root {names[0]} > {self.threshold[0]:.6g}" if names else ""
        return f"tree({self.n_leaves} leaves{root})"

    def __repr__(self):
        return f"TreeRanker({self.n_leaves} leaves, features {list(self.features)})"


def _frozen(a, dtype) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


def tree_arrays_from_state(state: dict) -> TreeRanker:
    """Rebuild and validate a :class:`TreeRanker` from its saved record.

    Refuses, with a ``ValueError`` naming the field: missing or extra fields,
    arrays of different lengths, non-integer or out-of-range child indices,
    a structure that is not a tree rooted at node 0 (cycles, shared or
    unreachable nodes), negative feature indices, non-finite thresholds,
    values or gains.
    """
    if state.get("kind") != TreeRanker.kind or set(state) != {"kind", *_NODE_FIELDS}:
        raise ValueError(f"expected a tree record {{kind, {', '.join(_NODE_FIELDS)}}}, got {sorted(state)}")
    arrays = {}
    for name in _NODE_FIELDS:
        raw = state[name]
        if not isinstance(raw, (list, np.ndarray)):
            raise ValueError(f"tree: {name} must be a list, got {type(raw).__name__}")
        arrays[name] = list(raw)
    n = len(arrays["feature"])
    if n < 1:
        raise ValueError("tree: feature must hold at least one node")
    for name in _NODE_FIELDS:
        if len(arrays[name]) != n:
            raise ValueError(f"tree: {name} has {len(arrays[name])} entries, expected {n} (one per node)")
    for name in ("feature", "left", "right"):
        for v in arrays[name]:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"tree: {name} must hold integers, got {v!r}")
            # checked as Python integers, before the int32 arrays are built: 2**32 + 3 must not read feature 3
            if not -1 <= int(v) <= MAX_NODE_INDEX:
                raise ValueError(f"tree: {name} holds {int(v)}, outside [-1, {MAX_NODE_INDEX}] (-1: none; indices "
                                 f"are int32)")
    for v in arrays["nan_left"]:
        if not isinstance(v, (bool, np.bool_)) and v not in (0, 1):
            raise ValueError(f"tree: nan_left must hold booleans, got {v!r}")
    for name in ("threshold", "value", "gain"):
        for v in arrays[name]:
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v):
                raise ValueError(f"tree: {name} must hold finite numbers, got {v!r}")
    left, right, feature = arrays["left"], arrays["right"], arrays["feature"]
    seen = [False] * n
    seen[0] = True
    stack = [0]
    while stack:
        i = stack.pop()
        if (left[i] < 0) != (right[i] < 0) or (left[i] < 0 and (left[i] != -1 or right[i] != -1)):
            raise ValueError(f"tree: node {i} has left={left[i]}, right={right[i]}; "
                             f"a leaf has both -1, an internal node two children")
        if left[i] < 0:
            continue
        if feature[i] < 0:
            raise ValueError(f"tree: feature of node {i} must be an integer in [0, {MAX_NODE_INDEX}], got {feature[i]}")
        for name, child in (("left", left[i]), ("right", right[i])):
            if not 0 < child < n:
                raise ValueError(f"tree: {name} child of node {i} is {child}, expected an index in [1, {n - 1}]")
            if seen[child]:
                raise ValueError(f"tree: {name} child {child} of node {i} is reached twice (a cycle or shared node)")
            seen[child] = True
            stack.append(child)
    if not all(seen):
        raise ValueError(f"tree: node {seen.index(False)} is not reachable from the root")
    internal = np.asarray(left) >= 0
    feature_arr = np.where(internal, np.asarray(feature), -1)
    return TreeRanker(feature_arr, arrays["threshold"], arrays["nan_left"], left, right,
                      np.where(internal, 0.0, np.asarray(arrays["value"], dtype=np.float64)),
                      np.where(internal, np.asarray(arrays["gain"], dtype=np.float64), 0.0))


# ----------------------------------------------------------------------
# Block state
# ----------------------------------------------------------------------
class TreeBlock:
    """One block of encoded rows and its per-fit buffers.

    Attributes
    ----------
    codes : uint8 array (n, d)
        Row-major (see ``_tree_kernels``).
    idx, scratch : int32 arrays (n,)
        The row permutation (each node owns a contiguous range) and the
        partition's scratch space.
    og, oh : float64 arrays (n,)
        Gathered gradient and Hessian of the node being histogrammed.
    ranges : dict node → (start, end)
        The current tree's nodes' ranges in ``idx``.
    """

    def __init__(self, codes: np.ndarray, offset: int = 0, row_ids: np.ndarray | None = None):
        n = codes.shape[0]
        self.codes = codes
        self.offset = int(offset)
        # the rows' positions in the training set (row subsampling draws by position)
        self.row_ids = None if row_ids is None else np.asarray(row_ids, dtype=np.int64)
        self.idx = np.arange(n, dtype=np.int32)
        self.scratch = np.empty(n, dtype=np.int32)
        self.og = np.empty(n)
        self.oh = np.empty(n)
        self.ranges: dict[int, tuple[int, int]] = {}
        self.full = False            # the current tree's leaves cover every row (no row subsampling)
        self.tree_id = None
        self.unit_h = None           # (curvature given, as float64, all ones?) of the current search

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held: codes and the per-fit buffers (d + 24 per row)."""
        return int(self.codes.nbytes + self.idx.nbytes + self.scratch.nbytes + self.og.nbytes + self.oh.nbytes)


def _splitmix(seed: int, rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (seed, global row index): the row-subsampling draw, independent of the blocks."""
    with np.errstate(over="ignore"):
        z = rows.astype(np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


# ----------------------------------------------------------------------
# The client-side search
# ----------------------------------------------------------------------
@dataclass
class _Split:
    gain: float
    feature: int
    bin: int
    nan_left: bool
    left: tuple[float, float, float]      # (G, H, count) of the left child
    right: tuple[float, float, float]


class TreeSearch:
    """The client side of one tree's multi-pass search.

    Protocol: while ``request = search.next_request()`` is not None, every
    block computes ``layout.block_pass(block, g, h, request)`` and the
    search ``receive``\\ s the sum over blocks; then ``result()`` is the
    :class:`~rankcore.learners.Candidate` (or None when no split gains).
    """

    def __init__(self, layout: "TreeLayout", seed: int, feature_mask: np.ndarray):
        self.layout = layout
        self.seed = int(seed)
        self.feature_mask = feature_mask
        self.nodes: list[dict] = []
        self.hists: dict[int, np.ndarray] = {}
        self.pending: dict | None = {"op": "root", "seed": self.seed, "id": self.seed}
        self.splits: dict[int, _Split | None] = {}
        self.min_weight = 0.0
        self.root_gains: bool | None = None      # an unconstrained split of the root gains (when none was found)
        self.done = False

    # -- protocol ------------------------------------------------------
    def next_request(self):
        if self.pending is not None:
            return self.pending
        if self.done:
            return None
        return self._grow()

    def receive(self, total: np.ndarray | None) -> None:
        request, self.pending = self.pending, None
        if request is None:
            raise RuntimeError("TreeSearch.receive called without a pending request")
        if request["op"] == "root":
            G, H, C = (float(v) for v in total[0].sum(axis=0)) if total is not None else (0.0, 0.0, 0.0)
            self.nodes.append({"depth": 0, "G": G, "H": H, "count": C, "parent": -1})
            if C <= 0 or not self.layout.n_features:
                self.done = True
                return
            # min_child_weight counts average rows: objectives normalize their curvature differently
            self.min_weight = self.layout.min_child_weight * (H / C)
            self.hists[0] = total
            self._consider(0)
            return
        if request["op"] == "splits":              # depth-wise: a whole level in one pass
            k = 0
            for item in request["items"]:
                self._receive_split(item, total[k] if item["histogram"] else None)
                k += bool(item["histogram"])
            return
        self._receive_split(request, total)

    def _receive_split(self, request: dict, small: np.ndarray | None) -> None:
        parent, a, b = request["node"], request["left_id"], request["right_id"]
        parent_hist = self.hists.pop(parent, None)
        if request["histogram"]:
            # sibling subtraction in the parent's buffer, which no one reads again: a (d, 256, 3)
            # allocation per split cost more than the subtraction (page faults on ~d·6 kB)
            np.subtract(parent_hist, small, out=parent_hist)
            large = parent_hist
            small_id, large_id = (a, b) if request["smaller"] == "left" else (b, a)
            self.hists[small_id] = small
            self.hists[large_id] = large
            for child in (a, b):
                self._consider(child)
        else:
            self.splits[a] = self.splits[b] = None

    def result(self) -> Candidate | None:
        """The tree, with derivative Σ_leaves G·v = Σ g h over the rows the search saw.

        With row subsampling that is the sampled rows only (an estimate; the
        driver uses it only to stop when it is ~0).
        """
        nodes = self.nodes
        self.layout.release_histograms(self.hists.values())
        self.hists.clear()
        if len(nodes) <= 1:
            rows = int(nodes[0]["count"]) if nodes else 0
            self.layout.last_no_split = unsplit_reason(self.layout, rows, self.feature_mask, self.root_gains)
            return None
        n = len(nodes)
        feature = np.full(n, -1, dtype=np.int32)
        bins = np.full(n, -1, dtype=np.int32)
        threshold = np.zeros(n)
        nan_left = np.zeros(n, dtype=np.uint8)
        left = np.full(n, -1, dtype=np.int32)
        right = np.full(n, -1, dtype=np.int32)
        value = np.zeros(n)
        gain = np.zeros(n)
        lam = self.layout.l2
        derivative = 0.0
        for i, node in enumerate(nodes):
            if "children" in node:
                split = node["split"]
                feature[i], bins[i], nan_left[i] = split.feature, split.bin, split.nan_left
                threshold[i] = self.layout.threshold_of(split.feature, split.bin)
                left[i], right[i] = node["children"]
                gain[i] = split.gain
            else:
                value[i] = -node["G"] / (node["H"] + lam)
                derivative += node["G"] * value[i]
        self.layout.last_no_split = underflow_reason(value, lam)
        if self.layout.last_no_split is not None:         # the tree is no direction at all
            return None
        ranker = TreeRanker(feature, threshold, nan_left, left, right, value, gain, bins=bins)
        ranker.search_id = self.seed          # lets evaluate() read h from the blocks' row partition
        return Candidate(ranker, float(derivative))

    # -- growth --------------------------------------------------------
    def _consider(self, node_id: int) -> None:
        node = self.nodes[node_id]
        lay = self.layout
        if (lay.max_depth >= 0 and node["depth"] >= lay.max_depth) or node["count"] < 2 * lay.min_samples_leaf:
            self.splits[node_id] = None
            self._release(node_id)
            return
        self.splits[node_id] = lay.best_split(self.hists[node_id], self.feature_mask, self.min_weight)
        if self.splits[node_id] is None:
            if node_id == 0:              # did a constraint block, or does nothing gain? (unsplit_reason)
                self.root_gains = free_split_gain(self.hists[0], self.feature_mask, lay.l2, TIE_TOLERANCE)
            self._release(node_id)

    def _release(self, node_id: int) -> None:
        hist = self.hists.pop(node_id, None)
        if hist is not None:
            self.layout.release_histograms([hist])

    def _grow(self):
        lay = self.layout
        n_leaves = sum(1 for nd in self.nodes if "children" not in nd)
        if n_leaves >= lay.max_leaves:
            self.done = True
            return None
        live = {i: sp for i, sp in self.splits.items() if sp is not None}
        if not live:
            self.done = True
            return None
        if lay.growth == "depthwise":
            # every splittable leaf (all of one depth) in one pass; when the leaf budget is
            # short, the largest gains first (ties: the smaller node id)
            budget = lay.max_leaves - n_leaves
            order = sorted(live, key=lambda i: (-live[i].gain, i))[:budget]
            for i in set(live) - set(order):
                del self.splits[i]
                self.hists.pop(i, None)
            last = n_leaves + len(order) >= lay.max_leaves
            items = [self._split_request(i, live[i], last) for i in sorted(order)]
            self.pending = {"op": "splits", "id": self.seed, "items": items}
            return self.pending
        top = max(sp.gain for sp in live.values())
        # ties (within rounding): the smallest node id
        best_id = min(i for i, sp in live.items() if sp.gain >= top - TIE_TOLERANCE * top)
        self.pending = dict(self._split_request(best_id, live[best_id], n_leaves + 1 >= lay.max_leaves),
                            op="split", id=self.seed)
        return self.pending

    def _split_request(self, node_id: int, best: _Split, last: bool) -> dict:
        """Record the split of ``node_id`` (its two children) and describe it for the blocks."""
        lay = self.layout
        del self.splits[node_id]
        parent = self.nodes[node_id]
        a, b = len(self.nodes), len(self.nodes) + 1
        parent["children"] = (a, b)
        parent["split"] = best
        depth = parent["depth"] + 1
        for stats in (best.left, best.right):
            self.nodes.append({"depth": depth, "G": stats[0], "H": stats[1], "count": stats[2], "parent": node_id})
        # the children's histograms are needed only if one of them may still be split
        splittable = [not last and (lay.max_depth < 0 or depth < lay.max_depth)
                      and s[2] >= 2 * lay.min_samples_leaf for s in (best.left, best.right)]
        histogram = any(splittable)
        if not histogram:
            self.hists.pop(node_id, None)
            self.splits[a] = self.splits[b] = None
        smaller = "left" if best.left[2] <= best.right[2] else "right"
        return {"node": node_id, "feature": best.feature, "bin": best.bin, "nan_left": bool(best.nan_left),
                "left_id": a, "right_id": b, "smaller": smaller, "histogram": histogram}


# ----------------------------------------------------------------------
# The layout
# ----------------------------------------------------------------------
class TreeLayout(LearnerLayout):
    """Trees over fixed per-feature bin edges; a multi-pass search (see :class:`TreeSearch`).

    Time per tree: O(n·d) for the root histogram, then per split O(m·d) for
    the smaller child's m rows and O(m) for the partition, O(d·256) on the
    client; memory O(n) per block (allocated once per fit, in
    :meth:`encode`) plus O(max_leaves·d·256) histograms on the client.
    """

    multi_pass = True

    def __init__(self, edges: list[np.ndarray], params: dict, *, random_state: Any = None, n_threads: int = 1):
        self.edges = [np.ascontiguousarray(e, dtype=np.float64) for e in edges]
        self.n_features = len(self.edges)
        self.n_edges = np.array([e.shape[0] for e in self.edges], dtype=np.intp)
        self.offsets = np.ascontiguousarray(np.r_[0, np.cumsum(self.n_edges)], dtype=np.intp)
        self.flat_edges = np.ascontiguousarray(np.concatenate(self.edges) if self.edges else np.empty(0))
        self.n_threads = int(n_threads)
        for key, v in params.items():
            setattr(self, key, v)
        self.shrinkage = float(self.learning_rate)        # the driver applies f ← f + η·α·h
        self.sampled_derivative = float(self.subsample) < 1.0
        self._rng = np.random.default_rng(random_state)
        self._split_out = np.empty(10)
        self._hist_pool: list[np.ndarray] = []
        self.last_no_split: str | None = None      # set by the last search (TreeSearch.result)

    # -- histogram buffers ---------------------------------------------
    # A node's (d, 256, 3) histogram is d·6 kB: allocating a fresh one per
    # split cost more than filling it (page faults, measured 3x on 3,500 x 300).
    # The search hands back the histograms of nodes it no longer needs, and the
    # next passes fill those (node_histogram zeroes its output first).

    def _new_histogram(self) -> np.ndarray:
        try:
            return self._hist_pool.pop()
        except IndexError:
            return np.empty((self.n_features, N_SLOTS, 3))

    def release_histograms(self, arrays) -> None:
        """Keep histograms the search is done with, for the next passes (at most 2·(max_leaves + 1))."""
        cap = 2 * (int(self.max_leaves) + 1)
        for a in arrays:
            if (len(self._hist_pool) < cap and a.dtype == np.float64 and a.shape == (self.n_features, N_SLOTS, 3)
                    and a.flags.c_contiguous and a.flags.writeable):
                self._hist_pool.append(a)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_hist_pool"] = []      # scratch buffers do not travel (to Dask workers, copies)
        return state

    # -- encoding ------------------------------------------------------
    def encode(self, X, offset: int = 0, row_ids: np.ndarray | None = None):
        """Bin codes of a block (a :class:`TreeBlock` with its per-fit buffers).

        ``offset`` is the training-set position of the block's first row, or
        ``row_ids`` the position of every row (rows stored out of order).
        """
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        codes = np.empty((X.shape[0], self.n_features), dtype=np.uint8)
        _tree_kernels.encode(X, self.flat_edges, self.offsets, codes, self.n_threads)
        return TreeBlock(codes, offset, row_ids)

    def no_candidate_reason(self) -> str | None:
        return self.last_no_split

    def threshold_of(self, feature: int, b: int) -> float:
        return float(self.edges[feature][b]) if b < self.n_edges[feature] else ALL_LEFT

    # -- the multi-pass search ----------------------------------------
    def begin_search(self) -> TreeSearch:
        """A new tree: draws this tree's seed (row subsample) and feature subset."""
        seed = int(self._rng.integers(0, 2**62))
        mask = np.ones(self.n_features, dtype=np.uint8)
        if self.colsample < 1.0 and self.n_features > 1:
            k = max(1, int(math.ceil(self.colsample * self.n_features)))
            mask[:] = 0
            mask[self._rng.choice(self.n_features, size=k, replace=False)] = 1
        return TreeSearch(self, seed, mask)

    def block_pass(self, block: TreeBlock, gradient: np.ndarray, hessian: np.ndarray, request: dict,
                   *, n_threads: int | None = None) -> np.ndarray | None:
        """One block's share of one pass: partition, then the histogram asked for (additive over blocks).

        Returns a (d, 256, 3) array (Σg, Σh, count per feature and code) or
        None when the request asks for no histogram; a depth-wise pass
        (``op == "splits"``) returns the (k, d, 256, 3) stack of the k
        histograms its splits ask for, in their order.
        """
        T = self.n_threads if n_threads is None else int(n_threads)
        g = np.ascontiguousarray(gradient, dtype=np.float64)
        if block.unit_h is None or block.unit_h[0] is not hessian:
            # a curvature of all ones (no weights, no Hessian) is the count: not accumulated
            h = np.ascontiguousarray(hessian, dtype=np.float64)
            block.unit_h = (hessian, h, bool(np.all(h == 1.0)))
        h, unit_h = block.unit_h[1], block.unit_h[2]
        hist = self._new_histogram()
        if request["op"] == "root":
            n = block.n_rows
            if self.subsample < 1.0:
                rows = (block.row_ids if block.row_ids is not None
                        else np.arange(block.offset, block.offset + n, dtype=np.int64))
                keep = _splitmix(request["seed"], rows) < np.uint64(int(self.subsample * 2.0**64 - 1))
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
            _tree_kernels.node_histogram(block.codes, g, h, block.idx, 0, m, block.og, block.oh, hist, T,
                                         m == n and self.subsample >= 1.0, unit_h)
            return hist
        if request["op"] == "splits":
            parts = [self.block_pass(block, gradient, hessian, dict(item, op="split"), n_threads=T)
                     for item in request["items"]]
            parts = [p for p in parts if p is not None]
            return np.stack(parts) if parts else None
        start, end = block.ranges.pop(request["node"])
        nl = _tree_kernels.partition(block.codes, block.idx, block.scratch, start, end, request["feature"],
                                     request["bin"], request["nan_left"], T)
        block.ranges[request["left_id"]] = (start, start + nl)
        block.ranges[request["right_id"]] = (start + nl, end)
        if not request["histogram"]:
            return None
        s, e = block.ranges[request["left_id"] if request["smaller"] == "left" else request["right_id"]]
        _tree_kernels.node_histogram(block.codes, g, h, block.idx, s, e, block.og, block.oh, hist, T, False, unit_h)
        return hist

    def best_split(self, hist: np.ndarray, feature_mask: np.ndarray, min_weight: float | None = None) -> _Split | None:
        """The best split of a node from its summed (d, 256, 3) histogram; None when no split gains.

        Candidates: bins b < n_edges[j] with NaN left or right, and
        b = n_edges[j] (every value left, NaN right).  Ties -- gains within
        ``TIE_TOLERANCE`` times the largest term of the gain -- go to the first
        in the order (feature, bin, NaN left before NaN right).  See
        ``_tree_kernels.best_split`` (O(d·256), over the features in parallel
        with the layout's ``n_threads``).
        """
        out = self._split_out
        if not _tree_kernels.best_split(hist, self.n_edges, feature_mask, float(self.min_samples_leaf),
                                        float(self.min_child_weight if min_weight is None else min_weight),
                                        float(self.l2), TIE_TOLERANCE, out, int(self.n_threads)):
            return None
        return _Split(float(out[0]), int(out[1]), int(out[2]), bool(out[3]),
                      (float(out[4]), float(out[5]), float(out[6])), (float(out[7]), float(out[8]), float(out[9])))

    # -- single-pass entry points of the protocol: not used by trees ---
    def statistics(self, encoded, gradient, *, n_threads=1):
        raise NotImplementedError("the trees learner searches in several passes (begin_search / block_pass)")

    def select(self, statistics):
        raise NotImplementedError("the trees learner searches in several passes (begin_search / block_pass)")

    def evaluate(self, ranker: TreeRanker, encoded: TreeBlock) -> np.ndarray:
        """h on the block's rows: from the row partition of the tree just grown, else by walking the codes."""
        out = np.empty(encoded.n_rows)
        if ranker.bins is not None and encoded.full and getattr(ranker, "search_id", None) == encoded.tree_id \
                and len(encoded.ranges) == ranker.n_leaves:
            for node, (s, e) in encoded.ranges.items():
                out[encoded.idx[s:e]] = ranker.value[node]
            return out
        bins = ranker.bins if ranker.bins is not None else self._bins_of(ranker)
        _tree_kernels.predict_codes(encoded.codes, np.where(ranker.left >= 0, ranker.feature, 0).astype(np.int32),
                                    bins, ranker.nan_left, ranker.left, ranker.right, ranker.value, out,
                                    self.n_threads)
        return out

    def _bins_of(self, ranker: TreeRanker) -> np.ndarray:
        bins = np.full(ranker.n_nodes, -1, dtype=np.int32)
        for i in np.flatnonzero(ranker.left >= 0):
            j, t = int(ranker.feature[i]), float(ranker.threshold[i])
            if t == ALL_LEFT:
                bins[i] = self.n_edges[j]
                continue
            b = int(np.searchsorted(self.edges[j], t))
            if b >= self.n_edges[j] or self.edges[j][b] != t:
                raise ValueError(f"{ranker!r}: threshold {t} of feature {j} is not a bin edge of this layout")
            bins[i] = b
        return bins


# ----------------------------------------------------------------------
# The learner
# ----------------------------------------------------------------------
def _tree_edges(X: np.ndarray, max_bins: int, sample_weight, subsample: int | None, random_state) -> list[np.ndarray]:
    """The ``stumps`` bin-edge rule (:func:`rankcore.learners.bin_edges`) on each feature's non-missing values."""
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rows = sample_rows(X.shape[0], subsample, random_state, None if w is None else np.flatnonzero(w > 0))
    Xs = np.asarray(X)[rows].astype(np.float64)
    ws = None if w is None else w[rows]
    edges = []
    for j in range(X.shape[1]):
        col = Xs[:, j]
        present = ~np.isnan(col)
        edges.append(_feature_edges(col[present], None if ws is None else ws[present], max_bins))
    return edges


class Trees(Learner):
    """Gradient-boosted histogram regression trees, grown leaf-wise (best first).

    Each iteration fits a tree with at most ``max_leaves`` leaves to the
    objective's gradient (Newton leaves −G/(H + l2) with the objective's
    curvature when it has one, else H = Σ sample weights); the driver's line
    search scales it and the update is shrunk by ``learning_rate``.  Bins:
    the ``stumps`` rule with ``max_bins`` ≤ 255 plus one bin for NaN.
    """

    name = "trees"
    aliases = ("tree", "gbdt")
    parameters = (
        Parameter("max_leaves", int, default=31, minimum=2, doc="leaves per tree"),
        Parameter("learning_rate", float, default=0.1, minimum=0.0, exclusive_minimum=True,
                  doc="shrinkage of each tree's step"),
        Parameter("max_depth", int, default=-1, minimum=-1, doc="depth limit (-1: none; 0 is refused)"),
        Parameter("growth", str, default="leafwise", choices=("leafwise", "depthwise"),
                  doc="leafwise: best leaf first, one pass per split; depthwise: a whole level per pass"),
        Parameter("min_samples_leaf", int, default=20, minimum=1, doc="rows per leaf, at least"),
        Parameter("min_child_weight", float, default=1e-3, minimum=0.0,
                  doc="sum of curvatures per leaf, at least, in units of the mean per-row curvature"),
        Parameter("l2", float, default=0.0, minimum=0.0, doc="L2 penalty of the leaf values"),
        Parameter("subsample", float, default=0.8, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of rows per tree (seeded; 1 = every row)"),
        Parameter("colsample", float, default=1.0, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of features per tree"),
        Parameter("max_bins", int, default=255, minimum=2, maximum=MAX_TREE_BINS, doc="bins per feature (<= 255)"),
        Parameter("bin_subsample", int, default=200_000, minimum=2,
                  doc="rows sampled to place the bins (>= 2: one row places no bin edge)"),
    )
    # (the contract's derivative check needs every row, subsample=1: with subsample < 1
    # the candidate's derivative sums over the sampled rows only)
    examples = ("trees:subsample=1", "trees:max_leaves=63,learning_rate=0.05,subsample=1",
                "trees:max_leaves=7,max_depth=2,l2=1,colsample=0.5,subsample=1")
    allow_nan = True
    bounded = False
    # Trees fit the training set far more closely than stumps, so a milder push
    # generalizes better: on the shared datasets (docs/top_of_list.md) pow:2 gave
    # the best test pAUC@0.1 on average (small and large sets alike) against pow:4,
    # pow:3 and identity, at the same prec@k.
    default_price = "pow:2"
    # subsample=0.8 by default (stochastic gradient boosting): each tree sees a
    # seeded 80 % of the rows. On the ten shared sets with at most 1,000 rows
    # (20 splits, two independent sets of splits) it raised test pAUC@0.1 by
    # 0.005-0.010 and AUC by 0.006-0.009 over every row, and cost at most 0.002 on
    # the larger sets (docs/top_of_list.md, *Are the trees' defaults the best*).
    # Feature subsampling (colsample) and an L2 leaf penalty gained as much on the
    # small sets but lost up to 0.03 pAUC on ijcnn1, so they stay off.

    def _validate(self) -> None:
        for name in ("learning_rate", "min_child_weight", "l2"):
            if not math.isfinite(getattr(self, name)):
                raise SpecError(f"learner {self.name!r}: {name} must be a finite number, got {getattr(self, name)!r}")
        # values no data can split with (legal values that cannot split *some* data warn at fit instead)
        if self.max_depth == 0:
            raise SpecError(f"learner {self.name!r}: max_depth must be -1 (no limit) or >= 1, got 0 "
                            "(a tree of depth 0 has no split)")

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1):
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        edges = _tree_edges(np.asarray(X), self.max_bins, sample_weight, self.bin_subsample, random_state)
        return self.layout_from_edges(edges, random_state=random_state, n_threads=n_threads)

    def prepare_distributed(self, rows, *, thresholds=None, random_state=None, n_threads=1):
        """``prepare``'s bin edges from the rows ``sample_rows`` draws (``bin_subsample`` of them)."""
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        Xs, ws = rows.sample(self.bin_subsample, random_state)
        edges = _tree_edges(np.asarray(Xs), self.max_bins, ws, None, None)
        return self.layout_from_edges(edges, random_state=random_state, n_threads=n_threads)

    def layout_from_edges(self, edges: list[np.ndarray], *, random_state: Any = None,
                          n_threads: int = 1) -> "TreeLayout":
        """The layout for given bin edges (a distributed fit computes the edges from a sample)."""
        params = {name: getattr(self, name) for name in ("max_leaves", "learning_rate", "max_depth",
                                                         "min_samples_leaf", "min_child_weight", "l2",
                                                         "subsample", "colsample", "growth")}
        return TreeLayout(edges, params, random_state=random_state, n_threads=n_threads)

    def ranker_from_state(self, state):
        return tree_arrays_from_state(state)

    @staticmethod
    def predict_sum(rankers, alphas, X, n_threads: int = 1) -> np.ndarray:
        """Σ_t α_t h_t(x) for a list of trees, in one parallel pass over the rows (Cython)."""
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        out = np.empty(X.shape[0])
        if not rankers:
            out[:] = 0.0
            return out
        sizes = np.array([r.n_nodes for r in rankers], dtype=np.intp)
        roots = np.ascontiguousarray(np.r_[0, np.cumsum(sizes)[:-1]], dtype=np.intp)
        cat = {f: np.ascontiguousarray(np.concatenate([getattr(r, f) for r in rankers]))
               for f in ("feature", "threshold", "nan_left", "left", "right", "value")}
        _tree_kernels.predict_trees(X, cat["feature"], cat["threshold"], cat["nan_left"], cat["left"],
                                    cat["right"], cat["value"], roots,
                                    np.ascontiguousarray(alphas, dtype=np.float64), out, int(n_threads))
        return out
