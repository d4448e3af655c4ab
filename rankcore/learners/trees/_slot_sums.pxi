# A root histogram's (Σg, Σh, count) read slot by slot from the rows of each slot (``slot_rows``) instead of
# scattered row by row: C code included by ``_histogram.pyx``.

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Σ(g, h, count) of the rows rows[ptr[s]:ptr[s + 1]] (ascending) of every slot s in [s_lo, s_hi), each
       sum taken in row order from +0 -- the order of the row-by-row scatter, so the same bits -- into
       hist[3s .. 3s + 2]; gh holds each row's (g, h, 1, 0), or +0s for a row not in the tree (adding +0
       to a sum that starts at +0 changes no bit: it never holds -0).  Each slot's sum is a chain of
       dependent additions: four cursors walk four runs of slots (about a quarter of the rows each) in
       lockstep, so four chains are in flight.  O(ptr[s_hi] - ptr[s_lo] + s_hi - s_lo), no allocation. */
    typedef double rc_gh2 __attribute__((vector_size(16)));   /* (Σg, Σh): SSE2 registers on any x86-64 */

    static inline rc_gh2 rc_gh_load(const double* p) {
        rc_gh2 v;
        memcpy(&v, p, sizeof(v));
        return v;
    }

    /* cursor q's slot is complete when its rows are: store it and move to the next (empty ones too);
       when its run of slots ends, live drops to 0 */
    #define RC_SLOT_NEXT(q)                                                                          \
        while (p##q == e##q) {                                                                       \
            memcpy(hist + 3 * s##q, &a##q, 2 * sizeof(double));                                     \
            hist[3 * s##q + 2] = c##q;                                                               \
            a##q = zero;                                                                             \
            c##q = 0.0;                                                                              \
            s##q++;                                                                                  \
            if (s##q == stop[q]) {                                                                   \
                live = 0;                                                                            \
                break;                                                                               \
            }                                                                                        \
            p##q = ptr[s##q];                                                                        \
            e##q = ptr[s##q + 1];                                                                    \
        }

    #define RC_SLOT_SUMS(NAME, ROW_T)                                                                            \
    static void NAME(const int64_t* ptr, const ROW_T* rows, const double* gh, Py_ssize_t s_lo,                   \
                             Py_ssize_t s_hi, double* hist) {                                                    \
        Py_ssize_t first[4], stop[4], t = s_lo, s0, s1, s2, s3, n, i, q, s, k;                                   \
        int64_t p0 = 0, p1 = 0, p2 = 0, p3 = 0, e0 = 0, e1 = 0, e2 = 0, e3 = 0;                                  \
        int64_t total = ptr[s_hi] - ptr[s_lo], target;                                                           \
        const rc_gh2 zero = {0.0, 0.0};                                                                          \
        rc_gh2 a0 = zero, a1 = zero, a2 = zero, a3 = zero, acc;                                                  \
        double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0, cnt;                                                      \
        const double* x;                                                                                         \
        int live = 1;                                                                                            \
        for (q = 0; q < 4; q++) {       /* run q: the slots from the first starting at ptr[s_lo] + q/4 of the rows */ \
            target = ptr[s_lo] + (total / 4) * q;                                                                \
            while (t < s_hi && ptr[t] < target)                                                                  \
                t++;                                                                                             \
            first[q] = t;                                                                                        \
        }                                                                                                        \
        for (q = 0; q < 4; q++) {                                                                                \
            stop[q] = q < 3 ? first[q + 1] : s_hi;                                                               \
            if (first[q] >= stop[q])                                                                             \
                live = 0;                                                                                        \
        }                                                                                                        \
        s0 = first[0]; s1 = first[1]; s2 = first[2]; s3 = first[3];                                              \
        if (live) {                                                                                              \
            p0 = ptr[s0]; e0 = ptr[s0 + 1];                                                                      \
            p1 = ptr[s1]; e1 = ptr[s1 + 1];                                                                      \
            p2 = ptr[s2]; e2 = ptr[s2 + 1];                                                                      \
            p3 = ptr[s3]; e3 = ptr[s3 + 1];                                                                      \
        }                                                                                                        \
        while (live) {                                                                                           \
            n = e0 - p0;                                                                                         \
            if (e1 - p1 < n) n = e1 - p1;                                                                        \
            if (e2 - p2 < n) n = e2 - p2;                                                                        \
            if (e3 - p3 < n) n = e3 - p3;                                                                        \
            for (i = 0; i < n; i++) {                                                                            \
                x = gh + 4 * (Py_ssize_t) rows[p0 + i];                                                          \
                a0 += rc_gh_load(x);                                                                             \
                c0 += x[2];                                                                                      \
                x = gh + 4 * (Py_ssize_t) rows[p1 + i];                                                          \
                a1 += rc_gh_load(x);                                                                             \
                c1 += x[2];                                                                                      \
                x = gh + 4 * (Py_ssize_t) rows[p2 + i];                                                          \
                a2 += rc_gh_load(x);                                                                             \
                c2 += x[2];                                                                                      \
                x = gh + 4 * (Py_ssize_t) rows[p3 + i];                                                          \
                a3 += rc_gh_load(x);                                                                             \
                c3 += x[2];                                                                                      \
            }                                                                                                    \
            p0 += n; p1 += n; p2 += n; p3 += n;                                                                  \
            RC_SLOT_NEXT(0)                                                                                      \
            RC_SLOT_NEXT(1)                                                                                      \
            RC_SLOT_NEXT(2)                                                                                      \
            RC_SLOT_NEXT(3)                                                                                      \
        }                                                                                                        \
        /* the runs not finished, one after the other, each from where its cursor stopped */                     \
        for (q = 0; q < 4; q++) {                                                                                \
            s = q == 0 ? s0 : q == 1 ? s1 : q == 2 ? s2 : s3;                                                    \
            if (s >= stop[q])                                                                                    \
                continue;                                                                                        \
            acc = q == 0 ? a0 : q == 1 ? a1 : q == 2 ? a2 : a3;                                                  \
            cnt = q == 0 ? c0 : q == 1 ? c1 : q == 2 ? c2 : c3;                                                  \
            k = q == 0 ? p0 : q == 1 ? p1 : q == 2 ? p2 : p3;                                                    \
            for (; s < stop[q]; s++) {                                                                           \
                for (i = k; i < ptr[s + 1]; i++) {                                                               \
                    x = gh + 4 * (Py_ssize_t) rows[i];                                                           \
                    acc += rc_gh_load(x);                                                                        \
                    cnt += x[2];                                                                                 \
                }                                                                                                \
                memcpy(hist + 3 * s, &acc, 2 * sizeof(double));                                                  \
                hist[3 * s + 2] = cnt;                                                                           \
                acc = zero;                                                                                      \
                cnt = 0.0;                                                                                       \
                k = ptr[s + 1];                                                                                  \
            }                                                                                                    \
        }                                                                                                        \
    }

    /* rows numbered in 16 bits (blocks of at most 65,536 rows: half the bytes to stream) or 32 */
    RC_SLOT_SUMS(rc_slot_sums_16, uint16_t)
    RC_SLOT_SUMS(rc_slot_sums_32, int32_t)

    static void rc_slot_sums(const int64_t* ptr, const void* rows, int row_bytes, const double* gh, Py_ssize_t s_lo,
                             Py_ssize_t s_hi, double* hist) {
        if (row_bytes == 2)
            rc_slot_sums_16(ptr, (const uint16_t*) rows, gh, s_lo, s_hi, hist);
        else
            rc_slot_sums_32(ptr, (const int32_t*) rows, gh, s_lo, s_hi, hist);
    }
    """
    void rc_slot_sums(const int64_t* ptr, const void* rows, int row_bytes, const double* gh, Py_ssize_t s_lo,
                      Py_ssize_t s_hi, double* hist) noexcept nogil
