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
    #define RANKCORE_BUILT_WITH_OPENMP 1
    #else
    static int rankcore_max_threads(void) { return 1; }
    #define RANKCORE_BUILT_WITH_OPENMP 0
    #endif
    """
    int _max_threads "rankcore_max_threads"() noexcept nogil
    const int _BUILT_WITH_OPENMP "RANKCORE_BUILT_WITH_OPENMP"


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


def built_with_openmp():
    """Whether the kernels were compiled with OpenMP (this module is compiled with the same flags).

    False where the compiler had none (Apple's clang without libomp) or
    ``RANKCORE_OPENMP=0`` turned it off: every kernel then runs on one
    thread, whatever ``n_jobs`` asks.  ``rankcore --version`` says so.

    Returns
    -------
    bool
    """
    return bool(_BUILT_WITH_OPENMP)
