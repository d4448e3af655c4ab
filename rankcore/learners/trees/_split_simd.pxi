# The split scan's gains, several candidates per vector (2, 4 or 8 doubles, chosen at run time), and
# the sibling subtraction's scan for nonzero bins: C code included by ``_split.pyx``.

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* The best gain over a feature's candidate splits, several candidates per vector.

       Candidate k sends the cumulative sums (pg[k], ph[k], pc[k]) left, plus the NaN bin's sums
       (ng, nh, nc) when it sends NaN left: every candidate (mode 0), none (mode 1), or those
       with pc[k] >= tc - pc[k] (mode 2: no NaN, which goes to the side with more rows).  Each
       lane computes _is_found's gain with the same IEEE operations (no contraction: the
       build has -ffp-contract=off), and keeps the largest allowed one: the maximum of a set
       does not depend on the order it is taken in, so every width gives the scalar loop's
       result.  The division dominates the scalar loop; vectors of 2, 4 or 8 divide that
       many at once (AVX2 and AVX-512 chosen at run time, on x86-64). */
    typedef struct {
        double tg, th, tc, ng, nh, nc, l2, parent, msl, mcw;
    } rc_gain_args;

    #define RC_BEST_GAIN(NAME, W, ATTR)                                                           \
    ATTR static double NAME(const double* pg, const double* ph, const double* pc, Py_ssize_t n,  \
                            int mode, const rc_gain_args* a, double best) {                      \
        typedef double vd __attribute__((vector_size(8 * W)));                                    \
        typedef int64_t vi __attribute__((vector_size(8 * W)));                                   \
        Py_ssize_t k = 0;                                                                         \
        int i;                                                                                    \
        vd bv = (vd){0} + best, cg, ch, cc, lg, lh, lc, rg, rh, rc, gain;                         \
        vi sel, ok;                                                                               \
        for (; k + W <= n; k += W) {                                                              \
            memcpy(&cg, pg + k, sizeof(vd));                                                      \
            memcpy(&ch, ph + k, sizeof(vd));                                                      \
            memcpy(&cc, pc + k, sizeof(vd));                                                      \
            sel = mode == 0 ? (vi){0} - 1 : mode == 1 ? (vi){0} : (cc >= a->tc - cc);            \
            lg = (vd)(((vi)(cg + a->ng) & sel) | ((vi)cg & ~sel));                                \
            lh = (vd)(((vi)(ch + a->nh) & sel) | ((vi)ch & ~sel));                                \
            lc = (vd)(((vi)(cc + a->nc) & sel) | ((vi)cc & ~sel));                                \
            rg = a->tg - lg;                                                                      \
            rh = a->th - lh;                                                                      \
            rc = a->tc - lc;                                                                      \
            ok = ~((lc < a->msl) | (rc < a->msl) | (lh < a->mcw) | (rh < a->mcw)                  \
                   | (lh + a->l2 <= 0.0) | (rh + a->l2 <= 0.0));                                  \
            gain = lg * lg / (lh + a->l2) + rg * rg / (rh + a->l2) - a->parent;                   \
            ok &= gain > bv;                                                                      \
            bv = (vd)(((vi)gain & ok) | ((vi)bv & ~ok));                                          \
        }                                                                                         \
        for (i = 0; i < W; i++)                                                                   \
            if (bv[i] > best)                                                                     \
                best = bv[i];                                                                     \
        for (; k < n; k++) {                                                                      \
            double xg = pg[k], xh = ph[k], xc = pc[k], g, gr, hr, cr;                             \
            if (mode == 0 || (mode == 2 && xc >= a->tc - xc)) {                                   \
                xg = xg + a->ng;                                                                  \
                xh = xh + a->nh;                                                                  \
                xc = xc + a->nc;                                                                  \
            }                                                                                     \
            gr = a->tg - xg;                                                                      \
            hr = a->th - xh;                                                                      \
            cr = a->tc - xc;                                                                      \
            if (xc < a->msl || cr < a->msl || xh < a->mcw || hr < a->mcw                          \
                    || xh + a->l2 <= 0.0 || hr + a->l2 <= 0.0)                                    \
                continue;                                                                         \
            g = xg * xg / (xh + a->l2) + gr * gr / (hr + a->l2) - a->parent;                      \
            if (g > best)                                                                         \
                best = g;                                                                         \
        }                                                                                         \
        return best;                                                                              \
    }

    #if defined(__GNUC__) || defined(__clang__)
    RC_BEST_GAIN(rc_best_gain_2, 2, )
    #else
    /* no vector extensions: the scalar loop (the vector bodies' tail) alone */
    static double rc_best_gain_2(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int mode,
                                 const rc_gain_args* a, double best) {
        Py_ssize_t k;
        for (k = 0; k < n; k++) {
            double xg = pg[k], xh = ph[k], xc = pc[k], g, gr, hr, cr;
            if (mode == 0 || (mode == 2 && xc >= a->tc - xc)) {
                xg = xg + a->ng;
                xh = xh + a->nh;
                xc = xc + a->nc;
            }
            gr = a->tg - xg;
            hr = a->th - xh;
            cr = a->tc - xc;
            if (xc < a->msl || cr < a->msl || xh < a->mcw || hr < a->mcw || xh + a->l2 <= 0.0 || hr + a->l2 <= 0.0)
                continue;
            g = xg * xg / (xh + a->l2) + gr * gr / (hr + a->l2) - a->parent;
            if (g > best)
                best = g;
        }
        return best;
    }
    #endif
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define RC_SIMD_DISPATCH 1
    RC_BEST_GAIN(rc_best_gain_4, 4, __attribute__((target("avx2"))))
    RC_BEST_GAIN(rc_best_gain_8, 8, __attribute__((target("avx512f,avx512dq"))))
    #endif

    /* A numeric feature's bins 0..nbins-1 that hold something (bin 0 always) into pos, in order;
       returns how many.  With sub (not NULL), its n_sub slots are first taken from fh's, in the
       same pass (the sibling subtraction: fh[s] - sub[s], the same operation at every width).
       A slot holds something unless its three values are zeros (of either sign), as
       rc_slot_nonzero.  pos has room for nbins entries (the vector bodies store whole vectors
       of positions at pos + nk, nk + 8 <= b + 8 <= nbins). */
    static Py_ssize_t rc_nonzero_bins_1(double* fh, const double* sub, Py_ssize_t nbins, Py_ssize_t n_sub,
                                        int* pos) {
        Py_ssize_t b, nk = 0;
        if (sub != NULL)
            for (b = 0; b < 3 * n_sub; b++)
                fh[b] = fh[b] - sub[b];
        for (b = 0; b < nbins; b++) {       /* branch-free: pos[nk] is kept or overwritten */
            pos[nk] = (int) b;
            nk += (b == 0) | rc_slot_nonzero(fh + 3 * b);
        }
        return nk;
    }

    #ifdef RC_SIMD_DISPATCH
    #include <immintrin.h>
    /* The tail of the vector kernels: the slots from b on (subtraction, then the scalar test). */
    static Py_ssize_t rc_nonzero_tail(double* fh, const double* sub, Py_ssize_t b, Py_ssize_t nbins,
                                      Py_ssize_t n_sub, int* pos, Py_ssize_t nk) {
        Py_ssize_t s;
        if (sub != NULL)
            for (s = 3 * b; s < 3 * n_sub; s++)
                fh[s] = fh[s] - sub[s];
        for (; b < nbins; b++) {
            pos[nk] = (int) b;
            nk += (b == 0) | rc_slot_nonzero(fh + 3 * b);
        }
        return nk;
    }

    /* 4 slots (12 doubles) per step: which doubles are zero (sign aside), then which slots. */
    __attribute__((target("avx2")))
    static Py_ssize_t rc_nonzero_bins_4(double* fh, const double* sub, Py_ssize_t nbins, Py_ssize_t n_sub,
                                        int* pos) {
        Py_ssize_t b = 0, nk = 0, q;
        const __m256i keep = _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL), zero = _mm256_setzero_si256();
        __m256d v[3];
        unsigned z, t;
        for (; b + 4 <= nbins; b += 4) {
            for (q = 0; q < 3; q++) {
                v[q] = _mm256_loadu_pd(fh + 3 * b + 4 * q);
                if (sub != NULL) {
                    v[q] = _mm256_sub_pd(v[q], _mm256_loadu_pd(sub + 3 * b + 4 * q));
                    _mm256_storeu_pd(fh + 3 * b + 4 * q, v[q]);
                }
            }
            z = 0;
            for (q = 0; q < 3; q++)
                z |= (unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(
                        _mm256_and_si256(_mm256_castpd_si256(v[q]), keep), zero))) << (4 * q);
            t = ~z & 0xFFFu;                        /* the nonzero doubles; slot i: bits 3i..3i+2 */
            t = t | (t >> 1) | (t >> 2);
            t = (t & 1u) | ((t >> 2) & 2u) | ((t >> 4) & 4u) | ((t >> 6) & 8u);
            if (b == 0)
                t |= 1u;
            for (q = 0; q < 4; q++) {
                pos[nk] = (int) (b + q);
                nk += (t >> q) & 1u;
            }
        }
        return rc_nonzero_tail(fh, sub, b, nbins, n_sub, pos, nk);
    }

    /* 8 slots (24 doubles) per step; the positions of the nonzero ones compressed into a vector. */
    __attribute__((target("avx512f,avx512dq,avx512vl,bmi2,popcnt")))
    static Py_ssize_t rc_nonzero_bins_8(double* fh, const double* sub, Py_ssize_t nbins, Py_ssize_t n_sub,
                                        int* pos) {
        Py_ssize_t b = 0, nk = 0, q;
        const __m512i keep = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFLL);
        const __m256i eight = _mm256_set1_epi32(8);
        __m256i at = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        __m512d v;
        unsigned t;
        for (; b + 8 <= nbins; b += 8) {
            t = 0;
            for (q = 0; q < 3; q++) {
                v = _mm512_loadu_pd(fh + 3 * b + 8 * q);
                if (sub != NULL) {
                    v = _mm512_sub_pd(v, _mm512_loadu_pd(sub + 3 * b + 8 * q));
                    _mm512_storeu_pd(fh + 3 * b + 8 * q, v);
                }
                t |= (unsigned) _mm512_test_epi64_mask(_mm512_castpd_si512(v), keep) << (8 * q);
            }
            t = t | (t >> 1) | (t >> 2);
            t = _pext_u32(t, 0x249249u);            /* bits 0, 3, ..., 21: one per slot */
            if (b == 0)
                t |= 1u;
            _mm256_storeu_si256((__m256i*) (pos + nk), _mm256_maskz_compress_epi32((__mmask8) t, at));
            nk += __builtin_popcount(t);
            at = _mm256_add_epi32(at, eight);
        }
        return rc_nonzero_tail(fh, sub, b, nbins, n_sub, pos, nk);
    }
    #endif

    /* 0: vectors of 2 (any target), 1: AVX2, 2: AVX-512; set once at import (rc_simd_init). */
    static int rc_simd_level = 0;

    static Py_ssize_t rc_nonzero_bins(double* fh, const double* sub, Py_ssize_t nbins, Py_ssize_t n_sub,
                                      int* pos) {
    #ifdef RC_SIMD_DISPATCH
        if (rc_simd_level == 2)
            return rc_nonzero_bins_8(fh, sub, nbins, n_sub, pos);
        if (rc_simd_level == 1)
            return rc_nonzero_bins_4(fh, sub, nbins, n_sub, pos);
    #endif
        return rc_nonzero_bins_1(fh, sub, nbins, n_sub, pos);
    }

    static int rc_simd_supported(void) {
    #ifdef RC_SIMD_DISPATCH
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2")
                && __builtin_cpu_supports("popcnt"))
            return 2;
        if (__builtin_cpu_supports("avx2"))
            return 1;
    #endif
        return 0;
    }

    static double rc_best_gain(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int mode,
                               const rc_gain_args* a, double best) {
    #ifdef RC_SIMD_DISPATCH
        if (rc_simd_level == 2)
            return rc_best_gain_8(pg, ph, pc, n, mode, a, best);
        if (rc_simd_level == 1)
            return rc_best_gain_4(pg, ph, pc, n, mode, a, best);
    #endif
        return rc_best_gain_2(pg, ph, pc, n, mode, a, best);
    }
    """
    ctypedef struct rc_gain_args:
        double tg, th, tc, ng, nh, nc, l2, parent, msl, mcw
    int rc_simd_level
    int rc_simd_supported() noexcept nogil
    double rc_best_gain(const double* pg, const double* ph, const double* pc, Py_ssize_t n, int mode,
                        const rc_gain_args* a, double best) noexcept nogil
    Py_ssize_t rc_nonzero_bins(double* fh, const double* sub, Py_ssize_t nbins, Py_ssize_t n_sub,
                               int* pos) noexcept nogil
