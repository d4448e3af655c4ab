"""``fit(..., init_score=...)``: the training scores start at given scores (LightGBM's init_score, XGBoost's
base_margin); the model is the weak rankers alone, and boosting from a model's scores continues that model."""

import warnings

import numpy as np
import pytest

import rankcore
from _eval_set_data import split_data
from _query_data import graded_queries
from rankcore.base import resolve_parameter


def test_boosting_from_a_models_scores_continues_that_model_on_one_list():
    X, y, X_val, _, _, _ = split_data(0)
    params = dict(learner="stumps", price="pow:4", random_state=0, early_stopping=False)
    first = rankcore.boost(n_iter=8, **params).fit(X, y)
    both = rankcore.boost(n_iter=16, **params).fit(X, y)
    second = rankcore.boost(n_iter=8, **params).fit(X, y, init_score=first.decision_function(X))
    np.testing.assert_allclose(first.decision_function(X_val) + second.decision_function(X_val),
                               both.decision_function(X_val), rtol=1e-12, atol=1e-12)
    # the model is the weak rankers alone: its start is J at the initial scores
    objective = resolve_parameter("objective", "objective", second.objective_spec_)
    assert second.objective_values_[0] == pytest.approx(objective(y, first.decision_function(X)), rel=1e-12)


def test_boosting_from_a_models_scores_continues_it_within_interleaved_queries():
    X, y, qid = graded_queries(0)                        # interleaved ids: the initial scores follow their rows
    params = dict(learner="trees:random_strength=0,subsample=1", objective="push:exp,identity,gain_weighted=true",
                  random_state=0)
    first = rankcore.boost(n_iter=6, **params).fit(X, y, qid=qid)
    both = rankcore.boost(n_iter=12, **params).fit(X, y, qid=qid)
    second = rankcore.boost(n_iter=6, **params).fit(X, y, qid=qid, init_score=first.decision_function(X))
    np.testing.assert_allclose(first.decision_function(X) + second.decision_function(X), both.decision_function(X),
                               rtol=1e-10, atol=1e-10)


def test_validation_sets_are_scored_at_the_model_plus_their_initial_scores():
    X, y, qid = graded_queries(0)
    X_val, y_val, qid_val = graded_queries(1)
    base, base_val = 0.5 * X[:, 0], 0.5 * X_val[:, 0]
    model = rankcore.boost(learner="trees", n_iter=10, random_state=0)
    model.fit(X, y, qid=qid, init_score=base, eval_set=[(X, y, qid), (X_val, y_val, qid_val)],
              eval_init_score=[base, base_val])
    for (Xs, ys, qs, init), name in zip([(X, y, qid, base), (X_val, y_val, qid_val, base_val)],
                                        ["training", "validation_1"]):
        expected = [rankcore.evaluate(ys, s + init, metrics=["ndcg@k:10"], qid=qs)["ndcg@k:10"]
                    for s in model.staged_decision_function(Xs)]
        np.testing.assert_array_equal(model.evals_result_[name]["ndcg@k:10"], expected)
    # one set: one array
    single = rankcore.boost(learner="trees", n_iter=3, random_state=0)
    single.fit(X, y, qid=qid, init_score=base, eval_set=(X_val, y_val, qid_val), eval_init_score=base_val)
    assert single.validation_scores_[-1] == rankcore.evaluate(
        y_val, single.decision_function(X_val) + base_val, metrics=["ndcg@k:10"], qid=qid_val)["ndcg@k:10"]


def test_held_out_rows_take_their_initial_scores_in_every_stopping_mode():
    X, y, qid = graded_queries(2, n_queries=60)
    base = np.where(np.arange(y.size) % 2, 1.0, -1.0) * 0.1
    for stopping in (True, False):
        model = rankcore.boost(learner="trees", n_iter=8, early_stopping=stopping, random_state=0)
        model.fit(X, y, qid=qid, init_score=base)
        assert np.isfinite(model.decision_function(X)).all()
        assert model.from_init_score_ is True              # the hold-out's refit is a correction too
    model = rankcore.boost(learner="trees", n_iter=8, early_stopping=True, random_state=0)
    model.fit(X, y, qid=qid, init_score=base, eval_set=[(X, y, qid)])
    assert model.from_init_score_ is True
    # a validation set whose initial scores already rank it perfectly: no iteration improves it, and the warning says
    # the model adds nothing to the initial scores (not that it is constant: they rank)
    X_val, y_val, _, _, _, _ = split_data(3)
    Xt, yt, _, _, _, _ = split_data(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner="trees", n_iter=10, early_stopping=True, random_state=0)
        model.fit(Xt, yt, init_score=np.zeros(yt.size), eval_set=(X_val, y_val), eval_init_score=1e-9 * y_val)
    assert model.n_iter_ == 0
    assert any("adds nothing to init_score" in str(w.message) for w in caught)
    assert not any("the fitted model is constant" in str(w.message) for w in caught)


