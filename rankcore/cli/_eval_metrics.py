"""``fit --eval-metric SPECS``: more metrics recorded on the validation rows after every iteration; ``auto
--eval-metric SPECS``: more metrics each candidate is scored by on the validation file.

The specs go to the estimator's ``fit(..., eval_metric=[...])``: each
metric's curve on the ``--validation`` rows is kept in the model file
(``evals_result_``) beside the monitored one, and the fit's summary prints
the last value of each.  The model is the same: only ``--monitor`` steers
early stopping.  For ``auto`` (``AutoRanker.fit``'s ``eval_metric``) each
candidate's value of each metric on the whole ``--validation`` file is kept
in ``evals_result_`` beside ``--metric``'s and shown in the leaderboard; the
choice is the same: only ``--metric`` makes it.
"""

from __future__ import annotations


from . import CommandError

__all__ = ["EVAL_METRIC_HELP", "AUTO_EVAL_METRIC_HELP", "eval_metric_specs", "check_fit_with_eval_metrics",
           "check_auto_with_eval_metrics", "eval_metric_lines", "eval_metric_error", "monitor_error",
           "file_detail"]

#: ``--eval-metric`` of ``fit``.
EVAL_METRIC_HELP = ("with --validation: more metrics recorded on the validation rows after every iteration, in the "
                    "model file (evals_result_) beside --monitor's, their last values printed at the end; "
                    "comma-separated specs like --metrics (ndcg@k:1,map), and the option may be repeated")
#: ``--eval-metric`` of ``auto``.
AUTO_EVAL_METRIC_HELP = ("with --validation: more metrics each candidate is scored by on the whole validation file, "
                         "a leaderboard column each and in the model file (evals_result_) beside --metric's; they do "
                         "not change the choice; comma-separated specs like --metrics (ndcg@k:1,map), and the option "
                         "may be repeated")


def eval_metric_specs(values: list[str] | None) -> list[str]:
    """The specs of every ``--eval-metric`` (each comma-separated like ``--metrics``), checked as the library
    checks ``eval_metric``: registered scalar metrics, a repeat kept once.

    Raises
    ------
    CommandError
        A spec the registry cannot resolve, or one that is not a scalar
        score, with the registry's reason.
    """
    from ..registry import resolve
    from ._common import registered_names, split_specs

    specs: dict[str, str] = {}
    for text in values or ():
        for spec in split_specs(text, registered_names("metric"), what="--eval-metric"):
            try:
                metric = resolve("metric", spec)
            except (ValueError, TypeError) as exc:
                raise CommandError(f"--eval-metric {spec!r}: {exc}") from None
            if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
                raise CommandError(f"--eval-metric {spec!r}: the metric is not a scalar score; --eval-metric records "
                                   "scalar metrics (ndcg@k:5, map@k:10, auc, ...)")
            specs.setdefault(metric.spec, spec)
    return list(specs.values())


def check_fit_with_eval_metrics(configs, specs: list[str], validation: str | None) -> None:
    """``--eval-metric`` needs ``--validation`` (the rows its metrics are recorded on) and a model that records
    metrics per iteration (its estimator's ``fit`` takes ``eval_metric``); said before the data are read."""
    import inspect

    from ._models import KINDS

    if not specs:
        return
    if validation is None:
        raise CommandError("--eval-metric: needs --validation DATA, the rows its metrics are recorded on after every "
                           "iteration (the training rows' curves would say little of the model)")

    def records(cls) -> bool:
        try:
            return "eval_metric" in inspect.signature(cls.fit).parameters
        except (TypeError, ValueError):
            return False

    for config in configs:
        if not records(config.kind.cls):
            kinds = " or ".join(sorted(name for name, kind in KINDS.items() if records(kind.cls)))
            raise CommandError(f"--eval-metric: {config.label} ({config.kind.cls.__name__}) records no metric per "
                               f"iteration (its fit takes no eval_metric); use --model {kinds}")


