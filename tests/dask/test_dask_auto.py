"""DaskAutoRanker: candidates x folds as tasks on a real 2-worker LocalCluster, the same search as in process."""

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import rankcore  # noqa: E402
from rankcore.dask import DaskAutoRanker  # noqa: E402
from rankcore.persistence import model_from_dict, model_to_dict  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def test_dask_auto_ranker_equals_the_in_process_search(dask_client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=150) > 0.5).astype(int)
    params = dict(candidates=["trees:n_iter=8", "linear:n_epochs=2", "stumps:n_iter=10"], random_state=5, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(X, y)
    local = rankcore.AutoRanker(**params).fit(X, y)
    assert [r.name for r in remote.leaderboard_] == [r.name for r in local.leaderboard_]
    for a, b in zip(remote.leaderboard_, local.leaderboard_):
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))
    # the fold models of the bag came back from the workers (a blend's members are bags too)
    best = local.best_estimator_
    bags = best.estimators if hasattr(best, "names") else [best]
    assert all(isinstance(b, rankcore.auto.FoldBag) for b in bags)
    assert repr(remote.best_estimator_) == repr(best)
    saved = model_to_dict(remote.to_local())
    np.testing.assert_array_equal(model_from_dict(saved).decision_function(X), local.decision_function(X))


def test_dask_auto_ranker_with_a_budget_runs_on_the_cluster(dask_client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    model = DaskAutoRanker(client=dask_client, candidates=["trees:n_iter=5", "linear:n_epochs=2"], time_budget=60,
                           random_state=0).fit(X, y)
    assert model.leaderboard_[0].status == "chosen"
    assert model.cv_description_.startswith("5-fold stratified cross-validation")


def test_dask_auto_ranker_imputes_like_the_in_process_search(dask_client):
    """Data with missing values: the candidates that refuse NaN run behind the imputer on the workers too."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] - X[:, 1] + 0.6 * rng.normal(size=150) > 0.5).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    params = dict(candidates=["trees:n_iter=8", "linear:n_epochs=2"], random_state=2, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(X, y)
    local = rankcore.AutoRanker(**params).fit(X, y)
    assert all(row.status != "skipped" for row in local.leaderboard_)
    for a, b in zip(remote.leaderboard_, local.leaderboard_):
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))


def test_dask_auto_ranker_keeps_the_same_small_data_blend(dask_client):
    """The default search on at most 120 rows: the fixed blend's members run on the workers, the same blend."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(70, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=70) > 0.3).astype(int)
    remote = DaskAutoRanker(client=dask_client, random_state=4, n_jobs=1).fit(X, y)
    local = rankcore.AutoRanker(random_state=4, n_jobs=1).fit(X, y)
    assert remote.best_candidate_ == local.best_candidate_ == "blend(linear+kernel+exactboost)"
    for a, b in zip(remote.leaderboard_, local.leaderboard_):
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))


