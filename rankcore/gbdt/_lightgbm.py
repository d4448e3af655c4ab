"""rankcore objectives and metrics for LightGBM (4.x), native and scikit-learn APIs.

Call conventions handled here:

* native objective ``lightgbm.train({"objective": obj}, train_set)``:
  ``obj(preds, train_set) -> (grad, hess)``;
* scikit-learn objective ``LGBMClassifier(objective=obj)``: LightGBM counts
  the callable's parameters; ours has four, so it is called as
  ``obj(y_true, y_pred, weight, group)`` (``group`` None but for a ranker);
* native metric ``lightgbm.train(..., feval=metric)``:
  ``metric(preds, eval_data) -> (name, value, is_higher_better)``;
* scikit-learn metric ``fit(..., eval_metric=metric)``: LightGBM counts the
  callable's parameters; ours has four, so it is called as
  ``metric(y_true, y_pred, weight, group) -> (name, value, is_higher_better)``.

A metric reads the query groups of the evaluated data (``Dataset.get_group()``,
``LGBMRanker.fit(..., eval_group=...)``) and is then the mean over queries.

The gradient is that of the loss to *minimize* (n·J, see
:class:`rankcore.gbdt.ObjectiveAdapter`), which is what LightGBM expects; the
metric reports its own direction, so ``lightgbm.early_stopping`` needs no
setting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._cpus import note_threads_started
from ..validation import ArgumentRefusal
from ._adapter import MetricAdapter, ObjectiveAdapter, refuse_other_library

__all__ = ["LightGBMObjective", "LightGBMMetric", "lightgbm_objective", "lightgbm_metric"]

#: What LightGBM keeps of a value that is not finite: labels and weights are float32, NaN kept as 0 and anything
#: at or beyond ±1e38 (±inf too) as ±1e38; init scores are float64, ±inf (and beyond ±1e300) kept as ±1e300.
#: The objective sees only what is kept, so these values are the trace of an infinite input.
_KEPT_LABEL = float(np.float32(1e38))
_KEPT_SCORE = 1e300


def _refuse_kept_infinity(what: str, name: str, values: Any, limit: float) -> None:
    """Refuse ``values`` that hold LightGBM's stand-in ``limit`` for an infinite ``name``."""
    if values is None:
        return
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    beyond = np.flatnonzero(np.abs(v) >= limit)
    if beyond.size:
        row = int(beyond[0])
        message = (f"{what}: {name} holds {v[row]:g} at row {row}: LightGBM keeps an infinite {name} (and one "
                   f"beyond ±{limit:g}) as ±{limit:g}, and NaN as 0; give finite values")
        raise ArgumentRefusal(message, parameter=name, detail=message, row=row)


def _refuse_kept_infinities(what: str, labels: Any, scores: Any, weight: Any) -> None:
    """Refuse what LightGBM kept of infinite labels, weights or init scores (the scores start at the init scores)."""
    _refuse_kept_infinity(what, "label", labels, _KEPT_LABEL)
    _refuse_kept_infinity(what, "weight", weight, _KEPT_LABEL)
    _refuse_kept_infinity(what, "init_score", scores, _KEPT_SCORE)


def _lightgbm_runs_threads() -> None:
    """Record that this process runs OpenMP threads: LightGBM, fitting with this callable, shares GNU libgomp
    with rankcore's kernels, whose first region of two threads in a child forked now would wait forever for the
    pool threads LightGBM started (``rankcore._cpus.forked_after_threads``)."""
    note_threads_started()


class _CheckedData:
    """The labels and weights an adapter last found free of LightGBM's stand-ins for infinities.

    LightGBM hands a custom objective the same label and weight arrays every boosting round (``Dataset.get_label``
    and ``get_weight`` return the arrays the Dataset keeps; a new label or weight replaces them, never writes into
    them), so those arrays are checked when they are new, and only the scores, which change every round, each
    round.  The arrays are held, not their ids: an id freed by one data set could name the next one's.
    """

    def __init__(self):
        self._arrays: tuple = ()

    def refuse(self, what: str, labels: Any, scores: Any, weight: Any) -> None:
        """:func:`_refuse_kept_infinities`, the labels and weights skipped when they are the arrays checked last."""
        if not (len(self._arrays) == 2 and self._arrays[0] is labels and self._arrays[1] is weight):
            self._arrays = ()
            _refuse_kept_infinity(what, "label", labels, _KEPT_LABEL)
            _refuse_kept_infinity(what, "weight", weight, _KEPT_LABEL)
            self._arrays = (labels, weight)
        _refuse_kept_infinity(what, "init_score", scores, _KEPT_SCORE)


def _is_dataset(obj: Any) -> bool:
    import lightgbm

    return isinstance(obj, lightgbm.Dataset)


