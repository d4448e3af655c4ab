"""``rankcore compare DATA``: train several models, tabulate top-of-list metrics, draw the ROC figures.

The data are split once (stratified, ``--test-size``, ``--random-state``) or
a separate ``--test`` file is used; every model is fitted on the training
part and scored on both.  Outputs: the table on stdout, figures in
``--out-dir`` (``roc``, ``precision_at_k``, ``objective``; SVG written by
rankcore itself unless ``--image-format png|pdf``, which needs matplotlib),
an optional self-contained HTML ``--report`` and optional saved models.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import CommandError
from ._common import (
    DEFAULT_METRICS,
    Table,
    add_data_options,
    add_force_option,
    add_table_format_option,
    announce_positive,
    check_distinct_outputs,
    check_output,
    fraction,
    info,
    load,
    metric_specs,
    nonnegative_int,
    scalar_metric,
)
from ._models import (
    ModelConfig,
    add_model_options,
    build_configs,
    decision_scores,
    fit_one,
    metric_monitor_on,
    models_epilog,
    monitor_from_params,
    split_by_category,
)
from ._missing import check_missing, missing_facts, say_columns_missing_everywhere, unseen_categories_said
from ._columns import dense_for, estimator_input, like_training
from ._constraints import constraint_advice, say_unread_constraints
from ._eval_metrics import monitor_error
from ._outputs import print_result, refuse_stdout
from ._intervals import add_interval_options, comparison_tables, render_tables
from .._progress import Progress
from ._progress import add_progress_options
from ._queries import (QUERY_METRICS, QUERY_MONITOR, check_fit_within_queries, grade_row_error, qid_option,
                       query_defaults, query_facts, query_labels, query_split, refuse_query_objectives,
                       use_query_learner)
from ._stdin import source_name
from ._validation_checks import API_TRAINING_COPY, warn_if_training_file, warn_if_training_rows
from ._weights import (COMPARE_HELP as WEIGHT_HELP, check_fit_with_weights, check_training_weights,
                       weight_error, weight_facts)

FIGURES = ("roc", "precision_at_k", "objective")
#: What the scores of a ``--test`` file holding the training rows are of.
_FITTED_ON = "every model is fitted on (the table ranks the models that fit their own rows closest first)"

#: The figures of rows in queries (``--qid``, LIBSVM ``qid:``): the top of each query, and the queries one by one.
QUERY_FIGURES = ("ndcg_at_k", "query_differences", "objective")
# What to look at in each figure: one sentence, printed after the file is written
# and used as the report's caption.
FIGURE_GUIDE = {
    "roc": "ROC curves in counts, one row per split: the right panel zooms on the leftmost part "
           "(the top of the list, few false positives), where models built for the top differ most.",
    "precision_at_k": "precision among the k top-ranked items: the curves differ most for small k, "
                      "the top of the list (the dotted line is the base rate).",
    "ndcg_at_k": "ndcg@k against k, the mean over the test queries: the top of each query is at small k.",
    "query_differences": "each test query's ndcg@k difference from the best model, sorted, with the mean "
                         "difference and its interval (paired over queries): are the gains many small ones or a few "
                         "large ones?",
    # replaced by the verdict on the held-out metric when one was recorded (see objective_caption)
    "objective": "the training objective after each iteration, each model on its own scale.",
}


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "compare",
        help="train several models and compare them at the top of the list",
        description="Train several models on a training split of DATA, print a table of top-of-list metrics on "
                    "train and test, and draw the ROC curves (full and leftmost portion, in counts), precision@k "
                    "against k and the training objective per iteration. With query ids (--qid COLUMN, or a "
                    "LIBSVM file's qid: or query file) the models rank within queries, the test split is whole "
                    "queries, the metrics are means over the queries, and the figures are ndcg@k against k and "
                    "each test query's difference between the models.",
        epilog=models_epilog(
            "rankcore compare data.csv --label y --price identity,pow:4,pow:16,pow:64 --test-size 0.3",
            "rankcore compare data.csv --model push,exactboost,sgd@k --report report.html",
            "rankcore compare data.csv --label y --weight w --model push,rankboost",
            "rankcore compare train.csv --test test.csv --model 'exactboost:metric=auc' "
            "--model 'exactboost:metric=prec@k:20'",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", metavar="DATA",
                        help="labelled data: .csv (with a header), .svm/.libsvm, .npy or .npz, "
                             "or - (standard input)")
    add_data_options(parser, categorical=True, weight=WEIGHT_HELP)
    split = parser.add_argument_group("split")
    split.add_argument("--test-size", type=fraction, default=0.3, metavar="FRACTION",
                       help="fraction of DATA held out for testing, stratified (default 0.3); with query ids, "
                            "the fraction of the queries, whole")
    split.add_argument("--test", metavar="DATA", help="a separate labelled test file instead of splitting DATA")
    add_model_options(parser, multiple=True)
    add_output_options(parser)
    add_interval_options(parser, random_state=False)
    add_progress_options(parser)
    return parser


def add_output_options(parser, *, default_dir: str = ".") -> None:
    out = parser.add_argument_group("output")
    out.add_argument("--metrics", "-m", metavar="SPECS",
                     help=f"comma-separated metric specs of the table (default {DEFAULT_METRICS}; with query ids "
                          f"{QUERY_METRICS}, means over the queries)")
    out.add_argument("--monitor", metavar="METRIC",
                     help=f"the test metric shown with the progress (default auc; with query ids {QUERY_MONITOR})")
    add_table_format_option(out)
    out.add_argument("--out-dir", default=default_dir, metavar="DIR",
                     help=f"directory of the figures (default {default_dir!r}; created if missing)")
    add_image_format_option(out)
    out.add_argument("--no-plots", action="store_true", help="write no figures")
    out.add_argument("--max-fp", type=nonnegative_int, metavar="N",
                     help="width of the leftmost ROC portion in false positives (default: a tenth of the negatives)")
    out.add_argument("--report", metavar="FILE.html",
                     help="also write a self-contained HTML report (table, figures, settings, versions)")
    out.add_argument("--save-models", metavar="DIR", help="also save every fitted model as DIR/<model>.json")
    add_force_option(out)


def add_image_format_option(group) -> None:
    group.add_argument("--image-format", choices=("svg", "png", "pdf"), default="svg",
                       help="format of the figures (default svg, drawn by rankcore itself; png and pdf "
                            "need matplotlib: pip install \"rankcore[plot]\")")


# --------------------------------------------------------------------------
# The comparison itself (shared with `rankcore demo`)
# --------------------------------------------------------------------------


@dataclass
class Fitted:
    config: ModelConfig
    estimator: Any
    seconds: float
    curve: Any              # the estimator's TrainingCurve, or None (not iterative)
    held_out: str | None = None   # what the curve's validation scores are ("test auc", "valid pauc:0.1")
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Comparison:
    splits: dict[str, tuple[np.ndarray, np.ndarray]]   # split -> (X, y01)
    metrics: list[str]
    models: list[Fitted]
    figures: dict[str, Any] = field(default_factory=dict)   # name -> plotting.FigureData, reused by the report
    interval_tables: list = field(default_factory=list)     # (title, Table) with --ci
    band: dict = field(default_factory=dict)                # with --ci: add_roc_bands' options
    qid: dict[str, Any] = field(default_factory=dict)       # split -> each row's query id, when in queries
    relevant_label: Any = None                              # one list: the file's label fitted as 1
    labels: Any = None                                      # and the file's labels (its other one recorded too)

    def table(self) -> Table:
        rows = []
        for fitted in self.models:
            for split in self.splits:
                rows.append([fitted.config.label, split] + [fitted.metrics[split][m] for m in self.metrics])
        return Table(["model", "split"] + self.metrics, rows)

    def curves(self) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
        return {split: {f.config.label: (self.splits[split][1], f.scores[split]) for f in self.models}
                for split in self.splits}

    def histories(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return {f.config.label: (f.curve.iterations, f.curve.objective) for f in self.models if f.curve is not None}

    def held_out_histories(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The held-out metric after each iteration, for the models whose training curve recorded it."""
        from ._advice import held_out_history

        out = {}
        for f in self.models:
            history = held_out_history(f.curve)
            if history is not None:
                out[f.config.label] = history
        return out

    def held_out_labels(self) -> dict[str, str]:
        """What each model's held-out record is: the monitored split's metric, or its own hold-out's."""
        return {f.config.label: f.held_out for f in self.models if f.held_out is not None}

    def objective_caption(self) -> str:
        """What the objective figure shows, with each model's verdict on its held-out metric."""
        from ._advice import iterations_advice

        return iterations_advice([(f.config.label, f.curve, f.held_out) for f in self.models if f.curve is not None])


