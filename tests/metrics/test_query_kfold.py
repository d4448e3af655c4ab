"""QueryKFold keeps queries whole (directly, in cross_val_score and in GridSearchCV); the query scorer."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, cross_val_score

import rankcore
from rankcore import QueryKFold
from rankcore.metrics import make_query_scorer


def grouped(seed=0, n_queries=25):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_queries)
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    perm = rng.permutation(qid.shape[0])                              # rows of a query not contiguous
    qid = qid[perm]
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=qid.shape[0]) + 1), 0, 3)
    return X, y, qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _assert_whole(qid, train, test):
    assert not set(qid[train]) & set(qid[test])
    assert np.array_equal(np.sort(np.r_[train, test]), np.arange(qid.shape[0]))


@pytest.mark.parametrize("shuffle,random_state", [(False, None), (True, 0), (True, 7)])
def test_query_kfold_keeps_queries_whole_and_covers_every_row_once(shuffle, random_state):
    X, y, qid = grouped()
    splitter = QueryKFold(n_splits=4, shuffle=shuffle, random_state=random_state)
    folds = list(splitter.split(X, qid=qid))
    assert len(folds) == splitter.get_n_splits() == 4
    for train, test in folds:
        _assert_whole(qid, train, test)
    tests = np.concatenate([test for _, test in folds])
    assert np.array_equal(np.sort(tests), np.arange(qid.shape[0]))
    again = list(splitter.split(X, groups=qid))                       # the same folds from groups=
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
    queries_per_fold = [len(set(qid[test])) for _, test in folds]
    if shuffle:
        assert max(queries_per_fold) - min(queries_per_fold) <= 1
    else:
        rows = [test.shape[0] for _, test in folds]
        assert max(rows) - min(rows) <= 14                            # at most one query's rows apart


def test_query_kfold_shuffle_is_seeded():
    X, y, qid = grouped()
    first = [test for _, test in QueryKFold(3, shuffle=True, random_state=1).split(X, qid=qid)]
    again = [test for _, test in QueryKFold(3, shuffle=True, random_state=1).split(X, qid=qid)]
    other = [test for _, test in QueryKFold(3, shuffle=True, random_state=2).split(X, qid=qid)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_query_kfold_errors():
    X, y, qid = grouped(n_queries=3)
    with pytest.raises(ValueError, match=r"n_splits: 4 folds need at least 4 queries, got 3"):
        next(QueryKFold(4).split(X, qid=qid))
    with pytest.raises(ValueError, match=r"n_splits: expected an integer >= 2, got 1"):
        next(QueryKFold(1).split(X, qid=qid))
    with pytest.raises(ValueError, match=r"qid: QueryKFold needs the query of each row"):
        next(QueryKFold(2).split(X))
    with pytest.raises(ValueError, match=r"qid, groups: give the query of each row once"):
        next(QueryKFold(2).split(X, groups=qid, qid=qid))
    with pytest.raises(ValueError, match=r"groups: expected one query id per row \("):
        next(QueryKFold(2).split(X, groups=qid[:-1]))
    with pytest.raises(ValueError, match=r"random_state: expected None, a non-negative integer seed"):
        next(QueryKFold(2, shuffle=True, random_state=-1).split(X, qid=qid))


def test_cross_val_score_without_routing_takes_groups():
    X, y, qid = grouped()
    scores = cross_val_score(Ridge(), X, y, groups=qid, cv=QueryKFold(3))
    assert scores.shape == (3,)


def test_grid_search_with_query_kfold_never_splits_a_query(routing):
    X, y, qid = grouped(1)
    sizes = {q: int(np.count_nonzero(qid == q)) for q in np.unique(qid)}
    rows = np.arange(qid.shape[0], dtype=float)
    seen = []

    def whole_queries(y_true, y_pred, qid, row):
        # the test fold holds every row of each of its queries, and no row of another fold's query
        seen.append(set(row.astype(int)))
        for q in np.unique(qid):
            assert np.count_nonzero(qid == q) == sizes[q]
        return 0.0

    scorer = make_scorer(whole_queries).set_score_request(qid=True, row=True)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=QueryKFold(4, shuffle=True, random_state=0),
                          scoring=scorer)
    search.fit(X, y, qid=qid, row=rows)
    assert len(seen) == 8                                             # 2 candidates x 4 folds
    assert set().union(*seen[:4]) == set(range(qid.shape[0]))


def test_query_scorer_scores_each_fold_per_query(routing):
    X, y, qid = grouped(2)
    cv = QueryKFold(3)
    got = cross_val_score(Ridge(), X, y, cv=cv, scoring=make_query_scorer("ndcg@k:5"), params={"qid": qid})
    expected = []
    for train, test in cv.split(X, qid=qid):
        model = Ridge().fit(X[train], y[train])
        expected.append(rankcore.evaluate(y[test], model.predict(X[test]), "ndcg@k:5", qid=qid[test])["ndcg@k:5"])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 1e4]}, cv=cv, scoring=make_query_scorer("map")).fit(X, y, qid=qid)
    assert search.best_params_ == {"alpha": 0.1}


def _short_and_long(seed=4):
    """20 queries of 3 rows and two of 12: QueryKFold(4) leaves folds of 3-row queries alone."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(22), [3] * 20 + [12] * 2)
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.8, size=qid.shape[0]) + 1), 0, 3)
    return X, y, qid


