"""``ConstraintRefusal``: the trees learner's refusals of ``monotone`` and ``interactions`` against X carry which
constraint, the detail and the columns of X involved (by index), in the same words as before."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.learners import ConstraintRefusal
from rankcore.learners.trees import Trees
from _refusals import refused


def _refusal(call) -> ConstraintRefusal:
    return refused(call, ConstraintRefusal)


X = np.column_stack([np.arange(60.0) % 5, np.random.default_rng(0).normal(size=(60, 2))])
y = (X[:, 1] > 0).astype(int)


def test_a_count_of_signs_names_no_column():
    exc = _refusal(lambda: rankcore.boost(learner="trees:monotone=1/0", n_iter=2).fit(X, y))
    assert str(exc) == "monotone: expected 3 signs, one per feature of X in column order, got 2 ('1/0')"
    assert (exc.constraint, exc.columns, exc.detail) == ("monotone", (), str(exc)[len("monotone: "):])


def test_a_categorical_column_given_a_sign_carries_its_index():
    exc = _refusal(lambda: Trees(monotone="0/1/0", categorical="1").prepare(X))
    assert str(exc).startswith("learner 'trees': monotone constrains the categorical columns [1]; ")
    assert (exc.constraint, exc.columns) == ("monotone", (1,))


def test_a_column_beyond_x_names_no_column_of_x():
    exc = _refusal(lambda: rankcore.boost(learner="trees:interactions=0+7", n_iter=2).fit(X, y))
    assert str(exc) == "interactions: column 7 is out of range: expected column indices of X in 0..2 ('0+7')"
    assert (exc.constraint, exc.columns) == ("interactions", ())


@pytest.mark.parametrize("groups, start, columns", [
    ("a+0", "interactions: column 0 is twice in the group 0+a (as 0 and 'a')", (0,)),
    ("2+b", "interactions: 2 is read as the column index 2, but X also has a column named '2' (column 1)", (1, 2)),
    ("a+zz", "interactions: 'zz' is not a column of X", ()),
])
def test_columns_by_name_carry_the_columns_they_are_about(groups, start, columns):
    frame = pd.DataFrame(X, columns=["a", "2", "b"])
    exc = _refusal(lambda: rankcore.boost(learner=f"trees:interactions={groups}", n_iter=2).fit(frame, y))
    assert str(exc).startswith(start), str(exc)
    assert (exc.constraint, exc.columns) == ("interactions", columns)


def test_an_auto_candidate_keeps_the_class_said_of_the_candidate():
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["trees:n_iter=2,interactions=a+zz"], cv=2,
                                               random_state=0).fit(frame, y))
    assert str(exc).startswith("candidates: 'trees:n_iter=2,interactions=a+zz': interactions: 'zz' is not a column")
    assert exc.constraint == "interactions"


def test_it_pickles_and_refuses_a_wrong_raise():
    exc = ConstraintRefusal.said("interactions", "column 4 is twice in the group 4+d", (4,))
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), back.constraint, back.detail, back.columns) == (str(exc), "interactions", exc.detail, (4,))
    with pytest.raises(TypeError, match="constraint must be one of"):
        ConstraintRefusal("categories: no", constraint="categories")
    with pytest.raises(TypeError, match="must end with detail"):
        ConstraintRefusal("monotone: expected 3 signs", constraint="monotone", detail="expected 4 signs")


# --- the hostile re-check ---


@pytest.mark.parametrize("copied", [lambda e: pickle.loads(pickle.dumps(e)), copy.copy, copy.deepcopy],
                         ids=["pickle", "copy", "deepcopy"])
def test_a_copy_keeps_its_notes_and_attributes_as_a_plain_value_error_does(copied):
    """Before: the fields were kept but ``add_note``'s notes and a caller's attributes were dropped (a plain
    ValueError keeps them), e.g. when a refusal crosses processes (AutoRanker's n_jobs, Dask)."""
    exc = ConstraintRefusal.said("monotone", "expected 3 signs, one per feature of X in column order, got 2")
    exc.add_note("fitting candidate 2")
    exc.fold = 1
    back = copied(exc)
    assert type(back) is ConstraintRefusal and str(back) == str(exc)
    assert (back.constraint, back.detail, back.columns) == ("monotone", exc.detail, ())
    assert back.__notes__ == ["fitting candidate 2"] and back.fold == 1
    plain = ValueError("x")
    plain.add_note("n")
    assert copied(plain).__notes__ == ["n"]                    # what a ValueError does: the same


def test_an_auto_candidate_says_a_reworded_refusal_without_failing(monkeypatch):
    """Before: a refusal whose message a layer reworded after the raise (so it no longer ends with its detail) made
    the candidate's re-raise fail with a TypeError of the class's own check instead of the refusal."""
    import rankcore.learners.trees._learner as learner_module

    named_groups = learner_module.named_groups

    def reworded(*args):
        try:
            return named_groups(*args)
        except ConstraintRefusal as exc:
            exc.args = (str(exc).replace("is not a column of X", "names no column of X"),)
            raise

    monkeypatch.setattr(learner_module, "named_groups", reworded)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["trees:n_iter=2,interactions=a+zz"], cv=2,
                                               random_state=0).fit(frame, y))
    assert str(exc).startswith("candidates: 'trees:n_iter=2,interactions=a+zz': interactions: 'zz' names no column")
    assert exc.constraint == "interactions" and exc.detail == str(exc)[len("candidates: 'trees:n_iter=2,"
                                                                            "interactions=a+zz': "):]


