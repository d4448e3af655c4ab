# Blocking of the O(I·K) pairwise loops (_pairwise.pyx, _logistic.pyx).
#
# prange runs over chunks of CHUNK outputs (one thread owns each output, so
# results do not depend on the thread count); the other side's scores are
# visited in tiles of TILE doubles (16 KiB, L1-resident), so large I or K
# stream from cache instead of memory.

cdef enum:
    TILE = 2048    # scores of the other side per tile
    CHUNK = 64     # outputs per scheduling unit
