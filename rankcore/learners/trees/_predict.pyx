"""Prediction kernels of the ``trees`` learner: trees walked on bin codes or on raw values (dense or CSR).

Design
------
A. ``predict_codes`` walks one tree on a block's codes: each internal node's
   256-entry table (``_histogram.split_tables``) says which codes of its
   column go left -- numeric, categorical and bundled features alike.
B. ``predict_trees`` walks a list of trees for each row, in parallel over
   rows (static schedule), accumulating Σ_t α_t v_t(x) in tree order -- the
   same floating-point operations, in the same order, as adding the trees'
   predictions one after another, so it equals that sum bitwise.  A numeric
   node sends x right iff x > threshold; a categorical node sends x left iff
   x is one of its left categories (binary search); NaN follows nan_left.
C. ``predict_trees_csr`` reads a CSR matrix's stored values only (a value not
   stored is 0): the same walk, bit for bit, as on the dense form.
D. ``leaf_nodes`` / ``leaf_nodes_csr`` make B's walk (the same ``child_of``)
   and write, instead of the sum, the node each row ends at in each tree: its
   index within that tree's node arrays (``estimator.apply``).
"""

from cython.parallel cimport prange
from libc.stdint cimport uint8_t, int32_t, int64_t

from rankcore.typedefs cimport index_t, real_t
from rankcore._parallel cimport threads_for
from rankcore.learners.trees._csr cimport csr_value
from rankcore.learners.trees._route cimport child_of


