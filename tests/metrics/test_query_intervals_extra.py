"""Intervals over queries at their edges: one counted query, queries of one value."""

import numpy as np
import pytest

from rankcore.metrics import TooFewPairedQueries, compare, confidence_interval


def test_one_counted_query_is_no_interval():
    # its replicates all repeat it: a zero-width interval and p = 0 from compare
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 12).astype(float)
    s = rng.normal(size=12)
    with pytest.raises(ValueError, match="needs at least two counted queries, got 1 of 1"):
        confidence_interval(y, s, "ndcg@k:3", qid=np.zeros(12))
    with pytest.raises(ValueError, match="needs at least two counted queries, got 1 of 3"):
        qid = np.repeat([0, 1, 2], 4)
        compare(np.where(qid == 0, y, 0.0), s, -s, "ndcg@k:3", qid=qid)


@pytest.mark.parametrize("n_queries", [2, 3, 5])
def test_a_paired_comparison_over_fewer_than_six_queries_is_refused(n_queries):
    # 2 queries gave a 95% interval [0.2638, 0.2802] around 0.272 and p = 0: no paired test over 5 or fewer queries
    # can reach p < 0.05 (the exact sign-flip test's smallest p is 2/2^n); the interval of each alone is still given
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(n_queries), 10)
    y = rng.integers(0, 3, qid.size).astype(float)
    s1, s2 = y + 2 * rng.normal(size=qid.size), y + 2.2 * rng.normal(size=qid.size)
    said = (rf"needs at least 6 queries counted by both scorings, got {n_queries} of {n_queries}"
            rf".*2/2\^{n_queries} = {2 / 2 ** n_queries:.3g}")
    with pytest.raises(TooFewPairedQueries, match=said):
        compare(y, s1, s2, "ndcg@k:5", qid=qid, random_state=0)
    assert confidence_interval(y, s1, "ndcg@k:5", qid=qid, n_boot=100, random_state=0).lower >= 0
    six = np.r_[qid, np.repeat(np.arange(n_queries, 6), 10)]
    y6 = np.r_[y, rng.integers(1, 3, six.size - qid.size)]
    s6 = rng.normal(size=six.size)
    assert 0 < compare(y6, s6, -s6, "ndcg@k:5", qid=six, n_boot=200, random_state=0).p_value <= 1


@pytest.mark.parametrize("metric", ["ndcg@k:3", "prec@k:3", "ks", "map", "map@k:3"])
def test_queries_of_one_value_give_an_interval_at_the_estimate(metric):
    # the replicates, (w @ values) / w.sum(), rounded off np.mean's estimate: the interval missed it
    one = (np.array([1.0, 0.0, 2.0, 0.0, 1.0]), np.array([0.3, 0.9, 0.1, 0.5, 0.2]))
    y, s = np.tile(one[0], 30), np.tile(one[1], 30)
    qid = np.repeat(np.arange(30), 5)
    if metric in ("prec@k:3", "ks"):
        y = (y > 0).astype(float)
    ci = confidence_interval(y, s, metric, qid=qid, n_boot=200, random_state=0)
    assert ci.lower == ci.estimate == ci.upper


def test_query_replicates_are_multinomial_counts_of_the_queries():
    # each replicate draws Q queries with replacement: counts sum to Q, each query's count is Binomial(Q, 1/Q)
    from rankcore.metrics._query_evaluate import _replicate_means

    n_queries, n_boot = 50, 4000
    indicator = np.zeros(n_queries)
    indicator[7] = 1.0                       # the mean of this set on a replicate is (count of query 7) / Q
    means = _replicate_means([indicator, np.ones(n_queries)], seed=3, n_boot=n_boot)
    counts = means[:, 0] * n_queries
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert abs(counts.mean() - 1.0) < 0.06 and abs(counts.var() - (1 - 1 / n_queries)) < 0.1
    np.testing.assert_array_equal(means[:, 1], 1.0)
    again = _replicate_means([indicator, np.ones(n_queries)], seed=3, n_boot=n_boot)
    np.testing.assert_array_equal(means, again)                     # seeded


def test_evaluate_with_ci_gives_each_metric_its_own_interval_bit_for_bit():
    # one draw of the replicates serves every metric of evaluate(ci=...), each as confidence_interval gives it
    import rankcore

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(60), 8)
    y = rng.integers(0, 3, qid.shape[0]).astype(float)
    s = y + rng.normal(size=qid.shape[0])
    out = rankcore.evaluate(y, s, ["ndcg@k:5", "map", "mrr"], qid=qid, ci=0.9, n_boot=300, random_state=4)
    for spec in ("ndcg@k:5", "map", "mrr"):
        alone = confidence_interval(y, s, spec, qid=qid, level=0.9, n_boot=300, random_state=4)
        assert (out[spec].lower, out[spec].upper, out[spec].estimate) == (alone.lower, alone.upper, alone.estimate)


@pytest.mark.parametrize("n_queries", [6, 7, 9])
def test_a_paired_p_value_over_few_queries_is_never_below_the_exact_sign_flip_floor(n_queries):
    # (Before: 4e-9 over 6 queries that each favoured the first scoring.)  The normal approximation of the
    # replicates' spread cannot claim more than an exact test over n queries can: p >= 2 / 2**n
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(n_queries), 8)
    y = rng.integers(0, 3, qid.size)
    y[::8] = 2                                   # every query has a relevant row
    good, noise = y + 0.1 * rng.normal(size=qid.size), rng.normal(size=qid.size)
    paired = compare(y, good, noise, "ndcg@k:5", qid=qid, random_state=0)
    assert paired.difference > 0 and paired.p_value == 2 / 2 ** n_queries
    # a NaN query (counted by neither) is not one of the n
    y_nan = np.r_[y, np.zeros(8, dtype=y.dtype)]
    two = (np.r_[good, rng.normal(size=8)], np.r_[noise, rng.normal(size=8)])
    assert compare(y_nan, *two, "ndcg@k:5", qid=np.r_[qid, np.full(8, n_queries)], random_state=0).p_value == (
        2 / 2 ** n_queries)


def test_the_paired_p_value_floor_counts_only_queries_whose_values_differ():
    # 10 queries: in 6 both scorings put the one relevant row first (mrr 1 each, a tie), in 4 the first is better.
    # The exact sign-flip test over 4 untied queries cannot go below 2 / 2**4; before, the floor counted all 10
    # queries (2 / 2**10) and the normal approximation's p = 0.011 stood
    qid = np.repeat(np.arange(10), 4)
    y = np.zeros(qid.size, dtype=int)
    y[::4] = 1
    first = np.tile([4.0, 3.0, 2.0, 1.0], 10)
    second = first.copy()
    second[24:] = np.tile([1.0, 4.0, 3.0, 2.0], 4)
    paired = compare(y, first, second, "mrr", qid=qid, random_state=0)
    assert paired.difference > 0 and paired.p_value == 2 / 2 ** 4
    # every query tied: the floor is capped at 1, never above it
    assert compare(y, first, first, "mrr", qid=qid, random_state=0).p_value <= 1.0
