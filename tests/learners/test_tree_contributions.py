"""``feature_contributions``: TreeSHAP of the boosted trees against exact Shapley values, covers, files, errors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from _model_files import resign
from _treeshap_reference import shapley_reference, tree_value
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._contributions import forest_contributions, node_form
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict, save_model
from rankcore.push import PNormPush, PushBoost, RankBoost
from rankcore.registry import resolve
from _categorical_trees import categorical_model

SMALL = "max_leaves=6,min_samples_leaf=5"
GROWTHS = [f"trees:{SMALL}", f"trees:{SMALL},growth=depthwise", "trees:growth=oblivious,max_depth=3,min_samples_leaf=5",
           f"trees:{SMALL},subsample=1", "trees:max_depth=1"]


def _data(seed=0, n=300, d=5, nan=0.1, ties=True):
    """Rows with ties (values on a coarse grid) and NaN; labels from the first three features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if ties:
        X = np.round(X * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = (z + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _check_reference(est, X, rows=6):
    phi = est.feature_contributions(X)
    d = X.shape[1]
    for i in range(rows):
        expected = shapley_reference(est.rankers_, est.alphas_, X[i], d)
        np.testing.assert_allclose(phi[i], expected, rtol=1e-9, atol=1e-12)
    return phi


@pytest.mark.parametrize("learner", GROWTHS)
def test_matches_exact_shapley_values(learner):
    X, y = _data()
    est = PushBoost(learner=learner, n_iter=6, random_state=0).fit(X, y)
    phi = _check_reference(est, X)
    np.testing.assert_allclose(phi.sum(axis=1), est.decision_function(X), rtol=1e-9, atol=1e-12)
    assert np.all(phi[:, -1] == phi[0, -1])


@pytest.mark.parametrize("learner", ["trees:max_leaves=6,min_samples_leaf=10", "trees:growth=oblivious,max_depth=3"])
def test_matches_exact_shapley_values_within_queries(learner):
    X, _ = _data(seed=3, n=400)
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, X.shape[0]).astype(float)
    qid = np.repeat(np.arange(20), 20)
    est = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(X, y, qid=qid)
    phi = _check_reference(est, X, rows=4)
    np.testing.assert_allclose(phi.sum(axis=1), est.decision_function(X), rtol=1e-9, atol=1e-12)


def test_default_per_query_fit_sums_to_the_scores():
    """The per-query default: oblivious trees of depth 6, 200 of them."""
    X, _ = _data(seed=4, n=600, d=6)
    y = np.random.default_rng(4).integers(0, 3, 600).astype(float)
    est = rankcore.boost(learner="trees", random_state=0).fit(X, y, qid=np.repeat(np.arange(30), 20))
    assert est.rankers_[0].kind == "oblivious_tree"
    np.testing.assert_allclose(est.feature_contributions(X).sum(axis=1), est.decision_function(X), rtol=1e-9,
                               atol=1e-12)


def test_categorical_splits_and_nan_routing():
    est, X = categorical_model()
    assert any(r.categorical for r in est.rankers_)
    X_test = np.vstack([X[:8], [[9.0, np.nan, 0.0], [np.nan, 0.3, np.nan]]])   # an unseen category, NaN
    phi = est.feature_contributions(X_test)
    for i in range(X_test.shape[0]):
        np.testing.assert_allclose(phi[i], shapley_reference(est.rankers_, est.alphas_, X_test[i], 3), rtol=1e-9,
                                   atol=1e-12)
    np.testing.assert_allclose(phi.sum(axis=1), est.decision_function(X_test), rtol=1e-9, atol=1e-12)


def test_features_never_split_get_exactly_zero():
    X, y = _data(seed=2, d=7)
    X[:, 5] = 1.0                                   # constant: no split can use it
    est = PushBoost(learner=f"trees:{SMALL},subsample=1", n_iter=5, random_state=0).fit(X, y)
    used = {j for r in est.rankers_ for j in r.features}
    phi = est.feature_contributions(X)
    unused = [j for j in range(7) if j not in used]
    assert 5 in unused
    assert np.all(phi[:, unused] == 0.0)


@pytest.mark.parametrize("kind", ["tree", "oblivious_tree"])
def test_trees_that_are_one_leaf(kind):
    X, y = _data()
    learner = "trees:growth=oblivious,max_depth=2" if kind == "oblivious_tree" else "trees:max_leaves=4"
    est = PushBoost(learner=learner, n_iter=2, random_state=0).fit(X, y)
    if kind == "tree":
        leaves = [TreeRanker([-1], [0.0], [0], [-1], [-1], [v], [0.0], cover=[c]) for v, c in ((0.5, 10), (-2.0, 3))]
    else:
        leaves = [ObliviousTreeRanker([], [], [], [v], [], cover=[c]) for v, c in ((0.5, 10), (-2.0, 3))]
    est.rankers_, est.alphas_ = leaves, np.array([1.5, 0.25])
    phi = est.feature_contributions(X)
    assert np.all(phi[:, :-1] == 0.0)
    np.testing.assert_allclose(phi[:, -1], 1.5 * 0.5 - 0.25 * 2.0)
    np.testing.assert_allclose(phi.sum(axis=1), est.decision_function(X))


def test_oblivious_node_form_is_the_same_function():
    X, y = _data(seed=5)
    est = PushBoost(learner="trees:growth=oblivious,max_depth=4", n_iter=4, random_state=0).fit(X, y)
    for tree in est.rankers_:
        nodes = node_form(tree)
        as_tree = TreeRanker(nodes["feature"], nodes["threshold"], nodes["nan_left"], nodes["left"], nodes["right"],
                             nodes["value"], np.zeros(nodes["left"].shape[0]), cover=nodes["cover"])
        np.testing.assert_array_equal(as_tree.predict(X), tree.predict(X))
        for S in (set(), {0}, {1, 2}, set(range(5))):
            assert tree_value(as_tree, X[0], S) == pytest.approx(tree_value(tree, X[0], S), rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), growth=st.sampled_from(["leafwise", "depthwise", "oblivious"]),
       leaves=st.integers(2, 12), nan=st.sampled_from([0.0, 0.2]), n_iter=st.integers(1, 8))
