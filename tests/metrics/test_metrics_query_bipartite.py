"""Single-list bipartite metrics per query (auc, pauc, tpauc, ks, rmax, max_height, pnorm with qid).

The compiled pass (``rankcore.metrics._query_bipartite.values_by_query``)
against the Python path it replaces, ``Metric.query_values`` (one metric call
on each query's rows), and against the metric called on each query's rows:
equal bit for bit, NaN where a query has one class.  Data with many ties,
every degenerate query shape (one row, one class, all tied), queries long
enough for the heapsort, signed zeros, and 1 against 2 threads.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import AUC, Metric, check_qid, per_query
from rankcore.metrics._query_bipartite import values_by_query
from rankcore.metrics._scalar import _SortedKernelMetric

SPECS = ("auc", "pauc:0.1", "pauc:0.3", "pauc:0.5,mcclish", "pauc:1", "pauc:1,mcclish", "pauc:0.05,mcclish",
         "pauc:0.37", "tpauc:0.5,0.5", "tpauc:0.2,0.3,normalized", "tpauc:0,1", "ks", "rmax", "max_height",
         "pnorm:1", "pnorm:4", "pnorm:64", "pnorm:2,0.1", "pnorm:3,-0.5")


def python_path(metric, y, scores, queries):
    """The per-query path without the compiled pass: one call of the metric on each query's rows."""
    return Metric.query_values(metric, y, scores, queries)


def call_each_query(metric, y, scores, qid):
    """The metric called on each query's rows (NaN with one class), queries in sorted order."""
    out = []
    for q in np.unique(qid):
        rows = qid == q
        out.append(np.nan if np.unique(y[rows]).size < 2 else float(metric(y[rows], scores[rows])))
    return np.array(out)


def assert_same_bits(a, b):
    assert a.dtype == b.dtype == np.float64 and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True), (a, b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert a[~np.isnan(a)].tobytes() == b[~np.isnan(b)].tobytes()


def queries_with_ties(seed, n_queries=300, largest=30, levels=5):
    """Shuffled rows of queries of 1..largest rows with integer scores (many ties), plus every degenerate shape:
    one row of each class, one class only, all tied with both classes, and two long queries (heapsort)."""
    rng = np.random.default_rng(seed)
    sizes = list(rng.integers(1, largest + 1, n_queries)) + [1, 1, 6, 6, 6, 300, 2000]
    y_parts, s_parts = [], []
    for q, size in enumerate(sizes):
        y_q = (rng.random(size) < rng.uniform(0.05, 0.95)).astype(np.int8)
        s_q = rng.integers(0, levels, size).astype(np.float64) * rng.choice([1.0, 0.25, -3.0])
        if q == n_queries + 1:
            y_q[:] = 0
        if q == n_queries + 2:                          # one class, positives only
            y_q[:] = 1
        if q == n_queries + 3:                          # one class, negatives only
            y_q[:] = 0
        if q == n_queries + 4:                          # both classes, one score
            y_q[:] = [0, 1, 0, 1, 1, 0]
            s_q[:] = 2.5
        y_parts.append(y_q)
        s_parts.append(s_q)
    qid = np.repeat(np.arange(len(sizes)) * 7 - 40, sizes)
    y, scores = np.concatenate(y_parts), np.concatenate(s_parts)
    perm = rng.permutation(y.shape[0])
    return y[perm], scores[perm], qid[perm]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_query_equals_the_python_path_bit_for_bit(spec, seed):
    metric = rankcore.resolve("metric", spec)
    y, scores, qid = queries_with_ties(seed)
    queries = check_qid(qid, y.shape[0])
    got = metric.query_values(y, scores, queries)
    assert metric._kernel_per_query() is not None          # the compiled pass, not the fallback
    assert_same_bits(got, python_path(metric, y, scores, queries))
    assert np.isnan(got[-6:-2]).sum() == 3 and not np.isnan(got[-2:]).any()


@pytest.mark.parametrize("spec", ["auc", "pauc:0.2", "pauc:0.6,mcclish", "tpauc:0.3,0.4", "ks", "pnorm:2"])
def test_every_query_equals_the_metric_called_on_its_rows(spec):
    metric = rankcore.resolve("metric", spec)
    y, scores, qid = queries_with_ties(2, n_queries=120, largest=12, levels=3)
    got = per_query(y, scores, spec, qid=qid)
    assert_same_bits(got.values, call_each_query(metric, y, scores, qid))


@pytest.mark.parametrize("alpha", [1e-9, 0.01, 0.1, 0.25, 1 / 3, 0.5, 0.77, 0.999, 1.0])
@pytest.mark.parametrize("scale", ["raw", "mcclish"])
def test_pauc_at_many_max_fpr_values(alpha, scale):
    metric = rankcore.metrics.PartialAUC(max_fpr=alpha, scale=scale)
    y, scores, qid = queries_with_ties(3, n_queries=150, largest=25, levels=4)
    queries = check_qid(qid, y.shape[0])
    assert_same_bits(metric.query_values(y, scores, queries), python_path(metric, y, scores, queries))


@given(st.data())
def test_any_small_data_equals_the_python_path(data):
    n = data.draw(st.integers(1, 40))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    scores = np.array(data.draw(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0, 1e300]), min_size=n,
                                         max_size=n)))
    qid = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    spec = data.draw(st.sampled_from(SPECS))
    metric = rankcore.resolve("metric", spec)
    queries = check_qid(qid, n)
    assert_same_bits(metric.query_values(y, scores, queries), python_path(metric, y, scores, queries))


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=200),
       st.lists(st.booleans(), min_size=1, max_size=200))
