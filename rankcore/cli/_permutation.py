"""``rankcore explain MODEL DATA --permutation``: each feature's importance for a ranking metric, by shuffling it.

The library's :func:`rankcore.permutation_importance` on the file's rows:
any model (it needs no trees), the metric within queries with ``--qid``.
"""

from __future__ import annotations

import sys

from . import CommandError
from ._common import Table, announce_positive, info, positive_int, scalar_metric, seed

__all__ = ["add_permutation_options", "check_permutation_options", "run_permutation"]

#: Shuffles of each feature when --repeats is not given.
DEFAULT_REPEATS = 5
#: The options of one mode of explain, by destination, that the other mode refuses.
_CONTRIBUTION_OPTIONS = (("top", "--top"), ("features", "--features"), ("summary", "--summary"),
                         ("interactions", "--interactions"), ("per_row", "--per-row"))
_PERMUTATION_OPTIONS = (("scoring", "--scoring"), ("repeats", "--repeats"), ("random_state", "--random-state"),
                        ("within_queries", "--within-queries"))


def add_permutation_options(parser) -> None:
    group = parser.add_argument_group("permutation importance (--permutation)")
    group.add_argument("--permutation", action="store_true",
                       help="instead of contributions, each feature's permutation importance: how much the metric "
                            "(--scoring) drops (rises, for one better lower such as misrank) when the feature's "
                            "column is shuffled, the mean and standard "
                            "deviation over --repeats shuffles; any model, no trees needed; DATA needs its labels")
    group.add_argument("--scoring", metavar="SPEC",
                       help="the metric of --permutation, a registered scalar metric spec (ndcg@k:10, prec@k:0.05, "
                            "pauc:0.1, auc, ...); with --qid computed within each query and averaged; default: the "
                            "model's own score (ndcg@k:10 for a model fitted within queries)")
    group.add_argument("--repeats", metavar="N", type=positive_int,
                       help=f"shuffles of each feature (default {DEFAULT_REPEATS})")
    group.add_argument("--random-state", metavar="SEED", type=seed,
                       help="seed of the shuffles (default 0)")
    group.add_argument("--within-queries", action="store_true",
                       help="with --qid: shuffle each column within each query only (a feature constant within "
                            "every query then has importance 0)")


def check_permutation_options(args) -> None:
    """Refuse the options that belong to the other mode (every one of them defaults to None or False), before any
    file is read."""
    if not args.permutation:
        for dest, option in _PERMUTATION_OPTIONS:
            if getattr(args, dest) not in (None, False):
                raise CommandError(f"{option}: only with --permutation (the permutation importances)")
        return
    for dest, option in _CONTRIBUTION_OPTIONS:
        if getattr(args, dest) not in (None, False):
            raise CommandError(f"{option}: not with --permutation, which gives one importance per feature (it "
                               f"belongs to the feature contributions)")


