"""Several validation sets (``eval_set=[(X_train, y_train), (X_val, y_val)]``): every set scored, the last watched."""

import warnings

import numpy as np
import pytest

import rankcore
from _eval_set_data import split_data, staged_metric
from _model_files import tampered
from _query_data import graded_queries
from rankcore.exactboost import ExactBoost
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, save_model
from rankcore.precision_at_k import PerceptronAtK, SGDAtK
from rankcore.push._eval_sets import read_eval_sets


@pytest.mark.parametrize("learner", ["stumps", "trees:max_leaves=4"])
def test_every_set_is_scored_and_its_curve_is_the_metric_of_the_staged_scores(learner):
    X, y, Xa, ya, Xb, yb = split_data()
    model = rankcore.boost(learner=learner, n_iter=12, early_stopping=False, scoring="prec@k:20", random_state=0)
    model.fit(X, y, eval_set=[(X, y), (Xa, ya), (Xb, yb)])
    assert list(model.evals_result_) == ["training", "validation_1", "validation_2"]     # LightGBM's name
    for name, (Xs, ys) in zip(model.evals_result_, [(X, y), (Xa, ya), (Xb, yb)]):
        assert list(model.evals_result_[name]) == ["prec@k:20"] == [model.validation_metric_]
        curve = model.evals_result_[name]["prec@k:20"]
        assert curve.dtype == np.float64 and curve.shape == (model.n_iter_,)
        np.testing.assert_array_equal(curve, staged_metric(model, Xs, ys, "prec@k:20"))
    # validation_scores_ stays the watched (last) set's curve
    np.testing.assert_array_equal(model.validation_scores_, model.evals_result_["validation_2"]["prec@k:20"])


@pytest.mark.parametrize("learner", ["stumps", "trees:max_leaves=4"])
def test_early_stopping_on_the_last_set_is_the_fit_given_that_set_alone(learner):
    X, y, Xa, ya, Xb, yb = split_data(1)
    params = dict(learner=learner, n_iter=60, early_stopping=True, n_iter_no_change=4, random_state=0)
    alone = rankcore.boost(**params).fit(X, y, eval_set=(Xb, yb))
    several = rankcore.boost(**params).fit(X, y, eval_set=[(X, y), (Xa, ya), (Xb, yb)])
    assert alone.stop_reason_ == several.stop_reason_ == "early_stopping"
    assert several.n_iter_ == alone.n_iter_ and several.best_iteration_ == alone.best_iteration_
    np.testing.assert_array_equal(several.alphas_, alone.alphas_)
    np.testing.assert_array_equal(several.decision_function(Xa), alone.decision_function(Xa))
    np.testing.assert_array_equal(several.validation_scores_, alone.validation_scores_)
    np.testing.assert_array_equal(alone.evals_result_["validation_0"]["auc"], alone.validation_scores_)
    # the curves stop where the model does: the iterations past the best are not kept
    assert all(c["auc"].shape == (several.n_iter_,) for c in several.evals_result_.values())


def test_the_training_data_itself_is_scored_but_not_watched():
    X, y, Xa, ya, _, _ = split_data(2)
    params = dict(n_iter=60, early_stopping=True, n_iter_no_change=3)
    alone = rankcore.boost(**params).fit(X, y, eval_set=(Xa, ya))
    last = rankcore.boost(**params).fit(X, y, eval_set=[(Xa, ya), (X, y)])      # the training data put last
    np.testing.assert_array_equal(last.alphas_, alone.alphas_)
    np.testing.assert_array_equal(last.validation_scores_, last.evals_result_["validation_0"]["auc"])
    np.testing.assert_array_equal(last.evals_result_["training"]["auc"], staged_metric(last, X, y, "auc"))
    # equal arrays that are not the training objects are an ordinary set; with only the training data, it is watched
    copy = rankcore.boost(**params).fit(X, y, eval_set=[(Xa, ya), (X.copy(), y.copy())])
    np.testing.assert_array_equal(copy.validation_scores_, copy.evals_result_["validation_1"]["auc"])
    with pytest.warns(UserWarning, match="every set is the training data itself"):
        only = rankcore.boost(**params).fit(X, y, eval_set=[(X, y)])
    np.testing.assert_array_equal(only.validation_scores_, only.evals_result_["training"]["auc"])


