# distutils: language = c++
"""One epoch of Perceptron@k / SGD@k over mini-batches, dense or CSR (docs/theory/precision_at_k.md).

Design
------
A. The whole epoch -- scoring each batch, ranking it, the surrogate or
   perceptron rule, the update -- runs in one ``nogil`` call, so per-batch
   Python overhead never dominates (a batch of 500 rows × 100 features is
   tens of microseconds of work).
B. The weight vector is ``w = wscale · v`` (as in scikit-learn's SGD): the L2
   shrink ``w <- (1 - ηα) w`` and the projection onto the ball ``‖w‖ <= R``
   only rescale ``wscale``, so a sparse batch costs O(nnz of the batch), not
   O(d).  ``‖v‖²`` is kept up to date row by row (``‖v + c x‖² = ‖v‖² +
   2c v·x + c²‖x‖²``) only when a radius is set, and recomputed exactly at the
   end of the epoch; ``v`` is folded back into ``wscale = 1`` when the scale
   gets small.
C. Only rows with a non-zero gradient coefficient are touched by the update
   (the Δ* top negatives and the penalized positives), like the hinge SGD
   touches only margin violators.
D. Batch order is the caller's ``order`` array (a permutation drawn from
   ``random_state`` in Python, or the identity for ``partial_fit``'s stream),
   so rows are never copied or reordered.
E. Scoring a batch is the only part that can use threads (``prange`` over
   rows; each row's dot product is independent); the update is sequential.
   A parallel region per batch costs more than it saves for ordinary batches
   (measured: 10⁵ × 100 dense, batches of 512, two threads on a loaded
   2-core machine were 10-50× slower than one), so threads are used only when
   ``n_threads > 1`` is asked for *and* a batch holds at least
   ``PARALLEL_WORK`` multiply-adds.
F. The dense and CSR epochs share the walk over the batches and its buffers
   (``_Batches``) and everything a batch needs after it is scored
   (``ranked_batch``: rank, skip, rule, statistics, L2 shrink); only scoring a
   batch and adding a row to ``v`` are written per representation.
G. Iterate (Polyak-Ruppert) averaging, when the state asks for it, adds the
   weights after every used batch to a running mean ``a <- a + (w - a)/m``:
   O(d) per batch, which a dense batch's O(b·d) scoring dominates; on very
   sparse, very wide data it is the one O(d) cost per batch.
H. Sparse rows are centred implicitly: with the column means μ, the score
   of a row is (x − μ)·v = x·v − μ·v (μ·v once per batch) and a step c on
   the row is c·x on its stored entries plus −(Σ c)·μ once per batch, so a
   CSR epoch computes what the dense epoch computes on explicitly centred
   rows, without densifying X.  ‖v‖² is then recomputed per batch (O(d))
   when a radius is set.

Complexity per epoch: time O(nnz(X) + Σ_batches b log b) (dense: nnz = n·d),
plus O(d) per batch with averaging or implicit centring; memory O(batch_size)
besides X and the weights.
"""

from cython.parallel cimport prange
from libc.math cimport sqrt, floor, fabs, isfinite

import numpy as np

from ._surrogates cimport (RankWorkspace, BatchInfo, SURROGATE_STRUCT, SURROGATE_RAMP,
                           SURROGATE_MAX, SURROGATE_AVG)

ctypedef fused index_t:
    int
    long long

cdef enum:
    RULE_SGD = 0
    RULE_PERCEPTRON = 1

RULES = {"sgd": RULE_SGD, "perceptron": RULE_PERCEPTRON}

# below this many multiply-adds a batch is scored on one thread
cdef Py_ssize_t PARALLEL_WORK = 1 << 18
cdef double MIN_WSCALE = 1e-9


