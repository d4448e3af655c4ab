"""Pieces shared by the subcommands: data options, spec lists, tables, output files."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ..registry import at_k_name
from ..spec import number_like, read_float, read_int
from . import CommandError
from ._outputs import STDOUT

#: Metrics of the tables when ``--metrics`` is not given: the top of the list first.
DEFAULT_METRICS = "rmax,prec@k:10,prec@k:0.05,pauc:0.1,auc"


# --------------------------------------------------------------------------
# Data options
# --------------------------------------------------------------------------


def add_data_argument(parser, what: str = "labelled data", *, categorical: bool = False,
                      position: str | None = None, init_score: str | None = None, weight: str | None = None) -> None:
    """The DATA argument (``what`` it holds) and the data options (``categorical``: with ``--categorical``;
    ``position``, ``init_score``, ``weight``: the help of ``--position``, ``--init-score``, ``--weight``, as
    :func:`add_data_options`)."""
    parser.add_argument("data", metavar="DATA",
                        help=f"{what}: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, categorical=categorical, position=position, init_score=init_score, weight=weight)


def add_data_options(parser, *, categorical: bool = False, position: str | None = None,
                     init_score: str | None = None, weight: str | None = None) -> None:
    """The data file's options; ``categorical``: also ``--categorical`` (commands that fit models); ``position``:
    the help of ``--position`` where it is taken (``fit``, ``auto``); ``init_score``: the help of ``--init-score``
    where it is taken (``fit``, ``auto``, ``score``, ``explain``, ``evaluate``); ``weight``: the help of
    ``--weight`` where it is taken (``fit``, ``compare``, ``auto``).  The other commands take ``--position``,
    ``--init-score`` and ``--weight`` only to refuse them with what to do (:func:`refuse_position`,
    :func:`refuse_init_score`, :func:`refuse_weight`): argparse's own error would not say which commands take
    them."""
    group = parser.add_argument_group("data file")
    group.add_argument(
        "--label", metavar="COL",
        help="the label: a CSV column name (default 'label'), a .npy column index (default: the last "
             "column) or an .npz array key (default 'y'); LIBSVM files carry it first on each line (--label "
             "is refused for them)",
    )
    group.add_argument(
        "--positive", metavar="VALUE",
        help="the relevant label, ranked on top (default: the greater of the two labels, e.g. 1 of {0, 1}); "
             "with it every other label is irrelevant, so a file may have more than two labels",
    )
    group.add_argument(
        "--drop", metavar="COLS", default="",
        help="comma-separated columns that are neither features nor the label (ids, names): CSV header names, "
             ".npz feature_names, or a LIBSVM file's index names (f3: the values of index 3)",
    )
    group.add_argument(
        "--qid", metavar="COLUMN",
        help="the CSV column of each row's query id (not a feature): the rows are ranked within their queries "
             "(`fit`, `compare`, `auto`, `evaluate`, `score`, `explain`; LIBSVM files give qid:n on each line, or "
             "their query sizes in DATA.query or DATA.group beside them, read without this option)",
    )
    if position is not None:
        group.add_argument("--position", metavar="COLUMN", help=position)
    else:
        group.add_argument("--position", metavar="COLUMN", dest="refused_position",
                           help="not here: only `rankcore fit` and `auto` learn display-position effects")
    if init_score is not None:
        group.add_argument("--init-score", metavar="COLUMN", help=init_score)
    else:
        group.add_argument("--init-score", metavar="COLUMN", dest="refused_init_score",
                           help="not here: only `rankcore fit`, `auto`, `score`, `explain` and `evaluate` take "
                                "initial scores")
    if weight is not None:
        group.add_argument("--weight", metavar="COLUMN", help=weight)
    else:
        group.add_argument("--weight", metavar="COLUMN", dest="refused_weight",
                           help="not here: sample weights are for fitting (`rankcore fit`, `compare`, `auto`); "
                                "the metrics count every row once")
    group.add_argument(
        "--format", dest="data_format", choices=("csv", "libsvm", "npy", "npz"), type=data_format,
        help="the data file's format (default: from its extension; for - (standard input), from its content); "
             "svm, svmlight and liblinear are libsvm",
    )
    if categorical:
        group.add_argument(
            "--categorical", metavar="COLS|auto",
            help="comma-separated CSV columns split by category (their values are names, not amounts), or auto: "
                 "every column of text; for the learners that split by category (--learner trees)",
        )


#: Other names of the LIBSVM format (the file extensions rankcore reads as LIBSVM, and scikit-learn's svmlight).
_FORMAT_ALIASES = dict.fromkeys(("svm", "svmlight", "liblinear"), "libsvm")


def data_format(text: str) -> str:
    """``--format``'s value: ``svmlight`` (or another name of the LIBSVM format) is ``libsvm``; letter case aside,
    any other name is kept for argparse to check against the choices."""
    name = text.strip().lower()
    return _FORMAT_ALIASES.get(name, name)


def column_list(text: str | None) -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]`` (a comma-separated option of column names)."""
    return [c.strip() for c in (text or "").split(",") if c.strip()]


