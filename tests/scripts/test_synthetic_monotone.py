"""``benchmarks/_queries.synthetic_queries(monotone=...)``: the study's variant with a monotone leading signal."""

import sys

import numpy as np
import pytest
from scipy.stats import spearmanr

from _checkout_scripts import ROOT, script_module_fixture

sys.path.insert(0, str(ROOT / "benchmarks"))        # _queries imports _data from its own folder

queries = script_module_fixture("benchmarks/_queries.py", "rankcore_benchmarks_queries_monotone")


def _within_query_correlation(x, y, qid):
    """Mean Spearman correlation of x with the grade over the queries with two grades or more."""
    values = [spearmanr(x[qid == q], y[qid == q])[0] for q in np.unique(qid) if np.unique(y[qid == q]).size > 1]
    return float(np.mean(values))


def test_the_plain_generator_is_unchanged_and_the_variant_changes_only_its_signal(queries):
    X0, y0, q0 = queries.synthetic_queries(30, max_size=200, random_state=3)
    X1, y1, q1 = queries.synthetic_queries(30, max_size=200, monotone=1.2, random_state=3)
    np.testing.assert_array_equal(q0, q1)
    # the same draws: the informative columns and the noise columns the copies leave alone
    np.testing.assert_array_equal(X0[:, :6], X1[:, :6])
    np.testing.assert_array_equal(X0[:, 9:], X1[:, 9:])
    assert not np.array_equal(y0, y1)
    # three columns become noisy copies of the first, which now orders the queries better
    for j in (6, 7, 8):
        assert np.corrcoef(X1[:, 0], X1[:, j])[0, 1] > 0.8
        assert abs(np.corrcoef(X0[:, 0], X0[:, j])[0, 1]) < 0.1
    assert _within_query_correlation(X1[:, 0], y1, q1) > _within_query_correlation(X0[:, 0], y0, q0) + 0.1


def test_the_variant_needs_three_noise_columns(queries):
    with pytest.raises(ValueError, match="n_noise"):
        queries.synthetic_queries(5, n_noise=2, monotone=1.0, random_state=0)
