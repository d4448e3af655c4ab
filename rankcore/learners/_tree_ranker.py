"""The ``trees`` learner's weak ranker: a regression tree h(x) = the value of the leaf x falls in."""

from __future__ import annotations

import numpy as np

from . import _tree_kernels
from ._base import WeakRanker

__all__ = ["TreeRanker", "TIE_TOLERANCE", "ALL_LEFT", "MAX_TREE_BINS", "predict_forest"]

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
    ``x[feature] > threshold``, and NaN goes left iff ``nan_left``.

    Attributes
    ----------
    feature, left, right : int32 arrays
    threshold, value, gain : float64 arrays
        ``value`` holds the leaf values (0 at internal nodes), ``gain`` the
        split gains (0 at leaves; used by ``feature_importances_``).
    nan_left : uint8 array
    values : tuple of float
        The distinct leaf values, ascending (the exp push objective's
        compressed line search uses them).
    """

    kind = "tree"

    def __init__(self, feature, threshold, nan_left, left, right, value, gain, *, bins=None):
        self.feature = _frozen(feature, np.int32)
        self.threshold = _frozen(threshold, np.float64)
        self.nan_left = _frozen(nan_left, np.uint8)
        self.left = _frozen(left, np.int32)
        self.right = _frozen(right, np.int32)
        self.value = _frozen(value, np.float64)
        self.gain = _frozen(gain, np.float64)
        self.bins = None if bins is None else _frozen(bins, np.int32)    # training bins (not saved)
        leaves = self.left < 0
        self.values = tuple(float(v) for v in np.unique(self.value[leaves]))

    @classmethod
    def from_arrays(cls, feature, threshold, nan_left, left, right, value, gain, bins, values) -> "TreeRanker":
        """A tree from arrays of the right dtypes that nobody else holds (the grower's), without copying them.

        ``values`` are the distinct leaf values, ascending.
        """
        tree = cls.__new__(cls)
        for name, arr in (("feature", feature), ("threshold", threshold), ("nan_left", nan_left), ("left", left),
                          ("right", right), ("value", value), ("gain", gain), ("bins", bins)):
            arr.setflags(write=False)
            setattr(tree, name, arr)
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

    def to_state(self):
        return {"kind": self.kind, "feature": self.feature.tolist(), "threshold": self.threshold.tolist(),
                "nan_left": [bool(v) for v in self.nan_left], "left": self.left.tolist(),
                "right": self.right.tolist(), "value": self.value.tolist(), "gain": self.gain.tolist()}

    def describe(self, feature_names=None):
        internal = self.left >= 0
        names = [feature_names[j] if feature_names is not None else f"x{j}" for j in self.feature[internal]]
        root = f", root {names[0]} > {self.threshold[0]:.6g}" if names else ""
        return f"tree({self.n_leaves} leaves{root})"

    def __repr__(self):
        return f"TreeRanker({self.n_leaves} leaves, features {list(self.features)})"


def _frozen(a, dtype) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


def predict_forest(rankers, alphas, X, n_threads: int = 1) -> np.ndarray:
    """Σ_t α_t h_t(x) for a list of trees, in one parallel pass over the rows (dense or CSR X).

    A CSR matrix is read from its stored values (the others are 0), with the
    same walk as its dense form: the same scores, bit for bit.
    """
    from ._tree_binning import csr_float, is_sparse

    sparse = is_sparse(X)
    if sparse:
        X = csr_float(X)
    else:
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
    out = np.empty(X.shape[0])
    if not rankers:
        out[:] = 0.0
        return out
    sizes = np.array([r.n_nodes for r in rankers], dtype=np.intp)
    roots = np.ascontiguousarray(np.r_[0, np.cumsum(sizes)[:-1]], dtype=np.intp)
    cat = {f: np.ascontiguousarray(np.concatenate([getattr(r, f) for r in rankers]))
           for f in ("feature", "threshold", "nan_left", "left", "right", "value")}
    args = (cat["feature"], cat["threshold"], cat["nan_left"], cat["left"], cat["right"], cat["value"], roots,
            np.ascontiguousarray(alphas, dtype=np.float64), out, int(n_threads))
    if sparse:
        _tree_kernels.predict_trees_csr(X.indptr, X.indices, X.data, *args)
    else:
        _tree_kernels.predict_trees(X, *args)
    return out
