# The counter-based hash of the randomized objectives within queries (``_yetirank_kernels.pyx``,
# ``_xendcg_kernels.pyx``): a row's draw is a function of (the evaluation's 64-bit key, the row's number), so
# it does not depend on the blocks or threads the rows are processed in.  ``_yetirank.py``'s ``_mix`` is the
# same function on NumPy arrays.  Only ``cdef inline`` functions: each kernel compiles its own copy.
from libc.stdint cimport uint64_t


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """SplitMix64's finalizer (wrapping arithmetic): a bijection of the 64-bit words that scatters every bit."""
    x = x ^ (x >> 30)
    x = x * <uint64_t> 0xBF58476D1CE4E5B9
    x = x ^ (x >> 27)
    x = x * <uint64_t> 0x94D049BB133111EB
    return x ^ (x >> 31)


cdef inline uint64_t row_bits(uint64_t key, uint64_t row) noexcept nogil:
    """The 64 random bits of row number ``row`` under ``key``: mix64(row · φ64 + key), φ64 the golden ratio's."""
    return mix64(row * <uint64_t> 0x9E3779B97F4A7C15 + key)
