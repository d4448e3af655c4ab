"""position_bias="em" from initial scores (``init_score``, ``init_model``) and its stop on the posteriors.

The click model from initial scores s is f = s + trees: every round's fit starts from s, and the E-steps after
the first read γ = σ(s + f).  Checked against the E and M steps written out row by row (the reference of
tests/push/test_push_click_model.py) and a round refitted by hand.  ``posterior_tol`` stops the rounds once the
posterior relevance moved by at most it on average.
"""

import numpy as np
import pytest

import rankcore
from rankcore.persistence import ModelFormatError, _checksum, model_from_dict, model_to_dict
from rankcore.push._click_model import (GAMMA_EDGE, POSITION_BIAS, PositionBias, initial_propensities,
                                        constant_relevance, posterior_change_sums, mean_change, round_seeds)
from rankcore.objectives import sigmoid
from rankcore.spec import ParameterError

from test_push_click_model import _click_log, _reference_em_step


@pytest.fixture(scope="module")
def log():
    (X, clicks, qid, position, _), _ = _click_log(7, n_queries=80, eta=1.0)
    return X, clicks, qid, position


PARAMS = dict(learner="trees:max_leaves=8", n_iter=15, random_state=4, n_jobs=1)


def _em(spec="em:rounds=3", **params):
    return rankcore.boost(position_bias=spec, **{**PARAMS, **params})


# ---------------------------------------------------------------------------
# init_score
# ---------------------------------------------------------------------------
def test_an_init_score_of_zeros_is_the_fit_without_one(log):
    X, clicks, qid, position = log
    plain = _em().fit(X, clicks, qid=qid, position=position)
    zeros = _em().fit(X, clicks, qid=qid, position=position, init_score=np.zeros(clicks.size))
    np.testing.assert_array_equal(zeros.decision_function(X), plain.decision_function(X))
    np.testing.assert_array_equal(zeros.position_propensities_, plain.position_propensities_)
    assert zeros.position_em_rounds_ == plain.position_em_rounds_ == 3
    assert zeros.from_init_score_ and not getattr(plain, "from_init_score_", False)


def _reference_rounds(X, clicks, qid, position, init, rounds):
    """The click model from initial scores, its loop written out: the first E-step's constant γ, every round's
    E and M steps row by row, a cross-entropy fit from ``init`` on the posteriors, γ = σ(init + f)."""
    ids, codes = np.unique(position, return_inverse=True)
    weight = np.ones(clicks.size)
    theta = initial_propensities(clicks, codes, ids.size)
    gamma = np.full(clicks.size, constant_relevance(clicks.sum(), theta[codes].sum()))
    for seed in round_seeds(PARAMS["random_state"], rounds):
        relevant, _, theta = _reference_em_step(clicks, codes, theta, gamma, weight)
        model = rankcore.boost(objective="cross-entropy", **{**PARAMS, "random_state": seed})
        model.fit(X, relevant, qid=qid, init_score=init)
        gamma = np.clip(sigmoid(init + model.decision_function(X)), GAMMA_EDGE, 1 - GAMMA_EDGE)
    return model, theta


def test_an_init_score_starts_every_round_and_every_e_step_after_the_first(log):
    X, clicks, qid, position = log
    init = 1.5 * X[:, 0] - 1.0                  # a first-stage score that knows part of the relevance
    fitted = _em().fit(X, clicks, qid=qid, position=position, init_score=init)
    model, theta = _reference_rounds(X, clicks, qid, position, init, 3)
    np.testing.assert_allclose(fitted.position_propensities_, theta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fitted.decision_function(X), model.decision_function(X), rtol=1e-12, atol=1e-12)
    plain = _em().fit(X, clicks, qid=qid, position=position)
    assert np.max(np.abs(fitted.position_propensities_ - plain.position_propensities_)) > 1e-3
    assert fitted.from_init_score_
    # the model is a correction to the initial scores, scored with them
    assert fitted.score(X, clicks, qid=qid, init_score=init) != fitted.score(X, clicks, qid=qid)


def test_an_init_score_reaches_eval_sets_with_eval_init_score(log):
    X, clicks, qid, position = log
    init = 0.5 * X[:, 1]
    half = clicks.size // 2
    fitted = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, init_score=init,
                                     eval_set=[(X[:half], clicks[:half], qid[:half])], eval_init_score=[init[:half]])
    assert fitted.position_em_rounds_ == 2 and len(fitted.evals_result_) == 1
    with pytest.raises(ValueError, match="init_score: expected"):
        _em().fit(X, clicks, qid=qid, position=position, init_score=np.zeros(3))


