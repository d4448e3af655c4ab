"""The CPUs this process may use (its affinity mask, bounded by its container's CPU quota), and how many are idle.

A container started with ``--cpus 1`` on a many-core host still sees every
core in its affinity mask, but the kernel gives its threads one CPU's worth of
time per scheduling period: a parallel region on more threads than that waits
for descheduled threads.  The quota is the cgroup's ``cpu.max`` (cgroup v2:
``"<quota> <period>"`` or ``"max <period>"``) or ``cpu.cfs_quota_us`` over
``cpu.cfs_period_us`` (cgroup v1, ``-1`` for none), in the process's own
cgroup or any ancestor (the smallest wins, as the kernel enforces every level).

Idle CPUs: an OpenMP thread that waits for another spins for a while before
it sleeps (GNU libgomp's default, which LightGBM's kernels share with ours).
On a machine whose cores other processes keep busy, a parallel region then
waits for descheduled threads while its own spinning threads take their
time: two-thread fits ran 10 to 35 times as long as one thread.  So every
thread count (``validation.effective_n_threads``) leaves out the CPUs that
other processes' runnable threads occupy when a fit starts (:func:`idle_cpus`), and the
boosting loop lowers it again before each iteration (``validation.hold_idle_threads``).

Fits on threads of one process (a ``ThreadPoolExecutor``, joblib's threading
backend under ``GridSearchCV``) do not see each other in the host's load: their
threads are this process's own, which :func:`other_running_threads` leaves
out.  So each boosting fit records the threads it takes (:func:`hold_threads`,
released when its ``fit`` returns or raises), and the others leave those CPUs
to it (:func:`threads_held_by_other_fits`).  A forked child keeps the forking thread's holding only.
"""

from __future__ import annotations

import functools
import math
import os
import threading
import time
from pathlib import Path
from typing import Callable

__all__ = ["available_cpus", "cgroup_cpu_quota", "cgroup_smallest", "forked_after_threads", "hold_threads", "idle_cpus",
           "note_threads_started", "other_running_threads", "process_cpu_quota", "release_threads",
           "threads_held_by_other_fits", "threads_held_here"]

#: Where the cgroup hierarchies are mounted, and the file naming this process's cgroups.
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"
#: The host's load: its fourth field is "runnable threads/all threads", the caller included.
PROC_LOADAVG = "/proc/loadavg"
#: One directory per thread of this process, each with a ``stat`` file giving the thread's state.
PROC_SELF_TASKS = "/proc/self/task"
#: Whether :func:`idle_cpus` reads the host's load (tests that count a fit's threads on a shared machine turn it off).
LOAD_AWARE = True
#: How long one reading of the host's load serves :func:`idle_cpus` (a prediction on a few rows asks each call).
IDLE_SAMPLE_SECONDS = 0.1
#: A reading that sees other runnable threads is taken again this many times in all, a millisecond apart, and the
#: fewest count: a Dask scheduler or client dispatching the very task that asks is busy for a moment, not a load.
IDLE_SAMPLES = 5
_idle_sample: list = [-math.inf, None]          # [monotonic time of the reading, its value]

# Fork after threads: GNU libgomp keeps its thread pool across a fork as memory only, and the child's next
# parallel region of more than one thread waits for pool threads that no longer exist -- forever
# (multiprocessing.Pool's default start method on Linux). A child forked after this process ran kernels on
# threads therefore runs them on one (:func:`forked_after_threads`), and says so once.
_threads: dict = {"started": False, "forked": False, "warned": False}

#: The threads each running fit of this process holds, by the identifier of the Python thread that runs it.
_held: dict = {}


def hold_threads(n_threads: int) -> None:
    """Record that the fit running on the calling thread takes ``n_threads`` CPUs (until :func:`release_threads`)."""
    _held[threading.get_ident()] = int(n_threads)


def threads_held_here() -> int | None:
    """The threads the fit running on the calling thread holds, or None when it holds none."""
    return _held.get(threading.get_ident())