#: The commands that fit a model on their data file: only there is an identifier column left in it warned of.
_FITTING_COMMANDS = frozenset({"fit", "compare", "auto"})


def load(args, path: str, *, require_label: bool = True, n_features: int | None = None,
         categorical: list[str] | str | None = None, keep: list[str] = (), queries: bool = False,
         feature_names: list[str] | None = None, beside: str | None = None, require_position: bool = True,
         require_weight: bool = True):
    """Read a data file with the data options of ``args`` (a :class:`rankcore.cli.datasets.Dataset`).

    ``categorical`` (columns, or ``"auto"``) defaults to ``--categorical``;
    ``keep``: columns read aside (``--id``).  Text in any other feature
    column is one error naming every such column and what to do.
    ``queries``: the command ranks within queries (``--qid``, a LIBSVM
    file's ``qid:``); otherwise ``--qid`` is refused
    (:func:`refuse_qid`) and a LIBSVM file's query ids are ignored with a
    warning.  ``feature_names``: the features a LIBSVM file is read into,
    by index (a model's or the training file's; see
    :func:`rankcore.cli.datasets.load_data`).  ``beside``: the training
    file this one goes with (``--validation``, ``--test``), whose rows form
    one list: query ids of this file are then ignored for that reason.
    ``--position`` (``fit``) reads the rows' display positions; with
    ``require_position`` False the file need not have that column, and
    one that does leaves it out unread (a validation file); likewise
    ``--weight`` (``fit``, ``compare``, ``auto``: the rows' sample weights)
    and ``require_weight``.  ``--init-score`` (``fit``, ``auto``, ``score``,
    ``explain``, ``evaluate``) reads the rows' initial scores.
    """
    from .datasets import TextColumnsError, header_names, load_data

    refuse_position(args)
    refuse_init_score(args)
    refuse_weight(args)
    if not queries:
        refuse_qid(args)
    if categorical is None and getattr(args, "categorical", None):
        categorical = "auto" if args.categorical.strip() == "auto" else column_list(args.categorical)
    drop = column_list(args.drop)
    if beside is not None and drop and os.path.isfile(path) and _is_csv(path, args.data_format):
        # --drop names the training file's columns: a file read beside it (--validation, a test set) may lack some
        names = header_names(os.fspath(path))
        drop = [column for column in drop if column in names] if names else drop
    elif beside is None and drop and path == getattr(args, "data", None):
        drop = _training_drop(args, path, drop)
    label, qid = args.label, getattr(args, "qid", None)
    if beside is None and path == getattr(args, "data", None):
        label, qid = _training_column(args, path, label), _training_column(args, path, qid)
        if qid is None and getattr(args, "qid", None):
            _check_training_queries(args, path)
    if beside is not None and not _is_csv(path, args.data_format):
        # --label, --qid and --drop name the training file's columns: a LIBSVM file beside it takes the indices
        # among them (f3), and has its label first on each row and its query ids in its qid: fields
        label, qid, drop = _beside_options(path, args.data_format, label, qid, drop)
    try:
        data = load_data(path, label=label, require_label=require_label, drop=drop,
                         fmt=args.data_format, n_features=n_features, categorical=categorical or None, keep=keep,
                         qid=qid, feature_names=feature_names,
                         position=getattr(args, "position", None), require_position=require_position,
                         init_score=getattr(args, "init_score", None), weight=getattr(args, "weight", None),
                         require_weight=require_weight)
    except TextColumnsError as exc:
        raise CommandError(f"{exc}; {_text_advice(args, exc.columns, exc.comma_columns)}") from None
    if not queries and data.qid is not None:
        import warnings

        where = data.query_file or "qid:"
        why = (f"the training data {beside} has none, so the rows are one list" if beside is not None else
               f"the rows fitted as one list: `rankcore {args.command}` does not fit within queries; `rankcore fit` "
               "and `rankcore compare` do")
        warnings.warn(f"{data.source}: the query ids ({where}) are ignored: {why}", UserWarning, stacklevel=2)
        data.qid = data.qid_name = None
    _note_weight_file(args, data, beside)
    if beside is None and require_label and path == getattr(args, "data", None) and \
            getattr(args, "command", None) in _FITTING_COMMANDS:
        # only where the file is fitted on: evaluating a model fitted with the column needs it (--drop would fail)
        from ._row_ids import warn_if_row_ids

        warn_if_row_ids(data)           # the training file: an id column left in would be fitted as a feature
    return data


