"""``objective="yetirank"`` on trees: what it refuses (its Newton steps and seeds: test_push_queries_randomized.py)."""

import pytest

import rankcore
from _query_data import graded_queries

X, Y, QID = graded_queries(0)


def test_push_queries_yetirank_errors():
    with pytest.raises(ValueError, match=r"qid: the objective 'yetirank' ranks within queries; pass fit\(X, y, qid"):
        rankcore.boost(objective="yetirank", learner="trees", n_iter=2).fit(X, Y)
    with pytest.raises(ValueError, match="objective 'yetirank' gives gradients and curvature but no value.*"
                                         "the learner 'stumps' has no Newton leaves"):
        rankcore.boost(objective="yetirank", learner="stumps", n_iter=2).fit(X, Y, qid=QID)
    for spec, message in [("yetirank:0", "permutations"), ("yetirank:decay=0", "decay"),
                          ("yetirank:decay=1.5", "decay"), ("yetirank:newton=maybe", "newton")]:
        with pytest.raises(ValueError, match=message):
            rankcore.boost(objective=spec, learner="trees", n_iter=2).fit(X, Y, qid=QID)
