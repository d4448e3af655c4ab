"""The ``trees`` learner's weak ranker: a regression tree h(x) = the value of the leaf x falls in."""

from __future__ import annotations

import numpy as np

from . import _predict
from ._forest_arrays import forest_arrays
from .._base import WeakRanker

__all__ = ["TreeRanker", "TIE_TOLERANCE", "ALL_LEFT", "MAX_TREE_BINS", "predict_forest", "prediction_matrix",
           "row_blocks", "walk_arrays", "node_value_index"]

#: Largest ``max_bins`` (one code is reserved for NaN).
MAX_TREE_BINS = 255
#: Gains within this fraction of the largest term are ties, broken by the fixed candidate order.
TIE_TOLERANCE = 1e-10
#: Threshold of a split that sends every non-missing value left (NaN right).
ALL_LEFT = float(np.finfo(np.float64).max)

#: The fields of a tree's saved record (besides ``kind``).
_NODE_FIELDS = ("feature", "threshold", "nan_left", "left", "right", "value", "gain")


class TreeRanker(WeakRanker):
    """A regression tree h(x) = value of the leaf x falls in.

    Nodes are numbered from the root (0); node i is a leaf iff
    ``left[i] == -1``.  At an internal node a row goes right iff
    ``x[feature] > threshold``, and NaN goes left iff ``nan_left``.  At a
    *categorical* node (``categories[i]`` is not None) a row goes left iff
    its value is one of ``categories[i]`` (NaN: iff ``nan_left``; any other
    value, a category never seen at that node included, goes right).

    Attributes
    ----------
    feature, left, right : int32 arrays
    threshold, value, gain : float64 arrays
        ``value`` holds the leaf values (0 at internal nodes), ``gain`` the
        split gains (0 at leaves; used by ``feature_importances_``).
    nan_left : uint8 array
    categories : tuple of (ndarray or None)
        Per node: the sorted category values going left at a categorical
        node, None elsewhere.
    cover : float64 array or None
        Per node: the training rows of the tree's row sample that reach it
        (an internal node's is the sum of its children's), which
        ``feature_contributions`` weighs the branches by; None for a tree
        loaded from a file written without covers.
    values : tuple of float
        The distinct leaf values, ascending (the exp push objective's
        compressed line search uses them).
    """

    kind = "tree"

    def __init__(self, feature, threshold, nan_left, left, right, value, gain, *, bins=None, categories=None,
                 cover=None):
        store_frozen(self, bins, feature=feature, threshold=threshold, nan_left=nan_left,
                     left=left, right=right, value=value, gain=gain)
        self.cover = None if cover is None else _frozen(cover, np.float64)
        self._set_categories(categories)
        leaves = self.left < 0
        self.values = tuple(float(v) for v in np.unique(self.value[leaves]))

    def _set_categories(self, categories) -> None:
        n = int(self.feature.shape[0])
        if categories is None:
            self.categories = (None,) * n
        else:
            self.categories = tuple(None if c is None else _frozen(np.unique(np.asarray(c, dtype=np.float64)),
                                                                   np.float64) for c in categories)
        self.bin_sets = None            # categorical nodes' training bins going left, (nodes, 4) bits (not saved)

    @property
    def categorical(self) -> bool:
        """Whether any split is categorical.

        Cached against the ``categories`` tuple it was read from: every prediction asks it of every tree, and
        scanning each tree's nodes each time would be most of the time of scoring one row (a service's call).
        """
        categories = self.categories
        if not isinstance(categories, tuple):
            # a list set in its place can change in place under the same identity: read, never cached
            return any(c is not None for c in categories)
        cached = self.__dict__.get("_categorical_of")
        if cached is None or cached[0] is not categories:
            cached = (categories, any(c is not None for c in categories))
            self.__dict__["_categorical_of"] = cached
        return cached[1]

    @classmethod
    def from_arrays(cls, feature, threshold, nan_left, left, right, value, gain, bins, values,
                    categories=None, bin_sets=None, cover=None) -> "TreeRanker":
        """A tree from arrays of the right dtypes that nobody else holds (the grower's), without copying them.

        ``values`` are the distinct leaf values, ascending; ``bin_sets`` the
        categorical nodes' training bins going left; ``cover`` (float64) the
        nodes' row counts.
        """
        tree = cls.__new__(cls)
        for name, arr in (("feature", feature), ("threshold", threshold), ("nan_left", nan_left), ("left", left),
                          ("right", right), ("value", value), ("gain", gain), ("bins", bins), ("cover", cover)):
            if arr is not None:
                arr.setflags(write=False)
            setattr(tree, name, arr)
        tree._set_categories(categories)
        tree.bin_sets = bin_sets
        tree.values = tuple(values.tolist())
        return tree

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
        return predict_forest([self], np.ones(1), X, 1)

    def importances(self, n_features: int) -> np.ndarray:
        """Total split gain per feature (length ``n_features``)."""
        internal = self.left >= 0
        return np.bincount(self.feature[internal], weights=self.gain[internal], minlength=n_features)

    def split_counts(self, n_features: int) -> np.ndarray:
        """Internal nodes per feature (length ``n_features``, int64): LightGBM's ``importance_type="split"``."""
        return np.bincount(self.feature[self.left >= 0], minlength=n_features).astype(np.int64)

    def to_state(self):
        state = {"kind": self.kind, "feature": self.feature.tolist(), "threshold": self.threshold.tolist(),
                 "nan_left": [bool(v) for v in self.nan_left], "left": self.left.tolist(),
                 "right": self.right.tolist(), "value": self.value.tolist(), "gain": self.gain.tolist()}
        if self.categorical:            # only then: trees without categorical splits save as before
            state["categories"] = [None if c is None else c.tolist() for c in self.categories]
        if self.cover is not None:
            state["cover"] = self.cover.tolist()
        return state

    def describe(self, feature_names=None):
        internal = self.left >= 0
        names = [feature_names[j] if feature_names is not None else f"x{j}" for j in self.feature[internal]]
        if not names:
            return f"tree({self.n_leaves} leaves)"
        if self.categories[0] is not None:
            first = self.categories[0]
            shown = ", ".join(f"{v:g}" for v in first[:5]) + (", ..." if len(first) > 5 else "")
            return f"tree({self.n_leaves} leaves, root {names[0]} in {{{shown}}})"
        return f"tree({self.n_leaves} leaves, root {names[0]} > {self.threshold[0]:.6g})"

    def __repr__(self):
        return f"TreeRanker({self.n_leaves} leaves, features {list(self.features)})"


