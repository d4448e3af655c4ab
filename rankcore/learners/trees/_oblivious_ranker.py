"""The weak ranker of ``trees:growth=oblivious``: a symmetric tree, its saved record, its prediction by bit index."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from . import _oblivious_kernels as _kernels
from .._base import WeakRanker
from ._covers import oblivious_cover_from_state, store_cover
from ._forest_arrays import forest_arrays
from ._ranker import prediction_matrix, row_blocks, store_frozen

__all__ = ["ObliviousTreeRanker", "oblivious_from_state", "predict_oblivious_forest", "level_arrays"]

_FIELDS = ("feature", "threshold", "nan_left", "value", "gain")
#: Deepest tree a model file may hold (2^depth leaf values).
_MAX_STATE_DEPTH = 16


class ObliviousTreeRanker(WeakRanker):
    """A symmetric tree: every node of level l splits on ``feature[l]`` at ``threshold[l]``.

    h(x) = ``value[Σ_l 2^l·[x goes right at level l]]``; x goes right at
    level l iff x[feature[l]] > threshold[l], NaN iff not ``nan_left[l]``.

    Attributes
    ----------
    feature : int32 array (D,)
    threshold : float64 array (D,)
    nan_left : uint8 array (D,)
    value : float64 array (2^D,)
        Leaf values by bit index (the leaves below a node that was not split
        share its value).
    gain : float64 array (D,)
        Each level's split gain summed over its nodes (``feature_importances_``).
    cover : float64 array (2^D,) or None
        Each cell's training rows of the tree's row sample (the cells below a
        node that was not split share its rows equally), which
        ``feature_contributions`` weighs the branches by; None for a tree
        loaded from a file written without covers.
    values : tuple of float
        The distinct leaf values, ascending.
    """

    kind = "oblivious_tree"

    def __init__(self, feature, threshold, nan_left, value, gain, *, bins=None, cover=None):
        store_frozen(self, bins, feature=feature, threshold=threshold, nan_left=nan_left, value=value, gain=gain)
        self.cover = None if cover is None else store_cover(cover)

    @cached_property
    def values(self) -> tuple:
        """The distinct leaf values, ascending (worked out on first use: a fit in memory never reads them, and
        a sort per tree is a measurable share of a small fit's Python)."""
        return tuple(float(v) for v in np.unique(self.value))

    @property
    def depth(self) -> int:
        return int(self.feature.shape[0])

    @property
    def n_leaves(self) -> int:
        """2^depth (the cells below a node that was not split share its value)."""
        return 1 << self.depth

    @property
    def features(self):
        return tuple(sorted({int(j) for j in self.feature}))

    def predict(self, X):
        return predict_oblivious_forest([self], np.ones(1), X, 1)

    def importances(self, n_features: int) -> np.ndarray:
        """Total split gain per feature (length ``n_features``)."""
        return np.bincount(self.feature, weights=self.gain, minlength=n_features)

    def split_counts(self, n_features: int) -> np.ndarray:
        """Split nodes per feature (length ``n_features``, int64): level l splits its 2**l nodes, so the counts are
        those LightGBM and XGBoost give the tree exported (a count of levels would disagree with them)."""
        nodes = np.left_shift(1, np.arange(len(self.feature), dtype=np.int64))
        return np.bincount(self.feature, weights=nodes, minlength=n_features).astype(np.int64)

    def to_state(self):
        state = {"kind": self.kind, "feature": self.feature.tolist(), "threshold": self.threshold.tolist(),
                 "nan_left": [bool(v) for v in self.nan_left], "value": self.value.tolist(),
                 "gain": self.gain.tolist()}
        if self.cover is not None:
            state["cover"] = self.cover.tolist()
        return state

    def describe(self, feature_names=None):
        names = [feature_names[j] if feature_names is not None else f"x{j}" for j in self.feature]
        if not names:
            return "oblivious tree(depth 0)"
        return f"oblivious tree(depth {self.depth}, levels " + ", ".join(
            f"{n} > {t:.6g}" for n, t in zip(names, self.threshold)) + ")"

    def __repr__(self):
        return f"ObliviousTreeRanker(depth {self.depth}, features {list(self.features)})"


_ALL_GOOD = object()


def _is_feature(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, np.integer)) and 0 <= v <= np.iinfo(np.int32).max


def _is_flag(v) -> bool:
    return isinstance(v, (bool, np.bool_)) or (not isinstance(v, (list, dict)) and v in (0, 1))


def _is_finite(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float, np.floating, np.integer)) and math.isfinite(v)


