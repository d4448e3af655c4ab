"""A push model of feature rankers (``learner="features"``, linear in the features) is bounded on load as trees are.

Each feature ranker scales its feature's training range to [0, 1], so the coefficients' absolute sum bounds the
scores over that range.  Before, only rankers of finitely many values (trees, stumps) counted: a file whose
coefficients were each finite but summed past the largest float64 loaded, and ``decision_function`` raised
``FloatingPointError`` on a row of the training range; ``save_model`` wrote such a model.
"""

import numpy as np
import pytest

from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict
from rankcore.push import PNormPush

from _model_files import _data, tampered


def _linear_model():
    X, y = _data()
    model = PNormPush(learner="features", n_iter=4, random_state=0).fit(X, y)
    assert len(model.rankers_) >= 2 and all(r.high > r.low for r in model.rankers_)
    return X, model


def _huge_coefficients(state):
    state["alphas"] = np.full_like(state["alphas"], 1.7e308)


def test_load_refuses_coefficients_whose_sum_overflows_over_the_training_range():
    _, model = _linear_model()
    with pytest.raises(ModelFormatError, match=r"rankers\[1\]: the weak rankers' largest values times their "
                                               r"coefficients add up past the largest float64"):
        model_from_dict(tampered(model, _huge_coefficients))


def test_save_refuses_them_too():
    _, model = _linear_model()
    model.alphas_ = np.full_like(model.alphas_, 1.7e308)
    with pytest.raises(ValueError, match="the file would not load .*add up past the largest float64"):
        model_to_dict(model)


def test_large_coefficients_whose_sum_is_finite_load():
    X, model = _linear_model()
    loaded = model_from_dict(tampered(model, lambda state: state.update(alphas=np.full_like(state["alphas"], 1e300))))
    assert np.isfinite(loaded.decision_function(X)).all()
