"""``rankcore export MODEL --format lightgbm|xgboost-json -o OUT``: a saved model in another library's model format."""

from __future__ import annotations

import argparse

from . import CommandError
from ._common import add_force_option, check_output, info

#: The formats ``--format`` takes: (the estimator's method writing it, what the file is).
FORMATS = {"lightgbm": ("to_lightgbm", "a LightGBM model"),
           "xgboost-json": ("to_xgboost_json", "an XGBoost JSON dump")}


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "export",
        help="write a saved model of trees or stumps as a LightGBM model file or an XGBoost JSON dump",
        description="Write a saved model in another library's format, so that engines and tools reading that "
                    "format can serve it. --format lightgbm writes LightGBM's text model file: "
                    "lightgbm.Booster(model_file=OUT).predict(X, raw_score=True) gives the scores `rankcore score` "
                    "gives. The file holds the trees alone: for a model fitted from initial scores (`rankcore fit "
                    "--init-score`) it is the correction, to which the rows' initial scores must be added (a "
                    "warning says so). --format xgboost-json writes XGBoost's JSON dump (a "
                    "list of trees, split by feature name), the format of the Elasticsearch / OpenSearch Learning "
                    "to Rank plugin (model/xgboost+json) and of Vespa's xgboost feature: exact for features given "
                    "as float32 values; categorical splits are refused. Models of trees (any growth) and stumps "
                    "are exported, and an `auto` model whose choice is one refit of trees; others (linear, "
                    "kernel, ExactBoost, blends, fold bags) are refused.",
        epilog="examples:\n  rankcore export trees.json --format lightgbm -o trees-lightgbm.txt\n"
               "  rankcore export trees.json --format xgboost-json -o trees-xgboost.json\n"
               "  rankcore export trees.json -o -          (to standard output)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("--format", default="lightgbm", choices=tuple(FORMATS),
                        help="the model format to write (default: lightgbm)")
    parser.add_argument("--out", "-o", metavar="OUT", required=True,
                        help="the file to write ('-': standard output)")
    add_force_option(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    return parser


def run(args) -> int:
    import sys
    import warnings

    from ..persistence import load_model, write_text_atomically

    to_stdout = args.out == "-"
    if not to_stdout:
        check_output(args.out, "--out", inputs={"MODEL": args.model}, force=args.force)
    method, what = FORMATS[args.format]
    model = exported_model(load_model(args.model), args.model, what)
    export = getattr(model, method, None)
    if export is None:
        raise CommandError(f"{args.model}: a model of {type(model).__name__} cannot be written as {what} "
                           f"(only boosted trees or stumps: `rankcore fit DATA --learner trees`)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = export()
        except (TypeError, ValueError) as exc:   # weak rankers that are not trees, splits the format cannot hold
            raise CommandError(f"{args.model}: {exc}") from None
    for warning in caught:                       # each names the model file, as the errors do
        warnings.warn(f"{args.model}: {warning.message}", warning.category, stacklevel=2)
    if to_stdout:
        sys.stdout.write(text)
    else:
        write_text_atomically(text, args.out)
        info(args, f"wrote {_rankers_written(model)} of {args.model} as {what} to {args.out}")
    return 0


def exported_model(model, path: str, what: str):
    """The estimator to export: ``model`` itself, or the single refit of trees an AutoRanker chose.

    An AutoRanker scores rows by its ``best_estimator_``'s
    ``decision_function`` when that is one refitted candidate (a = 1, b = 0):
    that estimator -- with the AutoRanker's column names and DataFrame
    categories, which its codes index -- is exported.  A blend, a fold bag
    or a candidate without trees is refused, saying which.
    """
    from ..auto import AutoRanker, FoldBag, RankAverage

    if not isinstance(model, AutoRanker):
        return model
    best, name = model.best_estimator_, model.best_candidate_
    python = ("from Python, auto.best_estimator_ is the chosen model (a blend's members are its estimators, a fold "
              "bag's its estimators)")
    if isinstance(best, RankAverage):
        why = "a rank-average blend of several candidates, whose score no tree ensemble gives (fit with --no-blend)"
    elif isinstance(best, FoldBag):
        why = ("a fold bag, the refit averaged with the candidate's fold models, which no single tree ensemble "
               "gives (fit with --no-bag-folds)")
    elif not hasattr(best, "to_lightgbm"):
        why = f"a {type(best).__name__}, not a model of boosted trees or stumps"
    else:
        import copy

        single = copy.copy(best)     # the AutoRanker's own attributes, without changing its model
        for attribute in ("feature_names_in_", "categories_"):
            if getattr(model, attribute, None) is not None and getattr(best, attribute, None) is None:
                setattr(single, attribute, getattr(model, attribute))
        return single
    raise CommandError(f"{path}: the AutoRanker's choice {name!r} is {why}; it cannot be written as {what} ({python})")


def _rankers_written(model) -> str:
    """``N trees`` or ``N stumps``, as the model's weak rankers are."""
    kinds = {getattr(r, "kind", None) for r in model.rankers_}
    n = len(model.rankers_)
    noun = "stump" if kinds == {"threshold"} else "tree"
    return f"{n} {noun}{'' if n == 1 else 's'}"
