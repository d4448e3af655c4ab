"""The ``trees`` learner on a real 2-worker LocalCluster equals the in-memory fit.

Same splits (features, thresholds, NaN directions, structure), leaf values
and α to 1e-9 relative, scores within 1e-9; one round trip per search pass
(the root, then one per level or per batch of leaf-wise splits).  No part of
Dask is mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

# a fit whose interaction groups leave columns out warns once, naming them (tested in test_tree_interactions.py)
pytestmark = pytest.mark.filterwarnings("ignore:interactions=.*in no group:UserWarning")

CHUNKS = (100, 37, 200, 163, 100)


def _data(n=600, d=5, seed=0, sort=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)                      # ties
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)   # an interaction
    y[rng.random(n) < 0.1] ^= 1
    if sort:
        order = np.argsort(y, kind="stable")            # the first chunk holds negatives only
        X, y = X[order], y[order]
    return X, y


@pytest.mark.parametrize("spec, sort", [
    ("trees:max_leaves=8,min_samples_leaf=5", True),
    ("trees:max_leaves=6,min_samples_leaf=3,subsample=0.7,colsample=0.8,l2=0.5", False),   # rows reordered
    ("trees:max_leaves=8,min_samples_leaf=5,growth=depthwise", True),
    ("trees:max_leaves=8,min_samples_leaf=5,monotone=1/-1/0/1/0", True),        # monotone constraints
    ("trees:max_leaves=8,min_samples_leaf=5,growth=depthwise,monotone=-1/1/0/0/0", False),
    ("trees:max_leaves=8,min_samples_leaf=5,interactions=0+1/1+2+3", True),           # interaction constraints
    ("trees:max_leaves=8,min_samples_leaf=5,growth=depthwise,interactions=0+4/1+2/3", False),
], ids=["sorted", "subsample-shuffled", "depthwise", "monotone", "monotone-depthwise", "interactions",
        "interactions-depthwise"])
def test_dask_trees_equal_the_in_memory_fit(dask_client, spec, sort):
    X, y = _data(sort=sort)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(placement="distributed",
                          loss="exp", price="pow:4", learner=spec, n_iter=8, random_state=3).fit(Xd, yd)
    local = rankcore.PushBoost(loss="exp", price="pow:4", learner=spec, n_iter=8, random_state=3).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 8
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    scores = model.decision_function(Xd)
    np.testing.assert_allclose(np.asarray(scores.compute()), local.decision_function(X), rtol=1e-9, atol=1e-9)
    # one round trip per pass: at most a root and (max_leaves - 1) splits per tree, plus the objective's
    leaves = max(r.n_leaves for r in model.rankers_)
    assert model.fit_info_["round_trips"] <= 8 * (leaves + 3) + 2
    if "depthwise" in spec:
        # one round trip per level: 8 leaves need at most 4 levels (root + 3 splitting passes) per tree,
        # where leaf-wise growth takes 8 passes
        depth = max(_depth(r) for r in model.rankers_)
        assert depth <= 7
        assert model.fit_info_["round_trips"] <= 8 * (depth + 1 + 3) + 2


def test_dask_monotone_trees_split_no_node_into_children_of_one_value(dask_client):  # noqa: F811
    # children clamped to one bound change no score; their "gain" is rounding, and the chunked sums fell on the
    # other side of it: such splits are refused, so both routes grow the same trees
    rng = np.random.default_rng(5)
    n = 900
    X = rng.normal(size=(n, 5))
    X[:, 0] = np.round(X[:, 0], 1)
    X[:, 3] = 2.0
    y = (np.sin(3 * X[:, 0]) - X[:, 1] ** 2 + X[:, 2] + rng.normal(size=n) > 0).astype(int)
    w = rng.uniform(0.2, 3, n)
    spec = "trees:max_leaves=16,min_samples_leaf=2,monotone=-1/1/1/0/0,growth=depthwise,max_depth=3"
    chunks = (300, 300, 300)
    model = DaskPushBoost(placement="distributed", loss="exp", learner=spec, n_iter=6, random_state=3).fit(
        da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,)),
        sample_weight=da.from_array(w, chunks=(chunks,)))
    local = rankcore.PushBoost(loss="exp", learner=spec, n_iter=6, random_state=3).fit(X, y, sample_weight=w)
    for a, b in zip(model.rankers_, local.rankers_):
        np.testing.assert_array_equal(a.left, b.left)
        np.testing.assert_array_equal(a.feature, b.feature)
        leaves = b.left < 0
        parents = np.flatnonzero(b.left >= 0)
        both_leaves = parents[leaves[b.left[parents]] & leaves[b.right[parents]]]
        assert not np.any(b.value[b.left[both_leaves]] == b.value[b.right[both_leaves]])


def _depth(tree):
    """Depth of a TreeRanker (number of split levels)."""
    def walk(i):
        return 0 if tree.left[i] < 0 else 1 + max(walk(tree.left[i]), walk(tree.right[i]))
    return walk(0)


def test_dask_trees_refuse_the_pairwise_path(dask_client):
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    with pytest.raises(ValueError, match="multi-pass"):
        DaskPushBoost(placement="distributed", loss="hinge", price="pow:2", learner="trees", n_iter=2).fit(Xd, yd)


def test_categorical_trees_on_dask_equal_the_in_memory_fit(dask_client):  # noqa: F811
    """The learner's ``categorical`` columns and ``categorical_features`` split by category groups on Dask as in
    memory (``test_dask_categories.py`` covers DataFrame category columns)."""
    X, y = _data(n=600)
    X[:, 2] = np.round(np.abs(X[:, 2]) * 3)                 # a few integer categories
    X[:, 4] = np.round(np.abs(X[:, 4]) * 2)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    for params in (dict(learner="trees:categorical=2,max_leaves=8,min_samples_leaf=5"),
                   dict(learner="trees:max_leaves=8,min_samples_leaf=5", categorical_features=[2, 4])):
        model = DaskPushBoost(placement="distributed", n_iter=6, random_state=3, **params).fit(Xd, yd)
        local = rankcore.PushBoost(n_iter=6, random_state=3, **params).fit(X, y)
        assert any(r.categorical for r in local.rankers_)
        for a, b in zip(model.rankers_, local.rankers_):
            for field in ("feature", "threshold", "nan_left", "left", "right"):
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
            assert all((p is None and q is None) or np.array_equal(p, q) for p, q in zip(a.categories, b.categories))
            np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        np.testing.assert_allclose(model.decision_function(Xd).compute(), local.decision_function(X), rtol=1e-9,
                                   atol=1e-9)


@pytest.mark.parametrize("sort, extra", [(True, ""), (False, ""), (True, ",interactions=0+1/1+2+3"),
                                         (False, ",interactions=0+4/1+2/3,random_strength=1"),
                                         (False, ",monotone=1/-1/0/1/0"),
                                         (True, ",monotone=-1/1/0/0/0,interactions=0+1/1+2+3")],
                         ids=["sorted", "shuffled", "interactions", "interactions-shuffled", "monotone-shuffled",
                              "monotone-interactions"])
def test_dask_oblivious_trees_equal_the_in_memory_fit(dask_client, sort, extra):  # noqa: F811
    """growth=oblivious through the public multi-pass protocol on Dask: the in-memory fit's trees, one pass a level
    (with interaction constraints too: each level's features within the groups of the levels above; with monotone
    signs: the leaf values projected onto the monotone order alike)."""
    X, y = _data(sort=sort)
    spec = ("trees:growth=oblivious,max_depth=4,min_samples_leaf=5" + ("" if sort else ",subsample=0.7,colsample=0.8")
            + extra)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(placement="distributed",
                          loss="exp", price="pow:4", learner=spec, n_iter=8, random_state=3).fit(Xd, yd)
    local = rankcore.PushBoost(loss="exp", price="pow:4", learner=spec, n_iter=8, random_state=3).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 8
    groups = ([set(map(int, group.split("+"))) for group in extra.split("interactions=")[1].split(",")[0].split("/")]
              if "interactions" in extra else None)
    for a, b in zip(model.rankers_, local.rankers_):
        assert a.kind == b.kind == "oblivious_tree"
        for field in ("feature", "threshold", "nan_left"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        if groups:                                      # every level's features down to it lie in one group
            assert all(any(set(a.feature[:k + 1].tolist()) <= g for g in groups) for k in range(a.depth))
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)
    scores = model.decision_function(Xd)
    np.testing.assert_allclose(np.asarray(scores.compute()), local.decision_function(X), rtol=1e-9, atol=1e-9)
    # one round trip per level: the root and at most 4 levels per tree, plus the objective's
    assert model.fit_info_["round_trips"] <= 8 * (1 + 4 + 3) + 2


def test_dask_oblivious_trees_equal_the_in_memory_fit_with_constant_columns(dask_client):  # noqa: F811
    """In memory the oblivious layout leaves out the constant columns, on Dask it stores them: the same trees, since
    each level's noise is keyed by the column of X on both routes."""
    X, y = _data(sort=False)
    X = np.column_stack([np.zeros(len(y)), X[:, :2], np.full(len(y), 3.0), X[:, 2:], np.ones(len(y))])
    spec = "trees:growth=oblivious,max_depth=4,min_samples_leaf=5,random_strength=2,subsample=0.8"
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(placement="distributed", learner=spec, n_iter=8, random_state=5).fit(Xd, yd)
    local = rankcore.PushBoost(learner=spec, n_iter=8, random_state=5).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 8
    used = set()
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        used |= set(np.asarray(a.feature).tolist())
    assert len(used) >= 3 and not used & {0, 3, X.shape[1] - 1}


