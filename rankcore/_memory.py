"""The memory this process may use: the machine's, bounded by its container's limit and by ``ulimit -v``.

A container started with ``--memory 2g`` on a 64 GB host still reads 64 GB
of physical memory; the kernel's out-of-memory killer ends the process when
its cgroup's pages pass the limit -- no ``MemoryError``, no message.  So a
budget that sizes arrays from the memory (``KernelRanker``'s
``memory_budget``) reads the cgroup's limit too: ``memory.max`` (cgroup v2,
``"max"`` for none) or ``memory.limit_in_bytes`` (cgroup v1, a huge value
for none) in the process's own cgroup or any ancestor, the smallest winning
as the kernel enforces every level.  An address-space limit (``ulimit -v``,
``RLIMIT_AS``) bounds it as well: beyond it an allocation fails.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._argument_refusal import ArgumentRefusal
from ._cpus import CGROUP_ROOT, PROC_CGROUP, cgroup_smallest

__all__ = ["address_space_in_use", "address_space_left", "address_space_limit", "available_memory", "shown_bytes",
           "check_allocation", "cgroup_memory_limit", "meminfo_available", "physical_memory", "usable_memory"]

#: The kernel's memory counters (Linux).
_MEMINFO = "/proc/meminfo"
#: This process's memory in pages, its address space first (Linux).
_STATM = "/proc/self/statm"

#: A cgroup v1 limit at or above this many bytes is no limit (the kernel writes 2**63 rounded down to a page).
_V1_UNLIMITED = 1 << 62


def physical_memory() -> int | None:
    """The machine's physical memory in bytes, or None when it cannot be read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def address_space_limit() -> int | None:
    """The soft ``RLIMIT_AS`` (``ulimit -v``) in bytes, or None when there is none (or no ``resource`` module)."""
    try:
        import resource
    except ImportError:                     # not POSIX
        return None
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY or soft < 0 else int(soft)


def cgroup_memory_limit(root: str | os.PathLike = CGROUP_ROOT,
                        proc_cgroup: str | os.PathLike = PROC_CGROUP) -> int | None:
    """The memory limit of this process's cgroups in bytes.

    Parameters
    ----------
    root : path
        Where the cgroup hierarchies are mounted.
    proc_cgroup : path
        The file listing the process's cgroups (``hierarchy:controllers:path`` lines).

    Returns
    -------
    int or None
        The smallest limit over the process's cgroup and its ancestors (cgroup
        v2 and the v1 ``memory`` controller); None when no level sets one or
        the files cannot be read (not Linux).
    """
    return cgroup_smallest(root, proc_cgroup, "memory", lambda d: _read_limit(d / "memory.max"),
                           lambda d: _read_limit(d / "memory.limit_in_bytes"))


def _read_limit(path: Path) -> int | None:
    """A limit file's bytes; None for none (``max``, a v1 value near 2**63), an unreadable or missing file."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        value = None if text == "max" else int(text)
    except (OSError, ValueError):
        return None
    return value if value is not None and 0 < value < _V1_UNLIMITED else None


def usable_memory() -> int | None:
    """The bytes this process may use: the least of the physical memory, the cgroup limit and ``ulimit -v``."""
    known = [v for v in (physical_memory(), cgroup_memory_limit(), address_space_limit()) if v is not None]
    return min(known, default=None)


def meminfo_available() -> int | None:
    """The bytes of memory the kernel can give a new allocation without swapping (``MemAvailable`` of
    ``/proc/meminfo``), or None where it does not say (no such file or line: not Linux, a kernel before 3.14)."""
    try:
        with open(_MEMINFO, "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    fields = line.split()
                    return int(fields[1]) * (1024 if fields[2:3] == [b"kB"] else 1)
    except (OSError, ValueError, IndexError):
        return None
    return None


def address_space_in_use() -> int | None:
    """The bytes of address space this process holds now (``VmSize``, the first field of ``/proc/self/statm``, in
    pages), or None where it cannot be read (not Linux)."""
    try:
        with open(_STATM, "rb") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def address_space_left() -> int | None:
    """What ``ulimit -v`` leaves to new allocations: the limit less the address space already held (the
    interpreter, its libraries, the arrays read so far all count against it), or None without a limit."""
    limit = address_space_limit()
    if limit is None:
        return None
    held = address_space_in_use()
    return limit if held is None else max(limit - held, 0)


def available_memory() -> int | None:
    """The bytes a new allocation may take now: the least of :func:`meminfo_available`, the cgroup limit and
    what ``ulimit -v`` leaves (:func:`address_space_left`; a container's limit bounds what the host's counters say
    is free); None when none is known."""
    known = [v for v in (meminfo_available(), cgroup_memory_limit(), address_space_left()) if v is not None]
    return min(known, default=None)


def check_allocation(parameter: str, n_bytes: int, what: str, advice: str | None = None) -> None:
    """Refuse ``parameter`` up front when the arrays it sizes, ``n_bytes`` in all, exceed :func:`available_memory`.

    Parameters
    ----------
    parameter : str
        The size parameter named in the refusal (and its ``parameter`` field).
    n_bytes : int
        The bytes the arrays would take (a Python int: no overflow).
    what : str
        What they are, for the message ("the runs' stump tables (n_runs x (n_rounds + 1))").
    advice : str, optional
        What to change, ending the message; default ``"choose a smaller {parameter}"``.

    Raises
    ------
    ArgumentRefusal
        A ValueError naming ``parameter``.  Without it NumPy raises a bare
        ``MemoryError`` that names no parameter -- or, where the kernel
        overcommits, the allocation succeeds and the process is killed later,
        without a message.  Nothing is refused when the memory is not known.
    """
    available = available_memory()
    if available is None or n_bytes <= available:
        return
    advice = f"choose a smaller {parameter}" if advice is None else advice
    raise ArgumentRefusal.said(parameter, f"{what} would take {shown_bytes(n_bytes)}, more than the "
                                          f"{shown_bytes(available)} of memory available; {advice}")


def shown_bytes(n_bytes: int) -> str:
    """``n_bytes`` in the largest binary unit it fills (``1.5 GiB``, ``9.8 KiB``, ``512 bytes``): a refusal of
    small arrays in a small memory said in GiB would read "0.0 GiB, more than the 0.0 GiB available"."""
    for unit, power in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n_bytes >= 2**power:
            return f"{n_bytes / 2**power:,.1f} {unit}"
    return f"{int(n_bytes):,} bytes"
