"""AutoRanker within queries: folds of whole queries, ndcg@k:10 per query, candidates that rank within queries."""

import json

import numpy as np
import pytest
from _query_data import graded_queries

import rankcore
from rankcore.auto import AutoRanker
from rankcore.auto._queries import PerQueryMean, counted_queries, plan_query_folds, plan_query_units, query_labels
from rankcore.metrics import check_qid, per_query

CANDIDATES = ["trees:n_iter=15,min_samples_leaf=5", "stumps:n_iter=15"]


def _fit(X, y, qid, **params):
    params = {"candidates": CANDIDATES, "cv": 3, "random_state": 0, "n_jobs": 1, **params}
    return AutoRanker(**params).fit(X, y, qid=qid)


@pytest.fixture(scope="module")
def data():
    return graded_queries(seed=0, n_queries=30)


@pytest.fixture(scope="module")
def fitted(data):
    return _fit(*data)


def test_auto_queries_default_metric_is_ndcg_at_10(fitted):
    assert fitted.metric_ == "ndcg@k:10"
    assert fitted.leaderboard_.metric == "ndcg@k:10"
    assert fitted.ranks_within_queries_ and fitted.n_queries_ == 30
    assert fitted.n_queries_without_pairs_ == 2            # one query of one grade, one with every grade 0
    assert "cross-validation over whole queries (30 queries, 2 with a single grade)" in fitted.cv_description_
    assert not hasattr(fitted, "classes_")


def test_auto_queries_beats_a_random_ranking(fitted):
    X, y, qid = graded_queries(seed=1, n_queries=30)
    model = per_query(y, fitted.decision_function(X), "ndcg@k:10", qid=qid).mean   # no qid needed to score
    rng = np.random.default_rng(0)
    chance = np.mean([per_query(y, rng.normal(size=y.shape[0]), "ndcg@k:10", qid=qid).mean for _ in range(20)])
    assert model > chance + 0.1
    assert fitted.score(X, y, qid=qid) == pytest.approx(model, abs=1e-12)
    with pytest.raises(ValueError, match="qid: this AutoRanker was fitted within queries"):
        fitted.score(X, y)                                        # the rows pooled into one list: refused


def test_auto_queries_shuffled_rows_same_choice_and_scores(data, fitted):
    X, y, qid = data
    order = np.random.default_rng(5).permutation(y.shape[0])
    shuffled = _fit(X[order], y[order], qid[order])
    assert shuffled.best_candidate_ == fitted.best_candidate_
    assert [r.mean for r in shuffled.leaderboard_] == pytest.approx([r.mean for r in fitted.leaderboard_],
                                                                    abs=1e-12, nan_ok=True)
    X_new = graded_queries(seed=2)[0]
    np.testing.assert_allclose(shuffled.decision_function(X_new), fitted.decision_function(X_new), rtol=0, atol=1e-9)
    for spec, scores in fitted.cv_predictions_.items():        # out-of-fold scores follow the input rows
        np.testing.assert_allclose(shuffled.cv_predictions_[spec], scores[order], rtol=0, atol=1e-9)


def test_auto_queries_other_candidates_skipped_with_reason(data):
    auto = _fit(*data, candidates=CANDIDATES + ["linear", "kernel"])
    for spec in ("linear", "kernel"):
        row = auto.leaderboard_[spec]
        assert row.status == "skipped" and row.note == "ranks one list: it cannot fit within queries"


SEEN = []


class _SeesFolds(AutoRanker):
    """An AutoRanker that records the plan and the query codes its executor gets (the executor seam)."""

    def make_executor(self, X, y, plan, metric_spec, seed, n_threads, qid=None):
        SEEN.append((plan, qid))
        return super().make_executor(X, y, plan, metric_spec, seed, n_threads, qid)


def test_auto_queries_fit_folds_keep_queries_whole(data):
    X, y, qid = data
    SEEN.clear()
    _SeesFolds(candidates=CANDIDATES[:1], cv=(3, 2), random_state=0, n_jobs=1).fit(X, y, qid=qid)
    (plan, codes), = SEEN
    assert plan.by_query and plan.n_folds == 6
    for train, validation in plan.folds:
        assert not set(codes[train]) & set(codes[validation])
        assert train.shape[0] + validation.shape[0] == y.shape[0]


@pytest.mark.parametrize("cv", ["auto", 4, (3, 2), 0.3], ids=str)
def test_auto_queries_plan_independent_of_row_order(cv):
    _, y, qid = graded_queries(seed=3, n_queries=20)
    order = np.random.default_rng(1).permutation(y.shape[0])
    contents = []
    for rows in (np.arange(y.shape[0]), order):
        queries = check_qid(qid[rows], rows.shape[0])
        labels = query_labels(y[rows], queries.codes)
        counted = counted_queries(PerQueryMean(rankcore.resolve("metric", "ndcg@k:10")), labels)
        plan = plan_query_folds(queries, counted, cv, 7, "ndcg@k:10")
        units = plan_query_units(plan, queries, counted, 7)
        folds = [frozenset(qid[rows][va]) for _, va in plan.folds]
        parts = [frozenset(qid[rows][u]) for u in units.rows]
        for train, validation in plan.folds:
            assert not set(qid[rows][train]) & set(qid[rows][validation])
        contents.append((folds, parts))
    assert contents[0] == contents[1]


def test_auto_queries_group_sizes_as_qid(data):
    X, y, qid = data
    order = np.argsort(qid, kind="stable")
    _, sizes = np.unique(qid, return_counts=True)
    by_group = AutoRanker(candidates=CANDIDATES[:1], cv=3, random_state=0, n_jobs=1).fit(X[order], y[order],
                                                                                          group=sizes)
    by_qid = _fit(X[order], y[order], qid[order], candidates=CANDIDATES[:1])
    np.testing.assert_array_equal(by_group.decision_function(X), by_qid.decision_function(X))


