"""rankcore objectives and metrics for XGBoost (2.x and later), native and scikit-learn APIs.

Call conventions handled here:

* native objective ``xgboost.train(params, dtrain, obj=obj)``:
  ``obj(predt, dtrain) -> (grad, hess)`` (predt: raw margins);
* scikit-learn objective ``XGBClassifier(objective=obj)``:
  ``obj(y_true, y_pred)`` or ``obj(y_true, y_pred, sample_weight=w)``;
* native metric ``xgboost.train(..., custom_metric=metric)``:
  ``metric(predt, dmatrix) -> (name, value)``;
* scikit-learn metric ``XGBClassifier(eval_metric=metric)``:
  ``metric(y_true, y_score[, sample_weight=w]) -> value``, named by the
  callable's ``__name__`` (the spec).

XGBoost *minimizes* a custom metric unless told otherwise: pass
``maximize=metric.maximize`` to ``xgboost.train`` and to
``xgboost.callback.EarlyStopping`` (True for ``prec@k``, ``auc``, ``pauc``;
False for lower-is-better metrics such as ``pnorm`` or ``misrank``).  Told no
direction, XGBoost guesses it from the name and would minimize ``pauc_0.1``,
``err@k_3`` or ``mrr``; the metric refuses such an early stopping at its
first round (an ``ArgumentRefusal`` naming ``maximize``).

Queries: natively, a metric reads the DMatrix's query groups (``qid=`` or
``group=``) and is the mean over queries, as ``rankcore.evaluate(..., qid=)``.
``XGBRanker(eval_metric=metric)`` is different: XGBoost's scikit-learn
wrapper calls the metric on each query's rows itself and averages the values
weighted by the queries' sizes (a query of one row counting 1).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from ..validation import ArgumentRefusal
from ._adapter import MetricAdapter, ObjectiveAdapter, refuse_other_library

__all__ = ["XGBoostObjective", "XGBoostMetric", "xgboost_objective", "xgboost_metric"]


def _is_dmatrix(obj: Any) -> bool:
    import xgboost

    return isinstance(obj, xgboost.DMatrix)


#: Told no direction, XGBoost's early stopping maximizes a metric whose name starts with one of these and
#: minimizes any other (``xgboost.callback.EarlyStopping``, 2.x and 3.x): ``pauc_0.1``, ``err@k_3``, ``mrr``
#: would be minimized.
_XGBOOST_MAXIMIZED_PREFIXES = ("auc", "pre", "map", "ndcg")

#: How many frames above the metric's call to look for XGBoost's callbacks (they call it 3 to 5 frames up).
_CALLER_FRAMES = 12


def _evaluates(function: Any, metric: Any) -> bool:
    """Whether XGBoost's ``custom_metric`` ``function`` is ``metric``, alone: itself, or the scikit-learn wrapper's
    function around it (``_metric_decorator``, ``ltr_metric_decorator``), whose value is the last one logged.

    A user's function that returns several metrics' values is not: early stopping watches the last of them,
    which may be another.
    """
    if function is metric:
        return True
    if getattr(function, "__module__", None) != "xgboost.sklearn":
        return False
    return any(cell.cell_contents is metric for cell in (getattr(function, "__closure__", None) or ()))


def _callback_container(frame: Any, container_type: type) -> Any:
    """The ``CallbackContainer`` whose method is ``frame`` or one of the frames below it; None if none is."""
    for _ in range(_CALLER_FRAMES):
        if frame is None:
            return None
        container = frame.f_locals.get("self")
        if isinstance(container, container_type):
            return container
        frame = frame.f_back
    return None


def _ranker_caller(metric: Any) -> Any:
    """The frame of XGBRanker's wrapper (``ltr_metric_decorator``) calling ``metric`` in another thread.

    The wrapper scores each query in a thread pool, so the fit's callbacks are not on the metric's own stack: the
    other threads' stacks are looked at for the wrapper that calls this very metric.
    """
    for frame in sys._current_frames().values():
        for _ in range(_CALLER_FRAMES):
            if frame is None:
                break
            code = frame.f_code
            if code.co_name == "inner" and frame.f_globals.get("__name__") == "xgboost.sklearn" \
                    and frame.f_locals.get("func") is metric:
                return frame
            frame = frame.f_back
    return None


def _called_per_query(frame: Any) -> bool:
    """Whether ``frame`` is XGBRanker's wrapper (``ltr_metric_decorator``) calling a metric on one query's rows.

    Its ``task`` calls the metric in a thread pool; XGBClassifier's wrapper (``_metric_decorator``) and a direct
    call pass the whole set.
    """
    return frame is not None and frame.f_code.co_name == "task" and \
        frame.f_globals.get("__name__") == "xgboost.sklearn"


def _guessing_early_stopping(metric: Any) -> bool:
    """Whether an early-stopping callback of the XGBoost fit that calls ``metric`` has no direction yet.

    XGBoost evaluates the metrics after a round, then its callbacks read the
    values; ``EarlyStopping(maximize=None)`` (``early_stopping_rounds`` without
    ``maximize``) guesses the direction from the name at its first round.
    The fit's callbacks are found on the stack (``CallbackContainer``; for
    XGBRanker's thread pool, on the stack of the thread that fits); not found
    -- a direct call, another XGBoost -- means no guess to check.  An early
    stopping without ``metric_name`` watches the last metric logged: this
    metric only when it is the fit's ``custom_metric`` (or
    ``eval_metric``) itself.  About 10 microseconds a call.
    """
    import xgboost

    container_type = getattr(xgboost.callback, "CallbackContainer", None)
    stopping_type = getattr(xgboost.callback, "EarlyStopping", None)
    if container_type is None or stopping_type is None:
        return False
    container = _callback_container(sys._getframe(2), container_type)
    if container is None and threading.current_thread() is not threading.main_thread():
        caller = _ranker_caller(metric)
        container = None if caller is None else _callback_container(caller, container_type)
    if container is None:
        return False
    last = _evaluates(getattr(container, "metric", None), metric)
    return any(isinstance(cb, stopping_type) and cb.maximize is None
               and (cb.metric_name == metric.name or cb.metric_name is None and last)
               for cb in getattr(container, "callbacks", ()))


class XGBoostObjective(ObjectiveAdapter):
    """A registered objective as an XGBoost custom objective (native and scikit-learn APIs).

    See :class:`rankcore.gbdt.ObjectiveAdapter` for what XGBoost receives.
    Scores for ranking: ``booster.predict(dmatrix, output_margin=True)``
    (native) or ``model.predict(X, output_margin=True)`` (scikit-learn).
    XGBoost also reports its default metric for the custom objective unless
    ``disable_default_eval_metric=1`` (or an ``eval_metric``) is set.
    Within queries natively only (``XGBRanker`` refuses custom objectives):
    ``xgboost.train(params, DMatrix(X, y, qid=qid), obj=obj)``.
    """

    def __call__(self, first: Any, second: Any, sample_weight: Any = None):
        refuse_other_library(self, second, "xgboost")
        if _is_dmatrix(second):                      # native: (predt, dtrain), within its queries if any
            margin = second.get_base_margin()
            # a fit from a base_margin starts there, not at equal scores: the noise restarts at it
            initial = margin if margin is not None and np.asarray(margin).size else None
            return self.gradient_hessian(second.get_label(), first, second.get_weight(), second.get_group(),
                                         initial=initial)
        return self.gradient_hessian(first, second, sample_weight)   # scikit-learn: (y_true, y_pred)


class XGBoostMetric(MetricAdapter):
    """A registered scalar metric as an XGBoost custom metric.

    Native calls return ``(name, value)``, scikit-learn calls the value; the
    name (``.name``, also ``__name__``) is the spec with ``:`` replaced by ``_``
    (``prec@k_100``), because XGBoost splits its evaluation log at colons.
    **XGBoost guesses a custom metric's direction from its name**: set
    ``maximize=metric.maximize`` in ``xgboost.train`` / ``EarlyStopping``; an
    early stopping without it that would guess the direction wrong is
    refused at the first round.
    """

    def __init__(self, metric: Any):
        super().__init__(metric)
        # XGBoost parses its evaluation log "name:value", so a name cannot hold ':' ("prec@k:100" → "prec@k_100").
        self.name = self.spec.replace(":", "_")
        self.__name__ = self.name            # the scikit-learn wrapper names the metric by __name__
        self.maximize = self.greater_is_better

    def _check_direction(self) -> None:
        """Refuse an early stopping that would guess this metric's direction wrong (and keep the worst round)."""
        guess = self.name != "mape" and self.name.startswith(_XGBOOST_MAXIMIZED_PREFIXES)
        if guess != self.maximize and _guessing_early_stopping(self):
            raise ArgumentRefusal.said(
                "maximize", f"XGBoost's early stopping was given no direction for the metric {self.name!r} and "
                f"guesses it from the name: it would {'maximize' if guess else 'minimize'} it, and keep the round "
                f"where it is worst; pass "
                f"maximize={self.maximize} to xgboost.train, or callbacks=[xgboost.callback.EarlyStopping("
                f"rounds=..., maximize={self.maximize})] in place of early_stopping_rounds= (metric.maximize)")

    def __call__(self, first: Any, second: Any, sample_weight: Any = None):
        refuse_other_library(self, second, "xgboost")
        self._check_direction()
        if _is_dmatrix(second):                      # native: (predt, dmatrix), per query when it has groups
            return self.name, self.evaluate(second.get_label(), first, second.get_weight(), second.get_group())
        if not _called_per_query(sys._getframe(1)):  # scikit-learn: (y_true, y_score) of the whole set
            return self.evaluate(first, second, sample_weight)
        try:                                         # XGBRanker's: (y_true, y_score) of one query
            return self.evaluate(first, second, sample_weight)
        except ValueError as exc:
            # a query of one class (a bipartite metric) or too short for k: XGBRanker's own way of calling it
            raise ValueError(f"{exc}. XGBRanker(eval_metric=...) calls a custom metric on each query's rows "
                             "alone (and weights the values by query size); for the mean over queries, pass the "
                             "metric natively: xgboost.train(..., custom_metric=metric) on a DMatrix with qid"
                             ) from None


