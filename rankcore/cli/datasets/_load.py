"""The entry point: :func:`load_data` reads a file of any supported format, :func:`detect_format` names it."""

from __future__ import annotations

import gzip
import os
import re
import zlib
from typing import Sequence

import numpy as np

from ._csv import _read_csv
from ._dataset import FORMATS, DataError, Dataset, _open_text
from ._libsvm import _read_libsvm
from ._numpy import _NPY_MAGIC, _ZIP_MAGICS, _read_npy, _read_npz
from ._oddities import other_compression
from ._query_file import read_query_file

__all__ = ["load_data", "detect_format", "detect_content_format", "libsvm_has_queries", "check_is_file"]

_LIBSVM_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".liblinear")
_CSV_EXTENSIONS = (".csv", ".tsv", ".tab")
#: Names that CSV and LIBSVM files both take (the learning-to-rank collections ship LIBSVM as ``.txt``):
#: the first line tells which.
_TEXT_EXTENSIONS = (".txt", ".dat")
#: A LIBSVM row: a number, then ``qid:n`` and ``index:value`` fields (at least one), then an optional comment.
_LIBSVM_ROW = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(\s+qid:\S+)?(\s+\d+:\S+)*\s*(#.*)?")
#: The key of a LIBSVM field, right or not (``qid:``, ``3:``, ``-1:``, ``1.5:``): what a row with a fault in a field
#: still shows.
_LIBSVM_KEY = re.compile(r"(qid|[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?):")
#: How much of a file :func:`detect_format` reads to find its first line.
_SNIFF_BYTES = 1 << 16
#: The delimiters the CSV reader reads off a header line.
_CSV_DELIMITERS = (",", "\t", ";")


def detect_format(path: str | os.PathLike) -> str:
    """The format of a data file from its name (``.gz`` is looked through).

    A ``.txt`` or ``.dat`` file is LIBSVM when its first line that is neither
    blank nor a ``#`` comment is a LIBSVM row (``2 qid:10 1:0.03 2:0.5 # ...``, as the learning-to-rank
    collections ship them), else CSV; a file with another name that starts
    with a LIBSVM row is LIBSVM (LightGBM's ``rank.train``).
    """
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(".npy"):
        return "npy"
    if name.endswith(".npz"):
        return "npz"
    if name.endswith(_LIBSVM_EXTENSIONS):
        return "libsvm"
    if name.endswith(_CSV_EXTENSIONS):
        return "csv"
    # the content decides from here on: a file that is not there has none, which is what to say
    # (not "cannot tell the format"); LightGBM's rank.train often sits beside us gzipped
    check_is_file(os.fspath(path))      # and a pipe read here would have lost its first bytes for the reader
    if name.endswith(_TEXT_EXTENSIONS):
        return "libsvm" if _starts_with_libsvm_row(os.fspath(path), damaged=True) else "csv"
    if _starts_with_libsvm_row(os.fspath(path), damaged=True):
        return "libsvm"
    compressed = other_compression(os.fspath(path))
    if compressed is not None:
        raise DataError(compressed)
    raise DataError(
        f"{os.fspath(path)}: cannot tell the format from the name; use .csv/.tsv (with a header), "
        ".svm/.libsvm (LIBSVM/svmlight), .npy or .npz, or pass the format explicitly (--format)"
    )


def detect_content_format(path: str | os.PathLike) -> str | None:
    """The format of a data file from its content alone (a gzipped file's, looked through), for data without a
    name to go by (standard input), or None when the content does not tell.

    The rules of :func:`detect_format` that read the content, and the magic
    bytes that the names ``.npy`` and ``.npz`` stand for: ``\\x93NUMPY`` is
    npy, a zip archive (``PK\\x03\\x04``) npz; a first row (neither blank
    nor a ``#`` comment) that is a LIBSVM row is libsvm, and one holding a
    comma, a tab or a semicolon -- a CSV header, whose delimiter the CSV
    reader reads off it -- is csv.  Anything else (one column of text, rows
    of numbers split by spaces, bytes that are not UTF-8 text) is for
    ``--format`` to say.  Reads at most 64 KiB (of a gzipped file, 64 KiB
    of its content, which must be whole gzip data up to there).

    Raises
    ------
    DataError
        Damaged gzip data (within the bytes read).
    """
    source = os.fspath(path)
    with open(source, "rb") as fh:
        head = fh.read(len(_NPY_MAGIC))
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(source, "rb") as fh:
                # as much as the first row is looked for in: a stream cut short within it is damaged, not unknown
                head = fh.read(_SNIFF_BYTES)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(f"{source}: damaged gzip data ({exc})") from None
        if head[:2] == b"\x1f\x8b":
            raise DataError(f"{source}: gzip data inside gzip data (compressed twice); take one layer off before "
                            "reading it (zcat FILE | rankcore ... reads the inner gzip data)")
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head.startswith(_ZIP_MAGICS):
        return "npz"
    line = _first_row(source)
    if line is None:
        return None
    if _LIBSVM_ROW.fullmatch(line) is not None:
        return "libsvm"
    return "csv" if any(d in line for d in _CSV_DELIMITERS) else None


def libsvm_has_queries(source: str) -> bool:
    """Whether a LIBSVM file gives query ids (``qid:`` on its first row, or a query file beside it), read from its
    first lines only: what a command needs to know before it reads the file (which outputs it will write)."""
    from ._query_file import query_file_of

    if query_file_of(source) is not None:
        return True
    fields = (_first_row(source) or "").split()
    return len(fields) > 1 and fields[1].startswith("qid:")


def _first_row(source: str) -> str | None:
    """The file's first line that is neither blank nor a ``#`` comment (within its first 64 KiB), or None."""
    try:
        with _open_text(source) as fh:
            head = fh.read(_SNIFF_BYTES)
    except (OSError, EOFError, UnicodeDecodeError, ValueError):
        return None
    lines = head.splitlines()
    if len(head) == _SNIFF_BYTES and lines and not head.endswith(("\n", "\r")):
        # the last line goes on past what was read: its last field may be cut, so it is judged without it
        lines[-1] = lines[-1].rsplit(None, 1)[0] if len(lines[-1].split()) > 1 else lines[-1]
    for line in lines:
        # comment lines first (scikit-learn's dump_svmlight_file writes some) say nothing either way
        if line.strip() and not line.lstrip().startswith("#"):
            return line
    return None


def _starts_with_libsvm_row(source: str, damaged: bool = False) -> bool:
    """Whether the file's first row (:func:`_first_row`) is a LIBSVM row; False if unreadable (``load_data`` then
    says what is wrong with it).

    ``damaged``: a row shaped as one, with a fault in a field, counts too -- a first field and then only
    ``qid:`` and ``number:value`` fields, no CSV delimiter before a ``#`` comment (``a qid:1 1:0.5``,
    ``1 qid:1 -1:0.5``) -- so that the LIBSVM reader names the field; read as a CSV header it would be an error
    about a missing label column.  Names such as ``time:stamp`` or ``http://host`` are no LIBSVM field: a header of them
    split by spaces stays CSV (whose error shows its one column).
    """
    line = _first_row(source)
    if line is None:
        return False
    if _LIBSVM_ROW.fullmatch(line) is not None:
        return True
    # a LETOR comment may hold commas (``# docid = 7, rel = 1``): only the fields before it tell
    fields = line.split("#", 1)[0]
    return damaged and len(fields.split()) > 1 and not any(d in fields for d in _CSV_DELIMITERS) \
        and all(_LIBSVM_KEY.match(field) for field in fields.split()[1:])


def _check_csv_options(source: str, fmt: str, qid: str | None, text_columns, position: str | None = None,
                       init_score: str | None = None, weight: str | None = None, keep: Sequence[str] = ()) -> None:
    """Refuse the options only a CSV file can take (a column of query ids, of display positions, of initial
    scores or of weights, text columns, columns ``keep`` to copy: ``--id``) for another format."""
    if fmt != "csv" and keep:
        hint = " (a LIBSVM row's comment after # is not read)" if fmt == "libsvm" else ""
        raise DataError(f"{source}: --id {','.join(keep)}: only CSV files have a column to copy as the rows' "
                        f"identifier; this is a {fmt} file{hint}: leave out --id to name the rows by their number")
    if fmt != "csv" and qid is not None:
        hint = " (its qid: fields are the query ids, read without --qid)" if fmt == "libsvm" else ""
        raise DataError(f"{source}: only CSV files name a column of query ids (--qid); this is a {fmt} file{hint}")
    if fmt != "csv" and position is not None:
        hint = " (LIBSVM rows have no field of display positions)" if fmt == "libsvm" else ""
        raise DataError(f"{source}: only CSV files name a column of display positions (--position); this is a "
                        f"{fmt} file{hint}")
    if fmt != "csv" and init_score is not None:
        raise DataError(f"{source}: only CSV files name a column of initial scores (--init-score); this is a "
                        f"{fmt} file")
    if fmt != "csv" and weight is not None:
        raise DataError(f"{source}: only CSV files name a column of sample weights (--weight); this is a {fmt} "
                        "file (convert it to CSV with a column of weights)")
    if fmt != "csv" and text_columns:
        raise DataError(f"{source}: only CSV files have text columns to read by category "
                        f"(this is a {fmt} file)")


def _check_named_columns(source: str, fmt: str, label, drop: Sequence[str]) -> None:
    """Refuse the options a file of this format has no columns for: ``label`` for a LIBSVM file (its label is
    each row's first field), ``drop`` for an array file (its columns have no names)."""
    if fmt == "libsvm" and label is not None:
        raise DataError(f"{source}: a LIBSVM file carries its label first on each row; --label {label} names a CSV "
                        "column, an .npy column or an .npz array, so leave it out for this file")
    if fmt == "npy" and drop:
        raise DataError(f"{source}: --drop {','.join(drop)}: the columns of an .npy file have no names to drop "
                        "by (CSV columns are named by the header, LIBSVM ones f1, f2, ... by index, an .npz "
                        "file's by its feature_names); leave out the columns when writing the array")


def _drop_npz_columns(data: Dataset, drop: Sequence[str]) -> Dataset:
    """``data`` (an .npz file's) less the columns ``drop`` names by its ``feature_names``."""
    if not drop:
        return data
    if not data.named:
        raise DataError(f"{data.source}: --drop {','.join(drop)}: the file has no feature_names to drop columns by")
    unknown = [name for name in drop if name not in data.feature_names]
    if unknown:
        raise DataError(f"{data.source}: --drop {unknown[0]}: no such column (its feature_names: "
                        f"{', '.join(data.feature_names[:8])}{', ...' if data.n_features > 8 else ''})")
    kept = [j for j, name in enumerate(data.feature_names) if name not in drop]
    if not kept:
        raise DataError(f"{data.source}: no feature columns: --drop {','.join(dict.fromkeys(drop))} leaves out every "
                        f"one of its feature_names; keep at least one")
    data.X = np.ascontiguousarray(data.X[:, kept])
    data.feature_names = [data.feature_names[j] for j in kept]
    return data


def _left_out(source: str, fmt: str, drop: Sequence[str], name: str | None) -> tuple[Sequence[str], None]:
    """``(drop, None)``: an optional column ``name`` added to the dropped ones when the file is CSV and has it."""
    from ._csv import header_names

    if name is None or fmt != "csv" or not os.path.isfile(source) or name not in header_names(source):
        return drop, None
    return [*drop, name], None


def load_data(
    path: str | os.PathLike,
    *,
    label: str | int | None = None,
    require_label: bool = True,
    drop: Sequence[str] = (),
    fmt: str | None = None,
    n_features: int | None = None,
    allow_missing: bool = True,
    categorical: Sequence[str] | str | None = None,
    keep: Sequence[str] = (),
    qid: str | None = None,
    feature_names: Sequence[str] | None = None,
    position: str | None = None,
    require_position: bool = True,
    init_score: str | None = None,
    weight: str | None = None, require_weight: bool = True,
) -> Dataset:
    """Read a labelled (or unlabelled) data file.

    Parameters
    ----------
    path : str or path-like
    label : str or int, optional
        CSV: the label column's name (default ``"label"``); npy: the label
        column's index (default: the last column); npz: the label array's
        key (default ``"y"``); LIBSVM: refused (the label is each row's first field).
    require_label : bool, default True
        With False, a file without the label column is read as features only
        (``Dataset.y`` is None).  For ``.npy`` the label column is then kept
        only if ``n_features`` says there is one column too many.
    drop : sequence of str
        Columns neither features nor the label, by a CSV header's names, an .npz file's ``feature_names`` or a
        LIBSVM file's index names (``f3``); an .npy file has none (an error).
    fmt : {"csv", "libsvm", "npy", "npz"}, optional
        Default: from the file name (:func:`detect_format`).
    n_features : int, optional
        Expected number of features (a fitted model's): LIBSVM rows are
        padded to it; a different count is an error naming both numbers.
    allow_missing : bool, default True
        Read missing feature values (CSV: an empty field or one of
        :data:`MISSING_VALUES`; npy/npz: NaN) as NaN, for the learners that
        handle them (:meth:`Dataset.missing` says where they are).  With
        False, the first one is an error naming its line and column.
    categorical : sequence of str or "auto", optional
        CSV feature columns read as text, by category
        (:attr:`Dataset.categories`); ``"auto"``: every column that holds
        text.  Without it, text in feature columns is a
        :class:`TextColumnsError` naming every such column.
    keep : sequence of str
        CSV columns read aside as text (:attr:`Dataset.kept`), e.g. an
        identifier; neither features nor the label.
    qid : str, optional
        The CSV column of the rows' query ids (:attr:`Dataset.qid`, text);
        neither a feature nor the label.  A LIBSVM file's ``qid:`` fields are
        read without it.
    feature_names : sequence of str, optional
        LIBSVM: the features the file is read into (a model's, or the training file's): when they are index names
        (``f1``, ``f2``, ..., what a LIBSVM file's columns are called), index k fills the column ``f<k>`` and an
        index that names no column is an error, so no file is read with a guessed index base.  Other names, and
        other formats: ignored.
    position, init_score, weight : str, optional
        The CSV columns, not features, of the rows' display positions (integers >= 0), initial scores (finite) and
        sample weights (finite, >= 0, not all 0): :attr:`Dataset.position`, ``.init_score``, ``.weight``.
    require_position, require_weight : bool, default True
        With False, the ``position`` (``weight``) column may be absent and is never read (a validation file).

    Raises
    ------
    DataError
        Missing file, unreadable or malformed content, missing label column,
        non-numeric or infinite feature values, a missing or non-finite
        label, no rows; missing feature values when ``allow_missing`` is
        False; ``qid`` for a file that is not CSV, naming no column, or a
        missing query id; likewise ``position``, ``init_score`` and ``weight``.
    """
    source = os.fspath(path)
    if fmt is None:
        fmt = detect_format(source)
    elif fmt not in FORMATS:
        raise DataError(f"{source}: format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    check_is_file(source)
    drop, position = (drop, position) if require_position else _left_out(source, fmt, drop, position)
    drop, weight = (drop, weight) if require_weight else _left_out(source, fmt, drop, weight)
    _check_csv_options(source, fmt, qid, categorical, position, init_score, weight, keep=keep)
    _check_named_columns(source, fmt, label, drop)
    try:
        if fmt == "csv":
            data = _read_csv(source, label, require_label, drop, categorical, keep, qid, position, init_score, weight)
        elif fmt == "libsvm":
            data = _read_libsvm(source, n_features, feature_names, drop)
            read_query_file(data)
        elif fmt == "npy":
            data = _read_npy(source, label, require_label, n_features)
        else:
            data = _drop_npz_columns(_read_npz(source, label, require_label), drop)
    except OSError as exc:  # permissions, bad gzip stream, ...
        raise DataError(f"{source}: cannot read the file ({exc.strerror or exc})") from None
    _check_read(data, n_features, allow_missing)
    return data


def check_is_file(source: str) -> None:
    """The data file exists and is a regular file.

    A pipe or a device (``<(zcat rank.train.gz)``, ``/dev/stdin``, a FIFO) is refused: its bytes can be read
    once, and a data file is opened several times (the format sniffed, the compiled LIBSVM scan then the checking
    parser, the CSV header then its rows), each open of a pipe starting where the last one stopped -- a file read
    without its first bytes, not an error.  Standard input given as ``-`` is copied to a file first.
    """
    _check_exists(source)
    if os.path.isdir(source):
        raise DataError(f"{source}: is a directory, expected a data file")
    if not os.path.isfile(source):
        raise DataError(f"{source}: not a regular file but a pipe or a device, which can be read once, and a data "
                        "file is read more than once; give it on standard input as - (... | rankcore COMMAND ... -) "
                        "or save it to a file (a gzipped file is read as it is)")


def _check_exists(source: str) -> None:
    """Refuse a data file that does not exist, naming its gzipped twin when that one does (``rank.train.gz``
    for ``rank.train``): reading it needs no unpacking."""
    if os.path.exists(source):
        return
    if not source.lower().endswith(".gz") and os.path.isfile(source + ".gz"):
        raise DataError(f"{source}: no such file; {source}.gz is there: name it (gzipped files are read as they are)")
    raise DataError(f"{source}: no such file")


def _check_read(data: Dataset, n_features: int | None, allow_missing: bool) -> None:
    """The model's feature count (``n_features``) and, with ``allow_missing`` False, no missing value."""
    if n_features is not None and data.n_features != n_features:
        raise DataError(
            f"{data.source}: {data.n_features} feature column(s), but the model was fitted on {n_features}"
            + (" (is the label column named differently? use --label)" if data.n_features == n_features + 1 else "")
        )
    if not allow_missing:
        missing = data.missing()
        if missing is not None:
            raise DataError(f"{missing.first}: missing value; complete numeric data was asked for "
                            "(allow_missing=False)")
