"""A frame's ``category`` column of more levels than the trees' ``max_bins``: folded into its most frequent levels.

The fit keeps the ``max_bins`` levels most training rows hold (``categories_``) and reads the others as missing
values; the model must be the one fitted on the manual recipe (those levels kept, the rest made missing), bit for
bit, and a folded level must score as a missing value wherever the model scores.
"""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore._categories import warn_unused_categories

pd = pytest.importorskip("pandas")


def _frame(seed=0, n=3000, levels=2000, listed=None):
    rng = np.random.default_rng(seed)
    item = rng.zipf(1.3, size=n) % levels                 # a long tail: many levels of one or two rows
    listed = levels if listed is None else listed
    frame = pd.DataFrame({"x": rng.normal(size=n), "item": pd.Categorical(item, categories=np.arange(listed)),
                          "z": rng.normal(size=n)})
    y = ((frame["x"] + 0.8 * (item % 5 == 0) + 0.3 * rng.normal(size=n)) > 0.4).astype(int).to_numpy()
    return frame, y


def _manual(frame, keep, column="item"):
    """The documented recipe, by hand: the ``keep`` most frequent levels (ties: category order), the rest missing."""
    codes = frame[column].cat.codes.to_numpy()
    counts = np.bincount(codes[codes >= 0], minlength=len(frame[column].cat.categories))
    top = frame[column].cat.categories[np.sort(np.argsort(-counts, kind="stable")[:keep])]
    out = frame.copy()
    out[column] = out[column].where(out[column].isin(top)).cat.remove_unused_categories()
    return out, top


def _fit(frame, y, learner="trees", **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner=learner, n_iter=8, random_state=0, **kwargs).fit(frame, y)
    return model, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_folded_fit_is_the_manual_recipes_and_warns_once():
    frame, y = _frame()
    model, said = _fit(frame, y)
    manual, top = _manual(frame, 255)
    by_hand, _ = _fit(manual, y)
    assert len(said) == 1, said          # the fold's warning only: not warn_unused_categories' for folded levels
    used = int(np.count_nonzero(np.bincount(frame["item"].cat.codes)))
    folded_rows = int((~frame["item"].isin(top)).sum())
    assert f"column 'item' holds {used} categories, more than the trees' max_bins=255" in said[0]
    assert f"keeps the 255 most frequent and reads the other {used - 255} as missing values" in said[0]
    assert f"({folded_rows / len(frame):.1%} of the training rows, {folded_rows} rows)" in said[0]
    np.testing.assert_array_equal(model.categories_[1], np.asarray(top))
    np.testing.assert_array_equal(model.decision_function(frame), by_hand.decision_function(manual))
    assert model.to_lightgbm() == by_hand.to_lightgbm()
    assert model.to_xgboost_model() == by_hand.to_xgboost_model()
    # a frame scored on its own (other categories listed, new levels): folded and new levels score as missing
    test, _ = _frame(seed=5, n=500, levels=3000)
    missing = test.assign(item=test["item"].where(test["item"].isin(top)))
    np.testing.assert_array_equal(model.decision_function(test), model.decision_function(missing))
    np.testing.assert_array_equal(model.decision_function(test), by_hand.decision_function(missing))


def test_a_folded_level_scores_as_a_missing_value_everywhere(tmp_path):
    frame, y = _frame(1)
    model, _ = _fit(frame, y)
    kept = set(model.categories_[1].tolist())
    folded = next(v for v in frame["item"].cat.categories if v not in kept)
    rows = frame.iloc[:40].copy()
    as_folded, as_nan = rows.copy(), rows.copy()
    as_folded["item"] = pd.Categorical([folded] * 40, categories=frame["item"].cat.categories)
    as_nan["item"] = pd.Categorical([np.nan] * 40, categories=frame["item"].cat.categories)
    np.testing.assert_array_equal(model.decision_function(as_folded), model.decision_function(as_nan))
    np.testing.assert_array_equal(model.feature_contributions(as_folded), model.feature_contributions(as_nan))
    path = tmp_path / "folded.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.categories_[1], model.categories_[1])
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))
    np.testing.assert_array_equal(loaded.decision_function(as_folded), model.decision_function(as_nan))


