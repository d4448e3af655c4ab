"""A tree ensemble as LightGBM's text model file (what ``lightgbm.Booster.model_to_string`` returns).

The layout -- read from files the LightGBM library writes (v4 format) -- is
a header of ``key=value`` lines, one block per tree (``Tree=i`` then its
node tables, each block followed by a blank line pair), ``end of trees``,
the split counts per feature (``feature_importances:``) and the
``pandas_categorical:`` line LightGBM's Python package reads a DataFrame's
category columns by.  ``tree_sizes`` holds each tree block's length in
bytes (LightGBM uses it to read the blocks in parallel).  Numbers are
written with ``repr`` -- the shortest text that reads back as the same
double -- so thresholds and leaf values survive the round trip bit for bit.
"""

from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np

from .._caller import outside_stacklevel
from ._lightgbm_trees import CATEGORICAL, LightGBMTree, lightgbm_tree

__all__ = ["lightgbm_model_string", "lightgbm_feature_names", "constant_tree", "check_export_width", "ZERO_THRESHOLD",
           "LARGE_CATEGORY", "MAX_EXPORT_FEATURES"]

#: LightGBM's predictor reads a value of magnitude at most this (1e-35 as a float32) as 0.
ZERO_THRESHOLD = float(np.float32(1e-35))
#: Characters LightGBM does not take in feature names (whitespace separates them in the file), and those its
#: ``dump_model`` JSON would need escaped (it writes names as they are): backslash and control characters.
_FORBIDDEN = re.compile(r'[\s",:\[\]{}\\\x00-\x1f\x7f]')
#: The Python values of categories ``pandas_categorical``'s JSON holds (bool is an int).
_JSON_CATEGORIES = (str, int, float)
#: Above this category id a split's bitset (one bit per id up to the largest) makes the file large: warn.
LARGE_CATEGORY = 65_535
#: Most columns an exported model may declare.  The exports write a name (and LightGBM a range, XGBoost a type) per
#: column, so a model file edited to declare 10^12 columns would make one of terabytes; no fit reaches this.
MAX_EXPORT_FEATURES = 1 << 24


def check_export_width(n_features: int, owner: str) -> None:
    """Refuse to export a model declaring more than :data:`MAX_EXPORT_FEATURES` columns (a ValueError)."""
    if n_features > MAX_EXPORT_FEATURES:
        raise ValueError(f"{owner}: the model declares {n_features} columns (n_features_in_), more than the "
                         f"{MAX_EXPORT_FEATURES} an export writes (a name per column); was its file edited?")


def lightgbm_feature_names(names, n_features: int, *, where: str = "feature_names", hint: str = "") -> list[str]:
    """The feature names to write: ``Column_j`` without names, else each name with forbidden characters as ``_``.

    LightGBM separates the names by spaces and refuses JSON's special
    characters (``" , : [ ] { }``) in them; each such character, any
    whitespace, a backslash and the control characters (which LightGBM's
    ``dump_model`` would write unescaped into its JSON) become ``_``.  A
    ValueError names the columns when two names become the same or a name
    is empty; it starts with ``where`` (the argument, or the model and
    ``feature_names_in_`` when the names are its own) and ends with
    ``hint`` (another way out).
    """
    if names is None:
        return [f"Column_{j}" for j in range(n_features)]
    out = [_FORBIDDEN.sub("_", str(name)) for name in names]
    seen: dict[str, int] = {}
    for j, (name, new) in enumerate(zip(names, out)):
        if not new:
            raise ValueError(f"{where}: column {j} has an empty name, which LightGBM's format cannot hold; "
                             f"rename it{hint}")
        if new in seen:
            i = seen[new]
            raise ValueError(f"{where}: columns {i} ({names[i]!r}) and {j} ({name!r}) are both {new!r} in "
                             f"LightGBM's format (whitespace, control characters and \",:[]{{}}\\ become '_'); "
                             f"rename one{hint}")
        seen[new] = j
    return out


