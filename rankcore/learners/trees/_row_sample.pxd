# The trees' row subsample in the in-memory growers (``_grow.pyx``, ``_grow_oblivious.pyx``): row r
# (training position p = row_ids[r], or offset + r) is kept iff splitmix64(seed_shift + p) is below
# ``keep_below`` = ⌊subsample·2⁶⁴⌋ -- the multi-pass search's draw (``_row_draws.row_hash``), so it does
# not depend on the blocks.  Only ``cdef inline`` functions: each grower compiles its own copy.
from libc.stdint cimport int32_t, int64_t, uint64_t


cdef inline uint64_t splitmix_finalize(uint64_t z) noexcept nogil:
    """splitmix64's finalizer of z."""
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline Py_ssize_t sample_rows(int32_t* idx, int32_t* scratch, Py_ssize_t n, uint64_t seed_shift,
                                   uint64_t keep_below, bint sample, const int64_t* row_ids,
                                   Py_ssize_t offset) noexcept nogil:
    """idx ← kept rows (in order), then the others (in order); returns the number kept.  O(n)."""
    cdef Py_ssize_t r, m = 0, k = 0
    cdef uint64_t position
    cdef Py_ssize_t keep
    if not sample:
        for r in range(n):
            idx[r] = <int32_t> r
        return n
    # branch-free: every row is written to both lists and only the list it belongs to advances (a
    # kept/dropped branch at random mispredicts on about one row in five)
    for r in range(n):
        position = <uint64_t> (row_ids[r] if row_ids != NULL else offset + r)
        keep = splitmix_finalize(position + seed_shift) < keep_below
        idx[m] = <int32_t> r
        scratch[k] = <int32_t> r
        m += keep
        k += 1 - keep
    for r in range(k):
        idx[m + r] = scratch[r]
    return m
