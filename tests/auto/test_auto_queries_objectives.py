"""AutoRanker within queries tries other rankers: the trees candidate on another objective
(``trees:objective=lambdarank``) and LightGBM's and XGBoost's own rankers (``lightgbm``, ``xgboost``)."""

import numpy as np
import pytest
from _query_data import graded_queries

import rankcore
from rankcore.auto import CandidateContext
from rankcore.auto._candidate import fit_estimator
from rankcore.registry import resolve
from rankcore.spec import SpecError

X, Y, QID = graded_queries(seed=0, n_queries=20)
KW = dict(cv=3, random_state=0, bag_folds=False, blend=False)


def _context(n_queries, **extra):
    return CandidateContext(metric="ndcg@k:10", n_rows=Y.shape[0], n_features=X.shape[1],
                            n_positive=int(np.count_nonzero(Y)), has_missing=False, random_state=3, n_jobs=1,
                            n_queries=n_queries, **extra)


def test_trees_candidate_boosts_the_objective_it_names_within_queries():
    """(Before: 'unknown parameter(s) objective'.)  The objective reaches the push estimator, and the candidate is
    not taken for the default trees (the same learner and trees, another objective)."""
    specs = ["trees:n_iter=5", "trees:n_iter=5,objective=lambdarank"]
    auto = rankcore.AutoRanker(candidates=specs, **KW).fit(X, Y, qid=QID)
    assert [auto.leaderboard_[s].status for s in specs] in (["chosen", "evaluated"], ["evaluated", "chosen"])
    plain, other = (resolve("candidate", s) for s in specs)
    assert plain.fit_identity(_context(20)) != other.fit_identity(_context(20))
    lambdamart = fit_estimator(other.build(_context(20)), X, Y, QID)
    assert lambdamart.get_params()["objective"] == "lambdarank"
    default = fit_estimator(plain.build(_context(20)), X, Y, QID)
    assert not np.allclose(lambdamart.decision_function(X), default.decision_function(X))


def test_trees_candidate_objective_of_queries_only_is_skipped_on_one_list():
    y = (Y >= 2).astype(int)
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=5", "trees:n_iter=5,objective=lambdarank"], **KW).fit(X, y)
    row = auto.leaderboard_["trees:n_iter=5,objective=lambdarank"]
    assert row.status == "skipped" and row.note == "objective 'lambdarank' ranks within queries only (fit with qid)"


def test_trees_candidate_objective_of_one_list_is_skipped_within_queries():
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=5", "trees:n_iter=5,objective=prec@k-avg:0.05"],
                               **KW).fit(X, Y, qid=QID)
    row = auto.leaderboard_["trees:n_iter=5,objective=prec@k-avg:0.05"]
    assert row.status == "skipped"
    assert row.note == "objective 'prec@k-avg:0.05' ranks one list: it cannot fit within queries"


@pytest.mark.parametrize("spec", ["trees:objective=nosuch", "lightgbm:objective=nosuch"])
def test_candidate_objective_that_does_not_resolve_is_refused_naming_it(spec):
    with pytest.raises(ValueError, match=r"candidate '\w+': objective='nosuch': unknown objective 'nosuch'"):
        rankcore.AutoRanker(candidates=["trees:n_iter=5", spec], **KW).fit(X, Y, qid=QID)


@pytest.mark.parametrize("name", ["push", "lambdarank", "LambdaMART"])
def test_push_or_objective_named_as_a_candidate_says_the_trees_candidates_parameter(name):
    """(Before: 'unknown candidate', and the list, with no word of where the push estimator's objective goes.)"""
    with pytest.raises(SpecError, match=f"unknown candidate '{name}'") as info:
        rankcore.AutoRanker(candidates=[f"{name}:objective=lambdarank" if name == "push" else name],
                            **KW).fit(X, Y, qid=QID)
    assert "'trees:objective=lambdarank'" in str(info.value)


def _sorted_by_query(qid):
    codes = np.unique(qid, return_inverse=True)[1]
    order = np.argsort(codes, kind="stable")
    return order, codes[order], np.bincount(codes)