def lightgbm_model_string(rankers, alphas, n_features: int, *, feature_names=None, categories=None,
                          objective: str = "lambdarank", owner: str = "model", offset: float | None = None,
                          names_given: bool = True) -> str:
    """LightGBM's text model of Σ_t α_t h_t (+ b): ``Booster(model_str=...).predict(X, raw_score=True)`` is the sum.

    Parameters
    ----------
    rankers : sequence of weak rankers
        Trees, oblivious trees or stumps (``kind`` ``"tree"``,
        ``"oblivious_tree"``, ``"threshold"``).
    alphas : sequence of float
        Each ranker's coefficient, folded into its leaf values.
    n_features : int
        The model's number of features (``max_feature_idx`` + 1).
    feature_names : sequence of str, optional
        Written as :func:`lightgbm_feature_names` maps them.
    categories : list or None
        Per column, the categories of a DataFrame's ``category`` column at
        fit (None elsewhere): written as ``pandas_categorical``, so that
        LightGBM codes a DataFrame's category columns as rankcore does; a
        categorical split of such a column sending NaN left is written as
        the complement of its categories among the column's K (children
        swapped) instead of a NaN test over a copy of its left subtree.
    objective : str
        The ``objective=`` line (``lambdarank``: LightGBM outputs the raw
        score unchanged).
    owner : str
        Names the model in errors.
    offset : float, optional
        A constant b added to the sum, written as a last tree of one leaf
        (LightGBM's raw score has no other place for it; its
        ``pred_contrib`` adds such a tree to the expected value).
    names_given : bool
        Whether ``feature_names`` came from the caller's ``feature_names``
        argument (errors about them name it) or are the model's own
        ``feature_names_in_`` (errors name ``owner``).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``offset`` is not finite; a category column's categories are not
        strings, numbers or booleans (dates, intervals: the JSON of
        ``pandas_categorical`` cannot hold them); two names become the same
        (besides the rankers' own refusals).

    Notes
    -----
    LightGBM's predictor reads a value of magnitude at most
    :data:`ZERO_THRESHOLD` as 0, so a row holding such a tiny nonzero value
    routes as 0 would at a split whose threshold lies in
    [−ZERO_THRESHOLD, ZERO_THRESHOLD) -- e.g. 0, the midpoint of −a and a --
    where rankcore routes it by its sign.  No threshold can tell these
    values from 0 for LightGBM; every other value routes as in rankcore.
    """
    if len(rankers) != len(alphas):
        raise ValueError(f"{owner}: {len(rankers)} weak rankers but {len(alphas)} coefficients")
    check_export_width(n_features, owner)
    _check_category_kinds(categories, feature_names, owner)
    if names_given:
        names = lightgbm_feature_names(feature_names, n_features)
    else:
        names = lightgbm_feature_names(feature_names, n_features, where=f"{owner}: feature_names_in_",
                                       hint=", or pass feature_names")
    known = None if categories is None else [None if c is None else len(c) for c in categories]
    with np.errstate(over="ignore", invalid="ignore"):     # an overflow is refused below, naming the tree
        trees = [lightgbm_tree(r, float(a), where=f"{owner}: tree {t}", category_counts=known)
                 for t, (r, a) in enumerate(zip(rankers, alphas))]
    if offset is not None:
        trees.append(constant_tree(offset, owner))
    _check_features(trees, n_features, owner)
    _check_finite(trees, owner)
    _warn_large_categories(trees, names, owner)
    blocks = [_tree_block(t, tree) for t, tree in enumerate(trees)]
    header = ["tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
              f"max_feature_idx={n_features - 1}", f"objective={objective}", "feature_names=" + " ".join(names),
              "feature_infos=" + " ".join(_feature_infos(trees, n_features)),
              "tree_sizes=" + " ".join(str(len(b.encode("utf-8"))) for b in blocks)]
    return ("\n".join(header) + "\n\n" + "".join(blocks) + "end of trees\n\n" + _importances(trees, names)
            + "\npandas_categorical:" + _pandas_categorical(categories) + "\n")


