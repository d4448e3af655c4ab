"""``fit(..., eval_metric=[...])``: more metrics recorded on every validation set, the model unchanged."""

import re

import numpy as np
import pandas as pd
import pytest

import rankcore
from _eval_set_data import split_data, staged_metric
from _model_files import tampered
from _query_data import graded_queries
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict, save_model
from rankcore.push._eval_sets import read_eval_metric


def _assert_same_model(a, b, X):
    """Two fits with the same rankers, coefficients, stopping and watched curve, bit for bit."""
    assert a.n_iter_ == b.n_iter_ and a.stop_reason_ == b.stop_reason_ and a.best_iteration_ == b.best_iteration_
    # the model files (arrays as their bytes) agree in every field but the recorded curves
    state_a, state_b = model_to_dict(a)["state"], model_to_dict(b)["state"]
    assert state_a.pop("evals_result") != state_b.pop("evals_result")
    # the start's scores: of eval_metric's metrics too, the watched metric's the same
    start_a, start_b = a.evals_start_, b.evals_start_
    assert all(start_a[name][metric] == value for name in start_b for metric, value in start_b[name].items())
    state_a.pop("evals_start"), state_b.pop("evals_start")
    assert state_a == state_b
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.objective_values_, b.objective_values_)
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.validation_metric_ == b.validation_metric_
    for name, curves in b.evals_result_.items():
        np.testing.assert_array_equal(a.evals_result_[name][a.validation_metric_], curves[b.validation_metric_])


@pytest.mark.parametrize("learner", ["stumps", "trees:max_leaves=4"])
def test_every_metric_of_every_set_is_the_metric_of_the_staged_scores(learner):
    X, y, Xa, ya, Xb, yb = split_data()
    metrics = ["ndcg@k:1", "map@k:10", "pauc:0.1", "prec@k:20"]
    model = rankcore.boost(learner=learner, n_iter=12, early_stopping=False, random_state=0).fit(
        X, y, eval_set=[(X, y), (Xa, ya), (Xb, yb)], eval_metric=metrics)
    for name, (Xs, ys) in zip(["training", "validation_1", "validation_2"], [(X, y), (Xa, ya), (Xb, yb)]):
        assert list(model.evals_result_[name]) == ["auc", *metrics]        # scoring's first, then in the given order
        for metric in ["auc", *metrics]:
            curve = model.evals_result_[name][metric]
            assert curve.dtype == np.float64 and curve.shape == (model.n_iter_,)
            np.testing.assert_array_equal(curve, staged_metric(model, Xs, ys, metric))
    np.testing.assert_array_equal(model.validation_scores_, model.evals_result_["validation_2"]["auc"])


def test_within_queries_every_metric_is_scored_per_query():
    X, y, qid = graded_queries(3)
    Xa, ya, qa = graded_queries(4)
    Xb, yb, qb = graded_queries(5)
    metrics = ["ndcg@k:1", "ndcg@k:3", "map@k:5", "mrr", "err@k:5"]
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=15, random_state=0, scoring="ndcg@k:5").fit(
        X, y, qid=qid, eval_set=[(X, y, qid), (Xa, ya, qa), (Xb, yb, qb)], eval_metric=metrics)
    for name, (Xs, ys, qs) in zip(model.evals_result_, [(X, y, qid), (Xa, ya, qa), (Xb, yb, qb)]):
        assert list(model.evals_result_[name]) == ["ndcg@k:5", *metrics]
        for metric in metrics:
            np.testing.assert_array_equal(model.evals_result_[name][metric], staged_metric(model, Xs, ys, metric, qs))


@pytest.mark.parametrize("learner", ["stumps", "trees:max_leaves=4"])
def test_the_model_is_the_one_fitted_without_eval_metric_bit_for_bit(learner):
    X, y, Xa, ya, Xb, yb = split_data(1)
    params = dict(learner=learner, n_iter=60, early_stopping=True, n_iter_no_change=4, random_state=0)
    sets = [(X, y), (Xa, ya), (Xb, yb)]
    plain = rankcore.boost(**params).fit(X, y, eval_set=sets)
    more = rankcore.boost(**params).fit(X, y, eval_set=sets, eval_metric=["ndcg@k:5", "map@k:10", "prec@k:10"])
    assert plain.stop_reason_ == "early_stopping"
    _assert_same_model(more, plain, Xa)
    # the extra curves stop where the model does
    assert all(c["map@k:10"].shape == (more.n_iter_,) for c in more.evals_result_.values())


