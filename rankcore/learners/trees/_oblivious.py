"""Oblivious (symmetric) trees: the client side of ``trees:growth=oblivious``'s multi-pass search.

An oblivious tree of depth D splits every node of level l on the same
(feature, threshold, NaN side), as CatBoost grows its trees (Prokhorenkova,
Gusev, Vorobev, Dorogush, Gulin, "CatBoost: unbiased boosting with
categorical features", 2018); its 2^D leaves are indexed by the bits
[x goes right at level l].  The shared split of a level maximizes the gain
G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ) summed over the level's nodes, each
node's from its own histogram (the histograms, passes and sibling
subtraction of the other growth modes: one pass per level, which asks the
blocks to split the level's nodes -- the depth-wise request).  Rows held in
one block grow the same tree in one native call (``_grow_oblivious.pyx``).

A node where the chosen split leaves fewer than ``min_samples_leaf`` rows or
``min_child_weight`` curvature on a side (or a node too small to split at
all) is not split: it stays one leaf, and the 2^(D−l) leaves below it share
its value -- the tree keeps its symmetric shape, every leaf value comes
from enough rows.  The search stops early (a shallower tree) when no
candidate gains at any node of a level.

Interaction constraints (``layout.interactions``, ``_interactions.py``):
every root-to-leaf path passes through every level, so the path features of
a level's nodes are the features of the levels above it, and the rule is one
mask per level: level l may split on feature j only if j and the features of
levels 0..l−1 lie together in some group -- the members of the groups that
hold every feature split on so far (the tree's *live* groups), within the
tree's colsample draw.  A level's own feature stays in every live group, so
only the root can find no feature to search (the tree then has no split).
The native grower keeps the same live groups (``_grow_oblivious.pyx``), so
both routes grow the same trees.

Monotone constraints (``layout.monotone``, signs per feature): a level's
candidates on a constrained feature add a node's gain only where the
children's Newton values keep the sign's order (``level_gains_add``'s
``signs``), and the grown tree's leaf values are the exact projection of its
Newton values onto the monotone order (``_oblivious_monotone.py``); the
native grower scores and projects alike.

A cap on the leaf values (``layout.max_delta_step`` = c > 0): each cell's
value is clamped to [−c, c], and a level is scored by the capped gains
(``level_gains_add``'s ``cap``): per node, the capped term of each child --
G²/(H+λ) while −G/(H+λ) lies within ±c, else −(2·G·w + (H+λ)·w²) at the
clamped w -- minus the node's own.  Every node of a level splits on the
level's split, so there is no node's split to refuse: a node whose two
children both sit at or beyond the same bound adds +0 (both cells and the
node take that bound: the split changes no score there, and its "gain"
would be −λ·c² plus rounding).  A level is refused as any level is, when no
candidate's summed gain is above 0 -- in particular when it changes no leaf
value.  The native grower scores alike (``set_monotone``'s ``cap``).

Depth: ``max_depth`` when it is >= 0; otherwise, from ``max_leaves``: below
its default 31, the deepest symmetric tree with at most ``max_leaves``
leaves, ⌊log₂ max_leaves⌋; from 31 on (the default), max(6, ⌊log₂ max_leaves⌋) -- 6 is
CatBoost's default depth, 64 leaves -- at most 16 (:func:`oblivious_depth`).
"""

from __future__ import annotations

import math

import numpy as np

from . import _oblivious_kernels as _kernels, _split
from .._base import Candidate
from ._no_split import root_gains, underflow_reason, unsplit_reason
from ._oblivious_monotone import monotone_cells, oblivious_uncapped
from ._oblivious_ranker import ObliviousTreeRanker
from ._ranker import TIE_TOLERANCE
from ._search import MultiPassSearch, curvature_floor

__all__ = ["ObliviousSearch", "oblivious_depth", "DEFAULT_DEPTH", "MAX_DEPTH"]

#: Depth of an oblivious tree when neither max_depth nor max_leaves says otherwise (CatBoost's).
DEFAULT_DEPTH = 6
#: Deepest oblivious tree (2^16 leaf values per tree, as CatBoost's limit).
MAX_DEPTH = 16
_DEFAULT_MAX_LEAVES = 31


