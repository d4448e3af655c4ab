"""position_bias="em": the position-based click model P(click) = θ_p σ(f(x)) fitted by regression EM."""

import re
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.metrics import evaluate
from rankcore.persistence import ModelFormatError, _checksum, _encode, model_from_dict, model_to_dict
from rankcore.push._click_model import (MIN_PROPENSITY, POSITION_BIAS, PositionBias, round_seeds, e_step,
                                        initial_propensities, m_step_propensities)
from rankcore.spec import ParameterError


# ---------------------------------------------------------------------------
# the E and M steps against a plain reference
# ---------------------------------------------------------------------------
def _reference_em_step(clicks, codes, theta, gamma, weight):
    """One E-step and the θ M-step row by row, as the click model reads them (Bayes' rule on C = E·R)."""
    relevant, examined = [], []
    for c, p, g in zip(clicks, codes, gamma):
        t = theta[p]
        if c == 1:
            relevant.append(1.0)
            examined.append(1.0)
        else:
            no_click = (1 - t) + t * (1 - g)             # P(C = 0) = P(E = 0) + P(E = 1, R = 0)
            relevant.append((1 - t) * g / no_click)      # P(R = 1, E = 0) / P(C = 0)
            examined.append(t * (1 - g) / no_click)      # P(E = 1, R = 0) / P(C = 0)
    new_theta = []
    for p in range(len(theta)):
        rows = [i for i in range(len(codes)) if codes[i] == p]
        total = sum(weight[i] for i in rows)
        new_theta.append(min(max(sum(weight[i] * examined[i] for i in rows) / total, MIN_PROPENSITY), 1.0))
    return np.array(relevant), np.array(examined), np.array(new_theta)


