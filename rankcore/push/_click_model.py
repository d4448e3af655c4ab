"""The position-based click model fitted by regression EM: ``position_bias="em"``.

A click needs the row examined and relevant, independently:

    P(C = 1) = θ_p · γ(x),       γ(x) = σ(f(x)),

θ_p the propensity of place p (the probability that a row shown there is examined) and f the trees' score.  X.
Wang, N. Golbandi, M. Bendersky, D. Metzler and M. Najork fit it by regression EM ("Position Bias Estimation for
Unbiased Learning to Rank in Personal Search", 2018).  Each round:

E-step
    A click means relevant and examined.  A row not clicked was relevant with probability
    P(R = 1 | C = 0) = (1 − θ_p) γ / (1 − θ_p γ) and examined with probability
    P(E = 1 | C = 0) = θ_p (1 − γ) / (1 − θ_p γ).
M-step
    θ_p = Σ_{rows at p} w [c + (1 − c) P(E = 1 | C = 0)] / Σ_{rows at p} w, clipped to [:data:`MIN_PROPENSITY`, 1];
    f refitted -- a whole boosting fit of the estimator's learner -- on the posterior relevance P(R = 1 | c) as soft
    labels with the cross-entropy (``objective="cross-entropy"``).

A refit on fixed posteriors is what pins θ: one EM step per tree (the click likelihood boosted directly) lets θ
drift to 1, as the likelihood hardly tells a lower θ_p from a lower relevance of the rows shown at p
(docs/studies/clicks_and_positions.md).  The first E-step reads θ from the click rates (θ_p = CTR_p / max CTR) and a
constant γ (Σ c / Σ θ_{p_i}).  The rounds stop early when no θ_p moved more than ``tol``, or when the posterior
relevance moved by at most ``posterior_tol`` on average (the weighted mean of |P(R = 1 | c) − its last round's|)
-- never after the first round, whose γ was a constant; both are 0 (off) by default: θ settles long before the
ranking does, and the posteriors are what the trees are fitted to.

Initial scores s (``init_score``, and an ``init_model``'s scores) make the model f = s + trees: every round's fit
starts from them (the fit's ``init_score`` and ``init_model``), and the E-steps after the first read γ = σ(s + f);
the first E-step keeps its constant γ, read from the log alone, so that s = 0 is the fit without initial scores.
From s not all 0 each round's cross-entropy fit searches its trees' steps (:func:`rankcore.push.searches_from_start`).

The model is f of the last round: the trees of a cross-entropy fit, ranking by the estimated relevance σ(f)
(refitting the per-query default objective on the final posteriors instead ranked no better in the study). Cost:
``rounds`` fits and ``rounds`` predictions of the training rows; O(n + places) memory beside one fit's.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .._held_warnings import held_warnings
from ..objectives import check_positions, sigmoid
from ..spec import Kind, read_float, read_int
from ._progress import say

__all__ = ["PositionBias", "POSITION_BIAS", "e_step", "m_step_propensities", "initial_propensities",
           "check_clicks", "check_both_kinds", "fit_click_model", "MIN_PROPENSITY", "DEFAULT_ROUNDS", "DEFAULT_TOL",
           "GAMMA_EDGE", "place_sums", "propensities_from_sums", "posterior_change_sums", "mean_change",
           "init_model_of_rounds", "click_rate_sums", "propensities_from_click_rates", "constant_relevance",
           "round_seeds", "refuse_click_model", "round_stops_rounds", "adopt_last_round", "rounds_warn_once"]

#: The floor of θ_p: a place without clicks keeps a propensity > 0, so its rows' posteriors stay defined.
MIN_PROPENSITY = 1e-6
#: EM rounds (fits) at most, and the largest move of θ that stops them early: none by default, as θ settles within
#: a few rounds while the ranking still gains for ten and more (docs/studies/clicks_and_positions.md).
DEFAULT_ROUNDS = 10
DEFAULT_TOL = 0.0
#: The most rounds a spec may ask for: each is a whole fit.
MAX_ROUNDS = 1000

_SPEC = re.compile(r"^em(?::(.*))?$")


@dataclass(frozen=True)
class PositionBias:
    """A checked ``position_bias``: ``"additive"`` effects beside the trees, or the ``"em"`` click model."""

    kind: str = "additive"
    rounds: int = DEFAULT_ROUNDS
    tol: float = DEFAULT_TOL
    posterior_tol: float = 0.0

    @property
    def em(self) -> bool:
        return self.kind == "em"

    @property
    def spec(self) -> str:
        """The text of this setting, which parses back to it (what a saved model holds)."""
        if not self.em:
            return str(self.kind)
        extra = f",posterior_tol={self.posterior_tol}" if self.posterior_tol else ""    # the spec of older models
        return f"em:rounds={self.rounds},tol={self.tol}{extra}"


def _option(name: str, text: str):
    """An option's value, read by the rule of every spec's numbers (:func:`rankcore.spec.read_float`)."""
    if name == "rounds":
        try:
            rounds = read_int(text)
        except ValueError:
            rounds = 0
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds must be an integer from 1 to {MAX_ROUNDS}, got {_shown(text)}")
        return rounds
    try:
        value = read_float(text)
    except ValueError as exc:       # with the reason: overflows, underflows, '_', not ASCII digits...
        raise ValueError(f"{name} must be a finite number >= 0, got {_shown(text)} ({exc})") from None
    if not value >= 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {_shown(text)}")
    return value + 0.0          # -0 is 0: the spec written back says 0.0


def _shown(text: str) -> str:
    """``text`` for a message, cut short when long."""
    return repr(text) if len(text) <= 60 else repr(text[:40]) + f"... [{len(text)} characters]"


def _position_bias(value) -> PositionBias:
    if isinstance(value, PositionBias):       # checked as its spec: one built by hand may hold anything
        value = value.spec
    if not isinstance(value, str):
        raise TypeError("not a string")
    text = value.strip().lower()
    if text == "additive":
        return PositionBias()
    match = _SPEC.match(text)
    if match is None:
        raise ValueError("not a setting")
    options = {}
    for part in filter(None, (match.group(1) or "").split(",")):
        name, sep, given = part.partition("=")
        name = name.strip()
        if not sep or name not in _OPTIONS or name in options:
            raise ValueError(f"unknown or repeated option {part!r} (em takes rounds=, tol= and posterior_tol=, "
                             "each once)")
        options[name] = _option(name, given.strip())
    return PositionBias("em", **options)


_OPTIONS = ("rounds", "tol", "posterior_tol")

#: ``position_bias``: "additive", "em", or "em:rounds=R,tol=T,posterior_tol=P" (any of the options).
POSITION_BIAS = Kind("'additive', 'em', or 'em:rounds=R,tol=T,posterior_tol=P' (R an integer >= 1, T >= 0, P >= 0; "
                     "each option optional)", _position_bias, type_doc="str", explains=True)


def check_clicks(y, n: int, *, part: bool = False) -> np.ndarray:
    """Clicks for the click model: 0/1 labels, one per row, as float64 (a ValueError naming ``y`` otherwise).

    ``part``: ``y`` is some of the rows (a Dask chunk), which may all be clicks or all not: the caller checks that
    the whole has both (:func:`check_both_kinds`)."""
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"y: expected a 1-D array of {n} clicks (0 or 1), got shape {arr.shape}")
    try:
        clicks = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"y: position_bias='em' fits a click model: labels must be clicks, 0 or 1, got dtype "
                         f"{arr.dtype}") from None
    bad = np.flatnonzero((clicks != 0) & (clicks != 1))
    if bad.size:
        shown = arr[bad[0]].item() if isinstance(arr[bad[0]], np.generic) else arr[bad[0]]   # None in objects
        raise ValueError(f"y: position_bias='em' fits a click model: labels must be clicks, 0 or 1, got "
                         f"{shown!r} at row {int(bad[0])} (graded labels: leave position_bias at 'additive')")
    if not part:
        check_both_kinds(float(clicks.sum()), n)
    return clicks


def check_both_kinds(n_clicks: float, n: int) -> None:
    """A ValueError naming ``y`` unless some of the ``n`` rows are clicked and some not (``n_clicks`` clicked):
    otherwise every posterior is the same, and there is nothing to fit."""
    if n and n_clicks in (0, n):
        raise ValueError(f"y: position_bias='em' needs rows clicked and rows not clicked, got "
                         f"{'only clicks' if n_clicks else 'no click'} in {n} rows")


def e_step(clicks: np.ndarray, theta: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(R = 1 | c), P(E = 1 | c)) of each row, at its place's propensity ``theta`` and relevance ``gamma``.

    A click is relevant and examined (1, 1).  O(n) time and memory.  ``gamma`` must lie in [0, 1) where θ = 1
    (the caller clips σ(f) below 1), so that 1 − θγ > 0.
    """
    rest = 1.0 - theta * gamma
    relevant = np.where(clicks > 0, 1.0, (1.0 - theta) * gamma / rest)
    examined = np.where(clicks > 0, 1.0, theta * (1.0 - gamma) / rest)
    return relevant, examined


