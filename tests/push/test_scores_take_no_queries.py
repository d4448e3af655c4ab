"""``decision_function(X, qid=...)``: a TypeError saying that the scores do not depend on the query and how to rank
each query's rows, not Python's bare "unexpected keyword argument" (every estimator, and AutoRanker)."""

import inspect

import numpy as np
import pytest

import rankcore
from rankcore import AutoRanker, ExactBoost, KernelRanker, PerceptronAtK, PushBoost, SGDAtK

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
QID = np.repeat(np.arange(6), 10)
GRADE = np.clip(np.round(X[:, 0] + RNG.normal(scale=0.5, size=60) + 1), 0, 2)
LABEL = (GRADE > 1).astype(int)


def _fitted(kind):
    if kind == "push":
        return rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(X, GRADE, qid=QID)
    if kind == "auto":
        return AutoRanker(candidates=["trees:n_iter=3"], cv=2, random_state=0).fit(X, GRADE, qid=QID)
    one_list = {"exactboost": ExactBoost(n_runs=2, n_rounds=2, random_state=0), "kernel": KernelRanker(),
                "sgd": SGDAtK(random_state=0), "perceptron": PerceptronAtK(random_state=0)}
    return one_list[kind].fit(X, LABEL)


@pytest.mark.parametrize("kind", ["push", "auto", "exactboost", "kernel", "sgd", "perceptron"])
@pytest.mark.parametrize("name", ["qid", "group"])
def test_scores_refuse_query_ids_saying_how_to_rank_each_query(kind, name):
    # before: "decision_function() got an unexpected keyword argument 'qid'"
    model = _fitted(kind)
    given = QID if name == "qid" else [10] * 6
    with pytest.raises(TypeError, match=rf"^{name}: {type(model).__name__}\.decision_function takes no {name}: a "
                                        r"row's score does not depend on its query .* np\.lexsort\(\(-scores, qid\)\)"
                                        r".* rankcore score MODEL DATA --qid COLUMN --top K"):
        model.decision_function(X, **{name: given})
    # the recipe the message gives ranks each query's rows by the scores
    scores = model.decision_function(X)
    order = np.lexsort((-scores, QID))
    assert np.array_equal(QID[order], np.sort(QID))
    for q in np.unique(QID):
        ranked = scores[order][QID[order] == q]
        assert np.all(np.diff(ranked) <= 0)
    # no qid in the signature: scikit-learn's metadata routing offers to route none
    assert "qid" not in inspect.signature(type(model).decision_function).parameters


def test_group_sizes_are_said_as_query_ids():
    with pytest.raises(TypeError, match=r"qid = np\.repeat\(np\.arange\(len\(group\)\), group\)"):
        _fitted("push").decision_function(X, group=[10] * 6)


def test_predict_says_the_scores_need_no_query():
    # LightGBM's LGBMRanker.predict(X) is the habit: the missing method says where the scores are and that no qid
    with pytest.raises(AttributeError, match=r"decision_function\(X\) \(higher is ranked first; no qid: a row's "
                                             r"score does not depend on its query\)"):
        PushBoost().predict(X, qid=QID)


@pytest.mark.parametrize("kind", ["exactboost", "kernel", "sgd", "perceptron"])
def test_score_of_a_one_list_ranker_says_where_a_metric_within_queries_is(kind):
    # before: "score() got an unexpected keyword argument 'qid'"
    model = _fitted(kind)
    with pytest.raises(TypeError, match=rf"^qid: {type(model).__name__}\.score takes no qid: .* ranks one list .*"
                                        r"rankcore\.evaluate\(y, model\.decision_function\(X\), \['ndcg@k:10'\], "
                                        r"qid=qid\)"):
        model.score(X, LABEL, qid=QID)
    # the recipe runs
    assert 0 <= rankcore.evaluate(GRADE, model.decision_function(X), ["ndcg@k:10"], qid=QID)["ndcg@k:10"] <= 1
    assert "qid" not in inspect.signature(type(model).score).parameters
