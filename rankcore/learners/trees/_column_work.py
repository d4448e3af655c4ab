"""Each code column's expected cost in a tree, by which the threads of a histogram share the columns.

``_histogram.SlotLayout.set_column_work`` takes these costs; with them
thread t of T fills and scans the columns from where the costs' partial sum
reaches t/T of the total, rather than t/T of the columns.  Only the speed
depends on it, never a sum.
"""

from __future__ import annotations

import numpy as np

from . import _histogram

__all__ = ["COLUMN_SLOT_WORK", "SPARSE_CODE_WORK", "column_work"]

#: A histogram slot's share of a column's cost in a tree, in row updates (``column_work``): a depth-6
#: tree walks each slot once per node of its 63 (the gain pass) and each row's code about 2.5 times
#: (the root, then the smaller children), so about 25 if a slot's walk costs what an update does.  On
#: the LTR example (3,773 rows, 115 sparse bundles beside 91 dense columns) two-thread fits took the
#: same time from 0 to 150: the sparse columns' rows, not their slots, are what counting columns missed.
COLUMN_SLOT_WORK = 20.0

#: A sparse bundle's nonzero code's cost, in dense-column row updates (``column_work``): an update
#: read from a row's list (or found among its codes) costs more than one of a dense column read
#: column by column.  On 95,451 rows of 687 columns, 475 of them sparse bundles (30-95 % zeros),
#: the two-thread default fit within queries took 13.5-16.6 s at 1.5 against 15.6-18.5 s at 1 and
#: 17.2-20.0 s at 2 (three runs each; the LTR example's two-thread fit was no slower): at 2 the
#: threads' boundary falls among the sparse columns, and both threads then walk every row's list.
SPARSE_CODE_WORK = 1.5


def column_work(codes_t: np.ndarray, slots: _histogram.SlotLayout) -> np.ndarray:
    """Each code column's expected cost in a tree, by which the threads share the columns (``set_column_work``).

    A column costs one histogram update per row that it codes -- for a
    sparse bundle, ``SPARSE_CODE_WORK`` per row off code 0 only -- and a
    gain-pass walk of its slots per node.  O(n·s) for the s sparse columns,
    no copy of the codes.
    """
    cb = np.asarray(slots.col_base)
    rows = np.full(cb.shape[0], float(codes_t.shape[1]))
    for c in range(slots.sparse_columns):
        rows[c] = SPARSE_CODE_WORK * np.count_nonzero(codes_t[c])
    return rows + COLUMN_SLOT_WORK * np.diff(np.r_[cb, slots.n_slots])
