"""Push estimators fitted within queries (qid / group): learners, shuffles, grades, counts, qid=None unchanged."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.metrics import per_query

LEARNERS = {
    "stumps": "stumps",
    "trees": "trees:max_leaves=4,min_samples_leaf=3,subsample=1",
    "oblivious": "trees:growth=oblivious,max_depth=2,min_samples_leaf=3,subsample=1",
}


def _model(learner, **params):
    return rankcore.boost(learner=LEARNERS[learner], n_iter=12, random_state=0, n_jobs=1, **params)


@pytest.mark.parametrize("learner", LEARNERS)
def test_push_queries_beats_a_random_ranking_on_new_queries(learner):
    X, y, qid = graded_queries(0)
    X_test, y_test, qid_test = graded_queries(1)
    model = _model(learner).fit(X, y, qid=qid)
    got = per_query(y_test, model.decision_function(X_test), "ndcg@k:5", qid=qid_test).mean
    rng = np.random.default_rng(0)
    random = np.mean([per_query(y_test, rng.normal(size=y_test.shape[0]), "ndcg@k:5", qid=qid_test).mean
                      for _ in range(20)])
    assert got > random + 0.1
    assert model.score(X_test, y_test, qid=qid_test) == pytest.approx(
        per_query(y_test, model.decision_function(X_test), "ndcg@k:10", qid=qid_test).mean, abs=1e-12)


@pytest.mark.parametrize("learner", LEARNERS)
def test_push_queries_same_model_when_rows_are_shuffled(learner):
    X, y, qid = graded_queries(2)
    reference = _model(learner).fit(X, y, qid=qid).decision_function(X)
    for seed in range(2):
        perm = np.random.default_rng(seed).permutation(y.shape[0])
        shuffled = _model(learner).fit(X[perm], y[perm], qid=qid[perm])
        np.testing.assert_allclose(shuffled.decision_function(X), reference, rtol=0, atol=1e-9)


def test_push_queries_default_trees_same_model_when_queries_are_reordered():
    """Row sampling (subsample < 1) draws per row of the query-sorted data: moving whole queries changes nothing."""
    X, y, qid = graded_queries(3)
    grouped = np.argsort(qid, kind="stable")
    first = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X[grouped], y[grouped], qid=qid[grouped])
    rank = {q: r for r, q in enumerate(np.random.default_rng(0).permutation(np.unique(qid)))}
    moved = np.argsort([rank[q] for q in qid], kind="stable")
    second = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X[moved], y[moved], qid=qid[moved])
    np.testing.assert_allclose(second.decision_function(X), first.decision_function(X), rtol=0, atol=1e-9)


def test_push_queries_group_sizes_fit_the_same_model_as_qid():
    X, y, qid = graded_queries(4)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    _, sizes = np.unique(qid, return_counts=True)
    by_qid = _model("trees").fit(X, y, qid=qid)
    by_group = _model("trees").fit(X, y, group=sizes)
    np.testing.assert_array_equal(by_group.decision_function(X), by_qid.decision_function(X))


def test_push_queries_counts_queries_without_pairs_and_reports_them(capsys):
    X, y, qid = graded_queries(5)
    model = _model("stumps", verbose=1).fit(X, y, qid=qid)
    assert model.ranks_within_queries_ and model.task_ == "graded"
    assert model.n_queries_ == 24 and model.n_queries_without_pairs_ == 2      # q00 one grade, q01 all zero
    assert not hasattr(model, "classes_")
    assert "ranking within 24 queries (2 with a single grade: no pair to order)" in capsys.readouterr().out


@pytest.mark.parametrize("objective", ["lambdarank", "yetirank"])
def test_the_verbose_table_shows_a_dash_for_an_objective_without_a_value(capsys, objective):
    # gradients only: their value is NaN, which the table printed as "nan" on every line
    X, y, qid = graded_queries(5)
    rankcore.boost(learner="trees", objective=objective, n_iter=4, verbose=2, random_state=0).fit(X, y, qid=qid)
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.split() and line.split()[0].isdigit()]
    assert len(rows) == 4 and all(row[1] == "-" for row in rows), lines
    assert "nan" not in "\n".join(lines).lower()


def test_push_queries_float_grades_without_a_cap():
    """Grades are any numbers >= 0: large grades and fractions, ordered by value within each query."""
    X, y, qid = graded_queries(6)
    unweighted = "push:exp,identity"
    scaled = _model("trees", objective=unweighted).fit(X, 40.0 * y + 0.25, qid=qid)   # grades up to 120.25
    plain = _model("trees", objective=unweighted).fit(X, y, qid=qid)
    # the push without gain weights reads only the order of the grades within a query: the same pairs, the same model
    np.testing.assert_allclose(scaled.decision_function(X), plain.decision_function(X), rtol=0, atol=1e-9)
    # the default weighs each pair by its gain difference 2^y_i - 2^y_k (and adds QueryRMSE, query_rmse=2, the
    # spec's last field): the grades' values count
    halved, default = _model("trees").fit(X, y / 2, qid=qid), _model("trees").fit(X, y, qid=qid)
    assert default.objective_spec_ == "push:exp,identity,true,none,0,false,2"
    assert not np.allclose(halved.decision_function(X), default.decision_function(X))


def test_push_queries_the_per_query_objective_is_the_estimators_loss_and_price():
    X, y, qid = graded_queries(7)
    for estimator, spec in ((rankcore.PNormPush(p=8, n_iter=3), "push:exp,pow:8"),
                            (rankcore.RankBoost(n_iter=3), "push"),
                            # built from loss and price, the push within queries weighs pairs by their gains and
                            # adds QueryRMSE (query_rmse=2)
                            (rankcore.boost(loss="logistic", price="pow:2", n_iter=3),
                             "push:logistic,pow:2,true,none,0,false,2"),
                            (rankcore.boost(objective="push:logistic,pow:2", n_iter=3), "push:logistic,pow:2")):
        model = estimator.fit(X, y, qid=qid)
        assert model.objective_spec_ == spec and model.ranks_within_queries_


def test_push_queries_qid_none_is_the_single_list_fit():
    X, y, _ = graded_queries(8)
    labels = (y > 1).astype(int)
    plain = _model("trees").fit(X, labels)
    explicit = _model("trees").fit(X, labels, qid=None, group=None)
    np.testing.assert_array_equal(explicit.decision_function(X), plain.decision_function(X))
    assert not explicit.ranks_within_queries_ and not hasattr(explicit, "n_queries_")
    assert list(explicit.classes_) == [0, 1]


def test_push_queries_one_query_of_100000_rows_fits():
    """The exponential push per query costs O(rows + levels) per evaluation: a long query is no special case."""
    rng = np.random.default_rng(0)
    n = 100_000
    X = rng.normal(size=(n, 2))
    y = np.clip(np.round(X[:, 0] + 1), 0, 2)
    model = rankcore.boost(learner="stumps", n_iter=1, random_state=0, early_stopping=False).fit(
        X, y, qid=np.zeros(n, dtype=int))
    assert model.n_queries_ == 1 and model.n_iter_ == 1
    assert np.all(np.diff(model.objective_values_) < 0)


def test_push_queries_integer_weights_are_repeated_rows():
    X, y, qid = graded_queries(9, n_queries=10)
    counts = np.random.default_rng(0).integers(1, 4, y.shape[0])
    rows = np.repeat(np.arange(y.shape[0]), counts)
    weighted = _model("stumps").fit(X, y, counts.astype(float), qid=qid)
    repeated = _model("stumps").fit(X[rows], y[rows], qid=qid[rows])
    np.testing.assert_allclose(weighted.objective_values_, repeated.objective_values_, rtol=1e-12)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=0, atol=1e-9)


def test_push_queries_objective_without_curvature_searches_lines_with_the_default_trees():
    # the per-query trees take Newton steps by default; the hinge has no curvature, so they search lines instead
    # (refused before, with a message about a line_search the user never set)
    X, y, qid = graded_queries(3)
    model = rankcore.boost(learner="trees", objective="push:hinge,identity", n_iter=5, random_state=0)
    model.fit(X, y, qid=qid)
    assert model.n_iter_ == 5 and np.isfinite(model.decision_function(X)).all()
    explicit = rankcore.boost(learner="trees:line_search=false", objective="push:hinge,identity", n_iter=5)
    with pytest.raises(ValueError, match="line_search=false takes each tree's Newton step"):
        explicit.fit(X, y, qid=qid)