def _frozen(a, dtype) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


#: The dtype of each node array a tree stores (by field name).
_FIELD_DTYPES = {"feature": np.int32, "threshold": np.float64, "nan_left": np.uint8,
                 "left": np.int32, "right": np.int32, "value": np.float64, "gain": np.float64}


def store_frozen(ranker, bins, **arrays) -> None:
    """Store each node array read-only on ``ranker`` in its field's dtype, and the training bins (not saved)."""
    for name, a in arrays.items():
        setattr(ranker, name, _frozen(a, _FIELD_DTYPES[name]))
    ranker.bins = None if bins is None else _frozen(bins, np.int32)


def prediction_matrix(X):
    """(X as the predictors read it, whether it is CSR): float32/float64 C-contiguous, or CSR with sorted indices."""
    from ._binning import csr_float, is_sparse

    if is_sparse(X):
        return csr_float(X), True
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X), False


#: the node arrays the prediction walk reads (not the gains)
_WALK_FIELDS = ("feature", "threshold", "nan_left", "left", "right", "value")
_ONE_ROOT = np.zeros(1, dtype=np.intp)
_NO_CATEGORIES = np.empty(0, dtype=np.float64)
_ONE_ROOT.flags.writeable = False
_NO_CATEGORIES.flags.writeable = False