def constant_tree(offset: float, owner: str) -> LightGBMTree:
    """A tree of one leaf whose value is ``offset`` (the score's constant), refusing a non-finite one."""
    if not math.isfinite(float(offset)):
        raise ValueError(f"{owner}: the constant offset is {float(offset)!r}; expected a finite number")
    tree = LightGBMTree()
    tree.add_leaf(float(offset), 0, 0)
    return tree


def _check_category_kinds(categories, feature_names, owner: str) -> None:
    """Refuse, before anything is written, categories that ``pandas_categorical`` (JSON) cannot hold.

    Strings, integers, floats and booleans (a mix of them too) are written
    as JSON values; dates, time spans, intervals and other objects are not.
    """
    for j, values in enumerate(categories or ()):
        if values is None:
            continue
        array = np.asarray(values)
        if array.dtype.kind in "biuf" or array.dtype.kind == "U":
            continue
        if array.dtype.kind == "O":
            kinds = sorted({type(v).__name__ for v in array.tolist() if not isinstance(v, _JSON_CATEGORIES)})
            if not kinds:
                continue
            kind = ", ".join(kinds)
        else:
            kind = str(array.dtype)
        name = f"{str(feature_names[j])!r} (column {j})" if feature_names is not None else f"column {j}"
        raise ValueError(f"{owner}: {name} was a pandas 'category' column at fit whose categories are of type "
                         f"{kind}, which LightGBM's pandas_categorical line (JSON) cannot hold (strings, integers, "
                         f"floats or booleans); convert the column before fit (e.g. X[col].astype(str)) and refit")


def _check_features(trees: list[LightGBMTree], n_features: int, owner: str) -> None:
    for t, tree in enumerate(trees):
        if tree.split_feature and max(tree.split_feature) >= n_features:
            raise ValueError(f"{owner}: tree {t} splits feature {max(tree.split_feature)}, but the model has "
                             f"{n_features} features")


def _check_finite(trees: list[LightGBMTree], owner: str) -> None:
    """Refuse leaf or internal values that overflowed when the coefficients were folded in (a ValueError).

    LightGBM would read ``inf``/``nan`` where rankcore's own scores raise ``FloatingPointError``.
    """
    for t, tree in enumerate(trees):
        for field in ("leaf_value", "internal_value"):
            values = np.asarray(getattr(tree, field), dtype=np.float64)
            if not np.isfinite(values).all():
                raise ValueError(f"{owner}: tree {t} would hold non-finite {field}s: its coefficient times its "
                                 "leaf values (weighted by their covers) overflow float64; the model cannot be "
                                 "exported")


def _warn_large_categories(trees: list[LightGBMTree], names: list[str], owner: str) -> None:
    """Warn once when a split holds a category id above :data:`LARGE_CATEGORY`: its bitset runs up to it."""
    largest: dict[int, int] = {}
    for tree in trees:
        for j, t, d in zip(tree.split_feature, tree.threshold, tree.decision_type):
            if d & CATEGORICAL and tree.cat_sets[int(t)].size:
                largest[j] = max(largest.get(j, 0), int(tree.cat_sets[int(t)].max()))
    big = {j: c for j, c in largest.items() if c > LARGE_CATEGORY}
    if big:
        j = max(big, key=big.get)
        splits = sum(int(d & CATEGORICAL and tree.split_feature[k] in big) for tree in trees
                     for k, d in enumerate(tree.decision_type))
        megabytes = splits * (big[j] // 32 + 1) * 2 / 1e6      # mostly words 0: about 2 characters each
        warnings.warn(f"{owner}: column {names[j]!r} has categorical splits on category ids up to {big[j]}; each "
                      f"split is written as a bitset of one bit per id up to its largest (about {megabytes:.3g} MB "
                      f"for the model's {splits} such splits): renumber the column's categories as 0, 1, ..., K - 1 "
                      f"(a DataFrame's 'category' column is coded so) and refit", UserWarning,
                      stacklevel=outside_stacklevel())


def _numbers(values) -> str:
    return " ".join(repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v)) for v in values)