def _training_drop(args, path: str, drop: list[str]) -> list[str]:
    """``drop`` less the names the training file ``path`` lacks but a file read beside it has (``--validation``,
    ``--test``, ``--background``): an extra column there is left out with ``--drop``, as its error advises.  A name
    in no file stays, for the training file's error."""
    headers = _beside_headers(args)
    if not headers or not os.path.isfile(path):
        return drop
    own = _own_columns(path, args.data_format)
    return [column for column in drop if own(column) or not any(column in names for names in headers)]


def _training_column(args, path: str, column: str | None):
    """``--label`` or ``--qid`` for a LIBSVM training file ``path``: None when it names a column of a CSV file read
    beside it (``--validation``, ``--test``, ``--background``) -- the LIBSVM file carries its label first on each
    row and its query ids in ``qid:`` fields -- else as given, for the file's error."""
    if column is None or not os.path.isfile(path) or not _is_format(path, args.data_format, "libsvm"):
        return column
    from .datasets import check_is_file

    for other in _beside_files(args):
        # said first: a --label or --qid naming a missing file's column would be the LIBSVM training file's refusal
        check_is_file(os.fspath(other))
    headers = _beside_headers(args)
    return None if any(column in names for names in headers) else column


def _check_training_queries(args, path: str) -> None:
    """``--qid`` naming the query column of a CSV file beside the LIBSVM training file ``path``: that file must give
    query ids too, else the CSV file's queries would meet a training list of one query (read as the command's
    refusal of --qid: "`rankcore fit` does not fit within queries")."""
    from .datasets import libsvm_has_queries

    if not libsvm_has_queries(os.fspath(path)):
        raise CommandError(f"--qid {args.qid}: names the query ids of the CSV file beside {path}, which gives none "
                           f"(no qid: fields, no .query or .group file beside it); give its rows qid: fields, or leave "
                           f"out --qid and pass --drop {args.qid} (the rows then one list)")


def _beside_headers(args) -> list[list[str]]:
    """The header names of the CSV files given beside the training data (``--validation``, ``--test``, ``explain``'s
    ``--background``)."""
    from .datasets import header_names

    return [header_names(os.fspath(other)) or [] for other in _beside_files(args)
            if os.path.isfile(other) and _is_csv(other, args.data_format)]


def _beside_files(args) -> list:
    """The files given beside the training data: ``--validation``, ``--test``, ``explain``'s ``--background``."""
    return [other for other in (getattr(args, option, None) for option in ("validation", "test", "background"))
            if other]


