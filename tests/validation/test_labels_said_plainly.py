"""Refusals that list the training classes show them as the user wrote them (``[0, 1]``), never as NumPy's scalar
reprs (``[np.int64(0), np.int64(1)]``, NumPy 2): ``score`` with labels outside the classes, an eval_set's y, and
``partial_fit``'s classes of mixed types."""

import numpy as np
import pytest

import rankcore
from rankcore.exactboost import ExactBoost
from rankcore.precision_at_k import SGDAtK

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
Y = np.arange(60) % 2
UNSEEN = np.where(Y == 1, 5, 0)


def _message(call) -> str:
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    text = str(info.value)
    assert "np." not in text, text
    return text


@pytest.mark.parametrize("make", [lambda: rankcore.boost(n_iter=3, random_state=0),
                                  lambda: ExactBoost(n_rounds=2, n_runs=5, random_state=0)],
                         ids=["push", "exactboost"])
def test_score_names_the_classes_plainly(make):
    model = make().fit(X, Y)
    assert "[0, 1]" in _message(lambda: model.score(X, UNSEEN))


def test_auto_ranker_score_names_the_classes_plainly():
    model = rankcore.AutoRanker(candidates=["trees:n_iter=3"], n_jobs=1, random_state=0).fit(X, Y)
    assert "[0, 1]" in _message(lambda: model.score(X, UNSEEN))


def test_eval_set_y_names_the_classes_plainly():
    fit = lambda: rankcore.boost(n_iter=3, random_state=0).fit(X, Y, eval_set=[(X, UNSEEN)])  # noqa: E731
    assert "[0, 1]" in _message(fit)


def test_mixed_classes_are_said_plainly():
    text = _message(lambda: SGDAtK().partial_fit(X, Y, classes=[np.int64(0), "a"]))
    assert "[0, 'a']" in text