def predict_forest(rankers, alphas, X, n_threads: int = 1) -> np.ndarray:
    """Σ_t α_t h_t(x) for a list of trees, in one parallel pass over the rows (dense or CSR X).

    A CSR matrix is read from its stored values (the others are 0), with the
    same walk as its dense form: the same scores, bit for bit.
    """
    X, sparse = prediction_matrix(X)
    out = np.zeros(X.shape[0])
    if not rankers:
        return out
    if len(rankers) == 1:
        # one tree (early stopping adds each new tree's α·h to the validation scores): its own arrays,
        # nothing concatenated -- per call this is most of the cost on a few thousand rows
        tree = rankers[0]
        roots = _ONE_ROOT
        cat = {f: np.ascontiguousarray(getattr(tree, f)) for f in _WALK_FIELDS}
        is_cat, cat_offset, cat_values = _categorical_arrays(rankers, tree.n_nodes)
    else:
        cat, roots, (is_cat, cat_offset, cat_values) = walk_arrays(rankers)
    args = (cat["feature"], cat["threshold"], cat["nan_left"], cat["left"], cat["right"], cat["value"], roots,
            np.ascontiguousarray(alphas, dtype=np.float64), is_cat, cat_offset, cat_values)
    for start, stop in row_blocks(X.shape[0], len(rankers)):
        if sparse:        # the block's row pointers index the whole matrix's stored values: nothing is copied
            _predict.predict_trees_csr(X.indptr[start:stop + 1], X.indices, X.data, *args, out[start:stop],
                                       int(n_threads))
        else:
            _predict.predict_trees(X[start:stop], *args, out[start:stop], int(n_threads))
    return out


#: Row-by-tree visits per call of a prediction kernel.  A kernel runs without the GIL, where Ctrl-C cannot reach
#: it: a prediction of millions of rows by hundreds of trees in one call ignored the interrupt for a minute.  Between
#: blocks of rows Python raises the ``KeyboardInterrupt`` (a block is a few tenths of a second at most); each row's
#: sum is the same, in the same order, whatever the blocks.
PREDICT_BLOCK_VISITS = 1 << 22


def row_blocks(n_rows: int, n_trees: int) -> list[tuple[int, int]]:
    """The (start, stop) row ranges a prediction of ``n_rows`` rows by ``n_trees`` trees runs in, one call each
    (one empty range for no rows: the kernel still checks its arrays)."""
    step = max(1024, PREDICT_BLOCK_VISITS // max(1, n_trees))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)] or [(0, 0)]


def walk_arrays(rankers):
    """(node arrays of ``_WALK_FIELDS`` concatenated, each tree's root offset, the categorical arrays) of trees.

    Read-only, and built once per list of trees (:func:`._forest_arrays.forest_arrays`): O(T) per call after the
    first, O(total nodes) the first time.
    """
    return forest_arrays("walk", rankers, _joined_walk_arrays,
                         lambda trees: sum(r.n_nodes for r in trees))


def _joined_walk_arrays(rankers):
    sizes = np.array([r.n_nodes for r in rankers], dtype=np.intp)
    roots = np.ascontiguousarray(np.r_[0, np.cumsum(sizes)[:-1]], dtype=np.intp)
    cat = {f: np.ascontiguousarray(np.concatenate([getattr(r, f) for r in rankers])) for f in _WALK_FIELDS}
    return cat, roots, _categorical_arrays(rankers, int(sizes.sum()))


def _categorical_arrays(rankers, n_nodes: int):
    """(is_cat, cat_offset, cat_values) of the concatenated nodes: node k's left categories are
    cat_values[cat_offset[k]:cat_offset[k + 1]]."""
    if not any(r.categorical for r in rankers):
        return np.zeros(n_nodes, dtype=np.uint8), np.zeros(n_nodes + 1, dtype=np.int64), _NO_CATEGORIES
    is_cat = np.zeros(n_nodes, dtype=np.uint8)
    counts = np.zeros(n_nodes, dtype=np.int64)
    values = []
    k = 0
    for r in rankers:
        if r.categorical:
            for i, c in enumerate(r.categories):
                if c is not None:
                    is_cat[k + i] = 1
                    counts[k + i] = c.shape[0]
                    values.append(c)
        k += r.n_nodes
    cat_offset = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=cat_offset[1:])
    cat_values = np.ascontiguousarray(np.concatenate(values) if values else np.empty(0), dtype=np.float64)
    return is_cat, cat_offset, cat_values


def node_value_index(ranker) -> np.ndarray | None:
    """uint8 (nodes,): each leaf's position among ``ranker.values`` (0 at internal nodes); None beyond 255 values."""
    values = ranker.values
    if values is None or not 0 < len(values) <= 255:
        return None
    # internal nodes (value 0) get some position too: only the leaves' are read
    position = np.searchsorted(np.asarray(values, dtype=np.float64), ranker.value)
    np.minimum(position, len(values) - 1, out=position)
    return position.astype(np.uint8)