def check_auto_with_eval_metrics(specs: list[str], validation: str | None) -> None:
    """``auto --eval-metric`` needs ``--validation`` (the file its metrics score each candidate on); said before
    the data are read."""
    if specs and validation is None:
        raise CommandError("--eval-metric: needs --validation DATA, the file each candidate is scored on by these "
                           "metrics beside --metric (cross-validation scores the candidates by --metric alone)")


def eval_metric_lines(estimator, specs: list[str], where: str = "validation") -> list[str]:
    """``"validation map 0.7412"``: the last value of each ``--eval-metric`` curve of the
    model's ``evals_result_`` (one set, the validation rows), one line each."""
    from ..registry import resolve

    results = getattr(estimator, "evals_result_", None) or {}
    if len(results) != 1:
        return []
    (curves,) = results.values()
    lines = []
    for spec in specs:
        curve = curves.get(resolve("metric", spec).spec)
        if curve is not None and len(curve):
            lines.append(f"{where} {spec} {float(curve[-1]):.4f}")
    return lines


def eval_metric_error(exc: BaseException, validation: str | None) -> CommandError | None:
    """The CLI's error for the library's refusal of an ``eval_metric`` on its ``eval_set``: said as the option
    (``--eval-metric SPEC``) and the file (``--validation DATA``) the command line gave; None for another error.

    Read from the refusal's fields (:class:`~rankcore.metrics.MetricRefusal`: the metric, what it refused),
    never from its text."""
    from ..metrics import MetricRefusal

    if not isinstance(exc, MetricRefusal) or exc.parameter != "eval_metric" or validation is None:
        return None
    return CommandError(f"--eval-metric {exc.spec}: cannot score --validation {validation}: {file_detail(exc)}")


def monitor_error(exc: BaseException, rows: str, monitor_spec: str, of: str = "the file") -> CommandError | None:
    """The library's refusal of the monitored metric on the rows the command line names ``rows`` (``"--validation
    FILE"`` of ``fit``, ``"--test FILE"`` of ``compare``; ``of``: what they are, ``"the file"``) said as the options
    given: the library's ``scoring='ndcg@k:3' on eval_set: ...``, or the metric's own ``metric 'ndcg@k:10': k = 10
    ...``, named neither ``scoring`` nor ``eval_set`` of the command line.  None for another error.  Read from the
    refusal's fields (:class:`~rankcore.metrics.MetricRefusal`), never from its text."""
    from ..metrics import MetricRefusal

    if not isinstance(exc, MetricRefusal):
        return None
    if exc.reason == "k_beyond" and exc.parameter in (None, "scoring"):
        # the monitored metric's k against the rows' queries (the library says "the input" of one list)
        return CommandError(f"{rows}: --monitor {monitor_spec}: {file_detail(exc, of)}")
    if exc.parameter == "scoring" and exc.eval_set == "eval_set":
        return CommandError(f"{rows}: --monitor {exc.spec}: {exc.detail}")
    return None


def _whole_query_advice(spec: str) -> str:
    """The library's advice after "choose k <= n" for the metric ``spec`` (the spec that reads each query whole)."""
    from ..metrics import whole_query_advice
    from ..registry import resolve

    try:
        return whole_query_advice(resolve("metric", spec))
    except (ValueError, TypeError):        # a spec that no longer resolves: the refusal as it is
        return ""


def file_detail(exc, of: str = "the file") -> str:
    """A refusal's detail said of the ``--validation`` file (``of``: what the rows are): a count k beyond its
    queries is said of "every query of the file" (the library says "the input" of a set of one query)."""
    from ..metrics import k_beyond

    if exc.reason == "k_beyond" and exc.longest is not None:
        return k_beyond(exc.spec, exc.k, exc.longest, f"every query of {of}", _whole_query_advice(exc.spec)).detail
    return exc.detail
