# ExactBoost's random numbers: splitmix64 to seed, xoshiro256** to draw (both
# public-domain algorithms by Vigna et al.; small and fast, with a per-run
# state).  A run's draws depend on its 64-bit seed only, so a run's stumps do
# not depend on the thread that runs it.  Inline: compiled into the runs module.

from libc.stdint cimport int32_t, uint64_t

cdef struct Rng:
    uint64_t s0, s1, s2, s3


cdef inline uint64_t _splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    r.s0 = _splitmix64(&x)
    r.s1 = _splitmix64(&x)
    r.s2 = _splitmix64(&x)
    r.s3 = _splitmix64(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result


cdef inline Py_ssize_t rng_below(Rng* r, Py_ssize_t bound) noexcept nogil:
    """Uniform integer in [0, bound), without modulo bias (rejection)."""
    cdef uint64_t b = <uint64_t>bound
    cdef uint64_t limit = (<uint64_t>0xFFFFFFFFFFFFFFFF) - ((<uint64_t>0xFFFFFFFFFFFFFFFF) % b)
    cdef uint64_t x = rng_next(r)
    while x >= limit:
        x = rng_next(r)
    return <Py_ssize_t>(x % b)


cdef inline void partial_shuffle(Rng* r, int32_t* items, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """Make items[0..k) a uniform random k-subset of items[0..n) (partial Fisher-Yates)."""
    cdef Py_ssize_t i, j
    cdef int32_t tmp
    for i in range(k):
        j = i + rng_below(r, n - i)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
