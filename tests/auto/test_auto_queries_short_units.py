"""AutoRanker within queries: a count k is refused only when the data the user gave has no query reaching it.

The folds and hold-out parts are AutoRanker's cut: on a part whose queries are all shorter than the metric's k
they are read whole (the values of ``ndcg@k:<largest>``), for a metric the user named as for the default.  A k
beyond every query of the training data, or of an ``eval_set`` judged on its own, is still refused before any fit.
"""

import numpy as np
import pytest

import rankcore
from rankcore.auto import AutoRanker
from rankcore.auto._queries import PerQueryMean, query_labels
from _query_data import short_queries as _short_with_one_long

#: The advice after "choose k <= n" of a metric with peer conventions (ndcg@k, map@k; none for prec@k)
WHOLE = r"(, or pass '\S+,convention=lightgbm' to read each shorter query whole as lightgbm does \(.*\))?"

TREES = ["trees:n_iter=8,min_samples_leaf=3", "stumps:n_iter=8"]


def _auto(**params):
    return AutoRanker(**{"candidates": TREES, "random_state": 0, "n_jobs": 1, **params})


def test_the_reported_fit_chooses_by_the_named_metric():
    X, y, qid = _short_with_one_long()
    auto = AutoRanker(metric="ndcg@k:10", time_budget=20, random_state=0).fit(X, y, qid=qid)
    assert auto.metric_ == "ndcg@k:10" and 0 < auto.best_score_ <= 1
    assert np.isfinite(auto.decision_function(X)).all()
    # only one query reaches k = 10: every fold but the one holding it has queries of 2 to 5 rows (once refused)
    assert np.count_nonzero(np.bincount(qid) >= 10) == 1


@pytest.mark.parametrize("cv", [3, (3, 2), 0.3], ids=["kfold", "repeated", "holdout"])
def test_a_named_metric_scores_every_part_as_the_default_does(cv):
    """The default ndcg@k:10 reads short queries whole (``ndcg@k:<largest>``); named, it now gives the same value on
    every fold and hold-out part, bit for bit: the same leaderboard, the same choice."""
    X, y, qid = _short_with_one_long()
    named = _auto(metric="ndcg@k:10", cv=cv).fit(X, y, qid=qid)
    default = _auto(cv=cv).fit(X, y, qid=qid)
    assert named.metric_ == default.metric_ == "ndcg@k:10"
    for a, b in zip(named.leaderboard_.rows, default.leaderboard_.rows):
        assert a.name == b.name and a.status == b.status
        assert a.fold_scores == b.fold_scores and len(a.fold_scores) > 0
    assert named.best_candidate_ == default.best_candidate_
    np.testing.assert_array_equal(named.decision_function(X), default.decision_function(X))


@pytest.mark.parametrize("spec, at_largest", [("ndcg@k:10", "ndcg@k:5"), ("err@k:10", "err@k:5"),
                                              ("map@k:10", "map@k:5"), ("ndcg@k:10,gain=linear,ties=first",
                                                                        "ndcg@k:5,gain=linear,ties=first")])
def test_a_unit_of_short_queries_is_the_metric_at_its_longest_query(spec, at_largest):
    X, y, qid = _short_with_one_long(seed=3, long=0)          # every query has 2 to 5 rows
    assert np.bincount(qid).max() == 5
    labels = query_labels(y.astype(float), qid)
    scores = np.round(X[:, 0] + X[:, 1], 1)                    # ties inside queries
    unit = PerQueryMean(rankcore.resolve("metric", spec), longest=12)(labels, scores)
    expected = rankcore.evaluate(y, scores, at_largest, qid=qid)[at_largest]
    assert unit == expected
    with pytest.raises(ValueError, match=r"k = 10 is larger than every query \(the largest has 5 rows\)"):
        PerQueryMean(rankcore.resolve("metric", spec))(labels, scores)      # the user's own data: refused


def test_prec_at_k_on_a_unit_of_short_queries_keeps_k_as_the_denominator():
    X, y, qid = _short_with_one_long(seed=3, long=0)
    labels = query_labels(y.astype(float), qid)
    scores = X[:, 0]
    unit = PerQueryMean(rankcore.resolve("metric", "prec@k:10"), longest=12).values(labels, scores)
    relevant = np.bincount(qid, weights=y.astype(float))
    np.testing.assert_allclose(unit, relevant / 10, rtol=0, atol=1e-15)   # every row read: relevant ones over k
    X, y, qid = _short_with_one_long()
    assert _auto(metric="prec@k:10", cv=3).fit(X, y, qid=qid).metric_ == "prec@k:10"


