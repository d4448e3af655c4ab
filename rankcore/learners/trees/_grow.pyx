"""The ``trees`` learner's in-memory grower: a whole tree in one call, without the GIL.

Design
------
A. :class:`TreeGrower` grows one tree per :meth:`TreeGrower.grow` call on a
   block of rows held in memory -- row sample, histograms, split search,
   partition, sibling subtraction -- taking, in the same order and with the
   same floating-point operations, every decision the multi-pass search of
   ``_learner.py`` (``TreeSearch``) takes on the client from the summed
   histograms of its blocks.  With one block both routes give the same tree
   bit for bit (the tests grow both over a grid of parameters); the
   multi-pass search stays the public contract (Dask, plugins).
B. The kernels are the search's own (``_histogram.pxd``: the histogram
   with its bundled default bins, the split scan, the table-driven
   partition), so there is one loop of each.
C. Memory: everything is allocated once per fit (per grower): the node
   records (2·max_leaves − 1 nodes), a pool of at most max_leaves + 1
   histograms of S slots, allocated on first use and reused tree after tree
   (a fresh S·24-byte allocation per node cost more than filling it: page
   faults), and 256 bytes of split table per node.  A tree costs
   O(m·c) for the root's m sampled rows over c code columns, then per split
   O(m'·c) for the smaller child's m' rows, O(rows) for the partition and
   O(S) for the subtraction and the split scan.
D. Row subsampling draws row r (training position offset + r) iff
   splitmix64(seed + r) < ⌊subsample·2⁶⁴⌋ -- the search's draw, so it does
   not depend on the blocks; kept rows come first in ``idx``, in order.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from cython.parallel cimport parallel, threadid

from rankcore.learners.trees._histogram cimport (FeatureSlots, NodeScan, SlotLayout, SplitChoice, SplitParams,
                                              MAX_PARTITION_THREADS, build_histogram, checked_counts, histogram_part,
                                              listed_pointers, partition_part, partition_rows, partition_threads,
                                              split_params, split_table)
from rankcore.learners.trees._interaction_rule cimport InteractionRule, rule_children, rule_mask, rule_root
from rankcore.learners.trees._row_sample cimport sample_rows
from rankcore.learners.trees._split cimport choose_split, scan_nodes, scan_part, scan_threads, split_bounds
from rankcore.learners.histograms cimport node_histogram_threads
from rankcore._parallel cimport rc_barrier, threads_for

import numpy as np

from rankcore.learners.trees._interactions import rule_arrays

cdef enum:
    # rows from which a node's partition runs on several threads (about 10 µs of work on one)
    PARTITION_PARALLEL_ROWS = 2048


include "_grow_team.pxi"


cdef class TreeGrower:
    """A per-fit workspace that grows trees leaf-wise (or depth-wise) on one block in memory.

    Parameters
    ----------
    slots : SlotLayout
        The layout's features, slots and code columns.
    max_leaves, max_depth : int
        Leaf budget (>= 2) and depth limit (−1: none).
    min_samples_leaf, min_child_weight, l2, tie_tolerance : float
        As in ``TreeSearch``; ``min_child_weight`` is in units of the root's
        mean curvature H/C, or of ``grow``'s ``curvature_unit`` when larger.
    cat_smooth : float
        Categorical splits: added to each category's curvature when ordering
        categories, in units of the root's mean curvature.
    max_cat : int
        Categorical splits: categories on the left, at most.
    random_strength : float
        Noise on each node's choice of feature (``_split_noise.pxd``); 0: none.
    depthwise : bool
        Split every splittable leaf of the tree per round (``growth="depthwise"``).
    n_threads : int
        Threads of the histogram, partition and split-scan kernels (the
        tree does not depend on it).

    Monotone constraints (:meth:`set_monotone`): each node has bounds
    [lo, hi] (the root's ±inf, or ±cap with a cap) that clamp its children's values in the split
    scan and its value as a leaf (``_split.split_bounds``).  Interaction constraints (:meth:`set_interactions`):
    each node scans the features of its live groups (``_interaction_rule.pxd``).

    After :meth:`grow`, the node records are the arrays ``feature``, ``bin``,
    ``nan_left``, ``left``, ``right``, ``G``, ``H``, ``count``, ``gain``,
    ``start`` and ``end`` (the node's rows are ``idx[start:end]``), first
    ``n_nodes`` entries.
    """

    cdef SlotLayout slots
    cdef const FeatureSlots* fs
    cdef Py_ssize_t max_leaves, max_nodes, max_depth
    cdef SplitParams base_params        # as given (min_child_weight, cat_smooth per average row)
    cdef SplitParams params             # this tree's: min_child_weight, cat_smooth scaled in grow
    cdef double curvature_unit          # grow()'s: the least mean curvature min_child_weight counts rows of
    cdef bint depthwise
    cdef int n_threads
    cdef double** pool
    cdef Py_ssize_t pool_size, pool_free
    cdef Py_ssize_t* free_list
    cdef readonly object feature, bin, nan_left, left, right, G, H, count, gain, start, end, tables
    cdef readonly Py_ssize_t n_nodes, n_sampled
    # raw views of the record arrays above (which keep them alive), for the nogil code
    cdef int32_t* p_feature
    cdef int32_t* p_bin
    cdef uint8_t* p_nan_left
    cdef int32_t* p_left
    cdef int32_t* p_right
    cdef double* p_G
    cdef double* p_H
    cdef double* p_count
    cdef double* p_gain
    cdef Py_ssize_t* p_start
    cdef Py_ssize_t* p_end
    cdef uint8_t* p_tables
    cdef Py_ssize_t* hist_of
    cdef uint8_t* splittable
    cdef SplitChoice* choice
    cdef Py_ssize_t* depth
    cdef double* scan_scratch
    cdef const int64_t* sp_ptr      # during grow(): the block's listed sparse slots, or NULL
    cdef const int32_t* sp_slot
    cdef Py_ssize_t* order
    cdef Py_ssize_t* before             # the partition's per-chunk counts (_split_one)
    cdef object monotone_signs          # None, or int8 (d,): each feature's sign (kept alive for ``monotone``)
    cdef const int8_t* monotone         # NULL: no constraints
    cdef double* lo                     # (max_nodes,) each node's bounds, with constraints
    cdef double* hi
    cdef SplitParams node_params[2]     # the scanned nodes' own parameters (their bounds), with constraints
    cdef double bounds[4]               # a split's children's bounds (_children)
    cdef InteractionRule rule           # interaction constraints (rule.on), over the arrays of rule_arrays
    cdef object rule_arrays

    def __cinit__(self, SlotLayout slots, Py_ssize_t max_leaves, Py_ssize_t max_depth, double min_samples_leaf,
                  double min_child_weight, double l2, double tie_tolerance, bint depthwise=False, int n_threads=1,
                  double cat_smooth=0.0, Py_ssize_t max_cat=256, double random_strength=0.0):
        if max_leaves < 2:
            raise ValueError(f"max_leaves: expected an integer >= 2, got {max_leaves}")
        self.slots = slots
        self.fs = &slots.fs
        self.max_leaves = max_leaves
        self.max_nodes = 2 * max_leaves - 1
        self.max_depth = max_depth
        if not random_strength >= 0:
            raise ValueError(f"random_strength: expected a number >= 0, got {random_strength}")
        self.base_params = split_params(min_samples_leaf, min_child_weight, l2, tie_tolerance, cat_smooth, max_cat)
        self.base_params.random_strength = random_strength
        # min_child_weight and cat_smooth are scaled per tree (by the mean curvature per row), in grow
        self.params = self.base_params
        self.depthwise = depthwise
        self.n_threads = n_threads
        n = self.max_nodes
        self.feature = np.zeros(n, dtype=np.int32)
        self.bin = np.zeros(n, dtype=np.int32)
        self.nan_left = np.zeros(n, dtype=np.uint8)
        self.left = np.full(n, -1, dtype=np.int32)
        self.right = np.full(n, -1, dtype=np.int32)
        self.G = np.zeros(n)
        self.H = np.zeros(n)
        self.count = np.zeros(n)
        self.gain = np.zeros(n)
        self.start = np.zeros(n, dtype=np.intp)
        self.end = np.zeros(n, dtype=np.intp)
        self.tables = np.zeros((n, 256), dtype=np.uint8)
        self._bind_records()
        self.pool_size = max_leaves + 1
        self.pool = <double**> malloc(self.pool_size * sizeof(double*))
        self.free_list = <Py_ssize_t*> malloc(self.pool_size * sizeof(Py_ssize_t))
        self.hist_of = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.splittable = <uint8_t*> malloc(n * sizeof(uint8_t))
        self.choice = <SplitChoice*> malloc(n * sizeof(SplitChoice))
        self.depth = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.order = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
        self.scan_scratch = <double*> malloc((6 * slots.fs.d + 1) * sizeof(double))     # two nodes' scans
        self.before = <Py_ssize_t*> malloc((MAX_PARTITION_THREADS + 1) * sizeof(Py_ssize_t))
        self.lo = <double*> malloc(n * sizeof(double))
        self.hi = <double*> malloc(n * sizeof(double))
        self.monotone = NULL
        self.rule.on = False
        if (self.lo == NULL or self.hi == NULL
                or self.pool == NULL or self.free_list == NULL or self.hist_of == NULL or self.splittable == NULL
                or self.choice == NULL or self.depth == NULL or self.order == NULL or self.scan_scratch == NULL
                or self.before == NULL):
            raise MemoryError("TreeGrower: no memory for the node records")
        memset(self.pool, 0, self.pool_size * sizeof(double*))
        self.pool_free = 0

    cdef void _bind_records(self):
        cdef int32_t[::1] feature = self.feature, bin = self.bin, left = self.left, right = self.right
        cdef uint8_t[::1] nan_left = self.nan_left
        cdef double[::1] G = self.G, H = self.H, count = self.count, gain = self.gain
        cdef Py_ssize_t[::1] start = self.start, end = self.end
        cdef uint8_t[:, ::1] tables = self.tables
        self.p_feature = &feature[0]
        self.p_bin = &bin[0]
        self.p_nan_left = &nan_left[0]
        self.p_left = &left[0]
        self.p_right = &right[0]
        self.p_G = &G[0]
        self.p_H = &H[0]
        self.p_count = &count[0]
        self.p_gain = &gain[0]
        self.p_start = &start[0]
        self.p_end = &end[0]
        self.p_tables = &tables[0, 0]

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.pool != NULL:
            for i in range(self.pool_size):
                free(self.pool[i])
        free(self.pool)
        free(self.free_list)
        free(self.hist_of)
        free(self.splittable)
        free(self.choice)
        free(self.depth)
        free(self.order)
        free(self.scan_scratch)
        free(self.before)
        free(self.lo)
        free(self.hi)

    def set_monotone(self, signs, double cap=0.0):
        """Constrain the trees grown next: ``signs`` int8 (d,), each feature's -1, 0 or +1; None: no constraints.
        ``cap`` > 0 (``max_delta_step``): every leaf value within [−cap, cap] (the root's bounds).

        The split scans then run scalar, on clamped gains (``_split.best_split``).  O(d).
        """
        cdef int8_t[::1] view
        if signs is None:
            self.monotone_signs = None
            self.monotone = NULL
        else:
            arr = np.ascontiguousarray(signs, dtype=np.int8)
            if arr.shape != (self.fs.d,) or not np.isin(arr, (-1, 0, 1)).all():
                raise ValueError(f"TreeGrower.set_monotone: expected {self.fs.d} signs in {{-1, 0, 1}}, got {signs!r}")
            self.monotone_signs = arr
            view = arr
            self.monotone = &view[0] if arr.shape[0] else NULL
        if not 0 <= cap < INFINITY:
            raise ValueError(f"TreeGrower.set_monotone: cap must be a finite number >= 0 (0: none), got {cap}")
        self.base_params.monotone = self.monotone
        self.base_params.bounded = self.monotone != NULL or cap > 0
        self.base_params.lo = -cap if cap > 0 else -INFINITY
        self.base_params.hi = cap if cap > 0 else INFINITY
        self.params.monotone, self.params.bounded = self.base_params.monotone, self.base_params.bounded
        self.params.lo, self.params.hi = self.base_params.lo, self.base_params.hi

    def set_interactions(self, csr):
        """Constrain the trees grown next by interaction groups: ``csr`` = (group_ptr, group_features,
        feature_ptr, feature_groups), ``_interactions.InteractionGroups.csr``; None: no constraints.

        O(d + Σ|g|) time; O(max_nodes·m + d) memory for m groups (each node's live groups).
        """
        cdef Py_ssize_t[::1] gp, gf, fp, fg
        cdef uint8_t[::1] live, masks
        self.rule.on = False
        self.rule_arrays = None
        if csr is None:
            return
        gp, gf, fp, fg, live, masks = self.rule_arrays = rule_arrays(csr, self.fs.d, self.max_nodes, 2, "TreeGrower")
        self.rule.d, self.rule.m = self.fs.d, gp.shape[0] - 2
        self.rule.group_ptr, self.rule.group_features = &gp[0], &gf[0]
        self.rule.feature_ptr, self.rule.feature_groups = &fp[0], &fg[0]
        self.rule.live, self.rule.masks = &live[0], &masks[0]
        self.rule.on = True

    def __reduce__(self):
        raise TypeError("a TreeGrower is a per-fit workspace; it is not copied or pickled")

    cdef int _allocate_pool(self) except -1:
        """Every histogram buffer, once (grow() runs without the GIL and cannot fail)."""
        cdef Py_ssize_t i, size = 3 * self.fs.n_slots + 1
        for i in range(self.pool_size):
            if self.pool[i] == NULL:
                self.pool[i] = <double*> malloc(size * sizeof(double))
                if self.pool[i] == NULL:
                    raise MemoryError(f"TreeGrower: no memory for {self.pool_size} histograms of "
                                      f"{self.fs.n_slots} slots")
        return 0

    def grow(self, const uint8_t[:, ::1] codes, const uint8_t[:, ::1] codes_t, const double[::1] g,
             const double[::1] h, int32_t[::1] idx,
             int32_t[::1] scratch, double[::1] og, double[::1] oh, const uint8_t[::1] feature_mask,
             uint64_t seed_shift, uint64_t keep_below, bint sample, row_ids=None, Py_ssize_t offset=0,
             bint unit_h=False, uint64_t noise_seed=0, listed=None, root_counts=None, double curvature_unit=0.0):
        """Grow one tree on the block; returns the number of nodes (1: no split).

        ``sample``: keep row r iff splitmix64(seed_shift + position) <
        ``keep_below``, position = ``row_ids[r]`` or ``offset + r``; else every
        row.  ``idx`` receives the kept rows first (``n_sampled`` of them), in
        order, then the others.  ``unit_h``: h is all ones.  ``noise_seed``: the
        tree's seed of the split noise (with ``random_strength`` > 0).
        ``listed``: ``_histogram.listed_rows(codes, slots)`` or None; the
        histograms then read the sparse columns' slots from it (the same tree).
        ``root_counts``: ``_histogram.root_counts`` of the block or None (read
        when every row is in the tree: the root's histogram copies them).
        ``curvature_unit``: ``_search.curvature_floor``'s (0: the floor is min_child_weight·H/C).

        O(n + m·c) time for the row sample and the root's histogram of m sampled rows over c code columns,
        then per split of a node of r rows O(m'·c + r + S): the smaller child's m' rows, the partition, the S
        slots' subtraction and scans; and O(L) per round to pick among the L leaves (O(L²) depthwise, sorted).
        Memory: a pool of max_leaves + 1 histograms of S slots, allocated by the first call; later calls
        allocate nothing.
        """
        cdef Py_ssize_t n = codes.shape[0], m
        cdef const int64_t[::1] rid
        cdef const int64_t* rid_ptr = NULL
        listed_pointers(listed, n, self.fs, &self.sp_ptr, &self.sp_slot, "TreeGrower.grow")
        cdef const double* counts = checked_counts(root_counts, self.fs, "TreeGrower.grow")
        if codes.shape[1] != self.fs.n_cols or codes_t.shape[0] != self.fs.n_cols or codes_t.shape[1] != n \
                or g.shape[0] != n or h.shape[0] != n or idx.shape[0] != n \
                or scratch.shape[0] != n or og.shape[0] != n or oh.shape[0] != n or feature_mask.shape[0] != self.fs.d:
            raise ValueError("TreeGrower.grow: codes (and codes_t, by columns), g, h, idx, scratch, og, oh must "
                             "hold the block's rows and feature_mask one entry per feature")
        if row_ids is not None:
            rid = row_ids
            if rid.shape[0] != n:
                raise ValueError(f"TreeGrower.grow: row_ids must hold {n} positions")
            if n > 0:
                rid_ptr = &rid[0]
        self._allocate_pool()
        self.params.noise_seed = noise_seed
        self.curvature_unit = curvature_unit
        if n == 0:
            self.n_nodes = 0
            self.n_sampled = 0
            return 0
        with nogil:
            m = sample_rows(&idx[0], &scratch[0], n, seed_shift, keep_below, sample, rid_ptr, offset)
            self.n_sampled = m
            self.n_nodes = self._grow(&codes[0, 0], &codes_t[0, 0], n, &g[0], &h[0], &idx[0], &scratch[0], &og[0],
                                      &oh[0], &feature_mask[0], m, m == n and not sample, unit_h, counts)
        self.sp_ptr = NULL          # the arrays are the caller's: not kept past the call
        self.sp_slot = NULL
        return self.n_nodes

    # ------------------------------------------------------------------
    # Histogram buffers
    # ------------------------------------------------------------------
    cdef inline Py_ssize_t _take(self) noexcept nogil:
        """A free histogram buffer (at most max_leaves + 1 are live at once: the pool never runs out)."""
        self.pool_free -= 1
        return self.free_list[self.pool_free]

    cdef inline void _release(self, Py_ssize_t node) noexcept nogil:
        if self.hist_of[node] >= 0:
            self.free_list[self.pool_free] = self.hist_of[node]
            self.pool_free += 1
            self.hist_of[node] = -1

    # ------------------------------------------------------------------
    # Growth (mirrors TreeSearch: _consider, _grow, _split_request, _receive_split)
    # ------------------------------------------------------------------
    cdef Py_ssize_t _grow(self, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n, const double* g,
                          const double* h, int32_t* idx, int32_t* scratch, double* og, double* oh,
                          const uint8_t* mask, Py_ssize_t m, bint identity, bint unit_h,
                          const double* counts) noexcept nogil:
        """Grow the tree on the sampled rows idx[:m]; returns the number of nodes (``counts``: the block's
        root counts or NULL, read when ``identity``)."""
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t i, s, n_nodes = 1, n_leaves = 1, best, k, n_live, budget, base0
        cdef double G = 0.0, H = 0.0, C = 0.0, top, thr, mean_h
        cdef double* hist
        cdef double* Gv = self.p_G
        cdef double* Hv = self.p_H
        cdef double* Cv = self.p_count
        cdef Py_ssize_t* st = self.p_start
        cdef Py_ssize_t* en = self.p_end
        for i in range(self.pool_size):
            self.free_list[i] = self.pool_size - 1 - i
        self.pool_free = self.pool_size
        for i in range(self.max_nodes):
            self.hist_of[i] = -1
            self.splittable[i] = 0
        self._reset_node(0)
        self.depth[0] = 0
        self.lo[0] = self.params.lo     # ±inf, or ±cap
        self.hi[0] = self.params.hi
        if self.rule.on:
            rule_root(&self.rule)
        st[0] = 0
        en[0] = m
        self.hist_of[0] = self._take()
        hist = self.pool[self.hist_of[0]]
        build_histogram(codes, fs, g, h, idx, 0, m, og, oh, hist, self.n_threads, identity, unit_h, self.sp_ptr,
                        self.sp_slot, counts if identity else NULL)
        if fs.d > 0:
            base0 = fs.base[0]
            for s in range(fs.n_edges[0] + 2):      # the root's sums: feature 0's slots, in order
                G = G + hist[3 * (base0 + s)]
                H = H + hist[3 * (base0 + s) + 1]
                C = C + hist[3 * (base0 + s) + 2]
        Gv[0] = G
        Hv[0] = H
        Cv[0] = C
        if C <= 0 or fs.d == 0:
            return 1
        mean_h = H / C          # _search.curvature_floor: rows of the mean curvature, or of curvature_unit if more
        self.params.min_child_weight = self.base_params.min_child_weight * max(mean_h, self.curvature_unit)
        self.params.cat_smooth = self.base_params.cat_smooth * (H / C)
        self._consider(0, mask, -1)
        while n_leaves < self.max_leaves:
            n_live = 0
            for i in range(n_nodes):
                if self.splittable[i]:
                    self.order[n_live] = i
                    n_live += 1
            if n_live == 0:
                break
            if not self.depthwise:
                top = self.choice[self.order[0]].gain
                for k in range(1, n_live):
                    if self.choice[self.order[k]].gain > top:
                        top = self.choice[self.order[k]].gain
                thr = top - self.params.tie_tolerance * top
                best = -1
                for k in range(n_live):         # ties (within rounding): the smallest node id
                    if self.choice[self.order[k]].gain >= thr:
                        best = self.order[k]
                        break
                self.order[0] = best
                n_live = 1
            else:
                # every splittable leaf in one round; when the leaf budget is short, the largest
                # gains first (ties: the smaller node id), then split in node order
                self._sort_by_gain(n_live)
                budget = self.max_leaves - n_leaves
                for k in range(budget, n_live):
                    self.splittable[self.order[k]] = 0
                    self._release(self.order[k])
                if n_live > budget:
                    n_live = budget
                self._sort_by_id(n_live)
            n_nodes = self._split_round(codes, codes_t, n, g, h, idx, scratch, og, oh, mask, n_live, n_nodes,
                                        n_leaves + n_live >= self.max_leaves, unit_h)
            n_leaves += n_live
        return n_nodes

    cdef void _reset_node(self, Py_ssize_t i) noexcept nogil:
        self.p_left[i] = -1
        self.p_right[i] = -1
        self.p_gain[i] = 0.0

    cdef bint _may_split(self, Py_ssize_t node) noexcept nogil:
        """Whether the node may be split (depth and size allow it): else it is a final leaf, not scanned."""
        return not ((self.max_depth >= 0 and self.depth[node] >= self.max_depth)
                    or self.p_count[node] < 2 * self.params.min_samples_leaf)

    cdef void _consider(self, Py_ssize_t node, const uint8_t* mask, Py_ssize_t sibling) noexcept nogil:
        """Find the best split of ``node`` (and of ``sibling`` >= 0), or mark it a final leaf (depth, size, no gain).

        With a sibling (a split's smaller child), ``node``'s histogram is its
        buffer minus the sibling's, computed during its scan; both nodes'
        features are scanned in one parallel region (``scan_nodes``), then
        each node's split is chosen, ``node`` first.
        """
        cdef NodeScan scans[2]
        cdef Py_ssize_t k = self._scans(node, sibling, scans, mask)
        if k > 0:
            scan_nodes(scans, k, self.fs, mask, &self.params, self.n_threads)
        self._choose(node, mask, sibling)

    cdef Py_ssize_t _scans(self, Py_ssize_t node, Py_ssize_t sibling, NodeScan* scans,
                           const uint8_t* mask) noexcept nogil:
        """The scans of ``node`` and ``sibling`` (>= 0, or none) that may split, in that order; returns how many.

        Marks them splittable (or not); ``node``'s scan first subtracts the
        sibling's histogram.  Node q of (node, sibling) gets the scratch
        3·d·q of ``scan_scratch`` (and, with interaction constraints, its
        features ``rule.masks[q]``: the tree's ``mask`` within its live groups).
        """
        cdef Py_ssize_t k = 0, q, i, d = self.fs.d
        cdef Py_ssize_t which[2]
        which[0] = node
        which[1] = sibling
        for q in range(2 if sibling >= 0 else 1):
            i = which[q]
            self.splittable[i] = 0
            if self._may_split(i):
                scans[k].hist = self.pool[self.hist_of[i]]
                scans[k].subtract = self.pool[self.hist_of[sibling]] if q == 0 and sibling >= 0 else NULL
                scans[k].scratch = self.scan_scratch + 3 * d * q
                scans[k].params = self._params_of(i, q)
                scans[k].mask = rule_mask(&self.rule, i, q, mask) if self.rule.on else NULL
                self.splittable[i] = 1
                k += 1
        return k

    cdef const SplitParams* _params_of(self, Py_ssize_t node, Py_ssize_t q) noexcept nogil:
        """The split search's parameters for ``node``: the tree's, with its bounds when constrained (written to
        ``node_params[q]``, q the node's place among those scanned together)."""
        if self.monotone == NULL:
            return &self.params
        self.node_params[q] = self.params
        self.node_params[q].lo = self.lo[node]
        self.node_params[q].hi = self.hi[node]
        return &self.node_params[q]

    cdef void _choose(self, Py_ssize_t node, const uint8_t* mask, Py_ssize_t sibling) noexcept nogil:
        """After the scans of :meth:`_scans`: each splittable node's split (``node`` first), else a final leaf."""
        cdef Py_ssize_t q, i, d = self.fs.d
        cdef Py_ssize_t which[2]
        which[0] = node
        which[1] = sibling
        for q in range(2 if sibling >= 0 else 1):
            i = which[q]
            if self.splittable[i]:
                self.splittable[i] = choose_split(self.pool[self.hist_of[i]], self.fs, self.rule.masks + d * q
                                                  if self.rule.on else mask, self._params_of(i, q), &self.choice[i],
                                                  self.scan_scratch + 3 * d * q, i)
            if not self.splittable[i]:
                self._release(i)

    cdef Py_ssize_t _split_round(self, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n, const double* g,
                                 const double* h, int32_t* idx, int32_t* scratch, double* og, double* oh,
                                 const uint8_t* mask, Py_ssize_t n_split, Py_ssize_t n_nodes, bint last,
                                 bint unit_h) noexcept nogil:
        """Split the nodes order[:n_split] (in that order): children, partitions, histograms, then scans."""
        cdef const FeatureSlots* fs = self.fs
        cdef Py_ssize_t k, node, a, b, small, nl
        cdef SplitChoice* sp
        cdef bint histogram
        cdef Py_ssize_t* st = self.p_start
        cdef Py_ssize_t* en = self.p_end
        if n_split == 1 and self.fs.column_slots:
            return self._split_one(codes, codes_t, n, g, h, idx, scratch, og, oh, mask, self.order[0], n_nodes, last,
                                   unit_h)
        for k in range(n_split):                # the requests: children and what the blocks do
            node = self.order[k]
            sp = &self.choice[node]
            a = n_nodes
            b = n_nodes + 1
            n_nodes += 2
            histogram = self._children(node, a, last)
            split_table(fs, sp, self.p_tables + 256 * node)
            # the split feature's column, column-major: far fewer cache misses than each row's line
            nl = partition_rows(codes_t + fs.col[sp.feature] * n, 1, idx, scratch, st[node], en[node], 0,
                                self.p_tables + 256 * node, self.n_threads, PARTITION_PARALLEL_ROWS)
            st[a] = st[node]
            en[a] = st[node] + nl
            st[b] = st[node] + nl
            en[b] = en[node]
            if histogram:
                small = self._smaller_child(node)
                self.hist_of[small] = self._take()
                build_histogram(codes, fs, g, h, idx, st[small], en[small], og, oh, self.pool[self.hist_of[small]],
                                self.n_threads, False, unit_h, self.sp_ptr, self.sp_slot)
        for k in range(n_split):                # the client's side: subtraction, then the children's scans
            node = self.order[k]
            if self.hist_of[node] < 0:
                continue                        # no histogram: both children are final leaves
            small = self._smaller_child(node)
            # both children are scanned in one parallel region, the smaller one's histogram being
            # read by the subtraction
            self._consider(self._hand_over(node, small), mask, small)
        return n_nodes

    cdef inline Py_ssize_t _smaller_child(self, Py_ssize_t node) noexcept nogil:
        """The child of ``node`` with fewer rows (ties: the left one), whose histogram is built."""
        cdef Py_ssize_t a = self.p_left[node], b = self.p_right[node]
        return a if self.p_count[a] <= self.p_count[b] else b

    cdef inline Py_ssize_t _hand_over(self, Py_ssize_t node, Py_ssize_t small) noexcept nogil:
        """The parent's histogram buffer becomes its larger child's; returns that child.

        The larger child's histogram is parent − smaller (the sibling
        subtraction), done during its scan, feature by feature -- or not at
        all when it is a final leaf.
        """
        cdef Py_ssize_t large = self.p_left[node] + self.p_right[node] - small
        self.hist_of[large] = self.hist_of[node]
        self.hist_of[node] = -1
        return large

    cdef bint _children(self, Py_ssize_t node, Py_ssize_t a, bint last) noexcept nogil:
        """Record node's split (its choice) and its children a, a + 1; whether their histograms are needed.

        A node whose children need no histogram (none of them may be split)
        gives its buffer back.
        """
        cdef SplitChoice* sp = &self.choice[node]
        cdef Py_ssize_t b = a + 1, q, depth
        cdef bint histogram
        self.splittable[node] = 0
        self.p_left[node] = <int32_t> a
        self.p_right[node] = <int32_t> b
        self.p_feature[node] = <int32_t> sp.feature
        self.p_bin[node] = <int32_t> sp.bin
        self.p_nan_left[node] = sp.nan_left
        self.p_gain[node] = sp.gain
        depth = self.depth[node] + 1
        for q in range(2):
            self._reset_node(a + q)
            self.depth[a + q] = depth
            self.splittable[a + q] = 0
        self.p_G[a] = sp.left[0]
        self.p_H[a] = sp.left[1]
        self.p_count[a] = sp.left[2]
        self.p_G[b] = sp.right[0]
        self.p_H[b] = sp.right[1]
        self.p_count[b] = sp.right[2]
        if self.params.bounded:         # (a cap alone: sign 0, the children keep the node's bounds)
            split_bounds(self.lo[node], self.hi[node],
                         0 if sp.categorical or self.monotone == NULL else self.monotone[sp.feature], sp,
                         self.params.l2, self.bounds)
            self.lo[a] = self.bounds[0]
            self.hi[a] = self.bounds[1]
            self.lo[b] = self.bounds[2]
            self.hi[b] = self.bounds[3]
        if self.rule.on:
            rule_children(&self.rule, node, a, sp.feature)
        # the children's histograms are needed only if one of them may still be split
        histogram = (not last and (self.max_depth < 0 or depth < self.max_depth)
                     and (sp.left[2] >= 2 * self.params.min_samples_leaf
                          or sp.right[2] >= 2 * self.params.min_samples_leaf))
        if not histogram:
            self._release(node)
        return histogram

    cdef Py_ssize_t _split_one(self, const uint8_t* codes, const uint8_t* codes_t, Py_ssize_t n, const double* g,
                               const double* h, int32_t* idx, int32_t* scratch, double* og, double* oh,
                               const uint8_t* mask, Py_ssize_t node, Py_ssize_t n_nodes, bint last,
                               bint unit_h) noexcept nogil:
        """Split one node as :meth:`_split_round` does, its three phases in one parallel region.

        The partition, the smaller child's histogram and both children's
        scans (the same kernels, threads and work per thread as three
        separate calls: ``_split_team``) run in one region; a region's fork
        and join cost about 1.7 µs on two threads, four times a barrier, and
        a leaf-wise tree paid three or four of them per split.  Needs every
        column's slots to lie between its first slot and the next column's
        (``fs.column_slots``): each thread then zeroes, fills and scans its
        own columns' slots with no barrier in between.
        """
        cdef const FeatureSlots* fs = self.fs
        cdef SplitTeam w
        cdef Py_ssize_t a = n_nodes, b = n_nodes + 1, small, large
        cdef int team, tid = 0
        w.histogram = self._children(node, a, last)
        split_table(fs, &self.choice[node], self.p_tables + 256 * node)
        w.codes = codes
        w.sp_ptr = self.sp_ptr
        w.sp_slot = self.sp_slot
        w.column = codes_t + fs.col[self.choice[node].feature] * n
        w.table = self.p_tables + 256 * node
        w.fs = fs
        w.g = g
        w.h = h
        w.idx = idx
        w.scratch = scratch
        w.og = og
        w.oh = oh
        w.mask = mask
        w.params = &self.params
        w.before = self.before
        w.start = self.p_start[node]
        w.end = self.p_end[node]
        w.unit_h = unit_h
        w.T_part = partition_threads(w.end - w.start, self.n_threads, PARTITION_PARALLEL_ROWS)
        w.T_hist = 1
        w.T_gather = 0
        w.T_scan = 1
        w.k = 0
        small = large = -1
        if w.histogram:
            small = self._smaller_child(node)
            w.small_left = small == a
            self.hist_of[small] = self._take()
            w.hist = self.pool[self.hist_of[small]]
            large = self._hand_over(node, small)
            w.k = self._scans(large, small, w.scans, mask)
            node_histogram_threads(<Py_ssize_t> self.p_count[small], fs.n_cols, self.n_threads, False, &w.T_hist,
                                   &w.T_gather)
            if w.k > 0:
                w.T_scan = scan_threads(w.k, fs, self.n_threads)
            if w.T_hist < w.T_scan <= fs.n_cols:
                # a histogram too small to pay for a region of its own: the scans' region is there
                # anyway, and on the scans' threads the histogram needs no barrier either (each
                # thread scans the columns it filled) -- rather than one thread filling while the
                # others wait (each histogram thread then reads its rows' g and h itself)
                w.T_hist = w.T_scan
                w.T_gather = 0
        team = max(max(w.T_part, w.T_hist), max(w.T_gather, w.T_scan))
        if team <= 1:
            _split_team(&w, 0)
        else:
            with parallel(num_threads=team):
                tid = threadid()
                _split_team(&w, tid)
        self.p_start[a] = w.start
        self.p_end[a] = w.start + w.nl
        self.p_start[b] = w.start + w.nl
        self.p_end[b] = w.end
        if w.histogram:
            self._choose(large, mask, small)
        return n_nodes + 2

    cdef void _sort_by_gain(self, Py_ssize_t n) noexcept nogil:
        """order[:n] by gain, largest first, ties by node id (insertion sort: n <= max_leaves)."""
        cdef Py_ssize_t i, k, v
        for i in range(1, n):
            v = self.order[i]
            k = i
            while k > 0 and (self.choice[self.order[k - 1]].gain < self.choice[v].gain
                             or (self.choice[self.order[k - 1]].gain == self.choice[v].gain and self.order[k - 1] > v)):
                self.order[k] = self.order[k - 1]
                k -= 1
            self.order[k] = v

    cdef void _sort_by_id(self, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i, k, v
        for i in range(1, n):
            v = self.order[i]
            k = i
            while k > 0 and self.order[k - 1] > v:
                self.order[k] = self.order[k - 1]
                k -= 1
            self.order[k] = v

    # ------------------------------------------------------------------
    # The grown tree on the block's rows
    # ------------------------------------------------------------------
    def leaf_values(self, const uint8_t[:, ::1] codes, const int32_t[::1] idx, const double[::1] value,
                    double[::1] out, const uint8_t[::1] node_index=None, uint8_t[::1] index_out=None):
        """out[r] = value of row r's leaf in the tree just grown: O(n) from the partition for the sampled rows,
        O(depth) per other row by walking its codes; O(1) extra memory.

        With ``node_index`` and ``index_out`` (both or neither) also
        index_out[r] = node_index[leaf of r]: the position of the row's value
        among the tree's distinct values, which the line search's summary
        reads instead of searching for h[r].
        """
        cdef Py_ssize_t n = codes.shape[0], i, r, node, n_nodes = self.n_nodes
        cdef const int32_t[::1] lf = self.left, rt = self.right
        cdef const uint8_t[:, ::1] tables = self.tables
        cdef const int32_t[::1] ft = self.feature
        cdef const Py_ssize_t[::1] st = self.start, en = self.end
        cdef const Py_ssize_t* col = self.fs.col
        cdef bint indexed = index_out is not None
        cdef uint8_t k
        if idx.shape[0] != n or out.shape[0] != n or value.shape[0] < n_nodes or n_nodes < 1:
            raise ValueError("leaf_values: idx and out must hold the block's rows, value one entry per node")
        if (node_index is None) != (index_out is None):
            raise ValueError("leaf_values: give node_index and index_out together")
        if indexed and (index_out.shape[0] != n or node_index.shape[0] < n_nodes):
            raise ValueError("leaf_values: index_out must hold the block's rows, node_index one entry per node")
        with nogil:
            for node in range(n_nodes):
                if lf[node] < 0:
                    for i in range(st[node], en[node]):
                        out[idx[i]] = value[node]
                    if indexed:
                        k = node_index[node]
                        for i in range(st[node], en[node]):
                            index_out[idx[i]] = k
            for i in range(self.n_sampled, n):
                r = idx[i]
                node = 0
                while lf[node] >= 0:
                    if tables[node, codes[r, col[ft[node]]]]:
                        node = lf[node]
                    else:
                        node = rt[node]
                out[r] = value[node]
                if indexed:
                    index_out[r] = node_index[node]

    def ranker_arrays(self, const double[::1] flat_edges, const Py_ssize_t[::1] offsets, double l2,
                      double all_left):
        """The grown tree as ``TreeSearch.result`` builds it, in one call.

        Returns (feature, threshold, nan_left, left, right, value, gain, bins,
        derivative, distinct leaf values ascending, categorical nodes, their
        left bins as (nodes, 4) 256-bit sets): −1 / 0 at leaves for the
        split fields, leaf values −G/(H + l2) at leaves (clamped to their bounds
        with monotone constraints, to [−cap, cap] with a cap) and 0 elsewhere, and the
        derivative Σ_leaves G·v summed in node order -- the search's own
        arithmetic.  None when the tree is a single leaf.

        O(N + L·D) time for N nodes, L leaves and D ≤ L distinct leaf values (an insertion into the
        ascending values per leaf); O(N) memory: the returned arrays.
        """
        cdef Py_ssize_t n = self.n_nodes, i, f, b, k, q, n_leaves = 0, n_distinct = 0
        cdef double derivative = 0.0, v
        if n <= 1:
            return None
        feature = np.empty(n, dtype=np.int32)
        bins = np.empty(n, dtype=np.int32)
        threshold = np.empty(n)
        nan_left = np.empty(n, dtype=np.uint8)
        left = np.empty(n, dtype=np.int32)
        right = np.empty(n, dtype=np.int32)
        value = np.empty(n)
        gain = np.empty(n)
        distinct = np.empty(n)
        is_cat = np.zeros(n, dtype=np.uint8)
        left_bins = np.zeros((n, 4), dtype=np.uint64)
        cdef uint8_t[::1] co = is_cat
        cdef uint64_t[:, ::1] lbo = left_bins
        cdef int32_t[::1] fo = feature, bo = bins, lo = left, ro = right
        cdef double[::1] to = threshold, vo = value, go = gain, dv = distinct
        cdef uint8_t[::1] no = nan_left
        for i in range(n):
            lo[i] = self.p_left[i]
            ro[i] = self.p_right[i]
            if self.p_left[i] >= 0:
                f = self.p_feature[i]
                b = self.p_bin[i]
                fo[i] = <int32_t> f
                bo[i] = <int32_t> b
                no[i] = self.p_nan_left[i]
                go[i] = self.p_gain[i]
                vo[i] = 0.0
                # the threshold of bin b: edges[b], or "every value left" past the last edge
                to[i] = flat_edges[offsets[f] + b] if b < offsets[f + 1] - offsets[f] else all_left
                if self.choice[i].categorical:
                    co[i] = 1
                    to[i] = 0.0
                    for q in range(4):
                        lbo[i, q] = self.choice[i].left_bins[q]
            else:
                fo[i] = -1
                bo[i] = -1
                no[i] = 0
                go[i] = 0.0
                to[i] = 0.0
                v = -self.p_G[i] / (self.p_H[i] + l2)
                if self.params.bounded:         # clamped to the leaf's bounds (``_split.clamped``'s comparisons)
                    if v < self.lo[i]:
                        v = self.lo[i]
                    if v > self.hi[i]:
                        v = self.hi[i]
                vo[i] = v
                derivative = derivative + self.p_G[i] * v
                # insert v into the ascending distinct values (a tree has few leaves)
                k = 0
                while k < n_distinct and dv[k] < v:
                    k += 1
                if k < n_distinct and dv[k] == v:
                    continue
                for q in range(n_distinct, k, -1):
                    dv[q] = dv[q - 1]
                dv[k] = v
                n_distinct += 1
        return (feature, threshold, nan_left, left, right, value, gain, bins, derivative, distinct[:n_distinct],
                is_cat, left_bins)
