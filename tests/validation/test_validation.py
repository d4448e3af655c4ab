"""Shared input validation (rankcore.validation)."""

import numpy as np
import pytest
import scipy.sparse as sp

from rankcore import validation as v


def test_check_scores_returns_contiguous_float64():
    out = v.check_scores(np.arange(6, dtype=np.int32)[::2])
    assert out.dtype == np.float64 and out.flags.c_contiguous
    assert out.tolist() == [0.0, 2.0, 4.0]
    assert v.check_scores([True, False]).tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    "scores, exc, match",
    [
        ([], ValueError, "scores: expected at least one value, got an empty array"),
        ([[1.0, 2.0]], ValueError, r"expected a 1-D array, got shape \(1, 2\)"),
        (np.zeros((2, 2)), ValueError, "expected a 1-D array, got 2-D"),
        ([1.0, np.nan], ValueError, "expected finite numbers, got NaN"),
        ([1.0, np.inf], ValueError, "expected finite numbers, got infinite values"),
        (["a", "b"], TypeError, "expected numbers, got dtype <U1"),
        ("abc", TypeError, "got a string"),
        ([1 + 2j], TypeError, "complex"),
        ([object(), 1], TypeError, "non-numeric"),
        (sp.csr_matrix(np.ones((1, 3))), TypeError, "sparse"),
    ],
)
def test_check_scores_rejects(scores, exc, match):
    with pytest.raises(exc, match=match):
        v.check_scores(scores)


def test_check_binary_labels_accepts_bool_int_float():
    for y in ([0, 1, 1], [False, True, True], [0.0, 1.0, 1.0], np.array([0, 1, 1], dtype=np.uint8)):
        out = v.check_binary_labels(y)
        assert out.dtype == np.int8 and out.tolist() == [0, 1, 1]


@pytest.mark.parametrize(
    "y, exc, match",
    [
        ([0, 2, 1], ValueError, r"expected binary labels in \{0, 1\} .*got other values \[2\]"),
        ([-1, 1], ValueError, r"other values \[-1\]"),
        ([0.5, 1], ValueError, r"other values \[0.5\]"),
        ([], ValueError, "empty"),
        ([[0, 1]], ValueError, "1-D"),
        ([0, np.nan], ValueError, "NaN"),
        (["0", "1"], TypeError, "expected numbers"),
    ],
)
def test_check_binary_labels_rejects(y, exc, match):
    with pytest.raises(exc, match=match):
        v.check_binary_labels(y)


def test_check_labels_and_scores_lengths_and_classes():
    y, s = v.check_labels_and_scores([0, 1], [0.2, 0.4])
    assert y.tolist() == [0, 1] and s.tolist() == [0.2, 0.4]
    with pytest.raises(ValueError, match="inconsistent lengths: y has 2, scores has 3"):
        v.check_labels_and_scores([0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match=r"auc needs both classes, got only positives \(1\) in 3 labels"):
        v.check_labels_and_scores([1, 1, 1], [1, 2, 3], what="auc")
    with pytest.raises(ValueError, match=r"only negatives \(0\)"):
        v.check_labels_and_scores([0, 0], [1, 2])
    y, _ = v.check_labels_and_scores([1, 1], [1, 2], both_classes=False)
    assert y.tolist() == [1, 1]
    y, _ = v.check_labels_and_scores([0.5, 3.0], [1, 2], graded=True)
    assert y.dtype == np.float64


@pytest.mark.parametrize("k, n, expected", [(1, 10, 1), (10, 10, 10), (0.05, 100, 5), (0.5, 3, 2), (0.01, 10, 1),
                                            (3.0, 5, 3)])
def test_check_k_valid(k, n, expected):
    assert v.check_k(k, n) == expected


@pytest.mark.parametrize(
    "k, exc, match",
    [
        (0, ValueError, r"expected a count in \[1, 10\]"),
        (-3, ValueError, "expected a count"),
        (11, ValueError, r"expected a count in \[1, 10\] \(the number of examples\), got 11"),
        (2.5, ValueError, "whole count"),
        (float("nan"), ValueError, "expected a count"),
        ("5", TypeError, "got str"),
        (True, TypeError, "got bool"),
        (None, TypeError, "got NoneType"),
    ],
)
def test_check_k_rejects(k, exc, match):
    with pytest.raises(exc, match=match):
        v.check_k(k, 10)


def test_check_matrix():
    X = v.check_matrix([[1, 2], [3, 4]])
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert v.check_matrix(np.ones((2, 2)), dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match=r"expected a 2-D array \(n_samples, n_features\), got shape \(3,\); reshape"):
        v.check_matrix([1, 2, 3])
    with pytest.raises(ValueError, match=r"at least 1 row\(s\) and 1 column, got shape \(0, 3\)"):
        v.check_matrix(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="X: expected finite numbers, got NaN"):
        v.check_matrix([[1.0, np.nan]])
    with pytest.raises(TypeError, match="sparse input is not supported"):
        v.check_matrix(sp.csr_matrix(np.eye(2)))
    Xs = v.check_matrix(sp.coo_matrix(np.eye(2)), accept_sparse=True)
    assert sp.isspmatrix_csr(Xs)
    with pytest.raises(ValueError, match="infinite"):
        v.check_matrix(sp.csr_matrix(np.array([[np.inf, 0.0]])), accept_sparse=True)
    with pytest.raises(TypeError, match="expected numbers"):
        v.check_matrix([["a", "b"]])


def test_check_sample_weight():
    assert v.check_sample_weight(None, 3).tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="expected 3 weights"):
        v.check_sample_weight([1, 2], 3)
    with pytest.raises(ValueError, match="non-negative"):
        v.check_sample_weight([1, -2, 1], 3)
    with pytest.raises(ValueError, match="positive total"):
        v.check_sample_weight([0, 0, 0], 3)