def _tree_block(index: int, tree: LightGBMTree) -> str:
    """``Tree=index`` and its node tables, with the blank lines after it (counted in ``tree_sizes``)."""
    bitsets = [_bitset(s) for s in tree.cat_sets]
    boundaries = np.cumsum([0] + [len(b) for b in bitsets]).tolist()
    lines = [f"Tree={index}", f"num_leaves={tree.num_leaves}", f"num_cat={len(tree.cat_sets)}",
             "split_feature=" + _numbers(tree.split_feature),
             "split_gain=" + _numbers(tree.split_gain),
             "threshold=" + _numbers(tree.threshold),
             "decision_type=" + _numbers(tree.decision_type),
             "left_child=" + _numbers(tree.left_child),
             "right_child=" + _numbers(tree.right_child),
             "leaf_value=" + _numbers(tree.leaf_value),
             # LightGBM's leaf_weight is the leaves' Σ hessian, which boosting on pairs has no single value of:
             # the counts stand in for it
             "leaf_weight=" + _numbers(float(c) for c in tree.leaf_count) if tree.num_leaves > 1 else "leaf_weight=",
             "leaf_count=" + _numbers(tree.leaf_count),
             "internal_value=" + _numbers(tree.internal_value),
             "internal_weight=" + _numbers(float(c) for c in tree.internal_count),
             "internal_count=" + _numbers(tree.internal_count)]
    if tree.cat_sets:
        lines += ["cat_boundaries=" + _numbers(boundaries),
                  "cat_threshold=" + _numbers(w for b in bitsets for w in b)]
    lines += ["is_linear=0", "shrinkage=1"]
    return "\n".join(lines) + "\n\n\n"


def _bitset(categories: np.ndarray) -> list[int]:
    """Categories as 32-bit words: category c is bit c % 32 of word c // 32."""
    words = [0] * (int(categories.max(initial=0)) // 32 + 1)
    for c in categories.tolist():
        words[c // 32] |= 1 << (c % 32)
    return words


def _feature_infos(trees: list[LightGBMTree], n_features: int) -> list[str]:
    """Per feature: ``none`` when no tree splits it; a categorical feature's categories in its splits (``a:b:c``);
    a numeric feature's range of thresholds ``[lo:hi]`` (the training range is not kept)."""
    low = [math.inf] * n_features
    high = [-math.inf] * n_features
    cats: list[set] = [set() for _ in range(n_features)]
    for tree in trees:
        for j, t, d in zip(tree.split_feature, tree.threshold, tree.decision_type):
            if d & CATEGORICAL:
                cats[j].update(tree.cat_sets[int(t)].tolist())
            elif t < np.finfo(np.float64).max:       # (the NaN tests of categorical splits)
                low[j], high[j] = min(low[j], t), max(high[j], t)
    out = []
    for j in range(n_features):
        if cats[j]:
            out.append(":".join(str(c) for c in sorted(cats[j])))
        elif low[j] <= high[j]:
            out.append(f"[{low[j]!r}:{high[j]!r}]")
        else:
            out.append("none")
    return out


def _importances(trees: list[LightGBMTree], names: list[str]) -> str:
    """``feature_importances:`` and the number of splits per feature used, most first (LightGBM's default)."""
    counts = np.zeros(len(names), dtype=np.int64)
    for tree in trees:
        for j in tree.split_feature:
            counts[j] += 1
    order = sorted((j for j in range(len(names)) if counts[j] > 0), key=lambda j: (-counts[j], j))
    return "feature_importances:\n" + "".join(f"{names[j]}={counts[j]}\n" for j in order)


def _pandas_categorical(categories) -> str:
    """The category lists of a DataFrame's category columns in column order (JSON), or ``null``."""
    if categories is None or all(c is None for c in categories):
        return "null"
    return json.dumps([np.asarray(c).tolist() for c in categories if c is not None])