def run_comparison(configs: list[ModelConfig], splits: dict[str, tuple[np.ndarray, np.ndarray]], metrics: list[str],
                   *, progress, monitor: str, qid: dict[str, Any] | None = None,
                   sample_weight: np.ndarray | None = None, weight_column: str = "",
                   feature_names: list[str] | None = None, test_rows: tuple[str, str] | None = None,
                   refusal_place=None) -> Comparison:
    """Fit every configuration on ``splits["train"]`` and evaluate it on every split.

    ``qid`` (split -> each row's query id): the models are fitted within the
    training queries and every metric is a mean over each split's queries.
    ``sample_weight``: each training row's weight, given to every fit (the
    metrics count every row once); ``weight_column`` their ``--weight``
    column, and ``feature_names`` the features' names, for the messages;
    ``test_rows``: how the command line names the test rows and what they
    are (``("--test FILE", "the file")``), for a refusal of ``monitor``;
    ``refusal_place``: a fit's refusal said at its place in the file (a
    grade beyond the objective's gains at a line), or None.
    """
    from ..metrics import evaluate

    qid = qid or {}
    X_tr, y_tr = splits["train"]
    held_out = [s for s in splits if s != "train"]
    monitor_split = held_out[0] if held_out else "train"
    X_mon, y_mon = splits[monitor_split]
    watched = (monitor, X_mon, y_mon) + ((qid[monitor_split],) if qid else ())
    models = []
    for config in configs:
        try:
            outcome = fit_one(config, X_tr, y_tr, progress=progress, monitor=watched, qid=qid.get("train"),
                              monitor_label=f"{monitor_split} {monitor}", sample_weight=sample_weight)
        except (ValueError, TypeError) as exc:
            if sample_weight is not None and (error := weight_error(exc, weight_column)) is not None:
                raise CommandError(f"{config.label}: {error}") from None
            if test_rows and monitor_split == "test" and \
                    (error := monitor_error(exc, test_rows[0], monitor, test_rows[1])) is not None:
                raise CommandError(f"{config.label}: {error}") from None       # said as the options given
            if (advice := constraint_advice(exc, feature_names)) is not None:   # the learner's monotone, interactions
                raise CommandError(f"{config.label}: {exc}; {advice}") from None
            if refusal_place is not None and (error := refusal_place(exc)) is not None:
                raise CommandError(f"{config.label}: {error}") from None
            raise CommandError(f"{config.label}: {exc}") from exc
        fitted = Fitted(config, outcome.estimator, outcome.seconds, outcome.curve, outcome.held_out)
        for split, (X, y) in splits.items():
            fitted.scores[split] = decision_scores(outcome.estimator, X)
            fitted.metrics[split] = evaluate(y, fitted.scores[split], metrics, qid=qid.get(split))
        models.append(fitted)
    return Comparison(splits, metrics, models, qid=qid)


