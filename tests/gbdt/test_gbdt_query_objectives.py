"""rankcore objectives within queries inside LightGBM and XGBoost: the groups reach the objective, rows in order."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.gbdt import lightgbm_objective, xgboost_objective
from rankcore.metrics import check_qid, evaluate
from rankcore.registry import resolve

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB = {"verbose": -1, "num_threads": 1, "deterministic": True, "force_col_wise": True}


def grouped(seed, n_queries=40, low=4, high=16):
    """Consecutive queries of ``low``..``high``-1 rows, grades 0..3 driven by x0 + x1·x2, a query with one grade."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(low, high, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=qid.size) + 1), 0, 3)
    y[qid == 2] = 1.0
    return X, y, qid, sizes


X_TR, Y_TR, Q_TR, G_TR = grouped(0)
X_TE, Y_TE, Q_TE, G_TE = grouped(1, n_queries=30)


def our_gradients(spec, y, qid, scores):
    """n·∇J and n·h of the objective bound within the queries (what the adapters must hand over); a per-row
    gradient (lambdarank's λ) as it is."""
    objective = resolve("objective", spec)
    bound = objective.bind(np.asarray(y, dtype=np.float64), None, queries=check_qid(qid, len(y)))
    _, grad, hess = bound.value_gradient_hessian(np.asarray(scores, dtype=np.float64))
    scale = 1.0 if spec.startswith("lambdarank") else len(y)
    assert objective.per_row_gradient == spec.startswith("lambdarank")
    return grad * scale, hess * scale


@pytest.mark.parametrize("spec", ["push", "push:exp,pow:4", "lambdarank", "lambdarank:gain=0/2/3/10"])
def test_both_libraries_receive_our_gradients_within_the_groups(spec):
    scores = np.round(X_TR[:, 0], 1)
    grad, hess = our_gradients(spec, Y_TR, Q_TR, scores)
    obj = lightgbm_objective(spec)
    g, h = obj(Y_TR, scores, None, G_TR)                       # scikit-learn: (y, preds, weight, group)
    np.testing.assert_allclose(g, grad, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, hess, rtol=1e-12, atol=1e-12)
    g, h = obj(scores, lgb.Dataset(X_TR, Y_TR, group=G_TR).construct())   # native: (preds, train_set)
    np.testing.assert_allclose(g, grad, rtol=1e-6)                   # LightGBM stores labels as float32
    g, h = xgboost_objective(spec)(scores, xgb.DMatrix(X_TR, Y_TR, qid=Q_TR))
    np.testing.assert_allclose(g, grad, rtol=1e-6)
    np.testing.assert_allclose(h, hess, rtol=1e-6)


@pytest.mark.parametrize("spec", ["push:exp,pow:4", "lambdarank"])
def test_one_round_leaves_are_newton_values_of_our_gradients(spec):
    """One tree, learning rate 1, no L2: each leaf is −Σg/Σh of its rows, g and h within the queries."""
    grad, hess = our_gradients(spec, Y_TR, Q_TR, np.zeros(Y_TR.shape[0]))
    params = dict(LGB, objective=lightgbm_objective(spec), num_leaves=4, learning_rate=1.0, lambda_l2=0.0,
                  min_data_in_leaf=5, min_sum_hessian_in_leaf=0.0)
    booster = lgb.train(params, lgb.Dataset(X_TR, Y_TR, group=G_TR), num_boost_round=1)
    leaves, raw = booster.predict(X_TR, pred_leaf=True)[:, 0], booster.predict(X_TR, raw_score=True)
    assert np.unique(leaves).size > 1
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert raw[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-5)
    booster = xgb.train({"max_depth": 2, "eta": 1.0, "reg_lambda": 0.0, "min_child_weight": 0.0, "base_score": 0.0,
                         "nthread": 1, "disable_default_eval_metric": 1}, xgb.DMatrix(X_TR, Y_TR, qid=Q_TR), 1,
                        obj=xgboost_objective(spec))
    d = xgb.DMatrix(X_TR)
    leaves, raw = booster.predict(d, pred_leaf=True).ravel(), booster.predict(d, output_margin=True)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert raw[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-4)


@pytest.mark.parametrize("regularization", [{}, {"reg_lambda": 5.0}, {"min_child_weight": 1.0}],
                         ids=["default", "reg_lambda", "min_child_weight"])