@pytest.mark.parametrize("scoring", ["auc", "prec@k:5", "ks"])
@pytest.mark.parametrize("early_stopping", [True, "auto"])
def test_only_the_training_data_as_eval_set_warns_and_does_not_stop(scoring, early_stopping):
    # LightGBM: "Only training set found, disabling early stopping"; stopping on the rows being fitted cut the fit
    # short wherever their score paused (2 to 9 of 30 iterations here on noise labels)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), (rng.normal(size=200) > 0.5).astype(int)
    params = dict(n_iter=30, early_stopping=early_stopping, n_iter_no_change=1, scoring=scoring, random_state=0)
    with pytest.warns(UserWarning, match=r"early stopping is off for this fit, as in LightGBM"):
        model = rankcore.boost(**params).fit(X, y, eval_set=[(X, y)])
    assert model.n_iter_ == 30 and model.stop_reason_ == "n_iter"
    assert model.evals_result_["training"][scoring].shape == (30,)              # the curve is still recorded
    np.testing.assert_array_equal(model.alphas_, rankcore.boost(**{**params, "early_stopping": False}).fit(
        X, y, eval_set=[(X, y)]).alphas_)


def test_auto_on_large_data_with_only_the_training_data_fits_as_early_stopping_false():
    # "auto" on more than AUTO_MIN_ROWS rows takes the large-data settings (150 trees at rate 0.2 for the trees)
    # because it stops early; with nothing to stop on, the fit is that of early_stopping=False
    rng = np.random.default_rng(0)
    n = rankcore.push.AUTO_MIN_ROWS + 50
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 1).astype(int)
    params = dict(learner="trees:max_leaves=4", random_state=0)
    with pytest.warns(UserWarning, match="early stopping is off for this fit"):
        model = rankcore.boost(early_stopping="auto", **params).fit(X, y, eval_set=[(X, y)])
    off = rankcore.boost(early_stopping=False, **params).fit(X, y, eval_set=[(X, y)])
    assert model.n_iter_ == off.n_iter_ and model.stop_reason_ == "n_iter"
    np.testing.assert_array_equal(model.decision_function(X[:200]), off.decision_function(X[:200]))


def test_the_name_training_is_refused_for_a_set_that_is_not_the_training_data():
    # rankcore info reads a set named "training" as the training rows: a hold-out so named would be misreported
    X, y, Xa, ya, _, _ = split_data(2)
    with pytest.raises(ValueError, match=r"eval_names\[1\]: 'training' names the training data itself"):
        rankcore.boost(n_iter=3).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_names=["train", "training"])
    model = rankcore.boost(n_iter=3).fit(X, y, eval_set=[(Xa, ya), (X, y)], eval_names=["holdout", "training"])
    assert list(model.evals_result_) == ["holdout", "training"]


def test_read_eval_sets_watches_the_last_set_that_is_not_the_training_data():
    X, y = np.ones((4, 2)), np.array([0, 1, 0, 1])
    other = (np.zeros((4, 2)), y)
    assert read_eval_sets(None) is None
    assert read_eval_sets((X, y), X=X, y=y).watched == 0
    assert read_eval_sets([(X, y), other, (X, y)], X=X, y=y).watched == 1
    assert read_eval_sets([(X, y), (X, y)], X=X, y=y).watched == 1
    as_list = [X, y]                       # a pair written as a list is one set
    assert read_eval_sets(as_list).sets == (as_list,)
    sets = read_eval_sets([other, (X, y)], ["b", "a"], X=X, y=y)
    assert sets.names == ("b", "a") and sets.label(1) == "eval_set[1]" and read_eval_sets(other).label(0) == "eval_set"


def test_callbacks_and_progress_see_the_watched_set():
    X, y, Xa, ya, Xb, yb = split_data(3)
    seen = []
    model = rankcore.boost(n_iter=6, early_stopping=False).fit(
        X, y, eval_set=[(Xb, yb), (Xa, ya)], callbacks=lambda info: seen.append(info.validation_score))
    np.testing.assert_array_equal(seen, model.evals_result_["validation_1"]["auc"])


def test_eval_names_name_the_sets_in_their_order():
    X, y, Xa, ya, _, _ = split_data(4)
    model = rankcore.boost(n_iter=4).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_names=["train", "valid"])
    assert list(model.evals_result_) == ["train", "valid"]
    one = rankcore.boost(n_iter=4).fit(X, y, eval_set=(Xa, ya))
    assert list(one.evals_result_) == ["validation_0"]
    assert not hasattr(rankcore.boost(n_iter=4, early_stopping=True).fit(X, y), "evals_result_")   # a hold-out