def _own_columns(path: str, fmt: str | None):
    """Whether a name is a column of the training file ``path``: a CSV header's, an .npz file's ``feature_names``,
    a LIBSVM file's index name (``f3``: which indices it has is known once it is read, which then checks it)."""
    from .datasets import header_names, index_names, npz_feature_names

    if _is_format(path, fmt, "csv"):
        return set(header_names(os.fspath(path)) or ()).__contains__
    if _is_format(path, fmt, "libsvm"):
        return lambda column: index_names([column]) is not None
    if _is_format(path, fmt, "npz"):
        return set(npz_feature_names(os.fspath(path))).__contains__
    return lambda column: True          # an .npy file: --drop is refused by its own read


def _beside_options(path, fmt: str | None, label, qid, drop: list[str]) -> tuple:
    """(--label, --qid, --drop) for a file of another format than CSV read beside the training file: a LIBSVM file
    takes neither the label column, nor the column of query ids (its ``qid:`` fields are its queries), nor the
    dropped columns that are not its index names (f3)."""
    from .datasets import detect_format, index_names

    if (fmt or detect_format(os.fspath(path))) != "libsvm":
        return label, qid, drop
    return None, None, [column for column in drop if index_names([column]) is not None]


def _is_csv(path, fmt: str | None) -> bool:
    """Whether ``path`` is read as CSV (``--data-format``, or detected from its name)."""
    return _is_format(path, fmt, "csv")


def _is_format(path, fmt: str | None, kind: str) -> bool:
    """Whether ``path`` is read as ``kind`` (``--data-format``, or detected from its name)."""
    from .datasets import detect_format

    return (fmt or detect_format(os.fspath(path))) == kind


def _note_weight_file(args, data, beside) -> None:
    """A training file's LightGBM weight file beside it (``DATA.weight``) is not read: said, so that a fit that
    LightGBM would weigh is not silently unweighted here."""
    import os
    import warnings

    path = f"{data.source}.weight"
    # LightGBM weighs both its fit and its metrics by the file: evaluate's metrics, which take no weights, say so too
    unweighted = {"fit": "the fit is unweighted", "compare": "the fit is unweighted", "auto": "the fit is unweighted",
                  "evaluate": "the metrics count every row once (rankcore's metrics take no weights)"}
    if beside is None and data.weight is None and args.command in unweighted and os.path.isfile(path):
        where = ("; rankcore reads weights from a CSV column (--weight COLUMN)" if args.command != "evaluate"
                 else "")
        warnings.warn(f"{data.source}: {path} beside it is not read (LightGBM's file of sample weights): "
                      f"{unweighted[args.command]}{where}", UserWarning, stacklevel=3)


def refuse_position(args) -> None:
    """``--position`` for a command other than ``fit`` and ``auto``: one error saying which commands learn from it,
    and that the column must not be read as a feature here."""
    column = getattr(args, "refused_position", None)
    if column:
        what = ("the model ranks without positions" if args.command in ("score", "explain", "evaluate")
                else "here it would be read as a feature, the very bias positions are for")
        raise CommandError(f"--position: only `rankcore fit DATA --qid Q --position {column}` (and `rankcore auto`) "
                           f"learns display-position effects; `rankcore {args.command}` takes no positions ({what}): "
                           f"pass --drop {column}")


def refuse_init_score(args) -> None:
    """``--init-score`` for a command that fits or judges models without initial scores (``compare``): one error
    saying which commands take them, and that the column must not be read as a feature here."""
    column = getattr(args, "refused_init_score", None)
    if column:
        raise CommandError(f"--init-score: `rankcore {args.command}` takes no initial scores (here the column would "
                           f"be read as a feature); `rankcore fit DATA --init-score {column}` fits a model from "
                           f"them (and `rankcore auto` chooses one), and `rankcore score` and `rankcore evaluate` add "
                           f"them to its scores: pass --drop {column}")


def refuse_weight(args) -> None:
    """``--weight`` for a command that fits no model (``score``, ``evaluate``): the metrics take no weights; one
    error saying which commands take them, and that the column must not be read as a feature here."""
    column = getattr(args, "refused_weight", None)
    if column:
        why = "its metrics count every row once" if args.command == "evaluate" else "the scores take no weights"
        raise CommandError(f"--weight: `rankcore {args.command}` takes no sample weights ({why}); --weight is for "
                           f"fitting (`rankcore fit`, `compare`, `auto`): pass --drop {column}")