def test_dask_auto_ranker_splits_category_columns_like_the_in_process_search(dask_client):
    """A DataFrame's category columns reach the trees on the workers as in process (split by groups)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    colour = rng.choice(list("abcdef"), 200)
    x = rng.normal(size=200)
    y = (np.isin(colour, ["b", "e"]) + 0.4 * x + 0.5 * rng.normal(size=200) > 0.8).astype(int)
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "x": x})
    params = dict(candidates=["trees:n_iter=8", "linear:n_epochs=2"], random_state=4, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(frame, y)
    local = rankcore.AutoRanker(**params).fit(frame, y)
    for a, b in zip(remote.leaderboard_, local.leaderboard_):
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(remote.decision_function(frame), local.decision_function(frame))
    trees = [m for m in getattr(local.best_estimator_, "estimators", [local.best_estimator_])
             if hasattr(m, "rankers_")]
    assert any(r.categorical for m in trees for r in m.rankers_)


def test_dask_auto_ranker_takes_sample_weight_like_the_in_process_search(dask_client):
    """Weights, as an array or a Dask array chunked as X, are scattered with the data: the same weighted search."""
    import dask.array as da

    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] - X[:, 2] + 0.6 * rng.normal(size=150) > 0.4).astype(int)
    w = rng.integers(0, 4, 150).astype(float)
    params = dict(candidates=["trees:n_iter=8", "linear:n_epochs=2", "stumps:n_iter=10"], random_state=3, n_jobs=1)
    local = rankcore.AutoRanker(**params).fit(X, y, w)
    assert local.leaderboard_["linear:n_epochs=2"].note == "takes no sample_weight"
    for remote in (DaskAutoRanker(client=dask_client, **params).fit(X, y, w),
                   DaskAutoRanker(client=dask_client, **params).fit(da.from_array(X, chunks=(50, 4)), y,
                                                                    sample_weight=da.from_array(w, chunks=50))):
        assert [r.name for r in remote.leaderboard_] == [r.name for r in local.leaderboard_]
        for a, b in zip(remote.leaderboard_, local.leaderboard_):
            np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
        np.testing.assert_array_equal(remote.decision_function(X), local.decision_function(X))
    with pytest.raises(ValueError, match="sample_weight: expected 150 weights"):
        DaskAutoRanker(client=dask_client, **params).fit(X, y, w[:10])


def test_dask_auto_ranker_feature_contributions_are_the_local_models(dask_client):
    """The fitted model is in memory on the client: its values are the in-process AutoRanker's."""
    import dask.array as da

    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=150) > 0.5).astype(int)
    params = dict(candidates=["trees:n_iter=5"], random_state=5, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(X, y)
    local = rankcore.AutoRanker(**params).fit(X, y)
    phi = remote.feature_contributions(X)
    np.testing.assert_array_equal(phi, local.feature_contributions(X))
    np.testing.assert_allclose(phi.sum(axis=1), remote.decision_function(X), rtol=1e-9, atol=1e-12)
    grouped = remote.feature_contributions(da.from_array(X, chunks=(50, 4)), background=X[:20], groups=[0, 1, 1, 0])
    np.testing.assert_array_equal(grouped, local.feature_contributions(X, background=X[:20], groups=[0, 1, 1, 0]))
    assert grouped.shape == (150, 3)


@pytest.mark.filterwarnings("ignore:candidate .trees.*in no group:UserWarning")
def test_dask_auto_ranker_takes_interactions_by_name_like_the_in_process_search(dask_client):
    """The workers resolve a candidate by its spec: one naming columns is sent with their indices."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=["age", "income", "height"])
    y = (frame.age + frame.income + 0.5 * rng.normal(size=200) > 0.5).astype(int).to_numpy()
    params = dict(candidates=["trees:n_iter=6,interactions=income+age", "linear:n_epochs=2"], random_state=4,
                  n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(frame, y)
    local = rankcore.AutoRanker(**params).fit(frame, y)
    assert "trees:n_iter=6,interactions=income+age" in [row.name for row in remote.leaderboard_]
    for a, b in zip(remote.leaderboard_, local.leaderboard_):
        assert a.name == b.name and a.status != "failed"
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(remote.decision_function(frame), local.decision_function(frame))


@pytest.mark.parametrize("spec, constraint", [("trees:n_iter=3,monotone=1/0", "monotone"),
                                              ("trees:n_iter=3,interactions=0+7", "interactions")])
def test_dask_auto_ranker_raises_a_constraint_refused_on_the_workers_as_the_in_process_search(dask_client, spec,
                                                                                             constraint):
    """The learner's ConstraintRefusal of a fold fit on a worker comes back pickled in its task's result, with its
    class and fields: raised named by the candidate, as in process (before: a ValueError summing up the folds)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] > 0).astype(int)
    params = dict(candidates=["linear:n_epochs=2", spec], random_state=5, n_jobs=1)
    from rankcore.learners import ConstraintRefusal

    with pytest.raises(ConstraintRefusal) as remote:
        DaskAutoRanker(client=dask_client, **params).fit(X, y)
    with pytest.raises(ConstraintRefusal) as local:
        rankcore.AutoRanker(**params).fit(X, y)
    assert str(remote.value) == str(local.value) and str(local.value).startswith(f"candidates: {spec!r}: {constraint}")
    assert {k: getattr(remote.value, k) for k in local.value.fields} == \
        {k: getattr(local.value, k) for k in local.value.fields}