def test_default_leafwise_trees_equal_the_in_memory_fit_in_few_round_trips(dask_client):  # noqa: F811
    """The default ``trees`` (leaf-wise, 31 leaves, subsample 0.8): the in-memory model, about a third of the passes."""
    X, y = _data(n=3000, d=6, seed=4, sort=False)
    chunks = (700, 300, 1200, 800)
    Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
    model = DaskPushBoost(placement="distributed", learner="trees", n_iter=4, random_state=0).fit(Xd, yd)
    local = rankcore.PushBoost(learner="trees", n_iter=4, random_state=0).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 4
    for a, b in zip(model.rankers_, local.rankers_):
        assert a.n_leaves == 31
        for field in ("feature", "threshold", "nan_left", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-9)
    # one pass per split would be 1 + 30 per tree, plus the line summary: batched, well under half of that
    assert model.fit_info_["round_trips"] <= 4 * 16 + 2


@pytest.mark.parametrize("spec", [
    "trees:max_leaves=6,min_samples_leaf=5,colsample=0.3",
    "trees:max_leaves=6,min_samples_leaf=5,colsample=0.5,interactions=0+1/2/3+4+5/6+7",
    "trees:growth=oblivious,max_depth=3,min_samples_leaf=5,colsample=0.3,subsample=0.8",
], ids=["leafwise", "interactions", "oblivious"])
def test_dask_trees_draw_the_in_memory_columns_when_some_cannot_split(dask_client, spec):  # noqa: F811
    """In memory the columns that cannot split are often not stored, on Dask they are: colsample draws among the
    columns that can split on both routes (one reduction over the rows finds them), so the trees stay equal."""
    X, y = _data(sort=False)
    n = len(y)
    rare = np.zeros(n)
    rare[:3] = 1.0                                                  # a bin edge, nonzero on too few rows
    flag = (np.arange(n) % 5 == 0).astype(float)                    # two values (Dask refuses NaN)
    X = np.column_stack([X[:, :2], np.full(n, 7.0), np.zeros(n), X[:, 2:4], rare, flag, X[:, 4]])
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    model = DaskPushBoost(placement="distributed", learner=spec, n_iter=10, random_state=2).fit(Xd, yd)
    local = rankcore.PushBoost(learner=spec, n_iter=10, random_state=2).fit(X, y)
    assert model.n_iter_ == local.n_iter_ == 10
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9)
        assert not set(np.asarray(a.feature).tolist()) & {2, 3}


