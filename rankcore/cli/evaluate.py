"""``rankcore evaluate MODEL DATA --metrics ...``: top-of-list metrics of a saved model."""

from __future__ import annotations

from ._common import (
    DEFAULT_METRICS,
    Table,
    add_data_options,
    add_table_format_option,
    announce_positive,
    metric_specs,
)
from ._columns import load_for_model
from ._intervals import add_interval_options, interval_table
from ._models import check_model_missing, decision_scores


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "evaluate",
        help="metrics of a saved model on a labelled data file",
        description="Score DATA with a saved model and print ranking metrics against its labels. A model fitted "
                    "on named columns takes them by name, in any order.",
        epilog="example: rankcore evaluate model.json test.csv --metrics auc,rmax,prec@k:50,pauc:0.1 --ci 0.95",
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("data", metavar="DATA", help="labelled data: .csv (with a header), .svm/.libsvm, .npy or .npz")
    add_data_options(parser)
    parser.add_argument("--metrics", "-m", default=DEFAULT_METRICS, metavar="SPECS",
                        help=f"comma-separated metric specs (default {DEFAULT_METRICS}); any registered metric, "
                             "plugins included (`rankcore plugins --family metric`)")
    add_table_format_option(parser)
    add_interval_options(parser, random_state=True)
    return parser


def run(args) -> int:
    from ..metrics import evaluate
    from ..persistence import load_model

    specs = metric_specs(args.metrics)
    model = load_model(args.model)
    data, X = load_for_model(args, args.data, model, args.model)
    check_model_missing(model, args.model, data)
    y = data.binary_target(args.positive, require_both=False)
    scores = decision_scores(model, X)
    announce_positive(args, data)
    if args.ci is not None:
        print(interval_table(y, scores, specs, args).render(args.table_format))
        return 0
    values = evaluate(y, scores, specs)
    table = Table(["metric", "value"], [[spec, values[spec]] for spec in specs])
    print(table.render(args.table_format))
    return 0
