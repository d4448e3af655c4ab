"""An eval_set frame is read by its column names, as decision_function is: never by position."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.validation import check_eval_columns

ESTIMATORS = [
    lambda: rankcore.boost(n_iter=5, random_state=0),
    lambda: rankcore.boost(learner="trees", n_iter=5, random_state=0),
    lambda: rankcore.ExactBoost(n_rounds=2, n_runs=1, random_state=0),
    lambda: rankcore.SGDAtK(random_state=0),
    lambda: rankcore.PerceptronAtK(random_state=0),
]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    return X, (X["a"] + rng.normal(size=200) > 0).astype(int)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_reordered_or_other_columns_are_refused_naming_eval_set(make, data):
    # read by position, a reordered frame would give validation scores of the wrong columns, silently
    X, y = data
    with pytest.raises(ValueError, match=r"^eval_set X: its columns are X's in fit in another order; put them in "
                                         r"the fit's order \('a', 'b', 'c'\)"):
        make().fit(X, y, eval_set=(X[["c", "b", "a"]], y))
    with pytest.raises(ValueError, match=r"^eval_set X: its columns must be X's in fit \(missing 'c'; not in fit "
                                         r"'d'\)$"):
        make().fit(X, y, eval_set=(X[["a", "b"]].assign(d=1.0), y))


@pytest.mark.parametrize("make", ESTIMATORS)
def test_the_fits_columns_or_an_array_are_taken(make, data):
    X, y = data
    make().fit(X, y, eval_set=(X, y))
    make().fit(X, y, eval_set=(X.to_numpy(), y))


def test_within_queries_too(data):
    X, y = data
    qid = np.repeat(np.arange(20), 10)
    with pytest.raises(ValueError, match=r"^eval_set X: its columns are X's in fit in another order"):
        rankcore.boost(learner="trees", n_iter=5).fit(X, y, qid=qid, eval_set=(X[["b", "a", "c"]], y, qid))


def test_no_names_in_fit_checks_nothing():
    check_eval_columns(pd.DataFrame({"x": [1.0]}), None)
    check_eval_columns(np.zeros((1, 1)), ["a"])
