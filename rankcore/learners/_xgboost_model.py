"""A tree ensemble as an XGBoost model file (``Booster.save_model`` JSON), which ``xgboost.Booster`` loads.

The file -- read from the models XGBoost writes -- is one ``gbtree``
learner whose objective is ``reg:squarederror`` with ``base_score`` 0, so
that the raw score (``output_margin=True``, and the prediction itself) is
the sum of the leaves the row reaches.  Each tree is a set of node arrays
indexed by node id: ``left_children`` / ``right_children`` (−1 at a leaf),
``split_indices`` (the feature), ``split_conditions`` (a numeric split's c,
a leaf's value), ``default_left`` (where a missing value goes) and
``split_type`` (0 numeric, 1 categorical).  XGBoost reads its input, the
conditions and the leaf values as float32; a numeric node sends x left iff
``x < c``, written as in the dump (:func:`float32_condition`: exact on
float32 x).  A categorical node holds a category set S (``categories``,
sliced per node by ``categories_nodes`` / ``categories_segments`` /
``categories_sizes``) and sends a category in S **right**, any other value
left (a category beyond the set's largest one, a negative value or one of
2^24 or more included); a value is read as the integer it truncates to.
rankcore sends its set S left and every other value right, so the node is
written with the same S and its children swapped, missing values to
rankcore's NaN side (an empty S, which XGBoost refuses, as the numeric test
x < −max float32, which no finite value passes).  XGBoost's predictor takes a node's right child to be
its left child's id + 1: nodes are numbered breadth first from the root,
left before right (oblivious trees and stumps, expanded as for LightGBM,
thus get the dump's node ids).
"""

from __future__ import annotations

import json
import math

import numpy as np

from ._feature_names import checked_feature_names
from ._lightgbm_text import check_export_width, constant_tree
from ._lightgbm_trees import DEFAULT_LEFT, LightGBMTree, lightgbm_tree
from ._xgboost_json import FLOAT32_MAX, float32_condition

__all__ = ["xgboost_model_string", "MAX_XGBOOST_CATEGORY", "xgboost_categorical_features", "xgboost_leaf_sources"]

#: Largest category XGBoost's categorical split reads (a larger value is an invalid category: it goes left).
MAX_XGBOOST_CATEGORY = (1 << 24) - 1
#: XGBoost's parent of the root.
_NO_PARENT = 2147483647


def xgboost_categorical_features(rankers, categories=None) -> list[int]:
    """The columns XGBoost must read as categories: those split by a category set, and a DataFrame's ``category``
    columns (``categories[j]`` not None), sorted."""
    columns = {j for j, c in enumerate(categories or ()) if c is not None}
    for ranker in rankers:
        for node, cats in enumerate(getattr(ranker, "categories", ()) or ()):
            if cats is not None:
                columns.add(int(ranker.feature[node]))
    return sorted(columns)


def xgboost_model_string(rankers, alphas, n_features: int, *, feature_names=None, owner: str = "model",
                         offset: float | None = None, categories=None) -> str:
    """The XGBoost model (JSON) of Σ_t α_t h_t (+ b): one tree per weak ranker, in order.

    Parameters
    ----------
    rankers : sequence of weak rankers
        Trees (numeric and categorical splits), oblivious trees or stumps.
    alphas : sequence of float
        Each ranker's coefficient, folded into its leaf values.
    n_features : int
        The model's number of features.
    feature_names : sequence of str, optional
        The learner's ``feature_names`` (XGBoost then asks a DMatrix for the
        same names); none written without them.
    owner : str
        Names the model in errors.
    offset : float, optional
        A constant b, written as a last tree of one leaf.
    categories : list or None
        Per column, the categories of a DataFrame's ``category`` column at
        fit (None elsewhere): such a column is marked categorical (``"c"``),
        so that XGBoost reads a DataFrame's column by its codes, which are
        rankcore's positions when the frame's categories are the fit's.

    Returns
    -------
    str
        The JSON text; ``xgboost.Booster(model_file=...)`` loads it (from a
        file, or ``bytearray(text, "utf-8")``).  O(nodes + categories) time
        and memory.

    Raises
    ------
    TypeError
        A weak ranker that is not a tree or a stump.
    ValueError
        A categorical split holding a category that is not an integer from 0
        to :data:`MAX_XGBOOST_CATEGORY`, a split of a feature beyond
        ``n_features``, a leaf value or offset that is not finite in
        float32, largest leaves whose sum is not (XGBoost sums in float32),
        or bad names.
    """
    if len(rankers) != len(alphas):
        raise ValueError(f"{owner}: {len(rankers)} weak rankers but {len(alphas)} coefficients")
    check_export_width(n_features, owner)
    names = [] if feature_names is None else _xgboost_names(checked_feature_names(feature_names, n_features))
    trees, reach = [], 0.0
    for t, (ranker, alpha) in enumerate(zip(rankers, alphas)):
        where = f"{owner}: tree {t}"
        nodes = _breadth_first(_ranker_nodes(ranker, float(alpha), where))
        trees.append(_tree_object(nodes, len(trees), n_features, where))
        reach += max(abs(node.value) for node in nodes if node.left < 0)
    if offset is not None:
        nodes = _table_nodes(constant_tree(offset, owner))
        trees.append(_tree_object(nodes, len(trees), n_features, f"{owner}: the offset"))
        reach += max(abs(node.value) for node in nodes if node.left < 0)
    if reach > FLOAT32_MAX:
        # XGBoost adds the leaves in float32: a row may reach inf although every leaf is finite
        raise ValueError(f"{owner}: the trees' largest leaves add up to {reach:.4g}, beyond float32's "
                         f"{FLOAT32_MAX:.4g}, where XGBoost sums its scores: a row's score could overflow to inf")
    types = ["float"] * n_features
    for j in xgboost_categorical_features(rankers, categories):
        types[j] = "c"
    model = {"gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(len(trees))},
             "iteration_indptr": list(range(len(trees) + 1)), "tree_info": [0] * len(trees), "trees": trees}
    learner = {"attributes": {}, "feature_names": names, "feature_types": types,
               "gradient_booster": {"model": model, "name": "gbtree"},
               "learner_model_param": {"base_score": "0E0", "boost_from_average": "0", "num_class": "0",
                                       "num_feature": str(n_features), "num_target": "1"},
               "objective": {"name": "reg:squarederror", "reg_loss_param": {"scale_pos_weight": "1"}}}
    # names as UTF-8, not \u escapes: XGBoost's JSON reader keeps a \u escape as its six characters
    return json.dumps({"learner": learner, "version": [2, 1, 0]}, separators=(",", ":"), ensure_ascii=False) + "\n"


