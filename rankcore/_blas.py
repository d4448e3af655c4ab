"""BLAS thread limits: an estimator's ``n_jobs`` bounds the BLAS threads it wakes too.

NumPy's and SciPy's OpenBLAS keep a pool of threads per library that
busy-wait for a while after every call.  A fit that asked for one thread but
made BLAS calls (the kernel ranker's solves, SGD@k's logistic start) left the
pool spinning on the other core: AutoRanker's default search on 345 rows took
0.46 s of process CPU time against 0.30 s with one BLAS thread, for the same
wall time, and on a two-core machine the spinning threads compete with a
two-thread fit's own.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

__all__ = ["blas_limit", "openmp_limit"]

_CONTROLLER: list = []
#: The BLAS limits of the fits under way in this process (see :func:`blas_limit`).
_LIMITS: dict = {"lock": threading.Lock(), "active": [], "saved": None}


def _controller():
    if not _CONTROLLER:
        import scipy.linalg  # noqa: F401  (loads SciPy's BLAS before the scan)
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def openmp_limit(threads: int) -> Any:
    """A context manager setting the OpenMP thread limit of the calling thread to ``threads``.

    A Dask worker starts its processes with ``OMP_NUM_THREADS=1``, which
    caps every fit's ``n_jobs`` (``validation.effective_n_threads``): a fit
    run whole on a worker of several threads (``rankcore.dask._placement``)
    raises the limit to them with this.  The same controller as
    :func:`blas_limit`.
    """
    return _controller().limit(limits=max(1, int(threads)), user_api="openmp")


@contextlib.contextmanager
def blas_limit(threads: int) -> Iterator[None]:
    """A context manager limiting every loaded BLAS library to ``threads`` threads.

    One ``threadpoolctl.ThreadpoolController`` serves every call: creating
    one scans the process's loaded libraries (about 5 ms with LightGBM,
    XGBoost and CatBoost loaded, several times a small fit).  SciPy's linear
    algebra is imported first, so that the scan sees its own BLAS as well as
    NumPy's.

    A BLAS library has one thread count for the whole process, so fits that
    overlap in several threads share it: the first to start saves the
    process's own setting, each start and end sets the fewest threads asked
    by the fits still running, and the last to end restores that setting.
    (Nested limits each saving and restoring what they found left the
    process at one fit's limit when two overlapped, for every later call.)
    """
    wanted = max(1, int(threads))
    with _LIMITS["lock"]:
        controller = _controller()
        with _openblas_control():
            if not _LIMITS["active"]:
                _LIMITS["saved"] = controller.limit(limits=wanted, user_api="blas")     # restores the process's own
            _LIMITS["active"].append(wanted)
            controller.limit(limits=min(_LIMITS["active"]), user_api="blas")
    try:
        yield
    finally:
        with _LIMITS["lock"], _openblas_control():
            _LIMITS["active"].remove(wanted)
            if _LIMITS["active"]:
                _controller().limit(limits=min(_LIMITS["active"]), user_api="blas")
            else:
                _LIMITS["saved"].restore_original_limits()
                _LIMITS["saved"] = None


@contextlib.contextmanager
def _openblas_control() -> Iterator[None]:
    """Let the calling thread set OpenBLAS's thread count, and give the control back when done.

    threadpoolctl (3.6 and later) lets one Python thread at a time set the
    count of an OpenBLAS built on pthreads -- the first to set it, until it
    leaves a ``with threadpool_limits(...)`` block -- and ignores the others
    silently.  :func:`blas_limit` sets limits outside such a block, so the
    first thread that used it kept the control for good: in a server whose
    requests run on a pool's threads every later limit was a no-op (scores of
    a kernel model differed in the last bits between the main thread and the
    pool, and a one-thread call woke every BLAS thread).  The holdings are
    serialized by ``_LIMITS["lock"]``, so each takes the control for its own
    setting and releases it, unless the thread holds it in a
    ``threadpool_limits`` block of its own; another thread's block is
    respected (its setting stays).
    """
    try:
        import threadpoolctl
    except ImportError:          # pragma: no cover - the controller needs it anyway
        yield
        return
    owner = getattr(threadpoolctl, "OpenBLASController", None)
    release = getattr(owner, "clear_controlling_thread", None)
    ownership = getattr(threadpoolctl, "CONTROLLING_THREAD_OWNERSHIP", None)
    try:
        yield
    finally:
        # a user's own block in this thread keeps its control (its count is this thread's)
        if release is not None and getattr(ownership, "count", 0) <= 0:
            release()
