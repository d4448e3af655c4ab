"""What a push fit scores its validation rows by after every iteration: a metric, or the objective itself.

``scoring=`` names a registered metric (``"auc"``, ``"pauc:0.1"``,
``"prec@k:20"``) or ``"objective"``: the fit's own objective J evaluated on
the validation rows (the push objective's log R over the validation pairs).
Both are bound to the validation labels once, so that each iteration costs
one evaluation on the validation scores: O(n log n) for a sorted metric,
O(n) for the exponential push objective (one log-sum-exp per class),
O(n log n) for the hinge losses and O(I·K) for losses without a factorized
pairwise sum (``logistic``).

The default (``scoring=None``) is a metric: ``auc`` (``misrank`` for graded
objectives), and :data:`LARGE_DATA_METRIC` when ``early_stopping="auto"``
switches on (a validation set of 1,000 rows or more, large enough to measure
the top of the list).  The objective's own loss is not the default: for the
push objective J = log R is a soft maximum over the worst-ordered validation
pairs (the lowest-scored positives, the highest-scored negatives), which rises
as soon as the model grows confident about a few hard rows, long before the top
of the list stops improving (measured in ``docs/push.md``, *Early stopping*).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["OBJECTIVE_SCORING", "LARGE_DATA_METRIC", "MetricScoring", "ObjectiveScoring"]

#: The ``scoring`` value that validates on the objective's own loss.
OBJECTIVE_SCORING = "objective"
#: The validation metric of ``scoring=None`` when ``early_stopping="auto"`` switches on (bipartite objectives).
LARGE_DATA_METRIC = "pauc:0.1"


class MetricScoring:
    """Validation by a registered scalar metric (its ``to_loss`` is what early stopping minimizes)."""

    def __init__(self, metric: Any):
        self.metric = metric
        self.name = metric.spec
        self.greater_is_better = bool(metric.greater_is_better)

    def bind(self, y: np.ndarray, sample_weight: np.ndarray | None = None, *,
             n_threads: int = 1) -> Callable[[np.ndarray], float]:
        """scores -> the metric of ``(y, scores)`` (metrics take no weights).

        Early stopping scores the same validation labels after every
        iteration, so the labels are checked once here; each call then checks
        only that the scores are finite float64 values of the right length
        (anything else goes through the metric's own checks, and their
        error).  The value is the metric's, bit for bit.  A metric with its
        own ``__call__`` is called as it is.
        """
        from ..metrics import Metric
        from ..validation import check_labels_and_scores

        metric = self.metric
        if type(metric).__call__ is not Metric.__call__:
            return lambda scores: float(metric(y, scores))
        probe = np.zeros(np.shape(y)[0] if np.ndim(y) else 0)
        y_arr, _ = check_labels_and_scores(y, probe, graded=metric.task == "graded",
                                           both_classes=metric.requires_both_classes, what=f"metric {metric.spec!r}",
                                           integers="rank" if metric.order_invariant else "refuse")
        metric.check_data(y_arr, probe)

        def score(scores: np.ndarray) -> float:
            s = scores if isinstance(scores, np.ndarray) else np.asarray(scores)
            if s.dtype != np.float64 or s.ndim != 1 or s.shape[0] != y_arr.shape[0] or not np.isfinite(s).all():
                return float(metric(y, scores))
            return float(metric.checked_value(metric.compute(y_arr, np.ascontiguousarray(s))))

        return score

    def to_loss(self, value: float) -> float:
        return self.metric.to_loss(value)


class ObjectiveScoring:
    """Validation by the fit's objective J on the validation rows (lower is better).

    The objective is bound to the validation labels (and weights) once; every
    call evaluates J at the validation scores, the same function the
    training minimizes on its own rows.
    """

    greater_is_better = False

    def __init__(self, objective: Any):
        self.objective = objective
        self.name = OBJECTIVE_SCORING

    def bind(self, y: np.ndarray, sample_weight: np.ndarray | None = None, *,
             n_threads: int = 1) -> Callable[[np.ndarray], float]:
        """scores -> J of the validation rows at those scores.

        Raises
        ------
        ValueError
            When the objective cannot be evaluated on these rows (a class
            missing, k above the validation positives), naming ``scoring``.
        """
        try:
            self.objective.check_target(y, sample_weight)
            bound = self.objective.bind(y, sample_weight, n_threads=n_threads)
        except ValueError as exc:
            raise ValueError(f"scoring='objective': the objective {self.objective.spec!r} cannot be evaluated on "
                             f"the {y.shape[0]} validation rows ({exc}); pass a metric as scoring") from None
        return lambda scores: float(bound.value(np.ascontiguousarray(scores, dtype=np.float64)))

    def to_loss(self, value: float) -> float:
        return float(value)