@pytest.mark.parametrize("seed", range(5))
def test_e_and_m_steps_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    n, places = 300, 7
    codes = rng.integers(0, places, n)
    theta = rng.random(places)
    theta[0] = 1.0                                  # an edge: examined for sure, so no click means irrelevant
    theta[1] = MIN_PROPENSITY
    gamma = rng.random(n)
    gamma[:3] = [0.0, 1.0 - 1e-9, 0.5]
    clicks = (rng.random(n) < theta[codes] * gamma).astype(np.float64)
    weight = rng.integers(1, 4, n).astype(np.float64)
    relevant, examined = e_step(clicks, theta[codes], gamma)
    ref_relevant, ref_examined, ref_theta = _reference_em_step(clicks, codes, theta, gamma, weight)
    np.testing.assert_allclose(relevant, ref_relevant, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(examined, ref_examined, rtol=1e-12, atol=1e-15)
    assert ((relevant >= 0) & (relevant <= 1) & (examined >= 0) & (examined <= 1)).all()
    np.testing.assert_allclose(m_step_propensities(clicks, examined, codes, places, weight), ref_theta, rtol=1e-12)
    # integer weights are multiplicities: the same θ as the rows repeated
    repeat = np.repeat(np.arange(n), weight.astype(int))
    np.testing.assert_allclose(m_step_propensities(clicks[repeat], examined[repeat], codes[repeat], places),
                               ref_theta, rtol=1e-12)


def test_the_m_step_keeps_a_place_without_weight_at_one_and_clips_below():
    clicks = np.array([0.0, 0.0, 1.0])
    codes = np.array([0, 0, 2])
    theta = m_step_propensities(clicks, np.array([0.0, 0.0, 1.0]), codes, 3, np.array([1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(theta, [MIN_PROPENSITY, 1.0, 1.0])


def test_initial_propensities_are_click_rates_over_the_highest():
    clicks = np.array([1, 1, 0, 1, 0, 0, 0, 0], dtype=float)
    codes = np.array([0, 0, 1, 1, 2, 2, 2, 2])
    np.testing.assert_allclose(initial_propensities(clicks, codes, 3), [1.0, 0.5, MIN_PROPENSITY])
    np.testing.assert_allclose(initial_propensities(np.zeros(8), codes, 3), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("text, expected", [
    ("additive", PositionBias()),
    ("em", PositionBias("em")),
    (" EM:rounds=3 ", PositionBias("em", rounds=3)),
    ("em:tol=0.01,rounds=2", PositionBias("em", rounds=2, tol=0.01)),
    (PositionBias("em", rounds=2), PositionBias("em", rounds=2)),
])
def test_position_bias_specs(text, expected):
    assert POSITION_BIAS(text) == expected


@pytest.mark.parametrize("value, message", [
    ("em:rounds=0", "position_bias"), ("em:rounds=2.5", "position_bias"), ("em:tol=-1", "position_bias"),
    ("em:depth=3", "position_bias"), ("em:rounds=2,rounds=3", "position_bias"), ("cascade", "position_bias"),
    (1, "position_bias"), ("em:rounds=1_0", "position_bias"), ("em:rounds=\u0663", "position_bias"),
    # a PositionBias built by hand is checked as its spec (rounds=0 ran no round and failed on the missing model;
    # an unknown kind was fitted as 'additive')
    (PositionBias("em", rounds=0), "position_bias"), (PositionBias("em", rounds=2, tol=float("nan")), "position_bias"),
    (PositionBias("cascade"), "position_bias"),
])
def test_bad_position_bias_is_refused_by_name(value, message):
    with pytest.raises((ParameterError, ValueError, TypeError), match=message):
        rankcore.boost(learner="trees", position_bias=value).fit(np.zeros((4, 1)), [0, 1, 0, 1], qid=[0, 0, 1, 1],
                                                                  position=[0, 1, 0, 1])


# ---------------------------------------------------------------------------
# a simulated log
# ---------------------------------------------------------------------------
def _click_log(seed, *, n_queries, eta, shown=10, size=20):
    """(X, clicks, qid, position, grades of the shown rows), (X, grades, qid) of new queries: a logger that ranks by
    a feature unrelated to relevance shows its first ``shown``; place p is examined with probability 1/(p+1)^eta."""
    rng = np.random.default_rng(seed)

    def documents(n):
        qid = np.repeat(np.arange(n), size)
        X = rng.normal(size=(qid.size, 6))
        grades = np.clip(np.round(X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] * X[:, 3] + rng.normal(0, 0.5, qid.size)),
                         0, 4)
        return X, grades, qid

    X, grades, qid = documents(n_queries)
    logger = 0.3 * grades + 3.0 * X[:, 5] + rng.normal(size=qid.size)
    rows, places = [], []
    for q in range(n_queries):
        members = np.arange(q * size, (q + 1) * size)
        order = members[np.argsort(-logger[members], kind="stable")][:shown]
        rows.append(order)
        places.append(np.arange(shown))
    rows, position = np.concatenate(rows), np.concatenate(places)
    seen = rng.random(rows.size) < 1.0 / (position + 1.0) ** eta
    clicks = (seen & (rng.random(rows.size) < 0.1 + 0.9 * (2.0 ** grades[rows] - 1) / 15)).astype(np.float64)
    return (X[rows], clicks, qid[rows], position, grades[rows]), documents(n_queries // 2)


@pytest.fixture(scope="module")
def simulated():
    (X, clicks, qid, position, _), test = _click_log(3, n_queries=600, eta=1.0)
    em = rankcore.boost(learner="trees", position_bias="em", random_state=0, n_jobs=1).fit(
        X, clicks, qid=qid, position=position)
    additive = rankcore.boost(learner="trees", random_state=0, n_jobs=1).fit(X, clicks, qid=qid, position=position)
    return X, clicks, qid, position, test, em, additive


def test_the_propensities_come_close_to_the_truth(simulated):
    *_, em, _ = simulated
    np.testing.assert_array_equal(em.position_ids_, np.arange(10))
    truth = 1.0 / (np.arange(10) + 1.0)
    assert em.position_propensities_[0] == pytest.approx(1.0, abs=0.05)
    assert np.max(np.abs(em.position_propensities_ - truth)) < 0.1
    assert np.mean(np.abs(em.position_propensities_ - truth)) < 0.05
    assert em.position_em_rounds_ == 10                 # the default: every round
    assert em.objective_spec_ == "cross-entropy"
    assert not hasattr(em, "position_effects_")


def test_the_click_model_ranks_new_queries_better_than_the_additive_effects(simulated):
    *_, (X_test, grades, qid_test), em, additive = simulated
    ndcg = {name: evaluate(grades, model.decision_function(X_test), metrics=["ndcg@k:10"], qid=qid_test)["ndcg@k:10"]
            for name, model in (("em", em), ("additive", additive))}
    assert ndcg["em"] > ndcg["additive"] + 0.03, ndcg


def test_a_fit_is_repeatable_and_the_rounds_stop_at_the_tolerance(simulated):
    X, clicks, qid, position, *_ = simulated
    X, clicks, qid, position = X[:2000], clicks[:2000], qid[:2000], position[:2000]
    fits = [rankcore.boost(learner="trees:subsample=0.5", position_bias="em:rounds=2", random_state=seed,
                           n_iter=20).fit(X, clicks, qid=qid, position=position) for seed in (5, 5, 6)]
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    np.testing.assert_array_equal(fits[0].position_propensities_, fits[1].position_propensities_)
    assert not np.array_equal(fits[0].decision_function(X), fits[2].decision_function(X))   # the seed reaches them
    seeds = round_seeds(5, 4)
    assert len(set(seeds)) == 4 and seeds == round_seeds(5, 4)     # each round its own seed, drawn from the fit's
    once = rankcore.boost(learner="trees", position_bias="em:rounds=5,tol=1", n_iter=20, random_state=5).fit(
        X, clicks, qid=qid, position=position)
    assert once.position_em_rounds_ == 2          # the first round (a constant γ) never stops the rounds


def test_a_click_model_set_by_a_position_bias_object_saves_by_its_spec(tmp_path):
    X, clicks, qid, position = _small()
    em = rankcore.boost(learner="trees", position_bias=PositionBias("em", rounds=2, tol=0.001), n_iter=5,
                        random_state=0).fit(X, clicks, qid=qid, position=position)
    rankcore.save_model(em, tmp_path / "em.json")
    loaded = rankcore.load_model(tmp_path / "em.json")
    assert loaded.position_bias == "em:rounds=2,tol=0.001"
    assert POSITION_BIAS(loaded.position_bias) == PositionBias("em", rounds=2, tol=0.001)
    np.testing.assert_array_equal(loaded.decision_function(X), em.decision_function(X))


def test_a_click_model_saves_and_loads(tmp_path, simulated):
    X, *_, em, _ = simulated
    path = tmp_path / "em.json"
    rankcore.save_model(em, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), em.decision_function(X))
    np.testing.assert_array_equal(loaded.position_propensities_, em.position_propensities_)
    np.testing.assert_array_equal(loaded.position_ids_, em.position_ids_)
    assert loaded.position_em_rounds_ == em.position_em_rounds_
    assert loaded.position_bias == "em"


def _tampered(em, change):
    document = model_to_dict(em)
    change(document["state"], document["params"])
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    return document


def _set(field, value):
    def change(state, params):
        state[field] = _encode(value, field) if isinstance(value, np.ndarray) else value
    return change


@pytest.mark.parametrize("change, message", [
    (_set("position_propensities", np.zeros(10)), r"position_propensities must lie in \[1e-06, 1\]"),
    (_set("position_propensities", np.full(10, 1.5)), r"position_propensities must lie in \[1e-06, 1\]"),
    # below the floor the fit clips θ to: no fit wrote it
    (_set("position_propensities", np.full(10, 1e-300)), r"position_propensities must lie in \[1e-06, 1\]"),
    (_set("position_propensities", np.ones(9)), "finite float64 vector of length 10"),
    (_set("position_em_rounds", 0), "position_em_rounds must be an integer >= 1"),
    (_set("position_em_rounds", 11), r"position_em_rounds=11 is more than the parameters' rounds"),
    (lambda state, params: state.pop("position_em_rounds"), "position_propensities and position_em_rounds go"),
    (_set("position_effects", np.zeros(10)), "a model holds one of them, never both"),
    (lambda state, params: state.pop("position_propensities"), "position_ids and position_effects go together"),
    (lambda state, params: params.update(position_bias="additive"), "does not match the parameters"),
])
def test_click_model_fields_are_checked_on_load(simulated, change, message):
    em = simulated[-2]
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_tampered(em, change))


# ---------------------------------------------------------------------------
# what the click model refuses
# ---------------------------------------------------------------------------
def _small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    qid = np.repeat(np.arange(6), 10)
    position = np.tile(np.arange(10), 6)
    clicks = (rng.random(60) < 0.3).astype(float)
    return X, clicks, qid, position


@pytest.mark.parametrize("estimator, kwargs, change, message", [
    ("boost", {}, {"y": "grades"}, "labels must be clicks, 0 or 1, got 2.0 at row"),
    ("boost", {}, {"qid": None}, "pass qid \\(or group\\) and position"),
    ("boost", {}, {"position": None}, "position_bias='em' needs position"),
    ("boost", {"objective": "lambdarank"}, {}, "objective='lambdarank': position_bias='em' refits"),
    ("boost", {"loss": "logistic"}, {}, "loss='logistic', price=None: position_bias='em' refits"),
    ("boost", {"price": "pow:4"}, {}, "loss='exp', price='pow:4': position_bias='em' refits"),
    ("pnorm", {}, {}, "PNormPush's objective is fixed"),
])
def test_the_click_model_refuses_what_it_cannot_use(estimator, kwargs, change, message):
    X, clicks, qid, position = _small()
    fit = {"qid": qid, "position": position}
    y = clicks
    if change.get("y") == "grades":
        y = clicks * 2
    for name in ("qid", "position"):
        if name in change:
            fit[name] = change[name]
    if "callbacks" in change:
        fit["callbacks"] = [lambda info: None]
    model = (rankcore.boost(learner="trees", position_bias="em", **kwargs) if estimator == "boost"
             else rankcore.PNormPush(learner="trees", position_bias="em"))
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, **fit)


@pytest.mark.parametrize("labels, message", [
    ("none", "labels must be clicks, 0 or 1, got None at row 3"),
    ("zeros", "needs rows clicked and rows not clicked, got no click in 60 rows"),
    ("ones", "needs rows clicked and rows not clicked, got only clicks in 60 rows"),
])
def test_clicks_without_a_value_or_of_one_value_are_refused_by_name(labels, message):
    X, clicks, qid, position = _small()
    if labels == "none":
        clicks = clicks.astype(object)
        clicks[3] = None
    else:
        clicks = np.full(60, float(labels == "ones"))
    with pytest.raises(ValueError, match=f"^y: .*{message}"):
        rankcore.boost(learner="trees", position_bias="em").fit(X, clicks, qid=qid, position=position)


def test_places_that_hardly_repeat_draw_the_warning_of_the_additive_effects():
    # θ_p is read from its place's rows alone, as an effect is: row ids given as places explain the clicks
    X, clicks, qid, position = _small()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner="trees", position_bias="em:rounds=3,tol=0", n_iter=2).fit(
            X, clicks, qid=qid, position=np.arange(60))
    said = [str(w.message) for w in caught if "distinct places" in str(w.message)]
    assert model.position_em_rounds_ > 1        # said once a fit, not once a round
    assert len(said) == 1 and said[0].startswith("position: 60 distinct places for 60 rows (1.0 rows a place)")
    with warnings.catch_warnings(record=True) as caught:    # recorded, not raised: another test's leftovers
        warnings.simplefilter("always")                    # (a Dask socket collected here) are not this fit's
        rankcore.boost(learner="trees", position_bias="em:rounds=1", n_iter=2).fit(
            X, clicks, qid=qid, position=position)
    assert not [w for w in caught if "distinct places" in str(w.message)]


def test_a_subclass_of_push_boost_fits_the_click_model():
    class Subclass(rankcore.PushBoost):
        pass

    X, clicks, qid, position = _small()
    fits = [cls(learner="trees", position_bias="em:rounds=2", n_iter=5, random_state=0).fit(
        X, clicks, qid=qid, position=position) for cls in (Subclass, rankcore.PushBoost)]
    assert fits[0].position_em_rounds_ == 2
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))


