"""``rankcore evaluate MODEL DATA --metrics ...``: top-of-list metrics of a saved model; ``rankcore evaluate DATA
--scores COLUMN[,COLUMN...]``: those of scores the file already has (another system's), with their paired differences.
"""

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
    stacked_csv,
)
from ._columns import load_for_model
from ._init_scores import SCORED_HELP, check_scored_with_init_scores, with_init_scores
from ._intervals import add_interval_options, interval_table, untested_difference
from ._model_labels import evaluation_target
from ._missing import check_scored_file
from ._models import decision_scores
from ._outputs import print_result
from ._queries import QUERY_METRICS, grade_row_error, query_defaults, query_labels


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "evaluate",
        help="metrics of a saved model, or of a file's columns of scores, on labelled data",
        description="Score DATA with a saved model and print ranking metrics against its labels. A model fitted "
                    "on named columns takes them by name, in any order. Without MODEL, --scores COLUMN judges "
                    "scores DATA already holds (another system's); with two or more columns, each one after the "
                    "first is also compared with the first, on the same queries. With query ids (--qid COLUMN, or a "
                    "LIBSVM file's qid: or query file) the labels are relevance grades >= 0 and each metric is the "
                    "mean over the queries of its value within each query; --ci then resamples whole queries.",
        epilog="examples: rankcore evaluate model.json test.csv --metrics auc,rmax,prec@k:50,pauc:0.1 --ci 0.95; "
               "rankcore evaluate run.csv --scores bm25,neural --qid qid --metrics ndcg@10,map,mrr --ci",
    )
    # both optional to argparse, which fills every positional at the first run of words it meets (an empty one
    # too): DATA after an option (`MODEL --metrics auc DATA`, `MODEL -- --odd-name`) is left over, and
    # _fill_positionals reads it; a lone path is DATA, judged by --scores
    parser.add_argument("model", metavar="MODEL", nargs="?",
                        help="a model file written by `rankcore fit` or rankcore.save_model (left out with --scores)")
    parser.add_argument("data", metavar="DATA", nargs="?",
                        help="labelled data: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, init_score=SCORED_HELP)
    parser.add_argument("--metrics", "-m", metavar="SPECS",
                        help=f"comma-separated metric specs (default {DEFAULT_METRICS}; with query ids "
                             f"{QUERY_METRICS}); any registered metric, plugins included "
                             "(`rankcore plugins --family metric`)")
    # appended: --scores bm25 --scores neural is the comparison --scores bm25,neural asks for, not neural alone
    parser.add_argument("--scores", metavar="COLUMNS", action="append",
                        help="comma-separated CSV columns of scores to judge instead of a model's (e.g. bm25,neural: "
                             "higher ranks first, finite numbers on every row; the option may be repeated); each "
                             "column after the first is also compared with the first: the difference, its interval "
                             "(at --ci, else 0.95) and the paired bootstrap's p-value")
    parser.add_argument("--id", metavar="COLUMN", dest="id_column",
                        help="with --scores: the CSV column of document ids; a document listed twice in one query "
                             "(a run lists each once, as trec_eval reads it) is warned about, with its lines")
    add_table_format_option(parser)
    add_interval_options(parser, random_state=True)
    # as every command takes it: a script's `-q` is not refused here; warnings are still said
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages (the table alone)")
    parser.set_defaults(_fill_positionals=_fill_positionals)
    return parser


def _fill_positionals(args, extras: list[str]) -> list[str]:
    """MODEL and DATA from the words argparse left over (those after an option, or after ``--``); the words that
    are still not this command's.  One path alone is DATA, whose own columns ``--scores`` judges."""
    left, positional = [], False
    for word in extras:
        if word == "--" and not positional:
            positional = True
        elif (positional or word == "-" or not word.startswith("-")) and args.data is None:
            args.model, args.data = (word, None) if args.model is None else (args.model, word)
        else:
            left.append(word)
    if args.data is None:       # before standard input is read: `evaluate - --scores COLUMN` reads DATA from it
        args.model, args.data = None, args.model
    return left


def run(args) -> int:
    from ..metrics import evaluate
    from ..persistence import load_model

    if args.data is None:
        raise CommandError("evaluate: give MODEL DATA (a saved model scores DATA), or DATA --scores COLUMN (the "
                           "scores DATA already holds)")
    specs = metric_specs(args.metrics) if args.metrics else None   # a bad spec fails before any reading
    if args.scores is not None or args.model is None:
        return _run_scores(args, specs)
    if args.id_column is not None:
        raise CommandError("--id: names the document ids of the rows --scores judges; a model's rows need none "
                           "(leave out --id, or judge the file's own scores with --scores)")
    model = load_model(args.model)
    check_scored_with_init_scores(model, args.model, args.init_score)
    data, X = load_for_model(args, args.data, model, args.model, queries=True)
    qid = data.qid
    specs = specs or metric_specs(DEFAULT_METRICS if qid is None else query_defaults(QUERY_METRICS, qid))
    check_scored_file(args, model, args.model, data)
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
        # the label the model file records; a file of only its other label has no relevant row
        positive, y = evaluation_target(args, data, model, args.model)
        refuse_one_class(data, specs, y, args.ci is not None)
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
    except ValueError as exc:       # a grade beyond a metric's gains, no query counted: said of the file
        if qid is None or (error := grade_row_error(exc, data) or no_query_error(exc, data, y, qid, specs)) is None:
            raise
        raise error from None
    print_result(table.render(args.table_format), args.table_format)
    if found is not None:
        say_left_out_queries(args, data.source, found)
    if qid is None:
        say_one_list(args, data, specs, y)
    return 0


def refuse_one_class(data, specs: list[str], y, interval: bool) -> None:
    """Refuse, naming them all, the metrics a file of one class leaves undefined (``auc``, ``misrank``...).

    A week without a relevant row is judged, but the library's refusal names one metric, the first, as its
    argument ``y``: the user would drop it from ``--metrics`` and be refused for the next.  Which metrics are
    undefined is asked of each metric on these labels (:func:`_one_class_refusal`), so a plugin's, a graded metric
    without a relevant row and ``misrank`` are named too, and the metrics suggested instead are ones these rows
    define.  With ``--ci`` every metric's interval needs two rows of each class
    (:func:`_refuse_interval_of_one_class`).
    """
    import numpy as np

    y = np.asarray(y)
    if interval:
        _refuse_interval_of_one_class(data, y)
        return
    if y.size == 0 or (y.any() and not y.all()):
        return
    which = "every" if y.all() else "no"
    judged = {spec: _one_class_refusal(spec, y) for spec in specs}
    undefined = [spec for spec, refused in judged.items() if refused == "classes"]
    if not undefined:
        return
    defined = [spec for spec, refused in judged.items() if refused is None] or [f"prec@k:{min(10, y.size)}"]
    raise CommandError(f"{data.source}: {which} row is relevant, and {', '.join(undefined)} "
                       f"{'needs' if len(undefined) == 1 else 'need'} both classes: judge the file by metrics "
                       f"defined on one class (--metrics {','.join(defined)}), or pool it with other files")


def _refuse_interval_of_one_class(data, y) -> None:
    """Refuse ``--ci`` on a file with fewer than two rows of a class, in the command's words: the bootstrap
    resamples each class apart, and the library's refusal names its argument ``y``, not the file."""
    import numpy as np

    relevant = int(np.count_nonzero(y))
    other = int(y.size) - relevant
    if min(relevant, other) >= 2:
        return
    what = "no row is relevant" if relevant == 0 else "every row is relevant" if other == 0 else \
        f"{relevant} row{'s' if relevant != 1 else ''} relevant and {other} not"
    raise CommandError(f"{data.source}: {what}, and a confidence interval (--ci) needs at least two rows of each "
                       "class (the bootstrap resamples each class apart): judge the file without --ci (prec@k is "
                       "defined on one class), or pool it with other files")


def no_query_error(exc: Exception, data, y, qid, specs: list[str]) -> CommandError | None:
    """A metric's refusal to count none of the queries (``y: metric 'ndcg@k:10' counts none of the 4 queries``)
    said of the file, with what to do; None for any other error.

    A file without a relevant row in any query (a quiet week of per-query data) is the usual cause: each metric
    that leaves such queries out (``empty=skip``, the default; ``auc``: undefined there) has nothing to average,
    and all of them are named, not the first alone.  O(m · n log n) for m metrics, once, on the way out.
    """
    import numpy as np

    from ..metrics import MetricRefusal

    if not isinstance(exc, MetricRefusal) or exc.reason != "no_query":
        return None
    n = f"{exc.n_queries} quer{'ies' if exc.n_queries != 1 else 'y'}" if exc.n_queries is not None else "queries"
    if np.any(np.asarray(y, dtype=np.float64) > 0):
        return CommandError(f"{data.source}: {exc.spec} counts none of the {n}: {exc.detail}")
    refused = [spec for spec in specs if _counts_no_query(y, qid, spec)] or [exc.spec]
    counted = [_counting_empty(spec) for spec in refused]
    kept = [spec for spec in specs if spec not in refused]
    way = ",".join(kept + [spec for spec in counted if spec is not None] or ["prec@k:10"])
    return CommandError(f"{data.source}: no query has a relevant row (every grade is 0), and {', '.join(refused)} "
                        f"{'leaves' if len(refused) == 1 else 'leave'} out a query without one, so count"
                        f"{'s' if len(refused) == 1 else ''} none of the {n}: judge it with --metrics {way} "
                        "(empty=0 and prec@k count such a query as 0), or pool the file with others")


def _counts_no_query(y, qid, spec: str) -> bool:
    """Whether ``spec`` refuses the labels ``y`` of the queries ``qid`` for counting none of them."""
    import numpy as np

    from ..metrics import MetricRefusal, per_query

    try:
        per_query(y, np.zeros(np.shape(y)[0]), spec, qid=qid)
    except MetricRefusal as exc:
        return exc.reason == "no_query"
    except (ValueError, TypeError):
        return False
    return False


def _counting_empty(spec: str) -> str | None:
    """``spec`` counting a query without a relevant row as 0 (``ndcg@k:10,empty=0``, ``map:empty=0``); None for a
    metric without ``empty=`` (``auc``: undefined on such a query)."""
    from ..registry import resolve

    counted = spec + ("," if ":" in spec else ":") + "empty=0"
    try:
        resolve("metric", counted)
    except (ValueError, TypeError):
        return None
    return counted


def _one_class_refusal(spec: str, y) -> str | None:
    """How the metric ``spec`` takes the one-class 0/1 labels ``y``: None (defined), ``"classes"`` (refused for
    their one class) or ``"other"`` (refused otherwise, a count k beyond the rows: the evaluation says it).
    O(n log n): one evaluation on tied scores."""
    import warnings

    import numpy as np

    from ..metrics import MetricRefusal, evaluate

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # said, if at all, by the evaluation the file is judged by
            evaluate(y, np.zeros(y.shape[0]), [spec])
    except MetricRefusal as exc:
        return "classes" if exc.reason in ("labels", "no_query") else "other"
    except (ValueError, TypeError):
        return "other"
    return None


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


def _run_scores(args, specs: list[str] | None) -> int:
    """``evaluate DATA --scores COLUMNS``: each column's metrics, then each later column against the first.

    The scores are judged as they are (higher ranks first), as a model's are: the same labels, query ids,
    default metrics and notes on standard error.
    """
    from ._score_columns import load_scored, score_columns, warn_repeated_documents

    if args.scores is None:
        raise CommandError("evaluate: give MODEL DATA (a saved model scores DATA), or DATA --scores COLUMN (the "
                           "scores DATA already holds)")
    if args.model is not None:
        raise CommandError(f"--scores: judges DATA's own columns of scores, without a model; give DATA alone, not "
                           f"{args.model} too")
    data, columns = load_scored(args, score_columns(",".join(args.scores)))
    qid = data.qid
    if args.id_column is not None:
        warn_repeated_documents(args, data)
    specs = specs or metric_specs(DEFAULT_METRICS if qid is None else query_defaults(QUERY_METRICS, qid))
    y = data.binary_target(args.positive, require_both=False) if qid is None else query_labels(args, data, specs)
    if qid is None:
        refuse_one_class(data, specs, y, args.ci is not None)
    try:
        found = {name: _per_query_values(y, scores, specs, qid) for name, scores in columns.items()} \
            if qid is not None else {}
        table = _columns_table(y, columns, specs, args, qid, found)
        differences = _differences_table(y, columns, specs, args, qid) if len(columns) > 1 else None
    except ValueError as exc:       # a grade beyond a metric's gains, no query counted: said of the file
        if qid is None or (error := grade_row_error(exc, data) or no_query_error(exc, data, y, qid, specs)) is None:
            raise
        raise error from None
    print_result(_render(table, differences, args), args.table_format)
    if qid is None and args.positive is None:
        announce_positive(args, data)
    # which queries a metric leaves out depends on the labels alone (no relevant row, one class): said once
    said = next((values for values in found.values() if values is not None), None)
    if said is not None:
        say_left_out_queries(args, data.source, said)
    if qid is None:
        say_one_list(args, data, specs, y)
    return 0


def _columns_table(y, columns: dict, specs: list[str], args, qid, found: dict) -> Table:
    """``metric, value`` (``lower, upper, method`` with ``--ci``) for one column; ``scores`` first for several."""
    from ..metrics import evaluate

    several = len(columns) > 1
    rows = []
    for name, scores in columns.items():
        if args.ci is not None:
            part = interval_table(y, scores, specs, args, qid=qid)
            rows += [[name, *row] if several else row for row in part.rows]
            continue
        known = found.get(name)
        values = evaluate(y, scores, specs, qid=qid) if known is None else {s: known[s].mean for s in specs}
        rows += [[name, spec, values[spec]] if several else [spec, values[spec]] for spec in specs]
    header = ["metric", "value"] + (["lower", "upper", "method"] if args.ci is not None else [])
    return Table(["scores", *header] if several else header, rows)


def _differences_table(y, columns: dict, specs: list[str], args, qid) -> Table:
    """Each column after the first against the first, on the same rows or queries: the difference (the column's
    value minus the first's), its interval at ``--ci`` (0.95 without it) and the paired test's p-value."""
    from ..metrics import TooFewPairedQueries, compare

    names = list(columns)
    first = names[0]
    rows, refused = [], None
    for spec in specs:
        for name in names[1:]:
            try:
                d = compare(y, columns[name], columns[first], spec, level=args.ci or 0.95, n_boot=args.n_boot,
                            random_state=args.random_state, qid=qid)
            except TooFewPairedQueries as exc:
                # the values stand, and so does the difference of their means; only the test is refused
                rows.append([spec, name, first, *untested_difference(y, columns[name], columns[first], spec, qid)])
                refused = refused or exc
                continue
            except ValueError as exc:
                # the comparison comes with a second column, asked for or not: its refusal (too few queries or
                # rows of a class for an interval) must say so, and how to get the values the data does allow
                raise CommandError(f"--scores: comparing {name!r} with {first!r} on {spec} (each column after the "
                                   f"first is compared with it): {exc}; for each column's values alone, give "
                                   "--scores one column at a time") from None
            rows.append([spec, name, first, d.difference, d.lower, d.upper, d.p_value, d.method])
    if refused is not None:
        import warnings

        warnings.warn(f"--scores: the differences have no interval or p-value: {refused}", UserWarning,
                      stacklevel=2)
    return Table(["metric", "scores", "against", "delta", "lower", "upper", "p", "method"], rows)


def _render(table: Table, differences: Table | None, args) -> str:
    """The metrics table, then the differences under a title (JSON: one object with both, keyed)."""
    import json

    if differences is None:
        return table.render(args.table_format)
    if args.table_format == "json":
        return json.dumps({"metrics": json.loads(table.render("json")),
                           "differences": json.loads(differences.render("json"))}, indent=1)
    if args.table_format == "csv":          # one parseable CSV: each row's table named in its first column
        return stacked_csv([("metrics", table), ("differences", differences)])
    level = f"{100 * (args.ci or 0.95):g}%"
    title = f"paired differences (delta: scores - against), {level} interval, p-value"
    return f"{table.render(args.table_format)}\n\n{title}\n{differences.render(args.table_format)}"
