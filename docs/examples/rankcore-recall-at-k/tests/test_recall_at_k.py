"""The 'recall@k' metric passes rankcore's contract checks and is used by name."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore.testing import component_checks

from rankcore_recall_at_k.metric import RecallAtK

CHECKS = [check for spec in RecallAtK.example_specs() for check in component_checks("metric", spec)]


@pytest.mark.parametrize("check", CHECKS, ids=str)
def test_contract(check):
    check()


def test_found_through_the_entry_point():
    entry = rankcore.get_registry().entry("metric", "recall@k")
    assert entry.cls is RecallAtK
    assert entry.distribution == "rankcore-recall-at-k 0.1.0"


def test_used_by_name():
    X, y = make_classification(n_samples=300, n_features=6, weights=[0.8], random_state=0)
    model = rankcore.ExactBoost(metric="recall@k:20", n_runs=5, n_rounds=10, random_state=0).fit(X, y)
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    assert rankcore.evaluate(y, scores, ["auc"])["auc"] > 0.7
