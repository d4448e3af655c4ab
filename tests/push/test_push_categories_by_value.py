"""A DataFrame's ``category`` columns are matched by value: frames read separately score as aligned ones."""

import copy
import warnings

import numpy as np
import pytest

import rankcore
from rankcore._categories import categories_from_state, categories_to_state, encode_categories
from rankcore.persistence import ModelFormatError, _encode, model_from_dict, model_to_dict

from _model_files import resign

pd = pytest.importorskip("pandas")

LEVELS = ["amber", "blue", "coral", "dune", "ember", "fern"]


def _frames(seed=0, n=900):
    """A training frame, and a test frame read separately whose 'colour' lacks 'amber' (every code shifts)."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(LEVELS, n)
    x = rng.normal(size=n)
    y = (np.isin(colour, ["blue", "ember"]) + 0.4 * x + 0.5 * rng.normal(size=n) > 0.8).astype(int)
    train = pd.DataFrame({"colour": pd.Categorical(colour, categories=LEVELS), "x": x})
    keep = colour != "amber"
    test = pd.DataFrame({"colour": pd.Categorical(colour[keep]), "x": x[keep]})      # categories: 5, shifted
    aligned = train[keep].reset_index(drop=True)
    return train, y, test, aligned


def _reference_scores(model, frame):
    """The scores of ``frame`` encoded by hand: each value's position among the fit's categories, unseen NaN."""
    position = {v: float(k) for k, v in enumerate(model.categories_[0])}
    codes = np.array([position.get(v, np.nan) for v in frame["colour"].astype(object)])
    by_codes = copy.copy(model)
    del by_codes.categories_                      # a model without categories scores arrays of codes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)          # fitted with feature names
        return by_codes.decision_function(np.column_stack([codes, frame["x"].to_numpy()]))


@pytest.fixture(scope="module")
def fitted():
    train, y, test, aligned = _frames()
    model = rankcore.boost(learner="trees:max_leaves=8", n_iter=25, random_state=0).fit(train, y)
    assert any(r.categorical for r in model.rankers_)
    return model, train, y, test, aligned


def test_categories_by_value_shifted_codes_score_as_aligned(fitted):
    model, train, y, test, aligned = fitted
    assert [list(c) if c is not None else None for c in model.categories_] == [LEVELS, None]
    assert not np.array_equal(test["colour"].cat.codes, aligned["colour"].cat.codes)     # the codes do shift
    np.testing.assert_array_equal(model.decision_function(test), model.decision_function(aligned))
    # and the same as the fit on codes: the model itself is what it was before categories were kept
    codes = train.assign(colour=train["colour"].cat.codes.astype(float)).to_numpy()
    by_codes = rankcore.boost(learner="trees:max_leaves=8,categorical=0", n_iter=25, random_state=0).fit(codes, y)
    np.testing.assert_array_equal(model.decision_function(aligned),
                                  by_codes.decision_function(aligned.assign(
                                      colour=aligned["colour"].cat.codes.astype(float)).to_numpy()))


def test_categories_by_value_after_save_and_load(fitted, tmp_path):
    model, _, _, test, aligned = fitted
    rankcore.save_model(model, tmp_path / "m.json")
    loaded = rankcore.load_model(tmp_path / "m.json")
    assert [list(c) if c is not None else None for c in loaded.categories_] == [LEVELS, None]
    np.testing.assert_array_equal(loaded.decision_function(test), model.decision_function(aligned))


def test_categories_by_value_the_test_frame_fitted_on_separately(fitted):
    """Fit on a frame lacking a category, score a frame that has it: its rows score as missing values."""
    _, train, y, test, _ = fitted
    keep = train["colour"] != "amber"
    model = rankcore.boost(learner="trees:max_leaves=8", n_iter=25, random_state=0).fit(test, y[keep.to_numpy()])
    scores = model.decision_function(train)
    missing = train.assign(colour=train["colour"].where(keep))               # 'amber' -> NaN
    np.testing.assert_array_equal(scores, model.decision_function(missing))
    np.testing.assert_array_equal(scores[keep.to_numpy()], model.decision_function(test))


def test_categories_by_value_unseen_category_scores_as_missing(fitted):
    model, train, _, _, _ = fitted
    rows = train.head(50)
    unseen = rows.assign(colour=pd.Categorical(["violet"] * 25 + ["amber"] * 25))
    missing = rows.assign(colour=pd.Categorical([None] * 25 + ["amber"] * 25, categories=LEVELS))
    np.testing.assert_array_equal(model.decision_function(unseen), model.decision_function(missing))
    np.testing.assert_array_equal(model.decision_function(unseen), _reference_scores(model, unseen))


def test_categories_by_value_eval_set_is_matched_too(fitted):
    model, train, y, test, aligned = fitted
    keep = (train["colour"] != "amber").to_numpy()
    a = rankcore.boost(learner="trees", n_iter=6, random_state=0, early_stopping=True).fit(
        train, y, eval_set=(test, y[keep]))
    b = rankcore.boost(learner="trees", n_iter=6, random_state=0, early_stopping=True).fit(
        train, y, eval_set=(aligned, y[keep]))
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)


@pytest.mark.parametrize("change, message", [
    (lambda f: f.assign(colour=f["colour"].astype(str)),
     "X: column 'colour' was a pandas 'category' column in fit but is (str|object) here; make it categorical"),
    (lambda f: f.assign(x=pd.Categorical(np.round(f["x"]))),
     "X: column 'x' is a pandas 'category' column but was not categorical in fit"),
    (lambda f: f.to_numpy(),
     "X: the model was fitted on a DataFrame with the category column\\(s\\) 'colour'; pass a DataFrame"),
], ids=["category-then-text", "number-then-category", "array"])
def test_categories_by_value_mismatched_dtypes_name_the_column(fitted, change, message):
    model, train, _, _, _ = fitted
    with pytest.raises(ValueError, match=message):
        model.decision_function(change(train))


def test_categories_by_value_mismatched_dtypes_after_a_numeric_frame_fit():
    train, y, _, _ = _frames(1, n=300)
    numeric = train.assign(colour=train["colour"].cat.codes.astype(float))
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(numeric, y)
    assert model.categories_ == [None, None]
    with pytest.raises(ValueError, match="column 'colour' is a pandas 'category' column but was not categorical"):
        model.decision_function(train)
    np.testing.assert_array_equal(model.decision_function(numeric.to_numpy()), model.decision_function(numeric))


def test_categories_by_value_arrays_keep_no_categories():
    train, y, _, _ = _frames(2, n=300)
    X = train.assign(colour=train["colour"].cat.codes.astype(float)).to_numpy()
    model = rankcore.boost(learner="trees:categorical=0", n_iter=3, random_state=0).fit(X, y)
    assert not hasattr(model, "categories_")
    assert "categories" not in model_to_dict(model)["state"]


def test_categories_by_value_a_model_fitted_on_numbers_refuses_a_category_frame(tmp_path):
    """Fitted on an array (the column's values 3/17/40/41), a frame whose column is a 'category' of those values is
    refused by name -- its codes 0..3 would have been read where the fit read the values -- after a save too."""
    rng = np.random.default_rng(0)
    shop = rng.choice([3, 17, 40, 41], 300)
    x = rng.normal(size=300)
    y = ((shop == 17) ^ (x > 1)).astype(int)
    model = rankcore.boost(learner="trees:categorical=0", n_iter=3, random_state=0).fit(
        np.column_stack([shop, x]).astype(float), y)
    rankcore.save_model(model, tmp_path / "m.json")
    frame = pd.DataFrame({"shop": pd.Categorical(shop), "x": x})
    for fitted in (model, rankcore.load_model(tmp_path / "m.json")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)          # (scikit-learn: fitted without names)
            with pytest.raises(ValueError, match=r"X: column 'shop' is a pandas 'category' column, but the model kept "
                                                 r"no categories \(it was fitted on numbers\)"):
                fitted.decision_function(frame)
            # its values, as in fit, score as the array does
            np.testing.assert_array_equal(fitted.decision_function(frame.assign(shop=shop.astype(float))),
                                          model.decision_function(np.column_stack([shop, x]).astype(float)))


def test_categories_by_value_a_file_written_before_loads_and_scores_by_codes(fitted):
    """A model file without ``categories`` (written before they were kept) scores a frame by its codes."""
    model, _, _, test, aligned = fitted
    data = model_to_dict(model)
    del data["state"]["categories"]
    old = model_from_dict(resign(data))
    assert not hasattr(old, "categories_")
    np.testing.assert_array_equal(old.decision_function(aligned), model.decision_function(aligned))
    codes = test.assign(colour=test["colour"].cat.codes.astype(float).where(test["colour"].cat.codes >= 0))
    np.testing.assert_array_equal(old.decision_function(test), old.decision_function(codes.to_numpy()))


@pytest.mark.parametrize("bad, match", [
    ("colour", "categories: must be a list of 2 entries"),
    ([["a", "a"], None], "categories: column 0: the categories must be distinct"),
    ([["a", 1], None], "categories: column 0: expected None, a list of strings or booleans"),
    ([np.array([1.0, np.nan]), None], "categories: column 0: expected None"),
], ids=["not-a-list", "repeated", "mixed", "nan"])
def test_categories_by_value_bad_file_fields_are_refused(fitted, bad, match):
    model = fitted[0]
    data = model_to_dict(model)
    data["state"]["categories"] = _encode(bad, "state")        # as a file holds it (arrays encoded)
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(resign(data))


@pytest.mark.parametrize("categories", [
    ["a", "b"], [3, 1, 7], [0.5, 2.0], [True, False],
], ids=["str", "int", "float", "bool"])
def test_categories_state_round_trip_and_encoding_reference(categories):
    state = categories_to_state([np.asarray(categories, dtype=object if isinstance(categories[0], str) else None),
                                 None])
    back = categories_from_state(state, 2)
    assert list(back[0]) == categories and back[1] is None
    rng = np.random.default_rng(0)
    values = [categories[k] for k in rng.integers(0, len(categories), 30)]
    frame = pd.DataFrame({"c": pd.Categorical(values), "x": rng.normal(size=30)})
    encoded, _ = encode_categories(frame, back)
    expected = [float(categories.index(v)) for v in values]                 # the plain reference
    np.testing.assert_array_equal(encoded["c"].to_numpy(), expected)


def test_categories_that_a_file_cannot_hold_are_named_at_save():
    dates = pd.to_datetime(["2024-01-01", "2024-02-01"]).to_numpy()
    with pytest.raises(ValueError, match="categories_: column 0 has categories of type datetime64"):
        categories_to_state([dates])


def test_categorical_features_refuses_a_mapping():
    train, y, _, _ = _frames(3, n=200)
    X = train.assign(colour=train["colour"].cat.codes.astype(float)).to_numpy()
    with pytest.raises(TypeError, match="categorical_features: expected column indices, a boolean mask or column "
                                        "names \\(a list\\), got \\{0: 1\\}"):
        rankcore.boost(learner="trees", categorical_features={0: 1}, n_iter=2).fit(X, y)


@pytest.mark.parametrize("make, reader", [
    (lambda: rankcore.boost(learner="stumps", n_iter=2), "the learner 'stumps'"),
    (lambda: rankcore.ExactBoost(), "this estimator"),
    (lambda: rankcore.KernelRanker(), "this estimator"),
    (lambda: rankcore.SGDAtK(), "this estimator"),
])
def test_category_column_of_strings_is_named_where_its_values_are_read(make, reader):
    # A learner without category groups reads a category column's values: strings are named, not a NumPy cast error.
    train, y, _, _ = _frames(n=120)
    with pytest.raises(TypeError, match=f"X: column 'colour' is a pandas 'category' column of non-numeric values, "
                                        f"and {reader} reads a column's values; encode the column as numbers"):
        make().fit(train, y)


def test_category_column_of_numbers_is_read_by_its_values_without_category_groups():
    train, y, _, _ = _frames(n=120)
    numbers = train.assign(colour=pd.Categorical(train["colour"].cat.codes.to_numpy() * 1.5))
    plain = train.assign(colour=numbers["colour"].astype(float))
    by_category = rankcore.boost(learner="stumps", n_iter=3, random_state=0).fit(numbers, y)
    by_value = rankcore.boost(learner="stumps", n_iter=3, random_state=0).fit(plain, y)
    np.testing.assert_array_equal(by_category.decision_function(numbers), by_value.decision_function(plain))


def test_a_category_column_without_categories_is_all_missing():
    # an all-missing category column has no categories to index: every value is missing
    import pandas as pd

    rng = np.random.default_rng(3)
    train = pd.DataFrame({"color": pd.Categorical(rng.choice(["r", "g", "b"], 200)), "x": rng.normal(size=200)})
    y = ((train["color"] == "r") | (train["x"] > 1)).astype(int)
    model = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(train, y)
    missing = pd.DataFrame({"color": pd.Categorical([None, None]), "x": [0.3, -1.0]})
    nan_rows = pd.DataFrame({"color": pd.Categorical([None, None], categories=["r", "g", "b"]), "x": [0.3, -1.0]})
    np.testing.assert_array_equal(model.decision_function(missing), model.decision_function(nan_rows))
    empty = train.assign(color=pd.Categorical([None] * 200))
    fitted = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(empty, y)
    assert np.isfinite(fitted.decision_function(empty)).all()
