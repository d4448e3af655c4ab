"""``studies/query_defaults_study.top_feature_correlation`` against a loop of SciPy's ``spearmanr`` per query."""

import sys

import numpy as np
from scipy.stats import spearmanr

from _checkout_scripts import ROOT, script_module_fixture

sys.path.insert(0, str(ROOT / "benchmarks"))        # the study imports the benchmarks' helpers

study = script_module_fixture("studies/query_defaults_study.py", "rankcore_query_defaults_study")


def reference(X, y, qid, k):
    per_feature = []
    for j in range(X.shape[1]):
        values = []
        for q in np.unique(qid):
            rows = qid == q
            if np.unique(y[rows]).size < 2:
                continue
            x = X[rows, j]
            values.append(0.0 if np.ptp(x) == 0 else spearmanr(x, y[rows])[0])
        per_feature.append(np.mean(values))
    return float(np.mean(np.sort(np.abs(per_feature))[::-1][:k])), len(values)


def test_matches_the_loop_with_ties_constant_columns_and_one_grade_queries(study):
    rng = np.random.default_rng(0)
    n = 400
    qid = rng.integers(0, 30, n)                     # interleaved queries
    y = rng.integers(0, 3, n).astype(float)
    y[qid == 3] = 1.0                                # a query of one grade: left out
    X = rng.integers(-2, 3, (n, 5)).astype(float)    # ties
    X[:, 1] = y + rng.normal(0.0, 0.5, n)            # orders the queries well
    X[:, 3] = -2.0 * y + rng.normal(0.0, 1.0, n)     # ... negatively
    X[:, 4] = qid                                    # constant within each query
    for k in (1, 3):
        value, n_queries = study.top_feature_correlation(X, y, qid, k)
        expected, expected_queries = reference(X, y, qid, k)
        assert n_queries == expected_queries
        np.testing.assert_allclose(value, expected, rtol=1e-12)
    assert study.top_feature_correlation(X, y, qid, 1)[0] > 0.5