def test_the_dask_estimators_refuse_as_in_memory_before_reading_any_data():
    # (the Dask click model itself: tests/dask/test_dask_click_model.py); no cluster is needed to be refused
    pytest.importorskip("dask")
    from rankcore.dask import DaskPNormPush, DaskPushBoost

    X, clicks, qid, position = _small()
    with pytest.raises(ValueError, match="position_bias='em' needs position"):
        DaskPushBoost(learner="trees", position_bias="em").fit(X, clicks, qid=qid)
    with pytest.raises(ValueError, match="DaskPNormPush's objective is fixed"):
        DaskPNormPush(learner="trees", position_bias="em").fit(X, clicks, qid=qid, position=position)


def test_an_explicit_cross_entropy_objective_and_sample_weight_are_taken():
    X, clicks, qid, position = _small()
    w = np.random.default_rng(1).integers(1, 3, 60).astype(float)
    model = rankcore.boost(learner="trees", position_bias="em:rounds=2", objective="cross-entropy", n_iter=5,
                           random_state=0).fit(X, clicks, w, qid=qid, position=position)
    assert model.position_propensities_.shape == (10,)
    assert ((model.position_propensities_ > 0) & (model.position_propensities_ <= 1)).all()


def test_the_click_model_does_not_depend_on_the_thread_count(exact_threads, simulated):
    exact_threads(2)
    X, clicks, qid, position, *_ = simulated
    X, clicks, qid, position = X[:3000], clicks[:3000], qid[:3000], position[:3000]
    fits = [rankcore.boost(learner="trees", position_bias="em:rounds=3", n_iter=30, random_state=2, n_jobs=k).fit(
        X, clicks, qid=qid, position=position) for k in (1, 2)]
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))
    np.testing.assert_array_equal(fits[0].position_propensities_, fits[1].position_propensities_)


