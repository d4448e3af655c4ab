"""A NumPy masked array's masked entries are missing values (NaN), never the numbers hidden behind the mask."""
import numpy as np
import pytest

from rankcore import metrics
from rankcore._numbers import as_numeric_array
from rankcore.validation import check_binary_labels, check_matrix, check_scores


def _masked(values, mask):
    return np.ma.masked_array(np.asarray(values), mask=np.asarray(mask, dtype=bool))


def test_masked_entries_are_read_as_nan_not_as_the_placeholder_behind_them():
    rows = _masked([[1.0, -999.0], [3.0, 4.0]], [[0, 1], [0, 0]])
    got = check_matrix(rows, allow_nan=True)
    np.testing.assert_array_equal(got, [[1.0, np.nan], [3.0, 4.0]])
    assert type(got) is np.ndarray
    ints = as_numeric_array(_masked([5, 7, 9], [0, 1, 0]), "x")
    np.testing.assert_array_equal(ints, [5.0, np.nan, 9.0])
    assert rows.data[0, 1] == -999.0        # the caller's array is not changed


def test_a_masked_score_or_label_is_refused_as_a_missing_value():
    scores = _masked([0.9, 0.1, 0.8, 1e20], [0, 0, 0, 1])
    with pytest.raises(ValueError, match="scores: expected finite numbers, got NaN at position 3"):
        check_scores(scores)
    with pytest.raises(ValueError, match="NaN at position 3"):
        metrics.auc(np.array([1, 0, 1, 0]), scores)          # before: 0.5, the placeholder ranked as a score
    with pytest.raises(ValueError, match="y: expected finite numbers, got NaN at position 1"):
        check_binary_labels(_masked([1, 0, 1], [0, 1, 0]))


def test_a_masked_array_with_nothing_masked_is_its_data_and_masked_text_is_refused():
    np.testing.assert_array_equal(check_scores(np.ma.masked_array([1.0, 2.0])), [1.0, 2.0])
    np.testing.assert_array_equal(check_scores(_masked([3, 4], [0, 0])), [3.0, 4.0])
    with pytest.raises(TypeError, match="scores: expected numbers"):       # text stays refused
        check_scores(_masked(["a", "b"], [0, 1]))


def test_autoranker_scores_a_masked_row_as_the_row_with_nan():
    from rankcore.auto import AutoRanker

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0.5).astype(int)
    auto = AutoRanker(candidates=["trees"], n_jobs=1, random_state=0).fit(X, y)
    rows = X[:4].copy()
    mask = np.zeros(rows.shape, dtype=bool)
    mask[1, 0] = True
    with_nan = rows.copy()
    with_nan[mask] = np.nan
    rows[mask] = 1e6                             # a placeholder far out on the first feature's axis
    np.testing.assert_array_equal(auto.decision_function(np.ma.masked_array(rows, mask=mask)),
                                  auto.decision_function(with_nan))
