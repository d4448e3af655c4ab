"""``rankcore auto DATA``: cross-validate every candidate on a top-of-list metric, keep the best, save it.

Prints the leaderboard (stdout), shows the search's progress (stderr),
saves the chosen model (``--out``) and optionally writes a self-contained
HTML report (``--report``): the leaderboard, the chosen model's parameters,
and the leftmost-ROC figure of the leading candidates drawn from their
out-of-fold scores.  ``--init-score``, ``--position`` and ``--validation``
(a file to choose on instead of cross-validation) are read by
:mod:`._auto_inputs`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import warnings

from . import CommandError
from ..spec import read_float, read_int
from ._common import (
    Table,
    _checked_number,
    add_data_argument,
    add_force_option,
    add_table_format_option,
    check_distinct_outputs,
    check_output,
    info,
    load,
    registered_names,
    scalar_metric,
    seed,
    split_specs,
    thread_count,
)
from ._auto_inputs import (INIT_SCORE_HELP, POSITION_HELP, VALIDATION_HELP, check_before_reading,
                           eval_metric_lines, eval_metric_values, fit_arguments, fit_error, load_validation,
                           validation_line, validation_values)
from ._columns import estimator_input
from ._eval_metrics import AUTO_EVAL_METRIC_HELP, check_auto_with_eval_metrics, eval_metric_specs
from ._outputs import print_result, refuse_stdout
from ._queries import position_effects_note, query_defaults, query_labels
from ._progress import add_progress_options
from ._stdin import source_name
from ._validation_checks import API_TRAINING_COPY, warn_if_few_queries, warn_if_training_file, warn_if_training_rows
from ._weights import AUTO_HELP as WEIGHT_HELP

#: What the scores of a ``--validation`` file holding the training rows are of.
_FITTED_ON = "every candidate is fitted on (the choice favours the candidates that fit their own rows closest)"
#: Candidates drawn in the report's ROC figure (the choice first).
FIGURE_CANDIDATES = 4


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "auto",
        help="choose the best ranking model for a data file by cross-validation",
        description="Cross-validate rankcore's candidate learners (trees, a linear ranker, kernel ranking, "
                    "ExactBoost, plugins' candidates) on a top-of-list metric, keep the best -- "
                    "or the rank-average blend of the two leaders when a nested estimate says it wins -- refit it "
                    "on every row (averaged with its fold models) and save it; on at most 120 rows keep the fixed "
                    "blend of the linear, kernel and ExactBoost rankers. --validation DATA chooses on that file "
                    "instead of by cross-validation; --init-score COLUMN gives a first stage's scores to correct, "
                    "--position COLUMN the display positions of clicked lists. The leaderboard goes to standard "
                    "output.",
        epilog="examples:\n"
               "  rankcore auto data.csv --label y --metric prec@k:50 --time 60 --out model.json --report auto.html\n"
               "  rankcore auto train.csv --candidates trees,linear,kernel --cv 10\n"
               "  rankcore auto adult.csv --label income --categorical auto   # text columns split by category\n"
               "  rankcore auto train.csv --label y --weight w   # each row counts w times in every fit\n"
               "  rankcore auto train.csv --qid query --label grade --init-score first_stage --validation valid.csv\n"
               "  rankcore auto train.csv --qid query --label grade --validation valid.csv --eval-metric ndcg@k:1,map\n"
               "  rankcore plugins --family candidate      # every candidate and its parameters",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_argument(parser, categorical=True, position=POSITION_HELP, init_score=INIT_SCORE_HELP,
                      weight=WEIGHT_HELP)
    search = parser.add_argument_group("search")
    search.add_argument("--metric", default=None, metavar="METRIC",
                        help="the metric to choose by (default pauc:0.1, or ndcg@k:10 per query when the rows have "
                             "query ids; e.g. prec@k:50, prec@k:0.05, rmax, auc, map)")
    search.add_argument("--time", type=_seconds, default=None, metavar="SECONDS",
                        help="time budget of the whole search and refit (default: the fixed default plan)")
    search.add_argument("--candidates", default="auto", metavar="SPECS",
                        help="comma-separated candidate specs (default auto: every registered candidate's default "
                             "configurations; `rankcore plugins --family candidate` lists them)")
    search.add_argument("--cv", default=None, type=_cv, metavar="CV",
                        help="auto (default), K (stratified K-fold), K,R (K folds, R repeats) or a fraction "
                             "(one stratified hold-out); not with --validation")
    search.add_argument("--validation", metavar="DATA", help=VALIDATION_HELP)
    search.add_argument("--eval-metric", metavar="SPECS", action="append", help=AUTO_EVAL_METRIC_HELP)
    search.add_argument("--no-blend", action="store_true",
                        help="never choose a rank-average blend (on small data too: search and choose one candidate)")
    search.add_argument("--no-bag-folds", action="store_true",
                        help="keep the refit alone instead of averaging it with the choice's fold models")
    search.add_argument("--random-state", type=seed, default=0, metavar="SEED",
                        help="seed of the folds and of every fit (default 0, so runs repeat exactly)")
    search.add_argument("--n-jobs", type=thread_count, default=None, metavar="N",
                        help="threads per fit: N, or -1 every core, -2 all but one (not 0; default: every core)")
    out = parser.add_argument_group("output")
    out.add_argument("--out", "-o", default="model.json", metavar="MODEL.json",
                     help="where to save the chosen model (default model.json)")
    out.add_argument("--report", metavar="FILE.html",
                     help="also write a self-contained HTML report (leaderboard, chosen parameters, ROC figure)")
    add_table_format_option(out)
    add_force_option(out)
    add_progress_options(parser)
    return parser


def _seconds(text: str) -> float:
    # a spec's rule for numbers (ASCII digits; inf: no budget); a reason for '1_0', an overflow...
    return _checked_number(text, lambda t: read_float(t, special=True), lambda v: v > 0,
                           "a positive number of seconds")


def _cv(text: str):
    text = text.strip()
    if text == "auto":
        return text
    try:
        parts = [read_int(p) for p in text.split(",")]
    except ValueError:
        parts = None
    if parts is not None and len(parts) in (1, 2):
        return parts[0] if len(parts) == 1 else tuple(parts)
    return _checked_number(text, read_float, lambda v: True, "auto, K, K,R or a fraction")


def _candidates(text: str):
    if text.strip() == "auto":
        return "auto"
    return split_specs(text, registered_names("candidate"), what="--candidates")


def build_estimator(args):
    from ..auto import AutoRanker

    metric = None if args.metric is None else scalar_metric(args.metric, "--metric")
    estimator = AutoRanker(metric=metric, time_budget=args.time, cv="auto" if args.cv is None else args.cv,
                           candidates=_candidates(args.candidates), blend=not args.no_blend,
                           bag_folds=not args.no_bag_folds, n_jobs=args.n_jobs, random_state=args.random_state)
    from ..auto import check_params

    try:
        check_params(estimator)          # every parameter, before the data are read
    except ValueError as exc:
        if not str(exc).startswith("candidates: "):
            raise
        _say_candidates_refusal(args, exc)
    return estimator


def _say_candidates_refusal(args, exc: ValueError):
    """Raise the library's refusal of the ``candidates`` list (``"candidates: 'trees:monotone=1/2': ..."``) said as
    the option (``--candidates: ...``, as its other errors are); a trees candidate's ``monotone`` or ``interactions``
    value that cannot be read with the feature columns' order, DATA read for it alone, as ``rankcore fit`` says
    ``--learner``'s."""
    from ._constraints import deferred_constraints, say_with_columns

    said = f"--{exc}"
    if deferred_constraints(exc):
        say_with_columns(said, exc, lambda: load(args, args.data, queries=True).feature_names)
    raise CommandError(said) from None