def test_lgbm_ranker_with_our_lambdarank_is_close_to_lightgbms(regularization):
    """Our lambdarank inside LightGBM against LightGBM's own, same trees and rounds.

    The first tree is the same to float precision; later trees drift apart a
    little (LightGBM reads its sigmoid from a table), so after 30 rounds the
    test queries' NDCG@10 must agree within 0.005 and the raw scores
    correlate above 0.999 (on this data the NDCG@10 are equal). The λ are
    passed as LightGBM passes its own, so its penalties act alike on both.
    """
    def fit_both(n_estimators):
        settings = dict(n_estimators=n_estimators, learning_rate=0.1, num_leaves=7, min_child_samples=5, **LGB,
                        **regularization)
        models = lgb.LGBMRanker(objective=lightgbm_objective("lambdarank"), **settings), \
            lgb.LGBMRanker(objective="lambdarank", **settings)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [m.fit(X_TR, Y_TR, group=G_TR).predict(X_TE, raw_score=True) for m in models]

    ours, theirs = fit_both(1)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)
    ours, theirs = fit_both(30)
    a, b = (evaluate(Y_TE, s, "ndcg@k:10", qid=Q_TE)["ndcg@k:10"] for s in (ours, theirs))
    assert abs(a - b) <= 0.005
    assert np.corrcoef(ours, theirs)[0, 1] > 0.999


@pytest.mark.parametrize("truncation", [1, 2, 3, 30])
def test_lightgbm_grows_the_same_first_tree_from_our_lambdarank_at_any_truncation(truncation):
    """From tied (zero) scores, where at truncation 1 a quarter of the rows get λ = h = 0 (at 2, a tenth)."""
    params = dict(LGB, num_leaves=7, min_data_in_leaf=5, learning_rate=0.1, lambdarank_truncation_level=truncation)
    theirs = lgb.train(dict(params, objective="lambdarank"), lgb.Dataset(X_TR, Y_TR, group=G_TR), 1)
    ours = lgb.train(dict(params, objective=lightgbm_objective(f"lambdarank:{truncation}")),
                     lgb.Dataset(X_TR, Y_TR, group=G_TR), 1)
    np.testing.assert_allclose(ours.predict(X_TE, raw_score=True), theirs.predict(X_TE, raw_score=True),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("truncation", [1, 2])
def test_lightgbm_sums_lambdarank_pairs_in_single_precision(truncation):
    """Why a larger first tree can differ at truncation 1 or 2 (docs/query_objectives.md): LightGBM adds each pair's
    λ and h to single-precision sums, rankcore to double ones. From tied scores many splits there gain almost
    alike, and those last bits choose between them: the same λ summed in single precision, in LightGBM's order,
    grow LightGBM's own tree bit for bit, and ours agree with them to that rounding."""
    from _query_objective_reference import lambdarank_reference

    rng = np.random.default_rng(2)
    sizes = rng.integers(2, 40, 50)
    qid = np.repeat(np.arange(sizes.size), sizes)
    X = rng.normal(size=(qid.size, 5))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.size)), 0, 4)
    f = np.zeros(qid.size)
    params = dict(LGB, num_leaves=31, min_data_in_leaf=5, learning_rate=0.1, lambdarank_truncation_level=truncation)
    theirs = lgb.train(dict(params, objective="lambdarank"), lgb.Dataset(X, y, group=sizes), 1)
    single = [v.astype(np.float64) for v in lambdarank_reference(y, qid, f, truncation, accumulate=np.float32)]
    emulated = lgb.train(dict(params, objective=lambda preds, data: single), lgb.Dataset(X, y, group=sizes), 1)
    np.testing.assert_array_equal(emulated.predict(X, raw_score=True), theirs.predict(X, raw_score=True))
    ours = our_gradients(f"lambdarank:{truncation}", y, qid, f)
    for a, b in zip(ours, single):        # single-precision sums of a few terms that cancel: 1e-7 of the largest
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7 * np.abs(b).max())


