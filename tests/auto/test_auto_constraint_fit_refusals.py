"""A candidate refused for its arguments in the search is raised as that refusal, not lost in a summary.

Before: a trees candidate whose ``monotone`` or ``interactions`` value reads but does not fit X
(``trees:monotone=1/0`` on 3 columns, ``trees:interactions=0+7``) failed in every fold and ended as
``AutoRanker: no candidate could be evaluated (trees:monotone=1/0: fold 1: ValueError: ...)``, a plain
ValueError without the learner's :class:`~rankcore.learners.ConstraintRefusal` (``constraint``, ``detail``,
``columns``), and ``rankcore auto`` could not give the feature columns' advice ``rankcore fit`` gives; listed
beside another candidate it was dropped as "failed" in the leaderboard, the fit going on without the constraint
the user asked for.  Now the refusal is raised named by the candidate (``candidates: 'SPEC': ...``, as an
unreadable value is) when it is about the arguments (a constraint against X's columns: the same in every fold),
or when every fold of every candidate failed with one refusal (class and detail); a candidate that fails on some
folds only, or candidates failing differently, keep the leaderboard's notes as before.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import rankcore
from rankcore.auto import Candidate
from rankcore.learners import ConstraintRefusal
from rankcore.validation import ArgumentRefusal

from _candidate_plugins import registered_candidate

X = np.random.default_rng(0).normal(size=(150, 3))
y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)


def _learner_refusal(value):
    """The trees learner's own refusal of ``value`` against X (what ``rankcore.boost`` raises)."""
    with pytest.raises(ConstraintRefusal) as caught:
        rankcore.boost(learner=f"trees:{value}", n_iter=3, random_state=0).fit(X, y)
    return caught.value


def _same_after_pickling(exc):
    for back in (pickle.loads(pickle.dumps(exc)), copy.deepcopy(exc)):
        assert type(back) is type(exc) and str(back) == str(exc)
        assert {k: getattr(back, k) for k in exc.fields} == {k: getattr(exc, k) for k in exc.fields}


@pytest.mark.parametrize("value", ["monotone=1/0", "interactions=0+7", "monotone=1/0/1/1"])
@pytest.mark.parametrize("others", [[], ["linear:n_epochs=2"]])
def test_a_constraint_that_does_not_fit_x_is_raised_as_the_learners_refusal_naming_the_candidate(value, others):
    spec = f"trees:n_iter=3,{value}"
    learner = _learner_refusal(value)
    with pytest.raises(ConstraintRefusal) as caught:
        rankcore.AutoRanker(candidates=[*others, spec], random_state=0).fit(X, y)
    exc = caught.value
    assert type(exc) is type(learner) is ConstraintRefusal
    assert str(exc) == f"candidates: {spec!r}: {learner}"
    assert (exc.constraint, exc.parameter, exc.detail, exc.columns) == \
        (learner.constraint, learner.parameter, learner.detail, learner.columns)
    _same_after_pickling(exc)


def test_the_refusal_is_raised_on_an_eval_set_and_within_queries():
    spec = "trees:n_iter=3,monotone=1/0"
    with pytest.raises(ConstraintRefusal, match=r"^candidates: 'trees:n_iter=3,monotone=1/0': monotone: expected 3"):
        rankcore.AutoRanker(candidates=[spec], random_state=0).fit(X, y, eval_set=[(X[:40], y[:40])])
    qid = np.repeat(np.arange(15), 10)
    with pytest.raises(ConstraintRefusal, match=r"^candidates: 'trees:n_iter=3,monotone=1/0': monotone: expected 3"):
        rankcore.AutoRanker(candidates=["linear:n_epochs=2", spec], random_state=0).fit(X, y, qid=qid)


def test_the_refusal_crosses_joblib_workers_with_its_class_and_fields():
    from sklearn.model_selection import cross_val_score

    with pytest.raises(ConstraintRefusal) as caught:
        cross_val_score(rankcore.AutoRanker(candidates=["trees:n_iter=3,interactions=0+7"], random_state=0), X, y,
                        cv=2, n_jobs=2, error_score="raise")
    assert caught.value.constraint == "interactions"
    assert str(caught.value).startswith("candidates: 'trees:n_iter=3,interactions=0+7': interactions: column 7 ")


# --- a plugin's candidates: refusals that are not about a constraint ---

_CALLS = {"n": 0}


class _Refusing:
    """An estimator whose fit refuses ``X`` (every fold: a refusal; ``some`` folds: the first fit only)."""

    def __init__(self, how):
        self.how = how

    def fit(self, X, y):
        _CALLS["n"] += 1
        if self.how == "other":
            raise RuntimeError("no luck")
        if self.how == "every" or _CALLS["n"] == 1:
            raise ArgumentRefusal.said("X", "needs at least 4 columns for this test")
        self.coef_ = np.ones(X.shape[1])
        return self

    def decision_function(self, X):
        return X @ self.coef_


def _candidate(name, how):
    return type(f"_C_{name}", (Candidate,), {"name": name, "accepts_missing": True, "relative_cost": 0.01,
                                            "build": lambda self, context: _Refusing(how)})