def release_threads(outer: int | None = None) -> None:
    """End the calling thread's holding: its fit has ended (a thread pool's thread may run another later).

    ``outer``: what the thread held when that fit began (:func:`threads_held_here`): a fit run inside another
    fit's callback on the same thread gives the outer fit its holding back rather than dropping it.
    """
    if outer is None:
        _held.pop(threading.get_ident(), None)
    else:
        _held[threading.get_ident()] = int(outer)


def threads_held_by_other_fits() -> int:
    """The threads that fits running on this process's other Python threads hold right now."""
    me = threading.get_ident()
    return sum(n for ident, n in _held.copy().items() if ident != me)      # one atomic copy: others write


def note_threads_started() -> None:
    """Record that this process runs kernels on more than one thread (so a forked child must not)."""
    _threads["started"] = True


def _after_fork_in_child() -> None:
    _threads["forked"] = _threads["forked"] or _threads["started"]
    # Only the forking thread lives on in the child: the fits of the parent's other threads will never end
    # here to release their holdings, which would keep every fit of the child off those CPUs.
    mine = _held.get(threading.get_ident())
    _held.clear()
    if mine is not None:
        _held[threading.get_ident()] = mine


os.register_at_fork(after_in_child=_after_fork_in_child)


def forked_after_threads() -> bool:
    """Whether this process was forked from one that had run kernels on threads (warns the first time)."""
    if not _threads["forked"]:
        return False
    if not _threads["warned"]:
        import warnings

        _threads["warned"] = True
        warnings.warn("rankcore: this process was forked after rankcore ran threads, which OpenMP cannot use "
                      "after a fork: its kernels run on one thread here; start workers with the 'spawn' or "
                      "'forkserver' method to use every core", RuntimeWarning, stacklevel=3)
    return True


def available_cpus() -> int:
    """The number of CPUs this process may use.

    The CPUs of its affinity mask (``os.sched_getaffinity``, read at every
    call since ``taskset`` may change it; ``os.cpu_count`` where it does not
    exist), at most the container's CPU quota rounded up
    (:func:`process_cpu_quota`).  At least 1.

    Returns
    -------
    int
    """
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - macOS and Windows have no affinity mask in os
        cpus = os.cpu_count() or 1
    quota = process_cpu_quota()
    if quota is not None:
        cpus = min(cpus, math.ceil(quota))
    return max(1, cpus)


def idle_cpus() -> int | None:
    """The host's CPUs that no other process's runnable thread occupies right now, or None where unknown.

    The host's CPU count (``os.cpu_count``) minus :func:`other_running_threads`,
    at least 0, read when a fit starts and reused for
    :data:`IDLE_SAMPLE_SECONDS`: the fewest of up to :data:`IDLE_SAMPLES`
    readings a millisecond apart, so that a burst of a few milliseconds (the
    scheduler that sent the task) is not taken for a load, while a steady one
    (another fit, a build, a test run) is seen.  Other containers on the same host count
    as well: the kernel reports one count for the whole host.

    Returns
    -------
    int or None
        None when the host's load cannot be read (not Linux), or when
        :data:`LOAD_AWARE` is False.
    """
    if not LOAD_AWARE:
        return None
    now = time.monotonic()
    if now - _idle_sample[0] < IDLE_SAMPLE_SECONDS:
        return _idle_sample[1]
    others = other_running_threads()
    for _ in range(IDLE_SAMPLES - 1):
        if not others:                      # quiet (or unknown): one reading is enough
            break
        time.sleep(0.001)
        again = other_running_threads()
        others = others if again is None else min(others, again)
    idle = None if others is None else max(0, (os.cpu_count() or 1) - others)
    _idle_sample[:] = [time.monotonic(), idle]
    return idle


