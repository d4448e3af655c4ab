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
(:meth:`TreeLayout.begin_search`, ``_layout.py`` and
``_search.py``): one pass builds the root's histograms, then one pass
per split partitions the split node's rows in every block and builds the
histograms of the smaller child (the larger one is the parent's minus the
smaller: the sibling subtraction trick).  Histograms are added across
blocks; every decision is taken on the client from the summed histograms, so
the tree does not depend on how the rows are split into blocks (up to the
rounding of the sums).  Rows held in memory as one block take a native
route instead (:meth:`TreeLayout.search_in_memory`, ``_grow.pyx``): the
same tree, bit for bit, grown in one call.

Missing values: NaN has its own bin; each split sends NaN to the side with
the larger gain (remembered per split; without NaN at the node, to the
side with more rows).  A NaN never seen in training goes that same way.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

import numpy as np

from ..._background import GROUPS_REFUSED
from ..._taken_rows import TakenRows
from ...spec import Parameter, SpecError
from ...validation import INTERACTION_MAX_BYTES
from .._base import Learner
from .._constraint_refusal import ConstraintRefusal
from ._binning import (CategoryCountError, categorical_columns, category_edges, column_counts, column_indices,
                       edges_of_categories, is_sparse, splittable_columns, take_columns, tree_columns, tree_edges,
                       unsplittable_columns)
from ._contributions import forest_contributions
from ._interventional import forest_interventional
from ._interaction_values import forest_interactions
from ._interventional_interactions import forest_interventional_interactions
from ._covers import tree_cover_from_state
from ._block import TreeBlock
from ._layout import TreeLayout
from ._leaves import forest_leaves
from ._interactions import (column_groups, feature_groups, interaction_groups, named_groups, unused_columns_message,
                            warn_unused_columns)
from ._monotone import column_signs, feature_signs, monotone_signs, unbundled
from ._oblivious import MAX_DEPTH
from ._oblivious_ranker import ObliviousTreeRanker, oblivious_from_state, predict_oblivious_forest
from ._ranker import _NODE_FIELDS, ALL_LEFT, MAX_TREE_BINS, TIE_TOLERANCE, TreeRanker, predict_forest
from ._search import TreeSearch

__all__ = ["TreeRanker", "TreeLayout", "TreeBlock", "TreeSearch", "Trees", "tree_arrays_from_state",
           "ALL_LEFT", "TIE_TOLERANCE", "MAX_TREE_BINS"]

#: Largest feature or node index a tree holds (its arrays are int32).
MAX_NODE_INDEX = 2**31 - 1
#: The most Newton steps ``leaf_newton_steps`` takes on a tree's leaves.
MAX_LEAF_NEWTON_STEPS = 100


def tree_arrays_from_state(state: dict) -> TreeRanker:
    """Rebuild and validate a :class:`TreeRanker` from its saved record.

    Refuses, with a ``ValueError`` naming the field: missing or extra fields,
    arrays of different lengths, non-integer or out-of-range child indices,
    a structure that is not a tree rooted at node 0 (cycles, shared or
    unreachable nodes), negative feature indices, non-finite thresholds,
    values or gains, and covers that do not fit the tree (the optional
    ``cover``, ``_covers.tree_cover_from_state``: a file written without it
    loads, with no covers).
    """
    if state.get("kind") != TreeRanker.kind or set(state) - {"categories", "cover"} != {"kind", *_NODE_FIELDS}:
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
                      np.where(internal, np.asarray(arrays["gain"], dtype=np.float64), 0.0),
                      categories=_categories_from_state(state.get("categories"), internal),
                      cover=tree_cover_from_state(state.get("cover"), np.asarray(left), np.asarray(right)))