def test_one_long_query_equals_the_single_list(scores, labels):
    n = min(len(scores), len(labels))
    y, s = np.array(labels[:n], dtype=np.int8), np.array(scores[:n])
    for spec in ("auc", "pauc:0.3,mcclish", "ks"):
        metric = rankcore.resolve("metric", spec)
        got = metric.query_values(y, s, check_qid(np.zeros(n, dtype=np.int64), n))
        expected = np.nan if np.unique(y).size < 2 else metric(y, s)
        assert_same_bits(got, np.array([expected]))


@pytest.mark.parametrize("spec", ["auc", "pauc:0.3", "ks", "tpauc:0.1,0.6,normalized"])
def test_one_and_two_threads_agree_bit_for_bit(spec):
    metric = rankcore.resolve("metric", spec)
    y, scores, qid = queries_with_ties(4, n_queries=3000, largest=40)
    queries = check_qid(qid, y.shape[0])
    kernel = metric.sorted_kernel()
    one = values_by_query(kernel, scores, y, queries.codes, queries.sizes, n_threads=1)
    two = values_by_query(kernel, scores, y, queries.codes, queries.sizes, n_threads=2)
    assert one.tobytes() == two.tobytes()
    assert_same_bits(one, python_path(metric, y, scores, queries))


def test_queries_need_not_be_sorted_nor_every_size_positive():
    """Codes in any order; a query of size 0 (no row) is NaN."""
    kernel = rankcore.resolve("metric", "auc").sorted_kernel()
    got = values_by_query(kernel, [0.5, 0.9, 0.5, 0.1], [0, 1, 1, 0], [2, 0, 2, 0], [2, 0, 2])
    assert_same_bits(got, np.array([1.0, np.nan, 0.5]))


@pytest.mark.parametrize("args, match", [
    (([0.1, 0.2], [0, 1], [0], [2]), "one length"),
    (([0.1, 0.2], [0, 1], [0, 0], [3]), "sizes"),
    (([0.1, 0.2], [0, 1], [0, 0], [2, -1, 1]), "sizes"),
    (([0.1, 0.2], [0, 1], [0, 2], [1, 1]), "codes: row 1"),
    (([0.1, 0.2], [0, 1], [0, 0], [1, 1]), "codes: row 1"),
])
def test_inconsistent_input_is_refused(args, match):
    kernel = rankcore.resolve("metric", "ks").sorted_kernel()
    with pytest.raises(ValueError, match=match):
        values_by_query(kernel, *args)
    with pytest.raises(ValueError, match="n_threads"):
        values_by_query(kernel, [0.1], [1], [0], [1], n_threads=0)


class ConstantAUC(AUC):
    """A plugin that changes how one list is evaluated: it keeps the Python path."""

    def compute(self, y, scores):
        return 0.25


def test_a_subclass_that_computes_otherwise_keeps_the_python_path():
    metric = ConstantAUC()
    y, scores, qid = queries_with_ties(5, n_queries=20)
    values = metric.query_values(y, scores, check_qid(qid, y.shape[0]))
    assert metric._kernel_per_query() is None
    assert set(values[~np.isnan(values)]) == {0.25}


def test_labels_other_than_0_and_1_keep_the_python_path():
    metric = rankcore.resolve("metric", "auc")
    scores, queries = np.array([0.1, 0.2, 0.3, 0.4]), check_qid([0, 0, 1, 1], 4)
    y = np.array([0, 1, 2, 2], dtype=np.int8)
    assert_same_bits(metric.query_values(y, scores, queries), np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="negative"):   # the single-list kernel's refusal of a query of 1s and 2s
        metric.query_values(np.array([0, 1, 1, 2], dtype=np.int8), scores, queries)


@pytest.fixture
def python_only(monkeypatch):
    """Run the metrics through the Python path (what they did before the compiled pass)."""
    def run(fn):
        with monkeypatch.context() as patch:
            patch.setattr(_SortedKernelMetric, "_kernel_per_query", lambda self: None)
            return fn()
    return run


def test_evaluate_per_query_and_intervals_are_unchanged(python_only):
    y, scores, qid = queries_with_ties(6, n_queries=400, largest=15)
    specs = ["auc", "pauc:0.3,mcclish", "ks", "tpauc:0.2,0.5", "max_height"]

    def everything():
        return (rankcore.evaluate(y, scores, specs, qid=qid),
                rankcore.evaluate(y, scores, specs, qid=qid, ci=0.9, n_boot=300, random_state=3),
                [per_query(y, scores, spec, qid=qid) for spec in specs],
                rankcore.metrics.compare(y, scores, scores[::-1].copy(), "auc", qid=qid, n_boot=200,
                                         random_state=1))

    values, intervals, tables, comparison = everything()
    old_values, old_intervals, old_tables, old_comparison = python_only(everything)
    assert values == old_values
    for spec in specs:
        new, old = intervals[spec], old_intervals[spec]
        assert (new.estimate, new.lower, new.upper) == (old.estimate, old.lower, old.upper)
    for new, old in zip(tables, old_tables):
        assert_same_bits(new.values, old.values)
        assert (new.mean, new.n_counted, new.n_left_out) == (old.mean, old.n_counted, old.n_left_out)
    assert repr(comparison) == repr(old_comparison)


def test_estimator_scoring_by_queries_is_unchanged(python_only):
    from rankcore.push._scoring import query_scorer

    y, scores, qid = queries_with_ties(7, n_queries=200)
    queries = check_qid(qid, y.shape[0])
    for spec in ("auc", "pauc:0.1", "ks"):
        metric = rankcore.resolve("metric", spec)
        score = query_scorer(metric, y, queries)
        assert score(scores) == python_only(lambda: score(scores))
