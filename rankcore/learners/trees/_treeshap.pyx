"""Exact TreeSHAP of a forest of trees: per row, each feature's SHAP value of Σ_t α_t h_t(x).

Design
------
A. The value function is the path-dependent conditional expectation of each
   tree (Algorithm 1 of Lundberg, Erion & Lee, "Consistent individualized
   feature attribution for tree ensembles", 2018): with the features of S
   known, a split on a known feature follows x, a split on an unknown one
   averages its two children weighted by their covers (training rows).
B. ``tree_shap`` computes its Shapley values exactly by the polynomial
   algorithm of that paper (Algorithm 2; the form of Lundberg et al., "From
   local explanations to global understanding with explainable AI for
   trees", Nature Machine Intelligence 2020): one depth-first walk per tree
   carries the path of unique features with, for each, the fraction of the
   rows that follow it when it is unknown (cover ratio) and when it is known
   (1 on the branch x takes, 0 on the other), and the weights of every
   subset size (EXTEND); at a leaf each feature's weight with that feature
   taken out (UNWOUND_SUM) gives its share of the leaf value.  A feature
   split twice on a path is taken out (UNWIND) before it is put back with
   the product of its fractions.  A branch with both fractions 0 adds
   nothing and is not walked.
C. Rows run in parallel (static schedule), each row's output written by the
   thread that owns it, trees in their order: the result does not depend on
   the thread count.  Values route as in ``_predict.pyx`` (``_route.pxd``):
   NaN by ``nan_left``, categories by their left set.

Cost: O(n · Σ_t L_t · D_t²) time for trees of L_t leaves and depth D_t; no
allocation beyond one path buffer of (D + 3)(D + 4)/2 elements per thread
(D the deepest tree's depth).
"""

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t
from libc.stdlib cimport malloc, free

from rankcore._parallel cimport threads_for
from rankcore.learners.trees._route cimport child_of


cdef struct PathElement:
    Py_ssize_t feature          # the split feature (−1: the root's placeholder)
    double share_unknown        # share of the rows that follow this path when the feature is unknown
    double share_known          # 1 when x follows this path, 0 when it does not
    double weight               # weight of the subsets of each size (Algorithm 2's w)


cdef struct Forest:
    const int32_t* feature
    const double* threshold
    const uint8_t* nan_left
    const int32_t* left
    const int32_t* right
    const double* value
    const double* cover
    const uint8_t* is_cat
    const int64_t* cat_offset
    const double* cat_values


cdef inline void _extend(PathElement* path, Py_ssize_t depth, double zero, double one,
                         Py_ssize_t feature) noexcept nogil:
    """EXTEND: append the feature with its fractions and update the subset-size weights."""
    cdef Py_ssize_t i
    path[depth].feature = feature
    path[depth].share_unknown = zero
    path[depth].share_known = one
    path[depth].weight = 1.0 if depth == 0 else 0.0
    for i in range(depth - 1, -1, -1):
        path[i + 1].weight = path[i + 1].weight + one * path[i].weight * (i + 1) / <double> (depth + 1)
        path[i].weight = zero * path[i].weight * (depth - i) / <double> (depth + 1)


cdef inline void _unwind(PathElement* path, Py_ssize_t depth, Py_ssize_t index) noexcept nogil:
    """UNWIND: take element ``index`` out of the path (the inverse of its EXTEND)."""
    cdef Py_ssize_t i
    cdef double one = path[index].share_known, zero = path[index].share_unknown
    cdef double next_one = path[depth].weight, tmp
    for i in range(depth - 1, -1, -1):
        if one != 0:
            tmp = path[i].weight
            path[i].weight = next_one * (depth + 1) / ((i + 1) * one)
            next_one = tmp - path[i].weight * zero * (depth - i) / <double> (depth + 1)
        else:
            path[i].weight = path[i].weight * (depth + 1) / (zero * (depth - i))
    for i in range(index, depth):
        path[i].feature = path[i + 1].feature
        path[i].share_unknown = path[i + 1].share_unknown
        path[i].share_known = path[i + 1].share_known


cdef inline double _unwound_sum(const PathElement* path, Py_ssize_t depth, Py_ssize_t index) noexcept nogil:
    """UNWOUND_SUM: the total weight of the path with element ``index`` taken out (the path unchanged)."""
    cdef Py_ssize_t i
    cdef double one = path[index].share_known, zero = path[index].share_unknown
    cdef double next_one = path[depth].weight, total = 0.0, tmp
    for i in range(depth - 1, -1, -1):
        if one != 0:
            tmp = next_one * (depth + 1) / ((i + 1) * one)
            total = total + tmp
            next_one = path[i].weight - tmp * zero * (depth - i) / <double> (depth + 1)
        else:                   # zero > 0: a branch with both fractions 0 is never walked
            total = total + path[i].weight * (depth + 1) / (zero * (depth - i))
    return total