def test_rows_sum_to_the_scores(seed, growth, leaves, nan, n_iter):
    X, y = _data(seed=seed, n=200, d=4, nan=nan)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    spec = f"trees:growth={growth},max_leaves={leaves},min_samples_leaf=3"
    est = PushBoost(learner=spec, n_iter=n_iter, random_state=seed).fit(X, y)
    phi = est.feature_contributions(X)
    f = est.decision_function(X)
    np.testing.assert_allclose(phi.sum(axis=1), f, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(f).max()))


@pytest.mark.parametrize("cls", [PushBoost, PNormPush, RankBoost])
def test_every_boosting_estimator(cls):
    X, y = _data()
    est = cls(learner=f"trees:{SMALL}", n_iter=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(est.feature_contributions(X).sum(axis=1), est.decision_function(X), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("learner", ["trees", "trees:growth=oblivious"])
def test_the_thread_count_changes_nothing(learner, exact_threads):
    exact_threads(2)
    X, y = _data(seed=6, n=3000, d=8)
    est = PushBoost(learner=learner, n_iter=30, random_state=0, n_jobs=1).fit(X, y)
    one = est.feature_contributions(X)
    est.set_params(n_jobs=2)
    np.testing.assert_array_equal(est.feature_contributions(X), one)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_sparse_dense_and_dataframe_rows_agree():
    X, y = _data(nan=0.0)
    X[np.abs(X) < 0.6] = 0.0
    names = [f"f{j}" for j in range(X.shape[1])]
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=4, random_state=0).fit(pd.DataFrame(X, columns=names), y)
    dense = est.feature_contributions(pd.DataFrame(X, columns=names))
    np.testing.assert_array_equal(est.feature_contributions(sp.csr_matrix(X)), dense)
    shuffled = pd.DataFrame(X, columns=names)[names[::-1]]
    with pytest.raises(ValueError) as by_scores:
        est.decision_function(shuffled)
    with pytest.raises(ValueError) as by_contributions:
        est.feature_contributions(shuffled)
    assert str(by_contributions.value) == str(by_scores.value)


@pytest.mark.parametrize("bad", [np.zeros((3, 4)), np.zeros(5), [["a", "b", "c", "d", "e"]], "rows"])
def test_bad_X_is_refused_as_decision_function_refuses_it(bad):
    X, y = _data()
    est = PushBoost(learner=f"trees:{SMALL}", n_iter=2, random_state=0).fit(X, y)
    with pytest.raises((ValueError, TypeError)) as by_scores:
        est.decision_function(bad)
    with pytest.raises(by_scores.type) as by_contributions:
        est.feature_contributions(bad)
    assert str(by_contributions.value) == str(by_scores.value)


def test_other_learners_say_they_have_no_trees():
    X, y = _data(nan=0.0)
    est = PushBoost(learner="stumps", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="feature_contributions: the learner 'stumps'.*learner='trees'"):
        est.feature_contributions(X)


def test_unfitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PushBoost(learner="trees").feature_contributions(np.zeros((2, 2)))


def test_kernel_refuses_a_tree_reading_a_column_X_lacks():
    tree = TreeRanker([3, -1, -1], [0.0, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                      [1.0, 0.0, 0.0], cover=[4.0, 1.0, 3.0])
    with pytest.raises(ValueError, match="X: the trees split feature 3, X has 2 columns"):
        forest_contributions([tree], [1.0], np.zeros((2, 2)))


# ----------------------------------------------------------------------
# Covers
# ----------------------------------------------------------------------
@pytest.mark.parametrize("learner", ["trees:subsample=1", "trees:growth=oblivious,subsample=1",
                                     "trees:growth=depthwise,subsample=0.5"])
def test_covers_count_the_rows_of_the_tree_sample(learner):
    X, y = _data(n=500)
    est = PushBoost(learner=learner, n_iter=4, random_state=0).fit(X, y)
    for tree in est.rankers_:
        nodes = node_form(tree)
        cover, left, right = nodes["cover"], nodes["left"], nodes["right"]
        internal = left >= 0
        np.testing.assert_array_equal(cover[internal], cover[left[internal]] + cover[right[internal]])
        assert np.all(cover[internal] > 0)
        if "subsample=1" in learner:
            assert cover[0] == X.shape[0]
        else:
            assert 150 < cover[0] < 350
        if tree.kind == "tree":
            assert np.all(cover == np.round(cover))      # row counts


@pytest.mark.parametrize("spec", ["trees:max_leaves=8,min_samples_leaf=5", "trees:growth=depthwise,max_depth=3",
                                  "trees:growth=oblivious,max_depth=4",
                                  "trees:growth=oblivious,max_depth=3,subsample=0.7"])
def test_the_routes_record_the_same_covers(spec):
    """The native grower, and the multi-pass search on one block and on two (a distributed fit's sums)."""
    X, y = _data(seed=7, n=800, nan=0.05)
    rng = np.random.default_rng(7)
    learner = resolve("learner", spec)
    layouts = [learner.prepare(X, random_state=0) for _ in range(3)]
    blocks = [layouts[0].encode(X)], [layouts[1].encode(X)], [layouts[2].encode(X[:300]),
                                                              layouts[2].encode(X[300:], offset=300)]
    for _ in range(3):
        g, h = rng.normal(size=800), np.ones(800)
        native = layouts[0].search_in_memory(blocks[0], [g], [h])
        one = multi_pass_search(layouts[1], blocks[1], [g], [h])
        two = multi_pass_search(layouts[2], blocks[2], [g[:300], g[300:]], [h[:300], h[300:]])
        np.testing.assert_array_equal(native.ranker.cover, one.ranker.cover)
        np.testing.assert_array_equal(native.ranker.cover, two.ranker.cover)


# ----------------------------------------------------------------------
# Model files
# ----------------------------------------------------------------------
def _fitted(learner):
    X, y = _data(seed=8)
    return PushBoost(learner=learner, n_iter=4, random_state=0).fit(X, y), X


def _rewritten(model, change, only_first=False) -> dict:
    """The model's file with each tree record (``only_first``: the first) changed by ``change(record)``, signed
    again."""
    data = model_to_dict(model)
    for record in data["state"]["rankers"][: 1 if only_first else None]:
        change(record)
    return resign(data)


@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=3",
                                     "trees:categorical=0,max_leaves=5"])
