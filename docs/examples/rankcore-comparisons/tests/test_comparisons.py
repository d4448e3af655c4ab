"""The 'comparisons' learner passes rankcore's contract checks and is used by name."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore.testing import component_checks

from rankcore_comparisons.learner import Comparisons

CHECKS = [check for spec in Comparisons.example_specs() for check in component_checks("learner", spec)]


@pytest.mark.parametrize("check", CHECKS, ids=str)
def test_contract(check):
    check()


def test_found_through_the_entry_point():
    entry = rankcore.get_registry().entry("learner", "comparisons")
    assert entry.cls is Comparisons
    assert entry.distribution == "rankcore-comparisons 0.1.0"


def test_used_by_name():
    X, y = make_classification(n_samples=300, n_features=6, weights=[0.8], random_state=0)
    model = rankcore.boost(learner="comparisons", n_iter=30, random_state=0).fit(X, y)
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    assert rankcore.evaluate(y, scores, ["auc"])["auc"] > 0.7