def figure_paths(out_dir: str, image_format: str, names: tuple[str, ...] = FIGURES) -> dict[str, str]:
    """Where each figure goes: ``{name: out_dir/name.format}``."""
    return {name: os.path.join(out_dir, f"{name}.{image_format}") for name in names}


def write_figures(comparison: Comparison, out_dir: str, image_format: str | None, max_fp: int | None,
                  title: str) -> dict[str, str]:
    """Draw the figures into ``out_dir``; returns {figure name: path}.

    ``image_format`` None describes the figures (``comparison.figures``)
    without writing any file (the report alone needs them).
    """
    from ..plotting import objective_data, precision_at_k_data, roc_data, save_figure

    curves = comparison.curves()
    figures = {}
    if comparison.qid:
        figures = query_figures(comparison, title)
    else:
        drawable = _roc_splits(curves)
        if drawable:
            figures["roc"] = roc_data(drawable, max_fp=max_fp, title=title)
        figures["precision_at_k"] = precision_at_k_data(curves, title=title)
        if getattr(comparison, "band", None) and drawable:
            from ..plotting import add_roc_bands

            add_roc_bands(figures["roc"], drawable, **comparison.band)
    histories = comparison.histories()
    if histories:
        curves = {f.config.label: f.curve for f in comparison.models if f.curve is not None}
        ylabels = {label: curve.objective_name for label, curve in curves.items()}
        xlabels = {label: curve.unit for label, curve in curves.items()}
        held_out = comparison.held_out_histories()
        figures["objective"] = objective_data(histories, ylabel=ylabels, xlabel=xlabels,
                                              title=f"{title}: training objective",
                                              held_out=held_out or None,
                                              held_out_label=comparison.held_out_labels())
    comparison.figures = figures
    paths = {}
    if image_format is not None:
        os.makedirs(out_dir, exist_ok=True)
        targets = figure_paths(out_dir, image_format, QUERY_FIGURES if comparison.qid else FIGURES)
        from ._stdin import ended_by_signals

        with ended_by_signals():                 # SIGTERM between or in the writes: no temporary file left
            for name, fig in figures.items():
                paths[name] = save_figure(fig, targets[name])
    return paths