def run_permutation(args) -> int:
    import numpy as np

    from .._state_fields import labels_coded
    from ..inspection import permutation_importance
    from ._columns import load_for_model, model_features
    from ._outputs import output_file, output_name
    from ._model_labels import evaluation_target
    from ._missing import check_scored_file
    from ._queries import query_labels
    from ._scored_model import load_scoring_model

    spec = _scoring(args.scoring)
    model, keep = load_scoring_model(args)
    if spec is None and not callable(getattr(model, "score", None)):       # a plugin's estimator may have none
        raise CommandError(f"--scoring: {args.model} is a {type(model).__name__}, which has no score method and so "
                           f"no metric of its own; name one with --scoring (pauc:0.1, auc, ndcg@k:10 with --qid, ...)")
    data, X = load_for_model(args, args.data, model, args.model, keep=keep, queries=True)
    check_scored_file(args, model, args.model, data)
    if args.within_queries and data.qid is None:
        raise CommandError("--within-queries: needs the rows' queries (--qid COLUMN, or a LIBSVM file's qid:)")
    positive = args.positive
    # the metric by name in every row: a file read later says what the importances are drops of, default or not
    metric = spec or own_score_metric(model)
    # a lower-is-better default (misrank) is computed as such: the model's score gives it as -misrank or
    # 1 - misrank, which the metric's name would mislabel; the importances are the same either way
    scoring = spec if spec is not None or not _lower_is_better(metric) else metric
    if data.qid is None:
        # the label the model file records; a file of only its other label has no relevant row
        positive, y = evaluation_target(args, data, model, args.model)
        classes = getattr(model, "classes_", None)
        if scoring is None and classes is not None and len(classes) == 2:
            y = np.asarray(classes)[y]          # the model's own score reads its two classes
    else:
        _check_own_score_in_queries(args, model, spec, data)
        y = query_labels(args, data, [spec] if spec else [], specs_option="--scoring")
    repeats = args.repeats or DEFAULT_REPEATS
    with labels_coded():        # y holds the model's codes, mapped from the file's labels above
        result = permutation_importance(model, X, y, qid=data.qid, scoring=scoring, n_repeats=repeats,
                                        random_state=args.random_state or 0,
                                        within="queries" if args.within_queries else "rows",
                                        init_score=data.init_score)
    if data.qid is None and positive is None:
        announce_positive(args, data)
    names = model_features(model) or list(data.feature_names)
    fmt = args.table_format or ("csv" if args.out else "text")
    order = np.argsort(-result.importances_mean, kind="stable")
    columns = ["feature", "importance", "std"] + ([] if fmt == "text" else ["baseline", "metric"])
    rows = [[names[j], float(result.importances_mean[j]), float(result.importances_std[j])]
            + ([] if fmt == "text" else [float(result.baseline), metric]) for j in order]
    text = Table(columns, rows).render(fmt)
    if fmt == "text":
        lower = _lower_is_better(metric)
        named = spec or f"{metric} (the model's {'metric' if lower else 'score'})"
        within = " within queries" if args.within_queries else ""
        shuffles = "1 shuffle" if repeats == 1 else f"{repeats} shuffles"
        text = (f"{named} {result.baseline:.4f}; importance = its {'rise' if lower else 'drop'} when the feature "
                f"is shuffled{within} (mean and std of {shuffles})\n{text}")
    if not args.out:
        if fmt == "text":           # a table to read: in the terminal's encoding
            print(text, file=sys.stdout)
        else:                       # CSV or JSON records: data, UTF-8 as in a file
            with output_file("-") as handle:
                handle.write(text + "\n")
        return 0
    with output_file(args.out, newline="") as handle:
        handle.write(text + "\n")
    info(args, f"wrote the permutation importances of {len(rows)} features to {output_name(args.out)}")
    return 0


def own_score_metric(model) -> str:
    """The spec of the metric the model's own ``score`` gives (``--permutation`` without ``--scoring``), from its
    public state: ``metric_`` (ExactBoost, AutoRanker), a push model's ``scoring`` (its default: ``auc`` on two
    labels, ``misrank`` on grades, ``ndcg@k:10`` within queries), the kernel's ``metric``, precision@k's
    ``prec@k:K``; ``"score"`` for a model that says none."""
    from ..push import QUERY_METRIC

    fitted = getattr(model, "metric_", None)
    if isinstance(getattr(fitted, "spec", fitted), str):
        return getattr(fitted, "spec", fitted)
    params = model.get_params(deep=False) if hasattr(model, "get_params") else {}
    if "scoring" in params and hasattr(model, "task_"):          # the push family
        scoring = params["scoring"]
        if scoring not in (None, "objective"):
            return str(getattr(scoring, "spec", scoring))
        if getattr(model, "ranks_within_queries_", False):
            return QUERY_METRIC
        return "misrank" if model.task_ == "graded" else "auc"
    for name, form in (("metric", "{}"), ("k", "prec@k:{}")):
        value = params.get(name)
        if isinstance(getattr(value, "spec", value), (str, int, float)) and not isinstance(value, bool):
            return form.format(getattr(value, "spec", value))
    return "score"


def _lower_is_better(spec: str) -> bool:
    """Whether ``spec`` is a registered scalar metric that is better lower (``misrank``); False for ``"score"``."""
    from ..registry import resolve

    try:
        metric = resolve("metric", spec)
    except (ValueError, TypeError):
        return False
    return bool(getattr(metric, "scalar", True)) and metric.greater_is_better is False


def _scoring(text: str | None) -> str | None:
    """The --scoring spec, checked before any file is read; every error about it names --scoring."""
    if not text:
        return None
    return scalar_metric(text, "--scoring")


def _check_own_score_in_queries(args, model, spec: str | None, data) -> None:
    """Rows in queries, no --scoring, no --positive: a model of one list scores by a metric of its two classes,
    which grades are not; one error saying what to give (evaluate defaults to metrics of grades instead)."""
    import numpy as np

    classes = getattr(model, "classes_", None)
    if spec is not None or args.positive is not None or classes is None or len(classes) != 2 \
            or getattr(model, "ranks_within_queries_", False) or np.isin(data.y, classes).all():
        return
    raise CommandError("--scoring: the model ranks one list, so its own score (a metric of its two classes) cannot "
                       "read the rows' relevance grades; name a metric of grades (--scoring ndcg@k:10, map, mrr, "
                       "err@k:10), or the relevant grade with --positive GRADE")