def test_auto_queries_explicit_metric_taken_per_query(data):
    X, y, qid = data
    auto = _fit(X, y, qid, metric="map", candidates=CANDIDATES[:1], bag_folds=False)
    assert auto.metric_ == "map"
    assert auto.score(X, y, qid=qid) == pytest.approx(per_query(y, auto.decision_function(X), "map", qid=qid).mean)
    binary = (y >= 2).astype(float)                     # a single-list metric on 0/1 grades: averaged per query
    auc = _fit(X, binary, qid, metric="auc", candidates=CANDIDATES[:1])
    assert auc.metric_ == "auc"
    assert auc.best_score_ == pytest.approx(np.mean(auc.leaderboard_[0].fold_scores))


def test_auto_queries_saved_model_says_within_queries(tmp_path, fitted, data):
    X = data[0]
    path = tmp_path / "auto.json"
    rankcore.save_model(fitted, path)
    loaded = rankcore.load_model(path)
    assert loaded.ranks_within_queries_ and loaded.n_queries_ == 30 and loaded.metric_ == "ndcg@k:10"
    np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))
    record = json.loads(path.read_text())
    state = record["state"]
    assert state["n_queries"] == 30 and "classes" not in state


def test_auto_queries_one_list_unchanged_without_qid():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=200, random_state=0)
    auto = AutoRanker(candidates=CANDIDATES[:1], random_state=0, n_jobs=1).fit(X, y)
    assert auto.metric_ == "pauc:0.1" and not auto.ranks_within_queries_ and not hasattr(auto, "n_queries_")
    assert list(auto.classes_) == [0, 1]


def test_auto_queries_holdout_of_whole_queries(data):
    X, y, qid = data
    auto = _fit(X, y, qid, cv=0.3, candidates=CANDIDATES[:1])
    assert auto.cv_description_.startswith("hold-out of ") and "rows in whole queries (30 queries" in \
        auto.cv_description_
    assert 2 <= auto.leaderboard_[0].n_folds <= 5                # the hold-out scored in parts of whole queries
    held = ~np.isnan(auto.cv_predictions_[CANDIDATES[0]])
    assert not set(qid[held]) & set(qid[~held])


def test_auto_queries_eval_set_description_counts_the_fits_queries(data):
    # the counts of X came after the eval_set's own rows, "the eval_set 'validation_0' (N rows in whole queries)
    # (30 queries, 2 with a single grade)", as if the set held X's 30 queries
    X, y, qid = data
    X_val, y_val, qid_val = graded_queries(seed=1, n_queries=12)
    auto = AutoRanker(candidates=CANDIDATES[:1], random_state=0, n_jobs=1).fit(X, y, qid=qid,
                                                                               eval_set=(X_val, y_val, qid_val))
    assert auto.cv_description_ == (f"the eval_set 'validation_0' ({y_val.shape[0]} rows in whole queries), "
                                    "fitted on 30 queries, 2 with a single grade")
    assert auto.leaderboard_.description == auto.cv_description_


@pytest.mark.parametrize("change", ["n_queries left out", "classes added", "a model of one list"])
def test_auto_queries_model_file_checked_on_load(tmp_path, fitted, change):
    from sklearn.datasets import make_classification

    from _model_files import resign

    from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

    record = model_to_dict(fitted)
    state = record["state"]
    if change == "n_queries left out":
        del state["n_queries"]
        message = "n_queries and n_queries_without_pairs go together"
    elif change == "classes added":
        state["classes"] = [0, 1]
        message = "a model chosen within queries ranks grades: it has no classes"
    else:
        X, y = make_classification(n_samples=120, random_state=0)
        one_list = model_to_dict(AutoRanker(candidates=CANDIDATES[:1], random_state=0, n_jobs=1,
                                            bag_folds=False).fit(X, y))
        state["best"] = one_list["state"]["best"]
        state["n_features_in"] = one_list["state"]["n_features_in"]
        message = "was fitted on one list, but the AutoRanker was chosen within queries"
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(resign(record))


def test_auto_queries_cross_val_score_routes_qid(data):
    import sklearn
    from sklearn.model_selection import cross_val_score

    from rankcore import QueryKFold

    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(AutoRanker(candidates=CANDIDATES[:1], cv=3, random_state=0, n_jobs=1), X, y,
                                 cv=QueryKFold(n_splits=3), params={"qid": qid})
    assert scores.shape == (3,) and ((scores > 0.5) & (scores <= 1)).all()


def test_auto_two_folds_judge_no_blend_against_the_default_alone():
    # two folds leave one other fold to choose without the one scored: that "choice" is always the default, so a
    # blend scoring exactly as the single choice (the other member is constant) was said to beat it
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 15, size=40)
    qid = np.repeat([f"q{i}" for i in range(40)], sizes)
    X = np.column_stack([rng.normal(size=qid.shape[0]), rng.normal(size=qid.shape[0])])
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=qid.shape[0]) + 1), 0, 3)
    two = np.isin(qid, ["q0", "q1"])
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=20,min_samples_leaf=5", "stumps:n_iter=20"],
                               random_state=0).fit(X[two], y[two], qid=qid[two])
    assert auto.cv_description_.startswith("2-fold")
    assert auto.best_candidate_ == "stumps:n_iter=20"
    assert auto.selection_reason_ == "beats the default by more than its noise"
    assert not any(row.name.startswith("blend(") for row in auto.leaderboard_)
