"""A DataFrame's columns of text, dates or durations are refused by name, never read as numbers."""

import numpy as np
import pandas as pd
import pytest

import rankcore


@pytest.fixture
def loans():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.normal(size=60), "dti": rng.uniform(size=60)})
    return frame, (np.arange(60) % 5 == 0).astype(int)


@pytest.mark.parametrize("learner", ["trees", "stumps"])
@pytest.mark.parametrize("column, what", [
    (pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(60), unit="D"), "dates"),
    ((pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(60), unit="D")).tz_localize("UTC"), "dates"),
    (pd.to_timedelta(np.arange(60), unit="D"), "durations"),
], ids=["datetime", "datetime-tz", "timedelta"])
def test_a_date_column_beside_numbers_is_named(loans, learner, column, what):
    # the message named no column ("expected numbers, got non-numeric values of type object ... 'Timestamp'")
    frame, y = loans
    with pytest.raises(TypeError, match=rf"^X: column 'applied' holds {what} \(dtype .*\), not numbers; drop it"):
        rankcore.boost(learner=learner, n_iter=2).fit(frame.assign(applied=column), y)


@pytest.mark.parametrize("dtype", [object, "string"])
def test_text_of_digits_is_not_read_as_numbers(loans, dtype):
    # '02139' and '2139' were both read as 2139.0: a postcode or id column of text silently became a number
    frame, y = loans
    postcode = pd.Series(np.where(np.arange(60) % 2 == 0, "02139", "10001"), dtype=dtype)
    with pytest.raises(TypeError, match=r"^X: column 'postcode' holds text \('02139'\), not numbers"):
        rankcore.boost(learner="trees", n_iter=2).fit(frame.assign(postcode=postcode), y)


def test_a_model_refuses_text_of_digits_at_scoring(loans):
    frame, y = loans
    model = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(frame, y)
    with pytest.raises(TypeError, match=r"^X: column 'dti' holds text"):
        model.decision_function(frame.assign(dti=frame["dti"].astype(str)))


def test_numbers_held_as_objects_are_still_numbers(loans):
    frame, y = loans
    model = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(frame, y)
    np.testing.assert_array_equal(model.decision_function(frame.astype(object)), model.decision_function(frame))


def test_a_string_column_of_missing_values_alone_is_named():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "note": pd.array([pd.NA] * 4, dtype="string")})
    with pytest.raises(TypeError, match="column 'note' holds text, not numbers"):
        rankcore.boost(learner="trees", n_iter=2).fit(frame, [0, 1, 0, 1])


@pytest.mark.parametrize("make", [
    lambda v: pd.Series(v, dtype=object), lambda v: pd.Series(v, dtype="string"), lambda v: np.array(v, dtype=object),
], ids=["series-object", "series-string", "ndarray-object"])
def test_a_series_or_object_array_of_text_is_refused_as_a_one_column_frame_is(make):
    # a Series of '10', '9', '2', '1' was read as numbers where the same text in a NumPy string array, a list
    # or a one-column DataFrame is refused
    y = np.array([1, 0, 1, 0])
    with pytest.raises(TypeError, match=r"^scores: expected numbers, got non-numeric text \('10'\)"):
        rankcore.evaluate(y, make(["10", "9", "2", "1"]), metrics=["auc"])
    with pytest.raises(TypeError, match=r"^y: expected numbers, got non-numeric text \('1'\)"):
        rankcore.evaluate(make(["1", "0", "1", "0"]), [4.0, 3.0, 2.0, 1.0], metrics=["auc"])
    numbers = pd.Series([10, 9, 2, 1], dtype=object)          # numbers held as objects are still numbers
    assert rankcore.evaluate(y, numbers, metrics=["auc"])["auc"] == 0.75


def test_text_among_numbers_in_an_object_column_is_found(loans):
    # the common all-numbers column is told without a Python loop; text beside numbers is still looked for
    frame, y = loans
    mixed = pd.Series([np.str_("7")] + [float(v) for v in range(59)], dtype=object)
    with pytest.raises(TypeError, match=r"^X: column 'mixed' holds text \(np.str_\('7'\)\)"):
        rankcore.boost(learner="trees", n_iter=2).fit(frame.assign(mixed=mixed), y)
    with pytest.raises(TypeError, match=r"^scores: expected numbers, got non-numeric text \(b'7'\)"):
        rankcore.evaluate(y, pd.Series([b"7"] + [float(v) for v in range(59)], dtype=object), metrics=["auc"])
