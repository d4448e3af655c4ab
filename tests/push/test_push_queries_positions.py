"""Display positions of clicks (``fit(..., position=)``): checked input, the effects' Newton steps against a plain
reference, the default objective with positions, the learned effects on simulated clicks, model files."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from _query_data import logged_clicks
from rankcore.base import resolve_parameter
from rankcore.metrics import check_qid, evaluate
from rankcore.objectives import PositionEffects, check_positions
from rankcore.persistence import ModelFormatError, _checksum, _encode, model_from_dict, model_to_dict
from rankcore.spec import ParameterError


# ---------------------------------------------------------------------------
# the positions given
# ---------------------------------------------------------------------------
def test_check_positions_maps_any_integer_places_to_indices():
    ids, codes = check_positions([3, 1, 1, 7, 3], 5)
    np.testing.assert_array_equal(ids, [1, 3, 7])
    np.testing.assert_array_equal(codes, [1, 0, 0, 2, 1])
    for given in (np.array([3.0, 1.0, 1.0, 7.0, 3.0]), pd.Series([3, 1, 1, 7, 3], dtype="Int64"),
                  np.array([3, 1, 1, 7, 3], dtype=object), np.array([3, 1, 1, 7, 3], dtype=np.uint8)):
        got_ids, got_codes = check_positions(given, 5)
        np.testing.assert_array_equal(got_ids, ids)
        np.testing.assert_array_equal(got_codes, codes)


@pytest.mark.parametrize("position, error, message", [
    (None, TypeError, "got None"),
    ([0, 1], ValueError, r"one display position per row \(3 rows\), got 2"),
    ([[0, 1, 2]], ValueError, "a 1-D array"),
    ([0, -1, 2], ValueError, "row 1 has -1"),
    ([0, 1.5, 2], ValueError, "row 1 has 1.5"),
    ([0, np.nan, 2], ValueError, "row 1 has no display position"),
    ([0, np.inf, 2], ValueError, "row 1 has no display position"),
    (np.array([0, None, 2], dtype=object), ValueError, "row 1 has no display position"),
    (pd.Series([0, None, 2], dtype="Int64"), ValueError, "row 1 has no display position"),
    (np.array([0, "a", 2], dtype=object), TypeError, "row 1 has 'a'"),
    (np.array([0, True, 2], dtype=object), TypeError, "row 1 has True"),
    (np.array([True, False, True]), TypeError, "array of bool"),
    (np.array(["0", "1", "2"]), TypeError, "array of <U1"),
    (np.array([0, 2**70, 1], dtype=object), ValueError, "fit in 64 bits"),
])
def test_check_positions_refuses_bad_input_by_name(position, error, message):
    with pytest.raises(error, match=message) as info:
        check_positions(position, 3)
    assert str(info.value).startswith("position:")


# ---------------------------------------------------------------------------
# the bound form against a plain reference
# ---------------------------------------------------------------------------
def _reference_step(effects, codes, gradient, hessian, l2, rate):
    new = effects.copy()
    for p in range(effects.shape[0]):
        rows = codes == p
        G, H = gradient[rows].sum(), hessian[rows].sum()
        if H > 0:
            new[p] = effects[p] - rate * (G + l2 * H * effects[p]) / ((1 + l2) * H)
    return new


@pytest.mark.parametrize("spec", ["lambdarank", "push:exp,identity,gain_weighted=true,query_rmse=2", "mp-squared"])
@pytest.mark.parametrize("l2", [0.0, 3.0])
def test_position_effects_shift_the_scores_and_step_like_a_leaf_per_position(spec, l2):
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(12), 6)
    y = rng.integers(0, 3, qid.size).astype(float)
    codes = np.tile(np.arange(6), 12)
    codes[codes == 5] = 4                 # position 5 never shown: its effect has no rows
    objective = resolve_parameter("objective", "objective", spec)
    bound = objective.bind(y, None, queries=check_qid(qid, qid.size))
    wrapped = PositionEffects(objective.bind(y, None, queries=check_qid(qid, qid.size)), codes, 6, l2=l2, rate=0.3)
    scores = np.round(rng.normal(size=qid.size), 1)          # ties within queries
    wrapped.effects[:] = [0.5, 0.2, 0.0, -0.1, 0.3, 0.4]
    shifted = scores + wrapped.effects[codes]
    value, gradient, hessian = wrapped.value_gradient_hessian(scores)
    ref_value, ref_gradient, ref_hessian = bound.value_gradient_hessian(shifted)
    np.testing.assert_array_equal(gradient, ref_gradient)
    np.testing.assert_array_equal(hessian, ref_hessian)
    assert value == ref_value or (np.isnan(value) and np.isnan(ref_value))
    before = wrapped.effects.copy()
    wrapped.advance(gradient, hessian)
    expected = _reference_step(before, codes, gradient, hessian, l2, 0.3)
    np.testing.assert_allclose(wrapped.effects, expected, rtol=1e-12, atol=1e-15)
    assert wrapped.effects[5] == before[5]            # no rows: nothing decides it


def test_position_effects_keep_their_values_when_a_step_is_not_finite():
    qid = np.repeat(np.arange(3), 4)
    y = np.tile([0.0, 1.0, 2.0, 0.0], 3)
    objective = resolve_parameter("objective", "objective", "lambdarank")
    wrapped = PositionEffects(objective.bind(y, None, queries=check_qid(qid, 12)), np.tile(np.arange(4), 3), 4,
                              l2=0.0, rate=0.1)
    wrapped.advance(np.full(12, np.inf), np.ones(12))
    np.testing.assert_array_equal(wrapped.effects, 0.0)


def test_position_effects_need_a_curvature():
    qid = np.repeat(np.arange(3), 4)
    y = np.tile([0.0, 1.0, 2.0, 0.0], 3)
    objective = resolve_parameter("objective", "objective", "push:hinge,identity")
    with pytest.raises(ValueError, match="position: the objective 'push:hinge.*' has no curvature"):
        PositionEffects(objective.bind(y, None, queries=check_qid(qid, 12)), np.zeros(12, dtype=np.intp), 1,
                        l2=0.0, rate=0.1)


# ---------------------------------------------------------------------------
# fits
# ---------------------------------------------------------------------------
def _fit(X, y, qid, position, **params):
    params = {"learner": "trees", "n_iter": 40, "random_state": 0, **params}
    return rankcore.boost(**params).fit(X, y, qid=qid, position=position)


def test_position_needs_queries_and_names_itself():
    X, clicks, qid, position, _ = logged_clicks(0, n_queries=20)
    with pytest.raises(ValueError, match=r"position: display positions are places within each query's list"):
        rankcore.boost(learner="trees").fit(X, clicks, position=position)
    with pytest.raises(ValueError, match="position: expected one display position per row"):
        rankcore.boost(learner="trees").fit(X, clicks, qid=qid, position=position[1:])
    with pytest.raises(ValueError, match="has no curvature"):
        rankcore.boost(learner="trees", loss="hinge").fit(X, clicks, qid=qid, position=position)
    with pytest.raises(ParameterError, match="position_l2"):
        rankcore.boost(learner="trees", position_l2=-1.0).fit(X, clicks, qid=qid, position=position)


def test_the_default_with_positions_learns_effects_that_fall_with_the_place():
    X, clicks, qid, position, grades = logged_clicks(0)
    model = _fit(X, clicks, qid, position)
    # the objective is the default's, positions or not
    assert model.objective_spec_ == _fit(X, clicks, qid, None, n_iter=1).objective_spec_
    np.testing.assert_array_equal(model.position_ids_, np.arange(10))
    effects = model.position_effects_
    # seen with probability 1/(p + 1): the first places' effects are the largest, in order
    assert effects[0] > effects[1] > effects[2:].max()
    # the model ranks the true grades of new queries better than one fitted on the clicks as they are
    X_new, _, qid_new, _, grades_new = logged_clicks(1)
    naive = _fit(X, clicks, qid, None)

    def ndcg(m):
        return evaluate(grades_new, m.decision_function(X_new), metrics=["ndcg@k:10"], qid=qid_new)["ndcg@k:10"]

    assert ndcg(model) > ndcg(naive) + 0.01


def test_positions_numbered_from_one_or_from_zero_give_the_same_model():
    X, clicks, qid, position, _ = logged_clicks(2, n_queries=60)
    a = _fit(X, clicks, qid, position)
    b = _fit(X, clicks, qid, position + 1)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.position_effects_, b.position_effects_)
    np.testing.assert_array_equal(b.position_ids_, np.arange(1, 11))


def test_positions_follow_their_rows_when_the_queries_are_reordered():
    X, clicks, qid, position, _ = logged_clicks(3, n_queries=60)
    a = _fit(X, clicks, qid, position)
    # whole queries in another order (each query's rows in theirs): the fit sorts the rows by query id
    order = np.concatenate([np.flatnonzero(qid == q) for q in np.random.default_rng(0).permutation(60)])
    assert not np.array_equal(order, np.arange(qid.size))
    b = _fit(X[order], clicks[order], qid[order], position[order])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.position_effects_, b.position_effects_)
    # the positions are read row by row: given in another order, they are another fit
    c = _fit(X[order], clicks[order], qid[order], position)
    assert not np.array_equal(a.position_effects_, c.position_effects_)


@pytest.mark.parametrize("objective", ["lambdarank", "yetirank", "xendcg", "mp-squared", "push:logistic,pow:2"])
def test_every_per_query_objective_with_a_curvature_takes_positions(objective):
    X, clicks, qid, position, _ = logged_clicks(4, n_queries=60)
    model = _fit(X, clicks, qid, position, objective=objective, n_iter=15)
    assert np.isfinite(model.position_effects_).all() and model.position_effects_[0] > model.position_effects_[-1]
    assert np.isfinite(model.decision_function(X)).all()


def test_positions_with_stumps_line_search_early_stopping_and_eval_set():
    X, clicks, qid, position, grades = logged_clicks(5, n_queries=80)
    stumps = _fit(X, clicks, qid, position, learner="stumps", n_iter=20)
    assert np.isfinite(stumps.objective_values_).all() and stumps.n_iter_ >= 1
    stopped = _fit(X, clicks, qid, position, early_stopping=True, n_iter=30)
    assert 0 <= stopped.n_iter_ <= 30 and stopped.position_effects_.shape == (10,)
    watched = _fit(X, clicks, qid, position, n_iter=10)
    with_set = rankcore.boost(learner="trees", n_iter=10, random_state=0)
    with_set.fit(X, clicks, qid=qid, position=position, eval_set=(X, grades, qid))
    np.testing.assert_array_equal(with_set.decision_function(X), watched.decision_function(X))
    assert with_set.validation_scores_.shape == (10,)


def test_sample_weight_counts_in_the_effects_steps():
    X, clicks, qid, position, _ = logged_clicks(6, n_queries=60)
    w = np.where(qid % 2 == 0, 2.0, 1.0)
    # the weights are read: the weighted fit's effects differ from the unweighted one's, and are deterministic
    a = _fit(X, clicks, qid, position, n_iter=10)
    b = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(X, clicks, w, qid=qid, position=position)
    c = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(X, clicks, w, qid=qid, position=position)
    assert not np.array_equal(a.position_effects_, b.position_effects_)
    np.testing.assert_array_equal(b.position_effects_, c.position_effects_)


def test_position_l2_holds_the_effects_near_zero():
    X, clicks, qid, position, _ = logged_clicks(7, n_queries=60)
    free = _fit(X, clicks, qid, position, n_iter=20)
    held = _fit(X, clicks, qid, position, n_iter=20, position_l2=1e6)
    assert np.abs(held.position_effects_).max() < 1e-3 < np.abs(free.position_effects_).max()


# ---------------------------------------------------------------------------
# model files
# ---------------------------------------------------------------------------
def test_a_model_fitted_with_positions_saves_and_loads_its_effects(tmp_path):
    X, clicks, qid, position, _ = logged_clicks(8, n_queries=40)
    model = _fit(X, clicks, qid, position + 1, n_iter=5)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.position_effects_, model.position_effects_)
    np.testing.assert_array_equal(loaded.position_ids_, np.arange(1, 11))
    assert loaded.objective_spec_ == model.objective_spec_


def _tampered(field, change):
    X, clicks, qid, position, _ = logged_clicks(9, n_queries=30)
    model = _fit(X, clicks, qid, position, n_iter=3)
    document = model_to_dict(model)
    state = document["state"]
    if field is None:
        change(state)
    else:
        state[field] = _encode(change(getattr(model, field + "_").copy()), field)
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    return document


def _nan_first(effects):
    effects[0] = np.nan
    return effects


@pytest.mark.parametrize("field, change, message", [
    (None, lambda s: s.pop("position_effects"), "position_ids and position_effects go together"),
    ("position_effects", lambda e: e[:-1], "finite float64 vector of length 10"),
    ("position_effects", _nan_first, "finite float64 vector"),
    ("position_effects", lambda e: e.astype(np.float32), "finite float64 vector"),
    ("position_ids", lambda ids: ids[::-1].copy(), "increasing vector of integers >= 0"),
    ("position_ids", lambda ids: ids - 1, "increasing vector of integers >= 0"),
    ("position_ids", lambda ids: ids.astype(np.float64), "increasing vector of integers >= 0"),
    (None, lambda s: (s.pop("n_queries"), s.pop("n_queries_without_pairs")), "belong to a model fitted within queries"),
])
def test_position_fields_are_checked_on_load(field, change, message):
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_tampered(field, change))


def test_positions_reach_each_fold_through_metadata_routing():
    import sklearn
    from sklearn.model_selection import GroupKFold, cross_val_score

    X, clicks, qid, position, grades = logged_clicks(10, n_queries=60)
    folds = list(GroupKFold(3).split(X, clicks, qid))
    with sklearn.config_context(enable_metadata_routing=True):
        est = rankcore.boost(learner="trees", n_iter=10, random_state=0)
        est.set_fit_request(qid=True, position=True).set_score_request(qid=True)
        scores = cross_val_score(est, X, clicks, cv=folds, params={"qid": qid, "position": position})
    train, test = folds[0]
    by_hand = _fit(X[train], clicks[train], qid[train], position[train], n_iter=10)
    assert scores[0] == by_hand.score(X[test], clicks[test], qid=qid[test])


def test_places_that_hardly_repeat_draw_a_warning():
    X, clicks, qid, position, _ = logged_clicks(11, n_queries=30)
    with pytest.warns(UserWarning, match=r"position: 300 distinct places for 300 rows \(1.0 rows a place\)"):
        _fit(X, clicks, qid, np.arange(qid.size), n_iter=2)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _fit(X, clicks, qid, position, n_iter=2)          # ten places, 30 rows each


def test_a_refit_without_positions_keeps_no_effects():
    X, clicks, qid, position, _ = logged_clicks(12, n_queries=30)
    model = _fit(X, clicks, qid, position, n_iter=2)
    assert hasattr(model, "position_effects_")
    model.fit(X, clicks, qid=qid)
    assert not hasattr(model, "position_effects_") and not hasattr(model, "position_ids_")


def test_a_full_step_with_free_effects_does_not_diverge_when_a_feature_is_the_place():
    # a tree grown from the gradient the effects stepped on would take the effects' step again along the feature that
    # is the place, and at a learning rate of 1 the two steps add up and diverge; the tree grows from the gradient
    # moved to the new effects, so J falls as without positions
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(300), 10)
    places = np.tile(np.arange(10), 300)
    clicks = (rng.random(qid.size) < 1.0 / (places + 1)).astype(float)
    X = np.c_[rng.normal(size=(qid.size, 2)), places]
    model = _fit(X, clicks, qid, places, learner="trees:learning_rate=1", n_iter=60, position_l2=0.0)
    values = model.objective_values_
    assert values[-1] < values[0] and int((np.diff(values) > 1e-9).sum()) <= 3


def test_the_tree_grows_from_the_gradient_moved_to_the_new_effects():
    qid = np.repeat(np.arange(12), 6)
    y = np.random.default_rng(2).integers(0, 3, qid.size).astype(float)
    codes = np.tile(np.arange(6), 12)
    objective = resolve_parameter("objective", "objective", "lambdarank")
    wrapped = PositionEffects(objective.bind(y, None, queries=check_qid(qid, qid.size)), codes, 6, l2=0.0, rate=1.0)
    _, gradient, hessian = wrapped.value_gradient_hessian(np.zeros(qid.size))
    moved = wrapped.advance(gradient, hessian)
    delta = wrapped.history[-1]                                  # from 0
    np.testing.assert_allclose(moved, gradient + hessian * delta[codes], rtol=0, atol=0)
    # with η = 1 and λ = 0 each place's rows then sum to 0: the effects took the whole place-aligned step
    np.testing.assert_allclose(np.bincount(codes, moved), 0.0, atol=1e-12)


def test_position_effects_are_those_of_the_kept_trees_after_early_stopping_on_an_eval_set():
    X, clicks, qid, position, grades = logged_clicks(13, n_queries=80)
    X_val, _, qid_val, _, grades_val = logged_clicks(14, n_queries=40)
    stopped = rankcore.boost(learner="trees", n_iter=60, early_stopping=True, n_iter_no_change=5, random_state=0)
    stopped.fit(X, clicks, qid=qid, position=position, eval_set=(X_val, grades_val, qid_val))
    assert stopped.n_iter_ < 60
    cut = _fit(X, clicks, qid, position, n_iter=stopped.n_iter_)
    np.testing.assert_array_equal(stopped.decision_function(X), cut.decision_function(X))
    np.testing.assert_array_equal(stopped.position_effects_, cut.position_effects_)


@pytest.mark.parametrize("position, message", [
    (np.full(3, 2**63, dtype=np.uint64), "fit in 64 bits"),
    (np.array([0.0, 1e19, 2.0]), "fit in 64 bits"),
    (np.array([0.0, -1e19, 2.0]), "fit in 64 bits"),
])
def test_positions_beyond_64_bits_are_refused_not_wrapped(position, message):
    with pytest.raises(ValueError, match=message):
        check_positions(position, 3)


def test_a_huge_position_l2_holds_the_effects_at_zero_without_overflow_warnings():
    import warnings

    X, clicks, qid, position, _ = logged_clicks(15, n_queries=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _fit(X, clicks, qid, position, n_iter=3, position_l2=1e308)
    assert np.abs(model.position_effects_).max() < 1e-300


def test_a_model_file_with_unsigned_position_ids_is_refused():
    with pytest.raises(ModelFormatError, match="increasing vector of integers >= 0"):
        model_from_dict(_tampered("position_ids", lambda ids: ids.astype(np.uint64) + np.uint64(2**63)))
