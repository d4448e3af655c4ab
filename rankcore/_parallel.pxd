# Small nogil helpers shared by rankcore's OpenMP kernels (cimport them):
#
#     from rankcore._parallel cimport threads_for
#     n_threads = threads_for(<double> I * K, n_threads, 65536.0)
#
# Only ``cdef inline`` functions live here, so there is no _parallel.pyx: each
# kernel compiles its own copy, and nothing is imported at run time.


cdef inline int threads_for(double work, int n_threads, double minimum) noexcept nogil:
    """``n_threads`` when ``work`` (a count of inner-loop steps) is at least ``minimum``, else 1.

    On a loaded machine a parallel region can wait a whole scheduler time
    slice for a descheduled thread, so small calls stay serial.  Each kernel
    picks its own ``minimum`` (the work its parallel region is measured to
    pay for).
    """
    return n_threads if work >= minimum else 1
