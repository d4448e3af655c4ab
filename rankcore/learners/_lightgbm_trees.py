"""Weak rankers as LightGBM trees: the node tables of LightGBM's text model format, with α folded in.

A LightGBM tree of L leaves has L − 1 internal nodes, numbered from the root
(0); a child reference ``c >= 0`` is internal node c, ``c < 0`` is leaf
``~c`` (= −c − 1).  At an internal node a value x goes left iff

* numeric node: ``x <= threshold`` (compared in double); NaN by the
  ``default_left`` bit of ``decision_type`` when its missing type is NaN;
* categorical node: x ≥ 0 and ``int(x)`` (the integer part) is in the
  node's bitset of categories; NaN and negative values go right.

``decision_type`` packs: bit 0 categorical, bit 1 default left, bits 2–3 the
missing type (0 none, 1 zero, 2 NaN).  The conversions below write every
numeric node with missing type NaN, so NaN goes exactly where the rankcore
split sends it, and every threshold as the rankcore threshold itself: both
route "right iff x > t" in double (float32 input is widened exactly, in
rankcore's walk and in LightGBM's), so no threshold needs moving.

Leaf values are α_t times the rankcore leaf values -- the product the
prediction kernels form -- so the trees' outputs, added in tree order from
0 as LightGBM adds them, are ``decision_function`` bit for bit.  Leaf and
internal counts are the trees' covers (training rows of the row sample,
which LightGBM's TreeSHAP weighs the branches by), made integers: the
leaves' scaled to fit LightGBM's int32, each internal count the sum of its
children's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["LightGBMTree", "lightgbm_tree", "CATEGORICAL", "DEFAULT_LEFT", "MISSING_NAN", "MAX_CATEGORY"]

#: ``decision_type`` bits of LightGBM's format.
CATEGORICAL, DEFAULT_LEFT, MISSING_NAN = 1, 2, 2 << 2
#: Largest category a LightGBM split may hold here (a split stores its categories as a bitset of max + 1 bits).
MAX_CATEGORY = (1 << 24) - 1
#: LightGBM's counts are int32.
_MAX_COUNT = (1 << 31) - 1
#: Most leaves a written tree may have (copies under NaN tests included).
_MAX_LEAVES = 1 << 20
#: A numeric threshold sending every finite value left (rankcore refuses infinite X), NaN by the missing side.
_ALL_FINITE_LEFT = float(np.finfo(np.float64).max)


@dataclass
class LightGBMTree:
    """One tree in LightGBM's node-table form.

    Internal nodes (lists of L − 1): ``split_feature``, ``split_gain``,
    ``threshold`` (a categorical node's: its index among the tree's
    categorical nodes), ``decision_type``, ``left_child``, ``right_child``,
    ``internal_value``, ``internal_count``.  Leaves (lists of L):
    ``leaf_value`` (α already folded in), ``leaf_count``, ``leaf_source``
    (the rankcore leaf each LightGBM leaf stands for: its index into the
    ranker's ``value`` array, as ``apply`` numbers it).  ``cat_sets``: the
    categorical nodes' left categories, in the order of their thresholds.
    """

    split_feature: list = field(default_factory=list)
    split_gain: list = field(default_factory=list)
    threshold: list = field(default_factory=list)
    decision_type: list = field(default_factory=list)
    left_child: list = field(default_factory=list)
    right_child: list = field(default_factory=list)
    internal_value: list = field(default_factory=list)
    internal_count: list = field(default_factory=list)
    leaf_value: list = field(default_factory=list)
    leaf_count: list = field(default_factory=list)
    leaf_source: list = field(default_factory=list)
    cat_sets: list = field(default_factory=list)

    @property
    def num_leaves(self) -> int:
        return len(self.leaf_value)

    def add_internal(self, feature: int, threshold: float, decision_type: int, gain: float, count: int,
                     value: float) -> int:
        """Append an internal node (children set later); its index."""
        self.split_feature.append(int(feature))
        self.threshold.append(float(threshold))
        self.decision_type.append(int(decision_type))
        self.split_gain.append(float(gain))
        self.internal_count.append(int(count))
        self.internal_value.append(float(value))
        self.left_child.append(0)
        self.right_child.append(0)
        return len(self.split_feature) - 1

    def add_leaf(self, value: float, count: int, source: int) -> int:
        """Append a leaf; its child reference ``~index``."""
        self.leaf_value.append(float(value))
        self.leaf_count.append(int(count))
        self.leaf_source.append(int(source))
        return ~(len(self.leaf_value) - 1)


def lightgbm_tree(ranker, alpha: float, *, where: str = "tree", category_counts=None) -> LightGBMTree:
    """The LightGBM tree of a rankcore weak ranker times ``alpha``.

    Reads the ranker by its ``kind``: ``"tree"`` (leaf-wise or depth-wise
    growth), ``"oblivious_tree"`` (expanded into the full binary tree of
    2^depth leaves, leaf k being cell k), ``"threshold"`` (a stump
    1[x_j > t]: two leaves, 0 and α).  ``where`` names the ranker in errors.
    ``category_counts``: per feature, the number K of its known categories
    (a DataFrame's ``category`` column, coded 0..K − 1) or None; a
    categorical split sending NaN left on such a column is written as the
    complement of its categories rather than with a copy (see
    :func:`_from_tree`).

    Raises
    ------
    TypeError
        Another kind of weak ranker.
    ValueError
        A categorical split whose left categories are not integers from 0 to
        :data:`MAX_CATEGORY` (LightGBM's categories are such codes), or a tree
        that would have more than ``2^20`` leaves once written (refused
        before it is built).
    """
    kind = getattr(ranker, "kind", None)
    if kind == "tree":
        return _from_tree(ranker, alpha, where, category_counts)
    if kind == "oblivious_tree":
        return _from_oblivious(ranker, alpha)
    if kind == "threshold":
        out = LightGBMTree()
        out.add_internal(ranker.feature, ranker.threshold, MISSING_NAN | DEFAULT_LEFT, 0.0, 0, 0.0)
        # h = 1[x > t]; NaN > t is false: NaN goes left, as the missing side says
        out.left_child[0] = out.add_leaf(alpha * 0.0, 0, 0)
        out.right_child[0] = out.add_leaf(alpha * 1.0, 0, 1)
        return out
    raise TypeError(f"{where}: a weak ranker of kind {kind!r} is not a tree or a stump; LightGBM's format holds "
                    f"trees (use learner='trees' or 'stumps')")


def integer_counts(cover) -> np.ndarray | None:
    """``cover`` as int64 counts LightGBM can read (int32), the same up to one factor (TreeSHAP reads ratios).

    Covers are row counts, except below an oblivious node that was not
    split, where 2^m cells share its rows equally: scaled by the least
    power of two making them integers, when their sum still fits in int32,
    else scaled so that the sum, rounded value by value, still does (each
    value at most half off).  None when the ranker has no covers.
    """
    if cover is None:
        return None
    cover = np.asarray(cover, dtype=np.float64)
    total = float(cover.sum())
    for bits in range(0, 17):
        scaled = cover * float(1 << bits)
        if total * (1 << bits) > _MAX_COUNT:
            break
        if np.array_equal(scaled, np.round(scaled)):
            return scaled.astype(np.int64)
    # each value rounds up by at most 1/2: the margin of one per value keeps the rounded sum within int32
    factor = min(1.0, (_MAX_COUNT - cover.size) / total) if total > 0 else 1.0
    return np.floor(cover * factor + 0.5).astype(np.int64)


def _weighted_mean(values: np.ndarray, counts: np.ndarray | None) -> float:
    if counts is None or counts.sum() <= 0:
        return 0.0
    return float(np.dot(values, counts) / counts.sum())


def _check_categories(categories: np.ndarray, where: str, node: int) -> np.ndarray:
    cats = np.asarray(categories, dtype=np.float64)
    bad = cats[(cats < 0) | (cats > MAX_CATEGORY) | (cats != np.floor(cats))]
    if bad.size:
        raise ValueError(f"{where}: categorical split at node {node} sends category {float(bad[0])!r} left; LightGBM "
                         f"categories are integer codes from 0 to {MAX_CATEGORY} (renumber the column's categories "
                         f"as 0, 1, 2, ... and refit: a DataFrame's 'category' columns are coded so already)")
    return cats.astype(np.int64)


@dataclass
class _Plan:
    """What a leaf-wise or depth-wise tree becomes, node by node (rankcore's node ids), before anything is built.

    ``copied[v]``: a categorical split sending NaN left written as a NaN test
    and a copy of its left subtree; ``complement[v]``: such a split written
    as the complement of its categories among the column's K, children
    swapped; ``value[v]``: the cover-weighted mean of α times the leaf values
    below v.
    """

    order: list
    copied: np.ndarray
    complement: np.ndarray
    value: np.ndarray


def _plan(tree, alpha: float, where: str, category_counts) -> _Plan:
    """The plan of ``tree``, refusing it (ValueError) when the written tree would exceed :data:`_MAX_LEAVES` leaves.

    One pass from the root (the order, parents first) and one back (the
    written sizes and the leaf sums): O(nodes) time and memory, whatever the
    depth.  The size of a copied split's tree is 2·size(L) + size(R), so the
    size is known -- and a tree too large refused -- before any copy is made.
    """
    left, right = np.asarray(tree.left), np.asarray(tree.right)
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if left[node] >= 0:
            stack += (int(right[node]), int(left[node]))
    n = left.shape[0]
    copied, complement = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for node in order:
        categories = tree.categories[node]
        if left[node] < 0 or categories is None or not tree.nan_left[node]:
            continue
        known = None if category_counts is None else category_counts[int(tree.feature[node])]
        if known is not None and _check_categories(categories, where, node).max(initial=0) < known:
            complement[node] = True
        else:
            copied[node] = True
    # without covers there is nothing to weigh the leaves by: the internal values are written 0
    cover = np.zeros(n) if tree.cover is None else np.asarray(tree.cover, dtype=np.float64)
    leaf_weighted = np.zeros(n)
    if tree.cover is not None:
        leaf_weighted = alpha * np.asarray(tree.value, dtype=np.float64) * cover
    size = [0] * n
    weighted, weight = np.zeros(n), np.zeros(n)
    for node in reversed(order):
        if left[node] < 0:
            size[node] = 1
            weighted[node], weight[node] = leaf_weighted[node], cover[node]
            continue
        a, b = int(left[node]), int(right[node])
        size[node] = (2 if copied[node] else 1) * size[a] + size[b]
        weighted[node], weight[node] = weighted[a] + weighted[b], weight[a] + weight[b]
    if size[0] > _MAX_LEAVES:
        raise ValueError(f"{where}: written for LightGBM it would have {size[0]} leaves, more than {_MAX_LEAVES} "
                         f"(each categorical split sending missing values left copies its left subtree, unless the "
                         f"column's categories are known: a DataFrame's 'category' column); fit with fewer leaves, "
                         f"on a DataFrame, or without missing values in categorical columns")
    value = np.divide(weighted, weight, out=np.zeros(n), where=weight > 0)
    return _Plan(order, copied, complement, value)


def _from_tree(tree, alpha: float, where: str, category_counts=None) -> LightGBMTree:
    """A leaf-wise or depth-wise tree, node for node; a categorical split sending NaN left as the complement of its
    categories (children swapped) or as a NaN test with a copy.

    LightGBM sends NaN (and a negative value) right at a categorical node.
    When the column's K categories are known (``category_counts``: a
    DataFrame's, coded 0..K − 1, unseen ones NaN), a rankcore categorical
    split v sending its categories S and NaN left is written with the
    complement {0..K − 1} \\ S and its children swapped: a code in S, NaN and
    any value outside 0..K − 1 reach v's left subtree, a code not in S its
    right one.  Otherwise v (children L, R) is written as a NaN test N on
    its feature (numeric: every finite value left to the categorical node C,
    NaN right) whose NaN branch is a copy L' of L.  The counts of L under C
    and of L' are half of L's: then N and C weigh L, L' and R as v weighs L
    and R, and TreeSHAP's two copies of each leaf of L add up to the leaf's
    share in rankcore's tree.  The leaves reached as in rankcore come first,
    by node id; the copies' follow.  The walk keeps its own stack (a
    leaf-wise chain may be thousands of levels deep) and every step is
    O(1) per written node.
    """
    plan = _plan(tree, alpha, where, category_counts)
    out = LightGBMTree()
    # (order, source leaf, halvings, parent, side): the leaves, numbered at the end -- rankcore's by node id, copies
    # after; ``halvings``: the copied splits above the leaf whose left subtree holds it
    pending: list[tuple[tuple[int, int], int, int, int, str]] = []
    # (split: the categorical node under its NaN test, node, halvings, parent, side, inside a copy)
    stack: list[tuple[bool, int, int, int, str, bool]] = [(False, 0, 0, -1, "", False)]
    while stack:
        split, node, halvings, parent, side, copy = stack.pop()
        if tree.left[node] < 0:
            pending.append(((1, len(pending)) if copy else (0, node), node, halvings, parent, side))
            continue
        j, left, right = int(tree.feature[node]), int(tree.left[node]), int(tree.right[node])
        if plan.copied[node] and not split:
            k = out.add_internal(j, _ALL_FINITE_LEFT, MISSING_NAN, 0.0, 0, plan.value[node])
            _link(out, parent, side, k)
            # the copy under the NaN branch is written first, then the split under the finite branch
            stack += [(True, node, halvings, k, "left", copy), (False, left, halvings + 1, k, "right", True)]
            continue
        left_halvings = halvings + 1 if plan.copied[node] else halvings
        right_halvings = halvings
        categories = tree.categories[node]
        if categories is not None:
            k = out.add_internal(j, len(out.cat_sets), CATEGORICAL | MISSING_NAN, tree.gain[node], 0,
                                 plan.value[node])
            cats = _check_categories(categories, where, node)
            if plan.complement[node]:
                cats = np.setdiff1d(np.arange(category_counts[j], dtype=np.int64), cats)
                left, right = right, left
            out.cat_sets.append(cats)
        else:
            flags = MISSING_NAN | (DEFAULT_LEFT if tree.nan_left[node] else 0)
            k = out.add_internal(j, tree.threshold[node], flags, tree.gain[node], 0, plan.value[node])
        _link(out, parent, side, k)
        stack += [(False, right, right_halvings, k, "right", copy), (False, left, left_halvings, k, "left", copy)]
    pending.sort()
    counts = _leaf_counts(tree, [p[1] for p in pending], [p[2] for p in pending])
    for (_, source, _, parent, side), n in zip(pending, counts):
        _link(out, parent, side, out.add_leaf(alpha * tree.value[source], n, source))
    _sum_internal_counts(out)
    return out


def _leaf_counts(tree, sources: list, halvings: list) -> list:
    """The written leaves' counts: rankcore's covers, halved per copied split above, as integers summing to at most
    2^31 − 1 (LightGBM's int32), in exact ratios when they fit, else rounded leaf by leaf."""
    if tree.cover is None or not sources:
        return [0] * len(sources)
    leaves = np.flatnonzero(np.asarray(tree.left) < 0)
    cover = np.asarray(tree.cover, dtype=np.float64)
    nesting = max(halvings)
    exact = integer_counts(cover[leaves]) if nesting < 31 else None
    if exact is not None and int(exact.sum()) << nesting <= _MAX_COUNT:
        by_node = dict(zip(leaves.tolist(), exact.tolist()))
        return [by_node[s] << (nesting - h) for s, h in zip(sources, halvings)]
    share = cover[sources] / np.exp2(np.asarray(halvings, dtype=np.float64))
    total = float(cover[leaves].sum())
    # each leaf rounds up by at most 1/2: the margin of one per leaf keeps the root's sum within int32
    factor = (_MAX_COUNT - len(sources)) / total if total > 0 else 0.0
    return np.floor(share * factor + 0.5).astype(np.int64).tolist()


def _sum_internal_counts(out: LightGBMTree) -> None:
    """Each internal node's count as the sum of its children's (children come after their parents)."""
    for k in range(len(out.internal_count) - 1, -1, -1):
        out.internal_count[k] = sum(out.internal_count[c] if c >= 0 else out.leaf_count[~c]
                                    for c in (out.left_child[k], out.right_child[k]))


def _link(out: LightGBMTree, parent: int, side: str, child: int) -> None:
    if parent >= 0:
        (out.left_child if side == "left" else out.right_child)[parent] = child


def _from_oblivious(tree, alpha: float) -> LightGBMTree:
    """An oblivious tree of depth D as the full binary tree: 2^D − 1 internal nodes in level order, leaf k = cell k.

    The internal node of level l whose path went right at the levels of the
    set bits of p (p < 2^l) is node 2^l − 1 + p; its children are p and
    p + 2^l one level down (cells at the last level).
    """
    depth = tree.depth
    values = alpha * np.asarray(tree.value, dtype=np.float64)
    counts = integer_counts(tree.cover)
    out = LightGBMTree()
    if depth == 0:
        out.add_leaf(values[0], 0 if counts is None else counts[0], 0)
        return out
    for level in range(depth):
        j, t = int(tree.feature[level]), float(tree.threshold[level])
        flags = MISSING_NAN | (DEFAULT_LEFT if tree.nan_left[level] else 0)
        gain = float(tree.gain[level]) / (1 << level)       # the level's gain, shared by its nodes
        for p in range(1 << level):
            cells = np.arange(p, 1 << depth, 1 << level)    # the cells agreeing with p on the first l bits
            node_counts = None if counts is None else counts[cells]
            k = out.add_internal(j, t, flags, gain, 0 if counts is None else int(node_counts.sum()),
                                 _weighted_mean(values[cells], node_counts))
            children = (p, p + (1 << level))
            if level + 1 < depth:
                out.left_child[k], out.right_child[k] = ((1 << (level + 1)) - 1 + c for c in children)
            else:
                out.left_child[k], out.right_child[k] = (~c for c in children)
    for cell in range(1 << depth):
        out.add_leaf(values[cell], 0 if counts is None else counts[cell], cell)
    return out