@pytest.mark.parametrize("spec, whole", [("ndcg@k:10", "ndcg@k:{n}"), ("err@k:10", "err@k:{n}"),
                                         ("map@k:10", "map@k:{n}")])
def test_query_scorer_reads_a_fold_of_short_queries_as_a_part(routing, spec, whole):
    """A fold whose queries are all shorter than k is scored as its queries are read anywhere (whole), never
    refused: scikit-learn would make the refusal a NaN score for the fold."""
    X, y, qid = _short_and_long()
    cv = QueryKFold(4)
    labels = (y > 0).astype(int) if spec.startswith("map") else y
    got = cross_val_score(Ridge(), X, labels, cv=cv, scoring=make_query_scorer(spec), params={"qid": qid})
    expected, short_folds = [], 0
    for train, test in cv.split(X, qid=qid):
        scores = Ridge().fit(X[train], labels[train]).predict(X[test])
        longest = int(np.max(np.unique(qid[test], return_counts=True)[1]))
        short_folds += longest < 10
        metric = whole.format(n=longest) if longest < 10 else spec        # the same values: k within each query
        expected.append(rankcore.evaluate(labels[test], scores, metric, qid=qid[test])[metric])
    assert short_folds >= 2 and not np.isnan(got).any()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_query_scorer_keeps_k_as_the_denominator_of_prec_at_k_on_short_folds(routing):
    X, y, qid = _short_and_long()
    relevant = (y > 1).astype(int)
    cv = QueryKFold(4)
    got = cross_val_score(Ridge(), X, relevant, cv=cv, scoring=make_query_scorer("prec@k:10"), params={"qid": qid})
    for value, (train, test) in zip(got, cv.split(X, qid=qid)):
        scores = Ridge().fit(X[train], relevant[train]).predict(X[test])
        per_query = []
        for q in np.unique(qid[test]):                 # scores without ties: the first min(k, n_q) places
            rows = np.flatnonzero(qid[test] == q)
            top = rows[np.argsort(-scores[rows], kind="stable")[:10]]
            per_query.append(relevant[test][top].sum() / 10)
        assert value == pytest.approx(np.mean(per_query), abs=1e-15)


def test_query_scorer_errors(routing):
    X, y, qid = grouped(3)
    with pytest.raises(ValueError, match=r"qid: the query scorer of 'ndcg@k:5' received no qid"):
        make_query_scorer("ndcg@k:5")(Ridge().fit(X, y), X, y)
    with pytest.raises(ValueError, match=r"metric: 'roc' is not a single number"):
        make_query_scorer("roc")


def test_query_scorer_needs_routing():
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(RuntimeError, match=r"metadata routing is off"):
            make_query_scorer("ndcg@k:5")


def test_query_tools_docstring_examples():
    from rankcore import _query_folds
    from rankcore.metrics import _query_evaluate, _scorer

    for module in (_query_folds, _scorer, _query_evaluate):
        failures, tests = doctest.testmod(module)[:2]
        assert tests > 0 and failures == 0, module.__name__


def test_query_scorer_refuses_weights_by_name(routing):
    # A scorer asked for the weights got them as a keyword its function did not take: a TypeError that
    # scikit-learn turned into a NaN score per fold, naming no argument.
    X, y, qid = grouped(4)
    weights = np.arange(1.0, y.shape[0] + 1.0)
    scorer = make_query_scorer("ndcg@k:5").set_score_request(qid=True, sample_weight=True)
    with pytest.raises(ValueError, match=r"^sample_weight: the query scorer of 'ndcg@k:5' counts every row once"):
        cross_val_score(Ridge().set_fit_request(sample_weight=True), X, y, cv=QueryKFold(3), scoring=scorer,
                        params={"qid": qid, "sample_weight": weights}, error_score="raise")


def test_query_scorer_weights_reach_fit_alone(routing):
    # the scorer as made requests no weights: routed to fit, they leave the scores as the unweighted scorer's
    X, y, qid = grouped(5)
    weights = np.arange(1.0, y.shape[0] + 1.0)
    model = Ridge().set_fit_request(sample_weight=True).set_score_request(sample_weight=False)
    got = cross_val_score(model, X, y, cv=QueryKFold(3), scoring=make_query_scorer("ndcg@k:5"),
                          params={"qid": qid, "sample_weight": weights}, error_score="raise")
    for value, (train, test) in zip(got, QueryKFold(3).split(X, qid=qid)):
        scores = Ridge().fit(X[train], y[train], sample_weight=weights[train]).predict(X[test])
        assert value == rankcore.evaluate(y[test], scores, "ndcg@k:5", qid=qid[test])["ndcg@k:5"]


def test_query_scorer_request_replaced_says_so(routing):
    # scikit-learn's set_score_request on a scorer replaces its requests: naming only sample_weight drops qid,
    # and the refusal, which said to pass a qid the user had passed, now says to name qid=True again
    X, y, qid = grouped(6)
    scorer = make_query_scorer("ndcg@k:5").set_score_request(sample_weight=False)
    with pytest.raises(ValueError, match=r"received no qid.*replaces its requests, so name qid=True in it too"):
        cross_val_score(Ridge(), X, y, cv=QueryKFold(3), scoring=scorer, params={"qid": qid}, error_score="raise")