def run(args) -> int:
    from .._progress import Progress
    from ._init_models import record_relevant_label
    from .fit import training_facts

    inputs = {"DATA": args.data, "--validation": args.validation}
    check_distinct_outputs({"--out": args.out, "--report": args.report})
    refuse_stdout(args.out, "--out")
    refuse_stdout(args.report, "--report")
    check_output(args.out, "--out", inputs=inputs, force=args.force)
    if args.report:
        check_output(args.report, "--report", inputs=inputs, force=args.force)
    estimator = build_estimator(args)
    eval_specs = eval_metric_specs(args.eval_metric)
    check_auto_with_eval_metrics(eval_specs, args.validation)
    check_before_reading(args)
    warn_if_training_file(args.data, args.validation, _FITTED_ON)
    from ..auto import DEFAULT_METRIC, QUERY_METRIC

    data = load(args, args.data, queries=True)
    _dense_for_candidates(args, data)
    qid = data.qid
    specs = [] if args.metric is None else [args.metric]
    y = data.binary_target(args.positive) if qid is None else query_labels(args, data, specs, specs_option="--metric")
    if qid is not None and eval_specs:      # a metric of 0/1 labels on grades: the same error as --metric's
        query_labels(args, data, eval_specs, specs_option="--eval-metric")
    validation = None if args.validation is None else load_validation(args, data, specs, eval_specs)
    if validation is not None and _dense_for_candidates(args, validation[0]):
        validation = (validation[0], estimator_input(validation[0]), validation[2])
    if validation is not None:
        warn_if_training_rows(data, validation[0], _FITTED_ON)
        warn_if_few_queries(validation[0], "the candidates are compared on that one ranking, scored as one part "
                                           "whose spread (the noise a difference is weighed against) is unknown")
    metric = args.metric or (QUERY_METRIC if qid is not None else DEFAULT_METRIC)
    missing = data.missing()
    where = "" if validation is None else f" on {validation[0].source}"
    info(args, f"{data.source}: {data.n_samples} rows, {data.n_features} features, {training_facts(data, y)} "
               f"(label: {data.label_name}); choosing by {metric}{where}")
    progress = _SearchDisplay(Progress(args.progress, quiet=args.quiet), metric)
    try:
        with warnings.catch_warnings():     # a copy of the training rows was said of the file, in its words
            warnings.filterwarnings("ignore", message=API_TRAINING_COPY)
            estimator.fit(estimator_input(data), y, callbacks=progress, **fit_arguments(data, validation, eval_specs))
    except BaseException as exc:
        progress.abort()
        error = fit_error(exc, data, args.validation)
        if error is not None:
            raise error from None
        raise
    progress.close(f"chose {estimator.best_candidate_}")
    print_result(leaderboard_output(estimator, args.table_format), args.table_format)
    skip_line = sparse_skip_line(estimator, data)
    if skip_line:
        info(args, skip_line)
    if qid is None:             # the file's label fitted as 1: what ``evaluate`` reads the labels with
        record_relevant_label(estimator, data.relevant_label(args.positive), data.y)
    _save(estimator, args.out)
    info(args, f"chose {estimator.best_candidate_} ({estimator.selection_reason_}); {estimator.metric_} "
               f"{estimator.best_score_:.4f} over {scored_parts(estimator)}; saved to {args.out} "
               f"[search {estimator.search_time_:.1f}s, refit {estimator.refit_time_:.1f}s]")
    stops = stop_lines(estimator, progress.last)
    for line in (validation_line(estimator, validation[0]) if validation is not None else "",
                 *(eval_metric_lines(estimator, validation[0]) if validation is not None else ()),
                 _position_line(estimator, data), *stops):
        if line:
            info(args, line)
    imputation = imputation_note(estimator, missing)
    if imputation:
        info(args, imputation)
    if args.report:
        from ._report import write_report

        said = [line for line in (skip_line, *stops) if line]       # the report says what the terminal said
        write_report(build_report(args, estimator, data, y, imputation, validation, said), args.report)
        info(args, f"wrote {os.path.normpath(args.report)}")
    return 0


