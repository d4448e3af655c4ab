"""``ArgumentRefusal``: the refusal of one argument by a check of :mod:`rankcore.validation` or a fit's check of
``position`` and ``sample_weight`` carries the argument's name and what is wrong with it as fields, in the same
words as before; it keeps them through a copy, a pickle and a layer that says it again."""

import copy
import pickle
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import rankcore
import rankcore.validation as validation
from rankcore.metrics import MetricRefusal
from rankcore.objectives import check_positions, require_curvature
from rankcore.objectives._query_push import _check_weight
from rankcore.validation import ArgumentRefusal, said_again
from _refusals import refused


def _refusal(call) -> ArgumentRefusal:
    return refused(call)


# --- the class ---


def test_the_fields_and_the_top_level_name():
    exc = ArgumentRefusal.said("sample_weight", "expected non-negative weights, got [-1.0]")
    assert str(exc) == "sample_weight: expected non-negative weights, got [-1.0]"
    assert (exc.parameter, exc.detail, exc.reason) == ("sample_weight", "expected non-negative weights, got [-1.0]",
                                                       "value")
    assert rankcore.ArgumentRefusal is ArgumentRefusal is validation.ArgumentRefusal
    assert "ArgumentRefusal" in rankcore.__all__ and "ArgumentRefusal" in validation.__all__


def test_a_wrong_raise_is_a_type_error_at_once():
    with pytest.raises(TypeError, match="must end with detail"):
        ArgumentRefusal("position: row 3 has none", parameter="position", detail="row 4 has none")
    with pytest.raises(TypeError, match="parameter must be a non-empty str"):
        ArgumentRefusal("position: row 3 has none", parameter="")
    with pytest.raises(TypeError, match="reason must be one of"):
        ArgumentRefusal.said("sample_weight", "all zeros", reason="zeros")
    with pytest.raises(TypeError):
        ArgumentRefusal("position: row 3 has none")          # the argument is required: no refusal of nothing


@pytest.mark.parametrize("copied", [lambda e: pickle.loads(pickle.dumps(e)), copy.copy, copy.deepcopy],
                         ids=["pickle", "copy", "deepcopy"])
def test_a_copy_keeps_the_fields_notes_and_attributes(copied):
    """BaseException's reduce would call the constructor with the message alone (a TypeError here) and the
    instance dict's notes must come along as a plain ValueError's do (a refusal crossing processes: Dask, n_jobs)."""
    detail = "needs positive total weight in both classes, got zero total positive weight"
    exc = ArgumentRefusal(f"objective 'push': {detail}", parameter="sample_weight", detail=detail,
                          reason="zero_total")
    exc.add_note("fitting candidate 2")
    exc.fold = 1
    back = copied(exc)
    assert type(back) is ArgumentRefusal and str(back) == str(exc)
    assert (back.parameter, back.detail, back.reason) == ("sample_weight", detail, "zero_total")
    assert back.__notes__ == ["fitting candidate 2"] and back.fold == 1


def test_a_reworded_refusal_still_pickles_its_message_as_the_detail():
    exc = ArgumentRefusal.said("position", "row 3 has no display position (nan); every row needs one")
    exc.args = ("positions: row 3 is missing",)
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), back.parameter, back.detail) == ("positions: row 3 is missing", "position",
                                                        "positions: row 3 is missing")


def test_said_again_keeps_the_class_and_grows_the_detail_with_words_after_it():
    exc = ArgumentRefusal.said("position", "display positions are integers >= 0, row 2 has -1")
    again = said_again(exc, f"{exc} (chunk 1, whose first row is row 90 of X)")
    assert type(again) is ArgumentRefusal and again.parameter == "position"
    assert again.detail == "display positions are integers >= 0, row 2 has -1 (chunk 1, whose first row is row 90 of X)"
    before = said_again(exc, f"early_stopping: the training part: {exc}")
    assert before.detail == exc.detail and before.parameter == "position"
    other = said_again(KeyError("k"), "scoring: k")
    assert type(other) is KeyError and other.args == ("scoring: k",)


# --- every converted raise site, by a call that reaches it ---

X = np.random.default_rng(0).normal(size=(40, 3))
y = (X[:, 0] > 0).astype(int)
qid = np.repeat(np.arange(8), 5)


def _ordered_categorical():
    return pd.Series(pd.Categorical([1, 0, 1], categories=[1, 0], ordered=True))