def _xgboost_names(names: list[str]) -> list[str]:
    """``names``, refusing those XGBoost cannot hold: ``[``, ``]`` or ``<`` (its Python package refuses them in a
    DMatrix, as its text dumps write a split as ``[name<c]``), a control character (JSON escapes it, and XGBoost's
    reader fails on ``\\b``, ``\\f`` and keeps ``\\u0001`` as six characters)."""
    for j, name in enumerate(names):
        bad = next((c for c in name if c in "[]<" or ord(c) < 0x20), None)
        if bad is not None:
            raise ValueError(f"feature_names: column {j}'s name {name!r} holds {bad!r}, which XGBoost does not take "
                             f"in a feature name (no '[', ']', '<' or control character): rename the column, or pass "
                             f"feature_names")
    return names


class _Node:
    """One XGBoost node: a leaf (``left`` −1, ``value``) or a split (numeric ``condition`` or category set)."""

    __slots__ = ("left", "right", "feature", "condition", "default_left", "cats", "value", "gain", "cover", "source")

    def __init__(self, *, left=-1, right=-1, feature=0, condition=0.0, default_left=False, cats=None, value=0.0,
                 gain=0.0, cover=0.0, source=0):
        self.left, self.right, self.feature, self.condition = left, right, feature, condition
        self.default_left, self.cats, self.value, self.gain, self.cover = default_left, cats, value, gain, cover
        self.source = source      # a leaf's leaf in rankcore's numbering (``apply``'s)


def _categories(values, where: str, node: int) -> list[int]:
    cats = np.asarray(values, dtype=np.float64)
    bad = cats[~((cats >= 0) & (cats <= MAX_XGBOOST_CATEGORY) & (cats == np.floor(cats)))]
    if bad.size:
        raise ValueError(f"{where}: categorical split at node {node} sends category {float(bad[0])!r} left; "
                         f"XGBoost's categories are integers from 0 to {MAX_XGBOOST_CATEGORY} (renumber the "
                         f"column's categories as 0, 1, 2, ... and refit: a DataFrame's 'category' columns are "
                         f"coded so already)")
    return sorted(int(c) for c in cats)


def _ranker_nodes(ranker, alpha: float, where: str) -> list[_Node]:
    """The ranker's nodes in any order, the root first (children by index into the list)."""
    if getattr(ranker, "kind", None) == "tree":
        return _tree_nodes(ranker, alpha, where)
    return _table_nodes(lightgbm_tree(ranker, alpha, where=where))


