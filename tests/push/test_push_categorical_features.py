"""``categorical_features=`` of the push estimators: the same trees as the learner spec's ``categorical``."""

import numpy as np
import pytest

import rankcore
from rankcore.validation import check_categorical_features


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 0] = rng.integers(0, 6, n)                        # category codes
    X[rng.random(n) < 0.05, 0] = np.nan                   # some missing
    y = ((np.nan_to_num(X[:, 0]) % 3 == 1) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


def _scores(model, X):
    return model.decision_function(X)


def test_categorical_features_give_the_learner_specs_trees():
    X, y = _data()
    by_spec = rankcore.boost(learner="trees:categorical=0", n_iter=10, random_state=0).fit(X, y)
    assert any(r.categorical for r in by_spec.rankers_)
    for given in ([0], np.array([0]), [True, False, False, False], np.array([True, False, False, False])):
        model = rankcore.boost(learner="trees", categorical_features=given, n_iter=10, random_state=0).fit(X, y)
        np.testing.assert_array_equal(_scores(model, X), _scores(by_spec, X))
    plain = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(X, y)
    assert not any(r.categorical for r in plain.rankers_)


def test_categorical_features_by_column_name_and_with_category_dtype():
    pd = pytest.importorskip("pandas")
    X, y = _data(1)
    frame = pd.DataFrame(X, columns=["grade", "b", "c", "d"])
    by_name = rankcore.boost(learner="trees", categorical_features=["grade"], n_iter=8, random_state=0).fit(frame, y)
    by_index = rankcore.boost(learner="trees", categorical_features=[0], n_iter=8, random_state=0).fit(X, y)
    np.testing.assert_array_equal(_scores(by_name, frame), _scores(by_index, X))
    # a category column and a listed column together: both split by groups
    frame2 = frame.assign(b=pd.Categorical(np.where(X[:, 1] > 0, "hi", "lo")))
    both = rankcore.boost(learner="trees", categorical_features=["grade"], n_iter=8, random_state=0).fit(frame2, y)
    codes = X.copy()
    codes[:, 1] = frame2["b"].cat.codes.to_numpy()
    by_spec = rankcore.boost(learner="trees:categorical=0;1", n_iter=8, random_state=0).fit(codes, y)
    np.testing.assert_array_equal(_scores(both, frame2), _scores(by_spec, codes))


def test_categorical_features_survive_saving(tmp_path):
    X, y = _data(2)
    model = rankcore.boost(learner="trees", categorical_features=[0], n_iter=6, random_state=0).fit(X, y)
    rankcore.save_model(model, tmp_path / "m.json")
    loaded = rankcore.load_model(tmp_path / "m.json")
    assert list(loaded.categorical_features) == [0]
    np.testing.assert_array_equal(_scores(loaded, X), _scores(model, X))


@pytest.mark.parametrize("given, error, match", [
    ([7], ValueError, "column 7 is not one of the 4 columns"),
    ([-1], ValueError, "column -1 is not one of the 4 columns"),
    ([True, False], ValueError, "boolean mask must have one entry per column \\(4\\), got 2"),
    ("grade", TypeError, "expected column indices, a boolean mask or column names"),
    ([0, "grade"], TypeError, "not a mix"),
    (["grade"], ValueError, "column names need X as a DataFrame"),
    (3, TypeError, "expected column indices"),
])
def test_bad_categorical_features_name_the_parameter(given, error, match):
    X, y = _data()
    with pytest.raises(error, match=f"categorical_features: .*{match}"):
        rankcore.boost(learner="trees", categorical_features=given, n_iter=2).fit(X, y)


def test_learners_without_category_groups_refuse_categorical_features():
    X, y = _data()
    with pytest.raises(ValueError, match="categorical_features: the learner 'stumps' does not split by category"):
        rankcore.boost(categorical_features=[0], n_iter=2).fit(np.nan_to_num(X), y)


def test_check_categorical_features_reference():
    assert check_categorical_features(None, 3) == ()
    assert check_categorical_features([], 3) == ()
    assert check_categorical_features([2, 0, 2], 3) == (0, 2)
    assert check_categorical_features(np.array([False, True, True]), 3) == (1, 2)
    assert check_categorical_features(["b", "a"], 2, ["a", "b"]) == (0, 1)
    with pytest.raises(ValueError, match="'z' is not a column of X"):
        check_categorical_features(["z"], 2, ["a", "b"])


def test_integer_ids_beyond_2_53_are_refused_as_categories():
    """float64 reads 2**53 and 2**53 + 1 as one number: as categorical_features two shops would merge silently."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    ids = rng.choice(np.array([2**53, 2**53 + 1], dtype=np.int64), 200)
    x = rng.normal(size=200)
    y = ((ids == 2**53 + 1) ^ (x > 1.5)).astype(int)
    frame = pd.DataFrame({"shop": ids, "x": x})
    with pytest.raises(ValueError, match=r"X: column 'shop' holds the integer 9007199254740993, beyond ±2\*\*53.*"
                                         r"X\['shop'\]\.astype\('category'\)"):
        rankcore.boost(learner="trees", categorical_features=["shop"], n_iter=2).fit(frame, y)
    with pytest.raises(ValueError, match="column 0 holds the integer -9007199254740993"):
        rankcore.boost(learner="trees", categorical_features=[0], n_iter=2).fit(
            np.column_stack([-ids, ids]), y)
    # ids float64 holds exactly, or the column not categorical, or a 'category' column: fitted
    rankcore.boost(learner="trees", categorical_features=["shop"], n_iter=2).fit(frame.assign(shop=ids - 2), y)
    rankcore.boost(learner="trees", n_iter=2).fit(frame, y)
    model = rankcore.boost(learner="trees", n_iter=2).fit(frame.assign(shop=frame["shop"].astype("category")), y)
    assert list(model.categories_[0]) == [2**53, 2**53 + 1]


@pytest.mark.parametrize("max_bins, advice", [(255, "a column may hold at most 255; encode rare categories together"),
                                              (20, r"raise max_bins \(up to 255\)")])
def test_too_many_categories_name_the_column(max_bins, advice):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"x": rng.normal(size=n), "one": np.ones(n), "shop_id": np.arange(n) % 300})
    y = (frame["x"] > 0).astype(int)
    learner = f"trees:max_bins={max_bins}"
    # the constant column 'one' is not stored: the index is still X's
    with pytest.raises(ValueError, match=rf"categorical: column 'shop_id' \(column 2\) has 300 categories, more than "
                                         rf"max_bins={max_bins} \({advice}"):
        rankcore.boost(learner=learner, categorical_features=["shop_id"], n_iter=2).fit(frame, y)
    with pytest.raises(ValueError, match=rf"categorical: column 2 has 300 categories, more than max_bins={max_bins}"):
        rankcore.boost(learner=learner + ",categorical=2", n_iter=2).fit(frame.to_numpy(), y)