def test_eval_set_and_init_model_read_the_fits_categories():
    frame, y = _frame(2)
    valid, y_valid = _frame(3, n=800)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(frame, y, eval_set=[(valid, y_valid)])
        manual, top = _manual(frame, 255)
        manual_valid = valid.assign(item=valid["item"].where(valid["item"].isin(top)))
        by_hand = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(
            manual, y, eval_set=[(manual_valid, y_valid)])
        np.testing.assert_array_equal(model.decision_function(valid), by_hand.decision_function(manual_valid))
        for name, metrics in by_hand.evals_result_.items():       # the set scored alike at every iteration
            for metric, values in metrics.items():
                np.testing.assert_array_equal(model.evals_result_[name][metric], values)
        more = rankcore.boost(learner="trees", n_iter=4, random_state=1).fit(frame, y, init_model=model)
    np.testing.assert_array_equal(more.categories_[1], model.categories_[1])
    assert more.n_iter_ == model.n_iter_ + 4


def test_exactly_max_bins_used_levels_are_not_folded():
    frame, y = _frame(4)
    # 300 listed, exactly 255 of them with rows: as before, no fold
    frame["item"] = pd.Categorical(np.arange(len(frame)) % 255, categories=np.arange(300))
    model, said = _fit(frame, y)
    assert not any("max_bins" in s for s in said), said
    assert len(model.categories_[1]) == 300              # the dtype's categories, unused ones too, as before


def test_max_bins_of_the_learner_spec_sets_the_count():
    frame, y = _frame(5, levels=400)
    model, said = _fit(frame, y, learner="trees:max_bins=63")
    assert len(model.categories_[1]) == 63
    assert "more than the trees' max_bins=63: the fit keeps the 63 most frequent" in said[0]
    manual, _ = _manual(frame, 63)
    by_hand, _ = _fit(manual, y, learner="trees:max_bins=63")
    np.testing.assert_array_equal(model.decision_function(frame), by_hand.decision_function(manual))


def test_per_query_default_trees_fold_the_column():
    frame, _ = _frame(6, n=2400)
    rng = np.random.default_rng(6)
    qid = np.repeat(np.arange(120), 20)
    grades = np.clip(np.round(frame["x"].to_numpy() + rng.normal(size=len(frame))), 0, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner="trees", n_iter=6, random_state=0).fit(frame, grades, qid=qid)
        manual, _ = _manual(frame, 255)
        by_hand = rankcore.boost(learner="trees", n_iter=6, random_state=0).fit(manual, grades, qid=qid)
    assert len(model.categories_[1]) == 255
    assert ",depthwise," in model.learner_spec_         # the per-query default's shape with category columns
    np.testing.assert_array_equal(model.decision_function(frame), by_hand.decision_function(manual))


def test_unused_categories_warning_matches_the_kept_categories_by_value():
    # the column lists levels no kept category holds (folded): they are missing values, not unused categories
    frame = pd.DataFrame({"c": pd.Categorical([0, 1, 2, 3, 3, 3], categories=[0, 1, 2, 3, 4])})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_unused_categories(frame, [np.array([1, 3])])
    with pytest.warns(UserWarning, match="lists 1 category that no training row holds"):
        warn_unused_categories(frame, [np.array([1, 3, 4])])


def test_an_array_of_codes_is_still_refused_with_the_advice():
    rng = np.random.default_rng(7)
    X = np.c_[rng.normal(size=600), np.arange(600) % 300]
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="more than max_bins=255 .*pass it as a pandas 'category' column"):
        rankcore.boost(learner="trees", categorical_features=[1], n_iter=2).fit(X, y)