def _dense_for_candidates(args, data) -> bool:
    """A LIBSVM file kept sparse for its size, searched by ``--candidates`` of which none reads sparse rows
    (exactboost, kernel): made dense as ``fit`` makes it for them (within the memory, else refused in command-line
    words) -- else the search would refuse every candidate with the Python API's advice (``X.toarray()``).  The
    default search keeps the file sparse: its trees and linear candidates read it as it is.  True when made dense.
    """
    from ..base import declared_attribute
    from ._columns import make_dense

    if args.candidates is None or args.candidates.strip() == "auto" or not hasattr(data.X, "tocsr"):
        return False
    specs = _candidates(args.candidates)
    if any(declared_attribute("candidate", spec, "accepts_sparse", False) for spec in specs):
        return False
    make_dense(data, [f"--candidates {args.candidates}"],
               advice="add a candidate that reads it sparse (trees, linear), or leave features out (--drop)")
    return True


def _save(estimator, path: str) -> None:
    from ..persistence import save_model

    try:
        save_model(estimator, path)
    except TypeError as exc:
        raise CommandError(f"--out: {_unsavable_choice(estimator) or exc}") from None
    except OSError as exc:
        raise CommandError(f"--out: cannot write {path!r}: {exc.strerror or exc}") from None


def _unsavable_choice(estimator) -> str | None:
    """Why the chosen model cannot be written, in the command's words, when a candidate of it is one whose models a
    model file cannot hold (lightgbm, xgboost: another library's model, kept only by pickle); None otherwise.

    Names the best candidate of the leaderboard that can be written, for ``--candidates`` to choose it.
    """
    from ..registry import registry

    savable = {e.name: bool(getattr(e.cls, "savable", True)) for e in registry().all_entries()
               if e.family == "candidate"}
    names = [row.name for row in estimator.leaderboard_]
    chosen = str(estimator.best_candidate_)
    # a candidate spec (lightgbm:objective=...), or a blend's members: blend(lightgbm+trees)
    parts = {part.split(":", 1)[0] for part in re.split(r"[()+\s]+", chosen) if part}
    unsavable = [n for n in savable if not savable[n] and n in parts]
    if not unsavable:
        return None
    scored = [n for n in names if savable.get(n.split(":", 1)[0], False) and n != chosen]
    advice = (f"run again with --candidates {scored[0]} (the best of the others that can be written) or a list of "
              "such candidates" if scored else "run again with --candidates naming ones that can be written "
              f"({', '.join(n for n in savable if savable[n])})")
    return (f"the chosen candidate {chosen!r} holds a {' and '.join(unsavable)} model, which a rankcore model file "
            f"cannot hold (it is another library's model, kept only by pickle): nothing was written; {advice}, or "
            "use the library's model in Python (rankcore.AutoRanker with pickle or joblib)")