cdef class LinearState:
    """The weights ``w = wscale · v`` and the step counter of a learner.

    Parameters
    ----------
    coef : ndarray of float64, shape (d,)
        Initial weights (copied).
    t : int
        Batches already used for updates (the step counter of η_t = η₀/√t).
    average : ndarray of float64, shape (d,), optional
        The running mean of the iterates so far (copied); None: no averaging.
    n_averaged : int
        Iterates in ``average`` (0: the first used batch replaces it).
    """

    cdef public object v_array
    cdef double[::1] v
    cdef public double wscale
    cdef public double sq_norm
    cdef public long long t
    cdef public object avg_array
    cdef double[::1] avg
    cdef public bint averaging
    cdef public long long n_averaged

    def __init__(self, coef, long long t=0, average=None, long long n_averaged=0):
        self.v_array = np.array(coef, dtype=np.float64, copy=True, order="C")
        self.v = self.v_array
        self.wscale = 1.0
        with np.errstate(over="ignore"):       # |w| beyond 1e154 (a huge eta0): inf, which the projection handles
            self.sq_norm = float(np.dot(self.v_array, self.v_array))
        self.t = t
        self.averaging = average is not None
        self.avg_array = np.array(self.v_array if average is None else average, dtype=np.float64, copy=True,
                                  order="C")
        if self.avg_array.shape != self.v_array.shape:
            raise ValueError(f"average: expected shape {self.v_array.shape}, got {self.avg_array.shape}")
        self.avg = self.avg_array
        self.n_averaged = n_averaged

    def coef(self):
        """The weights w as a new array."""
        return self.wscale * self.v_array

    def average(self):
        """The mean of the iterates after each used batch (a new array); None without averaging."""
        return np.array(self.avg_array, copy=True) if self.averaging else None

    cdef void accumulate(self) noexcept nogil:
        """a <- a + (w − a)/m after a used batch (Polyak-Ruppert averaging). O(d)."""
        cdef Py_ssize_t j
        cdef double inv
        if not self.averaging:
            return
        self.n_averaged += 1
        inv = 1.0 / <double> self.n_averaged
        for j in range(self.v.shape[0]):
            self.avg[j] += (self.wscale * self.v[j] - self.avg[j]) * inv

    cdef void fold(self) noexcept nogil:
        cdef Py_ssize_t j
        for j in range(self.v.shape[0]):
            self.v[j] *= self.wscale
        self.sq_norm *= self.wscale * self.wscale
        self.wscale = 1.0

    cdef void wipe(self) noexcept nogil:
        """w <- 0 (an L2 shrink factor 1 − ηα <= 0 leaves nothing of w)."""
        cdef Py_ssize_t j
        for j in range(self.v.shape[0]):
            self.v[j] = 0.0
        self.wscale = 1.0
        self.sq_norm = 0.0

    cdef void reset_norm(self) noexcept nogil:
        cdef Py_ssize_t j
        cdef double acc = 0.0
        for j in range(self.v.shape[0]):
            acc += self.v[j] * self.v[j]
        self.sq_norm = acc

    cdef double scaled_norm(self) noexcept nogil:
        """‖v‖ without overflow: m·‖v/m‖ with m = max|v_j| (inf or NaN when v holds them).  O(d)."""
        cdef Py_ssize_t j
        cdef double top = 0.0, acc = 0.0, t
        for j in range(self.v.shape[0]):
            t = fabs(self.v[j])
            if not isfinite(t):
                return t
            if t > top:
                top = t
        if top == 0.0:
            return 0.0
        for j in range(self.v.shape[0]):
            t = self.v[j] / top
            acc += t * t
        return top * sqrt(acc)

    cdef void shrink_and_project(self, double factor, double radius) noexcept nogil:
        """w <- factor·w (factor > 0), then the projection on ‖w‖ <= radius (radius > 0).

        ‖v‖² kept row by row overflows (inf, or NaN from inf − inf) once |v| passes 1e154, after a
        huge step (eta0 = 1e300): the norm is then taken from the scaled v, O(d), and after the
        projection v is folded and ‖v‖² recomputed, now within radius², so the ball holds w at
        every eta0.  Otherwise nothing changes (the same operations as without the check).
        """
        cdef double norm
        self.wscale *= factor
        if radius > 0.0:
            if isfinite(self.sq_norm):
                norm = self.wscale * sqrt(self.sq_norm)
            else:
                norm = self.wscale * self.scaled_norm()
            if norm > radius:
                self.wscale *= radius / norm
            if not isfinite(self.sq_norm):
                self.fold()
                self.reset_norm()
        if self.wscale < MIN_WSCALE:
            self.fold()


