"""A tree ensemble in XGBoost's JSON dump format (what ``Booster.get_dump(dump_format="json")`` lists).

The format -- read from dumps the XGBoost library writes -- is a JSON list
of trees, each one nested object: an internal node is ``{"nodeid", "depth",
"split", "split_condition", "yes", "no", "missing", "children"}`` (``split``
the feature's name, ``children`` the ``yes`` node then the ``no`` node), a
leaf ``{"nodeid", "leaf"}``.  A row goes to ``yes`` when
``x < split_condition``, to ``no`` otherwise, to ``missing`` when x is
missing; the score is the sum of the leaves it reaches (XGBoost's
``base_score`` is not in the dump; a rankcore model needs none).  Node ids
are given breadth first, children in the order yes, no, as XGBoost numbers
a depth-wise tree.  The Elasticsearch / OpenSearch Learning to Rank plugin
(model type ``model/xgboost+json``) and Vespa's ``xgboost`` ranking feature
read this format, and read ``split_condition`` as a float32.

rankcore sends x left iff x <= t (t a double).  For float32 inputs the
condition c = the least float32 greater than t makes ``x < c`` the same
test: a float32 x <= t is < c since c > t; a float32 x > t is >= c since c
is the least float32 above t.  (t = ±0 gives the least positive subnormal;
t below −max float32 gives c = −max float32, which no finite float32 is
under, as none is <= t.)  When t >= max float32 every finite float32 goes
left, and no finite c is above them all: the node is written with c = −max
float32 and its branches swapped -- ``yes`` the right subtree, which no
finite value reaches, ``no`` the left one.  Each c is written as the
shortest decimal that reads back as the same double, which a float32
reader also reads as c.
"""

from __future__ import annotations

import json
import math
from collections import deque

import numpy as np

from ._feature_names import checked_feature_names
from ._lightgbm_text import check_export_width, constant_tree
from ._lightgbm_trees import CATEGORICAL, DEFAULT_LEFT, LightGBMTree, lightgbm_tree

__all__ = ["xgboost_json_string", "xgboost_feature_names", "float32_condition", "xgboost_node_ids",
           "numeric_split_on"]

#: The largest finite float32.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def float32_condition(threshold: float) -> tuple[float, bool]:
    """``(c, swapped)``: the dump's condition for rankcore's split ``x <= threshold``, exact on float32 x.

    ``c`` is the least float32 greater than ``threshold``, so that a float32
    x satisfies ``x < c`` iff ``x <= threshold``; ``swapped`` is False.  When
    ``threshold`` is at least the largest float32 (every finite float32 goes
    left), ``c`` is −max float32 and ``swapped`` True: no finite x is under
    it, so the node's ``no`` branch must hold the left subtree.

    Raises
    ------
    ValueError
        ``threshold`` is NaN or infinite.
    """
    t = float(threshold)
    if not math.isfinite(t):
        raise ValueError(f"threshold: expected a finite number, got {t!r}")
    if t >= FLOAT32_MAX:
        return -FLOAT32_MAX, True
    with np.errstate(over="ignore"):
        c = np.float32(t)                       # the nearest float32 (−inf below −max float32)
    if float(c) <= t:
        c = np.nextafter(c, np.float32(np.inf))
    return float(c), False


def xgboost_feature_names(names, n_features: int) -> list[str]:
    """The ``split`` names: ``f0, f1, ...`` (XGBoost's own default) without names, else the names as given.

    Raises
    ------
    TypeError
        ``names`` is not an ordered sequence (a set, a string), or a name is not a string.
    ValueError
        Not one name per feature, an empty name, or two equal names.
    """
    if names is None:
        return [f"f{j}" for j in range(n_features)]
    return checked_feature_names(names, n_features)