def test_the_training_data_as_an_eval_set_stays_the_training_data_in_every_round(log):
    # every round's fit is given the posteriors, not the clicks: the set (X, clicks, qid) is still the training data,
    # which takes init_score and is not watched while another set is, as without the click model
    X, clicks, qid, position = log
    init = 0.5 * X[:, 1]
    half = clicks.size // 2
    train, valid = (X, clicks, qid), (X[:half], clicks[:half], qid[:half])
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, init_score=init, eval_set=[train])
    assert not [w for w in caught if "initial scores" in str(w.message)]     # no set is left without them
    given = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, init_score=init, eval_set=[train],
                                   eval_init_score=[init])
    for spec, curve in given.evals_result_["training"].items():
        np.testing.assert_array_equal(fitted.evals_result_["training"][spec], curve)
    both = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, eval_set=[valid, train])
    np.testing.assert_array_equal(both.validation_scores_, both.evals_result_["validation_0"]["ndcg@k:10"])


@pytest.mark.parametrize("scale", [5.0, 10.0])
def test_initial_scores_far_from_zero_do_not_make_the_rounds_diverge(log, scale):
    # Within queries the trees take each tree's Newton step; on the cross-entropy from scores of scale 5 that step
    # overshot (σ' tiny): the rounds' objective rose from 0.7 to 36 and the scores reached 1e3 -- silently.
    X, clicks, qid, position = log
    init = scale * X[:, 0]
    for learner in (PARAMS["learner"], "trees"):          # the user's shape, and the per-query default's trees
        fitted = _em(n_iter=20, learner=learner).fit(X, clicks, qid=qid, position=position, init_score=init)
        curve = fitted.objective_values_
        assert np.all(np.diff(curve) <= 1e-12 * curve[0]) and curve[-1] < curve[0]     # every step a descent
        assert np.abs(fitted.decision_function(X)).max() < 3 * scale
    # the rounds search each tree's step, as the learner naming line_search=true does; a learner that names
    # line_search=false keeps the Newton steps it asked for
    searched = _em(learner=PARAMS["learner"] + ",line_search=true").fit(X, clicks, qid=qid, position=position,
                                                                        init_score=init)
    fitted = _em().fit(X, clicks, qid=qid, position=position, init_score=init)
    np.testing.assert_array_equal(fitted.decision_function(X), searched.decision_function(X))
    newton = _em(learner=PARAMS["learner"] + ",line_search=false").fit(X, clicks, qid=qid, position=position,
                                                                       init_score=init)
    assert np.abs(newton.decision_function(X) - fitted.decision_function(X)).max() > 1e-3


def test_a_cross_entropy_fit_within_queries_searches_its_steps_from_far_initial_scores(log):
    X, clicks, qid, position = log
    soft = np.clip(0.7 * clicks + 0.1, 0, 1)
    init = 5.0 * X[:, 0]
    params = dict(PARAMS, objective="cross-entropy", n_iter=20)
    fitted = rankcore.boost(**params).fit(X, soft, qid=qid, init_score=init)
    assert np.all(np.diff(fitted.objective_values_) <= 0) and np.abs(fitted.decision_function(X)).max() < 15
    # started at 0 (no init_score, or one of zeros) the per-query default's Newton steps are kept
    plain = rankcore.boost(**params).fit(X, soft, qid=qid)
    zeros = rankcore.boost(**params).fit(X, soft, qid=qid, init_score=np.zeros(soft.size))
    newton = rankcore.boost(**{**params, "learner": PARAMS["learner"] + ",line_search=false"}).fit(X, soft, qid=qid)
    np.testing.assert_array_equal(plain.decision_function(X), newton.decision_function(X))
    np.testing.assert_array_equal(zeros.decision_function(X), plain.decision_function(X))