@pytest.mark.parametrize("truncation", [1, 2])
def test_our_trees_differ_from_lightgbms_on_lambdarank_only_by_its_row_counts_and_ties(truncation):
    """One tree from tied scores: rankcore's trees against LightGBM's lambdarank (docs/query_objectives.md).

    The λ and h are the same (above). LightGBM counts a side's rows from its
    curvature (Σ round(h·n/H) over its bins, for min_data_in_leaf) and keeps
    the highest of exactly equal gains' thresholds; ours counts rows
    (min_samples_leaf) and keeps the lowest. Without a row minimum and on
    the negated features (our lowest threshold on −x is LightGBM's highest on
    x) the trees part the rows alike; with 5 rows a leaf, ours holds 5 rows
    or more in every leaf. Features on a grid of quarters: every value its own bin in both.
    """
    X, y, qid, sizes = grouped(3)
    X = np.round(X * 4) / 4 + 100

    def both(min_rows, sign):
        params = dict(LGB, objective="lambdarank", lambdarank_truncation_level=truncation, num_leaves=7,
                      min_data_in_leaf=min_rows, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0, learning_rate=0.1)
        theirs = lgb.train(params, lgb.Dataset(X, y, group=sizes, params={"min_data_in_bin": 1}), 1)
        spec = (f"trees:max_leaves=7,min_samples_leaf={min_rows},learning_rate=0.1,subsample=1,"
                "line_search=false,random_strength=0")
        ours = rankcore.boost(objective=f"lambdarank:{truncation}", learner=spec, n_iter=1, random_state=0)
        return theirs, ours.fit(sign * X, y, qid=qid).decision_function(sign * X)

    theirs, ours = both(1, -1)
    np.testing.assert_allclose(ours, theirs.predict(X, raw_score=True), rtol=0, atol=1e-7)
    _, ours = both(5, 1)        # LightGBM's leaves here hold as few as 3 rows (4.x); not asserted: it may change
    values, rows = np.unique(ours, return_counts=True)
    assert values.size == 7 and rows.min() >= 5


def assert_lgbm_ranker_learns_the_grades(objective):
    """An LGBMRanker on ``objective`` ranks the held-out queries well above chance (NDCG@10)."""
    model = lgb.LGBMRanker(objective=objective, n_estimators=20, num_leaves=7, min_child_samples=5, **LGB)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X_TR, Y_TR, group=G_TR)
    learned = evaluate(Y_TE, model.predict(X_TE, raw_score=True), "ndcg@k:10", qid=Q_TE)["ndcg@k:10"]
    chance = evaluate(Y_TE, np.random.default_rng(0).normal(size=Y_TE.size), "ndcg@k:10", qid=Q_TE)["ndcg@k:10"]
    assert learned > chance + 0.1


def test_lgbm_ranker_with_the_push_within_groups_learns_the_grades():
    assert_lgbm_ranker_learns_the_grades(lightgbm_objective("push:exp,pow:4"))


def test_an_objective_of_queries_without_groups_names_both():
    with pytest.raises(ValueError, match=r"objective 'lambdarank' ranks within queries, but the library's training "
                                         r"data carry no query groups.*group=.*qid="):
        lightgbm_objective("lambdarank")(Y_TR, np.zeros(Y_TR.shape[0]), None, None)
    with pytest.raises(ValueError, match=r"objective 'lambdarank' ranks within queries"):
        xgb.train({"nthread": 1}, xgb.DMatrix(X_TR, Y_TR), 1, obj=xgboost_objective("lambdarank"))


def test_groups_that_do_not_fit_the_rows_are_named():
    with pytest.raises(ValueError, match=r"objective 'push'.*query groups do not fit the \d+ rows"):
        lightgbm_objective("push")(Y_TR, np.zeros(Y_TR.shape[0]), None, G_TR[:-1])


def test_one_list_objectives_ignore_groups_as_before():
    y01 = (Y_TR >= 2).astype(int)
    scores = np.round(X_TR[:, 0], 1)
    obj = lightgbm_objective("prec@k-avg:0.1")
    np.testing.assert_array_equal(obj(y01, scores, None, G_TR)[0], obj(y01, scores, None, None)[0])


