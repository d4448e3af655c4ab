"""Categorical columns on Dask, the edges: near-tied categories, the one-worker fit of a category frame, what the
caller is told (warnings, refusals by column name) and what a Dask frame is scored with.

On the shared 2-worker LocalCluster; no part of Dask is mocked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskAutoRanker, DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _shops(n=400, seed=0):
    """(frame, y): 'shop' a category column of integers, 'x' numbers."""
    rng = np.random.default_rng(seed)
    shop = rng.choice([3, 17, 40, 41], n)
    x = rng.normal(size=n)
    y = ((shop == 17) ^ (x > 1)).astype(int)
    return pd.DataFrame({"shop": pd.Categorical(shop), "x": x}), y


def _groups(model):
    return [[None if g is None else sorted(g.tolist()) for g in r.categories] for r in model.rankers_]


def test_many_small_categories_give_the_in_memory_groups_distributed(dask_client):  # noqa: F811
    """150 categories of about 13 rows: many tie at the first tree, and the distributed sums round otherwise than
    the in-memory ones; ties go by bin, so the groups are the in-memory fit's."""
    rng = np.random.default_rng(0)
    n, k = 2000, 150
    x = rng.normal(size=n)
    c = rng.permutation(np.arange(n) % k)
    y = (rng.normal(size=k)[c] + 0.3 * x + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    frame = pd.DataFrame({"c": pd.Categorical(c.astype(str)), "x": x})
    params = dict(learner="trees:subsample=1", n_iter=3, random_state=1, early_stopping=False)
    local = rankcore.PushBoost(**params).fit(frame, y)
    model = DaskPushBoost(placement="distributed", **params).fit(dd.from_pandas(frame, npartitions=4),
                                                                 da.from_array(y, chunks=500))
    assert _groups(model) == _groups(local)
    np.testing.assert_allclose(model.decision_function(frame), local.decision_function(frame), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("placement", ["one_worker", "distributed"])
def test_an_all_false_mask_within_queries_keeps_the_per_query_trees(dask_client, placement):  # noqa: F811
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    g = np.clip(np.round(X["a"] + 0.5 * rng.normal(size=n) + 1), 0, 3).to_numpy()
    qid = np.sort(rng.integers(0, 30, n))
    params = dict(learner="trees", n_iter=3, random_state=2, early_stopping=False, categorical_features=[False, False])
    local = rankcore.PushBoost(**params).fit(X, g, qid=qid)
    model = DaskPushBoost(placement=placement, **params).fit(dd.from_pandas(X, npartitions=3), g, qid=qid)
    assert type(model.rankers_[0]) is type(local.rankers_[0])
    np.testing.assert_allclose(model.to_local().decision_function(X), local.decision_function(X), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("placement", ["one_worker", "auto"])
def test_init_model_continues_a_category_frame_on_one_worker(dask_client, placement):  # noqa: F811
    frame, y = _shops()
    frame = frame.assign(colour=pd.Categorical(np.random.default_rng(1).choice(list("abcdef"), len(frame))))
    params = dict(learner="trees:max_leaves=8", random_state=0, early_stopping=False)
    first = rankcore.PushBoost(n_iter=3, **params).fit(frame, y)
    local = rankcore.PushBoost(n_iter=2, **params).fit(frame, y, init_model=first)
    model = DaskPushBoost(placement=placement, n_iter=2, **params).fit(dd.from_pandas(frame, npartitions=2), y,
                                                                       init_model=first)
    assert model.fit_info_["placement"] == "one_worker" and model.init_iterations_ == 3
    assert [None if c is None else list(c) for c in model.categories_] == \
        [None if c is None else list(c) for c in local.categories_]
    np.testing.assert_array_equal(model.decision_function(frame), local.decision_function(frame))


def test_one_worker_names_the_category_columns_of_an_eval_set_array(dask_client):  # noqa: F811
    frame, y = _shops()
    with pytest.raises(ValueError, match=r"eval_set X: the model was fitted on a DataFrame with the category "
                                         r"column\(s\) 'shop'"):
        DaskPushBoost(placement="one_worker", learner="trees:max_leaves=4", n_iter=2).fit(
            dd.from_pandas(frame, npartitions=2), y, eval_set=(frame.to_numpy(dtype=float), y))


def test_score_with_init_score_on_a_dask_frame(dask_client):  # noqa: F811
    frame, y = _shops()
    numbers = frame.assign(shop=frame["shop"].astype(float))
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(
        dd.from_pandas(frame, npartitions=2), y)
    init = np.random.default_rng(3).normal(size=len(frame))
    expected = model.to_local().score(frame, y, init_score=init)
    assert model.score(dd.from_pandas(frame, npartitions=3), y, init_score=init) == pytest.approx(expected, rel=1e-12)
    plain = DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(
        dd.from_pandas(numbers, npartitions=2), y)
    assert plain.score(dd.from_pandas(numbers, npartitions=3), da.from_array(y, chunks=150), init_score=init) == \
        pytest.approx(plain.to_local().score(numbers, y, init_score=init), rel=1e-12)


def test_the_auto_ranker_scores_a_dask_frame_with_category_columns(dask_client):  # noqa: F811
    frame, y = _shops()
    fd = dd.from_pandas(frame, npartitions=2)
    auto = DaskAutoRanker(candidates=["trees:n_iter=4"], random_state=0).fit(fd, y)
    expected = auto.decision_function(frame)
    np.testing.assert_array_equal(auto.decision_function(fd), expected)
    np.testing.assert_array_equal(auto.feature_contributions(fd), auto.feature_contributions(frame))


def test_categories_matching_none_of_the_fits_are_warned_about_in_the_caller(dask_client):  # noqa: F811
    frame, y = _shops()
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=8", n_iter=3, random_state=0).fit(
        dd.from_pandas(frame, npartitions=2), y)
    as_text = frame.assign(shop=frame["shop"].astype(int).astype(str).astype("category"))     # read from a CSV
    with pytest.warns(UserWarning, match="column 'shop' holds none of the categories seen in fit"):
        model.decision_function(dd.from_pandas(as_text, npartitions=2)).compute()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the training frame's categories: no warning
        model.decision_function(dd.from_pandas(frame, npartitions=2)).compute()


def _as_read(frame, column, values, npartitions=3):
    """A Dask frame whose ``column`` holds ``values`` as a 'category' column of unknown categories: each partition
    lists its own (a CSV read with dtype='category')."""
    fd = dd.from_pandas(frame.assign(**{column: values}), npartitions=npartitions).astype({column: "category"})
    assert not fd[column].cat.known
    return fd


def _caught(call):
    """(result, warnings raised by ``call()`` in this process), every warning recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


@pytest.mark.parametrize("given_client", [False, True], ids=["default-client", "client="])
def test_unknown_categories_matching_none_of_the_fits_are_warned_about_once_in_the_caller(dask_client,  # noqa: F811
                                                                                       given_client):
    """Each partition lists its own categories: the client reads them (one small reduction) and warns once, here,
    with the in-memory warning; the partitions (on the workers, where nobody would see it) never warn."""
    frame, y = _shops()
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=8", n_iter=3, random_state=0,
                          client=dask_client if given_client else None).fit(dd.from_pandas(frame, npartitions=2), y)
    text = frame["shop"].astype(int).astype(str)                # the shops of a CSV read as text
    as_text = _as_read(frame, "shop", text)
    lazy, caught = _caught(lambda: model.decision_function(as_text))      # before anything is computed
    warned = [str(w.message) for w in caught]
    assert warned == [
        "X: column 'shop' holds none of the categories seen in fit (fit: numbers such as 3; here: text such as "
        "'17'), so every row takes the unseen categories' side; convert the column to the fit's type"]
    assert caught[0].category is UserWarning and caught[0].filename == __file__      # the caller's line
    scores, caught = _caught(lazy.compute)
    assert caught == []
    local_frame = frame.assign(shop=text.astype("category"))
    with pytest.warns(UserWarning, match="column 'shop' holds none of the categories seen in fit") as in_memory:
        expected = model.to_local().decision_function(local_frame)
    assert [str(w.message) for w in in_memory] == warned          # the in-memory warning, word for word
    np.testing.assert_array_equal(scores, expected)
    # computed in this process, the partitions' own warnings would show up here: there are none
    with dask.config.set(scheduler="synchronous"):
        _, caught = _caught(lambda: model.decision_function(as_text).compute())
    assert len(caught) == 1


def test_known_kinds_of_categories_are_not_warned_about_on_dask_nor_in_memory(dask_client):  # noqa: F811
    """Categories of the fit's kind -- listed in another order, each partition listing its own, or holding a
    category the fit never saw (it scores as a missing value) -- give no warning, as in memory, and the scores of
    the in-memory model."""
    frame, y = _shops()
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=8", n_iter=3, random_state=0).fit(
        dd.from_pandas(frame, npartitions=2), y)
    local = model.to_local()
    shops = frame["shop"].astype(int)
    reordered = frame.assign(shop=frame["shop"].cat.reorder_categories([41, 40, 17, 3]))
    unseen = frame.assign(shop=pd.Categorical(np.where(np.arange(len(frame)) % 5 == 0, 99, shops)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for X, local_X in [(dd.from_pandas(reordered, npartitions=2), reordered),
                           (_as_read(frame, "shop", shops), frame),
                           (dd.from_pandas(unseen, npartitions=2), unseen),
                           (_as_read(frame, "shop", unseen["shop"].astype(int)), unseen)]:
            np.testing.assert_array_equal(model.decision_function(X).compute(), local.decision_function(local_X))
    assert not np.array_equal(local.decision_function(unseen), local.decision_function(frame))



def _first_partition_emptied(fd):
    """``fd`` with its first partition emptied by a map_partitions: Dask stands in for that empty partition by the
    meta, whose unknown categories are its placeholder '__UNKNOWN_CATEGORIES__'."""
    return fd.map_partitions(lambda part: part.iloc[:0] if len(part) and part.index[0] == 0 else part, meta=fd._meta)


@pytest.mark.parametrize("given_client", [False, True], ids=["default-client", "client="])
def test_an_empty_partition_lists_no_category(dask_client, given_client):  # noqa: F811
    """Dask's placeholder of unknown categories, listed by an empty partition, is no category: unseen categories of
    the fit's kind are not warned about (they were, the placeholder making them look like text), and text is
    warned about with one of its own values."""
    frame, y = _shops()
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=8", n_iter=3, random_state=0,
                          client=dask_client if given_client else None).fit(dd.from_pandas(frame, npartitions=2), y)
    unseen = pd.Series(np.where(np.arange(len(frame)) % 2, 98, 99))
    X = _first_partition_emptied(_as_read(frame, "shop", unseen, npartitions=4))
    assert "__UNKNOWN_CATEGORIES__" in X.partitions[0].compute()["shop"].cat.categories
    scores, caught = _caught(lambda: model.decision_function(X).compute())
    assert caught == []
    assert np.isfinite(scores).all() and scores.shape[0] == 300        # the 3 partitions of rows
    text = _first_partition_emptied(_as_read(frame, "shop", frame["shop"].astype(int).astype(str), npartitions=4))
    _, caught = _caught(lambda: model.decision_function(text))
    assert [str(w.message) for w in caught] == [
        "X: column 'shop' holds none of the categories seen in fit (fit: numbers such as 3; here: text such as "
        "'17'), so every row takes the unseen categories' side; convert the column to the fit's type"]

def test_text_columns_and_repeated_names_are_refused_by_column(dask_client):  # noqa: F811
    frame, y = _shops()
    text = dd.from_pandas(frame.assign(colour=np.where(frame["x"] > 0, "a", "b")), npartitions=2)
    with pytest.raises(TypeError, match=r"^X: column 'colour' holds text, not numbers.*"
                                        r"X = X\.categorize\(columns=\['colour'\]\)"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2,
                      categorical_features=["colour"]).fit(text, y)
    repeated = frame.assign(z=frame["x"])
    repeated.columns = ["shop", "x", "shop"]
    for X in (repeated, repeated.assign(shop=0.0)):
        with pytest.raises(ValueError, match=r"X: expected unique column names, got \['shop'\] more than once"):
            DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2).fit(
                dd.from_pandas(X, npartitions=2), y)


def test_a_value_outside_the_declared_categories_is_named(dask_client):  # noqa: F811
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"colour": pd.Categorical(rng.choice(list("abcdef"), 300)), "x": rng.normal(size=300)})
    frame.loc[frame.index[200], "colour"] = "f"
    y = (frame["x"] > 0).astype(int).to_numpy()
    meta = frame.iloc[:0].assign(colour=frame["colour"].iloc[:0].cat.set_categories(list("abcde")))      # no 'f'
    parts = [frame.iloc[:150], frame.iloc[150:]]
    stale = dd.from_map(lambda i: parts[i], range(2), meta=meta, divisions=None)
    with pytest.raises(ValueError, match=r"X: column 'colour' holds 'f' at index \d+, which is not among the "
                                         r"column's declared categories.*cat\.as_unknown\(\)"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2).fit(stale, y)


def test_too_many_categories_name_the_column_distributed(dask_client):  # noqa: F811
    frame = pd.DataFrame({"x": np.linspace(-1, 1, 600), "shop_id": pd.Categorical((np.arange(600) % 300).astype(str))})
    y = (frame["x"] > 0).astype(int).to_numpy()
    with pytest.raises(ValueError, match=r"categorical: column 'shop_id' \(column 1\) has more than max_bins=255 "
                                         r"categories \(a column may hold at most 255"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2).fit(
            dd.from_pandas(frame, npartitions=2), y)


def test_the_one_worker_fit_folds_a_column_of_too_many_categories(dask_client):  # noqa: F811
    # the worker runs the in-memory fit: the column keeps its 255 most frequent levels, as in memory; the
    # distributed fit (above) still refuses it
    rng = np.random.default_rng(1)
    item = rng.zipf(1.3, 1500) % 900
    frame = pd.DataFrame({"x": rng.normal(size=1500), "item": pd.Categorical(item, categories=np.arange(900))})
    y = ((frame["x"] + (item % 5 == 0)) > 0.4).astype(int).to_numpy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskPushBoost(placement="one_worker", learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(
            dd.from_pandas(frame, npartitions=2), y)
        local = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(frame, y)
    assert sum("the fit keeps the 255 most frequent" in str(w.message) for w in caught) == 2
    np.testing.assert_array_equal(model.categories_[1], local.categories_[1])
    np.testing.assert_array_equal(model.decision_function(frame), local.decision_function(frame))


def test_integer_ids_beyond_2_53_are_refused_as_categories_on_dask(dask_client):  # noqa: F811
    rng = np.random.default_rng(0)
    ids = rng.choice(np.array([2**53, 2**53 + 1], dtype=np.int64), 300)
    frame = pd.DataFrame({"shop": ids, "x": rng.normal(size=300)})
    y = ((ids == 2**53 + 1) ^ (frame["x"] > 1.5)).astype(int).to_numpy()
    with pytest.raises(ValueError, match=r"X: column 'shop' holds the integer 9007199254740993, beyond ±2\*\*53"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2,
                      categorical_features=["shop"]).fit(dd.from_pandas(frame, npartitions=2), y)
    with pytest.raises(ValueError, match=r"X: column 0 holds the integer 9007199254740993"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2, categorical_features=[0]).fit(
            da.from_array(np.column_stack([ids, ids % 7]), chunks=(100, 1)), y)
    # the same ids as a 'category' column are matched exactly
    model = DaskPushBoost(placement="distributed", learner="trees:max_leaves=4", n_iter=2).fit(
        dd.from_pandas(frame.assign(shop=frame["shop"].astype("category")), npartitions=2), y)
    assert list(model.categories_[0]) == [2**53, 2**53 + 1]
