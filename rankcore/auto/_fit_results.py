"""What a fit with ``init_score`` or ``eval_set`` publishes beyond the search's usual results.

With ``eval_set`` every candidate is fitted once on every row of X and
validated on the user's set, so the models the search kept are the
candidates' final models: the choice keeps them (:func:`kept_models`) and
every kept model is scored on every set (``evals_result_``,
:func:`publish_eval_results`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..push import EvalCurves
from ._fit_inputs import EvalChoice, score_eval_sets

__all__ = ["INIT_SCORE_CHOICE", "kept_models", "publish_eval_results", "checked_evals_result"]

#: Added to ``selection_reason_`` of a fit from ``init_score``.
INIT_SCORE_CHOICE = "; from init_score: a single model, no blend or fold bag (docs/auto_fit_inputs.md)"


def kept_models(plan: Any, chosen: tuple, outcome: Any) -> tuple | None:
    """``(chosen, their models, no failures)`` on a plan of the user's eval_set, whose kept models are the ones
    validated there (fitted on every row of X: a refit would fit the same rows again); None otherwise."""
    if plan.given is None or not all(0 in outcome.models.get(c, {}) for c in chosen):
        return None
    return chosen, [outcome.models[c][0] for c in chosen], {}


def publish_eval_results(estimator: Any, evals: EvalChoice, candidates: list, outcome: Any, metric: Any,
                         n_train: int, *, within: bool, default: bool) -> None:
    """Set ``evals_result_`` (every kept candidate, and a chosen blend, on every set) and ``cv_predictions_``
    (each candidate's scores of the watched set's rows, initial scores included, in the rows' given order)."""
    from ._candidate import candidate_scores

    models = {candidates[c].spec: (by_fold[0], candidates[c].scores)
              for c, by_fold in sorted(outcome.models.items()) if 0 in by_fold}
    if estimator.best_candidate_ not in models:               # a blend: scored as it ranks
        models[estimator.best_candidate_] = (estimator.best_estimator_, candidate_scores)
    # as the push estimators' (a script written for LightGBM asks for "valid_0" and "ndcg@10"): a missing set or
    # metric is a KeyError naming the key meant
    estimator.evals_result_ = EvalCurves.of(score_eval_sets(evals, metric, models, within=within, default=default))
    order = evals.watched_set.order
    back = np.empty_like(order)
    back[order] = np.arange(order.shape[0])
    estimator.cv_predictions_ = {spec: scores[n_train:][back] for spec, scores in estimator.cv_predictions_.items()}


def checked_evals_result(value: Any, fail: Any) -> EvalCurves:
    """``evals_result_`` read from a model file: set name -> metric spec -> model name -> a number (NaN allowed:
    a metric may count none of a set's queries); ``fail(message)`` raises the model file's error."""
    import numbers

    if not isinstance(value, dict) or not value:
        fail("evals_result must be a non-empty mapping of set names")
    out: dict = {}
    for name, per_metric in value.items():
        if not isinstance(per_metric, dict) or not per_metric:
            fail(f"evals_result[{name!r}] must be a non-empty mapping of metric specs")
        out[name] = {}
        for spec, per_model in per_metric.items():
            if not isinstance(per_model, dict) or not per_model or not all(
                    isinstance(v, numbers.Real) and not isinstance(v, bool) for v in per_model.values()):
                fail(f"evals_result[{name!r}][{spec!r}] must map candidate specs to numbers")
            out[name][spec] = {str(k): float(v) for k, v in per_model.items()}
    return EvalCurves.of(out)
