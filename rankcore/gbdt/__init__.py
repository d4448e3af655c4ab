"""rankcore objectives and metrics inside LightGBM and XGBoost.

``lightgbm_objective(spec)`` and ``xgboost_objective(spec)`` turn any
registered objective (``"push:exp,pow:4"``, ``"prec@k-avg:0.05"``,
``"mp-squared"``, a plugin's) into a custom objective; ``lightgbm_metric(spec)``
and ``xgboost_metric(spec)`` turn any registered scalar metric (``"prec@k:100"``,
``"pauc:0.1"``, ``"rmax"``) into an evaluation metric.  Each object works with
the library's native API and its scikit-learn API alike::

    import lightgbm as lgb
    from rankcore.gbdt import lightgbm_metric, lightgbm_objective

    model = lgb.LGBMClassifier(objective=lightgbm_objective("push:exp,pow:4"))
    model.fit(X, y, eval_set=[(X_val, y_val)], eval_metric=lightgbm_metric("prec@k:100"),
              callbacks=[lgb.early_stopping(20)])
    scores = model.predict(X_test, raw_score=True)

On data with query groups (LightGBM's ``group``, XGBoost's ``qid``) a metric
is the mean over the queries and an objective that ranks within queries
(``"push:exp,pow:4"``, ``"lambdarank"``) compares only rows of the same query.

Neither library is imported until an adapter is called: install them with
``pip install "rankcore[lightgbm]"`` or ``"rankcore[xgboost]"``.  The
conventions (labels, weights, scaling, curvature, ties, metric direction)
are in ``docs/gbdt.md`` and in :class:`rankcore.gbdt.ObjectiveAdapter`.
"""

from ._adapter import MetricAdapter, ObjectiveAdapter
from ._lightgbm import LightGBMMetric, LightGBMObjective, lightgbm_metric, lightgbm_objective
from ._xgboost import XGBoostMetric, XGBoostObjective, xgboost_metric, xgboost_objective

__all__ = [
    "lightgbm_objective",
    "lightgbm_metric",
    "xgboost_objective",
    "xgboost_metric",
    "LightGBMObjective",
    "LightGBMMetric",
    "XGBoostObjective",
    "XGBoostMetric",
    "ObjectiveAdapter",
    "MetricAdapter",
]
