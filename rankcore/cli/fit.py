"""``rankcore fit DATA``: train one model and save it as JSON (no pickle)."""

from __future__ import annotations

import contextlib
import os
import warnings

from . import CommandError, release_held_warnings
from ._common import (
    add_data_options,
    add_force_option,
    announce_positive,
    check_distinct_outputs,
    check_output,
    info,
    load,
    scalar_metric,
)
from ._columns import dense_for, estimator_input, like_training, load_to_continue
from ._constraints import constraint_advice, say_unread_constraints
from ._eval_metrics import (EVAL_METRIC_HELP, check_fit_with_eval_metrics, eval_metric_error, eval_metric_lines,
                            eval_metric_specs, monitor_error)
from ._init_models import (HELP as INIT_MODEL_HELP, check_relevant_label, init_model_categorical, init_model_error,
                           load_init_model, read_as_model_categories, record_relevant_label)
from ._init_scores import FIT_HELP as INIT_SCORE_HELP, check_fit_with_init_scores, check_validation_init_scores
from ._missing import check_missing, missing_facts
from ._models import (add_model_options, build_configs, fit_one, metric_monitor_on, models_epilog, monitor_from_params,
                      split_by_category, stop_summary)
from .._progress import Progress
from .._state_fields import labels_coded
from ._progress import add_progress_options
from ._validation_checks import (API_TRAINING_COPY, check_label_coding, holds_training_rows, warn_if_few_queries,
                                 warn_if_training_file)
from ._queries import (FIT_POSITION_HELP, QUERY_MONITOR, check_click_model_has_positions, check_fit_with_positions,
                       check_fit_within_queries, check_positions_in_queries, position_effects_note, position_error,
                       grade_row_error, position_facts, qid_option, query_defaults, query_facts, query_labels,
                       refuse_query_objectives, use_query_learner)
from ._weights import FIT_HELP as WEIGHT_HELP, check_fit_with_weights, weight_error, weight_facts


def missing_note(data, found) -> str:
    """``"; 12 missing values in 9 rows"`` for the status line, when ``data`` has missing values."""
    for source, missing in found:
        if source is data:
            return f"; {missing.n_values} missing value{'s' if missing.n_values != 1 else ''} in {missing.n_rows} rows"
    return ""


def category_note(data) -> str:
    """``"; 2 split by category (city, colour)"`` for the status line, when ``data`` has categorical columns."""
    if not data.categories:
        return ""
    return f"; {len(data.categories)} split by category ({', '.join(data.categories)})"