def test_the_model_within_queries_is_unchanged_bit_for_bit():
    X, y, qid = graded_queries(6)
    Xb, yb, qb = graded_queries(7)
    params = dict(learner="trees:max_leaves=4", n_iter=40, early_stopping=True, n_iter_no_change=2, random_state=0)
    plain = rankcore.boost(**params).fit(X, y, qid=qid, eval_set=[(X, y, qid), (Xb, yb, qb)])
    more = rankcore.boost(**params).fit(X, y, qid=qid, eval_set=[(X, y, qid), (Xb, yb, qb)],
                                        eval_metric=["ndcg@k:1", "map@k:3"])
    _assert_same_model(more, plain, Xb)
    assert list(more.evals_result_["validation_1"]) == ["ndcg@k:10", "ndcg@k:1", "map@k:3"]


def test_progress_lines_and_callbacks_show_scoring_alone(capsys):
    X, y, Xa, ya, _, _ = split_data(2)
    seen = {}
    for given in (None, ["ndcg@k:1", "map@k:10"]):
        seen[given is None] = []
        rankcore.boost(n_iter=6, verbose=2).fit(X, y, eval_set=(Xa, ya), eval_metric=given,
                                                callbacks=lambda info, key=given is None: seen[key].append(
                                                    info.validation_score))
        seen[given is None].append(re.sub(r"\d+\.\d+s", "", capsys.readouterr().out))
    assert seen[True] == seen[False]
    assert "ndcg" not in seen[False][-1] and "val auc" in seen[False][-1]


def test_repeated_metrics_and_scorings_own_are_recorded_once():
    X, y, Xa, ya, _, _ = split_data(3)
    model = rankcore.boost(n_iter=4).fit(X, y, eval_set=(Xa, ya), eval_metric=["ndcg@1", "auc", "ndcg@k:1", "mrr"])
    assert list(model.evals_result_["validation_0"]) == ["auc", "ndcg@k:1", "mrr"]     # specs as resolved
    one = rankcore.boost(n_iter=4, scoring="objective").fit(X, y, eval_set=(Xa, ya), eval_metric="auc")
    assert list(one.evals_result_["validation_0"]) == ["objective", "auc"]
    np.testing.assert_array_equal(one.evals_result_["validation_0"]["auc"], staged_metric(one, Xa, ya, "auc"))
    assert [m.spec for m in read_eval_metric(("map@k:5", "map@k:5"))] == ["map@k:5"]
    assert list(rankcore.boost(n_iter=2).fit(X, y, eval_set=(Xa, ya), eval_metric=[]).evals_result_[
        "validation_0"]) == ["auc"]


@pytest.mark.parametrize("given, error, pattern", [
    ("ndgc@k:1", ValueError, r"^eval_metric='ndgc@k:1': unknown metric"),
    (["auc", "nope"], ValueError, r"^eval_metric\[1\]='nope': unknown metric"),
    (["auc", "roc"], ValueError, r"^eval_metric\[1\]='roc': the metric is not a scalar score"),
    (3, TypeError, r"^eval_metric: expected a metric spec \(\"ndcg@k:5\"\) or a list of them, got 3"),
])
def test_bad_metric_specs_are_refused_by_name(given, error, pattern):
    X, y, Xa, ya, _, _ = split_data(4)
    with pytest.raises(error, match=pattern):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=(Xa, ya), eval_metric=given)


def test_eval_metric_needs_an_eval_set_and_labels_it_can_score():
    X, y, Xa, ya, _, _ = split_data(5)
    with pytest.raises(ValueError, match="eval_metric: given without eval_set; there is no validation set to score"):
        rankcore.boost(n_iter=2, early_stopping=True).fit(X, y, eval_metric="auc")
    with pytest.raises(TypeError, match="eval_metric: rankcore.boost takes no parameter 'eval_metric'; it is fit's"):
        rankcore.boost(eval_metric=["auc"])
    Xq, yq, qid = graded_queries(8)
    with pytest.raises(ValueError, match=r"^eval_metric: the metric 'auc' cannot score eval_set\[0\] y: expected "
                                         r"binary labels in \{0, 1\}"):
        rankcore.boost(n_iter=2).fit(Xq, yq, qid=qid, eval_set=[(Xq, yq, qid), (Xq, yq, qid)], eval_metric="auc")
    with pytest.raises(ValueError, match=r"^eval_metric: the metric 'prec@k:20' cannot score eval_set y: "):
        rankcore.boost(n_iter=2).fit(X, y, eval_set=(Xa[:10], ya[:10]), eval_metric="prec@k:20")