cdef class EpochStats:
    """Sums over the batches of one epoch (read by the Python estimator)."""

    cdef public Py_ssize_t n_batches      # batches that were used (both classes present)
    cdef public Py_ssize_t n_skipped      # batches without positives or without negatives
    cdef public Py_ssize_t n_updates      # batches that changed the weights
    cdef public double mistakes           # Σ_t Δ_t: false positives in each batch's top k
    cdef public double surrogate          # Σ_t surrogate_t / k_t (normalized)
    cdef public double loss               # Σ_t Δ_t / k_t (normalized prec@k loss)

    def __init__(self):
        self.n_batches = self.n_skipped = self.n_updates = 0
        self.mistakes = self.surrogate = self.loss = 0.0


cdef inline Py_ssize_t batch_k(Py_ssize_t k_count, double k_fraction, Py_ssize_t nb) noexcept nogil:
    """k of a batch of nb rows: the count, or max(1, round-half-up(κ·nb)); at most nb."""
    cdef Py_ssize_t k
    if k_count > 0:
        k = k_count
    else:
        k = <Py_ssize_t> floor(k_fraction * nb + 0.5)
        if k < 1:
            k = 1
    return k if k < nb else nb


def resolve_batch_k(Py_ssize_t k_count, double k_fraction, Py_ssize_t nb):
    """The k the epoch kernels use for a batch of ``nb`` rows (for tests and docs).

    ``k_count > 0``: that count; else max(1, round-half-up(κ·nb)); at most nb.
    """
    return batch_k(k_count, k_fraction, nb)