def _position_line(estimator, data) -> str | None:
    """The chosen model's position effects (a fold bag's: its refit's), when it learned some."""
    from ..auto import FoldBag

    if data.position is None:
        return None
    model = estimator.best_estimator_
    bagged = isinstance(model, FoldBag)
    note = position_effects_note(model.estimators[0] if bagged else model, data.position_name)
    return note.replace("position effects", "position effects of the refit", 1) if note and bagged else note


class _SearchDisplay:
    """The search's events drawn as one progress task: candidate, fold, best so far."""

    def __init__(self, progress, metric: str):
        from ..auto import SearchProgress

        self.display = SearchProgress(metric, mode=progress.mode, stream=progress.stream)
        self.last = None            # the last task's event: how many tasks ran, of how many planned

    def __call__(self, event) -> None:
        self.last = event
        self.display(event)

    def close(self, summary: str) -> None:
        self.display.close(summary)

    def abort(self) -> None:
        if self.display.task is not None:
            self.display.task.abort()


def stop_lines(estimator, last_event=None) -> list[str]:
    """What ended the search, when not its plan (the time budget), and each final refit's stop, as ``rankcore fit``
    says it (``"refit of trees: stopped: early_stopping, kept the best 31 iterations"``), then a fold bag's fold
    models' (the search's fold fits, kept in the model); ``last_event``: the search's last task (its counts of tasks
    run and planned), when known."""
    from ._models import stop_summary

    lines = []
    if getattr(estimator, "search_stop_reason_", None) == "time_budget":
        ran = "" if last_event is None else f" after {last_event.done} of at most {last_event.planned} tasks"
        budget = estimator.get_params(deep=False).get("time_budget")
        lines.append(f"search stopped: time_budget (--time {budget:g} s ran out{ran}; the leaderboard says which "
                     "candidates got fewer folds or none)")
    for name, model, fold_models in _refits(estimator.best_estimator_, estimator.best_candidate_):
        said = stop_summary(_boosted(model))
        if said:
            lines.append(f"refit of {name}: {said}")
        folds: dict[str, list[int]] = {}
        for fold, fold_model in enumerate(fold_models, start=1):
            folds.setdefault(stop_summary(_boosted(fold_model)), []).append(fold)
        stops = [f"fold{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}: {said}"
                 for said, numbers in folds.items() if said]
        if stops:
            lines.append(f"fold fits of {name} (bagged with the refit): {'; '.join(stops)}")
    return lines


