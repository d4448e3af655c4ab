"""Early stopping's refusal of a part that counts no query gives advice that fits its plan (hold-out or folds)."""

from __future__ import annotations

import numpy as np
import pytest

import rankcore


def test_cv_fold_without_a_relevant_query_does_not_advise_raising_validation_fraction():
    """On small data the plan is folds of whole queries, which deal every query once whatever
    validation_fraction: raising it cannot fill a fold.  (Before, the refusal advised it all the same.)"""
    rng = np.random.default_rng(0)
    X, qid = rng.normal(size=(80, 3)), np.repeat(np.arange(20), 4)
    y = np.zeros(80)
    y[[0, 29, 53]] = 1                  # 3 queries of 20 hold a relevant row: of 5 folds, 2 or more hold none
    model = rankcore.boost(learner="stumps", n_iter=3, random_state=0, early_stopping=True, scoring="ndcg@k:2")
    with pytest.raises(rankcore.MetricRefusal, match=r"^early_stopping: metric 'ndcg@k:2' counts none .*fold \d of "
                                                     r"\d+ of the cross-validation") as caught:
        model.fit(X, y, qid=qid)
    message = str(caught.value)
    assert "validation_fraction" not in message
    assert "more queries with relevant rows" in message and "random_state" in message
    assert caught.value.reason == "no_query"