def predict_codes(const uint8_t[:, ::1] codes,    # IN  (n, n_cols) bin codes
                  const int32_t[::1] column,      # IN  (nodes,) the code column each split reads
                  const uint8_t[:, ::1] go_left,  # IN  (nodes, 256) each split's table (split_tables)
                  const int32_t[::1] left,        # IN  (nodes,) left child, −1 at a leaf
                  const int32_t[::1] right,       # IN  (nodes,) right child
                  const double[::1] value,        # IN  (nodes,) leaf value
                  double[::1] out,                # OUT (n,)
                  int n_threads=1):
    """One tree's leaf value for every encoded row.  O(n·depth) time, parallel over rows; O(1) extra memory."""
    cdef Py_ssize_t n = codes.shape[0], r, node
    n_threads = threads_for(<double> n, n_threads, 65536.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            node = 0
            while left[node] >= 0:
                if go_left[node, codes[r, column[node]]]:
                    node = left[node]
                else:
                    node = right[node]
            out[r] = value[node]


cdef int _check_categorical_nodes(str caller, const int32_t[::1] feature, const uint8_t[::1] is_cat,
                                  const int64_t[::1] cat_offset) except -1:
    """Raise unless ``is_cat`` and ``cat_offset`` describe every node of ``feature``."""
    if is_cat.shape[0] != feature.shape[0] or cat_offset.shape[0] != feature.shape[0] + 1:
        raise ValueError(f"{caller}: is_cat and cat_offset must describe every node")
    return 0


def predict_trees(const real_t[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
                  const int32_t[::1] feature,     # IN  all trees' nodes, concatenated
                  const double[::1] threshold,    # IN  numeric nodes: right iff x > threshold
                  const uint8_t[::1] nan_left,    # IN  NaN goes left
                  const int32_t[::1] left,        # IN  left child (index within the tree), −1 at a leaf
                  const int32_t[::1] right,       # IN  right child
                  const double[::1] value,        # IN  leaf values
                  const Py_ssize_t[::1] roots,    # IN  (T,) offset of each tree's node 0
                  const double[::1] alpha,        # IN  (T,) coefficient of each tree
                  const uint8_t[::1] is_cat,      # IN  categorical nodes
                  const int64_t[::1] cat_offset,  # IN  (nodes + 1,) node k's left categories: cat_values[k0:k1]
                  const double[::1] cat_values,   # IN  the categorical nodes' left categories, ascending per node
                  double[::1] out,                # OUT (n,) Σ_t α_t v_t(x), summed in tree order
                  int n_threads=1):
    """Σ_t α_t h_t(x) for every row.  O(n·Σ_t depth_t) time, no allocation, parallel over rows.

    Per row the sum starts at 0 and adds α_t·v_t in tree order: bitwise the
    result of ``s += alpha_t * tree_t.predict(X)`` tree after tree.
    """
    cdef Py_ssize_t n = X.shape[0], T = roots.shape[0], r, t, node, base
    cdef double s
    cdef const double* cv = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    _check_categorical_nodes("predict_trees", feature, is_cat, cat_offset)
    n_threads = threads_for(<double> n * T, n_threads, 1024.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            s = 0.0
            for t in range(T):
                base = roots[t]
                node = 0
                while left[base + node] >= 0:
                    node = child_of(X[r, feature[base + node]], base + node, &threshold[0], &nan_left[0], &left[0],
                                    &right[0], &is_cat[0], &cat_offset[0], cv)
                s = s + alpha[t] * value[base + node]
            out[r] = s


def predict_trees_csr(const index_t[::1] indptr, const index_t[::1] indices, const real_t[::1] data,
                      const int32_t[::1] feature, const double[::1] threshold, const uint8_t[::1] nan_left,
                      const int32_t[::1] left, const int32_t[::1] right, const double[::1] value,
                      const Py_ssize_t[::1] roots, const double[::1] alpha, const uint8_t[::1] is_cat,
                      const int64_t[::1] cat_offset, const double[::1] cat_values, double[::1] out, int n_threads=1):
    """:func:`predict_trees` on a CSR matrix with sorted column indices, reading only its stored values.

    A value not stored is 0: the same walk, bit for bit, as on the dense
    form.  O(n·Σ_t depth_t·log(nnz per row)) time, no allocation.
    """
    cdef Py_ssize_t n = out.shape[0], T = roots.shape[0], r, t, node, base, lo, hi
    cdef double s, x
    cdef const double* cv = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    if indptr.shape[0] != n + 1 or indices.shape[0] < indptr[n] or data.shape[0] < indptr[n]:
        raise ValueError("predict_trees_csr: the CSR arrays do not hold the rows of out")
    _check_categorical_nodes("predict_trees_csr", feature, is_cat, cat_offset)
    n_threads = threads_for(<double> n * T, n_threads, 4096.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            s = 0.0
            lo = indptr[r]
            hi = indptr[r + 1]
            for t in range(T):
                base = roots[t]
                node = 0
                while left[base + node] >= 0:
                    x = csr_value(&indices[0], &data[0], lo, hi, feature[base + node]) if hi > lo else 0.0
                    node = child_of(x, base + node, &threshold[0], &nan_left[0], &left[0], &right[0], &is_cat[0],
                                    &cat_offset[0], cv)
                s = s + alpha[t] * value[base + node]
            out[r] = s


def leaf_nodes(const real_t[:, ::1] X,          # IN  (n, d) raw feature values (NaN allowed)
               const int32_t[::1] feature,      # IN  all trees' nodes, concatenated
               const double[::1] threshold,     # IN  numeric nodes: right iff x > threshold
               const uint8_t[::1] nan_left,     # IN  NaN goes left
               const int32_t[::1] left,         # IN  left child (index within the tree), −1 at a leaf
               const int32_t[::1] right,        # IN  right child
               const Py_ssize_t[::1] roots,     # IN  (T,) offset of each tree's node 0
               const uint8_t[::1] is_cat,       # IN  categorical nodes
               const int64_t[::1] cat_offset,   # IN  (nodes + 1,) node k's left categories: cat_values[k0:k1]
               const double[::1] cat_values,    # IN  the categorical nodes' left categories, ascending per node
               int32_t[:, ::1] out,             # OUT (n, T) the leaf's node index within tree t
               int n_threads=1):
    """The leaf each row reaches in each tree, walked as :func:`predict_trees` walks it.

    O(n·Σ_t depth_t) time, parallel over rows (each thread writes its own
    rows of ``out``: the same result for any thread count); no allocation.
    """
    cdef Py_ssize_t n = X.shape[0], T = roots.shape[0], r, t, node, base
    cdef const double* cv = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    _check_categorical_nodes("leaf_nodes", feature, is_cat, cat_offset)
    if out.shape[0] != n or out.shape[1] != T:
        raise ValueError(f"leaf_nodes: out must be ({n}, {T})")
    if T == 0:
        return
    n_threads = threads_for(<double> n * T, n_threads, 1024.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            for t in range(T):
                base = roots[t]
                node = 0
                while left[base + node] >= 0:
                    node = child_of(X[r, feature[base + node]], base + node, &threshold[0], &nan_left[0], &left[0],
                                    &right[0], &is_cat[0], &cat_offset[0], cv)
                out[r, t] = <int32_t> node


def leaf_nodes_csr(const index_t[::1] indptr, const index_t[::1] indices, const real_t[::1] data,
                   const int32_t[::1] feature, const double[::1] threshold, const uint8_t[::1] nan_left,
                   const int32_t[::1] left, const int32_t[::1] right, const Py_ssize_t[::1] roots,
                   const uint8_t[::1] is_cat, const int64_t[::1] cat_offset, const double[::1] cat_values,
                   int32_t[:, ::1] out, int n_threads=1):
    """:func:`leaf_nodes` on a CSR matrix with sorted column indices, reading only its stored values.

    A value not stored is 0: the same leaves as the dense form.
    O(n·Σ_t depth_t·log(nnz per row)) time, no allocation.
    """
    cdef Py_ssize_t n = out.shape[0], T = roots.shape[0], r, t, node, base, lo, hi
    cdef double x
    cdef const double* cv = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    # a matrix storing nothing has no element 0 to point at; no row then reads one (lo == hi)
    cdef const index_t* ind = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const real_t* dat = &data[0] if data.shape[0] > 0 else NULL
    if indptr.shape[0] != n + 1 or indices.shape[0] < indptr[n] or data.shape[0] < indptr[n]:
        raise ValueError("leaf_nodes_csr: the CSR arrays do not hold the rows of out")
    _check_categorical_nodes("leaf_nodes_csr", feature, is_cat, cat_offset)
    if out.shape[1] != T:
        raise ValueError(f"leaf_nodes_csr: out must have {T} columns")
    if T == 0:
        return
    n_threads = threads_for(<double> n * T, n_threads, 4096.0)
    with nogil:
        for r in prange(n, schedule="static", num_threads=n_threads):
            lo = indptr[r]
            hi = indptr[r + 1]
            for t in range(T):
                base = roots[t]
                node = 0
                while left[base + node] >= 0:
                    x = csr_value(ind, dat, lo, hi, feature[base + node]) if hi > lo else 0.0
                    node = child_of(x, base + node, &threshold[0], &nan_left[0], &left[0], &right[0], &is_cat[0],
                                    &cat_offset[0], cv)
                out[r, t] = <int32_t> node