@pytest.mark.parametrize("name, ranker", [("lightgbm", "LGBMRanker"), ("xgboost", "XGBRanker")])
def test_peer_candidate_fits_the_librarys_ranker_on_whole_queries(name, ranker):
    """(Before: skipped, 'ranks one list'.)  Rows interleaved across queries are given to the ranker sorted by
    query, with LightGBM's group sizes or XGBoost's qid: the same model as the ranker fitted on sorted rows."""
    library = pytest.importorskip(name)
    fitted = fit_estimator(resolve("candidate", name).build(_context(20)), X, Y, QID)
    model = fitted.model
    assert type(model).__name__ == ranker and model.get_params()["objective"] in ("lambdarank", "rank:ndcg")
    order, codes, sizes = _sorted_by_query(QID)
    same = getattr(library, ranker)(**model.get_params())
    same.fit(X[order], Y[order], **({"qid": codes} if name == "xgboost" else {"group": sizes}))
    margin = {"output_margin": True} if name == "xgboost" else {"raw_score": True}
    np.testing.assert_allclose(fitted.decision_function(X), same.predict(X, **margin), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["lightgbm", "xgboost"])
def test_auto_ranker_searches_the_peer_rankers_within_queries(name, tmp_path):
    pytest.importorskip(name)
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=5", name], **KW).fit(X, Y, qid=QID)
    assert auto.leaderboard_[name].status in ("chosen", "evaluated")
    assert np.isfinite(auto.leaderboard_[name].mean)
    # chosen alone, the refit on every row is the library's ranker, whose model file is the library's own
    alone = rankcore.AutoRanker(candidates=[name], **KW).fit(X, Y, qid=QID)
    assert type(alone.best_estimator_.model).__name__.endswith("Ranker")
    with pytest.raises(TypeError, match=f"the chosen candidate '{name}' .* cannot be saved without pickle"):
        rankcore.save_model(alone, tmp_path / "auto.json")


def test_lightgbm_candidate_with_a_rankcore_objective_ranks_within_queries():
    lightgbm = pytest.importorskip("lightgbm")
    fitted = fit_estimator(resolve("candidate", "lightgbm:objective=lambdarank").build(_context(20)), X, Y, QID)
    assert isinstance(fitted.model, lightgbm.LGBMRanker)
    assert not isinstance(fitted.model.get_params()["objective"], str)       # rankcore.gbdt's adapter


def test_xgboost_candidate_within_queries_skips_what_xgbranker_cannot_fit():
    pytest.importorskip("xgboost")
    assert resolve("candidate", "xgboost:objective=lambdarank").skip_reason(_context(20)) == (
        "XGBRanker takes no custom objective: within queries only objective=auto (its rank:ndcg)")
    # XGBRanker's sample weights are one per query, AutoRanker's one per row
    assert resolve("candidate", "xgboost").skip_reason(_context(20, weighted=True)) == (
        "takes no sample_weight within queries (XGBRanker takes one weight per query, AutoRanker one per row)")
    assert resolve("candidate", "xgboost").skip_reason(_context(20)) is None


def test_weighted_fit_within_queries_does_not_advise_the_xgboost_candidate():
    """(Before: the refusal said xgboost "takes no sample_weight", then advised candidates that take it, xgboost
    among them.)"""
    pytest.importorskip("xgboost")
    with pytest.raises(ValueError, match=r"one weight per query.*take it \('trees', 'stumps', 'lightgbm'\)$"):
        rankcore.AutoRanker(candidates=["xgboost"], **KW).fit(X, Y, qid=QID, sample_weight=np.ones(Y.shape[0]))


@pytest.mark.parametrize("spec", ["lightgbm", "lightgbm:objective=lambdarank"])
@pytest.mark.parametrize("grades, shown", [(lambda y: y + 31, "31"), (lambda y: y + 0.5, "0.5")])
def test_lightgbm_candidate_refuses_grades_lgbmranker_cannot_read(spec, grades, shown):
    """(Before: each fold failed with LightGBM's "Label 31 is not less than the number of label mappings (31)".)"""
    pytest.importorskip("lightgbm")
    estimator = resolve("candidate", spec).build(_context(20))
    with pytest.raises(ValueError, match=rf"y: LGBMRanker reads whole grades 0\.\.30 .*got {shown}: map the grades"):
        fit_estimator(estimator, X, grades(Y.astype(float)), QID)
