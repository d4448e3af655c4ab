"""Writing output files whole or not at all: a model, an exported model, a plot, a command's report.

:func:`atomic_output` writes a new temporary file beside the target and renames it over the target, so a reader
sees the old file or the new one, never a part; :func:`open_output` writes in place where a rename cannot keep
that promise (a terminal, a pipe, ``/dev/stdout``).  ``rankcore.persistence`` offers these names too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

from ._model_io import followed as _followed, names_a_descriptor as _names_a_descriptor

__all__ = ["write_text_atomically", "atomic_output", "writes_in_place", "open_output"]

#: Attempts at a free temporary file name beside an output (8 random hex digits each: a clash is rare).
_TEMPORARY_ATTEMPTS = 100


def write_text_atomically(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` (UTF-8, lines as given) to ``path`` atomically: a reader sees the old file or the new one.

    The text goes to a new temporary file beside the file ``path`` names,
    which is then renamed over it; an ``OSError`` names ``path``, and the
    temporary file is removed on any failure.  Model files and exported
    models are written so (:func:`atomic_output` says how).
    """
    with atomic_output(path, newline="\n") as fh:
        fh.write(text)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, newline: str | None = None):
    """A handle writing the output ``path`` that a reader sees whole or not at all.

    A regular file (or nothing yet) at ``path`` is written as a new temporary
    file beside it, renamed over ``path`` only when the ``with`` block ends
    without an exception; on any exception -- a full disk, a failed
    computation in the block, Ctrl-C -- the temporary file is removed and the
    file at ``path`` (an earlier output, or nothing) stays as it was.  A
    stream is appended to in place.  An ``OSError`` of the file names ``path``.

    * A symlink at ``path`` stays: the regular file it leads to is replaced
      (except a link that the kernel's ``protected_symlinks`` rule would not
      follow -- one in a sticky world-writable directory such as ``/tmp``,
      owned by another user -- which is not followed).
    * A stream is written into, never replaced (see :func:`writes_in_place`):
      a device (``/dev/null``), a FIFO, ``/dev/stdout``, a shell's
      ``>(...)``.  It is appended to, as a shell's ``>>`` does; there is no
      atomicity to keep there.
    * A replaced file's permission bits are kept (its group and, for root,
      its owner where the system allows); a new file is ``0666 & ~umask``.
      The new file does not share the earlier one's hard links.

    Parameters
    ----------
    path : str or path-like
    binary : bool, default False
        A binary handle, else text in UTF-8.
    newline : str, optional
        As :func:`open`'s, for text.

    Yields
    ------
    file object
    """
    target = os.fspath(path)
    if not target:      # else the temporary file is made in the working directory, then renamed over it
        raise ValueError("path: expected a file name, got ''")
    try:
        earlier = os.stat(target)
    except FileNotFoundError:
        earlier = None                      # a new file (or a link to one yet to be made)
    except OSError as exc:                  # a link loop, a component that is not a directory, ...
        raise type(exc)(exc.errno, exc.strerror, target) from None
    if earlier is not None and (not stat.S_ISREG(earlier.st_mode) or _names_a_descriptor(target)):
        with _named_errors(target):
            with os.fdopen(os.open(target, os.O_WRONLY | os.O_APPEND), *_open_mode(binary, newline)) as fh:
                yield fh
        return
    destination = _followed(target)
    directory, base = os.path.split(os.path.abspath(destination))
    try:
        fd, tmp = _temporary_beside(directory, base, private=earlier is not None)
    except OSError as exc:                  # no such directory, no permission, a full disk: name ``target``
        raise type(exc)(exc.errno, exc.strerror, target) from None
    try:
        # the temporary file is an implementation detail the caller never chose: its errors name ``target``
        with _named_errors(target, (tmp, destination)):
            with os.fdopen(fd, *_open_mode(binary, newline)) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            _give_mode(tmp, earlier)
            os.replace(tmp, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _temporary_beside(directory: str, base: str, private: bool) -> tuple[int, str]:
    """A new temporary file ``.BASE.XXXXXXXX.tmp`` in ``directory``: (its descriptor, its path).

    A unique name created with ``O_CREAT | O_EXCL`` (as mkstemp does): a link
    planted at a predictable name cannot redirect the write, and two savers
    never share a temporary file; os.replace then swaps the complete file in
    atomically.  Unlike mkstemp's 0600, a new output is created ``0666`` for
    the kernel to apply the process's umask (and the directory's default ACL)
    at the time of writing, as :func:`open` does; a file that will replace
    another (``private``) is 0600 until it is given that file's mode.  BASE is
    cut to 200 bytes: a target whose name is near the 255 bytes a file system
    allows is still written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for extra in ("O_CLOEXEC", "O_NOFOLLOW", "O_BINARY"):
        flags |= getattr(os, extra, 0)
    while len(os.fsencode(base)) > 200:
        base = base[:-1]
    for _ in range(_TEMPORARY_ATTEMPTS):
        tmp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o600 if private else 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _give_mode(tmp: str, earlier: os.stat_result | None) -> None:
    """Give the temporary file ``tmp`` the mode (and, where allowed, the group and owner) of the file it replaces.

    A new output keeps the mode it was created with (``0666`` less the umask).
    A replaced one keeps its permission bits, as an editor saving a file or a
    shell's ``>`` truncating it does -- a private (0600) scores file must not
    become world-readable because it was rewritten.  The group (and the owner,
    for root) are kept when the system allows it; set-id bits are never copied.
    """
    if earlier is None:
        return
    with contextlib.suppress(OSError, AttributeError):  # only root gives a file away; a member may give her group
        os.chown(tmp, earlier.st_uid if os.geteuid() == 0 else -1, earlier.st_gid)
    os.chmod(tmp, stat.S_IMODE(earlier.st_mode) & 0o777)


def _open_mode(binary: bool, newline: str | None) -> tuple:
    """``os.fdopen``'s mode, buffering, encoding and newline arguments for an output handle."""
    return ("wb",) if binary else ("w", -1, "utf-8", None, newline)


@contextlib.contextmanager
def _named_errors(target: str, names: tuple = ()):
    """Give an ``OSError`` of the output file (no file name, or one of ``names``) the name ``target`` instead.

    A failed write (``ENOSPC`` on a full disk) carries no file name, and one on
    the temporary file names a file the caller never chose.
    """
    try:
        yield
    except OSError as exc:
        if exc.errno is not None and (exc.filename is None or exc.filename in names):
            raise type(exc)(exc.errno, exc.strerror, target) from None
        raise


def writes_in_place(path: str | os.PathLike) -> bool:
    """True when :func:`write_text_atomically` writes into ``path`` rather than replacing it: a stream.

    That is an existing file that is not a regular file once symlinks are
    followed (a device, a FIFO, a socket), or an open descriptor's entry
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/<pid>/fd/N``, or a link to
    one), whatever it refers to: replacing the entry would detach the
    descriptor its owner writes to.  Writing such a path overwrites no file.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    bool
        False for a regular file, a symlink to one, or nothing there.
    """
    target = os.fspath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) or _names_a_descriptor(target)


def open_output(path: str | os.PathLike, binary: bool = False, newline: str | None = None):
    """Open ``path`` for writing an output: a regular file is created or truncated, a stream appended to.

    A stream (:func:`writes_in_place`: a device, a FIFO, ``/dev/stdout``,
    ``/dev/fd/N``) is opened with ``O_WRONLY | O_APPEND``, never
    ``O_TRUNC``: truncating ``/dev/stdout`` under a shell's ``>> file``
    would empty that file.

    Parameters
    ----------
    path : str or path-like
    binary : bool, default False
        A binary file object, else text in UTF-8.
    newline : str, optional
        As :func:`open`'s, for text.

    Returns
    -------
    file object
        To be closed by the caller (a ``with`` block).
    """
    target = os.fspath(path)
    opener = _append_opener if writes_in_place(target) else None
    if binary:
        return open(target, "wb", opener=opener)
    return open(target, "w", encoding="utf-8", newline=newline, opener=opener)


def _append_opener(target: str, flags: int) -> int:
    """``open``'s opener for a stream: write-only and appending, whatever ``flags`` (with ``O_TRUNC``) asks."""
    return os.open(target, os.O_WRONLY | os.O_APPEND)
