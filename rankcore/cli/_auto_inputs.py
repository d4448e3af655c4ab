"""``rankcore auto``'s inputs beyond the rows and weights: ``--init-score``, ``--position`` and ``--validation``.

They are ``AutoRanker.fit``'s ``init_score``, ``position`` and ``eval_set``
(with ``eval_init_score``), read from the data files as ``rankcore fit``
reads its own (docs/auto_fit_inputs.md says what the estimator does with
them): a column of initial scores or display positions is read aside, never
as a feature; a ``--validation`` file is read with the training file's
columns and options, its own initial scores from the same column.  With
``--validation`` the candidates are chosen on that file instead of by
cross-validation, so ``--cv`` has no meaning there and is refused.
"""

from __future__ import annotations

from . import CommandError

__all__ = ["INIT_SCORE_HELP", "POSITION_HELP", "VALIDATION_HELP", "EVAL_NAME", "check_before_reading",
           "load_validation", "fit_arguments", "fit_error", "validation_values", "validation_line",
           "eval_metric_values", "eval_metric_lines"]

#: ``--init-score`` of ``auto``.
INIT_SCORE_HELP = ("the CSV column of each row's initial score (finite numbers; not a feature), a first stage's "
                   "scores: every candidate learns a correction to them (init_score; candidates that take none are "
                   "skipped, no blend or fold bag is made) and the saved model is that correction alone (`rankcore "
                   "score --init-score COLUMN` adds the rows' own); a --validation file needs the same column "
                   "(eval_init_score)")
#: ``--position`` of ``auto``.
POSITION_HELP = ("with --qid: the CSV column of each row's display position in its query's list (integers >= 0; not "
                 "a feature), for labels that are clicks: every fit learns an effect per position beside its model "
                 "(candidates that take none are skipped); a --validation file needs none")
#: ``--validation`` of ``auto``.
VALIDATION_HELP = ("labelled data to choose the candidates on instead of cross-validation (eval_set), read with the "
                   "training file's columns and options: every candidate is fitted once on every row of DATA and "
                   "the models scored on this file are kept (no --cv)")
#: The name of the ``--validation`` file's set in ``evals_result_`` and the model's ``cv_description_``.
EVAL_NAME = "validation"

#: Candidates that take initial scores (``init_score``) and display positions (``position``): the built-in ones.
_TAKE_INIT_SCORES = "trees, stumps, lightgbm, xgboost"
_TAKE_POSITIONS = "trees, stumps"


def check_before_reading(args) -> None:
    """Every check of ``--init-score``, ``--position`` and ``--validation`` that needs no data: said before any
    file is read."""
    from ._init_scores import check_validation_init_scores
    from ._queries import check_positions_in_queries

    if args.validation is not None and args.cv is not None and args.cv != "auto":
        raise CommandError(f"--cv {_cv_text(args.cv)}: the candidates are chosen on --validation {args.validation}, "
                           "not by cross-validation (each is fitted once on every row of DATA and scored on that "
                           "file); leave out --cv, or leave out --validation to cross-validate")
    check_positions_in_queries(args)
    check_validation_init_scores(args)


def _cv_text(cv) -> str:
    """``--cv`` as it was given: ``5``, ``5,3``, ``0.2``."""
    return ",".join(map(str, cv)) if isinstance(cv, tuple) else str(cv)