def test_init_score_with_display_positions():
    from _query_data import logged_clicks

    X, clicks, qid, position, _ = logged_clicks(0, n_queries=60)
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0)
    model.fit(X, clicks, qid=qid, position=position, init_score=0.1 * X[:, 0])
    assert np.isfinite(model.position_effects_).all()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(init_score=np.zeros(5)), ValueError, r"init_score: expected one score per row \(300 rows\)"),
    (dict(init_score=np.r_[np.zeros(299), np.nan]), ValueError, "row 299 has nan"),
    (dict(init_score="scores"), TypeError, "init_score: expected one number per row"),
    (dict(eval_init_score=np.zeros(150)), ValueError, "eval_init_score: given without eval_set"),
])
def test_bad_initial_scores_are_refused_by_name(kwargs, error, message):
    X, y, _, _, _, _ = split_data(1)
    with pytest.raises(error, match=message):
        rankcore.boost(n_iter=2).fit(X, y, **kwargs)


def test_bad_eval_initial_scores_are_refused_by_name():
    X, y, X_val, y_val, _, _ = split_data(2)
    with pytest.raises(ValueError, match=r"eval_init_score: expected one score per row \(150 rows\)"):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=(X_val, y_val), eval_init_score=np.zeros(3))
    with pytest.raises(ValueError, match=r"eval_init_score\[1\]: every initial score must be finite"):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=[(X, y), (X_val, y_val)],
                                     eval_init_score=[None, np.full(150, np.inf)])
    with pytest.raises(ValueError, match=r"eval_init_score: expected one entry per set of eval_set \(2\)"):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=[(X, y), (X_val, y_val)], eval_init_score=[None])


def test_score_adds_the_rows_initial_scores_and_routes_them_in_model_selection():
    import sklearn
    from sklearn.model_selection import KFold, cross_val_score

    X, y, X_val, y_val, _, _ = split_data(5)
    base, base_val = X[:, 0], X_val[:, 0]
    model = rankcore.boost(n_iter=5, random_state=0).fit(X, y, init_score=base)
    expected = rankcore.evaluate(y_val, model.decision_function(X_val) + base_val, metrics=["auc"])["auc"]
    assert model.score(X_val, y_val, init_score=base_val) == expected
    assert model.score(X_val, y_val) != expected                    # without them: the corrections alone
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    with sklearn.config_context(enable_metadata_routing=True):
        est = rankcore.boost(n_iter=5, random_state=0).set_fit_request(init_score=True).set_score_request(
            init_score=True)
        scores = cross_val_score(est, X, y, cv=folds, params={"init_score": base})
    train, test = folds[0]
    by_hand = rankcore.boost(n_iter=5, random_state=0).fit(X[train], y[train], init_score=base[train])
    assert scores[0] == by_hand.score(X[test], y[test], init_score=base[test])


def test_an_eval_set_that_is_the_training_data_starts_from_init_score():
    X, y, qid = graded_queries(3)
    base = 0.5 * X[:, 0]
    model = rankcore.boost(learner="trees", n_iter=5, random_state=0)
    model.fit(X, y, qid=qid, init_score=base, eval_set=(X, y, qid))         # the very training objects: as LightGBM
    expected = [rankcore.evaluate(y, s + base, metrics=["ndcg@k:10"], qid=qid)["ndcg@k:10"]
                for s in model.staged_decision_function(X)]
    np.testing.assert_array_equal(model.validation_scores_, expected)


def test_initial_scores_on_one_side_only_are_warned_about():
    X, y, X_val, y_val, _, _ = split_data(6)
    with pytest.warns(UserWarning, match="some eval_set set has no initial scores"):
        rankcore.boost(n_iter=2).fit(X, y, init_score=X[:, 0], eval_set=(X_val, y_val))
    with pytest.warns(UserWarning, match="eval_init_score: given without init_score"):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=(X_val, y_val), eval_init_score=X_val[:, 0])


def test_the_drivers_messages_name_init_score():
    X, y, _, _, _, _ = split_data(7)
    with pytest.raises(FloatingPointError, match=r"the initial scores are init_score's: rescale them"):
        rankcore.boost(price="exp:1", n_iter=2).fit(X, y, init_score=1000.0 * np.abs(X[:, 0]))
    with pytest.warns(UserWarning, match="the model adds nothing to init_score"):
        rankcore.boost(learner="trees", n_iter=2).fit(np.ones((300, 2)), y, init_score=X[:, 0])   # no split


def test_complex_initial_scores_are_refused():
    X, y, _, _, _, _ = split_data(8)
    with pytest.raises(TypeError, match="init_score: expected one real number per row .* got complex numbers"):
        rankcore.boost(n_iter=2).fit(X, y, init_score=X[:, 0] + 1j * X[:, 1])


def test_a_model_fitted_from_initial_scores_says_so_in_memory_and_in_its_file(tmp_path):
    import json

    from _model_files import tampered
    from rankcore.persistence import ModelFormatError

    X, y, _, _, _, _ = split_data(8)
    plain = rankcore.boost(n_iter=3, random_state=0).fit(X, y)
    assert not hasattr(plain, "from_init_score_")
    model = rankcore.boost(n_iter=3, random_state=0).fit(X, y, init_score=X[:, 0])
    assert model.from_init_score_ is True
    path = tmp_path / "m.json"
    rankcore.save_model(model, path)
    assert rankcore.load_model(path).from_init_score_ is True
    rankcore.save_model(plain, tmp_path / "plain.json")
    assert not hasattr(rankcore.load_model(tmp_path / "plain.json"), "from_init_score_")
    for bad in (False, 1, "yes"):
        path.write_text(json.dumps(tampered(model, lambda state: state.update(from_init_score=bad))))
        with pytest.raises(ModelFormatError, match="from_init_score must be true when present"):
            rankcore.load_model(path)
