# Small nogil helpers shared by rankcore's OpenMP kernels (cimport them):
#
#     from rankcore._parallel cimport threads_for
#     n_threads = threads_for(<double> I * K, n_threads, 65536.0)
#
# Only ``cdef inline`` functions live here, so there is no _parallel.pyx: each
# kernel compiles its own copy, and nothing is imported at run time.


cdef extern from *:
    """
    /* 1 where the kernels were compiled with OpenMP, else 0 (a compiler without it builds them serial). */
    #ifdef _OPENMP
    #include <omp.h>
    #define RC_HAVE_OPENMP 1
    #else
    #define RC_HAVE_OPENMP 0
    #endif

    /* The most threads a parallel region entered now is sure to get.  OpenMP may give a region fewer than
       its num_threads clause asks: never more than OMP_THREAD_LIMIT, one inside another region or where no
       region may be active (OMP_MAX_ACTIVE_LEVELS=0), any number down to one where OMP_DYNAMIC lets the
       runtime choose.  A kernel that splits its work by thread number would leave the missing threads'
       share undone. */
    static inline int rc_sure_team(int wanted) {
    #ifdef _OPENMP
        if (wanted <= 1 || omp_get_dynamic() || omp_in_parallel())
            return 1;
    #if _OPENMP >= 200805   /* OpenMP 3.0: thread limit and active levels (MSVC's OpenMP 2.0 has neither) */
        if (omp_get_max_active_levels() < 1)
            return 1;
        if (omp_get_thread_limit() < wanted)
            return omp_get_thread_limit() > 1 ? omp_get_thread_limit() : 1;
    #endif
        return wanted;
    #else
        (void) wanted;
        return 1;
    #endif
    }
    """
    const int RC_HAVE_OPENMP
    int rc_sure_team(int wanted) noexcept nogil


cdef inline int threads_for(double work, int n_threads, double minimum) noexcept nogil:
    """``n_threads`` when ``work`` (a count of inner-loop steps) is at least ``minimum``, else 1; always 1 in
    a build without OpenMP.

    On a loaded machine a parallel region can wait a whole scheduler time
    slice for a descheduled thread, so small calls stay serial.  Each kernel
    picks its own ``minimum`` (the work its parallel region is measured to
    pay for).  Without OpenMP a ``parallel`` region runs once, as thread 0:
    a kernel that splits its work by thread number among T > 1 threads would
    do only thread 0's share, so every team is one thread there.  For the
    same reason the count is never more than a region is sure to get
    (``rc_sure_team``): one where ``OMP_DYNAMIC`` is on, inside another
    region or with ``OMP_MAX_ACTIVE_LEVELS=0``, at most ``OMP_THREAD_LIMIT``.
    """
    if not RC_HAVE_OPENMP or work < minimum:
        return 1
    return rc_sure_team(n_threads)


cdef extern from *:
    """
    /* An orphaned OpenMP barrier: every thread of the innermost enclosing parallel region waits
       there for the others (outside a region, or without OpenMP, it does nothing).  It lets one
       parallel region run several dependent phases -- about 0.4 µs per barrier on two threads,
       where each extra region's fork and join costs about 1.7 µs. */
    #if defined(_OPENMP) && defined(_MSC_VER)
    #define RC_BARRIER() __pragma(omp barrier)
    #elif defined(_OPENMP)
    #define RC_BARRIER() _Pragma("omp barrier")
    #else
    #define RC_BARRIER() ((void)0)
    #endif
    static inline void rc_barrier(void) { RC_BARRIER(); }
    """
    void rc_barrier() noexcept nogil
