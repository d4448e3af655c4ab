"""``rankcore evaluate MODEL DATA --metrics ...``: top-of-list metrics of a saved model."""

from __future__ import annotations

from . import CommandError
from ._common import (
    DEFAULT_METRICS,
    Table,
    add_data_options,
    add_table_format_option,
    announce_positive,
    info,
    metric_specs,
)
from ._columns import load_for_model
from ._init_scores import SCORED_HELP, check_scored_with_init_scores, with_init_scores
from ._intervals import add_interval_options, interval_table
from ._model_labels import evaluation_positive
from ._missing import check_model_missing
from ._models import decision_scores
from ._queries import QUERY_METRICS, grade_row_error, query_defaults, query_labels


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "evaluate",
        help="metrics of a saved model on a labelled data file",
        description="Score DATA with a saved model and print ranking metrics against its labels. A model fitted "
                    "on named columns takes them by name, in any order. With query ids (--qid COLUMN, or a "
                    "LIBSVM file's qid: or query file) the labels are relevance grades >= 0 and each metric is the "
                    "mean over the queries of its value within each query; --ci then resamples whole queries.",
        epilog="example: rankcore evaluate model.json test.csv --metrics auc,rmax,prec@k:50,pauc:0.1 --ci 0.95",
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("data", metavar="DATA",
                        help="labelled data: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, init_score=SCORED_HELP)
    parser.add_argument("--metrics", "-m", metavar="SPECS",
                        help=f"comma-separated metric specs (default {DEFAULT_METRICS}; with query ids "
                             f"{QUERY_METRICS}); any registered metric, plugins included "
                             "(`rankcore plugins --family metric`)")
    add_table_format_option(parser)
    add_interval_options(parser, random_state=True)
    return parser


def run(args) -> int:
    from ..metrics import evaluate
    from ..persistence import load_model

    specs = metric_specs(args.metrics) if args.metrics else None   # a bad spec fails before any reading
    model = load_model(args.model)
    check_scored_with_init_scores(model, args.model, args.init_score)
    data, X = load_for_model(args, args.data, model, args.model, queries=True)
    qid = data.qid
    specs = specs or metric_specs(DEFAULT_METRICS if qid is None else query_defaults(QUERY_METRICS, qid))
    check_model_missing(model, args.model, data)
    if qid is None and args.positive is None and getattr(model, "ranks_within_queries_", False) \
            and data.y is not None:
        # the model was fitted within queries, which is how to judge it: graded labels without query ids would be
        # refused as a bipartite ranking's (advising --positive alone), and 0/1 labels would pool the rows of every
        # query into one list, judging scores that were never made to be compared across queries; --positive is
        # the explicit choice of one list
        raise CommandError(f"{data.source}: {args.model} was fitted within queries and ranks each query's rows by "
                           "their grades; give the rows' query ids (--qid COLUMN, or a LIBSVM file's qid: fields or "
                           "query file), or --positive LABEL to judge all the rows as one list (its scores of "
                           "different queries are not made to be compared)")
    if qid is None:
        positive = evaluation_positive(args, data, model, args.model)
        y = data.binary_target(positive, require_both=False)
    else:
        y = query_labels(args, data, specs)
    scores = with_init_scores(decision_scores(model, X), data)
    if qid is None and positive is None:
        announce_positive(args, data)
    found = None if qid is None else _per_query_values(y, scores, specs, qid)
    try:
        if args.ci is not None:
            table = interval_table(y, scores, specs, args, qid=qid)
        else:
            # with query ids each mean is per_query's (the same values and mean as evaluate's): the metrics run once
            values = evaluate(y, scores, specs, qid=qid) if found is None else {s: found[s].mean for s in specs}
            table = Table(["metric", "value"], [[spec, values[spec]] for spec in specs])
    except ValueError as exc:       # a grade beyond a metric's gains: said at its line of the file
        if qid is None or (error := grade_row_error(exc, data)) is None:
            raise
        raise error from None
    print(table.render(args.table_format))
    if found is not None:
        say_left_out_queries(args, data.source, found)
    if qid is None:
        say_one_list(args, data, specs, y)
    return 0


def say_one_list(args, data, specs: list[str], y) -> None:
    """Say on stderr that the metrics of rankings within queries (``ndcg@k``, ``map``...: a metric declaring
    ``task = "graded"``) judged the whole file as one list, without query ids; and, for a file of more than two
    labels (grades), that they read them as relevant or not.

    Without the line the value reads as the mean over queries that ``--qid`` gives, which it is not.
    """
    import numpy as np

    from ..registry import resolve

    listed = [spec for spec in specs if getattr(resolve("metric", spec), "task", None) == "graded"]
    if not listed or data.y is None:
        return
    labels = np.unique(data.y)
    graded = (f"; its {labels.size} labels read as relevant (1: {_relevant(data.y, y)}) or not (0), not as grades"
              if labels.size > 2 else "")
    info(args, f"{data.source}: {', '.join(listed)} judged all {data.n_samples} rows as one list (no query ids: "
               f"--qid COLUMN judges each query's rows){graded}")


def _relevant(labels, y01) -> str:
    """The file's label(s) read as relevant, as the user wrote them."""
    import numpy as np

    from ._common import _shown

    return ", ".join(_shown(v) for v in np.unique(np.asarray(labels)[np.asarray(y01) == 1])) or "none"


def _per_query_values(y, scores, specs: list[str], qid) -> dict | None:
    """Each metric's ``per_query`` values; None where one refuses the data (``evaluate`` then says it its way)."""
    from ..metrics import per_query

    try:
        return {spec: per_query(y, scores, spec, qid=qid) for spec in specs}
    except (ValueError, TypeError):
        return None


def say_left_out_queries(args, source: str, found: dict) -> None:
    """Say which metrics are means over fewer queries than the data holds, on stderr (stdout keeps the table).

    A query without a relevant row (a day without an incident) is left out of ``ndcg@k``, ``map`` and ``mrr`` by
    default and of the metrics undefined with one class (``auc``), while ``prec@k`` counts it as 0: the rows of
    one table can be means over different queries, which the numbers alone do not show.  ``found``: each spec's
    :func:`rankcore.metrics.per_query` values.
    """
    counted: dict[tuple[int, int], list[str]] = {}
    for spec, values in found.items():
        if values.n_left_out:
            counted.setdefault((values.n_counted, values.n_counted + values.n_left_out), []).append(spec)
    for (n_counted, n_queries), names in counted.items():
        info(args, f"{source}: {', '.join(names)} {'is a mean' if len(names) == 1 else 'are means'} over "
                   f"{n_counted} of the {n_queries} queries (a query is left out where the metric is undefined, "
                   "and by default where it has no relevant row)")
