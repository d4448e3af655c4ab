"""``objective="xendcg"`` on trees: its alias and what it refuses.

Its Newton steps and seeds are tested with yetirank's (test_push_queries_randomized.py); its model files, display
positions and Dask fits with the other objectives within queries (test_push_queries_persistence.py,
test_push_queries_positions.py, tests/dask/test_dask_queries.py)."""

import numpy as np
import pytest

import rankcore
from _query_data import graded_queries

X, Y, QID = graded_queries(0)


def test_push_queries_xendcg_errors():
    with pytest.raises(ValueError, match=r"qid: the objective 'xendcg' ranks within queries; pass fit\(X, y, qid"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, Y)
    with pytest.raises(ValueError, match="objective 'xendcg' gives gradients and curvature but no value.*"
                                         "the learner 'stumps' has no Newton leaves"):
        rankcore.boost(objective="xendcg", learner="stumps", n_iter=2).fit(X, Y, qid=QID)
    bad = Y.copy()
    bad[5] = -1.0
    with pytest.raises(ValueError, match=r"y: relevance grades must be finite numbers >= 0.*got -1.0 at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    bad[5] = np.nan
    with pytest.raises(ValueError, match=r"y: relevance grades must be finite numbers >= 0.*got nan at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    bad[5] = 1024.0
    with pytest.raises(ValueError, match=r"y: the objective 'xendcg' weighs rows by the gain 2\^grade, so grades "
                                         r"must be <= 1023, got 1024.0 at row 5"):
        rankcore.boost(objective="xendcg", learner="trees", n_iter=2).fit(X, bad, qid=QID)
    with pytest.raises(ValueError, match="xendcg"):
        rankcore.boost(objective="xendcg:3", learner="trees", n_iter=2).fit(X, Y, qid=QID)


def test_push_queries_xendcg_reads_sample_weights():
    w = np.where(np.char.endswith(QID, "3"), 3.0, 1.0)
    plain = rankcore.boost(objective="xendcg", learner="trees", n_iter=5, random_state=0).fit(X, Y, qid=QID)
    weighted = rankcore.boost(objective="xendcg", learner="trees", n_iter=5, random_state=0).fit(X, Y, w, qid=QID)
    assert not np.array_equal(plain.decision_function(X), weighted.decision_function(X))
