"""AutoRanker on a DataFrame with ``category`` columns: each is its values' positions among the fit's categories."""

import numpy as np
import pytest

import rankcore
from rankcore.persistence import model_from_dict, model_to_dict

pd = pytest.importorskip("pandas")

LEVELS = ["amber", "blue", "coral", "dune", "ember"]
CANDIDATES = ["trees:n_iter=8", "linear:n_epochs=2"]


def _frames(seed=0, n=300):
    rng = np.random.default_rng(seed)
    colour = rng.choice(LEVELS, n)
    missing = rng.random(n) < 0.05
    x = rng.normal(size=n)
    y = (np.isin(colour, ["blue", "ember"]) + 0.4 * x + 0.5 * rng.normal(size=n) > 0.8).astype(int)
    values = np.where(missing, None, colour.astype(object))
    train = pd.DataFrame({"colour": pd.Categorical(values, categories=LEVELS), "x": x})
    keep = colour != "amber"
    test = pd.DataFrame({"colour": pd.Categorical(values[keep]), "x": x[keep]})      # 'amber' absent: codes shift
    return train, y, test, train[keep].reset_index(drop=True)


@pytest.fixture(scope="module")
def fitted():
    train, y, test, aligned = _frames()
    model = rankcore.AutoRanker(candidates=CANDIDATES, random_state=0, n_jobs=1).fit(train, y)
    return model, train, y, test, aligned


def test_auto_categories_numeric_candidates_see_the_positions(fitted):
    _, train, y, _, _ = fitted
    model = rankcore.AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(train, y)
    assert list(model.categories_[0]) == LEVELS and model.categories_[1] is None
    # the documented encoding, by hand: position among the categories, missing NaN
    position = {v: float(k) for k, v in enumerate(LEVELS)}
    codes = np.column_stack([[position.get(v, np.nan) for v in train["colour"].astype(object)],
                             train["x"].to_numpy()])
    by_codes = rankcore.AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(codes, y)
    np.testing.assert_array_equal(model.decision_function(train), by_codes.decision_function(codes))


def _trees_of(model):
    best = model.best_estimator_
    return [r for m in getattr(best, "estimators", [best]) for r in m.rankers_]


def test_auto_categories_the_trees_split_by_category_groups(fitted):
    model, train, y, _, _ = fitted
    assert model.best_candidate_.startswith("trees")
    assert any(r.categorical for r in _trees_of(model))
    numeric = train.assign(colour=train["colour"].cat.codes.astype(float).where(train["colour"].notna()))
    by_numbers = rankcore.AutoRanker(candidates=CANDIDATES, random_state=0, n_jobs=1).fit(numeric, y)
    assert not any(r.categorical for r in _trees_of(by_numbers))
    # the oblivious trees do not split categories: they see the positions as numbers (and fit)
    oblivious = rankcore.AutoRanker(candidates=["trees:n_iter=4,growth=oblivious"], random_state=0,
                                    n_jobs=1).fit(train, y)
    assert oblivious.leaderboard_.rows[0].status == "chosen" and oblivious.best_estimator_ is not None


def test_auto_categories_shifted_codes_score_as_aligned_also_after_save_and_load(fitted):
    model, _, _, test, aligned = fitted
    expected = model.decision_function(aligned)
    np.testing.assert_array_equal(model.decision_function(test), expected)
    loaded = model_from_dict(model_to_dict(model))
    assert list(loaded.categories_[0]) == LEVELS
    np.testing.assert_array_equal(loaded.decision_function(test), expected)


def test_auto_categories_unseen_category_scores_as_missing(fitted):
    model, train, _, _, _ = fitted
    rows = train.head(40)
    unseen = rows.assign(colour=pd.Categorical(["violet"] * 40))
    missing = rows.assign(colour=pd.Categorical([None] * 40, categories=LEVELS))
    np.testing.assert_array_equal(model.decision_function(unseen), model.decision_function(missing))


def test_auto_categories_mismatched_dtypes_name_the_column(fitted):
    model, train, y, _, _ = fitted
    with pytest.raises(ValueError, match="X: column 'colour' was a pandas 'category' column in fit"):
        model.decision_function(train.assign(colour=train["colour"].astype(str)))
    with pytest.raises(ValueError, match="X: the model was fitted on a DataFrame with the category column"):
        model.decision_function(train.to_numpy())
    numeric = train.assign(colour=train["colour"].cat.codes.astype(float))
    plain = rankcore.AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(numeric, y)
    assert not hasattr(plain, "categories_")
    with pytest.raises(ValueError, match="X: column 'colour' is a pandas 'category' column but was not categorical"):
        plain.decision_function(train)


@pytest.mark.parametrize("candidates", [["linear:n_epochs=2"], ["exactboost:n_runs=1,depth=1"],
                                        ["trees:n_iter=8", "linear:n_epochs=2"]])
def test_auto_categories_unseen_category_scores_as_missing_without_missing_training_values(candidates, tmp_path):
    # an unlisted category is a missing value, which candidates that take no NaN see through the imputer, kept even
    # when no training value is missing
    rng = np.random.default_rng(4)
    colour = rng.choice(LEVELS, 200)
    x = rng.normal(size=200)
    y = (np.isin(colour, ["blue", "ember"]) + 0.4 * x + 0.5 * rng.normal(size=200) > 0.8).astype(int)
    train = pd.DataFrame({"colour": pd.Categorical(colour, categories=LEVELS), "x": x})
    model = rankcore.AutoRanker(candidates=candidates, random_state=0, n_jobs=1).fit(train, y)
    rows = train.head(20)
    unseen = rows.assign(colour=pd.Categorical(["violet"] * 20))
    missing = rows.assign(colour=pd.Categorical([None] * 20, categories=LEVELS))
    scores = model.decision_function(unseen)
    assert np.isfinite(scores).all()
    np.testing.assert_array_equal(scores, model.decision_function(missing))
    rankcore.save_model(model, tmp_path / "m.json")
    np.testing.assert_array_equal(rankcore.load_model(tmp_path / "m.json").decision_function(unseen), scores)
