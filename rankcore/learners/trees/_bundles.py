"""Exclusive feature bundling for the ``trees`` learner: one code column for features that never meet.

One-hot columns, and sparse columns generally, are at their *default* bin
(the bin of the value 0) on most rows, and a group of such features is often
**mutually exclusive**: no row leaves the default bin in two of them (the
columns of one categorical variable, one-hot encoded).  Such a group is
stored as one code column (a *bundle*, as LightGBM's exclusive feature
bundling does): code 0 when every member is at its default bin, else the
code of the one member's bin.  A node's histogram then costs one update per
row for the whole group instead of one per member, and each member's
default-bin slot is filled by subtraction (the node's total minus the
member's other slots; ``_histogram.build_histogram``).

Exclusivity is checked on **every** training row, so the bundles are exact:
a bundled fit sees the same bins as an unbundled one, and grows the same
trees up to the rounding of the default-bin sums (exactly the same trees
when every sum is exact; the tests check both).  Dense and ``scipy.sparse``
input give the same bundles, codes and trees.

Greedy rule (Guolin Ke et al., *LightGBM: A Highly Efficient Gradient
Boosting Decision Tree*, NeurIPS 2017, Algorithm 3, with no conflicts
allowed): the candidate features -- at their default bin on at least half
of the rows -- in decreasing order of their non-default count (ties: the
lower index), each into the first open bundle it does not meet and whose
codes still fit one byte, else into a new bundle; then the denser features
(at their default bin on at least ``MIN_JOIN_FRACTION`` of the rows, the
most frequent level of a categorical variable, one-hot encoded) join the
first open bundle they do not meet, opening none; groups of one stay plain
columns (but a feature at its default bin on 95 % of the rows or more -- 50 %
where that makes eight such columns or more -- which
``_binning.tree_columns`` makes a bundle of one, so that the histograms
can skip its code 0: a *sparse* bundle).  O(Σ_j nnz_j · b) time for b
bundles tried per feature (at most ``MAX_OPEN_BUNDLES``) and O(n) bytes per
open bundle.
"""

from __future__ import annotations

import numpy as np

from . import _columns, _histogram

__all__ = ["default_bins", "default_interval", "exclusive_bundles", "bundled_slot_layout", "nondefault_rows"]

#: A feature is a bundling candidate if at least this fraction of the rows is at its default bin.
MIN_DEFAULT_FRACTION = 0.5
#: A denser feature joins an open bundle if at least this fraction of the rows is at its default bin.
MIN_JOIN_FRACTION = 0.1
#: Codes of one bundle: code 0 (every member at its default bin) and the members' slots.
MAX_BUNDLE_CODES = 256
#: Bundles a feature is tried against (and kept open) at most.
MAX_OPEN_BUNDLES = 128


def default_bins(edges: list[np.ndarray]) -> np.ndarray:
    """Each feature's default bin: the bin of the value 0, #{edges < 0}."""
    return np.array([int(np.searchsorted(e, 0.0, side="left")) for e in edges], dtype=np.intp)


def default_interval(e: np.ndarray, z: int) -> tuple[float, float]:
    """(lo, hi): a value x is in bin z iff lo < x <= hi."""
    lo = -np.inf if z == 0 else float(e[z - 1])
    hi = np.inf if z >= e.shape[0] else float(e[z])
    return lo, hi


def nondefault_rows(X, edges: list[np.ndarray], z: np.ndarray, candidates: np.ndarray) -> dict[int, np.ndarray]:
    """The rows at which each candidate feature is not at its default bin (NaN counts as not), ascending.

    ``X`` is a dense array or a ``scipy.sparse`` matrix (its implicit zeros
    are at the default bin, by definition of z).
    """
    out = {}
    if hasattr(X, "tocsc"):
        Xc = X.tocsc()
        for j in candidates.tolist():
            lo, hi = default_interval(edges[j], int(z[j]))
            start, end = Xc.indptr[j], Xc.indptr[j + 1]
            values = Xc.data[start:end]
            outside = ~((values > lo) & (values <= hi))
            out[j] = np.sort(Xc.indices[start:end][outside]).astype(np.intp)
        return out
    for j in candidates.tolist():
        lo, hi = default_interval(edges[j], int(z[j]))
        col = X[:, j]
        out[j] = np.flatnonzero(~((col > lo) & (col <= hi)))
    return out