def test_every_curve_round_trips_through_a_model_file(tmp_path):
    X, y, qid = graded_queries(9)
    Xa, ya, qa = graded_queries(10)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=10, random_state=0).fit(
        X, y, qid=qid, eval_set=[(X, y, qid), (Xa, ya, qa)], eval_names=["z", "a"], eval_metric=["mrr", "map@k:3"])
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert list(loaded.evals_result_) == ["z", "a"]
    for name, curves in model.evals_result_.items():
        assert list(loaded.evals_result_[name]) == ["ndcg@k:10", "mrr", "map@k:3"]
        for metric, curve in curves.items():
            np.testing.assert_array_equal(loaded.evals_result_[name][metric], curve)
    np.testing.assert_array_equal(loaded.decision_function(Xa), model.decision_function(Xa))


def _set(key, value):
    return lambda s: s["evals_result"].__setitem__(key, value(s["evals_result"]) if callable(value) else value)


def _scores(index, value):
    return lambda s: s["evals_result"]["metric_scores"].__setitem__(index, value)


@pytest.mark.parametrize("change, pattern", [
    (_set("metrics", ["ndcg@k:1", "ndcg@k:1"]), "must be distinct metric specs"),
    (_set("metrics", ["ndcg@k:1", "bad\nspec"]), "a non-empty list of metric specs"),
    (_set("metrics", ["ndcg@k:1", "auc"]), "other than 'auc'"),
    (_set("metrics", []), "evals_result metrics must be a non-empty list of metric specs"),
    (_set("metrics", "ndcg@k:1"), "evals_result metrics must be a non-empty list of metric specs"),
    (_set("metrics", ["ndcg@k:1"]), r"metric_scores must be a float64 array of shape \(1, 2, 5\)"),
    (_set("metric_scores", lambda r: r["metric_scores"][:, :, :4]), r"shape \(2, 2, 5\)"),
    (_set("metric_scores", lambda r: r["metric_scores"].astype(np.float32)), r"float64 array of shape \(2, 2, 5\)"),
    (_scores((1, 0, 2), np.nan), "evals_result metric_scores of 'mrr' must hold no NaN"),
    (_scores((0, 1, 2), np.inf), "metric_scores of 'ndcg@k:1' must be finite values of 'ndcg@k:1'"),
    (lambda s: s["evals_result"].pop("metric_scores"), "a record of the sets' names and scores"),
])
def test_a_model_file_with_bad_metric_curves_is_refused(change, pattern):
    X, y, Xa, ya, _, _ = split_data(9)
    model = rankcore.boost(n_iter=5).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_metric=["ndcg@k:1", "mrr"])
    assert model_from_dict(tampered(model, lambda s: None), source="m").evals_result_["validation_1"].keys() == {
        "auc", "ndcg@k:1", "mrr"}
    with pytest.raises(ModelFormatError, match=pattern):
        model_from_dict(tampered(model, change), source="m")


@pytest.mark.parametrize("value, pattern", [
    (np.inf, "evals_start scores of 'mrr' must be finite values of 'mrr'"),
    (np.nan, "evals_start scores of 'mrr' must hold no NaN"),
])
def test_a_model_file_with_a_bad_start_of_a_metric_curve_is_refused(value, pattern):
    # an eval_metric's start is checked as its curve is: finite (before: an infinite start loaded into best_score_)
    X, y, Xa, ya, _, _ = split_data(9)
    model = rankcore.boost(n_iter=5).fit(X, y, eval_set=[(X, y), (Xa, ya)], eval_metric=["ndcg@k:1", "mrr"])

    def change(state):
        state["evals_start"]["scores"][1, 2] = value

    with pytest.raises(ModelFormatError, match=re.escape(pattern)):
        model_from_dict(tampered(model, change), source="m")