VALIDATION = [
    (lambda: validation.check_scores(np.zeros((3, 1))), "scores", "expected a 1-D array, got shape (3, 1)"),
    (lambda: validation.check_scores(np.zeros((2, 2, 2))), "scores", "expected a 1-D array, got 3-D"),
    (lambda: validation.check_scores([], name="eval_set scores"), "eval_set scores", "expected at least one value"),
    (lambda: validation.check_scores([1.0, np.nan]), "scores", "expected finite numbers"),
    (lambda: validation.check_scores(np.array([2**60, 2**60 + 1]), integers="refuse"), "scores",
     "integer values beyond ±2**53"),
    (lambda: validation.check_scores([[1.0], [2.0, 3.0]]), "scores", "could not be read as an array"),
    (lambda: validation.check_binary_labels(np.array([Fraction(10**400), 1], dtype=object)), "y",
     "expected numbers within the float64 range"),
    (lambda: validation.check_binary_labels([[0, 1]], name="eval_set y"), "eval_set y", "expected a 1-D array of 0/1"),
    (lambda: validation.check_binary_labels([]), "y", "expected at least one label"),
    (lambda: validation.check_binary_labels([0, 2]), "y", "expected binary labels in {0, 1}"),
    (lambda: validation.check_graded_labels([0.0, np.inf], name="y_val"), "y_val", "expected finite numbers"),
    (lambda: validation.check_both_classes(np.zeros(3)), "y", "this metric needs both classes"),
    (lambda: validation.check_k(0, 5), "k", "expected a count in [1, 5] or a fraction"),
    (lambda: validation.check_k(2.5, 5), "k", "expected a whole count in [1, 5]"),
    (lambda: validation.check_k(9, 5), "k", "expected a count in [1, 5] (the number of examples)"),
    (lambda: validation.check_matrix([1.0, 2.0]), "X", "expected a 2-D array (n_samples, n_features)"),
    (lambda: validation.check_matrix(np.zeros((0, 2))), "X", "expected at least 1 row(s) and 1 column"),
    (lambda: validation.reject_1d([]), "X", "expected a 2-D array (n_samples, n_features), got an empty list"),
    (lambda: validation.check_sample_weight([1.0, 2.0], 3), "sample_weight", "expected 3 weights (one per example)"),
    (lambda: validation.check_sample_weight([1.0, -1.0], 2), "sample_weight", "expected non-negative weights"),
    (lambda: validation.check_sample_weight([0.0, 0.0], 2), "sample_weight", "expected a positive total weight"),
    (lambda: validation.effective_n_threads(0), "n_jobs", "expected None, a positive integer"),
    (lambda: validation.check_random_state_param(-1), "random_state", "expected None, a non-negative integer"),
    (lambda: validation.check_category_order(_ordered_categorical()), "y", "an ordered categorical whose order"),
    (lambda: validation.check_bipartite_target(np.zeros((3, 1))), "y", "expected a 1-D array of labels, got a column"),
    (lambda: validation.check_bipartite_target(np.zeros((3, 2))), "y", "expected a 1-D array of labels, got shape"),
    (lambda: validation.check_bipartite_target(np.array([])), "y", "expected at least one label"),
    (lambda: validation.check_bipartite_target(np.array(["a", None], dtype=object)), "y",
     "expected a label in every row"),
    (lambda: validation.check_bipartite_target(np.ones(3)), "y", "a ranking needs both classes"),
    (lambda: validation.check_bipartite_target(np.array([0, 1, 2])), "y", "expected two classes (bipartite ranking)"),
    (lambda: validation.check_categorical_features([True], 2), "categorical_features", "a boolean mask must have"),
    (lambda: validation.check_categorical_features(["a"], 2), "categorical_features", "column names need X as a"),
    (lambda: validation.check_categorical_features([5], 2), "categorical_features", "column 5 is not one of the 2"),
]

POSITION = [
    (lambda: check_positions(np.zeros((2, 2)), 2), "expected one display position per row (a 1-D array)"),
    (lambda: check_positions([1, 2], 3), "expected one display position per row (3 rows), got 2"),
    (lambda: check_positions(np.array([1, None], dtype=object), 2), "row 1 has no display position (None)"),
    (lambda: check_positions(np.array([2**70], dtype=object), 1), "display positions must fit in 64 bits"),
    (lambda: check_positions([1.0, np.nan], 2), "row 1 has no display position (nan)"),
    (lambda: check_positions([1.5], 1), "expected integer display positions, row 0 has 1.5"),
    (lambda: check_positions([1e19], 1), "display positions must fit in 64 bits"),
    (lambda: check_positions(np.array([2**64 - 1], dtype=np.uint64), 1), "display positions must fit in 64 bits"),
    (lambda: check_positions([3, -1], 2), "display positions are integers >= 0, row 1 has -1"),
    (lambda: require_curvature(SimpleNamespace(has_hessian=False, objective=SimpleNamespace(spec="x"))),
     "the objective 'x' has no curvature"),
    (lambda: rankcore.PushBoost(n_iter=2).fit(X, y, position=np.zeros(40, dtype=int)),
     "display positions are places within each query's list"),
    (lambda: _lightgbm_with_positions(), "objective 'lambdarank' through rankcore.gbdt does not learn position"),
    (lambda: _dask_fast_path_with_effects(), "the fast path has no position effects"),
]


def _lightgbm_with_positions():
    lightgbm = pytest.importorskip("lightgbm")
    from rankcore.gbdt import lightgbm_objective

    data = lightgbm.Dataset(X, label=y, group=[5] * 8, position=np.tile(np.arange(5), 8)).construct()
    lightgbm_objective("lambdarank")(np.zeros(40), data)


def _dask_fast_path_with_effects():
    pytest.importorskip("distributed")
    from rankcore.dask._backend import DaskBackend

    DaskBackend([], None, None, fast=True, effects=object())