def test_save_and_load_keep_the_contributions(learner, tmp_path):
    est, X = _fitted(learner)
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.feature_contributions(X), est.feature_contributions(X))


@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=3"])
def test_a_file_without_covers_loads_and_says_to_refit(learner):
    est, X = _fitted(learner)
    old = model_from_dict(_rewritten(est, lambda r: r.pop("cover")))
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))
    with pytest.raises(ValueError, match="model file holds no covers.*refit"):
        old.feature_contributions(X)


def _set(index, value):
    def change(record):
        record["cover"][index] = value
    return change


TAMPERED = [
    (_set(0, -1.0), "finite numbers >= 0"),
    (_set(1, float("nan")), "finite numbers >= 0"),
    (_set(1, True), "finite numbers >= 0"),
    (lambda r: r["cover"].append(1.0), "one entry per"),
    (lambda r: r.update(cover="many"), "one entry per"),
]


@pytest.mark.parametrize("change, message", TAMPERED)
@pytest.mark.parametrize("learner", [f"trees:{SMALL}", "trees:growth=oblivious,max_depth=3"])
def test_tampered_covers_are_refused(learner, change, message):
    est, _ = _fitted(learner)
    with pytest.raises(ModelFormatError, match=message):
        model_from_dict(_rewritten(est, change))


