"""``trees:max_delta_step`` on Dask: the distributed multi-pass search caps the leaves as the in-memory grower does
(the same splits; the values equal up to the rounding of the chunked sums, exactly ±cap where the cap binds), and
the one-worker placement is the in-memory fit bit for bit; a cap too small to go on ends the fit naming itself, as
in memory."""

from __future__ import annotations

import re

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
