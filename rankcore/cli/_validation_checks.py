"""Warnings about a ``--validation`` file that cannot serve as the hold-out it stands for (``fit`` and ``auto``).

A validation file is read to score models on rows they were not fitted on.
Two files let that pass unnoticed, so both commands warn (the run goes on:
the scores are computed, only their meaning is weaker):

* the training file itself -- the same path once resolved (links, ``./``),
  another file of the same bytes, or, once read, another file of the same
  rows (another format, the numbers written otherwise): every score is of
  rows the model (each candidate, for ``auto``) was fitted on, so it is
  optimistic;
* with query ids, a file of fewer than 2 queries: the score is one query's
  ranking, and ``auto`` cannot measure the spread of its parts (the noise a
  difference between candidates is weighed against).

A file whose two classes are coded otherwise than the training file's
(``{1, 2}`` beside ``{0, 1}``, ``Yes``/``No`` beside ``yes``/``no``) is an
error instead (:func:`check_label_coding`, also for ``compare --test``): its
scores would be of another ranking, the inverse one or all of one class.
"""

from __future__ import annotations

import filecmp
import os
import warnings

import numpy as np

from .._same_rows import matching_rows, rows_in_order_of

__all__ = ["warn_if_training_file", "warn_if_training_rows", "holds_training_rows", "warn_if_few_queries",
           "check_label_coding", "API_TRAINING_COPY"]

#: The Python API's warning of an eval_set that is a copy of the training rows: the commands say it of their
#: ``--validation`` file in their own words (:func:`holds_training_rows`, :func:`warn_if_training_rows`), so not again.
API_TRAINING_COPY = r"eval_set(\[\d+\])? holds the training data"

#: Queries a validation file needs for its per-query score to be more than one query's ranking.
MIN_QUERIES = 2


def same_file(training: str, validation: str) -> str | None:
    """How the file ``validation`` is ``training``: ``"the same file"`` (one path once resolved, or one inode),
    ``"the same content"`` (another file of the same bytes), or None.  O(file size) at worst: the bytes are
    compared only when the sizes match."""
    try:
        if os.path.realpath(training) == os.path.realpath(validation) or os.path.samefile(training, validation):
            return "the same file"
        if os.path.getsize(training) == os.path.getsize(validation) and filecmp.cmp(training, validation,
                                                                                   shallow=False):
            return "the same content"
    except OSError:     # a file that cannot be read: the reader says why
        return None
    return None


def warn_if_training_file(training: str, validation: str | None, why: str, option: str = "--validation") -> None:
    """Warn when ``--validation`` (or ``option``: ``compare``'s ``--test``) is the training file ``training``
    (:func:`same_file`); ``why``: what its scores then say, for this command."""
    if validation is None:
        return
    how = same_file(training, validation)
    if how is not None:
        _warn_training(training, validation, how, why, option)


def _warn_training(training: str, validation: str, how: str, why: str, option: str = "--validation") -> None:
    warnings.warn(f"{option} {validation} is the training file {training} itself ({how}): its scores are "
                  f"of rows {why}, not a hold-out; give rows held out of the training file", UserWarning,
                  stacklevel=3)


#: How a file holds the training rows when it is not the training file (:func:`_same_rows`).
_ROWS_ELSEWHERE = "the same rows, read from another file"

#: ... and when they are in another order (:func:`~rankcore._same_rows.matching_rows`).
_ROWS_SHUFFLED = "the same rows in another order, read from another file"


def warn_if_training_rows(data, val, why: str, option: str = "--validation") -> None:
    """Warn when the ``--validation`` dataset ``val`` holds the training rows of ``data`` (read from another file:
    another format, or the numbers written otherwise), in any order: the same features (NaN as NaN) and labels.
    Files :func:`same_file` finds the same were warned about before reading: not again.  O(n·d) row for row, and
    O(n·d + n log n) when the rows are in another order (:func:`_same_rows`).  ``option``: the file's option
    (``compare``'s ``--test``)."""
    if _same_files(data, val):
        return
    how = _same_rows(data, val)
    if how is not None:
        _warn_training(data.source, val.source, _ROWS_ELSEWHERE if how is True else _ROWS_SHUFFLED, why, option)


