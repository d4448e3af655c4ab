"""``benchmarks/_queries.query_normalized`` (the LETOR form of the benchmark sets) against a loop over queries."""

import sys

import numpy as np
import pytest

from _checkout_scripts import ROOT, script_module_fixture

sys.path.insert(0, str(ROOT / "benchmarks"))        # _queries imports _data from its own folder

queries = script_module_fixture("benchmarks/_queries.py", "rankcore_benchmarks_queries")


def reference(X, qid):
    """Each query's rows, column by column: (x - min) / (max - min), 0 where the column is constant."""
    out = np.zeros_like(X)
    for q in np.unique(qid):
        rows = qid == q
        block = X[rows]
        low, high = block.min(axis=0), block.max(axis=0)
        span = high - low
        out[rows] = np.where(span > 0, (block - low) / np.where(span > 0, span, 1.0), 0.0)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_the_loop_with_ties_constants_and_interleaved_queries(queries, seed):
    rng = np.random.default_rng(seed)
    n = 300
    qid = rng.integers(0, 25, n)                    # interleaved, not grouped; some queries of one row
    X = rng.integers(-3, 4, (n, 6)).astype(float)   # many ties
    X[:, 2] = 7.0                                   # constant everywhere
    X[:, 4] = qid * 2.5                             # constant within each query
    out = queries.query_normalized(X, qid)
    np.testing.assert_allclose(out, reference(X, qid), rtol=0, atol=1e-15)
    assert out.min() >= 0.0 and out.max() <= 1.0
    assert not out[:, 2].any() and not out[:, 4].any()
    for q in np.unique(qid):                        # a varying column reaches 0 and 1 in every query
        block = out[qid == q]
        varies = np.ptp(X[qid == q], axis=0) > 0
        assert np.all(block.min(axis=0)[varies] == 0.0) and np.all(block.max(axis=0)[varies] == 1.0)


def test_leaves_its_input_alone_and_takes_no_rows(queries):
    X = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 4.0]])
    before = X.copy()
    out = queries.query_normalized(X, np.array([9, 9, 4]))
    np.testing.assert_array_equal(X, before)
    np.testing.assert_array_equal(out, [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    assert queries.query_normalized(np.empty((0, 3)), np.empty(0, dtype=int)).shape == (0, 3)