def test_effective_n_threads(monkeypatch):
    from rankcore import _cpus

    monkeypatch.setattr(_cpus, "LOAD_AWARE", False)      # n_jobs's meaning, whatever else the machine runs
    cores = v.effective_n_threads(None)
    assert cores >= 1 and v.effective_n_threads(-1) == cores
    assert v.effective_n_threads(1) == 1
    assert v.effective_n_threads(10_000) == cores
    assert v.effective_n_threads(-10_000) == 1
    for bad in (0, 1.5, "2", True):
        with pytest.raises(ValueError, match="n_jobs"):
            v.effective_n_threads(bad)


def test_check_bipartite_target():
    y01, classes = v.check_bipartite_target(np.array([-1, 1, 1, -1]))
    assert y01.tolist() == [0, 1, 1, 0] and classes.tolist() == [-1, 1]
    y01, classes = v.check_bipartite_target(["spam", "ham", "spam"])
    assert y01.tolist() == [1, 0, 1] and classes.tolist() == ["ham", "spam"]
    with pytest.raises(ValueError, match="needs both classes, got only the label"):
        v.check_bipartite_target([1, 1])
    with pytest.raises(ValueError, match="expected two classes .* got 3"):
        v.check_bipartite_target([0, 1, 2])
    with pytest.raises(ValueError, match="use y.ravel"):
        v.check_bipartite_target(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="NaN"):
        v.check_bipartite_target([0.0, np.nan])
    X, y01, classes = v.check_fit_data([[1.0], [2.0]], [0, 1])
    assert X.shape == (2, 1) and y01.tolist() == [0, 1]
    with pytest.raises(ValueError, match="inconsistent lengths: X has 2, y has 3"):
        v.check_fit_data([[1.0], [2.0]], [0, 1, 1])


def test_single_eval_set_unwraps_a_list_of_one_tuple_only():
    from rankcore.validation import single_eval_set

    pair, triple = (np.ones((2, 2)), [0, 1]), (np.ones((2, 2)), [0, 1], [0, 0])
    assert single_eval_set(pair) is pair and single_eval_set(triple) is triple
    assert single_eval_set([pair]) is pair and single_eval_set([triple]) is triple
    as_list = [np.ones((2, 2)), [0, 1]]           # a pair written as a list: left as it is
    assert single_eval_set(as_list) is as_list
    assert single_eval_set(None) is None and single_eval_set([]) == []
    with pytest.raises(ValueError, match="eval_set: ExactBoost takes one validation set, got a list of 2; pass "
                                         r"one pair \(X_val, y_val\) \(the boosting estimators"):
        single_eval_set([pair, pair], owner="ExactBoost")


@pytest.mark.parametrize("make", [
    lambda: __import__("rankcore").boost(n_iter=3),
    lambda: __import__("rankcore").ExactBoost(n_rounds=1, n_runs=1),
    lambda: __import__("rankcore").SGDAtK(),
    lambda: __import__("rankcore").KernelRanker(),
], ids=["push", "exactboost", "sgd", "kernel"])
def test_a_dict_or_an_empty_list_for_x_is_named(make):
    # scikit-learn's checks, run first, would raise KeyError: 0 (dict) and IndexError (empty list)
    column = np.arange(10.0)
    y = (column > 4).astype(int)
    with pytest.raises(TypeError, match=r"^X: expected a 2-D array or a DataFrame, got a dict"):
        make().fit({"a": column, "b": column}, y)
    with pytest.raises(ValueError, match=r"^X: expected a 2-D array \(n_samples, n_features\), got an empty list"):
        make().fit([], [])
    model = make().fit(np.c_[column, column], y)
    with pytest.raises(TypeError, match=r"^X: expected a 2-D array or a DataFrame, got a dict"):
        model.decision_function({"a": column, "b": column})