def refuse_qid(args) -> None:
    """``--qid`` for a command that cannot fit within queries: one error saying so, and what to do."""
    column = getattr(args, "qid", None)
    if column:
        raise CommandError(f"--qid: `rankcore {args.command}` does not fit within queries; `rankcore fit DATA --qid "
                           f"{column}` and `rankcore compare DATA --qid {column}` do (the push models); to fit one "
                           f"ranking over all rows here, leave out --qid and pass --drop {column} (the ids are not "
                           f"a feature)")


def _text_advice(args, columns: list[str], comma_columns: list[str] = ()) -> str:
    """What to do with feature columns of text: split them by category (where the command can), or drop them.

    Columns of numbers written with a comma (``0,126``) are numbers to
    convert, never categories: splitting them so would lose their order.
    """
    from .datasets import COMMA_ADVICE

    if comma_columns:
        them = "these columns" if len(comma_columns) > 1 else "the column"
        hold = "hold" if len(comma_columns) > 1 else "holds"
        said = (f"{them} {', '.join(comma_columns)} {hold} numbers written with a comma (a decimal comma or a "
                f"thousands separator), not text; {COMMA_ADVICE}")
        rest = [column for column in columns if column not in comma_columns]
        return said if not rest else f"{said}; for the other columns of text: {_text_advice(args, rest)}"
    them = "them" if len(columns) > 1 else "it"
    drop = f"leave {them} out with --drop {','.join(columns)}"
    if not hasattr(args, "categorical"):
        return f"{drop} (or encode {them} as numbers)"
    split = f"split {them} by category with --categorical auto (or --categorical COLS)"
    if not hasattr(args, "learner"):          # `auto`: its tree candidates split them
        return f"{split}; or {drop}"
    learners = " or ".join(f"--learner {name}" for name in categorical_learners()) or "a learner that does"
    return f"{split}, with {learners}; or {drop}"


def categorical_learners() -> list[str]:
    """The registered learners that split by category (their declaration ``accept_categorical``)."""
    import warnings

    from ..registry import registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reg = registry()
    return [name for name in reg.names("learner") if getattr(reg.get("learner", name), "accept_categorical", False)]


def announce_positive(args, data) -> None:
    """Say which label is ranked first, unless that is plain (labels 0 and 1, or ``--positive`` given).

    With other labels the greater one is the relevant one -- ``M`` of {B, M},
    ``good`` of {bad, good} -- which may not be the one the user means: one
    status line names it and the option.  Called once the data passed every
    check, so that an error stays the only line of a failed command.
    """
    if args.positive is None and data.y is not None:
        labels = np.unique(data.y)
        numeric = labels.dtype.kind in "biuf"
        if labels.shape[0] == 2 and not (numeric and set(labels.tolist()) <= {0, 1}):
            info(args, f"{data.source}: ranking {_shown(labels[1])} first (the greater of the labels "
                       f"{_shown(labels[0])} and {_shown(labels[1])}); use --positive LABEL to choose")


def _shown(label: Any) -> str:
    """A label as the user typed it: text quoted, numbers plain (1, not 1.0)."""
    if isinstance(label, (str, np.str_)):
        return repr(str(label))
    return f"{float(label):g}"


# --------------------------------------------------------------------------
# Comma-separated lists of spec strings
# --------------------------------------------------------------------------


