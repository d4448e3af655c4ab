"""AutoRanker's refusals say the argument the same way in every case and keep their class and fields.

Before: a trees candidate's ``monotone`` value holding no sign was refused deep in the search, without the
``candidates: 'SPEC':`` its ``interactions`` value had (and only after the data were checked); a candidate
the registry could not configure did not name ``candidates``; a set of ``eval_set`` whose X_val was a
malformed sparse matrix (or had too many columns) was a plain ValueError where the set's other refusals carry
fields; push's eval_set refused X's columns and y's classes as plain ValueErrors beside its ArgumentRefusal of
a malformed X; the contributions of a fold bag's model said a refusal again as a plain ValueError.
"""

from __future__ import annotations


import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from rankcore.auto import check_params
from rankcore.learners import ConstraintRefusal, ConstraintSpecError
from rankcore.registry import UnknownComponentError
from rankcore.spec import SpecError
from rankcore.validation import ArgumentRefusal
from _refusals import refused

X = np.random.default_rng(0).normal(size=(60, 3))
y = (X[:, 0] > 0).astype(int)


def _refusal(call, cls=ArgumentRefusal):
    return refused(call, cls, round_trip=True)


def _malformed() -> sp.csr_matrix:
    M = sp.csr_matrix(np.where(X > 0, X, 0.0))
    M.indices[3] = 9
    return M


# --- candidates: a trees candidate's constraints that cannot be read, before any data ---


@pytest.mark.parametrize("spec, constraint, got, columns", [
    ("trees:monotone=1/2", "monotone", "got '1/2' ('2' is not a sign (-1, 0 or 1))", ()),
    ("trees:interactions=0+0", "interactions", "got '0+0' (column 0 is twice in the group 0+0)", (0,)),
    ("trees:n_iter=5,interactions=0++1", "interactions", "(a group is empty (two separators in a row, or one at "
                                                          "an end))", ()),
])
def test_an_unreadable_constraint_is_refused_by_check_params_naming_the_candidate(spec, constraint, got, columns):
    exc = _refusal(lambda: check_params(rankcore.AutoRanker(candidates=["linear", spec])), ConstraintSpecError)
    assert isinstance(exc, SpecError) and isinstance(exc, ConstraintRefusal)
    assert str(exc).startswith(f"candidates: {spec!r}: learner 'trees': {constraint} must be ")
    assert str(exc).endswith(got)
    assert (exc.constraint, exc.parameter, exc.columns) == (constraint, constraint, columns)
    assert exc.detail == str(exc)[len(f"candidates: {spec!r}: learner 'trees': "):]
    # the fit says the same, before it reads X
    again = _refusal(lambda: rankcore.AutoRanker(candidates=[spec]).fit("not an array", y), ConstraintSpecError)
    assert str(again) == str(exc)


def test_readable_constraints_and_names_still_pass_check_params():
    setup = check_params(rankcore.AutoRanker(candidates=["trees:monotone=1/0/-1", "trees:interactions=age+0/1"]))
    assert [c.spec for c in setup.candidates] == ["trees:monotone=1/0/-1", "trees:interactions=age+0/1"]


@pytest.mark.parametrize("spec, cls, says", [
    ("no-such-candidate", UnknownComponentError, "unknown candidate 'no-such-candidate'; registered candidates: "),
    ("trees:nonsense=3", SpecError, "candidate 'trees': unknown parameter(s) nonsense; expected n_iter"),
    ("trees:max_leaves=1", SpecError, "candidate 'trees': max_leaves must be an integer >= 2, got '1'"),
])
def test_a_candidate_that_cannot_be_configured_names_candidates_and_keeps_its_class(spec, cls, says):
    with pytest.raises(cls) as caught:
        check_params(rankcore.AutoRanker(candidates=["linear", spec]))
    assert type(caught.value) is cls
    assert str(caught.value).startswith(f"candidates: {spec!r}: {says}")


# --- eval_set: X_val and y_val are refused as the arguments the user passed ---


@pytest.mark.parametrize("eval_set, label", [
    ([(lambda: _malformed(), y)], "eval_set"),
    ((lambda: _malformed(), y), "eval_set"),
    ([(lambda: X + 1, y), (lambda: _malformed(), y)], "eval_set[1]"),
])
def test_a_malformed_sparse_x_val_is_a_refusal_of_that_sets_x_val(eval_set, label):
    sets = [(X_val(), y_val) for X_val, y_val in (eval_set if isinstance(eval_set, list) else [eval_set])]
    given = sets if isinstance(eval_set, list) else sets[0]
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["linear"], random_state=0).fit(X, y, eval_set=given))
    assert type(exc) is ArgumentRefusal and (exc.parameter, exc.reason) == (f"{label} X_val", "value")
    # the words of before: the set, X_val, then the check's own (which names X)
    assert str(exc).startswith(f"{label}: X_val: X: malformed sparse CSR matrix of shape (60, 3): every column "
                               "index must lie in [0, 3), got 9 in row ")
    assert exc.detail == str(exc)[len(f"{label}: X_val: X: "):]


