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
    #define RC_HAVE_OPENMP 1
    #else
    #define RC_HAVE_OPENMP 0
    #endif
    """
    const int RC_HAVE_OPENMP


cdef inline int threads_for(double work, int n_threads, double minimum) noexcept nogil:
    """``n_threads`` when ``work`` (a count of inner-loop steps) is at least ``minimum``, else 1; always 1 in
    a build without OpenMP.

    On a loaded machine a parallel region can wait a whole scheduler time
    slice for a descheduled thread, so small calls stay serial.  Each kernel
    picks its own ``minimum`` (the work its parallel region is measured to
    pay for).  Without OpenMP a ``parallel`` region runs once, as thread 0:
    a kernel that splits its work by thread number among T > 1 threads would
    do only thread 0's share, so every team is one thread there.
    """
    if not RC_HAVE_OPENMP:
        return 1
    return n_threads if work >= minimum else 1


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
