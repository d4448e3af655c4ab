"""AutoRanker's feature contributions: its members' exact TreeSHAP values, composed with the score's linear weights.

Shapley values are linear in the function explained: for a score
F(x) = Σ_m a_m f_m(x) + b whose members f_m have the values φ_m(x) (one per
feature) and expected values φ0_m, F's values are Σ_m a_m φ_m(x) and its
expected value Σ_m a_m φ0_m + b -- exactly, with every row still summing to
F(x).  A chosen model is such a sum when it is one refit (a = 1, b = 0) or a
:class:`~rankcore.auto.FoldBag` (a_m = 1 / (M s_m), b = −Σ_m c_m / (M s_m) for
its M models' centers c_m and scales s_m), each member scored by its raw
``decision_function``.  The rank-average blend maps each member's score
through a piecewise-linear quantile curve, and a model scored by P(relevant)
through a sigmoid-like map: neither is linear, so neither is explained.

A member behind the missing-value imputer (or a standard scaler) is explained
on the columns it reads: a scaled column is the same feature, a filled
column is its original column, and a missing-value indicator's value is added
to the column it indicates, so every output column is an original one.
Against background rows (interventional values) a filled column and its
indicator -- both functions of the one original column -- are instead one
player of the member's game (its ``groups``), so the values are exactly the
Shapley values of the game of X's columns (or of the caller's groups of
them), not sums of two players' values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..validation import said_again
from ._bag import FoldBag
from ._blend import RankAverage
from ._candidate import Candidate, candidate_scores
from ._impute import MissingValueImputer

__all__ = ["ScoreComposition", "score_composition"]

#: What has exact values of each method, for the refusals' messages (LightGBM computes no interaction values).
#: The other candidate that explains its scores exactly: an ExactBoost of one ensemble is a sum of stumps.
_STUMPS = ", and so do 'exactboost' candidates of one ensemble (no head: a metric other than prec@k)"
EXPLAINED = {"feature_contributions": "tree boosters ('trees' candidates, 'lightgbm', 'xgboost') scored by their raw "
                                      "decision_function have exact contributions" + _STUMPS,
             "feature_interactions": "tree boosters ('trees' candidates, 'xgboost') scored by their raw "
                                     "decision_function have exact interaction values" + _STUMPS,
             "interventional contributions": "'trees' candidates scored by their raw decision_function have exact "
                                             "interventional contributions (background rows)" + _STUMPS,
             "interventional interactions": "'trees' candidates scored by their raw decision_function have exact "
                                            "interventional interaction values (background rows)" + _STUMPS}


@dataclass(frozen=True)
class _Member:
    """One term a · f(x) of the score: ``model`` reads X after ``steps`` (imputer or scaler, in order)."""

    name: str
    where: str
    weight: float
    offset: float
    steps: tuple
    model: Any


class ScoreComposition:
    """The chosen model's score as Σ_m a_m f_m(x) + b over members with exact contributions.

    Built by :func:`score_composition`, which refuses the models that are
    not such a sum; :meth:`contributions` composes the members' values.
    """

    def __init__(self, members: list[_Member]):
        self.members = members

    def contributions(self, X: np.ndarray, background: np.ndarray | None = None,
                      groups: np.ndarray | None = None) -> np.ndarray:
        """(n, d + 1) float64: Σ_m a_m φ_m(x) per original column, then Σ_m a_m φ0_m + b.

        With ``background`` (rows encoded as X), each member's interventional
        values against it (read through the member's steps as X is, each
        imputed column and its indicator one player), and the expected value
        Σ_m a_m E_z f_m(z) + b = E_z F(z); with ``groups`` as well (checked
        (d,) labels 0..G−1) the (n, G + 1) values of the groups as players.
        Time: the members' TreeSHAP (one call each); memory O(n · d) besides
        one member's output at a time.
        """
        options = {} if background is None else {"background": background}
        if groups is not None:
            options["groups"] = groups
        return self._composed(X, "feature_contributions", options)

    def interactions(self, X: np.ndarray, max_bytes, background: np.ndarray | None = None,
                     groups: np.ndarray | None = None) -> np.ndarray:
        """(n, d + 1, d + 1) float64: Σ_m a_m Φ_m(x) per pair of original columns, Σ_m a_m φ0_m + b at (d, d).

        SHAP interaction values are linear in the model as SHAP values are;
        with ``background`` (rows encoded as X), each member's interventional
        interaction values against it (each imputed column and its indicator
        one player), the expected value Σ_m a_m E_z f_m(z) + b; with
        ``groups`` as well (checked (d,) labels 0..G−1) the (n, G + 1, G + 1)
        values of the groups as players.  Time: the members' (one call each);
        memory O(n · d²) besides one member's output at a time (each bounded
        by ``max_bytes``).
        """
        options = {"max_bytes": max_bytes}
        if background is not None:
            options["background"] = background
        if groups is not None:
            options["groups"] = groups
        return self._composed(X, "feature_interactions", options)

    def _composed(self, X: np.ndarray, method: str, options: dict) -> np.ndarray:
        n, d = X.shape
        if options.get("groups") is not None:          # the players' columns: G of them
            d = int(options["groups"].max(initial=-1)) + 1
        if n > 1 and len(self.members) > 1:
            for member in self.members[1:]:          # a bag's model without covers refuses before any real work
                _member_values(member, X[:1], method, options)
        pairs = method == "feature_interactions"
        out = np.zeros((n, d + 1, d + 1) if pairs else (n, d + 1))
        last = (slice(None), d, d) if pairs else (slice(None), d)
        for member in self.members:
            scaled = member.weight * _member_values(member, X, method, options)
            scaled[last] += member.offset          # (w·φ0 + b) added at once: the contributions' rounding
            out += scaled
        return out


def _member_values(member: _Member, X: np.ndarray, method: str = "feature_contributions",
                   options: dict | None = None) -> np.ndarray:
    """The member's ``method`` values on the original columns (indicators added to the columns they indicate): (n,
    d + 1) contributions, or (n, d + 1, d + 1) interactions (the indicators' rows and columns added); against a
    background, each indicator and its column one player of the member's game ((n, G + 1) with ``groups``)."""
    d = X.shape[1]
    owner = f"AutoRanker.{method}"
    options = dict(options or {})
    groups = options.pop("groups", None)
    players = np.arange(d, dtype=np.int32) if groups is None else groups
    Z, indicated = X, []
    for step in member.steps:
        if isinstance(step, MissingValueImputer):
            indicated.append((Z.shape[1], np.asarray(step.indicator_features_, dtype=np.intp)))
            players = np.concatenate([players, players[indicated[-1][1]]])     # an indicator: its column's player
        Z = step.transform(Z)
        if options.get("background") is not None:       # the background is read as X is
            options["background"] = step.transform(options["background"])
    if options.get("background") is not None and (indicated or groups is not None):
        options["groups"], indicated = players, []     # the players' values: nothing left to add up
        d = int(players.max(initial=-1)) + 1
    what = method
    if options.get("background") is not None:
        what = "interventional interactions" if method == "feature_interactions" else "interventional contributions"
    try:
        values = np.asarray(getattr(member.model, method)(Z, **options), dtype=np.float64)
    except TypeError as exc:
        # a learner without trees: every model of a bag is the same candidate, so the candidate is at fault, and
        # AutoRanker's advice (its candidates) replaces the model's own (its learner parameter)
        raise TypeError(f"{owner}: the chosen candidate {member.name!r} ({type(member.model).__name__}) has no "
                        f"exact {_WHAT[what]} ({exc}); only {EXPLAINED[what]}") from exc
    except ValueError as exc:
        # a model file without covers: the model of the bag at fault is named (a refusal, of the background or
        # the groups, keeps its class and fields)
        raise said_again(exc, f"{owner}: candidate {member.name!r}{member.where}: {exc}", plain=ValueError) from exc
    width = Z.shape[1] + 1 if "groups" not in options else d + 1
    expected = (Z.shape[0],) + ((width, width) if method == "feature_interactions" else (width,))
    if values.shape != expected:
        raise ValueError(f"{owner}: candidate {member.name!r}{member.where} gave values of shape {values.shape}, "
                         f"expected {expected}")
    for axis in range(1, values.ndim):
        for width, columns in reversed(indicated):      # the imputer appends its indicators after the filled columns
            moved = np.moveaxis(values, axis, 1)
            moved[:, columns] += moved[:, width:width + columns.shape[0]]
            values = np.moveaxis(np.delete(moved, np.s_[width:width + columns.shape[0]], axis=1), 1, axis)
    if values.shape[1] != d + 1:
        raise ValueError(f"{owner}: candidate {member.name!r}{member.where} reads {values.shape[1] - 1} columns, "
                         f"expected {d}")
    return values


#: What each method gives, for the refusals' messages.
_WHAT = {"feature_contributions": "contributions", "feature_interactions": "interaction values",
         "interventional contributions": "interventional contributions",
         "interventional interactions": "interventional interaction values"}


def score_composition(estimator: Any, name: str, candidate: Candidate | None = None,
                      method: str = "feature_contributions") -> ScoreComposition:
    """The linear composition of AutoRanker's ``best_estimator_`` (chosen as ``name``, scored by ``candidate``).

    Raises
    ------
    TypeError
        The score is not a linear composition of members with exact
        contributions (a blend; a candidate with its own ``scores``; a
        model without ``decision_function`` -- scored by P(relevant) -- or
        without ``feature_contributions``), naming the candidate(s).
    """
    prefix = f"AutoRanker.{method}:"
    if isinstance(estimator, RankAverage):
        raise TypeError(f"{prefix} the chosen model {name!r} is a rank-average blend, the mean of each member's "
                        f"quantile among its out-of-fold scores: that map is not linear, so its members' "
                        f"contributions do not add up to its score (fit with blend=False to explain the chosen "
                        f"single candidate)")
    if isinstance(estimator, FoldBag):
        _check_scorer(estimator.scorer, estimator.name, prefix, method)
        count = len(estimator.estimators)
        terms = [(model, 1.0 / (count * scale), -center / (count * scale), f" (model {i} of its fold bag)")
                 for i, (model, center, scale) in enumerate(zip(estimator.estimators, estimator.centers,
                                                                estimator.scales))]
        name = estimator.name
    else:
        if candidate is not None:
            _check_scorer(candidate.scores, name, prefix, method)
        terms = [(estimator, 1.0, 0.0, "")]
    members = []
    for model, weight, offset, where in terms:
        steps, inner = _unwrap(model)
        problem = _refusal(inner, method) if steps is not None else "it reads X through steps other than the imputer"
        if problem is not None:
            raise TypeError(f"{prefix} the chosen candidate {name!r} ({type(inner).__name__}): {problem}; "
                            f"only {EXPLAINED[method]}")
        members.append(_Member(name, where, float(weight), float(offset), steps, inner))
    return ScoreComposition(members)


def _check_scorer(scorer, name: str, prefix: str, method: str) -> None:
    """Refuse a candidate scored by its own ``scores`` (a transform of its model not known to be linear)."""
    if getattr(scorer, "__func__", scorer) not in (Candidate.scores, candidate_scores):
        raise TypeError(f"{prefix} the candidate {name!r} scores its model by its own scores method, a transform "
                        f"not known to be linear; only {EXPLAINED[method]}")


def _unwrap(estimator: Any) -> tuple[tuple | None, Any]:
    """``(steps, model)`` of a Pipeline of imputer/scaler steps and a model (steps None: other steps)."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if not isinstance(estimator, Pipeline):
        return (), estimator
    steps = tuple(step for _, step in estimator.steps[:-1])
    model = estimator.steps[-1][1]
    if not all(isinstance(s, MissingValueImputer) or type(s) is StandardScaler for s in steps):
        return None, model
    return steps, model


def _refusal(model: Any, method: str = "feature_contributions") -> str | None:
    """Why ``model``'s score has no exact ``method`` values here (None: it has)."""
    if not hasattr(model, "decision_function"):
        return "it has no decision_function, so it is scored by P(relevant), a nonlinear transform of its model"
    if not hasattr(model, method):
        return f"it has no exact feature {_WHAT[method]}"
    return None
