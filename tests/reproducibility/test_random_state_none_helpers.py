"""``random_state=None`` outside the estimators: the bootstrap intervals and the objectives inside LightGBM/XGBoost
draw from NumPy's global RandomState too, so ``np.random.seed`` makes them repeat, as it makes a fit repeat."""

import numpy as np
import pytest

import rankcore
from rankcore.metrics import confidence_interval

RNG = np.random.default_rng(4)
X = RNG.normal(size=(120, 3))
Y = (X[:, 0] + RNG.normal(size=120) > 0.6).astype(int)
QID = np.repeat(np.arange(20), 6)
GRADE = RNG.integers(0, 4, 120).astype(float)


def _twice(call, seed=9):
    out = []
    for _ in range(2):
        np.random.seed(seed)
        out.append(call())
    return out


INTERVALS = {
    "confidence_interval": lambda: confidence_interval(Y, X[:, 0], "pauc:0.1", n_boot=200).interval,
    "evaluate ci": lambda: rankcore.evaluate(Y, X[:, 0], ["pauc:0.1"], ci=0.9, n_boot=200)["pauc:0.1"].interval,
    "evaluate ci over queries": lambda: rankcore.evaluate(GRADE, X[:, 0], ["ndcg@k:3"], qid=QID, ci=0.9,
                                                          n_boot=200)["ndcg@k:3"].interval,
}


@pytest.mark.parametrize("name", list(INTERVALS))
def test_a_bootstrap_with_none_repeats_under_the_same_global_seed(name):
    # before: None was fresh entropy for the replicates, which no np.random.seed reaches
    first, again = _twice(INTERVALS[name])
    assert first == again
    other = INTERVALS[name]()           # the global state moved on: another draw
    assert other != first


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_a_randomized_objective_with_none_in_the_library_repeats_under_the_same_global_seed(library):
    # before: the adapter's None bound yetirank's noise to fresh entropy
    from rankcore.gbdt import lightgbm_objective, xgboost_objective

    if library == "lightgbm":
        lgb = pytest.importorskip("lightgbm")

        def fit():
            ranker = lgb.LGBMRanker(objective=lightgbm_objective("yetirank", random_state=None), n_estimators=4,
                                    min_child_samples=2, verbose=-1)
            return ranker.fit(X, GRADE, group=np.full(20, 6)).predict(X)
    else:
        xgb = pytest.importorskip("xgboost")

        def fit():
            dtrain = xgb.DMatrix(X, GRADE, qid=QID)
            return xgb.train({"max_depth": 3, "disable_default_eval_metric": 1}, dtrain, 4,
                             obj=xgboost_objective("yetirank", random_state=None)).predict(dtrain, output_margin=True)
    first, again = _twice(fit)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(fit(), first)      # another draw of the global state, another noise


def test_the_global_random_state_is_scikit_learns():
    from sklearn.utils import check_random_state

    from rankcore.validation import fit_seed, global_random_state

    assert global_random_state() is check_random_state(None)
    np.random.seed(1)
    drawn = fit_seed(None)
    np.random.seed(1)
    assert drawn == np.random.randint(0, 2**31 - 1)
