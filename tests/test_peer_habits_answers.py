"""LightGBM's and XGBoost's habits on every estimator: query ids given to an explaining method, and the fitted
attributes (evals_result_, best_iteration_, best_score_, feature_importances_, n_features_in_) a model lacks."""

import numpy as np
import pytest

import rankcore

EXPLAINING = ("apply", "feature_contributions", "feature_interactions")
ESTIMATORS = [rankcore.PushBoost, rankcore.PNormPush, rankcore.RankBoost, rankcore.ExactBoost, rankcore.AutoRanker,
              rankcore.KernelRanker, rankcore.PerceptronAtK, rankcore.SGDAtK]


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if any(callable(getattr(c, m, None)) for m in EXPLAINING)])
@pytest.mark.parametrize("name", ["qid", "group"])
def test_query_ids_given_to_an_explaining_method_are_refused_by_name(cls, name):
    """Before: Python's bare "got an unexpected keyword argument 'qid'"."""
    model = cls()
    for method in (m for m in EXPLAINING if callable(getattr(cls, m, None))):
        with pytest.raises(TypeError, match=rf"^{name}: {cls.__name__}\.{method} takes no {name}: a row's .* do "
                                            r"not depend on its query.*X\[np\.isin\(qid, wanted\)\]"):
            getattr(model, method)(np.zeros((2, 3)), **{name: [0, 0]})


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    return X, (X[:, 0] + rng.normal(size=80) > 0).astype(int)


def _missing(model, name) -> str:
    with pytest.raises(AttributeError) as info:
        getattr(model, name)
    return str(info.value)


@pytest.mark.parametrize("name", ["evals_result_", "best_iteration_", "best_score_"])
def test_an_estimator_of_one_validation_curve_says_where_it_is(rows, name):
    """Before: ExactBoost's evals_result_ was "'ExactBoost' object has no attribute 'evals_result_'"."""
    model = rankcore.ExactBoost().fit(*rows)
    assert _missing(model, name) == (f"ExactBoost has no {name}: ExactBoost records one validation curve, "
                                     f"validation_scores_ (fit(X, y, eval_set=(X_val, y_val)): the metric after "
                                     f"each iteration), and no {name}")


def test_a_push_fit_without_eval_set_says_what_records_the_curves(rows):
    model = rankcore.PushBoost(n_iter=2).fit(*rows)
    assert "recorded by a fit given eval_set=(X_val, y_val)" in _missing(model, "evals_result_")
    assert "early_stopping=True's held-out rows" in _missing(model, "best_iteration_")


def test_an_estimator_without_curves_or_gains_says_so(rows):
    model = rankcore.KernelRanker().fit(*rows)
    assert _missing(model, "evals_result_").endswith("has no counterpart in KernelRanker (it records no "
                                                     "validation curve)")
    assert "rankcore.permutation_importance(model, X, y)" in _missing(model, "feature_importances_")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_an_unfitted_estimator_says_it_is_not_fitted(cls):
    assert _missing(cls(), "n_features_in_") == f"{cls.__name__} has no n_features_in_: {cls.__name__} is not " \
                                                "fitted yet: call fit(X, y) first"
    assert not hasattr(cls(), "n_features_in_")        # scikit-learn's test of a fitted estimator is unchanged


PEER_FITTED = ("evals_result_", "best_iteration_", "best_score_", "feature_importances_", "n_features_in_")


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("name", PEER_FITTED)
def test_every_missing_fitted_attribute_of_an_unfitted_estimator_says_not_fitted(cls, name):
    """Before: the push estimators' best_score_/feature_importances_ gave scikit-learn's "This PushBoost instance is
    not fitted yet", and ExactBoost's (KernelRanker's, ...) evals_result_ only the class's hint."""
    from sklearn.exceptions import NotFittedError

    message = _missing(cls(), name)
    assert message.startswith(f"{cls.__name__} has no {name}: {cls.__name__} is not fitted yet: call fit(X, y) "
                              "first"), message
    if name in ("best_score_", "feature_importances_") and cls in ESTIMATORS[:3]:
        with pytest.raises(NotFittedError):         # the push properties keep scikit-learn's exception type
            getattr(cls(), name)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_every_missing_fitted_attribute_of_a_fitted_estimator_says_why_in_one_voice(cls, rows):
    model = cls().fit(*rows)
    for name in PEER_FITTED:
        if hasattr(model, name):
            continue
        message = _missing(model, name)
        assert message.startswith(f"{cls.__name__} has no {name}: ") and "not fitted" not in message, message


@pytest.mark.parametrize("cls", ESTIMATORS[:3])
def test_a_push_fit_without_eval_set_says_what_records_best_score(cls, rows):
    """Before: "the watched score is validation_scores_[best_iteration_ - 1]", neither of which that fit records."""
    model = cls(n_iter=2).fit(*rows)
    assert _missing(model, "best_score_") == (f"{cls.__name__} has no best_score_: it is recorded by a fit given "
                                              "eval_set=(X_val, y_val), as LightGBM's")
    held_out = cls(n_iter=3, early_stopping=True).fit(*rows)
    if "validation_scores_" in vars(held_out):
        assert _missing(held_out, "best_score_").endswith("the held-out rows' metric is "
                                                          "validation_scores_[best_iteration_ - 1]")
