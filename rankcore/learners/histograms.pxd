# Binning and histogram kernels shared by rankcore's learners (cimport them; each loop is written once):
#
#     from rankcore.learners.histograms cimport bin_code, feature_histograms, node_histogram
#
# * ``bin_code``: a value's bin code, #{edges < x}, by binary search: the one search of every
#   learner's encoder (stumps, thresholds, trees) and of the trees' prediction and column summaries;
# * ``feature_histograms``: histograms of a gradient per feature and bin code over feature-major
#   (d, n) codes, optionally per class (the ``stumps``/``thresholds`` search and the Dask backend's
#   per-class histograms);
# * ``node_histogram``: (Σg, Σh, count) histograms of one tree node's rows over row-major (n, c)
#   codes (the ``trees`` learner, both its in-memory grower and its multi-pass protocol), their dense
#   columns optionally from the same codes column-major (``_dense_columns``: the oblivious grower).
#
# Only ``cdef inline`` functions live here (no histograms.pyx): each kernel module compiles its own
# copy and nothing is imported at run time.  Every function is bitwise independent of the number
# of threads: each histogram bin is summed by one thread, in row order.
#
# Complexity: ``bin_code`` O(log B); ``feature_histograms`` O(n·d) time, O(1) memory beyond the
# output (8 KiB of stack per thread for uint8 codes); ``node_histogram`` O(m·c) for a node of m rows
# over c code columns, O(S) to zero its S-slot output, no allocation.

