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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._base import Candidate
from ._no_split import free_split_gain, underflow_reason, unsplit_reason
from ._ranker import TIE_TOLERANCE, TreeRanker

__all__ = ["TreeSearch"]


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
        self.root_gains: bool | None = None      # an unconstrained split of the root gains (when none was found)
        self.done = False

    # -- protocol ------------------------------------------------------
    def receive(self, total: np.ndarray | None) -> None:
        request = self._take_request()
        if request["op"] == "root":
            G, H, C = self._root_sums(total)
            self.nodes.append({"depth": 0, "G": G, "H": H, "count": C, "parent": -1})
            if C <= 0 or not self.layout.n_features:
                self.done = True
                return
            # min_child_weight counts average rows: objectives normalize their curvature differently
            self.min_weight = self.layout.min_child_weight * (H / C)
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
                derivative += node["G"] * value[i]
        self.layout.last_no_split = underflow_reason(value, lam)
        if self.layout.last_no_split is not None:         # the tree is no direction at all
            return None
        ranker = TreeRanker(self.layout.column_of(feature), threshold, nan_left, left, right, value, gain, bins=bins,
                            categories=categories if any(c is not None for c in categories) else None)
        ranker.bin_sets = bin_sets
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
        self.splits[node_id] = lay.best_split(self.hists[node_id], self.feature_mask, self.min_weight, self.cat_smooth,
                                              node=node_id, seed=self.seed)
        if self.splits[node_id] is None:
            if node_id == 0:              # did a constraint block, or does nothing gain? (unsplit_reason)
                hist = self.hists[0]
                self.root_gains = free_split_gain([hist[lay.feature_slots(j)] for j in range(lay.n_features)],
                                                  self.feature_mask, lay.l2, TIE_TOLERANCE)
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
                "left_bins": None if best.left_bins is None else [int(v) for v in best.left_bins],
                "left_id": a, "right_id": b, "smaller": smaller, "histogram": histogram}
