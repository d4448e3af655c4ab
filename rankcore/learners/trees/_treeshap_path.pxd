# The path of path-dependent TreeSHAP (Algorithm 2 of Lundberg, Erion & Lee, "Consistent individualized feature
# attribution for tree ensembles", 2018): shared by the SHAP values (``_treeshap.pyx``) and the SHAP interaction
# values (``_shap_interactions.pyx``), so both weigh the subsets with the same arithmetic.
#
#     from rankcore.learners.trees._treeshap_path cimport PathElement, Forest, _walk_conditioned
#
# Only ``cdef inline`` functions live here: each kernel module compiles its own copy.
# Complexity: O(depth) time per call of the path's functions, no allocation; a walk is O(L · D²) for a tree of
# L leaves and depth D.
#
# Precision.  UNWIND and UNWOUND_SUM divide the path's subset weights by one element's EXTEND factor.  Algorithm 2
# does it by one recurrence from the largest subset size down, which multiplies the error carried from the step
# before by zero·(m − i) / (one·(i + 1)) at size i of a path of m features: over a long path that grows without
# bound (measured on adversarial paths, relative to the exact sums: 9e-14 at m = 12, 1e-12 at 16, 3e-8 at 32,
# 1e57 at 256).  Paths of more than ``EXACT_PATH`` features are divided by composite deflation instead (Peters &
# Wilkinson, "Practical problems arising in the solution of polynomial equations", 1971): the same equations,
# solved from the top where that factor is at most 1 and from the bottom where its inverse is, so no step lets a
# carried error grow (measured ≤ 4e-15 relative up to m = 256).  Same O(m) cost; paths of at most ``EXACT_PATH``
# features keep Algorithm 2's arithmetic bit for bit.

from libc.stdint cimport uint8_t, int32_t, int64_t

from rankcore.learners.trees._route cimport child_of


cdef enum:
    EXACT_PATH = 12             # the longest path (distinct features) divided by Algorithm 2's own recurrence


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


cdef inline double _deflate(PathElement* path, Py_ssize_t depth, double zero, double one,
                           bint write) noexcept nogil:
    """The weights a_0..a_{depth−1} of the path with an element (``zero``, ``one``) taken out, by composite
    deflation: the equations w_i = zero·a_i·(depth − i)/(depth + 1) + one·a_{i−1}·i/(depth + 1) (EXTEND's) are
    solved from the top for a_{i−1} while zero·(depth − i) <= one·i, then from the bottom for a_0, a_1, ... up to
    the first a the top gave; every step scales the error carried in by a factor of at most 1.  Returns Σ a; with
    ``write`` stores a_i in path[i].weight (path[depth].weight is left as it was)."""
    cdef Py_ssize_t i = depth, j
    cdef double total = 0.0, a, carried = 0.0, w_i = path[depth].weight, scale = <double> (depth + 1)
    if one != 0:
        while i >= 1 and zero * (depth - i) <= one * i:
            a = (w_i - zero * carried * (depth - i) / scale) * scale / (i * one)
            w_i = path[i - 1].weight
            if write:
                path[i - 1].weight = a
            total = total + a
            carried = a
            i -= 1
    carried = 0.0
    for j in range(i):          # zero > 0 here: with zero == 0 the top solves every equation
        a = (path[j].weight - one * carried * j / scale) * scale / (zero * (depth - j))
        if write:
            path[j].weight = a
        total = total + a
        carried = a
    return total


cdef inline void _unwind(PathElement* path, Py_ssize_t depth, Py_ssize_t index) noexcept nogil:
    """UNWIND: take element ``index`` out of the path (the inverse of its EXTEND)."""
    cdef Py_ssize_t i
    cdef double one = path[index].share_known, zero = path[index].share_unknown
    cdef double next_one = path[depth].weight, tmp
    if depth > EXACT_PATH:
        _deflate(path, depth, zero, one, True)
    else:
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
    if depth > EXACT_PATH:
        return _deflate(<PathElement*> path, depth, zero, one, False)
    for i in range(depth - 1, -1, -1):
        if one != 0:
            tmp = next_one * (depth + 1) / ((i + 1) * one)
            total = total + tmp
            next_one = path[i].weight - tmp * zero * (depth - i) / <double> (depth + 1)
        else:                   # zero > 0: a branch with both fractions 0 is never walked
            total = total + path[i].weight * (depth + 1) / (zero * (depth - i))
    return total