def _grades():
    return np.tile([0.0, 1.0, 2.0, 0.0, 1.0], 8)


def _bound(spec):
    queries = _queries()
    return rankcore.resolve("objective", spec).bind(_grades(), None, queries=queries)


def _queries():
    from rankcore.metrics import check_queries

    return check_queries(qid, None, 40)


def _push_zero_class():
    w = np.where(y == 1, 0.0, 1.0)
    rankcore.resolve("objective", "push").check_target(y, w)


def _mp_squared_zero_total():
    from rankcore.rkhs._objective import _BoundQueryMPSquared

    _BoundQueryMPSquared(rankcore.resolve("objective", "mp-squared"), _grades(), np.zeros(40), _queries())


def _early_stopping_leaves_a_class_nothing():
    from rankcore.push._queries import check_training_part

    check_training_part(rankcore.resolve("objective", "push"), y, np.where(y == 1, 0.0, 1.0), None, "the training part")


SAMPLE_WEIGHT = [
    (lambda: _bound("lambdarank").prepared.gradient_hessian(np.zeros(40), -np.ones(40)),
     "expected 40 finite weights >= 0"),
    (lambda: _bound("xendcg").prepared.gradient_hessian(np.zeros(40), -np.ones(40)), "expected 40 finite weights >= 0"),
    (lambda: _bound("yetirank").ranks.gradient_hessian(_grades(), np.zeros(40), _queries(), -np.ones(40)),
     "expected 40 finite weights >= 0"),
    (lambda: _check_weight(np.ones(3), 4),
     "expected one weight per row (4), got shape (3,)"),
    (lambda: _check_weight([1.0, -2.0], 2),
     "weights must be finite and >= 0, got -2.0 at row 1"),
    (lambda: rankcore.PushBoost(objective="prec@k-avg:20", n_iter=2).fit(X, y, sample_weight=np.ones(40)),
     "the objective 'prec@k-avg:20' does not support sample weights"),
    (lambda: rankcore.PushBoost(n_iter=2).fit(X, _grades(), qid=qid, sample_weight=np.ones(8)),
     "expected 40 weights, one per row, got 8, one per query"),
]

ZERO_TOTAL = [
    (_push_zero_class, "needs positive total weight in both classes, got zero total positive weight"),
    (_mp_squared_zero_total, "needs positive total weight, got zero total weight over the 40 training rows"),
    (_early_stopping_leaves_a_class_nothing, "needs positive total weight in both classes"),
]


@pytest.mark.parametrize("call, parameter, words", VALIDATION, ids=[w[:40] for _, _, w in VALIDATION])
def test_every_named_check_of_validation_refuses_its_argument(call, parameter, words):
    exc = _refusal(call)
    assert exc.parameter == parameter and str(exc) == f"{parameter}: {exc.detail}" and words in exc.detail, str(exc)


@pytest.mark.parametrize("call, words", POSITION, ids=[w[:40] for _, w in POSITION])
def test_every_refusal_of_position_says_position(call, words):
    exc = _refusal(call)
    assert exc.parameter == "position" and exc.detail.startswith(words) and str(exc) == f"position: {exc.detail}"


@pytest.mark.parametrize("call, words", SAMPLE_WEIGHT, ids=[w[:40] for _, w in SAMPLE_WEIGHT])
def test_every_refusal_of_the_weights_says_sample_weight(call, words):
    exc = _refusal(call)
    assert (exc.parameter, exc.reason) == ("sample_weight", "value") and exc.detail.startswith(words), str(exc)
    assert str(exc) == f"sample_weight: {exc.detail}"


@pytest.mark.parametrize("call, words", ZERO_TOTAL, ids=[w[:40] for _, w in ZERO_TOTAL])
def test_weights_that_leave_an_objective_nothing_are_a_zero_total_refusal(call, words):
    exc = _refusal(call)
    assert (exc.parameter, exc.reason) == ("sample_weight", "zero_total") and exc.detail.startswith(words), str(exc)


# --- the readers of the fields ---


def test_a_metric_reads_the_label_checks_fields_not_their_text():
    exc = ArgumentRefusal.said("eval_set y", "expected binary labels in {0, 1} (1 = relevant), got other values [2]")
    refusal = MetricRefusal.of_labels(exc, "auc", "eval_set y")
    assert (refusal.reason, refusal.labels, refusal.detail, str(refusal)) == ("labels", "eval_set y", exc.detail,
                                                                                str(exc))
    exc.args = ("the labels of eval_set y: not binary",)          # reworded: said of no labels, the text is the detail
    refusal = MetricRefusal.of_labels(exc, "auc", "eval_set y")
    assert (refusal.labels, refusal.detail) == (None, "the labels of eval_set y: not binary")


def test_background_says_a_refusal_of_x_as_one_of_background():
    from rankcore._background import check_background

    exc = _refusal(lambda: check_background(lambda b: validation.check_matrix(b), np.zeros(3)))
    assert exc.parameter == "background" and str(exc).startswith("background: expected a 2-D array")