@pytest.mark.parametrize("spec", ["yetirank", "xendcg"])
def test_randomized_objectives_in_lightgbm_draw_from_random_state(spec):
    """The adapter seeds a randomized objective: the same seed the same gradients, another seed others."""
    scores = np.round(X_TR[:, 0], 1)
    bound = resolve("objective", spec).bind(Y_TR, None, queries=check_qid(Q_TR, len(Y_TR)), random_state=3)
    _, grad, hess = bound.value_gradient_hessian(scores)       # per row already (per_row_gradient)
    g, h = lightgbm_objective(spec, random_state=3)(Y_TR, scores, None, G_TR)
    np.testing.assert_allclose(g, grad, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, hess, rtol=1e-12, atol=1e-12)
    other, _ = lightgbm_objective(spec, random_state=4)(Y_TR, scores, None, G_TR)
    assert not np.allclose(other, grad)
    assert_lgbm_ranker_learns_the_grades(lightgbm_objective(spec))


def _yetirank_data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(20), 6)
    return rng.integers(0, 6, size=(120, 3)).astype(float), rng.integers(0, 4, 120).astype(float), qid


@pytest.mark.parametrize("spec", ["yetirank", "xendcg"])
def test_a_randomized_fit_repeats_with_the_same_adapter(spec):
    # the noise starts afresh with each fit (its first call, at equal raw scores), whatever the adapter fitted before
    X, y, qid = _yetirank_data()
    dtrain = xgb.DMatrix(X, y, qid=qid)
    params = {"max_depth": 3, "disable_default_eval_metric": 1}
    obj = xgboost_objective(spec, random_state=0)
    first = xgb.train(params, dtrain, 5, obj=obj).predict(dtrain, output_margin=True)
    again = xgb.train(params, dtrain, 5, obj=obj).predict(dtrain, output_margin=True)
    fresh = xgb.train(params, dtrain, 5, obj=xgboost_objective(spec, random_state=0)).predict(
        dtrain, output_margin=True)
    np.testing.assert_array_equal(again, first)
    np.testing.assert_array_equal(fresh, first)
    assert np.unique(first).shape[0] > 10                     # it learned something


@pytest.mark.parametrize("spec", ["yetirank", "push:exp,pow:4"])
def test_each_cross_validation_fold_keeps_its_own_binding(spec):
    # lgb.cv calls one adapter for its folds in turn: each fold's model is the one lgb.train fits on it
    X, y, _ = _yetirank_data()
    train, test = np.arange(60), np.arange(60, 120)
    params = {"objective": lightgbm_objective(spec, random_state=0), "verbose": -1, "min_data_in_leaf": 2}
    folds = lgb.cv(params, lgb.Dataset(X, y, group=np.full(20, 6)), num_boost_round=5, folds=[(train, test),
                                                                                          (test, train)],
                   return_cvbooster=True)["cvbooster"].boosters
    alone = lgb.train(dict(params, objective=lightgbm_objective(spec, random_state=0)),
                      lgb.Dataset(X[train], y[train], group=np.full(10, 6)), 5)
    np.testing.assert_allclose(folds[0].predict(X), alone.predict(X), rtol=0, atol=1e-12)


def test_an_empty_query_group_is_named():
    X, y, _ = _yetirank_data()
    with pytest.raises(ValueError, match=r"query groups hold an empty one \(size 0 at position 0\)"):
        lightgbm_objective("push:exp,pow:4")(y, np.zeros(120), None, np.array([0, 60, 60]))


def test_xgboosts_weights_per_query_reach_a_one_list_objective_per_row():
    # XGBoost keeps one weight per query even for an objective of one list: spread over the rows, they meet the
    # objective's own check (here: it takes no weights), not a count of weights against rows
    X, y, qid = _yetirank_data()
    d = xgb.DMatrix(X, (y > 1).astype(float), qid=qid)
    d.set_weight(np.ones(20))
    with pytest.raises(ValueError, match=r"objective 'prec@k-avg:0.1' does not support sample_weight"):
        xgboost_objective("prec@k-avg:0.1")(np.zeros(120), d)


def test_a_pickled_objective_keeps_only_its_current_data_and_resumes_alike():
    # the adapter kept copies of the labels and weights of up to 16 data sets (XGBClassifier pickles its objective);
    # the current one stays, so that training resumed from a pickle goes on as it would have
    import pickle

    obj = lightgbm_objective("yetirank", random_state=3)
    scores = np.round(X_TR[:, 0], 1)
    obj(Y_TE, np.round(X_TE[:, 0], 1), None, G_TE)            # another data set first
    obj(Y_TR, np.zeros(Y_TR.shape[0]), None, G_TR)             # a fit starts: fresh noise
    obj(Y_TR, scores, None, G_TR)
    again = pickle.loads(pickle.dumps(obj))
    assert len(obj._bindings) == 2 and len(again._bindings) == 1
    for step in (0.5, 1.0):                                   # the same next steps from both (the same noise)
        np.testing.assert_array_equal(again(Y_TR, scores + step, None, G_TR)[0],
                                      obj(Y_TR, scores + step, None, G_TR)[0])