def oblivious_depth(max_depth: int, max_leaves: int) -> int:
    """The depth of ``growth=oblivious`` trees for the learner's ``max_depth`` and ``max_leaves``."""
    if max_depth >= 0:
        depth = int(max_depth)
    elif max_leaves < _DEFAULT_MAX_LEAVES:          # at most max_leaves leaves
        return int(math.floor(math.log2(max_leaves)))
    else:                                           # the default 31 and more: 6 or deeper
        return min(max(DEFAULT_DEPTH, int(math.floor(math.log2(max_leaves)))), MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise ValueError(f"growth='oblivious': max_depth must be at most {MAX_DEPTH} (2^depth leaves), got {depth}")
    return depth


class ObliviousSearch(MultiPassSearch):
    """The client side of one oblivious tree's multi-pass search (the protocol of ``TreeSearch``).

    One pass for the root, then one per level: the request splits every
    node of the level that the shared split allows (``op == "splits"``).
    """

    def __init__(self, layout, seed: int, feature_mask: np.ndarray):
        self.layout = layout
        self.seed = int(seed)
        self.feature_mask = np.ascontiguousarray(feature_mask, dtype=np.uint8)
        self.depth = oblivious_depth(int(layout.max_depth), int(layout.max_leaves))
        self.nodes: list[dict] = []             # G, H, count; "split" (level) for split nodes
        self.level: list[int] = []              # this level's nodes, by cell (bit index of the rows' path)
        self.levels: list[tuple[int, int, bool, float]] = []   # (feature, bin, nan_left, gain) per level
        self.hists: dict[int, np.ndarray] = {}
        self.pending: dict | None = {"op": "root", "seed": self.seed, "id": self.seed}
        self.min_weight = 0.0
        self.root_gains: bool | None = None      # an unconstrained split of the root gains (when none was found)
        self.groups = getattr(layout, "interactions", None)    # InteractionGroups, or None: no constraints
        self.live = None if self.groups is None else self.groups.root           # the tree's live groups
        # the features the next level searches: the tree's own, within its live groups
        self.level_mask = self.feature_mask if self.groups is None else self.groups.mask(self.live, self.feature_mask)
        self.root_mask = self.level_mask
        self.done = False
        self.signs = getattr(layout, "monotone", None)       # int8 per feature, or None: no constraints
        self.cap = float(getattr(layout, "max_delta_step", 0.0))    # the cells' cap (0: none): capped level gains
        self._base = np.ascontiguousarray(layout.slots.base, dtype=np.intp)
        self._n_edges = np.ascontiguousarray(layout.n_edges, dtype=np.intp)

    # -- protocol ------------------------------------------------------
    def receive(self, total: np.ndarray | None) -> None:
        request = self._take_request()
        lay = self.layout
        if request["op"] == "root":
            G, H, C = self._root_sums(total)
            self.nodes.append({"G": G, "H": H, "count": C})
            self.level = [0]
            if C <= 0 or not lay.n_features or self.depth < 1:
                self.done = True
                return
            self.min_weight = curvature_floor(lay.min_child_weight, H, C, lay.curvature_unit)
            self.hists[0] = total
            return
        k = 0
        for item in request["items"]:
            parent = self.hists.pop(item["node"], None)
            if item["histogram"]:
                small = total[k]
                k += 1
                np.subtract(parent, small, out=parent)       # sibling subtraction in the parent's buffer
                a, b = item["left_id"], item["right_id"]
                small_id, large_id = (a, b) if item["smaller"] == "left" else (b, a)
                self.hists[small_id] = small
                self.hists[large_id] = parent
            elif parent is not None:
                lay.release_histograms([parent])

    def result(self) -> Candidate | None:
        """The tree: 2^D leaf values −G/(H+λ) by cell, derivative Σ_leaves G·v over the distinct leaves."""
        self.layout.release_histograms(self.hists.values())
        self.hists.clear()
        if not self.levels:
            rows = int(self.nodes[0]["count"]) if self.nodes else 0
            self.layout.last_no_split = unsplit_reason(self.layout, rows, self.root_mask, self.root_gains)
            return None
        lam = self.layout.l2
        value = np.empty(len(self.level))
        derivative = 0.0
        seen = set()
        cap = self.cap
        for cell, node_id in enumerate(self.level):
            node = self.nodes[node_id]
            value[cell] = -node["G"] / (node["H"] + lam)
            if cap > 0:                                     # the grower's clamp (``_split.clamped``)
                value[cell] = _split.clamped(value[cell], -cap, cap)
            if node_id not in seen:
                seen.add(node_id)
                derivative += node["G"] * value[cell]
        level_sign = self._level_signs()
        if level_sign is not None:                          # the leaves projected onto the monotone order
            value, derivative = monotone_cells(np.asarray(self.level), np.array([n["G"] for n in self.nodes]),
                                               np.array([n["H"] for n in self.nodes]), lam, level_sign, cap)
        self.layout.last_no_split = underflow_reason(value, lam, cap)
        if self.layout.last_no_split is not None:         # the tree is no direction at all
            return None
        feature, bins, nan_left, gain = (np.array(v) for v in zip(*self.levels))
        threshold = np.array([self.layout.threshold_of(int(j), int(b)) for j, b in zip(feature, bins)])
        ranker = ObliviousTreeRanker(self.layout.column_of(feature), threshold, nan_left, value, gain, bins=bins,
                                     cover=self._cell_covers())
        ranker.search_id = self.seed          # lets evaluate() know the tree is the block's current one
        if cap > 0:                           # for the stop rule (``stalled_reason``)
            G, H = (np.array([n[key] for n in self.nodes]) for key in ("G", "H"))
            ranker.uncapped_derivative = oblivious_uncapped(np.asarray(self.level), G, H, lam, level_sign)
        return Candidate(ranker, float(derivative))

    def _level_signs(self) -> np.ndarray | None:
        """Each level's monotone sign (its feature's), or None when no level splits a constrained feature."""
        if self.signs is None:
            return None
        signs = self.signs[[j for j, _, _, _ in self.levels]]
        return signs if signs.any() else None

    def _cell_covers(self) -> np.ndarray:
        """Each cell's cover: its node's row count, shared equally by the cells below a node that was not split
        (as ``ObliviousGrower.cell_covers``)."""
        share = np.bincount(np.asarray(self.level), minlength=len(self.nodes))
        return np.array([self.nodes[i]["count"] / share[i] for i in self.level], dtype=np.float64)

    # -- growth --------------------------------------------------------
    def _splittable(self, node_id: int) -> bool:
        return node_id in self.hists and self.nodes[node_id]["count"] >= 2 * self.layout.min_samples_leaf

    def _next_pass(self):
        """The shared split of the next level and the request that applies it, or None (the tree is done)."""
        lay = self.layout
        if len(self.levels) >= self.depth:
            self.done = True
            return None
        active = sorted({i for i in self.level if self._splittable(i)})
        if not active:
            self.done = True
            return None
        mask = self.level_mask
        gains = np.zeros((lay.n_slots, 2))
        for i in active:
            _kernels.level_gains_add(self.hists[i], self._base, self._n_edges, mask,
                                     float(lay.min_samples_leaf), float(self.min_weight), float(lay.l2), gains,
                                     int(lay.n_threads), self.signs, self.cap)
        # the noise is keyed by the columns of X (``TreeLayout.columns``), as the in-memory grower keys it
        best = _kernels.level_best(gains, self._base, self._n_edges, mask, TIE_TOLERANCE,
                                   float(lay.random_strength), self.seed, len(self.levels), lay.columns)
        if best is None:
            if not self.levels:           # did a constraint block, or does nothing gain? (unsplit_reason)
                hist = self.hists[0]
                self.root_gains = root_gains([hist[lay.feature_slots(j)] for j in range(lay.n_features)],
                                             mask, lay.l2, TIE_TOLERANCE, self.cap)
            self.done = True
            return None
        j, b, nan_left, gain = best
        children = {i: self._children(i, j, b, nan_left) for i in active}
        nan_slot = lay.feature_slots(j).stop - 1
        if not any(self.hists[i][nan_slot, 2] > 0 for i in active):
            # no NaN of feature j at this level: an unseen NaN goes to the side with more rows
            left = sum(c[0][2] for c in children.values() if c is not None)
            right = sum(c[1][2] for c in children.values() if c is not None)
            nan_left = left >= right
        self.levels.append((j, b, bool(nan_left), float(gain)))
        if self.groups is not None:             # the next level's features: those that join j in a live group
            self.live = self.groups.after(self.live, j)
            self.level_mask = self.groups.mask(self.live, self.feature_mask)
        return self._split_level(active, children, j, b, bool(nan_left))

    def _children(self, node_id: int, j: int, b: int, nan_left: bool):
        """((G, H, count) left, right) of the node under split (j, b, nan_left), or None if it does not allow it."""
        lay = self.layout
        fh = self.hists[node_id][lay.feature_slots(j)]
        # the kernel's sums, in its order: bins 0..b (+ NaN on its side); the total over bins then NaN
        sums = np.cumsum(fh, axis=0)
        left = sums[b] + fh[-1] if nan_left else sums[b]
        right = sums[-1] - left
        if (left[2] < lay.min_samples_leaf or right[2] < lay.min_samples_leaf or left[1] < self.min_weight
                or right[1] < self.min_weight or left[1] + lay.l2 <= 0 or right[1] + lay.l2 <= 0):
            return None
        return tuple(float(v) for v in left), tuple(float(v) for v in right)

    def _split_level(self, active: list[int], children: dict, j: int, b: int, nan_left: bool) -> dict | None:
        """Split the level's nodes that allow (j, b, nan_left); the next level's cells; the blocks' request."""
        lay = self.layout
        size = len(self.level)
        last = len(self.levels) >= self.depth
        new_level = list(self.level) * 2                  # right children: cell + size (bit l set)
        items = []
        for cell, node_id in enumerate(self.level):
            stats = children.get(node_id) if node_id in active else None
            if stats is None:
                continue                                   # stays one leaf: its cells below share it
            a, c = len(self.nodes), len(self.nodes) + 1
            self.nodes[node_id]["split"] = len(self.levels) - 1
            for s in stats:
                self.nodes.append({"G": s[0], "H": s[1], "count": s[2]})
            new_level[cell], new_level[cell + size] = a, c
            histogram = not last and any(s[2] >= 2 * lay.min_samples_leaf for s in stats)
            items.append({"node": node_id, "feature": j, "bin": b, "nan_left": nan_left, "left_bins": None,
                          "left_id": a, "right_id": c, "smaller": "left" if stats[0][2] <= stats[1][2] else "right",
                          "histogram": histogram, "op": "split"})
        for i in active:
            if i not in children or children[i] is None:
                hist = self.hists.pop(i, None)
                if hist is not None:
                    lay.release_histograms([hist])
        self.level = new_level
        if not items:                                      # cannot happen: the best gain came from some node
            self.done = True
            return None
        self.pending = {"op": "splits", "id": self.seed, "items": items}
        return self.pending
