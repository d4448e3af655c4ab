"""A DataFrame with duplicated column names: an ArgumentRefusal naming X and the names, in fit and in prediction, for
the trees, the push and AutoRanker, in the Dask fit's words (before: narwhals' DuplicateError, raised inside
scikit-learn's name check)."""

import numpy as np
import pytest

import rankcore

pd = pytest.importorskip("pandas")

_MESSAGE = r"^X: expected unique column names, got \['a', 'b'\] more than once; give each column a name of its own$"

_MAKERS = [lambda: rankcore.boost(learner="trees", n_iter=2, random_state=0),
           lambda: rankcore.boost(n_iter=2),
           lambda: rankcore.AutoRanker(time_budget=1, candidates=["linear"])]


def _frames():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(120, 4))
    return (pd.DataFrame(values, columns=["a", "b", "c", "d"]), pd.DataFrame(values, columns=["a", "b", "a", "b"]),
            np.arange(120) % 2)


@pytest.mark.parametrize("make", _MAKERS)
def test_fit_refuses_duplicated_column_names(make):
    _, duplicated, y = _frames()
    with pytest.raises(rankcore.ArgumentRefusal, match=_MESSAGE) as info:
        make().fit(duplicated, y)
    assert info.value.parameter == "X"


@pytest.mark.parametrize("make", _MAKERS)
def test_prediction_refuses_duplicated_column_names(make):
    unique, duplicated, y = _frames()
    model = make().fit(unique, y)
    with pytest.raises(rankcore.ArgumentRefusal, match=_MESSAGE) as info:
        model.decision_function(duplicated)
    assert info.value.parameter == "X"


def test_duplicated_columns_of_frames_and_arrays():
    from rankcore._frames import duplicated_columns

    assert duplicated_columns(pd.DataFrame(np.zeros((2, 3)), columns=["x", "y", "x"])) == ["x"]
    assert duplicated_columns(pd.DataFrame(np.zeros((2, 3)), columns=[0, "0", 1])) == []
    assert duplicated_columns(np.zeros((2, 3))) == []
    assert duplicated_columns([[1, 2]]) == []
