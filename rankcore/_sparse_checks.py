"""The structure of a scipy.sparse matrix checked before anything reads its index arrays.

:func:`check_sparse_structure` (re-exported by :mod:`rankcore.validation`,
which calls it from ``check_matrix``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal

__all__ = ["check_sparse_structure"]


#: The compressed formats: (index array along the rows or columns, the word for one of its entries).
_COMPRESSED = {"csr": ("row", "column"), "csc": ("column", "row"), "bsr": ("block row", "block column")}


def check_sparse_structure(X: Any, *, name: str = "X") -> None:
    """Refuse a scipy.sparse matrix whose index arrays do not describe a matrix of its shape.

    scipy checks only the lengths when it builds a matrix from
    ``(data, indices, indptr)`` and nothing when the arrays are assigned
    later, while its conversions (``tocsc``, ``tocsr``) and rankcore's
    kernels trust them: an out-of-range or negative index, or an ``indptr``
    that decreases, reads or writes outside the arrays.  Checked here, in
    O(nnz) time and without copying: for CSR, CSC and BSR the length,
    first and last entries and monotonicity of ``indptr``, the lengths of
    ``indices`` and ``data``, and every stored index against the shape; for
    COO the row and column of every entry.  Other formats keep no index
    arrays to trust.

    Raises
    ------
    ArgumentRefusal
        A ``ValueError`` of the argument ``name`` (its ``parameter``), naming
        the array at fault, the rule and the value found.
    """
    fmt = getattr(X, "format", None)
    if fmt not in ("csr", "csc", "bsr", "coo") or len(X.shape) != 2:
        return
    shape = tuple(int(v) for v in X.shape)
    where = f"{name}: malformed sparse {fmt.upper()} matrix of shape {shape}"
    if fmt == "coo":
        data = np.asarray(X.data)
        for label, bound in (("row", shape[0]), ("col", shape[1])):
            index = _index_array(getattr(X, label), f"{where}: {label}", name)
            if index.shape[0] != data.shape[0]:
                raise _refused(name, f"{where}: {label} and data must have the same length, got "
                                 f"{index.shape[0]} and {data.shape[0]}")
            k = _first_outside(index, bound)
            if k is not None:
                raise _refused(name, f"{where}: every {label} index must lie in [0, {bound}), got {int(index[k])} "
                                 f"at stored value {k}")
        return
    major, minor = _COMPRESSED[fmt]
    if fmt == "bsr":
        block_rows, block_columns = (int(v) for v in X.blocksize)
        n_major, n_minor = shape[0] // block_rows, shape[1] // block_columns
    else:
        n_major, n_minor = (shape[0], shape[1]) if fmt == "csr" else (shape[1], shape[0])
    indptr = _index_array(X.indptr, f"{where}: indptr", name)
    indices = _index_array(X.indices, f"{where}: indices", name)
    n_data = int(np.shape(X.data)[0]) if np.ndim(X.data) else 0
    if indptr.shape[0] != n_major + 1:
        raise _refused(name, f"{where}: indptr must have one entry per {major} plus one ({n_major + 1}), "
                         f"got {indptr.shape[0]}")
    if indices.shape[0] != n_data:
        raise _refused(name, f"{where}: indices and data must have the same length, got {indices.shape[0]} "
                         f"and {n_data}")
    if int(indptr[0]) != 0:
        raise _refused(name, f"{where}: indptr must start at 0, got {int(indptr[0])}")
    steps = np.diff(indptr)
    if steps.size and int(steps.min()) < 0:
        i = int(np.flatnonzero(steps < 0)[0])
        raise _refused(name, f"{where}: indptr must not decrease, got {int(indptr[i])} then {int(indptr[i + 1])} "
                         f"at {major} {i}")
    nnz = int(indptr[-1])
    if nnz > n_data:
        raise _refused(name, f"{where}: indptr ends at {nnz}, past the {n_data} stored values")
    k = _first_outside(indices[:nnz], n_minor)
    if k is not None:
        i = int(np.searchsorted(indptr, k, side="right") - 1)
        raise _refused(name, f"{where}: every {minor} index must lie in [0, {n_minor}), got {int(indices[k])} "
                         f"in {major} {i}")


def _index_array(values: Any, what: str, name: str) -> np.ndarray:
    """``values`` as a 1-D integer array (no copy), or the refusal of the matrix ``name`` saying what it is instead."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise _refused(name, f"{what} must be a 1-D array of integers, got dtype {arr.dtype} and shape {arr.shape}")
    return arr


def _refused(name: str, message: str) -> ArgumentRefusal:
    """The refusal of the matrix ``name`` said as ``message`` (which starts with ``f"{name}: "``)."""
    return ArgumentRefusal(message, parameter=name, detail=message[len(name) + 2:])


def _first_outside(index: np.ndarray, bound: int) -> int | None:
    """The position of the first entry of ``index`` outside [0, bound), or None."""
    if index.size == 0 or (int(index.min()) >= 0 and int(index.max()) < bound):
        return None
    return int(np.flatnonzero((index < 0) | (index >= bound))[0])