def split_specs(text: str, known_names: Iterable[str], *, what: str) -> list[str]:
    """Split ``"auc,pauc:0.1,mcclish,prec@k:10"`` into specs.

    A comma both separates specs and a spec's arguments, so a piece starts a
    new spec only if its name (before ``:``) is a known name, or the shorthand
    ``base@K`` of a known ``base@k`` (``map@10``); otherwise it continues the
    previous spec's arguments (a ``key=value`` after a spec without arguments
    is its first: ``ndcg@5,ties=average`` is ``ndcg@5:ties=average``).
    """
    known = set(known_names)
    items: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            raise CommandError(f"{what}: empty item in {text!r}")
        name = piece.partition(":")[0].strip()
        if name not in known and at_k_name(name) in known:        # ndcg@10 is ndcg@k:10: a new spec too
            name = at_k_name(name)
        if name not in known and items and ":" in items[-1]:
            items[-1] = f"{items[-1]},{piece}"  # an argument of the previous spec
        elif name not in known and items and "=" in piece:
            items[-1] = f"{items[-1]}:{piece}"  # the first named argument of a shorthand (ndcg@5,ties=average)
        else:
            items.append(piece)
    return items


def registered_names(family: str) -> list[str]:
    import warnings

    from ..registry import registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # plugin problems are shown by `rankcore plugins`
        reg = registry()
    names = set(reg.names(family))
    names.update(reg.aliases.get(family, {}))
    return sorted(names)


def metric_specs(text: str) -> list[str]:
    """The ``--metrics`` list, each spec checked against the registry."""
    from ..registry import resolve

    specs = split_specs(text, registered_names("metric"), what="--metrics")
    seen: dict[str, str] = {}
    for spec in specs:
        try:
            metric = resolve("metric", spec)
        except (ValueError, TypeError) as exc:      # named as --monitor's and --eval-metric's are
            raise CommandError(f"--metrics {spec!r}: {exc}") from None
        if not getattr(metric, "scalar", True):
            raise CommandError(f"--metrics: {spec!r} is not a single number (use a scalar metric such as auc)")
        # one column per metric: a repeat (auc,auc, or prec@k:10 and prec@k:k=10) was one JSON key, two columns
        seen.setdefault(metric.spec, spec)
    return list(seen.values())


def scalar_metric(text: str, option: str) -> str:
    """``text`` when it names a scalar metric of the registry; else a ``CommandError`` naming ``option`` (an unknown
    or unreadable spec as ``--monitor 'nope': unknown metric 'nope'; ...``, as ``--eval-metric`` says its own)."""
    from ..registry import resolve

    try:
        metric = resolve("metric", text)
    except (ValueError, TypeError) as exc:
        raise CommandError(f"{option} {text!r}: {exc}") from None
    if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
        raise CommandError(f"{option}: {text!r} is not a scalar metric (use e.g. auc, rmax, prec@k:10)")
    return text


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------


@dataclass
class Table:
    """Rows of values under named columns, printable as text, CSV, JSON or Markdown."""

    columns: list[str]
    rows: list[list[Any]]

    def render(self, fmt: str = "text") -> str:
        if fmt == "json":
            return json.dumps([json_value(dict(zip(self.columns, row))) for row in self.rows], indent=1)
        if fmt == "csv":
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(self.columns)
            writer.writerows([[_plain(v) for v in row] for row in self.rows])
            return buffer.getvalue().rstrip("\n")
        cells = [[_pretty(v) for v in row] for row in self.rows]
        if fmt == "markdown":
            lines = ["| " + " | ".join(self.columns) + " |",
                     "|" + "|".join("---" if i < self._n_text() else "---:" for i in range(len(self.columns))) + "|"]
            lines += ["| " + " | ".join(row) + " |" for row in cells]
            return "\n".join(lines)
        from ._terminal import column_groups

        widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(self.columns)]
        n_text = self._n_text()

        def line(values, group):
            return "  ".join(values[i].ljust(widths[i]) if i < n_text else values[i].rjust(widths[i])
                             for i in group).rstrip()

        # wider than the terminal: the numeric columns in blocks, each beside the leading text columns
        blocks = ["\n".join([line(self.columns, g)] + [line(r, g) for r in cells])
                  for g in column_groups(widths, lead=max(n_text, 1))]
        return "\n\n".join(blocks).rstrip()

    def _n_text(self) -> int:
        """Leading columns holding text (left-aligned); the rest are numbers."""
        n = 0
        for i in range(len(self.columns)):
            if self.rows and all(isinstance(r[i], str) for r in self.rows):
                n = i + 1
            else:
                break
        return n