def test_it_is_an_argument_refusal_of_its_constraint_and_said_again_keeps_its_fields():
    """One refusal machinery: a constraint refusal is the ArgumentRefusal of the learner parameter it names, so a
    layer that says it again (``said_again``) keeps its class, constraint and columns."""
    from rankcore.validation import ArgumentRefusal, said_again

    exc = ConstraintRefusal.said("interactions", "column 3 is given twice", columns=(3,))
    assert isinstance(exc, ArgumentRefusal) and (exc.parameter, exc.reason) == ("interactions", "value")
    again = said_again(exc, f"candidates: 'trees': {exc}")
    assert type(again) is ConstraintRefusal and str(again) == f"candidates: 'trees': {exc}"
    assert (again.constraint, again.detail, again.columns) == ("interactions", "column 3 is given twice", (3,))


# --- a value that cannot be read: ConstraintSpecError ---


@pytest.mark.parametrize("learner, constraint, got, columns", [
    ("trees:monotone=1/2/0", "monotone", "'1/2/0' ('2' is not a sign (-1, 0 or 1))", ()),
    ("trees:interactions=0++1", "interactions", "'0++1' (a group is empty (two separators in a row, or one at an "
                                                "end))", ()),
    ("trees:interactions=2+0+2", "interactions", "'2+0+2' (column 2 is twice in the group 2+0+2)", (2,)),
    ("trees:interactions=a+b+a", "interactions", "'a+b+a' (column 'a' is twice in the group a+b+a)", ()),
])
def test_a_value_that_cannot_be_read_is_a_spec_error_and_a_refusal_of_its_constraint(learner, constraint, got,
                                                                                      columns):
    """Before: a plain SpecError (or, through an estimator, a SpecError), with no field to read: the command line
    could not tell it from another spec's error."""
    from rankcore.learners import ConstraintSpecError
    from rankcore.registry import resolve

    for call in (lambda: resolve("learner", learner),
                 lambda: rankcore.boost(learner=learner, n_iter=2).fit(X, y)):
        with pytest.raises(ConstraintSpecError) as caught:
            call()
        exc = caught.value
        assert isinstance(exc, rankcore.SpecError) and isinstance(exc, ConstraintRefusal)
        assert str(exc).startswith(f"learner 'trees': {constraint} must be ") and str(exc).endswith(f", got {got}")
        assert exc.detail == str(exc)[len("learner 'trees': "):]
        assert (exc.constraint, exc.parameter, exc.columns) == (constraint, constraint, columns)


def test_an_unreadable_value_pickles_with_its_fields_and_stays_short():
    from rankcore.learners import ConstraintSpecError
    from rankcore.registry import resolve

    with pytest.raises(ConstraintSpecError) as caught:
        resolve("learner", "trees:interactions=3+1+3")
    back = pickle.loads(pickle.dumps(caught.value))
    assert type(back) is ConstraintSpecError and str(back) == str(caught.value)
    assert (back.constraint, back.detail, back.columns) == ("interactions", caught.value.detail, (3,))
    from rankcore.validation import shown_type

    assert shown_type(back) == "SpecError"        # a leaderboard's "fold 1: SpecError: ..." keeps its words
    # a SpecError never repeats a very long value whole: neither does its detail
    long = ConstraintSpecError("x" * 500, constraint="monotone")
    assert len(str(long)) < 120 and str(long).endswith(long.detail)
