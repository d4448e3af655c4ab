# One split of the in-memory grower (``_grow.pyx``) as the work of one parallel region: the partition, the
# smaller child's histogram and both children's scans, each phase on its own number of threads
# (``TreeGrower._split_one``).  Included by ``_grow.pyx``, whose cimports it uses.


cdef struct SplitTeam:
    # one split's work for the threads of one parallel region (TreeGrower._split_one)
    const uint8_t* codes            # (n, c) row-major codes
    const int64_t* sp_ptr           # the rows' listed sparse slots (``listed_rows``), or NULL
    const int32_t* sp_slot
    const uint8_t* column           # the split feature's column of the column-major codes
    const uint8_t* table            # the split's table: code -> goes left
    const FeatureSlots* fs
    const double* g
    const double* h
    int32_t* idx
    int32_t* scratch
    double* og
    double* oh
    const uint8_t* mask
    const SplitParams* params
    Py_ssize_t* before              # the partition's per-chunk counts (shared)
    Py_ssize_t start, end           # the node's rows idx[start:end]
    Py_ssize_t nl                   # out: its rows going left (the left child's)
    bint histogram                  # the smaller child's histogram and the children's scans are wanted
    bint small_left                 # the smaller child is the left one
    double* hist                    # its (zeroed here) histogram buffer
    bint unit_h
    NodeScan scans[2]
    Py_ssize_t k                    # scans (0, 1 or 2)
    int T_part, T_hist, T_gather, T_scan


cdef void _split_team(SplitTeam* w, int tid) noexcept nogil:
    """Thread ``tid``'s share of a split: partition, then the smaller child's histogram, then both children's scans.

    Every thread of the region calls it.  Each phase runs on its own number
    of threads (as the separate calls would: ``partition_threads``,
    ``node_histogram_threads``, ``scan_threads``), the others only meeting
    its barriers: after the partition (every thread reads the new ranges),
    after a parallel gather, and before the scans unless they run on the
    histogram's threads -- then thread t scans the columns whose slots
    (bundled features' default bins included) it zeroed and filled itself
    (``histogram_part``), and waits for no one.  O(m/T + m'·c/T + S/T)
    per thread for a node of m rows and a smaller child of m', no
    allocation; the tree does not depend on the threads.
    """
    cdef Py_ssize_t nl, s, e
    nl = partition_part(w.column, 1, w.idx, w.scratch, w.start, w.end, 0, w.table, tid, w.T_part, w.before)
    if tid == 0:
        w.nl = nl
    if not w.histogram:
        return
    s, e = (w.start, w.start + nl) if w.small_left else (w.start + nl, w.end)
    histogram_part(w.codes, w.fs, w.g, w.h, w.idx, s, e, w.og, w.oh, w.hist, tid, w.T_hist, w.T_gather, False,
                   w.unit_h, w.sp_ptr, w.sp_slot)
    if w.T_scan != w.T_hist:
        rc_barrier()
    if w.k > 0:
        scan_part(w.scans, w.k, w.fs, w.mask, w.params, tid, w.T_scan)
