"""AutoRanker on a ``category`` column of more levels than the trees' 255 bins: folded as the push's trees fold it.

Its trees candidates split a category column by groups only within ``max_bins`` levels; a column of more (an item
id) reached them as its positions among the categories, split as numbers.  The fit now keeps the 255 most frequent
levels (by weight with ``sample_weight``) and reads the others as missing values, as ``rankcore.boost`` does.
"""

import warnings

import numpy as np
import pytest

import rankcore

pd = pytest.importorskip("pandas")


def _frame(seed=0, n=1200, levels=700):
    rng = np.random.default_rng(seed)
    item = rng.zipf(1.3, size=n) % levels
    frame = pd.DataFrame({"x": rng.normal(size=n), "item": pd.Categorical(item, categories=np.arange(levels))})
    y = ((frame["x"] + 0.8 * (item % 5 == 0) + 0.3 * rng.normal(size=n)) > 0.4).astype(int).to_numpy()
    return frame, y, rng


def _fit(make, frame, y, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = make().fit(frame, y, **kwargs)
    return model, [str(w.message) for w in caught if "most frequent" in str(w.message)]


@pytest.mark.parametrize("weighted", [False, True], ids=["rows", "weights"])
def test_auto_folds_a_column_of_too_many_levels_as_the_push_does(weighted):
    frame, y, rng = _frame()
    kwargs = {"sample_weight": rng.integers(0, 4, size=len(frame)).astype(float)} if weighted else {}
    auto, said = _fit(lambda: rankcore.AutoRanker(candidates=["trees:n_iter=4"], random_state=0, n_jobs=1),
                      frame, y, **kwargs)
    push, _ = _fit(lambda: rankcore.boost(learner="trees", n_iter=4, random_state=0), frame, y, **kwargs)
    assert len(auto.categories_[1]) == 255
    np.testing.assert_array_equal(auto.categories_[1], push.categories_[1])
    assert len(said) == 1 and "column 'item' holds" in said[0]
    # a folded level scores as a missing value: the chosen trees never read a level's position as a number
    folded = frame.assign(item=frame["item"].where(frame["item"].isin(auto.categories_[1])))
    np.testing.assert_array_equal(auto.decision_function(frame), auto.decision_function(folded))
