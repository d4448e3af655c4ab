"""A candidate's ``ranks_within_queries`` declaration matches what its estimator's fit does with ``qid``."""

import importlib.util

import numpy as np
import pytest
from _query_data import graded_queries

from rankcore.auto import CandidateContext
from rankcore.auto._builtin import BUILTIN_CANDIDATES
from rankcore.auto._candidate import fit_estimator
from rankcore.registry import resolve

X, Y, QID = graded_queries(seed=0, n_queries=8)
CODES = np.unique(QID, return_inverse=True)[1]


def _context(n_queries):
    return CandidateContext(metric="ndcg@k:10", n_rows=Y.shape[0], n_features=X.shape[1],
                            n_positive=int(np.count_nonzero(Y)), has_missing=False, random_state=0, n_jobs=1,
                            n_queries=n_queries)


@pytest.mark.parametrize("cls", BUILTIN_CANDIDATES, ids=lambda c: c.name)
def test_auto_queries_candidate_declaration_matches_its_estimator(cls):
    package = getattr(cls, "package", "")
    if package and importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    candidate = resolve("candidate", cls.examples[0] if cls.examples else cls.name)
    estimator = candidate.build(_context(8))
    if cls.ranks_within_queries:
        assert candidate.skip_reason(_context(8)) is None
        fitted = fit_estimator(estimator, X, Y, CODES)
        assert fitted.ranks_within_queries_ and fitted.n_queries_ == 8
    else:
        assert candidate.skip_reason(_context(8)) == "ranks one list: it cannot fit within queries"
        with pytest.raises((TypeError, ValueError)):
            fit_estimator(estimator, X, Y, CODES)
    assert candidate.skip_reason(_context(None)) != "ranks one list: it cannot fit within queries"