def exclusive_bundles(rows: dict[int, np.ndarray], n_edges: np.ndarray, n_rows: int,
                      joiners: dict[int, int] | None = None, joiner_rows=None) -> list[list[int]]:
    """Groups of two or more mutually exclusive features (the greedy rule of the module doc).

    ``rows[j]`` are candidate j's non-default rows.  ``joiners`` (feature →
    its non-default count) are denser features, off their default bin on more
    than half of the rows: after the greedy pass each of them, by decreasing
    count, joins the first group (a lone candidate included) that it does not
    meet and whose codes still fit, and opens none.  ``joiner_rows(js)``
    lists the non-default rows of those joiners that some group could take,
    as a dict.  A group whose rows and the feature's add up to more than
    ``n_rows`` must meet it: it is passed over without looking at the rows.
    """
    groups: list[list[int]] = []
    codes = np.zeros(MAX_OPEN_BUNDLES, dtype=np.int64)     # codes each group's column holds
    held = np.zeros(MAX_OPEN_BUNDLES, dtype=np.int64)      # rows a group's members leave their default bin on
    used = np.zeros((min(MAX_OPEN_BUNDLES, 8), n_rows), dtype=np.uint8)   # those rows, one mask per group

    def place(j: int, r: np.ndarray, open_new: bool) -> None:
        nonlocal used
        need = int(n_edges[j]) + 2
        r = np.ascontiguousarray(r, dtype=np.intp)
        b = len(groups)
        if b:
            # the first group whose codes still fit, that is not certain to meet j by its row count alone,
            # and that j does not meet (each try stops at its first shared row, natively)
            eligible = ((codes[:b] + need <= MAX_BUNDLE_CODES) & (held[:b] + r.shape[0] <= n_rows)).view(np.uint8)
            k = _columns.first_free_bundle(used[:b], eligible, r)
            if k >= 0:
                groups[k].append(j)
                codes[k] += need
                held[k] += r.shape[0]
                used[k, r] = 1
                return
        if open_new and b < MAX_OPEN_BUNDLES:
            if b == used.shape[0]:
                used = np.concatenate([used, np.zeros_like(used)])[:MAX_OPEN_BUNDLES]
            used[b, r] = 1
            groups.append([j])
            codes[b] = 1 + need
            held[b] = r.shape[0]

    for j in sorted(rows, key=lambda j: (-rows[j].shape[0], j)):
        place(j, rows[j], True)
    if joiners and groups:
        room = n_rows - int(held[:len(groups)].min())
        hopeful = sorted((j for j, c in joiners.items() if c <= room), key=lambda j: (-joiners[j], j))
        listed = joiner_rows(hopeful) if hopeful else {}
        for j in hopeful:
            place(j, listed[j], False)
    return [sorted(g) for g in groups if len(g) > 1]


def bundled_slot_layout(n_edges: np.ndarray, z: np.ndarray, bundles: list[list[int]],
                        categorical: np.ndarray | None = None, n_sparse: int = 0) -> _histogram.SlotLayout:
    """Code columns for the features: one per bundle (first, in the order given), then one per other feature.

    A bundle's column starts with its own slot (code 0: every member at its
    default bin), then its members' slots in turn; every other feature's
    column holds its bins directly.  ``categorical`` flags the features whose
    bins are categories.  The first ``n_sparse`` bundles are sparse: the
    histograms do not count their code 0 (``SlotLayout``'s ``sparse_columns``).
    """
    d = n_edges.shape[0]
    base = np.zeros(d, dtype=np.intp)
    col = np.zeros(d, dtype=np.intp)
    default = np.full(d, -1, dtype=np.intp)
    col_base = []
    slot = 0
    bundled = set()
    for c, members in enumerate(bundles):
        col_base.append(slot)
        slot += 1
        for j in members:
            base[j], col[j], default[j] = slot, c, z[j]
            slot += int(n_edges[j]) + 2
            bundled.add(j)
    for j in range(d):
        if j in bundled:
            continue
        base[j], col[j] = slot, len(col_base)
        col_base.append(slot)
        slot += int(n_edges[j]) + 2
    return _histogram.SlotLayout(base, n_edges, col, np.array(col_base, dtype=np.intp), default, slot, categorical,
                                    sparse_columns=n_sparse)