@pytest.fixture()
def plugins():
    _CALLS["n"] = 0
    with registered_candidate(_candidate("refuses-every-fold", "every"), "auto-refuses-every-fold-test"), \
            registered_candidate(_candidate("refuses-every-fold-too", "every"), "auto-refuses-every-fold-too-test"), \
            registered_candidate(_candidate("refuses-once", "once"), "auto-refuses-once-test"), \
            registered_candidate(_candidate("fails-otherwise", "other"), "auto-fails-otherwise-test"):
        yield


def test_one_refusal_in_every_fold_of_every_candidate_is_raised_as_it(plugins):
    with pytest.raises(ArgumentRefusal) as caught:
        rankcore.AutoRanker(candidates=["refuses-every-fold", "refuses-every-fold-too"], random_state=0).fit(X, y)
    exc = caught.value
    assert type(exc) is ArgumentRefusal and (exc.parameter, exc.detail) == ("X", "needs at least 4 columns for this "
                                                                                "test")
    assert str(exc) == ("candidates: 'refuses-every-fold', 'refuses-every-fold-too': X: needs at least 4 columns for "
                        "this test")
    _same_after_pickling(exc)


def test_candidates_failing_differently_are_summed_up_as_before(plugins):
    with pytest.raises(ValueError) as caught:
        rankcore.AutoRanker(candidates=["refuses-every-fold", "fails-otherwise"], random_state=0).fit(X, y)
    assert type(caught.value) is ValueError
    assert str(caught.value).startswith("AutoRanker: no candidate could be evaluated (refuses-every-fold: fold 1: "
                                        "ValueError: X: needs at least 4 columns for this test; fails-otherwise: ")


def test_a_refusal_in_some_folds_only_or_beside_a_scored_candidate_is_a_leaderboard_note(plugins):
    model = rankcore.AutoRanker(candidates=["linear:n_epochs=2", "refuses-once", "refuses-every-fold"],
                                random_state=0).fit(X, y)
    rows = {row.name: row for row in model.leaderboard_}
    assert model.best_candidate_ == "linear:n_epochs=2"
    assert rows["refuses-once"].status == rows["refuses-every-fold"].status == "failed"
    assert "X: needs at least 4 columns" in rows["refuses-every-fold"].note


class _PrefixedRefusal(ArgumentRefusal):
    """A plugin's refusal that makes itself only of messages starting with its parameter (``"X: ..."``)."""

    def __init__(self, message, **fields):
        if not message.startswith("X: "):
            raise TypeError("_PrefixedRefusal: the message must start with 'X: '")
        super().__init__(message, **fields)


class _RefusingPrefixed:
    def fit(self, X, y):
        raise _PrefixedRefusal.said("X", "refused in every fold")

    def decision_function(self, X):
        return X[:, 0]


def test_a_refusal_that_cannot_be_said_by_the_candidates_is_summed_up_as_before():
    """Before the fix: the plugin class's constructor refused the words ``candidates: 'SPEC': X: ...`` and the fit
    raised its TypeError; a refusal that cannot be said again keeps the summary of the failures."""
    candidate = type("_C_prefixed", (Candidate,), {"name": "refuses-prefixed", "accepts_missing": True,
                                                   "relative_cost": 0.01,
                                                   "build": lambda self, context: _RefusingPrefixed()})
    with registered_candidate(candidate, "auto-refuses-prefixed-test"):
        with pytest.raises(ValueError) as caught:
            rankcore.AutoRanker(candidates=["refuses-prefixed"], random_state=0).fit(X, y)
    assert type(caught.value) is ValueError
    assert str(caught.value).startswith("AutoRanker: no candidate could be evaluated (refuses-prefixed: fold 1: "
                                        "ValueError: X: refused in every fold")


class _ConstraintOnce:
    """Refuses its constraint on the first fit only (a plugin's refusal of one fold's columns)."""

    calls = 0

    def fit(self, X, y):
        type(self).calls += 1
        if type(self).calls == 1:
            raise ConstraintRefusal.said("monotone", "column 0 is constant on these rows", (0,))
        self.coef_ = np.ones(X.shape[1])
        return self

    def decision_function(self, X):
        return X @ self.coef_


def test_a_constraint_refused_on_some_folds_only_is_a_leaderboard_note_beside_scored_folds():
    """The rule holds: a candidate that scored a fold is never raised for its refusal of another."""
    _ConstraintOnce.calls = 0
    candidate = type("_C_constraint_once", (Candidate,), {"name": "constraint-once", "accepts_missing": True,
                                                          "relative_cost": 0.01,
                                                          "build": lambda self, context: _ConstraintOnce()})
    with registered_candidate(candidate, "auto-constraint-once-test"):
        model = rankcore.AutoRanker(candidates=["linear:n_epochs=2", "constraint-once"], random_state=0).fit(X, y)
    rows = {row.name: row for row in model.leaderboard_}
    assert rows["constraint-once"].status == "failed"
    assert "monotone: column 0 is constant" in rows["constraint-once"].note
    assert _ConstraintOnce.calls >= 2          # its second fold ran (and scored) in the same rung
