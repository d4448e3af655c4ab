"""The click model (``position_bias="em"``) fitted on Dask: every EM round a distributed fit, θ summed over chunks.

The model and its rounds are the in-memory ones (:mod:`rankcore.push`'s click model, docs/clicks.md), with the
steps it exports: each round

* the E-step, :func:`~rankcore.push.e_step`, runs where each chunk is: the posterior relevance P(R = 1 | c) of its
  rows from their clicks, their place's θ_p and γ = σ(f(x)) of the previous round's model (a lazy Dask vector with
  the rows' chunks, never gathered);
* θ's M-step is one reduction: each chunk's per-place weighted bincounts (:func:`~rankcore.push.place_sums`) are
  summed on the client, O(chunks × places) numbers, and divided there
  (:func:`~rankcore.push.propensities_from_sums`);
* f is refitted by a Dask fit of the same estimator (``placement="distributed"``) with
  ``objective="cross-entropy"`` on that posterior, and γ is its ``decision_function`` of the Dask X, kept on the
  workers (persisted: one float64 a row) for the next round.

With ``posterior_tol`` the mean change of the posteriors is one more reduction a round (each chunk's
:func:`~rankcore.push.posterior_change_sums`).  Initial scores (``init_score``, ``init_model``) reach every round's
fit as given, and γ after a round is σ of the round model's scores plus ``init_score`` (a Dask vector with the
rows' chunks; the init model's weak rankers are in the round's model).

A first pass checks the clicks chunk by chunk (errors name the chunk) and sums each place's weight and clicks for
the first θ.  The seeds, the stopping rule and the fitted attributes are the in-memory fit's; the model equals it
up to the order of the sums over chunks (rounding).  A fit placed on one worker runs the in-memory click model
there instead (the in-memory model bit for bit).
"""

from __future__ import annotations

import numpy as np

from ..objectives import sigmoid
from ..push import (GAMMA_EDGE, adopt_last_round, check_both_kinds, check_clicks, click_rate_sums,
                    constant_relevance, e_step, init_model_of_rounds, mean_change, place_sums, posterior_change_sums,
                    propensities_from_click_rates, propensities_from_sums, round_seeds, round_stops_rounds,
                    rounds_warn_once, warn_sparse_places)
from ._init_models import read_dask_init_model
from ._inputs import _as_dask_vector, gather_in_chunk_order, is_dask_collection
from ..validation import said_again
from ._positions import survey_positions

__all__ = ["fit_click_model_on_dask"]


def _chunk_clicks(y, offset: int, i: int) -> np.ndarray:
    """The clicks of chunk ``i`` (first row ``offset``) as float64, checked as in memory (the chunk named)."""
    y = np.asarray(y)
    try:
        return check_clicks(y, y.shape[0], part=True)        # a chunk may be all clicks or none: the whole is checked
    except ValueError as exc:
        # a refusal keeps its class and fields (its detail takes in the chunk); another error is a ValueError
        raise said_again(exc, f"{exc} (chunk {i}, whose first row is row {offset} of X)", plain=ValueError) from None


def _chunk_weight(w):
    """A chunk's sample weights as float64 (checked, as a whole, by the first round's fit)."""
    return None if w is None else np.asarray(w, dtype=np.float64)


def _constant(c, value: float) -> np.ndarray:
    return np.full(np.asarray(c).shape[0], value)


def _first_sums(i, offset, y, codes, w, n_places):
    """Chunk ``i``'s (Σ w, Σ w c) per place and (rows, clicks), its clicks checked (the first pass)."""
    clicks = _chunk_clicks(y, offset, i)
    total, clicked = click_rate_sums(clicks, np.asarray(codes), n_places, _chunk_weight(w))
    return total, clicked, np.array([clicks.shape[0], clicks.sum()])


def _theta_sum(codes, w, theta):
    """Σ w θ_{p_i} of one chunk (the first, constant γ's denominator)."""
    w = _chunk_weight(w)
    t = theta[np.asarray(codes)]
    return float(t.sum() if w is None else np.dot(t, w))


def _posterior(y, codes, gamma, theta):
    """P(R = 1 | c) of one chunk's rows (the round's soft labels)."""
    return e_step(np.asarray(y, dtype=np.float64), theta[np.asarray(codes)], np.asarray(gamma))[0]


def _m_sums(y, codes, gamma, w, theta):
    """One chunk's per-place (Σ w, Σ w P(E = 1 | c)): the M-step's sums."""
    clicks = np.asarray(y, dtype=np.float64)
    codes = np.asarray(codes)
    examined = e_step(clicks, theta[codes], np.asarray(gamma))[1]
    return place_sums(clicks, examined, codes, theta.shape[0], _chunk_weight(w))


def _relevance(scores, init=None):
    scores = np.asarray(scores)
    return np.clip(sigmoid(scores if init is None else scores + np.asarray(init)), GAMMA_EDGE, 1.0 - GAMMA_EDGE)


def _change_sums(relevant, last, w):
    """One chunk's (Σ w |r − r_last|, Σ w): ``posterior_tol``'s sums."""
    return np.array(posterior_change_sums(np.asarray(relevant), np.asarray(last), _chunk_weight(w)))


