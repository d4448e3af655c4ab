# Design
# ------
# A. The OpenMP runtime every rankcore kernel runs on, seen from Python.  This
#    module links it exactly as the kernels do (same compiler and link flags:
#    the system's libgomp on Linux, or the copy a wheel vendors), so importing
#    it loads that runtime, and ``max_threads`` asks that runtime, the one
#    ``threadpoolctl.threadpool_limits(user_api="openmp")`` limits.  rankcore
#    leaves the runtime's settings (its wait policy among them) as the user
#    and the other libraries sharing it have them.
# B. No NumPy: ``import rankcore`` loads this module and must stay cheap.

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int rankcore_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int rankcore_max_threads(void) { return 1; }
    #endif
    """
    int _max_threads "rankcore_max_threads"() noexcept nogil


def max_threads():
    """The thread count the OpenMP runtime would give a parallel region of the calling thread.

    ``OMP_NUM_THREADS`` sets it, and so does ``threadpoolctl.threadpool_limits``
    (for the thread that entered the limit); otherwise it is the number of
    CPUs the runtime saw when it loaded.  1 when built without OpenMP.

    Returns
    -------
    int
    """
    return _max_threads()