def _roc_splits(curves: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]) -> dict[str, Any]:
    """The splits whose ROC curves can be drawn: those with both classes; a warning names each one left out.

    A ``--test`` file of one class has its precision@k (and metrics such as
    ``prec@k``), but no ROC curve: its row is left out of the figure instead
    of failing every figure and the report after the models were trained.
    """
    kept = {}
    for split, models in curves.items():
        y = next(iter(models.values()))[0]
        positives = int(np.count_nonzero(y))
        if 0 < positives < y.shape[0]:
            kept[split] = models
        else:
            warnings.warn(f"the roc figure leaves out the {split} split: its {y.shape[0]} rows are all "
                          f"{'positive' if positives else 'negative'}, and an ROC curve needs both classes",
                          UserWarning, stacklevel=3)
    return kept


def query_figures(comparison: Comparison, title: str) -> dict[str, Any]:
    """The figures of rows in queries, on the held-out split: ndcg@k against k; each query's difference."""
    from ..plotting import metric_at_k_data, query_differences_data

    split = next((s for s in comparison.splits if s != "train"), "train")
    y, qid = comparison.splits[split][1], comparison.qid[split]
    figures = {"ndcg_at_k": metric_at_k_data({f.config.label: (y, f.scores[split], qid) for f in comparison.models},
                                             title=f"{title}: {split} queries")}
    if len(comparison.models) > 1:
        from ..metrics import TooFewQueries

        cut = min(10, int(np.unique(qid, return_counts=True)[1].max()))    # ndcg@k:10, or the longest query's k
        try:
            figures["query_differences"] = query_differences_data(
                y, {f.config.label: f.scores[split] for f in comparison.models}, qid=qid, metric=f"ndcg@k:{cut}",
                level=comparison.band.get("level", 0.95), n_boot=comparison.band.get("n_boot", 2000),
                random_state=comparison.band.get("random_state", 0), title=f"{title}, {split} queries")
        except TooFewQueries as exc:     # one counted query has no differences to draw: said, not silent
            warnings.warn(f"the query_differences figure is left out: {exc}", UserWarning, stacklevel=2)
    return figures


def build_report(args, comparison: Comparison, data_facts: list[tuple[str, str]], title: str, argv: list[str],
                 guide: dict[str, str] | None = None):
    from ..plotting import figure_bytes
    from ._report import Report

    figures = comparison.figures
    captions = _captions(comparison, guide)
    table = comparison.table()
    tables = [(title, t.columns, t.rows) for title, t in comparison.interval_tables if t.rows]
    settings = {
        "metrics": ", ".join(comparison.metrics),
        "monitor": args.monitor,
        "random_state": str(args.random_state),
    }
    return Report(
        title=title,
        command=" ".join(shlex.quote(a) for a in ["rankcore", *argv]),
        data=data_facts,
        columns=table.columns,
        rows=table.rows,
        figures=[(captions[name], figure_bytes(fig, "svg")) for name, fig in figures.items()],
        models=[{"label": f.config.label, "estimator": type(f.estimator).__name__,
                 "params": f.estimator.get_params(deep=False), "fit_seconds": f.seconds}
                for f in comparison.models],
        settings=settings,
        tables=tables,
    )


