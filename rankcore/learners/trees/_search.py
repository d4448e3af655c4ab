"""The client side of the ``trees`` learner's multi-pass search (the public protocol).

:class:`TreeSearch` takes every decision of one tree from the histograms of
its nodes summed over the blocks of rows (see ``rankcore.learners._base``,
"Multi-pass searches"): which leaf to split, on which feature and bin, and
what the blocks do next.  ``_grow.pyx`` takes the same decisions in the
same order, with the same floating-point operations, for one block in memory
(``TreeLayout.search_in_memory``): both give the same tree bit for bit.

A node's histogram is an (S, 3) array of (Σg, Σh, count) per slot (see
``_histogram.pyx``): feature j's bins and its NaN bin are the slots
``base[j] .. base[j] + n_edges[j] + 1``.

With monotone constraints (``layout.monotone``) every node carries bounds
(lo, hi) -- the root's ±inf -- that the split scan clamps its children's
values to, a split on a constrained feature bounds its children by the
midpoint of their values (``_split.child_bounds``, the grower's arithmetic),
and a leaf's value is clamped to its bounds.

With interaction constraints (``layout.interactions``) every node carries
its live groups (``_interactions.py``: the groups holding its path's
features) and is scanned on the tree's features within them -- the native
grower's rule (``_interaction_rule.pxd``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _split
from .._base import Candidate
from .._curvature_floor import curvature_floor
from ._no_split import root_gains, uncapped_derivative, underflow_reason, unsplit_reason
from ._ranker import TIE_TOLERANCE, TreeRanker

__all__ = ["TreeSearch", "BatchedTreeSearch", "curvature_floor"]


#: The bounds of a node whose value nothing clamps.
_FREE = (-math.inf, math.inf)


@dataclass
class _Split:
    gain: float
    feature: int
    bin: int                              # numeric: right iff bin > this; categorical: the left group's size
    nan_left: bool
    left: tuple[float, float, float]      # (G, H, count) of the left child
    right: tuple[float, float, float]
    left_bins: tuple[int, int, int, int] | None = None     # categorical: the bins going left, 256 bits


class MultiPassSearch:
    """The protocol both tree searches share: hand out the pending request, or the next pass's.

    A subclass sets ``layout``, ``pending`` (the root request) and ``done``,
    and implements ``_next_pass`` (the next request, or None when done) and
    ``receive`` (which starts with :meth:`_take_request`).
    """

    def next_request(self):
        if self.pending is not None:
            return self.pending
        if self.done:
            return None
        return self._next_pass()

    def _take_request(self) -> dict:
        """The pending request, now answered (a RuntimeError when there was none)."""
        request, self.pending = self.pending, None
        if request is None:
            raise RuntimeError(f"{type(self).__name__}.receive called without a pending request")
        return request

    def _root_sums(self, total: np.ndarray | None) -> tuple[float, float, float]:
        """The root's (G, H, count): feature 0's slots of the summed histogram, in order."""
        if total is None or not self.layout.n_features:
            return 0.0, 0.0, 0.0
        G, H, C = (float(v) for v in total[self.layout.feature_slots(0)].sum(axis=0))
        return G, H, C


class TreeSearch(MultiPassSearch):
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
        self.cat_smooth = 0.0
        # an unconstrained split of the root gains (when none was found); "cap": gains, but none under the cap
        self.root_gains: bool | str | None = None
        self.done = False

    # -- protocol ------------------------------------------------------
    def receive(self, total: np.ndarray | None) -> None:
        request = self._take_request()
        if request["op"] == "root":
            G, H, C = self._root_sums(total)
            self.nodes.append({"depth": 0, "G": G, "H": H, "count": C, "parent": -1,
                               "bounds": _root_bounds(self.layout), "groups": _root_groups(self.layout)})
            if C <= 0 or not self.layout.n_features:
                self.done = True
                return
            self.min_weight = curvature_floor(self.layout.min_child_weight, H, C, self.layout.curvature_unit)
            self.cat_smooth = self.layout.cat_smooth * (H / C)
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
            self.layout.last_no_split = unsplit_reason(self.layout, rows, _node_mask(self.layout, _root_groups(
                self.layout), self.feature_mask), self.root_gains)
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
        bin_sets = np.zeros((n, 4), dtype=np.uint64)
        categories: list = [None] * n
        lam = self.layout.l2
        derivative = 0.0
        for i, node in enumerate(nodes):
            if "children" in node:
                split = node["split"]
                feature[i], bins[i], nan_left[i] = split.feature, split.bin, split.nan_left
                if split.left_bins is None:
                    threshold[i] = self.layout.threshold_of(split.feature, split.bin)
                else:
                    bin_sets[i] = split.left_bins
                    categories[i] = self.layout.category_values(split.feature, split.left_bins)
                left[i], right[i] = node["children"]
                gain[i] = split.gain
            else:
                value[i] = -node["G"] / (node["H"] + lam)
                if node["bounds"] != _FREE:         # clamped to its bounds (monotone, a cap), as the grower does
                    value[i] = _split.clamped(value[i], *node["bounds"])
                derivative += node["G"] * value[i]
        self.layout.last_no_split = underflow_reason(value, lam, float(getattr(self.layout, "max_delta_step", 0.0)))
        if self.layout.last_no_split is not None:         # the tree is no direction at all
            return None
        ranker = TreeRanker(self.layout.column_of(feature), threshold, nan_left, left, right, value, gain, bins=bins,
                            categories=categories if any(c is not None for c in categories) else None,
                            cover=[node["count"] for node in nodes])
        ranker.bin_sets = bin_sets
        ranker.search_id = self.seed          # lets evaluate() read h from the blocks' row partition
        if float(getattr(self.layout, "max_delta_step", 0.0)) > 0:   # for the stop rule (``stalled_reason``)
            leaves = [node for node in nodes if "children" not in node]
            ranker.uncapped_derivative = uncapped_derivative(np.array([node["G"] for node in leaves]),
                                                             np.array([node["H"] for node in leaves]), lam)
        return Candidate(ranker, float(derivative))

    # -- growth --------------------------------------------------------
    def _consider(self, node_id: int) -> None:
        node = self.nodes[node_id]
        lay = self.layout
        if (lay.max_depth >= 0 and node["depth"] >= lay.max_depth) or node["count"] < 2 * lay.min_samples_leaf:
            self.splits[node_id] = None
            self._release(node_id)
            return
        mask = _node_mask(lay, node["groups"], self.feature_mask)
        self.splits[node_id] = lay.best_split(self.hists[node_id], mask, self.min_weight, self.cat_smooth,
                                              node=node_id, seed=self.seed, bounds=node["bounds"])
        if self.splits[node_id] is None:
            if node_id == 0:              # did a constraint block, or does nothing gain? (unsplit_reason)
                hist = [self.hists[0][lay.feature_slots(j)] for j in range(lay.n_features)]
                self.root_gains = root_gains(hist, mask, lay.l2, TIE_TOLERANCE,
                                             float(getattr(lay, "max_delta_step", 0.0)))
            self._release(node_id)

    def _release(self, node_id: int) -> None:
        hist = self.hists.pop(node_id, None)
        if hist is not None:
            self.layout.release_histograms([hist])

    def _next_pass(self):
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

    def _record_split(self, node_id: int, best: _Split, last: bool) -> tuple[int, int, bool]:
        """Record the split of ``node_id``: its two children's ids, and whether either may still be split."""
        lay = self.layout
        del self.splits[node_id]
        parent = self.nodes[node_id]
        a, b = len(self.nodes), len(self.nodes) + 1
        parent["children"] = (a, b)
        parent["split"] = best
        depth = parent["depth"] + 1
        bounds = _child_bounds(lay, parent["bounds"], best)
        groups = _child_groups(lay, parent["groups"], best)
        for stats, child_bounds in zip((best.left, best.right), bounds):
            self.nodes.append({"depth": depth, "G": stats[0], "H": stats[1], "count": stats[2], "parent": node_id,
                               "bounds": child_bounds, "groups": groups})
        splittable = not last and (lay.max_depth < 0 or depth < lay.max_depth) and any(
            s[2] >= 2 * lay.min_samples_leaf for s in (best.left, best.right))
        return a, b, splittable

    def _split_request(self, node_id: int, best: _Split, last: bool) -> dict:
        """Record the split of ``node_id`` (its two children) and describe it for the blocks."""
        # the children's histograms are needed only if one of them may still be split
        a, b, histogram = self._record_split(node_id, best, last)
        if not histogram:
            self.hists.pop(node_id, None)
            self.splits[a] = self.splits[b] = None
        smaller = "left" if best.left[2] <= best.right[2] else "right"
        return {"node": node_id, "feature": best.feature, "bin": best.bin, "nan_left": bool(best.nan_left),
                "left_bins": None if best.left_bins is None else [int(v) for v in best.left_bins],
                "left_id": a, "right_id": b, "smaller": smaller, "histogram": histogram}


