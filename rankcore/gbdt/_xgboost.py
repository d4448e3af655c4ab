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
False for lower-is-better metrics such as ``pnorm`` or ``misrank``).

Queries: natively, a metric reads the DMatrix's query groups (``qid=`` or
``group=``) and is the mean over queries, as ``rankcore.evaluate(..., qid=)``.
``XGBRanker(eval_metric=metric)`` is different: XGBoost's scikit-learn
wrapper calls the metric on each query's rows itself and averages the values
weighted by the queries' sizes (a query of one row counting 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._adapter import MetricAdapter, ObjectiveAdapter

__all__ = ["XGBoostObjective", "XGBoostMetric", "xgboost_objective", "xgboost_metric"]


def _is_dmatrix(obj: Any) -> bool:
    import xgboost

    return isinstance(obj, xgboost.DMatrix)


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
    (``prec@k_100``), because XGBoost splits its evaluation log at colons.  **XGBoost minimizes custom metrics by default**: set
    ``maximize=metric.maximize`` in ``xgboost.train`` / ``EarlyStopping``.
    """

    def __init__(self, metric: Any):
        super().__init__(metric)
        # XGBoost parses its evaluation log "name:value", so a name cannot hold ':' ("prec@k:100" → "prec@k_100").
        self.name = self.spec.replace(":", "_")
        self.__name__ = self.name            # the scikit-learn wrapper names the metric by __name__
        self.maximize = self.greater_is_better

    def __call__(self, first: Any, second: Any, sample_weight: Any = None):
        if _is_dmatrix(second):                      # native: (predt, dmatrix), per query when it has groups
            return self.name, self.evaluate(second.get_label(), first, second.get_weight(), second.get_group())
        try:                                         # scikit-learn: (y_true, y_score)
            return self.evaluate(first, second, sample_weight)
        except ValueError as exc:
            # a query of one class (a bipartite metric) or too short for k: XGBRanker's own way of calling it
            raise ValueError(f"{exc}. XGBRanker(eval_metric=...) calls a custom metric on each query's rows "
                             "alone (and weights the values by query size); for the mean over queries, pass the "
                             "metric natively: xgboost.train(..., custom_metric=metric) on a DMatrix with qid"
                             ) from None


def xgboost_objective(spec: Any, *, random_state: int | None = 0, n_jobs: int | None = None) -> XGBoostObjective:
    """Any registered objective as an XGBoost custom objective (``obj=`` or ``XGBClassifier(objective=...)``)."""
    return XGBoostObjective(spec, random_state=random_state, n_jobs=n_jobs)


def xgboost_metric(spec: Any) -> XGBoostMetric:
    """Any registered scalar metric as an XGBoost custom metric; mind ``maximize`` (see the module docs)."""
    return XGBoostMetric(spec)