def test_columns_in_no_interaction_group_are_named_once_on_the_client(dask_client):  # noqa: F811
    import warnings

    X, y = _data(sort=False)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DaskPushBoost(placement="distributed", learner="trees:interactions=0+1/2", n_iter=3,
                      random_state=0).fit(Xd, yd)
    said = [str(w.message) for w in caught if "in no group" in str(w.message)]
    assert len(said) == 1 and "the feature columns 3, 4 in no group" in said[0], said


def test_interaction_groups_by_the_dask_dataframe_s_column_names(dask_client):  # noqa: F811
    pd = pytest.importorskip("pandas")
    import dask.dataframe as dd

    X, y = _data(sort=False)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    ddf, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)
    local = rankcore.PushBoost(learner="trees:interactions=0+1/2+3", n_iter=5, random_state=0).fit(X, y)
    for placement in ("distributed", "one_worker"):
        model = DaskPushBoost(placement=placement, learner="trees:interactions=a+b/c+d", n_iter=5,
                              random_state=0).fit(ddf, dy)
        assert model.learner_spec_ == local.learner_spec_ and model.learner_spec_.endswith("interactions=0+1/2+3")
        np.testing.assert_allclose(np.asarray(model.decision_function(ddf)), local.decision_function(X), rtol=1e-9,
                                   atol=1e-12)
    with pytest.raises(ValueError, match="interactions: 'f' is not a column of X"):
        DaskPushBoost(placement="distributed", learner="trees:interactions=a+f", n_iter=2).fit(ddf, dy)
    with pytest.raises(ValueError, match="are given by name, but X has no column names"):
        DaskPushBoost(placement="distributed", learner="trees:interactions=a+b", n_iter=2).fit(
            da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,)))


