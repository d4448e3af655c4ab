"""SGD@k / Perceptron@k model files are bounded on load as the push models' weak rankers are.

Each coefficient of a file may be finite while ⟨w, x⟩ overflows on rows like the training ones (features of the
training mean and scale).  Before, such a file loaded and ``decision_function`` raised ``FloatingPointError`` on a
row of ones; it is now a ``ModelFormatError`` on load naming ``coef_``, and ``save_model`` refuses to write it.
"""

import numpy as np
import pytest

from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict
from rankcore.precision_at_k import PerceptronAtK, SGDAtK

from _model_files import tampered

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 4))
Y = (X[:, 0] + 0.5 * RNG.normal(size=60) > 0).astype(int)
KINDS = [SGDAtK, PerceptronAtK]


def _set_coef(value):
    def change(state):
        state["coef_"] = np.full_like(state["coef_"], value)
        state["average_"] = state["coef_"] * state["feature_scale_"]
        state["iterate_"] = state["average_"].copy()
    return change


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_coefficients_whose_sum_overflows_are_refused_on_load(kind):
    model = kind(standardize=False, random_state=0).fit(X, Y)
    with pytest.raises(ModelFormatError, match=r"coef_: the coefficients times the features' training magnitude "
                                               r"\(\|feature_mean_\| \+ feature_scale_\) add up past the largest "
                                               r"float64 by coef_\[1\]"):
        model_from_dict(tampered(model, _set_coef(1.7e308)))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_a_training_mean_that_overflows_the_scores_is_refused_on_load(kind):
    model = kind(random_state=0).fit(X, Y)

    def far_mean(state):
        state["feature_mean_"] = np.full_like(state["feature_mean_"], 1e300)
        _set_coef(1e10)(state)
    with pytest.raises(ModelFormatError, match=r"add up past the largest float64 by coef_\[0\]"):
        model_from_dict(tampered(model, far_mean))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_save_refuses_them_too(kind):
    model = kind(standardize=False, random_state=0).fit(X, Y)
    model.coef_ = np.full_like(model.coef_, 1.7e308)
    model.average_ = model.coef_.copy()
    model.iterate_ = model.coef_.copy()
    with pytest.raises(ValueError, match="the file would not load .*add up past the largest float64"):
        model_to_dict(model)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_large_coefficients_whose_sum_is_finite_load_and_score(kind):
    model = kind(standardize=False, random_state=0).fit(X, Y)
    loaded = model_from_dict(tampered(model, _set_coef(1e300)))
    assert np.isfinite(loaded.decision_function(X)).all()
    fitted = kind(random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model_from_dict(model_to_dict(fitted)).decision_function(X),
                                  fitted.decision_function(X))
