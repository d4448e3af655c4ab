# Design
# ------
# A. Thin, GIL-free wrappers around the LAPACK/BLAS routines of the spectral
#    path (SciPy's ``cython_lapack`` / ``cython_blas``: the same OpenBLAS that
#    ``scipy.linalg`` uses, so every heavy call of a fit runs in one BLAS
#    thread pool -- mixing NumPy's and SciPy's OpenBLAS pools on two cores
#    makes their spinning threads fight).
# B. Matrices are passed as C-contiguous NumPy arrays and handed to Fortran
#    as they are.  A symmetric matrix is its own transpose, so a C buffer is
#    a valid column-major copy of it; a batch of k vectors of length m is a C
#    array of shape (k, m), i.e. the column-major m x k matrix of columns.
# C. Workspace sizes are queried (lwork = -1) and allocated here; every
#    routine reports LAPACK's ``info`` as a Python exception.
# D. 32-bit LAPACK integers: m * m must stay below 2**31 (m <= 46340).

from cython cimport boundscheck, wraparound
from scipy.linalg.cython_lapack cimport dsytrd, dormtr, dstemr, dstedc, dsterf, dlarft, dlarfb
from scipy.linalg.cython_blas cimport dgemm, dgemv

import numpy as np

cdef int _MAX_DIM = 46340


cdef int _check_dim(Py_ssize_t m, str what) except -1:
    if m > _MAX_DIM:
        raise ValueError(f"{what}: exact spectral mode supports at most {_MAX_DIM} points "
                         f"(32-bit LAPACK indices), got {m}; use the low-rank (Nystroem) mode")
    return 0