# ---------------------------------------------------------------------------
# init_model
# ---------------------------------------------------------------------------
def test_an_init_model_is_continued_by_every_round(log, tmp_path):
    X, clicks, qid, position = log
    first = rankcore.boost(objective="cross-entropy", **{**PARAMS, "n_iter": 5}).fit(X, clicks, qid=qid)
    rankcore.save_model(first, tmp_path / "first.json")
    fitted = _em().fit(X, clicks, qid=qid, position=position, init_model=tmp_path / "first.json")
    assert fitted.init_iterations_ == 5 and fitted.n_iter_ == 5 + PARAMS["n_iter"]
    assert fitted.position_em_rounds_ == 3
    # the init model's scores are the rounds' offset: the same as its scores given as init_score (but the model
    # then holds its weak rankers)
    scores = first.decision_function(X)
    by_score = _em().fit(X, clicks, qid=qid, position=position, init_score=scores)
    np.testing.assert_allclose(fitted.position_propensities_, by_score.position_propensities_, rtol=1e-9)
    np.testing.assert_allclose(fitted.decision_function(X), scores + by_score.decision_function(X), rtol=1e-9,
                               atol=1e-9)
    # a click model continued: the init model may itself be one; it saves and loads as one
    again = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, init_model=fitted)
    assert again.init_iterations_ == fitted.n_iter_ and again.position_em_rounds_ == 2
    rankcore.save_model(again, tmp_path / "again.json")
    loaded = rankcore.load_model(tmp_path / "again.json")
    np.testing.assert_array_equal(loaded.decision_function(X), again.decision_function(X))
    assert loaded.init_iterations_ == again.init_iterations_
    # a model with additive position effects: its trees are the start, its effects are not kept (θ replaces them)
    additive = rankcore.boost(**{**PARAMS, "n_iter": 4}).fit(X, clicks, qid=qid, position=position)
    assert hasattr(additive, "position_effects_")
    from_additive = _em("em:rounds=2").fit(X, clicks, qid=qid, position=position, init_model=additive)
    assert not hasattr(from_additive, "position_effects_") and from_additive.init_iterations_ == 4
    np.testing.assert_array_equal(from_additive.position_ids_, additive.position_ids_)


def test_an_init_model_that_cannot_be_continued_is_refused_by_name(log):
    X, clicks, qid, position = log
    one_list = rankcore.boost(**{**PARAMS, "n_iter": 3}).fit(X, clicks)
    with pytest.raises(ValueError, match="init_model: the model was fitted on one list"):
        _em().fit(X, clicks, qid=qid, position=position, init_model=one_list)
    from_scores = rankcore.boost(**{**PARAMS, "n_iter": 3}).fit(X, clicks, qid=qid, init_score=X[:, 0])
    with pytest.raises(ValueError, match="init_model: the model was fitted from init_score"):
        _em().fit(X, clicks, qid=qid, position=position, init_model=from_scores)


# ---------------------------------------------------------------------------
# posterior_tol
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("em:posterior_tol=0.01", PositionBias("em", posterior_tol=0.01)),
    ("em:rounds=5, posterior_tol=1e-3,tol=0.1", PositionBias("em", rounds=5, tol=0.1, posterior_tol=1e-3)),
    ("em:posterior_tol=0", PositionBias("em")),
    ("em:posterior_tol=-0,tol=-0.0", PositionBias("em")),        # -0 is 0, written back as 0.0
    ("em:posterior_tol=1E-3,tol=.5", PositionBias("em", tol=0.5, posterior_tol=1e-3)),
])
def test_posterior_tol_is_parsed_and_written_back(text, expected):
    bias = POSITION_BIAS(text)
    assert bias == expected and POSITION_BIAS(bias.spec) == bias and "-" not in bias.spec
    assert ("posterior_tol" in bias.spec) == (bias.posterior_tol > 0)      # older models' specs are unchanged