def _refits(best, name: str) -> list[tuple[str, object, list]]:
    """(candidate, its refit on every row, the fold models bagged with it) of each model the choice holds: a
    blend's members, a bag's refit and fold models (the search's fold fits), or the model itself."""
    from ..auto import FoldBag, RankAverage

    if isinstance(best, RankAverage):
        return [triple for member, model in zip(best.names, best.estimators) for triple in _refits(model, member)]
    if isinstance(best, FoldBag):
        return [(name, best.estimators[0], list(best.estimators[1:]))]
    return [(name, best, [])]


def _boosted(model):
    """The model that boosted: the last step of a pipeline (a candidate behind its missing-value imputer)."""
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps else model


def leaderboard_table(estimator) -> Table:
    """The leaderboard; after a choice on ``--validation``, with each candidate's value on the whole file."""
    from ..auto import NO_SPARSE

    rows = estimator.leaderboard_.table_rows()
    for row in rows:        # the Python API's words for a file the command line kept sparse: the note below says more
        row[-1] = _DENSE_ONLY_NOTE if row[-1] == NO_SPARSE else row[-1]
    columns = ["candidate", "status", f"{estimator.leaderboard_.metric} (mean ± sd)", "parts", "fit s/fold", "note"]
    values = validation_values(estimator)
    if values:
        columns.insert(4, f"{estimator.leaderboard_.metric} (whole file)")
        for row in rows:
            row.insert(4, f"{values[row[0]]:.4f}" if row[0] in values else "-")
    for at, (spec, extra) in enumerate(eval_metric_values(estimator).items(), start=5):     # --eval-metric's
        columns.insert(at, f"{spec} (whole file)")
        for row in rows:
            row.insert(at, f"{extra[row[0]]:.4f}" if row[0] in extra else "-")
    return Table(columns, rows)


def leaderboard_output(estimator, fmt: str) -> str:
    """The leaderboard as ``--table-format`` prints it: the text table for text and markdown, the records of
    :func:`leaderboard_records` for json and csv."""
    if fmt in ("json", "csv"):
        return leaderboard_records(estimator).render(fmt)
    return leaderboard_table(estimator).render(fmt)