def test_lightgbm_reads_a_folded_level_as_missing_too():
    lgb = pytest.importorskip("lightgbm")
    frame, y = _frame(8)
    model, _ = _fit(frame, y)
    booster = lgb.Booster(model_str=model.to_lightgbm())      # its pandas_categorical lists the kept levels only
    np.testing.assert_allclose(booster.predict(frame, raw_score=True), model.decision_function(frame), atol=1e-12)


def test_init_model_continues_on_other_rows_folding_as_the_model_did():
    # its own counts would keep other levels than the model's, which the model's trees do not read
    frame, y = _frame(seed=5)
    model, _ = _fit(frame, y)
    part, y_part = frame.iloc[:1200], y[:1200]
    assert not np.array_equal(_manual(part, 255)[1], model.categories_[1])      # its own counts keep other levels
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        more = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(part, y_part, init_model=model)
    # read by the model's kept levels: the rows' other levels are missing values, said once; nothing is folded anew
    assert not [w for w in caught if "max_bins" in str(w.message)]
    said = [str(w.message) for w in caught if "that the init model does not list" in str(w.message)]
    assert len(said) == 1 and "X: column " in said[0], said
    np.testing.assert_array_equal(more.categories_[1], model.categories_[1])
    assert more.n_iter_ == model.n_iter_ + 3


def _weighted(seed=2, n=600, levels=40):
    rng = np.random.default_rng(seed)
    item = rng.integers(0, levels, size=n)
    frame = pd.DataFrame({"x": rng.normal(size=n), "item": pd.Categorical(item, categories=np.arange(levels))})
    y = ((frame["x"] + 0.8 * (item % 3 == 0) + 0.3 * rng.normal(size=n)) > 0.4).astype(int).to_numpy()
    return frame, y, rng


def test_with_sample_weight_the_levels_of_most_weight_are_kept():
    frame, y, rng = _weighted()
    w = rng.integers(0, 4, size=len(frame)).astype(float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner="trees:max_bins=8", n_iter=4, random_state=0).fit(frame, y, sample_weight=w)
    codes = frame["item"].cat.codes.to_numpy()
    weight = np.bincount(codes, weights=w, minlength=40)
    top = np.sort(np.argsort(-weight, kind="stable")[:8])
    rows = np.bincount(codes, minlength=40)
    assert not np.array_equal(top, np.sort(np.argsort(-rows, kind="stable")[:8]))    # the two orders differ here
    np.testing.assert_array_equal(model.categories_[1], frame["item"].cat.categories[top])
    folded = ~np.isin(codes, top)
    said = [str(c.message) for c in caught if "most frequent" in str(c.message)]
    assert len(said) == 1 and f"({w[folded].sum() / w.sum():.1%} of the training weight, {folded.sum()} rows" in said[0]


def test_whole_weights_fold_as_the_rows_repeated():
    frame, y, rng = _weighted(3)
    w = rng.integers(0, 3, size=len(frame))
    repeated = np.repeat(np.arange(len(frame)), w)

    def fit(X, y, **kw):
        return rankcore.boost(learner="trees:max_bins=8", n_iter=4, random_state=0).fit(X, y, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = fit(frame, y, sample_weight=w.astype(float))
        copies = fit(frame.iloc[repeated].reset_index(drop=True), y[repeated])
    np.testing.assert_array_equal(weighted.categories_[1], copies.categories_[1])


def test_a_level_held_only_by_rows_of_weight_zero_is_not_kept():
    frame, y, _ = _weighted(4, levels=12)
    item = frame["item"].to_numpy().copy()
    item[:60] = 99                                        # the most rows of any level, all of weight 0
    frame["item"] = pd.Categorical(item, categories=[*range(12), 99])
    w = np.ones(len(frame))
    w[:60] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner="trees:max_bins=8", n_iter=4, random_state=0).fit(frame, y, sample_weight=w)
    assert 99 not in model.categories_[1].tolist() and len(model.categories_[1]) == 8
