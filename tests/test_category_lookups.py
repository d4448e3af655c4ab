"""A category column's mapping to the fit's categories is built once, not on every call (a service's requests)."""
import pickle
import warnings

import numpy as np
import pytest

import rankcore
from rankcore import _categories

pd = pytest.importorskip("pandas")

CATS = [f"c{i}" for i in range(40)]


def _frame(n, seed, categories=CATS):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n)})
    X["a"] = pd.Categorical(rng.choice(categories, n), categories=categories)
    y = ((X["a"].cat.codes % 3 == 0) ^ (X["x"] > 1.0)).astype(int)
    return X, y


@pytest.fixture
def indexed(monkeypatch):
    built = []
    real = pd.Index.get_indexer
    monkeypatch.setattr(pd.Index, "get_indexer", lambda self, *a, **k: built.append(1) or real(self, *a, **k))
    return built


def _model(X, y):
    return rankcore.boost(learner="trees", n_iter=5, random_state=0, n_jobs=1).fit(X, y)


def test_the_mapping_is_built_once_for_repeated_calls(indexed):
    X, y = _frame(300, 0)
    model = _model(X, y)
    first = model.decision_function(X.iloc[:1])
    requests = []
    for i in range(4):          # a new frame per request, its dtype rebuilt from the same categories
        rows = X.iloc[i:i + 2].copy()
        rows["a"] = pd.Categorical(rows["a"].astype(str), categories=list(CATS))
        requests.append(rows)
    indexed.clear()
    for i, rows in enumerate(requests):
        np.testing.assert_array_equal(model.decision_function(X.iloc[:1]), first)
        np.testing.assert_array_equal(model.decision_function(rows), model.decision_function(X.iloc[i:i + 2]))
    # before, every call built the fit's categories' index and matched the frame's categories again
    assert indexed == []


def test_other_categories_in_a_later_frame_are_matched_again():
    X, y = _frame(300, 0)
    model = _model(X, y)
    expected = model.decision_function(X.iloc[:5])
    model.decision_function(X.iloc[:5])
    shuffled = X.iloc[:5].copy()
    shuffled["a"] = pd.Categorical(shuffled["a"].astype(str), categories=CATS[::-1] + ["new"])
    np.testing.assert_array_equal(model.decision_function(shuffled), expected)
    unseen = X.iloc[:1].copy()
    unseen["a"] = pd.Categorical(["new"], categories=["new"])
    nan_row = X.iloc[:1].copy()
    nan_row["a"] = pd.Categorical([None], categories=CATS)
    np.testing.assert_array_equal(model.decision_function(unseen), model.decision_function(nan_row))


def test_a_refit_on_other_categories_is_not_read_by_the_old_mapping():
    X, y = _frame(300, 0)
    model = _model(X, y)
    model.decision_function(X.iloc[:3])
    X2, y2 = _frame(300, 1, categories=CATS[::-1])
    model.fit(X2, y2)
    fresh = _model(X2, y2)
    np.testing.assert_array_equal(model.decision_function(X.iloc[:30]), fresh.decision_function(X.iloc[:30]))


def test_a_pickled_model_holds_no_mapping_and_scores_the_same():
    X, y = _frame(300, 0)
    model = _model(X, y)
    before = model.decision_function(X.iloc[:7])
    copy = pickle.loads(pickle.dumps(model))
    assert not any("lookup" in k.lower() for k in vars(copy))
    np.testing.assert_array_equal(copy.decision_function(X.iloc[:7]), before)


def test_the_no_match_warning_still_comes_on_every_call():
    X, y = _frame(300, 0)
    model = _model(X, y)
    other = X.iloc[:2].copy()
    other["a"] = pd.Categorical([1, 2], categories=[1, 2])        # numbers where the fit had text
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            model.decision_function(other)
    assert sum("holds none of the categories seen in fit" in str(w.message) for w in seen) == 3


def test_the_lookups_go_with_the_fitted_arrays():
    import gc

    kept = np.array(["a", "b", "c"], dtype=object)
    position, unmatched = _categories._positions(kept, pd.Index(["c", "z"]))
    np.testing.assert_array_equal(position, [2, -1])
    assert not unmatched
    assert id(kept) in _categories._LOOKUPS
    key = id(kept)
    del kept
    gc.collect()
    assert key not in _categories._LOOKUPS
