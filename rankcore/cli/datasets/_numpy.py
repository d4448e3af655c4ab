"""NumPy files: ``.npy`` (one 2-D array, a label column) and ``.npz`` (arrays ``X``, ``y``), without pickle.

Either may be gzipped (``X.npy.gz``, ``X.npz.gz``, or gzip data piped in), which NumPy does not read itself:

* an ``.npy.gz`` is decompressed as its array is read, in blocks of 1 MiB: no memory beyond the array's own;
* an ``.npz.gz`` is decompressed first, in blocks of 1 MiB, to an anonymous temporary file (disk space for the
  archive, deleted as the archive is closed) -- as a zip archive is read from its end (the directory) back to
  each array, and every seek back in gzip data decompresses it again from the start.  A file, not memory: a copy
  of the archive in memory would be a second copy of its arrays beside the arrays read from it.

The gzip data is read to its end, so a damaged stream (cut short, a bad checksum) is an error naming it, never
rows read from part of it.

NumPy stops reading at the end of the array, and would ignore what follows: two arrays saved one after the other
to one open file, or two ``.npy.gz`` files joined with ``cat`` (two gzip members, read as one stream), would read
as the first array alone.  So an ``.npy`` file must end with its array -- the bytes after it are counted (of a
file, from its size; of gzip data, as it is read to its end anyway) and refused, saying how many -- and so must
each array in an ``.npz`` archive, and the archive must be the whole file (a zip archive is found from the end of
the file, so two joined archives would read as the last one alone).
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import zipfile
import zlib
from typing import Any

import numpy as np

from ._dataset import DataError, Dataset
from ._npy_stream import PICKLE_MESSAGE, read_array, read_header


#: The first bytes of an .npy file, of a zip archive (an .npz file: a local file header, or an empty archive's end
#: record), and of gzip data.
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_GZIP_MAGIC = b"\x1f\x8b"
#: What a damaged gzip stream raises as it is read (``gzip.BadGzipFile`` is an OSError).
_GZIP_ERRORS = (OSError, EOFError, zlib.error)
#: The record that ends a zip archive (22 bytes and the archive's comment), and how far from the end zipfile looks.
_ZIP_END = b"PK\x05\x06"
_ZIP_END_SIZE = 22
_ZIP_END_SEARCH = (1 << 16) + _ZIP_END_SIZE
#: Values moved at a time when a label column is taken out of an .npy array in place (:func:`_drop_column`).
_DROP_BLOCK = 1 << 16


def _head(source: str) -> tuple[bytes, bool]:
    """(The first bytes of the content, whether the file is gzipped): a gzipped file's are its content's."""
    with open(source, "rb") as fh:
        head = fh.read(len(_NPY_MAGIC))
    if not head.startswith(_GZIP_MAGIC):
        return head, False
    try:
        with gzip.open(source, "rb") as fh:
            head = fh.read(len(_NPY_MAGIC))
    except _GZIP_ERRORS as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None
    if head.startswith(_GZIP_MAGIC):
        raise DataError(f"{source}: gzip data inside gzip data (compressed twice); take one layer off before "
                        "reading it (zcat FILE | rankcore ... reads the inner gzip data)")
    return head, True


def _open_archive(source: str, gzipped: bool) -> Any:
    """The .npz archive ``source`` opened (never unpickled): its path, or its gzipped content decompressed to an
    anonymous temporary file (see the module's docstring), the gzip data read to its end (so that a bad checksum
    is found).  The archive owns that file: closing it closes (and so deletes) the file."""
    if not gzipped:
        return np.load(source, allow_pickle=False)
    spool = tempfile.TemporaryFile()
    try:
        with gzip.open(source, "rb") as fh:
            while True:
                try:
                    block = fh.read(1 << 20)
                except _GZIP_ERRORS as exc:       # reading; writing the copy (a full disk) is an OSError of its own
                    raise DataError(f"{source}: damaged gzip data ({exc})") from None
                if not block:
                    break
                spool.write(block)
        spool.seek(0)
        return np.lib.npyio.NpzFile(spool, own_fid=True, allow_pickle=False)
    except BaseException:
        spool.close()
        raise


def _stream_array(fh, source: str, what: str, *, where: str, stat_size: bool, known: dict) -> np.ndarray:
    """The array of the .npy stream ``fh``, never unpickled, its header checked against what follows it
    (:func:`read_array`, its messages starting with ``where``; ``known``: its ``available`` or ``compressed``
    size); a DataError when bytes follow it (``what``: where the array is, for the message).  ``stat_size``:
    ``fh`` is a file, whose size says how many bytes are left; otherwise the rest is read and counted a block at a
    time (a gzip stream's rest is read anyway, to its checksum)."""
    array = read_array(fh, where, **known)
    first = fh.read(len(_NPY_MAGIC))
    if stat_size:
        rest = os.fstat(fh.fileno()).st_size - fh.tell() + len(first)
    else:
        rest = len(first)
        while block := fh.read(1 << 20):
            rest += len(block)
    if rest:
        if first.startswith(_NPY_MAGIC):
            cause = ("another array follows it: arrays concatenated into one (np.save called twice on one open "
                     "file, or files joined with cat)")
        else:
            cause = ("likely concatenated arrays or files (cat), or a file written over without being cut to its "
                     "new size")
        raise DataError(f"{source}: {rest:,} {'bytes follow' if rest != 1 else 'byte follows'} the array {what}, "
                        f"which must end with it ({cause}); NumPy would read the first array alone and ignore "
                        "the rest: save one array per .npy file, or several in one .npz archive")
    return array


def _load_array(source: str, gzipped: bool) -> np.ndarray:
    """The array of the .npy file ``source`` (gzipped or not), refused when bytes follow it."""
    if not gzipped:
        with open(source, "rb") as fh:
            return _stream_array(fh, source, "in the file", where=source, stat_size=True,
                                 known={"available": os.fstat(fh.fileno()).st_size})
    try:
        with gzip.open(source, "rb") as fh:
            return _stream_array(fh, source, "in the decompressed data", where=source, stat_size=False,
                                 known={"compressed": os.path.getsize(source)})
    except _GZIP_ERRORS as exc:
        raise DataError(f"{source}: damaged gzip data ({exc})") from None


def _check_whole_archive(archive: Any, source: str) -> None:
    """A DataError when the .npz archive's zip data is not the whole file: bytes before its first member or after
    its end record (two archives joined with cat read as the last one alone)."""
    zf = archive.zip
    before = min((info.header_offset for info in zf.infolist()), default=0)
    fp = zf.fp
    size = fp.seek(0, io.SEEK_END)
    fp.seek(max(0, size - _ZIP_END_SEARCH))
    tail = fp.read()
    end = tail.rfind(_ZIP_END)                   # the end record zipfile took: the last one in its search
    after = len(tail) - end - _ZIP_END_SIZE - len(zf.comment) if end >= 0 else 0
    if before or after:
        where = f"{before:,} bytes before its first array" if before else f"{after:,} bytes after its end"
        raise DataError(f"{source}: the .npz archive is not the whole file: {where}; archives or files joined into "
                        "one (cat a.npz b.npz) read as one of them alone; give one archive per file")


def npz_member(archive: Any, key: str, source: str) -> Any:
    """``archive[key]`` of an .npz archive -- never unpickled -- refused (a DataError) when bytes follow the array
    inside its member.  Memory: the array, as NumPy's own reading."""
    name = key if key in archive.zip.namelist() else key + ".npy"     # as NumPy maps a key to its member
    try:
        with archive.zip.open(name) as fh:
            if fh.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                return archive[key]              # NumPy's reading of a member that is no array: its bytes
            fh.seek(0)                           # back to its start (a compressed member re-inflates 6 bytes)
            return _stream_array(fh, source, f"{key!r} in the archive", stat_size=False,
                                 where=f"{source}: array {key!r} of the archive",
                                 known={"available": archive.zip.getinfo(name).file_size})
    except (zipfile.BadZipFile, *_GZIP_ERRORS) as exc:
        raise DataError(f"{source}: array {key!r} of the archive cannot be read ({exc})") from None


def _load_numpy(source: str):
    """The array or archive of an .npy or .npz file (gzipped or not), never unpickled.

    Bytes that are neither are refused by their first bytes: NumPy would
    take them for a pickle and refuse that with advice to load it unsafely
    -- advice not to give about text (a CSV file read with ``--format npy``)
    or about bytes piped in from anywhere.  Bytes after an .npy file's array, or around an .npz file's archive,
    are refused (see the module's docstring); read an archive's arrays with :func:`npz_member`, which refuses
    bytes after each.  Memory: the array (an archive's arrays as they are read); an ``.npz.gz`` is decompressed
    to a temporary file first (disk space for the archive).
    """
    head, gzipped = _head(source)
    if not head.startswith((_NPY_MAGIC, *_ZIP_MAGICS)):
        found = f"this starts with {head!r}" if head else "this is empty"
        inside = " (inside its gzip data)" if gzipped else ""
        raise DataError(f"{source}: not a NumPy file: an .npy file starts with \\x93NUMPY and an .npz file is a zip "
                        f"archive, but {found}{inside}; for another format, give --format")
    try:
        if head.startswith(_NPY_MAGIC):
            return _load_array(source, gzipped)
        archive = _open_archive(source, gzipped)
        try:
            _check_whole_archive(archive, source)
        except BaseException:
            archive.close()
            raise
        return archive
    except DataError:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc):           # NumPy's refusal of an object array: never unpickled here
            raise DataError(f"{source}: {PICKLE_MESSAGE}") from None
        raise DataError(f"{source}: not a readable NumPy file ({exc})") from None
    except (EOFError, OSError) as exc:
        raise DataError(f"{source}: not a readable NumPy file ({exc})") from None
    except Exception as exc:  # zipfile.BadZipFile and friends
        raise DataError(f"{source}: not a readable NumPy file ({type(exc).__name__}: {exc})") from None


