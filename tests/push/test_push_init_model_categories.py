"""A continuation (``init_model``) reads a new frame's ``category`` columns by the init model's categories."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.persistence import load_model, save_model

pd = pytest.importorskip("pandas")

PARAMS = dict(learner="trees:max_leaves=4", random_state=0)


def _frame(levels, listed, seed, n=400):
    rng = np.random.default_rng(seed)
    colour = rng.choice(levels, size=n)
    X = pd.DataFrame({"x": rng.normal(size=n), "colour": pd.Categorical(colour, categories=listed)})
    y = ((X["x"] + (colour == "red")) > 0.5).astype(int).to_numpy()
    return X, y


def _yesterday_today():
    X, y = _frame(["red", "green", "blue"], ["blue", "green", "red"], 0)
    # today: 'blue' gone, 'white' and 'pink' new, the dtype's order another
    X2, y2 = _frame(["red", "green", "white", "pink"], ["white", "red", "pink", "green"], 1)
    return X, y, X2, y2


def _new_trees(model, first, X):
    """The sum of the trees the continuation added, on X as the continuation encodes it (plain NumPy)."""
    codes = model._check_X(X, reset=False)
    k = first.n_iter_
    return sum(a * r.predict(codes) for a, r in zip(model.alphas_[k:], model.rankers_[k:]))


def _record(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit()
    return model, [str(w.message) for w in caught if "init model does not list" in str(w.message)]


def test_a_frame_of_other_categories_continues_by_the_models():
    X, y, X2, y2 = _yesterday_today()
    first = rankcore.boost(n_iter=3, **PARAMS).fit(X, y)
    more, said = _record(lambda: rankcore.boost(n_iter=2, **PARAMS).fit(X2, y2, init_model=first))
    assert len(said) == 1 and "column 'colour' holds 2 categories ('white', 'pink'" in said[0]
    assert f"{int(np.isin(X2['colour'], ['white', 'pink']).sum())} rows" in said[0]
    assert more.n_iter_ == 5 and more.init_iterations_ == 3
    assert more.categories_[0] is None and list(more.categories_[1]) == ["blue", "green", "red"]
    for rows in (X2, X):
        np.testing.assert_allclose(more.decision_function(rows) - first.decision_function(rows),
                                   _new_trees(more, first, rows), atol=1e-10)
    # the new levels are missing values for the whole model, as for the init model
    as_missing = X2.assign(colour=X2["colour"].cat.set_categories(["red", "green"]))
    np.testing.assert_array_equal(more.decision_function(X2), more.decision_function(as_missing))


def test_same_frame_continuation_is_what_it_was():
    X, y, _, _ = _yesterday_today()
    first = rankcore.boost(n_iter=3, **PARAMS).fit(X, y)
    more, said = _record(lambda: rankcore.boost(n_iter=2, **PARAMS).fit(X, y, init_model=first))
    once = rankcore.boost(n_iter=2, **PARAMS).fit(X, y, init_score=first.decision_function(X))
    assert not said
    np.testing.assert_allclose(more.decision_function(X) - first.decision_function(X), once.decision_function(X),
                               atol=1e-10)


def test_a_folded_model_continues_on_its_kept_levels():
    rng = np.random.default_rng(3)
    n = 900
    items = rng.integers(0, 40, size=n)
    X = pd.DataFrame({"x": rng.normal(size=n), "item": pd.Categorical(items)})
    y = ((X["x"] + (items % 3 == 0)) > 0.5).astype(int).to_numpy()
    params = dict(learner="trees:max_leaves=4,max_bins=8", random_state=0)
    with pytest.warns(UserWarning, match="more than the trees' max_bins"):
        first = rankcore.boost(n_iter=3, **params).fit(X, y)
    today = X.assign(item=pd.Categorical(items + 5))          # five new items, five gone
    more, said = _record(lambda: rankcore.boost(n_iter=2, **params).fit(today, y, init_model=first))
    assert len(said) == 1 and "column 'item'" in said[0]
    np.testing.assert_array_equal(more.categories_[1], first.categories_[1])
    np.testing.assert_allclose(more.decision_function(today) - first.decision_function(today),
                               _new_trees(more, first, today), atol=1e-10)


def test_polars_eval_set_and_queries():
    pl = pytest.importorskip("polars")
    X, y, X2, y2 = _yesterday_today()
    first = rankcore.boost(n_iter=3, **PARAMS).fit(X, y)
    as_pandas, said = _record(lambda: rankcore.boost(n_iter=2, **PARAMS).fit(X2, y2, init_model=first,
                                                                            eval_set=[(X2, y2)]))
    polars = pl.from_pandas(X2).with_columns(pl.col("colour").cast(pl.Categorical))
    more, said_polars = _record(lambda: rankcore.boost(n_iter=2, **PARAMS).fit(polars, y2, init_model=first,
                                                                              eval_set=[(polars, y2)]))
    assert len(said) == len(said_polars) == 1
    np.testing.assert_allclose(more.decision_function(X2), as_pandas.decision_function(X2), atol=1e-12)
    assert more.validation_scores_.shape == as_pandas.validation_scores_.shape
    qid = np.repeat(np.arange(40), 10)
    grades = (y + (X["x"] > 1)).to_numpy() if hasattr(y, "to_numpy") else y + (X["x"].to_numpy() > 1)
    within = rankcore.boost(n_iter=3, learner="trees:growth=depthwise,max_depth=3", random_state=0)
    within.fit(X, grades, qid=qid)
    today = rankcore.boost(n_iter=2, learner="trees:growth=depthwise,max_depth=3", random_state=0)
    with pytest.warns(UserWarning, match="column 'colour' holds 2 categories"):
        today.fit(X2, y2, qid=qid, init_model=within)
    np.testing.assert_array_equal(today.categories_[1], within.categories_[1])
    np.testing.assert_allclose(today.decision_function(X2) - within.decision_function(X2),
                               _new_trees(today, within, X2), atol=1e-10)


def test_saved_and_exported_continuation(tmp_path):
    X, y, X2, y2 = _yesterday_today()
    path = tmp_path / "yesterday.json"
    save_model(rankcore.boost(n_iter=3, **PARAMS).fit(X, y), path)
    more, said = _record(lambda: rankcore.boost(n_iter=2, **PARAMS).fit(X2, y2, init_model=str(path)))
    assert len(said) == 1
    save_model(more, tmp_path / "today.json")
    again = load_model(tmp_path / "today.json")
    np.testing.assert_array_equal(again.decision_function(X2), more.decision_function(X2))
    lgb = pytest.importorskip("lightgbm")
    booster = lgb.Booster(model_str=more.to_lightgbm())
    for rows in (X, X2):
        np.testing.assert_allclose(booster.predict(rows, raw_score=True), more.decision_function(rows), atol=1e-9)


def test_what_is_still_refused_or_said():
    X, y, X2, y2 = _yesterday_today()
    first = rankcore.boost(n_iter=3, **PARAMS).fit(X, y)
    numeric = X2.assign(colour=X2["colour"].cat.codes.astype(float))
    with pytest.raises(ValueError, match=r"^init_model: the model splits the columns \[1\] by category groups"):
        rankcore.boost(n_iter=2, **PARAMS).fit(numeric, y2, init_model=first)
    with pytest.raises(ValueError, match=r"^init_model: the model was fitted on the features \['x', 'colour'\]"):
        rankcore.boost(n_iter=2, **PARAMS).fit(X2.rename(columns={"colour": "shade"}), y2, init_model=first)
    # numbers where the model has text: as when the model scores them, a warning and every row missing
    numbers = X2.assign(colour=pd.Categorical(np.arange(len(X2)) % 3))
    with pytest.warns(UserWarning, match="holds none of the categories seen in fit"):
        rankcore.boost(n_iter=2, **PARAMS).fit(numbers, y2, init_model=first)
    with pytest.warns(UserWarning, match="holds none of the categories seen in fit"):
        first.decision_function(numbers)