cdef void _walk(const Forest* f, Py_ssize_t base, const double* x, double* phi, double scale, Py_ssize_t node,
                Py_ssize_t depth, PathElement* parent, double zero, double one, Py_ssize_t feature) noexcept nogil:
    """RECURSE of Algorithm 2 at ``node`` of the tree whose nodes start at ``base``; adds scale × its φ to phi."""
    cdef PathElement* path = parent + depth + 1
    cdef Py_ssize_t i, k = base + node, hot, cold, split, index
    cdef double w, incoming_zero = 1.0, incoming_one = 1.0, hot_zero, cold_zero
    for i in range(depth):
        path[i] = parent[i]
    _extend(path, depth, zero, one, feature)
    if f.left[k] < 0:
        w = scale * f.value[k]
        for i in range(1, depth + 1):
            phi[path[i].feature] += _unwound_sum(path, depth, i) * (path[i].share_known - path[i].share_unknown) * w
        return
    split = f.feature[k]
    hot = child_of(x[split], k, f.threshold, f.nan_left, f.left, f.right, f.is_cat, f.cat_offset, f.cat_values)
    cold = f.left[k] + f.right[k] - hot
    hot_zero = f.cover[base + hot] / f.cover[k]
    cold_zero = f.cover[base + cold] / f.cover[k]
    index = 1
    while index <= depth and path[index].feature != split:
        index += 1
    if index <= depth:          # split on this feature above: take it out, put it back with both fractions
        incoming_zero = path[index].share_unknown
        incoming_one = path[index].share_known
        _unwind(path, depth, index)
        depth -= 1
    if hot_zero * incoming_zero != 0 or incoming_one != 0:
        _walk(f, base, x, phi, scale, hot, depth + 1, path, hot_zero * incoming_zero, incoming_one, split)
    if cold_zero * incoming_zero != 0:
        _walk(f, base, x, phi, scale, cold, depth + 1, path, cold_zero * incoming_zero, 0.0, split)


def tree_shap(const double[:, ::1] X,         # IN  (n, d) raw feature values (NaN allowed)
              const int32_t[::1] feature,     # IN  all trees' nodes, concatenated (columns of X)
              const double[::1] threshold,    # IN  numeric nodes: right iff x > threshold
              const uint8_t[::1] nan_left,    # IN  NaN goes left
              const int32_t[::1] left,        # IN  left child (index within the tree), −1 at a leaf
              const int32_t[::1] right,       # IN  right child
              const double[::1] value,        # IN  leaf values
              const double[::1] cover,        # IN  training rows per node (> 0 at internal nodes)
              const Py_ssize_t[::1] roots,    # IN  (T,) offset of each tree's node 0
              const double[::1] alpha,        # IN  (T,) coefficient of each tree
              const uint8_t[::1] is_cat,      # IN  categorical nodes
              const int64_t[::1] cat_offset,  # IN  (nodes + 1,) node k's left categories: cat_values[k0:k1]
              const double[::1] cat_values,   # IN  the categorical nodes' left categories, ascending per node
              Py_ssize_t max_depth,           # IN  the deepest leaf's depth (root: 0)
              double[:, ::1] out,             # IN/OUT (n, >= d) φ added in columns 0..d−1 (zeros on entry)
              int n_threads=1):
    """Add Σ_t α_t φ_t(x) to each row of ``out``: the exact TreeSHAP values (Algorithm 2).

    O(n · Σ_t L_t · D_t²) time (L_t leaves, D_t depth of tree t), parallel
    over rows; O(n_threads · (D + 3)(D + 4)/2) memory for the path buffers.
    Each row is computed by one thread in tree order: the result does not
    depend on ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], T = roots.shape[0], N = feature.shape[0]
    cdef Py_ssize_t r, t, size = (max_depth + 3) * (max_depth + 4) // 2
    cdef Forest f
    cdef PathElement* paths
    cdef PathElement* mine
    if out.shape[0] != n or out.shape[1] < d:
        raise ValueError(f"tree_shap: out must have shape ({n}, >= {d}), got ({out.shape[0]}, {out.shape[1]})")
    for name, arr in (("threshold", threshold), ("nan_left", nan_left), ("left", left), ("right", right),
                      ("value", value), ("cover", cover), ("is_cat", is_cat)):
        if arr.shape[0] != N:
            raise ValueError(f"tree_shap: {name} must have one entry per node ({N}), got {arr.shape[0]}")
    if cat_offset.shape[0] != N + 1 or alpha.shape[0] != T or max_depth < 0:
        raise ValueError("tree_shap: cat_offset needs nodes + 1 entries, alpha one per tree, max_depth >= 0")
    if n == 0 or T == 0:
        return
    f.feature, f.threshold, f.nan_left = &feature[0], &threshold[0], &nan_left[0]
    f.left, f.right, f.value, f.cover = &left[0], &right[0], &value[0], &cover[0]
    f.is_cat, f.cat_offset = &is_cat[0], &cat_offset[0]
    f.cat_values = &cat_values[0] if cat_values.shape[0] > 0 else NULL
    n_threads = threads_for(<double> n * N * (max_depth + 1), n_threads, 65536.0)
    paths = <PathElement*> malloc(n_threads * size * sizeof(PathElement))
    if paths == NULL:
        raise MemoryError(f"tree_shap: no memory for {n_threads} path buffers of {size} elements")
    try:
        with nogil:
            for r in prange(n, schedule="static", num_threads=n_threads):
                mine = paths + threadid() * size
                for t in range(T):
                    _walk(&f, roots[t], &X[r, 0], &out[r, 0], alpha[t], 0, 0, mine, 1.0, 1.0, -1)
    finally:
        free(paths)
