"""The structure of a scipy.sparse matrix checked before anything reads its index arrays.

:func:`check_sparse_structure` (re-exported by :mod:`rankcore.validation`,
which calls it from ``check_matrix``); :func:`sparse_frame_as_csr`, a pandas
DataFrame of ``Sparse`` columns read as the CSR matrix it stores, and
:func:`sparse_refusal`, the refusal of sparse input where only dense is taken.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal

__all__ = ["check_sparse_structure", "sparse_frame_as_csr", "is_sparse_frame", "sparse_refusal",
           "dense_sparse_frame", "dense_bytes", "dense_size", "DENSE_BYTES_LIMIT"]

#: The largest dense copy (bytes) made of a DataFrame of ``Sparse`` columns for an estimator that takes no sparse
#: input: past it such a frame is refused, as a scipy.sparse matrix is, rather than filling the memory.
DENSE_BYTES_LIMIT = 2 ** 30


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


def sparse_frame_as_csr(X: Any) -> Any:
    """A pandas DataFrame of ``Sparse`` columns with fill value 0 (beside plain number columns, when that is
    smaller), as a CSR matrix; else None.

    NumPy reads such a frame (``np.asarray``) as a dense array of every cell,
    so a fingerprint frame of 16,384 bit columns would take n x 16,384 x 8
    bytes; the frame's own stored values make the same matrix in O(nnz).  A
    fill value other than 0 (NaN: absent entries are missing), a column of
    another kind, or dense columns that would make the CSR matrix larger
    than the dense array leave the frame to the dense path (None).
    """
    if not type(X).__module__.startswith("pandas") or not hasattr(X, "columns") or X.shape[1] == 0:
        return None
    dtypes = list(X.dtypes)
    if all(_zero_filled_sparse(d) for d in dtypes):
        return _one_subtype(X, dtypes).sparse.to_coo().tocsr()
    return _mixed_frame_as_csr(X, dtypes)


def _mixed_frame_as_csr(X: Any, dtypes: list) -> Any:
    """A frame of zero-filled ``Sparse`` columns beside plain NumPy number columns (fingerprints and a few
    descriptors) as one CSR matrix, columns in order; None for any other frame, or when the CSR matrix would not be
    smaller than the dense array (its stored values and their indices against n x d doubles).

    The dense columns' zeros become absent entries (the same matrix) and their NaN stored values (missing, as in
    any CSR input).  Time O(nnz + n x dense columns); memory the result and one dense column run at a time.
    """
    import scipy.sparse as sp

    sparse = [_zero_filled_sparse(d) for d in dtypes]
    plain = [not s and isinstance(d, np.dtype) and d.kind in "biuf" for s, d in zip(sparse, dtypes)]
    if not any(sparse) or not all(s or p for s, p in zip(sparse, plain)):
        return None
    n, d = (int(v) for v in X.shape)
    stored = sum(int(X.iloc[:, j].sparse.npoints) if sparse[j] else int(np.count_nonzero(X.iloc[:, j].to_numpy()))
                 for j in range(d))
    if stored * 12 + (n + 1) * 8 >= n * d * 8:
        return None
    blocks, start = [], 0
    for stop in range(1, d + 1):
        if stop < d and sparse[stop] == sparse[start]:
            continue
        run = X.iloc[:, start:stop]
        blocks.append(_one_subtype(run, dtypes[start:stop]).sparse.to_coo() if sparse[start]
                      else sp.coo_matrix(run.to_numpy(dtype=np.float64)))
        start = stop
    return sp.hstack(blocks, format="csr")


def _one_subtype(X: Any, dtypes: list) -> Any:
    """``X`` with its Sparse columns of one subtype that scipy stores: NumPy's promotion of theirs, float16 as float32.

    pandas takes ``object`` as the common type of booleans and numbers (and scipy has no float16), so ``to_coo``
    of a frame of ``Sparse[float64]`` beside ``Sparse[bool]`` columns fails with scipy's dtype error.  The cast
    keeps the frame sparse (O(nnz)).
    """
    import pandas as pd

    subtypes = [np.dtype(d.subtype) for d in dtypes]
    common = np.result_type(*subtypes)
    if common == np.float16:
        common = np.dtype(np.float32)
    if all(subtype == common for subtype in subtypes):
        return X
    return X.astype(pd.SparseDtype(common, common.type(0)))


def _zero_filled_sparse(dtype: Any) -> bool:
    """Whether ``dtype`` is pandas' ``Sparse`` of numbers or booleans whose absent entries are 0."""
    if type(dtype).__name__ != "SparseDtype" or np.dtype(dtype.subtype).kind not in "biuf":
        return False
    fill = dtype.fill_value
    return bool(fill == 0) and not (isinstance(fill, float) and np.isnan(fill))


def is_sparse_frame(X: Any) -> bool:
    """Whether ``X`` is a pandas DataFrame with at least one ``Sparse`` column."""
    if not type(X).__module__.startswith("pandas") or not hasattr(X, "dtypes") or not hasattr(X, "columns"):
        return False
    return any(type(d).__name__ == "SparseDtype" for d in X.dtypes)


def dense_bytes(shape) -> int:
    """The bytes of a float64 dense copy of an array of ``shape`` (rows, columns)."""
    n, d = (int(v) for v in shape)
    return n * d * 8


def dense_size(shape) -> str:
    """``"26.2 GB as float64 for shape (200000, 16384)"``: the dense copy's size, as the refusals say it."""
    n, d = (int(v) for v in shape)
    return f"{dense_bytes(shape) / 1e9:.3g} GB as float64 for shape ({n}, {d})"


def sparse_refusal(X: Any, name: str) -> TypeError:
    """The refusal of sparse ``X`` by an estimator that takes dense input only, with the dense copy's size.

    (``X.toarray()`` alone is poor advice for a 200,000 x 16,384 fingerprint
    matrix: 26 GB; the message says how large it would be and which models
    read sparse input as it is.)
    """
    # a DataFrame has no toarray(): its owner needs the call a frame has
    dense = "X.to_numpy()" if is_sparse_frame(X) else "X.toarray()"
    return TypeError(f"{name}: sparse input is not supported here; pass a dense array ({dense}, "
                     f"{dense_size(X.shape)}), or use a model that reads sparse "
                     f"input as it is: rankcore.boost(learner='trees'), rankcore.PerceptronAtK, rankcore.SGDAtK")


def dense_sparse_frame(X: Any) -> Any:
    """A DataFrame whose every column is ``Sparse`` of numbers or booleans, as one C-ordered dense array; else X.

    ``np.asarray`` reads such a frame in column order (Fortran), and making that C-contiguous would copy it
    once more: two dense copies held at once, twice the size :data:`DENSE_BYTES_LIMIT` allows.  Filled column by
    column, the only dense copy is the result (float32 when every column is, else float64; absent entries are
    each column's fill value, NaN included).
    """
    dtypes = list(X.dtypes)
    if not all(type(d).__name__ == "SparseDtype" and np.dtype(d.subtype).kind in "biuf" for d in dtypes):
        return X
    kind = np.float32 if all(np.dtype(d.subtype) == np.float32 for d in dtypes) else np.float64
    out = np.empty(X.shape, dtype=kind)
    for j in range(X.shape[1]):
        out[:, j] = X.iloc[:, j].sparse.to_dense().to_numpy(dtype=kind)
    return out
