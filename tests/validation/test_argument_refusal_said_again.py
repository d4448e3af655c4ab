"""A layer that says an error again (``said_again``) or names its class in a sentence keeps the user's error: a
plugin's error class that needs more than a message is never replaced by its constructor's ``TypeError``, a
refusal's detail is found where the whole refusal is said, and an ``ArgumentRefusal`` is named the ``ValueError``
it was before it had fields."""

import numpy as np
import pytest

from rankcore import AutoRanker, PushBoost
from rankcore.objectives._push import PushObjective
from rankcore.validation import ArgumentRefusal, said_again, shown_type


class FieldedRefusal(ValueError):
    """A plugin's error with a field of its own: it cannot be made from a message alone."""

    def __init__(self, message, *, code):
        super().__init__(message)
        self.code = code


class PlainRefusal(ValueError):
    """A plugin's error made from its message alone."""


class FieldedTypeRefusal(TypeError):
    def __init__(self, message, *, code):
        super().__init__(message)
        self.code = code


def test_a_class_that_needs_fields_is_said_again_as_its_builtin_error():
    """Before: ``type(exc)(message)`` raised the constructor's TypeError ("missing ... 'code'") instead."""
    again = said_again(FieldedRefusal("objective 'p': refused", code=3), "early_stopping: objective 'p': refused")
    assert type(again) is ValueError and str(again) == "early_stopping: objective 'p': refused"
    again = said_again(FieldedTypeRefusal("X: a str", code=1), "background: a str")
    assert type(again) is TypeError and str(again) == "background: a str"
    assert type(said_again(PlainRefusal("a"), "b: a")) is PlainRefusal        # rebuilt by its class, as before
    assert type(said_again(PlainRefusal("a"), "b: a", plain=ValueError)) is ValueError


def test_the_detail_runs_from_where_the_whole_refusal_is_said():
    """Before: the detail was searched for on its own (``rfind``), so words after it that repeat it cut it short."""
    exc = ArgumentRefusal.said("position", "row 2 has -1")
    again = said_again(exc, f"{exc} (chunk 1; in X, row 2 has -1)")
    assert again.detail == "row 2 has -1 (chunk 1; in X, row 2 has -1)" and again.parameter == "position"
    before = said_again(exc, f"row 2 has -1: {exc}")                         # the detail's words before it too
    assert before.detail == "row 2 has -1"
    reworded = said_again(ArgumentRefusal.said("X", "expected 3 columns"), "background: expected 3 columns")
    assert reworded.detail == "expected 3 columns"                           # a reworded start: the detail's words


class _Picky(PushObjective):
    """The push objective refusing fewer than 120 rows with the plugin error class ``refusal``."""

    refusal = FieldedRefusal

    def check_target(self, y, sample_weight=None):
        super().check_target(y, sample_weight)
        if y.shape[0] < 120:
            raise (self.refusal("objective 'picky': too few rows", code=3) if self.refusal is FieldedRefusal
                   else self.refusal("objective 'picky': too few rows"))


@pytest.mark.parametrize("refusal", [FieldedRefusal, PlainRefusal])
def test_a_plugin_objectives_refusal_of_the_training_part_is_the_valueerror_it_was(refusal, monkeypatch):
    """Before: FieldedRefusal became the TypeError of its constructor; PlainRefusal changed class (a ValueError
    with the same words before the change)."""
    monkeypatch.setattr(_Picky, "refusal", refusal)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError) as caught:
        PushBoost(n_iter=5, early_stopping=True, random_state=0, objective=_Picky()).fit(X, y)
    assert type(caught.value) is ValueError
    assert str(caught.value) == ("early_stopping: the training rows of fold 1 of 5: objective 'picky': too few rows; "
                                 "the split draws rows without regard to sample_weight: pass eval_set=, or "
                                 "early_stopping=False")


def test_a_refusal_is_named_the_valueerror_it_was():
    from rankcore.learners import ConstraintRefusal
    from rankcore.metrics import MetricRefusal
    from rankcore.push import InitModelColumns

    assert shown_type(ArgumentRefusal.said("position", "row 2 has -1")) == "ValueError"
    assert shown_type(MetricRefusal("y: metric 'auc' needs both classes", spec="auc")) == "ValueError"
    assert shown_type(ConstraintRefusal.said("monotone", "expected 3 signs")) == "ValueError"
    assert shown_type(InitModelColumns("init_model", "split", columns=(1,), own_columns=())) == "ValueError"
    assert shown_type(FieldedRefusal("a", code=1)) == "FieldedRefusal"


def test_a_refused_constraint_is_raised_as_itself_not_summed_up_by_its_class():
    """Before: ``fold 1: ConstraintRefusal: monotone ...`` where it said ``fold 1: ValueError: monotone ...``; now
    the refusal itself, named by its candidate (tests/auto/test_auto_constraint_fit_refusals.py; a summary of
    refusals still names them ValueErrors there)."""
    from rankcore.learners import ConstraintRefusal

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ConstraintRefusal, match=r"^candidates: 'trees:n_iter=3,monotone=1/0': monotone: expected 3 "
                                                r"signs"):
        AutoRanker(candidates=["trees:n_iter=3,monotone=1/0"], n_jobs=1, random_state=0).fit(X, y)


def test_a_refusal_of_the_weights_in_every_fold_is_raised_as_itself():
    """Before: ``fold 1: ArgumentRefusal: objective ...`` where it said ``fold 1: ValueError: objective ...``; now
    one refusal of every fold of every candidate is raised as itself, named by the candidates."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    weight = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ArgumentRefusal, match=r"^candidates: 'trees:n_iter=3': objective 'push:exp,pow:2': needs "
                                              r"positive total weight in both classes") as caught:
        AutoRanker(candidates=["trees:n_iter=3"], n_jobs=1, random_state=0).fit(X, y, sample_weight=weight)
    assert (caught.value.parameter, caught.value.reason) == ("sample_weight", "zero_total")
