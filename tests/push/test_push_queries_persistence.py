"""A model fitted within queries saves and loads (no pickle), says so, and its fields are checked on load."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.persistence import ModelFormatError, _checksum, _encode, model_from_dict, model_to_dict


@pytest.mark.parametrize("objective", [None, "lambdarank", "yetirank", "xendcg", "lambdarank:gain=0/1/2.5/9"])
def test_push_queries_model_round_trip(tmp_path, objective):
    X, y, qid = graded_queries(0)
    model = rankcore.boost(objective=objective, learner="trees:max_leaves=4", n_iter=4, random_state=0)
    model.fit(X, y, qid=qid)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.ranks_within_queries_ and loaded.task_ == "graded"
    assert (loaded.n_queries_, loaded.n_queries_without_pairs_) == (24, 2)
    assert loaded.score(X, y, qid=qid) == model.score(X, y, qid=qid)


def _tampered(change):
    X, y, qid = graded_queries(0)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y, qid=qid)
    document = model_to_dict(model)
    change(document["state"])
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    return document


@pytest.mark.parametrize("change, message", [
    (lambda s: s.pop("n_queries_without_pairs"), "n_queries and n_queries_without_pairs go together"),
    (lambda s: s.update(n_queries=-1), "n_queries must be a non-negative integer, got -1"),
    (lambda s: s.update(n_queries_without_pairs=s["n_queries"] + 1), "n_queries_without_pairs at most n_queries"),
    (lambda s: s.update(n_queries=0, n_queries_without_pairs=0), "n_queries must be positive"),
    (lambda s: s.update(task="bipartite"), "task 'bipartite' does not match"),
    # read as a model of one list, its per-query objective is not the one its parameters give
    (lambda s: (s.pop("n_queries"), s.pop("n_queries_without_pairs")), "objective 'push:exp,identity,true,none,0,"
                                                                       "false,2' does not match the parameters"),
])
def test_push_queries_model_fields_are_checked_on_load(change, message):
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_tampered(change))


def test_push_queries_a_model_saved_before_the_query_rmse_default_loads_with_its_own_objective():
    # fitted within queries with the defaults before query_rmse=2 joined them, a model holds the push alone
    X, y, qid = graded_queries(0)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(X, y, qid=qid)
    document = model_to_dict(model)
    assert document["state"]["objective"] == "push:exp,identity,true,none,0,false,2"
    document["state"]["objective"] = "push:exp,identity,true"
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    loaded = model_from_dict(document)
    assert loaded.objective_spec_ == "push:exp,identity,true"
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # any other objective is still refused, and an explicit objective gets no such allowance
    document["state"]["objective"] = "push:exp,pow:2,true"
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="objective 'push:exp,pow:2,true' does not match the parameters"):
        model_from_dict(document)
    explicit = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0,
                              objective="push:exp,identity,gain_weighted=true,query_rmse=2").fit(X, y, qid=qid)
    document = model_to_dict(explicit)
    document["state"]["objective"] = "push:exp,identity,true"
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="does not match the parameters"):
        model_from_dict(document)


def _newton_steps_that_raise_the_objective():
    """The per-query default (each tree's Newton step, no line search) on data where one step raises the objective."""
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(30), rng.integers(1, 20, 30))
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.shape[0])), 0, 4)
    model = rankcore.boost(learner="trees", random_state=0).fit(X, y, qid=qid)
    assert np.any(np.diff(model.objective_values_) > 0)          # the case this is about
    return X, model


def test_push_queries_a_default_model_whose_newton_steps_raised_the_objective_loads(tmp_path):
    # A Newton step without a line search can raise the objective, so the file's check must allow a rise there.
    X, model = _newton_steps_that_raise_the_objective()
    rankcore.save_model(model, tmp_path / "model.json")
    loaded = rankcore.load_model(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.objective_values_, model.objective_values_)


def test_push_queries_a_searched_model_whose_objective_rises_is_refused():
    # With a line search the objective never rises, so a rise there is still a damaged file.
    X, y, qid = graded_queries(0)
    model = rankcore.boost(learner="trees:max_leaves=4,line_search=true", n_iter=3, random_state=0)
    document = model_to_dict(model.fit(X, y, qid=qid))
    assert np.all(np.diff(model.objective_values_) <= 0)
    document["state"]["objective_values"] = _encode(model.objective_values_[::-1].copy(), "objective_values")
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="objective_values must not increase"):
        model_from_dict(document)


def test_push_queries_a_discounted_push_whose_recorded_value_rose_loads():
    # the place discounts are read at each iteration's scores, so even with a line search the recorded value may
    # rise from one iteration to the next (Objective.fixed_value is False): such a model loads
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    qid = rng.integers(0, 30, 300)
    y = np.clip(np.round(X[:, 0] + rng.normal(size=300) + 1), 0, 4)
    model = rankcore.boost(objective="push:exp,identity,gain_weighted=true,discount=product", n_iter=60,
                           random_state=0).fit(X, y, qid=qid)
    assert model.learner_spec_.startswith("stumps") and np.any(np.diff(model.objective_values_) > 0)
    loaded = model_from_dict(model_to_dict(model))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert not rankcore.get_registry().resolve("objective", model.objective_spec_).fixed_value
    assert rankcore.get_registry().resolve("objective", "push:exp,identity,gain_weighted=true").fixed_value
