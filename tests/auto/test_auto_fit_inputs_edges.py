"""AutoRanker.fit's init_score and eval_set at their edges: sets without pairs, exports and model files of models
fitted from initial scores, DaskAutoRanker's refusals."""

import warnings

import numpy as np
import pytest

from rankcore import AutoRanker
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

from _model_files import resign
from _query_data import graded_queries


def _data(n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.7).astype(int)
    return X, y


@pytest.mark.parametrize("pairless", ["one grade", "single rows"])
def test_eval_set_within_queries_without_a_pair_is_refused(pairless):
    """Every query of one grade scores every ranking alike (nDCG 1): the choice would be a silent tie."""
    X, y, qid = graded_queries(seed=2, n_queries=20)
    X_val, y_val, qid_val = graded_queries(seed=3, n_queries=6)
    if pairless == "one grade":
        y_val = np.full_like(y_val, 2.0)
    else:
        qid_val = np.arange(y_val.shape[0])
    with pytest.raises(ValueError, match="eval_set: no query of the set holds two grades"):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
    # one query with two grades is enough
    y_val[:2], qid_val[:2] = [0.0, 1.0], -1
    model = AutoRanker(candidates=["trees:n_iter=5"], random_state=0, n_jobs=1).fit(
        X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
    assert model.best_candidate_ == "trees:n_iter=5"


@pytest.mark.parametrize("method", ["to_lightgbm", "to_xgboost_json", "to_xgboost_model"])
def test_export_of_a_model_fitted_from_init_score_warns_it_holds_the_correction_alone(method):
    X, y = _data()
    model = AutoRanker(candidates=["trees:n_iter=5"], random_state=0, n_jobs=1).fit(X, y, init_score=X[:, 1])
    with pytest.warns(UserWarning, match=rf"AutoRanker.{method}: the model was fitted from initial scores"):
        getattr(model, method)()
    plain = AutoRanker(candidates=["trees:n_iter=5"], bag_folds=False, random_state=0, n_jobs=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(plain, method)()


def test_model_file_keeps_evals_result_and_from_init_score():
    X, y = _data()
    X_val, y_val = _data(n=120, seed=1)
    model = AutoRanker(candidates=["trees:n_iter=5", "stumps:n_iter=5"], random_state=0, n_jobs=1).fit(
        X, y, init_score=X[:, 1], eval_set=[(X_val, y_val), (X, y)], eval_names=["valid", "train"],
        eval_init_score=[X_val[:, 1], None], eval_metric="auc")
    saved = model_to_dict(model)
    loaded = model_from_dict(resign(saved))
    assert loaded.from_init_score_ is True
    assert loaded.evals_result_ == model.evals_result_ and list(loaded.evals_result_) == ["valid", "train"]
    np.testing.assert_array_equal(loaded.decision_function(X_val), model.decision_function(X_val))
    assert loaded.score(X_val, y_val, init_score=X_val[:, 1]) == model.score(X_val, y_val, init_score=X_val[:, 1])
    saved["state"]["evals_result"] = {"valid": {"auc": {"trees:n_iter=5": "high"}}}
    with pytest.raises(ModelFormatError, match=r"evals_result\['valid'\]\['auc'\] must map candidate specs to numbers"):
        model_from_dict(resign(saved))
    plain = model_from_dict(model_to_dict(AutoRanker(candidates=["trees:n_iter=5"], random_state=0, n_jobs=1).fit(
        X, y)))
    assert not hasattr(plain, "evals_result_") and not hasattr(plain, "from_init_score_")


def test_evals_result_names_lightgbm_keys_as_the_push_estimators_do_fitted_and_loaded():
    # the push estimators' evals_result_ answers "valid_0" with the name meant; AutoRanker's was a plain dict, whose
    # KeyError named only the key
    X, y = _data()
    X_val, y_val = _data(n=120, seed=1)
    model = AutoRanker(candidates=["trees:n_iter=5"], random_state=0, n_jobs=1).fit(X, y, eval_set=(X_val, y_val))
    loaded = model_from_dict(resign(model_to_dict(model)))
    for evals in (model.evals_result_, loaded.evals_result_):
        with pytest.raises(KeyError, match=r"LightGBM's valid_0 is validation_0 here"):
            evals["valid_0"]
        with pytest.raises(KeyError, match=r"'ndcg@10': not among evals_result_'s keys here \('pauc:0.1'\); the "
                                           r"curves are keyed by metric spec"):
            evals["validation_0"]["ndcg@10"]
        assert evals == {"validation_0": {"pauc:0.1": dict(evals["validation_0"]["pauc:0.1"])}}
