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
        if package:             # the library's ranker (LGBMRanker, XGBRanker), fitted on the queries' rows
            assert type(fitted.model).__name__ == cls.ranker
        else:
            assert fitted.ranks_within_queries_ and fitted.n_queries_ == 8
    else:
        assert candidate.skip_reason(_context(8)) == "ranks one list: it cannot fit within queries"
        with pytest.raises((TypeError, ValueError)):
            fit_estimator(estimator, X, Y, CODES)
    assert candidate.skip_reason(_context(None)) != "ranks one list: it cannot fit within queries"


def test_trees_with_every_row_are_their_own_candidate_within_queries_on_large_data():
    # the large-data settings (every row, rate 0.2) never apply within queries: trees:subsample=1 was skipped as
    # "fits the same model as 'trees'" above 10,000 rows
    import rankcore
    from rankcore.auto import CandidateContext

    reg = rankcore.get_registry()
    plain, every_row = reg.resolve("candidate", "trees"), reg.resolve("candidate", "trees:subsample=1")
    within = CandidateContext(metric="ndcg@k:10", n_rows=13000, n_features=5, n_positive=4000, has_missing=False,
                              random_state=0, n_jobs=1, n_queries=1300)
    one_list = CandidateContext(metric="auc", n_rows=13000, n_features=5, n_positive=4000, has_missing=False,
                                random_state=0, n_jobs=1)
    assert plain.fit_identity(within) != every_row.fit_identity(within)
    assert plain.fit_identity(one_list) == every_row.fit_identity(one_list)


def test_a_named_k_is_checked_on_the_folds_the_search_uses():
    # without a budget cv="auto" uses the first repeat only; a k too long for a fold of repeat 2 refused the fit
    import numpy as np

    import rankcore

    rng = np.random.default_rng(0)
    sizes = np.full(30, 6)
    sizes[rng.choice(30, 8, replace=False)] = 14
    qid = np.repeat(np.arange(30), sizes)
    y = rng.integers(0, 3, len(qid)).astype(float)
    X = rng.normal(size=(len(qid), 3)) + y[:, None] * 0.5
    candidates = ["trees:n_iter=5,min_samples_leaf=5", "stumps:n_iter=5"]
    model = rankcore.AutoRanker(candidates=candidates, metric="ndcg@k:12", random_state=0).fit(X, y, qid=qid)
    assert model.cv_description_.startswith("5-fold cross-validation over whole queries")
