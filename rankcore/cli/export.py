"""``rankcore export MODEL --format lightgbm|xgboost-json|xgboost-model -o OUT``: a saved model in another library's
model format."""

from __future__ import annotations

import argparse

from . import CommandError
from ._common import add_force_option, check_output, info

#: The formats ``--format`` takes: (the estimator's method writing it, what the file is).
FORMATS = {"lightgbm": ("to_lightgbm", "a LightGBM model"),
           "xgboost-json": ("to_xgboost_json", "an XGBoost JSON dump"),
           "xgboost-model": ("to_xgboost_model", "an XGBoost model")}
#: The Python API's advice in the estimators' refusals a model file can reach, and the command line's, replaced in
#: this order.  (A ``lightgbm`` / ``xgboost`` candidate's advice is not here: such an ``auto`` model is not saved.)
CLI_ADVICE = (
    ("export with to_xgboost_model (an XGBoost model file) or to_lightgbm",
     "export with --format xgboost-model (an XGBoost model file) or --format lightgbm"),
    ("export with to_xgboost_model or to_lightgbm", "export with --format xgboost-model or --format lightgbm"),
    ("export with to_lightgbm", "export with --format lightgbm"),
    ("candidates=['trees']", "`rankcore auto --candidates trees`"),
    ("blend=False", "--no-blend"),
    ("X.astype({col: float}) for numeric categories", "left out of --categorical, numbers in the data file"),
    ("or pass feature_names", "or pass --feature-names"),
    ("learner='trees' or 'stumps'", "`rankcore fit --learner trees` or `--learner stumps`"),
    ("refit with the column numeric", "refit with the column left out of --categorical (numbers in the data file)"),
)


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "export",
        help="write a saved model of trees or stumps as a LightGBM model file, an XGBoost JSON dump or an XGBoost "
             "model file",
        description="Write a saved model in another library's format, so that engines and tools reading that "
                    "format can serve it. --format lightgbm writes LightGBM's text model file: "
                    "lightgbm.Booster(model_file=OUT).predict(X, raw_score=True) gives the scores `rankcore score` "
                    "gives. The file holds the trees alone: for a model fitted from initial scores (`rankcore fit "
                    "--init-score`) it is the correction, to which the rows' initial scores must be added (a "
                    "warning says so). --format xgboost-json writes XGBoost's JSON dump (a "
                    "list of trees, split by feature name), the format of the Elasticsearch / OpenSearch Learning "
                    "to Rank plugin (model/xgboost+json) and of Vespa's xgboost feature: exact for features given "
                    "as float32 values; categorical splits are refused. --format xgboost-model writes an XGBoost "
                    "model file (JSON) that xgboost.Booster loads, categorical splits included: its output_margin "
                    "scores are `rankcore score`'s to float32 rounding. Models of trees (any growth) and stumps "
                    "are exported, and an `auto` model whose choice is trees or stumps: one refit, or its fold "
                    "bag as one file of every model's weighted trees; others (linear, kernel, ExactBoost, blends) "
                    "are refused.",
        epilog="examples:\n  rankcore export trees.json --format lightgbm -o trees-lightgbm.txt\n"
               "  rankcore export trees.json --format xgboost-json -o trees-xgboost.json\n"
               "  rankcore export trees.json --format xgboost-model -o trees-xgboost-model.json\n"
               "  rankcore export trees.json -o -          (to standard output)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("--format", default="lightgbm", choices=tuple(FORMATS),
                        help="the model format to write (default: lightgbm)")
    parser.add_argument("--out", "-o", metavar="OUT", required=True,
                        help="the file to write ('-': standard output)")
    parser.add_argument("--feature-names", metavar="NAMES",
                        help="the features' names, in column order, written in place of the model's (its data "
                             "file's header or a LIBSVM file's indices f1, f2, ... (f0, ... if 0-based); without names "
                             "f0, f1, ... / Column_0, ...): comma-separated, or @FILE for a "
                             "file of one name per line")
    add_force_option(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    return parser


def run(args) -> int:
    import warnings

    from ..persistence import load_model, write_text_atomically

    to_stdout = args.out == "-"
    if not to_stdout:
        check_output(args.out, "--out", inputs={"MODEL": args.model}, force=args.force)
    method, what = FORMATS[args.format]
    names = feature_names_option(args.feature_names)
    model = load_model(args.model)
    export = getattr(model, method, None)
    if export is None:
        raise CommandError(f"{args.model}: a model of {type(model).__name__} cannot be written as {what} "
                           f"(only boosted trees or stumps: `rankcore fit DATA --learner trees`)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = export(**({} if names is None else {"feature_names": names}))
        except (TypeError, ValueError) as exc:   # weak rankers that are not trees, splits the format cannot hold
            if names is not None and str(exc).startswith("feature_names:"):
                raise CommandError(f"--feature-names: {cli_advice(str(exc).removeprefix('feature_names: '))}") from None
            raise CommandError(f"{args.model}: {cli_advice(str(exc))}") from None
    for warning in caught:                       # each names the model file, as the errors do
        warnings.warn(f"{args.model}: {warning.message}", warning.category, stacklevel=2)
    if to_stdout:
        from ._outputs import stdout_data

        with stdout_data() as handle:
            handle.write(text)
    else:
        from ._stdin import ended_by_signals

        with ended_by_signals():                 # SIGTERM in the write: no temporary file left
            write_text_atomically(text, args.out)
        info(args, f"wrote {_written(model)} of {args.model} as {what} to {args.out}")
    return 0


def _written(model) -> str:
    """What the file holds: ``N trees`` or ``N stumps``; of an AutoRanker, its choice's (a fold bag's, in turn)."""
    from ..auto import AutoRanker, FoldBag

    if not isinstance(model, AutoRanker):
        return _rankers_written(model.rankers_)
    best, name = model.best_estimator_, model.best_candidate_
    if not isinstance(best, FoldBag):
        return f"{_rankers_written(best.rankers_)} (the refit of {name!r})"
    rankers = [r for estimator in best.estimators for r in estimator.rankers_]
    if not rankers:
        return f"1 tree (the fold bag of {name!r}: its {len(best.estimators)} models grew none; its constant)"
    return (f"{len(rankers) + 1} trees (the fold bag of {name!r}: its {len(best.estimators)} models' "
            f"{_rankers_written(rankers)}, weighted, and its constant)")


def cli_advice(message: str) -> str:
    """An estimator's refusal with its Python advice (``blend=False``, ``to_lightgbm``, ...) as the command
    line's options (:data:`CLI_ADVICE`)."""
    for python, cli in CLI_ADVICE:
        message = message.replace(python, cli)
    return message


def _rankers_written(rankers) -> str:
    """``N trees`` or ``N stumps``, as the weak rankers are."""
    kinds = {getattr(r, "kind", None) for r in rankers}
    n = len(rankers)
    noun = "stump" if kinds == {"threshold"} else "tree"
    return f"{n} {noun}{'' if n == 1 else 's'}"


def feature_names_option(text: str | None) -> list[str] | None:
    """``--feature-names``: ``"a,b,c"``, or ``"@FILE"`` naming a UTF-8 file of one name per line (blank lines at
    its end ignored); each name stripped of surrounding whitespace.  An empty name is an error naming the option."""
    if text is None:
        return None
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8-sig") as handle:   # a BOM (Notepad, Excel) is no name
                names = handle.read().rstrip("\r\n").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--feature-names: cannot read the file of names {text[1:]!r}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
        where = "line"
    else:
        names, where = text.split(","), "name"
    names = [name.strip() for name in names]
    for k, name in enumerate(names, 1):
        if not name:
            raise CommandError(f"--feature-names: {where} {k} is empty; give one nonempty name per feature, "
                               f"in column order")
    return names
