"""The tiled pair-sum skeleton, written once for every exact pairwise kernel (see ``_tiling.pxd``).

Design
------
A. One thread owns each output: ``prange`` runs over chunks of CHUNK outputs
   (dynamic schedule), and an output's sum is accumulated in the same order
   whatever the thread count -- tile after tile, and inside a tile in the
   kernel's own order.
B. The other side is visited in tiles of TILE doubles (16 KiB, L1-resident):
   a chunk of outputs reads each tile from cache instead of memory.
C. The kernel's contribution is a virtual ``tile`` call per (output, tile):
   one call per TILE pairs, so the indirection costs nothing measurable
   against the pairs' arithmetic, and a new kernel writes no loop at all.

Time O(n_outputs · n_other) calls of the kernel's pair arithmetic; memory
O(1) beyond the kernel's outputs.
"""

from cython.parallel cimport prange

from ._blocking cimport TILE, CHUNK


cdef class PairSum:
    """A per-output sum over the other side's entries, tile by tile (subclass in Cython)."""

    cdef void reset(self, Py_ssize_t o) noexcept nogil:
        pass

    cdef void tile(self, Py_ssize_t o, Py_ssize_t j0, Py_ssize_t j1) noexcept nogil:
        pass


cdef void run_tiled(PairSum kernel, Py_ssize_t n_outputs, Py_ssize_t n_other, int n_threads) noexcept nogil:
    """Every output's sum over the whole other side: reset, then the tiles in order.  See the module docs."""
    cdef Py_ssize_t n_chunks = (n_outputs + CHUNK - 1) // CHUNK
    cdef Py_ssize_t c, t, o, o_end, j0
    for c in prange(n_chunks, schedule="dynamic", num_threads=n_threads):
        o_end = min((c + 1) * CHUNK, n_outputs)
        for o in range(c * CHUNK, o_end):
            kernel.reset(o)
        for t in range((n_other + TILE - 1) // TILE):
            j0 = t * TILE
            for o in range(c * CHUNK, o_end):
                kernel.tile(o, j0, min(j0 + TILE, n_other))