def finish(args, comparison: Comparison, *, title: str, data_facts: list[tuple[str, str]],
           argv: list[str] | None, print_table: bool = True, guide: dict[str, str] | None = None) -> None:
    """Print the table and write the figures, report and models the options ask for.

    Each figure written is announced with one sentence saying what to look at
    (:data:`FIGURE_GUIDE`, overridden per figure by ``guide``).
    """
    from ..persistence import save_model
    from ._init_models import record_relevant_label

    if getattr(args, "ci", None) is not None:
        from ..metrics import TooFewQueries
        from ._intervals import OneClassSplit

        try:
            _, comparison.interval_tables = comparison_tables(comparison, args)
        except (TooFewQueries, OneClassSplit) as exc:   # the models and their table stand; only the intervals not
            warnings.warn(f"--ci: no intervals: {exc}", stacklevel=2)
        comparison.band = {"level": args.ci, "n_boot": min(args.n_boot, 500), "random_state": args.random_state}
    if comparison.qid:      # the interval of each query's mean difference, in the figure of the differences
        comparison.band = {"level": getattr(args, "ci", None) or 0.95, "n_boot": args.n_boot,
                           "random_state": args.random_state}
    if print_table:
        print_result(render_tables(comparison.table(), comparison.interval_tables, args.table_format),
                     args.table_format)
    sentences = _captions(comparison, guide)
    if not args.no_plots or args.report:
        # without --no-plots the files; with it the report still needs the figures, not the files
        paths = write_figures(comparison, args.out_dir, None if args.no_plots else args.image_format,
                              args.max_fp, title)
        for name, path in paths.items():
            info(args, f"wrote {os.path.normpath(path)}: {sentences[name]}")
    if args.report:
        from ._report import write_report

        write_report(build_report(args, comparison, data_facts, title, argv or sys.argv[1:], guide),
                     args.report)
        info(args, f"wrote {os.path.normpath(args.report)}")
    if args.save_models:
        os.makedirs(args.save_models, exist_ok=True)
        for fitted in comparison.models:
            path = os.path.join(args.save_models, _file_name(fitted.config.label) + ".json")
            if comparison.relevant_label is not None:     # what a continuation (--init-model) must rank first
                record_relevant_label(fitted.estimator, comparison.relevant_label, comparison.labels)
            save_model(fitted.estimator, path)
            info(args, f"saved {path}")


def _captions(comparison: Comparison, guide: dict[str, str] | None) -> dict[str, str]:
    """One sentence per figure: FIGURE_GUIDE, overridden by ``guide``; the objective's from the held-out metric."""
    captions = dict(FIGURE_GUIDE, **(guide or {}))
    if comparison.histories():
        captions["objective"] = comparison.objective_caption()
    level = comparison.band.get("level") if getattr(comparison, "band", None) and not comparison.qid else None
    if level is not None:
        # the panels' titles say "95% bootstrap band"; read as a band of the whole curve it would be too narrow
        captions["roc"] += (f" The shading is each model's pointwise {100 * level:g}% bootstrap band: at each count "
                            "of false positives on its own, not for the whole curve at once.")
    return captions


def _file_name(label: str) -> str:
    keep = [c if c.isalnum() or c in "-_.@" else "_" for c in label]
    return "".join(keep).strip("_") or "model"


def check_outputs(args, inputs: dict[str, str | None] | None = None, configs=(),
                  figures: tuple[str, ...] = FIGURES) -> None:
    """Fail before any training if an output cannot be produced, or would overwrite a file.

    ``inputs`` are never overwritten; other existing files only with ``--force``;
    ``figures``: the names of the figures written.
    """
    refuse_stdout(args.report, "--report")
    outputs: dict[str, str | None] = {"--report": args.report}
    if not args.no_plots and args.image_format != "svg":
        from ..plotting import require_matplotlib

        require_matplotlib()  # PNG and PDF are drawn by matplotlib; SVG (the default) by rankcore
    if not args.no_plots:
        _check_directory_creatable(args.out_dir, "--out-dir")
        for name, path in figure_paths(args.out_dir, args.image_format, _written(figures, configs)).items():
            outputs[f"--out-dir ({name} figure)"] = path
    if args.save_models:
        _check_directory_creatable(args.save_models, "--save-models")
        for config in configs:
            model_path = os.path.join(args.save_models, _file_name(config.label) + ".json")
            outputs[f"--save-models ({config.label})"] = model_path
    check_distinct_outputs(outputs)
    made = {os.path.abspath(args.out_dir)} if not args.no_plots else set()    # created before the report is written
    for option, path in outputs.items():
        if path is None:
            continue
        directory = os.path.dirname(path) or "."
        if os.path.isdir(directory) or (option == "--report" and os.path.abspath(directory) not in made):
            check_output(path, option, inputs=inputs, force=args.force,
                         instead=_figure_ways_out(args) if option.startswith("--out-dir") else "")


