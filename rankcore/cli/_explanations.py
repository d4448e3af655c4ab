"""The output of ``rankcore explain``: the rows from the top, their scores and feature contributions.

A row's score is ``init_score`` (with ``--init-score``) + the expected score
+ the sum of its contributions.  The text output shows, for each row listed,
its ``--features`` largest contributions by absolute value as
``feature=value (+0.123)``; the CSV and JSON outputs hold every
contribution, to the last bit (``repr`` of the floats).  Contributions are
computed for the rows listed only (the text output's top rows), a block of
rows at a time, and written as they come: the memory is that of one block,
whatever the number of rows.  ``--summary`` gives, instead, each feature's
mean |contribution| and mean contribution over the rows listed (every row,
or the ``--top`` rows), the features by the first, descending.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TextIO

import numpy as np

from ._common import json_value

__all__ = ["Explanations", "ranked_rows", "write", "write_summary", "CONTRIBUTION_PREFIX", "BLOCK_ROWS"]

#: The CSV and JSON column of feature NAME's contribution is ``contribution:NAME``.
CONTRIBUTION_PREFIX = "contribution:"
#: Rows whose contributions are computed at once for the CSV and JSON outputs.
BLOCK_ROWS = 8192


@dataclass
class Explanations:
    """What ``explain`` shows of a data file's rows.

    Attributes
    ----------
    data : Dataset
        The rows read (their feature values, ids, query ids, initial scores).
    scores : ndarray of shape (n_rows,)
        The rows' scores, initial scores included.
    contributions : callable
        ``contributions(rows)``: the model's ``feature_contributions`` of
        those rows (an array of row indices), shape (len(rows), n_features +
        1): one column per feature, then the expected score.
    names : list of str
        The features, in the columns' order (with ``players``: the players').
    id_column : str or None
        The ``--id`` column naming the rows (None: their row numbers, from 1).
    players : list of list of int, optional
        With ``--groups``: each contribution's columns of the data (a
        player's values shown as its columns' values joined by ``/``).
    column_names : list of str, optional
        With ``players``: the data's columns, in order.
    """

    data: Any
    scores: np.ndarray
    contributions: Callable[[np.ndarray], np.ndarray]
    names: list[str]
    id_column: str | None
    players: list[list[int]] | None = None
    column_names: list[str] | None = None

    def ids(self) -> tuple[str, np.ndarray]:
        """The rows' names: ``(header, values)``, the ``--id`` column or the row numbers (1 = first row)."""
        if self.id_column:
            return self.id_column, self.data.kept[self.id_column]
        return "row", np.arange(1, self.scores.shape[0] + 1)

    def queries(self) -> tuple[str, np.ndarray] | None:
        """``(header, query ids)``; None without query ids or when the ``--id`` column is the query column."""
        data = self.data
        if data.qid is None or data.qid_name == self.id_column:
            return None
        return data.qid_name, data.qid

    def value(self, row: int, j: int) -> str:
        """Feature ``j`` of ``row`` as the file gives it: a category's text, ``missing`` for NaN, else the number
        (a player of several columns: their values joined by ``/``)."""
        if self.players is not None:
            return "/".join(self._column_value(row, c, self.column_names[c]) for c in self.players[j])
        return self._column_value(row, j, self.names[j])

    def _column_value(self, row: int, j: int, name: str) -> str:
        x = self.data.X[row, j]
        if math.isnan(x):
            return "missing"
        categories = self.data.categories.get(name)
        if categories is not None:
            return str(_item(categories[int(x)]))
        return repr(_item(float(x)))       # the shortest text that reads back as x: 640000.891, not 640001