def test_the_rounds_warnings_keep_matching_a_filter_by_module():
    # a user's filterwarnings(module=...) silences a round's warning (here early stopping's selection fits', said
    # with their module): said again once for the rounds, it was matched by its file's path and escaped the filter
    rng = np.random.default_rng(0)
    X, qid, position = rng.normal(size=(60, 3)), np.repeat(np.arange(6), 10), np.tile(np.arange(10), 6)
    clicks = (rng.random(60) < 0.3).astype(float)
    model = rankcore.boost(learner="trees", position_bias="em:rounds=2", n_iter=30, early_stopping=True,
                           random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, clicks, qid=qid, position=position)
    assert caught                               # the rounds' fits do warn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module=re.escape(__name__))
        model.fit(X, clicks, qid=qid, position=position)
    assert not [str(w.message) for w in caught]


def test_the_rounds_warnings_survive_a_round_that_raises_and_say_when_their_numbers_differ():
    from rankcore.push._click_model import rounds_warn_once

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="a round failed"):
            with rounds_warn_once():
                warnings.warn("stopped at iteration 4", UserWarning)
                raise RuntimeError("a round failed")
    # held warnings were dropped when a round raised: said before the error goes on
    assert [str(w.message) for w in caught] == ["stopped at iteration 4"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with rounds_warn_once():
            warnings.warn("stopped at iteration 4", UserWarning)
            warnings.warn("stopped at iteration 9", UserWarning)
    assert [str(w.message) for w in caught] == [
        "stopped at iteration 4 (said once: the same warning came in 2 EM rounds, the others with other numbers)"]
