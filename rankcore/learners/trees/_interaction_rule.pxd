# Interaction constraints in the in-memory grower (``_grow.pyx``): which features each node may split on.
#
# A node's *live* groups are the interaction groups that hold every feature its path from the root splits on
# (the root's: all of them; ``_interactions.py`` says the rule).  A split on feature j gives both children the
# node's live groups that hold j, and a node may split on the members of its live groups (within the tree's
# colsample mask).  The multi-pass search keeps the same live groups in Python (``InteractionGroups``), so both
# routes scan the same features at every node.  The oblivious grower (``_grow_oblivious.pyx``) keeps one row of live
# groups for the whole tree: every path passes through every level, so all nodes of a level share the same path
# features and the same live groups (``rule_narrow``).
from libc.stdint cimport uint8_t
from libc.string cimport memcpy, memset


cdef struct InteractionRule:
    bint on                             # constraints set (with m = 0 groups: no feature splits)
    Py_ssize_t d                        # features
    Py_ssize_t m                        # groups
    const Py_ssize_t* group_ptr         # (m + 1,) group g's features: group_features[group_ptr[g]:group_ptr[g + 1]]
    const Py_ssize_t* group_features
    const Py_ssize_t* feature_ptr       # (d + 1,) feature j's groups: feature_groups[feature_ptr[j]:feature_ptr[j + 1]]
    const Py_ssize_t* feature_groups
    uint8_t* live                       # (nodes, m): each node's live groups (1: live)
    uint8_t* masks                      # (2, d): the features of the nodes scanned together, by their place q


cdef inline void rule_root(InteractionRule* r) noexcept nogil:
    """The root's live groups: every group.  O(m)."""
    memset(r.live, 1, r.m)


cdef inline void rule_children(InteractionRule* r, Py_ssize_t node, Py_ssize_t a, Py_ssize_t j) noexcept nogil:
    """The live groups of children a and a + 1 of ``node``'s split on feature j: ``node``'s live groups holding j.

    O(m + groups of j) time, no allocation.
    """
    cdef Py_ssize_t k, g, m = r.m
    cdef uint8_t* child = r.live + a * m
    memset(child, 0, m)
    for k in range(r.feature_ptr[j], r.feature_ptr[j + 1]):
        g = r.feature_groups[k]
        child[g] = r.live[node * m + g]
    memcpy(child + m, child, m)


cdef inline const uint8_t* rule_mask(InteractionRule* r, Py_ssize_t node, Py_ssize_t q,
                                     const uint8_t* tree_mask) noexcept nogil:
    """The features ``node`` may split on -- the members of its live groups that ``tree_mask`` draws -- written
    to ``masks[q]``; returns that row.  O(d + Σ_g |g| over its live groups) time, no allocation."""
    cdef Py_ssize_t g, k, f, m = r.m
    cdef uint8_t* out = r.masks + q * r.d
    cdef const uint8_t* live = r.live + node * m
    memset(out, 0, r.d)
    for g in range(m):
        if live[g]:
            for k in range(r.group_ptr[g], r.group_ptr[g + 1]):
                f = r.group_features[k]
                out[f] = tree_mask[f]
    return out


cdef inline void rule_narrow(InteractionRule* r, Py_ssize_t j) noexcept nogil:
    """Row 0 of ``live`` -- an oblivious tree's live groups, shared by every node of a level -- after a level's
    split on feature j, in place: the groups of row 0 that hold j.  O(m + groups of j) time, no allocation."""
    cdef Py_ssize_t k, g
    for k in range(r.feature_ptr[j], r.feature_ptr[j + 1]):
        g = r.feature_groups[k]
        if r.live[g]:
            r.live[g] = 2                   # live and holding j
    for g in range(r.m):
        r.live[g] = r.live[g] == 2