class BatchedTreeSearch(TreeSearch):
    """Leaf-wise growth in few passes: each pass partitions every node the growth may split next.

    The leaf-wise rule needs the children of the best leaf before it can
    choose the next one, so :class:`TreeSearch` asks for one pass per split.
    This search asks, in one pass, for the partitions (and the smaller
    children's histograms) of the nodes with the largest gains -- as many as
    the tree may still add leaves -- among the live leaves *and* the children
    of partitions already made (their best splits follow from their
    histograms alone when ``random_strength`` is 0).  It then takes the
    leaf-wise decisions on the client, one split at a time, and asks for
    another pass only when the leaf to split next has not been partitioned.
    The decisions, node ids and histograms are :class:`TreeSearch`'s, so the
    tree is the same; a node partitioned ahead and never split costs its
    histogram and stays a leaf.

    Blocks name nodes by *keys* this search hands out when it asks for a
    partition (a node's id is known only once the order of the splits is);
    the tree records each node's key (``block_nodes``), so that ``evaluate``
    reads h from the blocks' row ranges.  Histograms are kept whole per key
    (the sibling is subtracted into a new array), so none is handed back to
    the layout's pool while the search may read it.
    """

    def __init__(self, layout: "TreeLayout", seed: int, feature_mask: np.ndarray):
        super().__init__(layout, seed, feature_mask)
        self.keys: dict[int, int] = {0: 0}          # node id -> the blocks' key of its rows
        self.next_key = 1
        self.key_hist: dict[int, np.ndarray] = {}   # key -> its summed histogram, when known
        self.key_size: dict[int, tuple[int, float]] = {0: (0, 0.0)}      # key -> (depth, rows)
        self.key_split: dict[int, _Split | None] = {}                    # key -> its split, when worked out
        self.parted: dict[int, tuple] = {}          # key -> (split, left key, right key) partitioned on the blocks
        self.asked: list[tuple[int, _Split, int]] = []      # the pending items' (key, split, depth)
        self.key_bounds: dict[int, tuple] = {0: _root_bounds(layout)}     # key -> its bounds (monotone, a cap)
        self.key_groups: dict[int, tuple | None] = {0: _root_groups(layout)}  # key -> its live groups (interactions)

    def receive(self, total: np.ndarray | None) -> None:
        if self.pending is None or self.pending["op"] != "splits":
            super().receive(total)
            if 0 in self.hists:
                self.key_hist[0] = self.hists[0]
                self.key_size[0] = (0, self.nodes[0]["count"])
            return
        request = self._take_request()
        k = 0
        for (key, split, depth), item in zip(self.asked, request["items"]):
            left_key, right_key = item["left_id"], item["right_id"]
            self.parted[key] = (split, left_key, right_key)
            self.key_size[left_key] = (depth, split.left[2])
            self.key_size[right_key] = (depth, split.right[2])
            self.key_bounds[left_key], self.key_bounds[right_key] = _child_bounds(self.layout, self.key_bounds[key],
                                                                                  split)
            self.key_groups[left_key] = self.key_groups[right_key] = _child_groups(self.layout, self.key_groups[key],
                                                                                   split)
            if item["histogram"]:
                small = total[k]
                k += 1
                # TreeSearch's subtraction, not in place: into a buffer of the layout's, handed back by result()
                large = np.subtract(self.key_hist[key], small, out=self.layout._new_histogram())
                self.key_hist[left_key], self.key_hist[right_key] = (
                    (small, large) if item["smaller"] == "left" else (large, small))

    def _release(self, node_id: int) -> None:
        self.hists.pop(node_id, None)                # kept by key: not handed back to the pool

    def _next_pass(self):
        lay = self.layout
        while True:
            n_leaves = sum(1 for nd in self.nodes if "children" not in nd)
            live = {i: sp for i, sp in self.splits.items() if sp is not None}
            if n_leaves >= lay.max_leaves or not live:
                self.done = True
                return None
            top = max(sp.gain for sp in live.values())
            # TreeSearch's choice: ties (within rounding) go to the smallest node id
            best_id = min(i for i, sp in live.items() if sp.gain >= top - TIE_TOLERANCE * top)
            parted = self.parted.get(self.keys[best_id])
            if parted is None or not _same_split(parted[0], live[best_id]):
                return self._ask_ahead(best_id, live, n_leaves)
            self._split_ahead(best_id, live[best_id], parted[1:], n_leaves + 1 >= lay.max_leaves)

    def _shadow_split(self, key: int) -> _Split | None:
        """The split a node not yet in the tree will have (known only without random_strength)."""
        if key not in self.key_split:
            lay = self.layout
            depth, rows = self.key_size[key]
            hist = self.key_hist.get(key)
            if (hist is None or lay.random_strength > 0 or (lay.max_depth >= 0 and depth >= lay.max_depth)
                    or rows < 2 * lay.min_samples_leaf):
                self.key_split[key] = None
            else:
                self.key_split[key] = lay.best_split(hist, _node_mask(lay, self.key_groups[key], self.feature_mask),
                                                     self.min_weight, self.cat_smooth, seed=self.seed,
                                                     bounds=self.key_bounds[key])
        return self.key_split[key]

    def _ask_ahead(self, best_id: int, live: dict, n_leaves: int) -> dict:
        """The pass partitioning ``best_id`` and the nodes with the next largest gains."""
        lay = self.layout
        in_tree = set(self.keys.values())
        known = [(sp.gain, self.keys[i], sp, self.nodes[i]["depth"]) for i, sp in live.items()]
        for key in self.key_hist:
            if key not in in_tree and (split := self._shadow_split(key)) is not None:
                known.append((split.gain, key, split, self.key_size[key][0]))
        # the leaves the tree may still add are at most the budget: the budget's largest gains, known so far
        known.sort(key=lambda item: (-item[0], item[1]))
        chosen = [item for item in known[:lay.max_leaves - n_leaves] if item[1] not in self.parted]
        first = next(item for item in known if item[1] == self.keys[best_id])
        chosen = [first] + [item for item in chosen if item is not first]
        self.asked, items = [], []
        for _, key, best, depth in chosen:
            child_depth = depth + 1
            # histograms only if a child may be split afterwards (the last split's children are not)
            histogram = n_leaves + 1 < lay.max_leaves and (lay.max_depth < 0 or child_depth < lay.max_depth) and any(
                s[2] >= 2 * lay.min_samples_leaf for s in (best.left, best.right))
            items.append({"node": key, "feature": best.feature, "bin": best.bin, "nan_left": bool(best.nan_left),
                          "left_bins": None if best.left_bins is None else [int(v) for v in best.left_bins],
                          "left_id": self.next_key, "right_id": self.next_key + 1,
                          "smaller": "left" if best.left[2] <= best.right[2] else "right", "histogram": histogram})
            self.asked.append((key, best, child_depth))
            self.next_key += 2
        self.pending = {"op": "splits", "id": self.seed, "items": items}
        return self.pending

    def _split_ahead(self, node_id: int, best: _Split, child_keys: tuple[int, int], last: bool) -> None:
        """Split ``node_id`` as :class:`TreeSearch` does, from the partition and histograms made ahead."""
        self.hists.pop(node_id, None)
        a, b, splittable = self._record_split(node_id, best, last)
        self.keys[a], self.keys[b] = child_keys
        if splittable:
            for child in (a, b):
                self.hists[child] = self.key_hist[self.keys[child]]
                self._consider(child)
        else:
            self.splits[a] = self.splits[b] = None

    def result(self) -> Candidate | None:
        """:meth:`TreeSearch.result`, with each node's key on the blocks (``ranker.block_nodes``)."""
        self.hists.clear()
        self.layout.release_histograms(self.key_hist.values())    # those owning their memory: the next tree's
        self.key_hist.clear()
        candidate = super().result()
        if candidate is not None:
            candidate.ranker.block_nodes = np.array([self.keys[i] for i in range(len(self.nodes))], dtype=np.int64)
        return candidate


