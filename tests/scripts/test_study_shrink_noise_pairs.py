"""The forty-first session's study candidates (``studies/query_shrink_noise_pairs.py``): the pairwise logistic
term's gradient and Hessian diagonal against finite differences of a plain loop over each query's pairs, the
Langevin-style noise term's draws, and the model-shrinkage loop's coefficients against its training scores."""

import sys

import numpy as np
import pytest

from _checkout_scripts import ROOT, script_module_fixture
from _study_query_data import finite_differences as _numeric
from _study_query_data import interleaved_queries as _data

sys.path.insert(0, str(ROOT / "benchmarks"))        # the study imports the benchmarks' helpers

study = script_module_fixture("studies/query_defaults_study.py", "rankcore_query_defaults_study_shrink_noise")


def pairlogit_loss(scores, y, codes):
    """Σ over the pairs y_a > y_b of one query of log(1 + exp(−(f_a − f_b))), pair by pair."""
    total = 0.0
    for a in range(scores.size):
        for b in range(scores.size):
            if codes[a] == codes[b] and y[a] > y[b]:
                total += np.log1p(np.exp(-(scores[a] - scores[b])))
    return total


def _fit_data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 15)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(0, 0.5, qid.size) + 1), 0, 3)
    return X, y, qid


@pytest.mark.parametrize("seed", [0, 1])
def test_pairlogit_matches_finite_differences(study, seed):
    scores, y, codes = _data(seed)
    g, h = study.snp.pairlogit_terms(y, codes)(scores, np.random.default_rng(0))
    grad, curv = _numeric(lambda f: pairlogit_loss(f, y, codes), scores)
    np.testing.assert_allclose(g, grad, atol=1e-7)
    np.testing.assert_allclose(h, curv, atol=1e-3)
    assert np.all(h >= 0) and np.all(g[codes == 2] == 0) and np.all(h[codes == 2] == 0)
    np.testing.assert_allclose(np.bincount(codes, g), 0.0, atol=1e-12)


def test_pairlogit_stays_finite_far_from_zero(study):
    scores, y, codes = _data(2)
    g, h = study.snp.pairlogit_terms(y, codes)(500.0 * scores, None)
    assert np.isfinite(g).all() and np.isfinite(h).all() and np.all(np.abs(g) <= np.bincount(codes)[codes])


def test_noise_is_drawn_afresh_per_call_from_the_generator_and_only_on_ranked_queries(study):
    scores, y, codes = _data(0)
    terms = study.snp.gaussian_noise_terms(y, codes)
    rng = np.random.default_rng(5)
    first, h = terms(scores, rng)
    second, _ = terms(scores, rng)
    again, _ = terms(scores, np.random.default_rng(5))
    np.testing.assert_array_equal(first, again)                 # seeded: the same draws from the same seed
    assert not np.array_equal(first, second)                    # a new draw at each tree
    assert np.all(first[codes == 2] == 0) and np.all(h == 0)
    assert np.all(first[codes != 2] != 0)


def test_noise_path_is_seeded_by_random_state(study):
    X, y, qid = _fit_data()
    default = study.MODELS["default"](X, y, qid, 1)(X)
    noisy = study.MODELS["default + noise 0.3"](X, y, qid, 1)(X)
    np.testing.assert_array_equal(study.MODELS["default + noise 0.3"](X, y, qid, 1)(X), noisy)
    assert not np.array_equal(noisy, default)
    assert not np.array_equal(study.MODELS["default + noise 0.3, random_state=1"](X, y, qid, 1)(X), noisy)


def test_shrinkage_at_zero_is_the_default(study):
    X, y, qid = _fit_data()
    default = study.MODELS["default"](X, y, qid, 1)(X)
    np.testing.assert_array_equal(study.MODELS["default, shrink path"](X, y, qid, 1)(X), default)