def test_an_x_val_of_other_columns_is_a_refusal_of_x_val_in_sklearns_words():
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["linear"]).fit(X, y, eval_set=[(np.ones((5, 4)),
                                                                                           np.r_[0, 1, 0, 1, 0])]))
    assert exc.parameter == "eval_set X_val"
    assert str(exc) == "eval_set: X_val: X has 4 features, but AutoRanker is expecting 3 features as input."
    assert exc.detail == str(exc)[len("eval_set: X_val: "):]


@pytest.mark.parametrize("y_val, detail", [
    (y[:5], "expected y_val of one label per row of X_val (60), got shape (5,)"),
    (y + 5, "y_val holds labels other than the training classes [0, 1]"),
    (np.zeros(60, dtype=int), "y_val holds one class only; the candidates are chosen on it: it needs both"),
])
def test_y_val_on_one_list_is_a_refusal_of_y_val(y_val, detail):
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["linear"]).fit(X, y, eval_set=[(X + 1, y_val)]))
    assert (exc.parameter, exc.detail, str(exc)) == ("eval_set y_val", detail, f"eval_set: {detail}")


def test_y_val_within_queries_is_a_refusal_of_y_val_in_the_words_of_before():
    grades, qid = np.arange(60) % 3, np.repeat(np.arange(6), 10)
    exc = _refusal(lambda: rankcore.AutoRanker(candidates=["linear"]).fit(
        X, grades, qid=qid, eval_set=[(X + 1, grades[:5], qid)]))
    assert str(exc) == "eval_set y_val: expected one grade per row of X (60), got 5"
    assert (exc.parameter, exc.detail) == ("eval_set y_val", "expected one grade per row of X (60), got 5")


# --- push: every refusal of a set's X (and of its classes) is an ArgumentRefusal ---


@pytest.mark.parametrize("X_val, detail", [
    (lambda: np.ones((60, 5)), "expected 3 features (as X), got 5"),
    (_malformed, "malformed sparse CSR matrix of shape (60, 3): every column index must lie in [0, 3), got 9 in "
                 "row "),
])
def test_push_refuses_a_sets_x_as_an_argument_refusal_of_it(X_val, detail):
    exc = _refusal(lambda: rankcore.boost(learner="trees", n_iter=2).fit(X, y, eval_set=[(X, y), (X_val(), y)]))
    assert exc.parameter == "eval_set[1] X" and exc.detail.startswith(detail)
    assert str(exc) == f"eval_set[1] X: {exc.detail}"


def test_push_refuses_a_sets_classes_as_an_argument_refusal_of_its_y():
    exc = _refusal(lambda: rankcore.boost(learner="trees", n_iter=2).fit(X, y, eval_set=(X, y + 2)))
    assert (exc.parameter, str(exc)) == ("eval_set y", "eval_set y: expected labels among the training classes [0, 1]")


# --- contributions: a bag's model's refusal keeps its class ---


def test_a_bag_models_refusal_of_its_contributions_keeps_its_class(monkeypatch):
    model = rankcore.AutoRanker(candidates=["trees:n_iter=3"], cv=2, random_state=0, n_jobs=1).fit(X, y)

    def refusing(self, Z, **options):
        raise ArgumentRefusal.said("groups", "expected one label per column, got 2")

    monkeypatch.setattr(rankcore.PushBoost, "feature_contributions", refusing)
    exc = _refusal(lambda: model.feature_contributions(X[:5]))
    assert exc.parameter == "groups" and exc.detail == "expected one label per column, got 2"
    assert str(exc).endswith(": expected one label per column, got 2") and "candidate 'trees:n_iter=3'" in str(exc)

    def plain(self, Z, **options):
        raise ValueError("the model file holds no covers")

    monkeypatch.setattr(rankcore.PushBoost, "feature_contributions", plain)
    with pytest.raises(ValueError) as caught:
        model.feature_contributions(X[:5])
    assert type(caught.value) is ValueError and str(caught.value).endswith(": the model file holds no covers")
