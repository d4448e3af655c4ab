# The oblivious level search's gains, several candidates per vector (2, 4 or 8 doubles, chosen at run
# time): C code included by ``_oblivious_kernels.pyx``.

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Every candidate's gain of one node and feature: candidate k sends the cumulative sums
       (pg[k], ph[k], pc[k]) left, plus the NaN bin's sums (ng, nh, nc) when nan_left; out[k] is
       G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), or +0 when a side is too small.  Each lane takes the
       scalar rc_level_gain's IEEE operations in its order (no contraction: the build has
       -ffp-contract=off), so every width writes the same bits. */
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

    #define RC_LEVEL_GAINS(NAME, W, ATTR)                                                         \
    ATTR static void NAME(const double* pg, const double* ph, const double* pc, Py_ssize_t n,    \
                          int nan_left, const rc_level_args* a, double* out) {                   \
        typedef double vd __attribute__((vector_size(8 * W)));                                    \
        typedef int64_t vi __attribute__((vector_size(8 * W)));                                   \
        Py_ssize_t k = 0;                                                                         \
        vd lg, lh, lc, rg, rh, rc, gain;                                                          \
        vi ok;                                                                                    \
        for (; k + W <= n; k += W) {                                                              \
            memcpy(&lg, pg + k, sizeof(vd));                                                      \
            memcpy(&lh, ph + k, sizeof(vd));                                                      \
            memcpy(&lc, pc + k, sizeof(vd));                                                      \
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
            out[k] = rc_level_gain(pg[k], ph[k], pc[k], nan_left, a);                             \
    }

    #if defined(__GNUC__) || defined(__clang__)
    RC_LEVEL_GAINS(rc_level_gains_2, 2, )
    #else
    /* no vector extensions: the scalar loop alone */
    static void rc_level_gains_2(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int nan_left,
                                 const rc_level_args* a, double* out) {
        Py_ssize_t k;
        for (k = 0; k < n; k++)
            out[k] = rc_level_gain(pg[k], ph[k], pc[k], nan_left, a);
    }
    #endif
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define RC_LEVEL_SIMD_DISPATCH 1
    RC_LEVEL_GAINS(rc_level_gains_4, 4, __attribute__((target("avx2"))))
    RC_LEVEL_GAINS(rc_level_gains_8, 8, __attribute__((target("avx512f,avx512dq"))))
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

    static void rc_level_gains(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int nan_left,
                               const rc_level_args* a, double* out) {
    #ifdef RC_LEVEL_SIMD_DISPATCH
        if (rc_level_simd == 2) {
            rc_level_gains_8(pg, ph, pc, n, nan_left, a, out);
            return;
        }
        if (rc_level_simd == 1) {
            rc_level_gains_4(pg, ph, pc, n, nan_left, a, out);
            return;
        }
    #endif
        rc_level_gains_2(pg, ph, pc, n, nan_left, a, out);
    }
    """
    ctypedef struct rc_level_args:
        double tg, th, tc, ng, nh, nc, l2, parent, msl, mcw
    int rc_level_simd
    int rc_level_simd_supported() noexcept nogil
    void rc_level_gains(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int nan_left,
                        const rc_level_args* a, double* out) noexcept nogil
