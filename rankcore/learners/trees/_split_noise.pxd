# Random strength: noise on the split search's choice of feature, for the ``trees`` learner.
#
# With ``random_strength = r > 0`` a node (an oblivious level) does not take the feature whose best
# split gains most, but the one whose best gain plus noise is largest:
#
#     choose  argmax_j  best_j + r · m · z_j,    z_j ~ N(0, 1),
#
# over the features that can split (best_j above the tie threshold), m the lower median of those
# best_j (of 31 of them, evenly spaced in feature order, when more can split), then that feature's
# best split.  The noise's scale follows the gains'
# own (so r does not depend on the objective's units, and it shrinks as the fit explains the data):
# near-equal features are picked at random, a clearly best one still wins, and the trees differ more
# from each other -- the randomization CatBoost's defaults apply to their split scores.  The
# recorded gain stays the split's true gain.
#
# z_j is a deterministic function of (the tree's seed, the node's id, j) -- a splitmix64 hash whose
# top 12 bits pick one of 4,096 normal quantiles Φ⁻¹((i + ½)/4096) (``_split.split_noise``: a
# table lookup, where a Box-Muller deviate's log and cosine had cost dna-ei's 180 features a fifth
# of the fit) -- so both routes of a tree search (the in-memory grower and the multi-pass search)
# and every thread count draw the same noise.  O(1) per deviate; the median is a selection over at
# most 31 values (O(k) time to gather the k candidates' gains, k doubles of scratch).
from libc.stdint cimport uint64_t


cdef inline uint64_t noise_mix(uint64_t z) noexcept nogil:
    """splitmix64's finalizer of z + golden ratio."""
    z = z + <uint64_t> 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t noise_key(uint64_t seed, Py_ssize_t node) noexcept nogil:
    """The hash of (seed, node) that each feature's deviate is drawn from (``_split.split_noise``)."""
    return noise_mix(seed ^ noise_mix(<uint64_t> node))


cdef enum:
    MEDIAN_SAMPLE = 31


cdef inline double lower_median(double* v, Py_ssize_t k) noexcept nogil:
    """The lower median of v[:k] (k >= 1) -- of the MEDIAN_SAMPLE values v[⌊i·k/31⌋], i < 31, when
    k > 31 (a selection over a few hundred gains per node had cost a wide set 10 % of its fit) --
    by selection; reorders v."""
    cdef Py_ssize_t lo = 0, hi, target, i, j
    cdef double pivot, t
    if k > MEDIAN_SAMPLE:
        for i in range(MEDIAN_SAMPLE):          # ⌊i·k/31⌋ >= i: an in-place forward copy
            v[i] = v[(i * k) // MEDIAN_SAMPLE]
        k = MEDIAN_SAMPLE
    hi = k - 1
    target = (k - 1) // 2
    while lo < hi:
        pivot = v[lo + (hi - lo) // 2]
        i = lo
        j = hi
        while i <= j:
            while v[i] < pivot:
                i += 1
            while v[j] > pivot:
                j -= 1
            if i <= j:
                t = v[i]
                v[i] = v[j]
                v[j] = t
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return v[target]
    return v[target]