from cython.parallel cimport parallel, prange, threadid
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from rankcore.typedefs cimport code_t
from rankcore._parallel cimport rc_barrier, threads_for

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RC_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define RC_PREFETCH(p) ((void)0)
    #endif
    """
    void RC_PREFETCH(const void* p) noexcept nogil

cdef extern from *:
    """
    /* A group of HIST_COLUMN_GROUP (8) dense columns' slots updated with one vector of four doubles
       each: (Σg, Σh, count) += (g, h, 1) and the next slot's Σg += -0.0, which leaves every double as
       it was (x + -0.0 is x, signed zeros and NaN included), where the scalar loop takes a 16-byte
       and an 8-byte update.  The same additions in the same order: the same bits.  The fourth lane
       reads and writes the first double of the next slot, so the caller keeps this to columns whose
       next slot no other thread fills (not the last column it was given).  Row i is rows[i] (or
       start + i without rows); its g and h are gg[r], hh[r] with by_row, else gg[i], hh[i].
       base[q]: 3 * the slot of column j + q's code 0.  AVX2 and up, chosen at run time
       (rc_hist_vectors: read, never written, by the threads that fill histograms; the CPU's features
       are known from the runtime's constructor on).  rc_hist_on = 0 keeps the scalar loop (the tests
       and the benchmark compare the two); other CPUs and compilers keep it too. */
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    #include <stdint.h>
    #include <string.h>
    typedef double rc_hist_vd4 __attribute__((vector_size(32)));
    static int rc_hist_on = 1;
    static inline int rc_hist_vectors(void) {
        return rc_hist_on && __builtin_cpu_supports("avx2");
    }
    __attribute__((target("avx2"))) static void rc_dense_group_4(
            const uint8_t* codes_t, Py_ssize_t n_rows, const Py_ssize_t* base, Py_ssize_t j,
            const int32_t* rows, Py_ssize_t start, const double* gg, const double* hh, Py_ssize_t m,
            int by_row, double* hist) {
        const uint8_t* col;
        Py_ssize_t i, r, q;
        double* hp;
        rc_hist_vd4 v, x;
        for (i = 0; i < m; i++) {
            r = rows != NULL ? rows[i] : start + i;
            v = (rc_hist_vd4){by_row ? gg[r] : gg[i], by_row ? hh[r] : hh[i], 1.0, -0.0};
            col = codes_t + j * n_rows + r;
            for (q = 0; q < 8; q++) {
                hp = hist + base[q] + 3 * (Py_ssize_t) col[q * n_rows];
                memcpy(&x, hp, sizeof(x));
                x = x + v;
                memcpy(hp, &x, sizeof(x));
            }
        }
    }
    #else
    static int rc_hist_on = 1;
    static inline int rc_hist_vectors(void) { return 0; }
    static void rc_dense_group_4(const uint8_t* codes_t, Py_ssize_t n_rows, const Py_ssize_t* base,
                                 Py_ssize_t j, const int32_t* rows, Py_ssize_t start, const double* gg,
                                 const double* hh, Py_ssize_t m, int by_row, double* hist) {}
    #endif
    """
    int rc_hist_on
    int rc_hist_vectors() noexcept nogil
    void rc_dense_group_4(const uint8_t* codes_t, Py_ssize_t n_rows, const Py_ssize_t* base, Py_ssize_t j,
                          const int32_t* rows, Py_ssize_t start, const double* gg, const double* hh,
                          Py_ssize_t m, int by_row, double* hist) noexcept nogil

cdef enum:
    # rows prefetched ahead when a node's rows are not contiguous
    HIST_AHEAD = 32
    # rows per chunk of ``feature_histograms``: a chunk of g stays in cache while every feature reads it
    HIST_ROWS = 16384
    # rows from which a tree node's gather runs on several threads (~20 µs of random reads on one)
    HIST_PARALLEL_ROWS = 8192
    # (rows × code columns) of a tree node from which its histogram runs on several threads
    # (~15 µs on one: a fork and join costs a few µs on a quiet machine; 12,288 was measured 1-3 %
    # slower on spambase, kernlab income and ijcnn1 at two threads, 3,072 no faster than this)
    HIST_PARALLEL_CELLS = 6144
    # slots of a tree node's histogram that one walk over its rows fills (×24 bytes: 192 KiB, within a
    # core's L2 cache; 585,351 rows × 137 columns of 255 bins: 1.93 → 1.59 ns an update on one thread,
    # 4,096 and 16,384 slots slower; a histogram of 6,644 slots is one block)
    HIST_BLOCK_SLOTS = 8192
    # code columns filled together by one walk of a node's rows over column-major codes
    # (``_dense_columns``: their ≤ 8 × 256 slots stay in the first-level cache)
    HIST_COLUMN_GROUP = 8
    # column-major codes are read for a node when its rows are at least 1/HIST_COLUMN_DENSITY of the
    # block's, or the block has at most HIST_COLUMN_ROWS rows (a group's columns then stay in the
    # second-level cache): sparser rows fetch a cache line of each column per row
    HIST_COLUMN_DENSITY = 8
    HIST_COLUMN_ROWS = 16384


cdef inline Py_ssize_t bin_code(double x, const double* edges, Py_ssize_t n_edges) noexcept nogil:
    """#{b : edges[b] < x} for ascending ``edges`` (lower bound; 0 for NaN).  O(log n_edges).

    Each halving is a conditional move, not a jump: a value's bin is
    unpredictable, and a mispredicted branch per halving dominates the search.
    """
    cdef Py_ssize_t base = 0, half
    if n_edges == 0:
        return 0
    while n_edges > 1:
        half = n_edges >> 1
        base = base + half if edges[base + half] < x else base
        n_edges -= half
    return base + (edges[base] < x)


cdef inline void code_histogram(const code_t* codes, const double* g, double* h, Py_ssize_t r0,
                                Py_ssize_t r_end, Py_ssize_t B, Py_ssize_t stride) noexcept nogil:
    """h[stride·codes[r]] += g[r] for r in [r0, r_end); every code < B.

    For uint8 codes, four interleaved partial histograms break the chain of
    dependent read-modify-writes when consecutive rows share a bin (the loop
    is otherwise bound by store-to-load latency); they are added into h at
    the end, in a fixed order, and only the first B bins: h belongs to one
    feature (and class), and the next feature's bins, which another thread
    may be filling, follow it in memory.
    """
    cdef Py_ssize_t r, b, nb = B if B < 256 else 256
    cdef double acc[4 * 256]
    if r_end <= r0:
        return
    if code_t is uint8_t:
        for b in range(nb):
            acc[b] = 0.0
            acc[256 + b] = 0.0
            acc[512 + b] = 0.0
            acc[768 + b] = 0.0
        r = r0
        while r + 4 <= r_end:
            acc[codes[r]] += g[r]
            acc[256 + codes[r + 1]] += g[r + 1]
            acc[512 + codes[r + 2]] += g[r + 2]
            acc[768 + codes[r + 3]] += g[r + 3]
            r = r + 4
        while r < r_end:
            acc[codes[r]] += g[r]
            r = r + 1
        for b in range(nb):
            h[stride * b] += (acc[b] + acc[256 + b]) + (acc[512 + b] + acc[768 + b])
    else:
        for r in range(r0, r_end):
            h[stride * codes[r]] += g[r]


cdef inline void feature_histograms(const code_t* codes, Py_ssize_t d, Py_ssize_t n, const double* g,
                                    double* hist, Py_ssize_t B, Py_ssize_t n_classes, Py_ssize_t split_at,
                                    int T) noexcept nogil:
    """Add Σ g per (feature, code[, class]) of feature-major (d, n) codes into ``hist`` (d, B, n_classes).

    With ``n_classes`` = 2 the rows below ``split_at`` go to class 0, the
    others to class 1 (rows stored negatives first); with 1 every row goes to
    its feature's single column (``split_at`` = n).  One parallel region of T
    threads: thread t owns features t, t + T, ... and walks the rows in chunks
    of HIST_ROWS, so a chunk of g is read from cache by each of its features.
    """
    cdef Py_ssize_t t, j, c, r0, r_end, split
    for t in prange(T, schedule="static", chunksize=1, num_threads=T):
        for c in range((n + HIST_ROWS - 1) // HIST_ROWS):
            r0 = c * HIST_ROWS
            r_end = min(r0 + HIST_ROWS, n)
            split = max(r0, min(r_end, split_at))
            j = t
            while j < d:
                code_histogram(codes + j * n, g, hist + j * B * n_classes, r0, split, B, n_classes)
                code_histogram(codes + j * n, g, hist + j * B * n_classes + 1, split, r_end, B, n_classes)
                j = j + T


cdef inline void _sparse_row(const uint8_t* row, Py_ssize_t j0, Py_ssize_t j1, const Py_ssize_t* col_base,
                             double* hist, double gv, double hv, bint unit_h, bint count) noexcept nogil:
    """One row's updates of the sparse-bundle columns [j0, j1): their nonzero codes only.

    Eight codes are read as one word first and skipped together when all are
    0 (most words, on columns at code 0 on 95 % of the rows or more).  Each
    slot still receives its rows in row order (and its count unless not
    ``count``).  O(j1 − j0) reads, one update per nonzero code.
    """
    cdef Py_ssize_t j = j0, k
    cdef uint64_t word
    cdef uint8_t code
    cdef double* hp
    while j < j1:
        if j + 8 <= j1:
            memcpy(&word, row + j, 8)
            if word == 0:
                j = j + 8
                continue
            k = j + 8
        else:
            k = j1
        while j < k:
            code = row[j]
            if code != 0:
                hp = hist + (col_base[j] + code) * 3
                hp[0] += gv
                if not unit_h:
                    hp[1] += hv
                if count:
                    hp[2] += 1.0
            j = j + 1


cdef inline void _listed_row(const int64_t* sp_ptr, const int32_t* sp_slot, Py_ssize_t r, Py_ssize_t s_lo,
                             Py_ssize_t s_hi, double* hist, double gv, double hv, bint unit_h,
                             bint count) noexcept nogil:
    """One row's updates of its listed slots in [s_lo, s_hi): the sparse columns' nonzero codes, row-wise.

    Row r's slots are sp_slot[sp_ptr[r]:sp_ptr[r + 1]], ascending (its
    sparse columns' nonzero codes in column order), so the range is one run
    of them, found by bisection when it starts past the list's first slot
    (a second thread's share of the sparse columns).  O(log L + the slots
    in range) for a row of L listed slots, one update each.
    """
    cdef Py_ssize_t k = sp_ptr[r], k1 = sp_ptr[r + 1], slot, hi, mid
    cdef double* hp
    if k < k1 and sp_slot[k] < s_lo:       # a second thread's share: its first slot (>= s_lo) by bisection
        k = k + 1
        hi = k1
        while k < hi:
            mid = (k + hi) >> 1
            if sp_slot[mid] < s_lo:
                k = mid + 1
            else:
                hi = mid
    while k < k1:
        slot = sp_slot[k]
        if slot >= s_hi:
            break
        hp = hist + slot * 3
        hp[0] += gv
        if not unit_h:
            hp[1] += hv
        if count:
            hp[2] += 1.0
        k = k + 1


cdef inline void _node_rows(const uint8_t* codes, Py_ssize_t n_cols, const Py_ssize_t* col_base,
                            Py_ssize_t j0, Py_ssize_t j1, const int32_t* rows, Py_ssize_t start,
                            const double* gg, const double* hh, Py_ssize_t m, bint unit_h,
                            double* hist, bint by_row, double* totals, Py_ssize_t n_skip0,
                            const int64_t* sp_ptr=NULL, const int32_t* sp_slot=NULL,
                            bint count=True) noexcept nogil:
    """Slots of columns [j0, j1) over m rows (row rows[i], or start + i without rows), in row order.

    Column j's code c of a row lands in slot col_base[j] + c of ``hist`` (S, 3),
    except code 0 of the first ``n_skip0`` columns: sparse bundles, whose code
    0 (every member at its default bin, on nearly every row) no split reads --
    a member's default-bin slot is the node's total minus its other slots --
    so those rows cost a read and a compare (a branch that almost never goes
    the other way) instead of an update.
    The i-th row's g and h are gg[i], hh[i], or with ``by_row`` gg[r], hh[r]
    for its row r (not gathered).  ``totals`` (or NULL) receives Σg and Σh
    of the rows, each summed in row order from 0 (Σh of ``unit_h``: the
    ones): two dependent chains of additions that hide behind the slots'
    updates, where a pass of their own would take ~4 cycles a row.
    With ``sp_ptr`` (not NULL) the sparse columns' nonzero codes are read
    from each row's list of their slots (``_listed_row``) instead of from
    its codes: one read per nonzero code instead of one per eight columns,
    the same updates in the same order (needs col_base ascending).
    Without ``count`` the slots' counts are left as they are (the caller
    knows them: a root's counts are the same tree after tree).
    """
    cdef Py_ssize_t i, j, r, jb = min(j1, max(j0, n_skip0))
    cdef Py_ssize_t s_lo = col_base[j0] if j0 < n_cols else 0
    cdef Py_ssize_t s_hi = col_base[jb] if jb < n_cols else (<Py_ssize_t> 1) << 62
    cdef bint listed = sp_ptr != NULL and jb > j0
    cdef const uint8_t* row
    cdef double* hp
    cdef double gv, hv, tg = 0.0, th = 0.0
    for i in range(m):
        if rows != NULL:
            r = rows[i]
            if i + HIST_AHEAD < m:          # the node's rows are scattered: fetch a later row's codes now
                if listed:                  # its list of sparse slots, and the codes of its dense columns
                    RC_PREFETCH(sp_slot + sp_ptr[rows[i + HIST_AHEAD]])
                    if jb < j1:
                        RC_PREFETCH(codes + rows[i + HIST_AHEAD] * n_cols + jb)
                        RC_PREFETCH(codes + rows[i + HIST_AHEAD] * n_cols + j1 - 1)
                else:
                    RC_PREFETCH(codes + rows[i + HIST_AHEAD] * n_cols + j0)
                    RC_PREFETCH(codes + rows[i + HIST_AHEAD] * n_cols + j1 - 1)     # (its second line, if any)
        else:
            r = start + i
        row = codes + r * n_cols
        gv = gg[r] if by_row else gg[i]
        if unit_h:
            if listed:
                _listed_row(sp_ptr, sp_slot, r, s_lo, s_hi, hist, gv, 1.0, True, count)
            elif jb > j0:
                _sparse_row(row, j0, jb, col_base, hist, gv, 1.0, True, count)
            if count:
                for j in range(jb, j1):
                    hp = hist + (col_base[j] + row[j]) * 3
                    hp[0] += gv
                    hp[2] += 1.0
            else:
                for j in range(jb, j1):
                    hist[(col_base[j] + row[j]) * 3] += gv
            if totals != NULL:
                tg = tg + gv
                th = th + 1.0
        else:
            hv = hh[r] if by_row else hh[i]
            if listed:
                _listed_row(sp_ptr, sp_slot, r, s_lo, s_hi, hist, gv, hv, False, count)
            elif jb > j0:
                _sparse_row(row, j0, jb, col_base, hist, gv, hv, False, count)
            if count:
                for j in range(jb, j1):
                    hp = hist + (col_base[j] + row[j]) * 3
                    hp[0] += gv
                    hp[1] += hv
                    hp[2] += 1.0
            else:
                # (Σg, Σh) one 16-byte update: the row's g and h side by side
                for j in range(jb, j1):
                    hp = hist + (col_base[j] + row[j]) * 3
                    hp[0] += gv
                    hp[1] += hv
            if totals != NULL:
                tg = tg + gv
                th = th + hv
    if totals != NULL:
        totals[0] = tg
        totals[1] = th


cdef inline Py_ssize_t _block_end(const Py_ssize_t* col_base, Py_ssize_t n_cols, Py_ssize_t a,
                                   Py_ssize_t j1) noexcept nogil:
    """The end of the block of columns from ``a`` (< j1) whose slots fit HIST_BLOCK_SLOTS (at least one column).

    A column's width is the distance to the next column's first slot (256,
    a column's most, for the last column or when col_base is not ascending:
    the blocks then only come out smaller).  O(columns of the block).
    """
    cdef Py_ssize_t b = a, used = 0, w
    while b < j1:
        w = col_base[b + 1] - col_base[b] if b + 1 < n_cols else 256
        if w <= 0 or w > 256:
            w = 256
        if b > a and used + w > HIST_BLOCK_SLOTS:
            break
        used += w
        b += 1
    return b


cdef inline void _dense_group(const uint8_t* codes_t, Py_ssize_t n_rows, const Py_ssize_t* col_base,
                              Py_ssize_t j, Py_ssize_t w, const int32_t* rows, Py_ssize_t start,
                              const double* gg, const double* hh, Py_ssize_t m, bint by_row, double* hist,
                              bint add_h, bint count, bint vectors=False) noexcept nogil:
    """Slots of the ``w`` (1 or HIST_COLUMN_GROUP) code columns from j over m rows, from column-major codes.

    Row i (rows[i], or start + i) updates each column's slot in turn; a
    column's slots receive their rows in row order, as :func:`_node_rows`
    gives them.  ``add_h``, ``count``: Σh and the count are updated (callers
    pass constants, so each combination compiles to its own loop).
    ``vectors``: a group of HIST_COLUMN_GROUP columns with both may take
    ``rc_dense_group_4`` (its fourth lane reaches the first double of the
    slot after each column's: the caller says it may).  O(m·w) updates,
    no allocation.
    """
    cdef Py_ssize_t i, r, q
    cdef const uint8_t* col
    cdef double* hp
    cdef double gv, hv = 0.0
    cdef Py_ssize_t base[HIST_COLUMN_GROUP]
    for q in range(w):
        base[q] = 3 * col_base[j + q]
    if add_h and count and vectors and w == HIST_COLUMN_GROUP:
        rc_dense_group_4(codes_t, n_rows, base, j, rows, start, gg, hh, m, by_row, hist)
        return
    for i in range(m):
        r = rows[i] if rows != NULL else start + i
        gv = gg[r] if by_row else gg[i]
        if add_h:
            hv = hh[r] if by_row else hh[i]
        col = codes_t + j * n_rows + r
        if w == HIST_COLUMN_GROUP:
            for q in range(HIST_COLUMN_GROUP):      # a constant count: unrolled
                hp = hist + base[q] + 3 * col[q * n_rows]
                hp[0] += gv
                if add_h:
                    hp[1] += hv
                if count:
                    hp[2] += 1.0
        else:
            for q in range(w):
                hp = hist + base[q] + 3 * col[q * n_rows]
                hp[0] += gv
                if add_h:
                    hp[1] += hv
                if count:
                    hp[2] += 1.0


cdef inline void _dense_columns(const uint8_t* codes_t, Py_ssize_t n_rows, const Py_ssize_t* col_base,
                                Py_ssize_t j0, Py_ssize_t j1, const int32_t* rows, Py_ssize_t start,
                                const double* gg, const double* hh, Py_ssize_t m, bint by_row, double* hist,
                                bint unit_h, bint count) noexcept nogil:
    """Slots of the dense code columns [j0, j1) over m rows, HIST_COLUMN_GROUP columns per walk of the rows.

    The column-major codes (``codes_t``, (n_cols, n_rows)) of a group of
    columns are read together: the group's slots (8 × 256 × 24 bytes at
    most) stay in the first-level cache, where a block of the row-major
    walk (:func:`_node_blocks`) spans the second-level one.  The same
    updates, each slot's in row order: the same bits.  O(m·(j1 − j0)).
    """
    cdef Py_ssize_t j = j0, w
    # groups that end before the last column may update with vectors of four doubles: the last column's
    # next slot may be another thread's (or past the end of an unpadded histogram)
    cdef bint vectors = rc_hist_vectors() != 0
    while j < j1:
        w = HIST_COLUMN_GROUP if j + HIST_COLUMN_GROUP <= j1 else 1
        # constant flags: one specialized loop each
        if unit_h:
            if count:
                _dense_group(codes_t, n_rows, col_base, j, w, rows, start, gg, hh, m, by_row, hist, False, True)
            else:
                _dense_group(codes_t, n_rows, col_base, j, w, rows, start, gg, hh, m, by_row, hist, False, False)
        elif count:
            _dense_group(codes_t, n_rows, col_base, j, w, rows, start, gg, hh, m, by_row, hist, True, True,
                         vectors and j + w < j1)
        else:
            _dense_group(codes_t, n_rows, col_base, j, w, rows, start, gg, hh, m, by_row, hist, True, False)
        j += w


cdef inline bint column_major_rows(Py_ssize_t m, Py_ssize_t n_rows) noexcept nogil:
    """Whether a node of m of the block's n_rows rows reads column-major codes (:func:`_dense_columns`).

    Column-major, each row costs a cache line per column unless its
    neighbours in the column are also the node's: worth it when the node
    holds at least 1/HIST_COLUMN_DENSITY of the rows or the columns are
    short enough to stay cached.  O(1).
    """
    return m * HIST_COLUMN_DENSITY >= n_rows or n_rows <= HIST_COLUMN_ROWS


cdef inline void _node_blocks(const uint8_t* codes, Py_ssize_t n_cols, const Py_ssize_t* col_base,
                              Py_ssize_t j0, Py_ssize_t j1, const int32_t* rows, Py_ssize_t start,
                              const double* gg, const double* hh, Py_ssize_t m, bint unit_h,
                              double* hist, bint by_row, double* totals, Py_ssize_t n_skip0,
                              const int64_t* sp_ptr=NULL, const int32_t* sp_slot=NULL,
                              bint count=True, const uint8_t* codes_t=NULL,
                              Py_ssize_t n_rows=0) noexcept nogil:
    """:func:`_node_rows` over columns [j0, j1), one block of columns at a time (:func:`_block_end`).

    A histogram wider than the core's cache (137 columns of 255 bins: 840
    KB) is filled from the cache when the rows are walked once per block of
    HIST_BLOCK_SLOTS slots, instead of once with every update a miss; each
    slot still receives its rows in row order from one thread, so the sums
    are the same bits.  ``totals`` are summed in the first block's walk.
    With ``codes_t`` (the block's n_rows codes column-major, or NULL) and
    :func:`column_major_rows`, the dense columns are filled from them
    instead (:func:`_dense_columns`) and the rows walked once for the
    sparse columns and the totals.  Listed sparse columns (``sp_ptr``) are
    walked once before the blocks, whatever their slots: a row's few listed
    slots are one run of its list, where a walk per block found its start
    again each time (on 95,451 rows of 475 listed columns, 67,833 slots,
    a node of a tenth of the rows filled in ~7 ms instead of ~12, one thread).
    O(m·(j1 − j0)) updates, plus one read of the rows' codes per block.
    """
    cdef Py_ssize_t a = j0, b, jb = min(j1, max(j0, n_skip0))
    cdef double* tot = totals
    if codes_t != NULL and jb < j1 and column_major_rows(m, n_rows):
        if jb > j0 or totals != NULL:
            _node_rows(codes, n_cols, col_base, j0, jb, rows, start, gg, hh, m, unit_h, hist, by_row, totals,
                       n_skip0, sp_ptr, sp_slot, count)
        _dense_columns(codes_t, n_rows, col_base, jb, j1, rows, start, gg, hh, m, by_row, hist, unit_h, count)
        return
    if sp_ptr != NULL and jb > j0:
        _node_rows(codes, n_cols, col_base, j0, jb, rows, start, gg, hh, m, unit_h, hist, by_row, tot, n_skip0,
                   sp_ptr, sp_slot, count)
        tot = NULL
        a = jb
    while a < j1:
        b = _block_end(col_base, n_cols, a, j1)
        _node_rows(codes, n_cols, col_base, a, b, rows, start, gg, hh, m, unit_h, hist, by_row, tot, n_skip0,
                   sp_ptr, sp_slot, count)
        tot = NULL
        a = b


cdef inline Py_ssize_t column_share(Py_ssize_t n_cols, const double* work, Py_ssize_t t, Py_ssize_t T) noexcept nogil:
    """The first code column of thread t's group when T threads share n_cols columns (t = T: n_cols).

    Without ``work`` (NULL) the groups hold t·n_cols/T columns each, as
    evenly as counts go.  With ``work`` (n_cols + 1 ascending partial sums of
    each column's expected cost, work[0] = 0) group t starts at the first
    column j with work[j] >= work[n_cols]·t/T, so each thread gets about
    the same cost: a sparse matrix's bundled columns cost a fraction of a
    dense column's, and counting columns left one of two threads with four
    fifths of the row updates on LightGBM's LTR example.  Where the groups fall changes no sum
    (each slot is still filled, and scanned, by one thread in row order).
    O(log n_cols).
    """
    cdef Py_ssize_t lo = 0, hi = n_cols, mid
    cdef double target
    if t <= 0:
        return 0
    if t >= T:
        return n_cols
    if work == NULL:
        return (t * n_cols) // T
    target = work[n_cols] * (<double> t / <double> T)
    while lo < hi:                      # the first j with work[j] >= target
        mid = (lo + hi) >> 1
        if work[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void node_histogram_threads(Py_ssize_t m, Py_ssize_t n_cols, int n_threads, bint identity,
                                        int* T, int* T_gather) noexcept nogil:
    """The threads of a node's histogram over m rows: ``T`` fill the slots (one group of columns each),
    ``T_gather`` gather its g and h first (0: no gather -- the root without sampling, or each
    histogram thread reads g[r], h[r] itself because the gather would stay on one thread).  O(1)."""
    T[0] = threads_for(<double> m * n_cols, n_threads, HIST_PARALLEL_CELLS)
    if T[0] > n_cols:
        T[0] = <int> n_cols
    T_gather[0] = threads_for(<double> m, n_threads, HIST_PARALLEL_ROWS)
    if identity or (T[0] > 1 and T_gather[0] <= 1):
        T_gather[0] = 0


cdef inline bint node_histogram_part(const uint8_t* codes, Py_ssize_t n_cols, const Py_ssize_t* col_base,
                                     const double* g, const double* h, const int32_t* idx, Py_ssize_t start,
                                     Py_ssize_t end, double* og, double* oh, double* hist, Py_ssize_t slot_lo,
                                     Py_ssize_t slot_hi, int tid, int T, int T_gather, bint identity,
                                     bint unit_h, double* totals, Py_ssize_t n_skip0=0,
                                     const int64_t* sp_ptr=NULL, const int32_t* sp_slot=NULL,
                                     const double* counts=NULL, const uint8_t* codes_t=NULL,
                                     Py_ssize_t n_rows=0, const double* col_work=NULL) noexcept nogil:
    """Thread ``tid``'s share of :func:`node_histogram`, in a parallel region whose threads all call it.

    ``T`` and ``T_gather`` as :func:`node_histogram_threads` gives them (at
    most the region's threads; threads beyond them only meet the barrier).
    The thread zeroes the slots [slot_lo, slot_hi) first and, with
    ``unit_h``, copies their counts to Σh at the end: the caller gives each
    thread the slots of its own columns (then no barrier separates the
    zeroing, the filling and a scan of those columns by the same thread),
    or an empty range and zeroes (and copies) itself.  ``totals`` (or NULL)
    receives the thread's Σg, Σh over the rows in row order (zeros for a
    thread that fills no column).  A parallel gather
    ends with a barrier (every thread's rows are read by every column
    group); nothing else waits.  Returns whether og, oh hold the gathered
    g, h.  ``counts`` (or NULL): the slots' counts, known beforehand (the
    root's, the same tree after tree): the thread writes them into its slots
    instead of zeros and the rows update Σg and Σh only (one 16-byte update
    a slot instead of two).  ``codes_t`` (or NULL): the block's n_rows codes
    column-major, read for the dense columns of a node with enough rows
    (:func:`_node_blocks`).  ``col_work`` (or NULL): the columns' cost
    partial sums by which :func:`column_share` groups them.
    O(m·c/T + slots) per thread, no allocation; the sums do not depend on
    the threads.
    """
    cdef Py_ssize_t m = end - start, i, s, i0, i1
    cdef const double* gg = g + start
    cdef const double* hh = h + start
    cdef const int32_t* rows = NULL
    cdef bint by_row = False
    if counts == NULL:
        for s in range(3 * slot_lo, 3 * slot_hi):
            hist[s] = 0.0
    else:
        for s in range(slot_lo, slot_hi):
            hist[3 * s] = 0.0
            hist[3 * s + 1] = 0.0
            hist[3 * s + 2] = counts[s]
    if totals != NULL:
        totals[0] = 0.0
        totals[1] = 0.0
    if m <= 0:
        return False
    if not identity:
        rows = idx + start
        if T_gather == 0:               # each histogram thread reads its rows' g and h
            gg = g
            hh = h
            by_row = True
        else:
            if tid < T_gather:
                i0 = (tid * m) // T_gather
                i1 = ((tid + 1) * m) // T_gather
                for i in range(i0, i1):
                    if i + HIST_AHEAD < m:
                        RC_PREFETCH(&g[idx[start + i + HIST_AHEAD]])
                        if not unit_h:
                            RC_PREFETCH(&h[idx[start + i + HIST_AHEAD]])
                    og[i] = g[idx[start + i]]
                    if not unit_h:
                        oh[i] = h[idx[start + i]]
            if T_gather > 1:
                rc_barrier()
            gg = og
            hh = oh
    if tid < T:
        _node_blocks(codes, n_cols, col_base, column_share(n_cols, col_work, tid, T),
                     column_share(n_cols, col_work, tid + 1, T), rows, start, gg, hh,
                     m, unit_h, hist, by_row, totals, n_skip0, sp_ptr, sp_slot, counts == NULL, codes_t, n_rows)
    if unit_h:
        for s in range(slot_lo, slot_hi):
            hist[3 * s + 1] = hist[3 * s + 2]
    return not identity and not by_row


cdef inline bint node_histogram(const uint8_t* codes, Py_ssize_t n_cols, const Py_ssize_t* col_base,
                                const double* g, const double* h, const int32_t* idx, Py_ssize_t start,
                                Py_ssize_t end, double* og, double* oh, double* hist, Py_ssize_t n_slots,
                                int n_threads, bint identity, bint unit_h, Py_ssize_t n_skip0=0) noexcept nogil:
    """(Σg, Σh, count) of the rows idx[start:end] per slot: ``hist`` (n_slots, 3), zeroed here.

    ``codes`` is row-major (n, n_cols); column j's code c counts in slot
    col_base[j] + c.  Unless ``identity`` (idx[start:end] = start..end-1, the
    root without sampling) the node's g and h are first gathered into og, oh
    (a copy: parallel over rows from HIST_PARALLEL_ROWS on) -- except when
    the histogram runs on several threads and the gather would not: then
    each thread reads g[r], h[r] itself (a serial gather would keep the
    other threads waiting).  Then the columns are cut into one contiguous
    group per thread, and each thread walks the rows in order updating its
    group's slots from the row's cache line.  With ``unit_h`` (h all ones)
    Σh is the count, copied at the end.  Returns whether og, oh hold the
    gathered g, h.  The sums do not depend on the route.  One parallel
    region (the gather and the filling are :func:`node_histogram_part`'s
    phases).
    """
    cdef Py_ssize_t s
    cdef int T, T_gather, team, tid = 0
    for s in range(3 * n_slots):
        hist[s] = 0.0
    if end <= start:
        return False
    node_histogram_threads(end - start, n_cols, n_threads, identity, &T, &T_gather)
    team = T if T > T_gather else T_gather
    if team <= 1:
        node_histogram_part(codes, n_cols, col_base, g, h, idx, start, end, og, oh, hist, 0, 0, 0, T, T_gather,
                            identity, unit_h, NULL, n_skip0)
    else:
        with parallel(num_threads=team):
            tid = threadid()
            node_histogram_part(codes, n_cols, col_base, g, h, idx, start, end, og, oh, hist, 0, 0, tid, T,
                                T_gather, identity, unit_h, NULL, n_skip0)
    if unit_h:
        for s in range(n_slots):
            hist[3 * s + 1] = hist[3 * s + 2]
    return T_gather > 0             # (what node_histogram_part returns)
