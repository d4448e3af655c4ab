"""The ``trees`` learner's in-memory oblivious grower: a whole symmetric tree in one call, without the GIL.

Design
------
A. :class:`ObliviousGrower` grows one oblivious tree per
   :meth:`ObliviousGrower.grow` call on a block of rows held in memory,
   taking, in the same order and with the same floating-point operations,
   every decision of the multi-pass search (``_oblivious.ObliviousSearch``
   over ``TreeLayout.block_pass``): the same tree bit for bit (the tests
   grow both).  The multi-pass search stays the public contract (Dask).
B. A level is two phases.  The *gain pass* runs over the features in
   parallel: thread t owns feature j's slots in every histogram of the
   level and walks the level's nodes in order, completing a larger child's
   histogram by the sibling subtraction (parent − smaller child, in the
   parent's buffer) in the same walk that adds its gains to the level's
   (S, 2) sums (``_oblivious_kernels.feature_gains_sub_add``; the others:
   ``feature_gains_add``; the sums do not depend on the threads) -- two
   siblings in one walk (``feature_gains_pair``: the smaller child's slots
   read once, the two children's running sums in flight together, their
   gains added in node order) -- then takes the feature's best summed gain
   while its sums are in cache.
   Features none of whose candidates leaves ``min_samples_leaf`` rows on
   both sides of the root are not walked (they gain +0 at every node).
   Then the shared split (``choose_level_split``), and the
   *split pass*: each node's children and a stable partition of its rows;
   the smaller children's histograms are filled by the next level's gain
   pass, in the same parallel region and by the same thread that walks
   each column's gains (one fork and join per level, not one per node).
C. Memory: everything is allocated once per grower and reused tree after
   tree: node records for the 2^(D+1) − 1 nodes of a tree of depth D, the
   2^D cells, the level's (S, 2) gain sums, and histogram buffers of S
   slots, allocated on first use (at most one per node of the widest level
   that is searched, 2^(D−1)).  Time per tree: O(m·c) for the root's m
   sampled rows over c code columns, then per level O(m'·c) for the smaller
   children's rows, O(m) for the partitions and O(k·S) for the gain pass
   over the level's k nodes.
D. Interaction constraints (:meth:`ObliviousGrower.set_interactions`): every
   path passes through every level, so a level's nodes share one path
   feature set -- the features of the levels above -- and one set of live
   groups (``_interaction_rule.pxd``, ``rule_narrow``); the level searches
   the tree's features within them (one mask per level, O(d + Σ|g|)).  The
   masks only shrink down the tree, so a feature left out of a level is left
   out below it too and its slots, whose sibling subtraction its gain walk
   does, are never read again.  A level's split feature stays in every live
   group, so below the root a level's mask is never empty; at the root it is
   when the tree draws no feature of a group, and the tree has no split.
   Without constraints a level's mask is the tree's colsample mask.
E. Monotone constraints (:meth:`ObliviousGrower.set_monotone`): a
   constrained feature's candidates add a node's gain only where its
   children's Newton values keep the sign's order (the gain walks' ``sign``,
   ``_oblivious_kernels._order_gains``); free features' walks are unchanged.
   The grown tree's leaf values are projected onto the monotone order by the
   caller (``_oblivious_monotone.monotone_grown``, from :meth:`cell_sums`),
   as ``ObliviousSearch.result`` projects its own: both routes alike.
   A cap (``max_delta_step``, set with the signs): every walk adds the
   capped gains (``_oblivious_kernels._capped_gains``, scalar), as
   ``ObliviousSearch`` adds them; :meth:`tree` clamps the cells' values.
"""

from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset
from libc.math cimport fabs
from libc.float cimport DBL_MIN

from cython.parallel cimport parallel, threadid

from rankcore.learners.trees._histogram cimport (FeatureSlots, SlotLayout, SplitChoice, build_histogram,
                                              checked_counts, histogram_part, listed_pointers, partition_rows,
                                              split_table)
from rankcore.learners.trees._oblivious_kernels cimport (MAX_EDGES, LevelSplit, choose_level_split,
                                                      feature_best_gain, feature_gains_add, feature_gains_pair,
                                                      feature_gains_sub_add)
from rankcore.learners.histograms cimport (HIST_PARALLEL_CELLS, HIST_PARALLEL_ROWS, column_share,
                                           node_histogram_threads)
from rankcore.learners.trees._row_sample cimport sample_rows
from rankcore.learners.trees._interaction_rule cimport InteractionRule, rule_mask, rule_narrow, rule_root
from rankcore._parallel cimport threads_for

import numpy as np

from rankcore.learners.trees._interactions import rule_arrays

cdef enum:
    # rows from which a node's partition runs on several threads (about 10 µs of work on one)
    PARTITION_PARALLEL_ROWS = 2048


