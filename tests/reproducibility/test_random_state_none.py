"""``random_state=None`` is scikit-learn's: a draw from NumPy's global RandomState, for every estimator alike --
so ``np.random.seed(s)`` makes a fit with None repeat (before, the push, its trees and AutoRanker took fresh
entropy, which no seed reaches, while SGD@k, the perceptron, KernelRanker and ExactBoost read the global one)."""

import numpy as np
import pytest

import rankcore
from rankcore.validation import fit_seed

RNG = np.random.default_rng(3)
X = RNG.normal(size=(160, 4))
Y = (X[:, 0] + RNG.normal(size=160) > 0.8).astype(int)
QID = np.repeat(np.arange(16), 10)
GRADE = np.clip(np.round(X[:, 0] + RNG.normal(size=160) + 1), 0, 3)

FITS = {
    "trees": lambda: rankcore.boost(learner="trees", n_iter=4).fit(X, Y),
    "trees, early stopping": lambda: rankcore.boost(learner="trees", n_iter=6, early_stopping=True).fit(X, Y),
    "trees within queries": lambda: rankcore.boost(learner="trees", n_iter=4).fit(X, GRADE, qid=QID),
    "auto": lambda: rankcore.AutoRanker(candidates=["trees:n_iter=3", "linear:n_epochs=2"], cv=2).fit(X, Y),
    "exactboost": lambda: rankcore.ExactBoost(n_runs=2, n_rounds=3).fit(X, Y),
}


@pytest.mark.parametrize("name", list(FITS))
def test_a_fit_with_none_repeats_under_the_same_global_seed(name):
    np.random.seed(11)
    first = FITS[name]().decision_function(X)
    np.random.seed(11)
    again = FITS[name]().decision_function(X)
    np.testing.assert_array_equal(first, again)


def test_none_draws_from_the_global_random_state_as_scikit_learns():
    from sklearn.utils import check_random_state

    np.random.seed(5)
    ours = fit_seed(None)
    np.random.seed(5)
    assert ours == check_random_state(None).randint(0, 2**31 - 1)
    assert fit_seed(7) == 7
    generator = np.random.default_rng(0)
    assert fit_seed(generator) is generator


def test_permutation_importance_with_none_repeats_under_the_same_global_seed():
    model = rankcore.boost(learner="trees", n_iter=4, random_state=0).fit(X, Y)
    drops = []
    for _ in range(2):
        np.random.seed(2)
        drops.append(rankcore.permutation_importance(model, X, Y, scoring="auc", n_repeats=2).importances)
    np.testing.assert_array_equal(*drops)