cdef inline double dense_dot(const double* x, const double* v, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t j
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    # four accumulators: lets the compiler pipeline the adds without -ffast-math
    for j in range(0, d - 3, 4):
        a0 += x[j] * v[j]
        a1 += x[j + 1] * v[j + 1]
        a2 += x[j + 2] * v[j + 2]
        a3 += x[j + 3] * v[j + 3]
    for j in range(d - d % 4, d):
        a0 += x[j] * v[j]
    return (a0 + a1) + (a2 + a3)


cdef inline void dense_add(const double* x, double* v, Py_ssize_t d, double c) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(d):
        v[j] += c * x[j]


cdef inline int choose_rule(int rule, int kind, RankWorkspace ws, Py_ssize_t k, double* grad,
                            BatchInfo* info) noexcept nogil:
    """Fill ``grad`` (count units) and ``info`` for one ranked batch."""
    if rule == RULE_SGD:
        ws.surrogate(k, kind, grad, info)
        info.mistakes = ws.mistakes(info.k)
    else:
        # the perceptron's direction, and the surrogate of its mistake bound for the record
        ws.perceptron(k, kind, grad, info)
        ws.surrogate(k, kind, NULL, info)
    return 0


cdef inline double step_size(int rule, double eta0, long long t, Py_ssize_t k) noexcept nogil:
    """Multiplier of the count-unit gradient: η_t / k for SGD, 1 for the perceptron."""
    if rule == RULE_SGD:
        return eta0 / sqrt(<double> t) / k
    return 1.0


cdef struct BatchRule:
    # what the learner does with a ranked batch (the same for every batch of an epoch)
    Py_ssize_t k_count      # k as a count (> 0), or 0: use k_fraction
    double k_fraction
    int rule                # RULE_SGD or RULE_PERCEPTRON
    int kind                # SURROGATE_*
    double eta0
    double alpha            # L2 penalty (SGD only)


cdef bint ranked_batch(const BatchRule* r, RankWorkspace ws, const double* scores,
                       const signed char* labels, Py_ssize_t nb, double* grad, LinearState state,
                       EpochStats stats, double* step) noexcept nogil:
    """Everything one scored batch needs but the update of the rows themselves.

    Ranks the batch, skips it when it lacks a class, advances the step
    counter, fills ``grad`` (count units) by the rule, records the batch in
    ``stats`` and applies the L2 shrink.  Returns True when rows must move:
    row j of the batch by ``−step[0] · grad[j]`` (in w units; rows with
    ``grad[j] == 0`` stay).  The epoch loops differ only in how they score a
    batch and how they add a row to ``v`` (dense or CSR).  O(nb log nb).
    """
    cdef BatchInfo info
    cdef double eta
    ws.rank(scores, labels, nb)
    if ws.n_pos == 0 or ws.n_neg == 0:
        stats.n_skipped += 1
        return False
    state.t += 1
    choose_rule(r.rule, r.kind, ws, batch_k(r.k_count, r.k_fraction, nb), grad, &info)
    stats.n_batches += 1
    stats.mistakes += info.mistakes
    stats.loss += info.mistakes / info.k
    stats.surrogate += info.value / info.k
    step[0] = step_size(r.rule, r.eta0, state.t, info.k)
    if r.rule == RULE_SGD and r.alpha > 0.0:
        eta = r.eta0 / sqrt(<double> state.t)
        if eta * r.alpha >= 1.0:
            state.wipe()
        else:
            state.shrink_and_project(1.0 - eta * r.alpha, 0.0)
    if r.rule == RULE_PERCEPTRON and info.mistakes <= 0.0:
        return False
    stats.n_updates += 1
    return True


cdef class _Batches:
    """One epoch's walk over ``order`` in batches, and what every batch reuses.

    Holds the batch rule, the statistics, the ranking workspace and one
    batch's scores, labels and gradient coefficients (O(batch_size) memory).
    :meth:`next` moves to the next batch (``start``, ``nb``), first adding
    the weights to the running average after a used batch; :meth:`finish`
    ends the epoch.
    """

    cdef BatchRule rule
    cdef EpochStats stats
    cdef RankWorkspace ws
    cdef LinearState state
    cdef double[::1] scores
    cdef double[::1] grad
    cdef signed char[::1] labels
    cdef Py_ssize_t n, size, start, nb, used

    def __cinit__(self, Py_ssize_t n, Py_ssize_t batch_size, Py_ssize_t k_count, double k_fraction, int rule,
                  int kind, double eta0, double alpha, LinearState state):
        self.rule = BatchRule(k_count, k_fraction, rule, kind, eta0, alpha)
        self.stats = EpochStats()
        self.ws = RankWorkspace(batch_size)
        self.state = state
        self.scores = np.empty(batch_size, dtype=np.float64)
        self.grad = np.empty(batch_size, dtype=np.float64)
        self.labels = np.empty(batch_size, dtype=np.int8)
        self.n = n
        self.size = batch_size
        self.start = self.nb = self.used = 0

    cdef bint next(self) noexcept nogil:
        """Move to the next batch; False when the epoch has no rows left."""
        if self.stats.n_batches > self.used:
            self.state.accumulate()
            self.used = self.stats.n_batches
        self.start += self.nb
        if self.start >= self.n:
            return False
        self.nb = self.size if self.start + self.size <= self.n else self.n - self.start
        return True

    cdef bint ranked(self, double* step) noexcept nogil:
        """:func:`ranked_batch` on the scored batch: True when rows must move by ``−step[0] · grad[j]``."""
        return ranked_batch(&self.rule, self.ws, &self.scores[0], &self.labels[0], self.nb, &self.grad[0],
                            self.state, self.stats, step)

    cdef void finish(self) noexcept nogil:
        self.state.fold()
        self.state.reset_norm()


def epoch_dense(const double[:, ::1] X, const signed char[::1] y, const Py_ssize_t[::1] order,
                Py_ssize_t batch_size, Py_ssize_t k_count, double k_fraction, int rule, int kind,
                double eta0, double alpha, double radius, LinearState state, int n_threads):
    """One pass over the rows ``order`` of dense ``X`` in batches; updates ``state``.

    X (n, d) # IN; y (n,) 0/1 # IN; order (m,) row indices # IN;
    state # IN/OUT (weights and step counter).  Time O(m·d + Σ b log b);
    memory O(batch_size) (a batch's scores, labels, coefficients and ranking workspace).

    Returns
    -------
    EpochStats
    """
    cdef Py_ssize_t d = X.shape[1], start, nb, j, i
    cdef double step, c, vx, xx
    cdef double* v = &state.v[0]
    cdef int threads
    cdef _Batches batches = _Batches(order.shape[0], batch_size, k_count, k_fraction, rule, kind, eta0, alpha, state)
    with nogil:
        while batches.next():
            start, nb = batches.start, batches.nb
            threads = n_threads if nb * d >= PARALLEL_WORK else 1
            for j in prange(nb, num_threads=threads, schedule="static"):
                batches.scores[j] = state.wscale * dense_dot(&X[order[start + j], 0], v, d)
                batches.labels[j] = y[order[start + j]]
            if batches.ranked(&step):
                for j in range(nb):
                    if batches.grad[j] == 0.0:
                        continue
                    i = order[start + j]
                    c = -step * batches.grad[j] / state.wscale
                    if radius > 0.0:
                        vx = dense_dot(&X[i, 0], v, d)
                        xx = dense_dot(&X[i, 0], &X[i, 0], d)
                        state.sq_norm += 2.0 * c * vx + c * c * xx
                    dense_add(&X[i, 0], v, d, c)
                if radius > 0.0:
                    state.shrink_and_project(1.0, radius)
        batches.finish()
    return batches.stats


def epoch_csr(const double[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
              const signed char[::1] y, const Py_ssize_t[::1] order,
              Py_ssize_t batch_size, Py_ssize_t k_count, double k_fraction, int rule, int kind,
              double eta0, double alpha, double radius, LinearState state, int n_threads,
              const double[::1] center=None):
    """As :func:`epoch_dense` for a CSR matrix given by its three arrays; O(nnz) per epoch, O(batch_size) memory.

    data, indices, indptr # IN (canonical CSR: no duplicate column in a row);
    y, order # IN; state # IN/OUT; center (d,) # IN, optional.

    ``center`` μ centres the rows implicitly (Design H): the epoch runs on
    x − μ without densifying X, as :func:`epoch_dense` does on explicitly
    centred rows.  Adds O(d) per batch (μ·v before scoring, one axpy of μ
    after the update); None or all zeros: the rows as stored.
    """
    cdef Py_ssize_t d = state.v.shape[0]
    cdef Py_ssize_t start, nb, j, i, p, nnz_batch
    cdef double step, c, vx, xx, acc, mv, moved
    cdef double* v = &state.v[0]
    cdef bint centred = center is not None and np.any(np.asarray(center))
    cdef const double* mu = NULL
    if centred:
        if center.shape[0] != d:
            raise ValueError(f"center: expected {d} values (one per feature), got {center.shape[0]}")
        mu = &center[0]
    cdef int threads
    cdef _Batches batches = _Batches(order.shape[0], batch_size, k_count, k_fraction, rule, kind, eta0, alpha, state)
    with nogil:
        while batches.next():
            start, nb = batches.start, batches.nb
            nnz_batch = 0
            for j in range(nb):
                i = order[start + j]
                nnz_batch += indptr[i + 1] - indptr[i]
            threads = n_threads if nnz_batch >= PARALLEL_WORK else 1
            mv = dense_dot(mu, v, d) if centred else 0.0
            for j in prange(nb, num_threads=threads, schedule="static"):
                i = order[start + j]
                acc = 0.0
                for p in range(indptr[i], indptr[i + 1]):
                    acc = acc + data[p] * v[indices[p]]
                batches.scores[j] = state.wscale * (acc - mv)
                batches.labels[j] = y[i]
            if batches.ranked(&step):
                moved = 0.0
                for j in range(nb):
                    if batches.grad[j] == 0.0:
                        continue
                    i = order[start + j]
                    c = -step * batches.grad[j] / state.wscale
                    if radius > 0.0 and not centred:
                        vx = 0.0
                        xx = 0.0
                        for p in range(indptr[i], indptr[i + 1]):
                            vx += data[p] * v[indices[p]]
                            xx += data[p] * data[p]
                        state.sq_norm += 2.0 * c * vx + c * c * xx
                    for p in range(indptr[i], indptr[i + 1]):
                        v[indices[p]] += c * data[p]
                    moved += c
                if centred:
                    # the rows were x − μ: every moved row also moved v by −c·μ, in one O(d) pass
                    if moved != 0.0:
                        dense_add(mu, v, d, -moved)
                    if radius > 0.0:
                        state.reset_norm()
                if radius > 0.0:
                    state.shrink_and_project(1.0, radius)
        batches.finish()
    return batches.stats