def sytrd(double[:, ::1] a):
    """Householder tridiagonalization A = Q T Q^T, in place (LAPACK ``dsytrd``).

    Parameters
    ----------
    a : ndarray of float64, shape (m, m), C-contiguous, symmetric  # IN/OUT
        Overwritten by the Householder reflectors that define Q (keep it
        for :func:`ormtr`).

    Returns
    -------
    d : ndarray, shape (m,)      diagonal of T            # OUT
    e : ndarray, shape (m - 1,)  off-diagonal of T        # OUT
    tau : ndarray, shape (m - 1,) reflector scalars       # OUT

    Notes
    -----
    (4/3) m^3 flops, half of them in the memory-bound symmetric
    matrix-vector products of the panel factorization; no extra m x m
    memory (the blocked workspace is m * 64 doubles).
    """
    cdef int n = <int>a.shape[0]
    _check_dim(a.shape[0], "sytrd")
    if a.shape[1] != n:
        raise ValueError(f"sytrd: expected a square matrix, got shape {a.shape}")
    cdef double[::1] dd = np.empty(max(n, 1))
    cdef double[::1] ee = np.empty(max(n - 1, 1))
    cdef double[::1] tau = np.empty(max(n - 1, 1))
    cdef int lda = max(n, 1), lwork = -1, info = 0
    cdef double query = 0.0
    cdef char uplo = b'L'
    if n == 0:
        return np.empty(0), np.empty(0), np.empty(0)
    dsytrd(&uplo, &n, &a[0, 0], &lda, &dd[0], &ee[0], &tau[0], &query, &lwork, &info)
    lwork = max(<int>query, 1)
    cdef double[::1] work = np.empty(lwork)
    with nogil:
        dsytrd(&uplo, &n, &a[0, 0], &lda, &dd[0], &ee[0], &tau[0], &work[0], &lwork, &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dsytrd failed with info={info}")
    return np.asarray(dd)[:n], np.asarray(ee)[:n - 1], np.asarray(tau)[:n - 1]


def ormtr(double[:, ::1] a, const double[::1] tau, double[:, ::1] c, bint transpose):
    """Apply Q (or Q^T) of :func:`sytrd` to k vectors in place (LAPACK ``dormtr``).

    Parameters
    ----------
    a : the reflectors returned in place by :func:`sytrd`, shape (m, m)   # IN (LAPACK
        touches and restores diagonal entries, so it must be writable)
    tau : shape (m - 1,)                                                  # IN
    c : ndarray of float64, shape (k, m), C-contiguous: k vectors         # IN/OUT
    transpose : apply Q^T instead of Q

    2 m^2 k flops; O(64 k) doubles of LAPACK workspace (blocks of up to 64 reflectors).

    Notes
    -----
    2 m^2 k flops (blocked: matrix-matrix products when k > 1).
    """
    cdef int m = <int>a.shape[0]
    cdef int k = <int>c.shape[0]
    if c.shape[1] != m:
        raise ValueError(f"ormtr: vectors of length {m} expected, got shape {c.shape}")
    if m <= 1 or k == 0:
        return
    cdef char side = b'L', uplo = b'L', trans = b'T' if transpose else b'N'
    cdef int lda = m, ldc = m, lwork = -1, info = 0
    cdef double query = 0.0
    dormtr(&side, &uplo, &trans, &m, &k, <double*>&a[0, 0], &lda, <double*>&tau[0],
           &c[0, 0], &ldc, &query, &lwork, &info)
    lwork = max(<int>query, 1)
    cdef double[::1] work = np.empty(lwork)
    with nogil:
        dormtr(&side, &uplo, &trans, &m, &k, <double*>&a[0, 0], &lda, <double*>&tau[0],
               &c[0, 0], &ldc, &work[0], &lwork, &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dormtr failed with info={info}")


def stemr(const double[::1] d, const double[::1] e, Py_ssize_t start=0, Py_ssize_t stop=-1):
    """Eigenpairs of a symmetric tridiagonal matrix by MRRR (LAPACK ``dstemr``).

    Parameters
    ----------
    d : shape (m,), diagonal; e : shape (m - 1,), off-diagonal          # IN
    start, stop : the eigenpairs with ascending index in [start, stop)
        (default: all of them).

    Returns
    -------
    w : ndarray, shape (stop - start,), ascending eigenvalues            # OUT
    z : ndarray, shape (stop - start, m), C-contiguous; row j is the
        eigenvector of w[j]                                             # OUT

    Notes
    -----
    O(m * (stop - start)) flops for the vectors (MRRR) plus the
    eigenvalues; (stop - start) * m doubles for the vectors, O(m) memory
    besides (copies of d and e, LAPACK's workspace).
    """
    cdef int n = <int>d.shape[0]
    _check_dim(d.shape[0], "stemr")
    if stop < 0:
        stop = n
    if not 0 <= start <= stop <= n:
        raise ValueError(f"stemr: expected 0 <= start <= stop <= {n}, got {start}, {stop}")
    cdef int want = <int>(stop - start)
    if want == 0:
        return np.empty(0), np.empty((0, n))
    cdef double[::1] dd = np.array(d, dtype=np.float64)
    cdef double[::1] ee = np.zeros(n)
    if n > 1:
        ee[:n - 1] = e[:n - 1]
    cdef double[::1] w = np.empty(n)
    cdef double[:, ::1] z = np.empty((want, n))
    cdef int[::1] isuppz = np.empty(2 * n, dtype=np.intc)
    cdef char jobz = b'V'
    cdef char rng = b'A' if want == n else b'I'
    cdef double vl = 0.0, vu = 0.0, query = 0.0
    cdef int il = <int>start + 1, iu = <int>stop, found = 0, ldz = n, nzc = want
    cdef int lwork = -1, liwork = -1, info = 0, iquery = 0
    cdef bint tryrac = 1
    dstemr(&jobz, &rng, &n, &dd[0], &ee[0], &vl, &vu, &il, &iu, &found, &w[0], &z[0, 0], &ldz,
           &nzc, &isuppz[0], &tryrac, &query, &lwork, &iquery, &liwork, &info)
    lwork = max(<int>query, 1)
    liwork = max(iquery, 1)
    cdef double[::1] work = np.empty(lwork)
    cdef int[::1] iwork = np.empty(liwork, dtype=np.intc)
    with nogil:
        dstemr(&jobz, &rng, &n, &dd[0], &ee[0], &vl, &vu, &il, &iu, &found, &w[0], &z[0, 0], &ldz,
               &nzc, &isuppz[0], &tryrac, &work[0], &lwork, &iwork[0], &liwork, &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dstemr failed with info={info}")
    if found != want:
        raise RuntimeError(f"LAPACK dstemr returned {found} eigenpairs, expected {want}")
    return np.asarray(w)[:want].copy(), np.asarray(z)


def stedc(const double[::1] d, const double[::1] e):
    """All eigenpairs of a symmetric tridiagonal matrix by divide and conquer (``dstedc``).

    Same outputs as :func:`stemr`; O(m^3) flops in the worst case (in
    matrix-matrix products, multithreaded), far less with deflation.
    O(m^2) memory: the m x m vectors and LAPACK's workspace of about m^2 doubles.
    """
    cdef int n = <int>d.shape[0]
    _check_dim(d.shape[0], "stedc")
    if n == 0:
        return np.empty(0), np.empty((0, 0))
    cdef double[::1] dd = np.array(d, dtype=np.float64)
    cdef double[::1] ee = np.zeros(max(n - 1, 1))
    if n > 1:
        ee[:n - 1] = e[:n - 1]
    cdef double[:, ::1] z = np.empty((n, n))
    cdef char compz = b'I'
    cdef int ldz = n, lwork = -1, liwork = -1, info = 0, iquery = 0
    cdef double query = 0.0
    dstedc(&compz, &n, &dd[0], &ee[0], &z[0, 0], &ldz, &query, &lwork, &iquery, &liwork, &info)
    lwork = max(<int>query, 1)
    liwork = max(iquery, 1)
    cdef double[::1] work = np.empty(lwork)
    cdef int[::1] iwork = np.empty(liwork, dtype=np.intc)
    with nogil:
        dstedc(&compz, &n, &dd[0], &ee[0], &z[0, 0], &ldz, &work[0], &lwork, &iwork[0], &liwork, &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dstedc failed with info={info}")
    return np.asarray(dd), np.asarray(z)


def sterf(const double[::1] d, const double[::1] e):
    """Eigenvalues only of a symmetric tridiagonal matrix (``dsterf``, O(m^2)), ascending.

    O(m) memory: copies of d and e (the eigenvalues overwrite the copy of d).
    """
    cdef int n = <int>d.shape[0], info = 0
    if n == 0:
        return np.empty(0)
    cdef double[::1] dd = np.array(d, dtype=np.float64)
    cdef double[::1] ee = np.zeros(max(n - 1, 1))
    if n > 1:
        ee[:n - 1] = e[:n - 1]
    with nogil:
        dsterf(&n, &dd[0], &ee[0], &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dsterf failed with info={info}")
    return np.asarray(dd)


def gemm_rows(const double[:, ::1] coef, const double[:, ::1] basis, double[:, ::1] out):
    """``out = coef @ basis`` for C-contiguous arrays, in SciPy's BLAS (``dgemm``).

    coef : (k, r)  # IN;  basis : (r, m)  # IN;  out : (k, m)  # OUT.  2 k r m flops, O(1) extra memory.
    """
    cdef int k = <int>coef.shape[0], r = <int>coef.shape[1], m = <int>basis.shape[1]
    if basis.shape[0] != r or out.shape[0] != k or out.shape[1] != m:
        raise ValueError("gemm_rows: shapes do not match")
    if k == 0 or m == 0:
        return
    if r == 0:
        out[:, :] = 0.0
        return
    cdef double one = 1.0, zero = 0.0
    cdef char nn = b'N'
    # Row-major out = coef @ basis is column-major out^T = basis^T @ coef^T.
    with nogil:
        dgemm(&nn, &nn, &m, &k, &r, &one, <double*>&basis[0, 0], &m, <double*>&coef[0, 0], &r,
              &zero, &out[0, 0], &m)


def gemv_rows(const double[:, ::1] basis, const double[::1] x):
    """``basis @ x`` for a C-contiguous (r, m) ``basis`` and x of length m (``dgemv``).

    basis : (r, m)  # IN;  x : (m,)  # IN.  Returns (r,)  # OUT.  2 r m flops, O(r) memory (the output).
    """
    cdef int r = <int>basis.shape[0], m = <int>basis.shape[1]
    if x.shape[0] != m:
        raise ValueError(f"gemv_rows: x of length {m} expected, got {x.shape[0]}")
    out_arr = np.zeros(r)
    cdef double[::1] out = out_arr
    cdef double one = 1.0, zero = 0.0
    cdef int inc = 1
    cdef char tr = b'T'
    if r == 0 or m == 0:
        return out_arr
    with nogil:
        dgemv(&tr, &m, &r, &one, <double*>&basis[0, 0], &m, <double*>&x[0], &inc, &zero, &out[0], &inc)
    return out_arr


def apply_q_blocked(double[:, ::1] a, const double[::1] tau, double[:, ::1] c, int block):
    """C <- Q C for the Q of :func:`sytrd` and k vectors, with reflector blocks of size ``block``.

    The same operation as ``ormtr(a, tau, c, False)``; LAPACK's ``dormtr``
    caps its blocks at 64 reflectors, which makes each compact-WY update a
    rank-32/64 product that streams all k vectors through memory m/32
    times.  Blocks of 128-256 reflectors (``dlarft`` + ``dlarfb``) turn the
    updates into proper matrix-matrix products.

    a : reflectors from :func:`sytrd`, (m, m)   # IN (must be writable: see ormtr)
    tau : (m - 1,)                              # IN
    c : (k, m), k vectors as rows               # IN/OUT
    2 m^2 k flops plus O(m block k) for the block triangles.
    """
    cdef int n = <int>a.shape[0]
    cdef int k = <int>c.shape[0]
    if c.shape[1] != n:
        raise ValueError(f"apply_q_blocked: vectors of length {n} expected, got shape {c.shape}")
    if block < 1:
        raise ValueError(f"apply_q_blocked: block must be >= 1, got {block}")
    if n <= 1 or k == 0:
        return
    # Q = H(1) ... H(n-1) acts on rows 2..n as the Q of a QR factorization
    # of the (n-1) x (n-1) submatrix A(2:n, 1:n-1) (column-major).
    cdef int nq = n - 1, lda = n, ldc = n, ldt = block, ldwork = k
    cdef int i, ib, mi
    cdef double* A = &a[0, 0] + 1          # A(2, 1)
    cdef double* C = &c[0, 0] + 1          # C(2, 1)
    cdef double[::1, :] T = np.empty((block, block), order="F")
    cdef double[::1, :] work = np.empty((k, block), order="F")
    cdef char fwd = b'F', col = b'C', left = b'L', notr = b'N'
    cdef int first_block = ((nq - 1) // block) * block
    with nogil:
        i = first_block
        while i >= 0:
            ib = min(block, nq - i)
            mi = nq - i
            # T of the block of reflectors i+1..i+ib (1-based), then C(i+1:nq) <- H C
            dlarft(&fwd, &col, &mi, &ib, A + i + <Py_ssize_t>i * lda, &lda, <double*>&tau[i], &T[0, 0], &ldt)
            dlarfb(&left, &notr, &fwd, &col, &mi, &k, &ib, A + i + <Py_ssize_t>i * lda, &lda, &T[0, 0], &ldt,
                   C + i, &ldc, &work[0, 0], &ldwork)
            i -= block
