"""JSON records (a list of dicts, a service's usual rows) are refused naming X and the DataFrame to make of them,
not with scikit-learn's "X does not contain any features"."""

import numpy as np
import pytest

import rankcore

_RECORDS = [{"a": 1.0, "b": 2.0}, {"a": 0.5, "b": 1.0}]
_MESSAGE = r"^X: expected a 2-D array or a DataFrame, got a (list|tuple) of dicts \(records: pandas.DataFrame\(X\)"


def _fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    return rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))


@pytest.mark.parametrize("records", [_RECORDS, tuple(_RECORDS)])
def test_scoring_records_is_refused_with_the_frame_to_make(records):
    with pytest.raises(TypeError, match=_MESSAGE):
        _fitted().decision_function(records)


def test_fitting_on_records_is_refused_the_same_way():
    with pytest.raises(TypeError, match=_MESSAGE):
        rankcore.boost(n_iter=2).fit(_RECORDS * 20, [0, 1] * 20)


def test_the_frame_the_message_names_scores_as_the_array():
    import pandas as pd

    model = _fitted()
    assert np.array_equal(model.decision_function(pd.DataFrame(_RECORDS).to_numpy()),
                          model.decision_function(np.array([[1.0, 2.0], [0.5, 1.0]])))
