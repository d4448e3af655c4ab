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

from rankcore._parallel cimport threads_for
from ._blocking cimport TILE, CHUNK


cdef class PairSum:
    """A per-output sum over the other side's entries, tile by tile (subclass in Cython)."""

    cdef void tile(self, Py_ssize_t o, Py_ssize_t j0, Py_ssize_t j1) noexcept nogil:
        pass


cdef inline void _reset(PairSum kernel, Py_ssize_t o) noexcept nogil:
    if kernel.out0 != NULL:
        kernel.out0[o] = 0.0
    if kernel.out1 != NULL:
        kernel.out1[o] = 0.0
    if kernel.out2 != NULL:
        kernel.out2[o] = 0.0


cdef void run_tiled(PairSum kernel, Py_ssize_t n_outputs, Py_ssize_t n_other, int n_threads) noexcept nogil:
    """Every output's sum over the whole other side: zeroed, then the tiles in order.  See the module docs."""
    cdef Py_ssize_t n_chunks = (n_outputs + CHUNK - 1) // CHUNK
    cdef Py_ssize_t c, t, o, o_end, j0
    for c in prange(n_chunks, schedule="dynamic", num_threads=n_threads):
        o_end = min((c + 1) * CHUNK, n_outputs)
        for o in range(c * CHUNK, o_end):
            _reset(kernel, o)
        for t in range((n_other + TILE - 1) // TILE):
            j0 = t * TILE
            for o in range(c * CHUNK, o_end):
                kernel.tile(o, j0, min(j0 + TILE, n_other))


cdef void run_pairs(PairSum kernel, Py_ssize_t n_outputs, Py_ssize_t n_other, int n_threads, double min_work):
    """``run_tiled`` without the GIL, on ``n_threads`` only when the O(I·K) work reaches ``min_work`` pairs."""
    n_threads = threads_for(<double> n_outputs * n_other, n_threads, min_work)
    with nogil:
        run_tiled(kernel, n_outputs, n_other, n_threads)
