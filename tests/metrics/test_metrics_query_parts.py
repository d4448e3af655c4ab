"""``Queries.part_of``: a part of data cut by someone else (a fold, a hold-out of whole queries) is judged by the
data it was cut from.  A count k reaching a query of the whole data is refused on no part; a part whose queries are
all shorter than k keeps each query's value (the list metrics read it whole: the values of k = its longest query;
``prec@k`` keeps k as the denominator); a k beyond every query of the whole data is still refused."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics import Queries, check_qid

#: The advice after "choose k <= n" of a metric with peer conventions (ndcg@k, map@k; none for prec@k)
WHOLE = r"(, or pass '\S+,convention=lightgbm' to read each shorter query whole as lightgbm does \(.*\))?"

LIST_SPECS = ["ndcg@k:10", "err@k:10", "map@k:10", "ndcg@k:10,ties=first,gain=linear", "map@k:10,denominator=relevant"]


def _short_part(seed, n_queries=6, low=2, high=6):
    """(grades, scores with ties, qid) of queries of ``low``..``high - 1`` rows, one with no relevant row."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(low, high, n_queries))
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    y[qid == 1] = 0.0
    scores = np.round(rng.normal(size=qid.shape[0]), 1)           # ties inside queries
    return y, scores, qid


def _values(spec, y, scores, queries):
    return rankcore.resolve("metric", spec).query_values(y, scores, queries)


@pytest.mark.parametrize("spec", LIST_SPECS)
@pytest.mark.parametrize("seed", range(4))
def test_a_part_of_short_queries_is_the_metric_at_its_longest_query(spec, seed):
    y, scores, qid = _short_part(seed)
    queries = check_qid(qid, qid.shape[0])
    largest = int(queries.sizes.max())
    with pytest.raises(ValueError, match=r"k = 10 is larger than every query"):
        _values(spec, y, scores, queries)                     # the part taken as the whole data: refused
    part = _values(spec, y, scores, queries.part_of(12))
    at_largest = _values(spec.replace("@k:10", f"@k:{largest}"), y, scores, queries)
    np.testing.assert_array_equal(part, at_largest)           # bit for bit, NaN where a query is left out
    assert np.isnan(part[1]) and np.isfinite(np.delete(part, 1)).all()


@pytest.mark.parametrize("spec", LIST_SPECS + ["prec@k:10"])
@pytest.mark.parametrize("seed", range(4))
def test_each_short_query_keeps_the_value_it_has_beside_a_long_query(spec, seed):
    """The value of a short query does not depend on whether a query reaching k is scored with it."""
    y, scores, qid = _short_part(seed)
    if spec.startswith("prec"):
        y = (y > 1).astype(float)
    rng = np.random.default_rng(100 + seed)
    long_y, long_s = rng.integers(0, 2, 12).astype(float), rng.normal(size=12)
    with_long = _values(spec, np.concatenate([y, long_y]), np.concatenate([scores, long_s]),
                        check_qid(np.concatenate([qid, np.full(12, 99)]), qid.shape[0] + 12))
    alone = _values(spec, y, scores, check_qid(qid, qid.shape[0]).part_of(12))
    np.testing.assert_array_equal(alone, with_long[:-1])


def test_prec_at_k_keeps_k_as_the_denominator_on_a_short_part():
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    scores = np.array([0.9, 0.1, 0.8, 0.7, 0.2])
    queries = check_qid(np.array([0, 0, 1, 1, 1]), 5).part_of(12)
    np.testing.assert_array_equal(_values("prec@k:10", y, scores, queries), [1 / 10, 2 / 10])


@pytest.mark.parametrize("spec", ["ndcg@k:13", "err@k:13", "map@k:13", "prec@k:13"])
def test_a_k_beyond_the_whole_data_is_refused_on_a_part(spec):
    y, scores, qid = _short_part(0)
    y = (y > 1).astype(float) if spec.startswith("prec") else y
    with pytest.raises(ValueError, match=rf"^metric '{spec}': k = 13 is larger than every query \(the largest has 12 "
                                         r"rows\), so no query is cut at k; choose k <= 12" + WHOLE + "$"):
        _values(spec, y, scores, check_qid(qid, qid.shape[0]).part_of(12))


def test_the_longest_query_of_the_judged_data():
    queries = check_qid(np.array([0, 0, 1, 1, 1]), 5)
    assert queries.whole_longest == 0 and queries.longest == 3
    assert queries.part_of(12).longest == 12
    assert queries.part_of(2).longest == 3              # a part never judges its own queries shorter
    part = queries.part_of(12)
    assert part.labels is queries.labels and part.codes is queries.codes and part.sizes is queries.sizes
    assert Queries.single(4).longest == 4


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 12), st.integers(0, 5))
def test_marking_a_part_never_changes_a_value(seed, k, extra):
    """Where the metric computes on the part's queries alone, the mark changes nothing; above their longest (and
    within the whole data's) it reads them whole; above the whole data's it refuses."""
    y, scores, qid = _short_part(seed, n_queries=5, low=1, high=9)
    queries = check_qid(qid, qid.shape[0])
    largest = int(queries.sizes.max())
    part = queries.part_of(largest + extra)
    for name in ("ndcg@k", "err@k", "map@k"):
        spec = f"{name}:{k}"
        if k > largest + extra:
            with pytest.raises(ValueError, match=rf"k = {k} is larger than every query \(the largest has "
                                                 rf"{largest + extra} rows\)"):
                _values(spec, y, scores, part)
            continue
        expected = _values(spec if k <= largest else f"{name}:{largest}", y, scores, queries)
        np.testing.assert_array_equal(_values(spec, y, scores, part), expected)
