"""Categorical columns on Dask: a DataFrame's ``category`` columns and ``categorical_features`` split by groups.

On the shared 2-worker LocalCluster (partitions of unequal sizes): the Dask fit is the in-memory fit of the same
frame -- bit for bit on one worker; distributed, the same trees (features, thresholds, category groups, NaN
sides, structure), leaf values and α to 1e-9, as for numeric columns (the histograms are added over the workers
in another order than one block's).  Prediction reads categories by value, as in memory.  No part of Dask is
mocked.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.learners import InMemoryRows  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

LEVELS = ["amber", "blue", "coral", "dune", "ember", "fern", "gold"]       # 'gold' never occurs
SPEC = "trees:max_leaves=8,min_samples_leaf=5"
#: Partition sizes (600 rows): unequal, so that categories and queries cross partition borders.
DIVISIONS = (0, 150, 187, 400, 599)           # (the last one inclusive)
SIZES = (150, 37, 213, 200)
PLACEMENTS = ["one_worker", "distributed"]


def _frame(n=600, seed=0):
    """(frame, y, qid): 'colour' of strings (one category unused), 'shop' of integers, 'x' and 'z' numbers (z: five
    integer values, split by groups with ``categorical_features``)."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(LEVELS[:-1], n)
    shop = rng.choice([3, 17, 40, 41], n)
    x = rng.normal(size=n)
    z = rng.integers(0, 5, n).astype(float)
    y = (np.isin(colour, ["blue", "ember"]) + 0.4 * x + 0.5 * (z == 2) + 0.3 * (shop == 17)
         + 0.5 * rng.normal(size=n) > 0.9).astype(int)
    frame = pd.DataFrame({"colour": pd.Categorical(colour, categories=LEVELS), "x": x,
                          "shop": pd.Categorical(shop), "z": z})
    return frame, y, rng.integers(0, 40, n)


def _dask(frame, *vectors):
    """The frame and vectors as Dask collections of the partitions ``DIVISIONS``."""
    parts = [dd.from_pandas(frame, npartitions=1).repartition(divisions=list(DIVISIONS))]
    return parts + [da.from_array(v, chunks=(SIZES,)) for v in vectors]


def _assert_same_trees(model, local, *, exact):
    assert len(model.rankers_) == len(local.rankers_) > 0
    assert any(r.categorical for r in local.rankers_)
    close = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12))
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left", "left", "right"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        assert len(a.categories) == len(b.categories)
        for ca, cb in zip(a.categories, b.categories):
            assert (ca is None) == (cb is None) and (ca is None or np.array_equal(ca, cb))
        close(a.value, b.value)
    close(model.alphas_, local.alphas_)


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("queries", [False, True], ids=["one-list", "qid"])
def test_a_category_frame_on_dask_is_the_in_memory_fit(dask_client, placement, queries):  # noqa: F811
    frame, y, qid = _frame()
    fd, yd, qd = _dask(frame, y, qid)
    params = dict(learner=SPEC, n_iter=8, random_state=3, categorical_features=["z"], early_stopping=False)
    fit_kwargs, local_kwargs = ({"qid": qd}, {"qid": qid}) if queries else ({}, {})
    model = DaskPushBoost(placement=placement, **params).fit(fd, yd, **fit_kwargs)
    local = rankcore.PushBoost(**params).fit(frame, y, **local_kwargs)
    assert model.fit_info_["placement"] == placement
    exact = placement == "one_worker"
    _assert_same_trees(model, local, exact=exact)
    assert [None if c is None else list(c) for c in model.categories_] == \
        [LEVELS, None, [3, 17, 40, 41], None] == [None if c is None else list(c) for c in local.categories_]
    # the columns split by groups: the frame's two category columns and z
    assert {int(f) for r in model.rankers_ for f, c in zip(r.feature, r.categories) if c is not None} <= {0, 2, 3}
    lazy = model.decision_function(fd)
    assert isinstance(lazy, da.Array)
    check = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9))
    check(lazy.compute(), local.decision_function(frame))
    check(model.decision_function(frame), local.decision_function(frame))       # an in-memory frame
    # the model saved through to_local() keeps the categories and scores frames by value
    np.testing.assert_array_equal(model.to_local().decision_function(frame), model.decision_function(frame))