@pytest.mark.parametrize("rate", [0.03, 0.5])
def test_shrunk_model_predicts_the_loops_training_scores(study, rate):
    """The coefficients η·ρ^(T−t) give back the scores the loop grew its trees at (the model is Σ_t c_t·tree_t)."""
    X, y, qid = _fit_data()
    trace = []
    predict = study.snp.shrunk(rate, 0, trace)(X, y, qid, 1)
    np.testing.assert_allclose(predict(X), trace[0], rtol=1e-10, atol=1e-12)
    assert not np.allclose(predict(X), study.MODELS["default"](X, y, qid, 1)(X))


def test_shrinkage_scales_earlier_trees_geometrically(study, monkeypatch):
    """Recorded coefficients are η·ρ^(T−t): the last tree keeps η, each earlier one a further factor ρ."""
    import rankcore
    import rankcore.push._boost_base as estimators

    X, y, qid = _fit_data()
    monkeypatch.setattr(estimators, "run_boosting", study.snp._shrinking_boosting(0.5))
    model = rankcore.boost(learner="trees", n_jobs=1, random_state=0, n_iter=20).fit(X, y, qid=qid)
    eta = model.alphas_[-1]
    rho = 1.0 - eta * 0.5
    np.testing.assert_allclose(model.alphas_, eta * rho ** np.arange(model.alphas_.size - 1, -1, -1))


def test_third_split_screen_registers_shrinkage_at_half_a_percent(study):
    """The forty-sixth session's ``shrink 0.005`` is the loop at s = 0.005, seeded by its random_state, and
    ``--shrink-third`` screens it beside s = 0.01 against the default."""
    X, y, qid = _fit_data()
    for state, name in enumerate(["shrink 0.005", "shrink 0.005, random_state=1", "shrink 0.005, random_state=2"]):
        expected = study.snp.shrunk(0.005, state)(X, y, qid, 1)(X)
        np.testing.assert_array_equal(study.MODELS[name](X, y, qid, 1)(X), expected)
    half = study.MODELS["shrink 0.005"](X, y, qid, 1)(X)
    assert not np.allclose(half, study.MODELS["default"](X, y, qid, 1)(X))
    assert not np.allclose(half, study.MODELS["shrink 0.01"](X, y, qid, 1)(X))
    groups, _ = study.AGAINST_LIBRARY["shrink-third"]
    assert list(groups) == ["default", "shrink 0.01", "shrink 0.005"]
    assert groups["shrink 0.005"] == ["shrink 0.005", "shrink 0.005, random_state=1", "shrink 0.005, random_state=2"]
    assert set(study.GROUPS["shrink_third"]) == {m for ms in groups.values() for m in ms}
    assert not set(study.GROUPS["shrink_third"]) & set(study.GROUPS["candidates"]) - set(groups["default"])


def test_shrinkage_screen_over_five_random_states(study):
    """``--shrink-five``: the default and both rates at random_state 0 to 4, each entry seeded by its own state."""
    import rankcore

    X, y, qid = _fit_data()
    groups, _ = study.AGAINST_LIBRARY["shrink-five"]
    for name in ("default", "shrink 0.01", "shrink 0.005"):
        assert groups[name] == [name] + [f"{name}, random_state={state}" for state in (1, 2, 3, 4)]
    expected = rankcore.boost(learner="trees", n_jobs=1, random_state=3).fit(X, y, qid=qid).decision_function(X)
    np.testing.assert_array_equal(study.MODELS["default, random_state=3"](X, y, qid, 1)(X), expected)
    for name, rate in (("shrink 0.01", 0.01), ("shrink 0.005", 0.005)):
        fitted = study.MODELS[f"{name}, random_state=4"](X, y, qid, 1)(X)
        np.testing.assert_array_equal(fitted, study.snp.shrunk(rate, 4)(X, y, qid, 1)(X))
    assert not set(study.GROUPS["shrink_five"]) & set(study.GROUPS["candidates"])
    assert set(study.GROUPS["shrink_five"]) == {m for ms in groups.values() for m in ms[3:]}