def xgboost_json_string(rankers, alphas, n_features: int, *, feature_names=None, owner: str = "model",
                        offset: float | None = None, categories=None) -> str:
    """The dump of Σ_t α_t h_t (+ b): a JSON list of one nested object per weak ranker, in order.

    Parameters
    ----------
    rankers : sequence of weak rankers
        Trees, oblivious trees or stumps (``kind`` ``"tree"``,
        ``"oblivious_tree"``, ``"threshold"``), converted as for LightGBM
        (oblivious trees expanded into full binary trees, stumps into two
        leaves 0 and α).
    alphas : sequence of float
        Each ranker's coefficient, folded into its leaf values.
    n_features : int
        The model's number of features.
    feature_names : sequence of str, optional
        The ``split`` names (see :func:`xgboost_feature_names`).
    owner : str
        Names the model in errors.
    offset : float, optional
        A constant b added to the sum, written as a last tree of one leaf
        ``{"nodeid": 0, "leaf": b}`` (the dump has no ``base_score``).
    categories : list or None
        Per column, the categories of a DataFrame's ``category`` column at
        fit (None elsewhere): the model reads such a column as the value's
        position among them, which an engine does not hold, so a numeric
        split of it is refused.

    Returns
    -------
    str
        The JSON text, one node per line, as XGBoost's ``dump_model`` lays
        it out; leaf values at full double precision.  Without weak rankers
        it is one tree of a single leaf 0: the engines refuse an empty list
        of trees (the Elasticsearch / OpenSearch plugin), or read it as no
        expression (Vespa).

    Raises
    ------
    TypeError
        A weak ranker that is not a tree or a stump.
    ValueError
        A categorical split (the engines reading the dump test numbers
        only; :func:`xgboost_model_string` writes category sets), a numeric
        split of a column coded by position (``categories``), a split of a
        feature beyond ``n_features``, a non-finite leaf value or offset,
        largest leaves whose sum is not finite, or bad names.
    """
    if len(rankers) != len(alphas):
        raise ValueError(f"{owner}: {len(rankers)} weak rankers but {len(alphas)} coefficients")
    check_export_width(n_features, owner)
    names = xgboost_feature_names(feature_names, n_features)
    coded = [j for j, c in enumerate(categories or ()) if c is not None]
    blocks, reach = [], 0.0
    for t, (ranker, alpha) in enumerate(zip(rankers, alphas)):
        where = f"{owner}: tree {t}"
        _refuse_categorical(ranker, names, where)
        _refuse_position_split(ranker, coded, names, where)
        tree = lightgbm_tree(ranker, float(alpha), where=where)
        _check_tree(tree, n_features, where)
        blocks.append(_tree_text(tree, names))
        reach += max(abs(v) for v in tree.leaf_value)
    if offset is not None:
        blocks.append(_tree_text(constant_tree(offset, owner), names))
        reach += abs(float(offset))
    if not math.isfinite(reach):
        # as the model file's check (to_xgboost_model): every leaf finite, yet a row reaching the largest leaves
        # of every tree would sum to inf in the engines, which add the dump's leaves in double (or float)
        raise ValueError(f"{owner}: the trees' largest leaves add up past the largest float64 "
                         f"({np.finfo(np.float64).max:.4g}), where the engines sum the dump's leaves: a row's score "
                         f"could overflow to inf")
    if not blocks:            # the engines refuse an empty list; one leaf of 0 scores as the empty sum does
        blocks.append(f'  {{ "nodeid": 0, "leaf": {_number(0.0)} }}')
    return "[\n" + ",\n".join(blocks) + "\n]\n"


def xgboost_node_ids(tree: LightGBMTree) -> tuple[list[int], list[int]]:
    """``(internal, leaves)``: the dump's node id of each internal node and each leaf of ``tree``.

    Breadth first from the root (id 0), each node's ``yes`` child before its
    ``no`` child; ``leaves[k]`` is the id of ``tree``'s leaf k, whose
    rankcore leaf is ``tree.leaf_source[k]``.
    """
    internal = [0] * len(tree.split_feature)
    leaves = [0] * tree.num_leaves
    if not tree.split_feature:
        return internal, leaves
    queue, next_id = deque([0]), 1
    while queue:
        node = queue.popleft()
        for child in _yes_no(tree, node):
            if child >= 0:
                internal[child] = next_id
                queue.append(child)
            else:
                leaves[~child] = next_id
            next_id += 1
    return internal, leaves


def _yes_no(tree: LightGBMTree, node: int) -> tuple[int, int]:
    """The node's (yes, no) children: (left, right), or (right, left) when its condition is swapped."""
    _, swapped = float32_condition(tree.threshold[node])
    left, right = tree.left_child[node], tree.right_child[node]
    return (right, left) if swapped else (left, right)


def _refuse_categorical(ranker, names: list[str], where: str) -> None:
    for node, categories in enumerate(getattr(ranker, "categories", ()) or ()):
        if categories is not None:
            j = int(ranker.feature[node])
            raise ValueError(f"{where} splits feature {names[j]!r} (column {j}) by categories at node {node}; "
                             f"the engines reading XGBoost's JSON dump (the Elasticsearch / OpenSearch plugin, Vespa) "
                             f"test numbers only: export with to_xgboost_model (an XGBoost model file) or "
                             f"to_lightgbm, or refit with the column numeric")