def test_an_ordered_categorical_target_against_its_sorted_order_is_refused():
    # ['low', 'high'] ordered declares 'high' the greater; sorting the text made 'low' the relevant class, silently
    import pandas as pd

    import rankcore

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    labels = np.where(X[:, 0] > 0, "high", "low")
    declared = pd.Series(pd.Categorical(labels, categories=["low", "high"], ordered=True))
    for estimator in (rankcore.boost(n_iter=2), rankcore.SGDAtK(random_state=0), rankcore.KernelRanker(),
                      rankcore.ExactBoost(n_runs=2, n_rounds=2)):
        with pytest.raises(ValueError, match=r"^y: an ordered categorical whose order \(low < high\) is not its "
                                             r"labels' sorted order.*\(y == 'high'\)\.astype\(int\)"):
            estimator.fit(X, declared)
    agreeing = pd.Series(pd.Categorical(labels, categories=["high", "low"], ordered=True))
    unordered = pd.Series(pd.Categorical(labels, categories=["low", "high"]))
    for y in (agreeing, unordered, labels):
        assert list(rankcore.boost(n_iter=2).fit(X, y).classes_) == ["high", "low"]


def test_durations_and_dates_are_refused_as_numbers():
    # timedelta64 is a NumPy integer: its raw counts changed with the unit (us at fit, ms at predict), silently
    import rankcore

    X = np.random.default_rng(0).normal(size=(20, 2))
    y = np.arange(20) % 2
    durations = np.arange(20).astype("timedelta64[s]")
    with pytest.raises(TypeError, match=r"^X: expected numbers, got durations \(dtype timedelta64\[s\]\); convert"):
        rankcore.boost(n_iter=2).fit(np.column_stack([durations, durations]), y)
    with pytest.raises(TypeError, match=r"^scores: expected numbers, got durations"):
        rankcore.evaluate(y, durations, "auc")
    with pytest.raises(TypeError, match=r"^sample_weight: expected numbers, got durations"):
        rankcore.boost(n_iter=2).fit(X, y, sample_weight=durations + np.timedelta64(1, "s"))
    with pytest.raises(ValueError, match=r"^y: relevance grades must be numbers >= 0, got dtype timedelta64"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, (np.arange(20) % 3).astype("timedelta64[s]"),
                                                      qid=np.arange(20) // 5)
    with pytest.raises(TypeError, match=r"^X: expected numbers, got dates"):
        rankcore.boost(n_iter=2).fit(np.arange(40).astype("datetime64[D]").reshape(20, 2), y)


def test_nullable_and_arrow_integer_scores_keep_their_exact_order():
    # Int64 / UInt64 / int64[pyarrow] columns went through float64, rounding nanosecond timestamps into ties
    import pandas as pd

    import rankcore

    base = 1_700_000_000_000_000_000
    scores = np.array([base + i for i in range(8)], dtype=np.int64)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    expected = rankcore.evaluate(y, scores, ["auc", "prec@k:4"])
    assert expected == {"auc": 1.0, "prec@k:4": 1.0}
    for dtype in ("Int64", "UInt64", "int64[pyarrow]"):
        assert rankcore.evaluate(y, pd.Series(scores, dtype=dtype), ["auc", "prec@k:4"]) == expected, dtype
    with_na = pd.Series([*scores[:7], None], dtype="Int64")          # a missing score is still refused, as missing
    with pytest.raises(ValueError, match=r"missing value \(null\) at position 7"):
        rankcore.evaluate(y, with_na, "auc")


def test_a_missing_label_in_a_nullable_or_object_target_is_named_with_its_row():
    # "labels of mixed types cannot be ordered" / "got dtype object" said nothing of a missing label
    import pandas as pd

    import rankcore

    X = np.random.default_rng(0).normal(size=(20, 2))
    labels = pd.Series([True, False] * 10, dtype="boolean")
    labels[5] = pd.NA
    for y in (labels, np.array([1, 0] * 2 + [1, None] + [1, 0] * 7, dtype=object)):
        with pytest.raises(ValueError, match=r"^y: expected a label in every row, got a missing one \(None or pd.NA\) "
                                             r"at position 5 \(1 in all\)"):
            rankcore.boost(n_iter=2).fit(X, y)
    with pytest.raises(ValueError, match=r"^y: relevance grades must be finite numbers >= 0 \(fitting within "
                                         r"queries\), got a missing one \(None or pd.NA\) at row 5"):
        rankcore.boost(learner="trees", n_iter=2).fit(X, labels, qid=np.arange(20) // 5)


def test_a_text_column_of_a_frame_is_named_with_what_to_do():
    import pandas as pd

    import rankcore

    frame = pd.DataFrame({"x": np.arange(20.0), "colour": ["blue", "red"] * 10})
    with pytest.raises(TypeError, match=r"^X: column 'colour' holds text \('blue'\), not numbers; encode it as "
                                        r"numbers, or as a pandas 'category' column"):
        rankcore.boost(n_iter=2).fit(frame, np.arange(20) % 2)