def load_validation(args, data, metric_specs: list[str], eval_specs: list[str] = ()):
    """The ``--validation`` file read like the training file: ``(dataset, X, y)``; y holds 0/1 labels on one
    list (the training file's relevant label is 1), else relevance grades (``eval_specs``: ``--eval-metric``'s,
    checked against them as ``--metric``'s)."""
    from ._columns import estimator_input, like_training
    from ._common import _shown, load
    from ._queries import qid_option, query_labels
    from ._validation_checks import check_label_coding

    qid = data.qid
    val = load(args, args.validation, n_features=None if data.named else data.n_features,
               categorical=list(data.categories) or None, queries=qid is not None, beside=data.source,
               feature_names=data.feature_names, require_position=False,   # the candidates score without positions
               require_weight=False)                                       # the choice counts every row once
    like_training(val, data)
    if qid is not None and val.qid is None:
        raise CommandError(f"--validation: {val.source} has no query ids, but the training rows are in queries "
                           f"({qid_option(data)}); give the validation rows' queries the same way")
    if qid is not None:
        if eval_specs:          # a metric of 0/1 labels on grades: the same error as --metric's
            query_labels(args, val, list(eval_specs), specs_option="--eval-metric")
        return val, estimator_input(val), query_labels(args, val, metric_specs, specs_option="--metric")
    if args.positive is None:
        check_label_coding(data, val, "--validation")
    relevant = data.relevant_label(args.positive)
    y_val = val.binary_target(relevant, require_both=False, may_be_absent=True)
    if y_val.min() == y_val.max():
        which = "every" if y_val.min() == 1 else "no"
        raise CommandError(f"--validation: {which} row of {val.source} has the relevant label {_shown(relevant)}; the "
                           "candidates are chosen on it: it needs relevant and other rows")
    return val, estimator_input(val), y_val


def fit_arguments(data, validation, eval_specs: list[str] = ()) -> dict:
    """``AutoRanker.fit``'s keywords beyond X and y: the rows' query ids, weights, initial scores and positions
    (those given), and ``validation`` -- ``(dataset, X, y)`` of ``--validation``, or None -- as ``eval_set``
    (with ``eval_specs``, ``--eval-metric``'s, as ``eval_metric``)."""
    given = {name: value for name, value in (("qid", data.qid), ("sample_weight", data.weight),
                                             ("init_score", data.init_score), ("position", data.position))
             if value is not None}
    if validation is not None:
        val, X_val, y_val = validation
        given["eval_set"] = (X_val, y_val) if data.qid is None else (X_val, y_val, val.qid)
        given["eval_names"] = [EVAL_NAME]
        if val.init_score is not None:
            given["eval_init_score"] = val.init_score
        if eval_specs:
            given["eval_metric"] = list(eval_specs)
    return given