def npz_feature_names(source: str) -> list[str]:
    """The ``feature_names`` of an .npz file (its columns' names, which ``--drop`` takes); none when the file has
    none or cannot be read (reading it then says why).  Reads that one array of the archive (of an ``.npz.gz``,
    the whole archive is decompressed to find it)."""
    try:
        with _load_numpy(source) as archive:
            if "feature_names" not in archive.files:
                return []
            raw = np.asarray(npz_member(archive, "feature_names", source))
    except Exception:  # an unreadable archive (or an array): the file's own read gives the error
        return []
    try:
        return _names(raw, source) if raw.ndim == 1 else []
    except DataError:   # names that are not text: the file's own read refuses them
        return []


def _names(raw: np.ndarray, source: str) -> list[str]:
    """The text of an array of names: bytes (an ``S`` array, as NumPy saves ``bytes``) decoded as UTF-8, never
    shown as their ``repr`` (``"b'age'"``).

    Names that are not UTF-8 text are refused naming the file and the name: decoded with replacement they would
    come back as other names (``"a\ufffd"``, two names alike), and a lone surrogate (text decoded with
    ``errors="surrogateescape"``) cannot be written to a model file, which would fail only after the fit."""
    names = []
    for j, value in enumerate(raw):
        text = _name_text(value, j, source)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise DataError(f"{source}: feature_names[{j}] {text!r} is not valid text (it holds a lone surrogate, as "
                            "left by bytes decoded with errors='surrogateescape'); save the names as UTF-8 text"
                            ) from None
        names.append(text)
    return names


