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
# C. ``max_threads`` is the team the kernels are sure to get (``rc_sure_team``,
#    as every kernel caps its own): a larger count (``OMP_THREAD_LIMIT``,
#    ``OMP_DYNAMIC``) would be held for a fit, given to its BLAS calls,
#    reported by Dask and taken as threads started before a fork, for threads
#    that never run.

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

from rankcore._parallel cimport rc_sure_team


def max_threads():
    """The most threads a parallel region of the calling thread is sure to get from the OpenMP runtime.

    The runtime's ``omp_get_max_threads``: ``OMP_NUM_THREADS`` sets it, and
    so does ``threadpoolctl.threadpool_limits`` (for the thread that entered
    the limit); otherwise it is the number of CPUs the runtime saw when it
    loaded.  At most ``OMP_THREAD_LIMIT``; 1 with ``OMP_DYNAMIC=true`` (the
    runtime may give a region any number down to one), with
    ``OMP_MAX_ACTIVE_LEVELS=0``, inside a parallel region, and when built
    without OpenMP: each kernel caps its team the same way.

    Returns
    -------
    int
    """
    return rc_sure_team(_max_threads())


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
