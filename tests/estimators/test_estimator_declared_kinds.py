"""Every estimator parameter has a declared kind: a wrong type is refused by the parameter check, before any data.

And ``random_state`` has one check and one seed rule (``rankcore.validation``).
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.spec import ParameterError
from rankcore.validation import check_random_state_param, int_seed


@pytest.mark.parametrize("make, name, value", [
    (rankcore.boost, "thresholds", "0.5"),
    (rankcore.boost, "thresholds", 3),
    (rankcore.boost, "categorical_features", "grade"),
    (rankcore.KernelRanker, "gamma", [1.0]),
    (rankcore.KernelRanker, "degree", 2.5),
    (rankcore.KernelRanker, "coef0", "one"),
    (rankcore.KernelRanker, "filter", 3),
    (rankcore.KernelRanker, "filter", []),
    (rankcore.KernelRanker, "lam", {"lam": 1}),
    (rankcore.KernelRanker, "lam", True),
    (rankcore.KernelRanker, "lam_grid", "0.1"),
    (rankcore.KernelRanker, "apriori_sizes", 20),
])
def test_a_value_of_the_wrong_kind_is_refused_by_the_parameter_check(make, name, value):
    estimator = make(**{name: value})
    with pytest.raises(ParameterError, match=rf"^{name}: expected .*, got "):
        estimator._check_params()


@pytest.mark.parametrize("make, params", [
    (rankcore.boost, dict(thresholds=[np.array([0.0, 1.0])], categorical_features=[True, False])),
    (rankcore.boost, dict(thresholds=None, categorical_features=np.array([0]))),
    (rankcore.KernelRanker, dict(gamma="scale", degree=None, coef0=None, filter=["tikhonov", "cutoff"],
                                 lam=np.array([0.1, 0.01]), lam_grid=[0.1, 0.2], apriori_sizes=(10, 20))),
    (rankcore.KernelRanker, dict(gamma=2.0, degree=np.int64(3), coef0=1, lam="holdout", lam_grid=None)),
    (rankcore.KernelRanker, dict(kernel="poly", degree=2.0)),
])
def test_values_of_the_declared_kinds_pass_unchanged(make, params):
    checked = make(**params)._check_params()
    for name, value in params.items():
        assert checked[name] is value or checked[name] == value


def test_int_seed_keeps_seeds_and_draws_once_from_a_random_state():
    assert int_seed(7) == 7 and int_seed(None) is None
    generator = np.random.default_rng(0)
    assert int_seed(generator) is generator
    state = np.random.RandomState(3)
    assert int_seed(state) == np.random.RandomState(3).randint(0, 2**31 - 1)
    assert int_seed(state) == np.random.RandomState(3).randint(0, 2**31 - 1, size=2)[1]   # it advances


@pytest.mark.parametrize("kwargs, value", [
    (dict(generator=False), np.random.default_rng(0)),
    (dict(legacy=False), np.random.RandomState(0)),
    (dict(), -1),
    (dict(), True),
    (dict(), 1.0),
])
def test_one_random_state_check_for_functions_and_estimators(kwargs, value):
    with pytest.raises(ValueError, match="^random_state: expected None, a non-negative integer seed"):
        check_random_state_param(value, **kwargs)
    kind = rankcore.base.random_state_kind(**kwargs)
    with pytest.raises(ValueError):
        kind(value)
