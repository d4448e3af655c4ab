# Design
# ------
# A. The matrix-free Krylov route needs K v without K: each
#    Lanczos step recomputes the kernel, a block of rows at a time.  For the
#    Gaussian kernel the inner products of a block come from one GEMM
#    (rankcore.kernels._gram.inner_products) and the exponentials are fused
#    with the dot product against v here, so the block is read once after
#    the GEMM instead of being written by an exp pass and read again by GEMV.
# B. Rows are independent: prange over the block's rows, each a sequential
#    sum over j in a fixed order, so the result does not depend on the
#    thread count.
# C. Other kernels go through the kernel's own compiled Gram routine and a
#    GEMV (rankcore.rkhs._krylov.BlockKernelOperator).

from cython.parallel cimport prange
from libc.math cimport exp


def rbf_rows_dot(const double[:, ::1] G, const double[::1] sq_rows, const double[::1] sq_all,
                 double inv_gamma, const double[::1] v, double[::1] out, int n_threads):
    """out[i] = sum_j exp(-(sq_rows[i] + sq_all[j] - 2 G[i, j]) * inv_gamma) * v[j].

    G : (b, m) inner products of a block of rows with all rows  # IN
    sq_rows : (b,), sq_all : (m,) squared row norms             # IN
    v : (m,)                                                    # IN
    out : (b,)                                                  # OUT
    O(b m) exponentials, O(1) extra memory, parallel over rows.
    """
    cdef Py_ssize_t b = G.shape[0], m = G.shape[1], i, j
    cdef double s, d2
    if sq_rows.shape[0] != b or sq_all.shape[0] != m or v.shape[0] != m or out.shape[0] != b:
        raise ValueError(f"rbf_rows_dot: shapes do not match: G {tuple(G.shape)[:2]}, sq_rows {sq_rows.shape[0]}, "
                         f"sq_all {sq_all.shape[0]}, v {v.shape[0]}, out {out.shape[0]}")
    with nogil:
        for i in prange(b, schedule="static", num_threads=n_threads):
            s = 0.0
            for j in range(m):
                d2 = sq_rows[i] + sq_all[j] - 2.0 * G[i, j]
                if d2 < 0.0:
                    d2 = 0.0
                s = s + exp(-d2 * inv_gamma) * v[j]
            out[i] = s



def rbf_rows_exp(double[:, ::1] G, const double[::1] sq_rows, const double[::1] sq_all,
                 double inv_gamma, int n_threads):
    """G[i, j] <- exp(-(sq_rows[i] + sq_all[j] - 2 G[i, j]) * inv_gamma), in place.

    The block Krylov product (several vectors per sweep over the kernel):
    the block of kernel rows is formed once, then one GEMM multiplies it with
    all the vectors, so each exponential -- the dominant cost -- serves all
    of them.

    G : (b, m) inner products of a block of rows with all rows  # IN/OUT
    sq_rows : (b,), sq_all : (m,) squared row norms             # IN
    O(b m) exponentials, O(1) extra memory, parallel over rows (each entry
    is computed alone: the result does not depend on the thread count).
    """
    cdef Py_ssize_t b = G.shape[0], m = G.shape[1], i, j
    cdef double d2
    if sq_rows.shape[0] != b or sq_all.shape[0] != m:
        raise ValueError(f"rbf_rows_exp: shapes do not match: G {tuple(G.shape)[:2]}, sq_rows {sq_rows.shape[0]}, "
                         f"sq_all {sq_all.shape[0]}")
    with nogil:
        for i in prange(b, schedule="static", num_threads=n_threads):
            for j in range(m):
                d2 = sq_rows[i] + sq_all[j] - 2.0 * G[i, j]
                if d2 < 0.0:
                    d2 = 0.0
                G[i, j] = exp(-d2 * inv_gamma)
