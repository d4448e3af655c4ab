"""``rankcore explain MODEL DATA``: the features that put the top rows on top (feature contributions), the pairs of
features that act together (``--interactions``: SHAP interaction values), or each feature's permutation importance
for a ranking metric (``--permutation``)."""

from __future__ import annotations

import argparse
import sys

from . import CommandError
from ._background import BACKGROUND_HELP, GROUPS_HELP, check_background_options, read_background, read_groups
from ._columns import load_for_model, model_features
from ._common import add_data_options, add_force_option, info, positive_int
from ._outputs import output_file, output_name
from ._explanations import Explanations, _item, ranked_rows, write, write_summary
from ._interaction_output import split_features, write_interaction_summary, write_interactions_per_row
from ._init_scores import SCORED_HELP, with_init_scores
from ._missing import check_scored_file
from ._models import decision_scores, describe_estimator
from ._scored_model import load_scoring_model
from ._permutation import add_permutation_options, check_permutation_options, run_permutation

#: Rows shown by the text output when --top is not given (the CSV and JSON outputs hold every row).
DEFAULT_TOP = 10
#: Contributions shown per row by the text output when --features is not given.
DEFAULT_FEATURES = 3


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "explain",
        help="the features that put the top rows of a data file on top (feature contributions)",
        description="Score every row of DATA with a saved model and say why the top rows are on top: each row's\n"
                    "score is the model's expected score plus one contribution per feature (exact TreeSHAP\n"
                    "values, so a model of trees: rankcore fit --learner trees; or an exactboost model, a sum of\n"
                    "stumps, whose values are exact too). The text output lists the --top\n"
                    "rows (default 10; of each query with --qid) with their --features largest contributions;\n"
                    "--table-format csv or json, or --out FILE, gives every row (the --top rows if given) with one\n"
                    "contribution column per feature. Rows are listed from the top, ranked as `rankcore score\n"
                    "--rank` ranks them. A model fitted from initial scores (rankcore fit --init-score) needs\n"
                    "--init-score COLUMN: the contributions explain its correction, the initial score is one more\n"
                    "term (init_score). --permutation says instead how much a ranking metric (--scoring; the\n"
                    "model's own score by default) drops when each feature's column is shuffled: any model, one\n"
                    "table of features. --interactions ranks the pairs of features by their mean |SHAP interaction\n"
                    "value| over the rows (--per-row: each row's values, one record per row and pair).\n"
                    "--background FILE gives interventional SHAP values instead: each contribution (or, with\n"
                    "--interactions, each pair's value) averaged over FILE's rows, the expected score their mean\n"
                    "score; --groups a+b+c makes columns one player.",
        epilog="examples:\n"
               "  rankcore explain trees.json loans.csv --id loan --top 20\n"
               "  rankcore explain trees.json loans.csv --id loan --out contributions.csv\n"
               "  rankcore explain trees.json loans.csv --id loan --background sample.csv\n"
               "  rankcore explain trees.json loans.csv --background sample.csv --groups red+green+blue\n"
               "  rankcore explain trees.json queries.csv --qid query --top 3 --features 5\n"
               "  rankcore explain model.json queries.csv --qid query --permutation --scoring ndcg@k:5\n"
               "  rankcore explain trees.json loans.csv --interactions --out pairs.csv\n"
               "  rankcore explain trees.json loans.csv --id loan --interactions --per-row --out tidy.csv",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("data", metavar="DATA",
                        help="rows to explain: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, init_score=SCORED_HELP)
    parser.add_argument("--id", metavar="COLUMN", dest="id_column",
                        help="name the rows by this CSV column (an identifier, not a feature) instead of their row "
                             "number (1 = the first row of data)")
    parser.add_argument("--top", metavar="N", type=positive_int,
                        help=f"the N top-scored rows (of each query with --qid); default {DEFAULT_TOP} in the text "
                             "output, every row in CSV and JSON")
    parser.add_argument("--features", metavar="K", type=positive_int,
                        help="the text output shows each row's K largest contributions by absolute value (default 3)")
    parser.add_argument("--summary", action="store_true",
                        help="instead of the rows, each feature's mean |contribution| and mean contribution over "
                             "every row (or the --top rows of each query), the features by the first: what drives "
                             "the scores, or the top of the list")
    parser.add_argument("--table-format", choices=("text", "csv", "json"),
                        help="text (default on standard output), csv (default with --out: columns row or the --id "
                             "column, the query, rank, score, expected, then contribution:FEATURE for each feature) "
                             "or json (the same, as records)")
    parser.add_argument("--out", "-o", metavar="FILE.csv", help="write the output here (default: standard output)")
    add_force_option(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    group = parser.add_argument_group("interaction values (--interactions)")
    group.add_argument("--interactions", action="store_true",
                       help="instead of contributions, the pairs of features by their mean |SHAP interaction value| "
                            "over every row (or the --top rows of each query), with the mean value: columns "
                            "feature_i, feature_j, mean_abs_interaction, mean_interaction (a pair moves a score by "
                            "twice its value beyond the two main effects); the text output shows the pairs whose "
                            "mean is not 0, the K strongest with --features K")
    group.add_argument("--per-row", action="store_true",
                       help="with --interactions: each row's values instead, one record per row and pair "
                            "feature_i <= feature_j whose value is not 0 (the same feature twice: its main effect)")
    add_permutation_options(parser)
    parser.add_argument("--background", metavar="FILE", help=BACKGROUND_HELP)
    parser.add_argument("--groups", metavar="A+B,C+D", help=GROUPS_HELP)
    return parser


def run(args) -> int:
    import numpy as np

    check_permutation_options(args)
    check_interaction_options(args)
    check_background_options(args)
    if args.permutation:
        return run_permutation(args)
    model, keep = load_scoring_model(args)
    check_explains(model, args.model, "feature_interactions" if args.interactions else "feature_contributions")
    data, X = load_for_model(args, args.data, model, args.model, require_label=False, keep=keep, queries=True)
    background = read_background(args, model, args.model) if args.background else None
    names = model_features(model) or list(data.feature_names)
    labels, players = None, None
    if args.groups is not None:
        labels, player_names, players = read_groups(args.groups, names)

    def explain(rows):
        return contributions(model, args.model, X.iloc[rows] if hasattr(X, "iloc") else X[rows],
                             data.n_features if labels is None else len(players), background, labels)

    def pairs(rows):
        return interaction_values(model, args.model, X.iloc[rows] if hasattr(X, "iloc") else X[rows],
                                  data.n_features if labels is None else len(players), background, labels)

    # one row first: a model that cannot explain its scores (stumps) is refused for that, before its other checks
    (pairs if args.interactions else explain)(np.arange(1))
    check_scored_file(args, model, args.model, data)
    scores = with_init_scores(decision_scores(model, X), data)
    explained = Explanations(data=data, scores=scores, contributions=explain, id_column=args.id_column,
                             names=names if labels is None else player_names, players=players, column_names=names)
    fmt = args.table_format or ("csv" if args.out else "text")
    top = args.top if args.top is not None or fmt != "text" or args.summary or args.interactions else DEFAULT_TOP
    rows, ranks = ranked_rows(scores, data.qid, top)
    used = split_features(model, len(names))          # the others' rows and columns are 0: not summed
    used = used if labels is None else np.unique(labels[used])         # the players of those columns

    def output(handle):
        if args.interactions and args.per_row:
            write_interactions_per_row(pairs, explained.names, rows, _lead_columns(explained, rows, ranks), fmt,
                                       handle, used)
        elif args.interactions:
            write_interaction_summary(pairs, explained.names, rows, fmt, args.features, handle, used)
        elif args.summary:
            write_summary(explained, rows, fmt, handle)
        else:
            write(explained, rows, ranks, fmt, args.features or DEFAULT_FEATURES, handle)

    if not args.out:
        if fmt == "text":           # a table to read: in the terminal's encoding
            output(sys.stdout)
        else:                       # CSV or JSON records: data, UTF-8 as in a file
            with output_file("-") as handle:
                output(handle)
        return 0
    with output_file(args.out, newline="") as handle:
        output(handle)
    what = "contributions"
    if args.interactions:
        what = "interaction values" if args.per_row else "mean interaction of each pair of features"
    summary = "summary of the " if args.summary else ""
    info(args, f"wrote the {summary}{what} of {rows.shape[0]} rows to {output_name(args.out)}")
    return 0


def check_interaction_options(args) -> None:
    """Refuse, before any file is read, --per-row without --interactions and the options --interactions has no use
    for."""
    if args.per_row and not args.interactions:
        raise CommandError("--per-row: only with --interactions (each row's SHAP interaction values)")
    if args.interactions and args.summary:
        raise CommandError("--summary: not with --interactions, whose output is already a summary over the rows "
                           "(the pairs by mean |interaction|; --per-row for each row's values)")
    if args.interactions and args.per_row and args.features is not None:
        raise CommandError("--features: not with --interactions --per-row, which lists every non-zero value (with "
                           "--interactions alone it limits the text output to the K strongest pairs)")


def check_explains(model, model_path: str, method: str = "feature_contributions") -> None:
    """Refuse, before any data are read, a model that has no ``method`` (``feature_contributions`` or
    ``feature_interactions``)."""
    if not callable(getattr(model, method, None)):
        values = "SHAP interaction values" if method == "feature_interactions" else "feature contributions"
        raise CommandError(f"the model {model_path} ({describe_estimator(model)}) cannot explain its scores: "
                           f"{values} are TreeSHAP values of boosted trees (or of exactboost's stumps); "
                           f"{_how_to_explain(model)}")


def _lead_columns(explained: Explanations, rows, ranks) -> tuple[list[str], object]:
    """The first columns of ``--interactions --per-row``: the row's name (``--id`` or row), its query, its rank;
    a name clashing with the output's own columns is written ``id:NAME`` / ``query:NAME``."""
    own = ["rank", "feature_i", "feature_j", "interaction"]
    (id_name, ids), queries = explained.ids(), explained.queries()
    names = [id_name if id_name not in own else f"id:{id_name}"]
    if queries is not None:
        names.append(queries[0] if queries[0] not in own + names else f"query:{queries[0]}")
    rank_of = dict(zip(rows.tolist(), ranks.tolist()))

    def values(row: int) -> list:
        return ([_item(ids[row])] + ([_item(queries[1][row])] if queries is not None else []) + [rank_of[row]])

    return names + ["rank"], values


def interaction_values(model, model_path: str, X, n_features: int, background=None, groups=None):
    """The model's ``feature_interactions(X)`` (``background``: the interventional values against those rows, of
    the players ``groups`` labels, ``n_features`` of them) as float64, shape (n_rows, n_features + 1, n_features +
    1), checked (the blocks of rows are bounded by the caller: no ``max_bytes``); a ``TypeError`` as
    :func:`contributions` says it."""
    import numpy as np

    try:
        phi = model.feature_interactions(X, max_bytes=None) if background is None else \
            model.feature_interactions(X, background=background, max_bytes=None,
                                       **({} if groups is None else {"groups": groups}))
    except TypeError as exc:
        raise _explain_error(exc, model, model_path, groups) from None
    phi = np.asarray(phi, dtype=np.float64)
    expected = (X.shape[0], n_features + 1, n_features + 1)
    if phi.shape != expected:
        raise CommandError(f"{type(model).__name__}.feature_interactions: expected an array of shape {expected}, "
                           f"got {phi.shape}")
    return phi


def contributions(model, model_path: str, X, n_features: int, background=None, groups=None):
    """The model's ``feature_contributions(X)`` (``background``: the interventional values against those rows, of
    the players ``groups`` labels, ``n_features`` of them) as float64, shape (n_rows, n_features + 1), checked.

    A ``TypeError`` of the method is a model that has it but cannot compute
    them (a push model of stumps): said as the refusal of
    :func:`check_explains`, with the library's reason.  The method's
    ``ValueError`` (a model file without covers) is the one-line error of
    any ``ValueError``.
    """
    import numpy as np

    try:
        phi = model.feature_contributions(X) if background is None else \
            model.feature_contributions(X, background=background, **({} if groups is None else {"groups": groups}))
    except TypeError as exc:
        raise _explain_error(exc, model, model_path, groups) from None
    phi = np.asarray(phi, dtype=np.float64)
    expected = (X.shape[0], n_features + 1)
    if phi.shape != expected:
        raise CommandError(f"{type(model).__name__}.feature_contributions: expected an array of shape {expected} "
                           f"(one column per feature, then the expected score), got {phi.shape}")
    return phi


def _explain_error(exc: TypeError, model, model_path: str, groups) -> CommandError:
    """The CLI's error for the ``TypeError`` of ``feature_contributions`` or ``feature_interactions``: a learner
    plugin whose method takes no groups is said as ``--groups``' (the model explains its scores without them),
    any other as a model that cannot explain its scores."""
    from .._background import GROUPS_NOT_TAKEN

    if groups is not None and GROUPS_NOT_TAKEN in str(exc):
        return CommandError(f"--groups: the model {model_path} ({describe_estimator(model)}): {exc}; without "
                            "--groups it explains each column alone")
    return CommandError(f"the model {model_path} ({describe_estimator(model)}) cannot explain its scores: "
                        f"{exc}; {_how_to_explain(model)}")


def _how_to_explain(model=None) -> str:
    """What fits a model that explains its scores: one of trees, ``--learner trees`` (``rankcore auto``: its trees
    candidates without a blend)."""
    from ._models import KINDS

    kinds = " or ".join(k.name for k in KINDS.values() if "learner" in k.options) or "push"
    fit = f"rankcore fit DATA --learner trees, with --model {kinds}"
    if getattr(model, "head_", None) is not None and getattr(model, "stumps_", None) is not None:
        # an ExactBoost of a head over a tail: the same model with one ensemble is a sum of stumps, explained
        metric = getattr(getattr(model, "metric_", None), "spec", "prec@k:K")
        return f"refit it with one ensemble: rankcore fit DATA --model 'exactboost:metric={metric},head=None'"
    if type(model).__name__ == "AutoRanker":
        return f"refit with rankcore auto DATA --candidates trees --no-blend (or {fit})"
    return f"fit with --learner trees ({fit})"