@pytest.mark.parametrize("spec", ["ndcg@k:13", "prec@k:13", "map@k:20"])
def test_a_k_beyond_every_query_of_the_training_data_is_still_refused(spec):
    X, y, qid = _short_with_one_long()
    events = []
    k = spec.rpartition(":")[2]
    with pytest.raises(ValueError, match=rf"^metric '{spec}': k = {k} is larger than every query \(the largest has 12 "
                                         r"rows\), so no query is cut at k; choose k <= 12" + WHOLE + "$"):
        _auto(metric=spec).fit(X, y, qid=qid, callbacks=events.append)
    assert events == []                       # before any fit


def test_an_eval_set_is_judged_on_its_own():
    X, y, qid = _short_with_one_long()
    X_short, y_short, q_short = _short_with_one_long(seed=1, n_queries=20, long=0)
    X_long, y_long, q_long = _short_with_one_long(seed=2, n_queries=20, long=11)
    events = []
    # X has a query of 12 rows, the set none reaching 10: the set is what is scored
    with pytest.raises(ValueError, match=r"^eval_set: metric 'ndcg@k:10': k = 10 is larger than every query "
                                         r"\(the largest has 5 rows\)"):
        _auto(metric="ndcg@k:10").fit(X, y, qid=qid, eval_set=(X_short, y_short, q_short), callbacks=events.append)
    # a set the choice is not made on is judged alike, before any fit
    with pytest.raises(ValueError, match=r"^eval_set\[0\]: metric 'ndcg@k:10': k = 10 is larger than every query"):
        _auto(metric="ndcg@k:10").fit(X, y, qid=qid, eval_set=[(X_short, y_short, q_short), (X_long, y_long, q_long)],
                                      callbacks=events.append)
    assert events == []
    # a set with one query reaching k: its parts without it read their queries whole, as the default does
    named = _auto(metric="ndcg@k:10").fit(X, y, qid=qid, eval_set=(X_long, y_long, q_long), eval_names=["v"])
    default = _auto().fit(X, y, qid=qid, eval_set=(X_long, y_long, q_long), eval_names=["v"])
    assert [r.fold_scores for r in named.leaderboard_.rows] == [r.fold_scores for r in default.leaderboard_.rows]
    whole = rankcore.evaluate(y_long, named.decision_function(X_long), "ndcg@k:10", qid=q_long)["ndcg@k:10"]
    assert named.evals_result_["v"]["ndcg@k:10"][named.best_candidate_] == pytest.approx(whole, rel=1e-12)
    # X without a query reaching k, the set with one: the set is the data the metric judges
    X_s, y_s, q_s = _short_with_one_long(long=0)
    assert _auto(metric="ndcg@k:10").fit(X_s, y_s, qid=q_s, eval_set=(X_long, y_long, q_long)).metric_ == "ndcg@k:10"


def test_an_eval_metric_is_judged_on_each_set_as_a_whole():
    X, y, qid = _short_with_one_long()
    X_short, y_short, q_short = _short_with_one_long(seed=1, n_queries=20, long=0)
    X_long, y_long, q_long = _short_with_one_long(seed=2, n_queries=20, long=11)
    with pytest.raises(ValueError, match=r"^eval_metric: the metric 'ndcg@k:10' cannot score eval_set\[0\]"):
        _auto().fit(X, y, qid=qid, eval_set=[(X_short, y_short, q_short), (X_long, y_long, q_long)],
                    eval_metric="ndcg@k:10")
    auto = _auto().fit(X, y, qid=qid, eval_set=(X_long, y_long, q_long), eval_names=["v"], eval_metric="prec@k:10")
    assert set(auto.evals_result_["v"]) == {"ndcg@k:10", "prec@k:10"}


def test_score_on_the_users_data_refuses_a_k_beyond_every_query():
    X, y, qid = _short_with_one_long()
    auto = _auto(metric="ndcg@k:10", cv=3).fit(X, y, qid=qid)
    assert 0 < auto.score(X, y, qid=qid) <= 1
    X_short, y_short, q_short = _short_with_one_long(seed=1, n_queries=20, long=0)
    with pytest.raises(ValueError, match=r"k = 10 is larger than every query \(the largest has 5 rows\)"):
        auto.score(X_short, y_short, qid=q_short)


