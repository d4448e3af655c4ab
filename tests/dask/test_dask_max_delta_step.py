"""``trees:max_delta_step`` on Dask: the distributed multi-pass search caps the leaves as the in-memory grower does
(the same splits; the values equal up to the rounding of the chunked sums, exactly ±cap where the cap binds), and
the one-worker placement is the in-memory fit bit for bit; a cap too small to go on ends the fit naming itself, as
in memory."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CAP = 0.15


def _data(n=900, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 0] = np.round(X[:, 0], 1)
    y = (np.sin(3 * X[:, 0]) - X[:, 1] ** 2 + X[:, 2] + rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("spec", [
    f"trees:max_leaves=8,min_samples_leaf=5,line_search=false,max_delta_step={CAP}",
    f"trees:max_leaves=8,min_samples_leaf=5,growth=depthwise,max_delta_step={CAP}",
    f"trees:max_depth=3,growth=oblivious,min_samples_leaf=5,line_search=false,max_delta_step={CAP}",
    f"trees:max_leaves=8,min_samples_leaf=5,monotone=1/-1/0/0/0,max_delta_step={CAP}",
], ids=["leafwise", "depthwise", "oblivious", "monotone"])
def test_capped_dask_trees_equal_the_in_memory_fit(dask_client, spec):  # noqa: F811
    X, y = _data()
    chunks = (300, 300, 300)
    params = dict(loss="exp", price="pow:4", learner=spec, n_iter=6, random_state=3)
    local = rankcore.PushBoost(**params).fit(X, y)
    model = DaskPushBoost(placement="distributed", **params).fit(da.from_array(X, chunks=(chunks, -1)),
                                                                 da.from_array(y, chunks=(chunks,)))
    one = DaskPushBoost(placement="one_worker", **params).fit(da.from_array(X, chunks=(chunks, -1)),
                                                              da.from_array(y, chunks=(chunks,)))
    np.testing.assert_array_equal(one.decision_function(X), local.decision_function(X))
    assert model.n_iter_ == local.n_iter_ == 6
    at_cap = 0
    for a, b in zip(model.rankers_, local.rankers_):
        for field in ("feature", "threshold", "nan_left") + (("left", "right") if hasattr(b, "left") else ()):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-15)
        assert np.all(np.abs(a.value) <= CAP)
        capped = np.abs(b.value) == CAP
        np.testing.assert_array_equal(a.value[capped], b.value[capped])
        at_cap += int(capped.sum())
    assert at_cap > 0
    np.testing.assert_allclose(model.alphas_, local.alphas_, rtol=1e-9)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
def test_a_tiny_cap_names_itself_on_dask(dask_client, growth, placement):  # noqa: F811
    """A cap that leaves every tree too small a step ends the fit as in memory: ``no_split``, naming the cap."""
    X, y = _data(600)
    chunks = (300, 300)
    params = dict(learner=f"trees:growth={growth},max_delta_step=1e-30", n_iter=4, random_state=0)
    with pytest.warns(UserWarning) as caught:
        model = DaskPushBoost(placement=placement, **params).fit(da.from_array(X, chunks=(chunks, -1)),
                                                                 da.from_array(y, chunks=(chunks,)))
    with pytest.warns(UserWarning) as local_caught:
        local = rankcore.PushBoost(**params).fit(X, y)
    assert model.stop_reason_ == local.stop_reason_ == "no_split" and model.n_iter_ == local.n_iter_ == 0
    # the same account (the derivative, a sum over the chunks, may differ in its last bits)
    named = [re.sub(r"derivative \S+", "derivative d", str(w.message)) for w in caught
             if "max_delta_step" in str(w.message)]
    assert named == [re.sub(r"derivative \S+", "derivative d", str(w.message)) for w in local_caught
                     if "max_delta_step" in str(w.message)]
    assert len(named) == 1 and ("the cap max_delta_step=1e-30 clamped every leaf value of this tree to +-1e-30, "
                                "too small a step to go on") in named[0]
    assert "raise max_delta_step, or set it to 0 (no cap)" in named[0]


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_a_binding_cap_on_a_converged_fit_says_converged_on_dask(dask_client, growth, placement):  # noqa: F811
    """A tol the uncapped tree is within too: the cap binds on every leaf but did not end the fit, on Dask as in
    memory (the multi-pass search records the tree's uncapped derivative as the native grower does)."""
    X, y = _data(600)
    params = dict(learner=f"trees:growth={growth},max_delta_step=0.05", n_iter=4, random_state=0, tol=10.0)
    with pytest.warns(UserWarning) as caught:
        model = DaskPushBoost(placement=placement, **params).fit(da.from_array(X, chunks=(300, -1)),
                                                                 da.from_array(y, chunks=300))
    with pytest.warns(UserWarning, match=r"^boosting added no weak ranker \(stop_reason_ = 'converged'\)"):
        local = rankcore.PushBoost(**params).fit(X, y)
    assert model.stop_reason_ == local.stop_reason_ == "converged" and model.n_iter_ == local.n_iter_ == 0
    assert not any("max_delta_step" in str(w.message) for w in caught)


def _blame_case(q, t):
    """A cap clamping some leaves of the first capped tree, and a tol a fraction ``t`` of the way from that tree's
    |derivative| to its own uncapped one (``tests/learners/test_tree_max_delta_step_false_blame.py``)."""
    import rankcore.push._driver as driver

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=300) > 0.5).astype(int)
    spec = "trees:min_samples_leaf=5,growth=depthwise,max_depth=3"
    first = rankcore.PushBoost(learner=spec, random_state=0, n_iter=1, tol=0.0).fit(X, y).rankers_[0]
    leaves = np.abs(first.value[first.left < 0])
    cap = float(np.percentile(leaves[leaves != 0], q))
    seen, spied = [], driver._stalled_by_learner
    driver._stalled_by_learner = lambda backend, layout, result, iteration, ranker, *args: (
        seen.append((args[0], ranker.uncapped_derivative)), spied(backend, layout, result, iteration, ranker, *args))
    try:
        with pytest.warns(UserWarning):
            rankcore.PushBoost(learner=f"{spec},max_delta_step={cap!r}", random_state=0, n_iter=1, tol=1e9).fit(X, y)
    finally:
        driver._stalled_by_learner = spied
    (derivative, uncapped), = seen
    return X, y, f"{spec},max_delta_step={cap!r}", abs(derivative) + t * (abs(uncapped) - abs(derivative))


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
@pytest.mark.parametrize("q, t, named", [(80, 0.9, False), (60, 0.5, True)], ids=["converged", "named"])
def test_a_cap_on_some_leaves_is_named_on_dask_as_in_memory(dask_client, placement, q, t, named):  # noqa: F811
    """The stop rule asks for the tree the fit without the cap would take: on Dask the lead shard's copy of the
    layout searches without the cap too (the plan carries it), so the cap is named, or not, as in memory."""
    X, y, spec, tol = _blame_case(q, t)
    params = dict(learner=spec, n_iter=2, random_state=0, tol=tol)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskPushBoost(placement=placement, **params).fit(da.from_array(X, chunks=(150, -1)),
                                                                 da.from_array(y, chunks=150))
        local = rankcore.PushBoost(**params).fit(X, y)
    assert model.stop_reason_ == local.stop_reason_ == ("no_split" if named else "converged")
    assert model.n_iter_ == local.n_iter_ == 0
    blamed = [str(w.message) for w in caught if "raise max_delta_step" in str(w.message)]
    assert len(blamed) == (2 if named else 0), blamed