def _summed(client, tasks):
    """Σ of per-chunk results (tuples of arrays or numbers), added on the client in chunk order."""
    parts = gather_in_chunk_order(client, tasks)
    total = parts[0]
    for part in parts[1:]:
        total = tuple(a + b for a, b in zip(total, part)) if isinstance(total, tuple) else total + part
    return total


def _chunks(*vectors):
    """The delayed chunks of aligned Dask vectors (None for an absent one), chunk by chunk."""
    columns = [[None] * len(vectors[0].to_delayed().ravel()) if v is None else v.to_delayed().ravel().tolist()
               for v in vectors]
    return list(zip(*columns))


def _model_relevance(model, X, chunk_rows, init=None):
    """γ = σ(f(x)) of the round's model (plus ``init``, the rows' initial scores as a Dask vector with the same
    chunks, or None), clipped, as a Dask vector with ``chunk_rows`` (computed on the workers)."""
    import dask.array as da

    if is_dask_collection(X):
        scores = model._lazy_scores(model._dask_matrix(X, lengths=True))
    else:
        scores = da.from_array(np.asarray(model.decision_function(X)), chunks=(tuple(chunk_rows),))
    scores = _as_dask_vector(scores, tuple(chunk_rows), name="decision_function")
    if init is None:
        return scores.map_blocks(_relevance, dtype=np.float64, meta=np.empty(0, dtype=np.float64))
    return da.map_blocks(_relevance, scores, init, dtype=np.float64, meta=np.empty(0, dtype=np.float64))


def fit_click_model_on_dask(estimator, client, data, X, sample_weight, position, given: dict, params):
    """Fit ``estimator`` (a DaskPushBoost) as the click model, its rounds distributed (module docs); returns it.

    ``data``: the rows as chunks (their ``y`` the clicks, ``weight`` the sample weights); ``X``,
    ``sample_weight``: as given to ``fit`` (each round's fit reads them); ``given``: ``fit``'s other keyword
    arguments (``qid``, ``group``, ``eval_set`` and its companions, ``callbacks``, ``init_score``,
    ``init_model``) passed to every round; ``data.init``: the initial scores as a Dask vector with the rows' chunks.
    """
    import dask

    # a model file read once, a model as it is now: every round continues the same one
    given = dict(given, init_model=init_model_of_rounds(read_dask_init_model(given.get("init_model"))))
    places = survey_positions(client, data, position)
    ids, n_places = places.ids, places.ids.shape[0]
    warn_sparse_places(n_places, data.n_rows)       # as in memory: θ_p is read from its place's rows alone
    codes, y, w = places.codes, data.y, data.weight
    offsets = np.r_[0, np.cumsum(data.chunk_rows)].astype(np.int64)
    first = dask.delayed(_first_sums, pure=False)
    total, clicked, (n_rows, n_clicks) = _summed(client, [first(i, int(offsets[i]), yi, ci, wi, n_places)
                                                         for i, (yi, ci, wi) in enumerate(_chunks(y, codes, w))])
    check_both_kinds(float(n_clicks), int(n_rows))
    theta = propensities_from_click_rates(total, clicked)
    click_sum = float(clicked.sum())
    theta_sum = _summed(client, [dask.delayed(_theta_sum, pure=False)(ci, wi, theta)
                                 for ci, wi in _chunks(codes, w)])
    gamma = y.map_blocks(_constant, constant_relevance(click_sum, theta_sum), dtype=np.float64,
                         meta=np.empty(0, dtype=np.float64))
    settings = {**estimator.get_params(deep=False), "objective": "cross-entropy", "position_bias": "additive",
                "placement": "distributed"}
    bias = params.position_bias
    model, rounds, last = None, 0, None
    with rounds_warn_once():
        for rounds, seed in enumerate(round_seeds(params.random_state, bias.rounds), start=1):
            relevant = _map_rows(_posterior, y, codes, gamma, theta)
            changed = None
            if last is not None and bias.posterior_tol > 0:     # one more reduction a round, only when asked for
                changed = mean_change(*_summed(client, [dask.delayed(_change_sums, pure=False)(ri, li, wi)
                                                        for ri, li, wi in _chunks(relevant, last, w)]))
            m_step = dask.delayed(_m_sums, pure=False)
            new_theta = propensities_from_sums(*_summed(client, [m_step(yi, ci, gi, wi, theta)
                                                                 for yi, ci, gi, wi in _chunks(y, codes, gamma, w)]))
            model = type(estimator)(**{**settings, "random_state": seed})
            model.fit(X, relevant, sample_weight, **given)
            gamma = client.persist(_model_relevance(model, X, data.chunk_rows, data.init))
            moved = float(np.max(np.abs(new_theta - theta)))
            theta, last = new_theta, relevant
            if round_stops_rounds(model, moved, rounds, bias, changed=changed, verbose=params.verbose):
                break
    return adopt_last_round(estimator, model, ids, theta, rounds)


def _map_rows(func, y, codes, gamma, theta):
    """``func`` of aligned chunks of the clicks, codes and γ (with the small ``theta``): a lazy float64 vector."""
    import dask.array as da

    return da.map_blocks(func, y, codes, gamma, theta, dtype=np.float64, meta=np.empty(0, dtype=np.float64))