def _figure_ways_out(args) -> str:
    """What a run that finds its figures already written can do instead of ``--force``: a second run of a cron job
    meets the first one's figures, which were written into the current directory unless it said otherwise."""
    where = (" (without --out-dir the figures are written into the current directory)"
             if os.path.normpath(args.out_dir) == "." else "")
    return f", --out-dir DIR to write the figures into another directory, or --no-plots to write none{where}"


def _written(figures: tuple[str, ...], configs) -> tuple[str, ...]:
    """The figures of ``figures`` this run writes: the queries' differences need two models, the objective a model
    with a training curve (an existing file of a figure not written is no reason to stop)."""
    if not configs:
        return figures
    drop = set()
    if len(configs) < 2:
        drop.add("query_differences")
    if all(config.kind.cls.iteration_parameter is None for config in configs):
        drop.add("objective")
    return tuple(name for name in figures if name not in drop)


def _check_directory_creatable(directory: str, option: str) -> None:
    """A directory that exists, or whose nearest existing ancestor is a directory this process can write in.

    (Made after the training otherwise: a parent that is a file, or read-only, failed only then.)
    """
    if not str(directory).strip():
        raise CommandError(f"{option}: expected a directory name, got {directory!r}")
    if os.path.lexists(directory):                # a dangling link exists as a name, and is no directory
        if not os.path.isdir(directory):
            raise CommandError(f"{option}: {directory!r} exists and is not a directory")
        return
    ancestor = os.path.dirname(os.path.abspath(directory))
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise CommandError(f"{option}: cannot make {directory!r}: {ancestor!r} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CommandError(f"{option}: cannot make {directory!r}: {ancestor!r} is not writable")


def data_facts_of(data, extra: list[tuple[str, str]], found=()) -> list[tuple[str, str]]:
    from ._report import file_sha256

    facts = [("file", data.source), ("sha256", file_sha256(data.source)), ("format", data.format),
             ("rows", str(data.n_samples)), ("features", str(data.n_features)),
             ("label", str(data.label_name))]
    for source, missing in found:
        what = "missing values" if source is data else f"missing values ({source.source})"
        facts.append((what, f"{missing.n_values} in {missing.n_rows} rows, columns {', '.join(missing.columns)}"))
    return facts + extra


def _gives_queries(args) -> bool:
    """Whether DATA is a LIBSVM file with query ids, from its first row (before the file is read)."""
    from .datasets import DataError, detect_format, libsvm_has_queries

    try:
        fmt = args.data_format or detect_format(args.data)
    except DataError:
        return False                       # reading DATA says what is wrong with it
    return fmt == "libsvm" and libsvm_has_queries(args.data)


def run(args) -> int:
    explicit = metric_specs(args.metrics) if args.metrics else None
    if args.monitor is not None:
        scalar_metric(args.monitor, "--monitor")
    configs = build_configs(args, multiple=True)
    # a monotone value that holds no sign: said first, as every spec's refusal, with the columns of the file
    say_unread_constraints(configs, lambda: load(args, args.data, queries=True).feature_names)
    from_metric = monitor_from_params(args, configs)      # --param scoring=SPEC, else --metric, is watched
    if args.weight is not None:
        check_fit_with_weights(configs, args.weight, command="compare")
    check_outputs(args, {"DATA": args.data, "--test": args.test}, configs,
                  QUERY_FIGURES if args.qid is not None or _gives_queries(args) else FIGURES)
    warn_if_training_file(args.data, args.test, _FITTED_ON, option="--test")
    data = load(args, args.data, queries=True)
    if data.qid is not None:
        if args.qid is None:                 # a LIBSVM file's qid: -- the figures are those of queries
            check_outputs(args, {"DATA": args.data, "--test": args.test}, configs, QUERY_FIGURES)
        check_fit_within_queries(configs, data)
        use_query_learner(configs)
    split_by_category(configs, data)
    readers = [(config.label, config.build()) for config in configs]
    dense_for(data, readers)
    if data.qid is None:
        refuse_query_objectives(configs, data, args)
        metrics, args.monitor = explicit or metric_specs(DEFAULT_METRICS), args.monitor or "auc"
        splits, qid, test, split_facts, weight = _one_list_splits(args, data, readers)
        if from_metric:
            metric_monitor_on(args, splits["test"][1], "test")
    else:
        splits, qid, test, split_facts, weight = _query_splits(args, data,
                                                               (explicit or []) + [args.monitor or QUERY_MONITOR],
                                                               readers)
        metrics = explicit or metric_specs(query_defaults(QUERY_METRICS, *qid.values()))
        args.monitor = args.monitor or query_defaults(QUERY_MONITOR, *qid.values())
    found = missing_facts([data, test])
    check_missing(configs, [data, test], found=found)  # every model, before any training
    for source, missing in found:            # a lost column is fitted and scored as unknown: said, as score says it
        say_columns_missing_everywhere(source, missing)
    n_tr, n_te = splits["train"][1].shape[0], splits["test"][1].shape[0]
    if qid:
        grades = np.concatenate([y for _, y in splits.values()])
        what = (f"{np.unique(qid['train']).size} / {np.unique(qid['test']).size} queries, grades "
                f"{float(grades.min()):g} to {float(grades.max()):g}")
    else:
        announce_positive(args, data)
        what = f"{int(splits['train'][1].sum())} / {int(splits['test'][1].sum())} relevant"
    if weight is not None:
        check_training_weights(weight, data.weight_name, "after the split into training and test rows")
        what += f", training {weight_facts(weight, data.weight_name)}"
        split_facts = split_facts + [("sample weights", f"{data.weight_name} (the fits; the metrics count every row "
                                                        "once)")]
    info(args, f"{data.source}: {n_tr} train / {n_te} test rows, {data.n_features} features, {what}"
               + "".join(f"; {m.n_values} missing values in {m.n_rows} rows"
                         + ("" if d is data else f" of {d.source}") for d, m in found)
               + f"; {len(configs)} model(s)")
    if test is not None:
        warn_if_training_rows(data, test, _FITTED_ON, option="--test")
    progress = Progress(args.progress, quiet=args.quiet)
    with warnings.catch_warnings():     # a --test file of the training rows was said once above, not per model
        warnings.filterwarnings("ignore", message=API_TRAINING_COPY)
        comparison = run_comparison(configs, splits, metrics, progress=progress, monitor=args.monitor, qid=qid,
                                    sample_weight=weight, weight_column=data.weight_name or "",
                                    feature_names=data.feature_names, test_rows=_test_rows(args),
                                    refusal_place=None if data.qid is None else _grade_place(args, data, test))
    say_unseen_categories(comparison, test)
    if not qid:
        comparison.relevant_label, comparison.labels = data.relevant_label(args.positive), data.y
    title = source_name(data.source)
    finish(args, comparison, title=title, data_facts=data_facts_of(data, split_facts, found),
           argv=getattr(args, "_argv", None))
    return 0


def say_unseen_categories(comparison: Comparison, test) -> None:
    """Warn of the ``--test`` file's categories the models never saw in training, as ``score`` does: once for the
    file when every model says the same (they were fitted on one file), else once per distinct answer, naming
    its models.  The split of DATA needs no word: its categories are DATA's, which every model was given."""
    if test is None:
        return
    said: dict[str, list[str]] = {}
    for fitted in comparison.models:
        if (message := unseen_categories_said(fitted.estimator, test)) is not None:
            said.setdefault(message, []).append(fitted.config.label)
    for message, labels in said.items():
        if len(labels) > 1:
            message = message.replace("the model never saw", "the models never saw", 1)
        whose = "" if len(said) == 1 and len(labels) == len(comparison.models) else f" (models {', '.join(labels)})"
        warnings.warn(message + whose, UserWarning, stacklevel=2)


def _grade_place(args, data, test):
    """A fit's refusal of a grade said at its line: of DATA for a training row, of the test rows' file for a
    monitored one (``eval_set y``).  The splits' rows are DATA's drawn by :func:`query_split` (the same draw
    again), or, with ``--test``, each file's rows in order."""
    train, held = (None, None) if test is not None else query_split(data.qid, args.test_size, args.random_state)

    def place(exc):
        return grade_row_error(exc, data, train) or grade_row_error(exc, data if test is None else test, held,
                                                                     parameter="eval_set y")
    return place


def _test_rows(args) -> tuple[str, str]:
    """How the command line names the test rows, and what they are: ``--test FILE``'s, or DATA's split."""
    if args.test:
        return f"--test {args.test}", "the file"
    return f"--test-size {args.test_size:g}", "the test split"


def _test_file(args, data, readers=()):
    """The ``--test`` file, its columns matched to the training file's, and its facts for the report; ``readers``:
    the models compared (:func:`~rankcore.cli._columns.dense_for`)."""
    from ._report import file_sha256

    test = load(args, args.test, n_features=None if data.named else data.n_features,
                categorical=list(data.categories) or None, queries=data.qid is not None, beside=data.source,
                feature_names=data.feature_names, require_weight=False)     # the test rows are not fitted
    like_training(test, data)
    dense_for(test, readers)
    return test, [("test file", test.source), ("test sha256", file_sha256(test.source)),
                  ("test rows", str(test.n_samples))]


def _one_list_splits(args, data, readers=()):
    """(splits, {}, test file or None, facts, training weights or None): the rows as one list, split stratified or
    by ``--test``."""
    from sklearn.model_selection import train_test_split

    y = data.binary_target(args.positive)
    X = estimator_input(data)
    if args.test:
        test, facts = _test_file(args, data, readers)
        if args.positive is None:
            from ._validation_checks import check_label_coding

            check_label_coding(data, test, "--test")
        # the training file's relevant label: a test file of that label alone is all relevant
        y_test = test.binary_target(data.relevant_label(args.positive), require_both=False, may_be_absent=True)
        return {"train": (X, y), "test": (estimator_input(test), y_test)}, {}, test, facts, data.weight
    try:
        # the row indices split along: the same split as of (X, y) alone, and the training rows' weights
        X_tr, X_te, y_tr, y_te, train, _ = train_test_split(X, y, np.arange(data.n_samples), test_size=args.test_size,
                                                            stratify=y, random_state=args.random_state)
    except ValueError as exc:
        raise CommandError(f"--test-size {args.test_size}: cannot split {data.n_samples} rows ({exc})") from None
    return ({"train": (X_tr, y_tr), "test": (X_te, y_te)}, {}, None,
            [("split", f"stratified, test size {args.test_size}, random_state {args.random_state}")],
            None if data.weight is None else data.weight[train])


def _query_splits(args, data, metrics: list[str], readers=()):
    """(splits, qid per split, test file or None, facts, training weights or None): whole queries in each split.

    ``metrics``: the specs the labels must suit (:func:`query_labels`).
    """
    y = query_labels(args, data, metrics)
    X = estimator_input(data)
    facts = [("queries", f"{qid_option(data)}: {query_facts(y, data.qid)}")]
    if args.test:
        test, test_facts = _test_file(args, data, readers)
        if test.qid is None:
            raise CommandError(f"--test: {test.source} has no query ids, but the training rows are in queries "
                               f"({qid_option(data)}); give the test rows' queries the same way")
        splits = {"train": (X, y), "test": (estimator_input(test), query_labels(args, test, metrics))}
        return splits, {"train": data.qid, "test": test.qid}, test, facts + test_facts, data.weight
    train, held = query_split(data.qid, args.test_size, args.random_state)
    splits = {"train": (_rows(X, train), y[train]), "test": (_rows(X, held), y[held])}
    return (splits, {"train": data.qid[train], "test": data.qid[held]}, None,
            facts + [("split", f"whole queries, test size {args.test_size}, random_state {args.random_state}")],
            None if data.weight is None else data.weight[train])


def _rows(X, rows: np.ndarray):
    """Rows of an array or a DataFrame (by position)."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]