def leaderboard_records(estimator) -> Table:
    """The leaderboard for scripts: one record per candidate under names that do not change with the metric.

    ``candidate``, ``status``, ``metric`` (the spec chosen by), ``mean``, ``sd``, ``n_folds``, ``fit_seconds`` and
    ``score_seconds`` (per fold), then after a choice on ``--validation`` ``whole_file`` (the metric on the whole
    file) and ``whole_file:SPEC`` per ``--eval-metric``, and ``note``.  Numbers stay numbers (the text table's
    ``"0.0352 ± 0.0148"`` is not one a script can read); a value the candidate does not have is None (JSON null,
    an empty CSV cell), never ``"-"``.
    """
    from ..auto import NO_SPARSE

    board = estimator.leaderboard_
    whole = validation_values(estimator)
    extra = eval_metric_values(estimator)
    columns = ["candidate", "status", "metric", "mean", "sd", "n_folds", "fit_seconds", "score_seconds"]
    columns += (["whole_file"] if whole else []) + [f"whole_file:{spec}" for spec in extra] + ["note"]
    rows = []
    for row in board:
        record = [row.name, row.status, board.metric, *map(_number, (row.mean, row.sd)), row.n_folds,
                  *map(_number, (row.fit_time, row.score_time))]
        record += [_number(whole.get(row.name))] if whole else []
        record += [_number(values.get(row.name)) for values in extra.values()]
        rows.append(record + [_DENSE_ONLY_NOTE if row.note == NO_SPARSE else row.note])
    return Table(columns, rows)


def _number(value) -> float | None:
    """A finite value as a float; None for one a candidate lacks (absent, or NaN: not scored, not fitted)."""
    return None if value is None or not math.isfinite(value) else float(value)


#: The leaderboard's note on a candidate skipped for a LIBSVM file kept sparse (:func:`sparse_skip_line`).
_DENSE_ONLY_NOTE = "reads dense rows only, and the file is kept sparse"


def sparse_skip_line(estimator, data) -> str | None:
    """What the candidates skipped for a LIBSVM file kept sparse were, why, and how to search them: ``--candidates``
    of only them reads the file dense (:func:`_dense_for_candidates`); None when none was skipped for it."""
    from ..auto import NO_SPARSE

    skipped = [row.name for row in estimator.leaderboard_ if row.status == "skipped" and row.note == NO_SPARSE]
    if not skipped or not hasattr(data.X, "tocsr"):
        return None
    n_rows, n_features = data.X.shape
    dense = n_rows * n_features * 8
    size = f"{dense / 1e9:.3g} GB" if dense >= 1e8 else f"{dense / 1e6:.3g} MB"
    named = skipped[0] if len(skipped) == 1 else f"{', '.join(skipped[:-1])} and {skipped[-1]}"
    return (f"skipped {named}: {'it reads' if len(skipped) == 1 else 'they read'} dense rows only, "
            f"and {data.source} is kept sparse for its size ({n_rows:,} rows x {n_features:,} features would take "
            f"{size} dense); to search {'it' if len(skipped) == 1 else 'them'}, list only such candidates "
            f"(--candidates {shlex.quote(','.join(skipped))}): the file is then read dense, within half the memory "
            "available")


def scored_parts(estimator) -> str:
    """``"3 folds of 5-fold stratified cross-validation"``: the validation parts the choice's score is a mean over.

    A time budget may stop a search before the chosen candidate has been
    scored on every fold of the plan: its mean is over the ones it has.
    """
    chosen = next((row for row in estimator.leaderboard_ if row.status == "chosen"), None)
    if chosen is None:
        return estimator.cv_description_
    # a hold-out, or a --validation file, is scored in parts; cross-validation in folds
    held_out = "hold-out" in estimator.cv_description_ or getattr(estimator, "evals_result_", None) is not None
    part = "part" if held_out else "fold"
    return f"{chosen.n_folds} {part}{'s' if chosen.n_folds != 1 else ''} of {estimator.cv_description_}"