def add_parser(subparsers):
    import argparse

    parser = subparsers.add_parser(
        "fit",
        help="train one model on a data file and save it",
        description="Train one ranking model on DATA and save it as a JSON model file (loadable with "
                    "rankcore.load_model, `rankcore score` and `rankcore evaluate`). With query ids (--qid COLUMN, "
                    "or a LIBSVM file's qid: or query file) the labels are relevance grades >= 0 and the model ranks "
                    "the rows of each query against each other (the push models); --position COLUMN gives the "
                    "place each row was shown at, for labels that are clicks; --init-score COLUMN the scores the "
                    "fit starts from (a first-stage ranker's), which the model learns a correction to; --weight "
                    "COLUMN how many times each row counts in the fit; --init-model MODEL.json a saved model to "
                    "continue with more weak rankers.",
        epilog=models_epilog(
            "rankcore fit train.csv --label y --loss exp --price pow:16 --learner stumps --n-iter 200 --out m.json",
            "rankcore fit train.csv --model exactboost --metric prec@k:50 --n-runs 50 --out m.json",
            "rankcore fit train.svm --model 'sgd@k:k=0.1,surrogate=max' --out m.json",
            "rankcore fit adult.csv --label income --learner trees --categorical auto --out m.json",
            "rankcore fit clicks.csv --qid query --position place --label click --out m.json",
            "rankcore fit train.csv --label y --weight w --out m.json",
            "rankcore fit train.csv --qid query --label grade --init-score first_stage --validation valid.csv "
            "--eval-metric ndcg@k:1,map --out m.json",
            "rankcore fit more.csv --label y --learner trees --n-iter 50 --init-model m.json --out m2.json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", metavar="DATA",
                        help="training data: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, categorical=True, position=FIT_POSITION_HELP, init_score=INIT_SCORE_HELP,
                     weight=WEIGHT_HELP)
    add_model_options(parser, multiple=False)
    parser.add_argument("--init-model", metavar="MODEL.json", help=INIT_MODEL_HELP)
    out = parser.add_argument_group("output")
    out.add_argument("--out", "-o", default="model.json", metavar="MODEL.json",
                     help="where to save the fitted model (default model.json; '-': standard output)")
    out.add_argument("--validation", metavar="DATA",
                     help="labelled data scored by --monitor while fitting (default: the training data)")
    out.add_argument("--monitor", metavar="METRIC",
                     help=f"the metric shown with the progress (default: --metric's when given, else auc; with query "
                          f"ids {QUERY_MONITOR})")
    out.add_argument("--eval-metric", metavar="SPECS", action="append", help=EVAL_METRIC_HELP)
    out.add_argument("--plot-objective", metavar="FILE",
                     help="also draw the training objective per iteration (.svg, drawn by rankcore; "
                          ".png or .pdf, which need matplotlib)")
    add_force_option(out)
    add_progress_options(parser)
    return parser


#: What the scores of a ``--validation`` file holding the training rows are of, and what the fit then does (the
#: Python API's words for an eval_set of the training data alone).
_FITTED_ON = ("the model is fitted on (their score keeps improving as the model fits those rows: early stopping is "
              "off for this fit, as in LightGBM; n_iter iterations, --monitor's curve still recorded)")

#: What the scores of a ``--validation`` file holding the training rows in other queries are of: a validation set to
#: the fit (the Python API's), watched and stopped on, whose score still follows the fit of those very rows.
_FITTED_ON_OTHER_QUERIES = ("the model is fitted on, in other queries (--qid's ids group them otherwise: a validation "
                            "set to the fit, --monitor's score and its early stopping following the fit of those rows)")


#: The Python API's warning of an eval_set that is the training data alone (its option names are not the command's).
_API_TRAINING_ONLY = r"eval_set: every set is the training data itself"


@contextlib.contextmanager
def _training_validation_said(said: bool):
    """Within it, the Python API's warning of an eval_set that is the training data alone is not shown when ``said``:
    the training file given as ``--validation`` was warned of in the command's own words (its options')."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=API_TRAINING_COPY)     # said of the file (holds_training_rows)
        if said:
            warnings.filterwarnings("ignore", message=_API_TRAINING_ONLY)
        yield


def _objective_has_value(spec) -> bool:
    """False when ``spec`` names a registered objective with gradients but no value (lambdarank, yetirank); True
    for None and for a spec that does not resolve (its own check says what is wrong with it)."""
    if spec is None:
        return True
    from ..registry import resolve

    try:
        objective = resolve("objective", spec)
    except (ValueError, TypeError):
        return True
    return bool(getattr(objective, "has_value", True))


def check_before_reading(args, config) -> list[str]:
    """Every check of the options against the model that needs no data (a typo fails before any reading), and the
    warning of a ``--validation`` file that is DATA itself; the ``--eval-metric`` specs."""
    eval_specs = eval_metric_specs(args.eval_metric)
    if args.plot_objective and not config.kind.cls.iteration_parameter:
        # a model fitted in one step has no objective per iteration: said before the data are read
        raise CommandError(f"--plot-objective: {config.kind.name} records no objective per iteration (it is "
                           "fitted in one step)")
    if args.plot_objective and not _objective_has_value(config.params.get("objective")):
        raise CommandError(f"--plot-objective: the objective {config.params['objective']!r} gives gradients but no "
                           "value to plot; --validation with --monitor METRIC shows how the fit goes")
    if args.position is not None:
        check_fit_with_positions([config], args.position)
        check_positions_in_queries(args)
    check_click_model_has_positions([config], args)
    if args.init_score is not None:
        check_fit_with_init_scores([config], args.init_score)
        check_validation_init_scores(args)
    if args.weight is not None:
        check_fit_with_weights([config], args.weight)
    check_fit_with_eval_metrics([config], eval_specs, args.validation)
    warn_if_training_file(args.data, args.validation, _FITTED_ON)
    return eval_specs


def load_validation(args, data, monitor_spec: str, readers=()):
    """The ``--validation`` file read like the training file: ``(dataset, X, y, held)``, ``held`` whether it is the
    training data (:func:`holds_training_rows`); ``readers``: as :func:`~rankcore.cli._columns.dense_for`'s, the
    model fitted."""
    qid = data.qid
    val = load(args, args.validation, n_features=None if data.named else data.n_features,
               categorical=list(data.categories) or None, queries=qid is not None, beside=data.source,
               feature_names=data.feature_names, require_position=False,   # validation needs no positions
               require_weight=False)                                       # nor weights: its metrics count rows once
    like_training(val, data)
    dense_for(val, readers)
    if qid is not None and val.qid is None:
        raise CommandError(f"--validation: {val.source} has no query ids, but the training rows are in queries "
                           f"({qid_option(data)}); give the validation rows' queries the same way")
    held = holds_training_rows(data, val, _FITTED_ON, _FITTED_ON_OTHER_QUERIES)
    warn_if_few_queries(val, f"--monitor's {monitor_spec} (and its early stopping) follows that one ranking")
    if qid is None and args.positive is None:
        check_label_coding(data, val, "--validation")
    # the training file's relevant label: a validation file of that label alone is all relevant
    y_val = (val.binary_target(data.relevant_label(args.positive), require_both=False, may_be_absent=True)
             if qid is None else query_labels(args, val, [monitor_spec], specs_option="--monitor"))
    return val, estimator_input(val), y_val, held


def _fit_error(exc: Exception, args, data, init_model, monitor_spec: str) -> CommandError | None:
    """The CLI's error for the fit's ValueError or TypeError ``exc``, said as the options given; None: raised as
    it is."""
    if init_model is not None and (error := init_model_error(exc, data)) is not None:
        return error
    if (error := eval_metric_error(exc, args.validation)) is not None:      # said as the options given
        return error
    if args.validation and (error := monitor_error(exc, f"--validation {args.validation}", monitor_spec)) is not None:
        return error
    # the library's ``position: ...`` (an objective without a curvature), ``sample_weight: ...`` (one without
    # weights)
    if data.weight is not None and (error := weight_error(exc, data.weight_name)) is not None:
        return error
    if data.qid is not None and (error := grade_row_error(exc, data)) is not None:
        return error
    if (advice := constraint_advice(exc, data.feature_names)) is not None:     # the learner's monotone, interactions
        return CommandError(f"{exc}; {advice}")
    return None if data.position is None else position_error(exc, data.position_name)


def training_facts(data, y) -> str:
    """What the status line says of the training rows' labels, queries, positions, initial scores and weights."""
    what = f"{int(y.sum())} relevant" if data.qid is None else query_facts(y, data.qid)
    if data.position is not None:
        what += f", {position_facts(data.position)}"
    if data.init_score is not None:
        what += (f", initial scores {float(data.init_score.min()):.4g} to {float(data.init_score.max()):.4g} "
                 f"({data.init_score_name})")
    if data.weight is not None:
        what += f", {weight_facts(data.weight, data.weight_name)}"
    return what


def read_training(args, init_model):
    """DATA; for ``--init-model`` read as ``rankcore score`` reads a file for the model: columns by name (the
    model's order, a missing or unknown one named), a LIBSVM file by index into its features, its categories."""
    if init_model is None:
        return load(args, args.data, queries=True)
    data = load_to_continue(args, args.data, init_model, args.init_model, queries=True,
                            categorical=init_model_categorical(args, init_model))
    read_as_model_categories(data, init_model, args.init_model)
    return data


def _validation(args, data, monitor_spec: str, readers, from_metric: bool, training: tuple) -> tuple:
    """``--validation`` read (its dataset, ``(X, y, qid, init_score)``) and the metric watched on it: a monitor
    taken from the model's ``--metric`` (``from_metric``) that these rows cannot compute (``prec@k:120`` of 60
    rows), a metric of the training rows, is AUC instead (:func:`metric_monitor_on`).

    ``training``: the fit's ``(X, y)``.  A file that holds the training rows (:func:`holds_training_rows`) is given
    to the fit as those very arrays, so the estimator knows its training data, as ``fit(X, y, eval_set=[(X, y)])``
    does in Python: never watched, and early stopping off (warned of in the command's words, not the API's).
    """
    val, X_val, y_val, held = load_validation(args, data, monitor_spec, readers)
    if from_metric and data.qid is None:
        metric_monitor_on(args, y_val, "validation")
        monitor_spec = args.monitor
    if held:
        return val, (*training, data.qid, val.init_score), monitor_spec
    return val, (X_val, y_val, val.qid, val.init_score), monitor_spec


def _continued(args, config):
    """The model of ``--init-model`` (None without it), loaded as :func:`run` loads it."""
    return None if args.init_model is None else load_init_model(args.init_model, config)


def run(args) -> int:
    from ._outputs import output_name, save_model_output

    inputs = {"DATA": args.data, "--validation": args.validation, "--init-model": args.init_model}
    check_distinct_outputs({"--out": args.out, "--plot-objective": args.plot_objective})
    check_output(args.out, "--out", inputs=inputs, force=args.force)
    if args.plot_objective:
        if not str(args.plot_objective).lower().endswith((".svg", ".png", ".pdf")):
            raise CommandError(f"--plot-objective: expected a file name ending in .svg, .png or .pdf, got "
                               f"{args.plot_objective!r}")
        if not str(args.plot_objective).lower().endswith(".svg"):
            from ..plotting import require_matplotlib

            require_matplotlib()  # before any training: say how to install it now, not after the fit
        check_output(args.plot_objective, "--plot-objective", inputs=inputs, force=args.force)
    if args.monitor is not None:
        scalar_metric(args.monitor, "--monitor")
    (config,) = build_configs(args, multiple=False)
    # a monotone value holding no sign: said first, as every spec's refusal, with the columns of the file read for it
    say_unread_constraints([config], lambda: read_training(args, _continued(args, config)).feature_names)
    from_metric = monitor_from_params(args, [config])      # --param scoring=SPEC, else --metric, is watched
    eval_specs = check_before_reading(args, config)
    init_model = _continued(args, config)

    data = read_training(args, init_model)
    qid = data.qid
    monitor_spec = args.monitor or ("auc" if qid is None else query_defaults(QUERY_MONITOR, qid))
    if qid is None:
        refuse_query_objectives([config], data, args)
        y = data.binary_target(args.positive)
        check_relevant_label(init_model, data.relevant_label(args.positive), args.init_model)
    else:
        check_fit_within_queries([config], data)
        use_query_learner([config])
        y = query_labels(args, data, [monitor_spec], specs_option="--monitor")
        if eval_specs:          # a metric of 0/1 labels on grades: the same error as --monitor's
            query_labels(args, data, eval_specs, specs_option="--eval-metric")
    split_by_category([config], data)
    readers = [(config.label or "the model", config.build())]      # its learner as set for the rows' queries
    dense_for(data, readers)
    X = estimator_input(data)
    where = "validation" if args.validation else "train"
    if args.validation:
        val, (X_val, y_val, qid_val, init_val), monitor_spec = _validation(args, data, monitor_spec, readers,
                                                                           from_metric, (X, y))
    else:
        val, (X_val, y_val, qid_val, init_val) = None, (X, y, qid, data.init_score)
    found = missing_facts([data, val])
    check_missing([config], [data, val], found=found)  # before any training
    if qid is None:
        announce_positive(args, data)
    info(args, f"{data.source}: {data.n_samples} rows, {data.n_features} features, {training_facts(data, y)} "
               f"(label: {data.label_name})" + missing_note(data, found) + category_note(data))

    progress = Progress(args.progress, quiet=args.quiet)
    monitor = (monitor_spec, X_val, y_val) if qid is None else (monitor_spec, X_val, y_val, qid_val)
    try:
        with labels_coded(), _training_validation_said(X_val is X):    # y coded 1 / 0 by --positive
            outcome = fit_one(config, X, y, progress=progress, monitor=monitor, qid=qid, position=data.position,
                              monitor_label=f"{where} {monitor_spec}", monitor_is_validation=bool(args.validation),
                              keep_monitor_curve=bool(args.validation), init_score=data.init_score,
                              monitor_init=init_val, eval_metric=eval_specs, sample_weight=data.weight,
                              init_model=init_model)
    except (ValueError, TypeError) as exc:
        error = _fit_error(exc, args, data, init_model, monitor_spec)
        if error is None:
            raise
        raise error from None
    release_held_warnings()     # the fit was accepted: its folded category columns are said before its outcome
    if qid is None:     # the file's label fitted as 1: what a continuation (--init-model) must rank first too
        record_relevant_label(outcome.estimator, data.relevant_label(args.positive), data.y)
    try:
        save_model_output(outcome.estimator, args.out)
    except OSError as exc:
        raise CommandError(f"--out: cannot write {args.out!r}: {exc.strerror or exc}") from None
    if init_model is not None:
        first, total = getattr(outcome.estimator, "init_iterations_", 0), outcome.estimator.n_iter_
        info(args, f"continued {args.init_model}: {first} weak rankers of it, then {total - first} new ones")
    # the progress' last line says why the fit stopped; without progress (--progress none) the saved line does
    stopped = stop_summary(outcome.estimator) if progress.mode == "none" else ""
    info(args, f"saved {config.label} ({type(outcome.estimator).__name__}) to {output_name(args.out)} "
               f"[{outcome.seconds:.2f}s; {where} {monitor_spec} {outcome.monitor_score:.4f}"
               f"{'; ' + stopped if stopped else ''}]")
    for line in eval_metric_lines(outcome.estimator, eval_specs, where):
        info(args, line)
    effects = None if data.position is None else position_effects_note(outcome.estimator, data.position_name)
    if effects:
        info(args, effects)
    if args.plot_objective:
        if outcome.curve is None:
            raise CommandError(f"--plot-objective: {config.kind.name} records no objective per iteration")
        from ..plotting import objective_data, save_figure
        from ._stdin import ended_by_signals

        with ended_by_signals():                 # SIGTERM in the write: no temporary file left
            save_figure(objective_data({config.label: outcome.history}, ylabel=outcome.curve.objective_name,
                                       xlabel=outcome.curve.unit),
                        args.plot_objective)
        info(args, f"wrote {os.path.normpath(args.plot_objective)}")
    return 0
