"""The 'pairwise-logistic' estimator passes rankcore's contract checks and scikit-learn's, is found through its
entry point, is used by name, and its model files load to the same model."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

import rankcore
from rankcore.testing import plugin_checks

from rankcore_pairwise_logistic.estimator import PairwiseLogistic


@pytest.mark.parametrize("check", plugin_checks(PairwiseLogistic), ids=str)
def test_plugin(check):
    check()


@parametrize_with_checks([PairwiseLogistic(n_iter=20, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_model_file_round_trip(tmp_path):
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    model = PairwiseLogistic(n_iter=50, batch_size=64, random_state=0).fit(X, y)
    rankcore.save_model(model, tmp_path / "model.json")           # JSON, no pickle
    loaded = rankcore.load_model(tmp_path / "model.json")         # found by its name; every field checked
    assert type(loaded) is PairwiseLogistic and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.training_curve_.objective, model.training_curve_.objective)
