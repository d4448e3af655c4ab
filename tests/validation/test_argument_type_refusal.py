"""``ArgumentTypeRefusal``: values of the wrong type (text grades, text positions, query ids that mix numbers and
text) are refused with the argument's fields, as one class wherever they are refused (``fit``, ``score``, the
metrics), and stay ``TypeError`` where they were one."""

import pickle

import numpy as np
import pytest

import rankcore
from rankcore.metrics import check_qid, joined_ids
from rankcore.objectives import check_positions
from rankcore.validation import ArgumentRefusal, ArgumentTypeRefusal, said_again, shown_type

X = np.random.default_rng(0).normal(size=(40, 3))
grades = np.tile([0, 1, 2, 0, 1], 8)
qid = np.repeat(np.arange(8), 5)


def _refused(call) -> ArgumentTypeRefusal:
    with pytest.raises(ArgumentTypeRefusal) as info:
        call()
    exc = info.value
    # every way a caller catches it: the old TypeError, a ValueError as fit's refusals, the class with fields
    assert isinstance(exc, TypeError) and isinstance(exc, ValueError) and isinstance(exc, ArgumentRefusal)
    assert str(exc) == f"{exc.parameter}: {exc.detail}"
    return exc


# --- the class ---


def test_it_is_said_as_the_type_error_it_was_and_keeps_its_class():
    exc = ArgumentTypeRefusal.said("y", "expected numbers, got dtype <U1")
    assert shown_type(exc) == "TypeError"
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is ArgumentTypeRefusal and (back.parameter, back.detail) == ("y", exc.detail)
    again = said_again(exc, f"{exc} (chunk 2, whose first row is row 90 of X)")
    assert type(again) is ArgumentTypeRefusal and again.detail.endswith("(chunk 2, whose first row is row 90 of X)")
    plain = ArgumentTypeRefusal.of(TypeError("y: expected numbers, got dtype <U1"), "y")
    assert (plain.parameter, plain.detail) == ("y", "expected numbers, got dtype <U1")
    assert ArgumentTypeRefusal.of(exc, "y") is exc


# --- text grades: one refusal in fit, score and the metrics ---


@pytest.fixture(scope="module")
def model():
    return rankcore.PushBoost(learner="stumps", n_iter=2, random_state=0).fit(X, grades, qid=qid)


def test_text_grades_are_refused_alike_by_fit_score_and_evaluate(model):
    text = grades.astype(str)
    scores = model.decision_function(X)
    refusals = [
        _refused(lambda: rankcore.PushBoost(learner="stumps", n_iter=2).fit(X, text, qid=qid)),
        _refused(lambda: model.score(X, text, qid=qid)),
        _refused(lambda: rankcore.evaluate(text, scores, "ndcg@k:5", qid=qid)),
        _refused(lambda: rankcore.evaluate(text, scores, ["ndcg@k:5", "auc"], qid=qid)),
        _refused(lambda: rankcore.resolve("metric", "ndcg@k:5")(text, scores)),
        _refused(lambda: rankcore.evaluate(list(text), scores, "map", qid=qid)),
    ]
    assert {type(exc) for exc in refusals} == {ArgumentTypeRefusal}
    assert {exc.parameter for exc in refusals} == {"y"}
    assert all("<U" in exc.detail for exc in refusals)


def test_an_eval_sets_text_grades_name_its_labels(model):
    exc = _refused(lambda: rankcore.PushBoost(learner="stumps", n_iter=2).fit(
        X, grades, qid=qid, eval_set=(X, grades.astype(str), qid)))
    assert exc.parameter == "eval_set y"


def test_numbers_as_objects_are_still_grades(model):
    scores = model.decision_function(X)
    assert rankcore.evaluate(grades.astype(object), scores, "ndcg@k:5", qid=qid)["ndcg@k:5"] == pytest.approx(
        rankcore.evaluate(grades, scores, "ndcg@k:5", qid=qid)["ndcg@k:5"])


# --- display positions that are not integers at all ---


@pytest.mark.parametrize("position, words", [
    (None, "expected one integer display position per row, got None"),
    (np.array([0, "a"], dtype=object), "expected integer display positions, row 1 has 'a'"),
    (np.array([0, True], dtype=object), "expected integer display positions, row 1 has True"),
    (np.array([True, False]), "expected integer display positions, got an array of bool"),
    (np.array(["0", "1"]), "expected integer display positions, got an array of <U1"),
], ids=["none", "text", "bool-object", "bool", "text-array"])
def test_positions_of_the_wrong_type_name_position(position, words):
    exc = _refused(lambda: check_positions(position, 2))
    assert (exc.parameter, exc.detail) == ("position", words)