def xgboost_objective(spec: Any, *, random_state: int | None = 0, n_jobs: int | None = None) -> XGBoostObjective:
    """Any registered objective as an XGBoost custom objective (``obj=`` or ``XGBClassifier(objective=...)``).

    Parameters
    ----------
    spec : str or Objective
        A registered objective's spec (``"push:exp,pow:4"``) or a configured objective.
    random_state : int or None, default=0
        Seeds the tie-break offset of non-smooth objectives and a randomized objective's noise
        (see :class:`~rankcore.gbdt.ObjectiveAdapter`).
    n_jobs : int or None, default=None
        Threads of rankcore's kernels (None: every core).

    Returns
    -------
    XGBoostObjective
        The objective, to pass as XGBoost's custom objective.
    """
    return XGBoostObjective(spec, random_state=random_state, n_jobs=n_jobs)


def xgboost_metric(spec: Any) -> XGBoostMetric:
    """Any registered scalar metric as an XGBoost custom metric; mind ``maximize`` (see the module docs).

    Parameters
    ----------
    spec : str or Metric
        A registered scalar metric's spec (``"prec@k:100"``) or a configured metric.

    Returns
    -------
    XGBoostMetric
        The metric, to pass as XGBoost's custom evaluation metric.
    """
    return XGBoostMetric(spec)
