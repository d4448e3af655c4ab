"""pandas' nullable columns (``Int64``, ``Float64``, ``boolean``): ``pd.NA`` is a missing value, as NaN is."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore import metrics
from rankcore.validation import check_matrix


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    X["b"] = (X["b"] * 10).round()
    X["c"] = X["c"] > 0
    y = (X["a"] + 0.1 * X["b"] + 0.5 * rng.normal(size=400) > 0).astype(int)
    return X, y


def nullable(X, missing):
    out = X.astype({"a": "Float64", "b": "Int64", "c": "boolean"})
    for row, column in missing:
        out.loc[row, column] = pd.NA
    return out


def with_nan(X, missing):
    out = X.astype(float)
    for row, column in missing:
        out.loc[row, column] = np.nan
    return out


MISSING = [(0, "a"), (3, "b"), (7, "c"), (7, "a"), (150, "b")]


def test_a_nullable_frame_is_the_float_frame_with_nan_where_na_was(data):
    X, _ = data
    got = check_matrix(nullable(X, MISSING), allow_nan=True)
    np.testing.assert_array_equal(got, with_nan(X, MISSING).to_numpy())
    assert got.dtype == np.float64


def test_trees_fit_and_score_a_nullable_frame_as_the_float_frame_with_nan(data):
    X, y = data
    fits = [rankcore.boost(learner="trees", n_iter=15, random_state=0).fit(frame, y)
            for frame in (nullable(X, MISSING), with_nan(X, MISSING))]
    np.testing.assert_array_equal(fits[0].decision_function(nullable(X, MISSING)),
                                  fits[1].decision_function(with_nan(X, MISSING)))
    np.testing.assert_array_equal(fits[0].decision_function(with_nan(X, MISSING)),
                                  fits[1].decision_function(nullable(X, MISSING)))


def test_a_nullable_frame_without_missing_values_fits_every_learner(data):
    X, y = data
    frame = nullable(X, [])
    for learner in ("stumps", "trees"):
        expected = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(X.astype(float), y)
        got = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(frame, y)
        np.testing.assert_array_equal(got.decision_function(frame), expected.decision_function(X.astype(float)))


def test_na_for_a_learner_without_missing_values_is_refused_as_a_missing_value(data):
    X, y = data
    with pytest.raises(ValueError, match=r"X: expected finite numbers, got a missing value \(null\) at row 3, "
                                         r"column 1 \('b'\)"):
        rankcore.boost(learner="stumps", n_iter=5).fit(nullable(X, [(3, "b")]), y)


def test_nullable_labels_and_scores(data):
    X, y = data
    scores = pd.Series(X["a"].to_numpy()).astype("Float64")
    assert metrics.auc(y.astype("Int64"), scores) == metrics.auc(y.to_numpy(), X["a"].to_numpy())
    # pd.NA is said as the missing value it is, not as the NaN it is read as
    with pytest.raises(ValueError, match=r"y: expected finite numbers, got a missing value \(null\) at position 5"):
        rankcore.boost(n_iter=5).fit(X.astype(float), y.astype("Int64").where(y.index != 5, pd.NA))


def test_text_and_object_columns_are_not_taken_for_nullable_numbers(data):
    X, y = data
    words = pd.Series(np.where(X["a"] > 0, "high", "low")).astype("string")
    for column in (words, words.astype(object)):
        with pytest.raises(TypeError, match=r"X: column .a. holds text \(.high.\), not numbers"):
            rankcore.boost(learner="stumps", n_iter=5).fit(nullable(X, MISSING).assign(a=column), y)


def test_a_nullable_column_beside_an_object_column_of_numbers(data):
    # the nullable columns are read as numbers whatever the other columns are
    X, y = data
    mixed = nullable(X, MISSING).assign(b=with_nan(X, MISSING)["b"].astype(object))
    expected = with_nan(X, MISSING)
    np.testing.assert_array_equal(check_matrix(mixed, allow_nan=True), expected.to_numpy())


def test_pd_na_inside_an_object_column_is_a_missing_value(data):
    X, y = data
    column = nullable(X, MISSING)["a"].astype(object)
    assert any(v is pd.NA for v in column)
    got = check_matrix(with_nan(X, MISSING).assign(a=column), allow_nan=True)
    np.testing.assert_array_equal(got, with_nan(X, MISSING).to_numpy())
