"""Which metrics ExactBoost accepts, and how its kernel evaluates them.

ExactBoost's interval bound (docs/theory/exactboost.md#the-interval-bound) is valid for exactly the *monotone*
metrics: raising a positive's score or lowering a negative's never makes them
worse.  Any registered metric that declares ``monotone = True``, is scalar and
bipartite is accepted -- built-in or third-party.  The kernel evaluates it

- without the GIL through its ``sorted_kernel()`` (built-ins), when its
  ``to_loss`` is the affine map of the base class; or
- through its Python code under the GIL (third-party metrics without a
  Cython kernel): correct, slower, and parallel runs take turns on the GIL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base import resolve_parameter
from ..spec import Component, count_or_fraction

__all__ = ["resolve_monotone_metric", "subsample_metric", "make_evaluator", "is_shift_invariant", "LossForm"]


def resolve_monotone_metric(spec: Any, *, name: str = "metric"):
    """Resolve ``spec`` to a registered metric ExactBoost can optimize.

    Raises
    ------
    TypeError
        ``spec`` is neither a string nor a metric.
    ValueError
        Unknown metric, bad arguments, or a metric that is not monotone, not
        scalar or not bipartite (the message says which).
    """
    metric = resolve_parameter(name, "metric", spec)
    shown = getattr(metric, "spec", spec)
    if not getattr(metric, "monotone", False):
        raise ValueError(
            f"{name}: ExactBoost needs a monotone metric (one that never gets worse when a positive's "
            f"score rises or a negative's falls), because its interval bound relies on it; {shown!r} "
            "is not monotone"
        )
    if getattr(metric, "task", "bipartite") != "bipartite":
        raise ValueError(
            f"{name}: ExactBoost needs a bipartite metric (labels 0/1), got {shown!r} (task {metric.task!r})"
        )
    if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
        raise ValueError(
            f"{name}: ExactBoost needs a scalar metric with a direction to optimize, got {shown!r}, "
            "which is not scalar"
        )
    return metric


def subsample_metric(metric, n_train: int):
    """The metric to use on a subsample of the ``n_train`` training examples.

    A count parameter of kind :func:`count_or_fraction` (``prec@k:10``) is a
    number of examples of the *training set*; on a subsample it becomes the
    same fraction of the subsample (10 / n_train), as in the authors' code.
    Fractions and every other parameter are kept.
    """
    changes = {}
    for param in type(metric).parameters:
        value = metric.params[param.name]
        if param.kind is count_or_fraction and isinstance(value, int) and not isinstance(value, bool):
            if value < n_train:
                changes[param.name] = value / n_train
    if not changes:
        return metric
    params = {**metric.params, **changes}
    return type(metric)(**params)


@dataclass(frozen=True)
class LossForm:
    """``loss = sign * value + offset``: a metric's ``to_loss`` when it is affine."""

    sign: float
    offset: float


def affine_loss_form(metric) -> LossForm | None:
    """The affine form of ``metric.to_loss``, or None if it is not affine."""
    try:
        l0, l1, lh = (float(metric.to_loss(v)) for v in (0.0, 1.0, 0.37))
    except Exception:  # a to_loss that only accepts its own values
        return None
    sign, offset = l1 - l0, l0
    if not all(math.isfinite(v) for v in (l0, l1, lh)):
        return None
    if abs(lh - (offset + 0.37 * sign)) > 1e-12 * max(1.0, abs(sign), abs(offset)):
        return None
    return LossForm(sign, offset)


def make_evaluator(metric):
    """A kernel ``LossEvaluator`` for ``metric`` (nogil when possible)."""
    from ._evaluators import PythonLoss

    kernel = metric.sorted_kernel() if isinstance(metric, Component) else None
    form = affine_loss_form(metric) if kernel is not None else None
    if kernel is not None and form is not None:
        from ._sorted_loss import SortedLoss

        return SortedLoss(kernel, form.sign, form.offset)
    return PythonLoss(metric)


def is_shift_invariant(metric) -> bool:
    """Whether adding a constant to every score leaves the metric unchanged.

    Every rank metric is (auc, ks, prec@k, pauc, tpauc, rmax, max_height,
    pnorm -- only differences of scores matter), and ExactBoost then searches
    (ξ, b - a) instead of (ξ, a, b) (same optimum, tighter bounds).  A metric
    says so with the class attribute ``rankcore.Metric.shift_invariant``
    (every built-in does); one that does not gets the general (ξ, a, b)
    search, valid for any monotone metric.
    """
    return bool(metric.shift_invariant)