def oblivious_from_state(state: dict) -> ObliviousTreeRanker:
    """Rebuild and validate an :class:`ObliviousTreeRanker` from its saved record.

    Refuses, with a ``ValueError`` naming the field: missing or extra
    fields, levels of different lengths, a depth above 16, a number of leaf
    values other than 2^depth, negative or non-integer features, non-finite
    thresholds, values or gains, non-boolean NaN sides, covers that are not
    2^depth finite numbers >= 0 with a positive sum at every internal node
    (the optional ``cover``: a file written without it loads, with no covers).
    """
    if state.get("kind") != ObliviousTreeRanker.kind or set(state) - {"cover"} != {"kind", *_FIELDS}:
        raise ValueError(f"expected an oblivious tree record {{kind, {', '.join(_FIELDS)}}}, got {sorted(state)}")
    not_list = [name for name in _FIELDS if not isinstance(state[name], (list, np.ndarray))]
    if not_list:
        raise ValueError(f"oblivious tree: {not_list[0]} must be a list, got {type(state[not_list[0]]).__name__}")
    arrays = {name: list(state[name]) for name in _FIELDS}
    depth = len(arrays["feature"])
    if depth > _MAX_STATE_DEPTH:
        raise ValueError(f"oblivious tree: depth {depth} is above {_MAX_STATE_DEPTH}")
    for name in ("threshold", "nan_left", "gain"):
        if len(arrays[name]) != depth:
            raise ValueError(f"oblivious tree: {name} has {len(arrays[name])} entries, "
                             f"expected {depth} (one per level)")
    if len(arrays["value"]) != 2 ** depth:
        raise ValueError(f"oblivious tree: value has {len(arrays['value'])} entries, expected 2^{depth}")
    checks = {"feature": (_is_feature, "non-negative integers"), "nan_left": (_is_flag, "booleans"),
              "threshold": (_is_finite, "finite numbers"), "value": (_is_finite, "finite numbers"),
              "gain": (_is_finite, "finite numbers")}
    for name, (ok, what) in checks.items():
        bad = next((v for v in arrays[name] if not ok(v)), _ALL_GOOD)
        if bad is not _ALL_GOOD:
            raise ValueError(f"oblivious tree: {name} must hold {what}, got {bad!r}")
    return ObliviousTreeRanker(arrays["feature"], arrays["threshold"], [bool(v) for v in arrays["nan_left"]],
                               arrays["value"], arrays["gain"], cover=oblivious_cover_from_state(state, depth))


def level_arrays(rankers):
    """(the levels' and leaf values' arrays concatenated, each tree's first level, each tree's first value):
    the oblivious kernels' form of a list of oblivious trees (offsets of T + 1 entries).

    Read-only, and built once per list of trees (:func:`._forest_arrays.forest_arrays`): O(T) per call after the
    first, O(total nodes) the first time.
    """
    return forest_arrays("levels", rankers, _joined_level_arrays,
                         lambda trees: sum(2 ** r.depth + r.depth for r in trees))


def _joined_level_arrays(rankers):
    depths = np.array([r.depth for r in rankers], dtype=np.int64)
    level_offset = np.ascontiguousarray(np.r_[0, np.cumsum(depths)], dtype=np.int64)
    value_offset = np.ascontiguousarray(np.r_[0, np.cumsum(2 ** depths)], dtype=np.int64)
    cat = {f: np.ascontiguousarray(np.concatenate([getattr(r, f) for r in rankers]))
           for f in ("feature", "threshold", "nan_left", "value")}
    return cat, level_offset, value_offset


def predict_oblivious_forest(rankers, alphas, X, n_threads: int = 1) -> np.ndarray:
    """Σ_t α_t h_t(x) for a list of oblivious trees, by bit index, in one parallel pass over the rows.

    Dense or CSR X; a CSR matrix is read from its stored values (the others
    are 0), with the same result, bit for bit, as its dense form.  Per row
    the sum adds α_t·v_t in tree order.
    """
    X, sparse = prediction_matrix(X)
    out = np.zeros(X.shape[0])
    if not rankers:
        return out
    cat, level_offset, value_offset = level_arrays(rankers)
    args = (cat["feature"], cat["threshold"], cat["nan_left"], cat["value"], level_offset, value_offset,
            np.ascontiguousarray(alphas, dtype=np.float64))
    # in blocks of rows, between which Ctrl-C is delivered (``row_blocks``); the same sums, bit for bit
    for start, stop in row_blocks(X.shape[0], len(rankers)):
        if sparse:
            _kernels.predict_oblivious_csr(X.indptr[start:stop + 1], X.indices, X.data, X.shape[1], *args,
                                           out[start:stop], int(n_threads))
        else:
            _kernels.predict_oblivious(X[start:stop], *args, out[start:stop], int(n_threads))
    return out
