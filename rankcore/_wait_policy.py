"""Load rankcore's OpenMP runtime with waiting threads that sleep rather than spin.

Between and at the end of parallel regions an OpenMP thread with nothing to
do waits for the others.  GNU libgomp's default is to spin for a while first
(about 300,000 polls) and only then sleep.  On a quiet machine that saves a
wake-up; on a machine whose cores other processes keep busy, the spinning
threads take the scheduler's time from the threads that have work, and each
small region waits for a descheduled thread: with two busy processes on two
cores, a trees fit on 208 rows takes 20 to 35 times as long on two threads as
on one.  With the passive policy a waiting thread sleeps at once, and the same
fit takes at most 1.5 times as long as on one thread.

The runtime reads ``OMP_WAIT_POLICY`` once, when it is loaded, and never
again, so the policy is set at ``import rankcore``, before any kernel loads:
the variable is set only while :mod:`rankcore._openmp` (linked like every
kernel) is imported, then removed again, so child processes and libraries
with an OpenMP runtime of their own keep their defaults.  A user who set
``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT`` or ``KMP_BLOCKTIME`` keeps that
choice.  A library that shares the same runtime and loaded it before rankcore
(LightGBM links the system's libgomp, for instance) leaves the runtime's
policy as it found it.
"""

from __future__ import annotations

import importlib
import os

__all__ = ["load_openmp_runtime", "USER_SETTINGS"]

#: Variables by which a user chooses how OpenMP threads wait (libgomp, LLVM's libomp).
USER_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def load_openmp_runtime() -> None:
    """Import :mod:`rankcore._openmp`, loading the OpenMP runtime with the passive wait policy.

    Unless the user set one of ``USER_SETTINGS``: then the runtime loads
    with the user's setting.  The environment is the same afterwards.
    """
    if any(name in os.environ for name in USER_SETTINGS):
        importlib.import_module("rankcore._openmp")
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        importlib.import_module("rankcore._openmp")
    finally:
        del os.environ["OMP_WAIT_POLICY"]