class LightGBMObjective(ObjectiveAdapter):
    """A registered objective as a LightGBM custom objective (native and scikit-learn APIs).

    See :class:`rankcore.gbdt.ObjectiveAdapter` for what LightGBM receives.
    Scores for ranking: ``booster.predict(X)`` (native; raw scores with a
    custom objective) or ``model.predict(X, raw_score=True)`` (scikit-learn).
    With query groups (``LGBMRanker.fit(..., group=...)``, a ``Dataset``'s
    ``group``) an objective that ranks within queries is fitted within them.
    """

    def __getstate__(self) -> dict:
        # the arrays last checked are the data's, no part of the objective: checked again after a pickle
        state = super().__getstate__()
        state.pop("_checked_data", None)
        return state

    def __call__(self, first: Any, second: Any, weight: Any = None, group: Any = None):
        refuse_other_library(self, second, "lightgbm")
        _lightgbm_runs_threads()
        checked = self.__dict__.setdefault("_checked_data", _CheckedData())
        if _is_dataset(second):                      # native: (preds, train_data)
            position = getattr(second, "get_position", lambda: None)()
            if position is not None:
                # LightGBM's own lambdarank learns from them; a custom objective never sees them, silently
                raise ArgumentRefusal.said(
                    "position", f"objective {self.spec!r} through rankcore.gbdt does not learn position effects, "
                    "and the Dataset has positions; fit rankcore.boost(learner='trees', "
                    f"objective={self.spec!r}).fit(X, y, qid=..., position=...) instead, or drop them")
            start = second.get_init_score()
            # a fit from an init_score starts there, not at equal scores: a randomized objective's noise restarts
            initial = start if start is not None and np.asarray(start).size else None
            labels, weights = second.get_label(), second.get_weight()
            checked.refuse(f"objective {self.spec!r}", labels, first, weights)
            return self.gradient_hessian(labels, first, weights, second.get_group(), initial=initial)
        # scikit-learn: (y_true, y_pred, weight, group)
        checked.refuse(f"objective {self.spec!r}", first, second, weight)
        return self.gradient_hessian(first, second, weight, group)


class LightGBMMetric(MetricAdapter):
    """A registered scalar metric as a LightGBM evaluation metric: ``(name, value, is_higher_better)``.

    ``name`` is the spec (``"prec@k:100"``); ``is_higher_better`` the metric's
    ``greater_is_better``.  Pass it as ``feval=`` (native) or
    ``eval_metric=`` (scikit-learn); ``lightgbm.early_stopping`` then watches
    it (with ``"metric": "None"`` in the parameters, to watch it alone:
    ``first_metric_only=True`` would watch LightGBM's own metric, listed first).  On data with query groups (``group=``
    of the ``Dataset``, ``eval_group=`` of ``LGBMRanker.fit``) the value is
    the mean over the queries (:class:`rankcore.gbdt.MetricAdapter`).
    """

    def __call__(self, first: Any, second: Any, weight: Any = None, group: Any = None):
        refuse_other_library(self, second, "lightgbm")
        _lightgbm_runs_threads()
        if _is_dataset(second):                      # native: (preds, eval_data)
            _refuse_kept_infinities(f"metric {self.spec!r}", second.get_label(), first, None)
            value = self.evaluate(second.get_label(), first, second.get_weight(), second.get_group())
        else:                                        # scikit-learn: (y_true, y_pred, weight, group)
            _refuse_kept_infinities(f"metric {self.spec!r}", first, second, None)
            value = self.evaluate(first, second, weight, group)
        return self.spec, value, self.greater_is_better


def lightgbm_objective(spec: Any, *, random_state: int | None = 0, n_jobs: int | None = None) -> LightGBMObjective:
    """Any registered objective (``"push:exp,pow:4"``, ``"prec@k-avg:0.05"``) as a LightGBM custom objective.

    ``LGBMClassifier(objective=lightgbm_objective("push:exp,pow:4"))`` trains a
    P-Norm Push forest; natively, ``lightgbm.train({"objective": obj, ...}, data)``.
    See :class:`rankcore.gbdt.ObjectiveAdapter` (scaling, curvature, ties).

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
    LightGBMObjective
        The objective, to pass as LightGBM's custom objective.
    """
    return LightGBMObjective(spec, random_state=random_state, n_jobs=n_jobs)


def lightgbm_metric(spec: Any) -> LightGBMMetric:
    """Any registered scalar metric (``"prec@k:100"``, ``"pauc:0.1"``) as a LightGBM evaluation metric.

    Parameters
    ----------
    spec : str or Metric
        A registered scalar metric's spec (``"prec@k:100"``) or a configured metric.

    Returns
    -------
    LightGBMMetric
        The metric, to pass as LightGBM's custom evaluation metric.
    """
    return LightGBMMetric(spec)