def numeric_split_on(ranker, columns) -> tuple[int, int] | None:
    """``(node, column)`` of the first numeric split of ``ranker`` on one of ``columns``, else None.

    ``node`` is numbered as the ranker numbers its nodes: a tree's node id,
    an oblivious tree's level, 0 for a stump.  Categorical splits (a
    tree's nodes with ``categories``) are not numeric.
    """
    columns = set(columns)
    if not columns:
        return None
    kind = getattr(ranker, "kind", None)
    if kind == "threshold":
        splits = [(0, int(ranker.feature))]
    elif kind == "oblivious_tree":
        splits = [(level, int(ranker.feature[level])) for level in range(int(ranker.depth))]
    elif kind == "tree":
        sets = getattr(ranker, "categories", None) or [None] * len(ranker.left)
        splits = [(node, int(ranker.feature[node])) for node in range(len(ranker.left))
                  if ranker.left[node] >= 0 and sets[node] is None]
    else:
        return None
    return next(((node, j) for node, j in splits if j in columns), None)


def _refuse_position_split(ranker, coded: list[int], names: list[str], where: str) -> None:
    found = numeric_split_on(ranker, coded)
    if found is not None:
        node, j = found
        raise ValueError(f"{where} splits feature {names[j]!r} (column {j}), a pandas 'category' column at fit, as "
                         f"numbers at node {node}: its conditions are on the category's position among "
                         f"categories_[{j}] (0, 1, ...), not on its value, which is what an engine holds; export "
                         f"with to_lightgbm (whose file codes a DataFrame's category columns as the fit did), or "
                         f"refit with the column as numbers")


def _check_tree(tree: LightGBMTree, n_features: int, where: str) -> None:
    if any(d & CATEGORICAL for d in tree.decision_type):      # (refused above; a guard for new weak rankers)
        raise ValueError(f"{where}: has a categorical split, which the engines reading XGBoost's JSON dump cannot hold")
    if tree.split_feature and max(tree.split_feature) >= n_features:
        raise ValueError(f"{where} splits feature {max(tree.split_feature)}, but the model has {n_features} "
                         f"features")
    bad = [v for v in tree.leaf_value if not math.isfinite(v)]
    if bad:
        raise ValueError(f"{where}: has the leaf value {bad[0]!r}; JSON holds finite numbers only")


def _number(value: float) -> str:
    """The shortest decimal reading back as the same double (a float32 value reads back as itself in float32)."""
    return repr(float(value))


def _tree_text(tree: LightGBMTree, names: list[str]) -> str:
    """One tree as XGBoost lays out its dump: a node per line, nested two spaces deeper per level."""
    internal, leaves = xgboost_node_ids(tree)
    if not tree.split_feature:
        return f'  {{ "nodeid": 0, "leaf": {_number(tree.leaf_value[0])} }}'

    def node_id(ref: int) -> int:
        return internal[ref] if ref >= 0 else leaves[~ref]

    lines: list[str] = []
    # explicit stack (a leaf-wise tree can be deeper than Python's recursion limit): ("node", ref, depth,
    # suffix) or ("close", indent, suffix)
    stack: list[tuple] = [("node", 0, 0, "")]
    while stack:
        item = stack.pop()
        if item[0] == "close":
            lines.append(f"{item[1]}]}}{item[2]}")
            continue
        _, ref, depth, suffix = item
        pad = "  " * (depth + 1)
        if ref < 0:
            lines.append(f'{pad}{{ "nodeid": {leaves[~ref]}, "leaf": {_number(tree.leaf_value[~ref])} }}{suffix}')
            continue
        condition, _ = float32_condition(tree.threshold[ref])
        yes, no = _yes_no(tree, ref)
        missing = tree.left_child[ref] if tree.decision_type[ref] & DEFAULT_LEFT else tree.right_child[ref]
        lines.append(f'{pad}{{ "nodeid": {internal[ref]}, "depth": {depth}, '
                     f'"split": {json.dumps(names[tree.split_feature[ref]])}, '
                     f'"split_condition": {_number(condition)}, "yes": {node_id(yes)}, "no": {node_id(no)}, '
                     f'"missing": {node_id(missing)}, "children": [')
        stack += [("close", pad, suffix), ("node", no, depth + 1, ""), ("node", yes, depth + 1, ",")]
    return "\n".join(lines)
