# The oblivious level search's gains, several candidates per vector (2, 4 or 8 doubles, chosen at run
# time), and the walks that give them their cumulative sums: C code included by ``_oblivious_kernels.pyx``.

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Every candidate's gain of one node and feature: candidate k sends the cumulative sums
       (p[4k], p[4k+1], p[4k+2]) = (Σg, Σh, count) left, plus the NaN bin's sums (ng, nh, nc) when
       nan_left; out[k] is G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), or +0 when a side is too small.
       Each lane takes the scalar rc_level_gain's IEEE operations in its order (no contraction: the
       build has -ffp-contract=off), so every width writes the same bits.  The sums come four
       doubles a bin (p[4k+3] unused) because the walks below store them one vector a bin: three
       scalar stores a bin and node were what bound those walks. */
    typedef struct {
        double tg, th, tc, ng, nh, nc, l2, parent, msl, mcw;
    } rc_level_args;

    static inline double rc_level_gain(double lg, double lh, double lc, int nan_left, const rc_level_args* a) {
        double rg, rh, rc;
        if (nan_left) {
            lg = lg + a->ng;
            lh = lh + a->nh;
            lc = lc + a->nc;
        }
        rg = a->tg - lg;
        rh = a->th - lh;
        rc = a->tc - lc;
        if (lc < a->msl || rc < a->msl || lh < a->mcw || rh < a->mcw || lh + a->l2 <= 0.0 || rh + a->l2 <= 0.0)
            return 0.0;
        return lg * lg / (lh + a->l2) + rg * rg / (rh + a->l2) - a->parent;
    }

    /* W bins' sums as three vectors (lg, lh, lc) from the 4·W doubles at p + 4k: the shuffles of
       each width (a transpose); a compiler without shuffles gets the scalar loop below.  RC_SHUF:
       the lanes of (a, b) at the given indices (b's lanes numbered after a's); ``vi`` is the kernel's
       integer vector type, which GCC's older __builtin_shuffle takes as its mask. */
    #if defined(__has_builtin)
    #if __has_builtin(__builtin_shufflevector)
    #define RC_SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
    #endif
    #endif
    #if !defined(RC_SHUF) && defined(__GNUC__) && !defined(__clang__)
    #define RC_SHUF(a, b, ...) __builtin_shuffle(a, b, (vi){__VA_ARGS__})
    #endif
    #ifdef RC_SHUF
    #define RC_SUMS_2(p, k)                                                                       \
        do {                                                                                      \
            vd q0, q1, q2, q3;                                                                    \
            memcpy(&q0, p + 4 * k, sizeof(vd));                                                   \
            memcpy(&q1, p + 4 * k + 2, sizeof(vd));                                               \
            memcpy(&q2, p + 4 * k + 4, sizeof(vd));                                               \
            memcpy(&q3, p + 4 * k + 6, sizeof(vd));                                               \
            lg = RC_SHUF(q0, q2, 0, 2);                                                           \
            lh = RC_SHUF(q0, q2, 1, 3);                                                           \
            lc = RC_SHUF(q1, q3, 0, 2);                                                           \
        } while (0)
    #define RC_SUMS_4(p, k)                                                                       \
        do {                                                                                      \
            vd q0, q1, q2, q3, t0, t1, t2, t3;                                                    \
            memcpy(&q0, p + 4 * k, sizeof(vd));                                                   \
            memcpy(&q1, p + 4 * k + 4, sizeof(vd));                                               \
            memcpy(&q2, p + 4 * k + 8, sizeof(vd));                                               \
            memcpy(&q3, p + 4 * k + 12, sizeof(vd));                                              \
            t0 = RC_SHUF(q0, q1, 0, 4, 1, 5);        /* g0 g1 h0 h1 */                            \
            t1 = RC_SHUF(q2, q3, 0, 4, 1, 5);        /* g2 g3 h2 h3 */                            \
            t2 = RC_SHUF(q0, q1, 2, 6, 3, 7);        /* c0 c1 .  . */                             \
            t3 = RC_SHUF(q2, q3, 2, 6, 3, 7);        /* c2 c3 .  . */                             \
            lg = RC_SHUF(t0, t1, 0, 1, 4, 5);                                                     \
            lh = RC_SHUF(t0, t1, 2, 3, 6, 7);                                                     \
            lc = RC_SHUF(t2, t3, 0, 1, 4, 5);                                                     \
        } while (0)
    #define RC_SUMS_8(p, k)                                                                       \
        do {                                                                                      \
            vd q0, q1, q2, q3, t0, t1, t2, t3;                                                    \
            memcpy(&q0, p + 4 * k, sizeof(vd));                                                   \
            memcpy(&q1, p + 4 * k + 8, sizeof(vd));                                               \
            memcpy(&q2, p + 4 * k + 16, sizeof(vd));                                              \
            memcpy(&q3, p + 4 * k + 24, sizeof(vd));                                              \
            t0 = RC_SHUF(q0, q1, 0, 4, 8, 12, 1, 5, 9, 13);      /* g0-3 h0-3 */                  \
            t1 = RC_SHUF(q2, q3, 0, 4, 8, 12, 1, 5, 9, 13);      /* g4-7 h4-7 */                  \
            t2 = RC_SHUF(q0, q1, 2, 6, 10, 14, 3, 7, 11, 15);    /* c0-3 */                       \
            t3 = RC_SHUF(q2, q3, 2, 6, 10, 14, 3, 7, 11, 15);    /* c4-7 */                       \
            lg = RC_SHUF(t0, t1, 0, 1, 2, 3, 8, 9, 10, 11);                                       \
            lh = RC_SHUF(t0, t1, 4, 5, 6, 7, 12, 13, 14, 15);                                     \
            lc = RC_SHUF(t2, t3, 0, 1, 2, 3, 8, 9, 10, 11);                                       \
        } while (0)
    #endif

    #define RC_LEVEL_GAINS(NAME, W, ATTR, SUMS)                                                   \
    ATTR static void NAME(const double* p, Py_ssize_t n, int nan_left, const rc_level_args* a,    \
                          double* out) {                                                          \
        typedef double vd __attribute__((vector_size(8 * W)));                                    \
        typedef int64_t vi __attribute__((vector_size(8 * W)));                                   \
        Py_ssize_t k = 0;                                                                         \
        vd lg, lh, lc, rg, rh, rc, gain;                                                          \
        vi ok;                                                                                    \
        for (; k + W <= n; k += W) {                                                              \
            SUMS(p, k);                                                                           \
            if (nan_left) {                                                                       \
                lg = lg + a->ng;                                                                  \
                lh = lh + a->nh;                                                                  \
                lc = lc + a->nc;                                                                  \
            }                                                                                     \
            rg = a->tg - lg;                                                                      \
            rh = a->th - lh;                                                                      \
            rc = a->tc - lc;                                                                      \
            ok = ~((lc < a->msl) | (rc < a->msl) | (lh < a->mcw) | (rh < a->mcw)                  \
                   | (lh + a->l2 <= 0.0) | (rh + a->l2 <= 0.0));                                  \
            gain = lg * lg / (lh + a->l2) + rg * rg / (rh + a->l2) - a->parent;                   \
            gain = (vd)((vi)gain & ok);                                                           \
            memcpy(out + k, &gain, sizeof(vd));                                                   \
        }                                                                                         \
        for (; k < n; k++)                                                                        \
            out[k] = rc_level_gain(p[4 * k], p[4 * k + 1], p[4 * k + 2], nan_left, a);            \
    }

    #ifdef RC_SHUF
    RC_LEVEL_GAINS(rc_level_gains_2, 2, , RC_SUMS_2)
    #else
    /* no vector extensions (or no shuffles): the scalar loop alone */
    static void rc_level_gains_2(const double* p, Py_ssize_t n, int nan_left, const rc_level_args* a,
                                 double* out) {
        Py_ssize_t k;
        for (k = 0; k < n; k++)
            out[k] = rc_level_gain(p[4 * k], p[4 * k + 1], p[4 * k + 2], nan_left, a);
    }
    #endif
    #if defined(__x86_64__) && defined(RC_SHUF)
    #define RC_LEVEL_SIMD_DISPATCH 1
    RC_LEVEL_GAINS(rc_level_gains_4, 4, __attribute__((target("avx2"))), RC_SUMS_4)
    RC_LEVEL_GAINS(rc_level_gains_8, 8, __attribute__((target("avx512f,avx512dq"))), RC_SUMS_8)
    #endif

    /* 0: vectors of 2 (any target), 1: AVX2, 2: AVX-512; set once at import. */
    static int rc_level_simd = 0;

    static int rc_level_simd_supported(void) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
            return 2;
        if (__builtin_cpu_supports("avx2"))
            return 1;
    #endif
        return 0;
    }

    static void rc_level_gains(const double* p, Py_ssize_t n, int nan_left, const rc_level_args* a,
                               double* out) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        if (rc_level_simd == 2) {
            rc_level_gains_8(p, n, nan_left, a, out);
            return;
        }
        if (rc_level_simd == 1) {
            rc_level_gains_4(p, n, nan_left, a, out);
            return;
        }
    #endif
        rc_level_gains_2(p, n, nan_left, a, out);
    }

    /* The walks over one feature's bins 0..nb (x: its first slot's (Σg, Σh, count); the NaN slot,
       x + 3(nb + 1), is the caller's): p[4b..4b+2] = the sums over bins 0..b, each a chain of
       additions in bin order.  rc_prefix_sub also stores each bin's x − y in x (the larger child
       from its parent and smaller sibling, y) and sums the differences; rc_prefix_pair does that
       and sums y's bins too (into q).  The AVX2 walks keep a bin's three sums in one vector, so a
       bin costs one vector store per node where it cost three scalar ones: their lanes take the
       scalar walks' additions and subtractions in the same order (the same bits).  Their loads
       and stores of four doubles stay within the feature's slots: the fourth lane at bin b is bin
       b + 1's Σg (bin nb's: the NaN slot's), and a store of bin b < nb writes there the value bin
       b + 1's own store writes (its difference, loaded before the store); bin nb's is stored by
       lanes, so the NaN slot is left to the caller.  O(nb) time, no allocation. */
    static void rc_prefix_add_1(const double* x, Py_ssize_t nb, double* p) {
        double cg = 0.0, ch = 0.0, cc = 0.0;
        Py_ssize_t b;
        for (b = 0; b <= nb; b++) {
            cg = cg + x[3 * b];
            ch = ch + x[3 * b + 1];
            cc = cc + x[3 * b + 2];
            p[4 * b] = cg;
            p[4 * b + 1] = ch;
            p[4 * b + 2] = cc;
        }
    }

    static void rc_prefix_sub_1(double* x, const double* y, Py_ssize_t nb, double* p) {
        double cg = 0.0, ch = 0.0, cc = 0.0, dg, dh, dc;
        Py_ssize_t b;
        for (b = 0; b <= nb; b++) {
            dg = x[3 * b] - y[3 * b];
            dh = x[3 * b + 1] - y[3 * b + 1];
            dc = x[3 * b + 2] - y[3 * b + 2];
            x[3 * b] = dg;
            x[3 * b + 1] = dh;
            x[3 * b + 2] = dc;
            cg = cg + dg;
            ch = ch + dh;
            cc = cc + dc;
            p[4 * b] = cg;
            p[4 * b + 1] = ch;
            p[4 * b + 2] = cc;
        }
    }

    static void rc_prefix_pair_1(double* x, const double* y, Py_ssize_t nb, double* p, double* q) {
        /* (two nodes' chains side by side: a single node's walk waits on the adder's latency) */
        double cg = 0.0, ch = 0.0, cc = 0.0, eg = 0.0, eh = 0.0, ec = 0.0, yg, yh, yc, dg, dh, dc;
        Py_ssize_t b;
        for (b = 0; b <= nb; b++) {
            yg = y[3 * b];
            yh = y[3 * b + 1];
            yc = y[3 * b + 2];
            dg = x[3 * b] - yg;
            dh = x[3 * b + 1] - yh;
            dc = x[3 * b + 2] - yc;
            x[3 * b] = dg;
            x[3 * b + 1] = dh;
            x[3 * b + 2] = dc;
            cg = cg + dg;
            ch = ch + dh;
            cc = cc + dc;
            eg = eg + yg;
            eh = eh + yh;
            ec = ec + yc;
            p[4 * b] = cg;
            p[4 * b + 1] = ch;
            p[4 * b + 2] = cc;
            q[4 * b] = eg;
            q[4 * b + 1] = eh;
            q[4 * b + 2] = ec;
        }
    }

    #ifdef RC_LEVEL_SIMD_DISPATCH
    typedef double rc_vd4 __attribute__((vector_size(32)));

    __attribute__((target("avx2"))) static void rc_prefix_add_4(const double* x, Py_ssize_t nb, double* p) {
        rc_vd4 c = {0.0, 0.0, 0.0, 0.0}, v;
        Py_ssize_t b;
        for (b = 0; b <= nb; b++) {
            memcpy(&v, x + 3 * b, sizeof(v));
            c = c + v;
            memcpy(p + 4 * b, &c, sizeof(c));
        }
    }

    __attribute__((target("avx2"))) static void rc_prefix_sub_4(double* x, const double* y, Py_ssize_t nb,
                                                               double* p) {
        rc_vd4 c = {0.0, 0.0, 0.0, 0.0}, xv, yv, xn, yn, d;
        Py_ssize_t b;
        memcpy(&xn, x, sizeof(xn));
        memcpy(&yn, y, sizeof(yn));
        for (b = 0; b < nb; b++) {
            xv = xn;
            yv = yn;
            memcpy(&xn, x + 3 * (b + 1), sizeof(xn));   /* before the store below writes its first lane */
            memcpy(&yn, y + 3 * (b + 1), sizeof(yn));
            d = xv - yv;
            memcpy(x + 3 * b, &d, sizeof(d));
            c = c + d;
            memcpy(p + 4 * b, &c, sizeof(c));
        }
        d = xn - yn;
        x[3 * nb] = d[0];
        x[3 * nb + 1] = d[1];
        x[3 * nb + 2] = d[2];
        c = c + d;
        memcpy(p + 4 * nb, &c, sizeof(c));
    }

    __attribute__((target("avx2"))) static void rc_prefix_pair_4(double* x, const double* y, Py_ssize_t nb,
                                                                double* p, double* q) {
        rc_vd4 c = {0.0, 0.0, 0.0, 0.0}, e = {0.0, 0.0, 0.0, 0.0}, xv, yv, xn, yn, d;
        Py_ssize_t b;
        memcpy(&xn, x, sizeof(xn));
        memcpy(&yn, y, sizeof(yn));
        for (b = 0; b < nb; b++) {
            xv = xn;
            yv = yn;
            memcpy(&xn, x + 3 * (b + 1), sizeof(xn));
            memcpy(&yn, y + 3 * (b + 1), sizeof(yn));
            d = xv - yv;
            memcpy(x + 3 * b, &d, sizeof(d));
            c = c + d;
            e = e + yv;
            memcpy(p + 4 * b, &c, sizeof(c));
            memcpy(q + 4 * b, &e, sizeof(e));
        }
        d = xn - yn;
        x[3 * nb] = d[0];
        x[3 * nb + 1] = d[1];
        x[3 * nb + 2] = d[2];
        c = c + d;
        e = e + yn;
        memcpy(p + 4 * nb, &c, sizeof(c));
        memcpy(q + 4 * nb, &e, sizeof(e));
    }
    #endif

    /* Where a walk stores its sums in a scratch array of 4(nb_max + 1) + 520 doubles: at the first
       64-byte boundary from 2,816 bytes below x (the bins it loads) modulo 4,096.
       The boundary: a bin's sums are 32 bytes, stored by one vector and read back by the gains
       kernel's vectors of 32 or 64 bytes.  Left where x's alignment put them (x is 24 bytes a slot
       from the feature's first slot, so three features in four start off a 32-byte boundary), half
       the stores straddled two cache lines, and a standalone walk of two siblings over 255 bins took
       up to 1.8 times as long as from the boundary (283-485 ns against 267-268 ns).
       The distance: a load whose address agrees with an earlier store's in the low 12 bits waits
       for that store (4K aliasing).  The walks load bins 24 bytes apart and store sums 32 bytes
       apart, so the two streams' distance drifts by 8 bytes a bin, over 2,040 bytes in a walk of
       255 bins; from this start it stays clear of a multiple of 4,096 for the whole walk (with the
       last dozen stores in flight).  Left to where the stack happened to be, a walk of 255 bins
       took up to 1.6 times as long, and one thread of a fit was unlucky for the whole fit. */
    static inline double* rc_sums_start(double* scratch, const double* x) {
        size_t at = (size_t) scratch + (((size_t) x - (size_t) scratch - (size_t) 2816) & (size_t) 4095);
        return (double*) ((at + (size_t) 63) & ~(size_t) 63);
    }

    /* 1: the walks use vectors where the level does (AVX2 and up); 0: the scalar walks at every level
       (for the tests and the benchmark, which compare the two). */
    static int rc_vector_walks = 1;

    static void rc_prefix_add(const double* x, Py_ssize_t nb, double* p) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        if (rc_level_simd >= 1 && rc_vector_walks) {
            rc_prefix_add_4(x, nb, p);
            return;
        }
    #endif
        rc_prefix_add_1(x, nb, p);
    }

    static void rc_prefix_sub(double* x, const double* y, Py_ssize_t nb, double* p) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        if (rc_level_simd >= 1 && rc_vector_walks) {
            rc_prefix_sub_4(x, y, nb, p);
            return;
        }
    #endif
        rc_prefix_sub_1(x, y, nb, p);
    }

    static void rc_prefix_pair(double* x, const double* y, Py_ssize_t nb, double* p, double* q) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        if (rc_level_simd >= 1 && rc_vector_walks) {
            rc_prefix_pair_4(x, y, nb, p, q);
            return;
        }
    #endif
        rc_prefix_pair_1(x, y, nb, p, q);
    }
    """
    ctypedef struct rc_level_args:
        double tg, th, tc, ng, nh, nc, l2, parent, msl, mcw
    int rc_level_simd
    int rc_vector_walks
    int rc_level_simd_supported() noexcept nogil
    void rc_level_gains(const double* p, Py_ssize_t n, int nan_left, const rc_level_args* a,
                        double* out) noexcept nogil
    double* rc_sums_start(double* scratch, const double* x) noexcept nogil
    void rc_prefix_add(const double* x, Py_ssize_t nb, double* p) noexcept nogil
    void rc_prefix_sub(double* x, const double* y, Py_ssize_t nb, double* p) noexcept nogil
    void rc_prefix_pair(double* x, const double* y, Py_ssize_t nb, double* p, double* q) noexcept nogil