def stacked_csv(parts: list[tuple[str, Table]]) -> str:
    """Several tables as one CSV document: a first column ``table`` naming each row's table, then the union of
    their columns in order of appearance (a cell a table does not have is empty).

    Two CSV tables one after the other, with a title line between them, are no CSV a reader parses (pandas,
    csv.DictReader): the second header would be read as a row of the first.
    """
    columns: list[str] = []
    for _, table in parts:
        columns += [c for c in table.columns if c not in columns]
    rows = []
    for name, table in parts:
        for row in table.rows:
            cells = dict(zip(table.columns, row))
            rows.append([name, *(cells.get(c) for c in columns)])
    return Table(["table", *columns], rows).render("csv")


def _pretty(value: Any) -> str:
    from ._report import format_value

    return "-" if value is None else format_value(value)      # a cell with no value (an untested difference)


def _plain(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return value


def json_value(value: Any) -> Any:
    """``value`` ready for :func:`json.dumps`, its dicts' keys and lists' items too: NaN and infinities as None
    (``null``: JSON has no NaN), NumPy scalars as Python's, and a text's bytes that were not UTF-8 (a file or
    column name's, read as lone surrogates) written ``\\xff`` -- a lone surrogate is no text a strict JSON reader
    takes.  The one conversion of every JSON the command line writes."""
    if isinstance(value, dict):
        return {json_value(key): json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    if isinstance(value, str) and not value.isascii():
        from . import surrogates_as_bytes

        return surrogates_as_bytes(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def add_table_format_option(parser) -> None:
    parser.add_argument("--table-format", choices=("text", "csv", "json", "markdown"), default="text",
                        help="how the result table is printed (default text)")


# --------------------------------------------------------------------------
# Output files
# --------------------------------------------------------------------------


def check_writable(path: str, option: str) -> str:
    """Fail early (before any training) if an output file cannot be written (``-``: standard output, always)."""
    if path == STDOUT:
        return path
    if not str(path).strip() or str(path).endswith(("/", os.sep)):
        raise CommandError(f"{option}: expected a file name, got {path!r}")
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(directory):
        if os.path.exists(directory):
            raise CommandError(f"{option}: {os.path.dirname(path)!r} is a file, not a directory")
        raise CommandError(f"{option}: the directory {os.path.dirname(path)!r} does not exist")
    if os.path.isdir(path):
        raise CommandError(f"{option}: {path!r} is a directory, expected a file name")
    from ..persistence import writes_in_place

    if writes_in_place(path):        # a device, FIFO or /dev/stdout: written into, its directory untouched
        if not os.access(path, os.W_OK):
            raise CommandError(f"{option}: cannot write to {path!r}")
        return path
    directory = os.path.dirname(os.path.realpath(path))     # a file replaced where a symlink at path leads
    if not os.access(directory, os.W_OK):
        raise CommandError(f"{option}: cannot write in {directory!r}")
    return path


def add_force_option(parser) -> None:
    parser.add_argument("--force", "-f", action="store_true",
                        help="overwrite existing output files (never one of the command's inputs)")


def check_output(path: str, option: str, *, inputs: dict[str, str | None] | None = None,
                 force: bool = False, instead: str = "") -> str:
    """Fail early if writing ``path`` would destroy something.

    The output must be writable (:func:`check_writable`), must not be one of
    the command's ``inputs`` (``{option or argument: path}``; compared as
    files, so links and other spellings of the same path count) or the file
    of query sizes beside one of them (``DATA.query``) -- not even with
    ``--force`` -- and must not exist unless ``force``.  A stream (a device,
    a FIFO, ``/dev/stdout``: :func:`rankcore.persistence.writes_in_place`)
    needs no ``force``: writing into it overwrites no file.  ``instead``: the
    refusal's other ways out, after ``--force`` (``", or --no-plots ..."``).
    """
    check_writable(path, option)
    if path == STDOUT or not os.path.lexists(path):
        return path
    from .datasets import query_file_of

    inputs = dict(inputs or {})
    for name, source in list(inputs.items()):     # a data file's query sizes beside it are read too
        sizes = query_file_of(source) if source and name != "MODEL" else None
        if sizes:
            inputs[f"{name}'s query file"] = sizes
    for name, source in inputs.items():
        if source and os.path.exists(source) and os.path.exists(path) and os.path.samefile(path, source):
            raise CommandError(f"{option}: {path!r} is the input {name}; write the output to another file")
    from ..persistence import writes_in_place

    if not force and not writes_in_place(path):
        raise CommandError(f"{option}: {path!r} already exists; pass --force to overwrite it{instead}")
    return path


def check_distinct_outputs(outputs: dict[str, str | None]) -> None:
    """Two output options naming one file would overwrite each other."""
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise CommandError(f"{option}: {path!r} is also the {seen[key]} output; choose distinct files")
        seen[key] = option


def info(args, text: str) -> None:
    """A status message on stderr (silenced by --quiet), keeping stdout for results."""
    if not getattr(args, "quiet", False):
        from . import undecoded_bytes
        from ._stdin import shown

        print(undecoded_bytes(shown(text)), file=sys.stderr, flush=True)


def parse_value(text: str, name: str = "--param") -> Any:
    """A ``--param`` value: int, float, true/false, none, or the text itself.

    Numbers are read by the rule of a spec string's (:func:`rankcore.spec.read_float`; ``inf`` and ``nan`` too,
    for the estimator to judge).  Text that ``float()`` would read but that rule does not (``1_0``, ``١٠``), and a
    number that overflows or underflows to 0, is a :class:`CommandError` naming ``name`` (the option or
    parameter) and saying why, rather than text the estimator refuses without a reason.
    """
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if not number_like(stripped):
        try:
            float(stripped)
        except ValueError:
            return text                 # text for the estimator ('auto', 'holdout', a spec string)
    try:
        return read_int(stripped) if _INTEGER_TEXT.fullmatch(stripped) else read_float(stripped, special=True)
    except ValueError as exc:
        raise CommandError(f"{name}: {_shown_text(stripped)} is not a number rankcore reads ({exc})") from None


#: An integer as a command line writes it (read exactly, beyond 2**53 too).
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def _shown_text(text: str) -> str:
    """``repr(text)``, cut short when long."""
    return repr(text) if len(text) <= 60 else repr(text[:40]) + f"... [{len(text)} characters]"


def _checked_number(text: str, convert, accept, expected: str):
    """``convert(text)`` if that works and ``accept`` says yes, else argparse's type error."""
    import argparse

    why = ""
    try:
        value = convert(text)
    except ValueError as exc:           # with the reason: '_' or other scripts' digits, overflows...
        value, why = None, f" ({exc})"
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {_shown_text(text)}{why}")
    return value


def integer(text: str) -> int:
    """argparse type: an integer (ASCII digits, as a spec's: :func:`rankcore.spec.read_int`)."""
    return _checked_number(text, read_int, lambda v: True, "an integer")


def thread_count(text: str) -> int:
    """argparse type of ``--n-jobs``: an integer other than 0 (-1 every core, -2 all but one), refused before
    the data are read, with the option's name."""
    return _checked_number(text, read_int, lambda v: v != 0,
                           "an integer other than 0 (-1 = every core, -2 = all but one)")


def number(text: str) -> float:
    """argparse type: a finite number (ASCII digits, as a spec's: :func:`rankcore.spec.read_float`)."""
    return _checked_number(text, read_float, lambda v: True, "a finite number")


def fraction(text: str) -> float:
    """argparse type: a number in (0, 1)."""
    return _checked_number(text, read_float, lambda v: 0 < v < 1, "a fraction in (0, 1)")


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _checked_number(text, read_int, lambda v: v >= 0, "an integer >= 0")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _checked_number(text, read_int, lambda v: v >= 1, "an integer >= 1")


def seed(text: str) -> int:
    """argparse type: a random seed, an integer in [0, 2^32) (what NumPy and scikit-learn take)."""
    return _checked_number(text, read_int, lambda v: 0 <= v < 2**32, "an integer in [0, 4294967295]")
