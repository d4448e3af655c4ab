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

import numpy as np

from ..base import resolve_parameter
from ..spec import Component, count_or_fraction

__all__ = ["resolve_monotone_metric", "monotonicity_violation", "subsample_metric", "make_evaluator",
           "is_shift_invariant", "LossForm"]

#: Random score vectors the monotonicity probe tries, and the moves on each (see :func:`monotonicity_violation`).
_PROBE_TRIALS = 24
_PROBE_MOVES = 4
#: Rows of a probe: enough for small count parameters (prec@k:10); a metric whose counts need more is probed at
#: its count, up to this many rows (beyond, the probe is skipped: it would refuse the probe's small data).
_PROBE_ROWS = 12
_PROBE_MAX_ROWS = 256


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
    problem = None if _is_builtin(metric) else _probed(metric)
    if problem is not None:
        raise ValueError(
            f"{name}: ExactBoost needs a monotone metric, because its interval bound relies on it; {shown!r} "
            f"is declared monotone (monotone = True, also the rankcore.Metric default when a class does not say), "
            f"but {problem}; declare monotone = False in its class if it is not monotone, or fix its value"
        )
    return metric


def _is_builtin(metric) -> bool:
    """rankcore's own metrics: their monotonicity is proved and tested, so the probe is not run at every fit."""
    return type(metric).__module__.startswith("rankcore.")


#: Probe results of third-party metrics, by (class, spec): a fit resolves its metric more than once.
_PROBED: dict = {}


def _probed(metric) -> str | None:
    key = (type(metric), getattr(metric, "spec", None))
    if key in _PROBED:
        return _PROBED[key]
    # kept in a local: a fit in another thread may clear the cache between the store and a read back
    problem = monotonicity_violation(metric)
    if len(_PROBED) >= 256:
        _PROBED.clear()
    _PROBED[key] = problem
    return problem


def _probe_rows(metric) -> int | None:
    """Rows for the probe: at least every whole-count parameter (k of ``prec@k:10``); None when too many.

    Counts are the parameters of kind :func:`count_or_fraction` (as :func:`subsample_metric` reads them); another
    whole number (a seed, a number of bins) is no count of rows, and taken as one it skipped the probe.  A count
    declared as a plain ``int`` that does not fit the probe's rows makes every trial refused: not judged.
    """
    kinds = {p.name: p.kind for p in getattr(type(metric), "parameters", ())}
    counts = [v for name, v in getattr(metric, "params", {}).items()
              if kinds.get(name) is count_or_fraction and isinstance(v, int) and not isinstance(v, bool) and v > 0]
    rows = max([_PROBE_ROWS, *counts])
    return rows if rows <= _PROBE_MAX_ROWS else None


def _worse(metric, before: float, after: float) -> bool:
    """``after`` is worse than ``before`` beyond rounding (1e-9 relative)."""
    slack = 1e-9 * (1.0 + abs(before))
    return after < before - slack if metric.greater_is_better else after > before + slack


def monotonicity_violation(metric) -> str | None:
    """A move that breaks the metric's monotonicity, said in words, or None if the probe found none.

    ExactBoost's interval bound (and so the exactness of its search) holds
    only if raising a positive's score or lowering a negative's never makes
    the metric worse.  A plugin declares it with ``monotone``; the base
    class's default is True, so a class that says nothing is taken at its
    word.  The probe checks the word on a few seeded random score vectors on
    a small lattice (ties included): each trial raises a positive or lowers
    a negative by one to three steps and compares the metric's values.  It is
    a sanity check, not a proof: a metric that passes may still fail
    elsewhere.  A trial whose data the metric refuses (raises on) is
    skipped and the others still judge it; a metric that refuses every
    trial (a parameter that does not fit 12 rows) is not judged by it.  Deterministic; O(trials x
    moves) metric calls on at most 256 rows.
    """
    n = _probe_rows(metric)
    if n is None:
        return None
    rng = np.random.default_rng(20220412)
    for _ in range(_PROBE_TRIALS):
        y = rng.permutation(np.r_[np.ones(int(rng.integers(1, n)), np.int8), np.zeros(n, np.int8)][:n])
        if y.min() == y.max():
            y[0] = 1 - y[0]
        scores = rng.integers(0, 5, n).astype(np.float64)
        problem = _probe_trial(metric, rng, y, scores)
        if problem is not None:
            return problem
    return None


def _probe_trial(metric, rng, y: np.ndarray, scores: np.ndarray) -> str | None:
    """One trial of :func:`monotonicity_violation`: its moves on one labeling, the first that worsens the metric."""
    n = y.shape[0]
    for _ in range(_PROBE_MOVES):
        row = int(rng.integers(0, n))
        step = float(rng.integers(1, 4)) * (1.0 if y[row] == 1 else -1.0)
        moved = scores.copy()
        moved[row] += step
        try:
            before, after = float(metric(y, scores)), float(metric(y, moved))
        except Exception:
            # the metric's own refusal of this labeling (too few positives for it, say): its errors are fit's to
            # raise, and the other trials still judge it -- stopping the whole probe here let a metric that refuses
            # some labelings escape every check
            return None
        if _worse(metric, before, after):
            what = "positive's score rose" if y[row] == 1 else "negative's score fell"
            return (f"its value got worse when a {what} (labels {y.tolist()}, scores {scores.tolist()}, "
                    f"row {row} moved to {moved[row]:g}: {before:.6g} -> {after:.6g})")
        scores = moved
    return None


def subsample_metric(metric, n_train: int, n_sub: int | None = None):
    """The metric to use on a subsample of the ``n_train`` training examples (``n_sub`` of them, if known).

    A count parameter of kind :func:`count_or_fraction` (``prec@k:10``) is a
    number of examples of the *training set*; on a subsample it becomes the
    same fraction of the subsample (10 / n_train), as in the authors' code.
    A count of the whole training set (k = n_train, no fraction in (0, 1))
    becomes the whole subsample, ``n_sub``: kept as it was, a metric without a
    clamping kernel (a plugin's) would refuse a k larger than the subsample.
    Fractions and every other parameter are kept.
    """
    changes = {}
    for param in type(metric).parameters:
        value = metric.params[param.name]
        if param.kind is count_or_fraction and isinstance(value, int) and not isinstance(value, bool):
            if value < n_train:
                changes[param.name] = value / n_train
            elif n_sub is not None and value > n_sub:
                changes[param.name] = int(n_sub)
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