def _categories_from_state(raw, internal: np.ndarray):
    """A saved tree's optional ``categories``: per node null (numeric) or a list of finite numbers (internal only)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != internal.shape[0]:
        raise ValueError(f"tree: categories must be a list with one entry per node ({internal.shape[0]})")
    for i, c in enumerate(raw):
        if c is None:
            continue
        if not internal[i]:
            raise ValueError(f"tree: categories of node {i}: a leaf has none (null)")
        if not isinstance(c, list) or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                                          for v in c):
            raise ValueError(f"tree: categories of node {i} must be a list of finite numbers, got {c!r}")
    return raw


# ----------------------------------------------------------------------
# The learner
# ----------------------------------------------------------------------
class Trees(Learner):
    """Gradient-boosted histogram regression trees, grown leaf-wise (best first).

    Each iteration fits a tree with at most ``max_leaves`` leaves to the
    objective's gradient (Newton leaves −G/(H + l2) with the objective's
    curvature when it has one, else H = Σ sample weights); the driver's line
    search scales it and the update is shrunk by ``learning_rate``.  Bins:
    the ``stumps`` rule with ``max_bins`` ≤ 255 plus one bin for NaN.
    ``growth="depthwise"`` splits a level per pass; ``growth="oblivious"``
    grows symmetric trees, one split per level (``_oblivious.py``),
    saved as ``oblivious_tree`` records and predicted by bit index
    (``monotone`` signs project their leaf values onto the monotone order,
    ``_oblivious_monotone.py``).
    ``leaf_newton_steps=k`` takes k Newton steps on each tree's leaf values
    (its splits fixed) instead of one: each further step sums the
    objective's gradient and curvature G, H per leaf again at the scores
    moved by the whole leaf values v and adds −(G + l2·v)/(H + l2) to v
    (CatBoost's ``leaf_estimation_iterations``); a leaf whose H falls
    below the curvature floor its tree was grown with takes no more steps.
    The line search or the learning rate then applies to the result.
    ``max_delta_step`` > 0 clamps every leaf value to [−max_delta_step,
    max_delta_step] before the line search and the learning rate, and the
    split gains are the clamped values' −(2·G·w + (H + l2)·w²) where the cap
    binds (LightGBM's ``max_delta_step``; oblivious trees: each level's
    gain summed over its nodes, docs/trees.md).
    """

    name = "trees"
    aliases = ("tree", "gbdt")
    parameters = (
        Parameter("max_leaves", int, default=31, minimum=2, doc="leaves per tree"),
        Parameter("learning_rate", float, default=0.1, minimum=0.0, exclusive_minimum=True,
                  doc="shrinkage of each tree's step"),
        Parameter("max_depth", int, default=-1, minimum=-1, maximum=2**31 - 1,
                  doc="depth limit (-1: none; 0 is refused)"),
        Parameter("growth", str, default="leafwise", choices=("leafwise", "depthwise", "oblivious"),
                  doc="leafwise: best leaf first, one pass per split; depthwise: a whole level per pass; "
                      "oblivious: symmetric trees, one split per level shared by its nodes (depth max_depth, else "
                      "floor(log2(max_leaves)) below 31 leaves, else at least 6), predicted by bit index"),
        Parameter("min_samples_leaf", int, default=20, minimum=1, doc="rows per leaf, at least"),
        Parameter("min_child_weight", float, default=1e-3, minimum=0.0,
                  doc="sum of curvatures per leaf, at least, in units of the mean per-row curvature, or of a row of "
                      "unit curvature in the objective's scale when that is more (lambdarank, yetirank, xendcg: "
                      "LightGBM's min_sum_hessian_in_leaf; docs/trees.md, The curvature floor)"),
        Parameter("l2", float, default=0.0, minimum=0.0, doc="L2 penalty of the leaf values"),
        Parameter("subsample", float, default=0.8, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of rows per tree (seeded; 1 = every row)"),
        # at most 100: the largest weight, (−log 2^-54)^T ≈ 37.4^T, stays finite (below 1e158)
        Parameter("bagging_temperature", float, default=0.0, minimum=0.0, maximum=100.0,
                  doc="Bayesian bootstrap (CatBoost's bootstrap_type='Bayesian'): each tree weighs every row's "
                      "gradient and curvature by w = (-log U)^T, U ~ Uniform(0, 1) drawn from the tree's seed and "
                      "the row's position; the split search and the leaf values read w*g and w*h, no row is "
                      "dropped. 0 (the default): no weights; 1: CatBoost's default weights, Exp(1)"),
        Parameter("bagging_unit", str, default="row", choices=("row", "query"),
                  doc="what bagging_temperature weighs: each row, or each query (CatBoost's sampling_unit='Group': "
                      "every row of a query takes the query's weight; needs qid and a fit in memory)"),
        Parameter("colsample", float, default=1.0, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of features per tree"),
        Parameter("max_bins", int, default=255, minimum=2, maximum=MAX_TREE_BINS, doc="bins per feature (<= 255)"),
        Parameter("bin_subsample", int, default=200_000, minimum=2,
                  doc="rows sampled to place the bins (>= 2: one row places no bin edge)"),
        Parameter("bundle", bool, default=True,
                  doc="store mutually exclusive sparse features (one-hot columns) in one code column"),
        Parameter("categorical", column_indices, default="",
                  doc="columns split by groups of categories (their values are category codes), e.g. 0;3;7"),
        Parameter("cat_smooth", float, default=10.0, minimum=0.0,
                  doc="categorical splits: added to each category's curvature (in units of the mean per-row "
                      "curvature) when the categories are ordered by G/H"),
        # at most a C int, as the split kernels take it (a column has at most max_bins categories anyway)
        Parameter("max_cat_threshold", int, default=32, minimum=1, maximum=2**31 - 1, saved_beyond_maximum=True,
                  doc="categorical splits: categories in the left group, at most"),
        Parameter("random_strength", float, default=0.0, minimum=0.0,
                  doc="noise on each node's choice of feature: best gain + r·(median best gain)·N(0, 1), "
                      "seeded per tree (CatBoost's randomized split scores); 0: the best gain wins"),
        Parameter("line_search", bool, default=True,
                  doc="search the step along each tree; false: take its Newton step (α = 1, times "
                      "learning_rate), as LightGBM does -- one objective evaluation per tree instead of several; "
                      "needs an objective with a curvature"),
        # at most 100: each step costs an objective evaluation per tree and does not stop early, so a count of
        # 1e308 would never finish a tree; Newton steps settle the leaves within a few
        Parameter("leaf_newton_steps", int, default=1, minimum=1, maximum=MAX_LEAF_NEWTON_STEPS,
                  saved_beyond_maximum=True,
                  doc="Newton steps on each tree's leaf values, its structure fixed (at most 100): after the first "
                      "(-G/(H + l2)), each further step sums the gradient and curvature again at the scores "
                      "moved by the whole (unshrunk) leaf values and adds -(G + l2*v)/(H + l2) to each leaf "
                      "value v, as CatBoost's leaf_estimation_iterations (a leaf whose H falls below the "
                      "tree's curvature floor, min_child_weight, takes no more steps); the learning rate (and the line "
                      "search, if on) then applies to the result. One objective evaluation per extra step; "
                      "needs an objective with a curvature"),
        Parameter("monotone", monotone_signs, default="",
                  doc="monotone constraints (LightGBM's monotone_constraints, its 'basic' method): one sign per "
                      "column of X in column order, e.g. 1/0/-1 -- 1: the score never falls as the column rises "
                      "(the others fixed), -1: never rises, 0: free; none (the default): no constraints. Leaf-wise "
                      "and depth-wise growth only; not on categorical columns; constrained columns are not bundled; "
                      "see docs/tree_constraints.md"),
        Parameter("interactions", interaction_groups, default="",
                  doc="interaction constraints (LightGBM's interaction_constraints): groups of columns of X, e.g. "
                      "0+1/2+3+4, by index or, fitting a DataFrame, by name (age+income/3; digits are always "
                      "indices) -- a root-to-leaf path splits only on columns that lie together in some group; "
                      "a column in no group never splits; a column may be in several groups; none (the default): no "
                      "constraints. Oblivious trees: each level's column and the columns of the levels above lie in "
                      "one group; see docs/tree_constraints.md"),
        # last: a saved spec writes the parameters positionally while they can be, so a new one goes after the others
        Parameter("max_delta_step", float, default=0.0, minimum=0.0,
                  doc="cap on each leaf's value (LightGBM's and XGBoost's max_delta_step): every leaf value, before "
                      "the learning rate, is clamped to [-max_delta_step, max_delta_step], and the split gains are "
                      "the clamped values' (as LightGBM's; oblivious trees: summed over each level's nodes); the line "
                      "search, if on, then scales the capped tree, so "
                      "only with line_search=false is each tree's step at most learning_rate*max_delta_step. 0 (the "
                      "default): no cap. With monotone, the leaves' bounds lie within the cap; not with "
                      "leaf_newton_steps > 1; see docs/trees.md, A cap on the leaf values"),
    )
    # (the contract's derivative check needs every row, subsample=1: with subsample < 1
    # the candidate's derivative sums over the sampled rows only)
    examples = ("trees:subsample=1", "trees:max_leaves=63,learning_rate=0.05,subsample=1",
                "trees:max_leaves=7,max_depth=2,l2=1,colsample=0.5,subsample=1")
    allow_nan = True
    bounded = False
    accept_sparse = True
    accept_categorical = True
    takes_row_index = True            # the hold-out's training rows are binned in blocks, not copied
    newton_leaves = True              # leaf values −G/(H + l2): an objective without a value takes them as they are
    # a milder push than the stumps' (trees fit closely); why, and the other defaults: docs/studies/trees_defaults.md
    default_price = "pow:2"
    # beyond 10,000 rows, stopped on a hold-out: every row at twice the rate (docs/studies/trees_defaults.md)
    large_data_params = MappingProxyType({"learning_rate": 0.2, "subsample": 1.0})
    large_data_n_iter = 150

    @property
    def monotone_constrained(self) -> bool:
        """Whether ``monotone`` constrains any column (a sign other than 0)."""
        return any(v != "0" for v in self.monotone.split("/")) if self.monotone else False

    def _validate(self) -> None:
        for name in ("learning_rate", "min_child_weight", "l2", "random_strength", "bagging_temperature",
                     "max_delta_step"):
            if not math.isfinite(getattr(self, name)):
                raise SpecError(f"learner {self.name!r}: {name} must be a finite number, got {getattr(self, name)!r}")
        if self.growth == "oblivious":
            if self.max_depth > MAX_DEPTH:
                raise SpecError(f"learner {self.name!r}: growth='oblivious' needs max_depth <= {MAX_DEPTH}, "
                                f"got {self.max_depth}")
            if self.categorical:
                raise SpecError(f"learner {self.name!r}: growth='oblivious' does not split categorical columns "
                                f"(categorical={self.categorical!r}); use growth='leafwise' or 'depthwise'")
        if self.monotone_constrained:
            if self.leaf_newton_steps > 1:
                # the further steps move each leaf without its bounds (or its projection): they could break the order
                raise SpecError(f"learner {self.name!r}: monotone={self.monotone!r} does not combine with "
                                f"leaf_newton_steps={self.leaf_newton_steps} (the further steps would not keep the "
                                f"leaves within their bounds); use leaf_newton_steps=1")
        if self.max_delta_step > 0 and self.leaf_newton_steps > 1:
            # the further steps tell a tree's leaves apart by their values (``TreeLayout.leaf_rows``), and capped
            # leaves share the values ±cap: they would be stepped as one leaf
            raise SpecError(f"learner {self.name!r}: max_delta_step={self.max_delta_step!r} does not combine with "
                            f"leaf_newton_steps={self.leaf_newton_steps} (leaves capped to one value would take their "
                            f"further steps together); set one of them to its default")
        if self.bagging_temperature > 0 and self.leaf_newton_steps > 1:
            # the further steps sum the plain gradient per leaf (``leaf_rows`` keeps a row sample, not weights):
            # they would move the leaves towards another objective than the one the tree was grown on
            raise SpecError(f"learner {self.name!r}: bagging_temperature={self.bagging_temperature!r} does not "
                            f"combine with leaf_newton_steps={self.leaf_newton_steps} (the further steps would "
                            f"not weigh the rows); set one of them to its default")
        # values no data can split with (legal values that cannot split *some* data warn at fit instead)
        if self.max_depth == 0:
            raise SpecError(f"learner {self.name!r}: max_depth must be -1 (no limit) or >= 1, got 0 "
                            "(a tree of depth 0 has no split)")

    def with_column_names(self, feature_names) -> "Trees":
        """This learner with the columns ``interactions`` gives by name replaced by their indices.

        ``feature_names``: the columns of the DataFrame the fit is given (the
        estimator's ``feature_names_in_``), or None.  The estimators call it
        at the start of a fit, before any group is checked against X, and on
        loading a model file; the fitted model's learner (``learner_spec_``)
        holds indices.  Returns ``self`` when ``interactions`` names no
        column; a ValueError naming ``interactions`` for a name it cannot
        resolve (:func:`._interactions.named_groups`).
        """
        text = named_groups(self.interactions, feature_names)
        return self if text == self.interactions else type(self)(**{**self.params, "interactions": text})

    def warn_unused_columns(self, n_columns: int, feature_names=None) -> None:
        """Warn of the feature columns no ``interactions`` group holds (never split); the estimators call it once
        per fit, with their ``feature_names_in_`` when they have some."""
        warn_unused_columns(self, n_columns, feature_names)

    def unused_columns_message(self, n_columns: int, feature_names=None) -> str | None:
        """The text of :meth:`warn_unused_columns`' warning, or None when it has none to give."""
        return unused_columns_message(self, n_columns, feature_names)

    def prepare(self, X, *, sample_weight=None, thresholds=None, random_state=None, n_threads=1,
                categorical_features=None):
        """The layout on X (dense or ``scipy.sparse``): bin edges, categories, exclusive bundles.

        ``categorical_features``: more columns to split by category groups
        (the estimators pass a DataFrame's ``category`` columns), besides
        the ``categorical`` parameter's.
        """
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        # a TakenRows (the hold-out fit's training rows, by index) is read in blocks: no copy of the rows
        X = X if is_sparse(X) or isinstance(X, TakenRows) else np.asarray(X)
        categorical, signs = self._checked_columns(categorical_features, X.shape[1])
        columns = None
        if self.growth != "oblivious":
            # features no split can use on these rows are not stored (wide sparse data: most of them).
            # Oblivious trees keep a feature nonzero on few rows: a level's split is chosen on the sum over its
            # nodes.
            kept = splittable_columns(X, self.min_samples_leaf)
            if 0 < kept.shape[0] < X.shape[1]:
                columns = kept
                X = take_columns(X, kept)
                position = {int(j): q for q, j in enumerate(kept.tolist())}
                categorical = [position[j] for j in categorical if j in position]
        edges = tree_edges(X, self.max_bins, sample_weight, self.bin_subsample, random_state, n_threads)
        categories = {}
        for j in categorical:
            try:
                edges[j], categories[j] = category_edges(X, j, self.max_bins)
            except CategoryCountError as exc:        # named by its column of the X given, not of the kept ones
                raise CategoryCountError(j if columns is None else int(columns[j]), exc.count, exc.max_bins) from None
        bundles, n_sparse = tree_columns(X, edges, n_threads) if self.bundle else ([], 0)
        if signs is not None:
            # a constrained column keeps a code column of its own (its splits are checked against its sign)
            bundles, n_sparse = unbundled(bundles, n_sparse, signs if columns is None else signs[columns])
        single = unsplittable_columns(X, edges) if self.growth == "oblivious" or self.colsample < 1.0 else None
        if self.growth == "oblivious" and 0 < single.shape[0] < X.shape[1]:
            # a feature with one bin splits no level, so it is not stored; the others keep their edges and
            # bundles (no copy of X: the codes are read from its columns in place), and the grower keys each
            # one's split noise by its column of X, so the trees stay those grown with every column stored
            columns = np.setdiff1d(np.arange(X.shape[1]), single)
            edges, bundles, n_sparse = _without_features(columns, edges, bundles, n_sparse)
            single = single[:0]
        splittable = None
        if self.colsample < 1.0 and single.shape[0]:        # colsample draws among the features that can split
            splittable = np.ones(len(edges), dtype=bool)
            splittable[single] = False
        return self.layout_from_edges(edges, bundles=bundles, categories=categories, random_state=random_state,
                                      n_threads=n_threads, n_sparse_bundles=n_sparse, columns=columns,
                                      splittable=splittable)

    def _checked_columns(self, categorical_features, n_columns: int):
        """(categorical columns, monotone signs or None) of X's ``n_columns``, checked together before any tree."""
        categorical = categorical_columns(self.categorical, categorical_features, n_columns)
        signs = column_signs(self.monotone, n_columns)
        column_groups(self.interactions, n_columns)         # the columns' range, checked before any tree
        if signs is not None and any(signs[j] for j in categorical):
            bad = sorted(j for j in categorical if signs[j])
            raise ConstraintRefusal(f"learner {self.name!r}: monotone constrains the categorical columns {bad}; their "
                                    "categories have no order to be monotone in (set their sign to 0, or pass the "
                                    "columns as numbers)", constraint="monotone", columns=bad)
        if categorical and self.growth == "oblivious":
            raise ValueError(f"learner {self.spec!r}: growth='oblivious' does not split categorical columns, got "
                             f"categorical_features {sorted(categorical)}; use growth='leafwise' or 'depthwise', "
                             f"or pass the columns as numbers")
        return categorical, signs

    def distributed_sample(self, *, thresholds=None):
        """``bin_subsample``: the sample :meth:`prepare_distributed` draws."""
        return None if thresholds is not None else int(self.bin_subsample)

    def prepare_distributed(self, rows, *, thresholds=None, random_state=None, n_threads=1,
                            categorical_features=None):
        """``prepare``'s bin edges from the rows ``sample_rows`` draws (``bin_subsample`` of them).

        A categorical column's categories are its distinct values on every
        row, as in :meth:`prepare`: one more pass (``rows.distinct``), whose
        answer is at most ``max_bins + 1`` values a column.  No exclusive
        bundles (they are checked on every row).
        """
        if thresholds is not None:
            raise ValueError(f"learner {self.spec!r} does not use thresholds; leave thresholds=None")
        categorical, _ = self._checked_columns(categorical_features, int(rows.n_features))
        Xs, ws = rows.sample(self.bin_subsample, random_state)
        edges = tree_edges(np.asarray(Xs), self.max_bins, ws, None, None)
        categories = {}
        for j, values in zip(categorical, rows.distinct(categorical, self.max_bins) if categorical else ()):
            edges[j], categories[j] = edges_of_categories(np.asarray(values, dtype=np.float64), j, self.max_bins,
                                                          counted=False)
        splittable = self._splittable_of_rows(rows, edges) if self.colsample < 1.0 else None
        return self.layout_from_edges(edges, categories=categories, random_state=random_state, n_threads=n_threads,
                                      splittable=splittable)

    def _splittable_of_rows(self, rows, edges: list[np.ndarray]) -> np.ndarray:
        """Which columns can split, from one reduction over the rows: what ``prepare`` leaves out of colsample's
        draw (not stored, or stored with one bin), so that both routes draw the same columns.

        A column has a bin edge or a NaN; for leaf-wise and depth-wise
        growth it is also nonzero (or NaN) on ``min_samples_leaf`` rows or
        more, unless no column is (``splittable_columns``, which ``prepare``
        then ignores).
        """
        single = np.array([j for j, e in enumerate(edges) if e.shape[0] == 0], dtype=np.intp)
        nonzero, missing = rows.reduce(column_counts, single)
        out = np.ones(len(edges), dtype=bool)
        out[single] = np.asarray(missing) > 0
        if self.growth != "oblivious":
            kept = np.asarray(nonzero) >= self.min_samples_leaf
            if 0 < np.count_nonzero(kept) < kept.shape[0]:
                out &= kept
        return out

    def layout_from_edges(self, edges: list[np.ndarray], *, bundles: list[list[int]] = (),
                          categories: dict | None = None, random_state: Any = None, n_threads: int = 1,
                          n_sparse_bundles: int = 0, columns: np.ndarray | None = None,
                          splittable: np.ndarray | None = None):
        """The layout for given bin edges (a distributed fit computes the edges from a sample).

        ``bundles``: groups of features that no row takes off their default
        bin together (``_bundles.py``), each stored as one code column,
        the first ``n_sparse_bundles`` of them sparse (their code 0 is not
        counted in the histograms: ``_binning.tree_columns``);
        ``categories``: feature → its categories, ascending (the edges are
        their midpoints); ``columns``: the columns of X that the features are
        (None: every column, in order), the others never split;
        ``splittable``: whether each feature can split on the training rows
        (None: every one), the pool of colsample's draw (``_feature_draw``).
        """
        params = {name: getattr(self, name) for name in ("max_leaves", "learning_rate", "max_depth",
                                                         "min_samples_leaf", "min_child_weight", "l2",
                                                         "subsample", "colsample", "growth", "cat_smooth",
                                                         "max_cat_threshold", "random_strength", "line_search",
                                                         "leaf_newton_steps", "bagging_temperature", "bagging_unit",
                                                         "max_delta_step")}
        if categories and self.growth == "oblivious":
            raise ValueError(f"learner {self.spec!r}: growth='oblivious' does not split categorical columns, got "
                             f"categorical_features {sorted(categories)}")
        monotone = feature_signs(self.monotone, len(edges), columns, categories or {})
        interactions = feature_groups(self.interactions, len(edges), columns)
        return TreeLayout(edges, params, bundles=bundles, categories=categories, random_state=random_state,
                          n_threads=n_threads, n_sparse_bundles=n_sparse_bundles, columns=columns, monotone=monotone,
                          interactions=interactions, splittable=splittable)

    def ranker_from_state(self, state):
        """A saved tree: an oblivious tree record for ``growth='oblivious'``, a node record otherwise."""
        if self.growth == "oblivious":
            return oblivious_from_state(state)
        return tree_arrays_from_state(state)

    @staticmethod
    def predict_sum(rankers, alphas, X, n_threads: int = 1) -> np.ndarray:
        """Σ_t α_t h_t(x) for a list of trees, in one parallel pass over the rows (Cython; dense or CSR X).

        Oblivious trees are read by bit index (``predict_oblivious_forest``).
        """
        if rankers and all(r.kind == ObliviousTreeRanker.kind for r in rankers):
            return predict_oblivious_forest(rankers, alphas, X, n_threads)
        return predict_forest(rankers, alphas, X, n_threads)

    @staticmethod
    def contributions(rankers, alphas, X, n_threads: int = 1, background=None, groups=None) -> np.ndarray:
        """(n, d + 1): each feature's exact TreeSHAP value of Σ_t α_t h_t(x), then the expected value
        (``_contributions.forest_contributions``; the trees must carry covers); with ``background`` rows the
        interventional values and E_z f(z) (``_interventional.forest_interventional``; no covers needed), and with
        ``groups`` as well ((d,) integer labels 0..G−1) the (n, G + 1) values of the groups as players."""
        if background is not None:
            return forest_interventional(rankers, alphas, X, background, n_threads, player=groups)
        if groups is not None:
            raise ValueError(GROUPS_REFUSED)
        return forest_contributions(rankers, alphas, X, n_threads)

    @staticmethod
    def interaction_values(rankers, alphas, X, n_threads: int = 1, max_bytes=INTERACTION_MAX_BYTES,
                           background=None, groups=None) -> np.ndarray:
        """(n, d + 1, d + 1): each row's exact SHAP interaction values of Σ_t α_t h_t(x), the expected value at
        (d, d) (``_interaction_values.forest_interactions``; refused past ``max_bytes`` of output); with
        ``background`` rows the interventional ones and E_z f(z)
        (``_interventional_interactions.forest_interventional_interactions``; no covers needed), and with
        ``groups`` as well ((d,) integer labels 0..G−1) the (n, G + 1, G + 1) values of the groups as players."""
        if background is not None:
            return forest_interventional_interactions(rankers, alphas, X, background, n_threads, max_bytes=max_bytes,
                                                      player=groups)
        if groups is not None:
            raise ValueError(GROUPS_REFUSED)
        return forest_interactions(rankers, alphas, X, n_threads, max_bytes=max_bytes)

    @staticmethod
    def leaves(rankers, X, n_threads: int = 1) -> np.ndarray:
        """(n, T) int32: each row's leaf in each tree, indexing the tree's ``value`` (``_leaves.forest_leaves``)."""
        return forest_leaves(rankers, X, n_threads)


def _without_features(kept: np.ndarray, edges: list, bundles: list[list[int]], n_sparse: int):
    """(edges, bundles, n_sparse) of the ``kept`` features alone, renumbered 0..len(kept)−1.

    A bundle keeps its other members in their order (each slot's rows, and
    so its sums, are the same); a bundle left with none goes, and counts
    off ``n_sparse`` if it was one of the sparse ones.  O(d).
    """
    position = {int(j): q for q, j in enumerate(kept.tolist())}
    out, out_sparse = [], 0
    for i, members in enumerate(bundles):
        members = [position[j] for j in members if j in position]
        if members:
            out.append(members)
            out_sparse += i < n_sparse
    return [edges[j] for j in kept.tolist()], out, out_sparse