def test_a_fits_positions_of_the_wrong_type_name_the_argument():
    exc = _refused(lambda: rankcore.PushBoost(learner="stumps", n_iter=2).fit(
        X, grades, qid=qid, position=np.array(["top"] * 40)))
    assert exc.parameter == "position"


# --- query ids that mix numbers and text ---


def _mixed(ids):
    ids = ids.astype(object)
    ids[20:] = [str(v) for v in ids[20:]]        # 4 and "4" ...: the second half as text
    return ids


@pytest.mark.parametrize("form", [np.asarray, list], ids=["object array", "list"])
def test_ids_that_mix_numbers_and_text_are_refused_everywhere(model, form):
    ids = form(_mixed(qid))
    refusals = [
        _refused(lambda: check_qid(ids, 40)),
        _refused(lambda: rankcore.PushBoost(learner="stumps", n_iter=2).fit(X, grades, qid=ids)),
        _refused(lambda: model.score(X, grades, qid=ids)),
        _refused(lambda: rankcore.evaluate(grades, model.decision_function(X), "ndcg@k:5", qid=ids)),
    ]
    for exc in refusals:
        assert exc.parameter == "qid"
        assert exc.detail.startswith("query ids mix numbers and text (0 (int) at row 0, '4' (str) at row 20)")


def test_ids_of_one_type_each_are_taken():
    """Text, numbers of several types, tuples: no mix of numbers and text, so one query per id as before."""
    assert check_qid(qid.astype(str), 40).n_queries == 8
    assert check_qid([1, 2.5, np.int64(3), 1], 4).n_queries == 3
    ids = np.empty(3, dtype=object)
    ids[:] = [("a", 1), ("a", 2), ("a", 1)]
    assert check_qid(ids, 3).n_queries == 2


def test_chunks_numpy_would_join_into_one_type_give_the_ids_of_one_array():
    """np.True_ beside "a" is refused in an object array as a chunk of booleans beside one of text is; chunks of
    b"a" and of "a" stay two ids, as in one array (NumPy's join would decode the bytes into one "a")."""
    ids = np.array([np.True_, np.True_, "a"], dtype=object)
    for exc in (_refused(lambda: check_qid(ids, 3)),
                _refused(lambda: joined_ids([np.array([True]), np.array([True]), np.array(["a"])]))):
        assert exc.detail.startswith("query ids mix numbers and text (")
        assert "(bool) at row 0" in exc.detail and "'a' (str) at row 2" in exc.detail
    joined = joined_ids([np.array([b"a", b"b"]), np.array(["a"])])
    assert joined.tolist() == [b"a", b"b", "a"]
    assert check_qid(joined, 3).n_queries == check_qid(np.array([b"a", b"b", "a"], dtype=object), 3).n_queries == 3


def test_the_ids_kinds_are_said_at_their_first_rows():
    """The kinds are looked at over the distinct ids: each still said at the row it first appears."""
    ids = np.array([7, 7, 8, 7, "x", 8, "y"], dtype=object)
    detail = _refused(lambda: check_qid(ids, 7)).detail
    assert detail.startswith("query ids mix numbers and text (7 (int) at row 0, 'x' (str) at row 4)")


def test_a_nan_chunk_beside_text_is_refused_as_missing():
    """A chunk of float ids with NaN beside one of text: NumPy's join would make NaN the text "nan", one more
    query; it is refused as a missing id, as in one array."""
    with pytest.raises(ValueError, match="qid: query ids must not be NaN, got NaN at row 1 of chunk 1") as info:
        joined_ids([np.array(["a", "b"]), np.array([3.0, np.nan])], where=lambda k, i: f"at row {i} of chunk {k}")
    assert not isinstance(info.value, TypeError)
    with pytest.raises(ValueError, match="must not be NaN, got NaN at row 2$"):
        joined_ids([np.array(["a", "b"]), np.array([np.nan])])


def test_a_missing_id_beside_text_is_refused_as_missing():
    with pytest.raises(ValueError, match="must not be None or NaN, got nan at row 1"):
        check_qid(np.array(["a", np.nan], dtype=object), 2)