def _name_text(value: Any, j: int, source: str) -> str:
    """One name of ``feature_names`` as text: bytes must be UTF-8 (:func:`_names`)."""
    if not isinstance(value, bytes):
        return str(value)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: feature_names[{j}] {value[:40]!r} is not UTF-8 text ({exc.reason} at byte "
                        f"{exc.start}); save the names as str (np.array(names, dtype=str)) or as UTF-8 bytes"
                        ) from None


def npz_array_names(source: str) -> list[str]:
    """The names of an .npz archive's arrays, gzipped or not (none when it cannot be read)."""
    try:
        with _load_numpy(source) as archive:
            return list(archive.files)
    except Exception:  # an unreadable file (or an array): the reader gives the error
        return []


def npy_shape(source: str) -> tuple[int, ...] | None:
    """The shape of an .npy array, gzipped or not, from its header alone; None when it is no readable .npy file."""
    try:
        head, gzipped = _head(source)
        opener = gzip.open if gzipped else open
        with opener(source, "rb") as fh:
            return read_header(fh, source)[0]
    except Exception:  # an unreadable file: the reader gives the error
        return None


def _numeric_matrix(arr: Any, source: str, what: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype.kind not in "biuf":
        raise DataError(f"{source}: {what} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise DataError(f"{source}: {what} must be a 2-D array (rows, columns), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise DataError(f"{source}: {what} has no rows")
    if arr.shape[1] < 1:
        raise DataError(f"{source}: {what} has no columns")
    # float32 stays float32, as the estimators take it: a float64 copy would double the data in memory (and every
    # copy the fit makes of it), and widening it changes no value
    out = np.ascontiguousarray(arr, dtype=np.float32 if arr.dtype == np.float32 else np.float64)
    bad = np.isinf(out)  # NaN is a missing value; a missing label is refused by the caller
    if bad.any():
        r, c = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"{source}, row {r}: {what} column {c}: expected a finite number, got {float(out[r, c])!r}")
    return out


def _drop_column(M: np.ndarray, index: int) -> np.ndarray:
    """``M`` (C-contiguous, read from the file: nothing else sees it) less its column ``index``, C-contiguous, in
    ``M``'s own memory: the rows move down in blocks, each through a copy of the block alone (a row never lands
    past where it started, so no row is overwritten before it is moved) -- one copy of the array in memory, where
    copying the columns out would hold two (three, through a fancy index's transposed result)."""
    n, d = M.shape
    out = M.reshape(-1)[: n * (d - 1)].reshape(n, d - 1)
    step = max(1, _DROP_BLOCK // d)
    for start in range(0, n, step):
        out[start:start + step] = np.delete(M[start:start + step], index, axis=1)
    return out


def _read_npy(source: str, label: Any, require_label: bool, n_features: int | None) -> Dataset:
    arr = _load_numpy(source)
    if not isinstance(arr, np.ndarray):
        raise DataError(f"{source}: expected one array (.npy); for several arrays use .npz")
    M = _numeric_matrix(arr, source, "the array")
    d = M.shape[1]
    if label is None:
        index = d - 1
    else:
        try:
            index = int(label)
        except (TypeError, ValueError):
            raise DataError(f"{source}: for a .npy file --label is the label's column index "
                            f"(e.g. -1 for the last), got {label!r}") from None
        if not -d <= index < d:
            raise DataError(f"{source}: label column index {index} is out of range for {d} columns")
        index %= d
    has_label = require_label or label is not None or (n_features is not None and d == n_features + 1)
    if has_label:
        if d < 2:
            raise DataError(f"{source}: the array has 1 column; it needs features and a label column")
        keep = [j for j in range(d) if j != index]
        y = M[:, index].astype(np.float64)          # labels as float64 whatever the features' type
        if require_label and np.isnan(y).any():
            raise DataError(f"{source}, row {int(np.argmax(np.isnan(y)))}: missing label (NaN) in column {index}")
        X = _drop_column(M, index)
        if not require_label:              # the label column is set aside unread: rows to score need none
            return Dataset(X, None, [f"x{j}" for j in keep], None, source, "npy")
        return Dataset(X, y, [f"x{j}" for j in keep], f"column {index}", source, "npy")
    return Dataset(M, None, [f"x{j}" for j in range(d)], None, source, "npy")


def _sparse_npz_hint(keys: list) -> str:
    """What to do with the archive ``scipy.sparse.save_npz`` writes (its arrays name no features and no label)."""
    if not {"data", "indices", "indptr", "shape", "format"} <= set(keys):
        return ""
    return ("; this is a scipy.sparse.save_npz matrix, without a label: write the features and the label as a "
            "LIBSVM file (sklearn.datasets.dump_svmlight_file(X, y, path)), or as np.savez(path, X=X.toarray(), y=y)")


def _read_npz(source: str, label: Any, require_label: bool) -> Dataset:
    archive = _load_numpy(source)
    if isinstance(archive, np.ndarray):
        raise DataError(f"{source}: expected an .npz archive with arrays 'X' and 'y', got a single array")
    with archive:
        keys = list(archive.files)
        if "X" not in keys:
            raise DataError(f"{source}: no array 'X' (arrays: {', '.join(keys) or 'none'}){_sparse_npz_hint(keys)}")
        try:
            X = _numeric_matrix(npz_member(archive, "X", source), source, "X")
            y_key = "y" if label is None else str(label)
            y = None
            if y_key in keys and require_label:      # rows to score need no label: theirs is left unread
                y = np.asarray(npz_member(archive, y_key, source))
            elif y_key not in keys and (require_label or label is not None):
                raise DataError(f"{source}: no label array {y_key!r} (arrays: {', '.join(keys)}); "
                                "name it with --label KEY")
            names = [f"x{j}" for j in range(X.shape[1])]
            if "feature_names" in keys:
                raw = np.asarray(npz_member(archive, "feature_names", source))
                if raw.ndim != 1 or raw.shape[0] != X.shape[1]:
                    raise DataError(f"{source}: feature_names must list {X.shape[1]} names, got shape {raw.shape}")
                names = _names(raw, source)
                if any(not n.strip() for n in names) or len(set(names)) != len(names):
                    bad = next(n for n in names if not n.strip() or names.count(n) > 1)
                    raise DataError(f"{source}: feature_names must be distinct, non-empty names, got {bad!r} "
                                    f"{'(empty)' if not bad.strip() else 'twice'}")
        except ValueError as exc:
            if isinstance(exc, DataError):
                raise
            raise DataError(f"{source}: {exc}") from None
    if y is not None:
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise DataError(f"{source}: the label array {y_key!r} must be 1-D, got shape {y.shape}")
        if y.shape[0] != X.shape[0]:
            raise DataError(f"{source}: X has {X.shape[0]} rows but the label array {y_key!r} has {y.shape[0]}")
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            row = int(np.flatnonzero(~np.isfinite(y))[0])
            what = "missing label (NaN)" if np.isnan(y[row]) else f"non-finite label {float(y[row])!r}"
            raise DataError(f"{source}, row {row}: {what} in array {y_key!r}")
        if y.dtype.kind in "biu":
            y = y.astype(np.float64)
        elif y.dtype.kind == "U":
            y = y.astype(object)
        elif y.dtype.kind != "f":
            raise DataError(f"{source}: the label array {y_key!r} must hold numbers or text, got dtype {y.dtype}")
    return Dataset(X, y, names, None if y is None else y_key, source, "npz", named="feature_names" in keys)
