"""A nested component value a component refuses (``learner__max_leaves=1``) is refused by ``fit``, not ``set_params``.

scikit-learn's searches call ``set_params`` outside the guard that turns a failing candidate into ``error_score``:
an error there ended the whole search, where the same value in a spec string (``"trees:max_leaves=1"``) only
failed its candidate.  A pruning callback (Optuna's ``TrialPruned``, here a plain exception) ends a per-query fit
with its own error and leaves the estimator's previous model.
"""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import rankcore
from rankcore import QueryKFold, SpecError
from rankcore.metrics import make_query_scorer


def _queries(n_queries=30, size=8, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), size)
    X = rng.normal(size=(qid.size, 4))
    grade = np.clip(np.round(X[:, 0] + rng.normal(scale=0.7, size=qid.size) + 1), 0, 3)
    return X, grade, qid


def _model():
    return rankcore.boost(learner=rankcore.resolve("learner", "trees:max_leaves=4"), n_iter=3, random_state=0)


def test_set_params_keeps_a_refused_value_and_fit_refuses_it_by_its_nested_name():
    X, grade, qid = _queries()
    model = _model().set_params(learner__max_leaves=1)          # no error here: scikit-learn's convention
    assert model.get_params()["learner__max_leaves"] == 1
    assert clone(model).get_params()["learner__max_leaves"] == 1
    with pytest.raises(SpecError, match=r"^learner__max_leaves=1: learner 'trees': max_leaves must be an integer"):
        model.fit(X, grade, qid=qid)
    assert not hasattr(model, "rankers_")
    # a later valid value builds the component again, with the other values kept
    model.set_params(learner__max_leaves=5, learner__l2=2.0)
    assert model.learner == rankcore.resolve("learner", "trees:max_leaves=5,l2=2")
    assert model.fit(X, grade, qid=qid).n_iter_ == 3


def test_a_search_over_nested_values_scores_a_refused_one_as_error_score():
    X, grade, qid = _queries()
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")     # scikit-learn's FitFailedWarning and non-finite score warning
        search = GridSearchCV(_model(), {"learner__max_leaves": [1, 3]}, cv=QueryKFold(3),
                              scoring=make_query_scorer("ndcg@k:5"), error_score=np.nan)
        search.fit(X, grade, qid=qid)
    scores = search.cv_results_["mean_test_score"]
    assert np.isnan(scores[0]) and np.isfinite(scores[1])
    assert search.best_params_ == {"learner__max_leaves": 3}
    assert search.best_estimator_.learner == rankcore.resolve("learner", "trees:max_leaves=3")


class _Pruned(Exception):
    """Stands for ``optuna.TrialPruned`` (an ``Exception``): what a pruning callback raises."""


def test_a_pruning_callback_ends_a_per_query_fit_with_its_own_error_and_keeps_the_previous_model():
    X, grade, qid = _queries()
    X_val, grade_val, qid_val = _queries(10, seed=1)
    model = rankcore.boost(learner="trees", n_iter=4, scoring="ndcg@k:5", random_state=0)
    model.fit(X, grade, qid=qid)
    before = model.decision_function(X_val)
    reported = []

    def prune(info):
        reported.append((info.iteration, info.validation_score))
        if info.iteration == 3:
            raise _Pruned

    with pytest.raises(_Pruned) as caught:
        model.set_params(n_iter=10).fit(X, grade, qid=qid, eval_set=(X_val, grade_val, qid_val), callbacks=[prune])
    assert "after iteration 3; the fit was abandoned" in caught.value.__notes__[0]
    assert [it for it, _ in reported] == [1, 2, 3] and all(0 <= s <= 1 for _, s in reported)
    assert model.n_iter_ == 4 and np.array_equal(model.decision_function(X_val), before)
    # the values reported are the watched curve's, as evals_result_ records it for a fit that runs on
    full = rankcore.boost(learner="trees", n_iter=3, scoring="ndcg@k:5", random_state=0)
    full.fit(X, grade, qid=qid, eval_set=(X_val, grade_val, qid_val))
    assert np.allclose([s for _, s in reported], full.evals_result_["validation_0"]["ndcg@k:5"])