def test_tree_covers_must_add_up():
    est, _ = _fitted(f"trees:{SMALL}")
    with pytest.raises(ModelFormatError, match="cover of internal node 0 .* children's sum"):
        model_from_dict(_rewritten(est, _set(0, 1e6)))

    def leaf_more(record):
        leaf = record["left"].index(-1)
        record["cover"][leaf] += 1.0
    with pytest.raises(ModelFormatError, match="children's sum"):
        model_from_dict(_rewritten(est, leaf_more))


def test_oblivious_covers_must_leave_every_node_some_rows():
    est, _ = _fitted("trees:growth=oblivious,max_depth=3")

    def empty_pair(record):
        half = len(record["cover"]) // 2
        record["cover"][0] = record["cover"][half] = 0.0
    with pytest.raises(ModelFormatError, match="cover sums to 0"):
        model_from_dict(_rewritten(est, empty_pair))


def test_oblivious_covers_must_add_up_to_finite_counts():
    est, _ = _fitted("trees:growth=oblivious,max_depth=3")

    def huge(record):
        record["cover"] = [1e308] * len(record["cover"])
    with pytest.raises(ModelFormatError, match="cover sums to inf"):
        model_from_dict(_rewritten(est, huge))


def test_leaf_values_near_the_largest_float_give_a_finite_expected_value():
    est, X = _fitted("trees:growth=oblivious,max_depth=3")
    first = est.rankers_[0]
    scale = 1e307 / float(np.abs(first.value).max())      # cover · value would overflow

    def near_max(record):
        record["value"] = [v * scale for v in record["value"]]
    big = model_from_dict(_rewritten(est, near_max, only_first=True))
    phi = big.feature_contributions(X)             # the covers' shares before the products: no overflow
    np.testing.assert_allclose(phi.sum(axis=1), big.decision_function(X), rtol=1e-9)


def test_trees_are_explained_in_batches_with_the_same_values(monkeypatch):
    from rankcore.learners.trees import _contributions

    est, X = _fitted("trees:growth=oblivious,max_depth=3")
    whole = est.feature_contributions(X)
    monkeypatch.setattr(_contributions, "BATCH_NODES", 1)        # one tree a batch
    np.testing.assert_array_equal(est.feature_contributions(X), whole)


@pytest.mark.parametrize("learner", ["trees:growth=oblivious,max_depth=3", "trees:growth=oblivious,max_depth=6",
                                     "trees:growth=oblivious,max_depth=6,min_samples_leaf=40"])
def test_oblivious_trees_by_cell_give_the_walks_values_bit_for_bit(learner, exact_threads):
    # with at least 2^D rows each cell is walked once and the rows look their cell up; one row at a time takes
    # the walk per row: the same sums in the same order
    exact_threads(2)                # n_jobs None (8 threads), 1 and 2 compared
    X, y = _data(seed=3)
    X[::7, 1] = np.nan
    X[:, 2] = np.round(X[:, 2])                          # ties
    est = PushBoost(learner=learner, n_iter=12, random_state=0).fit(X, y)
    depths = {r.depth for r in est.rankers_}
    assert (1 << max(depths)) <= X.shape[0]
    together = est.feature_contributions(X)
    one_by_one = np.vstack([est.feature_contributions(X[i:i + 1]) for i in range(40)])
    np.testing.assert_array_equal(together[:40], one_by_one)
    for threads in (1, 2):
        np.testing.assert_array_equal(est.set_params(n_jobs=threads).feature_contributions(X), together)
    np.testing.assert_allclose(together.sum(axis=1), est.decision_function(X), rtol=1e-12, atol=1e-12)