def ranked_rows(scores: np.ndarray, qid: np.ndarray | None, top: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The rows listed, from the top: ``(rows, ranks)``.

    Rows by descending score (ties in the file's order), within each query
    with ``qid`` (the queries in the order they first appear); the first
    ``top`` of each (all rows for None).  A rank is 1 for the top row, and
    tied scores share the best rank, as ``rankcore score --rank`` gives them.
    O(n log n) time.
    """
    n = scores.shape[0]
    if qid is None:
        group = np.zeros(n, dtype=np.int64)
    else:
        _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
        group = np.argsort(np.argsort(first, kind="stable"), kind="stable")[inverse.ravel()]
    rows = np.lexsort((np.arange(n), -scores, group))
    groups, values = group[rows], scores[rows]
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = groups[1:] != groups[:-1]
    new_tie = new_group.copy()
    new_tie[1:] |= values[1:] != values[:-1]
    position = np.arange(n)
    group_start = np.maximum.accumulate(np.where(new_group, position, 0))
    tie_start = np.maximum.accumulate(np.where(new_tie, position, 0))
    ranks = tie_start - group_start + 1
    if top is not None:
        shown = position - group_start < top
        rows, ranks = rows[shown], ranks[shown]
    return rows, ranks


def write(explained: Explanations, rows: np.ndarray, ranks: np.ndarray, fmt: str, n_features: int,
          handle: TextIO) -> None:
    """Write the output of the rows listed to ``handle`` as ``fmt`` (``text``, ``csv`` or ``json``)."""
    if fmt == "text":
        handle.write(_text(explained, rows, ranks, n_features))
        return
    columns = _columns(explained)
    if fmt == "csv":
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        for record in _records(explained, rows, ranks):
            writer.writerow([_csv_value(v) for v in record])
        return
    handle.write("[")
    for i, record in enumerate(_records(explained, rows, ranks)):
        handle.write(("," if i else "") + "\n " + json.dumps(json_value(dict(zip(columns, record)))))
    handle.write("\n]\n")


def _columns(explained: Explanations) -> list[str]:
    """The columns of the CSV and JSON outputs.

    An id or query column named as one of the output's own columns (a query
    column called ``rank``) is written ``id:NAME`` / ``query:NAME``: the JSON
    records would lose it, the CSV would have two columns of one name.
    """
    init = ["init_score"] if explained.data.init_score is not None else []
    own = ["rank", "score"] + init + ["expected"] + [CONTRIBUTION_PREFIX + name for name in explained.names]
    id_name = explained.ids()[0]
    lead = [id_name if id_name not in own else f"id:{id_name}"]
    if explained.queries() is not None:
        query = explained.queries()[0]
        lead.append(query if query not in own + lead else f"query:{query}")
    return lead + own


def _records(explained: Explanations, rows: np.ndarray, ranks: np.ndarray) -> Iterator[list[Any]]:
    """The records of the CSV and JSON outputs, in :func:`_columns`' order; contributions a block at a time."""
    ids = explained.ids()[1]
    queries = explained.queries()
    init = explained.data.init_score
    for start in range(0, rows.shape[0], BLOCK_ROWS):
        block = rows[start:start + BLOCK_ROWS]
        phi = explained.contributions(block)
        for i, (row, rank) in enumerate(zip(block.tolist(), ranks[start:start + BLOCK_ROWS].tolist())):
            record = [_item(ids[row])] + ([_item(queries[1][row])] if queries is not None else [])
            record += [rank, float(explained.scores[row])] + ([float(init[row])] if init is not None else [])
            yield record + [float(phi[i, -1])] + phi[i, :-1].tolist()


def _text(explained: Explanations, rows: np.ndarray, ranks: np.ndarray, n_features: int) -> str:
    """The rows listed as a table: ranks, ids, scores, and each row's largest contributions."""
    init = explained.data.init_score
    k = min(n_features, len(explained.names))
    phi = explained.contributions(rows)
    terms = "init_score + expected" if init is not None else "expected"
    lines = [f"expected score {_expected(phi[:, -1])}; each score = {terms} + the row's feature contributions "
             f"(the {k} largest non-zero shown)"]
    id_name, ids = explained.ids()
    queries = explained.queries()
    header = ["rank", id_name] + ([queries[0]] if queries else []) + ["score"]
    header += ["init_score"] if init is not None else []
    table = []
    for i, (row, rank) in enumerate(zip(rows.tolist(), ranks.tolist())):
        cells = [str(rank), str(_item(ids[row]))] + ([str(_item(queries[1][row]))] if queries else [])
        cells += [_number(explained.scores[row])] + ([_number(init[row])] if init is not None else [])
        table.append(cells + [_largest(explained, row, phi[i, :-1], k)])
    # the rank and the numbers right-aligned, the row's names (id, query) left-aligned
    left = {1, 2} if queries else {1}
    widths = [max([len(h)] + [len(cells[i]) for cells in table]) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.ljust(widths[i]) if i in left else c.rjust(widths[i])
                         for i, c in enumerate(cells[:len(header)])) + "".join(f"  {c}" for c in cells[len(header):])

    lines += [line(header + ["contributions"]).rstrip()] + [line(cells).rstrip() for cells in table]
    return "\n".join(lines) + "\n"


def _largest(explained: Explanations, row: int, phi: np.ndarray, k: int) -> str:
    """``feature=value (+0.123)`` for the ``k`` largest of the row's contributions ``phi`` by absolute value (ties:
    the first feature first); a contribution of exactly 0 (a feature no tree path of the row weighs) is left out."""
    order = np.argsort(-np.abs(phi), kind="stable")[:k]
    return "  ".join(f"{explained.names[j]}={explained.value(row, j)} ({phi[j]:+.3f})" for j in order if phi[j] != 0)


def _expected(column: np.ndarray) -> str:
    """The expected score, the same for every row (TreeSHAP's); a range should a model give rows their own."""
    if column.shape[0] == 0:
        return _number(0.0)
    low, high = float(np.min(column)), float(np.max(column))
    return _number(low) if _number(low) == _number(high) else f"{_number(low)} to {_number(high)}"


def _number(value) -> str:
    return f"{float(value):.3f}"


def _item(value):
    """A NumPy scalar as the Python value (``np.int64(3)`` -> 3); a whole float as an int (a LIBSVM qid)."""
    value = value.item() if hasattr(value, "item") else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _csv_value(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def write_summary(explained: Explanations, rows: np.ndarray, fmt: str, handle: TextIO) -> None:
    """Each feature's mean |contribution| and mean contribution over ``rows``, as ``fmt`` (text, csv or json).

    The features are listed by mean |contribution|, descending (ties: the
    file's order).  Contributions a block of rows at a time: O(block · d)
    memory, whatever the number of rows.
    """
    d = len(explained.names)
    absolute, signed = np.zeros(d), np.zeros(d)
    for start in range(0, rows.shape[0], BLOCK_ROWS):
        phi = explained.contributions(rows[start:start + BLOCK_ROWS])[:, :-1]
        absolute += np.abs(phi).sum(axis=0)
        signed += phi.sum(axis=0)
    count = max(rows.shape[0], 1)
    absolute, signed = absolute / count, signed / count
    order = np.argsort(-absolute, kind="stable")
    columns = ["feature", "mean_abs_contribution", "mean_contribution"]
    records = [[explained.names[j], float(absolute[j]), float(signed[j])] for j in order.tolist()]
    if fmt == "csv":
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[name, repr(a), repr(m)] for name, a, m in records])
    elif fmt == "json":
        handle.write(json.dumps([json_value(dict(zip(columns, record))) for record in records], indent=1) + "\n")
    else:
        width = max([len("feature")] + [len(name) for name in explained.names])
        lines = [f"mean contribution of each feature over {rows.shape[0]} rows, by mean |contribution|",
                 f"{'feature'.ljust(width)}  mean |contribution|  mean contribution"]
        lines += [f"{name.ljust(width)}  {a:19.3f}  {m:+17.3f}" for name, a, m in records]
        handle.write("\n".join(lines) + "\n")
