"""``score(X, y, group=sizes)``: LightGBM's query sizes in score, as ``fit`` takes them, with fit's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _query_data import graded_queries

import rankcore
from rankcore.auto import AutoRanker


def _blocks(seed):
    """(X, y, qid, sizes) with each query's rows consecutive, so that ``group=sizes`` is ``qid``."""
    X, y, qid = graded_queries(seed)
    order = np.argsort(qid, kind="stable")
    _, sizes = np.unique(qid[order], return_counts=True)
    return X[order], y[order], qid[order], sizes


@pytest.fixture(scope="module")
def model():
    X, y, qid, _ = _blocks(0)
    return rankcore.boost(learner="trees:max_leaves=4", n_iter=5, random_state=0).fit(X, y, qid=qid)


@pytest.mark.parametrize("scoring", [None, "map@k:3", "ndcg@k:5,convention=lightgbm"])
def test_score_with_group_equals_score_with_qid(scoring):
    X, y, qid, sizes = _blocks(1)
    fitted = rankcore.boost(learner="trees:max_leaves=4", n_iter=4, random_state=0, scoring=scoring)
    fitted.fit(X, y, group=sizes)
    X_test, y_test, qid_test, sizes_test = _blocks(2)
    assert fitted.score(X_test, y_test, group=sizes_test) == fitted.score(X_test, y_test, qid=qid_test)
    assert fitted.score(X_test, y_test, group=list(sizes_test)) == fitted.score(X_test, y_test, qid=qid_test)


def test_score_refuses_what_fit_refuses(model):
    X, y, qid, sizes = _blocks(3)
    fit_errors = []
    for kwargs in (dict(qid=qid, group=sizes), dict(group=sizes[:-1]), dict(group=np.r_[sizes[:-1], 0]),
                   dict(group=sizes.astype(float) + 0.5), dict(group=np.r_[sizes, 1])):
        with pytest.raises(ValueError) as fit_error:
            rankcore.boost(learner="trees:max_leaves=4", n_iter=2).fit(X, y, **kwargs)
        with pytest.raises(ValueError) as score_error:
            model.score(X, y, **kwargs)
        assert str(score_error.value) == str(fit_error.value)
        fit_errors.append(str(fit_error.value))
    assert fit_errors[0].startswith("qid, group: give one of them")


def test_score_without_queries_names_both_ways(model):
    X, y, _, _ = _blocks(3)
    with pytest.raises(ValueError, match=r"qid: this PushBoost was fitted within queries.*score\(X, y, qid=qid\) "
                                         r"or score\(X, y, group=sizes\)"):
        model.score(X, y)


def test_score_of_a_one_list_model_takes_group_per_query():
    X, y, qid, sizes = _blocks(4)
    binary = (y >= 2).astype(int)
    fitted = rankcore.boost(learner="stumps", n_iter=5, random_state=0).fit(X, binary)
    assert fitted.score(X, binary, group=sizes) == fitted.score(X, binary, qid=qid)
    assert fitted.score(X, binary, group=sizes) != fitted.score(X, binary)


def test_auto_ranker_score_takes_group():
    X, y, qid, sizes = _blocks(5)
    auto = AutoRanker(candidates=["stumps:n_iter=8"], cv=3, random_state=0, n_jobs=1, bag_folds=False)
    auto.fit(X, y, group=sizes)
    assert auto.score(X, y, group=sizes) == auto.score(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"^qid, group: give one of them"):
        auto.score(X, y, qid=qid, group=sizes)
    with pytest.raises(ValueError, match=r"^group: the query sizes sum to"):
        auto.score(X, y, group=sizes[1:])
    with pytest.raises(ValueError, match=r"or score\(X, y, group=sizes\)"):
        auto.score(X, y)