@pytest.mark.parametrize("names, error, pattern", [
    (["a"], ValueError, r"eval_names: expected 2 name\(s\), one per set of eval_set, got 1"),
    (["a", "a"], ValueError, "eval_names: 'a' names two sets; each set needs a name of its own"),
    ("ab", TypeError, "eval_names: expected a list of names, one per set of eval_set, got 'ab'"),
    (["a", ""], ValueError, r"eval_names\[1\]: expected a non-empty printable string"),
    (["a", 3], ValueError, r"eval_names\[1\]: expected a non-empty printable string"),
])
def test_bad_eval_names_are_refused(names, error, pattern):
    X, y, Xa, ya, _, _ = split_data(5)
    with pytest.raises(error, match=pattern):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_names=names)
    with pytest.raises(ValueError, match="eval_names: given without eval_set"):
        rankcore.boost(n_iter=2).fit(X, y, eval_names=["a"])
    with pytest.raises(TypeError, match="eval_names: rankcore.boost takes no parameter 'eval_names'; it is fit's"):
        rankcore.boost(eval_names=["a"])


@pytest.mark.parametrize("bad, pattern", [
    (lambda Xa, ya: (Xa[:, :3], ya), r"eval_set\[1\] X: expected 5 features \(as X\), got 3"),
    (lambda Xa, ya: (Xa, ya[:10]), r"eval_set\[1\] X has 150, eval_set\[1\] y has 10"),
    (lambda Xa, ya: (Xa, ya + 5), r"eval_set\[1\] y: expected labels among the training classes"),
    (lambda Xa, ya: (Xa, ya, ya), r"eval_set\[1\]: a triple \(X_val, y_val, qid_val\) goes with fit\(..., qid=...\)"),
    (lambda Xa, ya: (Xa,), r"eval_set\[1\]: expected a pair \(X_val, y_val\)"),
])
def test_errors_name_the_bad_set(bad, pattern):
    X, y, Xa, ya, _, _ = split_data(6)
    with pytest.raises(ValueError, match=pattern):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=[(Xa, ya), bad(Xa, ya), (Xa, ya)])


def test_a_set_the_metric_cannot_score_is_named():
    X, y, Xa, ya, _, _ = split_data(7)
    # said as the parameter that named the metric and the set it refused, as within queries
    with pytest.raises(ValueError, match=r"^scoring='prec@k:20' on eval_set\[1\]: k: expected a count in \[1, 10\]"):
        rankcore.boost(n_iter=2, scoring="prec@k:20").fit(X, y, eval_set=[(Xa, ya), (Xa[:10], ya[:10])])


def test_within_queries_each_set_takes_its_own_qid():
    X, y, qid = graded_queries(3)
    Xa, ya, qa = graded_queries(4)
    Xb, yb, qb = graded_queries(5)
    params = dict(learner="trees:max_leaves=4", n_iter=30, random_state=0, scoring="ndcg@k:5")
    watched = rankcore.boost(**params).fit(X, y, qid=qid, eval_set=[(X, y, qid), (Xa, ya, qa), (Xb, yb, qb)])
    assert watched.stop_reason_ == "n_iter"      # few rows: "auto" is off, the sets are watched, as with one
    for name, (Xs, ys, qs) in zip(watched.evals_result_, [(X, y, qid), (Xa, ya, qa), (Xb, yb, qb)]):
        np.testing.assert_allclose(watched.evals_result_[name]["ndcg@k:5"],
                                   staged_metric(watched, Xs, ys, "ndcg@k:5", qid=qs), rtol=1e-12)
    stop = dict(params, early_stopping=True, n_iter_no_change=2)
    alone = rankcore.boost(**stop).fit(X, y, qid=qid, eval_set=(Xb, yb, qb))
    several = rankcore.boost(**stop).fit(X, y, qid=qid, eval_set=[(X, y, qid), (Xa, ya, qa), (Xb, yb, qb)])
    assert several.n_iter_ == alone.n_iter_ < 30
    np.testing.assert_array_equal(several.decision_function(Xa), alone.decision_function(Xa))
    np.testing.assert_array_equal(several.validation_scores_, several.evals_result_["validation_2"]["ndcg@k:5"])
    with pytest.raises(ValueError, match=r"eval_set\[1\]: expected a triple \(X_val, y_val, qid_val\) when fitting "
                                         "with qid"):
        rankcore.boost(**params).fit(X, y, qid=qid, eval_set=[(Xa, ya, qa), (Xb, yb)])
    with pytest.raises(ValueError, match=r"eval_set\[0\] qid"):
        rankcore.boost(**params).fit(X, y, qid=qid, eval_set=[(Xa, ya, qa[:5]), (Xb, yb, qb)])