def imputation_note(estimator, missing) -> str:
    """Which candidates saw the missing values filled in, and how; "" when the data have none.

    Candidates that do not take NaN (their declaration ``accepts_missing``)
    are fitted behind :class:`rankcore.auto.MissingValueImputer`.
    """
    if missing is None:
        return ""
    from ..registry import resolve

    imputed, as_is = [], []
    for row in estimator.leaderboard_:
        if row.status in ("skipped", "failed", "not run") or row.name.startswith("blend("):
            continue
        (as_is if resolve("candidate", row.name).accepts_missing else imputed).append(row.name)
    text = f"missing values: {missing.n_values} in {missing.n_rows} rows and {len(missing.columns)} columns"
    if imputed:
        text += (f"; filled in with each column's training median plus a 0/1 missing-value indicator per column "
                 f"for {', '.join(imputed)}")
    if as_is:
        text += f"; used as they are by {', '.join(as_is)}"
    return text


def roc_curves(estimator, y):
    """``{"out-of-fold": {spec: (y, scores, rows)}}`` of the leading candidates, on the rows every one of them scored.

    ``rows`` is the mask of those rows (for their query ids).  After a choice
    on ``--validation`` the scores are of that file's rows (``y``: its labels)
    under the same key, the one split the figures draw.
    """
    import numpy as np

    leaders = [r.name for r in estimator.leaderboard_ if r.name in estimator.cv_predictions_]
    if estimator.best_candidate_ in estimator.cv_predictions_:
        leaders.remove(estimator.best_candidate_)
        leaders.insert(0, estimator.best_candidate_)
    leaders = leaders[:FIGURE_CANDIDATES]
    if not leaders:
        return None
    rows = np.all([np.isfinite(estimator.cv_predictions_[name]) for name in leaders], axis=0)
    return {"out-of-fold": {name: (y[rows], estimator.cv_predictions_[name][rows], rows) for name in leaders}}


def _figures(estimator, scored, y, on_file: bool) -> list:
    """The figure of the leading candidates' scores of the rows ``scored`` (labels ``y``): out of fold, or the
    ``--validation`` file's (``on_file``); [] when no row has every leader's score."""
    from ..auto import QUERY_METRIC
    from ..plotting import figure_bytes, metric_at_k_data, roc_data

    curves = roc_curves(estimator, y)
    if curves is None:
        return []
    name = source_name(scored.source)
    title = f"{name}: leading candidates"
    unit = "query" if scored.qid is not None else "row"
    how = (f"scores of the validation file {name} (each candidate fitted on every training row)" if on_file else
           f"out-of-fold scores (each {unit} scored by a model that did not see it, first pass of folds)")
    if scored.qid is not None:
        curves = {split: {spec: (y_rows, scores, scored.qid[rows]) for spec, (y_rows, scores, rows) in models.items()}
                  for split, models in curves.items()}
        figure = metric_at_k_data(curves, metric=query_defaults(QUERY_METRIC, scored.qid), title=title)
        return [(f"ndcg@k against k of the leading candidates, the mean over queries of {how}.",
                 figure_bytes(figure, "svg"))]
    curves = {split: {spec: (y_rows, scores) for spec, (y_rows, scores, _) in models.items()}
              for split, models in curves.items()}
    figure = roc_data(curves, title=title)
    return [(f"ROC curves of the leading candidates in counts, from {how}: the right panel zooms on "
             "the leftmost part, the top of the list.", figure_bytes(figure, "svg"))]


