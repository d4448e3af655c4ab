"""The 'modified-huber' loss passes rankcore's contract checks and is used by name."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore.testing import component_checks

from rankcore_modified_huber.loss import ModifiedHuber

CHECKS = [check for spec in ModifiedHuber.example_specs() for check in component_checks("loss", spec)]


@pytest.mark.parametrize("check", CHECKS, ids=str)
def test_contract(check):
    check()


def test_found_through_the_entry_point():
    entry = rankcore.get_registry().entry("loss", "modified-huber")
    assert entry.cls is ModifiedHuber
    assert entry.distribution == "rankcore-modified-huber 0.1.0"


def test_used_by_name():
    X, y = make_classification(n_samples=300, n_features=6, weights=[0.8], random_state=0)
    model = rankcore.boost(loss="modified-huber", n_iter=30, random_state=0).fit(X, y)
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    assert rankcore.evaluate(y, scores, ["auc"])["auc"] > 0.7