def _tree_nodes(tree, alpha: float, where: str) -> list[_Node]:
    """A leaf-wise or depth-wise tree node for node (rankcore's node ids)."""
    cover = np.zeros(tree.n_nodes) if tree.cover is None else np.asarray(tree.cover, dtype=np.float64)
    nodes = []
    for v in range(tree.n_nodes):
        left, right = int(tree.left[v]), int(tree.right[v])
        if left < 0:
            nodes.append(_Node(value=alpha * float(tree.value[v]), cover=float(cover[v]), source=v))
            continue
        nan_left = bool(tree.nan_left[v])
        node = _Node(left=left, right=right, feature=int(tree.feature[v]), default_left=nan_left,
                     gain=float(tree.gain[v]), cover=float(cover[v]))
        if tree.categories[v] is not None and len(tree.categories[v]) == 0:
            # no category left (NaN alone may go there): XGBoost refuses an empty set, and a numeric test that no
            # finite value passes (x < −max float32) sends every value right, as rankcore does
            node.condition = -FLOAT32_MAX
        elif tree.categories[v] is not None:
            # XGBoost sends its set right, rankcore its set left: the same set, children swapped
            node.cats = _categories(tree.categories[v], where, v)
            node.left, node.right, node.default_left = right, left, not nan_left
        else:
            node.condition, swapped = float32_condition(tree.threshold[v])
            if swapped:       # no finite x is under c: XGBoost's right child must be rankcore's left
                node.left, node.right, node.default_left = right, left, not nan_left
        nodes.append(node)
    return nodes


def _table_nodes(tree: LightGBMTree) -> list[_Node]:
    """A LightGBM node table (numeric splits): internal node k at k, leaf l after them."""
    n_internal = len(tree.split_feature)

    def index(ref: int) -> int:
        return ref if ref >= 0 else n_internal + ~ref

    nodes = []
    for k, j in enumerate(tree.split_feature):
        condition, swapped = float32_condition(tree.threshold[k])
        left, right = index(tree.left_child[k]), index(tree.right_child[k])
        missing = left if tree.decision_type[k] & DEFAULT_LEFT else right
        yes, no = (right, left) if swapped else (left, right)
        nodes.append(_Node(left=yes, right=no, feature=int(j), condition=condition, default_left=missing == yes,
                           gain=float(tree.split_gain[k]), cover=float(tree.internal_count[k])))
    nodes += [_Node(value=float(value), cover=float(count), source=int(source))
              for value, count, source in zip(tree.leaf_value, tree.leaf_count, tree.leaf_source)]
    return nodes


def _breadth_first(nodes: list[_Node]) -> list[_Node]:
    """The nodes renumbered breadth first from the root, each node's left child then right child (right = left + 1,
    as XGBoost's predictor reads them); children rewritten to the new ids.  O(nodes)."""
    order, new_id = [0], {0: 0}
    for v in order:                       # the list grows as it is read: a queue
        node = nodes[v]
        if node.left >= 0:
            for child in (node.left, node.right):
                new_id[child] = len(order)
                order.append(child)
    out = []
    for v in order:
        node = nodes[v]
        if node.left >= 0:
            node.left, node.right = new_id[node.left], new_id[node.right]
        out.append(node)
    return out


def xgboost_leaf_sources(ranker, alpha: float = 1.0) -> dict[int, int]:
    """``{XGBoost node id: rankcore leaf}`` of the ranker's leaves as written: ``pred_leaf`` mapped to ``apply``."""
    nodes = _breadth_first(_ranker_nodes(ranker, float(alpha), "tree"))
    return {v: node.source for v, node in enumerate(nodes) if node.left < 0}


def _float32(value: float, where: str, what: str) -> float:
    if not (math.isfinite(value) and abs(value) <= FLOAT32_MAX):
        raise ValueError(f"{where}: has the {what} {value!r}; XGBoost holds finite float32 numbers only")
    return value


def _tree_object(nodes: list[_Node], tree_id: int, n_features: int, where: str) -> dict:
    """The tree's JSON object: its node arrays, categorical nodes' sets in node order."""
    parents = [_NO_PARENT] * len(nodes)
    cat_nodes, segments, sizes, flat = [], [], [], []
    for v, node in enumerate(nodes):
        if node.left < 0:
            _float32(node.value, where, "leaf value")
            continue
        if node.feature >= n_features:
            raise ValueError(f"{where} splits feature {node.feature}, but the model has {n_features} features")
        parents[node.left] = parents[node.right] = v
        if node.cats is not None:
            cat_nodes.append(v)
            segments.append(len(flat))
            sizes.append(len(node.cats))
            flat.extend(node.cats)
    leaf = [node.left < 0 for node in nodes]
    return {"base_weights": [node.value if is_leaf else 0.0 for node, is_leaf in zip(nodes, leaf)],
            "categories": flat, "categories_nodes": cat_nodes, "categories_segments": segments,
            "categories_sizes": sizes, "default_left": [int(node.default_left) for node in nodes], "id": tree_id,
            "left_children": [node.left for node in nodes], "loss_changes": [node.gain for node in nodes],
            "parents": parents, "right_children": [node.right for node in nodes],
            "split_conditions": [node.value if is_leaf else node.condition for node, is_leaf in zip(nodes, leaf)],
            "split_indices": [node.feature for node in nodes],
            "split_type": [int(node.cats is not None) for node in nodes],
            "sum_hessian": [node.cover for node in nodes],
            "tree_param": {"num_deleted": "0", "num_feature": str(n_features), "num_nodes": str(len(nodes)),
                           "size_leaf_vector": "1"}}
