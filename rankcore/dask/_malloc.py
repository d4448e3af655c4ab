"""Freed pages kept for reuse while a fit runs on a Dask worker (glibc's ``mallopt``).

Dask starts its worker processes with ``MALLOC_TRIM_THRESHOLD_=65536`` so
that they hand freed memory back to the system at once.  Setting it also
turns off glibc's dynamic mmap threshold: every array over 128 KiB is then
fresh pages from the kernel, zero-filled and faulted in, at each allocation.
A fit allocates such arrays at every tree (gradients, a tree's row
partition, histograms, the line search's directions), so on a worker it
spends a share of its CPU in page faults that the same code in a plain
process does not (the in-memory fit of 10⁵ × 40 rows, 50 trees: about 12 %
more CPU with that setting; see the Dask trees study).

:func:`pages_kept` raises the mmap threshold to glibc's maximum for 64-bit
processes (32 MiB) and the trim threshold with it while a fit runs, so freed
arrays return to the heap and are reused, then restores Dask's settings and
trims the heap (``malloc_trim``): the memory goes back to the system once
the fit ends, as Dask intends.  Nested or concurrent fits in one worker
restore once the last ends.  Nothing is changed outside glibc, nor in a
process started without ``MALLOC_TRIM_THRESHOLD_`` (its dynamic threshold
already reuses pages).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from contextlib import contextmanager

__all__ = ["pages_kept", "keep_pages", "release_pages"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: glibc's largest mmap threshold on 64-bit processes (``DEFAULT_MMAP_THRESHOLD_MAX``).
_MMAP_THRESHOLD_MAX = 32 << 20
#: glibc's default mmap threshold, which ``MALLOC_TRIM_THRESHOLD_`` freezes.
_MMAP_THRESHOLD_DEFAULT = 128 << 10

#: False leaves Dask's settings alone during fits (for measuring what keeping the pages saves).
KEEP_PAGES = True

_lock = threading.Lock()
_holders = 0


def _libc():
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        libc.mallopt, libc.malloc_trim        # glibc only (musl and macOS have neither)
    except (OSError, AttributeError):
        return None
    return libc


def _dask_trim_threshold() -> int | None:
    value = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    try:
        return int(value) if value else None
    except ValueError:
        return None


def keep_pages() -> bool:
    """Start keeping freed pages (a no-op without ``MALLOC_TRIM_THRESHOLD_`` or glibc); True if this changed it."""
    global _holders
    trim = _dask_trim_threshold()
    libc = _libc() if trim is not None and KEEP_PAGES else None
    if libc is None:
        return False
    with _lock:
        _holders += 1
        if _holders == 1:
            libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)
            libc.mallopt(_M_TRIM_THRESHOLD, max(trim, 2 * _MMAP_THRESHOLD_MAX))
    return True


def release_pages() -> None:
    """Undo one :func:`keep_pages` that returned True; the last one restores Dask's settings and trims."""
    global _holders
    libc = _libc()
    trim = _dask_trim_threshold()
    if libc is None or trim is None:
        return
    with _lock:
        if _holders == 0:
            return
        _holders -= 1
        if _holders == 0:
            libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_DEFAULT)
            libc.mallopt(_M_TRIM_THRESHOLD, trim)
            libc.malloc_trim(0)


@contextmanager
def pages_kept():
    """Keep freed pages for reuse inside the ``with`` block (see the module docs)."""
    changed = keep_pages()
    try:
        yield
    finally:
        if changed:
            release_pages()
