"""scikit-learn's warm_start: every way a user tries it points to fit(X, y, init_model=...) rather than a bare
TypeError or scikit-learn's list of valid parameters."""

import numpy as np
import pytest

import rankcore


def _rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    return X, (X[:, 0] + rng.normal(size=300) > 0).astype(int)


def test_boost_names_init_model_for_warm_start():
    with pytest.raises(TypeError, match=r"^warm_start: rankcore.boost takes no parameter 'warm_start'; other "
                                        r"libraries' warm_start is fit's argument init_model here"):
        rankcore.boost(learner="trees", warm_start=True)


def test_set_params_names_init_model_for_warm_start():
    with pytest.raises(ValueError, match=r"^warm_start: PushBoost has no parameter 'warm_start'; other libraries' "
                                         r"warm_start is fit\(X, y, init_model=\.\.\.\)"):
        rankcore.PushBoost().set_params(warm_start=True)


def test_fit_names_init_model_for_warm_start():
    X, y = _rows()
    with pytest.raises(TypeError, match=r"^warm_start: PushBoost.fit takes no argument 'warm_start'; other "
                                        r"libraries' warm_start is here fit\(X, y, init_model=\.\.\.\)"):
        rankcore.boost(n_iter=2).fit(X, y, warm_start=True)


def test_the_hint_continues_the_model():
    # what the hint says does what warm_start users want: the fitted model's trees, then the new ones
    X, y = _rows()
    first = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(X, y)
    more = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, y, init_model=first)
    assert (more.n_iter_, more.init_iterations_) == (5, 3)
    assert np.allclose(list(more.staged_decision_function(X))[2], first.decision_function(X))
