"""Split validated scores by label and sort each side: the one sort every metric shares."""

from __future__ import annotations

import threading

import numpy as np

from ..validation import effective_n_threads
from ._partition import partition_by_label

__all__ = ["split_sorted", "PARALLEL_SORT_MIN"]

#: Below this many scores the two sorts run one after the other: starting a
#: thread costs about as much as sorting ~50,000 doubles.
PARALLEL_SORT_MIN = 1 << 16


def split_sorted(y: np.ndarray, scores: np.ndarray, *, n_threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Ascending-sorted scores of the positives and of the negatives.

    Parameters
    ----------
    y : ndarray of int8, shape (n,)
        Validated 0/1 labels (:func:`rankcore.validation.check_binary_labels`).
    scores : ndarray of float64, shape (n,)
        Validated finite scores.
    n_threads : int, optional
        Threads for the two sorts (``None``: every core).  ``np.sort``
        releases the GIL, so with two threads the sorts of the positives and
        of the negatives run side by side when n >= :data:`PARALLEL_SORT_MIN`.

    Returns
    -------
    pos, neg : ndarray of float64
        New arrays; O(n log n) time, O(n) memory.
    """
    y = np.ascontiguousarray(y, dtype=np.int8)
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n_pos = int(np.count_nonzero(y))
    pos = np.empty(n_pos, dtype=np.float64)
    neg = np.empty(y.shape[0] - n_pos, dtype=np.float64)
    partition_by_label(y, scores, pos, neg)
    # the thread count only matters for large inputs: a metric over many small queries asked it once a query
    # (the CPU affinity and load read each time: a quarter of auc's time over 100,000 queries)
    large = y.shape[0] >= PARALLEL_SORT_MIN and n_pos > 0 and neg.shape[0] > 0
    threads = effective_n_threads(n_threads, name="n_threads") if large else 1
    if threads >= 2 and large:
        helper = threading.Thread(target=pos.sort, name="rankcore-sort")
        helper.start()
        try:
            neg.sort()
        finally:
            helper.join()
    else:
        pos.sort()
        neg.sort()
    return pos, neg
