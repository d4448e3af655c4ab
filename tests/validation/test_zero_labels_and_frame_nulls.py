"""A label −0.0 is the label 0, and a frame's null in X is refused as a missing value, not as NaN.

−0.0 (``y * -1`` on zeros, a CSV's "-0") fitted the same models as 0.0, but ``classes_`` said ``[-0., 1.]``.  A
pandas ``<NA>`` (nullable ``Float64``/``Int64``) or a Polars null in X reached the learners that take no missing
value as NaN, and their refusal said "got NaN" of a value the user never wrote as NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.validation import ordered_labels

RNG = np.random.default_rng(3)
X = RNG.normal(size=(80, 3))
Y = (X[:, 0] + RNG.normal(size=80) > 0.2).astype(float)
Y_NEGATIVE_ZERO = np.where(Y == 0, -0.0, Y)


@pytest.mark.parametrize("y", [np.array([-0.0, 1.0, 0.0]), np.array([0.0, -0.0, 1.0, 2.0]), np.array([-0.0])])
def test_ordered_labels_say_zero_as_plus_zero(y):
    labels, inverse = ordered_labels(y, "y")
    assert not np.signbit(labels).any()
    assert np.array_equal(labels[inverse], y)          # −0.0 == 0.0: every row still maps to its label


@pytest.mark.parametrize("make", [lambda: rankcore.SGDAtK(random_state=0), lambda: rankcore.PushBoost(),
                                  lambda: rankcore.boost(learner="trees", random_state=0, n_iter=5)],
                         ids=["SGDAtK", "PushBoost", "trees"])
def test_negative_zero_labels_fit_the_model_of_zero_labels(make):
    plain, negative = make().fit(X, Y), make().fit(X, Y_NEGATIVE_ZERO)
    assert np.array_equal(plain.decision_function(X), negative.decision_function(X))
    assert not np.signbit(negative.classes_).any()
    assert np.array_equal(negative.classes_, [0.0, 1.0])


def test_negative_zero_grades_within_queries_are_grade_zero():
    qid = np.repeat(np.arange(8), 10)
    grade = np.clip(np.round(X[:, 0] + 1), 0, 3)
    negative = np.where(grade == 0, -0.0, grade)
    make = lambda: rankcore.boost(learner="trees", random_state=0, n_iter=5)  # noqa: E731
    plain, other = make().fit(X, grade, qid=qid), make().fit(X, negative, qid=qid)
    assert np.array_equal(plain.decision_function(X), other.decision_function(X))
    scores = plain.decision_function(X)
    metrics = ["ndcg@k:5", "map", "mrr", "err@k:5"]
    assert rankcore.metrics.evaluate(grade, scores, metrics, qid=qid) == \
        rankcore.metrics.evaluate(negative, scores, metrics, qid=qid)


def _with_nulls():
    b = X[:, 1].copy()
    b[[5, 9, 30]] = np.nan
    return pd.DataFrame({"a": X[:, 0], "b": b, "c": X[:, 2]})


@pytest.mark.parametrize("kind", ["Float64", "Int64", "polars", "arrow"])
@pytest.mark.parametrize("make", [lambda: rankcore.PushBoost(), lambda: rankcore.SGDAtK(random_state=0),
                                  lambda: rankcore.KernelRanker(), lambda: rankcore.ExactBoost(random_state=0)],
                         ids=["PushBoost", "SGDAtK", "KernelRanker", "ExactBoost"])
def test_linear_learners_refuse_a_null_in_X_as_a_missing_value_of_its_column(kind, make):
    frame = _with_nulls()
    if kind == "Int64":
        frame = frame.round().astype({"b": "Int64"})
    elif kind == "Float64":
        frame = frame.astype({"b": "Float64"})
    elif kind == "polars":
        frame = pytest.importorskip("polars").from_pandas(frame, nan_to_null=True)
    else:
        pa = pytest.importorskip("pyarrow")
        frame = pa.Table.from_pandas(frame.astype({"b": "Float64"}), preserve_index=False)
    with pytest.raises(ValueError, match=r"X: expected finite numbers, got a missing value \(null\) at row 5, "
                                         r"column 1 \('b'\) \(3 in all\); the push estimators with learner=\"trees\""):
        make().fit(frame, Y)


def test_a_nan_of_a_frame_is_still_said_as_nan_with_its_column():
    with pytest.raises(ValueError, match=r"got NaN at row 5, column 1 \('b'\) \(3 in all\); NaN marks a missing"):
        rankcore.PushBoost().fit(_with_nulls(), Y)


@pytest.mark.parametrize("kind", ["Float64", "Int64", "polars"])
def test_trees_read_a_null_in_X_as_nan(kind):
    nan = _with_nulls()
    if kind == "Int64":
        nan = nan.round()
        frame = nan.astype({"b": "Int64"})
    elif kind == "Float64":
        frame = nan.astype({"b": "Float64"})
    else:
        frame = pytest.importorskip("polars").from_pandas(nan, nan_to_null=True)
    make = lambda: rankcore.boost(learner="trees", random_state=0, n_iter=8)  # noqa: E731
    assert np.array_equal(make().fit(nan, Y).decision_function(nan), make().fit(frame, Y).decision_function(frame))