def test_an_in_memory_frame_given_to_a_dask_fit_is_encoded_as_a_dask_frame(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    params = dict(learner=SPEC, n_iter=5, random_state=0, early_stopping=False)
    model = DaskPushBoost(placement="distributed", **params).fit(frame, y)
    local = rankcore.PushBoost(**params).fit(frame, y)
    _assert_same_trees(model, local, exact=False)
    assert [None if c is None else list(c) for c in model.categories_] == [LEVELS, None, [3, 17, 40, 41], None]


def test_dask_prediction_reads_categories_by_value(dask_client):  # noqa: F811
    """Categories listed in another order, partitions listing only their own (unknown) categories, a category the
    fit never saw: each scores as the in-memory model scores the same values."""
    frame, y, _ = _frame()
    fd, yd = _dask(frame, y)
    model = DaskPushBoost(placement="distributed", learner=SPEC, n_iter=6, random_state=0).fit(fd, yd)
    expected = model.decision_function(fd).compute()
    reordered = frame.assign(colour=frame["colour"].cat.reorder_categories(LEVELS[::-1]))
    np.testing.assert_array_equal(model.decision_function(_dask(reordered)[0]).compute(), expected)
    np.testing.assert_array_equal(model.decision_function(reordered), expected)
    # read separately: each partition's categories are its own values (unknown on the Dask side)
    as_read = dd.from_pandas(frame.assign(colour=frame["colour"].astype(str), shop=frame["shop"].astype(int)),
                             npartitions=3)
    as_read = as_read.astype({"colour": "category", "shop": "category"})
    assert not as_read["colour"].cat.known
    np.testing.assert_array_equal(model.decision_function(as_read).compute(), expected)
    # a category unseen in fit scores as a missing value, as in memory
    unseen = frame.assign(colour=pd.Categorical(np.where(np.arange(len(frame)) % 3 == 0, "violet",
                                                         frame["colour"].astype(str))))
    local = model.to_local()
    np.testing.assert_array_equal(model.decision_function(_dask(unseen)[0]).compute(),
                                  local.decision_function(unseen))


def test_learner_categorical_columns_on_a_dask_array_are_the_in_memory_fit(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    X = np.column_stack([frame["colour"].cat.codes, frame["x"], frame["shop"].cat.codes, frame["z"]]).astype(float)
    Xd, yd = da.from_array(X, chunks=(SIZES, -1)), da.from_array(y, chunks=150)
    spec = SPEC + ",categorical=0;2,growth=depthwise"
    model = DaskPushBoost(placement="distributed", learner=spec, n_iter=6, random_state=1).fit(Xd, yd)
    local = rankcore.PushBoost(learner=spec, n_iter=6, random_state=1).fit(X, y)
    _assert_same_trees(model, local, exact=False)
    assert not hasattr(model, "categories_")        # an array: no categories kept, its codes are read as given


def test_init_model_continues_a_category_frame_distributed(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    fd, yd = _dask(frame, y)
    steady = dict(learner=SPEC + ",random_strength=0,subsample=1", random_state=0, early_stopping=False)
    first = rankcore.PushBoost(n_iter=4, **steady).fit(frame, y)
    local = rankcore.PushBoost(n_iter=3, **steady).fit(frame, y, init_model=first)
    model = DaskPushBoost(placement="distributed", n_iter=3, **steady).fit(fd, yd, init_model=first)
    assert model.fit_info_["placement"] == "distributed" and model.init_iterations_ == 4
    _assert_same_trees(model, local, exact=False)
    np.testing.assert_allclose(model.decision_function(fd).compute(), local.decision_function(frame), rtol=1e-9,
                               atol=1e-9)
    # a frame whose column lists the categories in another order: the in-memory continuation's refusal
    other = frame.assign(colour=frame["colour"].cat.reorder_categories(LEVELS[::-1]))
    with pytest.raises(ValueError, match="column 0's categories differ from the model's"):
        DaskPushBoost(placement="distributed", n_iter=2, **steady).fit(_dask(other)[0], yd, init_model=first)


def test_eval_set_frames_are_read_by_the_fit_categories(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    val, y_val, _ = _frame(n=200, seed=1)
    val = val.assign(colour=val["colour"].cat.reorder_categories(LEVELS[::-1]))       # other codes, same values
    fd, yd = _dask(frame, y)
    params = dict(learner=SPEC, n_iter=5, random_state=0, early_stopping=False)
    local = rankcore.PushBoost(**params).fit(frame, y, eval_set=(val, y_val))
    for placement in PLACEMENTS:
        model = DaskPushBoost(placement=placement, **params).fit(fd, yd, eval_set=(dd.from_pandas(val, 2), y_val))
        np.testing.assert_allclose(model.validation_scores_, local.validation_scores_, rtol=1e-9)


# ----------------------------------------------------------------------------------------------------------------
# What is still refused, with what to do
# ----------------------------------------------------------------------------------------------------------------
def test_unknown_categories_are_refused_at_fit_with_the_fix(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    fd = dd.from_pandas(frame.assign(colour=frame["colour"].astype(str)), npartitions=3).astype({"colour": "category"})
    yd = dd.from_pandas(pd.Series(y), npartitions=3)
    with pytest.raises(ValueError, match=r"X: column 'colour' is a 'category' column whose categories are unknown.*"
                                         r"X = X\.categorize\(columns=\['colour'\]\)"):
        DaskPushBoost(placement="distributed", learner=SPEC, n_iter=2).fit(fd, yd)
    known = fd.categorize(columns=["colour"])
    assert DaskPushBoost(placement="distributed", learner=SPEC, n_iter=2).fit(known, yd).n_iter_ == 2


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_a_missing_category_is_refused_by_column_with_the_fix(dask_client, placement):  # noqa: F811
    frame, y, _ = _frame()
    frame.loc[321, "colour"] = np.nan
    fd, yd = _dask(frame, y)
    with pytest.raises(ValueError, match=r"X: column 'colour' \(pandas 'category'\) has a missing value at index 321.*"
                                         r"add_categories\('missing'\)"):
        DaskPushBoost(placement=placement, learner=SPEC, n_iter=2).fit(fd, yd)


def test_a_category_column_is_refused_for_a_learner_that_does_not_split_groups(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    fd, yd = _dask(frame, y)
    with pytest.raises(TypeError, match=r"^X: column 'colour' is a pandas 'category' column, which only the trees "
                                        r"learner splits"):
        DaskPushBoost(placement="distributed", learner="stumps", n_iter=2).fit(fd, yd)
    with pytest.raises(ValueError, match="categorical_features: the learner 'stumps' does not split by category"):
        DaskPushBoost(placement="distributed", learner="stumps", categorical_features=[1], n_iter=2).fit(
            fd[["x", "z"]], yd)


def test_prediction_refuses_what_the_in_memory_model_refuses(dask_client):  # noqa: F811
    frame, y, _ = _frame()
    fd, yd = _dask(frame, y)
    model = DaskPushBoost(placement="distributed", learner=SPEC, n_iter=2, random_state=0).fit(fd, yd)
    codes = da.from_array(np.zeros((10, 4)), chunks=5)
    with pytest.raises(ValueError, match="the model was fitted on a DataFrame with the category column"):
        model.decision_function(codes)
    with pytest.raises(ValueError, match="column 'colour' was a pandas 'category' column in fit"):
        model.decision_function(fd.assign(colour=fd["colour"].cat.codes.astype(float)))
    numbers = DaskPushBoost(placement="distributed", learner=SPEC, n_iter=2, random_state=0).fit(
        fd.assign(colour=fd["colour"].cat.codes.astype(float), shop=fd["shop"].cat.codes.astype(float)), yd)
    with pytest.raises(ValueError, match="column 'colour' is a pandas 'category' column but was not categorical"):
        numbers.decision_function(fd)


# ----------------------------------------------------------------------------------------------------------------
# The categories of the rows: RowSource.distinct
# ----------------------------------------------------------------------------------------------------------------
def test_dask_rows_find_every_category_as_in_memory(dask_client):  # noqa: F811
    from rankcore.dask._inputs import as_row_chunks
    from rankcore.dask._prepare import DaskRows, summarize

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 9, 500), rng.normal(size=500), rng.permutation(500)]).astype(float)
    X[7, 0] = 11.0                                       # once, in one chunk
    w = rng.uniform(0.5, 2.0, 500)
    w[7] = 0.0                                           # of zero weight: a category all the same, as in memory
    data = as_row_chunks(da.from_array(X, chunks=(100, -1)), None, da.from_array(w, chunks=100))
    rows = DaskRows(dask_client, data, summarize(dask_client, data, task=None))
    for got, want in zip(rows.distinct([0, 2], 255), InMemoryRows(X, w).distinct([0, 2], 255)):
        np.testing.assert_array_equal(got, want)
    assert rows.distinct([0], 255)[0].tolist() == list(range(9)) + [11]
    assert rows.distinct([2], 255)[0].shape == (256,)         # more than asked for: enough to tell
    learner = rankcore.resolve("learner", "trees:max_leaves=4")
    direct = learner.prepare(X[:, :2], sample_weight=w, random_state=7, categorical_features=[0])
    through = learner.prepare_distributed(InMemoryRows(X[:, :2], w), random_state=7, categorical_features=[0])
    assert direct.categories.keys() == through.categories.keys() == {0}
    np.testing.assert_array_equal(direct.categories[0], through.categories[0])
    np.testing.assert_array_equal(direct.edges[0], through.edges[0])
    with pytest.raises(ValueError, match=r"categorical: column 2 has more than max_bins=255 categories \(a column "
                                         r"may hold at most 255"):
        learner.prepare_distributed(rows, random_state=7, categorical_features=[2])