def _same_split(a: _Split, b: _Split) -> bool:
    """Whether two splits partition the rows alike."""
    return (a.feature, a.bin, a.nan_left, a.left_bins) == (b.feature, b.bin, b.nan_left, b.left_bins)


def _child_bounds(layout, bounds: tuple[float, float], split: _Split) -> tuple[tuple, tuple]:
    """The bounds of a split's (left, right) children from the node's (``_split.child_bounds``)."""
    if getattr(layout, "monotone", None) is None:
        return bounds, bounds
    sign = 0 if split.left_bins is not None else int(layout.monotone[split.feature])
    a, b, c, d = _split.child_bounds(bounds[0], bounds[1], sign, split.left[0], split.left[1], split.right[0],
                                     split.right[1], float(layout.l2))
    return (a, b), (c, d)


def _root_bounds(layout) -> tuple[float, float]:
    """The root's bounds on the leaf values: ±``max_delta_step`` when it caps them, else ±inf (the children of a
    split on a feature without a monotone sign keep their node's)."""
    cap = float(getattr(layout, "max_delta_step", 0.0))
    return (-cap, cap) if cap > 0 else _FREE


def _root_groups(layout) -> tuple | None:
    """The root's live interaction groups (all of them), or None without interaction constraints."""
    groups = getattr(layout, "interactions", None)
    return None if groups is None else groups.root


def _child_groups(layout, live: tuple | None, split: _Split) -> tuple | None:
    """The live groups of a split's children from the node's: those holding the split feature."""
    return None if live is None else layout.interactions.after(live, split.feature)


def _node_mask(layout, live: tuple | None, feature_mask: np.ndarray) -> np.ndarray:
    """The features a node of ``live`` groups may split on: the tree's ``feature_mask`` within them."""
    return feature_mask if live is None else layout.interactions.mask(live, feature_mask)