cdef inline Py_ssize_t _cell_of(const double* x, const int32_t* level_feature, const double* level_threshold,
                                const uint8_t* level_nan_left, Py_ssize_t k0, Py_ssize_t k1) noexcept nogil:
    """The cell of row ``x`` in the oblivious tree whose levels are k0..k1 − 1, as prediction finds it: bit l set
    iff x[feature] > threshold at level l, NaN iff not nan_left.  O(depth)."""
    cdef Py_ssize_t l, cell = 0
    cdef double v
    cdef bint right
    for l in range(k1 - k0):
        v = x[level_feature[k0 + l]]
        if v != v:
            right = not level_nan_left[k0 + l]
        else:
            right = v > level_threshold[k0 + l]
        if right:
            cell = cell | (1 << l)
    return cell


cdef inline void _walk_conditioned(const Forest* f, Py_ssize_t base, const double* x, double* phi, double scale,
                            Py_ssize_t node, Py_ssize_t depth, PathElement* parent, double zero, double one,
                            Py_ssize_t feature, Py_ssize_t cell, Py_ssize_t level, int condition,
                            Py_ssize_t conditioned, double fraction) noexcept nogil:
    """RECURSE with feature ``conditioned`` known (``condition`` 1), unknown (−1) or neither (0: plain TreeSHAP);
    adds scale × fraction × its φ to phi.  ``fraction``: the share of the walk that reached ``node`` through the
    splits on the conditioned feature.  ``depth``: where the path's new element goes; the element of a split on
    the conditioned feature is not added (the path keeps elements 0..depth − 1).  ``cell`` >= 0: the row is one
    of an oblivious tree's cell ``cell`` (it goes right at level l iff bit l is set; ``x`` is not read), else it
    goes where x sends it."""
    cdef PathElement* path = parent + depth + 1
    cdef Py_ssize_t i, k = base + node, hot, cold, split, index, top = depth
    cdef double w, incoming_zero = 1.0, incoming_one = 1.0, hot_zero, cold_zero, hot_fraction, cold_fraction
    for i in range(depth):
        path[i] = parent[i]
    if condition == 0 or feature != conditioned:
        _extend(path, depth, zero, one, feature)
    else:
        top = depth - 1
    if f.left[k] < 0:
        w = scale * f.value[k] * fraction
        for i in range(1, top + 1):
            phi[path[i].feature] += _unwound_sum(path, top, i) * (path[i].share_known - path[i].share_unknown) * w
        return
    split = f.feature[k]
    if cell >= 0:
        hot = f.right[k] if (cell >> level) & 1 else f.left[k]
    else:
        hot = child_of(x[split], k, f.threshold, f.nan_left, f.left, f.right, f.is_cat, f.cat_offset, f.cat_values)
    cold = f.left[k] + f.right[k] - hot
    hot_zero = f.cover[base + hot] / f.cover[k]
    cold_zero = f.cover[base + cold] / f.cover[k]
    index = 1
    while index <= top and path[index].feature != split:
        index += 1
    if index <= top:            # split on this feature above: take it out, put it back with both fractions
        incoming_zero = path[index].share_unknown
        incoming_one = path[index].share_known
        _unwind(path, top, index)
        top -= 1
    hot_fraction = fraction
    cold_fraction = fraction
    if condition != 0 and split == conditioned:
        if condition > 0:       # known: x's branch only
            cold_fraction = 0.0
        else:                   # unknown: both branches, by their covers
            hot_fraction = fraction * hot_zero
            cold_fraction = fraction * cold_zero
    if hot_fraction != 0 and (hot_zero * incoming_zero != 0 or incoming_one != 0):
        _walk_conditioned(f, base, x, phi, scale, hot, top + 1, path, hot_zero * incoming_zero, incoming_one, split,
                          cell, level + 1, condition, conditioned, hot_fraction)
    if cold_fraction != 0 and cold_zero * incoming_zero != 0:
        _walk_conditioned(f, base, x, phi, scale, cold, top + 1, path, cold_zero * incoming_zero, 0.0, split,
                          cell, level + 1, condition, conditioned, cold_fraction)