def build_report(args, estimator, data, y, imputation: str = "", validation=None, said=()):
    """The HTML report's content; ``validation``: ``(dataset, X, y)`` of the ``--validation`` file, whose rows
    the candidates were scored on (else the training rows, out of fold); ``said``: lines the command printed that
    the report says as well (the candidates a sparse file skipped, why the search or a refit stopped)."""
    from ._report import Report, file_sha256

    val = None if validation is None else validation[0]
    figures = _figures(estimator, data if val is None else val, y if val is None else validation[2], val is not None)
    notes = [f"Chosen: {estimator.best_candidate_} ({estimator.selection_reason_}). Scores are means over the "
             f"validation parts each candidate was scored on (the parts column) of {estimator.cv_description_}; "
             f"a blend's is its nested estimate (the small-data blend's, its members' rank average on each part)."]
    if validation_values(estimator):
        extra = list(eval_metric_values(estimator))         # --eval-metric's: shown, never chosen by
        notes.append(f"The column {estimator.metric_} (whole file) is each candidate's value on the whole "
                     f"validation file {val.source} (evals_result_)" + (
                         f"; the columns {', '.join(f'{spec} (whole file)' for spec in extra)} its values of the "
                         f"--eval-metric metrics there, which do not change the choice." if extra else "."))
    if data.init_score is not None:
        notes.append(f"Every candidate was scored at the rows' initial scores ({data.init_score_name}) plus its "
                     "own: the saved model is the correction alone (rankcore score --init-score adds them).")
    if not figures:
        figure = "ndcg@k" if data.qid is not None else "ROC"
        notes.append(f"No {figure} figure: " + (
            "no candidate was scored on the validation file (a longer --time lets them finish)." if val is not None
            else "no candidate was scored on the whole first pass of folds, so no row has an out-of-fold score of "
                 "every leading candidate (a longer --time lets them finish)."))
    if imputation:
        notes.append(imputation[0].upper() + imputation[1:] + ".")
    notes += [line[0].upper() + line[1:] + ("" if line.endswith(".") else ".") for line in said]
    facts = [("file", data.source), ("sha256", file_sha256(data.source)), ("rows", str(data.n_samples)),
             ("features", str(data.n_features)), ("label", str(data.label_name))]
    if val is not None:
        facts += [("validation file", val.source), ("validation sha256", file_sha256(val.source)),
                  ("validation rows", str(val.n_samples))]
    facts.append(("validation", estimator.cv_description_))
    asides = ((data.weight_name if data.weight is not None else None, "sample weights",
               "every fit; the metric counts every row once"),
              (data.init_score_name if data.init_score is not None else None, "initial scores",
               "every fit learns a correction to them"),
              (data.position_name if data.position is not None else None, "display positions",
               "every fit learns an effect per position; the model ranks without them"))
    facts += [(what, f"{column} ({why})") for column, what, why in asides if column is not None]
    table = leaderboard_table(estimator)
    return Report(
        title=f"rankcore auto: {source_name(data.source)}",
        command=" ".join(shlex.quote(a) for a in ["rankcore", *getattr(args, "_argv", [])]),
        data=facts, columns=table.columns, rows=table.rows, figures=figures,
        models=_chosen_models(estimator),
        settings={"metric": estimator.metric_, "time budget": str(estimator.time_budget),
                  "candidates": str(estimator.candidates), "blend": str(estimator.blend),
                  "bag_folds": str(estimator.bag_folds),
                  "random_state": str(estimator.random_state),
                  "chosen": f"{estimator.best_candidate_}: {estimator.selection_reason_}"},
        notes=notes,
    )


def _chosen_models(estimator) -> list[dict]:
    from ..auto import FoldBag, RankAverage

    best = estimator.best_estimator_
    members = list(zip(best.names, best.estimators)) if isinstance(best, RankAverage) else \
        [(estimator.best_candidate_, best)]
    models = []
    for name, model in members:
        if isinstance(model, FoldBag):        # the refit's parameters (the fold models share them)
            name = f"{name} (the refit, averaged with {len(model.estimators) - 1} fold models)"
            model = model.estimators[0]
        steps = getattr(model, "steps", None)
        inner = steps[-1][1] if steps else model
        models.append({"label": name, "estimator": type(inner).__name__,
                       "params": inner.get_params(deep=False) if hasattr(inner, "get_params") else {},
                       "fit_seconds": None})
    return models
