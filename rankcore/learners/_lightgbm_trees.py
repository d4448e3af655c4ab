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
which LightGBM's TreeSHAP weighs the branches by), made integers.
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


def lightgbm_tree(ranker, alpha: float, *, where: str = "tree") -> LightGBMTree:
    """The LightGBM tree of a rankcore weak ranker times ``alpha``.

    Reads the ranker by its ``kind``: ``"tree"`` (leaf-wise or depth-wise
    growth), ``"oblivious_tree"`` (expanded into the full binary tree of
    2^depth leaves, leaf k being cell k), ``"threshold"`` (a stump
    1[x_j > t]: two leaves, 0 and α).  ``where`` names the ranker in errors.

    Raises
    ------
    TypeError
        Another kind of weak ranker.
    ValueError
        A categorical split whose left categories are not integers from 0 to
        :data:`MAX_CATEGORY` (LightGBM's categories are such codes).
    """
    kind = getattr(ranker, "kind", None)
    if kind == "tree":
        return _from_tree(ranker, alpha, where)
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
    power of two making them integers, when the counts still fit in int32,
    else rounded.  None when the ranker has no covers.
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
    factor = min(1.0, _MAX_COUNT / total) if total > 0 else 1.0
    return np.round(cover * factor).astype(np.int64)


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


def _from_tree(tree, alpha: float, where: str) -> LightGBMTree:
    """A leaf-wise or depth-wise tree, node for node (plus a NaN test and a copy per categorical split sending NaN
    left).

    LightGBM sends NaN right at a categorical node, so a rankcore
    categorical split v sending NaN left (children L, R) is written as a NaN
    test N on its feature (numeric: every finite value left to the
    categorical node C, NaN right) whose NaN branch is a copy L' of L.  The
    counts of L under C and of L' are half of L's (the counts of the whole
    tree doubled per such split on a path, to stay integers): then N and C
    weigh L, L' and R as v weighs L and R, and TreeSHAP's two copies of each
    leaf of L add up to the leaf's share in rankcore's tree.  The leaves
    reached as in rankcore come first, by node id; the copies' follow.
    """
    nesting = _nan_left_categorical_nesting(tree)
    counts = integer_counts(tree.cover)
    if counts is not None and counts[0] * (1 << nesting) > _MAX_COUNT:
        counts = np.round(counts * (_MAX_COUNT / (counts[0] * (1 << nesting)))).astype(np.int64)
    out = LightGBMTree()
    # (order, source leaf, count, parent, side): the leaves, numbered at the end -- rankcore's by node id, copies after
    pending: list[tuple[tuple[int, int], int, int, int, str]] = []

    def count(node: int, scale: int) -> int:
        return 0 if counts is None else int(counts[node]) * scale

    def value(node: int) -> float:
        below = _leaves_below(tree, node)
        return 0.0 if counts is None else _weighted_mean(alpha * tree.value[below], counts[below])

    def emit(node: int, scale: int, parent: int, side: str, copy: bool) -> None:
        if tree.left[node] < 0:
            pending.append(((1, len(pending)) if copy else (0, node), node, count(node, scale), parent, side))
            return
        j, left, right = int(tree.feature[node]), int(tree.left[node]), int(tree.right[node])
        categories = tree.categories[node]
        left_scale = scale
        if categories is not None and tree.nan_left[node]:
            left_scale = scale // 2
            k = out.add_internal(j, _ALL_FINITE_LEFT, MISSING_NAN, 0.0, count(node, scale), value(node))
            _link(out, parent, side, k)
            emit(left, left_scale, k, "right", True)
            parent, side = k, "left"
        within = count(left, left_scale) + count(right, scale)
        if categories is not None:
            k = out.add_internal(j, len(out.cat_sets), CATEGORICAL | MISSING_NAN, tree.gain[node], within, value(node))
            out.cat_sets.append(_check_categories(categories, where, node))
        else:
            flags = MISSING_NAN | (DEFAULT_LEFT if tree.nan_left[node] else 0)
            k = out.add_internal(j, tree.threshold[node], flags, tree.gain[node], within, value(node))
        _link(out, parent, side, k)
        emit(left, left_scale, k, "left", copy)
        emit(right, scale, k, "right", copy)

    emit(0, 1 << nesting, -1, "", False)
    for _, source, n, parent, side in sorted(pending):
        _link(out, parent, side, out.add_leaf(alpha * tree.value[source], n, source))
    _check_size(out, where)
    return out


def _nan_left_categorical_nesting(tree) -> int:
    """The most categorical splits sending NaN left on one root-to-leaf path."""
    most, stack = 0, [(0, 0)]
    while stack:
        node, depth = stack.pop()
        if tree.left[node] < 0:
            most = max(most, depth)
            continue
        depth += tree.categories[node] is not None and bool(tree.nan_left[node])
        stack.extend(((int(tree.left[node]), depth), (int(tree.right[node]), depth)))
    return most


def _check_size(out: LightGBMTree, where: str) -> None:
    if out.num_leaves > _MAX_LEAVES:
        raise ValueError(f"{where}: written for LightGBM it would have {out.num_leaves} leaves, more than "
                         f"{_MAX_LEAVES} (each categorical split sending missing values left copies its left "
                         f"subtree); fit with fewer leaves or without missing values in categorical columns")


def _link(out: LightGBMTree, parent: int, side: str, child: int) -> None:
    if parent >= 0:
        (out.left_child if side == "left" else out.right_child)[parent] = child


def _leaves_below(tree, node: int) -> np.ndarray:
    stack, found = [node], []
    while stack:
        k = stack.pop()
        if tree.left[k] < 0:
            found.append(k)
        else:
            stack.extend((int(tree.left[k]), int(tree.right[k])))
    return np.asarray(found, dtype=np.intp)


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
