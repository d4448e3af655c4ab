"""Model-file numbers are checked against their real range before any narrowing cast.

Every file here is edited and re-signed (the checksum recomputed), as someone
editing a file on purpose would: only validation stands between it and a
loaded model.  Before these checks, a tree feature index of 2**32 + 3 was read
as feature 3 (an int32 wrap), 2**33 and 2**62 as feature 0, and a head/tail
ExactBoost file with ``head_threshold = -1e308`` scored every row 1e308.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankcore.learners._trees import tree_arrays_from_state
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

from _model_files import resign


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _tree_model():
    from rankcore.push import PushBoost

    X, y = _data()
    return PushBoost(learner="trees:max_leaves=4,min_samples_leaf=5,subsample=1", n_iter=3, random_state=0).fit(X, y)


def _first_tree(doc):
    return doc["state"]["rankers"][0]


@pytest.mark.parametrize("index", [2**31 - 1, 2**31, 2**32, 2**32 + 3, 2**33, 2**62, 2**63, 2**64 + 1, 10**30])
def test_tree_feature_index_beyond_int32_is_refused_not_wrapped(index):
    model = _tree_model()
    doc = model_to_dict(model)
    _first_tree(doc)["feature"][0] = index
    with pytest.raises(ModelFormatError, match=rf"feature.*{index}"):
        model_from_dict(resign(doc))


def test_tree_feature_index_message_names_the_range():
    doc = model_to_dict(_tree_model())
    _first_tree(doc)["feature"][0] = 2**31
    with pytest.raises(ModelFormatError, match=r"outside \[-1, 2147483647\]"):
        model_from_dict(resign(doc))


@pytest.mark.parametrize("field", ["left", "right"])
@pytest.mark.parametrize("value", [2**32 + 1, 2**63, -(2**32) - 1])
def test_tree_child_index_beyond_int32_is_refused(field, value):
    doc = model_to_dict(_tree_model())
    _first_tree(doc)[field][0] = value
    with pytest.raises(ModelFormatError, match=field):
        model_from_dict(resign(doc))


def test_tree_leaf_feature_must_be_minus_one_or_a_valid_index():
    good = {"kind": "tree", "feature": [0, -1, -1], "threshold": [0.5, 0, 0], "nan_left": [True, False, False],
            "left": [1, -1, -1], "right": [2, -1, -1], "value": [0, -1.0, 1.0], "gain": [2.0, 0, 0]}
    tree_arrays_from_state(good)
    for bad in (2**40, -(2**40), -2):
        with pytest.raises(ValueError, match="feature"):
            tree_arrays_from_state({**good, "feature": [0, bad, -1]})


def _head_tail_model():
    from rankcore.exactboost import ExactBoost

    X, y = _data()
    return ExactBoost(metric="prec@k:10", n_runs=2, n_rounds=4, random_state=0).fit(X, y)


@pytest.mark.parametrize("threshold", [-1e308, 1e308, -1e30, 1e30])
def test_head_threshold_outside_the_reachable_head_scores_is_refused(threshold):
    model = _head_tail_model()
    assert model.head_ is not None
    doc = model_to_dict(model)
    doc["state"]["head_threshold"] = threshold
    with pytest.raises(ModelFormatError, match="head_threshold"):
        model_from_dict(resign(doc))


def test_head_threshold_as_saved_loads_and_scores_identically():
    model = _head_tail_model()
    X, _ = _data()
    loaded = model_from_dict(resign(model_to_dict(model)))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("kind", ["PerceptronAtK", "SGDAtK"])
@pytest.mark.parametrize("field", ["t_", "n_averaged_", "n_iter_", "n_skipped_batches_"])
def test_linear_counters_beyond_int64_are_refused(kind, field):
    """A counter the Cython state reads as a C ``long long`` must fit one (partial_fit continues from it)."""
    from _model_files import model_dict

    doc = model_dict(kind)
    doc["state"][field] = 2**70
    with pytest.raises(ModelFormatError, match=field):
        model_from_dict(resign(doc))
