"""One array of an ``.npy`` stream, its header checked before a byte of memory is given to it.

NumPy's own reader believes the header: a shape of (10**12, 5) over 40 bytes of data asks for 36 TiB (a
MemoryError), a shape whose product overflows int64 wraps to a small count (then a puzzling reshape error), and a
negative dimension reads as ``-1`` does in a reshape.  Here the header is read with NumPy's public header readers
(at most :data:`MAX_HEADER` bytes, NumPy's own limit for files read without pickle), and then:

* every dimension must be an integer >= 0, and the element count is computed with Python integers (no overflow);
* object dtypes (pickles) and structured, sub-array and void dtypes are refused -- rankcore reads numbers or text;
* the bytes the header promises (count x item size) must be there: exactly, when the size of what follows is known
  (a file; a zip member, whose size the archive states), and within what gzip data of that size can hold
  (:data:`GZIP_RATIO`) otherwise -- all before the array is allocated;
* the data is read into the array in blocks of :data:`BLOCK` bytes (one copy of the array, no more), so gzip data
  shorter than promised fails as it ends, having filled only what it held.
"""

from __future__ import annotations

import io
import math
import struct
import sys
from typing import Any

import numpy as np

from ._dataset import DataError

#: The longest header read: NumPy's default ``max_header_size`` (what it reads without ``allow_pickle``).
MAX_HEADER = 10_000
#: The most bytes deflate can expand one byte into (its maximum ratio is 1032:1); with a margin for headers.
GZIP_RATIO = 1100
#: Bytes read at a time into the array: a gzip or zip stream's ``readinto`` reads this much into a bytes object
#: first, so a block is what is held besides the array.
BLOCK = 1 << 20
#: The header's length field and the text encoding, by format version (3.0: UTF-8, for structured field names).
_VERSIONS = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}
PICKLE_MESSAGE = ("holds pickled Python objects (an object array), which rankcore does not read; save numbers "
                  "(a float or integer array)")


def _read_exactly(fh, n: int) -> bytes:
    """Up to ``n`` bytes of ``fh`` (fewer at its end); ``n`` is small here (a header)."""
    out = b""
    while len(out) < n and (part := fh.read(n - len(out))):
        out += part
    return out


def read_header(fh, where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) of the ``.npy`` header ``fh`` is at, checked; a DataError naming ``where``
    (``"FILE: the array"``) otherwise.  Reads at most :data:`MAX_HEADER` bytes past the length field."""
    magic = _read_exactly(fh, 8)
    if len(magic) < 8 or not magic.startswith(b"\x93NUMPY"):
        raise DataError(f"{where}: not an .npy array: {'cut short in' if len(magic) < 8 else 'no'} magic string")
    version = (magic[6], magic[7])
    if version not in _VERSIONS:
        raise DataError(f"{where}: .npy format version {version[0]}.{version[1]}, which NumPy does not define "
                        "(1.0, 2.0 and 3.0 are read)")
    length_format, encoding = _VERSIONS[version]
    length_bytes = _read_exactly(fh, struct.calcsize(length_format))
    if len(length_bytes) < struct.calcsize(length_format):
        raise DataError(f"{where}: the .npy header is cut short (the file ends in its length field)")
    length = struct.unpack(length_format, length_bytes)[0]
    if length > MAX_HEADER:
        raise DataError(f"{where}: the .npy header says it is {length:,} bytes long, more than the {MAX_HEADER:,} "
                        "read (NumPy's limit for files read without pickle): a damaged or hostile header")
    text = _read_exactly(fh, length)
    if len(text) < length:
        raise DataError(f"{where}: the .npy header is cut short: its length field says {length:,} bytes, the file "
                        f"holds {len(text):,} more")
    try:
        # NumPy's public readers check the header (a dict literal, its keys, the shape, the dtype); 3.0 differs from
        # 2.0 by UTF-8 alone, so an ASCII 3.0 header is read as a 2.0 one (non-ASCII only names structured fields)
        if version == (3, 0):
            text.decode("ascii")
        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = reader(io.BytesIO(length_bytes + text), max_header_size=MAX_HEADER)
    except UnicodeDecodeError:
        raise DataError(f"{where}: the .npy header names non-ASCII fields: a structured (record) array, which "
                        "rankcore does not read; save a plain array of numbers") from None
    except (ValueError, TypeError, SyntaxError) as exc:
        detail = str(exc).split("\n")[0]
        raise DataError(f"{where}: a malformed .npy header ({detail})") from None
    _check_header(shape, dtype, where)
    return tuple(shape), fortran, dtype


def _check_header(shape: Any, dtype: np.dtype, where: str) -> None:
    """The shape and dtype rankcore reads (see the module's docstring)."""
    if not all(type(n) is int and 0 <= n <= sys.maxsize for n in shape):   # bool is no dimension
        raise DataError(f"{where}: the .npy header's shape {shape!r} is not a tuple of integers >= 0")
    if dtype.hasobject:
        raise DataError(f"{where}: {PICKLE_MESSAGE}")
    if dtype.names is not None or dtype.subdtype is not None or dtype.kind == "V":
        shown = dtype.descr if dtype.names else dtype
        raise DataError(f"{where}: holds a structured, sub-array or raw-bytes dtype ({shown}), which rankcore does "
                        "not read; save a plain array of numbers (or text, for labels)")


def read_array(fh, where: str, *, available: int | None = None, compressed: int | None = None) -> np.ndarray:
    """The array of the ``.npy`` stream ``fh`` (at its start), never unpickled, its header checked first.

    ``available``: the bytes known to follow the start of ``fh`` (a file's size, a zip member's); ``compressed``:
    otherwise, the size of the gzip data ``fh`` decompresses, which bounds what it can hold.  Memory: the array,
    and a block of :data:`BLOCK` bytes.
    """
    shape, fortran, dtype = read_header(fh, where)
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    what = f"shape {shape} of {dtype}, {nbytes:,} bytes"
    if available is not None and nbytes > available - fh.tell():
        raise DataError(f"{where}: the .npy header promises {what}, but only {max(0, available - fh.tell()):,} "
                        "bytes follow it (a file cut short, or a header that does not match its data)")
    if compressed is not None and nbytes > GZIP_RATIO * compressed + (1 << 16):
        raise DataError(f"{where}: the .npy header promises {what}, more than {compressed:,} bytes of gzip data "
                        "can hold (a damaged or hostile header)")
    if nbytes > sys.maxsize:
        raise DataError(f"{where}: the .npy header promises {what}, more than can be addressed")
    try:
        flat = np.ndarray(count, dtype=dtype)    # not np.empty, which makes S0/U0 (zero-width text) one wide
    except MemoryError:
        raise DataError(f"{where}: the array ({what}) does not fit in memory") from None
    view = memoryview(flat.view(np.uint8)) if nbytes else memoryview(b"")
    done = 0
    while done < nbytes:
        got = fh.readinto(view[done:done + BLOCK])
        if not got:
            raise DataError(f"{where}: the data ends after {done:,} of the {nbytes:,} bytes its .npy header "
                            f"promises ({what}): a file cut short, or a header that does not match its data")
        done += got
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
