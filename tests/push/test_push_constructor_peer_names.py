"""Other libraries' parameter names given to a push estimator's constructor name rankcore's, as ``set_params`` and
``rankcore.boost`` do.

scikit-learn's spelling is the constructor's: ``PushBoost(warm_start=True)`` or ``PushBoost(n_estimators=100)``
raised Python's bare "unexpected keyword argument", while ``set_params(warm_start=True)`` pointed to
``fit(X, y, init_model=...)``.
"""

from __future__ import annotations

import pytest

from rankcore import ExactBoost, PushBoost
from rankcore.push import PNormPush


@pytest.mark.parametrize("estimator", [PushBoost, PNormPush])
def test_warm_start_in_the_constructor_points_to_init_model(estimator):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'warm_start'; other libraries' warm_start "
                                        r"is fit\(X, y, init_model=\.\.\.\)"):
        estimator(warm_start=True)


def test_a_peer_count_in_the_constructor_names_n_iter():
    with pytest.raises(TypeError, match=r"'n_estimators'; other libraries' n_estimators is n_iter=N here"):
        PushBoost(n_estimators=100)


def test_other_unknown_names_keep_python_s_message():
    with pytest.raises(TypeError, match=r"^PushBoost.__init__\(\) got an unexpected keyword argument 'colour'$"):
        PushBoost(colour=1)
    # ExactBoost counts rounds, not the push's n_iter: no push hint there
    with pytest.raises(TypeError, match=r"^ExactBoost.__init__\(\) got an unexpected keyword argument "
                                        r"'n_estimators'$"):
        ExactBoost(n_estimators=100)