def place_sums(clicks: np.ndarray, examined: np.ndarray, codes: np.ndarray, n_places: int,
               weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(Σ_{rows at p} w, Σ_{rows at p} w P(E = 1 | c)) per place: the M-step's sums, which add over any split of the
    rows (a Dask fit sums them over its chunks).  O(n + places)."""
    w = np.ones(codes.shape[0]) if weight is None else weight
    total = np.bincount(codes, weights=w, minlength=n_places)
    seen = np.bincount(codes, weights=w * np.where(clicks > 0, 1.0, examined), minlength=n_places)
    return total, seen


def propensities_from_sums(total: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """θ_p = seen_p / total_p (1 where total_p = 0), clipped to [MIN_PROPENSITY, 1]: :func:`place_sums`' ratio."""
    theta = np.divide(seen, total, out=np.ones(total.shape[0]), where=total > 0)
    return np.clip(theta, MIN_PROPENSITY, 1.0)


def m_step_propensities(clicks: np.ndarray, examined: np.ndarray, codes: np.ndarray, n_places: int,
                        weight: np.ndarray | None = None) -> np.ndarray:
    """θ_p = Σ_{rows at p} w P(E = 1 | c) / Σ_{rows at p} w, clipped to [MIN_PROPENSITY, 1] (O(n)).

    ``examined`` is :func:`e_step`'s (1 for a click).  A place whose rows all weigh 0 keeps θ = 1.
    """
    return propensities_from_sums(*place_sums(clicks, examined, codes, n_places, weight))


def click_rate_sums(clicks: np.ndarray, codes: np.ndarray, n_places: int,
                    weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(Σ_{rows at p} w, Σ_{rows at p} w c) per place: the first θ's sums (they add over any split of the rows)."""
    w = np.ones(codes.shape[0]) if weight is None else weight
    return (np.bincount(codes, weights=w, minlength=n_places),
            np.bincount(codes, weights=w * clicks, minlength=n_places))


def propensities_from_click_rates(total: np.ndarray, clicked: np.ndarray) -> np.ndarray:
    """Each place's click rate over the highest one, clipped to [MIN_PROPENSITY, 1] (:func:`click_rate_sums`')."""
    n_places = total.shape[0]
    rate = np.divide(clicked, total, out=np.zeros(n_places), where=total > 0)
    top = rate.max()
    theta = rate / top if top > 0 else np.ones(n_places)
    return np.clip(theta, MIN_PROPENSITY, 1.0)


def initial_propensities(clicks: np.ndarray, codes: np.ndarray, n_places: int,
                         weight: np.ndarray | None = None) -> np.ndarray:
    """θ of the first E-step: each place's click rate over the highest one, clipped to [MIN_PROPENSITY, 1]."""
    return propensities_from_click_rates(*click_rate_sums(clicks, codes, n_places, weight))


#: σ(f) is clipped to [GAMMA_EDGE, 1 − GAMMA_EDGE]: 1 − θγ stays > 0 at θ = 1, and no posterior is exactly 0 or 1
#: from a saturated score alone.
GAMMA_EDGE = 1e-9


def constant_relevance(click_sum: float, theta_sum: float) -> float:
    """The first E-step's γ, the same for every row: Σ w c / Σ w θ_{p_i}, clipped to [GAMMA_EDGE, 1 − GAMMA_EDGE]."""
    return float(np.clip(click_sum / max(theta_sum, 1e-300), GAMMA_EDGE, 1.0 - GAMMA_EDGE))


def round_seeds(random_state, rounds: int) -> list:
    """One seed per round: drawn from an integer ``random_state``; None and a Generator are passed to every round
    (each round's fit draws its seed from NumPy's global RandomState, or from the generator, which advances)."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return [int(s) for s in np.random.default_rng(int(random_state)).integers(0, 2**31 - 1, rounds)]
    return [random_state] * rounds


def refuse_click_model(estimator, *, qid, group, position) -> None:
    """The ValueErrors of what the click model cannot take (before any fit).

    An estimator whose objective is fixed (PNormPush, RankBoost, their Dask forms) is refused; a subclass of
    PushBoost, and DaskPushBoost, fit it."""
    name = type(estimator).__name__
    if "objective" not in estimator.get_params(deep=False):       # PNormPush, RankBoost (a subclass of PushBoost fits)
        raise ValueError(f"position_bias: the click model ('em') refits the trees on a cross-entropy; {name}'s "
                         "objective is fixed: use rankcore.boost(learner='trees', position_bias='em')")
    if qid is None and group is None:
        raise ValueError("position_bias='em' fits a click model within queries: pass qid (or group) and position")
    if position is None:
        raise ValueError("position_bias='em' needs position: the place each row was shown at (fit(X, clicks, "
                         "qid=qid, position=places))")
    objective = estimator.objective
    if objective is not None and getattr(objective, "spec", objective) not in ("cross-entropy", "xentropy",
                                                                                 "cross_entropy"):
        raise ValueError(f"objective={getattr(objective, 'spec', objective)!r}: position_bias='em' refits the trees on "
                         "the posterior relevance with objective='cross-entropy'; leave objective=None (or set it to "
                         "'cross-entropy')")
    loss, price = getattr(estimator.loss, "spec", estimator.loss), getattr(estimator.price, "spec", estimator.price)
    if loss != "exp" or price is not None:      # each round's fit would refuse them, naming an objective not given
        raise ValueError(f"loss={loss!r}, price={price!r}: position_bias='em' refits the trees with "
                         "objective='cross-entropy', which replaces loss and price; leave them at their defaults")


def fit_click_model(estimator, X, y, sample_weight, given: dict):
    """Fit ``estimator`` (a PushBoost snapshot) as the click model on ``fit``'s arguments (``given``: the keyword
    arguments after ``sample_weight``); returns it.

    Every round is a fit of a PushBoost of the same parameters on the posterior relevance with
    ``objective="cross-entropy"`` (``eval_set`` and its companions, ``callbacks``, ``init_score`` and
    ``init_model`` passed to each; a callback that stops a round's fit stops the rounds there); the estimator takes
    the last round's fitted state, with ``position_ids_``, ``position_propensities_`` (θ by place) and
    ``position_em_rounds_`` (the rounds run).  With ``init_score`` or ``init_model``, γ after a round is σ of the
    initial scores plus the round's ``decision_function`` (which holds the init model's weak rankers).
    """
    from ._eval_sets import read_eval_sets
    from ._queries import query_rows, row_weights, warn_sparse_places
    from ._row_inputs import check_init_score

    params = estimator._setup_record().params
    fit_kwargs = dict(given)
    qid, group, position = (fit_kwargs.pop(name) for name in ("qid", "group", "position"))
    refuse_click_model(estimator, qid=qid, group=group, position=position)
    n = _n_rows(X)
    rows = query_rows(qid, group, n)           # checks qid/group against the rows
    ids, codes = check_positions(position, n)
    warn_sparse_places(ids.shape[0], n)         # θ_p too is read from its place's rows alone
    clicks = check_clicks(y, n)
    w = row_weights(sample_weight, n, rows.queries)
    offset = check_init_score(fit_kwargs["init_score"], n)
    fit_kwargs["init_model"] = init_model_of_rounds(fit_kwargs["init_model"])   # fit read it once
    # the sets read once against the clicks given to fit: a round's fit is given the posteriors instead, so the sets
    # that are the training data itself are recognized here and stay so in every round, as without the click model
    fit_kwargs.update(eval_set=read_eval_sets(fit_kwargs["eval_set"], fit_kwargs["eval_names"],
                                              fit_kwargs["eval_metric"], X=X, y=y, qid=qid, group=group,
                                              init_scores=fit_kwargs["eval_init_score"]),
                      eval_names=None, eval_metric=None, eval_init_score=None)
    bias: PositionBias = params.position_bias
    theta = initial_propensities(clicks, codes, ids.shape[0], w)
    gamma = np.full(n, constant_relevance(_weighted_sum(clicks, w), _weighted_sum(theta[codes], w)))
    settings = {**estimator.get_params(deep=False), "objective": "cross-entropy", "position_bias": "additive"}
    model, rounds, last = None, 0, None
    with rounds_warn_once():
        for rounds, seed in enumerate(round_seeds(params.random_state, bias.rounds), start=1):
            relevant, examined = e_step(clicks, theta[codes], gamma)
            new_theta = m_step_propensities(clicks, examined, codes, ids.shape[0], w)
            model = type(estimator)(**{**settings, "random_state": seed})
            model.fit(X, relevant, sample_weight, qid=qid, group=group, **fit_kwargs)
            scores = model.decision_function(X)
            gamma = np.clip(sigmoid(scores if offset is None else scores + offset), GAMMA_EDGE, 1.0 - GAMMA_EDGE)
            moved = float(np.max(np.abs(new_theta - theta)))
            changed = None if last is None else mean_change(*posterior_change_sums(relevant, last, w))
            theta, last = new_theta, relevant
            if round_stops_rounds(model, moved, rounds, bias, changed=changed, verbose=params.verbose):
                break
    return adopt_last_round(estimator, model, ids, theta, rounds)


@contextmanager
def rounds_warn_once():
    """Within it, the EM rounds' warnings are held; on leaving, each kind (its category and its text, numbers aside)
    is raised once, the first, saying how many times it came.

    Every round is a fit of the same parameters, so a learning rate that diverges (or any other cause a fit warns of)
    would say the same thing once a round: ten rounds, ten warnings.  Each keeps the place in the caller's code it
    was raised at and its module; warnings held when a round raises are said before the error goes on
    (:func:`rankcore._held_warnings.held_warnings`).
    """
    def reword(same: list, numbers_differ: bool) -> str | None:
        if len(same) == 1:
            return None
        other = ", the others with other numbers" if numbers_differ else ""     # the first round's are shown
        return f"{same[0].message} (said once: the same warning came in {len(same)} EM rounds{other})"

    with held_warnings(reword):
        yield


def init_model_of_rounds(init_model):
    """``init_model`` as every EM round's fit takes it: the model of a checked :class:`InitModel` (``fit`` read it
    once: a saved model file loaded, a fitted estimator as it was then), or None."""
    return None if init_model is None else init_model.model


def posterior_change_sums(relevant: np.ndarray, last: np.ndarray, weight: np.ndarray | None) -> tuple[float, float]:
    """(Σ w |r − r_last|, Σ w) of the posterior relevance of two rounds: ``posterior_tol``'s sums, which add over any
    split of the rows (a Dask fit sums them over its chunks).  O(n)."""
    change = np.abs(relevant - last)
    if weight is None:
        return float(change.sum()), float(change.shape[0])
    return float(np.dot(change, weight)), float(weight.sum())


def mean_change(change: float, total: float) -> float:
    """The weighted mean change of the posteriors from :func:`posterior_change_sums` (0 for rows that weigh 0)."""
    return change / total if total > 0 else 0.0


#: The stop reasons of a round's fit that are its own (any other is a callback's, which stops the rounds).
_FIT_REASONS = ("n_iter", "converged", "early_stopping", "diverged", "overflow", "no_split", "no_validation_split")


def round_stops_rounds(model, moved: float, rounds: int, bias: PositionBias, *, changed: float | None = None,
                       verbose=False) -> bool:
    """Whether the EM stops after round ``rounds`` (``model`` its fit, ``moved`` the largest move of θ, ``changed``
    the weighted mean change of the posterior relevance since the last round, None in the first): a callback
    stopped the round's fit, θ moved by at most ``tol``, or ``posterior_tol`` > 0 and the posteriors changed by at
    most it (neither after the first round, whose γ was a constant)."""
    if model.stop_reason_ not in _FIT_REASONS:      # a callback stopped the round: it stops the rounds too
        return True
    if verbose:
        posteriors = "" if changed is None else f", the posteriors by {changed:.4g} on average"
        say(f"EM round {rounds} of at most {bias.rounds}: the propensities moved by {moved:.4g} at most"
            f"{posteriors} (tol {bias.tol:g}, posterior_tol {bias.posterior_tol:g})")
    if rounds == 1:             # the first round's γ was a constant: its θ barely moves
        return False
    settled = changed is not None and bias.posterior_tol > 0 and changed <= bias.posterior_tol
    if verbose and (moved <= bias.tol or settled):        # say which rule stopped the rounds early
        why = "the propensities moved by at most tol" if moved <= bias.tol else \
            "the posteriors moved by at most posterior_tol on average"
        say(f"EM stopped after round {rounds}: {why}")
    return moved <= bias.tol or settled


def adopt_last_round(estimator, model, ids: np.ndarray, theta: np.ndarray, rounds: int):
    """``estimator`` given the last round's fitted state (``model``'s), the places, θ and the rounds run."""
    for name in type(estimator)._fitted_names:
        if name in model.__dict__:
            estimator.__dict__[name] = model.__dict__[name]
    estimator.position_ids_ = ids
    estimator.position_propensities_ = theta
    estimator.position_em_rounds_ = rounds
    return estimator


def _n_rows(X) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(X)


def _weighted_sum(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(values.sum() if w is None else np.dot(values, w))