def other_running_threads(loadavg: str | os.PathLike = PROC_LOADAVG,
                          tasks: str | os.PathLike = PROC_SELF_TASKS) -> int | None:
    """How many runnable threads of other processes the host has right now.

    The host's runnable threads (``/proc/loadavg``) minus this process's own
    runnable threads (their state in ``/proc/self/task/*/stat``): the calling
    thread, and an OpenMP thread still spinning after the last parallel
    region, are not another process's load.  About 0.1 ms.

    Parameters
    ----------
    loadavg : path
        The host's load file.
    tasks : path
        The directory of this process's threads.

    Returns
    -------
    int or None
        None when either cannot be read or parsed.
    """
    try:
        running = int(Path(loadavg).read_text(encoding="utf-8", errors="replace").split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    own = 0
    try:
        names = os.listdir(tasks)
    except OSError:
        return None
    for name in names:
        try:
            stat = (Path(tasks) / name / "stat").read_text(encoding="utf-8", errors="replace")
        except OSError:            # the thread ended since the listing
            continue
        # "pid (comm) S ...": the name may hold spaces and parentheses, the state follows the last ")"
        fields = stat.rpartition(")")[2].split()
        own += bool(fields) and fields[0] == "R"
    return max(0, running - own)


@functools.lru_cache(maxsize=1)
def process_cpu_quota() -> float | None:
    """:func:`cgroup_cpu_quota` of this process, read once.

    Reading a cgroup file costs about 0.1 ms on some kernels, and every fit
    asks; a container's quota is set when it starts.
    """
    return cgroup_cpu_quota(CGROUP_ROOT, PROC_CGROUP)


def cgroup_cpu_quota(root: str | os.PathLike = CGROUP_ROOT,
                     proc_cgroup: str | os.PathLike = PROC_CGROUP) -> float | None:
    """The CPU quota of this process's cgroups, in CPUs (1.5 = one and a half CPUs' time).

    Parameters
    ----------
    root : path
        Where the cgroup hierarchies are mounted.
    proc_cgroup : path
        The file listing the process's cgroups (``hierarchy:controllers:path`` lines).

    Returns
    -------
    float or None
        The smallest quota over the process's cgroup and its ancestors (cgroup v2
        and the v1 ``cpu`` controller); None when no level sets one or the
        files cannot be read (not Linux).
    """
    return cgroup_smallest(root, proc_cgroup, "cpu", _v2_quota, _v1_quota)


def cgroup_smallest(root: str | os.PathLike, proc_cgroup: str | os.PathLike, controller: str,
                    read_v2: Callable[[Path], float | None], read_v1: Callable[[Path], float | None]) -> float | None:
    """The smallest value a controller's limit files give over this process's cgroups and their ancestors.

    ``read_v2`` reads a cgroup v2 directory (every controller in one
    hierarchy), ``read_v1`` a directory of the v1 ``controller`` hierarchy
    (mounted under its joined name, ``cpu,cpuacct``, or its own); each
    returns None where the level sets no limit.  None when no level sets one
    or ``proc_cgroup`` cannot be read (not Linux).  The kernel enforces every
    level, so the smallest is the one that binds.
    """
    root = Path(root)
    try:
        lines = Path(proc_cgroup).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    values = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            values += [v for d in _levels(root, path) if (v := read_v2(d)) is not None]
        elif controller in controllers.split(","):
            for mount in dict.fromkeys((controllers, controller)):  # "cpu,cpuacct" or its "cpu" link
                values += [v for d in _levels(root / mount, path) if (v := read_v1(d)) is not None]
    return min(values, default=None)


def _levels(mount: Path, path: str):
    """The cgroup directory of ``path`` under ``mount``, then each parent up to ``mount`` itself.

    Inside a container the mount point is often the container's own cgroup
    while ``path`` is the host's name for it: the missing directories are
    skipped by the readers and the mount point is still read.
    """
    level = mount.joinpath(*[p for p in path.split("/") if p not in ("", ".", "..")])
    while True:
        yield level
        if level == mount:
            return
        level = level.parent


def _v2_quota(level: Path) -> float | None:
    try:
        quota, period = (level / "cpu.max").read_text(encoding="utf-8", errors="replace").split()
        return int(quota) / int(period) if quota != "max" and int(period) > 0 and int(quota) > 0 else None
    except (OSError, ValueError):
        return None


def _v1_quota(level: Path) -> float | None:
    try:
        quota = int((level / "cpu.cfs_quota_us").read_text(encoding="utf-8", errors="replace"))
        period = int((level / "cpu.cfs_period_us").read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 and period > 0 else None