def test_auto_on_large_data_stops_on_the_last_set_as_on_one():
    # early_stopping="auto" above 10,000 rows of one list: the large-data settings, stopping on the watched set
    from rankcore.push._validation import AUTO_MIN_ROWS

    rng = np.random.default_rng(12)
    X = rng.normal(size=(AUTO_MIN_ROWS + 400, 4))
    y = (X[:, 0] + rng.normal(size=X.shape[0]) > 1.5).astype(int)
    X, y, Xv, yv = X[:AUTO_MIN_ROWS + 1], y[:AUTO_MIN_ROWS + 1], X[AUTO_MIN_ROWS + 1:], y[AUTO_MIN_ROWS + 1:]
    params = dict(learner="stumps:max_bins=8", n_iter_no_change=2)
    alone = rankcore.boost(**params).fit(X, y, eval_set=(Xv, yv))
    several = rankcore.boost(**params).fit(X, y, eval_set=[(X, y), (Xv, yv)])
    assert several.validation_metric_ == alone.validation_metric_ == "pauc:0.1"
    assert several.stop_reason_ == alone.stop_reason_ == "early_stopping" and several.n_iter_ == alone.n_iter_
    np.testing.assert_array_equal(several.alphas_, alone.alphas_)
    np.testing.assert_array_equal(several.validation_scores_, several.evals_result_["validation_1"]["pauc:0.1"])


def test_auto_within_queries_watches_several_sets_on_large_data():
    # early_stopping="auto" within queries never stops, whatever the number of sets (the rule for one set)
    X, y, qid = graded_queries(5, n_queries=700, rows=(14, 20))
    n = 10_400
    Xa, ya, qa = graded_queries(6)
    model = rankcore.boost(learner="stumps:max_bins=8", price="pow:2", n_iter=4, random_state=0).fit(
        X[:n], y[:n], qid=qid[:n], eval_set=[(X[:n], y[:n], qid[:n]), (Xa, ya, qa)])
    assert model.stop_reason_ == "n_iter" and model.n_iter_ == 4
    assert [c["ndcg@k:10"].shape for c in model.evals_result_.values()] == [(4,), (4,)]
    np.testing.assert_array_equal(model.validation_scores_, model.evals_result_["validation_1"]["ndcg@k:10"])


def test_evals_result_round_trips_through_a_model_file(tmp_path):
    X, y, Xa, ya, Xb, yb = split_data(8)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=20, early_stopping=True, n_iter_no_change=3,
                           random_state=0)
    model.fit(X, y, eval_set=[(X, y), (Xa, ya), (Xb, yb)], eval_names=["z-train", "b", "a"])
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.evals_result_) == ["z-train", "b", "a"]      # the sets' order, not the file's sorted keys
    for name, curves in model.evals_result_.items():
        np.testing.assert_array_equal(loaded.evals_result_[name]["auc"], curves["auc"])
    np.testing.assert_array_equal(loaded.validation_scores_, model.validation_scores_)
    np.testing.assert_array_equal(loaded.decision_function(Xa), model.decision_function(Xa))


@pytest.mark.parametrize("change, pattern", [
    (lambda s: s["evals_result"]["names"].__setitem__(1, s["evals_result"]["names"][0]), "names two sets"),
    (lambda s: s["evals_result"].__setitem__("names", ["a"]), "float64 matrix of 1 rows"),
    (lambda s: s["evals_result"].__setitem__("names", []), "names must be a non-empty list"),
    (lambda s: s["evals_result"].pop("scores"), "a record of the sets' names and scores"),
    (lambda s: [s.pop(k) for k in ("validation_scores", "best_iteration", "validation_metric")],
     "evals_result goes with validation_scores"),
    (lambda s: s.__setitem__("validation_scores", s["evals_result"]["scores"]), "validation_scores must be"),
    (lambda s: s["evals_result"]["scores"].__setitem__((0, 1), np.nan), "evals_result scores must hold no NaN"),
    (lambda s: s["evals_result"]["scores"].__setitem__((0, 1), np.inf), "evals_result scores must be finite values "
                                                                         "of 'auc'"),
    (lambda s: s["validation_scores"].__setitem__(1, np.nan), "validation_scores must hold no NaN"),
])
def test_a_model_file_with_a_bad_evals_result_is_refused(change, pattern):
    X, y, Xa, ya, _, _ = split_data(9)
    model = rankcore.boost(n_iter=5).fit(X, y, eval_set=[(X, y), (Xa, ya)])
    with pytest.raises(ModelFormatError, match=pattern):
        model_from_dict(tampered(model, change), source="m")


