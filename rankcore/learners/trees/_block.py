"""The ``trees`` learner's block of encoded rows: bin codes both ways and the per-fit buffers of a tree's search.

A :class:`TreeBlock` is what the layout (:class:`~rankcore.learners.trees._layout.TreeLayout`) encodes
a block of rows into, in memory or on a Dask worker; :func:`slot_layout` is the plain histogram layout of
features each alone in its code column (the tests' and kernels' reference layout).
"""

from __future__ import annotations

import numpy as np

from . import _histogram
from ._bundles import bundled_slot_layout

__all__ = ["TreeBlock", "slot_layout"]


class TreeBlock:
    """One block of encoded rows and its per-fit buffers.

    Attributes
    ----------
    codes : uint8 array (n, c)
        Row-major bin codes in the layout's c code columns (see ``_histogram``).
    codes_t : uint8 array (c, n)
        The same codes column-major: a split's partition reads one column.
    idx, scratch : int32 arrays (n,)
        The row permutation (each node owns a contiguous range) and the
        partition's scratch space.
    og, oh : float64 arrays (n,)
        Gathered gradient and Hessian of the node being histogrammed.
    root_counts(slots) : float64 array (S,)
        Every slot's count over all the rows, counted on first use: the
        root histogram of each tree without row sampling copies it.
    ranges : dict node → (start, end)
        The current tree's nodes' ranges in ``idx`` (multi-pass route).
    """

    def __init__(self, codes: np.ndarray, offset: int = 0, row_ids: np.ndarray | None = None, n_threads: int = 1):
        n = codes.shape[0]
        self.codes = codes
        self.n_threads = int(n_threads)
        self.codes_t = _histogram.transpose_codes(codes, n_threads)     # column-major: partitions read one column
        # (sp_ptr, sp_slot): each row's slots of its sparse columns' nonzero codes, when the layout has many
        # sparse columns (``_histogram.listed_rows``; the in-memory grower's histograms read them)
        self.listed = None
        self.offset = int(offset)
        # the rows' positions in the training set (row subsampling draws by position)
        self.row_ids = None if row_ids is None else np.ascontiguousarray(row_ids, dtype=np.int64)
        self.idx = np.arange(n, dtype=np.int32)
        self.scratch = np.empty(n, dtype=np.int32)
        self.og = np.empty(n)
        self.oh = np.empty(n)
        self.ranges: dict[int, tuple[int, int]] = {}
        self.full = False            # the current tree's leaves cover every row (no row subsampling)
        self.tree_id = None
        self.grown = None            # the in-memory grower that grew the current tree, if it did
        # the Bayesian-bootstrap weights of the block's rows for the tree whose seed is bag_id (block_pass)
        self.bag = None
        self.bag_id = None
        # each row's position among the distinct leaf values of the tree evaluated last (value_index_of)
        self.value_index = None
        self.value_index_of = None
        self._root_counts = None

    def root_counts(self, slots: _histogram.SlotLayout) -> np.ndarray:
        """Every slot's count over all the block's rows (``_histogram.root_counts``), counted once per block:
        the root of every tree without row sampling has them, so the growers copy them."""
        if getattr(self, "_root_counts", None) is None:
            self._root_counts = _histogram.root_counts(self.codes, slots, self.listed,
                                                       int(getattr(self, "n_threads", 1)))
        return self._root_counts

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    def __getstate__(self):
        state = dict(self.__dict__)
        state["grown"] = None         # the in-memory grower is a per-fit workspace: it does not travel
        state["bag"] = state["bag_id"] = None     # a tree's weights: drawn again where the block goes
        return state

    @property
    def nbytes(self) -> int:
        """Bytes held: codes (twice: by rows and by columns) and the per-fit buffers (2c + 24 per row)."""
        return int(self.codes.nbytes + self.codes_t.nbytes + self.idx.nbytes + self.scratch.nbytes + self.og.nbytes
                   + self.oh.nbytes)

    def curvature(self, hessian: np.ndarray) -> tuple[np.ndarray, bool]:
        """The curvature as contiguous float64 and whether it is all ones.

        A curvature of all ones (no weights, no Hessian) is the count: not
        accumulated.  Checked on every call (a backend may refill one buffer):
        the check stops at the first entry that is not 1, and allocates nothing.
        """
        h = np.ascontiguousarray(hessian, dtype=np.float64)
        return h, _histogram.all_ones(h)


def slot_layout(n_edges: np.ndarray) -> _histogram.SlotLayout:
    """Every feature alone in its code column, its n_edges + 2 slots after the previous feature's."""
    n_edges = np.asarray(n_edges, dtype=np.intp)
    return bundled_slot_layout(n_edges, np.zeros(n_edges.shape[0], dtype=np.intp), [])
