"""Covers of the trees' nodes (the training rows reaching each): stored on the rankers, saved, checked at load.

Path-dependent TreeSHAP (``_contributions.py``) weighs the two branches of a
split by the rows that went each way in training.  The growers count them
anyway (the third column of every histogram, the ``count`` of each node), so
recording them costs a copy of one number per node: no pass over the rows.
They are the counts of the tree's row sample (``subsample``; every row when
it is 1), as LightGBM's ``internal_count``.  A model file written before
covers were recorded loads without them (``cover`` None); a saved ``cover``
field is checked as every other field is.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["store_cover", "tree_cover_from_state", "oblivious_cover_from_state", "COVER_TOLERANCE"]

#: Relative tolerance of "an internal node's cover is the sum of its children's" at load.
COVER_TOLERANCE = 1e-9


def store_cover(cover) -> np.ndarray:
    """``cover`` as a read-only float64 array."""
    arr = np.array(cover, dtype=np.float64)
    arr.setflags(write=False)
    return arr


def _numbers(raw, n: int, what: str, unit: str) -> np.ndarray:
    """``raw`` as n finite numbers >= 0 (one per ``unit``), or a ValueError naming ``what``."""
    if not isinstance(raw, (list, np.ndarray)) or len(raw) != n:
        size = f"{len(raw)} entries" if isinstance(raw, (list, np.ndarray)) else f"a {type(raw).__name__}"
        raise ValueError(f"{what} cover must be a list with one entry per {unit} ({n}), got {size}")
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v) \
                or v < 0:
            raise ValueError(f"{what} cover must hold finite numbers >= 0 (training rows per node), got {v!r}")
    return np.asarray(raw, dtype=np.float64)


def tree_cover_from_state(raw, left: np.ndarray, right: np.ndarray) -> np.ndarray | None:
    """A saved tree's optional ``cover`` (None: the file has none), checked against its structure.

    Refuses, with a ``ValueError``: a length other than the number of nodes,
    a value that is not a finite number >= 0, an internal node whose cover
    is not positive or not the sum of its children's (relative tolerance
    :data:`COVER_TOLERANCE`).
    """
    if raw is None:
        return None
    cover = _numbers(raw, left.shape[0], "tree:", "node")
    internal = np.flatnonzero(left >= 0)
    if internal.size:
        parent = cover[internal]
        children = cover[left[internal]] + cover[right[internal]]
        bad = np.flatnonzero((parent <= 0) | (np.abs(parent - children) > COVER_TOLERANCE * np.maximum(parent, 1.0)))
        if bad.size:
            i = int(internal[bad[0]])
            raise ValueError(f"tree: cover of internal node {i} is {cover[i]!r}, expected a positive number equal "
                             f"to its children's sum {cover[left[i]] + cover[right[i]]!r} (left {int(left[i])}, right "
                             f"{int(right[i])})")
    return store_cover(cover)


def oblivious_cover_from_state(state: dict, depth: int) -> np.ndarray | None:
    """A saved oblivious tree's optional ``cover`` per cell (None: the file has none), checked.

    Refuses, with a ``ValueError``: a length other than 2^depth, a value
    that is not a finite number >= 0, an internal node (a block of cells
    sharing their first bits) whose cells' covers sum to 0.
    """
    raw = state.get("cover")
    if raw is None:
        return None
    cover = _numbers(raw, 1 << depth, "oblivious tree:", "cell")
    level = cover
    while level.shape[0] > 1:      # the covers of the nodes one level up: the cells agreeing on the lower bits
        half = level.shape[0] // 2
        level = level[:half] + level[half:]
        if not (level > 0).all():
            raise ValueError(f"oblivious tree: cover sums to 0 over the cells of node {int(np.argmin(level))} of level "
                             f"{int(math.log2(half))}; every internal node needs a positive cover")
        if not np.isfinite(level).all():
            raise ValueError(f"oblivious tree: cover sums to inf over the cells of node "
                             f"{int(np.flatnonzero(~np.isfinite(level))[0])} of level {int(math.log2(half))}; "
                             "covers are counts of training rows")
    return store_cover(cover)