def test_lambdarank_gain_table_inside_lightgbm_grows_lightgbms_label_gain_tree():
    """``lambdarank:gain=`` through the adapter and LightGBM's own lambdarank with ``label_gain``: the same tree."""
    table = [0, 2, 3, 10]
    common = dict(LGB, num_leaves=6, learning_rate=1.0, lambda_l2=0.0, min_data_in_leaf=5,
                  min_sum_hessian_in_leaf=0.0, lambdarank_truncation_level=30)
    native = lgb.train(dict(common, objective="lambdarank", label_gain=table),
                       lgb.Dataset(X_TR, Y_TR, group=G_TR), num_boost_round=1)
    ours = lgb.train(dict(common, objective=lightgbm_objective("lambdarank:gain=0/2/3/10")),
                     lgb.Dataset(X_TR, Y_TR, group=G_TR), num_boost_round=1)
    np.testing.assert_array_equal(native.predict(X_TE, pred_leaf=True), ours.predict(X_TE, pred_leaf=True))
    # LightGBM reads the sigmoid from a table and keeps λ, h in float32
    np.testing.assert_allclose(native.predict(X_TE, raw_score=True), ours.predict(X_TE, raw_score=True), rtol=2e-3)


def test_lightgbm_dataset_positions_are_refused_not_ignored():
    lightgbm = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, 200).astype(float)
    data = lightgbm.Dataset(X, y, group=[20] * 10, position=np.tile(np.arange(20), 10))
    with pytest.raises(ValueError, match="position: objective 'lambdarank' through rankcore.gbdt does not learn"):
        lightgbm.train({"objective": lightgbm_objective("lambdarank"), "verbose": -1}, data, 2)


def _graded_query_rows():
    """(the generator, 60 query sizes of 2 to 11 rows, X, grades 0-3 that follow X's first column)."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(2, 12, size=60)
    X = rng.normal(size=(sizes.sum(), 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=sizes.sum()) + 1), 0, 3)
    return rng, sizes, X, y


@pytest.mark.parametrize("spec", ["xendcg", "yetirank"])
def test_xgboost_fits_from_a_base_margin_repeat_with_one_adapter(spec):
    # the noise restarts where a fit starts: at equal scores, or at the DMatrix's base_margin
    xgboost = pytest.importorskip("xgboost")
    rng, sizes, X, y = _graded_query_rows()
    margin = rng.normal(size=sizes.sum())
    adapter = xgboost_objective(spec, random_state=1)

    def fit(objective):
        data = xgboost.DMatrix(X, y, group=sizes, base_margin=margin)
        booster = xgboost.train({"max_depth": 3, "nthread": 1, "eta": 0.3}, data, 6, obj=objective)
        return booster.predict(xgboost.DMatrix(X), output_margin=True)

    first, second = fit(adapter), fit(adapter)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, fit(xgboost_objective(spec, random_state=1)))


@pytest.mark.parametrize("spec", ["xendcg", "yetirank"])
def test_lightgbm_fits_from_an_init_score_repeat_with_one_adapter(spec):
    # Booster.update(fobj=...) calls the very adapter it is given (lgb.train deep-copies it): the noise restarts at
    # the Dataset's init_score, as it does at equal scores
    rng, sizes, X, y = _graded_query_rows()
    start = rng.normal(size=sizes.sum())
    adapter = lightgbm_objective(spec, random_state=1)

    def fit(objective):
        data = lgb.Dataset(X, y, group=sizes, init_score=start)
        booster = lgb.Booster({**LGB, "objective": "none", "metric": "None", "min_data_in_leaf": 5}, data)
        for _ in range(6):
            booster.update(fobj=objective)
        return booster.predict(X)

    first, second = fit(adapter), fit(adapter)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, fit(lightgbm_objective(spec, random_state=1)))
    assert np.unique(first).shape[0] > 10                     # it learned something