def test_a_continuation_may_give_the_groups_by_name_on_dask(dask_client):  # noqa: F811
    pd = pytest.importorskip("pandas")
    import dask.dataframe as dd

    X, y = _data(sort=False)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    ddf, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)
    first = DaskPushBoost(learner="trees:interactions=a+b/c", n_iter=3, random_state=0).fit(ddf, dy)
    local = rankcore.PushBoost(learner="trees:interactions=a+b/c", n_iter=5, random_state=0).fit(
        frame, y, init_model=first)
    for placement in ("distributed", "one_worker"):
        for learner in ("trees:interactions=a+b/c", "trees:interactions=0+1/2"):     # by name or by index
            more = DaskPushBoost(placement=placement, learner=learner, n_iter=5, random_state=0).fit(
                ddf, dy, init_model=first)
            assert more.init_iterations_ == 3 and more.learner_spec_ == first.learner_spec_
            np.testing.assert_allclose(np.asarray(more.decision_function(ddf)), local.decision_function(frame),
                                       rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match=r"init_model: the model was fitted with interactions=0\+1/2"):
        DaskPushBoost(learner="trees:interactions=a+c", n_iter=2).fit(ddf, dy, init_model=first)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_columns_in_no_group_are_named_by_the_frame_s_names_on_either_placement(dask_client, placement):  # noqa: F811
    import warnings

    pd = pytest.importorskip("pandas")
    import dask.dataframe as dd

    X, y = _data(sort=False)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    ddf, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DaskPushBoost(placement=placement, learner="trees:interactions=a+b/c", n_iter=2, random_state=0).fit(ddf, dy)
    said = [str(w.message) for w in caught if "in no group" in str(w.message)]
    assert len(said) == 1 and "the feature columns d (column 3), e (column 4) in no group" in said[0], said