def holds_training_rows(data, val, why: str, why_other_queries: str) -> bool:
    """Whether the ``--validation`` dataset ``val`` is the training data ``data``: the same file (or content), or
    the same rows, labels and queries (whatever their ids) read from another file.  ``fit`` then gives the
    estimator the training arrays themselves as its ``eval_set``, so the fit is the Python API's on such a set:
    early stopping off.

    Warns as :func:`warn_if_training_rows` (the rows compared once): with ``why``, or, for the training rows cut
    into other queries (a validation set to the fit, as in the Python API), with ``why_other_queries``."""
    if _same_files(data, val):
        return True         # warned of before reading (warn_if_training_file)
    how = _same_rows(data, val)
    if how is None:
        return False
    # the queries compared row for row: the validation file's ids put in the training rows' order
    held = _same_queries(data.qid, val.qid if how is True or val.qid is None else rows_in_order_of(val.qid, how))
    _warn_training(data.source, val.source, _ROWS_ELSEWHERE if how is True else _ROWS_SHUFFLED,
                   why if held else why_other_queries)
    return held


def _same_rows(data, val):
    """How ``val`` holds the rows and labels of ``data``: True row for row, the two row orders that line them up
    (:func:`~rankcore._same_rows.matching_rows`) when in another order, or None.  O(n·d) only when the shapes
    match, and O(n·d + n log n) for the rows in another order (about a second for 10^6 rows of 10 features)."""
    if data.y is None or val.y is None or data.X.shape != val.X.shape or data.y.shape != val.y.shape:
        return None
    if np.array_equal(data.y, val.y) and _same_matrix(data.X, val.X):
        return True
    return matching_rows(data.X, data.y, val.X, val.y)


def _same_files(data, val) -> bool:
    """Whether the two datasets were read from one file, or files of the same bytes (:func:`same_file`)."""
    return bool(data.source and val.source and same_file(data.source, val.source) is not None)


def _same_queries(qid, other) -> bool:
    """Whether two files' query ids (None: one list) group their rows alike, whatever the ids (``q1`` for ``1``)."""
    from ..metrics import check_qid

    if qid is None or other is None:
        return qid is None and other is None
    try:
        return check_qid(qid, len(qid)).groups_rows_as(check_qid(other, len(qid)))
    except (TypeError, ValueError):     # ids the fit refuses: its checks say what is wrong
        return False


#: Rows compared at a time by :func:`_same_matrix`: its temporaries stay small beside the rows read.
_BLOCK_ROWS = 1 << 14


def _same_matrix(a, b) -> bool:
    """Whether two matrices of one shape hold the same values (NaN equal to NaN), dense or sparse; dense ones
    compared by blocks of rows, stopping at the first that differs (the temporaries are one block's)."""
    import scipy.sparse as sp

    if sp.issparse(a) or sp.issparse(b):
        return sp.issparse(a) and sp.issparse(b) and (a != b).nnz == 0
    nan = a.dtype.kind == "f" and b.dtype.kind == "f"
    return all(np.array_equal(a[i:i + _BLOCK_ROWS], b[i:i + _BLOCK_ROWS], equal_nan=nan)
               for i in range(0, a.shape[0], _BLOCK_ROWS))


def warn_if_few_queries(val, why: str) -> None:
    """Warn when the ``--validation`` dataset ``val`` (read with query ids) holds fewer than :data:`MIN_QUERIES`
    queries; ``why``: what follows, for this command."""
    if val.qid is None:
        return
    n = len(set(np.asarray(val.qid).tolist()))
    if n < MIN_QUERIES:
        warnings.warn(f"--validation {val.source} holds {n} quer{'y' if n == 1 else 'ies'}: {why}; give a file of "
                      f"more queries", UserWarning, stacklevel=2)


def check_label_coding(data, other, option: str = "") -> None:
    """Refuse a file of one list (``other``: ``fit``'s or ``auto``'s ``--validation``, ``compare``'s ``--test``)
    with a label the training file ``data`` never has.

    Its classes coded otherwise ({1, 2} for {0, 1}) would be ranked by another rule without a word: the relevant
    label is the training file's, so a file holding it beside a label of its own scores the inverse ranking, and
    one without it scores all rows irrelevant.  Not called with ``--positive``, which names the relevant label of
    every file.
    """
    from . import CommandError
    from ._common import _shown
    from ._init_models import unseen_labels

    if other.y is None or data.y is None:
        return
    train = np.unique(data.y)
    unseen = unseen_labels(np.unique(other.y), train)      # as `evaluate` compares a file's labels with a model's
    if unseen:
        where = f"{option} {other.source}" if option else other.source
        raise CommandError(f"{where}: the label {_shown(unseen[0])} never occurs in the training data {data.source} "
                           f"(labels {', '.join(_shown(v) for v in train[:6])}); the two files must code the classes "
                           "alike, or name the relevant label with --positive LABEL")

