"""``rankcore score MODEL DATA``: one score per row, as CSV."""

from __future__ import annotations

import csv

from . import CommandError
from ._columns import load_for_model
from ._common import add_data_options, add_force_option, info
from ._outputs import output_file, output_name
from ._init_scores import SCORED_HELP, with_init_scores
from ._missing import check_scored_file
from ._models import decision_scores
from ._scored_model import load_scoring_model


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "score",
        help="score the rows of a data file with a saved model",
        description="Score every row of DATA with a saved model and write the scores as CSV (column 'score', "
                    "higher = nearer the top of the ranking), one line per row in the file's order. The label "
                    "column, if present, is ignored (and copied with --with-label). A model fitted on named "
                    "columns takes them by name, in any order. A model fitted from initial scores (`rankcore fit "
                    "--init-score COLUMN`) is the correction alone: --init-score COLUMN adds the rows' own.",
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("data", metavar="DATA",
                        help="rows to score: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, init_score=SCORED_HELP)
    parser.add_argument("--out", "-o", metavar="FILE.csv",
                        help="write the scores here (default, or '-': standard output)")
    add_force_option(parser)
    parser.add_argument("--id", metavar="COLUMN", dest="id_column",
                        help="copy this CSV column (an identifier, or a feature such as an item id) to the output, "
                             "before the score")
    parser.add_argument("--with-label", action="store_true", help="add the file's label as a column")
    parser.add_argument("--rank", action="store_true",
                        help="add each row's rank (1 = top; tied scores share the best rank), within its query "
                             "when the rows have query ids")
    parser.add_argument("--top", metavar="K", type=_top_count,
                        help="write only the K best rows of each query (of the whole file without query ids), "
                             "query by query in the order of their first row, each best first; rows tied at "
                             "place K are taken in file order (--rank shows the tie: tied rows share a rank)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    return parser


def run(args) -> int:
    import numpy as np

    model, keep = load_scoring_model(args, id_may_be_feature=True)
    data, X = load_for_model(args, args.data, model, args.model, require_label=args.with_label, keep=keep,
                             queries=True)
    check_scored_file(args, model, args.model, data)
    scores = with_init_scores(decision_scores(model, X), data)
    columns = ["score"]
    extra: list[np.ndarray] = []
    # the query ids, unless --id already copies that column
    queries = data.qid if data.qid is not None and data.qid_name != args.id_column else None
    if queries is not None:
        columns.insert(0, data.qid_name)
    if args.id_column:
        columns.insert(0, args.id_column)
    if args.with_label:
        # a LIBSVM file's label has no name ("first field" in messages): the column is "label", one word to read
        # back; so is a label column named as one of the columns written beside it (a grade called "rank")
        taken = set(columns) | ({"rank"} if args.rank else set())
        named = data.format != "libsvm" and data.label_name and data.label_name not in taken
        columns.append(data.label_name if named else "label")
        extra.append(data.y)
    if args.rank:
        columns.append("rank")
        extra.append(_ranks(scores, data.qid))
    _check_unique_columns(columns)
    with output_file(args.out or "-", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        ids = _ids(args.id_column, data, X, args.data)
        lead = [col for col in (ids, queries) if col is not None]
        rows = range(len(scores)) if args.top is None else _top_rows(scores, data.qid, args.top)
        for i in rows:
            writer.writerow([_cell(col[i]) for col in lead] + [repr(float(scores[i]))]
                            + [_cell(col[i]) for col in extra])
    if args.out:
        info(args, f"wrote {len(rows)} scores to {output_name(args.out)}")
    return 0


def _check_unique_columns(columns: list[str]) -> None:
    """The output's header names each column once (a CSV reader would take a repeated name's first column)."""
    repeated = sorted({name for name in columns if columns.count(name) > 1})
    if repeated:
        raise CommandError(f"the output would name two columns {repeated[0]!r} (columns: {', '.join(columns)}): "
                           "a column copied from the file (--id, the query ids) is named as one the output writes "
                           "(score, rank); rename it in the file")


def _ids(name, data, X, path):
    """The cells of the ``--id`` column: kept aside from the features, or (a feature of the model, such as an item
    id a recommender ranks by) as written in the CSV file ``path`` -- its float64 value would lose an id's leading
    zeros and round one beyond 2**53 -- else the feature's values as the model read them, a missing one empty."""
    if not name:
        return None
    if name in data.kept:
        return data.kept[name]
    if data.format == "csv":
        from .datasets import column_text

        written = column_text(path, name)
        if written is not None and written.shape[0] == data.n_samples:
            return written
    import pandas as pd

    return ["" if pd.isna(value) else value for value in X[name].astype(object)]


def _top_count(text: str) -> int:
    """``--top K``: a count of rows >= 1."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a count of rows >= 1 (e.g. --top 10), got {text!r}")
    return value


def _top_rows(scores, qid, k: int):
    """The rows of each query's k highest scores (of all rows without ``qid``), query by query in the order of
    each query's first row, best first, ties in row order -- a list of exactly min(k, the query's rows) rows each."""
    import numpy as np

    n = scores.shape[0]
    if qid is None:
        codes = np.zeros(n, dtype=np.int64)
    else:
        from ..metrics import check_qid

        codes = check_qid(qid, n, name="--qid").codes
    first = np.full(int(codes.max(initial=-1)) + 1, n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n))              # the first row of each query: the queries' order
    rows = np.lexsort((np.arange(n), -scores, first[codes]))
    start = np.flatnonzero(np.r_[True, codes[rows][1:] != codes[rows][:-1]])
    place = np.arange(n) - np.repeat(start, np.diff(np.r_[start, n]))
    return rows[place < k].tolist()


def _ranks(scores, qid):
    """Each row's rank, 1 = the highest score, ties sharing the smallest rank; within its query given ``qid``."""
    import numpy as np

    if qid is None:
        order = np.sort(-scores)
        return np.searchsorted(order, -scores, side="left") + 1
    from ..metrics import check_qid

    queries = check_qid(qid, scores.shape[0], name="--qid")
    rows = np.lexsort((-scores, queries.codes))                  # by query, then by descending score
    codes, values = queries.codes[rows], scores[rows]
    first = np.ones(rows.shape[0], dtype=bool)                   # the first row of each tie group of a query
    first[1:] = (codes[1:] != codes[:-1]) | (values[1:] != values[:-1])
    group_start = np.maximum.accumulate(np.where(first, np.arange(rows.shape[0]), 0))
    ranks = np.empty(rows.shape[0], dtype=np.int64)
    ranks[rows] = group_start - queries.starts[codes] + 1
    return ranks


def _cell(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "item"):
        value = value.item()
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
    return str(value)