def test_a_model_file_of_one_metric_has_no_metric_curves():
    X, y, Xa, ya, _, _ = split_data(10)
    model = rankcore.boost(n_iter=3).fit(X, y, eval_set=(Xa, ya))
    assert set(model_to_dict(model)["state"]["evals_result"]) == {"names", "scores"}      # the earlier format


def test_a_model_file_with_curves_of_a_metric_not_installed_still_loads():
    # the specs are checked as validation_metric is, not resolved: a plugin's metric need not be installed to load
    X, y, Xa, ya, _, _ = split_data(9)
    model = rankcore.boost(n_iter=5).fit(X, y, eval_set=(Xa, ya), eval_metric=["ndcg@k:1", "mrr"])
    def plugin_metric(state):
        _set("metrics", ["ndcg@k:1", "a_plugin_metric:3"])(state)
        state["evals_start"]["metrics"] = ["auc", "ndcg@k:1", "a_plugin_metric:3"]     # the start's, alike

    loaded = model_from_dict(tampered(model, plugin_metric), source="m")
    assert list(loaded.evals_result_["validation_0"]) == ["auc", "ndcg@k:1", "a_plugin_metric:3"]


def test_a_long_resolved_spec_saves_and_loads(tmp_path):
    # a gain table for 32 grades spells more than 200 characters: a model file keeps such a spec
    X, y, qid = graded_queries(9)
    Xa, ya, qa = graded_queries(10)
    spec = "ndcg@k:10,gain=" + "/".join(f"{g:.6f}" for g in np.log2(1 + np.arange(32)))
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    model.fit(X, y, qid=qid, eval_set=(Xa, ya, qa), eval_metric=spec)
    (name,) = [m for m in model.evals_result_["validation_0"] if m != "ndcg@k:10"]
    assert len(name) > 200
    save_model(model, tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").evals_result_["validation_0"][name],
                                  model.evals_result_["validation_0"][name])


def test_a_metric_that_cannot_score_a_set_names_that_set_on_one_list():
    X, y, Xa, ya, _, _ = split_data(11)
    one_class = np.zeros_like(ya)
    with pytest.raises(ValueError) as info:
        rankcore.boost(n_iter=2).fit(X, y, eval_set=[(Xa, ya), (Xa, one_class)], eval_metric="auc")
    assert "eval_set[1] y:" in str(info.value) and "y: y:" not in str(info.value)


def test_an_empty_eval_metric_asks_for_nothing():
    X, y, Xa, ya, _, _ = split_data(12)
    a = rankcore.boost(n_iter=3).fit(X, y, eval_metric=[])
    b = rankcore.boost(n_iter=3).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(Xa), b.decision_function(Xa))


@pytest.mark.parametrize("given", [("auc", "ks"), np.array(["auc", "ks"]), pd.Series(["auc", "ks"]),
                                   pd.Index(["auc", "ks"]), (m for m in ["auc", "ks"])])
def test_any_sequence_of_specs_is_a_list_of_them(given):
    X, y, Xa, ya, _, _ = split_data(13)
    model = rankcore.boost(n_iter=2).fit(X, y, eval_set=(Xa, ya), eval_metric=given)
    assert list(model.evals_result_["validation_0"]) == ["auc", "ks"]
    assert all(type(key) is str for key in model.evals_result_["validation_0"])
    assert [m.spec for m in read_eval_metric(given if not hasattr(given, "__next__") else ["auc", "ks"])] == \
        ["auc", "ks"]


@pytest.mark.parametrize("given, pattern", [({"auc", "ks"}, r"a set has no order"), ({"auc": 1}, r"got \{'auc'"),
                                            (np.array([["auc"]]), r"an array of shape \(1, 1\)")])
def test_unordered_or_two_dimensional_specs_are_refused(given, pattern):
    with pytest.raises(TypeError, match=r"^eval_metric: expected a metric spec .*" + pattern):
        read_eval_metric(given)


def test_an_empty_array_of_specs_asks_for_nothing():
    X, y, _, _, _, _ = split_data(14)
    rankcore.boost(n_iter=2).fit(X, y, eval_metric=np.array([], dtype=str))