cdef class ObliviousGrower:
    """A per-fit workspace that grows oblivious trees on one block in memory.

    Parameters
    ----------
    slots : SlotLayout
        The layout's features, slots and code columns (no categorical feature).
    depth : int
        The tree's depth D, 0..16 (``_oblivious.oblivious_depth``).
    min_samples_leaf, min_child_weight, l2, tie_tolerance : float
        As in ``ObliviousSearch``; ``min_child_weight`` is in units of the
        root's mean curvature H/C, or of ``grow``'s ``curvature_unit`` when larger.
    random_strength : float
        Noise on each level's choice of feature (``_split_noise.pxd``); 0: none.
    n_threads : int
        Threads of the histogram, partition and gain kernels (the tree does
        not depend on it).

    After :meth:`grow`, :meth:`tree` returns the grown tree's arrays;
    :meth:`set_noise_key` keys each feature's split noise by another number
    (the column of X it is); :meth:`set_interactions` constrains the levels'
    features by interaction groups.
    """

    cdef SlotLayout slots
    cdef const FeatureSlots* fs
    cdef Py_ssize_t depth, max_nodes, n_cells
    cdef double min_samples_leaf, min_child_weight, l2, tie_tolerance, random_strength
    cdef double cap                     # the level gains' cap on the cells' values (set_monotone; 0: none)
    cdef double curvature_unit          # grow()'s: the least mean curvature min_child_weight counts rows of
    cdef int n_threads
    cdef readonly Py_ssize_t n_levels, n_sampled
    # histogram buffers: pool[k] for k < n_allocated, the free ones' indices in free_list[:n_free]
    cdef double** pool
    cdef Py_ssize_t pool_cap, n_allocated, n_free
    cdef Py_ssize_t* free_list
    cdef bint out_of_memory
    # node records
    cdef double* G
    cdef double* H
    cdef double* C
    cdef double* child          # (max_nodes, 6): the node's children's (G, H, count) under the level's split
    cdef Py_ssize_t* start
    cdef Py_ssize_t* end
    cdef Py_ssize_t* hist_of    # the node's histogram buffer, or −1
    cdef Py_ssize_t* sub_of     # the sibling whose histogram its buffer still holds (subtract it), or −1
    cdef uint8_t* splits        # the node allows the level's split
    cdef Py_ssize_t* active     # the level's splittable nodes, ascending
    cdef Py_ssize_t* cells      # (2^D,) each cell's node
    cdef Py_ssize_t* pending    # the smaller children whose histograms the next gain pass fills first
    cdef Py_ssize_t n_pending
    # the levels' splits
    cdef int32_t* level_feature
    cdef int32_t* level_bin
    cdef uint8_t* level_nan_left
    cdef double* level_gain
    # the level's search
    cdef double* gains          # (S, 2)
    cdef double* feature_top    # (d,) each feature's best summed gain of the level (the gain pass's)
    cdef double* work           # (d,)
    cdef uint8_t* live          # (d,) the feature has a candidate leaving min_samples_leaf rows each side at the root
    cdef Py_ssize_t* noise_key  # (d,) the number each feature's split noise is keyed by, or NULL: the feature itself
    cdef int8_t* sign           # (d,) each feature's monotone sign, or NULL: no constraints
    cdef InteractionRule rule   # interaction constraints (rule.on): the tree's live groups in row 0, a level's mask
    cdef object rule_arrays     # the arrays rule points into
    cdef uint8_t table[256]

    def __cinit__(self, SlotLayout slots, Py_ssize_t depth, double min_samples_leaf, double min_child_weight,
                  double l2, double tie_tolerance, double random_strength=0.0, int n_threads=1):
        if not 0 <= depth <= 16:
            raise ValueError(f"depth: expected an integer in 0..16, got {depth}")
        if not random_strength >= 0:
            raise ValueError(f"random_strength: expected a number >= 0, got {random_strength}")
        for j in range(slots.fs.d):
            if slots.fs.categorical[j]:
                raise ValueError(f"ObliviousGrower: feature {j} is categorical; oblivious trees split numeric "
                                 "features only")
            if slots.fs.n_edges[j] > MAX_EDGES:
                raise ValueError(f"ObliviousGrower: feature {j} has {slots.fs.n_edges[j]} bin edges, at most "
                                 f"{MAX_EDGES} fit its one-byte codes")
        self.slots = slots
        self.fs = &slots.fs
        self.depth = depth
        self.max_nodes = (2 << depth) - 1
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2 = l2
        self.tie_tolerance = tie_tolerance
        self.random_strength = random_strength
        self.n_threads = n_threads
        self.noise_key = NULL
        self.sign = NULL
        self.cap = 0.0
        self.rule.on = False
        self.pool_cap = max(1, (1 << depth) // 2)
        cdef Py_ssize_t n = self.max_nodes, d = slots.fs.d + 1
        self.pool = <double**> malloc(self.pool_cap * sizeof(double*))
        self.free_list = <Py_ssize_t*> malloc(self.pool_cap * sizeof(Py_ssize_t))
        self.G = <double*> malloc(n * sizeof(double))
        self.H = <double*> malloc(n * sizeof(double))
        self.C = <double*> malloc(n * sizeof(double))
        self.child = <double*> malloc(6 * n * sizeof(double))
        self.start = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.end = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.hist_of = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.sub_of = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.splits = <uint8_t*> malloc(n * sizeof(uint8_t))
        self.active = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.cells = <Py_ssize_t*> malloc((<Py_ssize_t> 1 << depth) * sizeof(Py_ssize_t))
        self.pending = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.n_pending = 0
        self.level_feature = <int32_t*> malloc((depth + 1) * sizeof(int32_t))
        self.level_bin = <int32_t*> malloc((depth + 1) * sizeof(int32_t))
        self.level_nan_left = <uint8_t*> malloc((depth + 1) * sizeof(uint8_t))
        self.level_gain = <double*> malloc((depth + 1) * sizeof(double))
        self.gains = <double*> malloc((2 * slots.fs.n_slots + 1) * sizeof(double))
        self.feature_top = <double*> malloc(d * sizeof(double))
        self.work = <double*> malloc(d * sizeof(double))
        self.live = <uint8_t*> malloc(d * sizeof(uint8_t))
        if (self.pool == NULL or self.free_list == NULL or self.G == NULL or self.H == NULL or self.C == NULL
                or self.child == NULL or self.start == NULL or self.end == NULL or self.hist_of == NULL
                or self.sub_of == NULL or self.splits == NULL or self.active == NULL or self.cells == NULL
                or self.level_feature == NULL or self.level_bin == NULL or self.level_nan_left == NULL
                or self.level_gain == NULL or self.gains == NULL or self.feature_top == NULL or self.work == NULL
                or self.live == NULL or self.pending == NULL):
            raise MemoryError(f"ObliviousGrower: no memory for the records of a tree of depth {depth}")
        self.n_allocated = 0

    def __dealloc__(self):
        cdef Py_ssize_t k
        if self.pool != NULL:
            for k in range(self.n_allocated):
                free(self.pool[k])
        free(self.pool)
        free(self.free_list)
        free(self.G)
        free(self.H)
        free(self.C)
        free(self.child)
        free(self.start)
        free(self.end)
        free(self.hist_of)
        free(self.sub_of)
        free(self.splits)
        free(self.active)
        free(self.cells)
        free(self.pending)
        free(self.level_feature)
        free(self.level_bin)
        free(self.level_nan_left)
        free(self.level_gain)
        free(self.gains)
        free(self.feature_top)
        free(self.work)
        free(self.live)
        free(self.noise_key)
        free(self.sign)

    def set_monotone(self, signs, double cap=0.0):
        """Score the candidates of each feature with sign s ≠ 0 (``signs``: int8, one per feature; None: none)
        by their gain where the children's Newton values keep the sign's order, +0 elsewhere; ``cap`` > 0
        (``max_delta_step``): score every candidate by its capped gain (``_oblivious_kernels._capped_gains``).

        As ``ObliviousSearch`` scores them (``_oblivious_kernels._order_gains``);
        the leaf values' projection onto the monotone order is the caller's
        (``_oblivious_monotone.monotone_cells``, from :meth:`cell_sums`), and
        their clamp to the cap :meth:`tree`'s.  O(d) time and memory.
        """
        cdef Py_ssize_t j, d = self.fs.d
        if not 0 <= cap < float("inf"):
            raise ValueError(f"ObliviousGrower.set_monotone: cap must be a finite number >= 0 (0: none), got {cap}")
        self.cap = cap
        free(self.sign)
        self.sign = NULL
        if signs is None:
            return
        values = np.ascontiguousarray(signs, dtype=np.int8)
        if values.ndim != 1 or values.shape[0] != d or not np.isin(values, (-1, 0, 1)).all():
            raise ValueError(f"ObliviousGrower.set_monotone: expected {d} signs (-1, 0 or 1), one per feature")
        self.sign = <int8_t*> malloc(max(d, 1) * sizeof(int8_t))
        if self.sign == NULL:
            raise MemoryError("ObliviousGrower.set_monotone: no memory for the signs")
        for j in range(d):
            self.sign[j] = values[j]

    def set_noise_key(self, keys):
        """Key feature j's split noise by ``keys[j]`` (non-negative integers, one per feature; None: by j).

        A layout that leaves out the columns of X no split can use numbers
        its features 0..d−1; keyed by their columns, the features draw the
        noise they would draw with every column stored, so leaving columns
        out changes no tree.  O(d) time, O(d) memory (the keys, kept by the grower).
        """
        cdef Py_ssize_t j, d = self.fs.d
        free(self.noise_key)
        self.noise_key = NULL
        if keys is None:
            return
        values = np.ascontiguousarray(keys, dtype=np.intp)
        if values.ndim != 1 or values.shape[0] != d or (d and values.min() < 0):
            raise ValueError(f"ObliviousGrower.set_noise_key: expected {d} non-negative integers, one per feature")
        self.noise_key = <Py_ssize_t*> malloc(max(d, 1) * sizeof(Py_ssize_t))
        if self.noise_key == NULL:
            raise MemoryError("ObliviousGrower.set_noise_key: no memory for the keys")
        for j in range(d):
            self.noise_key[j] = values[j]

    def set_interactions(self, csr):
        """Constrain the trees grown next by interaction groups: ``csr`` = (group_ptr, group_features,
        feature_ptr, feature_groups), ``_interactions.InteractionGroups.csr``; None: no constraints.

        Level l searches feature j only if j and the features of levels
        0..l−1 lie together in some group.  O(d + Σ|g|) time; O(m + d)
        memory for m groups (the tree's live groups and a level's mask).
        """
        cdef Py_ssize_t[::1] gp, gf, fp, fg
        cdef uint8_t[::1] live, masks
        self.rule.on = False
        self.rule_arrays = None
        if csr is None:
            return
        gp, gf, fp, fg, live, masks = self.rule_arrays = rule_arrays(csr, self.fs.d, 1, 1, "ObliviousGrower")
        self.rule.d, self.rule.m = self.fs.d, gp.shape[0] - 2
        self.rule.group_ptr, self.rule.group_features = &gp[0], &gf[0]
        self.rule.feature_ptr, self.rule.feature_groups = &fp[0], &fg[0]
        self.rule.live, self.rule.masks = &live[0], &masks[0]
        self.rule.on = True

    def __reduce__(self):
        raise TypeError("an ObliviousGrower is a per-fit workspace; it is not copied or pickled")

    def grow(self, const uint8_t[:, ::1] codes, const uint8_t[:, ::1] codes_t, const double[::1] g,
             const double[::1] h, int32_t[::1] idx, int32_t[::1] scratch, double[::1] og, double[::1] oh,
             const uint8_t[::1] feature_mask, uint64_t seed_shift, uint64_t keep_below, bint sample, row_ids=None,
             Py_ssize_t offset=0, bint unit_h=False, uint64_t noise_seed=0, listed=None, root_counts=None,
             double curvature_unit=0.0):
        """Grow one tree on the block; returns its number of levels (0: no split).

        The arguments are ``TreeGrower.grow``'s: ``sample``: keep row r iff
        splitmix64(seed_shift + position) < ``keep_below``, position =
        ``row_ids[r]`` or ``offset + r`` (``idx`` receives the kept rows first,
        ``n_sampled`` of them); ``unit_h``: h is all ones; ``noise_seed``: the
        tree's seed of the split noise; ``listed``: ``_histogram.listed_rows``
        or None; ``root_counts``: ``_histogram.root_counts`` of the block or
        None (read when every row is in the tree: copied into the root's
        histogram, whose rows then add Σg and Σh only); ``curvature_unit``:
        ``_search.curvature_floor``'s (0: the floor is min_child_weight·H/C).

        O(n + m·c) time for the row sample and the root's histogram of m sampled rows over c code columns,
        then per level O(m'·c + m + k·S): the smaller children's m' rows, the partitions, the gain pass over
        the level's k nodes of S slots.  Memory: histograms of S slots, allocated on first use (at most
        2^(depth−1) per grower) and reused by later calls; nothing else.
        """
        cdef Py_ssize_t n = codes.shape[0], m
        cdef const int64_t[::1] rid
        cdef const int64_t* rid_ptr = NULL
        cdef const int64_t* sp_ptr = NULL
        cdef const int32_t* sp_slot = NULL
        listed_pointers(listed, n, self.fs, &sp_ptr, &sp_slot, "ObliviousGrower.grow")
        cdef const double* counts = checked_counts(root_counts, self.fs, "ObliviousGrower.grow")
        if codes.shape[1] != self.fs.n_cols or codes_t.shape[0] != self.fs.n_cols or codes_t.shape[1] != n \
                or g.shape[0] != n or h.shape[0] != n or idx.shape[0] != n \
                or scratch.shape[0] != n or og.shape[0] != n or oh.shape[0] != n or feature_mask.shape[0] != self.fs.d:
            raise ValueError("ObliviousGrower.grow: codes (and codes_t, by columns), g, h, idx, scratch, og, oh must "
                             "hold the block's rows and feature_mask one entry per feature")
        if row_ids is not None:
            rid = row_ids
            if rid.shape[0] != n:
                raise ValueError(f"ObliviousGrower.grow: row_ids must hold {n} positions")
            if n > 0:
                rid_ptr = &rid[0]
        self.n_levels = 0
        self.n_cells = 1
        self.cells[0] = 0
        self.G[0] = self.H[0] = self.C[0] = 0.0
        if n == 0:
            self.n_sampled = 0
            return 0
        self.out_of_memory = False
        self.curvature_unit = curvature_unit
        with nogil:
            m = sample_rows(&idx[0], &scratch[0], n, seed_shift, keep_below, sample, rid_ptr, offset)
            self.n_sampled = m
            self.n_levels = self._grow(&codes[0, 0], &codes_t[0, 0], n, &g[0], &h[0], &idx[0], &scratch[0], &og[0],
                                       &oh[0], &feature_mask[0], m, m == n and not sample, unit_h, noise_seed,
                                       sp_ptr, sp_slot, counts)
        if self.out_of_memory:
            self.n_levels = 0
            raise MemoryError(f"ObliviousGrower: no memory for a histogram of {self.fs.n_slots} slots")
        return self.n_levels

    def tree(self, double l2, double cap=0.0):
        """The grown tree as ``ObliviousSearch.result`` builds it, or None when it has no level.

        Returns (feature, bin, nan_left, gain) per level, the 2^levels leaf
        values −G/(H + l2) by cell (clamped to [−cap, cap] when ``cap`` > 0:
        ``max_delta_step``), the derivative Σ G·v over the distinct
        leaves in the order of their first cell -- the search's own
        arithmetic -- and whether some leaf value is at least the smallest
        normal number in magnitude (``_no_split.underflow_reason`` finds no
        reason to refuse the tree; NaN is not).  O(2^levels + nodes) time and memory (the leaf
        values and a mark per node).
        """
        cdef Py_ssize_t L = self.n_levels, k, cell, node
        cdef double derivative = 0.0, v
        cdef bint some_normal = False
        if L <= 0:
            return None
        # filled through typed views: this runs once per tree, where NumPy's per-call costs add up
        feature = np.empty(L, dtype=np.int64)
        bins = np.empty(L, dtype=np.int64)
        nan_left = np.empty(L, dtype=np.bool_)
        gain = np.empty(L)
        cdef int64_t[::1] fo = feature
        cdef int64_t[::1] bo = bins
        cdef uint8_t[::1] no = nan_left.view(np.uint8)
        cdef double[::1] go = gain
        for k in range(L):
            fo[k] = self.level_feature[k]
            bo[k] = self.level_bin[k]
            no[k] = self.level_nan_left[k] != 0
            go[k] = self.level_gain[k]
        value = np.empty(self.n_cells)
        seen = np.zeros(self.max_nodes, dtype=np.uint8)
        cdef double[::1] vo = value
        cdef uint8_t[::1] so = seen
        for cell in range(self.n_cells):
            node = self.cells[cell]
            v = -self.G[node] / (self.H[node] + l2)
            if cap > 0:             # ``_split.clamped``'s comparisons
                if v < -cap:
                    v = -cap
                if v > cap:
                    v = cap
            vo[cell] = v
            if fabs(v) >= DBL_MIN:
                some_normal = True
            if not so[node]:
                so[node] = 1
                derivative = derivative + self.G[node] * v
        return feature, bins, nan_left, gain, value, derivative, some_normal

    def cell_sums(self):
        """The grown tree's node of each cell (intp, 2^levels) and every node's Σg and Σh (float64, by node id):
        what the monotone projection of its leaf values reads.  O(2^levels + nodes) time and memory."""
        cdef Py_ssize_t cell, k
        node = np.empty(self.n_cells, dtype=np.intp)
        G = np.empty(self.max_nodes)
        H = np.empty(self.max_nodes)
        cdef Py_ssize_t[::1] no = node
        cdef double[::1] go = G
        cdef double[::1] ho = H
        for cell in range(self.n_cells):
            no[cell] = self.cells[cell]
        for k in range(self.max_nodes):
            go[k] = self.G[k]
            ho[k] = self.H[k]
        return node, G, H

    def cell_covers(self):
        """The grown tree's cover per cell (float64, 2^levels): the sampled rows of each cell's node, shared
        equally by the cells below a node that was not split (their sums per node are its row count, and the
        TreeSHAP values are those of the tree with the node as one leaf).  O(2^levels + nodes) time and memory."""
        cdef Py_ssize_t cell, node
        share = np.zeros(self.max_nodes, dtype=np.intp)
        cover = np.empty(self.n_cells)
        cdef Py_ssize_t[::1] sh = share
        cdef double[::1] co = cover
        for cell in range(self.n_cells):
            sh[self.cells[cell]] += 1
        for cell in range(self.n_cells):
            node = self.cells[cell]
            co[cell] = self.C[node] / sh[node]          # a power of two: exact
        return cover

    # ------------------------------------------------------------------
    # Histogram buffers
    # ------------------------------------------------------------------
    cdef Py_ssize_t _take(self) noexcept nogil:
        """A free histogram buffer, allocated on first use (−1, and out_of_memory, when malloc fails)."""
        cdef double* buffer
        if self.n_free > 0:
            self.n_free -= 1
            return self.free_list[self.n_free]
        buffer = NULL
        if self.n_allocated < self.pool_cap:
            buffer = <double*> malloc((3 * self.fs.n_slots + 1) * sizeof(double))
        if buffer == NULL:
            self.out_of_memory = True
            return -1
        self.pool[self.n_allocated] = buffer
        self.n_allocated += 1
        return self.n_allocated - 1

    cdef inline void _release(self, Py_ssize_t node) noexcept nogil:
        if self.hist_of[node] >= 0:
            self.free_list[self.n_free] = self.hist_of[node]
            self.n_free += 1
            self.hist_of[node] = -1
        self.sub_of[node] = -1

    # ------------------------------------------------------------------
    # Growth (mirrors ObliviousSearch: receive, _next_pass, _children, _split_level)
    # ------------------------------------------------------------------
    cdef Py_ssize_t _grow(self, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n, const double* g,
                          const double* h, int32_t* idx, int32_t* scratch, double* og, double* oh,
                          const uint8_t* mask, Py_ssize_t m, bint identity, bint unit_h, uint64_t noise_seed,
                          const int64_t* sp_ptr, const int32_t* sp_slot, const double* counts) noexcept nogil:
        """Grow the tree on the sampled rows idx[:m]; returns its number of levels (``counts``: the block's
        root counts or NULL, read when ``identity``)."""
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t s, base0, level, first = 0, n_nodes = 1, n_active, k
        cdef double min_weight
        cdef const uint8_t* level_mask = mask      # the features this level searches
        cdef int T_root, T_gather_root
        cdef LevelSplit split
        cdef double* hist
        self.n_pending = 0
        self.n_free = self.n_allocated
        for k in range(self.n_allocated):
            self.free_list[k] = self.n_allocated - 1 - k
        self.hist_of[0] = self._take()
        self.sub_of[0] = -1
        if self.hist_of[0] < 0:
            return 0
        hist = self.pool[self.hist_of[0]]
        self.start[0] = 0
        self.end[0] = m
        build_histogram(codes, fs, g, h, idx, 0, m, og, oh, hist, self.n_threads, identity, unit_h, sp_ptr, sp_slot,
                        counts if identity else NULL, codes_t, n)
        if fs.d > 0:
            base0 = fs.base[0]
            for s in range(fs.n_edges[0] + 2):      # the root's sums: feature 0's slots, in order
                self.G[0] = self.G[0] + hist[3 * (base0 + s)]
                self.H[0] = self.H[0] + hist[3 * (base0 + s) + 1]
                self.C[0] = self.C[0] + hist[3 * (base0 + s) + 2]
        if self.C[0] <= 0 or fs.d == 0 or self.depth < 1:
            return 0
        # the threads that filled the root's columns (build_histogram's split): they search them too
        node_histogram_threads(m, fs.n_cols, self.n_threads, identity, &T_root, &T_gather_root)
        # _search.curvature_floor: rows of the mean curvature, or of curvature_unit when that is more
        min_weight = self.min_child_weight * max(self.H[0] / self.C[0], self.curvature_unit)
        if self.rule.on:                            # the root's: the tree's features within every group
            rule_root(&self.rule)
            level_mask = rule_mask(&self.rule, 0, 0, mask)
        for level in range(self.depth):
            n_active = 0
            for k in range(first, n_nodes):         # the nodes of the last level, ascending
                if self.hist_of[k] >= 0 and self.C[k] >= 2 * self.min_samples_leaf:
                    self.active[n_active] = k
                    n_active += 1
            if n_active == 0:
                break
            self._gain_pass(first, n_nodes, n_active, level_mask, min_weight, codes, codes_t, n, g, h, idx, og, oh,
                            unit_h, sp_ptr, sp_slot, T_root if level == 0 else 0)
            for k in range(first, n_nodes):         # histograms kept only for a sibling's subtraction
                if self.hist_of[k] >= 0 and self.C[k] < 2 * self.min_samples_leaf:
                    self._release(k)
            if not choose_level_split(self.gains, fs.base, fs.n_edges, level_mask, fs.d, self.tie_tolerance,
                                      self.random_strength, noise_seed, level, self.feature_top, self.work, &split,
                                      True, self.noise_key):
                break
            self._children(n_active, &split, min_weight)
            self.level_feature[level] = <int32_t> split.feature
            self.level_bin[level] = <int32_t> split.bin
            self.level_nan_left[level] = split.nan_left
            self.level_gain[level] = split.gain
            if self.rule.on:                        # the next level's features (the split's own among them)
                rule_narrow(&self.rule, split.feature)
                level_mask = rule_mask(&self.rule, 0, 0, mask)
            first = n_nodes
            n_nodes = self._split_level(codes, codes_t, n, g, h, idx, scratch, og, oh, unit_h, sp_ptr, sp_slot,
                                        &split, n_active, n_nodes, level + 1 >= self.depth)
            self.n_levels = level + 1
            if self.out_of_memory:
                return 0
        for k in range(first, n_nodes):
            self._release(k)
        return self.n_levels

    cdef inline void _live_feature(self, Py_ssize_t j, const uint8_t* mask) noexcept nogil:
        """``live[j]``: feature j is searched and has a candidate that leaves ``min_samples_leaf`` rows on each
        side of the root (on one side with NaN left, and on the other with NaN right, at least).

        A node's counts on either side of a candidate are at most the
        root's, so a feature without one at the root has none at any node:
        its candidates gain +0 everywhere, and the gain pass leaves its slots
        alone (no split reads them).  O(n_edges_j) on the root's counts.
        """
        cdef const FeatureSlots* fs = self.fs
        cdef const double* hist = self.pool[self.hist_of[0]]
        cdef Py_ssize_t b, s0, nb
        cdef double cc, nc, tc, msl = self.min_samples_leaf
        self.live[j] = False
        if not mask[j]:
            return
        s0 = fs.base[j]
        nb = fs.n_edges[j]
        nc = hist[3 * (s0 + nb + 1) + 2]
        tc = nc
        for b in range(nb + 1):
            tc = tc + hist[3 * (s0 + b) + 2]
        cc = 0.0
        for b in range(nb + 1):
            cc = cc + hist[3 * (s0 + b) + 2]
            if cc + nc >= msl and tc - cc >= msl:
                self.live[j] = True
                return

    cdef void _gain_pass(self, Py_ssize_t first, Py_ssize_t n_nodes, Py_ssize_t n_active, const uint8_t* mask,
                         double min_weight, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n,
                         const double* g, const double* h, const int32_t* idx, double* og, double* oh, bint unit_h,
                         const int64_t* sp_ptr, const int32_t* sp_slot, int root_threads) noexcept nogil:
        """The level's pending histograms (the smaller children's), then its summed gains and each feature's
        best of them (``feature_top``): each feature's slots on one thread, nodes in order, a larger child's
        subtraction in the same walk as its gains.

        On T threads, thread t fills and then walks the slots of the t-th
        of T contiguous groups of code columns (``histograms.column_share``:
        groups of equal expected cost when the layout has
        ``set_column_work``), in one parallel region for the whole level:
        no thread waits for another between the histograms and the gains
        (a thread's features' slots are the ones it filled), a feature's
        slots are read from the cache of the core that wrote them, and a
        level of k smaller children costs one fork and join instead of
        k + 1 (their imbalances also even out over the level).  A node of
        HIST_PARALLEL_ROWS rows or more has its g and h gathered first, by
        every thread, into og, oh from its own first row on (the nodes'
        ranges do not overlap), else each thread reads g[r], h[r] itself.
        Features that are not ``live`` get zero gains without a walk.
        The sums do not depend on T.

        ``root_threads`` (0 below the root): at the root, each feature's
        ``live`` first, and the threads of the root's histogram walk the
        columns they filled, even where the walk alone would stay on one
        thread.  Read by another core, a thread's lines of the root's
        histogram would be shared between the cores when that thread
        writes the larger child's subtraction into them at the next level,
        and each write would first have to take its line back.
        """
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t j, k, q, node, c0, c1, held = 0
        cdef double cells = 0.0
        cdef int T, tid, T_gather
        for k in range(first, n_nodes):
            held += self.hist_of[k] >= 0
        for q in range(self.n_pending):
            node = self.pending[q]
            cells += <double> (self.end[node] - self.start[node]) * fs.n_cols
        T = threads_for(<double> fs.n_slots * 4 * held, self.n_threads, 65536.0)
        if T <= 1:
            T = threads_for(cells, self.n_threads, HIST_PARALLEL_CELLS)
        if root_threads > 1 and fs.column_slots:
            T = root_threads
        if T > fs.n_cols:
            T = <int> fs.n_cols
        if T <= 1 or not fs.column_slots:
            # (without column_slots a thread's columns do not own a range of slots: the histograms first)
            for q in range(self.n_pending):
                node = self.pending[q]
                build_histogram(codes, fs, g, h, idx, self.start[node], self.end[node], og, oh,
                                self.pool[self.hist_of[node]], T, False, unit_h, sp_ptr, sp_slot, NULL, codes_t, n)
        if T <= 1:
            for j in range(fs.d):
                if root_threads > 0:
                    self._live_feature(j, mask)
                self._feature_gains(j, first, n_nodes, mask, min_weight)
        else:
            with parallel(num_threads=T):
                tid = threadid()
                for q in range(self.n_pending if fs.column_slots else 0):
                    node = self.pending[q]
                    # every thread takes part in each node, so the gather (and its barrier) is all or none
                    T_gather = T if self.end[node] - self.start[node] >= HIST_PARALLEL_ROWS else 0
                    histogram_part(codes, fs, g, h, idx, self.start[node], self.end[node], og + self.start[node],
                                   oh + self.start[node], self.pool[self.hist_of[node]], tid, T, T_gather, False,
                                   unit_h, sp_ptr, sp_slot, NULL, codes_t, n)
                c0 = column_share(fs.n_cols, fs.col_work, tid, T)
                c1 = column_share(fs.n_cols, fs.col_work, tid + 1, T)
                for j in range(fs.d):
                    if c0 <= fs.col[j] < c1:
                        if root_threads > 0:
                            self._live_feature(j, mask)
                        self._feature_gains(j, first, n_nodes, mask, min_weight)
        self.n_pending = 0
        for k in range(first, n_nodes):
            self.sub_of[k] = -1

    cdef inline void _feature_gains(self, Py_ssize_t j, Py_ssize_t first, Py_ssize_t n_nodes, const uint8_t* mask,
                                    double min_weight) noexcept nogil:
        """Feature j's part of :meth:`_gain_pass`: its summed gains over the level's nodes and its best.
        O(k·(n_edges_j + 2)) for the level's k nodes with a histogram."""
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t k, s, s0, e
        cdef double* hist
        cdef bint search
        cdef int sign = self.sign[j] if self.sign != NULL else 0
        self.feature_top[j] = 0.0
        if not mask[j]:
            return
        s0 = fs.base[j]
        e = s0 + fs.n_edges[j] + 2
        for s in range(2 * s0, 2 * e):
            self.gains[s] = 0.0
        if not self.live[j]:
            return
        k = first
        while k < n_nodes:
            if self.hist_of[k] < 0:
                k += 1
                continue
            hist = self.pool[self.hist_of[k]]
            search = self.C[k] >= 2 * self.min_samples_leaf
            # siblings are consecutive nodes: a larger child (sub_of) and its smaller sibling are walked
            # together, whichever comes first (the gains still go to the sums in node order)
            if self.sub_of[k] == k + 1:     # the larger child, its smaller sibling next
                feature_gains_pair(hist, self.pool[self.hist_of[k + 1]], s0, fs.n_edges[j], search,
                                   self.C[k + 1] >= 2 * self.min_samples_leaf, False, self.min_samples_leaf,
                                   min_weight, self.l2, self.gains, sign, self.cap)
                k += 2
            elif k + 1 < n_nodes and self.sub_of[k + 1] == k:   # the smaller child, its larger sibling next
                feature_gains_pair(self.pool[self.hist_of[k + 1]], hist, s0, fs.n_edges[j],
                                   self.C[k + 1] >= 2 * self.min_samples_leaf, search, True, self.min_samples_leaf,
                                   min_weight, self.l2, self.gains, sign, self.cap)
                k += 2
            elif self.sub_of[k] >= 0:       # (a larger child whose sibling is not next to it: not grown so)
                feature_gains_sub_add(hist, self.pool[self.hist_of[self.sub_of[k]]], s0, fs.n_edges[j], search,
                                      self.min_samples_leaf, min_weight, self.l2, self.gains, sign, self.cap)
                k += 1
            else:
                if search:
                    feature_gains_add(hist, s0, fs.n_edges[j], self.min_samples_leaf, min_weight, self.l2,
                                      self.gains, sign, self.cap)
                k += 1
        self.feature_top[j] = feature_best_gain(self.gains, s0, fs.n_edges[j])

    cdef void _children(self, Py_ssize_t n_active, LevelSplit* split, double min_weight) noexcept nogil:
        """Each splittable node's children under the split (``child``, ``splits``); settles an unseen NaN's side.

        The children's sums are the search's: running sums over bins 0..b
        (plus the NaN bin on its side), the right side the total minus them.
        Without a NaN row of the feature at any of the level's nodes, NaN
        goes to the side with more rows.
        """
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t q, k, node, s, s0 = fs.base[split.feature], nb = fs.n_edges[split.feature]
        cdef double* hist
        cdef double* c
        cdef double run[3]
        cdef double left_rows = 0.0, right_rows = 0.0
        cdef bint any_nan = False
        for k in range(n_active):
            node = self.active[k]
            hist = self.pool[self.hist_of[node]]
            c = self.child + 6 * node
            for q in range(3):
                run[q] = hist[3 * s0 + q]
                for s in range(1, split.bin + 1):
                    run[q] = run[q] + hist[3 * (s0 + s) + q]
                c[q] = run[q] + hist[3 * (s0 + nb + 1) + q] if split.nan_left else run[q]
                for s in range(split.bin + 1, nb + 2):
                    run[q] = run[q] + hist[3 * (s0 + s) + q]
                c[3 + q] = run[q] - c[q]
            self.splits[node] = not (c[2] < self.min_samples_leaf or c[5] < self.min_samples_leaf
                                     or c[1] < min_weight or c[4] < min_weight
                                     or c[1] + self.l2 <= 0 or c[4] + self.l2 <= 0)
            if hist[3 * (s0 + nb + 1) + 2] > 0:
                any_nan = True
        if not any_nan:
            for k in range(n_active):
                node = self.active[k]
                if self.splits[node]:
                    left_rows = left_rows + self.child[6 * node + 2]
                    right_rows = right_rows + self.child[6 * node + 5]
            split.nan_left = left_rows >= right_rows

    cdef Py_ssize_t _split_level(self, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n, const double* g,
                                 const double* h, int32_t* idx, int32_t* scratch, double* og, double* oh, bint unit_h,
                                 const int64_t* sp_ptr, const int32_t* sp_slot, LevelSplit* split,
                                 Py_ssize_t n_active, Py_ssize_t n_nodes, bint last) noexcept nogil:
        """Split the level's nodes that allow the split, in cell order; returns the number of nodes.

        Each split node's children get the next two ids (left, right) and
        the cells ``cell`` and ``cell + 2^level``; its rows are partitioned,
        and unless both children are final, the smaller child's histogram
        is built and the parent's buffer passes to the larger one (the
        subtraction is the next gain pass's).
        """
        cdef const FeatureSlots* fs = self.fs
        cdef SplitChoice choice
        cdef Py_ssize_t k, cell, node, a, b, small, large, nl, size = self.n_cells, q
        cdef double msl2 = 2 * self.min_samples_leaf
        cdef bint histogram
        cdef const uint8_t* column = codes_t + fs.col[split.feature] * n
        for k in range(n_active):               # nodes the split does not allow stay leaves
            if not self.splits[self.active[k]]:
                self._release(self.active[k])
        memset(&choice, 0, sizeof(SplitChoice))
        choice.feature = split.feature
        choice.bin = split.bin
        choice.nan_left = split.nan_left
        split_table(fs, &choice, self.table)
        for cell in range(size):
            node = self.cells[cell]
            self.cells[cell + size] = node
            if self.hist_of[node] < 0 or self.C[node] < msl2 or not self.splits[node]:
                continue
            a = n_nodes
            b = n_nodes + 1
            n_nodes += 2
            self.cells[cell] = a
            self.cells[cell + size] = b
            for q in range(2):
                self.G[a + q] = self.child[6 * node + 3 * q]
                self.H[a + q] = self.child[6 * node + 3 * q + 1]
                self.C[a + q] = self.child[6 * node + 3 * q + 2]
                self.hist_of[a + q] = -1
                self.sub_of[a + q] = -1
            nl = partition_rows(column, 1, idx, scratch, self.start[node], self.end[node], 0, self.table,
                                self.n_threads, PARTITION_PARALLEL_ROWS)
            self.start[a] = self.start[node]
            self.end[a] = self.start[node] + nl
            self.start[b] = self.start[node] + nl
            self.end[b] = self.end[node]
            histogram = not last and (self.C[a] >= msl2 or self.C[b] >= msl2)
            if not histogram:
                self._release(node)
                continue
            small = a if self.C[a] <= self.C[b] else b
            large = a + b - small
            self.hist_of[small] = self._take()
            if self.hist_of[small] < 0:
                return n_nodes
            self.pending[self.n_pending] = small     # filled by the next gain pass, in this order
            self.n_pending += 1
            if self.C[large] >= msl2:
                self.hist_of[large] = self.hist_of[node]
                self.sub_of[large] = small
                self.hist_of[node] = -1
            else:
                self._release(node)
        self.n_cells = 2 * size
        return n_nodes
