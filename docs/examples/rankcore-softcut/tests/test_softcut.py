"""The 'softcut' filter passes rankcore's contract checks and is used by name."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore.testing import component_checks

from rankcore_softcut.filter import Softcut

CHECKS = [check for spec in Softcut.example_specs() for check in component_checks("filter", spec)]


@pytest.mark.parametrize("check", CHECKS, ids=str)
def test_contract(check):
    check()


def test_found_through_the_entry_point():
    entry = rankcore.get_registry().entry("filter", "softcut")
    assert entry.cls is Softcut
    assert entry.distribution == "rankcore-softcut 0.1.0"


def test_used_by_name():
    X, y = make_classification(n_samples=300, n_features=6, weights=[0.8], random_state=0)
    model = rankcore.KernelRanker(filter="softcut", lam=1e-2).fit(X, y)
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    assert rankcore.evaluate(y, scores, ["auc"])["auc"] > 0.7
