"""``best_iteration_`` of a fit that watched an ``eval_set`` without early stopping: the best watched iteration,
which the model goes past -- where LightGBM's is 0 -- and what the refusal of ``num_iteration`` says to port."""

import numpy as np
import pytest

import rankcore


def _queries(n_queries, seed):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 12)
    X = rng.normal(size=(qid.size, 4))
    grade = np.clip(np.round(X[:, 0] + rng.normal(size=qid.size) + 1), 0, 3)
    return X, grade, qid


def _watched():
    X, y, qid = _queries(40, 0)
    X_val, y_val, qid_val = _queries(20, 1)
    model = rankcore.boost(learner="trees", n_iter=40, random_state=0).fit(X, y, qid=qid,
                                                                          eval_set=(X_val, y_val, qid_val))
    return model, X_val


def test_a_watched_fit_keeps_every_tree_past_its_best_iteration():
    model, X_val = _watched()
    assert 0 < model.best_iteration_ < model.n_iter_ == 40      # the data are chosen for a best before the end
    # decision_function is every tree's: what LightGBM's predict(X, num_iteration=0) gives
    *_, last = model.staged_decision_function(X_val)
    np.testing.assert_array_equal(model.decision_function(X_val), last)


def test_the_num_iteration_refusal_says_what_lightgbms_best_iteration_is_without_early_stopping():
    # before: the refusal said only the early-stopped case, and the n-th staged array for n = best_iteration_,
    # which drops the trees past it that LightGBM's predict(X, num_iteration=best_iteration_) (0: all) keeps
    model, X_val = _watched()
    with pytest.raises(TypeError, match=r"without early stopping LightGBM's best_iteration_ is 0 and its predict then "
                                        r"uses every tree, which is decision_function\(X\) here too"):
        model.decision_function(X_val, num_iteration=model.best_iteration_)


def test_the_attribute_docstring_says_the_difference():
    doc = " ".join(rankcore.PushBoost.__doc__.split())
    assert "LightGBM's ``best_iteration_`` is then 0" in doc
