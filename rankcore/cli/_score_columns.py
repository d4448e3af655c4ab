"""``rankcore evaluate DATA --scores COLUMN[,COLUMN...]``: a CSV file's columns of scores judged as they are.

An evaluation of rankers that are not rankcore's -- a search engine's BM25
run, a neural re-ranker -- has their scores already, one column each beside
the labels and the query ids; no model is fitted or loaded.  The file is
read with every column other than the label, ``--qid`` and the score
columns left unread (document ids, text), and each score column must hold a
finite number on every row: a missing or infinite score is refused at its
line and column, as a metric given NaN would otherwise judge an order that
does not exist.
"""

from __future__ import annotations

import os

import numpy as np

from . import CommandError
from ._common import column_list, refuse_position, refuse_weight

__all__ = ["score_columns", "load_scored", "warn_repeated_documents"]


def score_columns(text: str) -> list[str]:
    """``--scores``'s columns, in order: one at least, each named once."""
    names = column_list(text)
    if not names:
        raise CommandError(f"--scores: expected one or more comma-separated column names, got {text!r}")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise CommandError(f"--scores: names the column {', '.join(map(repr, twice))} twice; name each column once")
    return names


def load_scored(args, names: list[str]):
    """Read DATA for ``--scores``: ``(dataset, {column: float64 scores})``, the rows in file order.

    Raises
    ------
    CommandError
        DATA is not a CSV file; a score column is missing from its header,
        is the label or the query ids, or is dropped; ``--init-score`` (a
        model's initial scores) is given; a score is missing, not a number
        or infinite (its line and column named).
    """
    from .datasets import DataError, TextColumnsError, detect_format, header_names, load_data

    refuse_position(args)
    refuse_weight(args)
    if getattr(args, "init_score", None) is not None:
        raise CommandError("--init-score: adds initial scores to a saved model's; with --scores the columns are the "
                           "scores themselves (leave out --init-score)")
    path = os.fspath(args.data)
    fmt = args.data_format or detect_format(path)
    if fmt != "csv":
        raise CommandError(f"--scores: names columns of a CSV file with a header, but {args.data} is read as {fmt}; "
                           "write the scores, labels and query ids as CSV columns")
    header = header_names(path)
    label = args.label or "label"
    drop = column_list(args.drop)
    _check_names(names, header, label, args.qid, drop, args.data)
    _check_id_column(getattr(args, "id_column", None), header, names, label, args.qid, args.data)
    unread = [column for column in header if column not in (label, args.qid, *names)]
    # a --drop name the header lacks (a typo) is the reader's refusal, as with a model: it is in no column left unread
    unread += [column for column in drop if column not in unread]
    try:
        data = load_data(path, label=args.label, drop=unread, fmt="csv", qid=args.qid)
    except TextColumnsError as exc:
        raise CommandError(f"{exc} (--scores: every score is a number)") from None
    except DataError as exc:
        raise CommandError(_said_as_scores(str(exc), names)) from None
    scores = {}
    for j, name in enumerate(data.feature_names):
        column = np.ascontiguousarray(data.X[:, j], dtype=np.float64)
        missing = np.flatnonzero(np.isnan(column))
        if missing.size:
            raise CommandError(f"{data.where(int(missing[0]))}, column {name!r} (--scores): missing score "
                               f"({missing.size} in the column); every row needs a finite score (a document the "
                               "ranker did not return: leave its row out, or give it a score below every other)")
        _refuse_tied_integers(path, name, column, data)
        scores[name] = column
    return data, {name: scores[name] for name in names}


#: Integers from here on are not all float64 values: neighbours such as 2**53 and 2**53 + 1 read as one score.
_EXACT_INTEGERS = 2.0 ** 53


def _refuse_tied_integers(path: str, name: str, column: np.ndarray, data) -> None:
    """A score column holding an integer float64 cannot hold exactly (beyond 2**53: nanosecond timestamps, 64-bit
    hashes) is refused: rounded, distinct scores may tie, and the metrics judge an order the ranker did not give.
    The column's text is read only when a value is that large (O(rows) then, nothing otherwise)."""
    large = np.flatnonzero(np.abs(column) >= _EXACT_INTEGERS)
    if not large.size:
        return
    from .datasets import column_text

    written = column_text(path, name)
    if written is None or written.shape[0] != column.shape[0]:
        return
    for i in large:
        cell = str(written[i])
        digits = cell[1:] if cell[:1] in "+-" else cell
        if digits.isascii() and digits.isdigit() and int(cell) != int(column[i]):
            raise CommandError(f"{data.where(int(i))}, column {name!r} (--scores): the integer {cell} is beyond "
                               "2**53, where float64 scores round it and may tie it with its neighbours; give the "
                               "scores fewer digits (subtract a common offset, or rank them)")


def _check_names(names: list[str], header: list[str], label: str, qid: str | None, drop: list[str],
                 source: str) -> None:
    """Each score column is in the header and is neither the label, the query ids nor dropped."""
    for name in names:
        if header and name not in header:
            shown = ", ".join(header[:12]) + (", ..." if len(header) > 12 else "")
            raise CommandError(f"--scores: {source} has no column {name!r} (columns: {shown})")
        what = ("the label (--label)" if name == label else "the query ids (--qid)" if name == qid else
                "dropped (--drop)" if name in drop else None)
        if what is not None:
            raise CommandError(f"--scores: the column {name!r} is {what}; a score column holds a ranker's scores")


def _check_id_column(name: str | None, header: list[str], names: list[str], label: str, qid: str | None,
                     source: str) -> None:
    """``--id`` names a column of the header that is neither the label, the query ids nor a score column."""
    if name is None:
        return
    if header and name not in header:
        raise CommandError(f"--id: {source} has no column {name!r} (columns: {', '.join(header[:12])}"
                           f"{', ...' if len(header) > 12 else ''})")
    if name in (label, qid, *names):
        raise CommandError(f"--id: the column {name!r} is the label, the query ids or a score column; --id names "
                           "the column of document ids")


def warn_repeated_documents(args, data) -> None:
    """Warn when a document id is on two rows of one query (of the one list without query ids): a run lists each
    document once per query, and a repeated one is counted twice by every metric (trec_eval reads it once)."""
    import warnings

    from .datasets import column_text

    ids = column_text(os.fspath(args.data), args.id_column)
    if ids is None or ids.shape[0] != data.n_samples:
        raise CommandError(f"--id: the column {args.id_column!r} of {args.data} could not be read as text, one cell "
                           "per row")
    queries = data.qid if data.qid is not None else np.zeros(ids.shape[0], dtype=np.int64)
    first: dict = {}
    repeated = []
    for i, key in enumerate(zip(queries.tolist(), ids.tolist())):
        if key in first:
            repeated.append((first[key], i))
        else:
            first[key] = i
    if repeated:
        (a, b), n = repeated[0], len(repeated)
        within = f"query {queries[a]!s} " if data.qid is not None else "the rows "
        warnings.warn(f"--id {args.id_column}: {n} row(s) repeat a document already listed in their query, first "
                      f"{ids[a]!r} in {within}at {data.where(a)} and line {data.where(b).rpartition(' ')[2]}; "
                      "every metric counts each row, so a repeated document counts twice (trec_eval reads a run's "
                      "document once per query): remove the repeats", UserWarning, stacklevel=2)


def _said_as_scores(text: str, names: list[str]) -> str:
    """A reader's refusal of a score column's value, with the option that named the column."""
    for name in names:
        where = f"column {name!r}:"
        if where in text:
            return text.replace(where, f"column {name!r} (--scores):", 1)
    return text
