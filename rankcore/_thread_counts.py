"""How many threads a call runs on: the user's ``n_jobs`` read against the CPUs this process may use and those
idle now.

The counts are read here, in one place, so that every kernel's caller agrees: a parallel region on a machine
busy with other work waits for descheduled threads, and OpenMP's threads spin while they wait.
"""

from __future__ import annotations

import numbers
from typing import Any

from . import _cpus, _openmp
from ._argument_refusal import ArgumentRefusal

__all__ = ["effective_n_threads", "threads_for_work", "idle_thread_count", "hold_idle_threads"]


def effective_n_threads(n_jobs: Any, *, name: str = "n_jobs") -> int:
    """Number of threads for ``n_jobs``.

    ``None`` and ``-1`` mean every CPU the process may use (as LightGBM does:
    the kernels release the GIL and scale): the CPUs of its affinity mask,
    at most its container's CPU quota (``rankcore._cpus.available_cpus``); a
    positive integer is taken as is, capped at that number; ``-2`` means all
    but one, and so on.  Every count is also capped by the OpenMP runtime's
    limit for the calling thread: ``OMP_NUM_THREADS`` or a
    ``threadpoolctl.threadpool_limits`` the call runs under.

    Every count also leaves out the CPUs that other processes keep busy when
    the call is made (``rankcore._cpus.idle_cpus``), down to one thread:
    OpenMP threads spin while they wait, and a parallel region on a machine
    busy with other work waits for descheduled threads (two threads have run
    10 to 35 times as long as one there).  The results do not depend on the
    thread count.

    In a process forked after this one ran threads, one thread: OpenMP cannot
    start threads there (``rankcore._cpus.forked_after_threads``).
    """
    _check_n_jobs(n_jobs, name)
    if _cpus.forked_after_threads():
        return 1
    cpus = _cpus.available_cpus()
    if n_jobs is None:
        wanted = cpus
    elif n_jobs > 0:
        wanted = min(int(n_jobs), cpus)
    else:
        wanted = max(1, cpus + 1 + int(n_jobs))
    if wanted > 1:
        idle = _cpus.idle_cpus()
        if idle is not None:
            wanted = max(1, min(wanted, idle))
    threads = max(1, min(wanted, _openmp.max_threads()))
    if threads > 1:
        _cpus.note_threads_started()
    return threads


def threads_for_work(n_jobs: Any, work: float, minimum: float, *, name: str = "n_jobs") -> int:
    """:func:`effective_n_threads` of ``n_jobs`` for a call of ``work`` steps, 1 when ``work`` is below ``minimum``.

    A prediction of a few rows runs on one thread in every kernel; reading the host's load for it (up to
    ``_cpus.IDLE_SAMPLES`` readings a millisecond apart, when the last one is older than
    ``_cpus.IDLE_SAMPLE_SECONDS``) made a one-row request of a scoring service wait milliseconds.  ``n_jobs`` is
    checked either way.  The results do not depend on the count.
    """
    _check_n_jobs(n_jobs, name)
    return effective_n_threads(n_jobs, name=name) if work >= minimum else 1


def _check_n_jobs(n_jobs: Any, name: str) -> None:
    if isinstance(n_jobs, bool) or (n_jobs is not None and (not isinstance(n_jobs, numbers.Integral) or n_jobs == 0)):
        raise ArgumentRefusal.said(
            name, f"expected None, a positive integer or a negative integer (-1 = all cores), got {n_jobs!r}")


def idle_thread_count(n_threads: int) -> int:
    """``n_threads`` (a fit's count from :func:`effective_n_threads`), lowered to the CPUs idle now; asking changes
    nothing (:func:`hold_idle_threads` asks and holds).

    A fit chooses its threads when it starts; a load that starts later (a
    second fit, a build) would leave them waiting in OpenMP's spins for
    descheduled ones, 5 to 13 times as long as one thread.  The count leaves
    the CPUs that fits on other threads of this process hold (which the
    host's load does not show).  Never more than ``n_threads``, and the
    results do not depend on the count.
    """
    if n_threads > 1:
        idle = _cpus.idle_cpus()
        free = _cpus.available_cpus() - _cpus.threads_held_by_other_fits()    # fits on this process's threads
        n_threads = max(1, min(n_threads, free, n_threads if idle is None else idle))
    return n_threads


def hold_idle_threads(n_threads: int) -> int:
    """:func:`idle_thread_count` of ``n_threads``, held for the calling thread's fit (``_cpus.hold_threads``) so
    that fits on this process's other threads leave those CPUs.

    The boosting loop calls it before each iteration (the reading of the
    host's load serves ``_cpus.IDLE_SAMPLE_SECONDS``); the loop's end
    releases the holding.
    """
    n_threads = idle_thread_count(n_threads)
    _cpus.hold_threads(n_threads)
    return n_threads
