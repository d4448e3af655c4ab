"""Copies of standard input whose command was killed outright (SIGKILL, a power loss), and their removal.

A command reading data from standard input copies the stream to a directory
of its own in the temporary directory (:mod:`rankcore.cli._stdin`) and
removes it however it ends -- except when it is given no chance to:
``kill -9``, the out-of-memory killer, a power loss.  Such a copy (possibly
gigabytes) would stay forever, so the next command that copies standard
input removes the leftovers first.

What is a leftover is told by the directory's name alone, which says whose
it is::

    rankcore-stdin-<pid>-<start>-<space>-<random>

``pid`` is the process that made it; ``start`` the process's start time, in
clock ticks since boot (field 22 of ``/proc/<pid>/stat``), so that another
process given the same pid later is not taken for the owner; ``space`` 12 hex
digits of a hash of the boot id (``/proc/sys/kernel/random/boot_id``) and
the pid namespace (``/proc/self/ns/pid``): pids and start times compare only
within one boot of one kernel and one pid namespace; ``random`` 8 hex
digits.  A copy is a leftover, and removed, when

* its space is this process's and no process with its pid and start time
  runs: the pid is free, or held by a later process (a zombie, not yet
  reaped, still counts as its owner);
* otherwise -- made in another boot, another container sharing the
  temporary directory, on another machine sharing it over the network, or
  where there is no ``/proc`` (macOS, the BSDs, Windows: ``start`` and
  ``space`` are ``x``) -- when neither it nor anything in it has changed for
  :data:`MAX_AGE` (30 days).  Whether its owner runs cannot be told there:
  a pid seen free may be another pid namespace's, one seen taken may have
  been reused, and ``os.kill(pid, 0)`` would end the process on Windows.
  So no copy younger than that is removed, and none is kept forever.

Only this user's directories are touched (owner uid, where there are uids),
only real directories holding files only, as a copy's does (never a symbolic link, a file, or a
directory holding a directory: nothing is removed recursively) and only names of
exactly this pattern: the older ``rankcore-stdin-XXXXXXXX`` copies, whose
names do not say whose they are, are left alone.  A copy being written is
its live owner's, so it is never removed; two commands removing the same
leftover at once is harmless (a removal that fails is skipped).  The cost:
one listing of the temporary directory, and a ``stat`` and a read of
``/proc`` per copy of this pattern found there.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import time

__all__ = ["PREFIX", "MAX_AGE", "make_copy_directory", "remove_leftovers", "copy_owner", "process_start"]

#: The start of every copy's directory name.
PREFIX = "rankcore-stdin-"
#: How long a copy whose owner cannot be told stays untouched (seconds): 30 days.
MAX_AGE = 30 * 24 * 3600
#: A copy's directory name, whole: pid, start time (or x), space (or x), 8 random hex digits.
_NAME = re.compile(re.escape(PREFIX) + r"(?P<pid>[1-9][0-9]{0,9})-(?P<start>[0-9]{1,20}|x)-"
                   r"(?P<space>[0-9a-f]{12}|x)-[0-9a-f]{8}")
#: Where Linux says how long ago the kernel booted and which pid namespace this process is in.
_BOOT_ID = "/proc/sys/kernel/random/boot_id"
_PID_NAMESPACE = "/proc/self/ns/pid"


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot, as ``/proc/<pid>/stat`` gives it; None when
    there is no such process, or no ``/proc`` to tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    # the command name (field 2, in parentheses) may hold spaces and parentheses: fields are counted after it
    fields = text[text.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def _space() -> str | None:
    """12 hex digits naming this boot of the kernel and this process's pid namespace; None without a ``/proc``
    that shows this process's own pid namespace (where pids read there would not be this process's pids)."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            if fh.read().split(b" ", 1)[0] != str(os.getpid()).encode():
                return None
        with open(_BOOT_ID, "rb") as fh:
            boot = fh.read().strip()
        namespace = os.readlink(_PID_NAMESPACE).encode()
    except OSError:
        return None
    if not boot:
        return None
    return hashlib.sha256(boot + b"\0" + namespace).hexdigest()[:12]


def copy_owner() -> str:
    """``<pid>-<start>-<space>`` of this process: what its copies' names say of their owner."""
    space = _space()
    start = process_start(os.getpid()) if space is not None else None
    if space is None or start is None:
        return f"{os.getpid()}-x-x"
    return f"{os.getpid()}-{start}-{space}"


def make_copy_directory(parent: str) -> str:
    """A new directory in ``parent``, private to this user (mode 0700), named for this process.

    Raises
    ------
    OSError
        As :func:`os.mkdir` (the caller names the directory to fix).
    """
    owner = copy_owner()
    for _ in range(100):
        path = os.path.join(parent, f"{PREFIX}{owner}-{secrets.token_hex(4)}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:             # 8 random hex digits taken already: draw again, as mkdtemp does
            continue
        return os.path.abspath(path)
    raise FileExistsError(f"no free name for a directory in {parent}")


def remove_leftovers(parent: str, *, now: float | None = None) -> list[str]:
    """Remove the leftover copies in ``parent`` (see the module's docstring); the names removed.  Never raises:
    a directory that cannot be listed, read or removed is left as it is."""
    now = time.time() if now is None else now
    here = _space()
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    removed = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if _is_leftover(entry.path, match, here, uid, now) and _remove_copy(entry.path):
                removed.append(entry.name)
        except OSError:                     # gone already (another command removed it), or not ours to remove
            continue
    return removed


def _remove_copy(path: str) -> bool:
    """Remove the copy directory ``path`` and the files in it; whether it was removed.  A copy holds files only
    (the copy of the stream): a directory holding a directory was not made by rankcore, or has been added to since,
    and is left whole -- nothing is removed recursively, so nothing beneath is reached through a link.

    Raises
    ------
    OSError
        A file or the directory that cannot be removed (the caller skips it).
    """
    with os.scandir(path) as entries:
        inside = list(entries)
    if any(entry.is_dir(follow_symlinks=False) for entry in inside):
        return False
    for entry in inside:
        os.unlink(entry.path)               # a file, or a link (the link itself, never its target)
    os.rmdir(path)
    return True


def _is_leftover(path: str, match: re.Match, here: str | None, uid: int | None, now: float) -> bool:
    """Whether the copy directory ``path`` (its name matched) is a leftover of a process that has ended."""
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or (uid is not None and info.st_uid != uid):
        return False                        # a link, a file, or another user's: never ours to judge
    start, space = match.group("start"), match.group("space")
    if here is not None and space == here and start != "x":
        return process_start(int(match.group("pid"))) != start
    return now - _last_change(path, info) > MAX_AGE


def _last_change(path: str, info: os.stat_result) -> float:
    """The latest modification time of the directory and of what it holds (a copy being written changes)."""
    latest = info.st_mtime
    with os.scandir(path) as entries:
        for entry in entries:
            latest = max(latest, entry.stat(follow_symlinks=False).st_mtime)
    return latest