# --- the hostile re-check: a metric plugin that checks k the old way (against a part's own queries) ---


class _OwnLongestHits(rankcore.Metric):
    """A graded plugin metric of the old way: its ``query_values`` refuses a count k above the longest query of the
    rows it is given (``queries.sizes.max()``), not of the data they were cut from (``queries.longest``)."""

    name = "own-hits@k"
    task = "graded"
    parameters = (rankcore.Parameter("k", int, minimum=1, doc="places read"),)
    greater_is_better = True
    bounded = True
    requires_both_classes = False

    def compute(self, y, scores):
        return float(np.mean(y[np.argsort(-scores, kind="stable")][: self.k] > 0))

    def query_values(self, y, scores, queries):
        largest = int(queries.sizes.max())
        if self.k > largest:
            raise ValueError(f"metric {self.spec!r}: k = {self.k} is larger than every query (the largest has "
                             f"{largest} rows)")
        return np.array([self.compute(y[queries.codes == q], scores[queries.codes == q])
                         for q in range(queries.n_queries)])


class _Plugin:
    rankcore_register_metrics = rankcore.hookimpl(lambda self: [_OwnLongestHits])


@pytest.fixture()
def own_hits(monkeypatch):
    from rankcore.auto import _executors
    from rankcore.registry import register_plugin, unregister_plugin

    tasks = []
    run_task = _executors.run_task
    monkeypatch.setattr(_executors, "run_task", lambda *a, **k: tasks.append(1) or run_task(*a, **k))
    register_plugin(_Plugin(), name="own-hits-test")
    yield tasks
    unregister_plugin("own-hits-test")


@pytest.mark.parametrize("cv, place", [(3, r"fold \d of repeat 1 of 3-fold cross-validation over whole queries"),
                                       (0.3, r"part \d of the hold-out of \d+ rows in whole queries")])
def test_an_old_way_plugin_metric_is_refused_on_a_part_before_any_fit(own_hits, cv, place):
    """Such a plugin refuses a fold of short queries: before any fit, naming the part (as before the parts read
    short queries whole), not after fits with a longest query the data does not have."""
    X, y, qid = _short_with_one_long()
    with pytest.raises(ValueError, match=rf"^metric 'own-hits@k:10' cannot be computed on {place}, a part "
                                         r"AutoRanker cut from the data: metric 'own-hits@k:10': k = 10 is larger "
                                         r"than every query \(the largest has [2-5] rows\)\. A metric plugin should "
                                         r"refuse a count k only beyond every query of the data it was cut from"):
        _auto(metric="own-hits@k:10", cv=cv).fit(X, y, qid=qid)
    assert own_hits == []                                     # no candidate was fitted
    # a k every part reaches: fitted and scored as any metric
    assert _auto(metric="own-hits@k:2", cv=cv).fit(X, y, qid=qid).metric_ == "own-hits@k:2"
    assert own_hits != []


def test_an_old_way_plugin_metric_is_refused_on_a_part_of_the_eval_set_before_any_fit(own_hits):
    X, y, qid = _short_with_one_long()
    X_long, y_long, q_long = _short_with_one_long(seed=2, n_queries=20, long=11)
    with pytest.raises(ValueError, match=r"^metric 'own-hits@k:10' cannot be computed on part \d of the eval_set "
                                         r"'v' \(\d+ rows in whole queries\), a part AutoRanker cut"):
        _auto(metric="own-hits@k:10").fit(X, y, qid=qid, eval_set=(X_long, y_long, q_long), eval_names=["v"])
    assert own_hits == []


def test_the_check_binds_each_part_once_for_the_search_too(monkeypatch):
    """The check before the fits reads each part as the search scores it: the search reuses those bindings, so a
    named metric binds the whole labels once and each of the 3 x 2 folds once, whatever the candidates."""
    from rankcore.metrics import NDCG

    bound = []
    bind = NDCG.bind_queries
    monkeypatch.setattr(NDCG, "bind_queries", lambda self, y, queries, **k: bound.append(y.shape[0]) or
                        bind(self, y, queries, **k))
    X, y, qid = _short_with_one_long()
    _auto(metric="ndcg@k:10", cv=(3, 2), blend=False, bag_folds=False).fit(X, y, qid=qid)
    assert len(bound) == 1 + 6 and bound[0] == y.shape[0]
