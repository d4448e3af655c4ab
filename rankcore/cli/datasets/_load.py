"""The entry point: :func:`load_data` reads a file of any supported format, :func:`detect_format` names it."""

from __future__ import annotations

import os
from typing import Sequence

from ._csv import _read_csv
from ._dataset import FORMATS, DataError, Dataset
from ._libsvm import _read_libsvm
from ._numpy import _read_npy, _read_npz

__all__ = ["load_data", "detect_format"]

_LIBSVM_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".liblinear")
_CSV_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".dat")


def detect_format(path: str | os.PathLike) -> str:
    """The format of a data file from its name (``.gz`` is looked through)."""
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
    raise DataError(
        f"{os.fspath(path)}: cannot tell the format from the name; use .csv/.tsv (with a header), "
        ".svm/.libsvm (LIBSVM/svmlight), .npy or .npz, or pass the format explicitly (--format)"
    )


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
) -> Dataset:
    """Read a labelled (or unlabelled) data file.

    Parameters
    ----------
    path : str or path-like
    label : str or int, optional
        CSV: the label column's name (default ``"label"``); npy: the label
        column's index (default: the last column); npz: the label array's
        key (default ``"y"``); LIBSVM: ignored (the label is the first field).
    require_label : bool, default True
        With False, a file without the label column is read as features only
        (``Dataset.y`` is None).  For ``.npy`` the label column is then kept
        only if ``n_features`` says there is one column too many.
    drop : sequence of str
        CSV columns that are neither features nor the label (ids, names).
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

    Raises
    ------
    DataError
        Missing file, unreadable or malformed content, missing label column,
        non-numeric or infinite feature values, a missing or non-finite
        label, no rows; missing feature values when ``allow_missing`` is
        False; ``qid`` for a file that is not CSV, naming no column, or a
        missing query id.
    """
    source = os.fspath(path)
    if fmt is None:
        fmt = detect_format(source)
    elif fmt not in FORMATS:
        raise DataError(f"{source}: format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not os.path.exists(source):
        raise DataError(f"{source}: no such file")
    if os.path.isdir(source):
        raise DataError(f"{source}: is a directory, expected a data file")
    try:
        if fmt != "csv" and qid is not None:
            hint = " (its qid: fields are the query ids, read without --qid)" if fmt == "libsvm" else ""
            raise DataError(f"{source}: only CSV files name a column of query ids (--qid); this is a {fmt} "
                            f"file{hint}")
        if fmt != "csv" and (categorical or keep):
            raise DataError(f"{source}: only CSV files have text columns to read by category or to copy "
                            f"(this is a {fmt} file)")
        if fmt == "csv":
            data = _read_csv(source, label, require_label, drop, categorical, keep, qid)
        elif fmt == "libsvm":
            data = _read_libsvm(source, n_features)
        elif fmt == "npy":
            data = _read_npy(source, label, require_label, n_features)
        else:
            data = _read_npz(source, label, require_label)
    except OSError as exc:  # permissions, bad gzip stream, ...
        raise DataError(f"{source}: cannot read the file ({exc.strerror or exc})") from None
    if n_features is not None and data.n_features != n_features:
        raise DataError(
            f"{source}: {data.n_features} feature column(s), but the model was fitted on {n_features}"
            + (" (is the label column named differently? use --label)" if data.n_features == n_features + 1 else "")
        )
    if not allow_missing:
        missing = data.missing()
        if missing is not None:
            raise DataError(f"{missing.first}: missing value; complete numeric data was asked for "
                            "(allow_missing=False)")
    return data
