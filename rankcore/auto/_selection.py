"""Choosing among cross-validated candidates without fooling ourselves.

Scores live on *units* (:func:`rankcore.auto._folds.plan_units`): the
validation folds of a K-fold plan, or a few stratified parts of a hold-out.  Units belong to
*groups* -- the folds of one repeat, or the parts of one hold-out -- whose
validation rows are disjoint.

**The single choice** (:func:`choose_single`) is variance-aware: the anchor
(the default trees) is kept unless another candidate's mean advantage over it,
paired unit by unit, exceeds ``Z`` standard errors.  The standard error of a
mean of K-fold differences is inflated by Nadeau and Bengio's correction
(Nadeau & Bengio, "Inference for the generalization error", 2003): the
folds' training sets overlap, so their differences are correlated, and the
naive se (sd/√J) is too small; the corrected variance is
σ²·(1/J + n_validation/n_train).  Among the candidates that clear the bar,
the one with the best mean wins.

**The blend** -- the rank average of the top ``BLEND_SIZE`` candidates --
is judged *nested*: on each unit u, its members are the top candidates by
the mean over the *other* units of u's group (never u itself, and never a
unit of another repeat, whose rows overlap u's), and the blend is scored on
u.  That is an honest estimate of "blend the CV leaders", free of the
winner's curse that choosing the members on u would add.  The single choice
is nested the same way (chosen without u, scored on u), and the blend wins
only if its nested advantage over the nested single choice, paired over
units, exceeds ``Z`` standard errors.  With only one other unit in u's
group (two folds, or a hold-out of two parts) there is no noise to measure
without u, so the nested single choice could only be the anchor -- not the
single choice made on every unit -- and no blend is judged.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._caller import outside_stacklevel
from ._blend import fold_blend_scores
from ._folds import Units

__all__ = ["Selection", "choose_single", "select", "fixed_blend", "warn_default_not_evaluated", "Z", "BLEND_SIZE"]

#: Standard errors by which a candidate must beat the anchor (and the blend the single choice).
Z = 1.0
#: Members of the rank-average blend.
BLEND_SIZE = 2


@dataclass
class Selection:
    """The choice and how it was made."""

    chosen: tuple[int, ...]                  # one candidate, or the blend's members
    single: int
    blend_members: tuple[int, ...] = ()
    # the blend's and the single choice's scores per unit (nested, unless the members are fixed), oriented: the
    # metric's value times its sign, greater always better
    blend_nested: np.ndarray | None = None
    single_nested: np.ndarray | None = None
    reason: str = ""
    advantages: dict = field(default_factory=dict)   # candidate -> (mean advantage over the anchor, se)
    units_used: list = field(default_factory=list)   # the plan's units the scores are on (set by the caller)
    fixed: bool = False                              # the blend's members were fixed before any fit

    @property
    def is_blend(self) -> bool:
        return len(self.chosen) > 1


def _se(differences: np.ndarray, inflation: float) -> float:
    J = differences.shape[0]
    if J < 2:
        return math.inf
    return math.sqrt(float(np.var(differences, ddof=1)) * (1.0 / J + inflation))


def choose_single(scores: dict[int, np.ndarray], anchor: int, inflation: float, z: float = Z) -> tuple[int, dict]:
    """The anchor, unless a candidate beats it by more than ``z`` (corrected) standard errors; then the best such.

    ``scores`` are oriented so that greater is better.  Returns the choice
    and each candidate's (mean advantage, se).
    """
    if anchor not in scores:
        best = max(scores, key=lambda c: (scores[c].mean(), -c))
        return best, {}
    advantages = {}
    clear = []
    for c, values in scores.items():
        if c == anchor:
            continue
        d = values - scores[anchor]
        advantages[c] = (float(d.mean()), _se(d, inflation))
        if d.mean() > z * advantages[c][1]:
            clear.append(c)
    if not clear:
        return anchor, advantages
    return max(clear, key=lambda c: (scores[c].mean(), -c)), advantages


def _top(scores: dict[int, np.ndarray], units: list[int], size: int) -> tuple[int, ...]:
    means = {c: float(v[units].mean()) for c, v in scores.items()}
    return tuple(sorted(sorted(means, key=lambda c: (-means[c], c))[:size]))


def select(scores: dict[int, np.ndarray], predictions: dict[int, list[np.ndarray]], labels: list[np.ndarray],
           units: Units, anchor: int, metric_sign: float, metric, *, blend: bool = True, z: float = Z,
           blend_size: int = BLEND_SIZE) -> Selection:
    """Choose a candidate, or the blend of the leaders, from unit scores.

    Parameters
    ----------
    scores : dict
        candidate -> metric value per unit (as the metric reports it).
    predictions : dict
        candidate -> validation scores per unit (for the blend).
    labels : list of ndarray
        0/1 labels per unit.
    units : Units
    anchor : int
        The default candidate the others must beat.
    metric_sign : float
        +1 when greater is better, -1 otherwise.
    metric : Metric
        Scores the blend's predictions on each unit.
    """
    oriented = {c: metric_sign * np.asarray(v, dtype=np.float64) for c, v in scores.items()}
    single, advantages = choose_single(oriented, anchor, units.variance_inflation, z)
    if anchor not in oriented:          # the default never ran (a time budget, or it failed): no bar to clear
        reason = "the best mean of the candidates evaluated (the default was not)"
    else:
        reason = "the default" if single == anchor else "beats the default by more than its noise"
    selection = Selection(chosen=(single,), single=single, advantages=advantages, reason=reason)
    if not blend or len(oriented) < 2 or len(units) < 2:
        return selection
    n = len(units)
    groups = np.asarray(units.group)
    blend_nested = np.empty(n)
    single_nested = np.empty(n)
    for u in range(n):
        others = [v for v in range(n) if groups[v] == groups[u] and v != u]
        # one other unit has no noise to measure: its "choice" is always the default, not the single choice
        # made on every unit, so a blend would be judged against the wrong rival (two folds, two parts)
        if len(others) < 2:
            return selection
        inner = {c: v[others] for c, v in oriented.items()}
        single_u, _ = choose_single(inner, anchor, units.variance_inflation, z)
        single_nested[u] = oriented[single_u][u]
        members = _top(oriented, others, blend_size)
        blended = fold_blend_scores([predictions[c][u] for c in members])
        blend_nested[u] = metric_sign * float(metric(labels[u], blended))
    selection.blend_members = _top(oriented, list(range(n)), blend_size)
    selection.blend_nested = blend_nested
    selection.single_nested = single_nested
    d = blend_nested - single_nested
    if d.mean() > z * _se(d, units.variance_inflation):
        selection.chosen = selection.blend_members
        selection.reason = "the blend beats the single choice by more than its noise (nested)"
    return selection


def fixed_blend(scores: dict[int, np.ndarray], predictions: dict[int, list[np.ndarray]], labels: list[np.ndarray],
                members: tuple[int, ...], metric_sign: float, metric, reason: str) -> Selection:
    """The rank average of ``members``, fixed before any fit (the small-data blend), scored on every unit.

    No choice is made, so the blend's score on a unit -- its members'
    validation scores rank-averaged there -- is an honest estimate as it
    stands.  ``single`` (the fallback should a member fail its refit) is the
    member with the best mean.
    """
    members = tuple(sorted(members))
    oriented = {c: metric_sign * np.asarray(scores[c], dtype=np.float64) for c in members}
    single = max(members, key=lambda c: (oriented[c].mean(), -c))
    if len(members) < 2:
        return Selection(chosen=(single,), single=single, reason=reason, fixed=True)
    blended = np.array([metric_sign * float(metric(labels[u], fold_blend_scores([predictions[c][u] for c in members])))
                        for u in range(len(labels))])
    return Selection(chosen=members, single=single, blend_members=members, blend_nested=blended, reason=reason,
                     fixed=True)


def warn_default_not_evaluated(default: str, chosen: str, outcome) -> None:
    """Warn that ``chosen`` was kept without the default ``default`` (the anchor, candidate 0) scored beside it.

    The choice then has no bar to clear: it may rank worse than the default
    it was meant to beat, which the user would otherwise learn only from
    ``selection_reason_`` or the leaderboard.  The advice follows the cause:
    a larger budget cannot mend a default that fails.
    """
    if 0 in outcome.errors:
        why = f"it failed ({outcome.errors[0]})"
        advice = ("Mend the first candidate (leaderboard_ notes its error) or list first a candidate that fits "
                  "these data: the first is the one the others must beat")
    else:
        why = "the time budget ran out before it"
        advice = "Give a larger time_budget, or fit the default alone"
    warnings.warn(f"AutoRanker: the default candidate {default!r} was not evaluated: {why}; {chosen!r} was chosen "
                  f"without being compared with it and may rank worse than it. {advice}", UserWarning,
                  stacklevel=outside_stacklevel())
