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
        if not _LIMITS["active"]:
            _LIMITS["saved"] = controller.limit(limits=wanted, user_api="blas")     # restores the process's own
        _LIMITS["active"].append(wanted)
        controller.limit(limits=min(_LIMITS["active"]), user_api="blas")
    try:
        yield
    finally:
        with _LIMITS["lock"]:
            _LIMITS["active"].remove(wanted)
            if _LIMITS["active"]:
                _controller().limit(limits=min(_LIMITS["active"]), user_api="blas")
            else:
                _LIMITS["saved"].restore_original_limits()
                _LIMITS["saved"] = None