def test_a_model_file_whose_curves_do_not_hold_the_watched_one_is_refused():
    X, y, Xa, ya, _, _ = split_data(10)
    model = rankcore.boost(n_iter=5).fit(X, y, eval_set=[(X, y), (Xa, ya)])
    data = tampered(model, lambda s: s.__setitem__("validation_scores", s["validation_scores"] + 0.01))
    with pytest.raises(ModelFormatError, match="evals_result must hold validation_scores as the watched set's row"):
        model_from_dict(data, source="m")
    assert model_from_dict(tampered(model, lambda s: None), source="m").evals_result_.keys() == {
        "training", "validation_1"}


def test_lists_of_lists_and_tuples_of_tuples_are_several_sets():
    # LightGBM's [[X, y], ...] and a tuple of pairs are lists of sets, as a list of tuples is
    X, y, Xa, ya, Xb, yb = split_data(12)
    given = rankcore.boost(n_iter=4).fit(X, y, eval_set=[(Xa, ya), (Xb, yb)])
    for form in ([[Xa, ya], [Xb, yb]], ((Xa, ya), (Xb, yb)), [[Xa.tolist(), ya.tolist()], (Xb, yb)]):
        model = rankcore.boost(n_iter=4).fit(X, y, eval_set=form)
        assert list(model.evals_result_) == ["validation_0", "validation_1"]
        for name, curves in given.evals_result_.items():
            np.testing.assert_array_equal(model.evals_result_[name]["auc"], curves["auc"])
    for one in ([Xa, ya], (Xa, ya), (Xa.tolist(), ya.tolist())):     # a pair of arrays or of lists is one set
        assert list(rankcore.boost(n_iter=2).fit(X, y, eval_set=one).evals_result_) == ["validation_0"]
    with pytest.raises(ValueError, match=r"eval_set: ExactBoost takes one validation set, got a list of 2"):
        ExactBoost(n_runs=1, n_rounds=2).fit(X, y, eval_set=[[Xa, ya], [Xb, yb]])


@pytest.mark.parametrize("make", [lambda: ExactBoost(n_runs=1, n_rounds=2), lambda: SGDAtK(k=5, n_epochs=1),
                                  lambda: PerceptronAtK(k=5, n_epochs=1)],
                         ids=["ExactBoost", "SGDAtK", "PerceptronAtK"])
def test_the_one_set_estimators_refuse_several_sets_by_name(make):
    X, y, Xa, ya, _, _ = split_data(11)
    estimator = make()
    with pytest.raises(ValueError, match=rf"eval_set: {type(estimator).__name__} takes one validation set, got a "
                                         r"list of 2; pass one pair \(X_val, y_val\)"):
        estimator.fit(X, y, eval_set=[(X, y), (Xa, ya)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = make().fit(X, y, eval_set=[(Xa, ya)])            # a list of one set is that set
    assert one.validation_scores_.shape[0] >= 1


@pytest.mark.parametrize("qid", [False, True])
def test_the_training_data_in_eval_set_is_scored_with_the_training_weights(qid):
    # scored by the objective, a set that is the training data itself is the training objective: with sample_weight
    # it was scored unweighted, a number the fit did not minimize (LightGBM weighs its training set so too)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0.5).astype(int)
    w = rng.integers(0, 4, size=60).astype(float)
    fit = {}
    if qid:
        q = np.repeat(np.arange(6), 10)
        fit = dict(qid=q, eval_set=[(X, y, q)])
    model = rankcore.boost(objective="push:exp,pow:4", learner="stumps", n_iter=4, early_stopping=False,
                           scoring="objective", random_state=0)
    model.fit(X, y, sample_weight=w, **({"eval_set": [(X, y)]} | fit))
    curve = model.evals_result_["training"]["objective"]
    np.testing.assert_allclose(curve, model.objective_values_[1:], rtol=1e-12)
