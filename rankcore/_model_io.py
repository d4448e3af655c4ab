"""The file-level helpers of :mod:`rankcore.persistence`: reading a model's bytes and following an output's links.

A model is read, bounded, from what a caller hands :func:`rankcore.load_model`: a
``str`` or path-like is a file name (as ``open`` reads it), an object with ``read()`` is a file object (binary, or
text decoded by it), and anything else -- bytes included, which ``open`` would take for a file name -- is refused
with a ``TypeError`` naming the function that loads a model's text.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

__all__ = ["read_model_source", "read_bounded", "source_name", "nesting_depth", "names_a_descriptor", "followed",
           "TEXT_FUNCTION", "wide_encoding"]

#: The function a caller holding a model's text or bytes is pointed to.
TEXT_FUNCTION = "rankcore.persistence.model_from_text"


#: The encodings an editor may save a model file in instead of UTF-8 (Notepad's "Unicode" is UTF-16); UTF-32's
#: first, since UTF-32-LE's byte-order mark begins with UTF-16-LE's.
_WIDE_CODECS = ["utf-32", "utf-32-le", "utf-32-be", "utf-16", "utf-16-le", "utf-16-be"]


def wide_encoding(raw: bytes | bytearray) -> str | None:
    """Why ``raw``, which is no UTF-8 JSON, may still be a model file: its text in UTF-16 or UTF-32; else None.

    A model file's JSON begins with ``{``: the first bytes decoded in a wide encoding must say so (a gzip or a
    pickle, which also hold NUL bytes, are not taken for one).
    """
    head = bytes(raw[:64])
    for codec in _WIDE_CODECS:
        try:
            text = head.decode(codec)
        except UnicodeDecodeError:
            continue
        if text.lstrip("\ufeff \t\r\n").startswith("{"):
            return f"its text is {codec[:6].upper()}, not UTF-8: open it and save it again as UTF-8"
    return None


def source_name(source: Any) -> str:
    """How errors name ``source``: a path as given, a file object by its ``name`` (or ``<file object>``)."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) and name else "<file object>"


def read_model_source(source: Any, limit: int) -> bytearray | None:
    """The bytes of the model file ``source`` (a path or a file object) if it holds at most ``limit``, else None.

    Parameters
    ----------
    source : str, path-like or file object
        A file name, or an object with ``read()`` returning bytes (a binary file, ``io.BytesIO``) or text (a text
        file, ``io.StringIO``; encoded as UTF-8).  A file object is read from its position and not closed.
    limit : int
        The most bytes accepted.

    Returns
    -------
    bytearray or None

    Raises
    ------
    TypeError
        ``source`` is neither: bytes, a number, None, ... (bytes are a model's content far more often than a file
        name: :data:`TEXT_FUNCTION` loads them).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        # bytes are refused rather than guessed at: a model's bytes and a file name in bytes look alike
        raise TypeError(f"path: expected a file name (str or path-like) or a file object; got "
                        f"{type(source).__name__} -- to load a model from its bytes, use {TEXT_FUNCTION}(data); "
                        "for a file name held as bytes, pass os.fsdecode(path)")
    if isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as fh:
            return read_bounded(fh, limit)
    if callable(getattr(source, "read", None)):
        return read_bounded(source, limit)
    raise TypeError(f"path: expected a file name (str or path-like) or a file object with read(); got "
                    f"{type(source).__name__}")


def read_bounded(fh: Any, limit: int) -> bytearray | None:
    """The bytes of the file object ``fh`` if it holds at most ``limit``, else None; read in blocks of 1 MiB.

    A regular file larger than the limit is refused by its size, before a byte is read; a stream without a size
    (a FIFO, /dev/zero) is read up to the limit + 1 bytes, never further.  In blocks because ``fh.read(limit)``
    reserves ``limit`` bytes before it reads one, whatever the file's size (a 20 KB model would claim 256 MiB);
    into one growing buffer because blocks joined at the end held the bytes twice.  A text file object's
    blocks are encoded as UTF-8: a character is at least one byte, so no more than limit + 1 characters are read.
    """
    try:
        info = os.fstat(fh.fileno())
    except (AttributeError, OSError, ValueError):       # a file object without a descriptor (io.BytesIO)
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > limit:
        return None
    data = bytearray()
    while len(data) <= limit:
        block = fh.read(min(1 << 20, limit + 1 - len(data)))
        if block is None:       # a non-blocking stream with nothing ready: not its end, so not a truncated model
            raise ValueError("path: the file object's read() returned None (a non-blocking stream with no data "
                             "ready); pass a blocking file object, or the model's bytes to " + TEXT_FUNCTION)
        if not block:
            break
        if isinstance(block, str):
            block = block.encode("utf-8")
        elif not isinstance(block, (bytes, bytearray, memoryview)):
            raise TypeError(f"path: the file object's read() returned {type(block).__name__}, "
                            "expected bytes or str")
        data += block
    return None if len(data) > limit else data


def nesting_depth(value: Any, limit: int) -> int:
    """Depth of nested lists/objects, iteratively; stops counting past ``limit``."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


#: Directories whose entries are a process's open descriptors (Linux's /proc, the BSDs' and macOS's /dev/fd).
_DESCRIPTOR_DIRECTORY = re.compile(r"/proc/[^/]+(/task/[^/]+)?/fd|/dev/fd")
#: Most symlinks followed in resolving one path (Linux's limit).
_MAX_LINKS = 40


def _link_chain(target: str) -> list[str]:
    """``target`` and each path its symlinks lead to, in order, as absolute paths with their directories resolved."""
    current = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(target))), os.path.basename(target))
    chain = [current]
    for _ in range(_MAX_LINKS):
        try:
            link = os.readlink(current)
        except OSError:                     # not a link (or not there): the end of the chain
            break
        directory = os.path.realpath(os.path.join(os.path.dirname(current), os.path.dirname(link)))
        current = os.path.join(directory, os.path.basename(link))
        chain.append(current)
    return chain


def names_a_descriptor(target: str) -> bool:
    return any(_DESCRIPTOR_DIRECTORY.fullmatch(os.path.dirname(hop)) for hop in _link_chain(target))


def followed(target: str) -> str:
    """The file a symlink at ``target`` leads to, or ``target`` when it is no link or a link that is not followed.

    A link in a sticky world-writable directory owned by neither the user
    nor the directory's owner is not followed, as the kernel's
    ``protected_symlinks`` refuses for ``open``: resolving the link here and
    renaming over its end would otherwise let whoever planted it in
    ``/tmp`` choose the file replaced.
    """
    chain = _link_chain(target)
    user = os.geteuid() if hasattr(os, "geteuid") else None
    for link in chain[:-1]:
        try:
            owner, folder = os.lstat(link).st_uid, os.stat(os.path.dirname(link))
        except OSError:
            return target
        shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
        if shared and owner not in (user, folder.st_uid):
            return target
    return chain[-1]