@pytest.mark.parametrize("text, message", [
    ("em:posterior_tol=-0.1", "posterior_tol must be a finite number >= 0, got '-0.1'"),
    ("em:posterior_tol=nan", "posterior_tol must be a finite number >= 0, got 'nan'"),
    ("em:posterior_tol=inf", "posterior_tol must be a finite number >= 0"),
    ("em:posterior_tol=abc", "posterior_tol must be a finite number >= 0, got 'abc'"),
    ("em:posterior_tol=0.1,posterior_tol=0.2", "repeated option 'posterior_tol=0.2'"),
    ("em:posterior=0.1", "unknown or repeated option 'posterior=0.1'"),
    ("em:tol=x", "tol must be a finite number >= 0, got 'x'"),
    # float() takes these; a spec's numbers are ASCII digits (as rounds' are)
    ("em:posterior_tol=1_0", "posterior_tol must be a finite number >= 0, got '1_0'"),
    ("em:posterior_tol=\u0661", "posterior_tol must be a finite number >= 0, got '\u0661'"),
    ("em:tol=\u0660.\u0665", "tol must be a finite number >= 0, got '\u0660.\u0665'"),
    ("em:posterior_tol=infinity", "posterior_tol must be a finite number >= 0, got 'infinity'"),
    ("em:posterior_tol=", "posterior_tol must be a finite number >= 0, got ''"),
    ("em:posterior_tol=1e309", "posterior_tol must be a finite number >= 0, got '1e309'"),
    ("em:rounds=2;tol=1", "rounds must be an integer from 1 to 1000, got '2;tol=1'"),
    ("em:rounds=" + "0" * 5000 + "3", "rounds must be an integer from 1 to 1000, got '0000"),
])
def test_bad_posterior_tol_is_refused_naming_the_option(log, text, message):
    X, clicks, qid, position = log
    with pytest.raises((ParameterError, ValueError), match=f"position_bias.*{message}"):
        _em(text).fit(X, clicks, qid=qid, position=position)
    with pytest.raises((ParameterError, ValueError), match="position_bias"):
        _em(PositionBias("em", posterior_tol=float("nan"))).fit(X, clicks, qid=qid, position=position)


def test_posterior_change_is_the_weighted_mean_absolute_change():
    r, last = np.array([0.2, 0.5, 1.0]), np.array([0.1, 0.7, 1.0])
    assert mean_change(*posterior_change_sums(r, last, None)) == pytest.approx(0.3 / 3)
    assert mean_change(*posterior_change_sums(r, last, np.array([2.0, 1.0, 0.0]))) == pytest.approx(0.4 / 3)
    assert mean_change(*posterior_change_sums(r, last, np.zeros(3))) == 0.0


def test_the_rounds_stop_once_the_posteriors_settle(log, capsys):
    X, clicks, qid, position = log
    full = _em("em:rounds=12", verbose=1).fit(X, clicks, qid=qid, position=position)
    changes = [float(line.split("the posteriors by ")[1].split(" ")[0])
               for line in capsys.readouterr().out.splitlines() if "the posteriors by" in line]
    assert full.position_em_rounds_ == 12 and len(changes) == 11           # off by default: every round
    # a value the changes reach before the last round (above the median printed, which is rounded to 4 digits)
    limit = 1.001 * sorted(changes)[len(changes) // 2]
    stop = 2 + next(i for i, c in enumerate(changes) if c <= limit)      # changes[0] is round 2's
    early = _em(f"em:rounds=12,posterior_tol={limit!r}").fit(X, clicks, qid=qid, position=position)
    assert 1 < early.position_em_rounds_ == stop < 12
    rounds = _em(f"em:rounds={stop}").fit(X, clicks, qid=qid, position=position)   # the same rounds, the same seeds?
    assert round_seeds(4, stop) == round_seeds(4, 12)[:stop]
    np.testing.assert_array_equal(early.decision_function(X), rounds.decision_function(X))
    # never after the first round (its γ was a constant), whatever the limit; verbose says which rule stopped
    capsys.readouterr()
    assert _em("em:rounds=5,posterior_tol=1", verbose=1).fit(X, clicks, qid=qid,
                                                             position=position).position_em_rounds_ == 2
    out = capsys.readouterr().out
    assert out.rstrip().endswith("EM stopped after round 2: the posteriors moved by at most posterior_tol on average")
    _em("em:rounds=2", verbose=1).fit(X, clicks, qid=qid, position=position)      # all the rounds: no such line
    assert "EM round 2 of at most 2" in (out := capsys.readouterr().out) and "EM stopped" not in out


def test_posterior_tol_saves_loads_and_is_checked_on_load(log, tmp_path):
    X, clicks, qid, position = log
    spec = "em:rounds=6,posterior_tol=0.05"
    fitted = _em(spec).fit(X, clicks, qid=qid, position=position)
    rankcore.save_model(fitted, tmp_path / "em.json")
    loaded = rankcore.load_model(tmp_path / "em.json")
    assert loaded.position_bias == spec and loaded.position_em_rounds_ == fitted.position_em_rounds_
    np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))
    document = model_to_dict(fitted)
    document["params"]["position_bias"] = "em:rounds=6,posterior_tol=-1"
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="posterior_tol"):
        model_from_dict(document)