def fit_error(exc: BaseException, data, validation_path: str | None) -> CommandError | None:
    """The CLI's error for ``AutoRanker.fit``'s ValueError ``exc``, naming the option at its source and what to
    do; None when it is no input of these options'."""
    from ..auto import NO_SAMPLE_WEIGHT
    from ..metrics import MetricRefusal
    from ._eval_metrics import eval_metric_error, file_detail

    if not isinstance(exc, ValueError):
        return None
    text = str(exc)
    if text.startswith("time_budget: "):
        # the budget's floor, said by the option that set it (time_budget=None is leaving --time out)
        return CommandError("--time: " + text[len("time_budget: "):].replace("or time_budget=None",
                                                                            "or leave out --time"))
    if text.startswith("candidates: none applies"):
        # every candidate skipped, some for an input the command line gave: leaving that input out is an option
        if data.weight is not None and NO_SAMPLE_WEIGHT in text:
            return CommandError(f"--weight {data.weight_name}: {text}; or leave out --weight and pass --drop "
                                f"{data.weight_name}")
        if data.init_score is not None and "takes no init_score" in text:
            return CommandError(f"--init-score {data.init_score_name}: {text}; list candidates that start from "
                                f"initial scores ({_TAKE_INIT_SCORES}), or leave out --init-score and pass --drop "
                                f"{data.init_score_name}")
        if data.position is not None and "takes no position" in text:
            return CommandError(f"--position {data.position_name}: {text}; list candidates that learn position "
                                f"effects ({_TAKE_POSITIONS}), or leave out --position and pass --drop "
                                f"{data.position_name}")
        return None
    if text.startswith("candidates: '"):
        # a candidate's columns by name that X does not have (interactions=age+zz), a constraint that does not fit
        # X's columns: named as the option, with the feature columns' advice rankcore fit gives for --learner's;
        # a refusal of another argument that every fold of every candidate shared (the candidates named) is about
        # the data, not the option: the weights' is --weight's, as for fit; another is said as the library says it
        from ..learners import ConstraintRefusal
        from ..validation import ArgumentRefusal
        from ._constraints import constraint_advice
        from ._weights import weight_error

        if isinstance(exc, ArgumentRefusal) and not isinstance(exc, ConstraintRefusal):
            return None if data.weight is None else weight_error(exc, data.weight_name)

        advice = constraint_advice(exc, data.feature_names)
        return CommandError(f"--{text}" if advice is None else f"--{text}; {advice}")
    if data.position is not None:
        from ._queries import position_error

        if (error := position_error(exc, data.position_name)) is not None:
            return error
    if (error := eval_metric_error(exc, validation_path)) is not None:       # --eval-metric's, on the file
        return error
    if validation_path is not None and isinstance(exc, MetricRefusal) and exc.reason == "k_beyond" \
            and exc.eval_set == "eval_set" and exc.parameter is None:
        # the search's metric: its k against the file's queries (the library says "the input" of one query)
        return CommandError(f"--validation {validation_path}: --metric {exc.spec}: {file_detail(exc)}")
    if validation_path is not None and text.startswith("eval_set"):
        # the library names its eval_set: here it is the file
        return CommandError(f"--validation {validation_path}:{text[len('eval_set'):].lstrip(':')}")
    if validation_path is not None and isinstance(exc, MetricRefusal) and exc.parameter == "metric" \
            and exc.eval_set == "eval_set":
        # the search's metric cannot be computed on the file's parts: the library's advice names the eval_set, the
        # command line's the file, chosen by the refusal's remedy (a reworded message keeps it)
        if exc.remedy is not None and text.endswith(exc.advice):
            from ..auto import part_advice

            text = text[:len(text) - len(exc.advice)] + part_advice(exc.remedy, "a larger file")
        return CommandError(f"--validation {validation_path}: {text}")
    return None


def validation_values(estimator) -> dict[str, float]:
    """Each candidate's value of the search's metric on the whole ``--validation`` file (``evals_result_``), by
    spec; empty without one."""
    result = getattr(estimator, "evals_result_", None)
    if not result or EVAL_NAME not in result:
        return {}
    return dict(result[EVAL_NAME].get(estimator.metric_, {}))


def validation_line(estimator, val) -> str:
    """``"valid.csv (61 rows): ndcg@k:10 0.9920 of trees on the whole file (...)"``: the choice's value on the whole
    ``--validation`` file ``val``; "" without one."""
    values = validation_values(estimator)
    if estimator.best_candidate_ not in values:
        return ""
    return (f"{val.source} ({val.n_samples} rows): {estimator.metric_} {values[estimator.best_candidate_]:.4f} of "
            f"{estimator.best_candidate_} on the whole file (its mean over the file's parts: "
            f"{estimator.best_score_:.4f})")


def eval_metric_values(estimator) -> dict[str, dict[str, float]]:
    """``--eval-metric``'s values on the whole ``--validation`` file (``evals_result_``): metric spec ->
    candidate -> value, the search's own metric left out; empty without them."""
    result = getattr(estimator, "evals_result_", None)
    if not result or EVAL_NAME not in result:
        return {}
    return {spec: dict(values) for spec, values in result[EVAL_NAME].items() if spec != estimator.metric_}


def eval_metric_lines(estimator, val) -> list[str]:
    """``"valid.csv (160 rows): map 0.8123 of trees on the whole file"``: the choice's value of each
    ``--eval-metric`` on the ``--validation`` file ``val``, one line each."""
    return [f"{val.source} ({val.n_samples} rows): {spec} {values[estimator.best_candidate_]:.4f} of "
            f"{estimator.best_candidate_} on the whole file"
            for spec, values in eval_metric_values(estimator).items() if estimator.best_candidate_ in values]
