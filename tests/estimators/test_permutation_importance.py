"""``rankcore.permutation_importance``: equal to a plain loop over features and shuffles scored by
``rankcore.evaluate``; zero for unused features and for query-level ones shuffled within queries."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

import rankcore
from _query_data import graded_queries

TREES = "trees:max_leaves=7,min_samples_leaf=5"


def reference(model, X, y, spec, *, qid=None, n_repeats=3, seed=0, within="rows", groups=None, init_score=None):
    """The importances by the definition: for each feature, ``default_rng(seed)`` draws ``n_repeats`` permutations
    of the rows (within queries: keys whose order shuffles each query's rows, taken in their order); the metric is
    ``rankcore.evaluate`` of the model's scores on a copy of X with the column(s) replaced."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    groups = [[j] for j in range(d)] if groups is None else groups
    metric = rankcore.resolve("metric", spec)
    sign = 1.0 if metric.greater_is_better else -1.0

    def value(matrix):
        scores = model.decision_function(matrix) + (0.0 if init_score is None else init_score)
        return float(rankcore.evaluate(y, scores, [spec], qid=qid)[spec])

    baseline = value(X)
    out = np.zeros((len(groups), n_repeats))
    for f, cols in enumerate(groups):
        rng = np.random.default_rng(seed)
        for r in range(n_repeats):
            keys = rng.permutation(n)
            if within == "rows":
                source = keys
            else:
                source = np.empty(n, dtype=np.int64)
                for q in np.unique(qid):
                    rows = np.flatnonzero(qid == q)              # the query's rows in their order
                    source[rows] = rows[np.argsort(keys[rows])]  # ... and in the order of their keys
            shuffled = X.copy()
            for j in cols:
                shuffled[:, j] = X[source, j]
            out[f, r] = sign * (baseline - value(shuffled))
    return baseline, out


@pytest.fixture(scope="module")
def one_list():
    """Two classes driven by x0 and x1; x2 constant in training (no tree splits on it), random when scored."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=400) > 0.8).astype(int)
    X_fit = X.copy()
    X_fit[:, 2] = 0.0
    model = rankcore.boost(learner=TREES, n_iter=25, random_state=0).fit(X_fit, y)
    return model, X, y


@pytest.fixture(scope="module")
def queries():
    """Graded queries, x3 one value per query (a query-level feature), a model of trees fitted within them."""
    X, y, qid = graded_queries(seed=4, n_queries=40, rows=(8, 20))
    level = {q: v for q, v in zip(np.unique(qid), np.random.default_rng(5).normal(size=np.unique(qid).size))}
    X[:, 3] = [level[q] for q in qid]
    model = rankcore.boost(learner="trees:max_depth=4", n_iter=30, random_state=0).fit(X, y, qid=qid)
    return model, X, y, qid


@pytest.mark.parametrize("spec", ["pauc:0.1", "prec@k:0.05", "auc", "rmax"])
def test_one_list_equals_the_reference(one_list, spec):
    model, X, y = one_list
    result = rankcore.permutation_importance(model, X, y, scoring=spec, n_repeats=3, random_state=7)
    baseline, expected = reference(model, X, y, spec, seed=7)
    assert result.baseline == baseline
    np.testing.assert_array_equal(result.importances, expected)
    np.testing.assert_array_equal(result.importances_mean, expected.mean(axis=1))
    np.testing.assert_array_equal(result.importances_std, expected.std(axis=1))
    assert result.feature_names == ["x0", "x1", "x2", "x3"]


@pytest.mark.parametrize("spec,within", [("ndcg@k:5", "rows"), ("ndcg@k:5", "queries"), ("map", "rows"),
                                         ("err@k:3", "queries")])
def test_within_queries_equals_the_reference(queries, spec, within):
    model, X, y, qid = queries
    result = rankcore.permutation_importance(model, X, y, qid=qid, scoring=spec, n_repeats=3, random_state=3,
                                             within=within)
    baseline, expected = reference(model, X, y, spec, qid=qid, seed=3, within=within)
    assert result.baseline == pytest.approx(baseline, rel=1e-14, abs=0)
    np.testing.assert_allclose(result.importances, expected, rtol=0, atol=1e-14)


def test_a_feature_the_model_never_reads_has_importance_exactly_0(one_list):
    model, X, y = one_list
    assert model.feature_importances_[2] == 0
    result = rankcore.permutation_importance(model, X, y, scoring="pauc:0.1", random_state=0)
    assert np.all(result.importances[2] == 0.0)


def test_the_feature_that_decides_the_ranking_comes_first(one_list, queries):
    model, X, y = one_list
    result = rankcore.permutation_importance(model, X, y, scoring="auc", random_state=0)
    assert np.argmax(result.importances_mean) == 0 and result.importances_mean[0] > 0.15
    model, X, y, qid = queries
    result = rankcore.permutation_importance(model, X, y, qid=qid, random_state=0)
    assert np.argmax(result.importances_mean) == 0 and result.importances_mean[0] > 0.1


def test_a_query_level_feature_shuffled_within_queries_has_importance_0(queries):
    model, X, y, qid = queries
    assert model.feature_importances_[3] > 0                          # the trees use it...
    over_rows = rankcore.permutation_importance(model, X, y, qid=qid, random_state=0, features=[3])
    within = rankcore.permutation_importance(model, X, y, qid=qid, random_state=0, features=[3], within="queries")
    assert np.any(over_rows.importances != 0)                          # ...across queries
    assert np.all(within.importances == 0.0)                           # a shuffle within a query changes no value


def test_the_default_scoring_is_the_model_score(queries, one_list):
    model, X, y, qid = queries
    result = rankcore.permutation_importance(model, X, y, qid=qid, n_repeats=2, random_state=0, features=[1])
    assert result.baseline == model.score(X, y, qid=qid)
    shuffled = X.copy()
    shuffled[:, 1] = X[np.random.default_rng(0).permutation(X.shape[0]), 1]
    assert result.importances[0, 0] == model.score(X, y, qid=qid) - model.score(shuffled, y, qid=qid)
    model, X, y = one_list
    assert rankcore.permutation_importance(model, X, y, random_state=0).baseline == model.score(X, y)


def test_group_and_qid_agree_and_groups_of_columns_share_one_shuffle(queries):
    model, X, y, qid = queries
    order = np.argsort(qid, kind="stable")
    X_s, y_s, qid_s = X[order], y[order], qid[order]
    _, sizes = np.unique(qid_s, return_counts=True)
    by_qid = rankcore.permutation_importance(model, X_s, y_s, qid=qid_s, scoring="ndcg@k:5", random_state=2)
    by_group = rankcore.permutation_importance(model, X_s, y_s, group=sizes, scoring="ndcg@k:5", random_state=2)
    np.testing.assert_array_equal(by_qid.importances, by_group.importances)
    result = rankcore.permutation_importance(model, X, y, qid=qid, scoring="ndcg@k:5", random_state=2,
                                             features={"first two": [0, 1], "x3": "x3"}, n_repeats=2)
    _, expected = reference(model, X, y, "ndcg@k:5", qid=qid, seed=2, n_repeats=2, groups=[[0, 1], [3]])
    np.testing.assert_allclose(result.importances, expected, rtol=0, atol=1e-14)
    assert result.feature_names == ["first two", "x3"]
    assert rankcore.permutation_importance(model, X, y, qid=qid, features=[[0, 2]], n_repeats=1).feature_names \
        == ["x0+x2"]


def test_seeded_shuffles_are_repeatable_and_a_feature_does_not_depend_on_the_others_listed(one_list):
    model, X, y = one_list

    def run(**kwargs):
        return rankcore.permutation_importance(model, X, y, scoring="pauc:0.1", n_repeats=4, **kwargs).importances

    np.testing.assert_array_equal(run(random_state=5), run(random_state=5))
    assert not np.array_equal(run(random_state=5), run(random_state=6))
    np.testing.assert_array_equal(run(random_state=5)[1], run(random_state=5, features=[1])[0])
    for make in (np.random.default_rng, np.random.RandomState):
        np.testing.assert_array_equal(run(random_state=make(9)), run(random_state=make(9)))


def test_threads_do_not_change_the_importances(queries, exact_threads):
    exact_threads(2)
    model, X, y, qid = queries
    runs = []
    for threads in (1, 2):
        model.set_params(n_jobs=threads)
        runs.append(rankcore.permutation_importance(model, X, y, qid=qid, scoring="ndcg@k:5", random_state=0,
                                                    n_jobs=threads).importances)
    model.set_params(n_jobs=None)
    np.testing.assert_array_equal(runs[0], runs[1])


class _Spy(BaseEstimator):
    """Scores with ``model`` and records the dtypes of every frame it is given."""

    def __init__(self, model=None):
        self.model = model

    def fit(self, X=None, y=None):
        self.seen_ = []
        return self

    def decision_function(self, X):
        self.seen_.append(tuple(str(t) for t in X.dtypes))
        return self.model.decision_function(X)


def test_a_dataframe_keeps_its_category_column_and_nan_and_is_left_unchanged():
    rng = np.random.default_rng(2)
    n = 300
    color = pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["blue", "green", "red"])
    a = rng.normal(size=n)
    a[rng.random(n) < 0.1] = np.nan
    frame = pd.DataFrame({"a": a, "b": rng.normal(size=n), "color": color})
    y = ((np.nan_to_num(a) + 0.8 * (frame["color"] == "red") + 0.3 * rng.normal(size=n)) > 0.5).astype(int)
    model = rankcore.boost(learner=TREES, n_iter=20, random_state=0).fit(frame, y)
    before = frame.copy()
    spy = _Spy(model).fit()
    result = rankcore.permutation_importance(spy, frame, y, scoring="pauc:0.2", n_repeats=2, random_state=4)
    pd.testing.assert_frame_equal(frame, before)
    assert set(spy.seen_) == {("float64", "float64", "category")}
    assert result.feature_names == ["a", "b", "color"]
    # the same shuffles of the frame, made here
    value = rankcore.evaluate(y, model.decision_function(frame), ["pauc:0.2"])["pauc:0.2"]
    for f, name in enumerate(frame.columns):
        rng_f = np.random.default_rng(4)
        for r in range(2):
            shuffled = frame.copy()
            shuffled[name] = frame[name].iloc[rng_f.permutation(n)].set_axis(frame.index)
            drop = value - rankcore.evaluate(y, model.decision_function(shuffled), ["pauc:0.2"])["pauc:0.2"]
            assert result.importances[f, r] == drop
    assert result.importances_mean[2] > 0
    by_name = rankcore.permutation_importance(model, frame, y, scoring="pauc:0.2", n_repeats=2, random_state=4,
                                              features=["color"])
    np.testing.assert_array_equal(by_name.importances[0], result.importances[2])


def test_a_sparse_matrix_gives_the_dense_importances(one_list):
    model, X, y = one_list
    X_sparse = X.copy()
    X_sparse[np.abs(X_sparse) < 0.7] = 0.0
    dense = rankcore.permutation_importance(model, X_sparse, y, scoring="auc", n_repeats=2, random_state=1)
    for matrix in (sp.csr_matrix(X_sparse), sp.csc_matrix(X_sparse)):
        before = matrix.copy()
        sparse = rankcore.permutation_importance(model, matrix, y, scoring="auc", n_repeats=2, random_state=1)
        np.testing.assert_array_equal(sparse.importances, dense.importances)
        assert (matrix != before).nnz == 0


def test_init_score_is_added_to_the_scores(one_list):
    model, X, y = one_list
    start = np.random.default_rng(0).normal(size=X.shape[0])
    result = rankcore.permutation_importance(model, X, y, scoring="auc", n_repeats=2, random_state=0,
                                             init_score=start)
    baseline, expected = reference(model, X, y, "auc", n_repeats=2, init_score=start)
    assert result.baseline == baseline
    np.testing.assert_array_equal(result.importances, expected)


def test_a_model_without_decision_function_is_scored_by_predict(queries):
    lightgbm = pytest.importorskip("lightgbm")
    model, X, y, qid = queries
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    ranker = lightgbm.LGBMRanker(n_estimators=10, verbose=-1, n_jobs=1).fit(
        X, y, group=np.unique(qid, return_counts=True)[1])
    result = rankcore.permutation_importance(ranker, X, y, qid=qid, scoring="ndcg@k:5", n_repeats=2, random_state=0)
    assert result.baseline == rankcore.evaluate(y, ranker.predict(X), ["ndcg@k:5"], qid=qid)["ndcg@k:5"]
    with pytest.raises(TypeError, match="scoring: LGBMRanker is not a rankcore estimator"):
        rankcore.permutation_importance(ranker, X, y, qid=qid)


def test_errors_name_the_argument(one_list, queries):
    model, X, y = one_list
    pi = rankcore.permutation_importance
    with pytest.raises(NotFittedError, match="model: this PushBoost is not fitted"):
        pi(rankcore.PushBoost(), X, y)
    with pytest.raises(TypeError, match="model: expected a fitted estimator"):
        pi(object(), X, y)
    with pytest.raises(ValueError, match="y: expected 400 labels"):
        pi(model, X, y[:-1])
    with pytest.raises(ValueError, match="qid: expected one query id per row"):
        pi(model, X, y, qid=np.zeros(3), scoring="auc")
    with pytest.raises(ValueError, match="scoring: unknown metric 'nope'"):
        pi(model, X, y, scoring="nope")
    with pytest.raises(ValueError, match="scoring: 'roc' is not a single number"):
        pi(model, X, y, scoring="roc")
    for bad, kind in ((0, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(kind, match="n_repeats: expected an integer >= 1"):
            pi(model, X, y, n_repeats=bad)
    with pytest.raises(ValueError, match="features: column 4 is out of range"):
        pi(model, X, y, features=[4])
    with pytest.raises(ValueError, match="features: 'age' is not a column of X"):
        pi(model, X, y, features=["age"])
    with pytest.raises(ValueError, match="features: expected at least one column"):
        pi(model, X, y, features=[])
    with pytest.raises(TypeError, match="features: expected a column position or name"):
        pi(model, X, y, features=[True])
    with pytest.raises(ValueError, match="within: expected one of"):
        pi(model, X, y, within="query")
    with pytest.raises(ValueError, match="within: 'queries' shuffles each column within each query"):
        pi(model, X, y, within="queries")
    with pytest.raises(ValueError, match="random_state: expected"):
        pi(model, X, y, random_state=-1)
    with pytest.raises(ValueError, match="n_jobs: expected"):
        pi(model, X, y, n_jobs=0)
    with pytest.raises(ValueError, match="init_score: expected 400 initial scores"):
        pi(model, X, y, scoring="auc", init_score=np.zeros(3))
    kernel = rankcore.KernelRanker().fit(X[:80], y[:80])
    with pytest.raises(ValueError, match="qid: KernelRanker.score ranks one list and takes no qid"):
        pi(kernel, X[:80], y[:80], qid=np.repeat([0, 1], 40))
    model, X, y, qid = queries
    with pytest.raises(ValueError, match="qid: this PushBoost was fitted within queries"):
        pi(model, X, y, scoring="ndcg@k:5")


def test_an_autoranker_within_queries_scores_by_its_own_score(queries):
    _, X, y, qid = queries
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=5", "stumps:n_iter=5"], blend=False, random_state=0,
                               n_jobs=1).fit(X, y, qid=qid)
    result = rankcore.permutation_importance(auto, X, y, qid=qid, n_repeats=2, random_state=0)
    assert result.baseline == auto.score(X, y, qid=qid)
    _, expected = reference(auto, X, y, "map", qid=qid, n_repeats=2)
    np.testing.assert_allclose(rankcore.permutation_importance(auto, X, y, qid=qid, scoring="map", n_repeats=2,
                                                               random_state=0).importances, expected, atol=1e-14)


def test_the_docstring_example_runs():
    import doctest

    import rankcore.inspection

    failures, tests = doctest.testmod(rankcore.inspection)[:2]
    assert failures == 0 and tests > 0


def test_it_is_a_lazy_top_level_name():
    assert "permutation_importance" in dir(rankcore)
    from rankcore.inspection import permutation_importance

    assert rankcore.permutation_importance is permutation_importance


@pytest.mark.parametrize("spec", ["map", "mrr", "ndcg@k:10", "err@k:5", "auc"])
def test_a_one_list_model_of_classes_1_and_2_maps_them_to_0_1_for_every_metric(one_list, spec):
    model, X, y = one_list
    classes = rankcore.boost(learner=TREES, n_iter=25, random_state=0).fit(X, y + 1)
    as_classes = rankcore.permutation_importance(classes, X, y + 1, scoring=spec, n_repeats=2, random_state=0)
    as_0_1 = rankcore.permutation_importance(classes, X, y, scoring=spec, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(as_classes.importances, as_0_1.importances)
    assert as_classes.baseline == as_0_1.baseline and as_classes.importances_mean[0] > 0.01


def test_a_classifier_without_decision_function_is_scored_by_its_probability(one_list):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import roc_auc_score

    _, X, y = one_list
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X[:200], y[:200])
    result = rankcore.permutation_importance(forest, X[200:], y[200:], scoring="auc", n_repeats=2, random_state=0)
    assert result.baseline == pytest.approx(roc_auc_score(y[200:], forest.predict_proba(X[200:])[:, 1]))
    three = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y + (X[:, 3] > 1))
    with pytest.raises(TypeError, match=r"model: RandomForestClassifier has no decision_function .* two classes"):
        rankcore.permutation_importance(three, X, y, scoring="auc")


def test_a_dask_collection_is_computed_below_max_rows(one_list, queries):
    dd = pytest.importorskip("dask.dataframe")
    da = pytest.importorskip("dask.array")
    model, X, y = one_list
    frame = pd.DataFrame(X)
    expected = rankcore.permutation_importance(model, frame, y, scoring="auc", random_state=0)
    in_memory = rankcore.permutation_importance(model, X, y, scoring="auc", random_state=0)
    for lazy, lazy_y in ((dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)),
                         (da.from_array(X, chunks=100), da.from_array(np.asarray(y), chunks=100)),
                         (da.from_array(X, chunks=100)[np.asarray(y) >= 0], y)):       # unknown chunk lengths
        result = rankcore.permutation_importance(model, lazy, lazy_y, scoring="auc", random_state=0)
        same = expected if hasattr(lazy, "columns") else in_memory
        np.testing.assert_array_equal(result.importances, same.importances)
        assert result.feature_names == same.feature_names
    model_q, Xq, yq, qid = queries
    lazy = rankcore.permutation_importance(model_q, da.from_array(Xq, chunks=50), yq,
                                           qid=da.from_array(np.asarray(qid), chunks=50), random_state=0)
    np.testing.assert_array_equal(lazy.importances,
                                  rankcore.permutation_importance(model_q, Xq, yq, qid=qid, random_state=0).importances)


def test_dask_inputs_of_one_frame_are_computed_together(one_list):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    model, X, y = one_list
    frame = pd.DataFrame(X)
    frame.columns = [f"x{j}" for j in range(X.shape[1])]
    frame["label"] = y
    reads = []

    def read(part):                      # stands for reading a partition from storage (parquet, CSV)
        reads.append(len(part))
        return part

    source = dd.from_pandas(frame, npartitions=4).map_partitions(read, meta=frame.iloc[:0])
    columns = [f"x{j}" for j in range(X.shape[1])]
    with dask.config.set(scheduler="synchronous"):
        result = rankcore.permutation_importance(model, source[columns], source["label"], scoring="auc",
                                                 random_state=0)
    # one pass to count X's rows, one to compute X and y together: not one per collection
    assert len(reads) == 2 * 4, reads
    np.testing.assert_array_equal(
        result.importances,
        rankcore.permutation_importance(model, frame[columns], y, scoring="auc", random_state=0).importances)


def test_a_dask_collection_beyond_max_rows_is_refused_saying_how_to_sample(one_list):
    dd = pytest.importorskip("dask.dataframe")
    da = pytest.importorskip("dask.array")
    model, X, y = one_list
    n = X.shape[0]
    assert rankcore.inspection.DASK_MAX_ROWS == 1_000_000
    for lazy, how in ((da.from_array(X, chunks=100), r"X\[idx\]\.compute\(\), y\[idx\]\.compute\(\)"),
                      (dd.from_pandas(pd.DataFrame(X), npartitions=2), r"X\.assign\(_label=y\)\.sample\(frac=")):
        with pytest.raises(ValueError, match=rf"^X: a Dask .* of {n:,} rows, more than max_rows=10: .*Pass "
                                             rf"max_rows={n} to compute it whole, or a sample .*{how}"):
            rankcore.permutation_importance(model, lazy, y, scoring="auc", max_rows=10)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="max_rows: expected an integer >= 1 or None"):
            rankcore.permutation_importance(model, X, y, scoring="auc", max_rows=bad)


def test_minor_messages_name_the_argument(one_list, queries):
    model, X, y = one_list
    pi = rankcore.permutation_importance
    with pytest.raises(ValueError, match=r"features: item 1 is an empty group: it holds no column"):
        pi(model, X, y, features=[0, []])
    with pytest.raises(ValueError, match="features: the group 'g' holds no column"):
        pi(model, X, y, features={"g": []})
    with pytest.raises(ValueError, match=r"scoring: metric 'prec@k:1000': k: expected a count"):
        pi(model, X, y, scoring="prec@k:1000")
    model, X, y, qid = queries
    with pytest.raises(ValueError, match=r"scoring: metric 'prec@k:30': k = 30 is larger than every query"):
        pi(model, X, (y > 1).astype(int), qid=qid, scoring="prec@k:30")
