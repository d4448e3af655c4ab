"""Metrics with ``qid``: bad input named, odd queries counted, rows in any order, intervals over queries."""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import compare, confidence_interval, per_query

LIST_METRICS = ["ndcg@k:3", "ndcg@k:5,gain=linear", "err@k:4", "map", "mrr", "map@k:3"]


def grouped(seed, n_queries=30, max_size=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    y = rng.integers(0, 4, size=qid.shape[0]).astype(float)
    scores = rng.integers(0, 4, size=qid.shape[0]).astype(float)
    return y, scores, qid


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize("qid,error,match", [
    ([1, 1, 2], ValueError, r"qid: expected one query id per row \(4 rows\), got 3"),
    (np.array([1.0, np.nan, 2.0, 2.0]), ValueError, r"qid: query ids must not be NaN, got NaN at row 1"),
    ([1, None, 2, 2], ValueError, r"qid: query ids must not be None or NaN, got None at row 1"),
    (["a", "b", float("nan"), "b"], ValueError, r"must not be None or NaN, got nan at row 2"),
    ([[1], [1], [2], [2]], ValueError, r"qid: expected a 1-D array of query ids"),
    ([1, 1, [2], 2], TypeError, r"qid: query ids must be hashable, got list \[2\] at row 2"),
    ("abcd", TypeError, r"qid: expected one query id per row"),
    (pd.Series([1, None, 2, 2], dtype="Int64"), ValueError, r"must not be None or NaN, got <NA> at row 1"),
    (pd.Series(["a", "a", None, "b"], dtype="string"), ValueError, r"must not be None or NaN, got <NA> at row 2"),
    (np.array(["2020-01-01", "NaT", "2020-01-02", "2020-01-02"], dtype="datetime64[D]"), ValueError,
     r"must not be None or NaN, got .*NaT.* at row 1"),
    (np.array([1, complex("nan"), 2, 2]), ValueError, r"must not be None or NaN, got .*nan.* at row 1"),
    ([decimal.Decimal(1), decimal.Decimal(1), decimal.Decimal("NaN"), 2], ValueError,
     r"must not be None or NaN, got Decimal\('NaN'\) at row 2"),
    # a DataFrame iterates over its column names: not one id, but a 2-D input to be named so
    (pd.DataFrame({"q": [1, 1, 2, 2]}), ValueError,
     r"qid: expected a 1-D array of query ids, got DataFrame of shape \(4, 1\) \(pass its column"),
    (pd.DataFrame({"q": [1, 1, 2, 2], "r": [1, 2, 3, 4]}), ValueError, r"got DataFrame of shape \(4, 2\)"),
], ids=["length", "nan", "none", "nan-in-strings", "2-d", "unhashable", "string", "pd-NA-Int64", "pd-NA-string",
        "NaT", "complex-nan", "decimal-nan", "dataframe-column", "dataframe-two-columns"])
def test_bad_qid_is_named(qid, error, match):
    with pytest.raises(error, match=match):
        rankcore.evaluate([1, 0, 2, 0], [0.1, 0.2, 0.3, 0.4], "ndcg@k:2", qid=qid)


def test_integer_ids_beyond_2_53_mixed_with_floats_stay_apart():
    # NumPy reads [2^53 + 1, 2^53, 0.5] as float64, which rounds the first two to one query
    got = per_query([1, 0, 0, 1], [1, 2, 3, 4], "ndcg@k:2", qid=[2**53 + 1, 2**53 + 1, 2**53, 0.5])
    assert got.queries.tolist() == [0.5, 2**53, 2**53 + 1]
    assert per_query([1, 0, 1, 0], [4, 3, 2, 1], "ndcg@k:1", qid=[2**53, 2**53, 0.5, 0.5]).queries.shape == (2,)


def test_bad_grades_are_named():
    qid = [1, 1, 2, 2]
    with pytest.raises(ValueError, match=r"y: metric 'ndcg@k:2' takes relevance grades >= 0, got -1.0 at row 2"):
        rankcore.evaluate([1, 0, -1, 0], [0.1, 0.2, 0.3, 0.4], "ndcg@k:2", qid=qid)
    with pytest.raises(ValueError, match=r"y: .*NaN"):
        rankcore.evaluate([1, 0, np.nan, 0], [0.1, 0.2, 0.3, 0.4], "map", qid=qid)
    with pytest.raises(ValueError, match=r"y: metric 'ndcg@k:2,0/1/3' has gains for the grades 0..2, got 3.0"):
        rankcore.evaluate([1, 0, 3, 0], [0.1, 0.2, 0.3, 0.4], "ndcg@k:2,gain=0/1/3", qid=qid)
    with pytest.raises(ValueError, match=r"binary labels"):           # a bipartite metric keeps 0/1 labels
        rankcore.evaluate([1, 0, 2, 0], [0.1, 0.2, 0.3, 0.4], "auc", qid=qid)


def test_very_high_grades():
    y, scores, qid = [2000.0, 0.0, 1500.0, 3.0, 0.0], [0.1, 0.2, 0.2, 0.5, 0.4], [1, 1, 1, 2, 2]
    with pytest.raises(ValueError, match=r"y: metric 'ndcg@k:2': the gain 2\^grade - 1 overflows for grades >= 1024, "
                                         r"got 2000.0 at row 0"):
        rankcore.evaluate(y, scores, "ndcg@k:2", qid=qid)
    # the first such row as the caller gave it, whatever the query order: a score, an estimator's eval set
    with pytest.raises(ValueError, match=r"overflows for grades >= 1024, got 1500.0 at row 3;"):
        rankcore.evaluate([0.0, 3.0, 1.0, 1500.0, 2000.0], [0.1, 0.2, 0.3, 0.4, 0.5], "ndcg@k:2", qid=[2, 1, 2, 1, 2])
    assert rankcore.evaluate(y, scores, "ndcg@k:2,gain=linear", qid=qid)["ndcg@k:2,gain=linear"] > 0
    # R = 1 in float64 for the 2000 (the reader stops there for sure): every value stays finite
    for ties in ("average", "first"):
        values = per_query(y, scores, f"err@k:3,ties={ties}", qid=qid).values
        assert np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all()
    first = per_query(y, scores, "err@k:3,ties=first", qid=qid).values[0]
    assert first == pytest.approx(2.0 ** -500 * 0.5 + (1 - 2.0 ** -500) * 1 / 3, abs=1e-15)


def test_k_larger_than_every_query_is_an_error():
    y, scores, qid = [1, 0, 2, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 2, 2, 2]
    for spec in ("ndcg@k:4", "err@k:4", "prec@k:4"):
        labels = np.minimum(y, 1) if spec.startswith("prec") else y
        with pytest.raises(ValueError, match=rf"metric '{spec}': k = 4 is larger than every query \(the largest "
                                             r"has 3 rows\)"):
            rankcore.evaluate(labels, scores, spec, qid=qid)
    assert rankcore.evaluate(y, scores, "ndcg@k:3", qid=qid)["ndcg@k:3"] > 0    # k = the largest query is fine


def test_qid_refused_by_a_metric_that_is_not_a_number():
    with pytest.raises(ValueError, match=r"qid: metric 'roc' is not a single number, so it cannot be averaged"):
        rankcore.evaluate([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], ["auc", "roc"], qid=[1, 1, 2, 2])


def test_qid_and_group():
    y, scores = [1, 0, 2, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5]
    with pytest.raises(ValueError, match=r"qid, group: give one of them"):
        rankcore.evaluate(y, scores, "map", qid=[1, 1, 2, 2, 2], group=[2, 3])
    # scikit-learn's cross-validation hands group to every fold whole: the message says to pass qid
    with pytest.raises(ValueError, match=r"group: the query sizes sum to 4, but y has 5 rows \(in scikit-learn's "
                                         r"cross-validation pass qid, one id per row, which is split with the rows"):
        rankcore.evaluate(y, scores, "map", group=[2, 2])
    with pytest.raises(ValueError, match=r"\(2 sizes\); in scikit-learn's cross-validation pass qid"):
        rankcore.evaluate(y[:1], scores[:1], "map", group=[1, 1])
    with pytest.raises(ValueError, match=r"group: every query size must be >= 1, got 0"):
        rankcore.evaluate(y, scores, "map", group=[5, 0])
    assert rankcore.evaluate(y, scores, "map", group=[2, 3]) == rankcore.evaluate(y, scores, "map",
                                                                                  qid=["b", "b", "a", "a", "a"])


TOO_MANY = r"the query sizes sum to more than the 5 rows of y"


@pytest.mark.parametrize("group, message", [
    ([2**63 - 1, 2**63 - 1, 7], TOO_MANY + r" \(one of them is 9223372036854775807\)"),
    ([2**62] * 4 + [5], TOO_MANY + r" \(one of them is 4611686018427387904\)"),
    (np.array([2**64 - 1, 6], dtype=np.uint64), TOO_MANY + r" \(one of them is 18446744073709551615\)"),
    ([1e20, 1.0], TOO_MANY + r" \(one of them is 100000000000000000000\)"),
    ([1] * 6, r"the query sizes sum to more than the 5 rows of y \(6 sizes\)"),
    ([-1e20, 5.0], r"every query size must be >= 1, got -100000000000000000000$"),
], ids=["int64-wraps-to-n", "four-halves", "uint64", "float", "too-many", "negative-float"])
def test_group_sizes_beyond_the_rows_are_refused_before_any_cast(group, message):
    # sizes whose int64 sum wraps around to the row count would pass a sum check, and np.repeat write out of bounds
    with pytest.raises(ValueError, match=f"^group: {message}"):
        rankcore.evaluate([1, 0, 2, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5], "map", group=group)
    with pytest.raises(ValueError, match=f"^group: {message}"):
        rankcore.metrics.per_query([1, 0, 2, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5], "map", group=group)


@pytest.mark.parametrize("group, what", [
    ([[2, 3]], r"shape \(1, 2\)"),
    ([], "an empty array"),
    (["2", "3"], "dtype <U1"),
    ([True] * 5, "dtype bool"),
    ([2.0, 2.5, 0.5], r"2\.5 at position 1"),
    ([np.nan, 5.0], "nan at position 0"),
])
def test_group_that_is_not_query_sizes_is_described_in_one_line(group, what):
    # a long or odd array is described by what is wrong with it, not by its repr over several lines
    with pytest.raises(ValueError, match=r"^group: expected a 1-D array of query sizes \(whole numbers >= 1\), "
                                         f"got {what}$"):
        rankcore.evaluate([1, 0, 2, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5], "map", group=group)


def test_a_metric_that_counts_no_query_says_how_to_count_them():
    with pytest.raises(ValueError, match=r"y: metric 'ndcg@k:2' counts none of the 2 queries: .* without a "
                                         r"relevant row \(pass empty=0 or empty=1 to count them\)"):
        rankcore.evaluate([0, 0, 0, 0], [0.1, 0.2, 0.3, 0.4], "ndcg@k:2", qid=[1, 1, 2, 2])
    assert rankcore.evaluate([0, 0, 0, 0], [0.1, 0.2, 0.3, 0.4], "ndcg@k:2,empty=1", qid=[1, 1, 2, 2]) == {
        "ndcg@k:2,empty=1": 1.0}
    with pytest.raises(ValueError, match=r"y: metric 'map' is undefined without a relevant row"):
        rankcore.evaluate([0, 0], [0.1, 0.2], "map")                 # one list, no qid


def test_single_row_and_single_grade_queries_are_counted():
    y = [2, 1, 1, 1, 0, 0, 3]
    scores = [0.5, 0.1, 0.9, 0.3, 0.2, 0.4, 0.0]
    qid = ["one-row", "same", "same", "same", "empty", "empty", "last"]
    got = per_query(y, scores, "ndcg@k:3", qid=qid)
    assert list(got.queries) == ["empty", "last", "one-row", "same"]
    np.testing.assert_array_equal(got.values, [np.nan, 1.0, 1.0, 1.0])
    assert (got.n_counted, got.n_left_out, list(got.sizes)) == (3, 1, [2, 1, 1, 3])
    assert repr(got) == "QueryValues(ndcg@k:3 1 over 3 queries, 1 left out)"


def test_query_ids_of_any_hashable_type():
    y, scores, _ = grouped(0, n_queries=4, max_size=12)
    n = len(y)
    blocks = np.arange(n) % 4
    kinds = {
        "int": blocks,
        "str": np.array(["a", "b", "c", "d"])[blocks],
        "tuple": [(int(b), "x") for b in blocks],
        "mixed": [[1, ("1",), 2.5, ("t", 2)][b] for b in blocks],
        "text": [["a", b"a", "1", b"2"][b] for b in blocks],
    }
    values = {kind: rankcore.evaluate(y, scores, LIST_METRICS, qid=q) for kind, q in kinds.items()}
    for kind in kinds:
        assert values[kind] == pytest.approx(values["int"], abs=1e-15), kind   # queries listed in another order
    # numbers beside text (1 and "1"): nearly always a join that read the ids as numbers in one place and as text in
    # another, and a Dask column's chunks would join them into one type -- refused, with an id of each kind
    with pytest.raises(TypeError, match=r"qid: query ids mix numbers and text \(1 \(int\) at row 0, '1' \(str\)"):
        rankcore.evaluate(y, scores, LIST_METRICS, qid=[[1, "1", 2.5, ("t",)][b] for b in blocks])


# --------------------------------------------------------------------------
# rows in any order
# --------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffling_rows_changes_no_metric(seed):
    y, scores, qid = grouped(seed % 1000, n_queries=15)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(y.shape[0])
    labels = (y > 1).astype(int)
    specs = LIST_METRICS + ["ndcg@k:0.5,convention=sklearn", "map:empty=0"]
    before = rankcore.evaluate(y, scores, specs, qid=qid)
    after = rankcore.evaluate(y[perm], scores[perm], specs, qid=qid[perm])
    for spec in specs:
        assert after[spec] == pytest.approx(before[spec], abs=1e-12)
        assert 0.0 <= before[spec] <= 1.0
    bipartite = ["auc", "prec@k:2", "pauc:0.5"]
    before = rankcore.evaluate(labels, scores, bipartite, qid=qid)
    after = rankcore.evaluate(labels[perm], scores[perm], bipartite, qid=qid[perm])
    assert after == pytest.approx(before, abs=1e-12)


def test_one_query_equals_the_single_list():
    y, scores, _ = grouped(3, n_queries=1, max_size=40)
    for spec in LIST_METRICS:
        assert rankcore.evaluate(y, scores, spec, qid=np.zeros(len(y)))[spec] == pytest.approx(
            rankcore.resolve("metric", spec)(y, scores), abs=1e-15)


# --------------------------------------------------------------------------
# intervals and paired tests over queries
# --------------------------------------------------------------------------


def test_intervals_over_queries_are_seeded_and_cover_the_estimate():
    y, scores, qid = grouped(5, n_queries=60)
    first = rankcore.evaluate(y, scores, LIST_METRICS, qid=qid, ci=0.95, n_boot=500, random_state=1)
    again = rankcore.evaluate(y, scores, LIST_METRICS, qid=qid, ci=0.95, n_boot=500, random_state=1)
    other = rankcore.evaluate(y, scores, LIST_METRICS, qid=qid, ci=0.95, n_boot=500, random_state=2)
    means = rankcore.evaluate(y, scores, LIST_METRICS, qid=qid)
    for spec in LIST_METRICS:
        ci = first[spec]
        assert ci.method == "bootstrap over queries" and ci.n_boot == 500
        assert ci.lower <= ci.estimate == means[spec] <= ci.upper and ci.lower < ci.upper
        assert (again[spec].lower, again[spec].upper) == (ci.lower, ci.upper)
        assert (other[spec].lower, other[spec].upper) != (ci.lower, ci.upper)
    single = confidence_interval(y, scores, "map", qid=qid, n_boot=500, random_state=1)
    assert (single.lower, single.upper, single.estimate) == (first["map"].lower, first["map"].upper, means["map"])


def test_interval_over_queries_matches_resampling_whole_queries():
    """The replicate is the metric of the data rebuilt from the drawn queries (its standard error, roughly)."""
    y, scores, qid = grouped(6, n_queries=40)
    ci = confidence_interval(y, scores, "ndcg@k:3", qid=qid, n_boot=400, random_state=0)
    rng = np.random.default_rng(0)
    names = np.unique(qid)
    naive = []
    for _ in range(400):
        drawn = rng.choice(names, size=names.shape[0])
        rows = np.concatenate([np.flatnonzero(qid == q) for q in drawn])
        copy = np.repeat(np.arange(names.shape[0]), [np.count_nonzero(qid == q) for q in drawn])
        naive.append(rankcore.evaluate(y[rows], scores[rows], "ndcg@k:3", qid=copy)["ndcg@k:3"])
    assert ci.standard_error == pytest.approx(np.std(naive, ddof=1), rel=0.25)


def test_compare_over_queries():
    y, scores, qid = grouped(7, n_queries=80)
    good = scores + 2.0 * y                                           # knows the grades
    same = compare(y, scores, scores.copy(), "ndcg@k:5", qid=qid, random_state=0, n_boot=300)
    assert (same.difference, same.lower, same.upper, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    result = compare(y, good, scores, "ndcg@k:5", qid=qid, random_state=0, n_boot=300, return_replicates=True)
    means = (rankcore.evaluate(y, good, "ndcg@k:5", qid=qid)["ndcg@k:5"],
             rankcore.evaluate(y, scores, "ndcg@k:5", qid=qid)["ndcg@k:5"])
    assert result.estimates == means and result.difference == means[0] - means[1]
    assert result.lower <= result.difference <= result.upper and result.lower > 0 and result.p_value < 1e-6
    assert result.replicates.shape == (300, 2) and result.method == "bootstrap over queries"
    again = compare(y, good, scores, "ndcg@k:5", qid=qid, random_state=0, n_boot=300)
    assert (again.lower, again.upper, again.p_value) == (result.lower, result.upper, result.p_value)
    with pytest.raises(ValueError, match=r"method: with qid the interval of metric 'auc' resamples queries"):
        compare((y > 1).astype(int), good, scores, "auc", qid=qid, method="delong")
    with pytest.raises(ValueError, match=r"method: with qid the interval of metric 'auc' resamples queries"):
        confidence_interval((y > 1).astype(int), good, "auc", qid=qid, method="delong")


def test_auc_over_queries_takes_the_query_bootstrap_by_default():
    y, scores, qid = grouped(8, n_queries=80)
    labels = (y > 1).astype(int)
    ci = confidence_interval(labels, scores + labels, "auc", qid=qid, n_boot=200, random_state=0,
                             return_replicates=True)
    assert ci.method == "bootstrap over queries" and ci.replicates.shape == (200,)
    assert ci.estimate == rankcore.evaluate(labels, scores + labels, "auc", qid=qid)["auc"]
    paired = compare(labels, scores + labels, scores, "auc", qid=qid, n_boot=200, random_state=0)
    assert paired.method == "bootstrap over queries" and paired.difference > 0


@pytest.mark.parametrize("spec", ["ndcg@k:7", "err@k:9", "prec@k:7"])
def test_k_beyond_every_query_names_the_queries_even_beyond_the_rows(spec):
    # with queries, k is judged against the queries, never against the rows taken as one list
    y, scores, qid = [1, 0, 1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 0, 0, 1, 1, 1]
    message = r"is larger than every query \(the largest has 3 rows\)"
    with pytest.raises(ValueError, match=message):
        rankcore.evaluate(y, scores, spec, qid=qid)
    with pytest.raises(ValueError, match=message):
        per_query(y, scores, spec, qid=qid)
    with pytest.raises(ValueError, match=message):
        confidence_interval(y, scores, spec, qid=qid, n_boot=100, random_state=0)


@pytest.mark.parametrize("top", ["1001", "1100", "1e308"])
def test_err_max_grade_beyond_1000_is_refused_by_name(top):
    # 2^-g_max underflowed to 0 (and beyond 1074 every stopping probability with it): ERR was 0 for any ranking
    y, scores, qid = [3.0, 0.0, 1.0, 2.0, 0.0], [0.5, 0.2, 0.1, 0.4, 0.3], [1, 1, 1, 2, 2]
    with pytest.raises(ValueError, match=r"max_grade must be a number > 0 and <= 1000, got "):
        rankcore.evaluate(y, scores, f"err@k:2,max_grade={top}", qid=qid)
    values = per_query(y, scores, "err@k:2,max_grade=1000,ties=first", qid=qid).values
    assert (values > 0).all() and np.isfinite(values).all()
    # the first query: its grade 3 on top stops with R = (2^3 - 1) / 2^1000, its grade 0 next never
    assert values[0] == pytest.approx(7 * 2.0 ** -1000, rel=1e-12)


@pytest.mark.parametrize("spec", ["prec@k:1e308", "ndcg@k:1e308", "err@k:9007199254740993", "map@k:1e20",
                                  "prec@k:100000000000000000000000000000000000000000000"])
def test_a_count_beyond_2_53_is_refused_by_name(spec):
    # such a k reached the kernels: ExactBoost's tie-break kernel raised NumPy's TypeError (isfinite of a huge int)
    y, scores, qid = [1, 0, 1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match=r"k must be a whole count >= 1 or a fraction in \(0, 1\), got .*a count "
                                         r"above 2\*\*53"):
        rankcore.evaluate(y, scores, spec, qid=qid)
    with pytest.raises(ValueError, match=r"tie_break=.*k must be .*a count above 2\*\*53"):
        rankcore.ExactBoost(tie_break="prec@k:1e308", n_runs=2, n_rounds=2).fit(
            np.arange(12.0).reshape(6, 2), [1, 0, 1, 0, 1, 0])


def test_dask_query_ids_are_computed_like_the_labels_and_scores():
    # a lazy qid was iterated into lazy scalars and refused as unhashable ids at row 0
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 3, 60).astype(float), np.round(rng.normal(size=60), 1)
    qid = np.repeat(np.arange(6), 10)[rng.permutation(60)]
    expected = rankcore.evaluate(y, s, ["ndcg@k:5", "map"], qid=qid)
    lazy = rankcore.evaluate(da.from_array(y, chunks=25), da.from_array(s, chunks=25), ["ndcg@k:5", "map"],
                             qid=da.from_array(qid, chunks=25))
    assert lazy == expected


@pytest.mark.parametrize("ids", [
    [2**63 + 1, 2**63 + 1, 2**63 + 2, -1],                            # past int64 beside a negative id
    [np.uint64(2**63 + 1), np.uint64(2**63 + 1), np.uint64(2**63 + 2), np.int64(-1)],
    [np.int64(2**62 + 1), np.int64(2**62 + 1), np.int64(2**62 + 2), np.uint64(7)],   # int64 beside uint64
])
def test_integer_ids_that_numpy_reads_as_floats_stay_apart(ids):
    # all integers, yet NumPy reads them as float64, which rounds ids 1 apart near 2^62 or 2^63 to one query
    got = per_query([1, 0, 1, 1], [1, 2, 3, 4], "ndcg@k:2", qid=ids)
    assert got.n_counted == 3
    assert sorted(int(v) for v in got.queries) == sorted({int(v) for v in ids})
    model = rankcore.boost(learner="stumps", n_iter=2).fit(np.arange(8.0).reshape(4, 2), [1, 0, 1, 0], qid=ids)
    assert model.n_queries_ == 3
